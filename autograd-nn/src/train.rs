//! [`Trainer`]: a batch's gradient on a reused tape, allocation-free (summed over chunks of the
//! batch that fit on the tape, a sweep each); the training loop over it, with its configuration
//! and reports, is in `train/run.rs`.

use autograd_core::{Mark, NodeId, Number, Scalar, TapeView, Var};

use crate::data::Sample;
use crate::loss::Loss;
use crate::objective::{widths_from, Objective, Stats};
use crate::NnError;

mod run;

pub use run::{Outcome, Progress, Stop, TrainConfig};

/// Nodes kept free after the last sample of a chunk, for the reduction and the penalty sum.
const CHUNK_RESERVE: usize = 4;

/// Computes gradients on a tape that it reuses for every step, and runs training loops.
///
/// The `P` parameters are the first `P` leaves of the tape. A gradient computation sets their
/// values, then records samples after them: as many as the tape can hold per backward sweep
/// (a *chunk*), summing each chunk's gradient into an array. With a tape large enough for the
/// whole batch that is one sweep per step, as micrograd does it; with a small tape it is one
/// sweep per few samples, the same gradient (up to rounding) in bounded memory, because every
/// loss here is a sum over samples plus a penalty (recorded with the first chunk). Nothing is
/// allocated: the tape, the parameters and the gradient are all fixed-size.
///
/// Sizing: a sample costs at most [`Mlp::forward_slots`](crate::Mlp::forward_slots) plus a few
/// slots for its loss and the running sum (inputs are constants, which cost nothing); the L2
/// penalty at most `P + 1` (one statement, an operand a nonzero parameter). The trainer measures
/// a sample's cost on the first one and never starts a sample it has no room for. A tape that
/// cannot hold `P` parameters plus one sample is reported as [`NnError::Tape`] with the
/// capacity.
///
/// ```
/// use autograd_core::Tape;
/// use autograd_nn::{data, Activation, LearningRate, Mlp, Objective, Sgd, SquaredError,
///                   TrainConfig, Trainer};
///
/// const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
/// let objective = Objective::new(XOR, SquaredError);
/// let mut params = [0.0_f64; XOR.param_count()];
/// XOR.init(&mut params, autograd_nn::Init::Uniform, &mut autograd_nn::Rng::new(1))?;
///
/// let mut tape = Tape::<f64, 256>::new();
/// let mut trainer = Trainer::new(&mut tape, &params)?;
/// let stats = trainer.gradient(&objective, &params, &data::xor())?;
/// assert_eq!(stats.samples, 4);
/// // The first parameter's derivative against central differences of the plain loss.
/// let loss_at = |p0: f64| {
///     let mut p = params;
///     p[0] = p0;
///     objective.evaluate(&p, &data::xor())
/// };
/// let h = 1e-6;
/// let central = (loss_at(params[0] + h)? - loss_at(params[0] - h)?) / (2.0 * h);
/// assert!((trainer.grads()[0] - central).abs() < 1e-7);
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
pub struct Trainer<'t, S: Scalar, const P: usize> {
    tape: &'t mut TapeView<S>,
    /// The first parameter's leaf (the others follow it); `None` for a network without
    /// parameters, which `gradient` refuses.
    first: Option<NodeId>,
    params_end: Mark,
    slots_per_sample: usize,
    sweeps: usize,
    grads: [S; P],
}

impl<'t, S: Scalar, const P: usize> Trainer<'t, S, P> {
    /// Clears `tape` and records the `P` parameters on it as leaves.
    ///
    /// # Errors
    /// [`NnError::Tape`] if the tape cannot hold `P` leaves.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// use autograd_nn::{NnError, Trainer};
    /// let params = [0.5_f64, -1.0, 2.0];
    /// let mut tape = Tape::<f64, 16>::new();
    /// let trainer = Trainer::new(&mut tape, &params)?;
    /// assert_eq!((trainer.sweeps(), trainer.slots_per_sample()), (0, 0)); // nothing computed yet
    /// drop(trainer);
    /// assert_eq!(tape.len(), 3); // the parameters, one leaf each
    /// let mut small = Tape::<f64, 2>::new();
    /// let full = TapeError::CapacityExceeded { capacity: 2, needed: 3 };
    /// assert_eq!(Trainer::new(&mut small, &params).err(), Some(NnError::Tape(full)));
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn new(tape: &'t mut TapeView<S>, params: &[S; P]) -> Result<Self, NnError> {
        tape.clear();
        if P > tape.capacity() {
            return Err(NnError::Tape(autograd_core::TapeError::CapacityExceeded {
                capacity: tape.capacity(),
                needed: P,
            }));
        }
        // Consecutive leaves on the cleared tape: the first one's id names them all.
        let mut first = None;
        for p in params {
            let id = tape.try_var(*p)?.id();
            first = first.or(id);
        }
        let params_end = tape.mark();
        Ok(Trainer {
            tape,
            first,
            params_end,
            slots_per_sample: 0,
            sweeps: 0,
            grads: [S::ZERO; P],
        })
    }

    /// The gradient of the last [`gradient`](Self::gradient) call.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// use autograd_nn::{data::Sample, Activation, Mlp, Objective, SquaredError, Trainer};
    /// let line = Mlp::new([1, 1], Activation::Linear, Activation::Linear); // w x + b
    /// let objective = Objective::new(line, SquaredError);
    /// let params = [1.0_f64, 0.0]; // w, b
    /// let mut tape = Tape::<f64, 64>::new();
    /// let mut trainer = Trainer::new(&mut tape, &params)?;
    /// assert_eq!(trainer.grads(), &[0.0, 0.0]); // before any gradient
    /// trainer.gradient(&objective, &params, &[Sample { x: [2.0], y: 1.0 }])?;
    /// // (w x + b - y)^2 at (1, 0): d/dw = 2 (2 - 1) 2 = 4, d/db = 2 (2 - 1) = 2.
    /// assert_eq!(trainer.grads(), &[4.0, 2.0]);
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn grads(&self) -> &[S; P] {
        &self.grads
    }

    /// Backward sweeps the last [`gradient`](Self::gradient) call made (1 when the whole batch
    /// fits on the tape).
    ///
    /// ```
    /// use autograd_core::Tape;
    /// use autograd_nn::{data, Activation, Mlp, Objective, SquaredError, Trainer};
    /// const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    /// let objective = Objective::new(XOR, SquaredError);
    /// let params = [0.5_f64; XOR.param_count()];
    /// let mut big = Tape::<f64, 256>::new();
    /// let mut whole = Trainer::new(&mut big, &params)?;
    /// whole.gradient(&objective, &params, &data::xor())?;
    /// assert_eq!(whole.sweeps(), 1);
    /// // Room for the parameters and one sample by its bound, `forward_slots` (34) and 8 slots
    /// // for the loss and sums; not for four samples, which take 4 (2 + 1 + 4 + 4 + 1 + 1) = 52
    /// // for their layer statements alone: more than one sweep, at most one per sample.
    /// let mut small = Tape::<f64, { XOR.param_count() + XOR.forward_slots() + 8 }>::new();
    /// let mut chunked = Trainer::new(&mut small, &params)?;
    /// chunked.gradient(&objective, &params, &data::xor())?;
    /// assert!((2..=4).contains(&chunked.sweeps()), "{}", chunked.sweeps());
    /// // Same gradient, up to rounding.
    /// assert!(chunked.grads().iter().zip(whole.grads()).all(|(a, b)| (a - b).abs() < 1e-12));
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn sweeps(&self) -> usize {
        self.sweeps
    }

    /// Tape slots one sample took, as measured (0 before the first sample).
    ///
    /// ```
    /// use autograd_core::Tape;
    /// use autograd_nn::{data, Activation, Mlp, Objective, SquaredError, Trainer};
    /// const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    /// let params = [0.5_f64; XOR.param_count()];
    /// let mut tape = Tape::<f64, 256>::new();
    /// let mut trainer = Trainer::new(&mut tape, &params)?;
    /// assert_eq!(trainer.slots_per_sample(), 0);
    /// trainer.gradient(&Objective::new(XOR, SquaredError), &params, &data::xor())?;
    /// // At most the forward pass's bound, plus a few slots for the loss and the running sum.
    /// let per_sample = trainer.slots_per_sample();
    /// assert!(per_sample > 0 && per_sample <= XOR.forward_slots() + 5, "{per_sample}");
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn slots_per_sample(&self) -> usize {
        self.slots_per_sample
    }

    /// The gradient of `objective` at `params` over `batch`, into [`grads`](Self::grads);
    /// returns the loss and accuracy at `params`.
    ///
    /// # Errors
    /// As [`Objective::evaluate`]; [`NnError::Tape`] if the tape cannot hold the parameters
    /// plus one sample (or plus the penalty).
    ///
    /// ```
    /// use autograd_core::Tape;
    /// use autograd_nn::{data::Sample, Activation, Mlp, Objective, SquaredError, Trainer};
    /// let line = Mlp::new([1, 1], Activation::Linear, Activation::Linear); // w x + b
    /// let objective = Objective::new(line, SquaredError);
    /// let params = [1.0_f64, 0.0]; // w, b
    /// let mut tape = Tape::<f64, 64>::new();
    /// let mut trainer = Trainer::new(&mut tape, &params)?;
    /// let batch = [Sample { x: [2.0], y: 1.0 }, Sample { x: [-1.0], y: 0.0 }];
    /// let stats = trainer.gradient(&objective, &params, &batch)?;
    /// // Residuals w x + b - y: 1 and -1. The mean loss is (1 + 1) / 2 = 1;
    /// // d/dw = (2 (1) (2) + 2 (-1) (-1)) / 2 = 3 and d/db = (2 (1) + 2 (-1)) / 2 = 0.
    /// assert_eq!((stats.loss, *trainer.grads()), (1.0, [3.0, 0.0]));
    /// assert_eq!(stats.accuracy(), None); // real-valued targets: a regression has no accuracy
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn gradient<L: Loss, const D: usize, const I: usize>(
        &mut self,
        objective: &Objective<L, D>,
        params: &[S; P],
        batch: &[Sample<I>],
    ) -> Result<Stats, NnError> {
        let stats = self.chunks(objective, params, batch);
        if stats.is_err() {
            // (The chunks write the gradient as they go: none of it stands after a failure.)
            self.grads = [S::ZERO; P];
        }
        stats
    }

    /// [`gradient`](Self::gradient): the batch in chunks that fit on the tape, a sweep each, the
    /// first chunk's gradient written into [`grads`](Self::grads) and each later one's added.
    fn chunks<L: Loss, const D: usize, const I: usize>(
        &mut self,
        objective: &Objective<L, D>,
        params: &[S; P],
        batch: &[Sample<I>],
    ) -> Result<Stats, NnError> {
        objective.check(P, batch)?;
        // The first parameter's id (`objective.check` above has refused a network without).
        let Some(first) = self.first else {
            return Err(NnError::LengthMismatch {
                what: "parameters",
                expected: objective.model.param_count(),
                actual: 0,
            });
        };
        self.tape.rewind(self.params_end);
        // The parameters are the leaves recorded in order by `new`: set at once, tested once.
        self.tape.set_values(first, params)?;
        self.sweeps = 0;
        let model = &objective.model;
        let outputs = model.outputs();
        let scale = objective.scale(batch.len());
        let with_penalty = objective.l2 != 0.0;
        let (mut loss, mut correct, mut classified) = (0.0, 0, 0);
        let mut start = 0;
        let mut penalty_pending = with_penalty;
        // Samples a chunk may take; lowered if a chunk overflows the tape.
        let mut max_chunk = usize::MAX;
        while start < batch.len() || penalty_pending {
            self.tape.rewind(self.params_end);
            let tape: &TapeView<S> = self.tape;
            // The parameters as leaves checked once a chunk: each layer reads its weights from
            // their slots instead of testing a handle per weight per sample, and the gradient
            // is read from their slots too.
            let leaves = tape.leaves(first, P)?;
            let capacity = tape.capacity();
            // The penalty over the leaves themselves: `l2_penalty`'s statement, without an
            // array of `P` handles.
            let penalty = if penalty_pending {
                Some(Number::mul_f64(Var::dot_of(leaves, leaves)?, objective.l2))
            } else {
                None
            };
            let (mut chunk_correct, mut chunk_classified) = (0, 0);
            let mut sum: Option<Var<'_, S>> = None;
            let mut end = start;
            let mut overflow = false;
            while end < batch.len() && end - start < max_chunk {
                let before = tape.len();
                if end > start && capacity - before < self.slots_per_sample + CHUNK_RESERVE {
                    break;
                }
                let s = &batch[end];
                // Inputs are constants: no gradient is asked of them, so they cost no slot.
                // (A loop, not `core::array::from_fn`: on the M4F that copied the array of
                // handles through several temporaries, 67 instructions a sample.)
                let mut x = [Var::constant(S::ZERO); I];
                for (v, &xk) in x.iter_mut().zip(&s.x) {
                    *v = Var::constant(S::from_f64(xk));
                }
                let mut out = heapless::Vec::new();
                crate::mlp::resize(&mut out, outputs, D - 1)?;
                model.forward_leaves(leaves, &x, &mut out)?;
                let l = objective.loss.sample_unchecked(&out, s.y);
                sum = Some(match sum {
                    Some(acc) => acc + l,
                    None => l,
                });
                if tape.check().is_err() {
                    overflow = true;
                    break;
                }
                self.slots_per_sample = self.slots_per_sample.max(tape.len() - before);
                let values = widths_from(&out, |v| v.value().to_f64());
                if let Some(right) = objective.loss.is_correct(&values, s.y) {
                    chunk_classified += 1;
                    chunk_correct += usize::from(right);
                }
                end += 1;
            }
            // The chunk's loss is the sum the tape formed (in `S`, as the gradient is): one
            // conversion per chunk, not a conversion and a double-precision addition per sample,
            // library calls on a part without a double-precision FPU.
            let chunk_loss = sum.map_or(0.0, |s| s.value().to_f64());
            let mut total = sum.map(|s| {
                if scale == 1.0 {
                    s
                } else {
                    s * S::from_f64(scale)
                }
            });
            if let Some(p) = penalty {
                total = Some(match total {
                    Some(t) => t + p,
                    None => p,
                });
            }
            if overflow || tape.check().is_err() {
                let fitted = end - start;
                if overflow && fitted >= 1 {
                    // A sample costlier than the ones measured so far did not fit (costs vary:
                    // an inactive relu costs nothing): retry with the samples that did.
                    max_chunk = fitted;
                } else if fitted > 1 {
                    // Retry with fewer samples (room for the reduction was too tight).
                    max_chunk = fitted - 1;
                } else if penalty_pending && max_chunk > 0 {
                    // The penalty and a sample do not fit together: record the penalty alone.
                    max_chunk = 0;
                } else {
                    return Err(NnError::Tape(tape.check().err().unwrap_or(
                        // Nothing failed, yet not even one sample fits with what it needs.
                        autograd_core::TapeError::CapacityExceeded {
                            capacity,
                            needed: capacity + 1,
                        },
                    )));
                }
                continue;
            }
            let Some(total) = total else {
                // Nothing recorded (cannot happen with a non-empty batch); avoid a tight loop.
                return Err(NnError::EmptyBatch);
            };
            let grads = tape.backward(total)?;
            if self.sweeps == 0 {
                // The whole batch, when it fits: its gradient is the gradient, written where it
                // is kept (no array zeroed first, none added up).
                grads.write_leaves(leaves, &mut self.grads)?;
            } else {
                let mut chunk_grads = [S::ZERO; P];
                grads.write_leaves(leaves, &mut chunk_grads)?;
                for (g, c) in self.grads.iter_mut().zip(&chunk_grads) {
                    *g += *c;
                }
            }
            self.sweeps += 1;
            // The same sum as `chunk_loss * scale + penalty`, without the multiplication by 1
            // and the addition of 0 that cost a library call each on a part without an FPU.
            let mut chunk = chunk_loss;
            if scale != 1.0 {
                chunk *= scale;
            }
            if let Some(p) = penalty {
                chunk += p.value().to_f64();
            }
            loss += chunk;
            correct += chunk_correct;
            classified += chunk_classified;
            penalty_pending = false;
            if max_chunk == 0 {
                max_chunk = usize::MAX;
            }
            start = end;
        }
        Ok(Stats {
            loss,
            correct,
            classified,
            samples: batch.len(),
        })
    }
}
