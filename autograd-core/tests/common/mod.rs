//! Rosenbrock's function and its analytic derivatives, shared by the tests that check every
//! mode against the formulas. (Each test file that needs it declares `mod common;` and uses what
//! it needs.)
#![allow(dead_code)]

use autograd_core::{Function, Number};

/// Rosenbrock written once: sum 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2.
pub fn rosenbrock<T: Number>(x: &[T]) -> T {
    let mut s = T::zero();
    for w in x.windows(2) {
        s = s + T::from_f64(100.0) * (w[1] - w[0].powi(2)).powi(2) + (T::one() - w[0]).powi(2);
    }
    s
}
/// Rosenbrock as a [`Function`].
pub struct Rosenbrock;
impl Function for Rosenbrock {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        rosenbrock(x)
    }
}

/// The analytic Hessian: tridiagonal, `H_ii = 1200 x_i^2 - 400 x_{i+1} + 2 (+ 200 if i > 0)`,
/// `H_{n-1,n-1} = 200`, `H_{i,i+1} = -400 x_i`.
pub fn rosenbrock_hessian(x: &[f64], h: &mut [f64]) {
    let n = x.len();
    h.iter_mut().for_each(|v| *v = 0.0);
    for i in 0..n - 1 {
        h[i * n + i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
        h[(i + 1) * n + i + 1] += 200.0;
        h[i * n + i + 1] = -400.0 * x[i];
        h[(i + 1) * n + i] = -400.0 * x[i];
    }
}

pub fn rosenbrock_gradient(x: &[f64], g: &mut [f64]) {
    let n = x.len();
    g.iter_mut().for_each(|v| *v = 0.0);
    for i in 0..n - 1 {
        let t = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * x[i] * t - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * t;
    }
}
