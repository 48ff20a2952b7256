//! The seed lesson's XOR network: MLP [2, 4, 1] with tanh neurons (output included), weights
//! uniform(-1, 1) and zero biases, loss `sum((p - y)^2)` over the four points with targets -1/1,
//! plain SGD with lr 0.05, trained until the sign of every prediction is right, and on until the
//! loss is at most 0.25 (every prediction within 0.5 of its target).
//!
//! `cargo run -p autograd-nn --example xor [-- SEED]`
//!
//! `tests/examples.rs` includes this file and checks the claims printed here.
mod common;

use std::ops::ControlFlow;
use std::process::ExitCode;

use autograd_core::Tape;
use autograd_nn::{
    data, Activation, Init, LearningRate, Mlp, Objective, Reduction, Rng, Sgd, SquaredError,
    TrainConfig, Trainer,
};

const MODEL: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
const P: usize = MODEL.param_count();
/// Parameters, the four samples (by bounds, with room to spare: 2 for the inputs, which take
/// none, the forward pass's bound, 2 for the loss and 1 for the sum each), the scale.
const TAPE_NODES: usize = P + 4 * (2 + MODEL.forward_slots() + 3) + 8;
pub const MAX_STEPS: usize = 100_000;

fn main() -> ExitCode {
    common::main_with_seed("xor", 42, train)
}

/// What a run found.
pub struct XorRun {
    /// First step at which all four signs were right.
    pub first_all_right: Option<usize>,
    /// Updates made until the loss was at most 0.25.
    pub updates: usize,
    /// The final loss.
    pub loss: f64,
    /// Predictions on the four inputs after training.
    pub predictions: [f64; 4],
}

/// Trains from `seed`, printing progress if `verbose`.
pub fn train(seed: u64, verbose: bool) -> Result<XorRun, autograd_nn::NnError> {
    let objective = Objective::new(MODEL, SquaredError).with_reduction(Reduction::Sum);
    let mut params = [0.0_f64; P];
    MODEL.init(&mut params, Init::Uniform, &mut Rng::new(seed))?;
    let mut data = data::xor();

    let mut tape = Tape::<f64, TAPE_NODES>::new();
    let mut trainer = Trainer::new(&mut tape, &params)?;
    let mut sgd = Sgd::new(LearningRate::Constant(0.05));
    // Stop once the loss is at most 0.25: then every |p - y| <= 0.5, so each sign is right
    // with a clear margin (the first step with four right signs is reported too).
    let config = TrainConfig {
        target_loss: Some(0.25),
        ..TrainConfig::steps(MAX_STEPS)
    };
    if verbose {
        println!(
            "MLP [2, 4, 1] tanh, {P} parameters, seed {seed}, SGD lr 0.05, loss sum((p - y)^2)"
        );
    }
    let mut first_all_right = None;
    let outcome = trainer.train(&objective, &mut params, &mut data, &mut sgd, &config, |p| {
        if p.accuracy == Some(1.0) && first_all_right.is_none() {
            first_all_right = Some(p.step);
        }
        if verbose && (p.step % 100 == 0 || p.step < 100 && p.step % 20 == 0) {
            println!(
                "step {:5}  loss = {:.4}  signs right: {}/4",
                p.step,
                p.loss,
                (p.accuracy.unwrap_or(0.0) * 4.0).round()
            );
        }
        ControlFlow::Continue(())
    })?;
    let last = outcome.last.expect("at least one step");
    let mut predictions = [0.0; 4];
    for (s, pred) in data::xor().iter().zip(&mut predictions) {
        let mut out = [0.0];
        MODEL.forward(&params, &s.x, &mut out)?;
        *pred = out[0];
    }
    if verbose {
        match first_all_right {
            Some(k) => println!("\nall four signs right from step {k} (after {k} SGD updates)"),
            None => println!("\nthe signs were never all right"),
        }
        println!(
            "loss {:.4} <= 0.25 after {} updates (stop: {:?}; {} backward sweep(s) per step)",
            last.loss,
            outcome.updates,
            outcome.stop,
            trainer.sweeps()
        );
        println!("\nPredictions:");
        for (s, pred) in data::xor().iter().zip(&predictions) {
            println!("  input={:?}  target={:2}  pred={:6.3}", s.x, s.y, pred);
        }
    }
    Ok(XorRun {
        first_all_right,
        updates: outcome.updates,
        loss: last.loss,
        predictions,
    })
}
