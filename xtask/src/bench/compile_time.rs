//! `cargo xtask bench --compile-time [--ops 1000,3000] [--debuginfo]`: what a differentiable
//! function costs to compile. Generates straight-line functions of N operations written against
//! `autograd_core::Number` (a mix of `+`, `-`, `*`, `sin`, `exp`, `tanh` and constants, each
//! operation taking the previous value and often an earlier one), puts each in a crate of its
//! own under `<target>/compile-time/` that depends on `autograd-core` by path, builds the
//! dependencies first, then times `cargo build --release` of each crate alone: instantiated for
//! `Var<f64>` (through `gradient_reverse`), for `Var<f64>` with autograd-core's `outlined-ops`
//! feature (every operation a call), on a tape of `Outlined<f64>` (the same calls, chosen by the
//! tape's type, no feature), and for `Dual<f64>` (through `gradient_forward`), with
//! cargo's default release profile (`--debuginfo`: `debug = 1`, this project's). Writes
//! `<target>/bench-report/compile-time.tsv`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

use crate::project_root;

/// Inputs of the generated functions.
const INPUTS: usize = 8;

/// Runs the measurement for each operation count, with cargo's default release profile or, with
/// `debuginfo`, `debug = 1` (this project's); returns the exit code.
pub fn run(target: &Path, ops: &[usize], debuginfo: bool) -> Result<ExitCode, String> {
    let dir = target.join("compile-time");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let core = project_root().join("autograd-core");
    let mut members = Vec::new();
    for &n in ops {
        for mode in Mode::ALL {
            let name = format!("gen-{}-{n}", mode.name());
            let crate_dir = dir.join(&name);
            std::fs::create_dir_all(crate_dir.join("src"))
                .map_err(|e| format!("{}: {e}", crate_dir.display()))?;
            write(
                &crate_dir.join("Cargo.toml"),
                &format!(
                    "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                     publish = false\n\n[dependencies]\nautograd-core = {{ path = {:?}{} }}\n",
                    core.display().to_string(),
                    mode.features(),
                ),
            )?;
            write(
                &crate_dir.join("src/lib.rs"),
                &(generate(n, 0x5eed + n as u64) + &mode.entry()),
            )?;
            members.push(name);
        }
    }
    let quoted: Vec<String> = members.iter().map(|m| format!("{m:?}")).collect();
    // Cargo's default release profile is what `cargo build --release` gives a user. With the
    // project's `debug = 1`, rustc overflowed its stack on the 3,000-operation `Var<f64>`
    // function (in LLVM's `DwarfCompileUnit::createAndAddScopeChildren`, which recurses through
    // the scopes of the function's 3,000 nested `let`s); without debug info it builds.
    let profile = if debuginfo {
        "\n# As this project's release profile.\n[profile.release]\ndebug = 1\n"
    } else {
        ""
    };
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"2\"\nmembers = [{}]\n{profile}",
            quoted.join(", ")
        ),
    )?;
    // The project's lock file: the same versions of heapless and libm.
    let _ = std::fs::copy(project_root().join("Cargo.lock"), dir.join("Cargo.lock"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // (wall-clock seconds, CPU seconds of cargo and the rustc it ran).
    let build = |args: &[&str]| -> Result<(f64, f64), String> {
        let cpu = children_cpu_seconds();
        let start = Instant::now();
        let status = Command::new(&cargo)
            .current_dir(&dir)
            .args(args)
            .env_remove("CARGO_TARGET_DIR")
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err(format!("cargo {} failed ({status})", args.join(" ")));
        }
        Ok((start.elapsed().as_secs_f64(), children_cpu_seconds() - cpu))
    };
    eprintln!("building the dependencies (autograd-core, heapless, libm) in release");
    build(&["build", "--release", "-p", "autograd-core"])?;
    // autograd-core with `outlined-ops` is another build of it: made by building the outlined
    // crates once (they take seconds), so that their timed builds find it built.
    for name in members.iter().filter(|m| m.starts_with("gen-outlined-")) {
        build(&["build", "--release", "-p", name])?;
    }
    let load_before = load();
    let report = target.join("bench-report");
    std::fs::create_dir_all(&report).map_err(|e| format!("{}: {e}", report.display()))?;
    let mut rows = Vec::new();
    // The first line says which run this is: a later full run's report quotes it beside the
    // build times it reads from this file (`source`).
    let list: Vec<String> = ops.iter().map(usize::to_string).collect();
    let mut tsv = format!(
        "{SOURCE}`cargo xtask bench --compile-time --ops {}{}` at {}\n",
        list.join(","),
        if debuginfo { " --debuginfo" } else { "" },
        super::report::provenance()
    );
    for name in &members {
        build(&["clean", "--release", "-p", name])?;
        eprintln!("timing: cargo build --release -p {name}");
        let (wall, cpu) = build(&["build", "--release", "-p", name])?;
        eprintln!(
            "  {wall:.1} s wall clock, {cpu:.1} s CPU (load average {})",
            load()
        );
        rows.push((name.clone(), wall, cpu));
        // Written after each build, so an interrupted run keeps what it measured.
        let mut key = name.trim_start_matches("gen-").replacen('-', "/", 1);
        if debuginfo {
            key.push_str("/debuginfo");
        }
        let _ = writeln!(tsv, "compile_s/{key}\t{wall}\ncompile_cpu_s/{key}\t{cpu}");
        write(&report.join("compile-time.tsv"), &tsv)?;
    }
    let load_after = load();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nRelease build of one generated crate (dependencies already built; {}): wall \
         clock, and CPU = user + system time of cargo and rustc; load average {load_before} \
         before, {load_after} after.\n\n\
         | operations | Var<f64> (gradient_reverse) | the same, `outlined-ops` | the same on a tape of `Outlined<f64>` | Dual<f64> (gradient_forward) |\n|---:|---:|---:|---:|---:|",
        if debuginfo {
            "debug = 1, this project's release profile"
        } else {
            "cargo's default release profile, no debug info"
        }
    );
    for &n in ops {
        let cell = |mode: Mode| {
            rows.iter()
                .find(|(name, _, _)| *name == format!("gen-{}-{n}", mode.name()))
                .map_or("–".into(), |(_, w, c)| format!("{w:.1} s ({c:.1} s CPU)"))
        };
        let _ = writeln!(
            out,
            "| {n} | {} | {} | {} | {} |",
            cell(Mode::Reverse),
            cell(Mode::Outlined),
            cell(Mode::OutlinedTape),
            cell(Mode::Forward)
        );
    }
    outln!("{out}");
    outln!("wrote {}", report.join("compile-time.tsv").display());
    Ok(ExitCode::SUCCESS)
}

/// The first line of `compile-time.tsv` starts with this, then names the run's command, commit
/// and date. (The facts' reader passes over it: it holds no tab.)
const SOURCE: &str = "# measured by ";

/// Which run wrote the `compile-time.tsv` at `path`: its command, commit and date, or `None`
/// for a missing file or one that does not say (written before it did).
pub fn source(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let first = text.lines().next()?.strip_prefix(SOURCE)?;
    (!first.is_empty() && !first.contains('\t')).then(|| first.to_string())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// User + system CPU seconds of this process's waited-for children and their descendants
/// (`/proc/self/stat` fields `cutime` and `cstime`, in clock ticks of 1/100 s).
fn children_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|t| {
            // The fields after the parenthesised command name start at field 3 (`state`), so
            // cutime and cstime (fields 16 and 17) are the 14th and 15th of them.
            let rest = &t[t.rfind(')')? + 2..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks = f.get(13)?.parse::<f64>().ok()? + f.get(14)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(f64::NAN)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Reverse,
    /// Reverse mode with autograd-core's `outlined-ops`.
    Outlined,
    /// Reverse mode on a tape of `Outlined<f64>`, without the feature.
    OutlinedTape,
    Forward,
}

impl Mode {
    const ALL: [Mode; 4] = [
        Mode::Reverse,
        Mode::Outlined,
        Mode::OutlinedTape,
        Mode::Forward,
    ];

    fn name(self) -> &'static str {
        match self {
            Mode::Reverse => "reverse",
            Mode::Outlined => "outlined",
            Mode::OutlinedTape => "outlined_tape",
            Mode::Forward => "forward",
        }
    }

    /// The features the crate asks of autograd-core (the rest of its dependency line).
    fn features(self) -> &'static str {
        match self {
            Mode::Outlined => ", features = [\"outlined-ops\"]",
            Mode::Reverse | Mode::OutlinedTape | Mode::Forward => "",
        }
    }

    /// The crate's public entry point, which instantiates the function for one mode.
    fn entry(self) -> String {
        let call = match self {
            Mode::Reverse | Mode::Outlined => {
                "let mut tape = Box::new(autograd_core::Tape::<f64, 65536>::new());\n    \
                 autograd_core::gradient_reverse(&Generated, &mut tape, x, g).unwrap_or(f64::NAN)"
            }
            Mode::OutlinedTape => {
                "use autograd_core::Outlined;\n    \
                 let mut tape = Box::new(autograd_core::Tape::<Outlined<f64>, 65536>::new());\n    \
                 let mut d = g.map(Outlined);\n    \
                 let y = autograd_core::gradient_reverse(&Generated, &mut tape, &x.map(Outlined), &mut d);\n    \
                 *g = d.map(|d| d.0);\n    \
                 y.map_or(f64::NAN, |y| y.0)"
            }
            Mode::Forward => {
                "autograd_core::gradient_forward(&Generated, x, g).unwrap_or(f64::NAN)"
            }
        };
        format!(
            "\npub struct Generated;\n\nimpl autograd_core::Function for Generated {{\n    \
             fn eval<T: Number>(&self, x: &[T]) -> T {{\n        generated(x)\n    }}\n}}\n\n\
             /// The gradient at `x`, written into `g`; returns the value.\n\
             pub fn gradient(x: &[f64; {INPUTS}], g: &mut [f64; {INPUTS}]) -> f64 {{\n    {call}\n}}\n"
        )
    }
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A straight-line function of `ops` operations: `v_k = v_{k-1} op v_j` (j earlier, often far
/// back; the first operations take each input in turn) or `v_k = f(v_{k-1})`, so every value is
/// used and the result depends on all of them.
/// `exp` is applied only to values in [-1, 1] (results of `sin`/`tanh`) to keep it finite.
fn generate(ops: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut s = String::from(
        "//! Generated by `cargo xtask bench --compile-time`.\n#![allow(clippy::all)]\n\n\
         use autograd_core::Number;\n\n#[inline]\npub fn generated<T: Number>(x: &[T]) -> T {\n",
    );
    let mut bounded = vec![false; INPUTS];
    for i in 0..INPUTS {
        let _ = writeln!(s, "    let v{i} = x[{i}];");
    }
    for k in INPUTS..INPUTS + ops {
        let p = k - 1;
        // The first operations bring in the inputs, so the gradient has every component.
        let j = if k < 2 * INPUTS {
            k - INPUTS
        } else if rng.below(4) == 0 {
            rng.below(k)
        } else {
            k - 1 - rng.below(k.min(16))
        };
        let c = (rng.below(1000) as f64 + 1.0) / 1000.0;
        let kind = if k < 2 * INPUTS {
            rng.below(5)
        } else {
            rng.below(10)
        };
        let (line, b) = match kind {
            0 | 1 => (format!("v{p} + v{j}"), false),
            2 => (format!("v{p} - v{j}"), false),
            3 | 4 => (format!("v{p} * v{j}"), false),
            5 => (format!("v{p} * T::from_f64({c:?})"), bounded[p]),
            6 => (format!("v{p} + T::from_f64({c:?})"), false),
            7 => (format!("v{p}.sin()"), true),
            8 if bounded[p] => (format!("v{p}.exp()"), false),
            _ => (format!("v{p}.tanh()"), true),
        };
        let _ = writeln!(s, "    let v{k} = {line};");
        bounded.push(b);
    }
    let _ = writeln!(s, "    v{}\n}}", INPUTS + ops - 1);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_one_line_per_operation_each_using_the_previous_value() {
        let text = generate(50, 1);
        let body: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("    let v"))
            .collect();
        assert_eq!(body.len(), INPUTS + 50);
        for (k, line) in body.iter().enumerate().skip(INPUTS) {
            assert!(line.contains(&format!("v{}", k - 1)), "{line}");
        }
        assert_eq!(text, generate(50, 1), "deterministic");
        assert!(Mode::Reverse.entry().contains("gradient_reverse"));
        assert!(Mode::Outlined.entry().contains("gradient_reverse"));
        assert!(Mode::Outlined.features().contains("outlined-ops"));
        assert_eq!(Mode::Reverse.features(), "");
        assert!(Mode::OutlinedTape.entry().contains("Tape::<Outlined<f64>"));
        assert_eq!(Mode::OutlinedTape.features(), "");
    }

    #[test]
    fn the_file_names_the_run_that_wrote_it() {
        let dir = std::env::temp_dir().join(format!("xtask-compile-time-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("compile-time.tsv");
        let run = "`cargo xtask bench --compile-time --ops 10` at commit `abc1234`, 2026-12-06";
        std::fs::write(&path, format!("{SOURCE}{run}\ncompile_s/reverse/10\t1.5\n")).unwrap();
        assert_eq!(source(&path).as_deref(), Some(run));
        let facts = crate::bench::criterion::read_facts(&path);
        assert_eq!(facts.len(), 1, "the first line is not a fact: {facts:?}");
        // Written before the first line said anything: no source, the figures still read.
        std::fs::write(&path, "compile_s/reverse/10\t1.5\n").unwrap();
        assert_eq!(source(&path), None);
        assert_eq!(source(&dir.join("missing.tsv")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
