//! Training in Q16.16 fixed point (`autograd_core::Q16`) against the same training in `f32`:
//! the seed lesson's XOR network and micrograd's two moons, the same code, the same steps.
//! `cargo test -p autograd-nn --test fixed -- --nocapture` prints the step counts compared.

use std::ops::ControlFlow;

use autograd_core::{Scalar, Tape, Q16};
use autograd_nn::{
    data, Activation, Hinge, Init, LearningRate, Mlp, NnError, Objective, Reduction, Rng, Sgd,
    SquaredError, Stop, TrainConfig, Trainer,
};

/// The seed lesson's XOR setup (as `examples/xor.rs`): MLP [2, 4, 1] tanh, the sum of squared
/// errors, SGD at `lr`, until the loss is at most 0.25.
const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
const XOR_TAPE: usize = 256;

/// What an XOR run found: the first step with every sign right, the updates made, the loss.
#[derive(Debug)]
struct XorRun {
    first_all_right: Option<usize>,
    updates: usize,
    stop: Stop,
    params: Vec<f64>,
}

fn train_xor<S: Scalar>(lr: f64) -> Result<XorRun, NnError> {
    let objective = Objective::new(XOR, SquaredError).with_reduction(Reduction::Sum);
    let mut params = [S::ZERO; XOR.param_count()];
    XOR.init(&mut params, Init::Uniform, &mut Rng::new(42))?;
    let mut tape = Tape::<S, XOR_TAPE>::new();
    let mut trainer = Trainer::new(&mut tape, &params)?;
    let mut sgd = Sgd::new(LearningRate::Constant(lr));
    let config = TrainConfig {
        target_loss: Some(0.25),
        ..TrainConfig::steps(5000)
    };
    let mut first_all_right = None;
    let mut data = data::xor();
    let outcome = trainer.train(&objective, &mut params, &mut data, &mut sgd, &config, |p| {
        if p.accuracy == Some(1.0) && first_all_right.is_none() {
            first_all_right = Some(p.step);
        }
        ControlFlow::Continue(())
    })?;
    Ok(XorRun {
        first_all_right,
        updates: outcome.updates,
        stop: outcome.stop,
        params: params.iter().map(|p| p.to_f64()).collect(),
    })
}

#[test]
fn xor_trains_in_fixed_point_as_in_f32() {
    let f = train_xor::<f32>(0.05).unwrap();
    let q = train_xor::<Q16>(0.05).unwrap();
    println!("XOR, lr 0.05, to loss <= 0.25: f32 {f:?}\nQ16 {q:?}");
    assert_eq!((f.stop, q.stop), (Stop::TargetLoss, Stop::TargetLoss));
    // A Q16 gradient differs from the f32 one by a few steps of 2^-16 (1.5e-5), far below the
    // size of an update: the two runs follow the same path, so they converge within a few
    // steps of each other and end near the same parameters.
    assert!(
        f.updates.abs_diff(q.updates) <= f.updates / 50 + 2,
        "{f:?} {q:?}"
    );
    assert!(
        f.first_all_right
            .unwrap()
            .abs_diff(q.first_all_right.unwrap())
            <= 2,
        "{f:?} {q:?}"
    );
    for (a, b) in f.params.iter().zip(&q.params) {
        assert!((a - b).abs() < 0.02, "f32 {a}, Q16 {b}");
    }
}

#[test]
fn an_overflow_stops_training_with_an_error_naming_the_step() {
    // A learning rate of 20000 times a first gradient of order 1 is past Q16's range (32768):
    // the first update is poison, and the trainer stops there instead of training on garbage.
    // (Smaller rates such as 2000 saturate the tanh units instead: gradients vanish, no overflow.)
    let err = train_xor::<Q16>(20000.0).unwrap_err();
    assert_eq!(
        err,
        NnError::NotFinite {
            step: 0,
            what: "updated parameter"
        }
    );
    assert!(
        train_xor::<f32>(20000.0).is_ok(),
        "f32 has the range for it"
    );
}

#[test]
fn moons_trains_in_fixed_point_about_as_well_as_in_f32() {
    // micrograd's demo (as `examples/moons.rs`, with one sample per backward sweep so the tape
    // fits on the stack): MLP [2, 16, 16, 1] relu, hinge + 1e-4 L2, SGD lr 1.0 -> 0.1 over
    // 100 steps, 100 points.
    const MODEL: Mlp<4> = Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear);
    const P: usize = MODEL.param_count();
    const NODES: usize = P + 2 * P + 1 + (2 + MODEL.forward_slots() + 5) + 8;
    fn run<S: Scalar>() -> (f64, f64, Option<usize>) {
        let mut data = data::moons::<100>(0.1, 1337);
        let mut params = [S::ZERO; P];
        MODEL
            .init(&mut params, Init::Uniform, &mut Rng::new(1337))
            .unwrap();
        let objective = Objective::new(MODEL, Hinge).with_l2(1e-4);
        let mut tape = Tape::<S, NODES>::new();
        let mut trainer = Trainer::new(&mut tape, &params).unwrap();
        let mut sgd = Sgd::new(LearningRate::Linear {
            start: 1.0,
            end: 0.1,
            steps: 100,
        });
        let config = TrainConfig::steps(100);
        let mut first_perfect = None;
        trainer
            .train(&objective, &mut params, &mut data, &mut sgd, &config, |p| {
                if p.accuracy == Some(1.0) && first_perfect.is_none() {
                    first_perfect = Some(p.step);
                }
                ControlFlow::Continue(())
            })
            .unwrap();
        let stats = objective.stats(&params, &data).unwrap();
        (stats.loss, stats.accuracy().unwrap(), first_perfect)
    }
    let (f_loss, f_acc, f_first) = run::<f32>();
    let (q_loss, q_acc, q_first) = run::<Q16>();
    println!(
        "moons after 100 steps: f32 loss {f_loss:.4} accuracy {f_acc}, first 100 % at step \
         {f_first:?}; Q16 loss {q_loss:.4} accuracy {q_acc}, first 100 % at step {q_first:?}"
    );
    assert!(
        f_first.is_some() && q_first.is_some(),
        "both reach 100 % within 100 steps"
    );
    // micrograd's demo reaches 100 %; fixed point must not lose more than a point or two.
    assert!(f_acc >= 0.99, "f32 accuracy {f_acc}");
    assert!(q_acc >= f_acc - 0.02, "Q16 accuracy {q_acc}, f32 {f_acc}");
}
