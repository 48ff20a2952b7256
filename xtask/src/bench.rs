//! `cargo xtask bench [--quick] [--no-run] [FILTER]`: runs the criterion benchmarks of
//! `autograd-bench`, reads back the medians criterion wrote (`<target>/criterion/**/new/
//! estimates.json`) and the counted figures the benchmark binary wrote (`facts.tsv`), prints the
//! comparison tables, and writes every figure to `<target>/bench-report/summary.json` with a
//! log-log SVG plot of time against n per mode beside it.
//!
//! The speed targets are reported as met or missed, never enforced: the exit code says only
//! whether the benchmarks ran.
//!
//! Modules: `options` (the command line), `criterion` (reading a run's results), `figures` (the
//! derived figures and targets), `report` (the tables, PERFORMANCE.md, JSON), `plot` (the SVG),
//! `machine` (what it ran on), `compile_time` (`--compile-time`), `enzyme` (`--enzyme`:
//! `std::autodiff` in the same run), `instructions` (the same workloads counted by valgrind, on
//! every unfiltered run).

use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::SystemTime;

use crate::project_root;
use figures::Report;
use options::Options;

mod compile_time;
mod criterion;
mod enzyme;
mod figures;
mod instructions;
mod machine;
mod options;
mod plot;
mod report;

/// Runs the task with its arguments.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some(o) = options::parse(args)? else {
        out!("{}", options::HELP);
        return Ok(ExitCode::SUCCESS);
    };
    let Options {
        quick,
        no_run,
        wall_clock,
        enzyme,
        filter,
        compile,
        ops,
        debuginfo,
    } = o;
    let target = target_dir();
    if compile {
        return compile_time::run(&target, &ops, debuginfo);
    }
    let criterion_dir = target.join("criterion");
    let report_dir = target.join("bench-report");
    std::fs::create_dir_all(&report_dir)
        .map_err(|e| format!("cannot create {}: {e}", report_dir.display()))?;

    let started = SystemTime::now();
    let load_before = machine::load_average();
    if !no_run {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(project_root())
            .args(["bench", "-p", "autograd-bench", "--bench", "autograd", "--"])
            .env("CRITERION_HOME", &criterion_dir)
            .env("AUTOGRAD_BENCH_REPORT", &report_dir)
            .env("AUTOGRAD_BENCH_QUICK", if quick { "1" } else { "0" })
            .env(
                "AUTOGRAD_BENCH_CLOCK",
                if wall_clock { "wall" } else { "cpu" },
            );
        if let Some(f) = &filter {
            cmd.arg(f);
        }
        eprintln!(
            "running: cargo bench -p autograd-bench --bench autograd{}",
            if quick { " (quick)" } else { "" }
        );
        let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            eprintln!("error: the benchmarks failed ({status})");
            return Ok(ExitCode::from(1));
        }
        if enzyme
            && !enzyme::run(
                &project_root(),
                &criterion_dir,
                quick,
                wall_clock,
                filter.as_deref(),
            )?
        {
            eprintln!("error: the enzyme/ benchmarks failed");
            return Ok(ExitCode::from(1));
        }
    }

    // Instruction counts: this run's (an unfiltered one), or the last ones with `--no-run`.
    let counts = report_dir.join("instructions.tsv");
    let mut count_failed = false;
    let counted = if no_run {
        counts.exists()
    } else if filter.is_none() {
        // (An earlier run's counts must not pass for this one's.)
        let _ = std::fs::remove_file(&counts);
        // A failed count loses the counts, not the criterion run before it (the report is
        // written; the exit code says the count failed).
        instructions::run(&report_dir).unwrap_or_else(|e| {
            eprintln!("error: counting instructions failed, so the report has no counts: {e}");
            let _ = std::fs::remove_file(&counts);
            count_failed = true;
            false
        })
    } else {
        false
    };

    // Only this run's results, unless reporting from what is there.
    let since = if no_run { None } else { Some(started) };
    let medians = criterion::read_medians(&criterion_dir, since)?;
    if medians.is_empty() {
        return Err(format!(
            "no criterion results in {} (run without --no-run first)",
            criterion_dir.display()
        ));
    }
    let mut facts = criterion::read_facts(&report_dir.join("facts.tsv"));
    // The last `--compile-time` measurement, if any, and which run made it.
    let compile_tsv = report_dir.join("compile-time.tsv");
    facts.extend(criterion::read_facts(&compile_tsv));
    let compile_source = compile_time::source(&compile_tsv);
    if counted {
        facts.extend(criterion::read_facts(&counts));
    }
    let machine = machine::Machine {
        run: if no_run {
            "reported from existing results".to_string()
        } else {
            format!(
                "{} run, {}; load average {} before, {} after",
                if quick { "quick" } else { "full" },
                if wall_clock || !cfg!(target_os = "linux") {
                    "wall clock"
                } else {
                    "thread CPU time (rayon: wall clock)"
                },
                load_before,
                machine::load_average()
            )
        },
        ..machine::machine()
    };
    let mut report = Report::new(&medians, &facts);
    report.compile_source = compile_source;

    let rendered = report.render(&machine);
    // Where and when: the same words in PERFORMANCE.md's section and in summary.json.
    let made = report::provenance();
    outln!("{rendered}");
    if filter.is_none() {
        let command = match (quick, no_run, enzyme) {
            (_, true, _) => "cargo xtask bench --no-run",
            (true, false, false) => "cargo xtask bench --quick",
            (true, false, true) => "cargo xtask bench --quick --enzyme",
            (false, false, false) => "cargo xtask bench",
            (false, false, true) => "cargo xtask bench --enzyme",
        };
        let perf = project_root().join("autograd-bench/PERFORMANCE.md");
        let old = std::fs::read_to_string(&perf).unwrap_or_default();
        std::fs::write(
            &perf,
            report::with_generated_section(&old, &report::generated(command, &made, &rendered)),
        )
        .map_err(|e| format!("cannot write {}: {e}", perf.display()))?;
        outln!("wrote {}", perf.display());
    }
    let summary = report_dir.join("summary.json");
    std::fs::write(&summary, report.json(&machine, &made, &medians, &facts))
        .map_err(|e| format!("cannot write {}: {e}", summary.display()))?;
    let svg = report_dir.join("time-vs-n.svg");
    std::fs::write(&svg, plot::plot(&medians))
        .map_err(|e| format!("cannot write {}: {e}", svg.display()))?;
    outln!("wrote {} and {}", summary.display(), svg.display());
    Ok(if count_failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                project_root().join(dir)
            }
        }
        None => project_root().join("target"),
    }
}
