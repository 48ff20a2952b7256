//! The project's task runner, reached as `cargo xtask <task>` (alias in `.cargo/config.toml`).
//!
//! One module per task. Every task returns an exit code: 0 success, 1 a check failed, 2 bad
//! arguments or a missing tool (with a message on stderr).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

// First: its macros (`out!`, `outln!`) are in scope in every module declared after it.
#[macro_use]
mod out;

mod bench;
mod check;
mod cli;
mod examples;
mod firmware;
mod fuzz;
mod grad;
mod json;
mod miri;
mod mutants;
mod svg;
mod table;
mod toolchain;

const HELP: &str = "\
cargo xtask <task> [options]

Tasks:
  check      run the gradient-check suites (reverse vs forward vs finite differences)
  bench      run the benchmarks and print the comparison table
  examples   every public item of the published crates documented, with a runnable example
  firmware   build and run the firmware on emulated Cortex-M parts (QEMU)
  fuzz       run the cargo-fuzz targets for a bounded time
  grad       the lessons' calculator: an expression's value and gradient at points by reverse
             mode, forward mode and finite differences (Hessian, f32, graph and step-size plot)
  miri       the core's one unsafe block (the heap-placed tape) under Miri
  mutants    mutation testing of the core's derivative rules (cargo-mutants)

Run `cargo xtask <task> --help` for a task's options.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        out!("{HELP}");
        return ExitCode::SUCCESS;
    };
    let result = match task.as_str() {
        "check" => check::run(rest),
        "bench" => bench::run(rest),
        "examples" => examples::run(rest),
        "firmware" => firmware::run(rest),
        "fuzz" => fuzz::run(rest),
        "grad" => grad::run(rest),
        "miri" => miri::run(rest),
        "mutants" => mutants::run(rest),
        "help" | "--help" | "-h" => {
            out!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown task `{other}`\n\n{HELP}")),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// The workspace root (the parent of this crate's directory).
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}
