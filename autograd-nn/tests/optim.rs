//! Optimizer updates against values worked out by hand, and the training loop's contract.

use std::ops::ControlFlow;

use autograd_core::Tape;
use autograd_nn::data::{self, Sample};
use autograd_nn::{
    Activation, Adam, LearningRate, Mlp, Momentum, Objective, Optimizer, Sgd, SquaredError, Stop,
    TrainConfig, Trainer,
};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn sgd_follows_micrograds_schedule() {
    let mut sgd = Sgd::new(LearningRate::Linear {
        start: 1.0,
        end: 0.1,
        steps: 100,
    });
    let mut p = [1.0_f64, 2.0];
    let g = [0.5, -0.25];
    sgd.step(&mut p, &g); // lr 1.0
    assert_eq!(p, [0.5, 2.25]);
    assert!(close(
        Optimizer::<f64, 2>::learning_rate(&sgd),
        0.991,
        1e-15
    ));
    sgd.step(&mut p, &g); // lr 0.991
    assert!(close(p[0], 0.5 - 0.4955, 1e-15) && close(p[1], 2.25 + 0.24775, 1e-15));
    assert_eq!(Optimizer::<f64, 2>::steps(&sgd), 2);
}

#[test]
fn step_decay_schedule() {
    let lr = LearningRate::Step {
        initial: 0.8,
        factor: 0.5,
        every: 10,
    };
    assert_eq!(
        [lr.at(0), lr.at(9), lr.at(10), lr.at(25)],
        [0.8, 0.8, 0.4, 0.2]
    );
    assert_eq!(LearningRate::Constant(0.3).at(1_000_000), 0.3);
}

#[test]
fn momentum_two_steps_by_hand() {
    // v1 = g1 = (1, -2), p1 = p0 - 0.1 v1 = (0.9, -0.8)
    // v2 = 0.9 v1 + g2 = (1.4, -1.3), p2 = p1 - 0.1 v2 = (0.76, -0.67)
    let mut opt = Momentum::new(LearningRate::Constant(0.1), 0.9).unwrap();
    let mut p = [1.0_f64, -1.0];
    opt.step(&mut p, &[1.0, -2.0]);
    assert!(close(p[0], 0.9, 1e-15) && close(p[1], -0.8, 1e-15));
    opt.step(&mut p, &[0.5, 0.5]);
    assert!(close(p[0], 0.76, 1e-15) && close(p[1], -0.67, 1e-15));
}

#[test]
fn adam_two_steps_by_hand() {
    // t = 1, g = 2: m = 0.2, v = 0.004, m_hat = 2, v_hat = 4, p = 1 - 0.1 * 2 / (2 + 1e-8)
    // t = 2, g = -1: m = 0.08, v = 0.004996, m_hat = 0.08 / 0.19, v_hat = 0.004996 / 0.001999
    let mut adam = Adam::new(LearningRate::Constant(0.1));
    let mut p = [1.0_f64];
    adam.step(&mut p, &[2.0]);
    assert!(close(p[0], 0.9000000005, 1e-15), "{}", p[0]);
    adam.step(&mut p, &[-1.0]);
    assert!(close(p[0], 0.8733662967024315, 1e-14), "{}", p[0]);

    // f32 state works the same way (to f32 precision).
    let mut adam = Adam::new(LearningRate::Constant(0.1));
    let mut q = [1.0_f32];
    adam.step(&mut q, &[2.0]);
    adam.step(&mut q, &[-1.0]);
    assert!((q[0] - 0.873_366_3).abs() < 1e-6);
}

#[test]
fn sgd_on_a_quadratic_matches_the_closed_form() {
    // One linear neuron fitting y = 0 at x = 1 with squared error: L = (w + b)^2, so
    // dL/dw = dL/db = 2 (w + b) and each SGD step multiplies s = w + b by (1 - 4 lr).
    let model = Mlp::new([1, 1], Activation::Linear, Activation::Linear);
    let objective = Objective::new(model, SquaredError);
    let mut params = [0.75_f64, 0.25];
    let mut tape = Tape::<f64, 64>::new();
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    let mut data = [Sample { x: [1.0], y: 0.0 }];
    let mut sgd = Sgd::new(LearningRate::Constant(0.1));
    let mut seen = Vec::new();
    let outcome = trainer
        .train(
            &objective,
            &mut params,
            &mut data,
            &mut sgd,
            &TrainConfig::steps(5),
            |p| {
                seen.push(p.loss);
                ControlFlow::Continue(())
            },
        )
        .unwrap();
    assert_eq!(outcome.stop, Stop::StepBudget);
    assert_eq!(outcome.updates, 5);
    for (k, loss) in seen.iter().enumerate() {
        let s = 0.6_f64.powi(k as i32); // s_k = 0.6^k
        assert!(close(*loss, s * s, 1e-14), "step {k}: {loss}");
    }
    assert!(close(params[0] + params[1], 0.6_f64.powi(5), 1e-14));
}

fn xor_trainer_setup() -> (Objective<SquaredError, 3>, [f64; 17]) {
    let model = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    let mut params = [0.0; 17];
    model
        .init(
            &mut params,
            autograd_nn::Init::Uniform,
            &mut autograd_nn::Rng::new(42),
        )
        .unwrap();
    (Objective::new(model, SquaredError), params)
}

#[test]
fn training_stops_at_the_target_before_updating() {
    let (objective, mut params) = xor_trainer_setup();
    let mut tape = Tape::<f64, 256>::new();
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    let mut data = data::xor();
    let mut sgd = Sgd::new(LearningRate::Constant(0.5));
    let config = TrainConfig {
        target_accuracy: Some(1.0),
        ..TrainConfig::steps(10_000)
    };
    let mut reports = 0;
    let outcome = trainer
        .train(
            &objective,
            &mut params,
            &mut data,
            &mut sgd,
            &config,
            |_| {
                reports += 1;
                ControlFlow::Continue(())
            },
        )
        .unwrap();
    assert_eq!(outcome.stop, Stop::TargetAccuracy);
    assert_eq!(reports, outcome.updates + 1);
    assert_eq!(Optimizer::<f64, 17>::steps(&sgd), outcome.updates);
    let last = outcome.last.unwrap();
    // The returned parameters are the ones the last report measured.
    let stats = objective.stats(&params, &data).unwrap();
    assert_eq!(stats.accuracy(), Some(1.0));
    assert!(close(stats.loss, last.loss, 1e-12));
}

#[test]
fn the_callback_can_stop_training() {
    let (objective, mut params) = xor_trainer_setup();
    let before = params;
    let mut tape = Tape::<f64, 256>::new();
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    let mut sgd = Sgd::new(LearningRate::Constant(0.5));
    let outcome = trainer
        .train(
            &objective,
            &mut params,
            &mut data::xor(),
            &mut sgd,
            &TrainConfig::steps(100),
            |p| {
                if p.step == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        )
        .unwrap();
    assert_eq!((outcome.stop, outcome.updates), (Stop::Callback, 3));
    assert_ne!(params, before);
    let none = trainer
        .train(
            &objective,
            &mut params,
            &mut data::xor(),
            &mut sgd,
            &TrainConfig::steps(0),
            |_| ControlFlow::Continue(()),
        )
        .unwrap();
    assert_eq!(none.last, None);
}

#[test]
fn mini_batches_visit_every_sample_once_per_epoch() {
    // A linear model whose gradient with respect to the bias is 2 (b - y) per sample under
    // squared error with Sum reduction: with lr 0 nothing moves, and the reported loss of a
    // batch is sum over its samples of y^2, which identifies the samples it held.
    let model = Mlp::new([1, 1], Activation::Linear, Activation::Linear);
    let objective = Objective::new(model, SquaredError).with_reduction(autograd_nn::Reduction::Sum);
    let mut params = [0.0_f64, 0.0];
    let mut data: Vec<Sample<1>> = (0..12)
        .map(|k| Sample {
            x: [0.0],
            y: (1u64 << k) as f64,
        })
        .collect();
    let mut tape = Tape::<f64, 64>::new();
    let mut trainer = Trainer::new(&mut tape, &params).unwrap();
    let mut sgd = Sgd::new(LearningRate::Constant(0.0));
    let config = TrainConfig {
        batch_size: Some(4),
        seed: 5,
        ..TrainConfig::steps(6)
    };
    let mut losses = Vec::new();
    trainer
        .train(&objective, &mut params, &mut data, &mut sgd, &config, |p| {
            losses.push(p.loss);
            ControlFlow::Continue(())
        })
        .unwrap();
    // Each epoch (3 batches) covers all 12 samples: sum of 4^k for k < 12.
    let all: f64 = (0..12).map(|k| 4f64.powi(k)).sum();
    assert_eq!(losses[0] + losses[1] + losses[2], all);
    assert_eq!(losses[3] + losses[4] + losses[5], all);
    assert_ne!(losses[0], losses[3], "the second epoch is reshuffled");

    let bad = TrainConfig {
        batch_size: Some(13),
        ..config
    };
    assert!(trainer
        .train(&objective, &mut params, &mut data, &mut sgd, &bad, |_| {
            ControlFlow::Continue(())
        })
        .is_err());
}
