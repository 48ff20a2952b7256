//! [`Function`] (R^n → R) and [`VectorFunction`] (R^n → R^m): a function written once against
//! [`Number`], in the form every driver takes.

use crate::Number;

/// A function R^n → R, written once for every [`Number`] type.
///
/// Where it can go, and how many passes each mode takes (measured costs: the README's
/// performance section, reproduced by `cargo xtask bench`):
///
/// | mode | driver | passes |
/// |---|---|---|
/// | reverse | [`gradient_reverse`] | 1 recording + 1 backward sweep |
/// | forward, `Dual` | [`gradient_forward`] | n |
/// | forward, `DualVec<S, L>` | [`gradient_forward_vec`] | ceil(n / L) |
/// | central differences | [`gradient_central`] | 2n + 1 plain |
/// | Jacobian, reverse | [`jacobian_reverse`] | 1 recording + m sweeps |
/// | Jacobian, forward | [`jacobian_forward`], [`jacobian_forward_vec`] | n, ceil(n / L) |
///
/// Reverse mode's cost does not grow with n; forward mode's does, so it pays for few inputs
/// (or many outputs), and its lanes pay where transcendental functions dominate.
///
/// Implement it on a (usually zero-sized) type that forwards to a generic function; the same
/// value can then be passed to every gradient driver, checked by [`gradcheck`](crate::gradcheck)
/// and differentiated twice ([`hessian`](crate::hessian)). Data the function needs (targets,
/// weights) can live in the implementing type and enter the computation as
/// `T::from_f64(c)` constants.
///
/// ```
/// use autograd_core::{Function, Number};
///
/// /// Squared distance to a fixed point.
/// struct DistanceTo<'a>(&'a [f64]);
/// impl Function for DistanceTo<'_> {
///     fn eval<T: Number>(&self, x: &[T]) -> T {
///         x.iter().zip(self.0).fold(T::zero(), |s, (xi, ci)| s + (*xi - T::from_f64(*ci)).square())
///     }
/// }
/// assert_eq!(DistanceTo(&[1.0, 2.0]).eval(&[4.0, 6.0]), 25.0);
/// ```
///
/// [`gradient_reverse`]: crate::gradient_reverse
/// [`gradient_forward`]: crate::gradient_forward
/// [`gradient_forward_vec`]: crate::gradient_forward_vec
/// [`gradient_central`]: crate::gradient_central
/// [`jacobian_reverse`]: crate::jacobian_reverse
/// [`jacobian_forward`]: crate::jacobian_forward
/// [`jacobian_forward_vec`]: crate::jacobian_forward_vec
pub trait Function {
    /// `f(x)`.
    fn eval<T: Number>(&self, x: &[T]) -> T;
}

/// A function R^n → R^m, written once for every [`Number`] type: it writes `f(x)` into `out`
/// (`m = out.len()`, chosen by the caller's slices).
///
/// ```
/// use autograd_core::{jacobian_forward, Number, VectorFunction};
///
/// /// Polar to Cartesian: (r, θ) -> (r cos θ, r sin θ).
/// struct Polar;
/// impl VectorFunction for Polar {
///     fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
///         let (s, c) = x[1].sin_cos(); // both from one computation
///         out[0] = x[0] * c;
///         out[1] = x[0] * s;
///     }
/// }
/// let (mut y, mut j) = ([0.0; 2], [0.0; 4]);
/// jacobian_forward(&Polar, &[2.0, 0.0], &mut y, &mut j)?;
/// assert_eq!(y, [2.0, 0.0]);
/// assert_eq!(j, [1.0, 0.0, 0.0, 2.0]); // [[cos θ, -r sin θ], [sin θ, r cos θ]]
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub trait VectorFunction {
    /// Writes `f(x)` into `out`.
    fn eval<T: Number>(&self, x: &[T], out: &mut [T]);
}

impl<F: Function + ?Sized> Function for &F {
    #[inline(always)]
    fn eval<T: Number>(&self, x: &[T]) -> T {
        (**self).eval(x)
    }
}

impl<F: VectorFunction + ?Sized> VectorFunction for &F {
    #[inline(always)]
    fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
        (**self).eval(x, out)
    }
}
