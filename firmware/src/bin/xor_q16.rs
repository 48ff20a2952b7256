//! The seed lesson's XOR training (`setup.rs`: network, initialisation, loss, SGD, stopping rule)
//! in Q16.16 fixed point (`autograd_core::Q16`), on the same tape, trainer and optimizer code as
//! the `f32` run of the device test suite. On a Cortex-M0 every `f32` operation is a software
//! routine; a Q16 addition is one instruction and a product one 32x32 -> 64 multiply.
//!
//! A binary of its own: with the `f32` suite it would not fit the micro:bit's 256 KiB of flash.
//! Lines starting with `metric ` are read by `cargo xtask firmware`, which compares the steps and
//! instructions per step with the `f32` run and the trained parameters' bits with the same steps
//! run on the host.
#![no_std]
#![no_main]

use core::mem::size_of;

use autograd_core::{Number, Scalar, Slot, Tape, Q16};
use autograd_firmware::report::Report;
use autograd_firmware::setup::{
    self, fnv1a, objective, LEARNING_RATE, MARGIN, MAX_STEPS, PARAMS, XOR,
};
use autograd_firmware::{board, finish, stack, timer, TAPE_CAPACITY};
use autograd_nn::data::{self, Sample};
use autograd_nn::{Init, LearningRate, NnError, Optimizer, Rng, Sgd, Trainer};
use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use panic_semihosting as _;

/// The same capacity as the suite's `f32` tape.
type FixedTape = Tape<Q16, TAPE_CAPACITY>;

/// Whether every prediction has its target's sign by at least [`MARGIN`], computed in Q16.
fn signs_right(params: &[Q16; PARAMS], data: &[Sample<2>]) -> bool {
    let margin = Q16::from_f64(f64::from(MARGIN));
    data.iter().all(|s| {
        let mut out = [Q16::ZERO];
        let x = [Q16::from_f64(s.x[0]), Q16::from_f64(s.x[1])];
        XOR.forward(params, &x, &mut out).is_ok() && out[0] * Q16::from_f64(s.y) > margin
    })
}

#[entry]
fn main() -> ! {
    let cp = cortex_m::Peripherals::take().expect("peripherals are taken once, here");
    let timer = timer::InstructionCounter::new(cp.SYST);
    let tape: &'static mut FixedTape =
        cortex_m::singleton!(: FixedTape = Tape::new()).expect("the tape is created once");
    let mut report = Report::new();
    hprintln!("xor in Q16 on {}", board());

    let objective = objective();
    let data = data::xor();
    let mut params = [Q16::ZERO; PARAMS];
    let mut sgd = Sgd::new(LearningRate::Constant(LEARNING_RATE));
    let (mut steps, mut ticks, mut first_loss, mut trained) = (0u32, 0u64, f64::NAN, false);
    stack::paint();
    let outcome: Result<(), NnError> = (|| {
        XOR.init(&mut params, Init::Uniform, &mut Rng::new(42))?;
        let mut trainer = Trainer::new(tape, &params)?;
        while steps < MAX_STEPS {
            let start = timer.now();
            let stats = trainer.gradient(&objective, &params, &data)?;
            sgd.step(&mut params, trainer.grads());
            ticks += u64::from(timer.ticks_since(start));
            steps += 1;
            if steps == 1 {
                first_loss = stats.loss;
            }
            if signs_right(&params, &data) {
                trained = true;
                break;
            }
        }
        Ok(())
    })();
    let stack_peak = stack::peak();
    if let Err(e) = outcome {
        hprintln!("FAIL xor in Q16: {}", e);
        report.check(false, "xor Q16: training ran");
    }
    let final_loss = setup::loss(&params).to_f64();
    hprintln!(
        "xor in Q16.16 fixed point, the suite's setup: every sign right after {} steps, loss {} -> {}",
        steps,
        first_loss,
        final_loss
    );
    report.check(trained, "xor Q16: every sign right within the step budget");
    report.check(final_loss < first_loss, "xor Q16: loss decreased");

    hprintln!("metric xor_q16_steps={}", steps);
    hprintln!(
        "metric xor_q16_params_fnv1a={:016x}",
        fnv1a(params.iter().map(|p| p.to_bits() as u32))
    );
    hprintln!(
        "metric insns_per_xor_step_q16={}",
        timer.instructions(ticks) / u64::from(steps.max(1))
    );
    hprintln!("metric xor_q16_stack_peak_bytes={}", stack_peak);
    hprintln!("metric q16_slot_bytes={}", size_of::<Slot<Q16>>());
    hprintln!("metric q16_tape_bytes={}", size_of::<FixedTape>());
    finish(&report)
}
