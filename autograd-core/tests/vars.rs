//! `TapeView::vars`: inputs recorded at once must be exactly what `TapeView::var` records for
//! each in turn: the same slots, handles, gradients and sticky error, with room or without.

use autograd_core::{Tape, TapeError, Var};
use proptest::prelude::*;

/// Everything a recording of `values` on a tape of 24 slots with `free` left shows: the tape by
/// Graphviz export, its error, and each handle's value bits and statement.
fn record(values: &[f64], free: usize, at_once: bool) -> String {
    let tape = Tape::<f64, 24>::new();
    while tape.capacity() - tape.len() > free {
        tape.var(-1.0);
    }
    let handles: Vec<Var<'_, f64>> = if at_once {
        tape.vars(values).collect()
    } else {
        values.iter().map(|&v| tape.var(v)).collect()
    };
    let mut shown = String::new();
    tape.write_dot(&mut shown).unwrap();
    shown += &format!("{:?} {}", tape.check(), tape.len());
    for h in &handles {
        shown += &format!(
            " {:x}:{:?}",
            h.value().to_bits(),
            h.id().map(|id| id.index())
        );
    }
    shown
}

proptest! {
    #[test]
    fn inputs_recorded_at_once_are_those_recorded_one_by_one(
        values in prop::collection::vec(
            prop_oneof![4 => -3.0f64..3.0, 1 => Just(f64::NAN), 1 => Just(f64::INFINITY)],
            0..12,
        ),
        free in 0usize..14,
    ) {
        prop_assert_eq!(record(&values, free, true), record(&values, free, false));
    }
}

#[test]
fn inputs_recorded_at_once_are_differentiated_and_read_as_leaves() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let before = tape.var(7.0);
    let x: Vec<_> = tape.vars(&[2.0, -3.0, 0.5]).collect();
    assert_eq!(x.len(), 3);
    // f = x0^2 x1 + x2 before: df/dx0 = 2 x0 x1 = -12, df/dx1 = x0^2 = 4, df/dx2 = 7.
    let y = x[0] * x[0] * x[1] + x[2] * before;
    let g = tape.backward(y)?;
    assert_eq!([g.wrt(x[0]), g.wrt(x[1]), g.wrt(x[2])], [-12.0, 4.0, 7.0]);
    let leaves = tape.leaves(x[0].id().unwrap(), 3)?;
    assert_eq!(leaves.get(1).map(|v| v.value()), Some(-3.0));
    assert_eq!(x[0].id().map(|id| id.index()), Some(1));
    Ok(())
}

#[test]
fn inputs_that_do_not_fit_leave_the_sticky_error_counting_each() {
    let tape = Tape::<f32, 4>::new();
    tape.var(1.0);
    let x: Vec<_> = tape.vars(&[1.0, 2.0, 3.0, 4.0, 5.0]).collect();
    // Three fit; the other two hold their values and depend on nothing.
    let ids: Vec<_> = x.iter().map(|v| v.id().map(|id| id.index())).collect();
    assert_eq!(ids, [Some(1), Some(2), Some(3), None, None]);
    assert_eq!(x[4].value(), 5.0);
    assert_eq!(
        tape.check(),
        Err(TapeError::CapacityExceeded {
            capacity: 4,
            needed: 6
        })
    );
    // The iterator is not needed for the slots to be written.
    let tape = Tape::<f32, 4>::new();
    let _ = tape.vars(&[1.0, 2.0]);
    assert_eq!(tape.len(), 2);
}

#[test]
fn the_handles_left_are_counted_exactly() {
    // `ExactSizeIterator`: `len` and `size_hint` are the values not yet read, written or not.
    let tape = Tape::<f64, 4>::new();
    let mut x = tape.vars(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!((x.len(), x.size_hint()), (6, (6, Some(6))));
    let first = x.next().map(|v| v.value());
    assert_eq!((first, x.len()), (Some(1.0), 5));
    assert_eq!(
        x.by_ref().skip(3).map(|v| v.value()).collect::<Vec<_>>(),
        [5.0, 6.0]
    );
    assert_eq!(
        (x.len(), x.size_hint(), x.next().is_none()),
        (0, (0, Some(0)), true)
    );
}
