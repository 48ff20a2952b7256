//! What handles keep to themselves: operations that need no statement write none, a zero local
//! derivative cuts the dependence where an operation is flat over intervals (and only there), and
//! a value that depends on nothing still belongs to its tape. (The n-ary operations' statements
//! and their folding are in `nary.rs`.)

use autograd_core::{Op, Tape, TapeError, Var};

#[test]
fn a_binary_operation_with_a_constant_operand_writes_nothing() {
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(3.0);
    let c = Var::constant(2.0);
    let ys = [x.pow(c), c.pow(x), x.max(c), c.min(x), x / c, c / x];
    assert_eq!(tape.len(), 1, "only the leaf");
    let expected = [
        6.0,                   // d/dx x^2
        4.0 * 2f64.ln() * 2.0, // d/dx 2^x = 2^x ln 2 at 3: 8 ln 2
        1.0,
        0.0,
        0.5,
        -2.0 / 9.0,
    ];
    for (k, (y, want)) in ys.iter().zip(expected).enumerate() {
        let g = tape.backward(*y).unwrap().wrt(x);
        assert!((g - want).abs() < 1e-15, "case {k}: {g} vs {want}");
    }
    assert_eq!(tape.len(), 1);
}

#[test]
fn a_constant_minus_a_handle_is_its_negation_shifted() -> Result<(), TapeError> {
    // `c - x` is one operation on the handle, with the value, partials and label of `-x + c`.
    let tape = Tape::<f64, 32>::new();
    let (x, y) = (tape.var(0.3), tape.var(-2.5));
    let h = x * y * 2.0; // two pending pairs: 2y, 2x
    for c in [1.0, -7.25, 1e308] {
        let (fused, apart) = (Var::constant(c) - h, -h + c);
        assert_eq!(fused.value().to_bits(), apart.value().to_bits());
        let g = tape.backward(fused)?;
        assert_eq!((g.wrt(x), g.wrt(y)), (-2.0 * -2.5, -2.0 * 0.3));
        let (written, expected) = (fused.recorded()?, apart.recorded()?);
        let (a, b) = (
            tape.node(written.id().unwrap())?,
            tape.node(expected.id().unwrap())?,
        );
        assert_eq!(
            (a.op, a.value.to_bits(), a.operands),
            (b.op, b.value.to_bits(), b.operands)
        );
    }
    assert_eq!(
        tape.len(),
        2 + 6 * 3,
        "two leaves, then the statements recorded() wrote"
    );
    Ok(())
}

/// A one-input function of a handle, named, at the point where it is recorded.
type Case = (&'static str, f64, fn(Var<'_, f64>) -> Var<'_, f64>);

/// The operands of `f(x)` written as a statement of its own (`recorded`).
fn operands_written(x0: f64, f: impl Fn(Var<'_, f64>) -> Var<'_, f64>) -> usize {
    let tape = Tape::<f64, 8>::new();
    let y = f(tape.var(x0)).recorded().unwrap();
    tape.node(y.id().unwrap()).unwrap().operands
}

#[test]
fn only_an_operation_flat_over_intervals_cuts_at_a_zero_derivative() {
    // Flat over intervals, derivative exactly 0 at these points: the dependence is cut.
    let cut: [Case; 9] = [
        ("relu", -1.0, |x| x.relu()),
        ("leaky_relu(0)", -1.0, |x| x.leaky_relu(0.0)),
        ("tanh", 40.0, |x| x.tanh()),
        ("sigmoid", -800.0, |x| x.sigmoid()),
        ("softplus", -800.0, |x| x.softplus()),
        ("exp", -800.0, |x| x.exp()),
        ("exp2", -1100.0, |x| x.exp2()),
        ("powi(0)", 3.0, |x| x.powi(0)),
        ("scale(0)", 3.0, |x| x.scale(0.0)),
    ];
    for (name, x0, f) in cut {
        assert_eq!(operands_written(x0, f), 0, "{name} at {x0}");
    }
    // An isolated zero (or none at all): the operand stays, with its partial of 0.
    let kept: [Case; 5] = [
        ("square", 0.0, |x| x.square()),
        ("cos", 0.0, |x| x.cos()),
        ("abs", 0.0, |x| x.abs()),
        ("cosh", 0.0, |x| x.cosh()),
        ("x * (x - x), merged", 2.0, |x| x * (x - x)),
    ];
    for (name, x0, f) in kept {
        assert_eq!(operands_written(x0, f), 1, "{name} at {x0}");
    }
}

#[test]
fn an_operator_with_an_operand_of_no_pairs_is_a_shift_or_a_scale() -> Result<(), TapeError> {
    // The operators take the operation's rule whatever the operands; where one operand has no
    // pending pair (a constant, or a value a cut left depending on nothing) the result is
    // labelled as the one-input operation it is, and a product by 0 is cut as `scale(0)` is.
    let tape = Tape::<f64, 64>::new();
    let x = tape.var(3.0);
    let dead = tape.var(-1.0).relu(); // 0, on the tape, no pair
    let c = Var::constant(4.0);
    let cases = [
        ("x + c", x + c, Op::Shift, 1, 7.0, 1.0),
        ("c + x", c + x, Op::Shift, 1, 7.0, 1.0),
        ("x - c", x - c, Op::Shift, 1, -1.0, 1.0),
        ("c - x", c - x, Op::Shift, 1, 1.0, -1.0),
        ("x * c", x * c, Op::Scale, 1, 12.0, 4.0),
        ("c * x", c * x, Op::Scale, 1, 12.0, 4.0),
        ("x / c", x / c, Op::Scale, 1, 0.75, 0.25),
        ("c / x", c / x, Op::Div, 1, 4.0 / 3.0, -4.0 / 9.0),
        ("x + relu(-1)", x + dead, Op::Shift, 1, 3.0, 1.0),
        ("relu(-1) - x", dead - x, Op::Shift, 1, -3.0, -1.0),
        ("x * 0", x * 0.0, Op::Scale, 0, 0.0, 0.0),
        ("0 * x", 0.0 * x, Op::Scale, 0, 0.0, 0.0),
        ("x * relu(-1)", x * dead, Op::Scale, 0, 0.0, 0.0),
        ("x / inf", x / f64::INFINITY, Op::Scale, 0, 0.0, 0.0),
        (
            "x * y, both recorded",
            x * x.sin(),
            Op::Mul,
            1,
            3.0 * 3f64.sin(),
            3f64.sin() + 3.0 * 3f64.cos(),
        ),
    ];
    for (name, y, op, operands, value, dx) in cases {
        assert_eq!(tape.backward(y)?.wrt(x), dx, "{name}");
        let node = tape.node(y.recorded()?.id().unwrap())?;
        assert_eq!(
            (node.op, node.operands, node.value),
            (op, operands, value),
            "{name}"
        );
    }
    Ok(())
}

#[test]
fn two_operands_without_pairs_are_labelled_by_which_is_the_constant() -> Result<(), TapeError> {
    // Neither depends on anything recorded: the second operand's rule for a constant applies
    // (`dead / dead` is a scale, as `x / c` is), except that a constant dividend keeps the
    // division (`cargo xtask fuzz differential` found `c / relu(-1)`, infinite and so written
    // at once, labelled a scale).
    let tape = Tape::<f64, 32>::new();
    let dead = tape.var(-1.0).relu();
    let c = Var::constant(2.0);
    let cases = [
        ("c / dead", c / dead, Op::Div),
        ("dead / c", dead / c, Op::Scale),
        ("dead / dead", dead / dead, Op::Scale),
        ("c - dead", c - dead, Op::Shift),
        ("dead - c", dead - c, Op::Shift),
        ("dead * c", dead * c, Op::Scale),
        ("dead * dead", dead * dead, Op::Scale),
    ];
    for (name, y, op) in cases {
        let node = tape.node(y.recorded()?.id().unwrap())?;
        assert_eq!((node.op, node.operands), (op, 0), "{name}");
    }
    Ok(())
}

#[test]
fn an_infinite_adjoint_through_an_isolated_zero_is_nan_as_in_pytorch() {
    // d/dx ln(x^2) = 2/x has no value at 0: the sweep sends inf * 0 = NaN (PyTorch's
    // `torch.log(x ** 2).backward()` at 0 gives NaN), where a cut would have given 0.
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(0.0);
    let y = x.square().ln();
    assert_eq!(y.value(), f64::NEG_INFINITY);
    assert!(tape.backward(y).unwrap().wrt(x).is_nan());
    // Away from 0 the same expression is 2/x.
    let x = tape.var(0.5);
    assert_eq!(tape.backward(x.square().ln()).unwrap().wrt(x), 4.0);
}

#[test]
fn a_zero_derivative_cuts_the_dependence_as_pytorch_masks_relu() {
    // ln(relu(x)) at x = -1: relu is flat there, so the gradient is 0 (PyTorch's relu backward
    // masks the incoming inf), not 0 * inf = NaN.
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(-1.0);
    let y = x.relu().ln();
    assert_eq!(y.value(), f64::NEG_INFINITY);
    assert_eq!(tape.backward(y).unwrap().wrt(x), 0.0);
}

#[test]
fn a_value_that_depends_on_nothing_stays_on_its_tape() -> Result<(), TapeError> {
    // relu(-1) depends on nothing, yet it is a value of this tape, not a constant: combined
    // with a constant it can be differentiated (gradient 0), not refused as unrecorded.
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(-1.0);
    let r = x.relu();
    let y = Var::constant(2.0).pow(r);
    assert!(!y.is_constant());
    assert_eq!(tape.backward(y)?.wrt(x), 0.0);
    let z = r.max(Var::constant(-5.0));
    assert!(!z.is_constant());
    assert_eq!(tape.backward(z)?.wrt(x), 0.0);
    Ok(())
}

#[test]
fn handles_that_share_recorded_values_merge_without_a_statement() -> Result<(), TapeError> {
    // x y depends on x and y; adding x, y, or another product of x and y (in either order)
    // still depends on two recorded values: the partials add, nothing is written.
    // (Also with x and y past slot 0: a one-pair handle's unused index is 0, which the test for
    // an index in common compares too, and must not be what finds the shared index.)
    for pad in [0, 1] {
        let tape = Tape::<f64, 8>::new();
        for _ in 0..pad {
            tape.var(9.0);
        }
        let (x, y) = (tape.var(3.0), tape.var(5.0));
        let p = x * y; // pending (x: 5, y: 3)
        let q = y * x; // pending (y: 3, x: 5): x second, and in slot 0 without the pad
        let cases = [
            (p + x, [6.0, 3.0]),        // two pending, then one: the first index
            (p + y, [5.0, 4.0]),        // ... the second index
            (q + x, [6.0, 3.0]),        // ... the second index, x
            (x + p, [6.0, 3.0]),        // one pending, then two: the first
            (y + p, [5.0, 4.0]),        // ... the second
            (p + p * 2.0, [15.0, 9.0]), // two and two, the same order
            (p + y * x, [10.0, 6.0]),   // two and two, swapped
        ];
        for (k, (r, [dx, dy])) in cases.iter().enumerate() {
            assert_eq!(tape.len(), 2 + pad, "case {k} wrote a statement");
            let g = tape.backward(*r)?;
            assert_eq!((g.wrt(x), g.wrt(y)), (*dx, *dy), "case {k}");
        }
    }
    Ok(())
}

#[test]
fn two_pairs_and_a_scaled_handle_on_one_of_their_values_merge_without_a_statement(
) -> Result<(), TapeError> {
    // As above, with the one-pair handle itself pending (5x, 7y) rather than a leaf: the merge
    // then goes through the out-of-line path, whose partials must add at the shared index.
    // (Also with x and y past slot 0: a one-pair handle's unused index is 0, which the test for
    // an index in common compares too, and must not be what finds the shared index.)
    for pad in [0, 1] {
        let tape = Tape::<f64, 8>::new();
        for _ in 0..pad {
            tape.var(9.0);
        }
        let (x, y) = (tape.var(3.0), tape.var(5.0));
        let p = x * 2.0 + y * 3.0; // pending (x: 2, y: 3)
        let cases = [
            (p + x * 5.0, [7.0, 3.0]),  // two pending, then one on the first index
            (p + y * 7.0, [2.0, 10.0]), // ... on the second
            (x * 5.0 + p, [7.0, 3.0]),  // one, then two: the first
            (y * 7.0 + p, [2.0, 10.0]), // ... the second
        ];
        for (k, (r, [dx, dy])) in cases.iter().enumerate() {
            assert_eq!(tape.len(), 2 + pad, "case {k} wrote a statement");
            let g = tape.backward(*r)?;
            assert_eq!((g.wrt(x), g.wrt(y)), (*dx, *dy), "case {k}");
        }
    }
    Ok(())
}

#[test]
fn two_handles_of_two_pairs_with_one_index_in_common_write_their_four_operands(
) -> Result<(), TapeError> {
    // x = 2a + 3b and a handle on one of a, b and on c, in either order: three recorded values
    // in all, one statement of the four pairs (the common index twice, as `merge_shared` says:
    // the sweep adds both), wherever the common index sits.
    let tape = Tape::<f64, 64>::new();
    let (a, b, c) = (tape.var(3.0), tape.var(5.0), tape.var(-1.0));
    let x = a * 2.0 + b * 3.0;
    let cases = [
        (a * 5.0 + c * 7.0, [7.0, 3.0, 7.0]), // the first index of each
        (c * 7.0 + a * 5.0, [7.0, 3.0, 7.0]), // the first's first, the second's second
        (b * 5.0 + c * 7.0, [2.0, 8.0, 7.0]), // the first's second, the second's first
        (c * 7.0 + b * 5.0, [2.0, 8.0, 7.0]), // the second of each
    ];
    for (k, (y, [da, db, dc])) in cases.into_iter().enumerate() {
        let before = tape.len();
        let r = x + y;
        let id = r.id().expect("a statement");
        assert_eq!(
            (tape.len() - before, tape.node(id)?.operands),
            (5, 4),
            "case {k}"
        );
        let g = tape.backward(r)?;
        assert_eq!((g.wrt(a), g.wrt(b), g.wrt(c)), (da, db, dc), "case {k}");
    }
    Ok(())
}

#[test]
fn a_one_pair_handle_meeting_the_first_slot_writes_the_same_statement() -> Result<(), TapeError> {
    // The merge's test for an index in common compares a one-pair handle's unused second index
    // too (0, the first slot's index): `x b + sin c` with `x` in slot 0 looks shared and goes
    // the long way (`merge_shared`), and must write what it writes with `x` in another slot: the
    // first handle's pairs, then the second's. On a tape with room for exactly the statement
    // (3 leaves, then 3 operands and a header: fewer than the 5 slots the usual write takes),
    // the write's other path must place them the same way.
    fn operands<const N: usize>(padded: bool) -> Result<Vec<(usize, f64)>, TapeError> {
        let tape = Tape::<f64, N>::new();
        if padded {
            tape.var(9.0); // slot 0, used by nothing
        }
        let (x, b, c) = (tape.var(2.0), tape.var(3.0), tape.var(0.5));
        let y = (x * b + c.sin()).recorded()?;
        assert_eq!(tape.len(), padded as usize + 7);
        let mut v = Vec::new();
        tape.for_each_operand(y.id().unwrap(), |i, p| v.push((i, p)))?;
        Ok(v)
    }
    let cos = 0.5f64.cos();
    assert_eq!(operands::<16>(false)?, vec![(0, 3.0), (1, 2.0), (2, cos)]);
    assert_eq!(operands::<7>(false)?, vec![(0, 3.0), (1, 2.0), (2, cos)]);
    assert_eq!(operands::<16>(true)?, vec![(1, 3.0), (2, 2.0), (3, cos)]);
    assert_eq!(operands::<8>(true)?, vec![(1, 3.0), (2, 2.0), (3, cos)]);
    Ok(())
}
