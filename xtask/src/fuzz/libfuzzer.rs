//! Reading libFuzzer's output: its final statistics, the status lines, the inputs it saved
//! (a crash's artifact, or a slow unit it goes on past) and the time of a rerun.

use std::path::Path;

/// The milliseconds of libFuzzer's `Executed <input> in N ms` line.
pub(super) fn executed_ms(line: &str) -> Option<u64> {
    let rest = line.trim_end().strip_prefix("Executed ")?;
    let (_, time) = rest.rsplit_once(" in ")?;
    time.strip_suffix(" ms")?.parse().ok()
}

/// Figures read from libFuzzer's output.
#[derive(Default)]
pub(super) struct Stats {
    /// `stat::number_of_executed_units`
    pub(super) executions: Option<u64>,
    /// `stat::average_exec_per_sec`
    pub(super) exec_per_s: Option<u64>,
    /// `Done N runs in S second(s)`
    pub(super) done_seconds: Option<u64>,
    /// `#N` of the last status line (if the run ended without final stats).
    pub(super) last_count: u64,
    /// Inputs saved after a crash, timeout or out-of-memory.
    pub(super) artifacts: Vec<String>,
    /// Inputs libFuzzer saved for being slow (`slow-unit-*`; it goes on fuzzing).
    pub(super) slow_units: Vec<String>,
    pub(super) messages: Vec<String>,
}

impl Stats {
    pub(super) fn read(&mut self, line: &str) {
        let line = line.trim_end();
        if let Some(v) = line.strip_prefix("stat::number_of_executed_units:") {
            self.executions = v.trim().parse().ok();
        } else if let Some(v) = line.strip_prefix("stat::average_exec_per_sec:") {
            self.exec_per_s = v.trim().parse().ok();
        } else if let Some(rest) = line.strip_prefix("Done ") {
            // "Done 168093 runs in 121 second(s)"
            let words: Vec<&str> = rest.split_whitespace().collect();
            if let [runs, "runs", "in", secs, ..] = words.as_slice() {
                self.executions.get_or_insert(runs.parse().unwrap_or(0));
                self.done_seconds = secs.parse().ok();
            }
        } else if let Some(rest) = line.strip_prefix('#') {
            if let Some(n) = rest.split_whitespace().next().and_then(|n| n.parse().ok()) {
                self.last_count = n;
            }
        }
        if let Some(i) = line.find("Test unit written to ") {
            let unit = line[i + "Test unit written to ".len()..].trim().to_string();
            let name = Path::new(&unit).file_name().and_then(|n| n.to_str());
            if name.is_some_and(|n| n.starts_with("slow-unit-")) {
                self.slow_units.push(unit);
            } else {
                self.artifacts.push(unit);
            }
            self.messages.push(line.to_string());
        }
        if line.contains("panicked at")
            || line.contains("ERROR: libFuzzer:")
            || line.contains("ERROR: AddressSanitizer")
        {
            self.messages.push(line.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_libfuzzer_final_stats() {
        let mut s = Stats::default();
        for line in [
            "#1225\tINITED cov: 4682 ft: 17033 corp: 1032/62Kb exec/s: 0 rss: 81Mb",
            "#168093\tDONE   cov: 5000 ft: 20000 corp: 1100/70Kb lim: 4096 exec/s: 1389 rss: 90Mb",
            "Done 168093 runs in 121 second(s)",
            "stat::number_of_executed_units: 168093",
            "stat::average_exec_per_sec:     1389",
        ] {
            s.read(line);
        }
        assert_eq!(
            (s.executions, s.exec_per_s, s.done_seconds),
            (Some(168093), Some(1389), Some(121))
        );
        assert!(s.artifacts.is_empty());
    }

    #[test]
    fn reads_a_crash() {
        let mut s = Stats::default();
        for line in [
            "#5000\tNEW    cov: 10 ft: 10 corp: 3/1b exec/s: 2500 rss: 40Mb",
            "thread '<unnamed>' (6873) panicked at fuzz_targets/differential.rs:83:13:",
            "==6873== ERROR: libFuzzer: deadly signal",
            "artifact_prefix='/w/fuzz/artifacts/differential/'; Test unit written to /w/fuzz/artifacts/differential/crash-0e9d",
        ] {
            s.read(line);
        }
        assert_eq!(s.last_count, 5000);
        assert_eq!(s.executions, None);
        assert_eq!(
            s.artifacts,
            vec!["/w/fuzz/artifacts/differential/crash-0e9d".to_string()]
        );
        assert_eq!(s.messages.len(), 3);
    }

    #[test]
    fn tells_a_slow_unit_from_a_crash() {
        let mut s = Stats::default();
        for line in [
            "Slowest unit: 17 s:",
            "artifact_prefix='/w/fuzz/artifacts/differential/'; Test unit written to /w/fuzz/artifacts/differential/slow-unit-8b16",
            "#164272\tREDUCE cov: 14791 ft: 73391 corp: 4183/1412Kb exec/s: 406 rss: 550Mb",
        ] {
            s.read(line);
        }
        assert!(s.artifacts.is_empty());
        assert_eq!(
            s.slow_units,
            ["/w/fuzz/artifacts/differential/slow-unit-8b16"]
        );
        assert_eq!(s.last_count, 164272);
    }

    #[test]
    fn reads_the_time_of_a_rerun() {
        let line = "Executed /w/fuzz/artifacts/differential/slow-unit-8b16 in 20 ms";
        assert_eq!(executed_ms(line), Some(20));
        assert_eq!(executed_ms("Executed /a dir/in x in 1500 ms\n"), Some(1500));
        for other in [
            "Running: /w/slow-unit-8b16",
            "Executed /w/x in ms",
            "Executed /w/x",
        ] {
            assert_eq!(executed_ms(other), None, "{other}");
        }
    }
}
