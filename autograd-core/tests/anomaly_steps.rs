//! NaN provenance where more than one statement could be blamed: which step of the sweep a
//! gradient report names, and the handles a tape must refuse to trace. Each case is one that a
//! mutation run of `anomaly.rs` found untested (`docs/mutation-testing.md`).
//!
//! Slot layout (see `tape.rs`): a leaf takes one slot; a statement with `k` operands takes
//! `k + 1`, its header last; `recorded()` writes a handle's pending pairs as a statement.

use autograd_core::{AnomalyKind, Op, Tape, TapeError};

#[test]
fn a_single_term_that_overflows_is_named_before_a_sum_that_overflows_below_it(
) -> Result<(), TapeError> {
    // Slots: 0 a, 1 t; 2-3 A = 2a; 4-5 T = 2t; 6-7 U = 1e308 T; 8-9 P = 1e300 A;
    // 10-13 Y = 1e308 T + U + 1e300 P (three pairs: a statement). Every value is 0.
    // The sweep from Y: P's adjoint 1e300 sends A the single term 1e300 * 1e300 = inf, while
    // T's adjoint overflows as a sum of two finite terms (1e308 from Y, 1e308 from U). P is
    // visited first (the sweep goes down the tape), so P's step is the report, although T, the
    // higher of the two non-finite adjoints, would be named if P's term were not tested as the
    // product it is (1e300 + 1e300 is finite).
    let tape = Tape::<f64, 16>::new();
    let (a, t) = (tape.var(0.0), tape.var(0.0));
    let big_a = (a * 2.0).recorded()?;
    let big_t = (t * 2.0).recorded()?;
    let u = (big_t * 1e308).recorded()?;
    let p = (big_a * 1e300).recorded()?;
    let y = big_t * 1e308 + u + p * 1e300;
    assert_eq!((y.value(), y.id().map(|id| id.index())), (0.0, Some(13)));
    let g = tape.backward(y)?;
    assert_eq!((g.wrt(a), g.wrt(t)), (f64::INFINITY, f64::INFINITY));
    let r = tape.anomaly(y).expect("a report");
    assert_eq!((r.index, r.op), (9, Op::Scale));
    assert_eq!(
        r.kind,
        AnomalyKind::Gradient {
            input: 3,
            adjoint: 1e300,
            local: 1e300,
            contribution: f64::INFINITY,
            sum: f64::INFINITY,
        }
    );
    Ok(())
}

#[test]
fn a_sum_that_overflows_is_replayed_from_the_outputs_own_seed() -> Result<(), TapeError> {
    // Slots: 0 t; 1-2 T = 2t; 3-4 U = 1e308 T. y = 1e308 T + U stays in its handle: two
    // pending pairs, (T, 1e308) and (U, 1), which the sweep seeds before any statement sends.
    // T's adjoint is 1e308 from the seed plus 1e308 from U: inf, from two finite terms. The
    // replay of that sum must start from the seed of T (not of U), so the step that overflows
    // it is U's.
    let tape = Tape::<f64, 16>::new();
    let t = tape.var(0.0);
    let big_t = (t * 2.0).recorded()?;
    let u = (big_t * 1e308).recorded()?;
    let y = big_t * 1e308 + u;
    assert_eq!((y.value(), y.id()), (0.0, None));
    assert_eq!(tape.len(), 5);
    assert_eq!(tape.backward(y)?.wrt(t), f64::INFINITY);
    let r = tape.anomaly(y).expect("a report");
    assert_eq!((r.index, r.op), (4, Op::Scale));
    assert_eq!(
        r.kind,
        AnomalyKind::Gradient {
            input: 2,
            adjoint: 1.0,
            local: 1e308,
            contribution: 1e308,
            sum: f64::INFINITY,
        }
    );
    Ok(())
}

#[test]
fn the_origin_of_another_tapes_value_is_not_looked_for_here() {
    // Both tapes hold ln(0) = -inf at statement 2 (slots 0 x, 1-2 ln x): a handle of the second
    // tape is not traced on the first, whatever the first holds at its index.
    let (first, second) = (Tape::<f64, 8>::new(), Tape::<f64, 8>::new());
    let here = first.var(0.0).ln();
    let there = second.var(0.0).ln();
    assert_eq!(there.id().map(|id| id.index()), Some(2));
    assert_eq!(first.non_finite_origin(there), None);
    assert_eq!(second.non_finite_origin(there).map(|r| r.op), Some(Op::Ln));
    assert_eq!(first.non_finite_origin(here).map(|r| r.index), Some(2));
    // A finite handle of this tape has no origin to report either.
    assert_eq!(first.non_finite_origin(first.var(1.0) * 2.0), None);
}

#[test]
fn a_step_whose_own_value_is_not_finite_is_traced_to_where_that_value_arose(
) -> Result<(), TapeError> {
    // Slots: 0 x; 1-2 h = ln x = -inf (partial 1/0 = inf); 3-4 z = 2h (-inf, written); 5 w.
    // After a sweep from z, h sends x the term 2 * inf: the step the gradient report would
    // name is h's, whose own value is -inf from finite operands, so the report is where that
    // value arose (a value report of h), not the step. (After a sweep from a finite output a
    // statement of a non-finite value has an adjoint of 0 or NaN, so no step there is one of
    // them: this report is reached through another output's sweep, here that of z read for
    // y = w + 1, which depends on none of it.)
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(0.0);
    let h = x.ln();
    let z = h * 2.0;
    let y = tape.var(1.0) + 1.0;
    assert_eq!(z.id().map(|id| id.index()), Some(4));
    assert!(y.value().is_finite());
    assert_eq!(tape.backward(z)?.wrt(x), f64::INFINITY);
    let r = tape.anomaly(y).expect("a report");
    assert_eq!((r.index, r.op, r.kind), (2, Op::Ln, AnomalyKind::Value));
    assert_eq!(r.value, f64::NEG_INFINITY);
    Ok(())
}
