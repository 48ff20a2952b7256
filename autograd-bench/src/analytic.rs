//! Hand-written gradients of the benchmark functions: the practical limit a tape is compared to.

use autograd_core::Scalar;

/// Writes the gradient of [`rosenbrock`](crate::functions::rosenbrock) at `x` into `grad`
/// (same length) and returns the function value.
#[inline]
pub fn rosenbrock_gradient<S: Scalar>(x: &[S], grad: &mut [S]) -> S {
    let hundred = S::from_f64(100.0);
    let two = S::from_f64(2.0);
    let mut sum = S::ZERO;
    grad.iter_mut().for_each(|g| *g = S::ZERO);
    for i in 0..x.len().saturating_sub(1) {
        let (a, b) = (x[i], x[i + 1]);
        let d = b - a * a;
        let e = S::ONE - a;
        sum += hundred * d * d + e * e;
        // d/da = -400 d a - 2 (1 - a); d/db = 200 d
        grad[i] += -(two * two * hundred) * d * a - two * e;
        grad[i + 1] += two * hundred * d;
    }
    sum
}

/// Writes the gradient of [`dense`](crate::functions::dense) at `x` into `grad` and returns the
/// function value.
#[inline]
pub fn dense_gradient<S: Scalar>(x: &[S], grad: &mut [S]) -> S {
    let mut sum = S::ZERO;
    grad.iter_mut().for_each(|g| *g = S::ZERO);
    for i in 0..x.len().saturating_sub(1) {
        let (a, b) = (x[i], x[i + 1]);
        let (sa, ca) = (a.sin(), a.cos());
        let (sb, cb) = (b.sin(), b.cos());
        let e = cb.exp();
        let t = (a * b).tanh();
        let dt = S::ONE - t * t;
        sum += sa * e + t;
        grad[i] += ca * e + dt * b;
        grad[i + 1] += -(sa * e * sb) + dt * a;
    }
    sum
}
