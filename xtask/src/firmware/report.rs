//! The firmware's report: one row per target, and the XOR training step, as Markdown tables.

use super::device::{Row, SELFTESTS};
use crate::table::Table;

/// Both tables with their captions, and the time spent in QEMU.
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
    print!("{}", main.markdown());
    println!(
        "\nXOR training step (MLP [2, 4, 1], 4 patterns, one backward sweep + SGD update): \
         autograd-nn's Trainer::gradient + Sgd::step, and the same step written by hand on the \
         tape (core loop); stack = peak from the top of RAM while each loop ran; the trained \
         parameters compared with the same steps run on the host"
    );
    print!("{}", xor.markdown());
    let total: f64 = rows.iter().map(|r| r.seconds).sum();
    println!("(QEMU time {total:.1} s)");
}
