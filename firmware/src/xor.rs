//! The seed lesson's XOR network trained on the device with autograd-nn: an MLP [2, 4, 1] with
//! tanh units, the sum of squared errors over the four patterns (targets -1/1), plain SGD with
//! lr 0.05, weights uniform in (-1, 1) and biases 0 (seed 42).
//!
//! Training stops at the first step after which every prediction has the target's sign with a
//! margin (`pred * target > 0.5`), so a lucky near-zero output does not count as learned.

use autograd_core::Number;
use autograd_nn::data::{self, Sample};
use autograd_nn::{
    Activation, Init, LearningRate, Mlp, NnError, Objective, Optimizer, Reduction, Rng, Sgd,
    SquaredError, Trainer,
};
use cortex_m_semihosting::hprintln;

use crate::report::Report;
use crate::timer::InstructionCounter;
use crate::DeviceTape;

/// The lesson's network: 2 inputs, 4 tanh hidden units, 1 tanh output.
pub const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
/// 4 * (2 + 1) + (4 + 1).
pub const PARAMS: usize = XOR.param_count();
/// The lesson's loss: the sum (not the mean) of squared errors.
pub fn objective() -> Objective<SquaredError, 3> {
    Objective::new(XOR, SquaredError).with_reduction(Reduction::Sum)
}
const LEARNING_RATE: f64 = 0.05;
/// Every prediction on the target's side of 0, by at least this.
const MARGIN: f32 = 0.5;
/// Give up after this many steps (a failure).
const MAX_STEPS: u32 = 2000;

/// Weights uniform in (-1, 1), biases 0, from autograd-nn's seeded generator.
pub fn initial_parameters() -> [f32; PARAMS] {
    let mut p = [0.0; PARAMS];
    XOR.init(&mut p, Init::Uniform, &mut Rng::new(42))
        .expect("PARAMS is the network's parameter count");
    p
}

/// The objective at `params` on the four XOR patterns, in any number type (NaN on error).
pub fn loss<T: Number>(params: &[T; PARAMS]) -> T {
    objective()
        .evaluate(params, &data::xor())
        .unwrap_or_else(|_| T::from_f64(f64::NAN))
}

fn predict(params: &[f32; PARAMS], x: [f64; 2]) -> f32 {
    let mut out = [0.0f32];
    let x = [x[0] as f32, x[1] as f32];
    match XOR.forward(params, &x, &mut out) {
        Ok(()) => out[0],
        Err(_) => f32::NAN,
    }
}

fn signs_right(params: &[f32; PARAMS], data: &[Sample<2>]) -> bool {
    data.iter()
        .all(|s| predict(params, s.x) * s.y as f32 > MARGIN)
}

/// What training measured.
pub struct XorResult {
    pub steps: u32,
    pub nodes_per_step: usize,
    pub instructions_per_step: u64,
}

/// Trains until every sign is right, timing each step (gradient on the tape + SGD update) in
/// instructions.
pub fn train(tape: &mut DeviceTape, timer: &InstructionCounter, report: &mut Report) -> XorResult {
    let objective = objective();
    let data = data::xor();
    let mut params = initial_parameters();
    let mut sgd = Sgd::new(LearningRate::Constant(LEARNING_RATE));
    let mut result = XorResult {
        steps: 0,
        nodes_per_step: 0,
        instructions_per_step: 0,
    };
    let mut ticks: u64 = 0;
    let mut first_loss = f64::NAN;
    let mut trained = false;
    let outcome: Result<(), NnError> = (|| {
        let mut trainer = Trainer::new(tape, &params)?;
        while result.steps < MAX_STEPS {
            let start = timer.now();
            let stats = trainer.gradient(&objective, &params, &data)?;
            sgd.step(&mut params, trainer.grads());
            ticks += u64::from(timer.ticks_since(start));
            result.steps += 1;
            if result.steps == 1 {
                first_loss = stats.loss;
                result.nodes_per_step = PARAMS + data.len() * trainer.nodes_per_sample();
                report.check(trainer.sweeps() == 1, "xor: one backward sweep per step");
            }
            if signs_right(&params, &data) {
                trained = true;
                break;
            }
        }
        Ok(())
    })();
    if let Err(e) = outcome {
        hprintln!("FAIL xor training: {}", e);
        report.check(false, "xor: training ran");
    }

    let final_loss = loss(&params);
    hprintln!(
        "xor [2, 4, 1] tanh, SSE, SGD lr {}: every sign right (margin {}) after {} steps, loss {} -> {}",
        LEARNING_RATE,
        MARGIN,
        result.steps,
        first_loss,
        final_loss
    );
    for s in data {
        hprintln!("  {:?} -> {} (target {})", s.x, predict(&params, s.x), s.y);
    }
    report.check(trained, "xor: every sign right within the step budget");
    report.check(f64::from(final_loss) < first_loss, "xor: loss decreased");
    result.instructions_per_step = timer.instructions(ticks) / u64::from(result.steps.max(1));
    result
}
