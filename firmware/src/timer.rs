//! Deterministic instruction counts from SysTick under QEMU's `-icount`.
//!
//! QEMU does not emulate the DWT cycle counter, but with `-icount shift=N` every instruction
//! advances the virtual clock by exactly 2^N ns, and SysTick (on the core clock) counts that
//! clock. The number of SysTick ticks per instruction depends on the board's clock, so it is
//! calibrated on the device with a loop of known length.

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;

/// SysTick is a 24-bit down counter.
const MASK: u32 = 0x00FF_FFFF;

pub struct InstructionCounter {
    /// Owned so nothing else reconfigures SysTick while it counts.
    _syst: SYST,
    /// Instructions and SysTick ticks of the calibration loop (their ratio converts ticks).
    calibration_instructions: u64,
    calibration_ticks: u64,
}

impl InstructionCounter {
    /// Starts SysTick free-running on the core clock and calibrates it.
    pub fn new(mut syst: SYST) -> Self {
        syst.disable_interrupt();
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(MASK);
        syst.clear_current();
        syst.enable_counter();
        let mut counter = InstructionCounter {
            _syst: syst,
            calibration_instructions: 0,
            calibration_ticks: 0,
        };
        // Two loop lengths: the difference cancels the cost of reading the counter.
        const SHORT: u32 = 1_000;
        const LONG: u32 = 101_000;
        let short = counter.ticks_of(|| spin(SHORT));
        let long = counter.ticks_of(|| spin(LONG));
        counter.calibration_instructions = 2 * u64::from(LONG - SHORT);
        counter.calibration_ticks = u64::from(long.saturating_sub(short)).max(1);
        counter
    }

    /// Current counter value.
    #[inline(always)]
    pub fn now(&self) -> u32 {
        SYST::get_current()
    }

    /// Ticks from `start` (an earlier [`now`](Self::now)) to now; valid for spans under 2^24 ticks.
    #[inline(always)]
    pub fn ticks_since(&self, start: u32) -> u32 {
        start.wrapping_sub(self.now()) & MASK
    }

    fn ticks_of(&self, f: impl FnOnce()) -> u32 {
        let start = self.now();
        f();
        self.ticks_since(start)
    }

    /// The calibration: SysTick ticks and the instructions they took.
    pub fn calibration(&self) -> (u64, u64) {
        (self.calibration_ticks, self.calibration_instructions)
    }

    /// Converts a tick count to instructions, rounded to nearest.
    pub fn instructions(&self, ticks: u64) -> u64 {
        (ticks * self.calibration_instructions + self.calibration_ticks / 2)
            / self.calibration_ticks
    }
}

/// Exactly two instructions per iteration (`subs`, `bne`).
#[inline(always)]
fn spin(n: u32) {
    // SAFETY: touches only r0, which is declared as clobbered; no memory, no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs r0, #1",
            "bne 2b",
            inout("r0") n => _,
            options(nomem, nostack),
        );
    }
}
