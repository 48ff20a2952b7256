//! [`DualVec`]: a dual number with `N` tangent lanes, so one forward pass carries `N` directional
//! derivatives. The derivative rules are those of [`Dual`](crate::Dual) (one macro in the `dual`
//! module); this file holds only the lane operations.

use core::cmp::Ordering;
use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::dual::{dual_left_scalar, dual_rules, guarded_mul, is_dual, power_rule};
use crate::{math, Number, Scalar};

/// `re + Σ eps[k]·ε_k` with `ε_j ε_k = 0`: a value and its derivatives in `N` directions at once.
///
/// Seeding input `i` with the unit vector `e_k` in lane `k` makes lane `k` of the result
/// `∂f/∂x_i`; so `N` inputs are differentiated in one pass (see
/// [`gradient_forward_vec`](crate::gradient_forward_vec)), at about the cost of `N` dual passes
/// in arithmetic but with the value computed once. Like [`Dual`](crate::Dual) it is a
/// [`Scalar`]: comparisons look at the real part, [`Scalar::is_zero`] at every lane.
///
/// ```
/// use autograd_core::{DualVec, Number};
///
/// // f(x, y) = x^2 y at (3, 2): both partial derivatives in one pass.
/// let x = DualVec::<f64, 2>::variable(3.0, 0);
/// let y = DualVec::<f64, 2>::variable(2.0, 1);
/// let f = x.powi(2) * y;
/// assert_eq!(f.re, 18.0);
/// assert_eq!(f.eps, [12.0, 9.0]); // (2xy, x^2)
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DualVec<S, const N: usize> {
    /// The value.
    pub re: S,
    /// The tangent in each of the `N` seeded directions.
    pub eps: [S; N],
}

impl<S: Scalar, const N: usize> DualVec<S, N> {
    /// `re + Σ eps[k]·ε_k`.
    ///
    /// ```
    /// use autograd_core::DualVec;
    /// let x = DualVec::new(3.0, [1.0, 0.0]);
    /// let y = DualVec::new(4.0, [0.0, 1.0]);
    /// let p = x * y; // both partials in one pass
    /// assert_eq!((p.re, p.eps), (12.0, [4.0, 3.0]));
    /// ```
    #[inline(always)]
    pub const fn new(re: S, eps: [S; N]) -> Self {
        DualVec { re, eps }
    }

    /// A constant: every tangent lane 0.
    ///
    /// ```
    /// use autograd_core::DualVec;
    /// let x = DualVec::<f64, 2>::variable(3.0, 0);
    /// let y = x * DualVec::constant(5.0);
    /// assert_eq!(y.eps, [5.0, 0.0]);
    /// ```
    #[inline(always)]
    pub const fn constant(re: S) -> Self {
        DualVec {
            re,
            eps: [S::ZERO; N],
        }
    }

    /// An input seeded in lane `lane` (tangent 1 there, 0 elsewhere); a `lane >= N` gives a
    /// constant.
    ///
    /// ```
    /// use autograd_core::{DualVec, Number};
    /// let (x, y) = (DualVec::<f64, 2>::variable(1.0, 0), DualVec::variable(2.0, 1));
    /// let f = x.exp() * y; // e^x y: gradient (e^x y, e^x)
    /// let e = 1.0f64.exp(); // as std computes it
    /// assert!((f.eps[0] - 2.0 * e).abs() < 1e-14 && (f.eps[1] - e).abs() < 1e-15);
    /// assert_eq!(DualVec::<f64, 2>::variable(1.0, 2).eps, [0.0, 0.0]); // no such lane
    /// ```
    #[inline]
    pub fn variable(re: S, lane: usize) -> Self {
        let mut d = Self::constant(re);
        if let Some(e) = d.eps.get_mut(lane) {
            *e = S::ONE;
        }
        d
    }

    #[inline(always)]
    fn chain(self, v: S, d: S) -> Self {
        let mut eps = self.eps;
        for e in &mut eps {
            *e *= d;
        }
        DualVec { re: v, eps }
    }

    #[inline(always)]
    fn chain_guarded(self, v: S, d: S) -> Self {
        if d.is_finite() {
            return self.chain(v, d);
        }
        let mut eps = self.eps;
        for e in &mut eps {
            *e = guarded_mul(*e, d);
        }
        DualVec { re: v, eps }
    }

    #[inline(always)]
    fn combine(v: S, a: Self, da: S, b: Self, db: S) -> Self {
        let mut eps = a.eps;
        for (e, eb) in eps.iter_mut().zip(b.eps) {
            *e = *e * da + eb * db;
        }
        DualVec { re: v, eps }
    }

    #[inline(always)]
    fn combine_guarded(v: S, a: Self, da: S, b: Self, db: S) -> Self {
        let mut eps = a.eps;
        for (e, eb) in eps.iter_mut().zip(b.eps) {
            *e = guarded_mul(*e, da) + guarded_mul(eb, db);
        }
        DualVec { re: v, eps }
    }

    #[inline(always)]
    fn lanes_add(self, rhs: Self, re: S) -> Self {
        let mut eps = self.eps;
        for (e, r) in eps.iter_mut().zip(rhs.eps) {
            *e += r;
        }
        DualVec { re, eps }
    }

    #[inline(always)]
    fn lanes_sub(self, rhs: Self, re: S) -> Self {
        let mut eps = self.eps;
        for (e, r) in eps.iter_mut().zip(rhs.eps) {
            *e -= r;
        }
        DualVec { re, eps }
    }

    #[inline(always)]
    fn lanes_neg(self) -> Self {
        let mut eps = self.eps;
        for e in &mut eps {
            *e = -*e;
        }
        DualVec { re: -self.re, eps }
    }

    #[inline(always)]
    fn tangent_is_finite(&self) -> bool {
        self.eps.iter().all(|e| e.is_finite())
    }

    #[inline(always)]
    fn tangent_is_zero(&self) -> bool {
        self.eps.iter().all(|e| e.is_zero())
    }
}

impl<S: Scalar, const N: usize> fmt::Display for DualVec<S, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if is_dual::<S>() {
            write!(f, "({}) + [", self.re)?;
        } else {
            write!(f, "{} + [", self.re)?;
        }
        for (k, e) in self.eps.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{e}")?;
        }
        f.write_str("]ε")
    }
}

dual_rules!([S: Scalar, const N: usize] DualVec<S, N>);
dual_left_scalar!([const N: usize] DualVec<f64, N>, f64);
dual_left_scalar!([const N: usize] DualVec<f32, N>, f32);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dual;

    #[test]
    fn every_lane_matches_a_separate_dual_pass() {
        fn f<T: Number>(x: T, y: T) -> T {
            (x * y).sin() / (T::one() + y.exp()) + x.powf(1.5).max(y.tanh())
        }
        let (x, y) = (1.3_f64, -0.4);
        let v = f(DualVec::<f64, 2>::variable(x, 0), DualVec::variable(y, 1));
        let dx = f(Dual::variable(x), Dual::constant(y));
        let dy = f(Dual::constant(x), Dual::variable(y));
        assert_eq!(v.re, dx.re);
        assert_eq!(v.eps, [dx.eps, dy.eps]);
    }

    #[test]
    fn display_lists_the_lanes() {
        let d = DualVec::<f64, 3>::variable(1.5, 1);
        let mut s = heapless::String::<64>::new();
        core::fmt::write(&mut s, format_args!("{d}")).unwrap();
        assert_eq!(s.as_str(), "1.5 + [0, 1, 0]ε");
    }
}
