//! The `num_traits` impls, written once in a macro for `Var`, `Dual` and `DualVec` on top of
//! [`Active`] and the compositions in the parent module.

use core::num::FpCategory;
use core::ops::{Rem, RemAssign};

use num_traits::{Float, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero};

use super::{acosh, asinh, atanh, rem, Active};
use crate::{Dual, DualVec, Number, Scalar, Var};

/// A constant of `S` (named to keep the impls below one line each).
macro_rules! lift {
    ($e:expr) => {
        <Self as Active<S>>::lift($e)
    };
}

macro_rules! num_traits_impls {
    ([$($gen:tt)*] $T:ty) => {
        /// `x % y = x - q y`, `q` the integer quotient: partials 1 and `-q` (`q` piecewise
        /// constant); the value is `S`'s remainder.
        impl<$($gen)*> Rem for $T {
            type Output = Self;
            #[inline]
            fn rem(self, rhs: Self) -> Self {
                rem(self, rhs)
            }
        }
        impl<$($gen)*> RemAssign for $T {
            #[inline]
            fn rem_assign(&mut self, rhs: Self) {
                *self = rem(*self, rhs);
            }
        }

        /// The constant 0; `is_zero` looks at the value (as `==`).
        impl<$($gen)*> Zero for $T {
            #[inline]
            fn zero() -> Self {
                lift!(S::ZERO)
            }
            #[inline]
            fn is_zero(&self) -> bool {
                self.real() == S::ZERO
            }
        }

        /// The constant 1.
        impl<$($gen)*> One for $T {
            #[inline]
            fn one() -> Self {
                lift!(S::ONE)
            }
        }

        /// `from_str_radix` parses with `S` into a constant.
        impl<$($gen)*> Num for $T {
            type FromStrRadixErr = S::FromStrRadixErr;
            fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
                S::from_str_radix(s, radix).map(|v| lift!(v))
            }
        }

        /// Conversions of the value (a dual's real part); derivatives are dropped.
        impl<$($gen)*> ToPrimitive for $T {
            #[inline]
            fn to_i64(&self) -> Option<i64> {
                self.real().to_i64()
            }
            #[inline]
            fn to_u64(&self) -> Option<u64> {
                self.real().to_u64()
            }
            #[inline]
            fn to_i128(&self) -> Option<i128> {
                self.real().to_i128()
            }
            #[inline]
            fn to_u128(&self) -> Option<u128> {
                self.real().to_u128()
            }
            #[inline]
            fn to_f32(&self) -> Option<f32> {
                self.real().to_f32()
            }
            #[inline]
            fn to_f64(&self) -> Option<f64> {
                ToPrimitive::to_f64(&self.real())
            }
        }

        /// A constant, converted by `S`.
        impl<$($gen)*> NumCast for $T {
            #[inline]
            fn from<P: ToPrimitive>(n: P) -> Option<Self> {
                <S as NumCast>::from(n).map(|v| lift!(v))
            }
        }

        /// A constant, converted by `S`.
        impl<$($gen)*> FromPrimitive for $T
        where
            S: FromPrimitive,
        {
            #[inline]
            fn from_i64(n: i64) -> Option<Self> {
                S::from_i64(n).map(|v| lift!(v))
            }
            #[inline]
            fn from_u64(n: u64) -> Option<Self> {
                S::from_u64(n).map(|v| lift!(v))
            }
            #[inline]
            fn from_f32(n: f32) -> Option<Self> {
                S::from_f32(n).map(|v| lift!(v))
            }
            #[inline]
            fn from_f64(n: f64) -> Option<Self> {
                <S as FromPrimitive>::from_f64(n).map(|v| lift!(v))
            }
        }

        /// As `Float`: `abs'(0) = 0`, `abs_sub` is `relu(x - y)`, `signum` is piecewise constant.
        impl<$($gen)*> Signed for $T {
            #[inline]
            fn abs(&self) -> Self {
                Number::abs(*self)
            }
            #[inline]
            fn abs_sub(&self, other: &Self) -> Self {
                Float::abs_sub(*self, *other)
            }
            #[inline]
            fn signum(&self) -> Self {
                Float::signum(*self)
            }
            #[inline]
            fn is_positive(&self) -> bool {
                Float::is_sign_positive(self.real())
            }
            #[inline]
            fn is_negative(&self) -> bool {
                Float::is_sign_negative(self.real())
            }
        }

        /// Every method differentiates exactly, or is piecewise constant (derivative 0), or a
        /// question about the value: see the [`num`](crate::num) module.
        impl<$($gen)*> Float for $T {
            // Constants.
            fn nan() -> Self { lift!(S::nan()) }
            fn infinity() -> Self { lift!(S::infinity()) }
            fn neg_infinity() -> Self { lift!(S::neg_infinity()) }
            fn neg_zero() -> Self { lift!(S::neg_zero()) }
            fn min_value() -> Self { lift!(S::min_value()) }
            fn min_positive_value() -> Self { lift!(S::min_positive_value()) }
            fn epsilon() -> Self { lift!(S::epsilon()) }
            fn max_value() -> Self { lift!(S::max_value()) }

            // Questions about the value.
            fn is_nan(self) -> bool { self.real().is_nan() }
            fn is_infinite(self) -> bool { self.real().is_infinite() }
            fn is_finite(self) -> bool { Float::is_finite(self.real()) }
            fn is_normal(self) -> bool { self.real().is_normal() }
            fn is_subnormal(self) -> bool { self.real().is_subnormal() }
            fn classify(self) -> FpCategory { self.real().classify() }
            fn is_sign_positive(self) -> bool { self.real().is_sign_positive() }
            fn is_sign_negative(self) -> bool { self.real().is_sign_negative() }
            fn integer_decode(self) -> (u64, i16, i8) { self.real().integer_decode() }

            // Piecewise constant: derivative 0.
            fn floor(self) -> Self { self.flat(self.real().floor()) }
            fn ceil(self) -> Self { self.flat(self.real().ceil()) }
            fn round(self) -> Self { self.flat(self.real().round()) }
            fn trunc(self) -> Self { self.flat(self.real().trunc()) }
            fn signum(self) -> Self { self.flat(Float::signum(self.real())) }

            // The core's operations.
            fn abs(self) -> Self { Number::abs(self) }
            fn mul_add(self, a: Self, b: Self) -> Self { Number::mul_add(self, a, b) }
            fn powi(self, n: i32) -> Self { Number::powi(self, n) }
            fn powf(self, n: Self) -> Self { Number::pow(self, n) }
            fn sqrt(self) -> Self { Number::sqrt(self) }
            fn exp(self) -> Self { Number::exp(self) }
            fn ln(self) -> Self { Number::ln(self) }
            fn sin(self) -> Self { Number::sin(self) }
            fn cos(self) -> Self { Number::cos(self) }
            fn tan(self) -> Self { Number::tan(self) }
            fn tanh(self) -> Self { Number::tanh(self) }
            fn sin_cos(self) -> (Self, Self) { Number::sin_cos(self) }
            fn max(self, other: Self) -> Self {
                // `Float`'s NaN rule: the other argument.
                if self.real().is_nan() { other }
                else if other.real().is_nan() { self }
                else { Number::max(self, other) }
            }
            fn min(self, other: Self) -> Self {
                if self.real().is_nan() { other }
                else if other.real().is_nan() { self }
                else { Number::min(self, other) }
            }

            // Composed from the core's operations (exact derivatives; the value is `S`'s).
            fn fract(self) -> Self { self - lift!(self.real().trunc()) }
            fn recip(self) -> Self { <Self as Number>::one() / self }
            fn abs_sub(self, other: Self) -> Self { Number::relu(self - other) }
            fn to_degrees(self) -> Self {
                self.mul_f64(180.0 / core::f64::consts::PI).with_value(self.real().to_degrees())
            }
            fn to_radians(self) -> Self {
                self.mul_f64(core::f64::consts::PI / 180.0).with_value(self.real().to_radians())
            }
            fn exp2(self) -> Self { Number::exp2(self) }
            fn exp_m1(self) -> Self {
                Number::exp(self).add_f64(-1.0).with_value(self.real().exp_m1())
            }
            fn ln_1p(self) -> Self {
                Number::ln(self.add_f64(1.0)).with_value(Float::ln_1p(self.real()))
            }
            fn log(self, base: Self) -> Self {
                (Number::ln(self) / Number::ln(base)).with_value(self.real().log(base.real()))
            }
            fn log2(self) -> Self { Number::log2(self) }
            fn log10(self) -> Self { Number::log10(self) }
            fn cbrt(self) -> Self { Number::cbrt(self) }
            fn hypot(self, other: Self) -> Self { Number::hypot(self, other) }
            fn sinh(self) -> Self { Number::sinh(self) }
            fn cosh(self) -> Self { Number::cosh(self) }
            fn asinh(self) -> Self { asinh(self) }
            fn acosh(self) -> Self { acosh(self) }
            fn atanh(self) -> Self { atanh(self) }

            fn asin(self) -> Self { Number::asin(self) }
            fn acos(self) -> Self { Number::acos(self) }
            fn atan(self) -> Self { Number::atan(self) }
            fn atan2(self, other: Self) -> Self { Number::atan2(self, other) }
        }
    };
}

num_traits_impls!(['t, S: Scalar + Float] Var<'t, S>);
num_traits_impls!([S: Scalar + Float] Dual<S>);
num_traits_impls!([S: Scalar + Float, const N: usize] DualVec<S, N>);
