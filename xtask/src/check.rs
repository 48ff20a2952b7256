//! `cargo xtask check`: the gradient-check suites, batched and run in parallel with rayon.
//!
//! Every case differentiates one function by reverse mode (the tape), forward mode (dual numbers)
//! and central finite differences, and compares each with a reference: a closed-form derivative
//! written in xtask (single operations, `check/closed_form.rs`), a hand-derived or seed-given
//! gradient (the seeds suite, the kink conventions), or forward mode (expressions, networks);
//! then reverse mode with Richardson-extrapolated finite differences. The rule is the core's
//! `|a - b| <= atol + rtol |b|` with its default tolerances (`Tolerance::between_modes` against
//! an exact reference, `Tolerance::finite_differences` against differences), the absolute part
//! scaled by the reference's largest component (at least 1). Each mode's value is compared too.
//!
//! Non-finite results are compared, never skipped for being non-finite (module `judge`):
//! - a finite reference against a non-finite result is a failure naming the expression, the
//!   point, the comparison and both vectors;
//! - a non-finite reference against a result of the same IEEE class (same-signed infinity, NaN
//!   and NaN) is agreement, counted in the report ("passed with a non-finite derivative on both
//!   sides"); against anything else it is a failure when the reference is exact (a closed form,
//!   a hand-derived value: `sqrt'(0) = +inf`), and a skip (`reference-non-finite`) when the
//!   reference is forward mode, which cannot judge there (`0 * inf` is NaN in forward mode while
//!   reverse mode never multiplies a zero adjoint);
//! - a case whose reference *value* is not finite (a plain evaluation, or the closed form) is
//!   outside the function's domain and skipped as `undefined`.
//!
//! Cases with a hand-derived answer are never skipped: they pass or they fail. Skips are stated
//! and counted:
//! - the finite-difference comparison of a case is skipped as `near-kink` when a relu/abs/
//!   leaky_relu argument or a max/min pair is within 8 steps `h` of its kink (the difference
//!   quotient straddles the kink there), as `fd-domain` when a step leaves the function's
//!   domain (a non-finite difference) or an f64 intermediate is not finite, and as `non-finite`
//!   when the modes agree on a non-finite derivative (an f32 overflow that f64 differences do not
//!   see); the exact comparisons still run for such cases.
//! - the finite-difference reference, always computed in `f64` (for `f32` cases at the `f32`
//!   point), is the Richardson extrapolation `(4 D(h/4) - D(h/2)) / 3` of central differences `D`
//!   with `h/2`, `h` the core's step `cbrt(eps) max(1, |x|)` (error O(h^4) instead of O(h^2));
//!   where it and the same extrapolation one step coarser disagree by more than 10 % the
//!   reference is unreliable (a pole or a rapidly oscillating function within a step, e.g. `sin`
//!   at 1e4 in f32) and the comparison is skipped as `fd-unstable`.

mod closed_form;
mod expr;
mod expressions;
mod fd;
mod judge;
mod nn;
mod ops;
mod provenance;
mod report;
mod second_order;
mod seeds;
mod selftest;
mod suites;
mod sweeps;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::cli::{Arg, Args};
use report::{Summary, Totals};

const HELP: &str = "\
cargo xtask check [options]

Runs the gradient-check suites: every case compares reverse and forward mode with an independent
reference (closed-form derivatives, hand-derived gradients, or forward mode) and reverse mode with
central finite differences. Exit code 0 if every case passed, 1 if any failed, 2 for bad
arguments.

Options:
  --quick            a few seconds: fewer points and expressions (CI uses this)
  --seed N           seed for the random points and expressions (default 1)
  --filter SUITE     run one suite: ops, seeds, expressions, nn, second-order, provenance
  --cases N          random cases per randomized suite, 1 to 100000 (default 2000, quick 200)
  --threads N        worker threads (default: all cores; 1 = sequential)
  --json PATH        write every figure of the report as JSON
  --selftest         build the check with known-wrong derivative rules injected (a separate
                     build, target/selftest) and require each faulty run to fail naming the
                     operation, and a clean run to pass
  -h, --help         this text
";

/// The most `--cases`: each case keeps its expression in memory until the report (about 2.5 KB
/// per expression case: `--filter expressions --cases 20000 --threads 1` peaks at 49 MB resident,
/// measured with `/usr/bin/time -v`), so this bound stays near 250 MB.
const MAX_CASES: u64 = 100_000;

/// The suites, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suite {
    Ops,
    Seeds,
    Expressions,
    Nn,
    SecondOrder,
    Provenance,
}

impl Suite {
    const ALL: [Suite; 6] = [
        Suite::Ops,
        Suite::Seeds,
        Suite::Expressions,
        Suite::Nn,
        Suite::SecondOrder,
        Suite::Provenance,
    ];

    fn name(self) -> &'static str {
        match self {
            Suite::Ops => "ops",
            Suite::Seeds => "seeds",
            Suite::Expressions => "expressions",
            Suite::Nn => "nn",
            Suite::SecondOrder => "second-order",
            Suite::Provenance => "provenance",
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
    pub selftest: bool,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        quick: false,
        seed: 1,
        filter: None,
        cases: 0,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        json: None,
        selftest: false,
    };
    let mut cases = None;
    let mut args = Args::new(args, HELP);
    while let Some(arg) = args.next()? {
        match arg {
            Arg::Help => return Ok(None),
            Arg::Option("--quick") => o.quick = true,
            Arg::Option("--selftest") => o.selftest = true,
            Arg::Option("--seed") => o.seed = args.number()?,
            Arg::Option("--cases") => {
                let n: u64 = args.number()?;
                if n == 0 {
                    return Err("`--cases 0` would check nothing; give at least 1".into());
                }
                if n > MAX_CASES {
                    return Err(format!(
                        "`--cases {n}` is too many: at most {MAX_CASES} (every case is held in \
                         memory until the report; run several seeds instead)"
                    ));
                }
                cases = Some(n as usize);
            }
            Arg::Option("--threads") => {
                o.threads = args.number()?;
                if o.threads == 0 {
                    return Err("`--threads` must be at least 1".into());
                }
            }
            Arg::Option("--json") => o.json = Some(PathBuf::from(args.value()?)),
            Arg::Option("--filter") => {
                let v = args.value()?;
                o.filter = Some(Suite::ALL.into_iter().find(|s| s.name() == v).ok_or_else(
                    || {
                        format!(
                            "unknown suite `{v}`; expected one of: ops, seeds, expressions, \
                                 nn, second-order, provenance"
                        )
                    },
                )?);
            }
            Arg::Option(other) | Arg::Positional(other) => return Err(args.unknown(other)),
        }
    }
    o.cases = cases.unwrap_or(if o.quick { 200 } else { 2000 });
    Ok(Some(o))
}

/// Why a case, or its finite-difference comparison, was not compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// The reference value is not finite: the point is outside the function's domain.
    Undefined,
    /// (Fixed point.) The point is not a number of the type (beyond Q16's range, or a nonzero
    /// coordinate that rounds to 0): there is nothing at it to judge.
    Unrepresentable,
    /// The reference derivative is not finite where the result is of another class.
    ReferenceNonFinite,
    /// (Finite differences only.) Both sides agree on a non-finite derivative.
    NonFinite,
    NearKink,
    FdDomain,
    FdUnstable,
}

impl Skip {
    fn name(self) -> &'static str {
        match self {
            Skip::Undefined => "undefined",
            Skip::Unrepresentable => "unrepresentable",
            Skip::ReferenceNonFinite => "reference-non-finite",
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// `None` if every comparison that ran passed.
    pub failure: Option<String>,
    /// The whole case was skipped.
    pub skipped: Option<Skip>,
    /// Only the finite-difference comparison was skipped.
    pub fd_skipped: Option<Skip>,
    /// The worst error of each comparison that ran ("reverse vs closed form", ...).
    pub errors: Vec<(&'static str, Error)>,
    /// Some derivative was non-finite on both sides, of the same IEEE class.
    pub non_finite_agreed: bool,
}

impl Outcome {
    pub fn skipped(reason: Skip) -> Self {
        Outcome {
            skipped: Some(reason),
            ..Outcome::default()
        }
    }

    pub fn failure(message: String) -> Self {
        Outcome {
            failure: Some(message),
            ..Outcome::default()
        }
    }
}

/// One case: a name that identifies it and the work to do.
pub struct Case {
    pub suite: Suite,
    pub name: String,
    pub run: Box<dyn Fn() -> Outcome + Send + Sync>,
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
        out!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    };
    if options.selftest {
        return selftest::run(&options);
    }
    selftest::inject_from_env()?;
    let suites: Vec<Suite> = Suite::ALL
        .into_iter()
        .filter(|s| options.filter.is_none_or(|f| f == *s))
        .collect();
    let mut cases = Vec::new();
    for &suite in &suites {
        cases.extend(suites::cases(suite, &options));
    }
    outln!(
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
        let Some((_, s)) = summaries.iter_mut().find(|(k, _)| *k == case.suite) else {
            continue;
        };
        if let Some(msg) = s.add(&case.name, outcome) {
            failures.push(format!("[{}] {}: {}", case.suite.name(), case.name, msg));
        }
    }

    for f in &failures {
        outln!("FAILED {f}\n");
    }
    report::print_table(&summaries);
    let totals = summaries.iter().fold(
        Totals {
            passed: 0,
            failed: 0,
            skipped: 0,
        },
        |t, (_, s)| Totals {
            passed: t.passed + s.passed,
            failed: t.failed + s.failed,
            skipped: t.skipped + s.skipped,
        },
    );
    match sequential {
        Some(t) => outln!(
            "wall time {:.2} s on {} threads, {:.2} s on 1 thread: speedup {:.2}x",
            wall.as_secs_f64(),
            options.threads,
            t.as_secs_f64(),
            t.as_secs_f64() / wall.as_secs_f64().max(1e-9)
        ),
        None => outln!("wall time {:.2} s on 1 thread", wall.as_secs_f64()),
    }
    if let Some(path) = &options.json {
        let json = report::to_json(&options, &summaries, wall, sequential, &totals);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(path, json).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        outln!("report written to {}", path.display());
    }
    outln!(
        "{} passed, {} failed, {} skipped",
        totals.passed,
        totals.failed,
        totals.skipped
    );
    Ok(if totals.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_validated() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(parse(&s(&["--threads", "0"])).is_err());
        assert!(parse(&s(&["--filter", "nope"])).is_err());
        assert!(parse(&s(&["--seed"])).is_err());
        assert!(parse(&s(&["--bogus"])).is_err());
        assert!(parse(&s(&["--cases", "0"])).is_err());
        assert!(parse(&s(&["--cases", "100001"])).is_err());
        assert!(parse(&s(&["--cases", "99999999999999999999"])).is_err());
        let o = parse(&s(&["--quick", "--filter", "ops", "--seed", "9"]))
            .unwrap()
            .unwrap();
        assert_eq!(
            (o.quick, o.filter, o.seed, o.cases),
            (true, Some(Suite::Ops), 9, 200)
        );
        assert_eq!(
            parse(&s(&["--cases", "100000"])).unwrap().unwrap().cases,
            100_000
        );
    }
}
