//! The finite-difference reference: central differences in `f64` at three steps,
//! Richardson-extrapolated, each estimate with the size of its own error, and the comparison
//! that trusts an estimate only as far as it is accurate (see the module docs of `check.rs`).

use autograd_core::{Function, Tolerance};

use super::judge::{compare, scaled};
use super::{Error, Outcome, Skip};

/// Compares `actual` with finite-difference estimates under `tolerance` (scaled to the
/// reference's size), records the worst error in `outcome` and, on failure, the message
/// `describe(index, reference values)`.
pub fn judge_fd(
    outcome: &mut Outcome,
    actual: &[f64],
    fd: &[Estimate],
    tolerance: Tolerance,
    describe: &dyn Fn(usize, &[f64]) -> String,
) {
    let values: Vec<f64> = fd.iter().map(|e| e.value).collect();
    let (ok, err, i) = compare_fd(actual, fd, scaled(tolerance, &values));
    outcome.errors.push(("reverse vs finite diff.", err));
    if !ok {
        outcome.failure = Some(describe(i, &values));
    }
}

/// A finite-difference estimate of one derivative and the size of its own error.
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    pub value: f64,
    pub error: f64,
}

/// Richardson extrapolation of central differences `D(h/2)`, `D(h/4)` (given `D(h)` too):
/// `(4 D(h/4) - D(h/2)) / 3`, error O(h^4). Its error is estimated by its distance from the same
/// extrapolation one step coarser; a reference whose estimated error exceeds 10 % of its value,
/// or whose raw differences disagree by that much, is unreliable (`fd-unstable`).
pub fn extrapolate(d1: f64, d2: f64, d4: f64) -> Result<Estimate, Skip> {
    if !d1.is_finite() || !d2.is_finite() || !d4.is_finite() {
        return Err(Skip::FdDomain);
    }
    let coarse = (4.0 * d2 - d1) / 3.0;
    let value = (4.0 * d4 - d2) / 3.0;
    let error = (coarse - value).abs();
    let limit = 0.1 * (value.abs() + Tolerance::finite_differences::<f64>().atol);
    if error > limit || (d2 - d4).abs() > limit {
        return Err(Skip::FdUnstable);
    }
    Ok(Estimate { value, error })
}

/// The step for input value `x`: the core's `cbrt(eps) max(1, |x|)` in `f64`.
pub fn step(x: f64) -> f64 {
    f64::EPSILON.cbrt() * x.abs().max(1.0)
}

/// Central differences of `f` at `x`, Richardson-extrapolated, always evaluated in `f64` (for an
/// `f32` case at the `f32` point: the reference is then far more accurate than the result it
/// checks). See the module docs for the rule.
pub(super) fn richardson<F: Function + ?Sized>(
    f: &F,
    point: &[f64],
) -> Result<Vec<Estimate>, Skip> {
    let mut x = point.to_vec();
    let mut out = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        let xi = point[i];
        let h = step(xi);
        let mut diff = |s: f64| {
            x[i] = xi + s;
            let up: f64 = f.eval(&x);
            x[i] = xi - s;
            let down: f64 = f.eval(&x);
            x[i] = xi;
            // Divide by the steps actually taken (x + h rounds).
            (up - down) / ((xi + s) - (xi - s))
        };
        let (d1, d2, d4) = (diff(h), diff(h / 2.0), diff(h / 4.0));
        out.push(extrapolate(d1, d2, d4)?);
    }
    Ok(out)
}

/// `actual` against finite-difference estimates: the tolerance of each element is widened by
/// twice that estimate's own error, so a reference is trusted only as far as it is accurate.
pub fn compare_fd(actual: &[f64], fd: &[Estimate], tolerance: Tolerance) -> (bool, Error, usize) {
    let mut passed = true;
    let mut worst = (f64::NEG_INFINITY, Error::default(), 0);
    for (i, (&a, e)) in actual.iter().zip(fd).enumerate() {
        let t = Tolerance::new(tolerance.atol + 2.0 * e.error, tolerance.rtol);
        let (ok, err, _) = compare(&[a], &[e.value], t);
        passed &= ok;
        let badness = (a - e.value).abs() / (t.atol + t.rtol * e.value.abs());
        let badness = if badness.is_nan() {
            f64::INFINITY
        } else {
            badness
        };
        if badness > worst.0 {
            worst = (badness, err, i);
        }
    }
    (passed, worst.1, worst.2)
}
