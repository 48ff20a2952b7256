//! Rosenbrock's function, written once for the suites and the benchmarks, and its gradient and
//! Hessian derived by hand (plain `f64` arithmetic: references independent of the engine).

use crate::{Function, Number};

/// Rosenbrock: `sum_{i<n-1} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2` (arithmetic only: `square`
/// and products, as the benchmarks time it).
///
/// ```
/// use autograd_core::testkit::rosenbrock;
///
/// assert_eq!(rosenbrock(&[1.0_f64; 7]), 0.0); // the minimum
/// assert_eq!(rosenbrock(&[0.0_f64, 1.0]), 101.0);
/// ```
#[inline]
pub fn rosenbrock<T: Number>(x: &[T]) -> T {
    let mut sum = T::zero();
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum = sum + T::from_f64(100.0) * (b - a * a).square() + (T::one() - a).square();
    }
    sum
}

/// [`rosenbrock`] as a [`Function`], for the core's drivers.
///
/// ```
/// use autograd_core::testkit::Rosenbrock;
/// use autograd_core::{gradient_reverse, Tape};
///
/// let mut tape = Tape::<f64, 64>::new();
/// let mut g = [0.0; 2];
/// gradient_reverse(&Rosenbrock, &mut tape, &[1.0, 1.0], &mut g).unwrap();
/// assert_eq!(g, [0.0, 0.0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Rosenbrock;

impl Function for Rosenbrock {
    #[inline]
    fn eval<T: Number>(&self, x: &[T]) -> T {
        rosenbrock(x)
    }
}

/// The gradient of [`rosenbrock`] by hand, into `g` (same length as `x`): with
/// `t_i = x_{i+1} - x_i^2`, `g_i += -400 x_i t_i - 2 (1 - x_i)` and `g_{i+1} += 200 t_i`.
///
/// ```
/// use autograd_core::testkit::rosenbrock_gradient;
///
/// let mut g = [0.0; 2];
/// rosenbrock_gradient(&[0.0, 1.0], &mut g);
/// assert_eq!(g, [-2.0, 200.0]);
/// ```
pub fn rosenbrock_gradient(x: &[f64], g: &mut [f64]) {
    let n = x.len();
    g.iter_mut().for_each(|v| *v = 0.0);
    for i in 0..n.saturating_sub(1) {
        let t = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * x[i] * t - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * t;
    }
}

/// The Hessian of [`rosenbrock`] by hand, row-major into `h` (`n * n` entries): tridiagonal,
/// `H_ii = 1200 x_i^2 - 400 x_{i+1} + 2 (+ 200 if i > 0)`, `H_{n-1,n-1} = 200`,
/// `H_{i,i+1} = H_{i+1,i} = -400 x_i`.
///
/// ```
/// use autograd_core::testkit::rosenbrock_hessian;
///
/// let mut h = [0.0; 4];
/// rosenbrock_hessian(&[1.0, 1.0], &mut h);
/// assert_eq!(h, [802.0, -400.0, -400.0, 200.0]);
/// ```
pub fn rosenbrock_hessian(x: &[f64], h: &mut [f64]) {
    let n = x.len();
    h.iter_mut().for_each(|v| *v = 0.0);
    for i in 0..n.saturating_sub(1) {
        h[i * n + i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
        h[(i + 1) * n + i + 1] += 200.0;
        h[i * n + i + 1] = -400.0 * x[i];
        h[(i + 1) * n + i] = -400.0 * x[i];
    }
}
