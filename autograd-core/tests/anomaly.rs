//! NaN provenance: every report checked against the node indices, values and derivatives worked
//! out by hand for a small graph.

use autograd_core::{AnomalyKind, BackwardError, Dual, Op, Tape, TapeError, Var};

#[test]
fn ln_of_zero_is_named_with_its_input() {
    // Nodes: 0 x, 1 ln x, 2 const 2, 3 (ln x) * 2, 4 + 1.
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(0.0);
    let loss = x.ln() * 2.0 + 1.0;
    assert_eq!(loss.value(), f64::NEG_INFINITY);

    let a = tape.non_finite_origin(loss).unwrap();
    assert_eq!((a.index, a.op, a.kind), (1, Op::Ln, AnomalyKind::Value));
    assert_eq!(a.value, f64::NEG_INFINITY);
    assert_eq!(a.inputs().len(), 1);
    assert_eq!(
        (a.inputs()[0].index, a.inputs()[0].op, a.inputs()[0].value),
        (0, Op::Leaf, 0.0)
    );
    assert_eq!(
        a.to_string(),
        "node 1 (ln) produced -inf from input node 0 = 0"
    );
    assert_eq!(tape.first_non_finite(), Some(a));

    match tape.backward_checked(loss) {
        Err(BackwardError::NonFinite(b)) => assert_eq!(b, a),
        other => panic!("expected the ln report, got {other:?}"),
    }
    let err = tape.backward_checked(loss).unwrap_err();
    assert_eq!(
        err.to_string(),
        "non-finite value: node 1 (ln) produced -inf from input node 0 = 0"
    );
}

#[test]
fn a_healthy_tape_has_nothing_to_report_and_checked_backward_matches_backward() {
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(2.0);
    let y = x.powi(3) + x.sin();
    assert!(tape.first_non_finite().is_none()); // before any sweep
    let plain = tape.backward(y).unwrap().wrt(x);
    assert_eq!(plain, 12.0 + 2.0_f64.cos());
    assert!(tape.first_non_finite().is_none());
    assert!(tape.non_finite_origin(y).is_none());
    let checked = tape.backward_checked(y).unwrap().wrt(x);
    assert_eq!(checked.to_bits(), plain.to_bits());
}

#[test]
fn sqrt_at_zero_is_a_gradient_report() {
    // y = 3 sqrt(x) at 0: y = 0, dy/dx = 3 / (2 sqrt 0) = inf.
    // Nodes: 0 x, 1 sqrt, 2 const 3, 3 mul.
    let tape = Tape::<f32, 8>::new();
    let x = tape.var(0.0);
    let y = x.sqrt() * 3.0;
    assert_eq!(tape.backward(y).unwrap().wrt(x), f32::INFINITY);
    let a = tape.first_non_finite().unwrap();
    assert_eq!((a.index, a.op, a.value), (1, Op::Sqrt, 0.0));
    let inf = f32::INFINITY;
    assert_eq!(
        a.kind,
        AnomalyKind::Gradient {
            input: 0,
            adjoint: 3.0, // dy/dsqrt = 3
            local: inf,   // 0.5 / sqrt(0)
            contribution: inf,
            sum: inf,
        }
    );
    assert_eq!(
        a.to_string(),
        "backward through node 1 (sqrt) = 0 sent input node 0 = 0 the gradient term \
         3 * inf = inf (adjoint * local derivative)"
    );
    // The value is finite, so only anomaly mode complains.
    assert!(tape.non_finite_origin(y).is_none());
    assert_eq!(tape.backward_checked(y).unwrap_err().anomaly(), Some(&a));
}

#[test]
fn a_sum_of_finite_terms_that_overflows_is_found() {
    // f32: y = sin(3e38 x) + sin(3e38 x) at x = 0. Every value is 0; each path gives dy/dx a
    // term 3e38, finite, but their sum 6e38 overflows f32.
    // Nodes: 0 x, 1 const, 2 mul, 3 sin, 4 const, 5 mul, 6 sin, 7 add. Backward visits node 5
    // first (adds 3e38 to x), then node 2 (adds another 3e38: inf).
    let big = 3e38_f32;
    let tape = Tape::<f32, 16>::new();
    let x = tape.var(0.0);
    let y = (x * big).sin() + (x * big).sin();
    assert_eq!(y.value(), 0.0);
    assert_eq!(tape.backward(y).unwrap().wrt(x), f32::INFINITY);
    let a = tape.first_non_finite().unwrap();
    assert_eq!((a.index, a.op), (2, Op::Mul));
    assert_eq!(
        a.kind,
        AnomalyKind::Gradient {
            input: 0,
            adjoint: 1.0, // cos(0)
            local: big,
            contribution: big,
            sum: f32::INFINITY,
        }
    );
    assert!(
        a.to_string()
            .ends_with(", which overflowed its gradient to inf"),
        "{a}"
    );
    assert_eq!(tape.backward_checked(y).unwrap_err().anomaly(), Some(&a));
}

#[test]
fn a_gradient_report_with_a_non_finite_input_is_traced_to_its_value() {
    // y = 2^(ln 0) = 2^-inf = 0, finite; but d/dbase = (-inf) 2^(-inf - 1) = -inf * 0 = NaN.
    // The cause is ln(0), node 2. Nodes: 0 x, 1 base, 2 ln x, 3 pow.
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(0.0);
    let base = tape.var(2.0);
    let y = base.pow(x.ln());
    assert_eq!(y.value(), 0.0);
    assert!(tape.backward(y).unwrap().wrt(base).is_nan());
    let a = tape.backward_checked(y).unwrap_err();
    let a = a.anomaly().unwrap();
    assert_eq!((a.index, a.op, a.kind), (2, Op::Ln, AnomalyKind::Value));
    assert_eq!(tape.first_non_finite().as_ref(), Some(a));
}

#[test]
fn the_origin_ignores_nodes_the_result_does_not_use() {
    // Nodes: 0 a, 1 b, 2 ln b (-inf, unused), 3 a - 1 (0), 4 (a - 1) / b = 0/0, 5 + a.
    let tape = Tape::<f64, 16>::new();
    let (a, b) = (tape.var(1.0), tape.var(0.0));
    let _unused = b.ln();
    let loss = (a - 1.0) / b + a;
    let origin = tape.non_finite_origin(loss).unwrap();
    assert_eq!((origin.index, origin.op), (4, Op::Div));
    assert_eq!(
        origin.to_string(),
        "node 4 (/) produced NaN from inputs node 3 = 0 and node 1 = 0"
    );
    assert_eq!(tape.first_non_finite().unwrap().index, 2);
    // (NaN != NaN, so compare the reports by what they say.)
    let checked = tape.backward_checked(loss).unwrap_err();
    assert_eq!(checked.anomaly().unwrap().to_string(), origin.to_string());
}

#[test]
fn leaves_and_integer_powers_are_named() {
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(f64::NAN);
    assert_eq!(
        tape.first_non_finite().unwrap().to_string(),
        "node 0 (leaf) holds NaN"
    );
    let z = tape.var(0.0);
    let y = z.powi(-2);
    assert_eq!(
        tape.non_finite_origin(y).unwrap().to_string(),
        "node 2 (powi -2) produced inf from input node 1 = 0"
    );
    assert_eq!(tape.non_finite_origin(y).unwrap().exponent, Some(-2));
    let _ = x;
}

#[test]
fn tape_errors_pass_through_checked_backward() {
    let tape = Tape::<f64, 2>::new();
    let c = Var::<f64>::constant(1.0);
    assert_eq!(
        tape.backward_checked(c).unwrap_err(),
        BackwardError::Tape(TapeError::NotRecorded)
    );
    let x = tape.var(1.0);
    let y = x * x * x; // needs 3 nodes
    let err = tape.backward_checked(y).unwrap_err();
    assert_eq!(
        err,
        BackwardError::Tape(TapeError::CapacityExceeded { capacity: 2 })
    );
    assert_eq!(
        err.to_string(),
        TapeError::CapacityExceeded { capacity: 2 }.to_string()
    );
    assert!(err.anomaly().is_none());
    assert!(tape.non_finite_origin(c).is_none());
}

#[test]
fn works_on_a_tape_of_dual_numbers() {
    // Forward over reverse: sqrt at 0 has an infinite tangent, so the *value* (a dual number)
    // is not finite although its real part is.
    let tape = Tape::<Dual<f64>, 8>::new();
    let x = tape.var(Dual::new(0.0, 1.0));
    let y = x.sqrt() + x;
    let a = tape.non_finite_origin(y).unwrap();
    assert_eq!((a.index, a.op), (1, Op::Sqrt));
    assert_eq!((a.value.re, a.value.eps), (0.0, f64::INFINITY));
    assert_eq!(
        a.to_string(),
        "node 1 (sqrt) produced 0 + infε from input node 0 = 0 + 1ε"
    );
}
