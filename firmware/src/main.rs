//! autograd-core (and the XOR trainer) on a microcontroller, run under QEMU.
//!
//! The program checks derivatives on the device and trains the seed lesson's XOR network, prints a
//! short report over semihosting and exits QEMU with success only if every check passed. A panic
//! or a fault exits with failure, so a wrong derivative or a crash on the device fails CI instead
//! of hanging it.
//!
//! Lines starting with `metric ` are read by `cargo xtask firmware`.
#![no_std]
#![no_main]

mod checks;
mod report;
mod stack;
mod timer;
mod xor;

use core::mem::size_of;

use autograd_core::{Slot, Tape};
use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;

use report::Report;

/// Capacity of the one tape every check and the trainer share (rewound between uses).
pub const TAPE_CAPACITY: usize = 256;

/// The tape type used throughout: single precision, as the FPU of a Cortex-M4F computes.
pub type DeviceTape = Tape<f32, TAPE_CAPACITY>;

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
    checks::gradient_batch(tape, &mut report);
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
    hprintln!("metric checks_passed={}", report.passed());
    hprintln!("metric checks_failed={}", report.failed());
    if report.failed() == 0 {
        hprintln!("RESULT PASS");
        debug::exit(debug::EXIT_SUCCESS);
    } else {
        hprintln!("RESULT FAIL");
        debug::exit(debug::EXIT_FAILURE);
    }
    // Only reached without a debugger/semihosting host: stop here.
    loop {
        cortex_m::asm::bkpt();
    }
}

/// The board this binary was built for (build.rs derives it from the target).
fn board() -> &'static str {
    env!("FIRMWARE_BOARD")
}

/// A fault (bad address, undefined instruction, hard-float code on a part without an FPU) ends the
/// run with failure instead of spinning forever.
#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    hprintln!("HardFault at pc={:#010x}", frame.pc());
    hprintln!("RESULT FAIL");
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::bkpt();
    }
}

/// Any interrupt or exception without its own handler is unexpected here.
#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    hprintln!("unexpected exception {}", irqn);
    hprintln!("RESULT FAIL");
    debug::exit(debug::EXIT_FAILURE);
}

/// Deliberate failures, chosen at run time from the semihosting command line (QEMU's
/// `-append selftest=<mode>`), so `cargo xtask firmware` can show with the very binary it tests
/// that each way of failing on the device fails the run.
mod selftest {
    use core::sync::atomic::{AtomicBool, Ordering};

    /// Set by `selftest=wrong-derivative`: every reverse-mode derivative is off by 0.1%.
    static WRONG_DERIVATIVE: AtomicBool = AtomicBool::new(false);

    pub fn wrong_derivative() -> bool {
        WRONG_DERIVATIVE.load(Ordering::Relaxed)
    }

    /// Reads the command line and starts the failure it asks for, if any.
    pub fn start() {
        let mut buf = [0u8; 512];
        // SAFETY: SYS_GET_CMDLINE writes at most `buf.len()` bytes (NUL-terminated) into `buf`.
        let status =
            unsafe { cortex_m_semihosting::syscall!(GET_CMDLINE, buf.as_mut_ptr(), buf.len() - 1) };
        if status != 0 {
            // No command line (no semihosting host, or longer than the buffer): a normal run. A
            // selftest asked for but not started shows up as a run that did not fail.
            return;
        }
        let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let line = core::str::from_utf8(&buf[..len]).unwrap_or("");
        for word in line.split(' ') {
            match word {
                "selftest=panic" => panic!("selftest: deliberate panic"),
                "selftest=fault" => cortex_m::asm::udf(),
                "selftest=hang" => loop {
                    core::hint::spin_loop();
                },
                "selftest=wrong-derivative" => WRONG_DERIVATIVE.store(true, Ordering::Relaxed),
                _ => {}
            }
        }
    }
}
