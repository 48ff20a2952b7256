//! The reference crates on the benchmark functions: easy-ml's reverse mode (`Record` on a
//! `WengertList`) and num-dual's forward mode (`Dual64`, one pass per input). Each needs its own
//! operator impls rather than `autograd_core::Number`, so the two functions are written out again
//! here, operation for operation as in `functions.rs` (same order of evaluation, so the same
//! rounding). Bench-only: the crates are dev-dependencies.

use autograd_bench::functions::Function;
use easy_ml::differentiation::{Record, WengertList};
use num_dual::{Dual64, DualNum};

/// Rosenbrock on easy-ml records.
fn rosenbrock_record<'a>(x: &[Record<'a, f64>]) -> Record<'a, f64> {
    let mut sum = Record::constant(0.0);
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        let d = b - a * a;
        let e = Record::constant(1.0) - a;
        sum = sum + Record::constant(100.0) * (d * d) + e * e;
    }
    sum
}

/// `dense` on easy-ml records (easy-ml has no `tanh`: one unary entry with its derivative).
fn dense_record<'a>(x: &[Record<'a, f64>]) -> Record<'a, f64> {
    let mut sum = Record::constant(0.0);
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        let ab = a * b;
        let t = ab.unary(f64::tanh, |v| {
            let t = v.tanh();
            1.0 - t * t
        });
        // `unary` ties its result to the borrow of `ab`; it is an entry on `ab`'s list.
        let t = Record::from_existing((t.number, t.index), ab.history());
        sum = sum
            + easy_ml::numeric::extra::Sin::sin(a)
                * easy_ml::numeric::extra::Exp::exp(easy_ml::numeric::extra::Cos::cos(b))
            + t;
    }
    sum
}

/// easy-ml's reverse mode: clears `list`, records `f` at `x`, sweeps back, writes the gradient
/// into `grad` and returns `f(x)` (as the project's `gradient_reverse` on a reused tape).
pub fn easy_ml_gradient(list: &WengertList<f64>, f: Function, x: &[f64], grad: &mut [f64]) -> f64 {
    list.clear();
    let vars: Vec<Record<'_, f64>> = x.iter().map(|&v| Record::variable(v, list)).collect();
    let y = match f {
        Function::Rosenbrock => rosenbrock_record(&vars),
        Function::Dense => dense_record(&vars),
    };
    let d = y.derivatives();
    for (g, v) in grad.iter_mut().zip(&vars) {
        *g = d[v];
    }
    y.number
}

/// Rosenbrock on num-dual's dual numbers.
fn rosenbrock_dual(x: &[Dual64]) -> Dual64 {
    let mut sum = Dual64::from(0.0);
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        let d = b - a * a;
        let e = Dual64::from(1.0) - a;
        sum = sum + (d * d) * 100.0 + e * e;
    }
    sum
}

/// `dense` on num-dual's dual numbers.
fn dense_dual(x: &[Dual64]) -> Dual64 {
    let mut sum = Dual64::from(0.0);
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum = sum + a.sin() * b.cos().exp() + (a * b).tanh();
    }
    sum
}

/// num-dual's forward mode: n passes, pass `i` seeding `dx_i = 1`; `scratch` holds the inputs
/// (resized to `x`'s length). Returns `f(x)`.
pub fn num_dual_gradient(
    f: Function,
    x: &[f64],
    scratch: &mut Vec<Dual64>,
    grad: &mut [f64],
) -> f64 {
    scratch.clear();
    scratch.extend(x.iter().map(|&v| Dual64::from(v)));
    let mut value = 0.0;
    for i in 0..x.len() {
        scratch[i].eps = 1.0;
        let y = match f {
            Function::Rosenbrock => rosenbrock_dual(scratch),
            Function::Dense => dense_dual(scratch),
        };
        scratch[i].eps = 0.0;
        grad[i] = y.eps;
        value = y.re;
    }
    value
}

// Compiled with `cfg(test)` in the benchmark binary too, where no harness runs `#[test]`s:
// the imports live in the test so that build has nothing unused.
#[cfg(test)]
mod tests {
    /// Each reference gradient equals the project's reverse-mode gradient within 1e-12 relative.
    #[test]
    fn reference_gradients_match_the_project() {
        use super::*;
        use autograd_bench::functions::point;
        use autograd_core::{gradient_reverse, Tape};

        let mut tape = Box::new(Tape::<f64, 16384>::new());
        let list = WengertList::new();
        let mut scratch = Vec::new();
        for f in Function::ALL {
            for n in [2, 10, 100, 1000] {
                let x = point(n);
                let (mut ours, mut easy, mut dual) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                let y = gradient_reverse(&f, &mut tape, &x, &mut ours).unwrap();
                let y_easy = easy_ml_gradient(&list, f, &x, &mut easy);
                let y_dual = num_dual_gradient(f, &x, &mut scratch, &mut dual);
                let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1e-300);
                assert!(close(y_easy, y) && close(y_dual, y), "{f:?} n={n}: values");
                for i in 0..n {
                    assert!(
                        close(easy[i], ours[i]),
                        "{f:?} n={n} easy-ml [{i}]: {} vs {}",
                        easy[i],
                        ours[i]
                    );
                    assert!(
                        close(dual[i], ours[i]),
                        "{f:?} n={n} num-dual [{i}]: {} vs {}",
                        dual[i],
                        ours[i]
                    );
                }
            }
        }
    }
}
