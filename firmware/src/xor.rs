//! The seed lesson's XOR network, trained on the device: an MLP [2, 4, 1] with tanh units, the
//! sum of squared errors over the four patterns (targets -1/1), plain SGD with lr 0.05, weights
//! uniform in (-1, 1) and biases 0. Training stops at the first step after which every
//! prediction has the target's sign with a margin (`pred * target > 0.5`), so a lucky
//! near-zero output does not count as learned.

use autograd_core::{NodeId, Number, TapeError, Var};
use cortex_m_semihosting::hprintln;

use crate::report::Report;
use crate::timer::InstructionCounter;
use crate::DeviceTape;

/// 4 hidden neurons with 2 weights and a bias each, then 4 weights and a bias.
pub const PARAMS: usize = 4 * 3 + 5;
/// The XOR patterns with targets -1/1 (for tanh), as in the lesson.
const DATA: [([f32; 2], f32); 4] = [
    ([0.0, 0.0], -1.0),
    ([0.0, 1.0], 1.0),
    ([1.0, 0.0], 1.0),
    ([1.0, 1.0], -1.0),
];
const LEARNING_RATE: f32 = 0.05;
/// Give up after this many steps (a failure).
const MAX_STEPS: u32 = 2000;

/// Weights uniform in (-1, 1) from a fixed xorshift32 stream, biases 0 (the lesson's init).
pub fn initial_parameters() -> [f32; PARAMS] {
    let mut state: u32 = 42;
    let mut uniform = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    };
    let mut p = [0.0; PARAMS];
    for j in 0..4 {
        p[3 * j] = uniform();
        p[3 * j + 1] = uniform();
    }
    for w in &mut p[12..16] {
        *w = uniform();
    }
    p
}

/// The network's output for input `x`: `tanh(b + sum_j v_j tanh(b_j + w_j . x))`.
pub fn predict<T: Number>(p: &[T; PARAMS], x: [T; 2]) -> T {
    let mut out = p[16];
    for j in 0..4 {
        let (w, b) = ([p[3 * j], p[3 * j + 1]], p[3 * j + 2]);
        let hidden = (b + w[0] * x[0] + w[1] * x[1]).tanh();
        out = out + p[12 + j] * hidden;
    }
    out.tanh()
}

/// Sum of squared errors over the four patterns.
pub fn loss<T: Number>(p: &[T; PARAMS]) -> T {
    let term = |(x, y): ([f32; 2], f32)| {
        let x = [T::from_f64(x[0].into()), T::from_f64(x[1].into())];
        (predict(p, x) - T::from_f64(y.into())).square()
    };
    let mut total = term(DATA[0]);
    for pattern in &DATA[1..] {
        total = total + term(*pattern);
    }
    total
}

/// Every prediction on the target's side of 0, by at least `MARGIN`.
const MARGIN: f32 = 0.5;

fn signs_right(p: &[f32; PARAMS]) -> bool {
    DATA.iter().all(|(x, y)| predict(p, *x) * *y > MARGIN)
}

/// What training measured.
pub struct XorResult {
    pub steps: u32,
    pub nodes_per_step: usize,
    pub instructions_per_step: u64,
}

/// One SGD step: record the loss, one backward sweep, rewind to the parameters, update them.
/// Returns the loss before the update and the number of nodes the step recorded.
fn step(
    tape: &mut DeviceTape,
    ids: &[NodeId; PARAMS],
    params: &mut [f32; PARAMS],
) -> Result<(f32, usize), TapeError> {
    let mark = tape.mark();
    let mut grad = [0.0; PARAMS];
    let loss_value = {
        let mut vars = [Var::constant(0.0); PARAMS];
        for (v, id) in vars.iter_mut().zip(ids) {
            *v = tape.get(*id)?;
        }
        let l = loss(&vars);
        tape.backward(l)?.write_to(&vars, &mut grad)?;
        l.value()
    };
    let nodes = tape.len();
    tape.rewind(mark);
    for ((p, g), id) in params.iter_mut().zip(grad).zip(ids) {
        *p -= LEARNING_RATE * g;
        tape.set_value(*id, *p)?;
    }
    Ok((loss_value, nodes))
}

/// Trains until every sign is right, timing each step in instructions.
pub fn train(tape: &mut DeviceTape, timer: &InstructionCounter, report: &mut Report) -> XorResult {
    let mut params = initial_parameters();
    tape.clear();
    let mut ids = [None; PARAMS];
    for (id, p) in ids.iter_mut().zip(params) {
        *id = tape.var(p).id();
    }
    let ids = ids.map(|id| id.expect("17 leaves fit on the tape"));

    let mut ticks: u64 = 0;
    let mut steps = 0;
    let mut nodes_per_step = 0;
    let mut first_loss = f32::NAN;
    let mut last_loss = f32::NAN;
    let mut trained = false;
    while steps < MAX_STEPS {
        let start = timer.now();
        let result = step(tape, &ids, &mut params);
        ticks += u64::from(timer.ticks_since(start));
        steps += 1;
        match result {
            Ok((l, nodes)) => {
                if steps == 1 {
                    first_loss = l;
                }
                last_loss = l;
                nodes_per_step = nodes;
            }
            Err(e) => {
                hprintln!("FAIL xor step {}: tape error {}", steps, e);
                break;
            }
        }
        if signs_right(&params) {
            trained = true;
            break;
        }
    }

    let final_loss = loss(&params);
    hprintln!(
        "xor [2, 4, 1] tanh, SSE, SGD lr {}: every sign right (margin {}) after {} steps, loss {} -> {}",
        LEARNING_RATE,
        MARGIN,
        steps,
        first_loss,
        final_loss
    );
    for (x, y) in DATA {
        hprintln!("  {:?} -> {} (target {})", x, predict(&params, x), y);
    }
    report.check(trained, "xor: every sign right within the step budget");
    report.check(final_loss < first_loss, "xor: loss decreased");
    report.check(
        final_loss.is_finite() && last_loss.is_finite(),
        "xor: loss finite",
    );

    XorResult {
        steps,
        nodes_per_step,
        instructions_per_step: timer.instructions(ticks) / u64::from(steps.max(1)),
    }
}
