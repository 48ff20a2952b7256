//! `cargo` for a crate outside the workspace built by another toolchain (`fuzz/` on nightly,
//! `enzyme/` on its pinned nightly), without the variables of the `cargo xtask` that runs us:
//! they would pin this workspace's toolchain or leak its settings.

use std::path::Path;
use std::process::Command;

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
