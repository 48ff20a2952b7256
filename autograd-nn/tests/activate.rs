//! `Activation`'s `Activate::apply_each`, which chooses the function once for a layer's outputs,
//! against the trait's default loop (one choice an output), as the trait asks: the same values,
//! the same statements on the tape, the same gradients, bit for bit, and the same early stop.

use autograd_core::{Activate, Tape, Var};
use autograd_nn::Activation;

const ACTIVATIONS: [Activation; 6] = [
    Activation::Tanh,
    Activation::Relu,
    Activation::LeakyRelu(0.05),
    Activation::LeakyRelu(0.0),
    Activation::Sigmoid,
    Activation::Linear,
];

/// Inputs across every activation's regimes: its kinks, both signs, saturation, a NaN.
const INPUTS: [f64; 10] = [
    -800.0,
    -3.5,
    -0.25,
    -0.0,
    0.0,
    1e-300,
    0.75,
    2.0,
    40.0,
    f64::NAN,
];

/// The trait's default `apply_each`: `Activation`'s `apply`, chosen for each output.
struct EachTime(Activation);

impl<'t> Activate<'t, f64> for EachTime {
    fn apply(&mut self, v: Var<'t, f64>) -> Var<'t, f64> {
        self.0.apply(v)
    }
}

/// What `apply_each` of `f` leaves: each output's value and the gradient of their sum with
/// respect to each input (the inputs and every output recorded on a tape of its own), and the
/// tape's length.
fn outputs(mut f: impl for<'t> Activate<'t, f64>) -> (Vec<u64>, Vec<u64>, usize) {
    let tape = Tape::<f64, 256>::new();
    let leaves: Vec<Var<'_, f64>> = INPUTS.iter().map(|&v| tape.var(v)).collect();
    // Each input times a weight, so that every output is a pending expression of a leaf, as a
    // layer's output is a statement.
    let x: Vec<Var<'_, f64>> = leaves.iter().map(|&l| l * 1.5).collect();
    let mut y = vec![Var::constant(0.0); x.len()];
    assert!(f.apply_each(
        x.len(),
        |i| x[i],
        |i, v| {
            y[i] = v;
            true
        }
    ));
    let values = y.iter().map(|v| v.value().to_bits()).collect();
    let sum = y.iter().fold(Var::constant(0.0), |s, v| s + *v);
    let grads = tape.backward(sum).expect("recorded");
    let wrt = leaves.iter().map(|&l| grads.wrt(l).to_bits()).collect();
    (values, wrt, tape.len())
}

#[test]
fn choosing_once_gives_what_choosing_each_time_gives() {
    for act in ACTIVATIONS {
        assert_eq!(outputs(act), outputs(EachTime(act)), "{act:?}");
    }
}

#[test]
fn a_refused_output_stops_the_loop_there() {
    for act in ACTIVATIONS {
        let tape = Tape::<f64, 64>::new();
        let x: Vec<Var<'_, f64>> = INPUTS.iter().map(|&v| tape.var(v)).collect();
        let (mut seen, mut a) = (Vec::new(), act);
        let done = a.apply_each(
            x.len(),
            |i| x[i],
            |i, v| {
                seen.push((i, v.value().to_bits()));
                i < 3
            },
        );
        assert!(!done, "{act:?}");
        let expected: Vec<(usize, u64)> = (0..4)
            .map(|i| (i, act.apply(x[i]).value().to_bits()))
            .collect();
        assert_eq!(seen, expected, "{act:?}");
    }
}
