//! Layer statements over values that are not finite: a row whose sum overflows, an infinite or
//! NaN input, a fixed-point row past its range, a weight's overflowing gradient. The layer stays
//! one statement, with the values, gradients and NaN provenance report its rows written one by
//! one would give (bit for bit, by hand and over extreme values by proptest).

use autograd_core::{AnomalyKind, Number, Op, Scalar, Tape, TapeError, Var};
use proptest::prelude::*;

mod common;
use common::{kinds, record, rounding_inputs, Input};

#[test]
fn a_weights_overflowing_gradient_and_an_overflowing_partial_are_named() {
    // Row 1's weight w10 has partial x0 = 1e300; times the adjoint 1e10 it overflows.
    let tape = Tape::<f64, 32>::new();
    let params = [0.0, 1.0, 0.0, 0.0, 1.0, 0.0].map(|p| tape.var(p));
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &[Var::constant(1e300), Var::constant(1.0)], &mut y).unwrap();
    let out = y[1] * 1e10;
    let g = tape.backward(out).unwrap();
    assert_eq!(g.wrt(params[3]), f64::INFINITY);
    let a = tape.anomaly(out).unwrap();
    assert_eq!((a.index, a.op), (10, Op::Dot));
    match a.kind {
        AnomalyKind::Gradient { input, local, .. } => assert_eq!((input, local), (3, 1e300)),
        k => panic!("{k:?}"),
    }
    // An input's partial (1e300) times row 0's weight (1e10) is not stored: the sweep forms it
    // and sends the infinite term, which NaN provenance names as a neuron statement's would be.
    let tape = Tape::<f64, 32>::new();
    let params = [1e10, 1.0, 0.0, 1.0, 1.0, 0.0].map(|p| tape.var(p));
    let u = tape.var(1e-300);
    let x = [u * 1e300, Var::constant(1.0)];
    Var::affine_layer(&params, &x, &mut y).unwrap();
    assert_eq!(y[0].id().unwrap().index(), 10, "a layer statement");
    let g = tape.backward(y[0]).unwrap();
    assert_eq!(g.wrt(u), f64::INFINITY);
    let a = tape.anomaly(y[0]).unwrap();
    match a.kind {
        AnomalyKind::Gradient { input, local, .. } => {
            assert_eq!((a.index, input, local), (10, 6, f64::INFINITY))
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn the_report_walks_from_a_row_down_to_the_row_below_it() {
    // The overflowing term is in row 0, below row 1: the report's walk down the tape goes from
    // row 1 to row 0 (`TapeView::next_below`), not past the layer. Row 0 = 1e-300 x0 = 1, its
    // weight w00 has partial x0 = 1e300; times row 0's adjoint 1e10 it overflows. Row 1 = 0 has
    // adjoint 1: its terms are finite. Leaves 0 to 5, input slots 6 and 7, the slot naming w0 at
    // 8, rows 9 and 10.
    let tape = Tape::<f64, 32>::new();
    let params = [1e-300, 0.0, 0.0, 0.0, 0.0, 0.0].map(|p| tape.var(p));
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &[Var::constant(1e300), Var::constant(1.0)], &mut y).unwrap();
    assert_eq!(y.map(|v| v.id().unwrap().index()), [9, 10]);
    let out = y[1] + y[0] * 1e10;
    let g = tape.backward(out).unwrap();
    assert_eq!((g.wrt(params[0]), g.wrt(params[3])), (f64::INFINITY, 1e300));
    let a = tape.anomaly(out).unwrap();
    assert_eq!((a.index, a.op), (9, Op::Dot));
    match a.kind {
        AnomalyKind::Gradient {
            input,
            adjoint,
            local,
            ..
        } => assert_eq!((input, adjoint, local), (0, 1e10, 1e300)),
        k => panic!("{k:?}"),
    }
}

#[test]
fn a_row_whose_value_is_not_finite_stays_in_the_layer_statement() -> Result<(), TapeError> {
    // Row 0 is 1e300 * 1e10 + 1e300 * 1 + 0 = inf. The layer is still one statement: 6 leaves,
    // 2 input slots (constants: no operand), the slot naming w0, rows 0 and 1 at slots 9 and 10.
    // NaN provenance names row 0 as the `dot` where the infinity started, its listed operands
    // (the row's weights and bias) finite, and the gradient is what the rows' own statements
    // give, by hand: d y0 / d w00 = x0 = 1e10, d y0 / d w01 = 1, d y0 / d b0 = 1.
    let tape = Tape::<f64, 32>::new();
    let params = [1e300, 1e300, 0.0, 1.0, 1.0, 0.0].map(|p| tape.var(p));
    let mut y = [Var::constant(0.0); 2];
    let x = [Var::constant(1e10), Var::constant(1.0)];
    Var::affine_layer(&params, &x, &mut y)?;
    assert_eq!((y[0].value(), y[1].value()), (f64::INFINITY, 1e10 + 1.0));
    assert_eq!(tape.len(), 6 + 5);
    assert_eq!(y[0].id().map(|id| id.index()), Some(9));
    let a = tape.anomaly(y[0] + y[1]).unwrap();
    assert_eq!((a.kind, a.op, a.index), (AnomalyKind::Value, Op::Dot, 9));
    assert_eq!(a.value, f64::INFINITY);
    assert!(a.inputs().iter().all(|i| i.value.is_finite()));
    let g = tape.backward(y[0])?;
    assert_eq!(params.map(|p| g.wrt(p)), [1e10, 1.0, 1.0, 0.0, 0.0, 0.0]);
    Ok(())
}

#[test]
fn an_input_that_is_not_finite_stays_in_the_layer_statement() -> Result<(), TapeError> {
    // An infinite or NaN input makes every row's sum infinite or NaN (`inf * 0` is NaN). The
    // layer is still the 7 leaves and one statement of 5 slots (2 inputs, the slot naming `w0`,
    // 2 rows), with the values and gradients of the rows written one by one (each a statement
    // of one row), bit for bit; by hand, row 1 = 2 x0 - u + 0.25 has d/dw11 = u = 3, d/du = -1,
    // d/db1 = 1 and d/dw10 = x0, the bad value itself.
    for bad in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        // Row 0 multiplies the bad input by 0, row 1 by 2.
        let ps = [0.0, 1.0, 0.5, 2.0, -1.0, 0.25];
        let written = |rows: bool| -> Result<_, TapeError> {
            let tape = Tape::<f64, 64>::new();
            let params = ps.map(|p| tape.var(p));
            let u = tape.var(3.0);
            let x = [Var::constant(bad), u];
            let mut y = [Var::constant(0.0); 2];
            record(rows, &[Input::Constant, Input::Leaf], &params, &x, &mut y);
            let g = tape.backward(y[1])?;
            let grads = [params[3], params[4], params[5], u].map(|v| g.wrt(v).to_bits());
            let a = tape.anomaly(y[1]).unwrap();
            assert_eq!((a.kind, a.op), (AnomalyKind::Value, Op::Dot), "input {bad}");
            assert_eq!(Some(a.index), y[1].id().map(|id| id.index()), "input {bad}");
            Ok((tape.len(), y.map(|v| v.value().to_bits()), grads))
        };
        let (layer, rows) = (written(false)?, written(true)?);
        assert_eq!(layer.0, 7 + 5, "input {bad}");
        assert_eq!(rows.0, 7 + 2 * 4, "input {bad}");
        assert_eq!((layer.1, layer.2), (rows.1, rows.2), "input {bad}");
        assert!(layer.1.iter().all(|&b| !f64::from_bits(b).is_finite()));
        let [dw10, dw11, db1, du] = layer.2.map(f64::from_bits);
        assert_eq!((dw11, db1, du), (3.0, 1.0, -1.0), "input {bad}");
        assert!(
            dw10 == bad || dw10.is_nan() && bad.is_nan(),
            "input {bad}: {dw10}"
        );
    }
    // Fixed point: a poisoned input poisons every row, in one statement.
    use autograd_core::Q16;
    let tape = Tape::<Q16, 32>::new();
    let params = [0.0, 1.0, 0.5, 2.0, -1.0, 0.25].map(|p| tape.var(Q16::from_f64(p)));
    let x = [Var::constant(Q16::POISON), tape.var(Q16::ONE)];
    let mut y = [Var::constant(Q16::ZERO); 2];
    Var::affine_layer(&params, &x, &mut y)?;
    assert!(y.iter().all(|v| !v.value().is_finite()));
    assert_eq!(tape.len(), 7 + 5);
    Ok(())
}

#[test]
fn a_row_that_overflows_fixed_point_stays_in_the_layer_statement() -> Result<(), TapeError> {
    // Row 0 is 200 * 200 + 0 = 40,000, past Q16.16's largest value (32,767.99...): poison. As in
    // `f64` above: one statement of 5 slots after the 6 leaves, row 0 at slot 9, named by NaN
    // provenance as the `dot` where the poison started.
    use autograd_core::Q16;
    let tape = Tape::<Q16, 32>::new();
    let params = [200.0, 1.0, 0.0, 1.0, 1.0, 0.0].map(|p| tape.var(Q16::from_f64(p)));
    let mut y = [Var::constant(Q16::ZERO); 2];
    let x = [Var::constant(Q16::from_f64(200.0)), Var::constant(Q16::ONE)];
    Var::affine_layer(&params, &x, &mut y)?;
    assert!(!y[0].value().is_finite());
    assert_eq!(y[1].value(), Q16::from_f64(201.0));
    assert_eq!(tape.len(), 6 + 5);
    let a = tape.anomaly(y[0] + y[1]).unwrap();
    assert_eq!((a.kind, a.op, a.index), (AnomalyKind::Value, Op::Dot, 9));
    // Row 1's gradient is untouched by row 0's poison: d y1 / d (w10, w11, b1) = (200, 1, 1).
    let g = tape.backward(y[1])?;
    assert_eq!(
        [params[3], params[4], params[5]].map(|p| g.wrt(p)),
        [200.0, 1.0, 1.0].map(Q16::from_f64)
    );
    Ok(())
}

/// Values that break arithmetic: zeros of both signs, a subnormal, overflowing magnitudes,
/// infinities, NaN.
fn extreme() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(1e-310),
        Just(1.0),
        Just(-2.5),
        Just(1e10),
        Just(1e300),
        Just(-1e300),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::NAN),
    ]
}

/// The output of a layer over inputs made from leaves and weights `ps` (written as a layer or
/// row by row), its gradients and NaN provenance's report on it (operation, kind, value).
fn extreme_run(kinds: &[Input], xs: &[f64], ps: &[f64], m: usize, layer: bool) -> Vec<u64> {
    let tape = Tape::<f64, 512>::new();
    let us: Vec<_> = xs.iter().map(|&v| tape.var(v)).collect();
    let u2 = tape.var(1e300);
    let params: Vec<_> = ps.iter().map(|&p| tape.var(p)).collect();
    let x = rounding_inputs(kinds, &us, u2, xs);
    let mut y = vec![Var::constant(0.0); m];
    record(!layer, kinds, &params, &x, &mut y);
    let out = y.iter().enumerate().fold(Var::constant(0.0), |s, (j, yj)| {
        s + *yj * (0.3 * j as f64 - 0.7)
    });
    let mut bits: Vec<u64> = y.iter().map(|v| v.value().to_bits()).collect();
    match tape.backward(out) {
        Ok(g) => {
            let wrt = params.iter().chain(&us).chain([&u2]);
            bits.extend(wrt.map(|v| g.wrt(*v).to_bits()));
        }
        Err(e) => assert_eq!(e, TapeError::NotRecorded, "{e}"),
    }
    if let Some(a) = tape.anomaly(out) {
        let kind = match a.kind {
            AnomalyKind::Value => 0,
            AnomalyKind::Gradient { .. } => 1,
            _ => 2,
        };
        bits.extend([a.op as u64, kind, a.value.to_bits()]);
    }
    bits
}

proptest! {
    #[test]
    fn a_layer_of_extreme_values_matches_its_rows_bit_for_bit(
        layer in (2usize..5, 1usize..6).prop_flat_map(|(k, m)| (
            prop::collection::vec(kinds(), k),
            prop::collection::vec(extreme(), k),
            prop::collection::vec(extreme(), m * (k + 1)),
            Just(m),
        )),
    ) {
        // Values, gradients (NaN payloads included) and the provenance report's operation, kind
        // and value: a layer that falls back writes its rows exactly as `affine` does, and one
        // that does not forms the partials the rows would have stored.
        let (kinds, xs, ps, m) = layer;
        let packed = extreme_run(&kinds, &xs, &ps, m, true);
        let rows = extreme_run(&kinds, &xs, &ps, m, false);
        prop_assert_eq!(packed, rows);
    }
}
