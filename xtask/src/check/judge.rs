//! How one case is judged: a result against a reference, element by element, with the core's
//! rule `|a - b| <= atol + rtol |b|` where both are finite and an IEEE-class rule where the
//! reference is not (see the module docs of `check.rs` for the skip rule).

use std::cell::RefCell;
use std::fmt::Write as _;

use autograd_core::{
    gradcheck_with, gradient_forward, gradient_reverse, Function, Number, Scalar, Tape, TapeView,
    Tolerance, Q16,
};

use super::fd::{judge_fd, richardson};
use super::sweeps::broken_sweeps;
use super::{Error, Outcome, Skip};

/// `actual` against the reference `expected` with the core's gradient-check rule
/// (`autograd_core::compare`: `|a - b| <= atol + rtol |b|`): (passes, the worst element's
/// errors, its index).
pub fn compare(actual: &[f64], expected: &[f64], tolerance: Tolerance) -> (bool, Error, usize) {
    match autograd_core::compare(actual, expected, tolerance) {
        Ok(c) => {
            let (error, index) = c.worst.map_or((Error::default(), 0), |w| {
                // A relative error means nothing against a reference inside the absolute floor
                // (e.g. exactly 0): report 0 there, the absolute error says it all.
                let rel = if w.expected.abs() <= tolerance.atol {
                    0.0
                } else {
                    w.rel_error
                };
                (
                    Error {
                        abs: w.abs_error,
                        rel,
                    },
                    w.index,
                )
            });
            (c.passed, error, index)
        }
        // Lengths are equal by construction; a mismatch is reported as a failure, not a panic.
        Err(_) => (
            false,
            Error {
                abs: f64::NAN,
                rel: f64::NAN,
            },
            0,
        ),
    }
}

/// The IEEE class of a value that is not finite (`None` for a finite one).
pub(super) fn non_finite_class(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v == f64::INFINITY {
        Some("+inf")
    } else if v == f64::NEG_INFINITY {
        Some("-inf")
    } else {
        None
    }
}

/// What comparing a result with a reference found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Every element agrees: within tolerance where the reference is finite, the same IEEE class
    /// (same-signed infinity, or NaN and NaN) where it is not; `non_finite` counts the latter.
    Agree { error: Error, non_finite: usize },
    /// An element the reference can judge (a finite one) is out of tolerance or not finite.
    Differ { error: Error, index: usize },
    /// The finite elements agree, but the reference is not finite at an element where the result
    /// is of another class: the reference cannot judge that element.
    ReferenceNonFinite,
}

/// `actual` against `reference`: the finite elements of the reference with the core's rule
/// (a non-finite result there is a difference), the others by IEEE class.
pub fn judge(actual: &[f64], reference: &[f64], tolerance: Tolerance) -> Verdict {
    if actual.len() != reference.len() {
        return Verdict::Differ {
            error: Error {
                abs: f64::NAN,
                rel: f64::NAN,
            },
            index: 0,
        };
    }
    let finite: Vec<usize> = (0..reference.len())
        .filter(|&i| reference[i].is_finite())
        .collect();
    let a: Vec<f64> = finite.iter().map(|&i| actual[i]).collect();
    let r: Vec<f64> = finite.iter().map(|&i| reference[i]).collect();
    let (ok, error, k) = compare(&a, &r, tolerance);
    if !ok {
        return Verdict::Differ {
            error,
            index: finite.get(k).copied().unwrap_or(0),
        };
    }
    let mut non_finite = 0;
    for (a, r) in actual.iter().zip(reference) {
        if let Some(class) = non_finite_class(*r) {
            if non_finite_class(*a) != Some(class) {
                return Verdict::ReferenceNonFinite;
            }
            non_finite += 1;
        }
    }
    Verdict::Agree { error, non_finite }
}

/// The default tolerance with its absolute part scaled by the reference's largest finite
/// component (at least 1): a component computed from terms of that size carries their rounding
/// error, even when it is small itself (e.g. 1.2 out of terms of 3e7 is off by ~1e-9 in both
/// modes).
pub fn scaled(t: Tolerance, reference: &[f64]) -> Tolerance {
    let size = reference
        .iter()
        .filter(|v| v.is_finite())
        .fold(1.0_f64, |m, v| m.max(v.abs()));
    Tolerance::new(t.atol * size, t.rtol)
}

/// A scalar type the suites check in, with a per-thread tape and its tolerances.
pub trait CheckScalar: Scalar + Send + Sync {
    const NAME: &'static str;
    /// The absolute error an exact, hand-derived answer is allowed (none in floating point).
    const ABS_FLOOR: f64 = 0.0;
    /// Fixed point: a point beyond the range, or a nonzero one that rounds to 0, is not judged.
    const FIXED_POINT: bool = false;
    fn with_tape<R>(f: impl FnOnce(&mut TapeView<Self>) -> R) -> R;
    /// Between two exact modes, or a mode and an exact reference.
    fn between() -> Tolerance {
        Tolerance::between_modes::<Self>()
    }
    /// Against Richardson-extrapolated differences in `f64`.
    fn against_differences() -> Tolerance {
        Tolerance::finite_differences::<Self>()
    }
    /// A reference value as this type must give it: NaN (the type's poison) beyond its range.
    fn in_range(v: f64) -> f64 {
        v
    }
}

const TAPE_NODES: usize = 1 << 16;

thread_local! {
    static TAPE_F64: RefCell<Box<Tape<f64, TAPE_NODES>>> = RefCell::new(Box::new(Tape::new()));
    static TAPE_F32: RefCell<Box<Tape<f32, TAPE_NODES>>> = RefCell::new(Box::new(Tape::new()));
    static TAPE_Q16: RefCell<Box<Tape<Q16, TAPE_NODES>>> = RefCell::new(Box::new(Tape::new()));
}

impl CheckScalar for f64 {
    const NAME: &'static str = "f64";
    fn with_tape<R>(f: impl FnOnce(&mut TapeView<Self>) -> R) -> R {
        TAPE_F64.with(|t| f(&mut t.borrow_mut()))
    }
}

impl CheckScalar for f32 {
    const NAME: &'static str = "f32";
    fn with_tape<R>(f: impl FnOnce(&mut TapeView<Self>) -> R) -> R {
        TAPE_F32.with(|t| f(&mut t.borrow_mut()))
    }
}

/// Q16.16 fixed point, with its own tolerance: its error is absolute (steps of 2^-16), not
/// relative. A single operation's result and each partial are rounded once or twice (at most
/// 0.5 to 3 steps, `autograd-core/tests/fixed.rs`); a seed example's gradient goes through up to
/// a dozen roundings, some amplified by the values they multiply. 16 steps (2.4e-4), scaled by
/// the reference's size like the floating-point tolerances, and 2^-12 relative leave room for
/// that, while a wrong rule (off by O(1)) still fails. A reference beyond ±32767.99998 must come
/// out as poison: a finite number there is an overflow gone silent, and fails.
impl CheckScalar for Q16 {
    const NAME: &'static str = "Q16";
    const ABS_FLOOR: f64 = 16.0 / 65536.0;
    const FIXED_POINT: bool = true;
    fn with_tape<R>(f: impl FnOnce(&mut TapeView<Self>) -> R) -> R {
        TAPE_Q16.with(|t| f(&mut t.borrow_mut()))
    }
    fn between() -> Tolerance {
        Tolerance::new(Self::ABS_FLOOR, 1.0 / 4096.0)
    }
    fn against_differences() -> Tolerance {
        Self::between()
    }
    fn in_range(v: f64) -> f64 {
        if v.abs() > Q16::MAX.to_f64() {
            f64::NAN
        } else {
            v
        }
    }
}

pub fn fmt_vec(v: &[f64]) -> String {
    let mut s = String::from("[");
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{x:.17e}");
    }
    s.push(']');
    s
}

/// An answer known independently of both modes: a closed-form derivative written in xtask, or a
/// hand-derived (seed-given) gradient.
#[derive(Clone, Debug)]
pub struct Reference {
    /// How the report names it: "closed form", "hand-derived".
    pub label: &'static str,
    /// The function's value, when known; `None` compares the value with a plain evaluation.
    pub value: Option<f64>,
    pub gradient: Vec<f64>,
    /// As stated (absolute); `None`: `Tolerance::between_modes` of the case's scalar type,
    /// scaled by the reference (see [`scaled`]).
    pub tolerance: Option<Tolerance>,
    /// A hand-derived answer is finite by construction: the case is never skipped.
    pub never_skip: bool,
}

/// Comparison labels, fixed so the report can fold them by name.
///
/// Where the reference is not finite and the result is of another IEEE class, a case with a
/// `Reference` fails and a case judged by forward mode is skipped.
fn labels(reference: Option<&Reference>) -> [&'static str; 2] {
    match reference.map(|r| r.label) {
        None => ["reverse vs forward", ""],
        Some("closed form") => ["reverse vs closed form", "forward vs closed form"],
        Some(_) => ["reverse vs hand-derived", "forward vs hand-derived"],
    }
}

/// Reverse mode against a reference (`reference`, or forward mode when there is none), forward
/// mode against `reference` too, and reverse mode against central differences, of `f` at `x` in
/// scalar `S`.
///
/// `kink_distance` is how far (in the inputs' units) the point is from the nearest kink of `f`
/// (NaN if an intermediate value is not finite in `f64`); `describe` names the function for a
/// failure report.
pub fn gradient_case<S: CheckScalar, F: Function + ?Sized>(
    f: &F,
    x: &[f64],
    kink_distance: f64,
    reference: Option<&Reference>,
    describe: &dyn Fn() -> String,
) -> Outcome {
    let n = x.len();
    let xs: Vec<S> = x.iter().map(|&v| S::from_f64(v)).collect();
    let at: Vec<f64> = xs.iter().map(|v| v.to_f64()).collect();
    let never_skip = reference.is_some_and(|r| r.never_skip);
    // The value the modes must reproduce: the reference's, or a plain evaluation in `S` (which
    // runs neither the tape nor dual numbers). Where it is not finite the point is outside the
    // function's domain and no derivative can be judged.
    let plain: S = f.eval(&xs);
    let value = reference.and_then(|r| r.value).unwrap_or(plain.to_f64());
    if !value.is_finite() && !never_skip {
        return Outcome::skipped(Skip::Undefined);
    }
    let mut rev = vec![S::ZERO; n];
    let rev_value = match S::with_tape(|tape| gradient_reverse(f, tape, &xs, &mut rev)) {
        Ok(v) => v.to_f64(),
        Err(e) => return Outcome::failure(format!("{}: reverse mode failed: {e}", describe())),
    };
    // The core's `gradcheck` records once and sweeps twice (the second first clears what the
    // first wrote, and must give the same gradient bit for bit), then sweeps from `0 · f`, and
    // runs forward mode with a zero tangent.
    let report = match S::with_tape(|tape| {
        gradcheck_with(f, tape, &xs, S::between(), S::against_differences())
    }) {
        Ok(report) => report,
        Err(e) => return Outcome::failure(format!("{}: gradcheck failed: {e}", describe())),
    };
    let mut fwd = vec![S::ZERO; n];
    let fwd_value = match gradient_forward(f, &xs, &mut fwd) {
        Ok(v) => v.to_f64(),
        Err(e) => return Outcome::failure(format!("{}: forward mode failed: {e}", describe())),
    };
    let to64 = |v: &[S]| v.iter().map(|g| g.to_f64()).collect::<Vec<f64>>();
    let (rev64, fwd64) = (to64(&rev), to64(&fwd));
    let point = fmt_vec(&at);
    let header = || format!("{} ({}) at x = {point}", describe(), S::NAME);
    if let Some(broken) = broken_sweeps(&report, &rev64, &fwd64) {
        return Outcome::failure(format!("{}: {broken}", header()));
    }
    let mut outcome = Outcome::default();

    // Values: each mode against the reference value, within the reference's absolute tolerance
    // where it has a larger one (a value printed to four decimals).
    let between = S::between();
    let tolerance = reference.and_then(|r| r.tolerance).map_or(between, |t| {
        Tolerance::new(t.atol.max(between.atol), between.rtol)
    });
    if S::in_range(value).is_nan() {
        // Beyond the type's range (fixed point): the value must be poison in both modes, and so
        // the gradient; a number there is an overflow gone silent.
        if rev_value.is_finite() || fwd_value.is_finite() {
            outcome.failure = Some(format!(
                "{}
  the value {value:e} is beyond {}'s range, but reverse mode gives \
                 {rev_value:e} and forward mode {fwd_value:e}: an overflow gone silent",
                header(),
                S::NAME
            ));
        } else {
            outcome.non_finite_agreed = true;
            outcome.fd_skipped = Some(Skip::NonFinite);
        }
        return outcome;
    }
    for (mode, v) in [("reverse", rev_value), ("forward", fwd_value)] {
        if let Verdict::Differ { .. } = judge(&[v], &[value], scaled(tolerance, &[value])) {
            outcome.failure = Some(format!(
                "{}\n  {mode} mode's value {v:e} differs from the reference value {value:e}",
                header()
            ));
            return outcome;
        }
    }

    // Gradients: reverse against the reference (forward mode if none), forward against it too.
    let [first, second] = labels(reference);
    let mut comparisons = vec![(first, "reverse", &rev64, fwd64.clone(), "forward")];
    if let Some(r) = reference {
        let in_range: Vec<f64> = r.gradient.iter().map(|&g| S::in_range(g)).collect();
        comparisons[0].3 = in_range.clone();
        comparisons[0].4 = r.label;
        comparisons.push((second, "forward", &fwd64, in_range, r.label));
    }
    let stated = reference.and_then(|r| r.tolerance);
    let mut agreed_non_finite = false;
    for (label, mode, actual, expected, what) in &comparisons {
        let label: &'static str = label;
        let tolerance = stated.unwrap_or_else(|| scaled(tolerance, expected));
        match judge(actual, expected, tolerance) {
            Verdict::Agree { error, non_finite } => {
                outcome.errors.push((label, error));
                if non_finite > 0 {
                    agreed_non_finite = true;
                }
            }
            Verdict::Differ { error, index } => {
                outcome.errors.push((label, error));
                outcome.failure = Some(format!(
                    "{}\n  {label}: differ at index {index}\n  {mode:<12}= {}\n  {what:<12}= {}",
                    header(),
                    fmt_vec(actual),
                    fmt_vec(expected)
                ));
                return outcome;
            }
            Verdict::ReferenceNonFinite => {
                // A closed form or a hand-derived value is exact even where it is infinite
                // (sqrt'(0) = +inf): another class is wrong. Forward mode is not (`0 * inf` is
                // NaN there while reverse mode skips zero adjoints): it cannot judge.
                if reference.is_some() {
                    outcome.failure = Some(format!(
                        "{}\n  {label}: the reference is not finite and the result is of another class\n  {mode:<12}= {}\n  {what:<12}= {}",
                        header(),
                        fmt_vec(actual),
                        fmt_vec(expected)
                    ));
                    return outcome;
                }
                return Outcome::skipped(Skip::ReferenceNonFinite);
            }
        }
    }
    if agreed_non_finite {
        // Both sides agree on a non-finite derivative (e.g. an f32 intermediate overflowed): the
        // f64 differences have nothing to say about it.
        outcome.non_finite_agreed = true;
        outcome.fd_skipped = Some(Skip::NonFinite);
        return outcome;
    }

    // Central differences (in f64) of reverse mode.
    let h_max = x
        .iter()
        .fold(0.0_f64, |m, &v| m.max(S::EPSILON.cbrt() * v.abs().max(1.0)));
    if kink_distance.is_nan() {
        // An intermediate is not finite in f64: the walk cannot place the kinks.
        outcome.fd_skipped = Some(Skip::FdDomain);
        return outcome;
    }
    if kink_distance < 8.0 * h_max {
        outcome.fd_skipped = Some(Skip::NearKink);
        return outcome;
    }
    let fd = match richardson(f, &at) {
        Ok(fd) => fd,
        Err(reason) => {
            outcome.fd_skipped = Some(reason);
            return outcome;
        }
    };
    judge_fd(
        &mut outcome,
        &rev64,
        &fd,
        S::against_differences(),
        &|i, fd| {
            format!(
                "{}\n  reverse vs finite differences differ at index {i}\n  reverse = {}\n  central = {}",
                header(),
                fmt_vec(&rev64),
                fmt_vec(fd)
            )
        },
    );
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_reports_the_worst_element_of_the_core_rule() {
        let (ok, e, i) = compare(
            &[1.0, 2.1, 3.0],
            &[1.0, 2.0, 3.0],
            Tolerance::new(1e-3, 1e-3),
        );
        assert!(!ok);
        assert_eq!(i, 1);
        assert!((e.abs - 0.1).abs() < 1e-12 && (e.rel - 0.05).abs() < 1e-12);
        assert!(compare(&[1.0], &[1.0], Tolerance::new(0.0, 0.0)).0);
        assert!(!compare(&[f64::NAN], &[1.0], Tolerance::new(1.0, 1.0)).0);
    }

    #[test]
    fn a_non_finite_result_against_a_finite_reference_differs() {
        assert!(matches!(
            judge(
                &[1.0, 2.0 + 1e-9],
                &[1.0, 2.0],
                Tolerance::new(1e-12, 1e-12)
            ),
            Verdict::Differ { index: 1, .. }
        ));
        let t = Tolerance::new(1e-12, 1e-12);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(matches!(
                judge(&[1.0, bad], &[1.0, 2.0], t),
                Verdict::Differ { index: 1, .. }
            ));
        }
    }

    #[test]
    fn non_finite_on_both_sides_agrees_only_in_the_same_class() {
        let t = Tolerance::new(1e-12, 1e-12);
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        let agree = |a: &[f64], r: &[f64]| match judge(a, r, t) {
            Verdict::Agree { non_finite, .. } => Some(non_finite),
            _ => None,
        };
        assert_eq!(agree(&[nan, 1.0], &[nan, 1.0]), Some(1));
        assert_eq!(agree(&[inf, -inf], &[inf, -inf]), Some(2));
        assert_eq!(judge(&[-inf], &[inf], t), Verdict::ReferenceNonFinite);
        assert_eq!(judge(&[nan], &[inf], t), Verdict::ReferenceNonFinite);
        assert_eq!(judge(&[1.0], &[nan], t), Verdict::ReferenceNonFinite);
        // A finite element that differs wins over a reference that cannot judge another.
        assert!(matches!(
            judge(&[1.0, 5.0], &[nan, 2.0], t),
            Verdict::Differ { index: 1, .. }
        ));
    }
}
