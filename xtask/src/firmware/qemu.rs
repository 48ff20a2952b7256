//! Running an ELF under QEMU: the command line of each target is the `runner` of the firmware's
//! `.cargo/config.toml` (so `cargo run` in `firmware/` runs the same), with a timeout.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The `runner` of every `[target.<T>]` table in the firmware's cargo config, split into words.
pub fn read_runners(path: &Path) -> Result<BTreeMap<String, Vec<String>>, String> {
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

/// How one QEMU run ended.
pub struct Run {
    /// `None` if it was killed at the timeout.
    pub code: Option<i32>,
    pub output: String,
    pub seconds: f64,
}

impl Run {
    pub fn passed(&self) -> bool {
        self.code == Some(0)
    }
    pub fn describe(&self) -> String {
        match self.code {
            Some(c) => format!("exit status {c}"),
            None => "timed out (hang)".into(),
        }
    }
}

pub fn run_qemu(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::firmware::BOARDS;

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
}
