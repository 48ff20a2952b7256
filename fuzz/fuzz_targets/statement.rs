//! `stmt!` against the operations one by one: for every operation of the table, an expression
//! of three inputs (arbitrary, NaN, infinities, subnormals and huge values included) recorded as
//! one statement on one tape and operation by operation on another, in `f64` and `f32`.
//! Checks: nothing panics; the values are bit-identical; where the statement's value is not
//! finite it fell back to the operations, so both tapes hold the same statements and NaN
//! provenance names the same one; where both gradients are finite they agree within a few
//! units in the last place (each gradient here is one product of at most three local
//! partials: no cancellation); and the statement's gradient is never non-finite where the
//! operations' is finite.

#![no_main]

use autograd_core::{Number, Op, Scalar, Tape, Var};
use autograd_fuzz::{same, Value};
use autograd_macros::stmt;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Value, Value, Value)| {
    let (x, y, z) = (input.0.get(), input.1.get(), input.2.get());
    for &op in Op::ALL {
        check::<f64>(op, x, y, z);
        check::<f32>(op, x, y, z);
    }
});

/// `op` applied to `x` inside one expression with `y` and `z`, as one statement (`true`) or
/// operation by operation (`false`): `None` for what `stmt!` does not name. Exhaustive, so an
/// operation added to the table fails to compile here.
fn expression<'t, S: Scalar>(
    op: Op,
    statement: bool,
    x: Var<'t, S>,
    y: Var<'t, S>,
    z: Var<'t, S>,
) -> Option<Var<'t, S>> {
    macro_rules! either {
        ($($e:tt)*) => {
            if statement { stmt!($($e)*) } else { $($e)* }
        };
    }
    Some(match op {
        Op::Leaf | Op::Sum | Op::Dot | Op::MulAdd | Op::Scale | Op::Shift => return None,
        Op::Add => either!(x + y * z),
        Op::Sub => either!(x - y * z),
        Op::Mul => either!(x * y + z),
        Op::Div => either!(x / y + z),
        Op::Pow => either!(x.pow(y) * z),
        Op::Max => either!(x.max(y) * z),
        Op::Min => either!(x.min(y) * z),
        Op::Atan2 => either!(x.atan2(y) * z),
        Op::Hypot => either!(x.hypot(y) * z),
        Op::Neg => either!(-x * y + z),
        Op::Square => either!(x.square() * y + z),
        Op::Powi => either!(x.powi(3) * y + z),
        // (`Var`'s own `powf` and `leaky_relu` take the scalar; `Number`'s, which `stmt!`'s
        // operations call, an `f64`.)
        Op::Powf if statement => stmt!(x.powf(1.5) * y + z),
        Op::Powf => Number::powf(x, 1.5) * y + z,
        Op::Exp => either!(x.exp() * y + z),
        Op::Ln => either!(x.ln() * y + z),
        Op::Sqrt => either!(x.sqrt() * y + z),
        Op::Sin => either!(x.sin() * y + z),
        Op::Cos => either!(x.cos() * y + z),
        Op::Tan => either!(x.tan() * y + z),
        Op::Tanh => either!(x.tanh() * y + z),
        Op::Sigmoid => either!(x.sigmoid() * y + z),
        Op::Relu => either!(x.relu() * y + z),
        Op::LeakyRelu if statement => stmt!(x.leaky_relu(0.1) * y + z),
        Op::LeakyRelu => Number::leaky_relu(x, 0.1) * y + z,
        Op::Abs => either!(x.abs() * y + z),
        Op::Softplus => either!(x.softplus() * y + z),
        Op::Atan => either!(x.atan() * y + z),
        Op::Asin => either!(x.asin() * y + z),
        Op::Acos => either!(x.acos() * y + z),
        Op::Sinh => either!(x.sinh() * y + z),
        Op::Cosh => either!(x.cosh() * y + z),
        Op::Log2 => either!(x.log2() * y + z),
        Op::Log10 => either!(x.log10() * y + z),
        Op::Exp2 => either!(x.exp2() * y + z),
        Op::Cbrt => either!(x.cbrt() * y + z),
    })
}

fn check<S: Scalar>(op: Op, x: f64, y: f64, z: f64) {
    let (x, y, z) = (S::from_f64(x), S::from_f64(y), S::from_f64(z));
    let (ts, to) = (Tape::<S, 64>::new(), Tape::<S, 64>::new());
    let (sx, sy, sz) = (ts.var(x), ts.var(y), ts.var(z));
    let (ox, oy, oz) = (to.var(x), to.var(y), to.var(z));
    let Some(s) = expression(op, true, sx, sy, sz) else {
        return;
    };
    let o = expression(op, false, ox, oy, oz).expect("both or neither");
    assert!(
        same(s.value(), o.value()),
        "{op}: value {:?} as a statement, {:?} operation by operation",
        s.value(),
        o.value()
    );
    if !s.value().is_finite() {
        // The statement fell back to the operations: the same tape, the same provenance.
        assert_eq!(ts.len(), to.len(), "{op}: the fallback wrote another tape");
        let (a, b) = (ts.first_non_finite(), to.first_non_finite());
        assert_eq!(
            a.map(|a| (a.index, a.op)),
            b.map(|b| (b.index, b.op)),
            "{op}: provenance"
        );
    }
    let (Ok(gs), Ok(go)) = (ts.backward(s), to.backward(o)) else {
        panic!("{op}: a sweep failed on a 64-slot tape");
    };
    let eps = S::EPSILON;
    for (name, a, b) in [
        ("x", gs.wrt(sx), go.wrt(ox)),
        ("y", gs.wrt(sy), go.wrt(oy)),
        ("z", gs.wrt(sz), go.wrt(oz)),
    ] {
        let (a, b) = (a.to_f64(), b.to_f64());
        if a.is_finite() && b.is_finite() {
            // (Below the smallest normal number the last place is absolute.)
            let tol = (16.0 * eps * a.abs().max(b.abs())).max(16.0 * tiny::<S>());
            assert!(
                (a - b).abs() <= tol,
                "{op}: d/d{name} {a:e} as a statement, {b:e} operation by operation"
            );
        } else {
            assert!(
                !b.is_finite() || a.is_finite(),
                "{op}: d/d{name} {a:e} as a statement where the operations give {b:e}"
            );
        }
    }
}

/// The smallest normal number of `S`, as `f64`.
fn tiny<S: Scalar>() -> f64 {
    if S::EPSILON > 1e-10 {
        f64::from(f32::MIN_POSITIVE)
    } else {
        f64::MIN_POSITIVE
    }
}
