//! The options of `cargo xtask bench`.

use crate::cli::{Arg, Args};

pub const HELP: &str = "\
cargo xtask bench [--quick] [--wall-clock] [--no-run] [--enzyme] [FILTER]
cargo xtask bench --compile-time [--ops 1000,3000] [--debuginfo]

Runs the autograd-bench criterion benchmarks, then prints medians and ratios and writes
<target>/bench-report/summary.json and <target>/bench-report/time-vs-n.svg.

Options:
  --quick       short measurements and fewer sizes (about two minutes)
  --wall-clock  time single-threaded benchmarks by the wall clock (default on Linux: the
                thread's CPU time, robust on a shared machine; rayon is always wall clock)
  --no-run      only report from the results already in <target>/criterion
  --enzyme      also time std::autodiff (Enzyme) on Rosenbrock and dense next to the tape, in
                the nightly-only enzyme/ crate (installs the nightly of its
                rust-toolchain.toml with the enzyme component; builds with fat LTO)
  FILTER        a criterion filter (regex over benchmark ids), e.g. 'moons'; a filtered run
                does not rewrite autograd-bench/PERFORMANCE.md and counts no instructions
  --compile-time  instead: time the release build of generated straight-line functions of
                --ops operations (default 1000,3000; each 1 to 10000) for Var<f64> (also
                with autograd-core's outlined-ops feature, and on a tape of Outlined<f64>)
                and Dual<f64>, with cargo's default release profile (no debug info), as a
                user's `cargo build --release`; the next full run's report names this
                run's command, commit and date beside its build times
  --debuginfo   with --compile-time: build them with debug = 1, this project's release
                profile (rustc then overflows its stack on the 3,000-operation Var<f64>
                function, in LLVM's debug-info output)

An unfiltered run also counts the instructions of the same gradients, evaluations and training
steps with valgrind (cachegrind; skipped with a note if valgrind is not installed): counts do not
move with the machine's load, and the ratio targets are judged on them too. The tape's gradients
are counted twice: as built by default, and on a tape of Outlined<f64> (every operation a
call, as autograd-core's outlined-ops feature makes them on every tape).
";

/// What the command line asked for.
#[derive(Debug, PartialEq)]
pub struct Options {
    pub quick: bool,
    pub no_run: bool,
    pub wall_clock: bool,
    /// `--enzyme`: also run the `enzyme/` crate's benchmarks.
    pub enzyme: bool,
    pub filter: Option<String>,
    /// `--compile-time`, with the operation counts of `--ops`.
    pub compile: bool,
    pub ops: Vec<usize>,
    /// `--debuginfo`: the generated crates built with `debug = 1`.
    pub debuginfo: bool,
}

/// The options, or `None` for `--help`.
pub fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        quick: false,
        no_run: false,
        wall_clock: false,
        enzyme: false,
        filter: None,
        compile: false,
        ops: vec![1000, 3000],
        debuginfo: false,
    };
    let mut ops_given = false;
    let mut args = Args::new(args, HELP);
    while let Some(arg) = args.next()? {
        match arg {
            Arg::Help => return Ok(None),
            Arg::Option("--compile-time") => o.compile = true,
            Arg::Option("--debuginfo") => o.debuginfo = true,
            Arg::Option("--ops") => {
                o.ops = operation_counts(args.value()?)?;
                ops_given = true;
            }
            Arg::Option("--quick") => o.quick = true,
            Arg::Option("--no-run") => o.no_run = true,
            Arg::Option("--wall-clock") => o.wall_clock = true,
            Arg::Option("--enzyme") => o.enzyme = true,
            Arg::Option(other) => return Err(args.unknown(other)),
            // A filter is a regex; one starting with `-` is more likely a mistyped option.
            Arg::Positional(s) if s.starts_with('-') => return Err(args.unknown(s)),
            Arg::Positional(s) if o.filter.is_none() => o.filter = Some(s.to_string()),
            Arg::Positional(s) => {
                return Err(format!("only one filter is accepted (got a second: `{s}`)"))
            }
        }
    }
    if !o.compile {
        if o.debuginfo {
            return Err("--debuginfo is an option of --compile-time".into());
        }
        if ops_given {
            return Err("--ops is an option of --compile-time".into());
        }
    } else {
        // The timed run's options would be ignored: say so rather than run something else.
        let timed = [
            (o.quick, "--quick"),
            (o.no_run, "--no-run"),
            (o.wall_clock, "--wall-clock"),
            (o.enzyme, "--enzyme"),
            (o.filter.is_some(), "a FILTER"),
        ];
        if let Some((_, name)) = timed.iter().find(|(given, _)| *given) {
            return Err(format!(
                "{name} is an option of the timed benchmarks, not of --compile-time (which \
                 takes --ops and --debuginfo)"
            ));
        }
    }
    Ok(Some(o))
}

/// The largest `--ops`: the build time grows with the square of the length (PERFORMANCE.md,
/// "why the long function's build still grows"), so 10,000 operations already take most of an
/// hour on `Var<f64>`.
pub const MAX_OPS: usize = 10_000;

/// `--ops`' comma-separated list: each count from 1 to [`MAX_OPS`], each once.
fn operation_counts(list: &str) -> Result<Vec<usize>, String> {
    let mut ops = Vec::new();
    for item in list.split(',').map(str::trim) {
        let n: usize = item.parse().map_err(|_| {
            format!("--ops {list}: `{item}` is not an operation count (a whole number)")
        })?;
        if n == 0 || n > MAX_OPS {
            return Err(format!(
                "--ops {list}: {n} operations; give 1 to {MAX_OPS} (the build time grows with \
                 the square of the length)"
            ));
        }
        if ops.contains(&n) {
            return Err(format!("--ops {list}: {n} is given twice"));
        }
        ops.push(n);
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(v: &[&str]) -> Result<Option<Options>, String> {
        parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn options_and_mistakes() {
        let o = parsed(&["--quick", "moons", "--no-run"]).unwrap().unwrap();
        assert!(o.quick && o.no_run && !o.wall_clock && !o.compile && !o.enzyme);
        assert!(parsed(&["--enzyme"]).unwrap().unwrap().enzyme);
        assert_eq!(o.filter.as_deref(), Some("moons"));
        let o = parsed(&["--compile-time", "--ops", "10, 20"])
            .unwrap()
            .unwrap();
        assert_eq!((o.compile, o.ops, o.debuginfo), (true, vec![10, 20], false));
        let o = parsed(&["--compile-time", "--ops", "1,10000"])
            .unwrap()
            .unwrap();
        assert_eq!(o.ops, [1, MAX_OPS]);
        let o = parsed(&["--compile-time"]).unwrap().unwrap();
        assert_eq!(o.ops, [1000, 3000]);
        let o = parsed(&["--compile-time", "--debuginfo"]).unwrap().unwrap();
        assert!(o.compile && o.debuginfo);
        assert!(
            parsed(&["--debuginfo"]).is_err(),
            "--debuginfo is an option of --compile-time"
        );
        assert_eq!(parsed(&["-h"]).unwrap(), None);
        for bad in [
            &["--ops"][..],
            &["--compile-time", "--ops", "1,x"],
            &["--compile-time", "--ops", ""],
            &["--compile-time", "--ops", "0"],
            &["--compile-time", "--ops", "1000,10001"],
            &["--compile-time", "--ops", "1000,1000"],
            &["--ops", "1000"],
            &["--compile-time", "--quick"],
            &["--compile-time", "--no-run"],
            &["--compile-time", "--wall-clock"],
            &["--compile-time", "--enzyme"],
            &["--compile-time", "moons"],
            &["a", "b"],
            &["--frob"],
            &["-x^2"],
            &["--quick=1"],
        ] {
            assert!(parsed(bad).is_err(), "{bad:?}");
        }
        let said = |v: &[&str]| parsed(v).err().unwrap_or_default();
        assert!(said(&["--compile-time", "--ops", "10,0"]).contains("0 operations; give 1 to"));
        assert!(said(&["--compile-time", "--ops", "7,7"]).contains("7 is given twice"));
        assert!(said(&["--compile-time", "--ops", "7,a"]).contains("`a` is not"));
        assert!(said(&["--ops", "7"]).contains("--ops is an option of --compile-time"));
        assert!(said(&["moons", "--compile-time"]).starts_with("a FILTER is an option"));
    }
}
