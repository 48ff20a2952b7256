//! Reverse mode (the tape) against forward mode (dual numbers) and finite differences on the
//! device, in `f32`, over functions that together use every operation of the core's table, and
//! the XOR network's loss with respect to all its parameters (`checks::gradient_batch`).
//!
//! Lines starting with `metric ` are read by `cargo xtask firmware`.
#![no_std]
#![no_main]

use autograd_core::Tape;
use autograd_firmware::report::Report;
use autograd_firmware::{board, checks, finish, selftest, stack, DeviceTape};
use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use panic_semihosting as _;

#[entry]
fn main() -> ! {
    stack::paint();
    let tape: &'static mut DeviceTape =
        cortex_m::singleton!(: DeviceTape = Tape::new()).expect("the tape is created once");
    selftest::start();
    hprintln!("gradient checks on {}", board());
    let mut report = Report::new();
    checks::gradient_batch(tape, &mut report);
    let peak = stack::peak();
    hprintln!("metric gradient_checks_stack_peak_bytes={}", peak);
    report.check(peak < stack::size(), "the stack stayed within its region");
    finish(&report)
}
