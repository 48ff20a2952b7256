//! Losses: what one sample's network output costs, written once against [`Number`] so that the
//! tape, the dual numbers and plain floats all compute the same function.
//!
//! A batch's loss is the mean (or the sum, see [`Reduction`]) of the per-sample losses, plus an
//! optional L2 penalty ([`l2_penalty`]); [`Objective`](crate::Objective) puts them together.

use autograd_core::Number;

use crate::NnError;

/// The loss of one sample, and whether the sample counts as correctly classified.
///
/// `target` is one `f64` whose meaning each loss documents (a value, a ±1 or 0/1 label, or a
/// class index), which covers every data set of this crate. A target the loss cannot use (NaN,
/// a class out of range, a probability outside [0, 1]) is an error, never a panic or a silent
/// guess.
pub trait Loss {
    /// The loss of `output` (the network's outputs) against `target`: checks both with
    /// [`check_target`](Self::check_target), then [`sample_unchecked`](Self::sample_unchecked).
    ///
    /// # Errors
    /// [`NnError::BadLabel`]; [`NnError::LengthMismatch`] for an empty `output`.
    ///
    /// ```
    /// use autograd_nn::{Loss, NnError, SoftmaxCrossEntropy};
    /// // Three classes, equal logits: -ln(1/3) for any class.
    /// let l = SoftmaxCrossEntropy.sample(&[0.5_f64, 0.5, 0.5], 2.0)?;
    /// assert!((l - 3f64.ln()).abs() < 1e-15);
    /// let bad = NnError::BadLabel { label: 3.0, classes: 3 };
    /// assert_eq!(SoftmaxCrossEntropy.sample(&[0.5_f64, 0.5, 0.5], 3.0), Err(bad));
    /// # Ok::<(), NnError>(())
    /// ```
    fn sample<T: Number>(&self, output: &[T], target: f64) -> Result<T, NnError> {
        if output.is_empty() {
            return Err(NnError::LengthMismatch {
                what: "outputs",
                expected: 1,
                actual: 0,
            });
        }
        self.check_target(target, output.len())?;
        Ok(self.sample_unchecked(output, target))
    }

    /// The loss, for a target [`check_target`](Self::check_target) accepted with
    /// `output.len()` outputs (what the trainer calls per sample after checking the batch once).
    /// Otherwise the result is unspecified (it may be NaN), but it does not panic for a
    /// non-empty `output`.
    ///
    /// ```
    /// use autograd_core::Dual;
    /// use autograd_nn::{Loss, SquaredError};
    /// // (s - y)^2 and its derivative 2 (s - y) at s = 0.5, y = 1.
    /// let l = SquaredError.sample_unchecked(&[Dual::variable(0.5_f64)], 1.0);
    /// assert_eq!((l.re, l.eps), (0.25, -1.0));
    /// ```
    fn sample_unchecked<T: Number>(&self, output: &[T], target: f64) -> T;

    /// Whether the prediction `output` counts as right, for the accuracy figure; `None` where
    /// the loss does not classify (a squared error against a real-valued target).
    ///
    /// ```
    /// use autograd_nn::{Hinge, Loss, SquaredError};
    /// assert_eq!(Hinge.is_correct(&[0.2], 1.0), Some(true)); // the score's sign matches
    /// assert_eq!(Hinge.is_correct(&[0.2], 0.0), Some(false));
    /// assert_eq!(SquaredError.is_correct(&[0.2], 0.7), None); // a regression target
    /// ```
    fn is_correct(&self, output: &[f64], target: f64) -> Option<bool>;

    /// Rejects a target this loss cannot use with `outputs` outputs. The default accepts every
    /// finite target.
    ///
    /// # Errors
    /// [`NnError::BadLabel`] (a non-finite target, a class index out of range, ...).
    ///
    /// ```
    /// use autograd_nn::{BceWithLogits, Loss, SquaredError};
    /// assert!(SquaredError.check_target(12.5, 1).is_ok());
    /// assert!(SquaredError.check_target(f64::INFINITY, 1).is_err());
    /// assert!(BceWithLogits.check_target(1.5, 1).is_err()); // a probability
    /// ```
    fn check_target(&self, target: f64, outputs: usize) -> Result<(), NnError> {
        accept(target.is_finite(), target, outputs)
    }
}

/// `Ok` if `ok`, else the target is a bad label.
fn accept(ok: bool, target: f64, outputs: usize) -> Result<(), NnError> {
    if ok {
        Ok(())
    } else {
        Err(NnError::BadLabel {
            label: target,
            classes: outputs,
        })
    }
}

/// The sign bit of an `f64`.
const SIGN: u64 = 1 << 63;

/// `x > c` for a constant `c >= 0`, by the bits: a comparison of `f64`s is a library call of
/// about 30 instructions on a part without a double-precision FPU (every Cortex-M), and the
/// trainer makes several per sample (a label's sign, the prediction's). Non-negative doubles
/// are ordered as their bits are; a negative `x` (sign bit set) is below `c`, and NaN, above
/// the infinity's bits, is not above anything.
#[inline]
fn above(x: f64, c: f64) -> bool {
    let bits = x.to_bits();
    bits > c.to_bits() && bits <= f64::INFINITY.to_bits()
}

/// Squared error `(output[0] - target)^2`: the mean over a batch is the MSE, the sum is the seed
/// lesson's XOR loss. Against a ±1 label (the XOR targets) a prediction counts as correct when
/// its sign matches; against any other target (regression) there is no accuracy: `is_correct`
/// is `None`.
///
/// ```
/// use autograd_nn::{Loss, SquaredError};
/// assert_eq!(SquaredError.sample(&[0.5_f64], -1.0)?, 2.25);
/// assert_eq!(SquaredError.is_correct(&[-0.2], -1.0), Some(true));
/// assert_eq!(SquaredError.is_correct(&[0.3], 0.25), None); // a regression target
/// assert!(SquaredError.sample(&[0.5_f64], f64::NAN).is_err());
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SquaredError;

impl Loss for SquaredError {
    #[inline]
    fn sample_unchecked<T: Number>(&self, output: &[T], target: f64) -> T {
        (output[0] - T::from_f64(target)).square()
    }
    fn is_correct(&self, output: &[f64], target: f64) -> Option<bool> {
        // (`target == ±1`, `output[0] > 0` and `target > 0`, each a bit test: see `above`.)
        let unit = target.to_bits() & !SIGN == 1f64.to_bits();
        unit.then(|| above(output[0], 0.0) == above(target, 0.0))
    }
}

/// SVM max-margin hinge loss `relu(1 - y * score)` with `y = +1` for `target > 0` and `-1`
/// otherwise (so 0/1 and -1/+1 labels both work): micrograd's moons loss. Correct when the
/// score's sign matches `y`.
///
/// ```
/// use autograd_nn::{Hinge, Loss};
/// assert_eq!(Hinge.sample(&[0.25_f64], 1.0)?, 0.75);
/// assert_eq!(Hinge.sample(&[0.25_f64], 0.0)?, 1.25); // label 0 means y = -1
/// assert_eq!(Hinge.sample(&[3.0_f64], 1.0)?, 0.0); // beyond the margin
/// assert!(Hinge.sample(&[3.0_f64], f64::NAN).is_err()); // not a label: not silently y = -1
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hinge;

impl Loss for Hinge {
    #[inline]
    fn sample_unchecked<T: Number>(&self, output: &[T], target: f64) -> T {
        let y = if above(target, 0.0) { 1.0 } else { -1.0 };
        // 1 - y*s, written as 1 + (-y)*s as micrograd does.
        (T::one() + T::from_f64(-y) * output[0]).relu()
    }
    fn is_correct(&self, output: &[f64], target: f64) -> Option<bool> {
        Some(above(output[0], 0.0) == above(target, 0.0))
    }
}

/// Binary cross-entropy on a logit `z` (the sigmoid is folded in): `softplus(z) - t * z`,
/// equal to `-t ln σ(z) - (1 - t) ln(1 - σ(z))` but finite for every finite `z` because
/// softplus is evaluated stably. `target` is the probability of class 1 (labels 0/1). Correct
/// when `z > 0` matches `target > 0.5`.
///
/// ```
/// use autograd_nn::{BceWithLogits, Loss};
/// let z = 0.3_f64;
/// let p = 1.0 / (1.0 + (-z).exp());
/// assert!((BceWithLogits.sample(&[z], 1.0)? + p.ln()).abs() < 1e-15);
/// assert_eq!(BceWithLogits.sample(&[-1000.0_f64], 1.0)?, 1000.0); // the naive form gives inf
/// assert!(BceWithLogits.sample(&[z], 1.5).is_err()); // not a probability
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BceWithLogits;

impl Loss for BceWithLogits {
    #[inline]
    fn sample_unchecked<T: Number>(&self, output: &[T], target: f64) -> T {
        let z = output[0];
        z.softplus() - T::from_f64(target) * z
    }
    fn is_correct(&self, output: &[f64], target: f64) -> Option<bool> {
        Some(above(output[0], 0.0) == above(target, 0.5))
    }
    fn check_target(&self, target: f64, outputs: usize) -> Result<(), NnError> {
        accept((0.0..=1.0).contains(&target), target, outputs)
    }
}

/// Softmax cross-entropy over `output.len()` classes: `logsumexp(z) - z[c]` for the class
/// `c = target` (an integer index). The log-sum-exp subtracts the largest logit `m` first,
/// `m + ln sum_k e^(z_k - m)`, so no exponential overflows; `m` enters as a constant, which
/// leaves the gradient unchanged (`d/dm` of the expression is exactly 0). Correct when the
/// largest logit is the target's (ties go to the lowest index).
///
/// ```
/// use autograd_nn::{Loss, SoftmaxCrossEntropy};
/// let z = [1.0_f64, 2.0, 3.0];
/// let lse = (1f64.exp() + 2f64.exp() + 3f64.exp()).ln();
/// assert!((SoftmaxCrossEntropy.sample(&z, 0.0)? - (lse - 1.0)).abs() < 1e-15);
/// // Logits in the thousands stay finite.
/// assert!((SoftmaxCrossEntropy.sample(&[1000.0_f64, 0.0], 0.0)?).abs() < 1e-300);
/// assert_eq!(SoftmaxCrossEntropy.is_correct(&z, 2.0), Some(true));
/// // A class the network has no output for is an error.
/// assert!(SoftmaxCrossEntropy.sample(&z, 3.0).is_err());
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SoftmaxCrossEntropy;

impl SoftmaxCrossEntropy {
    /// The class index (clamped to the outputs, so an unchecked bad label cannot panic).
    fn class(target: f64, outputs: usize) -> usize {
        (target as usize).min(outputs.saturating_sub(1))
    }
}

impl Loss for SoftmaxCrossEntropy {
    #[inline]
    fn sample_unchecked<T: Number>(&self, output: &[T], target: f64) -> T {
        let m = output
            .iter()
            .map(|z| z.to_f64())
            .fold(f64::NEG_INFINITY, f64::max);
        let shift = T::from_f64(m);
        let mut sum = (output[0] - shift).exp();
        for z in &output[1..] {
            sum += (*z - shift).exp();
        }
        // lse - z_c = ln(sum) - (z_c - m)
        sum.ln() - (output[Self::class(target, output.len())] - shift)
    }
    fn is_correct(&self, output: &[f64], target: f64) -> Option<bool> {
        let mut best = 0;
        for (k, z) in output.iter().enumerate() {
            if *z > output[best] {
                best = k;
            }
        }
        Some(best == Self::class(target, output.len()))
    }
    fn check_target(&self, target: f64, outputs: usize) -> Result<(), NnError> {
        let class = target >= 0.0 && target == (target as usize) as f64;
        accept(class && (target as usize) < outputs, target, outputs)
    }
}

/// How a batch's per-sample losses combine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reduction {
    /// The mean: the loss's scale does not depend on the batch size (micrograd's moons).
    #[default]
    Mean,
    /// The sum (the seed lesson's XOR loss `sum((p - y)^2)`).
    Sum,
}

/// L2 regularisation `alpha * sum_i p_i^2` over every parameter (biases included, as in
/// micrograd's `alpha * sum(p*p for p in model.parameters())`).
///
/// ```
/// assert_eq!(autograd_nn::l2_penalty(0.5, &[1.0_f64, -2.0]), 2.5);
/// ```
pub fn l2_penalty<T: Number>(alpha: f64, params: &[T]) -> T {
    T::dot(params, params).mul_f64(alpha)
}

#[cfg(test)]
mod tests {
    use super::{above, BceWithLogits, Hinge, Loss, SquaredError};
    use proptest::prelude::*;

    /// Every kind of double: ordinary, tiny, huge, signed zeros, the labels ±1 and the constants
    /// compared with, infinities, NaNs (with either sign and any payload), and any bit pattern.
    fn double() -> impl Strategy<Value = f64> {
        prop_oneof![
            -3.0f64..3.0,
            any::<u64>().prop_map(f64::from_bits),
            prop::sample::select(vec![
                0.0,
                -0.0,
                0.5,
                -0.5,
                1.0,
                -1.0,
                f64::MIN_POSITIVE,
                5e-324,
                -5e-324,
                f64::MAX,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                -f64::NAN,
            ]),
        ]
    }

    proptest! {
        #[test]
        fn above_is_the_comparison(x in double(), c in prop::sample::select(vec![0.0, 0.5, 1.0])) {
            prop_assert_eq!(above(x, c), x > c, "{} > {}", x, c);
        }

        /// The losses' decisions against the same decisions written with `f64` comparisons, as
        /// they were before the bit tests.
        #[test]
        fn the_losses_decide_as_the_comparisons_do(output in double(), target in double()) {
            let reference = |b: bool| Some((output > 0.0) == b);
            let unit = target == 1.0 || target == -1.0;
            prop_assert_eq!(
                SquaredError.is_correct(&[output], target),
                if unit { reference(target > 0.0) } else { None }
            );
            prop_assert_eq!(Hinge.is_correct(&[output], target), reference(target > 0.0));
            prop_assert_eq!(BceWithLogits.is_correct(&[output], target), reference(target > 0.5));
            // The hinge's label: y = 1 for a positive target, -1 otherwise.
            let y = if target > 0.0 { 1.0 } else { -1.0 };
            let expected = (1.0 - y * 0.25_f64).max(0.0);
            prop_assert_eq!(Hinge.sample_unchecked(&[0.25_f64], target), expected);
        }
    }
}
