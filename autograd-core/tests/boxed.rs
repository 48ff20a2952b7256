//! `Tape::boxed` (feature `alloc`): a heap-placed tape that never passes through the stack, and
//! that behaves exactly like a tape from `Tape::new`. Runs under Miri too (`cargo xtask miri`),
//! which checks the constructor's one `unsafe` block: every field written before it is read.

use std::fmt::Write as _;

use autograd_core::{Dual, Number, Op, Tape, TapeError, TapeView, Var, Q16};

/// Records the same work on any tape: a Rosenbrock-like sum with a wide statement, then a
/// backward sweep; returns the tape's Graphviz export (every statement's operation, value,
/// adjoint and operands) and the gradient.
fn exercise<const N: usize>(tape: &mut Tape<f64, N>) -> (String, Result<[f64; 3], TapeError>) {
    let run = |tape: &TapeView<f64>| {
        let x = [tape.var(1.5), tape.var(-0.5), tape.var(2.0)];
        let mut y = Var::constant(0.0);
        for w in x.windows(2) {
            y += 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2);
        }
        let y = y + Var::dot(&x, &x)?.tanh();
        let g = tape.backward(y)?;
        Ok([g.wrt(x[0]), g.wrt(x[1]), g.wrt(x[2])])
    };
    let gradient = run(tape);
    let mut dot = String::new();
    tape.write_dot(&mut dot).unwrap();
    write!(
        dot,
        "len {} capacity {} check {:?}",
        tape.len(),
        tape.capacity(),
        tape.check()
    )
    .unwrap();
    (dot, gradient)
}

#[test]
fn a_boxed_tape_records_and_fails_exactly_as_a_new_one() {
    let (mut inline, mut boxed) = (Tape::<f64, 64>::new(), Tape::<f64, 64>::boxed());
    let (a, b) = (exercise(&mut inline), exercise(&mut *boxed));
    assert!(a.1.is_ok(), "{:?}", a.1);
    assert_eq!(a, b);
    // Too small for the same work: the same sticky error, counting what did not fit.
    let (mut inline, mut boxed) = (Tape::<f64, 9>::new(), Tape::<f64, 9>::boxed());
    let (a, b) = (exercise(&mut inline), exercise(&mut *boxed));
    assert!(
        matches!(a.1, Err(TapeError::CapacityExceeded { capacity: 9, needed }) if needed > 9),
        "{:?}",
        a.1
    );
    assert_eq!(a, b);
    // And after a rewind, both record again from the start.
    inline.clear();
    boxed.clear();
    assert_eq!((inline.len(), boxed.len()), (0, 0));
    assert_eq!(inline.check(), boxed.check());
}

#[test]
fn boxed_tapes_of_every_scalar_start_empty() {
    let q = Tape::<Q16, 8>::boxed();
    let x = q.var(Q16::from_f64(1.5));
    let y = x * x;
    assert_eq!(q.backward(y).unwrap().wrt(x), Q16::from_f64(3.0));

    let d = Tape::<Dual<f64>, 8>::boxed();
    let x = d.var(Dual::new(2.0, 1.0));
    let y = x.exp();
    let g = d.backward(y).unwrap().wrt(x);
    // d/dx e^x = e^x, and its tangent is e^x again.
    assert_eq!(g.re, g.eps);
    assert!((g.re - 7.38905609893065).abs() < 1e-14, "{g:?}");
    assert_eq!(d.node(x.id().unwrap()).unwrap().op, Op::Leaf);

    let empty = Tape::<f32, 0>::boxed();
    assert_eq!((empty.len(), empty.capacity()), (0, 0));
    assert!(matches!(
        empty.try_var(1.0),
        Err(TapeError::CapacityExceeded {
            capacity: 0,
            needed: 1
        })
    ));
}

// That it never touches the stack is tested in `autograd-bench/tests/unoptimized_boxed_tape.rs`:
// this package's tests are optimized (`profile.dev.package.autograd-core`), and an optimized
// `Box::new(Tape::new())` usually builds in place as well.
