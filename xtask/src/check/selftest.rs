//! placeholder
use std::process::ExitCode;
pub fn run(_: &super::Options) -> Result<ExitCode, String> {
    Err("todo".into())
}
pub fn inject_from_env() -> Result<(), String> {
    Ok(())
}
