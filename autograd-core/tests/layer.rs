//! Layer statements: `Var::affine_layer` over parameters that are consecutive leaves writes the
//! inputs once and a header per row (`tape/operands.rs`). Checked against derivatives worked out
//! by hand, against the same rows written one by one as neuron statements (the same values and
//! gradients bit for bit, but where two inputs depend on one statement: the layer's sweep adds
//! an input's products for several rows at once, so that statement receives them in another
//! order), and against the general write of parameters that are not consecutive (up to
//! rounding: it may fold a short row into a handle). Inputs of two pending pairs, one input and
//! a tape without room: `tests/layer_inputs.rs`; values that are not finite:
//! `tests/layer_nonfinite.rs`; statements past a header's count or a row's places:
//! `tests/layer_limit.rs`, `tests/layer_places.rs`.

use autograd_core::{Dual, Number, Op, Scalar, Tape, TapeError, TapeView, Var};
use proptest::prelude::*;

mod common;
use common::{inputs, kinds, record, Input};

/// How a layer is written in [`run`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Write {
    /// `Var::affine_layer` on consecutive parameters: one layer statement.
    Layer,
    /// `Var::affine` row by row on the same parameters: a neuron statement per row.
    Rows,
    /// `Var::affine_layer` on parameters with a leaf between every two: the general write.
    Spread,
    /// `Var::affine` row by row on those parameters, over the inputs as they are.
    SpreadRows,
}

/// The result of [`run`]: the output's value, the gradients with respect to the parameters and
/// to the input leaves, the rows' values, and the slots the layer took.
type Outcome = (f64, Vec<f64>, Vec<f64>, Vec<f64>, usize);

/// An [`Outcome`]'s numbers as bits, in order.
fn bits(o: &Outcome) -> Vec<u64> {
    let all = [o.0]
        .into_iter()
        .chain(o.1.iter().chain(&o.2).chain(&o.3).copied());
    all.map(f64::to_bits).collect()
}

/// Records the inputs' leaves, the parameters, the layer, then `out = sum_j c_j relu(y_j)^2`
/// (`c_j = j + 1`, so every row has its own adjoint, and a row whose value is negative gets 0).
fn run(
    tape: &mut TapeView<f64>,
    kinds: &[Input],
    xs: &[f64],
    ps: &[f64],
    m: usize,
    write: Write,
) -> Outcome {
    tape.clear();
    let tape: &TapeView<f64> = tape;
    let us: Vec<_> = xs.iter().map(|&v| tape.var(v)).collect();
    let u2 = tape.var(0.5);
    let mut params = Vec::new();
    for &p in ps {
        params.push(tape.var(p));
        if matches!(write, Write::Spread | Write::SpreadRows) {
            tape.var(0.0);
        }
    }
    let x = inputs(kinds, &us, u2, xs);
    let before = tape.len();
    let mut y = vec![Var::constant(0.0); m];
    match write {
        Write::SpreadRows => record(true, &[], &params, &x, &mut y),
        _ => record(write == Write::Rows, kinds, &params, &x, &mut y),
    }
    let slots = tape.len() - before;
    let out = y.iter().enumerate().fold(Var::constant(0.0), |s, (j, yj)| {
        s + yj.relu().square() * (j + 1) as f64
    });
    let g = tape.backward(out).unwrap();
    let dp = params.iter().map(|p| g.wrt(*p)).collect();
    let du = us.iter().chain([&u2]).map(|u| g.wrt(*u)).collect();
    let values = y.iter().map(|v| v.value()).collect();
    (out.value(), dp, du, values, slots)
}

#[test]
fn a_layer_writes_its_inputs_once_and_a_header_per_row() -> Result<(), TapeError> {
    // Two rows over x = (3 u0, u1, c) with u0 = 1, u1 = -2, c = 4:
    // y0 = 0.25 + 0.5 * 3 + 2 * -2 + -1 * 4 = -6.25; y1 = 1 + 1 * 3 + 0 * -2 + 0.5 * 4 = 6.
    let tape = Tape::<f64, 32>::new();
    let (u0, u1) = (tape.var(1.0), tape.var(-2.0));
    let params = [0.5, 2.0, -1.0, 0.25, 1.0, 0.0, 0.5, 1.0].map(|p| tape.var(p));
    let x = [u0 * 3.0, u1, Var::constant(4.0)];
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &x, &mut y)?;
    assert_eq!((y[0].value(), y[1].value()), (-6.25, 6.0));
    // Ten leaves, then three input slots, the one naming the first weight, and two rows: 6 (two
    // neuron statements take 5 each).
    assert_eq!(tape.len(), 10 + 6);
    assert_eq!(y.map(|v| v.id().unwrap().index()), [14, 15]);
    for (j, yj) in y.iter().enumerate() {
        let node = tape.node(yj.id().unwrap())?;
        assert_eq!((node.op, node.operands), (Op::Dot, 6), "row {j}");
    }
    // Each input's pair (index, weight times its partial), then its weight's (index, input), and
    // the bias's: what a neuron statement of the row holds.
    let pairs = |v: Var<'_, f64>| -> Result<Vec<(usize, f64)>, TapeError> {
        let mut p = Vec::new();
        tape.for_each_operand(v.id().unwrap(), |i, d| p.push((i, d)))?;
        Ok(p)
    };
    assert_eq!(
        pairs(y[0])?,
        [(0, 1.5), (2, 3.0), (1, 2.0), (3, -2.0), (4, 4.0), (5, 1.0)]
    );
    assert_eq!(
        pairs(y[1])?,
        [(0, 3.0), (6, 3.0), (1, 0.0), (7, -2.0), (8, 4.0), (9, 1.0)]
    );
    // d(y0 y1)/dp: dy0/dw0i = x_i, times y1 = 6; dy1/dw1i = x_i, times y0 = -6.25.
    let g = tape.backward(y[0] * y[1])?;
    let dp: Vec<_> = params.iter().map(|p| g.wrt(*p)).collect();
    assert_eq!(dp, [18.0, -12.0, 24.0, 6.0, -18.75, 12.5, -25.0, -6.25]);
    // d/du0 = 3 (w00 y1 + w10 y0) = 3 (3 - 6.25); d/du1 = w01 y1 + w11 y0 = 12.
    assert_eq!((g.wrt(u0), g.wrt(u1)), (3.0 * (3.0 - 6.25), 12.0));
    Ok(())
}

#[test]
fn the_layer_is_the_rows_affine_on_plain_numbers_and_dual_numbers() {
    let params = [0.5, 2.0, -1.0, 0.25, 1.0, 0.0, 0.5, 1.0];
    let x = [3.0, -2.0, 4.0];
    let mut y = [0.0; 2];
    f64::affine_layer(&params, &x, &mut y);
    assert_eq!(y, [-6.25, 6.0]);
    // Rows past the end of the parameters are left as they were.
    let mut y = [7.0; 3];
    f64::affine_layer(&params, &x, &mut y);
    assert_eq!(y, [-6.25, 6.0, 7.0]);
    let d = params.map(Dual::constant);
    let mut dy = [Dual::constant(0.0); 2];
    let dx = [
        Dual::variable(3.0),
        Dual::constant(-2.0),
        Dual::constant(4.0),
    ];
    Dual::affine_layer(&d, &dx, &mut dy);
    assert_eq!(dy.map(|v| (v.re, v.eps)), [(-6.25, 0.5), (6.0, 1.0)]);
}

#[test]
fn a_second_sweep_and_a_sweep_from_a_lower_row_give_the_rows_gradients() -> Result<(), TapeError> {
    let tape = Tape::<f64, 64>::new();
    let u = tape.var(2.0);
    let params = [0.5, -3.0, 1.0, 2.0, 0.25, -1.0, 1.5, 1.0, 0.0].map(|p| tape.var(p));
    let x = [u * 2.0, u.sin()];
    let mut y = [Var::constant(0.0); 3];
    Var::affine_layer(&params, &x, &mut y)?;
    let grads = |out: Var<'_, f64>| -> Result<Vec<f64>, TapeError> {
        let g = tape.backward(out)?;
        Ok(params.iter().chain([&u]).map(|v| g.wrt(*v)).collect())
    };
    let all = y[0] * y[1] * y[2];
    let first = grads(all)?;
    assert_eq!(first, grads(all)?);
    // From row 1, inside the statement: rows 2 and 0 get nothing, whatever the last sweep left.
    let from_row = grads(y[1])?;
    let (x0, x1) = (4.0, 2f64.sin());
    assert_eq!(from_row[..3], [0.0; 3]);
    assert_eq!(from_row[3..6], [x0, x1, 1.0]);
    assert_eq!(from_row[6..9], [0.0; 3]);
    assert_eq!(from_row[9], 4.0 + 0.25 * 2f64.cos());
    // And row 0 alone.
    let row0 = grads(y[0])?;
    assert_eq!(row0[..3], [x0, x1, 1.0]);
    assert_eq!(row0[3..9], [0.0; 6]);
    Ok(())
}

#[test]
fn a_sweep_above_a_mark_inside_the_weights_drops_those_below() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let w00 = tape.var(2.0);
    let mark = tape.mark();
    let rest = [3.0, 1.0, -1.0, 4.0, 0.5].map(|p| tape.var(p));
    let u = tape.var(5.0);
    let params = [w00, rest[0], rest[1], rest[2], rest[3], rest[4]];
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &[u * 1.0, u * 2.0], &mut y)?;
    assert_eq!(tape.len(), 7 + 5, "a layer statement");
    let g = tape.backward_above(y[0] + y[1], mark)?;
    // x = (5, 10): row 0 loses only w00, below the mark; row 1's weights and bias all count.
    assert_eq!(
        (g.wrt(w00), g.wrt(rest[0]), g.wrt(rest[1])),
        (0.0, 10.0, 1.0)
    );
    assert_eq!(
        (g.wrt(rest[2]), g.wrt(rest[3]), g.wrt(rest[4])),
        (5.0, 10.0, 1.0)
    );
    assert_eq!(g.wrt(u), 2.0 + 6.0 - 1.0 + 8.0);
    Ok(())
}

#[test]
fn a_sweep_above_a_mark_drops_an_input_below_it() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let u = tape.var(5.0);
    let mark = tape.mark();
    let v = tape.var(3.0);
    let params = [2.0, -1.0, 0.5, 4.0, 3.0, -2.0].map(|p| tape.var(p));
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &[u, v], &mut y)?;
    assert_eq!(tape.len(), 8 + 5, "a layer statement");
    // y0 = 2u - v + 1/2, y1 = 4u + 3v - 2: d/du = 6 and d/dv = 2 over the whole tape.
    let all = tape.backward(y[0] + y[1])?;
    assert_eq!((all.wrt(u), all.wrt(v)), (6.0, 2.0));
    // Above the mark, u (below it) gets nothing; v and every parameter are above it.
    let g = tape.backward_above(y[0] + y[1], mark)?;
    assert_eq!((g.wrt(u), g.wrt(v)), (0.0, 2.0));
    let dw: Vec<f64> = params.iter().map(|&p| g.wrt(p)).collect();
    assert_eq!(dw, [5.0, 3.0, 1.0, 5.0, 3.0, 1.0]);
    Ok(())
}

#[test]
fn the_graph_draws_each_row_with_its_edges() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let params = [0.5, 2.0, 0.0, -1.0, 1.0, 3.0].map(|p| tape.var(p));
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &[Var::constant(7.0), Var::constant(3.0)], &mut y)?;
    tape.backward(y[0] + y[1])?;
    let mut dot = String::new();
    tape.write_dot(&mut dot).unwrap();
    // Leaves 0-5, the two input slots and the one naming w00 (6-8), then rows 9 and 10.
    for (edge, row) in [
        ("n0 -> n9 [label=\"1: 7\"]", 9),
        ("n5 -> n10 [label=\"3: 1\"]", 10),
    ] {
        assert!(dot.contains(edge), "row {row}: {dot}");
    }
    assert!(dot.contains("n4 -> n10 [label=\"2: 3\"]"), "{dot}");
    assert_eq!(dot.matches(" -> ").count(), 6, "{dot}");
    Ok(())
}

#[test]
fn wrong_lengths_and_a_foreign_input_are_errors() {
    let (a, b) = (Tape::<f64, 32>::new(), Tape::<f64, 32>::new());
    let params = [1.0, 2.0, 0.0, 1.0, 1.0].map(|p| a.var(p));
    let mut y = [Var::constant(0.0); 2];
    let x = [b.var(1.0) * 2.0, Var::constant(1.0)];
    assert_eq!(
        Var::affine_layer(&params, &x, &mut y),
        Err(TapeError::LengthMismatch {
            what: "affine_layer's parameters",
            expected: 6,
            found: 5
        })
    );
    let params = [1.0, 2.0, 0.0, 1.0, 1.0, 0.0].map(|p| a.var(p));
    Var::affine_layer(&params, &x, &mut y).unwrap();
    assert_eq!(a.backward(y[0]).unwrap_err(), TapeError::ForeignVar);
    // An input of two pending pairs on the other tape, beside one on this tape: nothing is
    // written for it on this tape (its pairs name the other's statements), and the rows
    // report the mix of tapes as before.
    let (a, b) = (Tape::<f64, 32>::new(), Tape::<f64, 32>::new());
    let params = [1.0, 2.0, 0.0, 1.0, 1.0, 0.0].map(|p| a.var(p));
    let (u, v) = (a.var(1.0), a.var(2.0));
    let x = [b.var(1.0) * b.var(3.0), u * v];
    let before = a.len();
    Var::affine_layer(&params, &x, &mut y).unwrap();
    assert_eq!((y[0].value(), y[1].value()), (7.0, 5.0));
    assert_eq!(a.len(), before);
    assert_eq!(a.backward(y[0]).unwrap_err(), TapeError::ForeignVar);
}

#[test]
fn parameters_from_two_tapes_are_an_error_even_at_the_expected_indices() {
    // Row 1's parameters are tape b's, at the very indices tape a's would have: the layer must
    // not take them for a's (its sweep would read a's slots), and the general write reports the
    // foreign handle.
    let (a, b) = (Tape::<f64, 32>::new(), Tape::<f64, 32>::new());
    let pa = [1.0, 2.0, 0.5, 3.0, 4.0, 0.25].map(|p| a.var(p));
    let pb = [1.0, 2.0, 0.5, -3.0, -4.0, -0.25].map(|p| b.var(p));
    let params = [pa[0], pa[1], pa[2], pb[3], pb[4], pb[5]];
    assert_eq!(pb[3].id().unwrap().index(), pa[3].id().unwrap().index());
    let x = [Var::constant(1.0), Var::constant(1.0)];
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &x, &mut y).unwrap();
    assert_eq!(y[1].value(), -7.25);
    assert_eq!(a.backward(y[0] + y[1]).unwrap_err(), TapeError::ForeignVar);
}

#[test]
fn a_parameter_out_of_place_in_any_row_is_not_taken_for_the_layers() -> Result<(), TapeError> {
    // Five rows over three inputs (the writer reads four rows at a time, then one). Each
    // parameter in turn is replaced by a leaf of the same value that is not where the layer
    // expects it: on the same tape after the others, or on another tape at the very index. The
    // layer must see it (its sweep would credit the implied parameter) and fall back: the
    // gradient reaches the leaf given, or the foreign handle is reported.
    let (k, m) = (3, 5);
    let ps: Vec<f64> = (0..m * (k + 1)).map(|i| 0.25 * i as f64 - 2.0).collect();
    let xs = [1.5, -0.5, 2.0];
    for p in 0..ps.len() {
        let (tape, other) = (Tape::<f64, 256>::new(), Tape::<f64, 256>::new());
        let x: Vec<_> = xs.iter().map(|&v| tape.var(v)).collect();
        let params: Vec<_> = ps.iter().map(|&v| tape.var(v)).collect();
        let stray = tape.var(ps[p]);
        // (`other` holds as many leaves as `tape` before the parameter's index.)
        let twin = (0..=params[p].id().unwrap().index())
            .map(|_| other.var(ps[p]))
            .last()
            .unwrap();
        assert_eq!(twin.id().unwrap().index(), params[p].id().unwrap().index());
        for (moved, foreign) in [(stray, false), (twin, true)] {
            let mut given = params.clone();
            given[p] = moved;
            let mut y = vec![Var::constant(0.0); m];
            Var::affine_layer(&given, &x, &mut y)?;
            let out = y
                .iter()
                .enumerate()
                .fold(Var::constant(0.0), |s, (j, yj)| s + *yj * (j + 1) as f64);
            if foreign {
                assert_eq!(
                    tape.backward(out).unwrap_err(),
                    TapeError::ForeignVar,
                    "{p}"
                );
                continue;
            }
            let g = tape.backward(out)?;
            // d(out)/dw_ji = (j + 1) x_i, d(out)/db_j = j + 1.
            let (j, i) = (p / (k + 1), p % (k + 1));
            let want = (j + 1) as f64 * if i < k { xs[i] } else { 1.0 };
            assert_eq!(
                (g.wrt(stray), g.wrt(params[p])),
                (want, 0.0),
                "parameter {p}"
            );
        }
    }
    Ok(())
}

#[test]
fn a_huge_finite_input_still_takes_the_layer_statement() -> Result<(), TapeError> {
    // Finite values are tested by summing v - v (0 for each): 1e308 is finite, and so is the
    // row, so the layer is one statement (2 input slots, 1 naming w00, 2 rows).
    let tape = Tape::<f64, 32>::new();
    let params = [1e-10, 1.0, 0.0, -1e-10, 2.0, 1.0].map(|p| tape.var(p));
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &[Var::constant(1e308), Var::constant(3.0)], &mut y)?;
    assert_eq!(tape.len(), 6 + 5);
    // (In the layer's order: the bias, then each weight times its input.)
    let (r0, r1) = (0.0 + 1e-10 * 1e308 + 3.0, 1.0 + -1e-10 * 1e308 + 2.0 * 3.0);
    assert_eq!((y[0].value(), y[1].value()), (r0, r1));
    let g = tape.backward(y[0] - y[1])?;
    assert_eq!((g.wrt(params[0]), g.wrt(params[3])), (1e308, -1e308));
    Ok(())
}

#[test]
fn a_layer_of_dual_numbers_matches_the_rows() -> Result<(), TapeError> {
    // Forward over reverse: second derivatives of y0 y1 through both writes.
    let run = |layer: bool| -> Result<[f64; 4], TapeError> {
        let tape = Tape::<Dual<f64>, 64>::new();
        let u = tape.var(Dual::new(0.7, 1.0));
        let p = [0.5, -1.5, 0.25, 2.0, 1.0, -0.5].map(|v| tape.var(Dual::constant(v)));
        let x = [u.sin(), u * u];
        let mut y = [Var::constant(Dual::ZERO); 2];
        if layer {
            Var::affine_layer(&p, &x, &mut y)?;
        } else {
            for (yj, row) in y.iter_mut().zip(p.chunks_exact(3)) {
                *yj = Var::affine(&row[..2], &x, row[2])?;
            }
        }
        let g = tape.backward(y[0] * y[1])?;
        let (du, dw) = (g.wrt(u), g.wrt(p[0]));
        Ok([du.re, du.eps, dw.re, dw.eps])
    };
    let (layer, rows) = (run(true)?, run(false)?);
    // Equal to rounding: both inputs depend on u, and the layer's sweep adds an input's
    // products for its rows together (input by input), where the rows one by one add them row
    // by row, so u receives the same four products in another order.
    for (l, r) in layer.iter().zip(rows) {
        assert!((l - r).abs() <= 1e-15 * r.abs(), "{layer:?} vs {rows:?}");
    }
    let x = 0.7f64;
    let (y0, y1) = (
        0.25 + 0.5 * x.sin() - 1.5 * x * x,
        -0.5 + 2.0 * x.sin() + x * x,
    );
    let (d0, d1) = (0.5 * x.cos() - 3.0 * x, 2.0 * x.cos() + 2.0 * x);
    assert!((layer[0] - (d0 * y1 + y0 * d1)).abs() < 1e-14);
    let (dd0, dd1) = (-0.5 * x.sin() - 3.0, -2.0 * x.sin() + 2.0);
    let second = dd0 * y1 + 2.0 * d0 * d1 + y0 * dd1;
    assert!(
        (layer[1] - second).abs() < 1e-13,
        "{} vs {second}",
        layer[1]
    );
    Ok(())
}

#[test]
fn scalar_types_other_than_f64_take_the_same_write() -> Result<(), TapeError> {
    fn slots<S: Scalar>() -> Result<usize, TapeError> {
        let tape = Tape::<S, 32>::new();
        let p = [0.5, 0.25, 0.0, 1.0, -1.0, 0.5].map(|v| tape.var(S::from_f64(v)));
        let u = tape.var(S::ONE);
        let mut y = [Var::constant(S::ZERO); 2];
        Var::affine_layer(&p, &[u * S::from_f64(2.0), u], &mut y)?;
        Ok(tape.len() - 7)
    }
    assert_eq!(slots::<f32>()?, 5);
    assert_eq!(slots::<autograd_core::Q16>()?, 5);
    assert_eq!(slots::<Dual<f64>>()?, 5);
    Ok(())
}

proptest! {
    #[test]
    fn a_layer_gives_its_rows_values_and_gradients(
        layer in (1usize..8, 1usize..11).prop_flat_map(|(k, m)| (
            prop::collection::vec(kinds(), k),
            prop::collection::vec(-3.0f64..3.0, k),
            prop::collection::vec(-3.0f64..3.0, m * (k + 1)),
            Just(m),
        )),
    ) {
        let (kinds, xs, ps, m) = layer;
        let k = xs.len();
        let mut tape = Tape::<f64, 512>::new();
        let packed = run(&mut tape, &kinds, &xs, &ps, m, Write::Layer);
        let rows = run(&mut tape, &kinds, &xs, &ps, m, Write::Rows);
        prop_assert_eq!(packed.0.to_bits(), rows.0.to_bits());
        prop_assert_eq!(&packed.3, &rows.3);
        // The general write folds a row of at most two operands into a handle, which then
        // multiplies the partials in another order: the same gradients up to rounding. Over
        // one input a row written on its own is such a handle; over two or more it is a layer
        // statement of one row, with the partials the layer's rows form, bit for bit.
        let close = |a: &[f64], b: &[f64]| {
            a.iter().zip(b).all(|(a, b)| (a - b).abs() <= 1e-14 * (1.0 + b.abs()))
        };
        // A leaf's gradient is a sum over rows and inputs (`u2`'s over every product), which
        // the writes add in other orders: where its terms cancel, rounding is relative to their
        // size, not the sum's. Their size: `|w_ji g_j|` summed (`g_j = 2 c_j relu(y_j)`, row
        // `j`'s adjoint) times the largest partial of an input on a leaf (3: `Scaled`'s; a
        // product's are `u2 = 0.5` and `u`, at most 3).
        let x: Vec<f64> = kinds.iter().zip(&xs).map(|(k, &v)| k.value(v)).collect();
        let g: Vec<f64> = ps
            .chunks_exact(k + 1)
            .enumerate()
            .map(|(j, row)| {
                let y = x.iter().zip(row).fold(row[k], |s, (x, w)| s + w * x);
                2.0 * (j + 1) as f64 * y.max(0.0)
            })
            .collect();
        let terms: f64 = ps
            .chunks_exact(k + 1)
            .zip(&g)
            .map(|(row, g)| row[..k].iter().map(|w| (w * g).abs()).sum::<f64>())
            .sum();
        let near = |a: &[f64], b: &[f64]| {
            a.iter().zip(b).all(|(a, b)| (a - b).abs() <= 1e-14 * (1.0 + 3.0 * terms))
        };
        if k >= 2 {
            prop_assert_eq!(&packed.1, &rows.1);
            prop_assert_eq!(&packed.2, &rows.2);
        } else {
            prop_assert!(close(&packed.1, &rows.1) && near(&packed.2, &rows.2));
        }
        let spread = run(&mut tape, &kinds, &xs, &ps, m, Write::Spread);
        prop_assert_eq!(&packed.3, &spread.3);
        prop_assert!(close(&packed.1, &spread.1));
        prop_assert!(near(&packed.2, &spread.2), "{:?} vs {:?}", packed.2, spread.2);
        // The layer write is taken whenever it applies: two inputs or more, or one under two
        // rows or more; an input of two pending pairs is first a statement of 3 slots under two
        // rows or more, and declines a layer of one row.
        let products = kinds.iter().filter(|k| matches!(k, Input::Product)).count();
        if m >= 2 || (k >= 2 && products == 0) {
            prop_assert_eq!(packed.4, 3 * products + k + 1 + m);
        }
        // Parameters that are not consecutive decline the layer, and statements written for its
        // inputs are forgotten: the rows written one by one, the same slots and bits.
        let spread_rows = run(&mut tape, &kinds, &xs, &ps, m, Write::SpreadRows);
        prop_assert_eq!(spread.4, spread_rows.4);
        prop_assert_eq!(bits(&spread), bits(&spread_rows));
        // By hand: d(out)/dw_ji = g_j x_i = 2 c_j relu(y_j) x_i.
        for (j, g) in g.iter().enumerate() {
            for (i, xi) in x.iter().enumerate() {
                let want = g * xi;
                let got = packed.1[j * (k + 1) + i];
                prop_assert!((got - want).abs() <= 1e-12 * (1.0 + want.abs()), "{} vs {}", got, want);
            }
        }
        // And the input leaves': input i's adjoint a_i = sum_j w_ji g_j times its partial with
        // respect to u_i (1, 3, relu'(u_i) = [u_i > 0], 0.5 for a product u_i u2, 0 for a
        // constant), and u2's the sum over the products of a_i u_i.
        let mut want = vec![0.0; k + 1];
        for (i, (kind, &u)) in kinds.iter().zip(&xs).enumerate() {
            let a: f64 = ps.chunks_exact(k + 1).zip(&g).map(|(row, g)| row[i] * g).sum();
            let (du, du2) = match kind {
                Input::Constant => (0.0, 0.0),
                Input::Leaf => (1.0, 0.0),
                Input::Scaled => (3.0, 0.0),
                Input::Relu => (if u > 0.0 { 1.0 } else { 0.0 }, 0.0),
                Input::Product => (0.5, u),
            };
            want[i] = a * du;
            want[k] += a * du2;
        }
        prop_assert!(near(&packed.2, &want), "{:?} vs {:?} by hand", packed.2, want);
    }
}
