//! One full gradient in each mode, as the benchmarks call it: reverse mode on a tape and central
//! finite differences (forward mode calls the core's `gradient_forward` drivers directly).

use autograd_core::{Scalar, TapeError, TapeView, Var};

use crate::functions::Function;

/// The largest number of inputs the gradient drivers take (their input handles live in a
/// fixed-size buffer so that a gradient allocates nothing).
pub const MAX_INPUTS: usize = 1024;

/// The core's `gradient_reverse` of `f` on an `f64` tape, as the benchmarks time it, compiled
/// in this crate (not generic, not inlined across crates before link time). The nightly
/// `enzyme/` crate times the tape through it: built with `-Zautodiff=Enable`, a crate that
/// compiles the tape's code itself aborts Enzyme's type analysis.
///
/// # Errors
/// As `gradient_reverse`.
pub fn gradient_reverse_f64(
    f: Function,
    tape: &mut TapeView<f64>,
    x: &[f64],
    grad: &mut [f64],
) -> Result<f64, TapeError> {
    autograd_core::gradient_reverse(&f, tape, x, grad)
}

/// Reverse mode: clears `tape`, records `f` at `x`, sweeps back once and writes the gradient into
/// `grad`. Returns `f(x)`.
///
/// # Errors
/// The tape's error if it is too small; [`TapeError::LengthMismatch`] if `x` and `grad` differ in
/// length or `x` has more than [`MAX_INPUTS`] entries.
#[inline]
pub fn reverse_gradient<S: Scalar>(
    tape: &mut TapeView<S>,
    f: Function,
    x: &[S],
    grad: &mut [S],
) -> Result<S, TapeError> {
    reverse_gradient_of(tape, &f, x, grad)
}

/// [`reverse_gradient`] of any function (the benchmark functions written with `stmt!`:
/// [`Statements`](crate::functions::Statements)).
///
/// # Errors
/// As [`reverse_gradient`].
#[inline]
pub fn reverse_gradient_of<S: Scalar, F: autograd_core::Function>(
    tape: &mut TapeView<S>,
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, TapeError> {
    tape.clear();
    let tape: &TapeView<S> = tape;
    if x.len() > MAX_INPUTS {
        return Err(TapeError::DimensionTooLarge {
            len: x.len(),
            max: MAX_INPUTS,
        });
    }
    let mut vars = heapless::Vec::<Var<'_, S>, MAX_INPUTS>::new();
    vars.extend(tape.vars(x));
    let y = f.eval(&vars);
    let grads = tape.backward(y)?;
    // The inputs are consecutive leaves: their adjoints are read in one pass.
    match vars.first().and_then(|v| v.id()) {
        Some(first) => grads.write_leaves(tape.leaves(first, vars.len())?, grad)?,
        None => grads.write_to(&vars, grad)?,
    }
    Ok(y.value())
}

/// Central finite differences: `(f(x + h e_i) - f(x - h e_i)) / 2h` for every `i`, `2n`
/// evaluations, with `h = eps^(1/3) max(1, |x_i|)` (the step that balances truncation and rounding
/// error). `x` is used as scratch and restored.
#[inline]
pub fn central_differences<S: Scalar>(f: impl Fn(&[S]) -> S, x: &mut [S], grad: &mut [S]) {
    let step = S::EPSILON.cbrt();
    for i in 0..x.len() {
        let xi = x[i];
        let h = S::from_f64(step * xi.to_f64().abs().max(1.0));
        x[i] = xi + h;
        let up = f(x);
        x[i] = xi - h;
        let down = f(x);
        x[i] = xi;
        grad[i] = (up - down) / (h + h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::{dense_gradient, rosenbrock_gradient};
    use crate::functions::{dense, point, rosenbrock};
    use autograd_core::Tape;

    fn assert_close(a: &[f64], b: &[f64], tol: f64) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= tol * (1.0 + y.abs()),
                "component {i}: {x} vs {y}"
            );
        }
    }

    #[test]
    fn tape_and_hand_written_gradients_agree() {
        let mut tape = Box::new(Tape::<f64, 4096>::new());
        for n in [2, 3, 8, 65] {
            let x = point(n);
            let (mut rev, mut hand) = (vec![0.0; n], vec![0.0; n]);
            let y = reverse_gradient(&mut tape, Function::Rosenbrock, &x, &mut rev).unwrap();
            let y_hand = rosenbrock_gradient(&x, &mut hand);
            assert!((y - y_hand).abs() < 1e-12 * y.abs());
            assert_close(&rev, &hand, 1e-13);
            let y = reverse_gradient(&mut tape, Function::Dense, &x, &mut rev).unwrap();
            let y_hand = dense_gradient(&x, &mut hand);
            assert!((y - y_hand).abs() < 1e-12 * y.abs());
            assert_close(&rev, &hand, 1e-13);
        }
    }

    #[test]
    fn hand_written_rosenbrock_gradient_matches_the_derivation_at_n_2() {
        // f = 100 (b - a^2)^2 + (1 - a)^2 at (0.5, 0.51): d = 0.26
        let mut g = [0.0_f64; 2];
        rosenbrock_gradient(&[0.5, 0.51], &mut g);
        assert!((g[0] - (-400.0 * 0.26 * 0.5 - 2.0 * 0.5)).abs() < 1e-12);
        assert!((g[1] - 200.0 * 0.26).abs() < 1e-12);
    }

    #[test]
    fn finite_differences_approximate_the_tape_in_f64_and_f32() {
        let mut tape = Box::new(Tape::<f64, 1024>::new());
        let mut x = point(16);
        let (mut rev, mut fd) = (vec![0.0; 16], vec![0.0; 16]);
        reverse_gradient(&mut tape, Function::Dense, &x, &mut rev).unwrap();
        central_differences(dense::<f64>, &mut x, &mut fd);
        assert_close(&fd, &rev, 1e-8);
        assert_eq!(x, point(16), "scratch input restored");

        let mut tape32 = Box::new(Tape::<f32, 1024>::new());
        let mut x32: Vec<f32> = point(16).iter().map(|&v| v as f32).collect();
        let (mut rev32, mut fd32) = (vec![0.0f32; 16], vec![0.0f32; 16]);
        reverse_gradient(&mut tape32, Function::Rosenbrock, &x32, &mut rev32).unwrap();
        central_differences(rosenbrock::<f32>, &mut x32, &mut fd32);
        for (a, b) in fd32.iter().zip(&rev32) {
            assert!((a - b).abs() <= 2e-2 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn too_many_inputs_is_an_error_not_a_panic() {
        let mut tape = Box::new(Tape::<f64, 16>::new());
        let x = vec![0.5; MAX_INPUTS + 1];
        let mut g = vec![0.0; MAX_INPUTS + 1];
        assert!(reverse_gradient(&mut tape, Function::Dense, &x, &mut g).is_err());
        // A tape too small for the function reports its capacity and what it needed.
        let x = point(8);
        let mut g = vec![0.0; 8];
        let err = reverse_gradient(&mut tape, Function::Dense, &x, &mut g).unwrap_err();
        assert!(
            matches!(err, TapeError::CapacityExceeded { capacity: 16, needed } if needed > 16),
            "{err:?}"
        );
    }
}
