//! [`Q16`]: a Q16.16 fixed-point scalar, for parts without a floating-point unit.
//!
//! See the type's documentation.

use core::fmt;
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::{math, Number, Scalar};

mod funcs;

pub(crate) use funcs::NO_LONG_MULTIPLY;

/// A Q16.16 fixed-point number: an `i32` counting steps of 2^-16, range ±32767.99998, with
/// `i32::MIN` as poison.
///
/// On a Cortex-M0 every `f32` operation is a software routine; a Q16.16 number is an `i32`
/// counting 2^-16 steps, so addition is one instruction and multiplication one 32x32 -> 64
/// product and a shift. `Q16` implements [`Scalar`], so the tape, the dual numbers, the drivers
/// and `autograd-nn` run on it unchanged.
///
/// **Overflow is never silent.** The one bit pattern `i32::MIN` is *poison*, fixed point's NaN:
/// a result out of range (beyond ±32767.99998), a division by zero, a logarithm of zero or a
/// square root of a negative number is poison, and every operation with a poisoned operand is
/// poison. [`Scalar::is_finite`] is `false` for it, so everything that watches for NaN in
/// floating point watches for it too: the tape writes it as a statement of its own (NaN
/// provenance names the operation), `autograd-nn`'s trainer stops with `NotFinite` naming the
/// step, the checks report it. Comparisons with poison are false, as with NaN.
///
/// Rounding: `+`, `-` are exact; `*` and `/` round to nearest; the elementary functions compute
/// in Q30 (or exactly, for `sqrt`, `cbrt`, `hypot`) and round once, on integers only (no float
/// routine on a part without an FPU). Their largest error against `f64`, in steps of 2^-16,
/// over every 97th value of the range (`cargo test -p autograd-core --test fixed -- --nocapture`
/// prints it; the test fails if a bound is passed):
///
/// | function | range | steps |
/// |---|---|---:|
/// | `sqrt`, `cbrt`, `hypot` | all | 0.5 (exact rounding) |
/// | `ln`, `log2`, `log10`, `atan`, `asin`, `acos`, `tanh` | all | 0.51 |
/// | `sin`, `cos` | [-1000, 1000] | 0.51 |
/// | `tan`, `pow` | [-10, 10]; x in [0, 200], y in [-3, 3] | 0.51 per unit of a result above 1 |
/// | `powi` | x in [-40, 40], n in [-80, 80] | 0.51 per unit above 1 (1.25 for n in -1..=4) |
/// | `atan2` | [-100, 100]^2 | 0.51 |
/// | `sigmoid` | [-20, 20] | 1 |
/// | `exp`, `exp2` | up to 2^15 | 2.25, 2 |
/// | `cosh`, `sinh` | [-12, 12] | 2, 3 |
///
/// ```
/// use autograd_core::{Number, Q16, Scalar, Tape};
///
/// let x = Q16::from_f64(1.5);
/// assert_eq!((x * x).to_f64(), 2.25);
/// assert!(!(Q16::from_f64(200.0) * Q16::from_f64(200.0)).is_finite()); // 40000: poison
///
/// // The tape records Q16 as it records f32.
/// let tape = Tape::<Q16, 16>::new();
/// let v = tape.var(Q16::from_f64(3.0));
/// let g = tape.backward(v * v + v)?.wrt(v);
/// assert_eq!(g.to_f64(), 7.0);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy, Default)]
pub struct Q16(i32);

/// The poison pattern.
const POISON: i32 = i32::MIN;
/// Fraction bits.
const FRAC: u32 = 16;

impl Q16 {
    /// Poison: the result of an overflow or of an undefined operation.
    ///
    /// ```
    /// use autograd_core::{Number, Q16};
    /// assert!((Q16::MAX + Q16::STEP).is_poison()); // overflow
    /// assert!((Q16::POISON * Q16::from_f64(0.0)).is_poison()); // poison is sticky
    /// ```
    pub const POISON: Q16 = Q16(POISON);
    /// The largest value, 32767.99998.
    ///
    /// ```
    /// use autograd_core::{Number, Q16};
    /// assert_eq!(Q16::MAX.to_f64(), 32768.0 - 1.0 / 65536.0);
    /// ```
    pub const MAX: Q16 = Q16(i32::MAX);
    /// The smallest value, -32767.99998.
    ///
    /// ```
    /// use autograd_core::{Number, Q16};
    /// assert_eq!(Q16::MIN.to_f64(), -Q16::MAX.to_f64()); // symmetric: the poison pattern is below it
    /// ```
    pub const MIN: Q16 = Q16(-i32::MAX);
    /// One step, 2^-16.
    ///
    /// ```
    /// use autograd_core::{Number, Q16};
    /// assert_eq!(Q16::STEP.to_f64(), 1.0 / 65536.0);
    /// assert_eq!((Q16::from_f64(1.0) + Q16::STEP).to_bits(), 65537);
    /// ```
    pub const STEP: Q16 = Q16(1);

    /// The number whose bits are `bits` (`bits / 65536`; `i32::MIN` is poison).
    ///
    /// ```
    /// use autograd_core::{Number, Q16};
    /// assert_eq!(Q16::from_bits(98304).to_f64(), 1.5);
    /// ```
    pub const fn from_bits(bits: i32) -> Self {
        Q16(bits)
    }

    /// The bits: the value times 65536.
    ///
    /// ```
    /// use autograd_core::{Number, Q16};
    /// assert_eq!(Q16::from_f64(1.5).to_bits(), 98304);
    /// assert_eq!(Q16::from_f64(-0.25).to_bits(), -16384);
    /// ```
    pub const fn to_bits(self) -> i32 {
        self.0
    }

    /// `true` for poison.
    ///
    /// ```
    /// use autograd_core::{Number, Q16};
    /// assert!(Q16::from_f64(-1.0).ln().is_poison()); // no logarithm of a negative number
    /// assert!(!Q16::from_f64(1.0).ln().is_poison());
    /// ```
    pub const fn is_poison(self) -> bool {
        self.0 == POISON
    }

    /// The value of an `i64` count of 2^-16 steps, or poison if it is out of range.
    #[inline]
    fn checked(v: i64) -> Self {
        if v > i32::MAX as i64 || v < -(i32::MAX as i64) {
            Q16::POISON
        } else {
            Q16(v as i32)
        }
    }
}

impl Add for Q16 {
    type Output = Q16;
    #[inline]
    fn add(self, rhs: Q16) -> Q16 {
        // An exact i32::MIN result is out of the symmetric range: poison, as it should be.
        match self.0.checked_add(rhs.0) {
            Some(v) if !self.is_poison() && !rhs.is_poison() => Q16(v),
            _ => Q16::POISON,
        }
    }
}

impl Sub for Q16 {
    type Output = Q16;
    #[inline]
    fn sub(self, rhs: Q16) -> Q16 {
        match self.0.checked_sub(rhs.0) {
            Some(v) if !self.is_poison() && !rhs.is_poison() => Q16(v),
            _ => Q16::POISON,
        }
    }
}

impl Mul for Q16 {
    type Output = Q16;
    /// Rounded to nearest (halves up).
    #[inline]
    fn mul(self, rhs: Q16) -> Q16 {
        if self.is_poison() || rhs.is_poison() {
            return Q16::POISON;
        }
        funcs::mul_q16(self.0, rhs.0).map_or(Q16::POISON, Q16)
    }
}

impl Div for Q16 {
    type Output = Q16;
    /// Rounded to nearest (halves away from zero); division by zero is poison.
    #[inline]
    fn div(self, rhs: Q16) -> Q16 {
        if self.is_poison() || rhs.is_poison() || rhs.0 == 0 {
            return Q16::POISON;
        }
        Q16::checked(funcs::div_round((self.0 as i64) << FRAC, rhs.0 as i64))
    }
}

impl Neg for Q16 {
    type Output = Q16;
    /// Exact (the range is symmetric; poison stays poison).
    #[inline]
    fn neg(self) -> Q16 {
        if self.is_poison() {
            self
        } else {
            Q16(-self.0)
        }
    }
}

macro_rules! assign_ops {
    ($($Trait:ident $method:ident $op:tt),*) => {$(
        impl $Trait for Q16 {
            #[inline]
            fn $method(&mut self, rhs: Q16) {
                *self = *self $op rhs;
            }
        }
    )*};
}
assign_ops!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /);

/// Equal values are equal; poison equals nothing, itself included (as NaN).
impl PartialEq for Q16 {
    #[inline]
    fn eq(&self, other: &Q16) -> bool {
        !self.is_poison() && self.0 == other.0
    }
}

/// Ordered by value; poison is unordered (as NaN).
impl PartialOrd for Q16 {
    #[inline]
    fn partial_cmp(&self, other: &Q16) -> Option<core::cmp::Ordering> {
        if self.is_poison() || other.is_poison() {
            None
        } else {
            Some(self.0.cmp(&other.0))
        }
    }
}

impl Sum for Q16 {
    fn sum<I: Iterator<Item = Q16>>(iter: I) -> Q16 {
        iter.fold(Q16(0), |a, b| a + b)
    }
}
impl<'a> Sum<&'a Q16> for Q16 {
    fn sum<I: Iterator<Item = &'a Q16>>(iter: I) -> Q16 {
        iter.fold(Q16(0), |a, b| a + *b)
    }
}
impl Product for Q16 {
    fn product<I: Iterator<Item = Q16>>(iter: I) -> Q16 {
        iter.fold(Q16(1 << FRAC), |a, b| a * b)
    }
}
impl<'a> Product<&'a Q16> for Q16 {
    fn product<I: Iterator<Item = &'a Q16>>(iter: I) -> Q16 {
        iter.fold(Q16(1 << FRAC), |a, b| a * *b)
    }
}

/// The value as the nearest `f64` would print it (`poison` for poison).
impl fmt::Display for Q16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_poison() {
            f.write_str("poison")
        } else {
            fmt::Display::fmt(&self.to_f64(), f)
        }
    }
}

impl fmt::Debug for Q16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Q16({self})")
    }
}

/// One-argument functions of [`funcs`] on the bits, poison in, poison out.
#[inline]
fn lift(x: Q16, f: impl FnOnce(i32) -> i64) -> Q16 {
    if x.is_poison() {
        Q16::POISON
    } else {
        Q16::checked(f(x.0))
    }
}

/// Two-argument functions of [`funcs`] on the bits, poison in, poison out.
#[inline]
fn lift2(x: Q16, y: Q16, f: impl FnOnce(i32, i32) -> i64) -> Q16 {
    if x.is_poison() || y.is_poison() {
        Q16::POISON
    } else {
        Q16::checked(f(x.0, y.0))
    }
}

impl Number for Q16 {
    /// The nearest Q16.16 value (halves away from zero); poison if `c` is out of range or NaN.
    #[inline]
    fn from_f64(c: f64) -> Self {
        // round(c 2^16) on the bits, so a part without an FPU needs no float routine here:
        // c = m 2^(e - 1075) with m the 53-bit significand, so c 2^16 = m / 2^(1059 - e).
        let bits = c.to_bits();
        let e = ((bits >> 52) & 0x7FF) as i32;
        if e == 0x7FF {
            return Q16::POISON; // NaN or infinite
        }
        let shift = 1059 - e;
        if shift >= 64 || e == 0 {
            return Q16(0); // below 2^-17 (zero and subnormals included): rounds to 0
        }
        if shift < 22 {
            return Q16::POISON; // at least 2^52 / 2^21 = 2^31 steps
        }
        let m = (bits & ((1 << 52) - 1)) | (1 << 52);
        // Round half away from zero, as `f64::round`. From a shift of 33 on, the low word cannot
        // change the result (it is below the gap between two halves of the high word's), and
        // 32-bit shifts are what a Cortex-M0 does cheaply.
        let v = if shift >= 33 {
            let high = (m >> 32) as u32;
            i64::from((high + (1 << (shift - 33))) >> (shift - 32))
        } else {
            ((m + (1 << (shift - 1))) >> shift) as i64
        };
        match i32::try_from(v) {
            Ok(v) if bits >> 63 == 1 => Q16(-v),
            Ok(v) => Q16(v),
            Err(_) => Q16::POISON,
        }
    }
    /// Exact (every Q16.16 value is an `f64`); NaN for poison.
    #[inline]
    fn to_f64(&self) -> f64 {
        if self.is_poison() {
            f64::NAN
        } else if self.0 == 0 {
            0.0
        } else {
            // The integer's f64 with 16 taken off its exponent (|x| >= 1: normal, exact).
            f64::from_bits((self.0 as f64).to_bits() - (16 << 52))
        }
    }
    fn exp(self) -> Self {
        lift(self, funcs::exp)
    }
    fn ln(self) -> Self {
        lift(self, funcs::ln)
    }
    fn sqrt(self) -> Self {
        lift(self, funcs::sqrt)
    }
    fn sin(self) -> Self {
        lift(self, funcs::sin)
    }
    fn cos(self) -> Self {
        lift(self, funcs::cos)
    }
    fn sin_cos(self) -> (Self, Self) {
        if self.is_poison() {
            return (Q16::POISON, Q16::POISON);
        }
        let (s, c) = funcs::sin_cos(self.0);
        (Q16::checked(s), Q16::checked(c))
    }
    fn tan(self) -> Self {
        lift(self, funcs::tan)
    }
    fn tanh(self) -> Self {
        lift(self, funcs::tanh)
    }
    fn sigmoid(self) -> Self {
        math::sigmoid(self)
    }
    fn relu(self) -> Self {
        math::relu(self)
    }
    fn leaky_relu(self, slope: f64) -> Self {
        math::leaky_relu(self, Q16::from_f64(slope))
    }
    fn abs(self) -> Self {
        if self.0 < 0 {
            -self
        } else {
            self
        }
    }
    fn softplus(self) -> Self {
        math::softplus(self)
    }
    /// `x^n`: repeated multiplication for `-1 <= n <= 4` (each product rounded), `e^(n ln |x|)`
    /// with the sign of an odd power for the other exponents, within a few steps of the exact
    /// power of this `x` whatever `n` (a product of rounded factors is not: `1 / 0.875` rounded,
    /// to the 73rd, is 4e-4 off; `1 / -0.99991` rounded, squared 15 times to the 39937th, 0.1).
    /// Powers of 2 are exact. `x^0 = 1`; poison stays poison.
    ///
    /// ```
    /// use autograd_core::{Number, Q16};
    ///
    /// let x = Q16::from_f64(-65530.0 / 65536.0);
    /// let exact = (-65530.0_f64 / 65536.0).powi(-39937);
    /// assert!((x.powi(-39937).to_f64() - exact).abs() <= 4.0 / 65536.0);
    /// assert_eq!(Q16::from_f64(-1.5).powi(3).to_f64(), -3.375);
    /// assert_eq!(Q16::from_f64(2.0).powi(14).to_f64(), 16384.0);
    /// ```
    fn powi(self, n: i32) -> Self {
        if self.is_poison() {
            return Q16::POISON;
        }
        if !(-1..=4).contains(&n) {
            return lift(self, |x| funcs::pow(x, i64::from(n) << FRAC));
        }
        let mut base = if n < 0 { Q16::ONE / self } else { self };
        let mut e = n.unsigned_abs();
        let mut acc = Q16::ONE;
        while e > 0 {
            if e & 1 == 1 {
                acc *= base;
            }
            e >>= 1;
            if e > 0 {
                base *= base;
            }
        }
        acc
    }
    fn powf(self, c: f64) -> Self {
        self.pow(Q16::from_f64(c))
    }
    fn pow(self, y: Self) -> Self {
        lift2(self, y, |x, y| funcs::pow(x, y.into()))
    }
    fn max(self, other: Self) -> Self {
        math::max(self, other)
    }
    fn min(self, other: Self) -> Self {
        math::min(self, other)
    }
    fn atan(self) -> Self {
        lift(self, funcs::atan)
    }
    fn asin(self) -> Self {
        lift(self, funcs::asin)
    }
    fn acos(self) -> Self {
        lift(self, funcs::acos)
    }
    fn sinh(self) -> Self {
        lift(self, funcs::sinh)
    }
    fn cosh(self) -> Self {
        lift(self, funcs::cosh)
    }
    fn log2(self) -> Self {
        lift(self, funcs::log2)
    }
    fn log10(self) -> Self {
        lift(self, funcs::log10)
    }
    fn exp2(self) -> Self {
        lift(self, funcs::exp2)
    }
    fn cbrt(self) -> Self {
        lift(self, funcs::cbrt)
    }
    fn atan2(self, x: Self) -> Self {
        lift2(self, x, funcs::atan2)
    }
    fn hypot(self, other: Self) -> Self {
        lift2(self, other, funcs::hypot)
    }
}

crate::tape::inline_layout!([] Q16);

impl Scalar for Q16 {
    const COSTLY_PRODUCT: bool = true;
    const ZERO: Self = Q16(0);
    const ONE: Self = Q16(1 << FRAC);
    /// One step, 2^-16: the spacing of the format (absolute, not relative as in floating point).
    const EPSILON: f64 = 1.0 / 65536.0;

    fn ln_1p(self) -> Self {
        (Q16::ONE + self).ln()
    }
    /// `false` only for poison.
    #[inline]
    fn is_finite(self) -> bool {
        !self.is_poison()
    }
    #[inline]
    fn is_zero(self) -> bool {
        self.0 == 0
    }
}

#[cfg(test)]
mod tests;
