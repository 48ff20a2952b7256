//! NaN provenance: every report checked against the statement indices, values and derivatives
//! worked out by hand for a small tape.
//!
//! Slot layout (see `tape.rs`): a leaf takes one slot; a statement with `k` operands takes
//! `k + 1`, its header last. A result whose value or partial is not finite is written as its own
//! statement at once, labelled with its operation; finite intermediate results stay in their
//! handles.

use autograd_core::{AnomalyKind, Dual, Error, Op, Tape, TapeError, Var};

#[test]
fn ln_of_zero_is_named_with_its_operand() {
    // Slots: 0 x; 1-2 ln x = -inf (operand x, partial 1/0 = inf); then * 2 and + 1, each -inf,
    // each written in turn (slots 3-4 and 5-6).
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(0.0);
    let loss = x.ln() * 2.0 + 1.0;
    assert_eq!(loss.value(), f64::NEG_INFINITY);
    assert_eq!(tape.len(), 7);

    let a = tape.non_finite_origin(loss).unwrap();
    assert_eq!((a.index, a.op, a.kind), (2, Op::Ln, AnomalyKind::Value));
    assert_eq!(a.value, f64::NEG_INFINITY);
    assert_eq!(a.inputs().len(), 1);
    let input = a.inputs()[0];
    assert_eq!(
        (input.index, input.op, input.value, input.partial),
        (0, Op::Leaf, 0.0, f64::INFINITY)
    );
    assert_eq!(
        a.to_string(),
        "statement 2 (ln) produced -inf from operand 0 = 0"
    );
    assert_eq!(tape.first_non_finite(), Some(a));

    let err = tape.backward_checked(loss).unwrap_err();
    assert_eq!(
        err,
        Error::NonFinite {
            statement: 2,
            op: Op::Ln,
            in_gradient: false
        }
    );
    assert_eq!(tape.anomaly(loss), Some(a));
    assert_eq!(
        err.to_string(),
        "the value of statement 2 (ln) is NaN or infinite; `non_finite_origin` reports its operands"
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
    // Slots: 0 x; 1-2 sqrt (value 0, partial inf: written); `* 3` stays in the handle.
    let tape = Tape::<f32, 8>::new();
    let x = tape.var(0.0);
    let y = x.sqrt() * 3.0;
    assert_eq!(tape.backward(y).unwrap().wrt(x), f32::INFINITY);
    let a = tape.first_non_finite().unwrap();
    assert_eq!((a.index, a.op, a.value), (2, Op::Sqrt, 0.0));
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
        "backward through statement 2 (sqrt) = 0 sent operand 0 = 0 the gradient term \
         3 * inf = inf (adjoint * local derivative)"
    );
    // The value is finite, so only anomaly mode complains.
    assert!(tape.non_finite_origin(y).is_none());
    assert_eq!(
        tape.backward_checked(y).unwrap_err(),
        Error::NonFinite {
            statement: a.index,
            op: a.op,
            in_gradient: true
        }
    );
    assert_eq!(tape.anomaly(y), Some(a));
}

#[test]
fn a_sum_of_finite_terms_that_overflows_is_found() {
    // f32: y = a + b with a = sin(3e38 x), b = sin(3e38 x) written as statements, at x = 0.
    // Every value is 0; each statement sends dy/dx a term 3e38, finite, but their sum 6e38
    // overflows f32. Slots: 0 x; 1-2 a; 3-4 b. Backward visits b first, then a: inf.
    let big = 3e38_f32;
    let tape = Tape::<f32, 16>::new();
    let x = tape.var(0.0);
    let a = (x * big).sin().recorded().unwrap();
    let b = (x * big).sin().recorded().unwrap();
    let y = a + b;
    assert_eq!(y.value(), 0.0);
    assert_eq!(tape.backward(y).unwrap().wrt(x), f32::INFINITY);
    let r = tape.first_non_finite().unwrap();
    assert_eq!((r.index, r.op), (2, Op::Sin));
    assert_eq!(
        r.kind,
        AnomalyKind::Gradient {
            input: 0,
            adjoint: 1.0,
            local: big, // cos(0) * 3e38
            contribution: big,
            sum: f32::INFINITY,
        }
    );
    assert!(
        r.to_string()
            .ends_with(", which overflowed its gradient to inf"),
        "{r}"
    );
    assert!(matches!(
        tape.backward_checked(y),
        Err(Error::NonFinite {
            in_gradient: true,
            ..
        })
    ));
    assert_eq!(tape.anomaly(y), Some(r));
}

#[test]
fn a_partial_that_overflows_while_preaccumulating_is_written_and_found() {
    // The same sum without forcing statements: the handle adds the partials 3e38 + 3e38 = inf
    // itself, so that addition is written as a statement (slots 1-2, op +) and reported.
    let big = 3e38_f32;
    let tape = Tape::<f32, 16>::new();
    let x = tape.var(0.0);
    let y = (x * big).sin() + (x * big).sin();
    assert_eq!(tape.backward(y).unwrap().wrt(x), f32::INFINITY);
    assert!(tape.backward_checked(y).is_err());
    let r = tape.anomaly(y).unwrap();
    assert_eq!((r.index, r.op), (2, Op::Add));
    assert!(matches!(r.kind, AnomalyKind::Gradient { local, .. } if local == f32::INFINITY));
}

#[test]
fn partials_that_overflow_where_a_sum_or_difference_merges_are_written_and_found() {
    // A sum or a difference tests only its value inline (its partials pass through); where two
    // pairs meet at one index their partials are added and tested where they are added.
    let big = 3e38_f32;
    let tape = Tape::<f32, 16>::new();
    let (x, z) = (tape.var(0.0), tape.var(1.0));
    // One pair each: d/dx = 3e38 - (-3e38) = inf. Slots 2-3: the difference, op -.
    let y = (x * big).sin() - (x * -big).sin();
    assert_eq!(tape.backward(y).unwrap().wrt(x), f32::INFINITY);
    let r = tape.anomaly(y).unwrap();
    assert_eq!((r.index, r.op), (3, Op::Sub));
    assert!(matches!(r.kind, AnomalyKind::Gradient { local, .. } if local == f32::INFINITY));
    // Two pairs and one (the shared merge, out of line): d/dx = 3e38 + 3e38 = inf, d/dz = 1.
    // Slots 4-6: the sum of two operands (x, z), op +.
    let y = ((x * big).sin() + z) + (x * big).sin();
    let g = tape.backward(y).unwrap();
    assert_eq!((g.wrt(x), g.wrt(z)), (f32::INFINITY, 1.0));
    let r = tape.anomaly(y).unwrap();
    assert_eq!((r.index, r.op), (6, Op::Add));
    assert!(matches!(r.kind, AnomalyKind::Gradient { local, .. } if local == f32::INFINITY));
    assert_eq!(tape.node(y.id().unwrap()).unwrap().operands, 2);
}

#[test]
fn partials_that_overflow_where_an_n_ary_sum_folds_are_written_and_the_result_is_that_statement() {
    // `Var::sum` of terms of at most two pairs in all folds them into the handle as `+` would;
    // where the two partials at one index add up to an infinity, that step writes a statement
    // (slots 1-2: one operand, x), and the sum's result is a handle to it: `id()` names it.
    let big = 3e38_f32;
    let tape = Tape::<f32, 16>::new();
    let x = tape.var(0.0);
    let y = Var::sum(&[(x * big).sin(), (x * big).sin()]);
    assert_eq!(y.value(), 0.0);
    assert_eq!(tape.backward(y).unwrap().wrt(x), f32::INFINITY);
    let id = y.id().expect("a handle to the statement written");
    assert_eq!(id.index(), 2);
    assert_eq!(tape.node(id).unwrap().operands, 1);
    let r = tape.anomaly(y).unwrap();
    assert_eq!(r.index, 2);
    assert!(matches!(r.kind, AnomalyKind::Gradient { local, .. } if local == f32::INFINITY));
}

#[test]
fn a_gradient_report_with_a_non_finite_operand_is_traced_to_its_value() {
    // y = 2^(ln 0) = 2^-inf = 0, finite; but d/dbase = (-inf) 2^(-inf - 1) = -inf * 0 = NaN.
    // The cause is ln(0). Slots: 0 x, 1 base, 2-3 ln x (-inf), 4-6 pow (NaN partial: written).
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(0.0);
    let base = tape.var(2.0);
    let y = base.pow(x.ln());
    assert_eq!(y.value(), 0.0);
    assert!(tape.backward(y).unwrap().wrt(base).is_nan());
    assert!(matches!(
        tape.backward_checked(y),
        Err(Error::NonFinite {
            statement: 3,
            op: Op::Ln,
            in_gradient: false
        })
    ));
    let a = tape.anomaly(y).unwrap();
    assert_eq!((a.index, a.op, a.kind), (3, Op::Ln, AnomalyKind::Value));
    assert_eq!(tape.first_non_finite(), Some(a));
}

#[test]
fn the_origin_ignores_statements_the_result_does_not_use() {
    // Slots: 0 a, 1 b, 2-3 ln b (-inf, unused), 4-6 (a - 1) / b = 0/0 (operands a and b),
    // 7-9 + a.
    let tape = Tape::<f64, 16>::new();
    let (a, b) = (tape.var(1.0), tape.var(0.0));
    let _unused = b.ln();
    let loss = (a - 1.0) / b + a;
    let origin = tape.non_finite_origin(loss).unwrap();
    assert_eq!((origin.index, origin.op), (6, Op::Div));
    assert_eq!(
        origin.to_string(),
        "statement 6 (/) produced NaN from operands 0 = 1, 1 = 0"
    );
    assert_eq!(tape.first_non_finite().unwrap().index, 3);
    // (NaN != NaN, so compare the reports by what they say.)
    assert!(tape.backward_checked(loss).is_err());
    assert_eq!(tape.anomaly(loss).unwrap().to_string(), origin.to_string());
}

#[test]
fn leaves_and_integer_powers_are_named() {
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(f64::NAN);
    assert_eq!(
        tape.first_non_finite().unwrap().to_string(),
        "statement 0 (leaf) holds NaN"
    );
    let z = tape.var(0.0);
    let y = z.powi(-2);
    assert_eq!(
        tape.non_finite_origin(y).unwrap().to_string(),
        "statement 3 (powi) produced inf from operand 1 = 0"
    );
    let _ = x;
}

#[test]
fn tape_errors_pass_through_checked_backward() {
    let tape = Tape::<f64, 2>::new();
    let c = Var::<f64>::constant(1.0);
    assert_eq!(
        tape.backward_checked(c).unwrap_err(),
        TapeError::NotRecorded
    );
    let (x, y, z) = (tape.var(1.0), tape.var(2.0), tape.var(3.0)); // the third does not fit
    let err = tape.backward_checked(x * y * z).unwrap_err();
    let overflow = TapeError::CapacityExceeded {
        capacity: 2,
        needed: 3,
    };
    assert_eq!(err, overflow);
    assert!(tape.anomaly(x * y * z).is_none());
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
    assert_eq!((a.index, a.op), (2, Op::Sqrt));
    assert_eq!((a.value.re, a.value.eps), (0.0, f64::INFINITY));
    assert_eq!(
        a.to_string(),
        "statement 2 (sqrt) produced 0 + infε from operand 0 = 0 + 1ε"
    );
}

#[test]
fn a_non_finite_constant_stays_a_constant_and_what_meets_it_is_named() -> Result<(), TapeError> {
    // ln(-1) of a constant is a NaN constant: on no tape, nothing written.
    let tape = Tape::<f64, 16>::new();
    let c = Var::<f64>::constant(-1.0).ln();
    assert!(c.is_constant() && c.value().is_nan() && c.id().is_none());
    let c2 = c * 2.0 + 1.0;
    assert!(c2.is_constant() && c2.value().is_nan());
    assert_eq!(tape.len(), 0);
    // A recorded value times it: slots 0 x; 1-2 the product (operand x, partial NaN).
    let x = tape.var(3.0);
    let y = x * c2;
    assert_eq!(tape.len(), 3);
    let a = tape.non_finite_origin(y).unwrap();
    assert_eq!((a.index, a.op, a.kind), (2, Op::Scale, AnomalyKind::Value));
    assert!(tape.backward(y)?.wrt(x).is_nan());
    // In a sum it is a term that depends on nothing: slots 3-5 leaves, 6-9 the sum of their
    // three (the constant sends nowhere).
    let [u, v, w] = [1.0, 2.0, 4.0].map(|value| tape.var(value));
    let s = Var::sum(&[u, v, c2, w]);
    assert_eq!(tape.len(), 10);
    let g = tape.backward(s)?;
    assert_eq!(
        [g.wrt(u), g.wrt(v), g.wrt(w), g.wrt(x)],
        [1.0, 1.0, 1.0, 0.0]
    );
    Ok(())
}

#[test]
fn large_finite_partials_of_a_sum_or_a_bounded_operation_write_nothing() -> Result<(), TapeError> {
    // Only a result that is not finite is written as its own statement. Pending partials of
    // 1e300 are finite, and so is a sum or a sine of them (a sum passes its partials through, a
    // sine multiplies them by a cosine), even where the product value * p0 * p1, the test of a
    // product's result, overflows: nothing is written, and the gradient is exact.
    let tape = Tape::<f64, 16>::new();
    let (x, y) = (tape.var(1e-300), tape.var(2e-300));
    let h = x * 1e300 + y * 1e300; // value 3, partials (1e300, 1e300)
    let s = h.sin();
    assert_eq!(
        tape.len(),
        2,
        "no statement: every value and partial is finite"
    );
    let g = tape.backward(s)?;
    assert_eq!(
        (g.wrt(x), g.wrt(y)),
        (3f64.cos() * 1e300, 3f64.cos() * 1e300)
    );
    // A partial that does overflow is still written, named by its operation.
    let big = x * 1e300 * 1e300;
    assert_eq!(
        tape.len(),
        2 + 2,
        "the overflowing scaling is a statement of its own"
    );
    assert_eq!(tape.node(big.id().expect("written"))?.op, Op::Scale);
    Ok(())
}

#[test]
fn a_nan_that_meets_a_zero_partial_is_still_traced_to_where_it_arose() -> Result<(), TapeError> {
    // Slots: 0 x = -1; 1-2 sqrt(x) = NaN (operand x); 3 u = 2. Each use below gives NaN through
    // a partial of exactly 0 (relu and a zero-slope leaky relu below 0, a product by a constant
    // 0, `x / inf`, a zero coefficient of a dot product or an affine row): the result keeps its
    // operand (partial 0) rather than holding NaN on its own, so the report names sqrt at slot 2
    // however the NaN travelled.
    let tape = Tape::<f64, 128>::new();
    let x = tape.var(-1.0);
    let a = x.sqrt();
    let u = tape.var(2.0);
    let zero = Var::constant(0.0);
    let uses = [
        ("relu", a.relu(), 1.0),
        ("leaky_relu(0)", a.leaky_relu(0.0), 1.0),
        ("a * 0", a * 0.0, 1.0),
        ("0 * a", 0.0 * a, 1.0),
        ("a / inf", a / f64::INFINITY, 1.0),
        ("mul_add(a, 0, u)", a.mul_add(zero, u), 3.0),
        (
            "dot([a, u], [0, 1])",
            Var::dot(&[a, u], &[zero, Var::constant(1.0)])?,
            3.0,
        ),
        ("dot([0, u], [a, u])", Var::dot(&[zero, u], &[a, u])?, 9.0),
        (
            "dot([a, a, u], [0, 0, u])",
            Var::dot(&[a, a, u], &[zero, zero, u])?,
            9.0,
        ),
        (
            "affine([0, 0], [a, u], u)",
            Var::affine(&[zero, zero], &[a, u], u)?,
            3.0,
        ),
        ("sum", Var::sum(&[a, u, u]), 5.0),
    ];
    for (name, y, du) in uses {
        assert!(y.value().is_nan(), "{name}");
        let out = y * 2.0 + u;
        for origin in [tape.anomaly(out), tape.non_finite_origin(out)] {
            let origin = origin.unwrap();
            assert_eq!(
                (origin.index, origin.op, origin.kind),
                (2, Op::Sqrt, AnomalyKind::Value),
                "{name}: {origin}"
            );
        }
        // The NaN sends nothing (its adjoint is 0): `u`'s gradient in `2 y + u`, by hand.
        assert_eq!(tape.backward(out)?.wrt(u), du, "{name}");
    }
    // Over leaves (`dot_of`): a NaN leaf times a zero leaf keeps the NaN leaf, where it arose.
    let nan = tape.var(f64::NAN);
    let zero_leaf = tape.var(0.0);
    let y = Var::dot_of(
        tape.leaves(nan.id().unwrap(), 1)?,
        tape.leaves(zero_leaf.id().unwrap(), 1)?,
    )?;
    assert!(y.value().is_nan());
    let origin = tape.anomaly(y * 2.0).unwrap();
    assert_eq!(
        (origin.index, origin.op),
        (nan.id().unwrap().index(), Op::Leaf)
    );
    // In a statement whose value is NaN, a finite term with a zero partial is still left out:
    // `a + 0 u + w` is one statement of two operands (a's sqrt and w), 3 slots.
    let w = tape.var(5.0);
    let before = tape.len();
    let s = Var::dot(&[a, u, w], &[Var::constant(1.0), zero, Var::constant(1.0)])?;
    assert!(s.value().is_nan());
    assert_eq!(tape.len() - before, 3);
    // A finite value times a zero partial is still left out: relu of a negative depends on
    // nothing, and a dot product's zero coefficients cost no operand (what is left, `u u`, is
    // one term: it stays in the handle, no slot written).
    let before = tape.len();
    let dead = (x * 3.0).relu();
    assert!(dead.id().is_none() && dead.value() == 0.0 && tape.backward(dead)?.wrt(x) == 0.0);
    let d = Var::dot(&[x, u, u], &[zero, u, zero])?;
    assert_eq!((d.value(), tape.len()), (4.0, before));
    Ok(())
}
