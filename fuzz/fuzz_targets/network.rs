//! Network fuzzing: a network written in one call (`Var::affine_layers_of`) against its layers
//! written one by one (`Var::affine_layer_of_then`), on the same arbitrary inputs (any bits),
//! parameters, widths, activations and free room, in `f64` and `f32`. Checks: nothing panics;
//! where the call records, the tape (every statement, operand and partial, by Graphviz export),
//! its length and error, the outputs' values and the gradients with respect to every leaf are
//! those of the one-by-one write, bit for bit (every NaN alike); where it declines, the tape is
//! exactly as it was before the call.

#![no_main]

use arbitrary::Arbitrary;
use autograd_core::{Activate, Scalar, Tape, TapeView, Var};
use libfuzzer_sys::fuzz_target;

/// Slots of the tape; the free room left before the network is `room % 400`.
const CAP: usize = 2048;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Each input's kind (`kind % 5`: constant, leaf, 3 leaf, relu(leaf), leaf times another
    /// leaf) and value; at most 6 are used.
    inputs: Vec<(u8, f64)>,
    /// Each layer's width (`w % 7`, none at times) and activation (`a % 8`); at most 3 are used.
    layers: Vec<(u8, u8)>,
    /// The parameters' values, used in turn (1.0 if there are none).
    params: Vec<f64>,
    room: u16,
    f32: bool,
}

fuzz_target!(|input: Input| {
    if input.f32 {
        check::<f32>(&input);
    } else {
        check::<f64>(&input);
    }
});

/// The activations tried (all of one type): those `autograd-nn` passes, `exp` of a multiple
/// (which overflows into a statement of its own), a product with another leaf (two pending
/// pairs), and that product recorded (a statement, then one pair on it).
#[derive(Clone, Copy)]
enum Act<'t, S: Scalar> {
    Identity,
    Tanh,
    Relu,
    Sigmoid,
    LeakyRelu,
    Exp,
    Times(Var<'t, S>),
    Recorded(Var<'t, S>),
}

impl<'t, S: Scalar> Activate<'t, S> for Act<'t, S> {
    fn apply(&mut self, v: Var<'t, S>) -> Var<'t, S> {
        match *self {
            Act::Identity => v,
            Act::Tanh => v.tanh(),
            Act::Relu => v.relu(),
            Act::Sigmoid => v.sigmoid(),
            Act::LeakyRelu => v.leaky_relu(S::from_f64(0.01)),
            Act::Exp => (v * S::from_f64(30.0)).exp(),
            Act::Times(u) => v * u,
            // A statement of its own, and one pending pair on it.
            Act::Recorded(u) => (v * u).recorded().unwrap_or(v),
        }
    }
}

fn check<S: Scalar>(input: &Input) {
    let one_call = record::<S>(input, true);
    let one_by_one = record::<S>(input, false);
    assert_eq!(one_call, one_by_one);
}

/// Everything a recording shows (see the module's documentation).
fn record<S: Scalar>(input: &Input, at_once: bool) -> String {
    let tape = Tape::<S, CAP>::new();
    let kinds: Vec<(u8, S)> = input
        .inputs
        .iter()
        .take(6)
        .map(|&(k, v)| (k % 5, S::from_f64(v)))
        .collect();
    let widths: Vec<(usize, u8)> = input
        .layers
        .iter()
        .take(3)
        .map(|&(w, a)| (w as usize % 7, a % 8))
        .collect();
    if widths.is_empty() {
        return String::new();
    }
    let us: Vec<_> = kinds.iter().map(|&(_, v)| tape.var(v)).collect();
    let u2 = tape.var(S::from_f64(0.5));
    let x: Vec<Var<'_, S>> = kinds
        .iter()
        .zip(&us)
        .map(|(&(k, v), &u)| match k {
            0 => Var::constant(v),
            1 => u,
            2 => u * S::from_f64(3.0),
            3 => u.relu(),
            _ => u * u2,
        })
        .collect();
    let mut count = 0;
    let mut k = x.len();
    for &(m, _) in &widths {
        count += m * (k + 1);
        k = m;
    }
    if count == 0 {
        return String::new();
    }
    let params: Vec<_> = (0..count)
        .map(|i| {
            let v = input.params.get(i % input.params.len().max(1)).copied();
            tape.var(S::from_f64(v.unwrap_or(1.0)))
        })
        .collect();
    while tape.capacity() - tape.len() > input.room as usize % 400 {
        tape.var(S::ZERO);
    }
    let leaves = tape.leaves(params[0].id().unwrap(), count).unwrap();
    let act = |a: u8| match a {
        0 => Act::Identity,
        1 => Act::Tanh,
        2 => Act::Relu,
        3 => Act::Sigmoid,
        4 => Act::LeakyRelu,
        5 => Act::Exp,
        6 => Act::Times(u2),
        _ => Act::Recorded(u2),
    };
    let mut layers: Vec<(usize, Act<'_, S>)> = widths.iter().map(|&(m, a)| (m, act(a))).collect();
    let mut y = vec![Var::constant(S::ZERO); k];
    let mut recorded = false;
    if at_once {
        let before = state(&tape);
        recorded = Var::affine_layers_of(leaves, &mut layers, &x, &mut y).unwrap();
        if !recorded {
            assert_eq!(state(&tape), before, "declined, yet the tape changed");
        }
    }
    if !recorded {
        let mut inputs = x.clone();
        let mut offset = 0;
        for (m, f) in layers.iter_mut() {
            let n = *m * (inputs.len() + 1);
            let own = leaves.range(offset, n).unwrap();
            offset += n;
            let mut out = vec![Var::constant(S::ZERO); *m];
            Var::affine_layer_of_then(own, &inputs, &mut out, *f).unwrap();
            inputs = out;
        }
        y = inputs;
    }
    let out = y.iter().fold(Var::constant(S::ZERO), |s, v| s + *v);
    let mut shown = state(&tape);
    for v in &y {
        shown += &bits(v.value());
    }
    if let Ok(g) = tape.backward(out) {
        for v in params.iter().chain(&us).chain([&u2]) {
            shown += &bits(g.wrt(*v));
        }
    }
    shown
}

/// A tape's Graphviz export, length and error.
fn state<S: Scalar>(tape: &TapeView<S>) -> String {
    let mut shown = String::new();
    tape.write_dot(&mut shown).unwrap();
    shown + &format!("\n{:?} {:?}", tape.len(), tape.check())
}

/// A value's bits, every NaN alike (a NaN's sign and payload are not specified).
fn bits<S: Scalar>(v: S) -> String {
    let v = v.to_f64();
    if v.is_nan() {
        " NaN".into()
    } else {
        format!(" {:x}", v.to_bits())
    }
}
