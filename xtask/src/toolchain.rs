//! The programs xtask runs: whether one is installed ([`available`]), and `cargo` for a crate
//! outside the workspace built by another toolchain (`fuzz/` on nightly, `enzyme/` on its pinned
//! nightly), without the variables of the `cargo xtask` that runs us: they would pin this
//! workspace's toolchain or leak its settings.

use std::path::Path;
use std::process::{Command, Stdio};

/// `true` if `program --version` runs.
pub fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `cargo +<toolchain>` in `dir`, its own target directory and flags.
pub fn cargo(toolchain: &str, dir: &Path) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.current_dir(dir)
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("CARGO")
        .env_remove("RUSTC")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR")
        .arg(format!("+{toolchain}"));
    cmd
}
