//! The scalar trait: the number type a tape records and every mode computes in.
//!
//! `f32` and `f64` get their primitive functions from libm (so results are the same on a host and
//! on a microcontroller), but for `f32`'s `tanh`, computed in 32-bit integer arithmetic
//! (`scalar/tanhf.rs`: the same bits everywhere, more accurate than libm's `tanhf`, and far
//! cheaper on a part without an FPU); composite functions (sigmoid, softplus, relu, ...) come from
//! [`crate::math`], shared with every other implementor of [`Number`].

use core::fmt::{Debug, Display};
use core::ops::{AddAssign, DivAssign, MulAssign, SubAssign};

use crate::tape::{inline_layout, Layout};
use crate::{math, Number};

mod tanhf;

/// A plain real number type the tape records: `f32`, `f64`, or a dual number over them.
///
/// A `Scalar` is a [`Number`] that is a value (no tape behind it), so it can be stored in a tape
/// node. Comparisons (`PartialOrd`, `PartialEq`) look at the real part only, so branches in user
/// code and the kink conventions behave the same for a plain value and for a dual number.
///
/// ```
/// use autograd_core::{Number, Scalar};
/// fn half<S: Scalar>(x: S) -> S { x * S::from_f64(0.5) }
/// assert_eq!(half(3.0_f32), 1.5);
/// assert_eq!(Number::exp(half(3.0_f64)), libm::exp(1.5));
/// ```
pub trait Scalar:
    Number
    + PartialEq
    + PartialOrd
    + Debug
    + Display
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Layout
    + 'static
{
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// Machine epsilon of the underlying real type (`f32::EPSILON` or `f64::EPSILON`).
    const EPSILON: f64;
    /// Whether a multiplication costs far more than a test, so the tape tests values one by one
    /// instead of multiplying them to test them together: on soft-float ARM (a library call
    /// per product), and for fixed point (whose products also overflow where a float's would
    /// not). A tuning knob only: results are the same either way.
    const COSTLY_PRODUCT: bool = cfg!(all(target_arch = "arm", target_abi = "eabi"));
    /// Whether a finite value times one of magnitude at most 1 is always finite, so the tape
    /// tests only the value of an operation whose local derivative is bounded by 1 (`sin`,
    /// `tanh`, `relu`, ...): its partials are finite pending partials times that derivative.
    /// `true` for `f32` and `f64`; `false` by default, and for dual numbers (a tangent times
    /// a tangent is unbounded) and fixed point (which keeps its three tests). A tuning knob only:
    /// results are the same either way.
    const SHRINKING_PRODUCT: bool = false;
    /// Whether a tape of this scalar records each one-input operation and each operator
    /// between handles through a call instead of inline code ([`Outlined`](crate::Outlined)):
    /// `false` unless the cargo feature `outlined-ops` is on, which makes it `true` for every
    /// scalar. A build-time knob: the statements, values and gradients are the same.
    const OUTLINED: bool = cfg!(feature = "outlined-ops");

    /// `ln(1 + self)`, accurate near zero.
    ///
    /// ```
    /// use autograd_core::Scalar;
    /// assert_eq!(1e-20_f64.ln_1p(), 1e-20); // ln(1 + x) ~ x, where 1 + x rounds to 1
    /// assert!((1.0_f64.ln_1p() - 2f64.ln()).abs() < 1e-15);
    /// ```
    fn ln_1p(self) -> Self;
    /// `true` if the value (and every derivative part) is neither infinite nor NaN.
    ///
    /// ```
    /// use autograd_core::{Dual, Scalar};
    /// assert!(Scalar::is_finite(2.0_f64) && !Scalar::is_finite(f64::NAN));
    /// assert!(!Dual::new(1.0_f64, f64::INFINITY).is_finite()); // every part counts
    /// ```
    fn is_finite(self) -> bool;
    /// `true` if the value and every derivative part are zero (unlike `==`, which compares the
    /// real part only).
    ///
    /// ```
    /// use autograd_core::{Dual, Scalar};
    /// assert!(0.0_f64.is_zero() && (-0.0_f32).is_zero());
    /// let d = Dual::new(0.0_f64, 1.0);
    /// assert!(d == Dual::constant(0.0) && !d.is_zero()); // `==` compares the real parts
    /// ```
    fn is_zero(self) -> bool;
}

macro_rules! impl_float {
    ($t:ty, $exp:path, $ln:path, $ln1p:path, $sqrt:path, $sin:path, $cos:path, $tan:path,
     $tanh:path, $fabs:path, $pow:path, $sincos:path, $atan:path, $asin:path, $acos:path,
     $sinh:path, $cosh:path, $log2:path, $log10:path, $exp2:path, $cbrt:path, $atan2:path,
     $hypot:path) => {
        impl Number for $t {
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_f64(&self) -> f64 {
                *self as f64
            }
            #[inline]
            fn exp(self) -> Self {
                $exp(self)
            }
            #[inline]
            fn ln(self) -> Self {
                $ln(self)
            }
            #[inline]
            fn sqrt(self) -> Self {
                $sqrt(self)
            }
            #[inline]
            fn sin(self) -> Self {
                $sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                $cos(self)
            }
            #[inline]
            fn sin_cos(self) -> (Self, Self) {
                $sincos(self)
            }
            #[inline]
            fn tan(self) -> Self {
                $tan(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                $tanh(self)
            }
            #[inline]
            fn sigmoid(self) -> Self {
                math::sigmoid(self)
            }
            #[inline]
            fn relu(self) -> Self {
                math::relu(self)
            }
            #[inline]
            fn leaky_relu(self, slope: f64) -> Self {
                math::leaky_relu(self, slope as $t)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                $fabs(self)
            }
            #[inline]
            fn softplus(self) -> Self {
                math::softplus(self)
            }
            #[inline]
            fn powi(self, n: i32) -> Self {
                // Exponentiation by squaring: no libm call, identical on every target (core's
                // `powi` intrinsic is not available without std everywhere).
                let mut base = if n < 0 { 1.0 / self } else { self };
                let mut e = n.unsigned_abs();
                let mut acc: $t = 1.0;
                while e > 0 {
                    if e & 1 == 1 {
                        acc *= base;
                    }
                    base *= base;
                    e >>= 1;
                }
                acc
            }
            #[inline]
            fn powf(self, e: f64) -> Self {
                $pow(self, e as $t)
            }
            #[inline]
            fn pow(self, e: Self) -> Self {
                $pow(self, e)
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                math::max(self, other)
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                math::min(self, other)
            }
            #[inline]
            fn atan(self) -> Self {
                $atan(self)
            }
            #[inline]
            fn asin(self) -> Self {
                $asin(self)
            }
            #[inline]
            fn acos(self) -> Self {
                $acos(self)
            }
            #[inline]
            fn sinh(self) -> Self {
                $sinh(self)
            }
            #[inline]
            fn cosh(self) -> Self {
                $cosh(self)
            }
            #[inline]
            fn log2(self) -> Self {
                $log2(self)
            }
            #[inline]
            fn log10(self) -> Self {
                $log10(self)
            }
            #[inline]
            fn exp2(self) -> Self {
                $exp2(self)
            }
            #[inline]
            fn cbrt(self) -> Self {
                $cbrt(self)
            }
            #[inline]
            fn atan2(self, x: Self) -> Self {
                $atan2(self, x)
            }
            #[inline]
            fn hypot(self, other: Self) -> Self {
                $hypot(self, other)
            }
        }

        impl Scalar for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const EPSILON: f64 = <$t>::EPSILON as f64;
            const SHRINKING_PRODUCT: bool = true;

            #[inline]
            fn ln_1p(self) -> Self {
                $ln1p(self)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                if cfg!(all(target_arch = "arm", target_abi = "eabi")) {
                    // Soft float: a subtraction is a library call, a bit test is not.
                    <$t>::is_finite(self)
                } else {
                    // `x - x` is 0 exactly for every finite `x` and NaN for infinities and NaN,
                    // and only NaN is unequal to itself: one subtraction and one compare of a
                    // register with itself, where the bit test needs two constants and a
                    // compare with 0 a zeroed register and a second branch.
                    let d = self - self;
                    #[allow(clippy::eq_op)]
                    let finite = d == d;
                    finite
                }
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0.0
            }
        }
    };
}

impl_float!(
    f32,
    libm::expf,
    libm::logf,
    libm::log1pf,
    libm::sqrtf,
    libm::sinf,
    libm::cosf,
    libm::tanf,
    tanhf::tanhf,
    libm::fabsf,
    libm::powf,
    libm::sincosf,
    libm::atanf,
    libm::asinf,
    libm::acosf,
    libm::sinhf,
    libm::coshf,
    libm::log2f,
    libm::log10f,
    libm::exp2f,
    libm::cbrtf,
    libm::atan2f,
    libm::hypotf
);
impl_float!(
    f64,
    libm::exp,
    libm::log,
    libm::log1p,
    libm::sqrt,
    libm::sin,
    libm::cos,
    libm::tan,
    libm::tanh,
    libm::fabs,
    libm::pow,
    libm::sincos,
    libm::atan,
    libm::asin,
    libm::acos,
    libm::sinh,
    libm::cosh,
    libm::log2,
    libm::log10,
    libm::exp2,
    libm::cbrt,
    libm::atan2,
    libm::hypot
);

// `f32` keeps each value in its slot (12 bytes with it); `f64`'s are apart (`tape/slot.rs`).
inline_layout!([] f32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powi_matches_repeated_multiplication() {
        assert_eq!(Number::powi(2.0_f64, 10), 1024.0);
        assert_eq!(Number::powi(2.0_f64, -2), 0.25);
        assert_eq!(Number::powi(3.0_f32, 0), 1.0);
        assert_eq!(Number::powi(0.0_f64, 0), 1.0);
        assert_eq!(Number::powi(-1.5_f64, 3), -3.375);
    }

    #[test]
    fn sin_cos_is_bit_identical_to_sin_and_cos() {
        let far = [1e6, -3.3e8, 1e15, 1.7e300, 0.0, -0.0];
        for i in 0..2000 + far.len() {
            let x = far
                .get(i.wrapping_sub(2000))
                .copied()
                .unwrap_or(-40.0 + 0.04 * i as f64 + 1e-3);
            let (s, c) = Number::sin_cos(x);
            assert_eq!(
                (s.to_bits(), c.to_bits()),
                (libm::sin(x).to_bits(), libm::cos(x).to_bits())
            );
            let x = x as f32;
            let (s, c) = Number::sin_cos(x);
            assert_eq!(
                (s.to_bits(), c.to_bits()),
                (libm::sinf(x).to_bits(), libm::cosf(x).to_bits())
            );
        }
    }

    #[test]
    fn tanh_is_finite_for_large_arguments() {
        assert_eq!(Number::tanh(1000.0_f64), 1.0);
        assert_eq!(Number::tanh(-1000.0_f32), -1.0);
    }
}
