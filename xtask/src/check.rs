//! `cargo xtask check`: the gradient-check suites, batched and run in parallel with rayon.
//!
//! Every case differentiates one function by reverse mode (the tape), forward mode (dual numbers)
//! and central finite differences, then compares reverse with forward (tight tolerance: both are
//! exact up to rounding) and reverse with finite differences (loose: truncation and cancellation
//! error), with the core's gradient-check rule `|a - b| <= atol + rtol |b|` and its default
//! tolerances (`Tolerance::between_modes` and `Tolerance::finite_differences` per scalar type),
//! the absolute part scaled by the gradient's largest component (at least 1).
//!
//! Skip rule (stated, counted, never silent), as PyTorch's gradcheck and Stan's finite-difference
//! tests do in spirit:
//! - a case whose value, reverse-mode gradient or any intermediate value is not finite is skipped
//!   as `non-finite` (where the function or a part of it is undefined, modes legitimately differ:
//!   `0 * inf` is NaN in forward mode, while reverse mode never multiplies a zero adjoint);
//! - the finite-difference comparison of a case is skipped as `near-kink` when a relu/abs/
//!   leaky_relu argument or a max/min pair is within 8 steps `h` of its kink (the difference
//!   quotient straddles the kink there), and as `fd-domain` when a step leaves the function's
//!   domain (a non-finite difference); reverse vs forward is still compared for such cases.
//! - the finite-difference reference, always computed in `f64` (for `f32` cases at the `f32`
//!   point), is the Richardson extrapolation `(4 D(h/4) - D(h/2)) / 3` of
//!   central differences `D` with `h/2`, `h` the core's step `cbrt(eps) max(1, |x|)` (error
//!   O(h^4) instead of O(h^2)); where it and the same extrapolation one step coarser disagree by
//!   more than 10 % the reference is unreliable (a pole or a rapidly oscillating function within a step, e.g. `sin` at 1e4 in
//!   f32) and the comparison is skipped as `fd-unstable`.

mod expr;
mod suites;

use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use autograd_core::{
    gradient_forward, gradient_reverse, Function, Scalar, Tape, TapeView, Tolerance,
};
use rayon::prelude::*;

const HELP: &str = "\
cargo xtask check [options]

Runs the gradient-check suites: every case compares reverse mode with forward mode (tight) and
with central finite differences (loose). Exit code 0 if every case passed, 1 if any failed,
2 for bad arguments.

Options:
  --quick            a few seconds: fewer points and expressions (CI uses this)
  --seed N           seed for the random points and expressions (default 1)
  --filter SUITE     run one suite: ops, seeds, expressions, nn, second-order
  --cases N          number of random cases per randomized suite (default 2000, quick 200)
  --threads N        worker threads (default: all cores; 1 = sequential)
  --json PATH        write every figure of the report as JSON
  -h, --help         this text
";

/// The suites, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suite {
    Ops,
    Seeds,
    Expressions,
    Nn,
    SecondOrder,
}

impl Suite {
    const ALL: [Suite; 5] = [
        Suite::Ops,
        Suite::Seeds,
        Suite::Expressions,
        Suite::Nn,
        Suite::SecondOrder,
    ];

    fn name(self) -> &'static str {
        match self {
            Suite::Ops => "ops",
            Suite::Seeds => "seeds",
            Suite::Expressions => "expressions",
            Suite::Nn => "nn",
            Suite::SecondOrder => "second-order",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    pub quick: bool,
    pub seed: u64,
    pub filter: Option<Suite>,
    pub cases: usize,
    pub threads: usize,
    pub json: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        quick: false,
        seed: 1,
        filter: None,
        cases: 0,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        json: None,
    };
    let mut cases = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{name}` needs a value\n\n{HELP}"))
        };
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--quick" => o.quick = true,
            "--seed" => o.seed = number(&value("--seed")?, "--seed")?,
            "--cases" => cases = Some(number(&value("--cases")?, "--cases")? as usize),
            "--threads" => {
                o.threads = number(&value("--threads")?, "--threads")? as usize;
                if o.threads == 0 {
                    return Err("`--threads` must be at least 1".into());
                }
            }
            "--json" => o.json = Some(PathBuf::from(value("--json")?)),
            "--filter" => {
                let v = value("--filter")?;
                o.filter = Some(Suite::ALL.into_iter().find(|s| s.name() == v).ok_or_else(
                    || {
                        format!(
                            "unknown suite `{v}`; expected one of: ops, seeds, expressions, \
                                 nn, second-order"
                        )
                    },
                )?);
            }
            other => return Err(format!("unknown option `{other}`\n\n{HELP}")),
        }
    }
    o.cases = cases.unwrap_or(if o.quick { 200 } else { 2000 });
    Ok(Some(o))
}

fn number(s: &str, name: &str) -> Result<u64, String> {
    s.parse()
        .map_err(|_| format!("`{name}` expects a non-negative integer, got `{s}`"))
}

/// Why a case, or its finite-difference comparison, was not compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    NonFinite,
    NearKink,
    FdDomain,
    FdUnstable,
}

impl Skip {
    fn name(self) -> &'static str {
        match self {
            Skip::NonFinite => "non-finite",
            Skip::NearKink => "near-kink",
            Skip::FdDomain => "fd-domain",
            Skip::FdUnstable => "fd-unstable",
        }
    }
}

/// Worst error of one comparison in one case.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Error {
    pub abs: f64,
    pub rel: f64,
}

/// What one case found.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// `None` if every comparison that ran passed.
    pub failure: Option<String>,
    /// The whole case was skipped.
    pub skipped: Option<Skip>,
    /// Only the finite-difference comparison was skipped.
    pub fd_skipped: Option<Skip>,
    /// Reverse vs forward (or vs an exact reference).
    pub exact: Option<Error>,
    /// Reverse vs finite differences.
    pub fd: Option<Error>,
}

impl Outcome {
    fn skipped(reason: Skip) -> Self {
        Outcome {
            failure: None,
            skipped: Some(reason),
            fd_skipped: None,
            exact: None,
            fd: None,
        }
    }
}

/// One case: a name that identifies it and the work to do.
pub struct Case {
    pub suite: Suite,
    pub name: String,
    pub run: Box<dyn Fn() -> Outcome + Send + Sync>,
}

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

/// The default tolerance with its absolute part scaled by the gradient's largest component (at
/// least 1): a component computed from terms of that size carries their rounding error, even when
/// it is small itself (e.g. 1.2 out of terms of 3e7 is off by ~1e-9 in both modes).
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
    fn with_tape<R>(f: impl FnOnce(&mut TapeView<Self>) -> R) -> R;
}

const TAPE_NODES: usize = 1 << 16;

thread_local! {
    static TAPE_F64: RefCell<Box<Tape<f64, TAPE_NODES>>> = RefCell::new(Box::new(Tape::new()));
    static TAPE_F32: RefCell<Box<Tape<f32, TAPE_NODES>>> = RefCell::new(Box::new(Tape::new()));
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

fn fmt_vec(v: &[f64]) -> String {
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

/// Reverse vs forward vs central differences of `f` at `x`, in scalar `S`.
///
/// `kink_distance` is how far (in the inputs' units) the point is from the nearest kink of `f`
/// (NaN if an intermediate value is not finite);
/// `describe` names the function for a failure report.
pub fn gradient_case<S: CheckScalar, F: Function + ?Sized>(
    f: &F,
    x: &[f64],
    kink_distance: f64,
    describe: &dyn Fn() -> String,
) -> Outcome {
    if kink_distance.is_nan() {
        // The caller's walk met a non-finite intermediate value.
        return Outcome::skipped(Skip::NonFinite);
    }
    let n = x.len();
    let xs: Vec<S> = x.iter().map(|&v| S::from_f64(v)).collect();
    let mut rev = vec![S::ZERO; n];
    let value = match S::with_tape(|tape| gradient_reverse(f, tape, &xs, &mut rev)) {
        Ok(v) => v,
        Err(e) => {
            return failure(format!("{}: reverse mode failed: {e}", describe()));
        }
    };
    if !value.is_finite() || rev.iter().any(|g| !g.is_finite()) {
        return Outcome::skipped(Skip::NonFinite);
    }
    let mut fwd = vec![S::ZERO; n];
    if let Err(e) = gradient_forward(f, &xs, &mut fwd) {
        return failure(format!("{}: forward mode failed: {e}", describe()));
    }
    let to64 = |v: &[S]| v.iter().map(|g| g.to_f64()).collect::<Vec<f64>>();
    let (rev64, fwd64) = (to64(&rev), to64(&fwd));
    let (ok, exact, i) = compare(
        &rev64,
        &fwd64,
        scaled(Tolerance::between_modes::<S>(), &fwd64),
    );
    let mut outcome = Outcome {
        failure: None,
        skipped: None,
        fd_skipped: None,
        exact: Some(exact),
        fd: None,
    };
    let point = || fmt_vec(&xs.iter().map(|v| v.to_f64()).collect::<Vec<_>>());
    if !ok {
        outcome.failure = Some(format!(
            "{} ({}) at x = {}\n  reverse vs forward differ at index {i}\n  reverse = {}\n  forward = {}",
            describe(),
            S::NAME,
            point(),
            fmt_vec(&rev64),
            fmt_vec(&fwd64)
        ));
        return outcome;
    }
    let h_max = x
        .iter()
        .fold(0.0_f64, |m, &v| m.max(S::EPSILON.cbrt() * v.abs().max(1.0)));
    if kink_distance < 8.0 * h_max {
        outcome.fd_skipped = Some(Skip::NearKink);
        return outcome;
    }
    let at: Vec<f64> = xs.iter().map(|v| v.to_f64()).collect();
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
        Tolerance::finite_differences::<S>(),
        &|i, fd| {
            format!(
            "{} ({}) at x = {}\n  reverse vs finite differences differ at index {i}\n  reverse = {}\n  central = {}",
            describe(),
            S::NAME,
            point(),
            fmt_vec(&rev64),
            fmt_vec(fd)
        )
        },
    );
    outcome
}

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
    outcome.fd = Some(err);
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
fn richardson<F: Function + ?Sized>(f: &F, point: &[f64]) -> Result<Vec<Estimate>, Skip> {
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

pub fn failure(message: String) -> Outcome {
    Outcome {
        failure: Some(message),
        skipped: None,
        fd_skipped: None,
        exact: None,
        fd: None,
    }
}

/// Figures of one suite.
#[derive(Clone, Debug, Default)]
struct Summary {
    cases: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
    skips: Vec<(Skip, usize)>,
    fd_skips: Vec<(Skip, usize)>,
    worst_exact: Worst,
    worst_fd: Worst,
}

/// The largest absolute and the largest relative error of one comparison over a suite, each with
/// the case that produced it.
#[derive(Clone, Debug, Default)]
struct Worst {
    abs: Option<(f64, String)>,
    rel: Option<(f64, String)>,
}

impl Worst {
    fn add(&mut self, e: Error, case: &str) {
        for (slot, v) in [(&mut self.abs, e.abs), (&mut self.rel, e.rel)] {
            let larger = slot
                .as_ref()
                .is_none_or(|(w, _)| v > *w || (v.is_nan() && !w.is_nan()));
            if larger {
                *slot = Some((v, case.to_string()));
            }
        }
    }
}

fn bump(list: &mut Vec<(Skip, usize)>, s: Skip) {
    match list.iter_mut().find(|(k, _)| *k == s) {
        Some((_, n)) => *n += 1,
        None => list.push((s, 1)),
    }
}

fn run_batch(cases: &[Case], threads: usize, progress: &Progress) -> Result<Vec<Outcome>, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(16 << 20)
        .build()
        .map_err(|e| format!("cannot start {threads} worker threads: {e}"))?;
    Ok(pool.install(|| {
        cases
            .par_iter()
            .map(|c| {
                let o = (c.run)();
                progress.tick();
                o
            })
            .collect()
    }))
}

/// A progress bar that appears only on a terminal and only after a couple of seconds.
struct Progress {
    bar: indicatif::ProgressBar,
    start: Instant,
    shown: AtomicUsize,
    tty: bool,
}

impl Progress {
    fn new(len: usize, label: &str) -> Self {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(len as u64),
            indicatif::ProgressDrawTarget::hidden(),
        );
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} {eta}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(label.to_string());
        Progress {
            bar,
            start: Instant::now(),
            shown: AtomicUsize::new(0),
            tty: std::io::stderr().is_terminal(),
        }
    }
    fn tick(&self) {
        if self.tty
            && self.start.elapsed() > Duration::from_secs(2)
            && self.shown.swap(1, Ordering::Relaxed) == 0
        {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        self.bar.inc(1);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some(options) = parse(args)? else {
        print!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    };
    let suites: Vec<Suite> = Suite::ALL
        .into_iter()
        .filter(|s| options.filter.is_none_or(|f| f == *s))
        .collect();
    let mut cases = Vec::new();
    for &suite in &suites {
        cases.extend(suites::cases(suite, &options));
    }
    println!(
        "cargo xtask check: {} cases in {} suite(s), seed {}, {} thread(s){}",
        cases.len(),
        suites.len(),
        options.seed,
        options.threads,
        if options.quick { ", quick" } else { "" }
    );

    let progress = Progress::new(cases.len(), "checking");
    let start = Instant::now();
    let outcomes = run_batch(&cases, options.threads, &progress)?;
    let wall = start.elapsed();
    progress.finish();

    // The same batch on one thread: the speedup figure, and a determinism check (parallel and
    // sequential runs must find exactly the same).
    let sequential = if options.threads > 1 {
        let progress = Progress::new(cases.len(), "sequential");
        let start = Instant::now();
        let seq = run_batch(&cases, 1, &progress)?;
        progress.finish();
        let t = start.elapsed();
        // Compare as text so that identical NaNs compare equal.
        if format!("{seq:?}") != format!("{outcomes:?}") {
            return Err(
                "parallel and sequential runs disagree: the checks are not deterministic".into(),
            );
        }
        Some(t)
    } else {
        None
    };

    let mut summaries: Vec<(Suite, Summary)> =
        suites.iter().map(|s| (*s, Summary::default())).collect();
    let mut failures = Vec::new();
    for (case, outcome) in cases.iter().zip(&outcomes) {
        let s = &mut summaries
            .iter_mut()
            .find(|(k, _)| *k == case.suite)
            .expect("suite listed")
            .1;
        s.cases += 1;
        if let Some(reason) = outcome.skipped {
            s.skipped += 1;
            bump(&mut s.skips, reason);
            continue;
        }
        if let Some(reason) = outcome.fd_skipped {
            bump(&mut s.fd_skips, reason);
        }
        if let Some(e) = outcome.exact {
            s.worst_exact.add(e, &case.name);
        }
        if let Some(e) = outcome.fd {
            s.worst_fd.add(e, &case.name);
        }
        match &outcome.failure {
            None => s.passed += 1,
            Some(msg) => {
                s.failed += 1;
                failures.push(format!("[{}] {}: {}", case.suite.name(), case.name, msg));
            }
        }
    }

    for f in &failures {
        println!("FAILED {f}\n");
    }
    print_table(&summaries);
    let (passed, failed, skipped) = summaries.iter().fold((0, 0, 0), |(p, f, k), (_, s)| {
        (p + s.passed, f + s.failed, k + s.skipped)
    });
    let speedup = sequential.map(|t| t.as_secs_f64() / wall.as_secs_f64().max(1e-9));
    match (sequential, speedup) {
        (Some(t), Some(x)) => println!(
            "wall time {:.2} s on {} threads, {:.2} s on 1 thread: speedup {:.2}x",
            wall.as_secs_f64(),
            options.threads,
            t.as_secs_f64(),
            x
        ),
        _ => println!("wall time {:.2} s on 1 thread", wall.as_secs_f64()),
    }
    if let Some(path) = &options.json {
        let json = to_json(
            &options, &summaries, wall, sequential, passed, failed, skipped,
        );
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(path, json).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("report written to {}", path.display());
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn skip_list(list: &[(Skip, usize)]) -> String {
    if list.is_empty() {
        return "-".into();
    }
    let mut sorted = list.to_vec();
    sorted.sort();
    sorted
        .iter()
        .map(|(k, n)| format!("{n} {}", k.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn worst_cell(w: &Option<(f64, String)>) -> String {
    match w {
        Some((v, name)) => format!("{v:.1e} ({name})"),
        None => "-".into(),
    }
}

fn print_table(summaries: &[(Suite, Summary)]) {
    for (suite, s) in summaries {
        println!("\nsuite {}", suite.name());
        println!(
            "  cases {:>6}   passed {:>6}   failed {:>4}   skipped {:>4} ({})",
            s.cases,
            s.passed,
            s.failed,
            s.skipped,
            skip_list(&s.skips)
        );
        println!(
            "  finite-difference comparison skipped: {}",
            skip_list(&s.fd_skips)
        );
        for (what, w) in [
            ("reverse vs forward/exact", &s.worst_exact),
            ("reverse vs finite diff. ", &s.worst_fd),
        ] {
            println!("  worst {what}: abs {}", worst_cell(&w.abs));
            println!("  {:>31} rel {}", "", worst_cell(&w.rel));
        }
    }
    println!();
}

fn json_worst(w: &Worst) -> String {
    let one = |v: &Option<(f64, String)>| match v {
        Some((x, name)) => format!(
            "{{\"value\": {}, \"case\": {}}}",
            crate::json::number(*x),
            crate::json::string(name)
        ),
        None => "null".into(),
    };
    format!("{{\"abs\": {}, \"rel\": {}}}", one(&w.abs), one(&w.rel))
}

fn json_skips(list: &[(Skip, usize)]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|(k, n)| format!("{}: {n}", crate::json::string(k.name())))
        .collect();
    format!("{{{}}}", items.join(", "))
}

fn to_json(
    o: &Options,
    summaries: &[(Suite, Summary)],
    wall: Duration,
    sequential: Option<Duration>,
    passed: usize,
    failed: usize,
    skipped: usize,
) -> String {
    let suites: Vec<String> = summaries
        .iter()
        .map(|(suite, s)| {
            format!(
                "    {{\"suite\": {}, \"cases\": {}, \"passed\": {}, \"failed\": {}, \"skipped\": {}, \
                 \"skips\": {}, \"fd_skips\": {}, \"worst_exact\": {}, \"worst_fd\": {}}}",
                crate::json::string(suite.name()),
                s.cases,
                s.passed,
                s.failed,
                s.skipped,
                json_skips(&s.skips),
                json_skips(&s.fd_skips),
                json_worst(&s.worst_exact),
                json_worst(&s.worst_fd)
            )
        })
        .collect();
    format!(
        "{{\n  \"seed\": {},\n  \"quick\": {},\n  \"threads\": {},\n  \"wall_seconds\": {},\n  \
         \"sequential_seconds\": {},\n  \"speedup\": {},\n  \"passed\": {passed},\n  \
         \"failed\": {failed},\n  \"skipped\": {skipped},\n  \"suites\": [\n{}\n  ]\n}}\n",
        o.seed,
        o.quick,
        o.threads,
        crate::json::number(wall.as_secs_f64()),
        sequential.map_or("null".into(), |t| crate::json::number(t.as_secs_f64())),
        sequential.map_or("null".into(), |t| crate::json::number(
            t.as_secs_f64() / wall.as_secs_f64().max(1e-9)
        )),
        suites.join(",\n")
    )
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
    fn arguments_are_validated() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(parse(&s(&["--threads", "0"])).is_err());
        assert!(parse(&s(&["--filter", "nope"])).is_err());
        assert!(parse(&s(&["--seed"])).is_err());
        assert!(parse(&s(&["--bogus"])).is_err());
        let o = parse(&s(&["--quick", "--filter", "ops", "--seed", "9"]))
            .unwrap()
            .unwrap();
        assert_eq!(
            (o.quick, o.filter, o.seed, o.cases),
            (true, Some(Suite::Ops), 9, 200)
        );
    }
}
