//! Deliberate failures, chosen at run time from the semihosting command line (QEMU's
//! `-append selftest=<mode>`), so `cargo xtask firmware` can show with the very binary it tests
//! that each way of failing on the device fails the run.

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
