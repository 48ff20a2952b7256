//! Peak stack use, measured by painting: fill the free stack with a pattern, run, and find the
//! lowest word that was overwritten. Together with `.data + .bss` this is the RAM a run needs,
//! which is how the micro:bit's 16 KiB is shown to be enough.

use core::ptr::{addr_of, read_volatile, write_volatile};

extern "C" {
    // From cortex-m-rt's link.x: the stack grows down from `_stack_start` to `_stack_end`
    // (the end of .bss/.uninit).
    static _stack_start: u32;
    static _stack_end: u32;
}

const PAINT: u32 = 0xACE0_BA5E;
/// Words just below the live stack pointer are left alone (this function's own frame).
const GUARD: usize = 64;

fn bounds() -> (usize, usize) {
    // Only the addresses of the linker symbols are taken, never their contents.
    (
        addr_of!(_stack_end) as usize,
        addr_of!(_stack_start) as usize,
    )
}

/// Paints the unused part of the stack.
#[inline(never)]
pub fn paint() {
    let (bottom, _) = bounds();
    let sp = cortex_m::register::msp::read() as usize;
    let mut p = (bottom + 3) & !3;
    while p + GUARD < sp {
        // SAFETY: [bottom, sp - GUARD) is RAM reserved for the stack and not in use yet.
        unsafe { write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
}

/// Bytes of stack used at the deepest point since the last [`paint`].
#[inline(never)]
pub fn peak() -> usize {
    let (bottom, top) = bounds();
    let mut p = (bottom + 3) & !3;
    // SAFETY: reads words of the stack region, all of which are mapped RAM.
    while p < top && unsafe { read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    top - p
}

/// Size of the stack region (RAM left after `.data` and `.bss`).
pub fn size() -> usize {
    let (bottom, top) = bounds();
    top - bottom
}
