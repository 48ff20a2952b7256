//! [`Objective`]: what training minimises (network + loss + regularisation), evaluated on any
//! [`Number`], and its [`Stats`] on a batch.

use autograd_core::{Number, Scalar};

use crate::data::Sample;
use crate::loss::{l2_penalty, Loss, Reduction};
use crate::{Mlp, NnError, MAX_WIDTH};

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
    /// Samples the loss could judge right or wrong ([`Loss::is_correct`] gave `Some`).
    pub classified: usize,
    /// Samples in the batch.
    pub samples: usize,
}

impl Stats {
    /// `correct / samples`, or `None` when the loss does not classify every sample (a squared
    /// error against real-valued targets: a regression has no accuracy) or the batch is empty.
    ///
    /// ```
    /// use autograd_nn::Stats;
    /// let s = Stats { loss: 0.3, correct: 3, classified: 4, samples: 4 };
    /// assert_eq!(s.accuracy(), Some(0.75)); // 3 / 4
    /// // One sample the loss could not judge: no accuracy; nor for an empty batch.
    /// assert_eq!(Stats { classified: 3, ..s }.accuracy(), None);
    /// assert_eq!(Stats { correct: 0, classified: 0, samples: 0, ..s }.accuracy(), None);
    /// ```
    pub fn accuracy(&self) -> Option<f64> {
        (self.samples > 0 && self.classified == self.samples)
            .then(|| self.correct as f64 / self.samples as f64)
    }
}

impl<L: Loss, const D: usize> Objective<L, D> {
    /// Mean loss, no penalty.
    ///
    /// ```
    /// use autograd_nn::{data, Activation, Mlp, Objective, Reduction, SquaredError};
    /// let xor = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    /// let objective = Objective::new(xor, SquaredError);
    /// assert_eq!((objective.reduction, objective.l2), (Reduction::Mean, 0.0));
    /// // Zero parameters output 0: each ±1 target costs (0 - ±1)^2 = 1, and the mean is 1.
    /// assert_eq!(objective.evaluate(&[0.0_f64; 17], &data::xor())?, 1.0);
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn new(model: Mlp<D>, loss: L) -> Self {
        Objective {
            model,
            loss,
            reduction: Reduction::Mean,
            l2: 0.0,
        }
    }

    /// The same objective with another reduction.
    ///
    /// ```
    /// use autograd_nn::{data, Activation, Mlp, Objective, Reduction, SquaredError};
    /// let xor = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    /// let objective = Objective::new(xor, SquaredError).with_reduction(Reduction::Sum);
    /// // The seed lesson's loss: the sum of the four squared errors (0 - ±1)^2 = 1.
    /// assert_eq!(objective.evaluate(&[0.0_f64; 17], &data::xor())?, 4.0);
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn with_reduction(mut self, reduction: Reduction) -> Self {
        self.reduction = reduction;
        self
    }

    /// The same objective with the penalty `alpha * sum p^2`.
    ///
    /// ```
    /// use autograd_nn::{data::Sample, Activation, Mlp, Objective, SquaredError};
    /// let line = Mlp::new([1, 1], Activation::Linear, Activation::Linear); // w x + b
    /// let objective = Objective::new(line, SquaredError).with_l2(0.1);
    /// // w = 0.5, b = 0 fit the sample (2, 1) exactly: only the penalty 0.1 (0.5^2 + 0^2) is left.
    /// let loss = objective.evaluate(&[0.5_f64, 0.0], &[Sample { x: [2.0], y: 1.0 }])?;
    /// assert!((loss - 0.1 * 0.25).abs() < 1e-15);
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn with_l2(mut self, alpha: f64) -> Self {
        self.l2 = alpha;
        self
    }

    pub(crate) fn scale(&self, samples: usize) -> f64 {
        match self.reduction {
            Reduction::Mean => 1.0 / samples as f64,
            Reduction::Sum => 1.0,
        }
    }

    pub(crate) fn check<const I: usize>(
        &self,
        params: usize,
        batch: &[Sample<I>],
    ) -> Result<(), NnError> {
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
        for (i, s) in batch.iter().enumerate() {
            if s.x.iter().any(|v| !v.is_finite()) {
                return Err(NnError::NonFiniteInput { sample: i });
            }
            self.loss.check_target(s.y, self.model.outputs())?;
        }
        Ok(())
    }

    /// The objective at `params` over `batch`, in any number type: reduction of the per-sample
    /// losses, plus the penalty.
    ///
    /// # Errors
    /// [`NnError::EmptyBatch`], [`NnError::LengthMismatch`] (parameters, or the samples' input
    /// size), [`NnError::BadLabel`].
    ///
    /// ```
    /// use autograd_core::Dual;
    /// use autograd_nn::{data::Sample, Activation, Mlp, NnError, Objective, SquaredError};
    /// let line = Mlp::new([1, 1], Activation::Linear, Activation::Linear); // w x + b
    /// let objective = Objective::new(line, SquaredError);
    /// let batch = [Sample { x: [2.0], y: 1.0 }];
    /// // (w x + b - y)^2 at w = 1, b = 0: (2 - 1)^2 = 1.
    /// assert_eq!(objective.evaluate(&[1.0_f64, 0.0], &batch)?, 1.0);
    /// // On dual numbers seeded along w: d/dw = 2 (w x + b - y) x = 4.
    /// let l = objective.evaluate(&[Dual::variable(1.0), Dual::constant(0.0)], &batch)?;
    /// assert_eq!((l.re, l.eps), (1.0, 4.0));
    /// assert_eq!(objective.evaluate::<f64, 1>(&[1.0, 0.0], &[]), Err(NnError::EmptyBatch));
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
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
    ) -> Result<(T, usize, usize), NnError> {
        self.check(params.len(), batch)?;
        let outputs = self.model.outputs();
        let mut sum: Option<T> = None;
        let (mut correct, mut classified) = (0, 0);
        for s in batch {
            let x: [T; I] = core::array::from_fn(|k| T::from_f64(s.x[k]));
            let mut out = heapless::Vec::new();
            crate::mlp::resize::<T>(&mut out, outputs, D - 1)?;
            self.model.forward(params, &x, &mut out)?;
            let l = self.loss.sample_unchecked(&out, s.y);
            sum = Some(match sum {
                Some(acc) => acc + l,
                None => l,
            });
            let values = widths_from(&out, |v| v.to_f64());
            if let Some(right) = self.loss.is_correct(&values, s.y) {
                classified += 1;
                correct += usize::from(right);
            }
        }
        let mut total = sum.unwrap_or_else(T::zero);
        if self.reduction == Reduction::Mean {
            total *= T::from_f64(self.scale(batch.len()));
        }
        if self.l2 != 0.0 {
            total += l2_penalty(self.l2, params);
        }
        Ok((total, correct, classified))
    }

    /// Loss and accuracy at plain parameters.
    ///
    /// # Errors
    /// As [`evaluate`](Self::evaluate).
    ///
    /// ```
    /// use autograd_nn::{data::Sample, Activation, Hinge, Mlp, Objective};
    /// let line = Mlp::new([1, 1], Activation::Linear, Activation::Linear);
    /// let objective = Objective::new(line, Hinge);
    /// let sample = |x, y| Sample { x: [x], y };
    /// let batch = [sample(2.0, 1.0), sample(-1.0, 0.0), sample(0.5, 0.0)];
    /// // Score s = x: the signs of 2 and -1 match their labels, 0.5's does not (label 0: y = -1).
    /// let stats = objective.stats(&[1.0_f64, 0.0], &batch)?;
    /// assert_eq!((stats.correct, stats.classified, stats.samples), (2, 3, 3));
    /// // Hinge terms relu(1 - y s): 0, 0 and 1.5; their mean is 0.5.
    /// assert!((stats.loss - 0.5).abs() < 1e-15);
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn stats<S: Scalar, const I: usize>(
        &self,
        params: &[S],
        batch: &[Sample<I>],
    ) -> Result<Stats, NnError> {
        let (loss, correct, classified) = self.evaluate_counting(params, batch)?;
        Ok(Stats {
            loss: loss.to_f64(),
            correct,
            classified,
            samples: batch.len(),
        })
    }
}

/// `f` of every element of `xs`, in a buffer of the same width.
pub(crate) fn widths_from<T>(xs: &[T], f: impl Fn(&T) -> f64) -> heapless::Vec<f64, MAX_WIDTH> {
    xs.iter().take(MAX_WIDTH).map(f).collect()
}
