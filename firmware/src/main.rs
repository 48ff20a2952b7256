//! The device test suite: the seeds' worked examples checked on the device, and the seed lesson's
//! XOR network trained in `f32` with autograd-nn (and the same steps written by hand on the
//! core). Prints a short report over semihosting and exits QEMU with success only if every check
//! passed. A panic or a fault exits with failure, so a wrong derivative or a crash on the device
//! fails CI instead of hanging it.
//!
//! Lines starting with `metric ` are read by `cargo xtask firmware`.
#![no_std]
#![no_main]

use core::mem::size_of;

use autograd_core::{Slot, Tape};
use autograd_firmware::report::Report;
use autograd_firmware::{board, checks, finish, selftest, stack, timer, xor, DeviceTape};
use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use panic_semihosting as _;

#[entry]
fn main() -> ! {
    let cp = cortex_m::Peripherals::take().expect("peripherals are taken once, here");
    stack::paint();
    let timer = timer::InstructionCounter::new(cp.SYST);
    // The tape lives in a static (`.bss`), not on the stack: RAM use shows in the link map.
    let tape: &'static mut DeviceTape =
        cortex_m::singleton!(: DeviceTape = Tape::new()).expect("the tape is created once");

    selftest::start();

    hprintln!("autograd firmware on {}", board());
    let mut report = Report::new();
    checks::seed_examples(tape, &mut report);
    let checks_stack = stack::peak();
    let xor = xor::train(tape, &timer, &mut report);
    // Training repainted the stack to measure itself; the deepest point of the whole run is the
    // deepest of the checks, of each training loop and of what came after.
    let stack_peak = checks_stack
        .max(xor.stack_peak)
        .max(xor.core_stack_peak)
        .max(stack::peak());

    hprintln!("metric tape_capacity={}", tape.capacity());
    hprintln!("metric node_bytes={}", size_of::<Slot<f32>>());
    hprintln!("metric tape_bytes={}", size_of::<DeviceTape>());
    hprintln!("metric xor_nodes_per_step={}", xor.nodes_per_step);
    hprintln!("metric xor_steps={}", xor.steps);
    hprintln!("metric xor_params_fnv1a={:016x}", xor.params_fnv1a);
    hprintln!("metric insns_per_xor_step={}", xor.instructions_per_step);
    hprintln!("metric xor_core_nodes_per_step={}", xor.core_nodes_per_step);
    hprintln!(
        "metric insns_per_xor_step_core={}",
        xor.core_instructions_per_step
    );
    hprintln!("metric stack_peak_bytes={}", stack_peak);
    hprintln!("metric xor_stack_peak_bytes={}", xor.stack_peak);
    hprintln!("metric xor_core_stack_peak_bytes={}", xor.core_stack_peak);
    hprintln!("metric stack_size_bytes={}", stack::size());
    report.check(
        stack_peak < stack::size(),
        "the stack stayed within its region",
    );
    let (ticks, instructions) = timer.calibration();
    hprintln!("metric systick_calibration={}/{}", ticks, instructions);
    finish(&report)
}
