//! `Mlp::forward_leaves` (the whole network in one `Var::affine_layers_of` call where it can be)
//! against `Mlp::forward` over the parameters' handles (a layer at a time, then each
//! activation): the same tape, statement for statement, and the same values, for every
//! activation and for networks of one, two and three layers.

use autograd_core::{Tape, Var};
use autograd_nn::{Activation, Mlp};

const ACTIVATIONS: [Activation; 5] = [
    Activation::Tanh,
    Activation::Relu,
    Activation::LeakyRelu(0.1),
    Activation::Sigmoid,
    Activation::Linear,
];

/// The tape (Graphviz export) and the outputs' bits after recording `mlp` at `input`, through
/// the leaves or through the handles.
fn record<const D: usize>(mlp: &Mlp<D>, input: &[f64], leaves: bool) -> String {
    let tape = Tape::<f64, 512>::new();
    let p: Vec<Var<'_, f64>> = (0..mlp.param_count())
        .map(|i| tape.var(((i * 7) % 13) as f64 / 6.0 - 1.0))
        .collect();
    let x: Vec<_> = input
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if i % 2 == 0 {
                tape.var(v)
            } else {
                Var::constant(v)
            }
        })
        .collect();
    let mut y = vec![Var::constant(0.0); mlp.outputs()];
    if leaves {
        let params = tape.leaves(p[0].id().unwrap(), p.len()).unwrap();
        mlp.forward_leaves(params, &x, &mut y).unwrap();
    } else {
        mlp.forward(&p, &x, &mut y).unwrap();
    }
    let mut shown = String::new();
    tape.write_dot(&mut shown).unwrap();
    for v in &y {
        shown += &format!(" {:x}", v.value().to_bits());
    }
    shown
}

#[test]
fn a_network_over_leaves_records_what_it_records_over_handles() {
    for hidden in ACTIVATIONS {
        for output in ACTIVATIONS {
            let one = Mlp::new([3, 2], hidden, output);
            let two = Mlp::new([2, 4, 1], hidden, output);
            let three = Mlp::new([3, 5, 4, 2], hidden, output);
            for input in [[0.5, -1.5, 2.0], [-0.25, 0.75, -3.0]] {
                assert_eq!(record(&one, &input, true), record(&one, &input, false));
                assert_eq!(
                    record(&two, &input[..2], true),
                    record(&two, &input[..2], false)
                );
                assert_eq!(record(&three, &input, true), record(&three, &input, false));
            }
        }
    }
}
