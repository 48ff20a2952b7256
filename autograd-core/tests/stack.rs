//! The drivers' stack bound: at every size, on a thread whose stack is only
//! `SCRATCH_STACK_BYTES` plus a margin for the frames around the scratch, each driver either
//! works (its scratch on the stack within the documented `tier(len) · size_of::<E>()`, or on the
//! heap with the `alloc` feature) or returns the error that says so; it never overflows the
//! stack (which would abort this test process).
//!
//! Before the budget, n = 4000 put 4096 handles (224 KiB of `Var<f64>`) on the stack and
//! overflowed this thread.

use std::mem::size_of;

use autograd_core::{
    directional_derivative, gradcheck, gradient_central, gradient_forward, gradient_forward_vec,
    gradient_reverse, hessian_vector_product, jacobian_central, jacobian_forward,
    jacobian_forward_vec, jacobian_reverse, Dual, DualVec, Function, Number, Tape, TapeError, Var,
    VectorFunction, MAX_DIMENSION, SCRATCH_STACK_BYTES,
};

/// The test thread's stack: the scratch budget (32 KiB) plus 64 KiB for everything else (the
/// test's own frames are unoptimised). Fixed, so that a larger budget fails here.
const STACK: usize = 96 << 10;

/// The largest size: the reverse-mode drivers and the one-pass ones run at it.
const HUGE: usize = 100_000;
/// Tape slots for `HUGE` inputs: a leaf each, and the operands of the statements over them.
const SLOTS: usize = 4 * HUGE + 64;

/// `|x|^2 / 2`: gradient `x`, Hessian the identity.
struct HalfSquare;
impl Function for HalfSquare {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        T::dot(x, x) * T::from_f64(0.5)
    }
}

/// `(|x|^2 / 2, sum x)`: Jacobian rows `x` and all ones.
struct SquareAndSum;
impl VectorFunction for SquareAndSum {
    fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
        out[0] = HalfSquare.eval(x);
        out[1] = Number::sum(x);
    }
}

/// Stack bytes of a scratch of `len` elements of `E`, as `SCRATCH_STACK_BYTES` documents it:
/// `tier(len) · size_of::<E>()`, `None` past the largest tier.
fn documented_bytes<E>(len: usize) -> Option<usize> {
    let tier = [16, 64, 256, 1024, MAX_DIMENSION]
        .into_iter()
        .find(|&t| len <= t)?;
    Some(tier * size_of::<E>())
}

/// Whether the scratch of `len` elements of `E` is allowed: on the stack within the budget, or
/// anywhere with `alloc`.
fn allowed<E>(len: usize) -> bool {
    cfg!(feature = "alloc") || documented_bytes::<E>(len).is_some_and(|b| b <= SCRATCH_STACK_BYTES)
}

/// `Some` result where `allowed`, else checks that the error is the one the docs promise.
fn expect<T>(what: &str, allowed: bool, result: Result<T, TapeError>) -> Option<T> {
    match result {
        Ok(v) => {
            assert!(
                allowed,
                "{what}: worked where the scratch does not fit the stack"
            );
            Some(v)
        }
        Err(TapeError::ScratchTooLarge { bytes, max, .. }) if !allowed => {
            assert!(bytes > max && max == SCRATCH_STACK_BYTES, "{what}");
            None
        }
        Err(TapeError::DimensionTooLarge { len, max }) if !allowed => {
            assert!(len > max && max == MAX_DIMENSION, "{what}");
            None
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

fn point(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i % 7) as f64 - 3.0).collect()
}

fn on_small_stack(body: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(body)
        .unwrap()
        .join()
        .expect("the driver ran within the stack");
}

/// A tape of `SLOTS` slots on the heap, built where a debug build's copies of it fit.
fn boxed_tape<S: autograd_core::Scalar + Send>() -> Box<Tape<S, SLOTS>> {
    std::thread::Builder::new()
        .stack_size(8 * size_of::<Tape<S, SLOTS>>() + (4 << 20))
        .spawn(|| Box::new(Tape::new()))
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn reverse_mode_and_one_pass_drivers_at_every_size_stay_within_the_stack() {
    let mut tape = boxed_tape::<f64>();
    let mut dual_tape = boxed_tape::<Dual<f64>>();
    on_small_stack(move || {
        for n in [16, 256, 1000, 4000, 5000, HUGE] {
            let x = point(n);
            let mut g = vec![0.0; n];
            let ok = allowed::<Var<'_, f64>>(n);
            if let Some(y) = expect(
                "gradient_reverse",
                ok,
                gradient_reverse(&HalfSquare, &mut tape, &x, &mut g),
            ) {
                assert_eq!(g, x, "n = {n}");
                assert_eq!(y, HalfSquare.eval(&x));
            }
            let (mut values, mut jac) = ([0.0; 2], vec![0.0; 2 * n]);
            let ok = allowed::<Var<'_, f64>>(n + 2);
            if expect(
                "jacobian_reverse",
                ok,
                jacobian_reverse(&SquareAndSum, &mut tape, &x, &mut values, &mut jac),
            )
            .is_some()
            {
                assert_eq!(jac[..n], x[..], "n = {n}");
                assert!(jac[n..].iter().all(|&d| d == 1.0), "n = {n}");
            }
            assert!(tape.is_empty());

            let v: Vec<f64> = x.iter().map(|xi| 2.0 * xi).collect();
            let ok = allowed::<Dual<f64>>(n);
            if let Some((_, d)) = expect(
                "directional_derivative",
                ok,
                directional_derivative(&HalfSquare, &x, &v),
            ) {
                assert_eq!(d, x.iter().map(|xi| 2.0 * xi * xi).sum::<f64>(), "n = {n}");
            }
            let mut hv = vec![0.0; n];
            let ok = allowed::<Var<'_, Dual<f64>>>(n);
            if expect(
                "hessian_vector_product",
                ok,
                hessian_vector_product(&HalfSquare, &mut dual_tape, &x, &v, &mut g, &mut hv),
            )
            .is_some()
            {
                assert_eq!(hv, v, "n = {n}: H is the identity");
            }
            assert!(dual_tape.is_empty());
        }
    });
}

#[test]
fn forward_mode_and_differences_at_every_size_stay_within_the_stack() {
    on_small_stack(|| {
        for n in [16, 256, 1000, 4000, 5000] {
            let x = point(n);
            let mut g = vec![0.0; n];
            if expect(
                "gradient_forward",
                allowed::<Dual<f64>>(n),
                gradient_forward(&HalfSquare, &x, &mut g),
            )
            .is_some()
            {
                assert_eq!(g, x, "n = {n}");
            }
            g.fill(0.0);
            if expect(
                "gradient_forward_vec",
                allowed::<DualVec<f64, 8>>(n),
                gradient_forward_vec::<8, _, _>(&HalfSquare, &x, &mut g),
            )
            .is_some()
            {
                assert_eq!(g, x, "n = {n}");
            }
            g.fill(0.0);
            if expect(
                "gradient_central",
                allowed::<f64>(n),
                gradient_central(&HalfSquare, &x, &mut g),
            )
            .is_some()
            {
                assert!(
                    g.iter().zip(&x).all(|(a, b)| (a - b).abs() < 1e-3),
                    "n = {n}"
                );
            }
            let (mut values, mut jac) = ([0.0; 2], vec![0.0; 2 * n]);
            if expect(
                "jacobian_forward",
                allowed::<Dual<f64>>(n + 2),
                jacobian_forward(&SquareAndSum, &x, &mut values, &mut jac),
            )
            .is_some()
            {
                assert_eq!(jac[..n], x[..], "n = {n}");
            }
            jac.fill(0.0);
            if expect(
                "jacobian_forward_vec",
                allowed::<DualVec<f64, 4>>(n + 2),
                jacobian_forward_vec::<4, _, _>(&SquareAndSum, &x, &mut values, &mut jac),
            )
            .is_some()
            {
                assert_eq!(jac[..n], x[..], "n = {n}");
            }
            jac.fill(0.0);
            if expect(
                "jacobian_central",
                allowed::<f64>(n + 2),
                jacobian_central(&SquareAndSum, &x, &mut values, &mut jac),
            )
            .is_some()
            {
                assert!(jac[n..].iter().all(|d| (d - 1.0).abs() < 1e-6), "n = {n}");
            }
        }
    });
}

#[test]
fn gradcheck_at_every_size_stays_within_the_stack() {
    let mut tape = boxed_tape::<f64>();
    on_small_stack(move || {
        for n in [16, 256, 1000, 4000, 5000] {
            let ok = allowed::<f64>(3 * n)
                && allowed::<Var<'_, f64>>(n)
                && allowed::<Dual<f64>>(n)
                && allowed::<f64>(n);
            if let Some(report) = expect(
                "gradcheck",
                ok,
                gradcheck(&HalfSquare, &mut tape, &point(n)),
            ) {
                assert!(report.reverse_vs_forward.passed, "n = {n}: {report}");
            }
        }
    });
}

#[test]
fn the_error_says_what_to_do() {
    let err = TapeError::ScratchTooLarge {
        len: 5000,
        bytes: 4096 * 16,
        max: SCRATCH_STACK_BYTES,
    };
    let text = err.to_string();
    assert!(
        text.contains("5000 elements") && text.contains("65536 bytes"),
        "{text}"
    );
    assert!(text.contains("`alloc` feature"), "{text}");
    if !cfg!(feature = "alloc") {
        let x = point(5000);
        let mut g = vec![0.0; 5000];
        let err = gradient_forward(&HalfSquare, &x[..2000], &mut g[..2000]).unwrap_err();
        assert_eq!(
            err,
            TapeError::ScratchTooLarge {
                len: 2000,
                bytes: 4096 * size_of::<Dual<f64>>(),
                max: SCRATCH_STACK_BYTES
            }
        );
    }
}
