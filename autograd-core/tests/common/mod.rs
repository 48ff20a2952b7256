//! What `tests/neuron.rs`, `tests/layer.rs` and `tests/leaves.rs` share: the kinds of inputs a
//! neuron or a layer is tested on, made from leaves.
#![allow(dead_code)] // (each test file uses what it needs of these)

use autograd_core::Var;
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
