//! `TapeView::leaves` and `Var::affine_layer_of`: a layer over leaves checked once must record
//! exactly what `Var::affine_layer` records over the same leaves' handles (the same slots, values,
//! gradients and NaN provenance, bit for bit), whether it is one layer statement, falls back to
//! the rows, or finds no room; and `Var::affine_layer_of_then` exactly what either records
//! followed by the activation on each output. `Var::dot_of` over leaves likewise records
//! exactly what `Var::dot` records over their handles.

use autograd_core::{AnomalyKind, NodeId, Tape, TapeError, Var};
use proptest::prelude::*;

mod common;
use common::{bits, kinds, rounding_inputs, shown, Input};

/// Everything a recording shows, as bits (NaN as one): the tape drawn by Graphviz export (every statement,
/// operation, operand and partial), the rows' values, the gradients with respect to the
/// parameters and the input leaves, and NaN provenance's report on the output.
fn record(
    kinds: &[Input],
    xs: &[f64],
    ps: &[f64],
    m: usize,
    (path, act): (Path, usize),
    cap: usize,
) -> String {
    let tape = Tape::<f64, 512>::new();
    let us: Vec<_> = xs.iter().map(|&v| tape.var(v)).collect();
    let u2 = tape.var(0.5);
    let params: Vec<_> = ps.iter().map(|&p| tape.var(p)).collect();
    let x = rounding_inputs(kinds, &us, u2, xs);
    // Fill the tape up to `cap` free slots, to test the layer without room.
    while tape.capacity() - tape.len() > cap {
        tape.var(0.0);
    }
    let mut y = vec![Var::constant(0.0); m];
    let leaves = || tape.leaves(params[0].id().unwrap(), params.len()).unwrap();
    match path {
        Path::Handles => Var::affine_layer(&params, &x, &mut y).unwrap(),
        Path::Leaves => Var::affine_layer_of(leaves(), &x, &mut y).unwrap(),
        Path::LeavesThen => {
            Var::affine_layer_of_then(leaves(), &x, &mut y, |v| activate(act, v)).unwrap()
        }
    }
    if path != Path::LeavesThen {
        y.iter_mut().for_each(|v| *v = activate(act, *v));
    }
    let wrt: Vec<_> = params.iter().chain(&us).chain([&u2]).copied().collect();
    shown(&tape, &y, &wrt)
}

/// How [`record`] writes the layer.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Path {
    /// `Var::affine_layer` over the parameters' handles, then the activation.
    Handles,
    /// `Var::affine_layer_of` over them as leaves, then the activation.
    Leaves,
    /// `Var::affine_layer_of_then` with the activation.
    LeavesThen,
}

/// The activations tried (by number, `0..ACTIVATIONS`): the identity, and those autograd-nn
/// passes to `affine_layer_of_then`.
const ACTIVATIONS: usize = 5;
fn activate(act: usize, v: Var<'_, f64>) -> Var<'_, f64> {
    match act {
        0 => v,
        1 => v.tanh(),
        2 => v.relu(),
        3 => v.sigmoid(),
        _ => v.leaky_relu(0.01),
    }
}

/// Ordinary values and values that break arithmetic.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -3.0f64..3.0,
        1 => prop_oneof![
            Just(0.0),
            Just(-0.0),
            Just(1e-310),
            Just(1e300),
            Just(f64::INFINITY),
            Just(f64::NAN),
        ],
    ]
}

proptest! {
    #[test]
    fn a_layer_over_leaves_records_what_it_records_over_their_handles(
        layer in (1usize..7, 1usize..5).prop_flat_map(|(k, m)| (
            prop::collection::vec(kinds(), k),
            prop::collection::vec(value(), k),
            prop::collection::vec(value(), m * (k + 1)),
            Just(m),
            prop_oneof![Just(512usize), 0usize..12],
        )),
        act in 0..ACTIVATIONS,
    ) {
        let (kinds, xs, ps, m, room) = layer;
        let handles = record(&kinds, &xs, &ps, m, (Path::Handles, act), room);
        let leaves = record(&kinds, &xs, &ps, m, (Path::Leaves, act), room);
        prop_assert_eq!(&leaves, &handles);
        let then = record(&kinds, &xs, &ps, m, (Path::LeavesThen, act), room);
        prop_assert_eq!(then, handles);
    }
}

#[test]
fn leaves_are_checked_once_when_made() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let other = Tape::<f64, 16>::new();
    let a = tape.var(1.0);
    let _b = tape.var(2.0);
    let product = (a * tape.var(3.0) * 2.0).recorded()?;
    let first = a.id().unwrap();
    let leaves = tape.leaves(first, 3)?;
    assert_eq!((leaves.len(), leaves.is_empty()), (3, false));
    assert_eq!(leaves.get(1).map(|v| v.value()), Some(2.0));
    assert_eq!(leaves.get(3).map(|v| v.value()), None);
    assert_eq!(leaves.range(1, 2).map(|l| l.len()), Some(2));
    assert!(leaves.range(2, 2).is_none());
    // The statement after the third leaf is the product's first operand slot.
    assert_eq!(
        tape.leaves(first, 4).unwrap_err(),
        TapeError::NotALeaf { index: 3 }
    );
    let past = product.id().unwrap().index() + 1;
    assert_eq!(
        tape.leaves(first, past + 1).unwrap_err(),
        TapeError::UnknownNode {
            index: past,
            len: past
        }
    );
    // A length whose end overflows is the same error, not a panic.
    let second = NodeId::from_index(1);
    assert_eq!(
        tape.leaves(second, usize::MAX).unwrap_err(),
        TapeError::UnknownNode {
            index: usize::MAX,
            len: past
        }
    );
    other.var(0.0);
    let foreign = other.leaves(first, 1).unwrap_err();
    assert_eq!(foreign, TapeError::ForeignId);
    // An id made from an index alone is any tape's.
    assert_eq!(tape.leaves(NodeId::from_index(1), 2)?.len(), 2);
    Ok(())
}

/// The leading run of leaves is taken on trust (the sweep stops above it on the same ground);
/// a range that reaches past it is read from where the run ends.
#[test]
fn leaves_past_the_tapes_leading_run_are_read() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let a = tape.var(1.0);
    let b = tape.var(2.0);
    // Slots 2-4: the product's two operands and its header; then two leaves more.
    let _product = (a * b * 3.0).recorded()?;
    let (c, d) = (tape.var(4.0), tape.var(5.0));
    let (a, b, c, d) = (
        a.id().unwrap(),
        b.id().unwrap(),
        c.id().unwrap(),
        d.id().unwrap(),
    );
    assert_eq!((a.index(), b.index(), c.index(), d.index()), (0, 1, 5, 6));
    // Within the run, shorter than it, from inside it.
    assert_eq!(tape.leaves(a, 1)?.get(0).map(|v| v.value()), Some(1.0));
    assert_eq!(tape.leaves(b, 1)?.get(0).map(|v| v.value()), Some(2.0));
    // From inside the run past its end: the first statement past it is named.
    assert_eq!(
        tape.leaves(b, 2).unwrap_err(),
        TapeError::NotALeaf { index: 2 }
    );
    // Past the run: leaves after a statement are leaves, and a statement among them is found.
    assert_eq!(tape.leaves(c, 2)?.get(1).map(|v| v.value()), Some(5.0));
    assert_eq!(
        tape.leaves(NodeId::from_index(4), 3).unwrap_err(),
        TapeError::NotALeaf { index: 4 }
    );
    // Slots 7-9: a statement after c and d; a range from c over it names its first slot, two
    // past c.
    let _sum = (tape.get(c)? * tape.get(d)?).recorded()?;
    assert_eq!(
        tape.leaves(c, 3).unwrap_err(),
        TapeError::NotALeaf { index: 7 }
    );
    assert!(!tape.leaves(c, 2)?.is_empty() && tape.leaves(c, 0)?.is_empty());
    Ok(())
}

#[test]
fn leaves_set_at_once_are_set_as_one_by_one_or_not_at_all() -> Result<(), TapeError> {
    let mut tape = Tape::<f64, 16>::new();
    let mut other = Tape::<f64, 16>::new();
    let first = tape.var(1.0).id().unwrap();
    let _ = (tape.var(2.0), tape.var(3.0));
    let _product = (tape.var(4.0) * tape.var(5.0)).recorded()?;
    tape.set_values(first, &[-1.0, -2.0])?;
    let values = |t: &Tape<f64, 16>, first: NodeId| -> Vec<f64> {
        let l = t.leaves(first, 3).unwrap();
        (0..3).map(|i| l.get(i).unwrap().value()).collect()
    };
    assert_eq!(values(&tape, first), [-1.0, -2.0, 3.0]);
    // The same set one by one gives the same tape.
    let mut by_one = Tape::<f64, 16>::new();
    let ids: Vec<_> = [1.0, 2.0, 3.0].map(|v| by_one.var(v).id().unwrap()).into();
    by_one.set_value(ids[0], -1.0)?;
    by_one.set_value(ids[1], -2.0)?;
    assert_eq!(values(&by_one, ids[0]), values(&tape, first));
    // Past the leaves (the sixth slot is the product's first operand): refused, nothing set.
    assert_eq!(
        tape.set_values(first, &[7.0; 6]).unwrap_err(),
        TapeError::NotALeaf { index: 5 }
    );
    assert_eq!(
        tape.set_values(first, &[7.0; 9]).unwrap_err(),
        TapeError::UnknownNode { index: 8, len: 8 }
    );
    assert_eq!(values(&tape, first), [-1.0, -2.0, 3.0]);
    other.var(0.0);
    assert_eq!(
        other.set_values(first, &[7.0]).unwrap_err(),
        TapeError::ForeignId
    );
    Ok(())
}

#[test]
fn a_layer_over_leaves_of_the_wrong_length_or_with_a_foreign_input_is_an_error(
) -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let params = [0.5, -1.0, 0.25, 2.0, 1.0].map(|p| tape.var(p));
    let leaves = tape.leaves(params[0].id().unwrap(), 5)?;
    let x = [Var::constant(4.0), tape.var(3.0)];
    let mut y = [Var::constant(0.0); 2];
    let err = Var::affine_layer_of(leaves, &x, &mut y).unwrap_err();
    assert!(matches!(
        err,
        TapeError::LengthMismatch {
            expected: 6,
            found: 5,
            ..
        }
    ));
    // An input from another tape: both tapes record the error, as with the handles.
    let other = Tape::<f64, 32>::new();
    let leaves = tape.leaves(params[0].id().unwrap(), 3)?;
    Var::affine_layer_of(leaves, &[other.var(1.0), tape.var(2.0)], &mut y[..1])?;
    assert_eq!(tape.check(), Err(TapeError::ForeignVar));
    assert_eq!(other.check(), Err(TapeError::ForeignVar));
    Ok(())
}

/// Where a layer over leaves cannot be one statement (no input, or an input on another tape),
/// each of its rows is written from its own parameters, row `j` from the `j (k + 1)`-th leaf on.
/// (cargo-mutants: that offset as `j / (k + 1)` or `j k` survived every test, whose layers of
/// this kind had one row.)
#[test]
fn a_layer_over_leaves_written_row_by_row_reads_each_row_s_own_parameters() -> Result<(), TapeError>
{
    // No input: each row is its bias, `y_j = b_j`, and d(y_0 + 2 y_1 + 3 y_2)/db_j = j + 1.
    let tape = Tape::<f64, 32>::new();
    let b = [0.5, -1.5, 2.25].map(|v| tape.var(v));
    let leaves = tape.leaves(b[0].id().unwrap(), 3)?;
    let mut y = [Var::constant(0.0); 3];
    Var::affine_layer_of(leaves, &[], &mut y)?;
    assert_eq!(y.map(|v| v.value()), [0.5, -1.5, 2.25]);
    let g = tape.backward(y[0] + y[1] * 2.0 + y[2] * 3.0)?;
    assert_eq!(b.map(|v| g.wrt(v)), [1.0, 2.0, 3.0]);
    // The same through `affine_layer_of_then`, the activation (relu) after each row.
    let mut y = [Var::constant(0.0); 3];
    Var::affine_layer_of_then(leaves, &[], &mut y, Var::relu)?;
    assert_eq!(y.map(|v| v.value()), [0.5, 0.0, 2.25]);
    let g = tape.backward(y[0] + y[1] * 2.0 + y[2] * 3.0)?;
    assert_eq!(b.map(|v| g.wrt(v)), [1.0, 0.0, 3.0]);

    // An input on another tape, three rows of (w_j0, w_j1, b_j) over x = (1, 2): the values
    // w_j0 + 2 w_j1 + b_j worked out by hand; both tapes record the error.
    let tape = Tape::<f64, 64>::new();
    let other = Tape::<f64, 8>::new();
    let params = [1.0, 2.0, 3.0, -1.0, 0.5, 4.0, 0.25, -2.0, 10.0].map(|p| tape.var(p));
    let leaves = tape.leaves(params[0].id().unwrap(), 9)?;
    let x = [other.var(1.0), tape.var(2.0)];
    let mut y = [Var::constant(0.0); 3];
    Var::affine_layer_of(leaves, &x, &mut y)?;
    assert_eq!(y.map(|v| v.value()), [8.0, 4.0, 6.25]);
    assert_eq!(tape.check(), Err(TapeError::ForeignVar));
    assert_eq!(other.check(), Err(TapeError::ForeignVar));
    Ok(())
}

#[test]
fn gradients_read_over_leaves_are_those_read_over_their_handles() -> Result<(), TapeError> {
    let tape = Tape::<f64, 64>::new();
    let other = Tape::<f64, 8>::new();
    let p = [0.5, -2.0, 3.0].map(|v| tape.var(v));
    let leaves = tape.leaves(p[0].id().unwrap(), 3)?;
    let y = (p[0] * p[1]).exp() + p[2].sin() * p[0];
    let g = tape.backward(y)?;
    let (mut by_leaves, mut by_handles) = ([0.0; 3], [0.0; 3]);
    g.write_leaves(leaves, &mut by_leaves)?;
    g.write_to(&p, &mut by_handles)?;
    assert_eq!(by_leaves, by_handles);
    // d/dp0 = p1 e^(p0 p1) + sin p2, d/dp1 = p0 e^(p0 p1), d/dp2 = p0 cos p2 (by hand).
    let e = (-1.0f64).exp();
    let want = [-2.0 * e + 3.0f64.sin(), 0.5 * e, 0.5 * 3.0f64.cos()];
    for (got, want) in by_leaves.iter().zip(want) {
        assert!((got - want).abs() < 1e-15, "{got} vs {want}");
    }
    let mut short = [0.0; 2];
    let err = g.write_leaves(leaves, &mut short).unwrap_err();
    assert!(matches!(
        err,
        TapeError::LengthMismatch {
            expected: 3,
            found: 2,
            ..
        }
    ));
    other.var(1.0);
    let foreign = other.leaves(NodeId::from_index(0), 1)?;
    assert_eq!(
        g.write_leaves(foreign, &mut short[..1]),
        Err(TapeError::ForeignId)
    );
    tape.backward(p[1])?;
    assert_eq!(
        g.write_leaves(leaves, &mut by_leaves),
        Err(TapeError::StaleGradients)
    );
    Ok(())
}

/// Everything [`record`] shows, for `Var::dot` (`leaves`: `Var::dot_of`) of the leaves
/// `values[a..a + n]` and `values[b..b + n]` (the same run, overlapping or apart), scaled and
/// then summed with another leaf, with `cap` free slots.
fn record_dot(
    values: &[f64],
    (a, b, n): (usize, usize, usize),
    leaves: bool,
    cap: usize,
) -> String {
    let tape = Tape::<f64, 256>::new();
    let ps: Vec<_> = values.iter().map(|&p| tape.var(p)).collect();
    let other = tape.var(1.5);
    while tape.capacity() - tape.len() > cap {
        tape.var(0.0);
    }
    let run = |at: usize| tape.leaves(ps[at].id().unwrap(), n).unwrap();
    let d = if leaves {
        Var::dot_of(run(a), run(b)).unwrap()
    } else {
        Var::dot(&ps[a..a + n], &ps[b..b + n]).unwrap()
    };
    let out = d * 0.75 + other;
    let mut shown = String::new();
    tape.write_dot(&mut shown).unwrap();
    shown += &format!("\n{:?} {:?}{}", tape.len(), tape.check(), bits(d.value()));
    if let Ok(g) = tape.backward(out) {
        for v in ps.iter().chain([&other]) {
            shown += &bits(g.wrt(*v));
        }
    }
    if let Some(a) = tape.anomaly(out) {
        let kind = matches!(a.kind, AnomalyKind::Value);
        shown += &format!(" {} {} {} {}", a.index, a.op, kind, bits(a.value));
    }
    shown
}

proptest! {
    #[test]
    fn a_dot_product_over_leaves_records_what_it_records_over_their_handles(
        (values, runs) in (1usize..6, 0usize..6, 0usize..6).prop_flat_map(|(n, a, b)| (
            prop::collection::vec(value(), n + a.max(b)),
            Just((a, b, n)),
        )),
        room in prop_oneof![Just(256usize), 0usize..14],
    ) {
        let handles = record_dot(&values, runs, false, room);
        prop_assert_eq!(record_dot(&values, runs, true, room), handles);
    }
}

#[test]
fn a_dot_product_over_leaves_of_other_lengths_or_tapes_is_refused() -> Result<(), TapeError> {
    let (tape, other) = (Tape::<f64, 16>::new(), Tape::<f64, 16>::new());
    let p = [1.0, 2.0, 3.0].map(|v| tape.var(v));
    let q = [4.0, 5.0].map(|v| other.var(v));
    let (lp, lq) = (
        tape.leaves(p[0].id().unwrap(), 3)?,
        other.leaves(q[0].id().unwrap(), 2)?,
    );
    let short = tape.leaves(p[0].id().unwrap(), 2)?;
    let err = Var::dot_of(lp, short).unwrap_err();
    assert_eq!(
        err,
        TapeError::LengthMismatch {
            what: "dot_of's second operand",
            expected: 3,
            found: 2
        }
    );
    // Two tapes: the result is the value, and the tape refuses it, as `Var::dot` does.
    let d = Var::dot_of(short, lq)?;
    assert_eq!(d.value(), 4.0 + 10.0);
    assert_eq!(tape.backward(d).unwrap_err(), TapeError::ForeignVar);
    let e = Var::dot(&p[..2], &q)?;
    assert_eq!(tape.backward(e).unwrap_err(), TapeError::ForeignVar);
    Ok(())
}
