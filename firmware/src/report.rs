//! Counting checks and printing the ones that fail.

use cortex_m_semihosting::hprintln;

/// Pass/fail counts; every failure is printed with what was expected.
#[derive(Default)]
pub struct Report {
    passed: u32,
    failed: u32,
}

impl Report {
    pub const fn new() -> Self {
        Report {
            passed: 0,
            failed: 0,
        }
    }

    pub fn passed(&self) -> u32 {
        self.passed
    }

    pub fn failed(&self) -> u32 {
        self.failed
    }

    /// Records a check that is simply true or false.
    pub fn check(&mut self, ok: bool, what: &str) -> bool {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            hprintln!("FAIL {}", what);
        }
        ok
    }

    /// `|got - want| <= tol * max(1, |want|)`; NaN never passes.
    pub fn close(&mut self, what: &str, got: f32, want: f32, tol: f32) -> bool {
        let ok = close(got, want, tol);
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            hprintln!("FAIL {}: got {}, want {} (tol {})", what, got, want, tol);
        }
        ok
    }
}

/// `|got - want| <= tol * max(1, |want|)`, false for NaN.
fn close(got: f32, want: f32, tol: f32) -> bool {
    let scale = if want.abs() > 1.0 { want.abs() } else { 1.0 };
    (got - want).abs() <= tol * scale
}
