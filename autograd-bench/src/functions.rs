//! The benchmark functions, written once against [`Number`] so that the plain scalars, the tape
//! and the dual numbers all evaluate the very same code.

use autograd_core::Number;
use autograd_macros::stmt;

/// The point every benchmark differentiates at: `x_i = 0.5 + 0.01 i` (as the peer timings).
pub fn point(n: usize) -> Vec<f64> {
    (0..n).map(|i| 0.5 + 0.01 * i as f64).collect()
}

/// Rosenbrock, `sum_{i<n-1} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2` (arithmetic only): the core's
/// testkit's, the same function the core's tests and `cargo xtask check` differentiate.
pub use autograd_core::testkit::rosenbrock;

/// A function dominated by transcendental calls:
/// `sum_{i<n-1} sin(x_i) exp(cos(x_{i+1})) + tanh(x_i x_{i+1})`.
#[inline]
pub fn dense<T: Number>(x: &[T]) -> T {
    let mut sum = T::zero();
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum = sum + a.sin() * b.cos().exp() + (a * b).tanh();
    }
    sum
}

/// [`rosenbrock`] with each term recorded as one statement: the same text inside `stmt!`
/// (crate `autograd-macros`), whose partials are derived when compiling. On `f64` and the dual
/// numbers it is the same expression as [`rosenbrock`].
#[inline]
pub fn rosenbrock_statements<T: Number>(x: &[T]) -> T {
    let mut sum = T::zero();
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum = stmt!(sum + T::from_f64(100.0) * (b - a * a).square() + (T::one() - a).square());
    }
    sum
}

/// [`dense`] with each term recorded as one statement (`stmt!`, as
/// [`rosenbrock_statements`]).
#[inline]
pub fn dense_statements<T: Number>(x: &[T]) -> T {
    let mut sum = T::zero();
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum = stmt!(sum + a.sin() * b.cos().exp() + (a * b).tanh());
    }
    sum
}

/// A benchmark function written with `stmt!` ([`rosenbrock_statements`], [`dense_statements`]),
/// for the core's drivers: the same function, each term one statement on a tape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Statements(pub Function);

impl autograd_core::Function for Statements {
    #[inline]
    fn eval<T: Number>(&self, x: &[T]) -> T {
        match self.0 {
            Function::Rosenbrock => rosenbrock_statements(x),
            Function::Dense => dense_statements(x),
        }
    }
}

/// The two benchmark functions of `n` inputs, by name (for tables and loops).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// [`rosenbrock`]
    Rosenbrock,
    /// [`dense`]
    Dense,
}

impl Function {
    /// Both functions.
    pub const ALL: [Function; 2] = [Function::Rosenbrock, Function::Dense];

    /// The name used in benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Function::Rosenbrock => "rosenbrock",
            Function::Dense => "dense",
        }
    }

    /// Evaluates the function on any [`Number`].
    #[inline]
    pub fn eval<T: Number>(self, x: &[T]) -> T {
        match self {
            Function::Rosenbrock => rosenbrock(x),
            Function::Dense => dense(x),
        }
    }
}

/// The same functions through the core's gradient drivers (`gradient_reverse`,
/// `gradient_forward`, `gradient_forward_vec`, `gradcheck`).
impl autograd_core::Function for Function {
    #[inline]
    fn eval<T: Number>(&self, x: &[T]) -> T {
        Function::eval(*self, x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rosenbrock_is_zero_at_its_minimum_and_matches_the_formula() {
        assert_eq!(rosenbrock(&[1.0_f64; 7]), 0.0);
        // n = 2 at (0.5, 0.51): 100 (0.51 - 0.25)^2 + 0.5^2
        let x = point(2);
        let expected = 100.0 * (0.51_f64 - 0.25).powi(2) + 0.25;
        assert!((rosenbrock(&x) - expected).abs() < 1e-13);
    }

    #[test]
    fn dense_matches_the_formula() {
        let x = point(3);
        let term = |a: f64, b: f64| a.sin() * b.cos().exp() + (a * b).tanh();
        let expected = term(x[0], x[1]) + term(x[1], x[2]);
        assert!((dense(&x) - expected).abs() < 1e-13);
    }
}
