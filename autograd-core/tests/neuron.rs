//! Neuron statements: `w · x + b` whose weights and bias are consecutive leaves is written with
//! its weights implied, a layer statement of one row (one slot per input, `tape/operands.rs`;
//! `tests/layer.rs` checks layers of several rows). Checked against derivatives
//! worked out by hand and against the general n-ary write of the same neuron (parameters that
//! are not consecutive), which must give the same values and gradients bit for bit.

use autograd_core::{AnomalyKind, Dual, Op, Scalar, Tape, TapeError, TapeView, Var};
use proptest::prelude::*;

mod common;
use common::{inputs, kinds, Input};

/// Records the inputs' leaves, then the parameters (consecutive if `consecutive`, else with a
/// leaf between every two), then `relu`-free neuron `w · x + b` squared; returns the output's
/// value and the gradients with respect to the weights, the bias and the input leaves, and the
/// slots the neuron took.
fn run(
    tape: &mut TapeView<f64>,
    kinds: &[Input],
    xs: &[f64],
    ws: &[f64],
    b: f64,
    consecutive: bool,
) -> (f64, Vec<f64>, Vec<f64>, usize) {
    tape.clear();
    let tape: &TapeView<f64> = tape;
    let us: Vec<_> = xs.iter().map(|&v| tape.var(v)).collect();
    let u2 = tape.var(0.5);
    let mut params = Vec::new();
    for &w in ws.iter().chain([&b]) {
        params.push(tape.var(w));
        if !consecutive {
            tape.var(0.0);
        }
    }
    let x = inputs(kinds, &us, u2, xs);
    let before = tape.len();
    let y = Var::affine(&params[..ws.len()], &x, params[ws.len()]).unwrap();
    let slots = tape.len() - before;
    let out = y * y;
    let g = tape.backward(out).unwrap();
    let dp = params.iter().map(|p| g.wrt(*p)).collect();
    let du = us.iter().chain([&u2]).map(|u| g.wrt(*u)).collect();
    (out.value(), dp, du, slots)
}

#[test]
fn a_neuron_on_consecutive_parameters_takes_one_slot_per_input() -> Result<(), TapeError> {
    // y = b + w0 (3 u0) + w1 u1 + w2 c, with u0 = 1, u1 = -2, c = 4; w = (0.5, 2, -1), b = 0.25:
    // y = 0.25 + 1.5 - 4 - 4 = -6.25.
    let tape = Tape::<f64, 32>::new();
    let (u0, u1) = (tape.var(1.0), tape.var(-2.0));
    let w = [tape.var(0.5), tape.var(2.0), tape.var(-1.0)];
    let b = tape.var(0.25);
    let x = [u0 * 3.0, u1, Var::constant(4.0)];
    let y = Var::affine(&w, &x, b)?;
    assert_eq!(y.value(), -6.25);
    // Six leaves, then one slot per input, one naming w0 and the header: 5 (the general write
    // takes 2 + 2 + 1 operands for the weights, the recorded inputs and the bias, and a header).
    assert_eq!(tape.len(), 6 + 5);
    let node = tape.node(y.id().unwrap())?;
    assert_eq!((node.op, node.operands), (Op::Dot, 6));
    let mut pairs = Vec::new();
    tape.for_each_operand(y.id().unwrap(), |i, d| pairs.push((i, d)))?;
    // Each input's pair (index, weight times its partial), then its weight's (index, input).
    assert_eq!(
        pairs,
        [
            (0, 1.5),
            (2, 3.0),
            (1, 2.0),
            (3, -2.0),
            (4, 4.0), // the constant input has no pair of its own
            (5, 1.0),
        ]
    );
    let g = tape.backward(y)?;
    // dy/dw_i = x_i, dy/db = 1, dy/du0 = 3 w0, dy/du1 = w1.
    let dw: Vec<_> = w.iter().map(|v| g.wrt(*v)).collect();
    assert_eq!(dw, [3.0, -2.0, 4.0]);
    assert_eq!((g.wrt(b), g.wrt(u0), g.wrt(u1)), (1.0, 1.5, 2.0));
    Ok(())
}

#[test]
fn a_second_sweep_over_a_neuron_gives_the_same_gradients() -> Result<(), TapeError> {
    // An input slot keeps its weight's partial where a header keeps its adjoint: clearing the
    // adjoints before a sweep must leave it.
    let tape = Tape::<f64, 32>::new();
    let u = tape.var(2.0);
    let w = [tape.var(0.5), tape.var(-3.0)];
    let b = tape.var(1.0);
    let y = Var::affine(&w, &[u * 2.0, u.sin()], b)?;
    let first: Vec<_> = {
        let g = tape.backward(y * y)?;
        [w[0], w[1], b, u].iter().map(|v| g.wrt(*v)).collect()
    };
    let second: Vec<_> = {
        let g = tape.backward(y * y)?;
        [w[0], w[1], b, u].iter().map(|v| g.wrt(*v)).collect()
    };
    assert_eq!(first, second);
    let yv = 1.0 + 0.5 * 4.0 - 3.0 * 2f64.sin();
    assert_eq!(first[0], 2.0 * yv * 4.0);
    assert_eq!(first[1], 2.0 * yv * 2f64.sin());
    Ok(())
}

#[test]
fn a_sweep_above_a_mark_inside_the_weights_drops_those_below() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let w0 = tape.var(2.0);
    let mark = tape.mark();
    let w1 = tape.var(3.0);
    let b = tape.var(1.0);
    let u = tape.var(5.0);
    let y = Var::affine(&[w0, w1], &[u * 1.0, u * 2.0], b)?;
    assert!(tape.len() == 4 + 4, "a neuron statement");
    let g = tape.backward_above(y, mark)?;
    assert_eq!((g.wrt(w0), g.wrt(w1), g.wrt(b)), (0.0, 10.0, 1.0));
    assert_eq!(g.wrt(u), 2.0 + 6.0);
    Ok(())
}

#[test]
fn the_graph_labels_a_neurons_weight_edges_with_the_inputs() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let w = [tape.var(0.5), tape.var(2.0)];
    let b = tape.var(0.0);
    let y = Var::affine(&w, &[Var::constant(7.0), Var::constant(3.0)], b)?;
    tape.backward(y)?;
    let mut dot = String::new();
    tape.write_dot(&mut dot).unwrap();
    // Leaves 0-2, then the two inputs' slots, the one naming w0 and the header (6).
    assert!(dot.contains("n0 -> n6 [label=\"1: 7\"]"), "{dot}");
    assert!(dot.contains("n1 -> n6 [label=\"2: 3\"]"), "{dot}");
    assert!(dot.contains("n2 -> n6 [label=\"3: 1\"]"), "{dot}");
    assert_eq!(dot.matches(" -> ").count(), 3, "{dot}");
    Ok(())
}

#[test]
fn an_input_that_overflows_a_weights_gradient_is_named() {
    // The weight's partial is the input, 1e300; times the adjoint 1e10 it overflows.
    let tape = Tape::<f64, 16>::new();
    let w = [tape.var(0.0), tape.var(1.0)];
    let b = tape.var(0.0);
    let y = Var::affine(&w, &[Var::constant(1e300), Var::constant(1.0)], b).unwrap();
    let out = y * 1e10;
    let g = tape.backward(out).unwrap();
    assert_eq!(g.wrt(w[0]), f64::INFINITY);
    let a = tape.anomaly(out).unwrap();
    assert_eq!((a.index, a.op), (6, Op::Dot));
    match a.kind {
        AnomalyKind::Gradient { input, local, .. } => assert_eq!((input, local), (0, 1e300)),
        k => panic!("{k:?}"),
    }
    assert_eq!(a.inputs()[0].partial, 1e300);
}

#[test]
fn a_neuron_over_two_tapes_is_an_error() {
    let (a, b) = (Tape::<f64, 16>::new(), Tape::<f64, 16>::new());
    let w = [a.var(1.0), a.var(2.0)];
    let bias = a.var(0.0);
    let y = Var::affine(&w, &[b.var(1.0) * 2.0, Var::constant(1.0)], bias).unwrap();
    assert_eq!(a.backward(y).unwrap_err(), TapeError::ForeignVar);
}

#[test]
fn a_neuron_of_dual_numbers_matches_the_general_write() -> Result<(), TapeError> {
    // Forward over reverse: second derivatives of (w · x + b)^2 through both writes.
    let run = |spread: bool| -> Result<[f64; 4], TapeError> {
        let tape = Tape::<Dual<f64>, 32>::new();
        let u = tape.var(Dual::new(0.7, 1.0));
        let mut p = Vec::new();
        for v in [0.5, -1.5, 0.25] {
            p.push(tape.var(Dual::constant(v)));
            if spread {
                tape.var(Dual::constant(0.0));
            }
        }
        let y = Var::affine(&p[..2], &[u.sin(), u * u], p[2])?;
        let g = tape.backward(y * y)?;
        let du = g.wrt(u);
        let dw = g.wrt(p[0]);
        Ok([du.re, du.eps, dw.re, dw.eps])
    };
    let (packed, general) = (run(false)?, run(true)?);
    assert_eq!(packed, general);
    let x = 0.7f64;
    let y = 0.25 + 0.5 * x.sin() - 1.5 * x * x;
    let dy = 0.5 * x.cos() - 3.0 * x;
    assert!((packed[0] - 2.0 * y * dy).abs() < 1e-15);
    let d2 = 2.0 * dy * dy + 2.0 * y * (-0.5 * x.sin() - 3.0);
    assert!((packed[1] - d2).abs() < 1e-14, "{} vs {d2}", packed[1]);
    Ok(())
}

proptest! {
    #[test]
    fn consecutive_parameters_give_the_general_writes_values_and_gradients(
        neuron in (1usize..12).prop_flat_map(|k| (
            prop::collection::vec(kinds(), k),
            prop::collection::vec(-3.0f64..3.0, k),
            prop::collection::vec(-3.0f64..3.0, k),
            -1.0f64..1.0,
        )),
    ) {
        let (kinds, xs, ws, b) = neuron;
        let mut tape = Tape::<f64, 256>::new();
        let packed = run(&mut tape, &kinds, &xs, &ws, b, true);
        let general = run(&mut tape, &kinds, &xs, &ws, b, false);
        prop_assert_eq!(packed.0.to_bits(), general.0.to_bits());
        prop_assert_eq!(&packed.1, &general.1);
        prop_assert_eq!(&packed.2, &general.2);
        // The packed write is taken whenever it applies.
        let k = ws.len();
        if k >= 2 && !kinds.iter().any(|k| matches!(k, Input::Product)) {
            prop_assert_eq!(packed.3, k + 2);
        }
        // By hand: d(y^2)/dw_i = 2 y x_i.
        let x: Vec<f64> = kinds.iter().zip(&xs).map(|(k, &v)| k.value(v)).collect();
        let y = x.iter().zip(&ws).fold(b, |s, (x, w)| s + w * x);
        for (got, xi) in packed.1.iter().zip(&x) {
            let want = 2.0 * y * xi;
            prop_assert!((got - want).abs() <= 1e-12 * (1.0 + want.abs()));
        }
    }
}

#[test]
fn scalar_types_other_than_f64_take_the_same_write() -> Result<(), TapeError> {
    fn slots<S: Scalar>() -> Result<usize, TapeError> {
        let tape = Tape::<S, 16>::new();
        let w = [tape.var(S::from_f64(0.5)), tape.var(S::from_f64(0.25))];
        let b = tape.var(S::ZERO);
        let u = tape.var(S::ONE);
        Var::affine(&w, &[u * S::from_f64(2.0), u], b)?;
        Ok(tape.len() - 4)
    }
    assert_eq!(slots::<f32>()?, 4);
    assert_eq!(slots::<autograd_core::Q16>()?, 4);
    Ok(())
}
