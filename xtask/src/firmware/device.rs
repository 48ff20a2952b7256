//! One board's run: the device test suite (its `metric key=value` lines read into the row, its
//! XOR parameters compared with the same training on the host), the minimal embedding, and the
//! selftests that must fail.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::build::{sizes, Sizes};
use super::options::Options;
use super::qemu::run_qemu;
use super::{Board, MINIMAL, SUITE};

/// How a selftest run must end.
#[derive(Clone, Copy, PartialEq)]
pub enum Expect {
    /// Exit with failure, and print this.
    Fail(&'static str),
    /// Never end (killed at the timeout).
    Hang,
}

/// The failure modes the firmware starts when QEMU passes `-append selftest=<mode>`.
pub const SELFTESTS: [(&str, Expect); 4] = [
    ("panic", Expect::Fail("selftest: deliberate panic")),
    ("fault", Expect::Fail("HardFault")),
    ("wrong-derivative", Expect::Fail("RESULT FAIL")),
    ("hang", Expect::Hang),
];
/// A hang is detected by the timeout; this one is short because it is expected.
const HANG_TIMEOUT: Duration = Duration::from_secs(3);

/// Everything measured for one target.
pub struct Row {
    pub target: &'static str,
    pub machine: &'static str,
    pub core: &'static str,
    pub suite_size: Sizes,
    pub minimal_size: Sizes,
    pub metrics: BTreeMap<String, String>,
    pub suite_passed: bool,
    pub minimal_passed: bool,
    pub selftests_passed: usize,
    /// Whether the trained XOR parameters equal the host's (None: not reported).
    pub same_bits_as_host: Option<bool>,
    pub seconds: f64,
    pub problems: Vec<String>,
}

pub fn run_board(
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

    #[test]
    fn host_xor_hash_depends_on_the_steps() {
        // Zero steps hash the initial parameters; one step changes them.
        assert_ne!(host_xor_fnv1a(0).unwrap(), host_xor_fnv1a(1).unwrap());
        assert_eq!(host_xor_fnv1a(3).unwrap(), host_xor_fnv1a(3).unwrap());
    }
}
