//! What `tests/ops.rs` and `tests/elementary.rs` share: a one- or two-input function's value and
//! derivatives on a fresh tape (reverse mode) and by dual numbers (forward mode), and a
//! comparison within a relative tolerance.
#![allow(dead_code)] // (each test file uses what it needs of these)

use autograd_core::{Dual, Scalar, Tape, Var};

/// d/dx of a one-input function recorded on a fresh tape.
pub fn d1<S: Scalar>(x: f64, f: impl for<'t> Fn(Var<'t, S>) -> Var<'t, S>) -> (f64, f64) {
    let tape = Tape::<S, 16>::new();
    let v = tape.var(S::from_f64(x));
    let y = f(v);
    let g = tape.backward(y).expect("recorded").wrt(v);
    (y.value().to_f64(), g.to_f64())
}

/// (dz/dx, dz/dy) of a two-input function.
pub fn d2<S: Scalar>(
    x: f64,
    y: f64,
    f: impl for<'t> Fn(Var<'t, S>, Var<'t, S>) -> Var<'t, S>,
) -> (f64, f64, f64) {
    let tape = Tape::<S, 16>::new();
    let (a, b) = (tape.var(S::from_f64(x)), tape.var(S::from_f64(y)));
    let z = f(a, b);
    let g = tape.backward(z).expect("recorded");
    (z.value().to_f64(), g.wrt(a).to_f64(), g.wrt(b).to_f64())
}

pub fn assert_close(what: &str, got: f64, want: f64, rtol: f64) {
    let tol = rtol * want.abs().max(1.0);
    assert!(
        (got - want).abs() <= tol || (got.is_nan() && want.is_nan()) || got == want,
        "{what}: got {got}, want {want} (tol {tol})"
    );
}

/// (value, d/dx) of a one-input function by forward mode (one dual number).
pub fn f1<S: Scalar>(x: f64, f: impl Fn(Dual<S>) -> Dual<S>) -> (f64, f64) {
    let y = f(Dual::variable(S::from_f64(x)));
    (y.re.to_f64(), y.eps.to_f64())
}

/// (value, d/dx, d/dy) of a two-input function by forward mode (two passes).
pub fn f2<S: Scalar>(x: f64, y: f64, f: impl Fn(Dual<S>, Dual<S>) -> Dual<S>) -> (f64, f64, f64) {
    let (a, b) = (S::from_f64(x), S::from_f64(y));
    let dx = f(Dual::variable(a), Dual::constant(b));
    let dy = f(Dual::constant(a), Dual::variable(b));
    (dx.re.to_f64(), dx.eps.to_f64(), dy.eps.to_f64())
}
