//! The seed lesson's XOR network (`setup.rs`) trained on the device in `f32` with autograd-nn,
//! and the same steps written by hand on the core as a baseline.
//!
//! Training stops at the first step after which every prediction has the target's sign with a
//! margin (`pred * target > 0.5`), so a lucky near-zero output does not count as learned.

use autograd_core::{NodeId, TapeError, Var};
use autograd_nn::data::{self, Sample};
use autograd_nn::{Init, LearningRate, NnError, Optimizer, Rng, Sgd, Trainer};
use cortex_m_semihosting::hprintln;

use crate::report::Report;
use crate::timer::InstructionCounter;
use crate::DeviceTape;

use crate::setup::{fnv1a, LEARNING_RATE, MARGIN, MAX_STEPS};
pub use crate::setup::{loss, objective, PARAMS, XOR};

/// Weights uniform in (-1, 1), biases 0, from autograd-nn's seeded generator.
pub fn initial_parameters() -> [f32; PARAMS] {
    let mut p = [0.0; PARAMS];
    XOR.init(&mut p, Init::Uniform, &mut Rng::new(42))
        .expect("PARAMS is the network's parameter count");
    p
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
    /// The same steps written by hand on the core (no autograd-nn), as a baseline.
    pub core_nodes_per_step: usize,
    pub core_instructions_per_step: u64,
    /// Peak stack (bytes from the top) while the Trainer ran, before anything was printed.
    pub stack_peak: usize,
    /// The same for the hand-written loop.
    pub core_stack_peak: usize,
    /// FNV-1a of the trained parameters' bits: `cargo xtask firmware` repeats the same steps on
    /// the host and compares, so every part (and the host) must compute the same bits.
    pub params_fnv1a: u64,
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
        core_nodes_per_step: 0,
        core_instructions_per_step: 0,
        stack_peak: 0,
        core_stack_peak: 0,
        params_fnv1a: 0,
    };
    let mut ticks: u64 = 0;
    let mut first_loss = f64::NAN;
    let mut trained = false;
    crate::stack::paint();
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
                result.nodes_per_step = PARAMS + data.len() * trainer.slots_per_sample();
                report.check(trainer.sweeps() == 1, "xor: one backward sweep per step");
            }
            if signs_right(&params, &data) {
                trained = true;
                break;
            }
        }
        Ok(())
    })();
    result.stack_peak = crate::stack::peak();
    result.params_fnv1a = fnv1a(params.iter().map(|p| p.to_bits()));
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

    // The baseline: the same number of steps, from the same start, hand-written on the core.
    crate::stack::paint();
    let core_run = train_on_core(tape, timer, result.steps);
    result.core_stack_peak = crate::stack::peak();
    match core_run {
        Ok((core_params, nodes, instructions)) => {
            result.core_nodes_per_step = nodes;
            result.core_instructions_per_step = instructions;
            // Same operations in the same order: the parameters must agree (to rounding).
            for (a, b) in core_params.iter().zip(&params) {
                report.close(
                    "xor: hand-written loop vs autograd-nn Trainer",
                    *a,
                    *b,
                    1e-5,
                );
            }
        }
        Err(e) => {
            hprintln!("FAIL xor on the core: tape error {}", e);
            report.check(false, "xor: hand-written loop ran");
        }
    }
    result
}

/// The network written out by hand on `Var`s, in autograd-nn's order of operations.
fn predict_by_hand<'t>(p: &[Var<'t, f32>; PARAMS], x: [Var<'t, f32>; 2]) -> Var<'t, f32> {
    let mut out = p[16];
    for j in 0..4 {
        let hidden = (p[3 * j + 2] + p[3 * j] * x[0] + p[3 * j + 1] * x[1]).tanh();
        out += p[12 + j] * hidden;
    }
    out.tanh()
}

/// `steps` SGD steps with a loop written directly on the tape: record, one backward sweep,
/// rewind to the parameters, update them. Returns the parameters, the nodes a step records and
/// the instructions a step takes.
fn train_on_core(
    tape: &mut DeviceTape,
    timer: &InstructionCounter,
    steps: u32,
) -> Result<([f32; PARAMS], usize, u64), TapeError> {
    let mut params = initial_parameters();
    tape.clear();
    let mut ids: [Option<NodeId>; PARAMS] = [None; PARAMS];
    for (id, p) in ids.iter_mut().zip(params) {
        *id = tape.try_var(p)?.id();
    }
    let ids: [NodeId; PARAMS] = ids.map(|id| id.expect("try_var returned a recorded value"));
    let start_of_step = tape.mark();
    let data = data::xor();
    let lr = LEARNING_RATE as f32;
    let (mut ticks, mut nodes) = (0u64, 0);
    for _ in 0..steps {
        let start = timer.now();
        let mut grad = [0.0f32; PARAMS];
        {
            let mut vars = [Var::constant(0.0); PARAMS];
            for (v, id) in vars.iter_mut().zip(&ids) {
                *v = tape.get(*id)?;
            }
            let mut total: Option<Var<'_, f32>> = None;
            for s in &data {
                let x = [tape.var(s.x[0] as f32), tape.var(s.x[1] as f32)];
                let error = predict_by_hand(&vars, x) - s.y as f32;
                let l = error * error;
                total = Some(match total {
                    Some(t) => t + l,
                    None => l,
                });
            }
            let total = total.ok_or(TapeError::NotRecorded)?;
            tape.backward(total)?.write_to(&vars, &mut grad)?;
        }
        nodes = tape.len();
        tape.rewind(start_of_step);
        for ((p, g), id) in params.iter_mut().zip(grad).zip(&ids) {
            *p -= lr * g;
            tape.set_value(*id, *p)?;
        }
        ticks += u64::from(timer.ticks_since(start));
    }
    Ok((
        params,
        nodes,
        timer.instructions(ticks) / u64::from(steps.max(1)),
    ))
}
