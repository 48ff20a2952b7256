//! `cargo xtask fuzz` (not implemented yet).

use std::process::ExitCode;

/// Runs the task with its arguments.
pub fn run(_args: &[String]) -> Result<ExitCode, String> {
    Err("`cargo xtask fuzz` is not implemented yet".to_string())
}
