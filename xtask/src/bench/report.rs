//! The report of a run: the Markdown tables printed and written into
//! `autograd-bench/PERFORMANCE.md` (between its generated-section markers), and the same figures
//! as JSON (`summary.json`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

use super::criterion::Medians;
use super::figures::{median_of, sizes_of, Report, FUNCTIONS, MODES, REFERENCE_MODES};
use super::machine::Machine;
use crate::{json, project_root};

impl Report<'_> {
    pub fn render(&self, machine: &Machine) -> String {
        let m = self.medians;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "\nautograd-bench: criterion medians. Machine: {} CPUs (`nproc`), model `{}` (`lscpu`), {}.\nRun: {}.\n",
            machine.cpus, machine.cpu_model, machine.rustc, machine.run
        );
        let _ = writeln!(
            s,
            "Cost of one full gradient / cost of one plain evaluation (same function, same n; \
             reverse f32 is divided by plain f32). `record only` = recording without backward.\n"
        );
        let present: Vec<(&str, &str)> = MODES
            .iter()
            .copied()
            .filter(|(mode, _)| !REFERENCE_MODES.contains(mode))
            .filter(|(mode, _)| m.keys().any(|k| k.split('/').nth(1) == Some(*mode)))
            .collect();
        let _ = write!(s, "| function | n | plain f64 |");
        for (_, title) in &present {
            let _ = write!(s, " {title} |");
        }
        let _ = write!(s, " reverse ns/slot |\n|---|---:|---:|");
        for _ in &present {
            let _ = write!(s, "---:|");
        }
        s.push_str("---:|\n");
        for f in FUNCTIONS {
            for n in sizes_of(m, f) {
                let plain = median_of(m, f, "plain_f64", n).unwrap_or(f64::NAN);
                let _ = write!(s, "| {f} | {n} | {} |", fmt_ns(plain));
                for (mode, _) in &present {
                    match self.ratio(f, mode, n) {
                        Some(r) => {
                            let _ = write!(s, " {} |", fmt_ratio(r));
                        }
                        None => s.push_str(" – |"),
                    }
                }
                let npn = self
                    .derived
                    .get(&format!("ns_per_slot/{f}/reverse_f64/{n}"));
                let _ = writeln!(s, " {} |", npn.map_or("–".into(), |v| format!("{v:.2}")));
            }
        }
        if let Some(plain) = m.get("moons/plain_f64/337") {
            let _ = write!(s, "| moons MLP loss | 337 | {} |", fmt_ns(*plain));
            for (mode, _) in &present {
                match self.derived.get(&format!("ratio/moons/{mode}/337")) {
                    Some(r) => {
                        let _ = write!(s, " {} |", fmt_ratio(*r));
                    }
                    None => s.push_str(" – |"),
                }
            }
            let npn = m
                .get("moons/reverse_f64/337")
                .zip(self.facts.get("slots/moons"))
                .map(|(t, l)| t / l);
            let _ = writeln!(s, " {} |", npn.map_or("–".into(), |v| format!("{v:.2}")));
        }

        // The reference crates, same run, same functions and points.
        let refs: Vec<(&str, usize)> = FUNCTIONS
            .iter()
            .flat_map(|f| sizes_of(m, f).into_iter().map(move |n| (*f, n)))
            .filter(|(f, n)| median_of(m, f, "easy_ml_record", *n).is_some())
            .collect();
        if !refs.is_empty() {
            let _ = writeln!(
                s,
                "\nThe reference crates in the same run (cost / plain f64 evaluation; easy-ml's \
                 reverse-mode `Record`, num-dual's forward-mode `Dual64`, n passes):\n\n\
                 | function | n | plain f64 | this reverse | easy-ml Record | easy-ml / this | \
                 this reverse, `stmt!` | easy-ml / this, `stmt!` | this fwd Dual | num-dual Dual64 \
                 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
            for (f, n) in refs {
                let cell = |mode: &str| self.ratio(f, mode, n).map_or("–".into(), fmt_ratio);
                let vs = |key: &str| {
                    self.derived
                        .get(&format!("{key}/{f}/{n}"))
                        .map_or("–".into(), |r| fmt_ratio(*r))
                };
                let _ = writeln!(
                    s,
                    "| {f} | {n} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    fmt_ns(median_of(m, f, "plain_f64", n).unwrap_or(f64::NAN)),
                    cell("reverse_f64"),
                    cell("easy_ml_record"),
                    vs("easy_ml_over_reverse"),
                    cell("reverse_stmt_f64"),
                    vs("easy_ml_over_reverse_stmt"),
                    cell("forward_dual_f64"),
                    cell("num_dual_f64"),
                );
            }
        }

        super::enzyme::render(self, &mut s);
        super::instructions::render(self, &mut s);

        // Key figures.
        let _ = writeln!(s, "\n| figure | value |\n|---|---:|");
        let mut row = |k: String, v: String| {
            let _ = writeln!(s, "| {k} | {v} |");
        };
        for f in FUNCTIONS {
            for fwd in ["forward_dual_f64", "forward_dual8_f64"] {
                if let Some(c) = self.derived.get(&format!("crossover/{f}/{fwd}")) {
                    let label = if fwd.contains("dual8") {
                        "DualVec8"
                    } else {
                        "Dual"
                    };
                    let v = if *c == 0.0 {
                        "forward wins at every n measured".into()
                    } else {
                        format!("reverse wins from n = {c}")
                    };
                    row(format!("crossover {f}: reverse vs forward {label}"), v);
                }
            }
        }
        for (k, v) in m.range("moons_step/".to_string().."moons_step0".to_string()) {
            row(
                format!("training step {}", k.trim_start_matches("moons_step/")),
                fmt_ns(*v),
            );
        }
        for (k, label) in [
            (
                "moons_step/tape_over_hand",
                "training step: tape / hand-written",
            ),
            (
                "moons_step/nn_over_hand",
                "training step: autograd-nn Trainer / hand-written",
            ),
            (
                "moons_step/rc_graph_over_tape",
                "training step: Rc graph / tape",
            ),
        ] {
            if let Some(v) = self.derived.get(k) {
                row(label.into(), fmt_ratio(*v));
            }
        }
        for f in FUNCTIONS {
            let n = sizes_of(m, f).into_iter().max().unwrap_or(0);
            if let (Some(rev), Some(hand)) = (
                median_of(m, f, "reverse_f64", n),
                median_of(m, f, "hand_f64", n),
            ) {
                row(
                    format!("{f} n={n}: tape / hand-written gradient"),
                    fmt_ratio(rev / hand),
                );
            }
            if let (Some(rev), Some(rc)) = (
                median_of(m, f, "reverse_f64", n),
                median_of(m, f, "rc_graph", n),
            ) {
                row(format!("{f} n={n}: Rc graph / tape"), fmt_ratio(rc / rev));
            }
        }
        for (k, v) in self
            .derived
            .range("ns_per_operand/".to_string().."ns_per_operand0".to_string())
        {
            let rest = k.trim_start_matches("ns_per_operand/");
            row(
                format!(
                    "ns per recorded operand, {} operands",
                    rest.replace('/', " @ ")
                ),
                format!("{v:.2}"),
            );
        }
        if let (Some(core), Some(libm)) = (m.get("tanh_f32/core"), m.get("tanh_f32/libm")) {
            // 1,024 inputs per iteration (benches/autograd.rs, `tanh_f32`).
            row(
                "f32 tanh per call: the core's (integers) / libm's tanhf".into(),
                format!(
                    "{} / {} ({})",
                    fmt_ns(core / 1024.0),
                    fmt_ns(libm / 1024.0),
                    fmt_ratio(core / libm)
                ),
            );
        }
        if let Some(sp) = self.derived.get("rayon/speedup") {
            let threads = self.facts.get("rayon_threads").copied().unwrap_or(0.0);
            row(
                format!("rayon speedup, 64 gradient checks ({threads} threads)"),
                fmt_ratio(*sp),
            );
        }
        for (k, v) in self.facts {
            if k.starts_with("bytes_per")
                || k.starts_with("tape_bytes")
                || k.starts_with("rc_graph")
            {
                row(k.replace('_', " "), format!("{v}"));
            }
        }
        let lens: Vec<String> = self
            .facts
            .iter()
            .filter(|(k, _)| k.starts_with("slots/"))
            .map(|(k, v)| format!("{} {v}", k.trim_start_matches("slots/")))
            .collect();
        if !lens.is_empty() {
            row("slots recorded per benchmark".into(), lens.join(", "));
        }
        let compile: Vec<String> = self
            .facts
            .iter()
            .filter(|(k, _)| k.starts_with("compile_s/"))
            .map(|(k, v)| format!("{} {v:.1} s", k.trim_start_matches("compile_s/")))
            .collect();
        if !compile.is_empty() {
            let source = self.compile_source.as_deref().unwrap_or(
                "`cargo xtask bench --compile-time`, a run that did not record its commit",
            );
            row(
                format!("release build of a generated function ({source}), mode/operations"),
                compile.join(", "),
            );
        }

        let _ = writeln!(
            s,
            "\n| target | goal | measured | status |\n|---|---|---|---|"
        );
        for t in &self.targets {
            let status = match t.met {
                Some(true) => "met",
                Some(false) => "MISSED",
                None => "not measured",
            };
            let _ = writeln!(s, "| {} | {} | {} | {status} |", t.name, t.goal, t.measured);
        }
        s
    }

    /// Every figure as JSON: the machine, where and when the run was made (`made`, as
    /// [`provenance`] gives it), which `--compile-time` run the build times come from (`null`
    /// where none recorded it), the medians, the derived ratios, the counted facts and the
    /// targets.
    pub fn json(
        &self,
        machine: &Machine,
        made: &str,
        medians: &Medians,
        facts: &BTreeMap<String, f64>,
    ) -> String {
        let mut s = String::from("{\n");
        let _ = writeln!(
            s,
            "  \"machine\": {{\"cpus\": {}, \"cpu_model\": {}, \"rustc\": {}, \"run\": {}}},",
            machine.cpus,
            json::string(&machine.cpu_model),
            json::string(&machine.rustc),
            json::string(&machine.run)
        );
        let _ = writeln!(s, "  \"made\": {},", json::string(made));
        let _ = writeln!(
            s,
            "  \"compile_time_source\": {},",
            self.compile_source
                .as_deref()
                .map_or("null".to_string(), json::string)
        );
        let map = |s: &mut String, name: &str, m: &BTreeMap<String, f64>, last: bool| {
            let _ = writeln!(s, "  {}: {{", json::string(name));
            let n = m.len();
            for (i, (k, v)) in m.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "    {}: {}{}",
                    json::string(k),
                    json::number(*v),
                    if i + 1 < n { "," } else { "" }
                );
            }
            let _ = writeln!(s, "  }}{}", if last { "" } else { "," });
        };
        map(&mut s, "median_ns", medians, false);
        map(&mut s, "derived", &self.derived, false);
        map(&mut s, "counted", facts, false);
        s.push_str("  \"targets\": [\n");
        for (i, t) in self.targets.iter().enumerate() {
            let _ = writeln!(
                s,
                "    {{\"name\": {}, \"goal\": {}, \"measured\": {}, \"met\": {}}}{}",
                json::string(t.name),
                json::string(&t.goal),
                json::string(&t.measured),
                t.met.map_or("null".to_string(), |b| b.to_string()),
                if i + 1 < self.targets.len() { "," } else { "" }
            );
        }
        s.push_str("  ]\n}\n");
        s
    }
}

pub fn fmt_ns(ns: f64) -> String {
    if !ns.is_finite() {
        "–".into()
    } else if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

pub fn fmt_ratio(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.2}x")
    } else if r < 1000.0 {
        format!("{r:.1}x")
    } else {
        format!("{r:.0}x")
    }
}

const BEGIN: &str = "<!-- generated by `cargo xtask bench`: begin -->";
const END: &str = "<!-- generated by `cargo xtask bench`: end -->";

/// The generated section of PERFORMANCE.md: which command, commit and date, then the report.
pub fn generated(command: &str, made: &str, rendered: &str) -> String {
    format!(
        "{BEGIN}\n\nFigures from one run of `{command}` at {made} (criterion medians; written by \
         the command itself).\n{rendered}\n{END}"
    )
}

/// Where and when a measurement is made: "commit `abc1234`, 2026-12-06 13:40 UTC", with "with
/// uncommitted changes" after the commit where the tracked files differ from it.
pub fn provenance() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(project_root())
            .args(args)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    let commit = git(&["rev-parse", "--short", "HEAD"]);
    let dirty = if git(&["status", "--porcelain", "--untracked-files=no"]).is_empty() {
        ""
    } else {
        " with uncommitted changes"
    };
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!("commit `{commit}`{dirty}, {date}")
}

/// `old` with its generated section replaced by `section`, or with `section` inserted after
/// the first heading if it has none.
pub fn with_generated_section(old: &str, section: &str) -> String {
    if let (Some(b), Some(e)) = (old.find(BEGIN), old.find(END)) {
        if b < e {
            return format!("{}{section}{}", &old[..b], &old[e + END.len()..]);
        }
    }
    match old.find('\n') {
        Some(i) if old.starts_with('#') => {
            format!("{}\n\n{section}\n{}", &old[..i], &old[i + 1..])
        }
        _ => format!("{section}\n\n{old}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_section_is_replaced_or_inserted() {
        let section = format!("{BEGIN}\nnew\n{END}");
        let doc = "## Performance\nintro\n";
        let once = with_generated_section(doc, &section);
        assert_eq!(once, format!("## Performance\n\n{section}\nintro\n"));
        let again = with_generated_section(&once, &format!("{BEGIN}\nnewer\n{END}"));
        assert!(again.contains("newer") && !again.contains("new\n") && again.ends_with("intro\n"));
    }

    /// The table's build-time row and `summary.json` name the `--compile-time` run the build
    /// times come from, and `summary.json` its own run.
    #[test]
    fn build_times_and_the_summary_name_the_runs_that_measured_them() {
        let medians = Medians::new();
        let facts = BTreeMap::from([("compile_s/reverse/1000".to_string(), 12.94)]);
        let machine = Machine {
            cpus: 2,
            cpu_model: "test".into(),
            rustc: "rustc".into(),
            run: "test".into(),
        };
        let mut report = Report::new(&medians, &facts);
        let made = "commit `def5678`, 2026-12-06 17:00 UTC";
        let run = "`cargo xtask bench --compile-time --ops 1000` at commit `abc1234`, 2026-12-06";
        report.compile_source = Some(run.into());
        let row = format!(
            "| release build of a generated function ({run}), mode/operations \
             | reverse/1000 12.9 s |"
        );
        let table = report.render(&machine);
        assert!(table.contains(&row), "{table}");
        let json = report.json(&machine, made, &medians, &facts);
        for line in [
            "\n  \"made\": \"commit `def5678`, 2026-12-06 17:00 UTC\",\n".to_string(),
            format!("\n  \"compile_time_source\": \"{run}\",\n"),
            "\"compile_s/reverse/1000\": 12.94".to_string(),
        ] {
            assert!(json.contains(&line), "{json}");
        }

        report.compile_source = None;
        let table = report.render(&machine);
        assert!(table.contains(
            "(`cargo xtask bench --compile-time`, a run that did not record its commit)"
        ));
        let json = report.json(&machine, made, &medians, &facts);
        assert!(
            json.contains("\n  \"compile_time_source\": null,\n"),
            "{json}"
        );
    }

    #[test]
    fn times_and_ratios_read_at_a_glance() {
        assert_eq!(
            [12.34, 1234.0, 1.5e7, 2.5e9, f64::NAN].map(fmt_ns),
            ["12.3 ns", "1.23 µs", "15.00 ms", "2.50 s", "–"]
        );
        assert_eq!(
            [2.346, 45.67, 1234.0].map(fmt_ratio),
            ["2.35x", "45.7x", "1234x"]
        );
    }
}
