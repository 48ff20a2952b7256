//! The firmware's report: one row per target, the XOR training step, and issue 12's halving
//! target judged on it, as Markdown tables.

use super::device::{Row, SELFTESTS};
use crate::table::Table;

/// `bit-identical`, `DIFFERENT` or `-` (not reported).
fn same_bits(same: Option<bool>) -> String {
    match same {
        Some(true) => "bit-identical".into(),
        Some(false) => "DIFFERENT".into(),
        None => "-".into(),
    }
}

/// Instructions per XOR step on the old tape (one node per operation, commit `5761f2e`, the same
/// measurement by `cargo xtask firmware`), per target.
const OLD_TAPE: [(&str, f64); 3] = [
    ("thumbv7em-none-eabihf", 24_585.0),
    ("thumbv6m-none-eabi", 155_720.0),
    ("thumbv7m-none-eabi", 96_301.0),
];

/// The halving target for `target` at `now` instructions per step: the old figure, now / old,
/// and `met`, `MISSED`, `not a target` (the M3 is reported for scale) or `not measured`.
fn halved(target: &str, now: Option<f64>) -> (Option<f64>, Option<f64>, &'static str) {
    let old = OLD_TAPE.iter().find(|(t, _)| *t == target).map(|(_, o)| *o);
    let ratio = old.zip(now).map(|(o, n)| n / o);
    let status = match ratio {
        None => "not measured",
        Some(_) if target == "thumbv7m-none-eabi" => "not a target",
        Some(q) if q <= 0.5 => "met",
        Some(_) => "MISSED",
    };
    (old, ratio, status)
}

/// The four tables with their captions, and the time spent in QEMU.
pub fn print_tables(rows: &[Row], icount: &str, selftest: bool) {
    let metric = |r: &Row, k: &str| r.metrics.get(k).cloned().unwrap_or_else(|| "-".into());
    let mut main = Table::new(&[
        ("target", true),
        ("board", true),
        ("result", true),
        ("checks", false),
        ("flash B", false),
        ("RAM B", false),
        ("stack peak B", false),
        ("tape cap", false),
        ("B/slot", false),
        ("instr/XOR step", false),
        ("minimal flash B", false),
        ("minimal RAM B", false),
        ("selftests", false),
    ]);
    let mut xor = Table::new(&[
        ("target", true),
        ("steps", false),
        ("slots/step", false),
        ("instr/step", false),
        ("stack B", false),
        ("slots/step, core loop", false),
        ("instr/step, core loop", false),
        ("stack B, core loop", false),
        ("params = host's", false),
    ]);
    let mut fixed = Table::new(&[
        ("target", true),
        ("f32 steps", false),
        ("Q16 steps", false),
        ("f32 instr/step", false),
        ("Q16 instr/step", false),
        ("f32 / Q16", false),
        ("Q16 params = host's", false),
        ("minimal f32 flash B", false),
        ("minimal Q16 flash B", false),
        ("minimal Q16 RAM B", false),
    ]);
    for r in rows {
        let number = |k: &str| r.metrics.get(k).and_then(|v| v.parse::<f64>().ok());
        fixed.push(vec![
            r.target.to_string(),
            metric(r, "xor_steps"),
            metric(r, "xor_q16_steps"),
            metric(r, "insns_per_xor_step"),
            metric(r, "insns_per_xor_step_q16"),
            match (
                number("insns_per_xor_step"),
                number("insns_per_xor_step_q16"),
            ) {
                (Some(f), Some(q)) if q > 0.0 => format!("{:.2}x", f / q),
                _ => "-".into(),
            },
            same_bits(r.q16_same_bits_as_host),
            (r.minimal_size.text + r.minimal_size.data).to_string(),
            (r.minimal_q16_size.text + r.minimal_q16_size.data).to_string(),
            (r.minimal_q16_size.data + r.minimal_q16_size.bss).to_string(),
        ]);
    }
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
            same_bits(r.same_bits_as_host),
        ]);
    }
    outln!(
        "\nfirmware under QEMU (-icount {icount}): flash = text + data and RAM = data + bss of the \
         device test suite and of the minimal embedding (arm-none-eabi-size); stack peak measured \
         on the device by painting; instructions counted with SysTick under -icount"
    );
    out!("{}", main.markdown());
    outln!(
        "\nXOR training step (MLP [2, 4, 1], 4 patterns, one backward sweep + SGD update): \
         autograd-nn's Trainer::gradient + Sgd::step, and the same step written by hand on the \
         tape (core loop); stack = peak from the top of RAM while each loop ran; the trained \
         parameters compared with the same steps run on the host"
    );
    out!("{}", xor.markdown());
    outln!(
        "\nXOR in Q16.16 fixed point (autograd_core::Q16, `xor-q16`) against f32: the same \
         network, steps and stopping rule; instructions per step (Trainer::gradient + \
         Sgd::step); the Q16 parameters compared with the same steps on the host; footprint of \
         the minimal embedding (exit code only; RAM = data + bss, the stack not included). For \
         scale, not measured here: tinymind's published Q8.8 XOR network, backprop written by \
         hand, is 328 B of RAM and under 4 KB of code"
    );
    out!("{}", fixed.markdown());
    let mut halving = Table::new(&[
        ("target", true),
        ("old tape instr/step", false),
        ("instr/step", false),
        ("now / old", false),
        ("status", true),
    ]);
    for r in rows {
        let now = r
            .metrics
            .get("insns_per_xor_step")
            .and_then(|v| v.parse::<f64>().ok());
        let (old, ratio, status) = halved(r.target, now);
        halving.push(vec![
            r.target.to_string(),
            old.map_or("-".into(), |o| format!("{o:.0}")),
            now.map_or("-".into(), |n| format!("{n:.0}")),
            ratio.map_or("-".into(), |q| format!("{q:.2}x")),
            status.into(),
        ]);
    }
    outln!(
        "\nIssue 12's target, reported and not enforced: instructions per XOR step (Trainer) at most \
         half the old tape's (one node per operation, at 5761f2e), on the M4F and the M0"
    );
    out!("{}", halving.markdown());
    let total: f64 = rows.iter().map(|r| r.seconds).sum();
    outln!("(QEMU time {total:.1} s)");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_halving_target_is_judged_per_part() {
        // CI's figures at d47eef8: the M4F below half of 24,585, the M0 above half of 155,720.
        let (old, ratio, status) = halved("thumbv7em-none-eabihf", Some(11_843.0));
        assert_eq!((old, status), (Some(24_585.0), "met"));
        assert!((ratio.unwrap() - 0.4817).abs() < 1e-4);
        assert_eq!(halved("thumbv6m-none-eabi", Some(127_379.0)).2, "MISSED");
        assert_eq!(halved("thumbv6m-none-eabi", Some(77_860.0)).2, "met");
        assert_eq!(
            halved("thumbv7m-none-eabi", Some(76_888.0)).2,
            "not a target"
        );
        assert_eq!(halved("thumbv6m-none-eabi", None).2, "not measured");
        assert_eq!(
            halved("riscv32imc", Some(1.0)),
            (None, None, "not measured")
        );
    }
}
