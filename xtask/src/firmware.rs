//! `cargo xtask firmware`: the firmware crate (`firmware/`) built for each Cortex-M target and
//! run under QEMU, with a timeout, as the device-side check of the library.
//!
//! For each target: build (release), check the ELFs are not empty, run the device test suite
//! (it exits with success only if every derivative check and XOR training passed), run the
//! README's minimal embedding, and run the suite again in each selftest mode (a panic, a fault,
//! a 0.1% wrong derivative, a hang), each of which must make the run fail. The QEMU command
//! line of each target is read from `firmware/.cargo/config.toml` (the `runner` lines), so
//! `cargo run --release --target <T>` in `firmware/` runs exactly what this task runs.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// A target and the QEMU board it runs on.
struct Board {
    target: &'static str,
    machine: &'static str,
    core: &'static str,
}

const BOARDS: [Board; 3] = [
    Board {
        target: "thumbv7em-none-eabihf",
        machine: "mps2-an386",
        core: "Cortex-M4F",
    },
    Board {
        target: "thumbv6m-none-eabi",
        machine: "microbit",
        core: "Cortex-M0",
    },
    Board {
        target: "thumbv7m-none-eabi",
        machine: "lm3s6965evb",
        core: "Cortex-M3",
    },
];

/// The device test suite and the README's minimal embedding (binaries of `firmware/`).
const SUITE: &str = "autograd-firmware";
const MINIMAL: &str = "minimal";

/// Debian packages providing the emulator and `arm-none-eabi-size`.
const APT_PACKAGES: [&str; 2] = ["qemu-system-arm", "binutils-arm-none-eabi"];

/// How a selftest run must end.
#[derive(Clone, Copy, PartialEq)]
enum Expect {
    /// Exit with failure, and print this.
    Fail(&'static str),
    /// Never end (killed at the timeout).
    Hang,
}

/// The failure modes the firmware starts when QEMU passes `-append selftest=<mode>`.
const SELFTESTS: [(&str, Expect); 4] = [
    ("panic", Expect::Fail("selftest: deliberate panic")),
    ("fault", Expect::Fail("HardFault")),
    ("wrong-derivative", Expect::Fail("RESULT FAIL")),
    ("hang", Expect::Hang),
];
/// A hang is detected by the timeout; this one is short because it is expected.
const HANG_TIMEOUT: Duration = Duration::from_secs(3);

const HELP: &str = "\
cargo xtask firmware [options]

Builds firmware/ (release) for each Cortex-M target, runs it under QEMU with a timeout and prints
one row per target: pass/fail, flash and RAM bytes, peak stack, tape capacity, bytes per node and
instructions per XOR training step (QEMU -icount + SysTick, deterministic). Installs the rustup
targets and, with apt-get, qemu-system-arm and binutils-arm-none-eabi when they are missing.

Targets (boards):
  thumbv7em-none-eabihf   mps2-an386   Cortex-M4F, hardware f32
  thumbv6m-none-eabi      microbit     Cortex-M0, soft float, 16 KiB RAM
  thumbv7m-none-eabi      lm3s6965evb  Cortex-M3, soft float

Options:
  --target <T>       only this target (repeatable; default: all three)
  --timeout <SECS>   per QEMU run (default 60); a run still going then is a failure
  --no-selftest      skip the runs that must fail (panic, fault, wrong derivative, hang)
  --no-install       do not install missing tools; report them instead
  -h, --help         this text

Exit status: 0 all passed, 1 a check failed, 2 bad arguments or a missing tool.
";

struct Options {
    boards: Vec<&'static Board>,
    timeout: Duration,
    selftest: bool,
    install: bool,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut options = Options {
        boards: Vec::new(),
        timeout: Duration::from_secs(60),
        selftest: true,
        install: true,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--no-selftest" => options.selftest = false,
            "--no-install" => options.install = false,
            "--target" => {
                let t = args.next().ok_or("--target needs a value")?;
                let board = BOARDS.iter().find(|b| b.target == t).ok_or_else(|| {
                    let known: Vec<_> = BOARDS.iter().map(|b| b.target).collect();
                    format!("unknown target `{t}` (known: {})", known.join(", "))
                })?;
                if !options.boards.iter().any(|b| b.target == board.target) {
                    options.boards.push(board);
                }
            }
            "--timeout" => {
                let v = args.next().ok_or("--timeout needs a value in seconds")?;
                let secs: u64 =
                    v.parse().ok().filter(|s| *s > 0).ok_or_else(|| {
                        format!("--timeout: `{v}` is not a positive whole number")
                    })?;
                options.timeout = Duration::from_secs(secs);
            }
            other => return Err(format!("unknown option `{other}`\n\n{HELP}")),
        }
    }
    if options.boards.is_empty() {
        options.boards = BOARDS.iter().collect();
    }
    Ok(Some(options))
}

/// Runs the task with its arguments.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some(options) = parse(args)? else {
        print!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    };
    let dir = crate::project_root().join("firmware");
    let runners = read_runners(&dir.join(".cargo/config.toml"))?;
    let targets: Vec<&str> = options.boards.iter().map(|b| b.target).collect();
    ensure_tools(&targets, options.install)?;

    if !build(&dir, &targets)? {
        eprintln!("firmware: the build failed");
        return Ok(ExitCode::from(1));
    }

    let mut rows = Vec::new();
    for board in &options.boards {
        let runner = runners.get(board.target).ok_or_else(|| {
            format!(
                "firmware/.cargo/config.toml has no runner for {}",
                board.target
            )
        })?;
        rows.push(run_board(&dir, board, runner, &options)?);
    }

    let icount = runners
        .values()
        .next()
        .and_then(|r| {
            let i = r.iter().position(|a| a == "-icount")?;
            r.get(i + 1).cloned()
        })
        .unwrap_or_else(|| "?".into());
    print_tables(&rows, &icount, options.selftest);
    let failed = rows.iter().filter(|r| !r.problems.is_empty()).count();
    if failed == 0 {
        println!(
            "\nfirmware: {} of {} targets passed",
            rows.len(),
            rows.len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        for row in rows.iter().filter(|r| !r.problems.is_empty()) {
            for p in &row.problems {
                eprintln!("firmware: {}: {p}", row.target);
            }
        }
        eprintln!("\nfirmware: {failed} of {} targets FAILED", rows.len());
        Ok(ExitCode::from(1))
    }
}

/// The `runner` of every `[target.<T>]` table in the firmware's cargo config, split into words.
fn read_runners(path: &Path) -> Result<BTreeMap<String, Vec<String>>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut runners = BTreeMap::new();
    let mut section = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim().to_string();
        } else if let (Some(target), Some(value)) = (
            section.strip_prefix("target."),
            line.strip_prefix("runner").map(str::trim_start),
        ) {
            let command = value
                .strip_prefix('=')
                .map(str::trim)
                .and_then(|v| v.strip_prefix('"'))
                .and_then(|v| v.strip_suffix('"'))
                .ok_or_else(|| format!("{}: cannot read `{line}`", path.display()))?;
            let words: Vec<String> = command.split_whitespace().map(String::from).collect();
            if words.first().map(String::as_str) != Some("qemu-system-arm") {
                return Err(format!(
                    "{}: runner for {target} is not qemu-system-arm",
                    path.display()
                ));
            }
            runners.insert(target.to_string(), words);
        }
    }
    Ok(runners)
}

/// `true` if `program --version` runs.
fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Installs what is missing, or explains what to install (exit status 2).
fn ensure_tools(targets: &[&str], install: bool) -> Result<(), String> {
    let missing = || -> Vec<&str> {
        ["qemu-system-arm", "arm-none-eabi-size"]
            .into_iter()
            .filter(|p| !available(p))
            .collect()
    };
    let apt_line = format!(
        "apt-get install -y --no-install-recommends {}",
        APT_PACKAGES.join(" ")
    );
    if !missing().is_empty() {
        if !install {
            return Err(format!(
                "missing {}; install with `{apt_line}`",
                missing().join(", ")
            ));
        }
        if !available("apt-get") {
            return Err(format!(
                "missing {} and apt-get is not available: install QEMU (qemu-system-arm) and \
                 binutils for arm-none-eabi with your package manager",
                missing().join(", ")
            ));
        }
        println!("firmware: installing {} (apt-get)", APT_PACKAGES.join(" "));
        let apt = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
                .is_ok_and(|s| s.success())
        };
        let mut install_args = vec!["install", "-y", "-qq", "--no-install-recommends"];
        install_args.extend(APT_PACKAGES);
        let installed = apt(&["update", "-qq"]) && apt(&install_args) && missing().is_empty();
        if !installed {
            return Err(format!(
                "could not install {} with apt-get (are you root?); run `apt-get update && \
                 {apt_line}` as root",
                APT_PACKAGES.join(" ")
            ));
        }
    }

    if available("rustup") {
        let installed = Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output()
            .map_err(|e| format!("rustup target list: {e}"))?;
        let installed = String::from_utf8_lossy(&installed.stdout).into_owned();
        let absent: Vec<&str> = targets
            .iter()
            .copied()
            .filter(|t| !installed.lines().any(|l| l.trim() == *t))
            .collect();
        if !absent.is_empty() {
            if !install {
                return Err(format!(
                    "missing rust targets; install with `rustup target add {}`",
                    absent.join(" ")
                ));
            }
            println!("firmware: rustup target add {}", absent.join(" "));
            let ok = Command::new("rustup")
                .args(["target", "add"])
                .args(&absent)
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                return Err(format!("`rustup target add {}` failed", absent.join(" ")));
            }
        }
    } else {
        // Without rustup the standard library for each target must come with the toolchain.
        for t in targets {
            let libdir = Command::new("rustc")
                .args(["--print", "target-libdir", "--target", t])
                .output()
                .ok()
                .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
            if !libdir.is_some_and(|d| d.is_dir()) {
                return Err(format!(
                    "no standard library for {t} and no rustup to add it: install the target"
                ));
            }
        }
    }
    Ok(())
}

/// `cargo build --release` of every binary for every target, in one invocation.
fn build(dir: &Path, targets: &[&str]) -> Result<bool, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(dir)
        .args(["build", "--release", "--bins"])
        // The firmware has its own workspace and target dir; host flags must not leak in.
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS");
    for t in targets {
        cmd.args(["--target", t]);
    }
    println!("firmware: building {} (release)", targets.join(", "));
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    Ok(status.success())
}

/// Sizes from `arm-none-eabi-size` (Berkeley format).
#[derive(Clone, Copy, Default)]
struct Sizes {
    text: u64,
    data: u64,
    bss: u64,
}

fn sizes(elf: &Path) -> Result<Sizes, String> {
    let out = Command::new("arm-none-eabi-size")
        .arg(elf)
        .output()
        .map_err(|e| format!("cannot run arm-none-eabi-size: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "arm-none-eabi-size {}: {}",
            elf.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let numbers: Vec<u64> = text
        .lines()
        .nth(1)
        .unwrap_or("")
        .split_whitespace()
        .take(3)
        .filter_map(|w| w.parse().ok())
        .collect();
    match numbers[..] {
        [text, data, bss] => Ok(Sizes { text, data, bss }),
        _ => Err(format!(
            "cannot read the output of arm-none-eabi-size: {text}"
        )),
    }
}

/// How one QEMU run ended.
struct Run {
    /// `None` if it was killed at the timeout.
    code: Option<i32>,
    output: String,
    seconds: f64,
}

impl Run {
    fn passed(&self) -> bool {
        self.code == Some(0)
    }
    fn describe(&self) -> String {
        match self.code {
            Some(c) => format!("exit status {c}"),
            None => "timed out (hang)".into(),
        }
    }
}

fn run_qemu(
    runner: &[String],
    elf: &Path,
    append: Option<&str>,
    timeout: Duration,
) -> Result<Run, String> {
    let mut cmd = Command::new(&runner[0]);
    cmd.args(&runner[1..])
        .arg(elf)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(a) = append {
        cmd.args(["-append", a]);
    }
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", runner[0]))?;
    let drain = |r: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let code = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            // Killed by a signal: report as a failure code.
            break Some(status.code().unwrap_or(-1));
        }
        if start.elapsed() >= timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(10));
    };
    let mut output = out.join().unwrap_or_default();
    output.push_str(&err.join().unwrap_or_default());
    Ok(Run {
        code,
        output,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Everything measured for one target.
struct Row {
    target: &'static str,
    machine: &'static str,
    core: &'static str,
    suite_size: Sizes,
    minimal_size: Sizes,
    metrics: BTreeMap<String, String>,
    suite_passed: bool,
    minimal_passed: bool,
    selftests_passed: usize,
    /// Whether the trained XOR parameters equal the host's (None: not reported).
    same_bits_as_host: Option<bool>,
    seconds: f64,
    problems: Vec<String>,
}

fn run_board(
    dir: &Path,
    board: &'static Board,
    runner: &[String],
    options: &Options,
) -> Result<Row, String> {
    let elf = |bin: &str| {
        dir.join("target")
            .join(board.target)
            .join("release")
            .join(bin)
    };
    let mut row = Row {
        target: board.target,
        machine: board.machine,
        core: board.core,
        suite_size: Sizes::default(),
        minimal_size: Sizes::default(),
        metrics: BTreeMap::new(),
        suite_passed: false,
        minimal_passed: false,
        selftests_passed: 0,
        same_bits_as_host: None,
        seconds: 0.0,
        problems: Vec::new(),
    };
    println!(
        "\n== {} on {} ({}) ==",
        board.target, board.machine, board.core
    );

    row.suite_size = sizes(&elf(SUITE))?;
    row.minimal_size = sizes(&elf(MINIMAL))?;
    for (bin, size) in [(SUITE, row.suite_size), (MINIMAL, row.minimal_size)] {
        // Without cortex-m-rt's link script an ARM binary links "successfully" into nothing.
        if size.text == 0 {
            row.problems
                .push(format!("{bin}: empty ELF (text = 0): was -Tlink.x passed?"));
        }
    }
    if !row.problems.is_empty() {
        return Ok(row);
    }

    let suite = run_qemu(runner, &elf(SUITE), None, options.timeout)?;
    row.seconds += suite.seconds;
    for line in suite.output.lines() {
        if let Some((k, v)) = line.strip_prefix("metric ").and_then(|m| m.split_once('=')) {
            row.metrics.insert(k.to_string(), v.to_string());
        } else if !line.starts_with("Timer with period zero") {
            // (QEMU's lm3s6965evb model prints that line about a timer the firmware never uses.)
            println!("  {line}");
        }
    }
    let reported_pass = suite.output.lines().any(|l| l == "RESULT PASS");
    let no_failed_checks = row.metrics.get("checks_failed").map(String::as_str) == Some("0");
    row.suite_passed = suite.passed() && reported_pass && no_failed_checks;
    if !row.suite_passed {
        row.problems.push(format!(
            "device test suite: {}{}",
            suite.describe(),
            if reported_pass {
                ""
            } else {
                ", no RESULT PASS"
            }
        ));
    }

    // The device's trained XOR parameters must be the host's, bit for bit.
    if let (Some(steps), Some(device)) = (
        row.metrics.get("xor_steps").and_then(|s| s.parse().ok()),
        row.metrics.get("xor_params_fnv1a"),
    ) {
        let host = format!("{:016x}", host_xor_fnv1a(steps)?);
        row.same_bits_as_host = Some(*device == host);
        if *device != host {
            row.problems.push(format!(
                "XOR parameters after {steps} steps differ from the host's (FNV-1a {device} on \
                 the device, {host} on the host)"
            ));
        }
    }

    let minimal = run_qemu(runner, &elf(MINIMAL), None, options.timeout)?;
    row.seconds += minimal.seconds;
    row.minimal_passed = minimal.passed();
    println!(
        "  minimal embedding (XOR with autograd-nn's Trainer, exit code only): {}",
        if row.minimal_passed {
            "passed"
        } else {
            "FAILED"
        }
    );
    if !row.minimal_passed {
        row.problems.push(format!(
            "minimal embedding: {}\n{}",
            minimal.describe(),
            minimal.output
        ));
    }

    if options.selftest {
        let mut results = Vec::new();
        for (mode, expect) in SELFTESTS {
            let timeout = match expect {
                Expect::Hang => HANG_TIMEOUT,
                Expect::Fail(_) => options.timeout,
            };
            let arg = format!("selftest={mode}");
            let run = run_qemu(runner, &elf(SUITE), Some(&arg), timeout)?;
            row.seconds += run.seconds;
            let ok = match expect {
                Expect::Hang => run.code.is_none(),
                Expect::Fail(text) => {
                    matches!(run.code, Some(c) if c != 0) && run.output.contains(text)
                }
            };
            if ok {
                row.selftests_passed += 1;
            } else {
                row.problems.push(format!(
                    "selftest {mode}: expected {}, got {}",
                    match expect {
                        Expect::Hang => "a timeout".to_string(),
                        Expect::Fail(t) => format!("a failure printing `{t}`"),
                    },
                    run.describe()
                ));
            }
            results.push(format!(
                "{mode}: {}",
                if ok {
                    "failed as it must"
                } else {
                    "NOT CAUGHT"
                }
            ));
        }
        println!("  selftests: {}", results.join(", "));
    }
    Ok(row)
}

fn print_tables(rows: &[Row], icount: &str, selftest: bool) {
    let metric = |r: &Row, k: &str| r.metrics.get(k).cloned().unwrap_or_else(|| "-".into());
    let mut main = vec![[
        "target",
        "board",
        "result",
        "checks",
        "flash B",
        "RAM B",
        "stack peak B",
        "tape cap",
        "B/slot",
        "instr/XOR step",
        "minimal flash B",
        "minimal RAM B",
        "selftests",
    ]
    .map(String::from)
    .to_vec()];
    let mut xor = vec![[
        "target",
        "steps",
        "slots/step",
        "instr/step",
        "stack B",
        "slots/step, core loop",
        "instr/step, core loop",
        "stack B, core loop",
        "params = host's",
    ]
    .map(String::from)
    .to_vec()];
    for r in rows {
        let checks = match (
            r.metrics.get("checks_passed"),
            r.metrics.get("checks_failed"),
        ) {
            (Some(p), Some(f)) => {
                let (p, f): (u64, u64) = (p.parse().unwrap_or(0), f.parse().unwrap_or(0));
                format!("{p}/{}", p + f)
            }
            _ => "-".into(),
        };
        main.push(vec![
            r.target.to_string(),
            format!("{} ({})", r.machine, r.core),
            if r.problems.is_empty() {
                "PASS"
            } else {
                "FAIL"
            }
            .to_string(),
            checks,
            (r.suite_size.text + r.suite_size.data).to_string(),
            (r.suite_size.data + r.suite_size.bss).to_string(),
            metric(r, "stack_peak_bytes"),
            metric(r, "tape_capacity"),
            metric(r, "node_bytes"),
            metric(r, "insns_per_xor_step"),
            (r.minimal_size.text + r.minimal_size.data).to_string(),
            (r.minimal_size.data + r.minimal_size.bss).to_string(),
            if selftest {
                format!("{}/{}", r.selftests_passed, SELFTESTS.len())
            } else {
                "skipped".into()
            },
        ]);
        xor.push(vec![
            r.target.to_string(),
            metric(r, "xor_steps"),
            metric(r, "xor_nodes_per_step"),
            metric(r, "insns_per_xor_step"),
            metric(r, "xor_stack_peak_bytes"),
            metric(r, "xor_core_nodes_per_step"),
            metric(r, "insns_per_xor_step_core"),
            metric(r, "xor_core_stack_peak_bytes"),
            match r.same_bits_as_host {
                Some(true) => "bit-identical".into(),
                Some(false) => "DIFFERENT".into(),
                None => "-".into(),
            },
        ]);
    }
    println!(
        "\nfirmware under QEMU (-icount {icount}): flash = text + data and RAM = data + bss of the \
         device test suite and of the minimal embedding (arm-none-eabi-size); stack peak measured \
         on the device by painting; instructions counted with SysTick under -icount"
    );
    print_table(&main, 3);
    println!(
        "\nXOR training step (MLP [2, 4, 1], 4 patterns, one backward sweep + SGD update): \
         autograd-nn's Trainer::gradient + Sgd::step, and the same step written by hand on the \
         tape (core loop); stack = peak from the top of RAM while each loop ran; the trained \
         parameters compared with the same steps run on the host"
    );
    print_table(&xor, 1);
    let total: f64 = rows.iter().map(|r| r.seconds).sum();
    println!("(QEMU time {total:.1} s)");
}

/// A Markdown table; the first `left` columns left-aligned, the rest right-aligned.
fn print_table(table: &[Vec<String>], left: usize) {
    let widths: Vec<usize> = (0..table[0].len())
        .map(|c| table.iter().map(|row| row[c].len()).max().unwrap_or(0))
        .collect();
    for (i, row) in table.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                if c < left {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        println!("| {} |", cells.join(" | "));
        if i == 0 {
            let rule: Vec<String> = widths
                .iter()
                .enumerate()
                .map(|(c, w)| {
                    if c < left {
                        "-".repeat(w + 2)
                    } else {
                        format!("{}:", "-".repeat(w + 1))
                    }
                })
                .collect();
            println!("|{}|", rule.join("|"));
        }
    }
}

/// The firmware's XOR training (`firmware/src/xor.rs`: the same network, initialisation, loss,
/// optimizer and number of steps) run on the host in `f32`; returns the FNV-1a of the
/// parameters' bits, as the firmware reports it.
fn host_xor_fnv1a(steps: usize) -> Result<u64, String> {
    use autograd_core::Tape;
    use autograd_nn::{
        data, Activation, Init, LearningRate, Mlp, Objective, Optimizer, Reduction, Rng, Sgd,
        SquaredError, Trainer,
    };
    const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    let err = |e: autograd_nn::NnError| format!("XOR on the host: {e}");
    let objective = Objective::new(XOR, SquaredError).with_reduction(Reduction::Sum);
    let mut params = [0.0_f32; XOR.param_count()];
    XOR.init(&mut params, Init::Uniform, &mut Rng::new(42))
        .map_err(err)?;
    let mut tape = Tape::<f32, 256>::new();
    let mut trainer = Trainer::new(&mut tape, &params).map_err(err)?;
    let data = data::xor();
    let mut sgd = Sgd::new(LearningRate::Constant(0.05));
    for _ in 0..steps {
        trainer.gradient(&objective, &params, &data).map_err(err)?;
        sgd.step(&mut params, trainer.grads());
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in params.iter().flat_map(|p| p.to_bits().to_le_bytes()) {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_board_has_a_qemu_runner_with_semihosting_and_icount() {
        let config = crate::project_root().join("firmware/.cargo/config.toml");
        let runners = read_runners(&config).unwrap();
        for board in &BOARDS {
            let r = runners.get(board.target).expect(board.target);
            let at = |flag: &str| r.iter().position(|a| a == flag).map(|i| r[i + 1].as_str());
            assert_eq!(at("-machine"), Some(board.machine), "{}", board.target);
            assert_eq!(
                at("-semihosting-config"),
                Some("enable=on,target=native"),
                "{}",
                board.target
            );
            assert!(at("-icount").is_some_and(|v| v.starts_with("shift=")));
            // The ELF path is appended after `-kernel`.
            assert_eq!(r.last().map(String::as_str), Some("-kernel"));
        }
    }

    #[test]
    fn options_parse_and_bad_ones_are_errors() {
        let o = parse(&args(&[])).unwrap().unwrap();
        assert_eq!(o.boards.len(), 3);
        assert!(o.selftest && o.install);
        let o = parse(&args(&["--target", "thumbv6m-none-eabi", "--timeout", "5"]))
            .unwrap()
            .unwrap();
        assert_eq!(o.boards.len(), 1);
        assert_eq!(o.boards[0].machine, "microbit");
        assert_eq!(o.timeout, Duration::from_secs(5));
        assert!(parse(&args(&["--help"])).unwrap().is_none());
        for bad in [
            &["--target", "x86_64"][..],
            &["--target"],
            &["--timeout", "0"],
            &["--timeout", "soon"],
            &["--frobnicate"],
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn host_xor_hash_depends_on_the_steps() {
        // Zero steps hash the initial parameters; one step changes them.
        assert_ne!(host_xor_fnv1a(0).unwrap(), host_xor_fnv1a(1).unwrap());
        assert_eq!(host_xor_fnv1a(3).unwrap(), host_xor_fnv1a(3).unwrap());
    }
}
