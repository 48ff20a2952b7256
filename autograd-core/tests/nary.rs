//! What n-ary operations (`sum`, `dot`, `affine`, `mul_add`) keep to themselves: a result on at
//! most two recorded values stays in its handle (a statement written optimistically is taken
//! back, its operands kept exactly), one on a single value is folded, and the statements that are
//! written hold every operand, also at the edge of the tape. (The binary operations' merges and
//! cuts are in `preaccumulation.rs`.)

use autograd_core::{Op, Tape, TapeError, Var};

#[test]
fn an_n_ary_result_on_at_most_two_recorded_values_stays_in_its_handle() -> Result<(), TapeError> {
    // dot((x, y, z), (2, 3, 0)): z's weight is 0, so it depends on x and y only; no statement.
    let tape = Tape::<f64, 16>::new();
    let (x, y, z) = (tape.var(1.0), tape.var(2.0), tape.var(3.0));
    let c = |v| Var::constant(v);
    let d = Var::dot(&[x, y, z], &[c(2.0), c(3.0), c(0.0)])?;
    assert_eq!(d.value(), 8.0);
    assert_eq!(tape.len(), 3, "no statement for two recorded values");
    let g = tape.backward(d)?;
    assert_eq!((g.wrt(x), g.wrt(y), g.wrt(z)), (2.0, 3.0, 0.0));
    // Three that count: one statement of three operands and a header.
    let e = Var::dot(&[x, y, z], &[c(2.0), c(3.0), c(4.0)])?;
    assert_eq!(tape.len(), 3 + 4);
    assert_eq!(tape.backward(e)?.wrt(z), 4.0);
    Ok(())
}

/// On a tape with room for the statement but not for its upper bound, n-ary operations take
/// their exact path (count first, then write): the same statement, values and gradients.
#[test]
fn n_ary_statements_that_just_fit_are_written_exactly() -> Result<(), TapeError> {
    // sum of four leaves: 4 operands and a header after 4 leaves = 9 slots, all there is.
    let tape = Tape::<f64, 9>::new();
    let x: Vec<_> = (1..=4).map(|i| tape.var(i as f64)).collect();
    let s = Var::sum(&x);
    assert_eq!((s.value(), tape.len()), (10.0, 9));
    let g = tape.backward(s)?;
    assert_eq!(x.iter().map(|v| g.wrt(*v)).collect::<Vec<_>>(), [1.0; 4]);

    // dot of three by three leaves: 6 operands and a header after 6 leaves = 13 slots.
    let tape = Tape::<f64, 13>::new();
    let a: Vec<_> = (1..=3).map(|i| tape.var(i as f64)).collect();
    let b: Vec<_> = (4..=6).map(|i| tape.var(i as f64)).collect();
    let d = Var::dot(&a, &b)?;
    assert_eq!((d.value(), tape.len()), (32.0, 13));
    let g = tape.backward(d)?;
    assert_eq!([g.wrt(a[0]), g.wrt(a[2]), g.wrt(b[1])], [4.0, 6.0, 2.0]);

    // dot of three leaves with themselves (an L2 penalty): one operand each, partial 2 p (a
    // product p p of one statement gives it once), and a header: 4 leaves, then 4 slots. Where
    // 2 p overflows, p's two operands of partial p, as for any product: 1e308 takes 2.
    let tape = Tape::<f64, 32>::new();
    let p: Vec<_> = [1.0, -2.0, 3.0, 1e308].map(|v| tape.var(v)).into();
    let d = Var::dot(&p[..3], &p[..3])?;
    assert_eq!((d.value(), tape.len()), (14.0, 8));
    let g = tape.backward(d * 0.5)?;
    assert_eq!([g.wrt(p[0]), g.wrt(p[1]), g.wrt(p[2])], [1.0, -2.0, 3.0]);
    let d = Var::dot(&p, &p)?;
    assert_eq!((d.value(), tape.len()), (f64::INFINITY, 8 + 6));
    let g = tape.backward(d * 0.5)?;
    assert_eq!([g.wrt(p[0]), g.wrt(p[1]), g.wrt(p[2])], [1.0, -2.0, 3.0]);
    assert_eq!(g.wrt(p[3]), 1e308); // 0.5 1e308 twice

    // affine with constant inputs, and mul_add of three leaves: 3 operands and a header each.
    let tape = Tape::<f64, 7>::new();
    let (w0, w1, bias) = (tape.var(2.0), tape.var(-1.0), tape.var(0.5));
    let c = |v| Var::constant(v);
    let y = Var::affine(&[w0, w1], &[c(3.0), c(4.0)], bias)?;
    assert_eq!((y.value(), tape.len()), (2.5, 7));
    let g = tape.backward(y)?;
    assert_eq!([g.wrt(w0), g.wrt(w1), g.wrt(bias)], [3.0, 4.0, 1.0]);

    let tape = Tape::<f64, 7>::new();
    let (x, m, z) = (tape.var(2.0), tape.var(5.0), tape.var(0.25));
    let y = x.mul_add(m, z);
    assert_eq!((y.value(), tape.len()), (10.25, 7));
    let g = tape.backward(y)?;
    assert_eq!([g.wrt(x), g.wrt(m), g.wrt(z)], [5.0, 2.0, 1.0]);
    Ok(())
}

#[test]
fn mul_add_of_three_recorded_values_is_one_statement() -> Result<(), TapeError> {
    let tape = Tape::<f64, 64>::new();
    let (x, m, z) = (tape.var(2.0), tape.var(5.0), tape.var(0.25));
    let y = x.mul_add(m, z);
    assert_eq!((y.value(), tape.len()), (10.25, 3 + 4));
    let g = tape.backward(y)?;
    assert_eq!([g.wrt(x), g.wrt(m), g.wrt(z)], [5.0, 2.0, 1.0]);
    Ok(())
}

#[test]
fn an_affine_of_handles_with_two_pending_pairs_each_keeps_every_operand() -> Result<(), TapeError> {
    // Every factor carries two pending pairs: 2 terms x 2 factors x 2 pairs + 2 for the bias is
    // the most an affine statement of two terms can hold (10 operands).
    let tape = Tape::<f64, 64>::new();
    let l: Vec<_> = (1..=10).map(|i| tape.var(i as f64)).collect();
    let (w0, w1) = (l[0] * l[1], l[2] * l[3]); // 2, 12
    let (x0, x1) = (l[4] * l[5], l[6] * l[7]); // 30, 56
    let b = l[8] * l[9]; // 90
    let y = Var::affine(&[w0, w1], &[x0, x1], b)?;
    assert_eq!(y.value(), 2.0 * 30.0 + 12.0 * 56.0 + 90.0);
    assert_eq!(tape.len(), 10 + 11, "one statement of 10 operands");
    let g = tape.backward(y)?;
    // d/dl0 = l1 x0, d/dl4 = w0 l5, d/dl9 = l8, ...
    let want = [60.0, 30.0, 224.0, 168.0, 12.0, 10.0, 96.0, 84.0, 10.0, 9.0];
    for (k, v) in l.iter().enumerate() {
        assert_eq!(g.wrt(*v), want[k], "d/dl{k}");
    }
    Ok(())
}

#[test]
fn n_ary_statements_at_the_edge_of_the_tape() -> Result<(), TapeError> {
    // Room for the statement (5 slots) exactly when its upper bound (8 operands) would fill
    // the tape to the last slot: the exact path, no overflow.
    let tape = Tape::<f64, 12>::new();
    let x: Vec<_> = (1..=4).map(|i| tape.var(i as f64)).collect();
    let s = Var::sum(&x);
    assert_eq!((s.value(), tape.len()), (10.0, 9));
    assert_eq!(tape.backward(s)?.wrt(x[3]), 1.0);
    // One leaf used four times: 1 + 5 slots on a tape of 9 (the bound, 8, would not fit).
    let tape = Tape::<f64, 9>::new();
    let x = tape.var(2.0);
    let s = Var::sum(&[x, x, x, x]);
    assert_eq!((s.value(), tape.len()), (8.0, 6));
    assert_eq!(tape.backward(s)?.wrt(x), 4.0);
    Ok(())
}

#[test]
fn an_n_ary_result_on_one_recorded_value_is_folded() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let (x, y) = (tape.var(1.5), tape.var(2.0));
    let c = |v| Var::constant(v);
    let d = Var::dot(&[x, y], &[c(2.0), c(0.0)])?;
    assert_eq!((d.value(), tape.len()), (3.0, 2));
    assert_eq!(tape.backward(d)?.wrt(x), 2.0);
    Ok(())
}

#[test]
fn an_n_ary_statement_over_two_tapes_is_an_error() {
    let (a, b) = (Tape::<f64, 16>::new(), Tape::<f64, 16>::new());
    let (x, y, z) = (a.var(1.0), a.var(2.0), b.var(3.0));
    let s = Var::sum(&[x, y, z]);
    assert_eq!(s.value(), 6.0);
    assert_eq!(a.check(), Err(TapeError::ForeignVar));
    assert_eq!(b.check(), Err(TapeError::ForeignVar));
}

#[test]
fn a_folded_n_ary_result_keeps_its_operation_as_label() -> Result<(), TapeError> {
    // dot of two recorded values stays in its handle; written later, it is labelled `dot`.
    let tape = Tape::<f64, 16>::new();
    let (x, y) = (tape.var(1.5), tape.var(2.0));
    let c = |v| Var::constant(v);
    let d = Var::dot(&[x, y], &[c(2.0), c(3.0)])?.recorded()?;
    assert_eq!(tape.node(d.id().unwrap())?.op, autograd_core::Op::Dot);
    Ok(())
}

#[test]
fn an_n_ary_result_with_every_term_left_out_keeps_its_operation_as_label() -> Result<(), TapeError>
{
    // Both factors 0 (a constant, and a value a cut left depending on nothing): every term is
    // left out, none is folded, and the result, on the tape, is still written as a `dot`.
    let tape = Tape::<f64, 16>::new();
    let dead = tape.var(-1.5).relu();
    let zero = Var::constant(0.0);
    let d = Var::dot(&[dead, dead], &[zero, zero])?.recorded()?;
    let node = tape.node(d.id().unwrap())?;
    assert_eq!((node.op, node.operands, node.value), (Op::Dot, 0, 0.0));
    Ok(())
}

#[test]
fn mul_add_of_at_most_two_recorded_values_stays_in_its_handle() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let (x, m) = (tape.var(2.0), tape.var(5.0));
    let y = x.mul_add(m, Var::constant(0.25));
    assert_eq!((y.value(), tape.len()), (10.25, 2));
    let g = tape.backward(y)?;
    assert_eq!([g.wrt(x), g.wrt(m)], [5.0, 2.0]);
    let z = x.mul_add(Var::constant(3.0), m);
    assert_eq!(z.value(), 11.0);
    let g = tape.backward(z)?;
    assert_eq!([g.wrt(x), g.wrt(m)], [3.0, 1.0]);
    Ok(())
}

/// A neuron whose zero inputs leave it on at most two recorded values (XOR's 0/1 inputs) writes
/// its statement optimistically, takes it back and keeps the operands it wrote in the handle:
/// merged where they share an index, none (a value on the tape) where there are none, and, where a partial is
/// not finite, the statement labelled with its operation (NaN provenance).
#[test]
fn an_n_ary_result_taken_back_keeps_exactly_its_operands() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let (a, z) = (tape.var(2.0), tape.var(7.0));
    let c = |v| Var::constant(v);
    // Two operands on `a` (1.5 and 2.5) become one pair of 4.
    let y = Var::affine(&[a, a, z], &[c(1.5), c(2.5), c(0.0)], c(0.5))?;
    assert_eq!((y.value(), tape.len()), (8.5, 2));
    assert_eq!(format!("{y:?}"), "Var(8.5, d/d#0 = 4.0)");
    assert_eq!(tape.backward(y)?.wrt(a), 4.0);
    // Two operands on different values stay two pairs, in the terms' order.
    let y = Var::dot(&[z, a, a], &[c(3.0), c(-1.0), c(0.0)])?;
    assert_eq!(format!("{y:?}"), "Var(19.0, d/d#1 = 3.0, d/d#0 = -1.0)");
    // Every input zero: no slot, and a value on the tape that depends on nothing, as `a * 0.0`
    // is (not a constant, which `backward` would refuse; see the fuzz regression
    // `an_n_ary_result_whose_terms_all_have_zero_partials_stays_on_its_tape`).
    let y = Var::dot(&[a, z, a], &[c(0.0), c(0.0), c(0.0)])?;
    assert!(!y.is_constant() && y.value() == 0.0);
    assert_eq!(tape.len(), 2);
    assert_eq!(tape.backward(y)?.wrt(a), 0.0);
    // Labelled with its operation, as every result is: written, it is a statement of no
    // operand labelled `dot` (slot 2).
    let w = y.recorded()?.id().expect("written");
    let node = tape.node(w)?;
    assert_eq!((w.index(), node.op, node.operands), (2, Op::Dot, 0));
    // No operand, but a term with a nonzero partial is a value on the tape that depends on
    // nothing (relu below 0): the result stays on the tape, as the exact path makes it (found by
    // the `capacity` fuzz target: a constant here made `backward` refuse it).
    let r = tape.var(-1.0).relu();
    let y = Var::dot(&[r, a, z], &[c(2.0), c(0.0), c(0.0)])?;
    assert!(!y.is_constant());
    assert_eq!(tape.backward(y)?.wrt(a), 0.0);
    // Value times partial overflows (1e200 * 1e200), the test every operation applies: both
    // paths write the statement, on a tape with room for the optimistic write and on one without
    // (found by the `capacity` fuzz target: their lengths differed).
    for room in [true, false] {
        let small = Tape::<f64, 8>::new();
        let t: &autograd_core::TapeView<f64> = if room { &tape } else { &small };
        let (x, o) = (t.var(1.0), t.var(3.0));
        let before = t.len();
        let y = Var::dot(&[x, o, o], &[c(1e200), c(0.0), c(0.0)])?;
        assert_eq!(
            (y.value(), t.len() - before),
            (1e200, 2),
            "room for the bound: {room}"
        );
    }
    // An infinite partial: written at once as a statement of its own, labelled `dot`, so the
    // NaN report names `dot`, not the `add` that meets it next.
    let y = Var::dot(&[a, z, a], &[c(f64::INFINITY), c(0.0), c(0.0)])?;
    assert_eq!(tape.node(y.id().unwrap())?.op, autograd_core::Op::Dot);
    let _ = (y + a).recorded()?;
    assert_eq!(
        tape.first_non_finite().map(|r| r.op),
        Some(autograd_core::Op::Dot)
    );
    Ok(())
}
