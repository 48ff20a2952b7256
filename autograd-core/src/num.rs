//! The [`num_traits`] traits for [`Var`], [`Dual`] and [`DualVec`] (cargo feature `num-traits`),
//! so generic numeric code written against `num_traits::Float` (and crates built on it, such as
//! `nalgebra`'s matrix arithmetic) differentiates unchanged.
//!
//! Implemented, for every scalar `S` that is a [`Scalar`] and itself a `num_traits::Float`
//! (`f32`, `f64`, and so the duals over them, nested or not): `Zero`, `One`, `Num`, `NumCast`,
//! `ToPrimitive`, `FromPrimitive` (where `S` is), `Signed`, `Float`, and `%` (`Rem`, which `Num`
//! requires: `x % y = x - q y` with the integer `q` piecewise constant, so the partials are 1 and
//! `-q`).
//!
//! ```
//! use autograd_core::{Dual, Tape};
//! use num_traits::Float;
//!
//! // Generic code that knows nothing of this crate.
//! fn f<T: Float>(x: T, y: T) -> T {
//!     x.hypot(y) + x.sinh() * y.log2()
//! }
//!
//! let tape = Tape::<f64, 32>::new();
//! let (x, y) = (tape.var(3.0), tape.var(4.0));
//! let grads = tape.backward(f(x, y))?;
//! // d/dx = x / 5 + cosh(x) log2(y), d/dy = y / 5 + sinh(x) / (y ln 2)
//! let (dx, dy) = (0.6 + 3.0_f64.cosh() * 2.0, 0.8 + 3.0_f64.sinh() / (4.0 * 2.0_f64.ln()));
//! assert!((grads.wrt(x) - dx).abs() < 1e-13 && (grads.wrt(y) - dy).abs() < 1e-13);
//! assert!((f(Dual::variable(3.0), Dual::constant(4.0)).eps - dx).abs() < 1e-13);
//! # Ok::<(), autograd_core::TapeError>(())
//! ```
//!
//! # What each method differentiates
//! - The core's operations are used directly: `exp`, `ln`, `sqrt`, `sin`, `cos`, `tan`, `tanh`,
//!   `asin`, `acos`, `atan`, `atan2`, `sinh`, `cosh`, `log2`, `log10`, `exp2`, `cbrt`, `hypot`,
//!   `powi`, `powf` (the core's `pow`, differentiable in both), `abs`, `max`, `min`,
//!   `mul_add` (not fused: `x a + b` rounded twice), with the core's conventions at kinks
//!   (`abs'(0) = 0`, equal arguments of `max`/`min` split the derivative, `atan2` and `hypot`
//!   have derivative 0 at the origin; `asin`, `acos` at `±1` and `cbrt` at 0 the infinite one).
//!   `max`/`min` follow `Float` for NaN: the other argument is returned.
//! - Composed from those, with their exact derivatives: `log` (`ln x / ln b`), `exp_m1`,
//!   `ln_1p`, `asinh`, `acosh`, `atanh` (their logarithms, in forms that neither cancel nor
//!   overflow), `recip`, `fract` (`x - trunc x`: derivative 1), `to_degrees`, `to_radians`,
//!   `abs_sub` (`relu(x - y)`: derivative 0 at `x = y`), `copysign`, `clamp`, `%`. Their value is
//!   then set to the scalar's own function, so it is not off by the composition's rounding (on a
//!   tape that is a `+c` statement label, and costs nothing).
//! - Piecewise constant, derivative 0: `floor`, `ceil`, `round`, `trunc`, `signum`.
//! - Constants (no derivative): `nan`, `infinity`, `neg_infinity`, `neg_zero`, `min_value`,
//!   `min_positive_value`, `epsilon`, `max_value`, `Zero::zero`, `One::one`, `NumCast::from`,
//!   `FromPrimitive`, `Num::from_str_radix` (parsed by `S`).
//! - Questions about the value (as `==` and `<`, they look at the real part / the value only):
//!   `is_nan`, `is_infinite`, `is_finite`, `is_normal`, `classify`, `is_sign_positive`,
//!   `is_sign_negative`, `integer_decode`, `Zero::is_zero`, `Signed::is_positive`, and the
//!   `ToPrimitive` conversions. For a dual number, [`Scalar::is_finite`] and
//!   [`Scalar::is_zero`] look at every part instead; where both traits are in scope, name the
//!   one meant.
//!
//! `Var<'t, S>` borrows its tape, so it is `'static` only for a `'static` tape; `num_traits`
//! does not require `'static`, `nalgebra::Scalar` does (a leaked tape serves in a test).
//! `nalgebra`'s `determinant`, `norm`, decompositions need `simba`'s `ComplexField`, which is not
//! implemented here; its arithmetic (`Matrix * Vector`, `dot`, `cross`, ...) needs only
//! `Zero`, `One` and the operators.

use num_traits::Float;

use crate::op::Op;
use crate::{Dual, DualVec, Number, Scalar, Var};

mod impls;

/// What the `num_traits` impls need of a differentiable number over the scalar `S`, beyond
/// [`Number`]: its value, constants of `S`, and two ways to set a value.
pub(crate) trait Active<S: Scalar + Float>: Number {
    /// The value (a dual's real part).
    fn real(&self) -> S;
    /// A constant (derivative 0).
    fn lift(s: S) -> Self;
    /// The same derivatives with the value `v` (which must be this value up to rounding).
    fn with_value(self, v: S) -> Self;
    /// A piecewise constant function's value `v`: derivative 0, but (on a tape) still recorded
    /// there, as `relu` below 0, so a sweep from it gives zeros rather than an error.
    fn flat(self, v: S) -> Self;
}

impl<'t, S: Scalar + Float> Active<S> for Var<'t, S> {
    #[inline]
    fn real(&self) -> S {
        self.value()
    }
    #[inline]
    fn lift(s: S) -> Self {
        Var::constant(s)
    }
    #[inline]
    fn with_value(self, v: S) -> Self {
        // A shift by `v - value` with the value set exactly: partials pass through unchanged.
        self.chain(Op::Shift, v, S::ONE)
    }
    #[inline]
    fn flat(self, v: S) -> Self {
        // A zero derivative cuts the dependence: the value stays on the tape.
        self.chain(Op::Scale, v, S::ZERO)
    }
}

impl<S: Scalar + Float> Active<S> for Dual<S> {
    #[inline]
    fn real(&self) -> S {
        self.re
    }
    #[inline]
    fn lift(s: S) -> Self {
        Dual::constant(s)
    }
    #[inline]
    fn with_value(self, v: S) -> Self {
        Dual::new(v, self.eps)
    }
    #[inline]
    fn flat(self, v: S) -> Self {
        Dual::constant(v)
    }
}

impl<S: Scalar + Float, const N: usize> Active<S> for DualVec<S, N> {
    #[inline]
    fn real(&self) -> S {
        self.re
    }
    #[inline]
    fn lift(s: S) -> Self {
        DualVec::constant(s)
    }
    #[inline]
    fn with_value(self, v: S) -> Self {
        DualVec::new(v, self.eps)
    }
    #[inline]
    fn flat(self, v: S) -> Self {
        DualVec::constant(v)
    }
}

// The compositions: each written once over `Active`, for all three types. Derivatives come from
// the core's rules; the value is then set to `S`'s own function.

fn asinh<S: Scalar + Float, T: Active<S>>(x: T) -> T {
    let v = Float::asinh(x.real());
    // Odd: for x < 0 the positive branch of -x, so x + sqrt(x^2 + 1) never cancels.
    let (a, sign) = if x.real() < S::ZERO {
        (-x, -1.0)
    } else {
        (x, 1.0)
    };
    let r = if a.real() <= S::ONE {
        Number::ln(a + Number::sqrt(a.square().add_f64(1.0)))
    } else {
        // ln(a (1 + sqrt(1 + 1/a^2))): a^2 would overflow for a > 1e154.
        let inv = T::one() / a;
        Number::ln(a) + Number::ln(Number::sqrt(inv.square().add_f64(1.0)).add_f64(1.0))
    };
    r.mul_f64(sign).with_value(v)
}

fn acosh<S: Scalar + Float, T: Active<S>>(x: T) -> T {
    let v = Float::acosh(x.real());
    let r = if x.real() <= S::from_f64(2.0) {
        // (x - 1)(x + 1) rather than x^2 - 1: exact near 1, where the derivative is large.
        Number::ln(x + Number::sqrt(x.add_f64(-1.0) * x.add_f64(1.0)))
    } else {
        let inv = T::one() / x;
        Number::ln(x) + Number::ln(Number::sqrt(inv.square().rsub_f64(1.0)).add_f64(1.0))
    };
    r.with_value(v)
}

fn atanh<S: Scalar + Float, T: Active<S>>(x: T) -> T {
    let r = (Number::ln(x.add_f64(1.0)) - Number::ln(x.rsub_f64(1.0))).mul_f64(0.5);
    r.with_value(Float::atanh(x.real()))
}

/// `x % y = x - q y` with `q` the (piecewise constant) integer quotient the remainder used.
fn rem<S: Scalar + Float, T: Active<S>>(x: T, y: T) -> T {
    let (a, b) = (x.real(), y.real());
    let r = a % b;
    let q = Float::round((a - r) / b);
    (x - y * T::lift(q)).with_value(r)
}
