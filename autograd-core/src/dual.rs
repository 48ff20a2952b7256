//! Forward mode: [`Dual`] numbers `a + b·ε` with `ε² = 0`.
//!
//! Evaluating `f(a + ε)` gives `f(a) + f'(a)·ε`: the derivative rides along with the value, one
//! input direction per pass. The rules below are written once, in [`dual_rules!`], for every dual
//! type (also [`DualVec`](crate::DualVec), which carries `N` directions), in terms of two tangent
//! operations each type supplies:
//!
//! - `chain(v, d)`: the result of a one-input function with value `v` and derivative `d`,
//!   tangent `eps · d`;
//! - `combine(v, a, da, b, db)`: a two-input function, tangent `a.eps · da + b.eps · db`.
//!
//! They are independent of the tape's rules in the reverse-mode module (the only shared code is the
//! *value* of each function, from [`crate::math`], so values are bit-identical in every mode): that
//! independence is what makes reverse-vs-forward agreement a real check.

use core::cmp::Ordering;
use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::{math, Number, Scalar};

pub(crate) mod operators;

/// A dual number `re + eps·ε` (`ε² = 0`): a value and its derivative in one direction.
///
/// Generic over any [`Scalar`], and itself a [`Scalar`], so it nests (`Dual<Dual<f64>>` carries
/// second derivatives) and a tape can record it (`Tape<Dual<f64>, N>` gives Hessian-vector
/// products by forward-over-reverse; see [`hessian_vector_product`](crate::hessian_vector_product)).
/// `==` and `<` compare the real part only, so branches and kinks behave as for a plain value;
/// [`Scalar::is_zero`] checks both parts.
///
/// # Conventions
/// As on the tape (and PyTorch): `relu'(0) = 0`, `abs'(0) = 0`, `leaky_relu'(0) = slope`,
/// `max`/`min` of equal arguments take half of each tangent, `d/dy x^y = 0` at `x = 0, y >= 0`.
/// A zero tangent stays exactly zero even where the derivative is infinite or undefined
/// (`sqrt(0)`, `ln(0)`, `x^y` in `y` for `x < 0`): a lane that does not depend on an input has
/// derivative 0, as on the tape, which skips zero adjoints.
///
/// The seed lesson's forward-mode example, `d/dx sin(x²)` at 2:
///
/// ```
/// use autograd_core::{Dual, Number};
///
/// let x = Dual::variable(2.0_f64); // (2, 1): dx/dx = 1
/// let y = x.powi(2).sin();
/// assert_eq!(y.re, libm::sin(4.0));
/// assert!((y.eps - -2.615).abs() < 5e-4); // cos(4) * 4
///
/// // Nested: second derivative of x^3 at 2 is 6x = 12.
/// let x = Dual::new(Dual::variable(2.0_f64), Dual::constant(1.0));
/// let y = x.powi(3);
/// assert_eq!((y.re.re, y.re.eps, y.eps.eps), (8.0, 12.0, 12.0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Dual<S> {
    /// The value.
    pub re: S,
    /// The derivative (tangent) in the seeded direction.
    pub eps: S,
}

impl<S: Scalar> Dual<S> {
    /// `re + eps·ε`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    /// // The derivative of x^3 at 2 in the direction 0.5: 3 x^2 0.5.
    /// let y = Dual::new(2.0, 0.5).powi(3);
    /// assert_eq!((y.re, y.eps), (8.0, 6.0));
    /// ```
    #[inline(always)]
    pub const fn new(re: S, eps: S) -> Self {
        Dual { re, eps }
    }

    /// A constant: derivative 0.
    ///
    /// ```
    /// use autograd_core::Dual;
    /// let x = Dual::variable(3.0);
    /// let y = x * Dual::constant(2.0) + Dual::constant(1.0);
    /// assert_eq!((y.re, y.eps), (7.0, 2.0));
    /// ```
    #[inline(always)]
    pub const fn constant(re: S) -> Self {
        Dual { re, eps: S::ZERO }
    }

    /// The independent variable: derivative 1 (`dx/dx = 1`).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    /// let y = Dual::variable(0.0f64).sin();
    /// assert_eq!((y.re, y.eps), (0.0, 1.0)); // sin 0, cos 0
    /// ```
    #[inline(always)]
    pub const fn variable(re: S) -> Self {
        Dual { re, eps: S::ONE }
    }

    #[inline(always)]
    fn chain(self, v: S, d: S) -> Self {
        Dual {
            re: v,
            eps: self.eps * d,
        }
    }

    /// `chain` where `d` may be infinite or NaN at a finite input: a zero tangent stays zero.
    #[inline(always)]
    fn chain_guarded(self, v: S, d: S) -> Self {
        Dual {
            re: v,
            eps: guarded_mul(self.eps, d),
        }
    }

    #[inline(always)]
    fn combine(v: S, a: Self, da: S, b: Self, db: S) -> Self {
        Dual {
            re: v,
            eps: a.eps * da + b.eps * db,
        }
    }

    #[inline(always)]
    fn combine_guarded(v: S, a: Self, da: S, b: Self, db: S) -> Self {
        Dual {
            re: v,
            eps: guarded_mul(a.eps, da) + guarded_mul(b.eps, db),
        }
    }

    #[inline(always)]
    fn lanes_add(self, rhs: Self, re: S) -> Self {
        Dual {
            re,
            eps: self.eps + rhs.eps,
        }
    }

    #[inline(always)]
    fn lanes_sub(self, rhs: Self, re: S) -> Self {
        Dual {
            re,
            eps: self.eps - rhs.eps,
        }
    }

    #[inline(always)]
    fn lanes_neg(self) -> Self {
        Dual {
            re: -self.re,
            eps: -self.eps,
        }
    }

    #[inline(always)]
    fn tangent_is_finite(&self) -> bool {
        self.eps.is_finite()
    }

    #[inline(always)]
    fn tangent_is_zero(&self) -> bool {
        self.eps.is_zero()
    }
}

/// `e * d`, except that a zero `e` gives zero even when `d` is infinite or NaN.
#[inline(always)]
pub(crate) fn guarded_mul<S: Scalar>(e: S, d: S) -> S {
    if d.is_finite() || !e.is_zero() {
        e * d
    } else {
        S::ZERO
    }
}

/// `d/dx x^c = c x^(c-1)`, for `z = x^c`: 0 for `c = 0`; at a negative base where `c - 1`
/// rounds (an integer `c` of 2^53 or more, whose parity it may lose) `c z / x`, which takes the
/// sign from the value; elsewhere `c x^(c-1)`, which keeps its precision where `z` is subnormal.
/// Forward mode's rule for `powf` and `pow`, written apart from the tape's (`op.rs`).
#[inline(always)]
pub(crate) fn power_rule<S: Scalar>(x: S, c: S, z: S) -> S {
    if c == S::ZERO {
        S::ZERO
    } else if x < S::ZERO && c - S::ONE + S::ONE != c {
        c * z / x
    } else {
        c * x.pow(c - S::ONE)
    }
}

/// `re + epsε`; nested duals are parenthesised: `(1 + 2ε) + (3 + 4ε)ε`.
impl<S: Scalar> fmt::Display for Dual<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if is_dual::<S>() {
            write!(f, "({}) + ({})ε", self.re, self.eps)
        } else {
            write!(f, "{} + {}ε", self.re, self.eps)
        }
    }
}

/// `true` if `S` is itself a dual number (its display needs parentheses when nested).
pub(crate) fn is_dual<S: 'static>() -> bool {
    core::any::type_name::<S>().contains("Dual")
}

/// Implements [`Number`], [`Scalar`], the operators and the comparisons for a dual type, from its
/// tangent operations (`chain`, `chain_guarded`, `combine`, `combine_guarded`, `lanes_*`,
/// `tangent_is_*`, `constant`). Every derivative rule of forward mode is in this macro.
macro_rules! dual_rules {
    ([$($gen:tt)*] $T:ty) => {
        impl<$($gen)*> Number for $T {
            #[inline(always)]
            fn from_f64(c: f64) -> Self {
                Self::constant(S::from_f64(c))
            }
            #[inline(always)]
            fn to_f64(&self) -> f64 {
                self.re.to_f64()
            }
            #[inline]
            fn exp(self) -> Self {
                let e = self.re.exp();
                self.chain(e, e)
            }
            #[inline]
            fn ln(self) -> Self {
                self.chain_guarded(self.re.ln(), S::ONE / self.re)
            }
            #[inline]
            fn sqrt(self) -> Self {
                let s = self.re.sqrt();
                self.chain_guarded(s, S::from_f64(0.5) / s)
            }
            #[inline]
            fn sin(self) -> Self {
                let (s, c) = self.re.sin_cos();
                self.chain(s, c)
            }
            #[inline]
            fn cos(self) -> Self {
                let (s, c) = self.re.sin_cos();
                self.chain(c, -s)
            }
            #[inline]
            fn sin_cos(self) -> (Self, Self) {
                let (s, c) = self.re.sin_cos();
                (self.chain(s, c), self.chain(c, -s))
            }
            #[inline]
            fn tan(self) -> Self {
                let t = self.re.tan();
                self.chain(t, S::ONE + t * t)
            }
            #[inline]
            fn tanh(self) -> Self {
                // 1 - tanh^2 from the value: exactly 0 (not NaN) where tanh saturates.
                let t = self.re.tanh();
                self.chain(t, S::ONE - t * t)
            }
            #[inline]
            fn sigmoid(self) -> Self {
                let s = math::sigmoid(self.re);
                self.chain(s, s * (S::ONE - s))
            }
            #[inline]
            fn relu(self) -> Self {
                if self.re > S::ZERO {
                    self
                } else {
                    Self::constant(math::relu(self.re))
                }
            }
            #[inline]
            fn leaky_relu(self, slope: f64) -> Self {
                if self.re > S::ZERO {
                    self
                } else {
                    let s = S::from_f64(slope);
                    self.chain(math::leaky_relu(self.re, s), s)
                }
            }
            #[inline]
            fn abs(self) -> Self {
                if self.re > S::ZERO {
                    self
                } else if self.re < S::ZERO {
                    -self
                } else {
                    Self::constant(self.re.abs())
                }
            }
            #[inline]
            fn softplus(self) -> Self {
                self.chain(math::softplus(self.re), math::sigmoid(self.re))
            }
            #[inline]
            fn powi(self, n: i32) -> Self {
                match n {
                    0 => Self::constant(self.re.powi(0)),
                    1 => self,
                    2 => self.chain(self.re * self.re, self.re + self.re),
                    _ => self.chain_guarded(
                        self.re.powi(n),
                        // x^(n-1); `n - 1` overflows for i32::MIN.
                        S::from_f64(n as f64)
                            * match n.checked_sub(1) {
                                Some(m) => self.re.powi(m),
                                None => self.re.powi(n) / self.re,
                            },
                    ),
                }
            }
            #[inline]
            fn powf(self, c: f64) -> Self {
                let c_s = S::from_f64(c);
                let z = self.re.powf(c);
                if c_s == S::ZERO {
                    return Self::constant(z);
                }
                self.chain_guarded(z, power_rule(self.re, c_s, z))
            }
            #[inline]
            fn pow(self, y: Self) -> Self {
                let (x, yr) = (self.re, y.re);
                let z = x.pow(yr);
                let dx = power_rule(x, yr, z);
                // d/dy = ln(x) x^y, taken as 0 at x = 0, y >= 0 (as PyTorch), where 0^y is flat
                // from the right.
                let dy = if x == S::ZERO && yr >= S::ZERO {
                    S::ZERO
                } else {
                    x.ln() * z
                };
                Self::combine_guarded(z, self, dx, y, dy)
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                if self.re > other.re {
                    self
                } else if other.re > self.re {
                    other
                } else {
                    let half = S::from_f64(0.5);
                    Self::combine(math::max(self.re, other.re), self, half, other, half)
                }
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                if self.re < other.re {
                    self
                } else if other.re < self.re {
                    other
                } else {
                    let half = S::from_f64(0.5);
                    Self::combine(math::min(self.re, other.re), self, half, other, half)
                }
            }
            #[inline]
            fn atan(self) -> Self {
                let x = self.re;
                self.chain(x.atan(), (S::ONE + x * x).powi(-1))
            }
            #[inline]
            fn asin(self) -> Self {
                // 1 / sqrt(1 - x^2) with 1 - x^2 as (1 - x)(1 + x): exact near |x| = 1.
                let x = self.re;
                let root = ((S::ONE + x) * (S::ONE - x)).sqrt();
                self.chain_guarded(x.asin(), root.powi(-1))
            }
            #[inline]
            fn acos(self) -> Self {
                let x = self.re;
                let root = ((S::ONE + x) * (S::ONE - x)).sqrt();
                self.chain_guarded(x.acos(), -root.powi(-1))
            }
            #[inline]
            fn sinh(self) -> Self {
                self.chain(self.re.sinh(), self.re.cosh())
            }
            #[inline]
            fn cosh(self) -> Self {
                self.chain(self.re.cosh(), self.re.sinh())
            }
            #[inline]
            fn log2(self) -> Self {
                // log2 x = ln x / ln 2. (1 / x) / ln 2, not 1 / (x ln 2): in fixed point the
                // product x ln 2 of a small x keeps few digits.
                let ln2 = S::from_f64(core::f64::consts::LN_2);
                self.chain_guarded(self.re.log2(), S::ONE / self.re / ln2)
            }
            #[inline]
            fn log10(self) -> Self {
                // (1 / x) / ln 10, not 1 / (x ln 10): x ln 10 overflows at f32::MAX.
                let ln10 = S::from_f64(core::f64::consts::LN_10);
                self.chain_guarded(self.re.log10(), S::ONE / self.re / ln10)
            }
            #[inline]
            fn exp2(self) -> Self {
                // 2^x = e^(x ln 2).
                let e = self.re.exp2();
                self.chain(e, e * S::from_f64(core::f64::consts::LN_2))
            }
            #[inline]
            fn cbrt(self) -> Self {
                // x = c^3, so dc/dx = 1 / (3 c^2): infinite at 0, where c / 3x would be 0/0.
                let c = self.re.cbrt();
                self.chain_guarded(c, S::ONE / (S::from_f64(3.0) * c * c))
            }
            #[inline]
            fn atan2(self, x: Self) -> Self {
                // The angle of (x, y), y = self: d/dy = x / r^2 = cos / r, d/dx = -y / r^2 =
                // -sin / r, with r = hypot(x, y) (r^2 would overflow or underflow first); 0 at
                // the origin, where the angle has no derivative (convention).
                let (yr, xr) = (self.re, x.re);
                let (angle, r) = (yr.atan2(xr), yr.hypot(xr));
                if r == S::ZERO {
                    return Self::combine(angle, self, S::ZERO, x, S::ZERO);
                }
                if !r.is_finite() && xr.is_finite() && yr.is_finite() {
                    // r overflowed (both near the largest value): cos and sin from halves,
                    // 1 / r as (1 / (r/2)) / 2.
                    let half = S::from_f64(0.5);
                    let (xh, yh) = (xr * half, yr * half);
                    let rh = xh.hypot(yh);
                    let (cos, sin) = (xh / rh, yh / rh);
                    return Self::combine(angle, self, cos / rh * half, x, -sin / rh * half);
                }
                let (cos, sin) = (xr / r, yr / r);
                Self::combine(angle, self, cos / r, x, -sin / r)
            }
            #[inline]
            fn hypot(self, other: Self) -> Self {
                // d/da sqrt(a^2 + b^2) = a / h; the tip of the cone takes 0 (as abs'(0) = 0).
                let h = self.re.hypot(other.re);
                if h == S::ZERO {
                    return Self::combine(h, self, S::ZERO, other, S::ZERO);
                }
                Self::combine(h, self, self.re / h, other, other.re / h)
            }
            #[inline(always)]
            fn square(self) -> Self {
                self.chain(self.re * self.re, self.re + self.re)
            }
        }

        impl<$($gen)*> Scalar for $T {
            const ZERO: Self = Self::constant(S::ZERO);
            const ONE: Self = Self::constant(S::ONE);
            const EPSILON: f64 = S::EPSILON;

            #[inline]
            fn ln_1p(self) -> Self {
                self.chain_guarded(self.re.ln_1p(), S::ONE / (S::ONE + self.re))
            }
            #[inline]
            fn is_finite(self) -> bool {
                self.re.is_finite() && self.tangent_is_finite()
            }
            #[inline]
            fn is_zero(self) -> bool {
                self.re.is_zero() && self.tangent_is_zero()
            }
        }

        $crate::dual::operators::dual_operators!([$($gen)*] $T);
        $crate::tape::inline_layout!([$($gen)*] $T);
    };
}

pub(crate) use dual_rules;
pub(crate) use operators::dual_left_scalar;

dual_rules!([S: Scalar] Dual<S>);
dual_left_scalar!([] Dual<f64>, f64);
dual_left_scalar!([] Dual<f32>, f32);

#[cfg(test)]
mod tests;
