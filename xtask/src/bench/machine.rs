//! The machine a run measured on (CPU count and model, rustc, load), printed above the tables.

use std::process::Command;

/// Where and how the figures were obtained.
pub struct Machine {
    pub cpus: usize,
    pub cpu_model: String,
    pub rustc: String,
    /// How the figures were obtained (quick or full, which clock, machine load).
    pub run: String,
}

/// The 1-, 5- and 15-minute load averages (Linux), to judge how shared the machine was.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}

pub fn machine() -> Machine {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let lscpu = Command::new("lscpu")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let from_lscpu = lscpu
        .lines()
        .find(|l| l.trim_start().starts_with("Model name:"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_string());
    let cpu_model = from_lscpu.or_else(|| {
        std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
    });
    let cpu_model = cpu_model.unwrap_or_else(|| "unknown".to_string());
    let rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    Machine {
        cpus,
        cpu_model,
        rustc,
        run: String::new(),
    }
}
