//! What `tests/neuron.rs`, `tests/layer*.rs`, `tests/leaves.rs` and `tests/network.rs` share: the
//! kinds of inputs a neuron or a layer is tested on, made from leaves, how a value is shown, and
//! a layer's rows written as one layer or row by row.
#![allow(dead_code)] // (each test file uses what it needs of these)

use autograd_core::{AnomalyKind, TapeView, Var};
use proptest::prelude::*;

/// How an input is made from its leaf `u` (value `v`).
#[derive(Clone, Copy, Debug)]
pub enum Input {
    /// A constant `v` (no leaf is read).
    Constant,
    /// `u` itself.
    Leaf,
    /// `3 u` (one pending pair, partial 3).
    Scaled,
    /// `relu(u)` (cut when `v < 0`).
    Relu,
    /// `u * u2`: two pending pairs (the general write must take it).
    Product,
}

impl Input {
    /// The input's value on plain numbers, for leaf value `v` and `u2 = 0.5`.
    pub fn value(self, v: f64) -> f64 {
        match self {
            Input::Constant | Input::Leaf => v,
            Input::Scaled => 3.0 * v,
            Input::Relu => v.max(0.0),
            Input::Product => v * 0.5,
        }
    }
}

/// The inputs of kinds `kinds` over the leaves `us` (values `xs`) and the shared leaf `u2`.
pub fn inputs<'t>(
    kinds: &[Input],
    us: &[Var<'t, f64>],
    u2: Var<'t, f64>,
    xs: &[f64],
) -> Vec<Var<'t, f64>> {
    let make = |kind: Input, u: Var<'t, f64>, v: f64| match kind {
        Input::Constant => Var::constant(v),
        Input::Leaf => u,
        Input::Scaled => u * 3.0,
        Input::Relu => u.relu(),
        Input::Product => u * u2,
    };
    kinds
        .iter()
        .zip(us)
        .zip(xs)
        .map(|((&k, &u), &v)| make(k, u, v))
        .collect()
}

/// [`inputs`] times 1, 0.1 and 1e300 in turn: partials that round and that overflow.
pub fn rounding_inputs<'t>(
    kinds: &[Input],
    us: &[Var<'t, f64>],
    u2: Var<'t, f64>,
    xs: &[f64],
) -> Vec<Var<'t, f64>> {
    inputs(kinds, us, u2, xs)
        .iter()
        .enumerate()
        .map(|(i, v)| match i % 3 {
            0 => *v,
            1 => *v * 0.1,
            _ => *v * 1e300,
        })
        .collect()
}

/// Every kind of input, for proptest.
pub fn kinds() -> impl Strategy<Value = Input> {
    prop_oneof![
        Just(Input::Constant),
        Just(Input::Leaf),
        Just(Input::Scaled),
        Just(Input::Relu),
        Just(Input::Product),
    ]
}

/// A value's bits, every NaN alike: a NaN's sign and payload are not specified by the operation
/// that made it (Rust and LLVM may swap an addition's operands), so two paths that sum in the
/// same order may still differ there.
pub fn bits(v: f64) -> String {
    if v.is_nan() {
        " NaN".into()
    } else {
        format!(" {:x}", v.to_bits())
    }
}

/// Everything a recording shows, as bits (NaN as one): the tape drawn by Graphviz export (every
/// statement, operation, operand and partial), its length and error, the outputs' values, and
/// for a fixed combination of the outputs its gradients with respect to `wrt` and NaN
/// provenance's report.
pub fn shown(tape: &TapeView<f64>, y: &[Var<'_, f64>], wrt: &[Var<'_, f64>]) -> String {
    let out = y.iter().enumerate().fold(Var::constant(0.0), |s, (j, yj)| {
        s + *yj * (0.3 * j as f64 - 0.7)
    });
    let mut shown = String::new();
    tape.write_dot(&mut shown).unwrap();
    shown += &format!("\n{:?} {:?}", tape.len(), tape.check());
    for v in y {
        shown += &bits(v.value());
    }
    if let Ok(g) = tape.backward(out) {
        for v in wrt {
            shown += &bits(g.wrt(*v));
        }
    }
    if let Some(a) = tape.anomaly(out) {
        let kind = matches!(a.kind, AnomalyKind::Value);
        shown += &format!(" {} {} {} {}", a.index, a.op, kind, bits(a.value));
    }
    shown
}

/// The rows of a layer into `y`: one `Var::affine_layer` call, or (`rows`) `Var::affine` per row.
/// Under two rows or more the layer writes each input of two pending pairs (the `kinds`
/// `Input::Product`) as a statement of its own first: row by row, such an input is recorded
/// (`Var::recorded`) before the rows, so that both write the same statements (no `kinds`: the
/// rows over the inputs as they are).
pub fn record<'t>(
    rows: bool,
    kinds: &[Input],
    params: &[Var<'t, f64>],
    x: &[Var<'t, f64>],
    y: &mut [Var<'t, f64>],
) {
    if !rows {
        return Var::affine_layer(params, x, y).unwrap();
    }
    let x: Vec<_> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| match kinds.get(i) {
            Some(Input::Product) if y.len() >= 2 => {
                // As the layer writes it where it still has two pending pairs: recorded, a
                // statement of two operands. (Scaled by a huge factor, a product may be a
                // statement already, with one pair on it: a statement of one operand written
                // here for it then is left unread.)
                let r = v.recorded().unwrap();
                let tape = r.tape().unwrap();
                match tape.node(r.id().unwrap()).unwrap().operands {
                    2 => r,
                    _ => v,
                }
            }
            _ => v,
        })
        .collect();
    for (yj, row) in y.iter_mut().zip(params.chunks_exact(x.len() + 1)) {
        *yj = Var::affine(&row[..x.len()], &x, row[x.len()]).unwrap();
    }
}
