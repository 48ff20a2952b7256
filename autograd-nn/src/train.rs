//! [`Objective`] (network + loss + regularisation) and [`Trainer`] (the allocation-free loop).

use core::ops::ControlFlow;

use autograd_core::{Mark, NodeId, Number, Scalar, TapeView, Var};

use crate::data::Sample;
use crate::loss::{l2_penalty, Loss, Reduction};
use crate::{Mlp, NnError, Optimizer, Rng, MAX_WIDTH};

/// What is minimised: a network, a per-sample loss, how a batch's losses combine, and an
/// optional L2 penalty `l2 * sum p^2`.
///
/// [`evaluate`](Self::evaluate) is generic over [`Number`], so the very function the trainer
/// differentiates on the tape can be evaluated on `f64` (finite differences) or on dual numbers
/// (forward mode) to check it.
///
/// ```
/// use autograd_nn::{data, Activation, Hinge, Mlp, Objective};
/// let model = Mlp::new([2, 3, 1], Activation::Relu, Activation::Linear);
/// let objective = Objective::new(model, Hinge).with_l2(1e-4);
/// let params = [0.0_f64; 13];
/// // All scores are 0, so every hinge term is 1 and the penalty is 0.
/// let loss = objective.evaluate(&params, &data::moons::<8>(0.1, 1))?;
/// assert_eq!(loss, 1.0);
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objective<L, const D: usize> {
    /// The network.
    pub model: Mlp<D>,
    /// The per-sample loss.
    pub loss: L,
    /// Mean or sum over the batch.
    pub reduction: Reduction,
    /// L2 coefficient (0 for none).
    pub l2: f64,
}

/// Loss and accuracy of a batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// The objective's value (data loss plus penalty).
    pub loss: f64,
    /// Samples counted as correct by the loss.
    pub correct: usize,
    /// Samples in the batch.
    pub samples: usize,
}

impl Stats {
    /// `correct / samples` (0 for an empty batch).
    pub fn accuracy(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.correct as f64 / self.samples as f64
        }
    }
}

impl<L: Loss, const D: usize> Objective<L, D> {
    /// Mean loss, no penalty.
    pub fn new(model: Mlp<D>, loss: L) -> Self {
        Objective {
            model,
            loss,
            reduction: Reduction::Mean,
            l2: 0.0,
        }
    }

    /// The same objective with another reduction.
    pub fn with_reduction(mut self, reduction: Reduction) -> Self {
        self.reduction = reduction;
        self
    }

    /// The same objective with the penalty `alpha * sum p^2`.
    pub fn with_l2(mut self, alpha: f64) -> Self {
        self.l2 = alpha;
        self
    }

    fn scale(&self, samples: usize) -> f64 {
        match self.reduction {
            Reduction::Mean => 1.0 / samples as f64,
            Reduction::Sum => 1.0,
        }
    }

    fn check<const I: usize>(&self, params: usize, batch: &[Sample<I>]) -> Result<(), NnError> {
        if batch.is_empty() {
            return Err(NnError::EmptyBatch);
        }
        for (what, expected, actual) in [
            ("parameters", self.model.param_count(), params),
            ("inputs", self.model.inputs(), I),
        ] {
            if expected != actual {
                return Err(NnError::LengthMismatch {
                    what,
                    expected,
                    actual,
                });
            }
        }
        batch
            .iter()
            .try_for_each(|s| self.loss.check_target(s.y, self.model.outputs()))
    }

    /// The objective at `params` over `batch`, in any number type: reduction of the per-sample
    /// losses, plus the penalty.
    ///
    /// # Errors
    /// [`NnError::EmptyBatch`], [`NnError::LengthMismatch`] (parameters, or the samples' input
    /// size), [`NnError::BadLabel`].
    pub fn evaluate<T: Number, const I: usize>(
        &self,
        params: &[T],
        batch: &[Sample<I>],
    ) -> Result<T, NnError> {
        Ok(self.evaluate_counting(params, batch)?.0)
    }

    fn evaluate_counting<T: Number, const I: usize>(
        &self,
        params: &[T],
        batch: &[Sample<I>],
    ) -> Result<(T, usize), NnError> {
        self.check(params.len(), batch)?;
        let outputs = self.model.outputs();
        let mut sum: Option<T> = None;
        let mut correct = 0;
        for s in batch {
            let x: [T; I] = core::array::from_fn(|k| T::from_f64(s.x[k]));
            let mut out = heapless::Vec::new();
            crate::mlp::resize::<T>(&mut out, outputs, D - 1)?;
            self.model.forward(params, &x, &mut out)?;
            let l = self.loss.sample(&out, s.y);
            sum = Some(match sum {
                Some(acc) => acc + l,
                None => l,
            });
            let values = widths_from(&out, |v| v.to_f64());
            correct += usize::from(self.loss.is_correct(&values, s.y));
        }
        let mut total = sum.unwrap_or_else(T::zero);
        if self.reduction == Reduction::Mean {
            total *= T::from_f64(self.scale(batch.len()));
        }
        if self.l2 != 0.0 {
            total += l2_penalty(self.l2, params);
        }
        Ok((total, correct))
    }

    /// Loss and accuracy at plain parameters.
    ///
    /// # Errors
    /// As [`evaluate`](Self::evaluate).
    pub fn stats<S: Scalar, const I: usize>(
        &self,
        params: &[S],
        batch: &[Sample<I>],
    ) -> Result<Stats, NnError> {
        let (loss, correct) = self.evaluate_counting(params, batch)?;
        Ok(Stats {
            loss: loss.to_f64(),
            correct,
            samples: batch.len(),
        })
    }
}

/// When to stop, and how to batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainConfig {
    /// At most this many updates.
    pub max_steps: usize,
    /// `None`: every step uses the whole data set (no shuffling). `Some(b)`: each step uses the
    /// next `b` samples of the data set, which is shuffled in place at the start of every epoch
    /// (a final remainder shorter than `b` is skipped).
    pub batch_size: Option<usize>,
    /// Stop, before updating, once a step's batch accuracy reaches this (e.g. `Some(1.0)`).
    pub target_accuracy: Option<f64>,
    /// Stop, before updating, once a step's batch loss is at or below this.
    pub target_loss: Option<f64>,
    /// Seed of the mini-batch shuffling.
    pub seed: u64,
}

impl TrainConfig {
    /// Full batch, `max_steps` updates, no target.
    pub const fn steps(max_steps: usize) -> Self {
        TrainConfig {
            max_steps,
            batch_size: None,
            target_accuracy: None,
            target_loss: None,
            seed: 0,
        }
    }
}

/// What the trainer reports after computing each step's gradient (before updating).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Step number, from 0.
    pub step: usize,
    /// The batch's loss at the current parameters.
    pub loss: f64,
    /// The batch's accuracy at the current parameters, in `[0, 1]`.
    pub accuracy: f64,
    /// The learning rate this step's update uses.
    pub learning_rate: f64,
}

/// Why training stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A step reached [`TrainConfig::target_accuracy`]; the parameters are those it measured.
    TargetAccuracy,
    /// A step reached [`TrainConfig::target_loss`]; the parameters are those it measured.
    TargetLoss,
    /// [`TrainConfig::max_steps`] updates were made.
    StepBudget,
    /// The callback returned `ControlFlow::Break`.
    Callback,
}

/// The end of a training run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Updates made.
    pub updates: usize,
    /// Why it stopped.
    pub stop: Stop,
    /// The last report (`None` if `max_steps` was 0).
    pub last: Option<Progress>,
}

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
/// Sizing: a sample costs at most [`Mlp::forward_slots`] plus a few slots for its loss and the
/// running sum (inputs are constants, which cost nothing); the penalty costs `2P + 1`. The trainer measures a sample's cost on the first one
/// and never starts a sample it has no room for. A tape that cannot hold `P` parameters plus one
/// sample is reported as [`NnError::Tape`] with the capacity.
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
/// let dloss_dp0 = trainer.grads()[0];
/// # let _ = dloss_dp0;
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
pub struct Trainer<'t, S: Scalar, const P: usize> {
    tape: &'t mut TapeView<S>,
    ids: [NodeId; P],
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
    pub fn new(tape: &'t mut TapeView<S>, params: &[S; P]) -> Result<Self, NnError> {
        tape.clear();
        if P > tape.capacity() {
            return Err(NnError::Tape(autograd_core::TapeError::CapacityExceeded {
                capacity: tape.capacity(),
                needed: P,
            }));
        }
        let mut ids = [None; P];
        for (id, p) in ids.iter_mut().zip(params) {
            *id = tape.try_var(*p)?.id();
        }
        let ids = ids.map(|id| id.expect("try_var returned a recorded value"));
        let params_end = tape.mark();
        Ok(Trainer {
            tape,
            ids,
            params_end,
            slots_per_sample: 0,
            sweeps: 0,
            grads: [S::ZERO; P],
        })
    }

    /// The gradient of the last [`gradient`](Self::gradient) call.
    pub fn grads(&self) -> &[S; P] {
        &self.grads
    }

    /// Backward sweeps the last [`gradient`](Self::gradient) call made (1 when the whole batch
    /// fits on the tape).
    pub fn sweeps(&self) -> usize {
        self.sweeps
    }

    /// Tape slots one sample took, as measured (0 before the first sample).
    pub fn slots_per_sample(&self) -> usize {
        self.slots_per_sample
    }

    /// The gradient of `objective` at `params` over `batch`, into [`grads`](Self::grads);
    /// returns the loss and accuracy at `params`.
    ///
    /// # Errors
    /// As [`Objective::evaluate`]; [`NnError::Tape`] if the tape cannot hold the parameters
    /// plus one sample (or plus the penalty).
    pub fn gradient<L: Loss, const D: usize, const I: usize>(
        &mut self,
        objective: &Objective<L, D>,
        params: &[S; P],
        batch: &[Sample<I>],
    ) -> Result<Stats, NnError> {
        objective.check(P, batch)?;
        self.tape.rewind(self.params_end);
        for (id, p) in self.ids.iter().zip(params) {
            self.tape.set_value(*id, *p)?;
        }
        self.grads = [S::ZERO; P];
        self.sweeps = 0;
        let model = &objective.model;
        let outputs = model.outputs();
        let scale = objective.scale(batch.len());
        let with_penalty = objective.l2 != 0.0;
        let (mut loss, mut correct) = (0.0, 0);
        let mut start = 0;
        let mut penalty_pending = with_penalty;
        // Samples a chunk may take; lowered if a chunk overflows the tape.
        let mut max_chunk = usize::MAX;
        let mut chunk_grads = [S::ZERO; P];
        while start < batch.len() || penalty_pending {
            self.tape.rewind(self.params_end);
            let tape: &TapeView<S> = self.tape;
            let mut vars = [Var::constant(S::ZERO); P];
            for (v, id) in vars.iter_mut().zip(&self.ids) {
                *v = tape.get(*id)?;
            }
            let capacity = tape.capacity();
            let penalty = if penalty_pending {
                Some(l2_penalty(objective.l2, &vars))
            } else {
                None
            };
            let (mut chunk_loss, mut chunk_correct) = (0.0, 0);
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
                let x: [Var<'_, S>; I] =
                    core::array::from_fn(|k| Var::constant(S::from_f64(s.x[k])));
                let mut out = heapless::Vec::new();
                crate::mlp::resize(&mut out, outputs, D - 1)?;
                model.forward(&vars, &x, &mut out)?;
                let l = objective.loss.sample(&out, s.y);
                sum = Some(match sum {
                    Some(acc) => acc + l,
                    None => l,
                });
                if tape.check().is_err() {
                    overflow = true;
                    break;
                }
                self.slots_per_sample = self.slots_per_sample.max(tape.len() - before);
                chunk_loss += l.value().to_f64();
                let values = widths_from(&out, |v| v.value().to_f64());
                chunk_correct += usize::from(objective.loss.is_correct(&values, s.y));
                end += 1;
            }
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
            grads.write_to(&vars, &mut chunk_grads)?;
            for (g, c) in self.grads.iter_mut().zip(&chunk_grads) {
                *g += *c;
            }
            self.sweeps += 1;
            loss += chunk_loss * scale + penalty.map_or(0.0, |p| p.value().to_f64());
            correct += chunk_correct;
            penalty_pending = false;
            if max_chunk == 0 {
                max_chunk = usize::MAX;
            }
            start = end;
        }
        Ok(Stats {
            loss,
            correct,
            samples: batch.len(),
        })
    }

    /// Trains `params` in place: each step computes the gradient and the batch's loss and
    /// accuracy, reports them to `on_step`, then stops if a target is reached (before updating,
    /// so `params` are the ones that reached it) or if `on_step` broke, and otherwise updates
    /// with `optimizer`. `data` is shuffled in place when mini-batching.
    ///
    /// # Errors
    /// As [`gradient`](Self::gradient); [`NnError::BadBatchSize`].
    pub fn train<L, O, const D: usize, const I: usize>(
        &mut self,
        objective: &Objective<L, D>,
        params: &mut [S; P],
        data: &mut [Sample<I>],
        optimizer: &mut O,
        config: &TrainConfig,
        mut on_step: impl FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<Outcome, NnError>
    where
        L: Loss,
        O: Optimizer<S, P>,
    {
        let mut rng = Rng::new(config.seed);
        let mut cursor = 0;
        if let Some(b) = config.batch_size {
            if b == 0 || b > data.len() {
                return Err(NnError::BadBatchSize {
                    size: b,
                    samples: data.len(),
                });
            }
            rng.shuffle(data);
        }
        let mut last = None;
        for step in 0..config.max_steps {
            let batch = match config.batch_size {
                None => &data[..],
                Some(b) => {
                    if cursor + b > data.len() {
                        rng.shuffle(data);
                        cursor = 0;
                    }
                    cursor += b;
                    &data[cursor - b..cursor]
                }
            };
            let stats = self.gradient(objective, params, batch)?;
            let progress = Progress {
                step,
                loss: stats.loss,
                accuracy: stats.accuracy(),
                learning_rate: optimizer.learning_rate(),
            };
            last = Some(progress);
            let flow = on_step(&progress);
            let stop = if config
                .target_accuracy
                .is_some_and(|t| progress.accuracy >= t)
            {
                Some(Stop::TargetAccuracy)
            } else if config.target_loss.is_some_and(|t| progress.loss <= t) {
                Some(Stop::TargetLoss)
            } else if flow.is_break() {
                Some(Stop::Callback)
            } else {
                None
            };
            if let Some(stop) = stop {
                return Ok(Outcome {
                    updates: step,
                    stop,
                    last,
                });
            }
            optimizer.step(params, &self.grads);
        }
        Ok(Outcome {
            updates: config.max_steps,
            stop: Stop::StepBudget,
            last,
        })
    }
}

/// `f` of every element of `xs`, in a buffer of the same width.
fn widths_from<T>(xs: &[T], f: impl Fn(&T) -> f64) -> heapless::Vec<f64, MAX_WIDTH> {
    xs.iter().take(MAX_WIDTH).map(f).collect()
}
