//! Composite functions built from the [`Scalar`] primitives, with their kink conventions.
//!
//! These are the *forward* rules shared by every mode: the plain scalars, the dual numbers and the
//! tape all compute values through these functions, so a value is bit-identical whichever mode
//! computed it. The derivative rules live with each mode (the tape's in `op.rs`, the duals'
//! in their own modules), written independently so that the modes check one another.
//!
//! Conventions at non-differentiable points follow PyTorch:
//! - `relu'(0) = 0`, `leaky_relu'(0) = slope`, `abs'(0) = 0`;
//! - `max(a, b)` / `min(a, b)` with `a == b` give each argument half of the gradient.

use crate::Scalar;

/// Logistic sigmoid `1 / (1 + e^-x)`, evaluated so that it never overflows: for `x < 0` it uses
/// `e^x / (1 + e^x)`. Exactly 0 or 1 only where the true value rounds to it.
///
/// ```
/// assert_eq!(autograd_core::math::sigmoid(0.0_f64), 0.5);
/// assert_eq!(autograd_core::math::sigmoid(-1000.0_f64), 0.0);
/// ```
#[inline]
pub fn sigmoid<S: Scalar>(x: S) -> S {
    if x >= S::ZERO {
        S::ONE / (S::ONE + (-x).exp())
    } else {
        let e = x.exp();
        e / (S::ONE + e)
    }
}

/// Softplus `ln(1 + e^x)`, evaluated as `x + ln(1 + e^-x)` for `x > 0` and `ln(1 + e^x)`
/// otherwise (`max(x, 0) + ln(1 + e^-|x|)`): finite and exact to rounding for every finite `x`
/// (the naive form overflows at `x > 709` in `f64`). Each branch is a smooth formula, so a dual
/// number at `x = 0` gets the true derivative 1/2 (not the `relu`/`abs` kink conventions).
///
/// ```
/// assert_eq!(autograd_core::math::softplus(1000.0_f64), 1000.0);
/// assert!((autograd_core::math::softplus(0.0_f64) - core::f64::consts::LN_2).abs() < 1e-16);
/// ```
#[inline]
pub fn softplus<S: Scalar>(x: S) -> S {
    if x > S::ZERO {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// Rectified linear unit `max(x, 0)`; derivative 0 at `x = 0`. As PyTorch: `relu(x)` is `+0.0`
/// for every `x <= 0` (so `1 / relu(-2)` is `+inf`, not `-inf`), also for `-inf`; NaN stays NaN.
///
/// ```
/// use autograd_core::math::relu;
/// assert_eq!(relu(2.5), 2.5);
/// assert!(relu(-2.0f64).is_sign_positive() && relu(-2.0f64) == 0.0); // +0.0
/// assert!(relu(f64::NAN).is_nan());
/// ```
#[inline]
pub fn relu<S: Scalar>(x: S) -> S {
    if x > S::ZERO {
        x
    } else if x <= S::ZERO {
        S::ZERO
    } else {
        x // NaN
    }
}

/// Leaky ReLU: `x` for `x > 0`, `slope * x` otherwise (derivative `slope` at 0, as PyTorch).
///
/// ```
/// use autograd_core::math::leaky_relu;
/// assert_eq!(leaky_relu(3.0, 0.1), 3.0);
/// assert_eq!(leaky_relu(-3.0, 0.5), -1.5);
/// ```
#[inline]
pub fn leaky_relu<S: Scalar>(x: S, slope: S) -> S {
    if x > S::ZERO {
        x
    } else {
        x * slope
    }
}

/// The larger argument; equal arguments give their mean, so a dual number splits the derivative
/// 0.5/0.5 between them.
///
/// ```
/// use autograd_core::math::max;
/// use autograd_core::Dual;
/// assert_eq!(max(1.0, 4.0), 4.0);
/// // A tie splits the derivative: d/dx max(x, x) through both arguments is 0.5 + 0.5.
/// let x = Dual::variable(2.0);
/// assert_eq!(max(x, Dual::constant(2.0)).eps, 0.5);
/// ```
#[inline]
pub fn max<S: Scalar>(a: S, b: S) -> S {
    if a > b {
        a
    } else if b > a {
        b
    } else {
        mean(a, b)
    }
}

/// The smaller argument; equal arguments give their mean (derivative split 0.5/0.5).
///
/// ```
/// use autograd_core::math::min;
/// assert_eq!(min(1.0, 4.0), 1.0);
/// assert_eq!(min(-0.5f32, 3.0), -0.5);
/// ```
#[inline]
pub fn min<S: Scalar>(a: S, b: S) -> S {
    if a < b {
        a
    } else if b < a {
        b
    } else {
        mean(a, b)
    }
}

/// `(a + b) / 2` for the ties of [`max`] and [`min`], where `a` and `b` are equal (or one is NaN):
/// halved after the sum, which keeps subnormals and signed zeros exact, unless the sum's value
/// leaves the range (`max(f64::MAX, f64::MAX)`, or `max(x, x)` above half of Q16's range), then
/// halved first. Only the value decides: a dual number's non-finite tangent must not send a
/// subnormal value down the inexact path (the differential fuzz target found a tape of dual
/// numbers and plain dual numbers disagreeing on `max(x, x)` that way).
#[inline]
pub(crate) fn mean<S: Scalar>(a: S, b: S) -> S {
    let half = S::from_f64(0.5);
    let m = (a + b) * half;
    if m.to_f64().is_finite() {
        m
    } else {
        a * half + b * half
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_of_max_and_min_do_not_overflow() {
        assert_eq!(max(f64::MAX, f64::MAX), f64::MAX);
        assert_eq!(min(-f32::MAX, -f32::MAX), -f32::MAX);
        let big = <crate::Q16 as crate::Number>::from_f64(30000.0);
        assert_eq!(crate::Number::to_f64(&max(big, big)), 30000.0);
        // The exact cases stay as they were: signed zeros and subnormals.
        assert_eq!(max(-0.0_f64, -0.0).to_bits(), (-0.0_f64).to_bits());
        assert_eq!(max(0.0_f64, -0.0).to_bits(), 0.0_f64.to_bits());
        let tiny = f64::from_bits(1);
        assert_eq!(max(tiny, tiny), tiny);
        assert!(max(f64::NAN, 1.0).is_nan() && min(1.0, f64::NAN).is_nan());
        assert_eq!(max(f64::INFINITY, f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn sigmoid_matches_definition_and_saturates() {
        for &x in &[-30.0, -2.0, -0.5, 0.0, 0.5, 2.0, 30.0] {
            let naive = 1.0 / (1.0 + libm::exp(-x));
            assert!((sigmoid(x) - naive).abs() <= 1e-16, "x = {x}");
        }
        assert_eq!(sigmoid(1000.0_f64), 1.0);
        assert_eq!(sigmoid(-1000.0_f32), 0.0);
    }

    #[test]
    fn softplus_matches_definition_and_is_finite() {
        for &x in &[-30.0, -2.0, 0.0, 2.0, 30.0] {
            let naive = libm::log(1.0 + libm::exp(x));
            assert!(
                (softplus(x) - naive).abs() <= 1e-15 * naive.max(1.0),
                "x = {x}"
            );
        }
        assert_eq!(softplus(-1000.0_f64), 0.0);
        assert_eq!(softplus(1e6_f32), 1e6);
    }

    #[test]
    fn max_min_of_equal_arguments_is_that_value() {
        assert_eq!(max(2.0, 2.0), 2.0);
        assert_eq!(min(-3.0_f32, -3.0), -3.0);
        assert_eq!(max(1.0, 2.0), 2.0);
        assert_eq!(min(1.0, 2.0), 1.0);
    }
}
