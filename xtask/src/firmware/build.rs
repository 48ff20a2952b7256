//! Building the firmware (`cargo build --release` in `firmware/`, its own workspace) and reading
//! the sizes of the ELFs it made (`arm-none-eabi-size`).

use std::path::Path;
use std::process::Command;

/// `cargo build --release` of every binary for every target, in one invocation.
pub fn build(dir: &Path, targets: &[&str]) -> Result<bool, String> {
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
    outln!("firmware: building {} (release)", targets.join(", "));
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    Ok(status.success())
}

/// Sizes from `arm-none-eabi-size` (Berkeley format).
#[derive(Clone, Copy, Default)]
pub struct Sizes {
    pub text: u64,
    pub data: u64,
    pub bss: u64,
}

pub fn sizes(elf: &Path) -> Result<Sizes, String> {
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
