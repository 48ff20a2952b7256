//! One board's run: the binaries that check (the device test suite, the gradient checks, the XOR
//! training in Q16; their `metric key=value` lines read into the row, their XOR parameters
//! compared with the same training on the host), the minimal embeddings, and the selftests that
//! must fail.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use autograd_core::{Scalar, Q16};

use super::build::{sizes, Sizes};
use super::options::Options;
use super::qemu::run_qemu;
use super::{Board, GRADIENT_CHECKS, MINIMAL, MINIMAL_Q16, SUITE, XOR_Q16};

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
    pub minimal_q16_size: Sizes,
    pub metrics: BTreeMap<String, String>,
    pub suite_passed: bool,
    pub minimal_passed: bool,
    pub minimal_q16_passed: bool,
    pub selftests_passed: usize,
    /// Whether the trained XOR parameters equal the host's (None: not reported).
    pub same_bits_as_host: Option<bool>,
    /// The same for the Q16 training.
    pub q16_same_bits_as_host: Option<bool>,
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
        minimal_q16_size: Sizes::default(),
        metrics: BTreeMap::new(),
        suite_passed: false,
        minimal_passed: false,
        minimal_q16_passed: false,
        selftests_passed: 0,
        same_bits_as_host: None,
        q16_same_bits_as_host: None,
        seconds: 0.0,
        problems: Vec::new(),
    };
    outln!(
        "\n== {} on {} ({}) ==",
        board.target,
        board.machine,
        board.core
    );

    row.suite_size = sizes(&elf(SUITE))?;
    row.minimal_size = sizes(&elf(MINIMAL))?;
    row.minimal_q16_size = sizes(&elf(MINIMAL_Q16))?;
    for bin in [SUITE, GRADIENT_CHECKS, XOR_Q16, MINIMAL, MINIMAL_Q16] {
        // Without cortex-m-rt's link script an ARM binary links "successfully" into nothing.
        if sizes(&elf(bin))?.text == 0 {
            row.problems
                .push(format!("{bin}: empty ELF (text = 0): was -Tlink.x passed?"));
        }
    }
    if !row.problems.is_empty() {
        return Ok(row);
    }

    // The binaries that check: each must print RESULT PASS and report no failed check; their
    // check counts add up, their other metrics have names of their own.
    row.suite_passed = true;
    let (mut passed, mut failed) = (0u64, 0u64);
    for bin in [SUITE, GRADIENT_CHECKS, XOR_Q16] {
        let run = run_qemu(runner, &elf(bin), None, options.timeout)?;
        row.seconds += run.seconds;
        let mut metrics = BTreeMap::new();
        for line in run.output.lines() {
            if let Some((k, v)) = line.strip_prefix("metric ").and_then(|m| m.split_once('=')) {
                metrics.insert(k.to_string(), v.to_string());
            } else if !line.starts_with("Timer with period zero") {
                // (QEMU's lm3s6965evb model prints that line about a timer the firmware never
                // uses.)
                outln!("  {line}");
            }
        }
        let count = |k: &str| metrics.get(k).and_then(|v| v.parse::<u64>().ok());
        let reported_pass = run.output.lines().any(|l| l == "RESULT PASS");
        let ok = run.passed() && reported_pass && count("checks_failed") == Some(0);
        passed += count("checks_passed").unwrap_or(0);
        failed += count("checks_failed").unwrap_or(0);
        if !ok {
            row.suite_passed = false;
            row.problems.push(format!(
                "{bin}: {}{}",
                run.describe(),
                if reported_pass {
                    ""
                } else {
                    ", no RESULT PASS"
                }
            ));
        }
        row.metrics.extend(metrics);
    }
    row.metrics
        .insert("checks_passed".into(), passed.to_string());
    row.metrics
        .insert("checks_failed".into(), failed.to_string());

    // The device's trained XOR parameters must be the host's, bit for bit, in f32 and in Q16.
    for (steps_key, hash_key, host, same) in [
        (
            "xor_steps",
            "xor_params_fnv1a",
            host_xor_fnv1a::<f32> as fn(usize) -> Result<u64, String>,
            &mut row.same_bits_as_host,
        ),
        (
            "xor_q16_steps",
            "xor_q16_params_fnv1a",
            host_xor_fnv1a::<Q16>,
            &mut row.q16_same_bits_as_host,
        ),
    ] {
        if let (Some(steps), Some(device)) = (
            row.metrics.get(steps_key).and_then(|s| s.parse().ok()),
            row.metrics.get(hash_key),
        ) {
            let host = format!("{:016x}", host(steps)?);
            *same = Some(*device == host);
            if *device != host {
                row.problems.push(format!(
                    "XOR parameters ({hash_key}) after {steps} steps differ from the host's \
                     (FNV-1a {device} on the device, {host} on the host)"
                ));
            }
        }
    }

    for (bin, what, passed) in [
        (MINIMAL, "f32", &mut row.minimal_passed),
        (MINIMAL_Q16, "Q16", &mut row.minimal_q16_passed),
    ] {
        let run = run_qemu(runner, &elf(bin), None, options.timeout)?;
        row.seconds += run.seconds;
        *passed = run.passed();
        outln!(
            "  minimal embedding in {what} (XOR with autograd-nn's Trainer, exit code only): {}",
            if run.passed() { "passed" } else { "FAILED" }
        );
        if !run.passed() {
            row.problems.push(format!(
                "minimal embedding ({bin}): {}\n{}",
                run.describe(),
                run.output
            ));
        }
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
        outln!("  selftests: {}", results.join(", "));
    }
    Ok(row)
}

/// The firmware's XOR training (`firmware/src/setup.rs`: the same network, initialisation, loss,
/// optimizer and number of steps) run on the host in `S` (`f32` or `Q16`); returns the FNV-1a of
/// the parameters' bits, as the firmware reports it.
fn host_xor_fnv1a<S: Bits>(steps: usize) -> Result<u64, String> {
    use autograd_core::Tape;
    use autograd_nn::{
        data, Activation, Init, LearningRate, Mlp, Objective, Optimizer, Reduction, Rng, Sgd,
        SquaredError, Trainer,
    };
    const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    let err = |e: autograd_nn::NnError| format!("XOR on the host: {e}");
    let objective = Objective::new(XOR, SquaredError).with_reduction(Reduction::Sum);
    let mut params = [S::ZERO; XOR.param_count()];
    XOR.init(&mut params, Init::Uniform, &mut Rng::new(42))
        .map_err(err)?;
    let mut tape = Tape::<S, 256>::new();
    let mut trainer = Trainer::new(&mut tape, &params).map_err(err)?;
    let data = data::xor();
    let mut sgd = Sgd::new(LearningRate::Constant(0.05));
    for _ in 0..steps {
        trainer.gradient(&objective, &params, &data).map_err(err)?;
        sgd.step(&mut params, trainer.grads());
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in params.iter().flat_map(|p| p.bits().to_le_bytes()) {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(hash)
}

/// A scalar's 32 bits, as the firmware hashes them.
trait Bits: Scalar {
    fn bits(self) -> u32;
}

impl Bits for f32 {
    fn bits(self) -> u32 {
        self.to_bits()
    }
}

impl Bits for Q16 {
    fn bits(self) -> u32 {
        self.to_bits() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_xor_hash_depends_on_the_steps() {
        // Zero steps hash the initial parameters; one step changes them.
        assert_ne!(host_xor_fnv1a::<f32>(0), host_xor_fnv1a::<f32>(1));
        assert_eq!(host_xor_fnv1a::<f32>(3), host_xor_fnv1a::<f32>(3));
        assert_ne!(host_xor_fnv1a::<Q16>(0), host_xor_fnv1a::<Q16>(1));
        assert_ne!(host_xor_fnv1a::<Q16>(3), host_xor_fnv1a::<f32>(3));
    }
}
