//! Known-wrong derivative rules, for proving that the checks can fail
//! (`cargo xtask check --selftest`).
//!
//! Compiled only with `RUSTFLAGS="--cfg autograd_fault_injection"`: normal builds contain none
//! of this. The selected fault lives in one static atomic, read with a plain load (no
//! read-modify-write, so it builds on `thumbv6m` too); [`corrupt`] is called where the
//! reverse-mode local derivatives meet the handles' partials (`Var::chain`, `Var::combine`), and
//! [`keeps_adjoints`] where a backward sweep clears the last one's adjoints (`tape/backward.rs`).

use core::sync::atomic::{AtomicU8, Ordering};

use crate::{Op, Scalar};

/// A wrong derivative rule to inject into reverse mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Fault {
    /// The correct rules.
    None = 0,
    /// `sin'(x)` is NaN for `x > 1` (a rule wrong on part of the domain).
    SinNanAboveOne,
    /// `tanh'` has the wrong sign.
    TanhWrongSign,
    /// `x * y` loses a factor 2 in both partial derivatives (so `d/dx x*x` is `x`).
    MulMissingFactorTwo,
    /// `powi` loses a factor 2 (so `d/dx x^2` is `x`).
    PowiMissingFactorTwo,
    /// A backward sweep adds to the adjoints the last sweep left instead of clearing them (the
    /// rules are right; a second sweep over one recording is not).
    SweepKeepsAdjoints,
}

impl Fault {
    /// Every fault, for the self-test.
    pub const ALL: [Fault; 5] = [
        Fault::SinNanAboveOne,
        Fault::TanhWrongSign,
        Fault::MulMissingFactorTwo,
        Fault::PowiMissingFactorTwo,
        Fault::SweepKeepsAdjoints,
    ];

    /// The name the self-test selects it by.
    pub const fn name(self) -> &'static str {
        match self {
            Fault::None => "none",
            Fault::SinNanAboveOne => "sin-nan-above-one",
            Fault::TanhWrongSign => "tanh-wrong-sign",
            Fault::MulMissingFactorTwo => "mul-missing-factor-two",
            Fault::PowiMissingFactorTwo => "powi-missing-factor-two",
            Fault::SweepKeepsAdjoints => "sweep-keeps-adjoints",
        }
    }

    /// The operation whose rule it corrupts (none for a fault of the sweep).
    pub const fn op(self) -> Option<Op> {
        match self {
            Fault::None | Fault::SweepKeepsAdjoints => None,
            Fault::SinNanAboveOne => Some(Op::Sin),
            Fault::TanhWrongSign => Some(Op::Tanh),
            Fault::MulMissingFactorTwo => Some(Op::Mul),
            Fault::PowiMissingFactorTwo => Some(Op::Powi),
        }
    }
}

static FAULT: AtomicU8 = AtomicU8::new(Fault::None as u8);

/// Selects the fault every later backward sweep (in every thread) applies.
pub fn inject(fault: Fault) {
    FAULT.store(fault as u8, Ordering::Relaxed);
}

/// The local derivatives (or adjoint contributions) `partials` of a node `op(x, ..)`, corrupted
/// by the selected fault.
pub(crate) fn corrupt<S: Scalar>(op: Op, x: S, partials: (S, S)) -> (S, S) {
    let (dx, dy) = partials;
    let half = S::from_f64(0.5);
    match (FAULT.load(Ordering::Relaxed), op) {
        (1, Op::Sin) if x > S::ONE => (S::from_f64(f64::NAN), dy),
        (2, Op::Tanh) => (-dx, dy),
        (3, Op::Mul) => (dx * half, dy * half),
        (4, Op::Powi) => (dx * half, dy),
        _ => (dx, dy),
    }
}

/// `true` if the selected fault makes a backward sweep keep the last sweep's adjoints.
pub(crate) fn keeps_adjoints() -> bool {
    FAULT.load(Ordering::Relaxed) == Fault::SweepKeepsAdjoints as u8
}
