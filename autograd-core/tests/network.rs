//! `Var::affine_layers_of`: a network written in one call must record exactly what
//! `Var::affine_layer_of_then` records layer after layer (the same slots, values, gradients and
//! NaN provenance, bit for bit) where it records anything, and leave the tape exactly as it was
//! where it declines (after which the layers are written one by one).

use autograd_core::{Activate, Tape, TapeError, Var};
use proptest::prelude::*;

mod common;
use common::{kinds, rounding_inputs, shown, Input};

/// The activations tried, one type for every layer: those `autograd-nn` passes, and three that
/// record something or would (`exp` overflows into a statement of its own; a product with
/// another leaf leaves two pending pairs; that product recorded is a statement, and one pair on
/// it).
#[derive(Clone, Copy, Debug)]
enum Act<'t> {
    Identity,
    Tanh,
    Relu,
    Sigmoid,
    LeakyRelu,
    Exp,
    Times(Var<'t, f64>),
    Recorded(Var<'t, f64>),
}

impl<'t> Activate<'t, f64> for Act<'t> {
    fn apply(&mut self, v: Var<'t, f64>) -> Var<'t, f64> {
        match *self {
            Act::Identity => v,
            Act::Tanh => v.tanh(),
            Act::Relu => v.relu(),
            Act::Sigmoid => v.sigmoid(),
            Act::LeakyRelu => v.leaky_relu(0.01),
            Act::Exp => (v * 300.0).exp(),
            Act::Times(u) => v * u,
            // A statement of its own, and one pending pair on it.
            Act::Recorded(u) => (v * u).recorded().unwrap_or(v),
        }
    }
}

fn act<'t>(code: usize, u: Var<'t, f64>) -> Act<'t> {
    match code {
        0 => Act::Identity,
        1 => Act::Tanh,
        2 => Act::Relu,
        3 => Act::Sigmoid,
        4 => Act::LeakyRelu,
        5 => Act::Exp,
        6 => Act::Times(u),
        _ => Act::Recorded(u),
    }
}

/// A network: the input kinds and values, the layers' widths and activation codes, the
/// parameters' values, and the free slots left on the tape before it is written.
#[derive(Clone, Debug)]
struct Net {
    kinds: Vec<Input>,
    xs: Vec<f64>,
    layers: Vec<(usize, usize)>,
    ps: Vec<f64>,
    room: usize,
}

/// What a tape shows: its Graphviz export, length and error.
fn tape_state(tape: &Tape<f64, 1024>) -> String {
    let mut shown = String::new();
    tape.write_dot(&mut shown).unwrap();
    shown + &format!("\n{:?} {:?}", tape.len(), tape.check())
}

/// Everything a recording of `net` shows, as bits (NaN as one): the tape, the outputs' values,
/// the gradients with respect to the parameters and the inputs' leaves, and NaN provenance's
/// report; and whether `affine_layers_of` recorded it (`at_once`; else the layers one by one).
fn record(net: &Net, at_once: bool) -> (String, bool) {
    let tape = Tape::<f64, 1024>::new();
    let us: Vec<_> = net.xs.iter().map(|&v| tape.var(v)).collect();
    let u2 = tape.var(0.5);
    let params: Vec<_> = net.ps.iter().map(|&p| tape.var(p)).collect();
    let x = rounding_inputs(&net.kinds, &us, u2, &net.xs);
    while tape.capacity() - tape.len() > net.room {
        tape.var(0.0);
    }
    let Some(first) = params.first().and_then(|p| p.id()) else {
        return ("no parameters (every layer of no rows)".into(), false);
    };
    let leaves = tape.leaves(first, params.len()).unwrap();
    let mut layers: Vec<(usize, Act<'_>)> =
        net.layers.iter().map(|&(m, a)| (m, act(a, u2))).collect();
    let mut y = vec![Var::constant(0.0); layers.last().unwrap().0];
    let mut recorded = false;
    if at_once {
        let before = tape_state(&tape);
        recorded = Var::affine_layers_of(leaves, &mut layers, &x, &mut y).unwrap();
        if !recorded {
            assert_eq!(tape_state(&tape), before, "declined, yet the tape changed");
        }
    }
    if !recorded {
        let mut input = x.clone();
        let mut offset = 0;
        for (m, f) in layers.iter_mut() {
            let count = *m * (input.len() + 1);
            let own = leaves.range(offset, count).unwrap();
            offset += count;
            let mut out = vec![Var::constant(0.0); *m];
            Var::affine_layer_of_then(own, &input, &mut out, *f).unwrap();
            input = out;
        }
        y = input;
    }
    let wrt: Vec<_> = params.iter().chain(&us).chain([&u2]).copied().collect();
    (shown(&tape, &y, &wrt), recorded)
}

/// Ordinary values and values that break arithmetic.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        80 => -3.0f64..3.0,
        1 => prop_oneof![
            Just(0.0),
            Just(1e300),
            Just(f64::INFINITY),
            Just(f64::NAN),
        ],
    ]
}

/// Networks of one to three layers over one to five inputs, mostly of ordinary inputs and
/// activations (so that most are recorded at once), with room or without.
fn net() -> impl Strategy<Value = Net> {
    let widths = prop::collection::vec(
        (
            prop_oneof![1 => Just(0usize), 2 => Just(1usize), 8 => 2usize..6],
            prop_oneof![6 => 0usize..5, 1 => 5usize..8],
        ),
        1..4,
    );
    (prop_oneof![1 => Just(1usize), 4 => 2usize..6], widths)
        .prop_flat_map(|(k, layers)| {
            let mut count = 0;
            let mut inputs = k;
            for &(m, _) in &layers {
                count += m * (inputs + 1);
                inputs = m;
            }
            (
                prop::collection::vec(
                    prop_oneof![4 => Just(Input::Leaf), 4 => Just(Input::Constant), 2 => kinds()],
                    k,
                ),
                prop::collection::vec(value(), k),
                Just(layers),
                prop::collection::vec(value(), count),
                prop_oneof![3 => Just(1024usize), 2 => 0usize..40],
            )
        })
        .prop_map(|(kinds, xs, layers, ps, room)| Net {
            kinds,
            xs,
            layers,
            ps,
            room,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn a_network_at_once_records_what_its_layers_record_one_by_one(net in net()) {
        let (at_once, _) = record(&net, true);
        let (one_by_one, _) = record(&net, false);
        prop_assert_eq!(at_once, one_by_one);
    }
}

#[test]
fn an_ordinary_network_is_recorded_at_once() {
    // Three inputs (two leaves and a constant), layers 4 (tanh), 3 (relu), 2 (identity).
    let net = Net {
        kinds: vec![Input::Leaf, Input::Constant, Input::Scaled],
        xs: vec![0.5, -1.0, 2.0],
        layers: vec![(4, 1), (3, 2), (2, 0)],
        ps: (0..4 * 4 + 3 * 5 + 2 * 4)
            .map(|i| ((i * 7) % 11) as f64 / 5.0 - 1.0)
            .collect(),
        room: 1024,
    };
    let (at_once, recorded) = record(&net, true);
    assert!(recorded);
    assert_eq!(at_once, record(&net, false).0);
}

#[test]
fn a_network_that_does_not_fit_or_records_in_its_activations_is_declined() {
    let base = Net {
        kinds: vec![Input::Leaf, Input::Leaf],
        xs: vec![0.5, -1.0],
        layers: vec![(3, 1), (1, 0)],
        ps: (0..3 * 3 + 4).map(|i| i as f64 / 7.0 - 0.5).collect(),
        room: 1024,
    };
    assert!(record(&base, true).1);
    // Each asks for the one-by-one write, which records what it records.
    let tight = Net {
        room: 8,
        ..base.clone()
    };
    let product = Net {
        layers: vec![(3, 6), (1, 0)],
        ..base.clone()
    };
    // (A statement each, written by the activation above the next layer's reserved slots.)
    let written = Net {
        layers: vec![(3, 7), (1, 0)],
        ..base.clone()
    };
    let overflow = Net {
        xs: vec![5.0, 5.0],
        layers: vec![(3, 5), (1, 0)],
        ..base.clone()
    };
    // One input under one row: `w x + b` stays in its handle (two pairs), which the next
    // layer cannot take in an input slot.
    let one_row_over_one_input = Net {
        kinds: vec![Input::Leaf],
        xs: vec![0.5],
        layers: vec![(1, 1), (2, 0)],
        ps: (0..2 + 2 * 2).map(f64::from).collect(),
        ..base.clone()
    };
    for net in [tight, product, written, overflow, one_row_over_one_input] {
        assert_declined(&net);
    }
    // One input under several rows is a layer statement: the network at once (fitting `sin x`).
    let one_input = Net {
        kinds: vec![Input::Leaf],
        xs: vec![0.5],
        ps: (0..2 * 3 + 4).map(f64::from).collect(),
        ..base
    };
    let (at_once, recorded) = record(&one_input, true);
    assert!(recorded);
    assert_eq!(at_once, record(&one_input, false).0);
}

#[test]
fn wrong_shapes_are_errors() {
    let tape = Tape::<f64, 64>::new();
    let p: Vec<_> = (0..7).map(|i| tape.var(i as f64)).collect();
    let leaves = tape.leaves(p[0].id().unwrap(), 7).unwrap();
    let x = [Var::constant(1.0), Var::constant(2.0)];
    type Id = fn(Var<'_, f64>) -> Var<'_, f64>;
    let id: Id = |v| v;
    let mut y = [Var::constant(0.0)];
    let none: &mut [(usize, Id)] = &mut [];
    let mismatch = |what, expected, found| TapeError::LengthMismatch {
        what,
        expected,
        found,
    };
    assert_eq!(
        Var::affine_layers_of(leaves, none, &x, &mut y),
        Err(mismatch("affine_layers_of's layers", 1, 0))
    );
    // [2 -> 2 -> 1] needs 2 * 3 + 1 * 3 = 9 parameters.
    assert_eq!(
        Var::affine_layers_of(leaves, &mut [(2, id), (1, id)], &x, &mut y),
        Err(mismatch("affine_layers_of's parameters", 9, 7))
    );
    let mut y2 = [Var::constant(0.0); 2];
    // One layer of 2 outputs (6 parameters), given room for 1.
    assert_eq!(
        Var::affine_layers_of(
            leaves.range(0, 6).unwrap(),
            &mut [(2, id)],
            &x,
            &mut y2[..1]
        ),
        Err(mismatch("affine_layers_of's outputs", 2, 1))
    );
    assert_eq!(tape.len(), 7);
}

#[test]
fn a_layer_of_no_rows_is_written_one_by_one() {
    // (A layer statement of no rows would leave its input slots with no header above them.)
    let base = Net {
        kinds: vec![Input::Leaf, Input::Leaf],
        xs: vec![0.5, -1.0],
        layers: vec![(3, 1), (0, 0)],
        ps: (0..9).map(|i| i as f64 / 7.0 - 0.5).collect(),
        room: 1024,
    };
    let first = Net {
        layers: vec![(0, 1), (2, 0)],
        ps: vec![0.25, -0.5],
        ..base.clone()
    };
    for net in [base, first] {
        assert_declined(&net);
    }
}

#[test]
fn an_activation_that_fails_to_record_for_want_of_room_declines_the_network() {
    // The first layer's units times a leaf overflow (value times partials): each is written as a
    // statement of its own, and with room for the two layers only, the first such write fails.
    // Found by the proptest (seed in CI): the network was recorded as if the unit depended on
    // nothing, where the layers one by one record the first unit's statement.
    let net = Net {
        kinds: vec![Input::Leaf, Input::Leaf, Input::Leaf],
        xs: vec![0.0, 0.0, 1.0927274345830484],
        layers: vec![(2, 6), (2, 1)],
        ps: vec![
            0.0, 0.0, 1.515, 0.0, 0.0, 0.0, -1.913, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        ],
        room: 11,
    };
    assert_declined(&net);
}

/// `net` is declined by the one call, which then records what the layers one by one record.
fn assert_declined(net: &Net) {
    let (at_once, recorded) = record(net, true);
    assert!(!recorded, "{net:?}");
    assert_eq!(at_once, record(net, false).0);
}
