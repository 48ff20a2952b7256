//! `cargo xtask miri`: runs the tests of the core's one `unsafe` block (`Tape::boxed`, in
//! `autograd-core/src/tape/boxed.rs`) under Miri, which reports any read of memory the
//! constructor left uninitialized, any write out of bounds and any leak.
//!
//! Needs the nightly toolchain; adds its `miri` and `rust-src` components when they are missing.

use std::process::{Command, ExitCode, Stdio};

use crate::cli::Args;
use crate::project_root;

const HELP: &str = "\
cargo xtask miri

Runs autograd-core's tests/boxed.rs (the heap-placed tape's constructor, the core's one unsafe
block) under Miri with the nightly toolchain, adding the toolchain's miri and rust-src components
if they are missing. Exits with 1 if Miri finds undefined behaviour or a test fails.

Options:
  -h, --help     this text
";

/// Runs the task with its arguments.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    if Args::help_only(args, HELP)? {
        out!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    }
    let have_miri = nightly(&["miri", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !have_miri {
        outln!("adding the nightly toolchain's miri and rust-src components...");
        let added = Command::new("rustup")
            .args([
                "component",
                "add",
                "miri",
                "rust-src",
                "--toolchain",
                "nightly",
            ])
            .status()
            .map_err(|e| format!("running rustup: {e}"))?;
        if !added.success() {
            return Err(
                "`rustup component add miri rust-src --toolchain nightly` failed \
                 (is the nightly toolchain installed? `rustup toolchain install nightly`)"
                    .to_string(),
            );
        }
    }
    let status = nightly(&["miri", "test", "-p", "autograd-core"])
        .args(["--features", "alloc", "--test", "boxed"])
        .status()
        .map_err(|e| format!("running cargo miri: {e}"))?;
    Ok(if status.success() {
        outln!("miri: no undefined behaviour in Tape::boxed's tests");
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `cargo +nightly <args>` in the workspace root.
fn nightly(args: &[&str]) -> Command {
    let mut cmd = Command::new("rustup");
    cmd.args(["run", "nightly", "cargo"])
        .args(args)
        .env_remove("RUSTUP_TOOLCHAIN")
        .current_dir(project_root());
    cmd
}
