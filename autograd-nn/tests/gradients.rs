//! Whole-network gradients from the trainer's tape against two independent references, for
//! every loss and every activation: central finite differences of the plain-`f64` objective,
//! and forward mode (one `Dual` pass per parameter) through the very same generic code.

use autograd_core::{central_step, compare, Dual, Tape, TapeError, Tolerance};
use autograd_nn::data::{self, Sample};
use autograd_nn::{
    Activation, BceWithLogits, Hinge, Init, Loss, Mlp, NnError, Objective, Reduction, Rng,
    SoftmaxCrossEntropy, SquaredError, Trainer,
};

/// Tape gradient, forward-mode gradient and central differences of `objective` at `params`.
fn three_gradients<L: Loss, const D: usize, const P: usize, const I: usize>(
    objective: &Objective<L, D>,
    params: &[f64; P],
    batch: &[Sample<I>],
) -> ([f64; P], [f64; P], [f64; P]) {
    let mut tape = Tape::<f64, 20_000>::boxed();
    let mut trainer = Trainer::new(&mut *tape, params).unwrap();
    let stats = trainer.gradient(objective, params, batch).unwrap();
    let reverse = *trainer.grads();
    assert_eq!(trainer.sweeps(), 1, "the batch fits: one sweep");
    let plain = objective.evaluate(params, batch).unwrap();
    assert!((stats.loss - plain).abs() <= 1e-12 * plain.abs().max(1.0));

    let mut forward = [0.0; P];
    for (k, g) in forward.iter_mut().enumerate() {
        let duals: [Dual<f64>; P] =
            core::array::from_fn(|i| Dual::new(params[i], if i == k { 1.0 } else { 0.0 }));
        let y = objective.evaluate(&duals, batch).unwrap();
        assert_eq!(y.re, plain);
        *g = y.eps;
    }

    let mut central = [0.0; P];
    for (k, g) in central.iter_mut().enumerate() {
        let h = central_step(params[k]);
        let (mut up, mut down) = (*params, *params);
        up[k] += h;
        down[k] -= h;
        let (fu, fd) = (
            objective.evaluate(&up, batch).unwrap(),
            objective.evaluate(&down, batch).unwrap(),
        );
        *g = (fu - fd) / (up[k] - down[k]);
    }
    (reverse, forward, central)
}

fn assert_gradients_agree<L: Loss, const D: usize, const P: usize, const I: usize>(
    name: &str,
    objective: &Objective<L, D>,
    params: &[f64; P],
    batch: &[Sample<I>],
) {
    let (reverse, forward, central) = three_gradients(objective, params, batch);
    let modes = compare(&reverse, &forward, Tolerance::between_modes::<f64>()).unwrap();
    assert!(modes.passed, "{name}: reverse vs forward: {modes}");
    let fd = compare(&reverse, &central, Tolerance::finite_differences::<f64>()).unwrap();
    assert!(fd.passed, "{name}: reverse vs central differences: {fd}");
    // Not a vacuous comparison: most parameters get a non-zero gradient.
    let nonzero = reverse.iter().filter(|g| g.abs() > 1e-9).count();
    assert!(
        nonzero * 2 > P,
        "{name}: only {nonzero} of {P} gradients are non-zero"
    );
}

fn init<const D: usize, const P: usize>(model: &Mlp<D>, init: Init, seed: u64) -> [f64; P] {
    let mut p = [0.0; P];
    model.init(&mut p, init, &mut Rng::new(seed)).unwrap();
    // Non-zero biases so that every bias's gradient path is exercised off the kinks.
    let mut rng = Rng::new(seed ^ 0xB1A5);
    for x in p.iter_mut().filter(|x| **x == 0.0) {
        *x = rng.uniform(-0.3, 0.3);
    }
    p
}

const HIDDEN: [Activation; 5] = [
    Activation::Tanh,
    Activation::Relu,
    Activation::LeakyRelu(0.05),
    Activation::Sigmoid,
    Activation::Linear,
];

#[test]
fn squared_error_gradients_agree_for_every_activation() {
    let batch = data::moons::<7>(0.1, 3);
    for (i, hidden) in HIDDEN.into_iter().enumerate() {
        for output in [Activation::Tanh, Activation::Linear, Activation::Sigmoid] {
            let model = Mlp::new([2, 4, 3, 1], hidden, output);
            let params: [f64; 31] = init(&model, Init::Uniform, 10 + i as u64);
            for reduction in [Reduction::Mean, Reduction::Sum] {
                let objective = Objective::new(model, SquaredError)
                    .with_reduction(reduction)
                    .with_l2(1e-3);
                let name = format!("mse {hidden:?}/{output:?}/{reduction:?}");
                assert_gradients_agree(&name, &objective, &params, &batch);
            }
        }
    }
}

/// Fitting `sin x`: a network over one input. Its gradients against the two references for
/// every hidden activation, and its tape: one layer statement a layer (a first layer of one
/// input under several units is one statement too), as over two inputs.
#[test]
fn a_network_over_one_input_fits_sin_with_a_layer_statement_a_layer() {
    let mut batch = [Sample { x: [0.0], y: 0.0 }; 9];
    for (i, s) in batch.iter_mut().enumerate() {
        s.x[0] = i as f64 * 0.7 - 2.8;
        s.y = s.x[0].sin();
    }
    for (i, hidden) in HIDDEN.into_iter().enumerate() {
        let model = Mlp::new([1, 6, 5, 1], hidden, Activation::Linear);
        let params: [f64; 53] = init(&model, Init::Uniform, 50 + i as u64);
        let objective = Objective::new(model, SquaredError).with_l2(1e-3);
        assert_gradients_agree(&format!("sin {hidden:?}"), &objective, &params, &batch);

        let mut tape = Tape::<f64, 4_000>::boxed();
        let mut trainer = Trainer::new(&mut *tape, &params).unwrap();
        trainer.gradient(&objective, &params, &batch).unwrap();
        // Layer statements of k + 1 + m slots: 1 + 1 + 6, 6 + 1 + 5, 5 + 1 + 1; then the
        // squared error and the running sum, a few slots (the rows one by one took 111: each
        // hidden unit two pending pairs, the second layer's rows general statements).
        let layers = (1 + 1 + 6) + (6 + 1 + 5) + (5 + 1 + 1);
        let per_sample = trainer.slots_per_sample();
        assert!(
            (layers..=layers + 5).contains(&per_sample),
            "{hidden:?}: {per_sample} slots a sample"
        );
    }
}

#[test]
fn hinge_gradients_agree_on_micrograd_shaped_networks() {
    let batch = data::moons::<9>(0.1, 4);
    for (i, hidden) in HIDDEN.into_iter().enumerate() {
        let model = Mlp::new([2, 5, 4, 1], hidden, Activation::Linear);
        let params: [f64; 44] = init(&model, Init::Uniform, 20 + i as u64);
        let objective = Objective::new(model, Hinge).with_l2(1e-4);
        assert_gradients_agree(&format!("hinge {hidden:?}"), &objective, &params, &batch);
    }
}

#[test]
fn bce_gradients_agree() {
    let batch = data::moons::<8>(0.2, 5);
    for (i, hidden) in HIDDEN.into_iter().enumerate() {
        let model = Mlp::new([2, 4, 1], hidden, Activation::Linear);
        let params: [f64; 17] = init(&model, Init::Xavier, 30 + i as u64);
        let objective = Objective::new(model, BceWithLogits).with_l2(1e-2);
        assert_gradients_agree(&format!("bce {hidden:?}"), &objective, &params, &batch);
    }
}

#[test]
fn softmax_cross_entropy_gradients_agree() {
    let batch = data::spiral::<9>(3, 0.2, 6);
    for (i, hidden) in HIDDEN.into_iter().enumerate() {
        let model = Mlp::new([2, 5, 4, 3], hidden, Activation::Linear);
        let params: [f64; 54] = init(&model, Init::He, 40 + i as u64);
        let objective = Objective::new(model, SoftmaxCrossEntropy).with_l2(1e-3);
        assert_gradients_agree(&format!("softmax {hidden:?}"), &objective, &params, &batch);
    }
}

#[test]
fn softmax_gradient_is_probabilities_minus_one_hot() {
    // For logits z straight from a linear layer with zero weights, z = biases, and the
    // gradient of the loss with respect to the biases is softmax(z) - onehot(c).
    let model = Mlp::new([1, 3], Activation::Linear, Activation::Linear);
    let params = [0.0, 0.5, 0.0, -1.0, 0.0, 2.0]; // (w, b) per class
    let batch = [Sample { x: [0.7], y: 1.0 }];
    let objective = Objective::new(model, SoftmaxCrossEntropy);
    let mut tape = Tape::<f64, 128>::new();
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    trainer.gradient(&objective, &params, &batch).unwrap();
    let z = [0.5_f64, -1.0, 2.0];
    let total: f64 = z.iter().map(|z| z.exp()).sum();
    for (k, z_k) in z.iter().enumerate() {
        let p = z_k.exp() / total;
        let expected = p - if k == 1 { 1.0 } else { 0.0 };
        assert!((trainer.grads()[2 * k + 1] - expected).abs() < 1e-15);
        assert!((trainer.grads()[2 * k] - 0.7 * expected).abs() < 1e-15);
    }
}

#[test]
fn hinge_gradient_matches_the_hand_derived_one() {
    // One linear neuron s = w x + b with y = +1 inside the margin: L = 1 - s, so
    // dL/dw = -x and dL/db = -1; outside the margin every gradient is 0 (relu'(0) = 0 too).
    let model = Mlp::new([1, 1], Activation::Linear, Activation::Linear);
    let objective = Objective::new(model, Hinge);
    let mut tape = Tape::<f64, 32>::new();
    let params = [0.5, 0.1];
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    trainer
        .gradient(&objective, &params, &[Sample { x: [0.8], y: 1.0 }])
        .unwrap();
    assert_eq!(*trainer.grads(), [-0.8, -1.0]);
    trainer
        .gradient(&objective, &params, &[Sample { x: [1.8], y: 1.0 }])
        .unwrap(); // s = 1.0: exactly on the margin, relu'(0) = 0
    assert_eq!(*trainer.grads(), [0.0, 0.0]);
}

#[test]
fn a_failed_gradient_leaves_no_gradient_behind() {
    // The gradient is written as the batch's chunks are swept: a call that fails leaves zeros,
    // not the last call's gradient.
    let model = Mlp::new([1, 1], Activation::Linear, Activation::Linear);
    let objective = Objective::new(model, Hinge);
    let mut tape = Tape::<f64, 32>::new();
    let params = [0.5, 0.1];
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    let good = [Sample { x: [0.8], y: 1.0 }];
    trainer.gradient(&objective, &params, &good).unwrap();
    assert_eq!(*trainer.grads(), [-0.8, -1.0]);
    let bad = [Sample {
        x: [f64::NAN],
        y: 1.0,
    }];
    let err = trainer.gradient(&objective, &params, &bad).unwrap_err();
    assert_eq!(err, NnError::NonFiniteInput { sample: 0 });
    assert_eq!(*trainer.grads(), [0.0, 0.0]);
}

#[test]
fn a_small_tape_gives_the_same_gradient_in_several_sweeps() {
    const MODEL: Mlp<4> = Mlp::new([2, 8, 8, 1], Activation::Relu, Activation::Linear);
    const P: usize = MODEL.param_count();
    let batch = data::moons::<40>(0.1, 9);
    let params: [f64; P] = init(&MODEL, Init::Uniform, 9);
    let objective = Objective::new(MODEL, Hinge).with_l2(1e-4);

    let mut big = Tape::<f64, 20_000>::boxed();
    let mut one = Trainer::new(&mut *big, &params).unwrap();
    let full = one.gradient(&objective, &params, &batch).unwrap();
    assert_eq!(one.sweeps(), 1);
    let per_sample = one.slots_per_sample();
    // At most one statement per neuron, and for the loss and running sum at most one more
    // (3 handles' pairs: 5 slots); inactive relus make it less.
    assert!(
        per_sample > 0 && per_sample <= MODEL.forward_slots() + 5,
        "{per_sample}"
    );

    // Room for the parameters, the penalty and about three samples per sweep.
    const ROOM: usize = P + 2 * P + 1 + 3 * (MODEL.forward_slots() + 7) + 4;
    let mut small = Tape::<f64, ROOM>::boxed();
    let mut chunked = Trainer::new(&mut *small, &params).unwrap();
    let parts = chunked.gradient(&objective, &params, &batch).unwrap();
    // Never more samples per sweep than the room for `ROOM` allows at the measured cost.
    let most_per_sweep = (ROOM - P) / per_sample;
    assert!(
        chunked.sweeps() > 1 && chunked.sweeps() >= 40 / most_per_sweep,
        "{} sweeps",
        chunked.sweeps()
    );
    assert_eq!(parts.correct, full.correct);
    assert!((parts.loss - full.loss).abs() < 1e-13);
    let c = compare(
        chunked.grads(),
        one.grads(),
        Tolerance::between_modes::<f64>(),
    )
    .unwrap();
    assert!(c.passed, "{c}");

    // Too small for the penalty together with a sample: the penalty gets a sweep of its own.
    // (The penalty is one statement of an operand a nonzero parameter: at most P + 1 slots;
    // 20 more are less than a sample.)
    let mut tiny = Tape::<f64, { P + 2 * P + 1 + 20 }>::boxed();
    let mut alone = Trainer::new(&mut *tiny, &params).unwrap();
    alone.gradient(&objective, &params, &batch).unwrap();
    // The penalty gets a sweep of its own (a sample does not fit in the 20 slots beside it),
    // and the 40 samples at least one more: never one sweep, never more than one per sample.
    assert!(per_sample > 20);
    assert!((2..=41).contains(&alone.sweeps()), "{}", alone.sweeps());
    let c = compare(
        alone.grads(),
        one.grads(),
        Tolerance::between_modes::<f64>(),
    )
    .unwrap();
    assert!(c.passed, "{c}");
}

#[test]
fn a_tape_too_small_for_one_sample_is_an_error_not_a_panic() {
    const MODEL: Mlp<3> = Mlp::new([2, 8, 1], Activation::Tanh, Activation::Linear);
    const P: usize = MODEL.param_count();
    let params = [0.1; P];
    let mut tape = Tape::<f64, { P + 10 }>::new();
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    let err = trainer
        .gradient(&Objective::new(MODEL, SquaredError), &params, &data::xor())
        .unwrap_err();
    assert!(
        matches!(err, NnError::Tape(TapeError::CapacityExceeded { capacity, needed })
            if capacity == P + 10 && needed > capacity),
        "{err:?}"
    );
    assert!(err.to_string().contains("capacity"));

    let mut tiny = Tape::<f64, 5>::new();
    assert!(matches!(
        Trainer::new(&mut tiny, &params),
        Err(NnError::Tape(TapeError::CapacityExceeded {
            capacity: 5,
            needed: P
        }))
    ));
}

#[test]
fn bad_input_is_reported() {
    let model = Mlp::new([2, 3, 3], Activation::Tanh, Activation::Linear);
    let objective = Objective::new(model, SoftmaxCrossEntropy);
    let params = [0.0; 21];
    let bad_label = [Sample {
        x: [0.0, 0.0],
        y: 3.0,
    }];
    assert_eq!(
        objective.evaluate(&params, &bad_label),
        Err(NnError::BadLabel {
            label: 3.0,
            classes: 3
        })
    );
    let half = [Sample {
        x: [0.0, 0.0],
        y: 0.5,
    }];
    assert!(objective.evaluate(&params, &half).is_err());
    let empty: [Sample<2>; 0] = [];
    assert_eq!(
        objective.evaluate(&params, &empty),
        Err(NnError::EmptyBatch)
    );
    let wrong_inputs = [Sample {
        x: [0.0; 3],
        y: 0.0,
    }];
    assert!(matches!(
        objective.evaluate(&params, &wrong_inputs),
        Err(NnError::LengthMismatch { what: "inputs", .. })
    ));
    let mut tape = Tape::<f64, 256>::new();
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    assert!(trainer.gradient(&objective, &params, &bad_label).is_err());
    // The trainer is still usable afterwards.
    let ok = [Sample {
        x: [1.0, 0.5],
        y: 2.0,
    }];
    assert!(trainer.gradient(&objective, &params, &ok).is_ok());
}
