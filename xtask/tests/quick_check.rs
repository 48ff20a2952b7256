//! `cargo xtask check --quick` as a test, so that `cargo mutants` (which judges a mutant by
//! `cargo test`) can use the gradient-check suites as a killer: `cargo xtask mutants` runs the
//! core's tests and this one (`--include-ignored`). Ignored by default because CI runs the same
//! check directly (`.ci/run`), and `cargo test --workspace` should not run it twice.

use std::process::Command;

#[test]
#[ignore = "run by `cargo xtask mutants`; CI runs `cargo xtask check --quick` itself"]
fn quick_check_passes() {
    let status = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["check", "--quick"])
        .status()
        .expect("the xtask binary runs");
    assert_eq!(status.code(), Some(0), "cargo xtask check --quick failed");
}
