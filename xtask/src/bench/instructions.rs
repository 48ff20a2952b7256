//! Instruction counts of the benchmark workloads, by valgrind (`cachegrind`, no cache model):
//! the same gradients, plain evaluations and training steps the criterion run times, counted
//! instead. A count does not move with the machine's load, where this VM's timings of the same
//! code have differed by 2x between runs; the ratios below are the steady reading of the speed
//! targets, reported beside the timed ones (whose goals stay in time).
//!
//! Each workload runs `autograd-bench/examples/profile.rs` (the tape's workloads) or
//! `profile_reference.rs` (those that do not use the tape: plain evaluations, easy-ml, the
//! hand-written backprop; a binary of their own, so that the tape's code does not move their
//! counts through LLVM's decisions for a shared `main`) twice, with `r1` and `r2` repetitions;
//! `(I(r2) - I(r1)) / (r2 - r1)` is one repetition's count without the process's setup (the
//! 2^21-slot tape's `memset` among it). Written to `<target>/bench-report/instructions.tsv` as
//! `instr/<workload>` and, split by [`parts`], `instr_part/<workload>/<part>`, which a later
//! `--no-run` report reads again.
//!
//! The tape's gradients are also counted on a tape of `Outlined<f64>` (every operation a call:
//! what a code generator's long functions trade for building in seconds; the cargo feature
//! `outlined-ops` makes the same calls on every tape), by `examples/profile_outlined.rs`. A
//! `Trainer` gradient fitting `sin` with a network over one input and over two, by
//! `examples/profile_one_input.rs`: a first layer over one input is a layer statement too, and
//! the two stay close. A gradient of a residual network over handles, whose blocks' inputs
//! carry two pending pairs each, by `examples/profile_residual.rs`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use super::figures::{ratios_at, Report, Target, FUNCTIONS};
use super::report::fmt_ratio;
use crate::project_root;

mod parts;

/// A counted workload: its key (`function/mode/n`, or `moons/mode`), the binary that runs it,
/// its arguments with `{}` where the repetitions go, and the two repetition counts.
struct Workload {
    key: String,
    bin: Bin,
    args: Vec<String>,
    reps: (u32, u32),
}

/// The binary a workload runs.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Bin {
    /// `examples/profile`: the tape's workloads.
    Tape,
    /// `examples/profile_outlined`: the same gradients on a tape of `Outlined<f64>`.
    Outlined,
    /// `examples/profile_reference`: the workloads that do not use the tape.
    Reference,
    /// `examples/profile_one_input`: a network over one input and over two.
    OneInput,
    /// `examples/profile_residual`: a residual network over handles.
    Residual,
}

/// The sizes counted (the speed targets' n).
const SIZES: [usize; 2] = [100, 1000];

fn workloads() -> Vec<Workload> {
    let mut w = Vec::new();
    let mut push = |key: String, bin: Bin, args: &[&str], reps: (u32, u32)| {
        let args = args.iter().map(|s| s.to_string()).collect();
        w.push(Workload {
            key,
            bin,
            args,
            reps,
        })
    };
    for f in FUNCTIONS {
        for n in SIZES {
            let ns = n.to_string();
            // Few enough repetitions that a run takes about a second under valgrind (the counts
            // repeat exactly, so any two repetition counts give the same difference).
            let (few, plain) = if n >= 1000 { (10, 100) } else { (100, 1000) };
            // (A function, its size, the repetitions: a gradient on the tape's binaries, a plain
            // evaluation on the reference binary.)
            let args = [f, &ns, "{}"];
            push(
                format!("{f}/plain/{n}"),
                Bin::Reference,
                &args,
                (plain, 2 * plain),
            );
            push(format!("{f}/reverse/{n}"), Bin::Tape, &args, (few, 2 * few));
            // The same function with each term one statement (`stmt!`).
            push(
                format!("{f}/stmt/{n}"),
                Bin::Tape,
                &[&format!("{f}-stmt"), &ns, "{}"],
                (few, 2 * few),
            );
            // The same gradient on a tape of `Outlined<f64>`.
            push(
                format!("{f}/outlined/{n}"),
                Bin::Outlined,
                &args,
                (few, 2 * few),
            );
            push(
                format!("{f}/easy_ml/{n}"),
                Bin::Reference,
                &["easy-ml", f, &ns, "{}"],
                (few, 2 * few),
            );
        }
    }
    for (mode, bin, arg) in [
        ("tape", Bin::Tape, "moons"),
        ("hand", Bin::Reference, "moons-hand"),
        ("trainer", Bin::Tape, "trainer"),
    ] {
        push(format!("moons/{mode}"), bin, &[arg, "{}"], (3, 5));
    }
    for inputs in ["1", "2"] {
        push(
            format!("sin/trainer/{inputs}"),
            Bin::OneInput,
            &[inputs, "{}"],
            (3, 5),
        );
    }
    push("residual/tape".into(), Bin::Residual, &["{}"], (3, 5));
    w
}

/// Counts every workload and writes `instructions.tsv` into `report_dir`. `Ok(false)` (and a
/// note) where valgrind is not installed: the report then has no instruction counts.
pub fn run(report_dir: &Path) -> Result<bool, String> {
    if !crate::toolchain::available("valgrind") {
        eprintln!("note: valgrind not found, so no instruction counts (apt-get install valgrind)");
        return Ok(false);
    }
    let examples = super::target_dir().join("release/examples");
    let binary = examples.join("profile");
    let (outlined, reference, one_input, residual) = (
        examples.join("profile_outlined"),
        examples.join("profile_reference"),
        examples.join("profile_one_input"),
        examples.join("profile_residual"),
    );
    build_profile(&[
        "--example",
        "profile_outlined",
        "--example",
        "profile_reference",
        "--example",
        "profile_one_input",
        "--example",
        "profile_residual",
    ])?;
    let out_file = report_dir.join("cachegrind.out");
    let mut tsv = String::new();
    for w in workloads() {
        let count = |reps: u32| -> Result<(u64, BTreeMap<&str, u64>), String> {
            let args: Vec<String> = w
                .args
                .iter()
                .map(|a| a.replace("{}", &reps.to_string()))
                .collect();
            let out = Command::new("valgrind")
                .args(["--tool=cachegrind", "--cache-sim=no"])
                .arg(format!("--cachegrind-out-file={}", out_file.display()))
                .arg(match w.bin {
                    Bin::Tape => &binary,
                    Bin::Outlined => &outlined,
                    Bin::Reference => &reference,
                    Bin::OneInput => &one_input,
                    Bin::Residual => &residual,
                })
                .args(&args)
                .output()
                .map_err(|e| format!("cannot run valgrind: {e}"))?;
            let stderr = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                return Err(format!("{:?} {} failed: {stderr}", w.bin, args.join(" ")));
            }
            let text = std::fs::read_to_string(&out_file)
                .map_err(|e| format!("cannot read {}: {e}", out_file.display()))?;
            parts::parse(&text).ok_or_else(|| format!("no count in {}", out_file.display()))
        };
        let (r1, r2) = w.reps;
        let ((a, parts_a), (b, parts_b)) = (count(r1)?, count(r2)?);
        let per = |a: u64, b: u64| (b as f64 - a as f64) / f64::from(r2 - r1);
        eprintln!("  {}: {:.0} instructions", w.key, per(a, b));
        let _ = writeln!(tsv, "instr/{}\t{}", w.key, per(a, b));
        for (part, _) in parts::PARTS {
            let at = |p: &BTreeMap<&str, u64>| p.get(part).copied().unwrap_or(0);
            let v = per(at(&parts_a), at(&parts_b));
            let _ = writeln!(tsv, "instr_part/{}/{part}\t{v}", w.key);
        }
    }
    let _ = std::fs::remove_file(&out_file);
    let path = report_dir.join("instructions.tsv");
    std::fs::write(&path, tsv).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(true)
}

/// `cargo build --release -p autograd-bench --example profile` with `extra` arguments (another
/// example, or features).
fn build_profile(extra: &[&str]) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let args = [
        &[
            "build",
            "--release",
            "-p",
            "autograd-bench",
            "--example",
            "profile",
        ][..],
        extra,
    ]
    .concat();
    eprintln!("building: cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .current_dir(project_root())
        .args(&args)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building the profile example failed ({status})"));
    }
    Ok(())
}

/// The instruction ratios, from the counts among `facts`.
pub fn derive(facts: &BTreeMap<String, f64>, d: &mut BTreeMap<String, f64>) {
    let get = |k: String| facts.get(&format!("instr/{k}")).copied();
    for f in FUNCTIONS {
        for n in SIZES {
            let (plain, rev, easy, outlined, stmt) = (
                get(format!("{f}/plain/{n}")),
                get(format!("{f}/reverse/{n}")),
                get(format!("{f}/easy_ml/{n}")),
                get(format!("{f}/outlined/{n}")),
                get(format!("{f}/stmt/{n}")),
            );
            if let (Some(p), Some(r)) = (plain, rev) {
                d.insert(format!("instr_ratio/{f}/reverse/{n}"), r / p);
            }
            if let (Some(p), Some(r)) = (plain, stmt) {
                d.insert(format!("instr_ratio/{f}/stmt/{n}"), r / p);
            }
            if let (Some(e), Some(r)) = (easy, stmt) {
                d.insert(format!("instr_ratio/{f}/easy_ml_over_stmt/{n}"), e / r);
            }
            if let (Some(o), Some(r)) = (outlined, rev) {
                d.insert(format!("instr_ratio/{f}/outlined_over_reverse/{n}"), o / r);
            }
            if let (Some(e), Some(r)) = (easy, rev) {
                d.insert(format!("instr_ratio/{f}/easy_ml_over_reverse/{n}"), e / r);
            }
        }
    }
    let hand = get("moons/hand".into());
    for mode in ["tape", "trainer"] {
        if let (Some(m), Some(h)) = (get(format!("moons/{mode}")), hand) {
            d.insert(format!("instr_ratio/moons/{mode}_over_hand"), m / h);
        }
    }
}

/// The table of counts, if there are any.
pub fn render(r: &Report, s: &mut String) {
    let get = |k: String| r.facts.get(&format!("instr/{k}")).copied();
    if !r.facts.keys().any(|k| k.starts_with("instr/")) {
        return;
    }
    let _ = writeln!(
        s,
        "\nInstructions per gradient, evaluation or step, counted by valgrind (`cachegrind`) on \
         `autograd-bench/examples/profile.rs` (the tape) and `profile_reference.rs` (plain \
         evaluations, easy-ml, the hand-written backprop: a binary of their own, so that the \
         tape's code does not move their counts) in the same run: the same for every run of the \
         same code, whatever the machine's load.\n\n\
         | function | n | plain f64 | reverse | reverse / plain | easy-ml Record | easy-ml / this | \
         reverse, `stmt!` | `stmt!` / plain | easy-ml / `stmt!` | reverse, `Outlined<f64>` tape | \
         outlined / inlined |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let count = |v: Option<f64>| v.map_or("–".into(), thousands);
    let ratio = |k: String| r.derived.get(&k).map_or("–".into(), |v| fmt_ratio(*v));
    for f in FUNCTIONS {
        for n in SIZES {
            let _ = writeln!(
                s,
                "| {f} | {n} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                count(get(format!("{f}/plain/{n}"))),
                count(get(format!("{f}/reverse/{n}"))),
                ratio(format!("instr_ratio/{f}/reverse/{n}")),
                count(get(format!("{f}/easy_ml/{n}"))),
                ratio(format!("instr_ratio/{f}/easy_ml_over_reverse/{n}")),
                count(get(format!("{f}/stmt/{n}"))),
                ratio(format!("instr_ratio/{f}/stmt/{n}")),
                ratio(format!("instr_ratio/{f}/easy_ml_over_stmt/{n}")),
                count(get(format!("{f}/outlined/{n}"))),
                ratio(format!("instr_ratio/{f}/outlined_over_reverse/{n}")),
            );
        }
    }
    let _ = writeln!(
        s,
        "\n| moons MLP (337 parameters, 100 samples) | instructions | / hand-written |\n|---|---:|---:|"
    );
    for (mode, label) in [
        ("hand", "hand-written backprop (loss gradient)"),
        ("tape", "tape (loss gradient)"),
        ("trainer", "autograd-nn `Trainer` (gradient and SGD step)"),
    ] {
        let _ = writeln!(
            s,
            "| {label} | {} | {} |",
            count(get(format!("moons/{mode}"))),
            if mode == "hand" {
                "1x".into()
            } else {
                ratio(format!("instr_ratio/moons/{mode}_over_hand"))
            }
        );
    }
    let (one, two) = (get("sin/trainer/1".into()), get("sin/trainer/2".into()));
    if one.is_some() || two.is_some() {
        let _ = writeln!(
            s,
            "\n| `Trainer` gradient fitting `sin` at 100 points (tanh, `examples/profile_one_input`) \
             | instructions |\n|---|---:|"
        );
        let _ = writeln!(s, "| `[1, 16, 16, 1]`, one input | {} |", count(one));
        let _ = writeln!(s, "| `[2, 16, 16, 1]`, two inputs | {} |", count(two));
        if let (Some(a), Some(b)) = (one, two) {
            let _ = writeln!(s, "| one input / two | {} |", fmt_ratio(a / b));
        }
    }
    if let Some(residual) = get("residual/tape".into()) {
        let _ = writeln!(
            s,
            "\n| gradient of a residual network over handles, `[2, 16, 16, 16, 1]` with two \
             blocks `h + tanh(W h + b)`, 100 points (`examples/profile_residual`) | instructions \
             |\n|---|---:|\n| `Var::affine_layer` per layer, every block's input of two pending \
             pairs a unit | {} |",
            count(Some(residual))
        );
    }
    render_parts(r, s);
}

/// The parts of every workload's count, one row each.
fn render_parts(r: &Report, s: &mut String) {
    let get = |k: String| r.facts.get(&k).copied();
    let _ = write!(
        s,
        "\nWhere those instructions go, by the function that holds each one (code inlined counts \
         for the function it is inlined into; `instructions/parts.rs` in xtask):\n\n| workload |"
    );
    for (_, title) in parts::PARTS {
        let _ = write!(s, " {title} |");
    }
    let _ = writeln!(s, "\n|---|{}", "---:|".repeat(parts::PARTS.len()));
    for w in workloads() {
        if get(format!("instr/{}", w.key)).is_none() {
            continue;
        }
        let _ = write!(s, "| {} |", w.key.replace('/', " "));
        for (part, _) in parts::PARTS {
            let v = get(format!("instr_part/{}/{part}", w.key));
            let _ = write!(s, " {} |", v.map_or("–".into(), thousands));
        }
        s.push('\n');
    }
}

/// A count rounded to a whole number, its thousands separated: `1,237,848`.
fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        out.insert(0, '-');
    }
    out
}

/// The ratio targets again, judged on instruction counts (none where nothing was counted).
pub fn targets(d: &BTreeMap<String, f64>) -> Vec<Target> {
    let mut t = Vec::new();
    let cells = |key: &dyn Fn(usize) -> String, ns: &[usize]| -> Vec<(usize, f64)> {
        ns.iter()
            .filter_map(|&n| Some((n, *d.get(&key(n))?)))
            .collect()
    };
    for (name, f, mode, ns, limit) in [
        (
            "reverse gradient / plain evaluation, Rosenbrock, in instructions",
            "rosenbrock",
            "reverse",
            &SIZES[..],
            8.0,
        ),
        (
            "reverse gradient / plain evaluation, Rosenbrock, `stmt!`, in instructions",
            "rosenbrock",
            "stmt",
            &SIZES[..],
            8.0,
        ),
        (
            "reverse gradient / plain evaluation, dense, in instructions",
            "dense",
            "reverse",
            &SIZES[1..],
            2.0,
        ),
        (
            "reverse gradient / plain evaluation, dense, `stmt!`, in instructions",
            "dense",
            "stmt",
            &SIZES[1..],
            2.0,
        ),
    ] {
        let got = cells(&|n| format!("instr_ratio/{f}/{mode}/{n}"), ns);
        if got.len() == ns.len() {
            t.push(Target {
                name,
                goal: format!("<= {limit}x"),
                measured: ratios_at(&got),
                met: Some(got.iter().all(|(_, r)| *r <= limit)),
            });
        }
    }
    for (name, key) in [
        (
            "easy-ml Record / this tape, Rosenbrock, in instructions",
            "easy_ml_over_reverse",
        ),
        (
            "easy-ml Record / this tape, Rosenbrock, `stmt!`, in instructions",
            "easy_ml_over_stmt",
        ),
    ] {
        let easy = cells(&|n| format!("instr_ratio/rosenbrock/{key}/{n}"), &SIZES);
        if easy.len() == SIZES.len() {
            t.push(Target {
                name,
                goal: ">= 4x".into(),
                measured: ratios_at(&easy),
                met: Some(easy.iter().all(|(_, r)| *r >= 4.0)),
            });
        }
    }
    for (name, key) in [
        (
            "tape / hand-written backprop (moons loss gradient), in instructions",
            "instr_ratio/moons/tape_over_hand",
        ),
        (
            "autograd-nn Trainer / hand-written backprop (moons training step), in instructions",
            "instr_ratio/moons/trainer_over_hand",
        ),
    ] {
        if let Some(r) = d.get(key) {
            t.push(Target {
                name,
                goal: "<= 3x".into(),
                measured: fmt_ratio(*r),
                met: Some(*r <= 3.0),
            });
        }
    }
    t
}

#[cfg(test)]
mod tests;
