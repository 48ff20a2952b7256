//! What the device binaries share: the checks, the XOR setup and its `f32` trainer, the report,
//! the stack painter, the instruction counter, the selftests, and the fault handlers.
//!
//! Binaries (each run under QEMU by `cargo xtask firmware`, each printing `metric key=value`
//! lines and `RESULT PASS` or `RESULT FAIL`):
//! - `autograd-firmware` (`main.rs`): the seeds' examples and the XOR training in `f32`;
//! - `gradient-checks`: reverse vs forward mode vs finite differences over every operation;
//! - `xor-q16`: the XOR training in Q16.16 fixed point;
//! - `minimal`: the README's minimal embedding (exit code only), for its footprint.
//!
//! Several binaries, not one, because the micro:bit's 256 KiB of flash does not hold them all.
#![no_std]

pub mod checks;
pub mod report;
pub mod selftest;
pub mod setup;
pub mod stack;
pub mod timer;
pub mod xor;

use autograd_core::Tape;
use cortex_m_rt::{exception, ExceptionFrame};
use cortex_m_semihosting::{debug, hprintln};

use report::Report;

/// Capacity of the one tape every check and the trainer share (rewound between uses).
pub const TAPE_CAPACITY: usize = 256;

/// The tape type used throughout: single precision, as the FPU of a Cortex-M4F computes.
pub type DeviceTape = Tape<f32, TAPE_CAPACITY>;

// What the READMEs and autograd-nn's buffers assume on these 32-bit parts: a slot of 12 bytes
// and a handle of 32 (the tape's address and capacity, the value, two pending partials and
// their indices, the pair count, the operation and the node flag). A slot with a 16-bit index
// would still take 12 (the `f32`s' alignment); a handle with 16-bit indices would take 28
// (PERFORMANCE.md, "The smallest index type").
const _: () = {
    assert!(core::mem::size_of::<autograd_core::Slot<f32>>() == 12);
    assert!(core::mem::size_of::<autograd_core::Var<'static, f32>>() == 32);
    assert!(core::mem::size_of::<(f32, f32, u16)>() == 12);
    // The same fields as a handle's, with 16-bit indices.
    type U16Handle = (
        &'static [autograd_core::Slot<f32>],
        f32,
        [f32; 2],
        [u16; 2],
        u8,
        autograd_core::Op,
        bool,
    );
    assert!(core::mem::size_of::<U16Handle>() == 28);
};

/// The board this binary was built for (build.rs derives it from the target).
pub fn board() -> &'static str {
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

/// Prints the check counts and the result, and exits QEMU: success only if no check failed.
pub fn finish(report: &Report) -> ! {
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
