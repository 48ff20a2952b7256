//! `cargo xtask fuzz`: runs the cargo-fuzz targets of `fuzz/` for a bounded time each and prints
//! executions, executions per second and crashes per target.
//!
//! Installs cargo-fuzz (`cargo install cargo-fuzz --locked`) when it is missing; needs the nightly
//! toolchain (libFuzzer's instrumentation). Each target reads the committed seed corpus
//! `fuzz/corpus/<target>/` and writes what it discovers to `fuzz/target/corpus/<target>/`
//! (ignored by git, kept between runs), so a run never dirties the working tree. A crash leaves
//! its input in `fuzz/artifacts/<target>/`; the full libFuzzer log of each run is in
//! `fuzz/target/xtask-<target>.log`. libFuzzer's slow-unit reports are run again once before
//! they count, so a stall of a shared machine does not fail the run. ASan keeps no stack per
//! allocation (`asan_options`), so a long run's memory does not grow without a leak.

mod libfuzzer;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use crate::cli::{Arg, Args};
use crate::project_root;
use crate::table::Table;
use libfuzzer::{executed_ms, Stats};

/// The fuzz targets, in the order they run.
const TARGETS: [(&str, &str); 5] = [
    (
        "differential",
        "arbitrary programs of every op in f64/f32: tape vs Dual vs a reference interpreter",
    ),
    (
        "capacity",
        "programs longer than a small tape: always CapacityExceeded, rewind/clear work again",
    ),
    (
        "network",
        "a network in one call vs its layers one by one: the same tape, or the tape untouched",
    ),
    (
        "parse",
        "any text to the expression parser of `cargo xtask grad`: an Expr or an error, no panic",
    ),
    (
        "statement",
        "every op inside stmt! vs operation by operation, any f64/f32 inputs: values, fallback, gradients",
    ),
];

const DEFAULT_SECONDS: u64 = 60;
/// An input that takes longer than this is reported as a hang (a finding, like a crash).
const TIMEOUT_PER_INPUT_S: u64 = 20;
/// libFuzzer saves an input that took over 10 s as `slow-unit-*` and goes on. Such an input is
/// run again once: under this it was the machine that stalled (a VM's pause), not the input, and
/// it is not counted; at or over it, it counts as a finding.
const SLOW_AGAIN_MS: u64 = 5_000;

const HELP: &str = "\
cargo xtask fuzz [TARGET] [--seconds N]

Runs each cargo-fuzz target in fuzz/ (or only TARGET) for N seconds (default 60) with the nightly
toolchain and prints executions, executions per second and crashes per target. Exits with 1 if
any target crashed, hung or failed to build (the input is saved in fuzz/artifacts/<target>/).
An input libFuzzer saves for being slow (over 10 s, `slow-unit-*`) is run once more and counted
only if it takes 5 s or more again (else the machine stalled, and the report says so).
Installs cargo-fuzz with `cargo install cargo-fuzz --locked` if it is missing.

Targets:
  differential   arbitrary programs of every op in f64/f32: tape vs Dual vs a reference interpreter
  capacity       programs longer than a small tape: always CapacityExceeded, rewind/clear work again
  network        a network in one call vs its layers one by one: the same tape, or the tape untouched
  parse          any text to the expression parser of `cargo xtask grad`: an Expr or an error, no panic
  statement      every op inside stmt! vs operation by operation, any f64/f32 inputs: values, fallback, gradients

Options:
  --seconds N    fuzzing time per target, in seconds (N >= 1; building is not counted)
  -h, --help     this text

Reproduce a crash with `cd fuzz && cargo +nightly fuzz run <target> artifacts/<target>/<file>`.
";

/// Runs the task with its arguments.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some((target, seconds)) = parse(args)? else {
        out!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    };
    let fuzz_dir = project_root().join("fuzz");
    ensure_nightly()?;
    ensure_cargo_fuzz()?;

    let targets: Vec<&str> = match target {
        Some(t) => vec![t],
        None => TARGETS.iter().map(|(t, _)| *t).collect(),
    };

    outln!("building fuzz targets (nightly, release, ASan)...");
    let mut build = cargo_fuzz(&fuzz_dir);
    build.arg("build");
    if let Some(t) = target {
        build.arg(t);
    }
    let status = build
        .status()
        .map_err(|e| format!("could not run cargo fuzz: {e}"))?;
    if !status.success() {
        eprintln!("error: building the fuzz targets failed");
        return Ok(ExitCode::from(1));
    }

    let mut results = Vec::new();
    for t in &targets {
        outln!("\nfuzzing `{t}` for {seconds} s...");
        let result = fuzz_one(&fuzz_dir, t, seconds)?;
        for line in &result.report {
            outln!("  {line}");
        }
        results.push(result);
    }

    let mut table = Table::new(&[
        ("target", true),
        ("seconds", false),
        ("executions", false),
        ("exec/s", false),
        ("crashes", false),
    ]);
    for r in &results {
        table.push(vec![
            r.target.clone(),
            r.seconds.to_string(),
            r.executions.to_string(),
            r.exec_per_s.to_string(),
            r.crashes.to_string(),
        ]);
    }
    out!("\n{}", table.plain(""));
    let failed: Vec<&Outcome> = results.iter().filter(|r| r.crashes > 0 || !r.ok).collect();
    if failed.is_empty() {
        outln!("\nno crashes");
        Ok(ExitCode::SUCCESS)
    } else {
        for r in failed {
            eprintln!(
                "error: `{}` failed{}; log: {}",
                r.target,
                match &r.artifact {
                    Some(a) => format!(" (input saved to {a})"),
                    None => String::new(),
                },
                r.log.display()
            );
        }
        Ok(ExitCode::from(1))
    }
}

/// The target (all when `None`) and the seconds per target, or `None` for `--help`.
fn parse(args: &[String]) -> Result<Option<(Option<&str>, u64)>, String> {
    let mut target = None;
    let mut seconds = DEFAULT_SECONDS;
    let mut args = Args::new(args, HELP);
    while let Some(arg) = args.next()? {
        match arg {
            Arg::Help => return Ok(None),
            Arg::Option("--seconds") => seconds = args.positive()?,
            Arg::Option(other) => return Err(args.unknown(other)),
            Arg::Positional(name) if name.starts_with('-') => return Err(args.unknown(name)),
            Arg::Positional(name) => {
                if target.is_some() {
                    return Err(args.usage("more than one target given"));
                }
                if !TARGETS.iter().any(|(t, _)| *t == name) {
                    let known: Vec<&str> = TARGETS.iter().map(|(t, _)| *t).collect();
                    return Err(format!(
                        "unknown fuzz target `{name}` (known: {})",
                        known.join(", ")
                    ));
                }
                target = Some(name);
            }
        }
    }
    Ok(Some((target, seconds)))
}

/// `cargo +nightly fuzz` run in `fuzz/` (always `fuzz/target`: the scratch corpus lives there,
/// and a workspace target dir shared with sanitizer builds gains nothing).
fn cargo_fuzz(fuzz_dir: &Path) -> Command {
    let mut cmd = crate::toolchain::cargo("nightly", fuzz_dir);
    cmd.arg("fuzz");
    cmd
}

fn ensure_nightly() -> Result<(), String> {
    let ok = Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if ok {
        Ok(())
    } else {
        Err(
            "the nightly toolchain is needed (libFuzzer instrumentation); \
             install it with `rustup toolchain install nightly`"
                .to_string(),
        )
    }
}

fn ensure_cargo_fuzz() -> Result<(), String> {
    let installed = Command::new("cargo")
        .args(["fuzz", "--version"])
        .env_remove("RUSTUP_TOOLCHAIN")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if installed {
        return Ok(());
    }
    outln!("cargo-fuzz is missing: cargo install cargo-fuzz --locked");
    let status = Command::new("cargo")
        .args(["install", "cargo-fuzz", "--locked"])
        .env_remove("RUSTUP_TOOLCHAIN")
        .status()
        .map_err(|e| format!("could not run cargo install: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("`cargo install cargo-fuzz --locked` failed".to_string())
    }
}

/// ASan's options for a run: no call stack kept for each allocation (`malloc_context_size=0`),
/// then the caller's own, which take precedence. ASan interns the stack of every allocation for
/// good, so a target that allocates from many different stacks (the expression parser's
/// recursive descent) grows without a leak: `parse`'s resident memory climbed past libFuzzer's
/// 2 GB limit in a 900 s run, and without the stacks it stays flat (PERFORMANCE.md, thirty-eighth
/// session). A crash's input replayed with `cargo fuzz run` shows them again.
fn asan_options(caller: Option<String>) -> String {
    match caller.filter(|c| !c.trim().is_empty()) {
        Some(c) => format!("malloc_context_size=0:{c}"),
        None => "malloc_context_size=0".to_string(),
    }
}

/// What one target's run gave.
struct Outcome {
    target: String,
    seconds: u64,
    executions: u64,
    exec_per_s: u64,
    crashes: u64,
    /// libFuzzer exited normally after its time budget.
    ok: bool,
    artifact: Option<String>,
    log: PathBuf,
    /// Lines worth showing: the crash message, where the input went.
    report: Vec<String>,
}

fn fuzz_one(fuzz_dir: &Path, target: &str, seconds: u64) -> Result<Outcome, String> {
    let scratch = fuzz_dir.join("target").join("corpus").join(target);
    let seeds = fuzz_dir.join("corpus").join(target);
    fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    fs::create_dir_all(&seeds).map_err(|e| format!("{}: {e}", seeds.display()))?;
    let log_path = fuzz_dir.join("target").join(format!("xtask-{target}.log"));
    let mut log = String::new();

    let started = Instant::now();
    let mut child = cargo_fuzz(fuzz_dir)
        .env(
            "ASAN_OPTIONS",
            asan_options(std::env::var("ASAN_OPTIONS").ok()),
        )
        .args(["run", target])
        .arg(&scratch)
        .arg(&seeds)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-timeout={TIMEOUT_PER_INPUT_S}"))
        .arg("-print_final_stats=1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run cargo fuzz: {e}"))?;

    // libFuzzer reports on stderr; stdout carries the formatted crash input. Read stdout on a
    // thread so neither pipe can fill up and stall the fuzzer.
    let stdout = child.stdout.take().expect("piped");
    let out_thread = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            lines.push(line);
        }
        lines
    });
    let stderr = child.stderr.take().expect("piped");
    let mut stats = Stats::default();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        stats.read(&line);
        log.push_str(&line);
        log.push('\n');
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for cargo fuzz: {e}"))?;
    let elapsed = started.elapsed().as_secs_f64();
    let stdout_lines = out_thread.join().unwrap_or_default();
    for line in &stdout_lines {
        log.push_str(line);
        log.push('\n');
    }
    // The log is a convenience; failing to write it must not hide the result.
    let _ = fs::write(&log_path, &log);

    let executions = stats.executions.unwrap_or(stats.last_count);
    let exec_per_s = stats.exec_per_s.unwrap_or_else(|| {
        let secs = stats.done_seconds.map(|s| s as f64).unwrap_or(elapsed);
        (executions as f64 / secs.max(1.0)).round() as u64
    });
    let mut report = stats.messages.clone();
    let mut findings = stats.artifacts.clone();
    for unit in &stats.slow_units {
        match rerun_ms(fuzz_dir, target, unit)? {
            Some(ms) if ms < SLOW_AGAIN_MS => report.push(format!(
                "libFuzzer's slow unit {unit} ran again in {ms} ms: the machine stalled, not counted"
            )),
            again => {
                report.push(match again {
                    Some(ms) => format!("slow unit {unit} ran again in {ms} ms: counted"),
                    None => format!("slow unit {unit} failed when run again: counted"),
                });
                findings.push(unit.clone());
            }
        }
    }
    let crashes = findings.len() as u64;
    if crashes > 0 || !status.success() {
        // Show the end of the log: the panic message and the failing input.
        let tail: Vec<&str> = log.lines().collect();
        let from = tail.len().saturating_sub(40);
        report.extend(tail[from..].iter().map(|s| s.to_string()));
    }
    Ok(Outcome {
        target: target.to_string(),
        seconds,
        executions,
        exec_per_s,
        crashes,
        ok: status.success(),
        artifact: findings.first().cloned(),
        log: log_path,
        report,
    })
}

/// Runs `target` once on the saved input `unit` and returns the milliseconds libFuzzer reports
/// for it (`Executed <unit> in N ms`), or `None` if the run failed or did not say.
fn rerun_ms(fuzz_dir: &Path, target: &str, unit: &str) -> Result<Option<u64>, String> {
    let out = cargo_fuzz(fuzz_dir)
        .args(["run", target, unit, "--"])
        .arg(format!("-timeout={TIMEOUT_PER_INPUT_S}"))
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("could not run cargo fuzz: {e}"))?;
    if !out.status.success() {
        return Ok(None);
    }
    Ok(String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(executed_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asan_keeps_no_allocation_stacks_unless_the_caller_says_otherwise() {
        assert_eq!(asan_options(None), "malloc_context_size=0");
        assert_eq!(asan_options(Some(" ".into())), "malloc_context_size=0");
        // ASan reads its options in order: the caller's come last and win.
        assert_eq!(
            asan_options(Some("malloc_context_size=30:detect_leaks=0".into())),
            "malloc_context_size=0:malloc_context_size=30:detect_leaks=0"
        );
    }

    /// The help's list of targets is written by hand beside `TARGETS`, and `fuzz/Cargo.toml`
    /// declares each target's binary: a target added to one and not the others fails here.
    #[test]
    fn every_target_is_in_the_help_and_in_the_fuzz_crate() {
        let manifest = std::fs::read_to_string(project_root().join("fuzz/Cargo.toml")).unwrap();
        let listed = HELP
            .lines()
            .filter(|l| l.starts_with("  ") && !l.contains("--"))
            .count();
        assert_eq!(
            listed,
            TARGETS.len(),
            "the help lists other targets than TARGETS"
        );
        for (name, what) in TARGETS {
            assert!(
                HELP.contains(&format!("\n  {name:<15}{what}\n")),
                "{name} in the help"
            );
            let bin = format!("name = \"{name}\"\npath = \"fuzz_targets/{name}.rs\"");
            assert!(manifest.contains(&bin), "{name} in fuzz/Cargo.toml");
            assert!(project_root()
                .join(format!("fuzz/fuzz_targets/{name}.rs"))
                .is_file());
        }
    }

    #[test]
    fn options_and_bad_arguments() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let a = args(&["parse", "--seconds=5"]);
        assert_eq!(parse(&a).unwrap(), Some((Some("parse"), 5)));
        assert_eq!(parse(&[]).unwrap(), Some((None, DEFAULT_SECONDS)));
        for bad in [
            &["--seconds"][..],
            &["--seconds", "0"],
            &["--seconds", "ten"],
            &["nosuch"],
            &["--frobnicate"],
            &["-x"],
            &["capacity", "differential"],
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
