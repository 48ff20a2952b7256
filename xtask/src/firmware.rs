//! `cargo xtask firmware`: the firmware crate (`firmware/`) built for each Cortex-M target and
//! run under QEMU, with a timeout, as the device-side check of the library.
//!
//! For each target: build (release), check the ELFs are not empty, run the device test suite,
//! the gradient checks and the XOR training in Q16.16 fixed point (each exits with success only
//! if every check passed; the trained XOR parameters, in `f32` and in Q16, must equal the same
//! steps run on the host bit for bit), run the README's minimal embedding in `f32` and in Q16,
//! and run the suite again in each selftest mode (a panic, a fault,
//! a 0.1% wrong derivative, a hang), each of which must make the run fail. The QEMU command
//! line of each target is read from `firmware/.cargo/config.toml` (the `runner` lines), so
//! `cargo run --release --target <T>` in `firmware/` runs exactly what this task runs.
//!
//! Modules: `options` (the command line), `tools` (what is missing, installed only with
//! `--install` or on CI), `build` (cargo and the ELF sizes), `qemu` (one run under QEMU),
//! `device` (one board's runs and what the firmware printed), `report` (the tables).

use std::process::ExitCode;

mod build;
mod device;
mod options;
mod qemu;
mod report;
mod tools;

/// A target and the QEMU board it runs on.
pub struct Board {
    pub target: &'static str,
    pub machine: &'static str,
    pub core: &'static str,
}

pub const BOARDS: [Board; 3] = [
    Board {
        target: "thumbv7em-none-eabihf",
        machine: "mps2-an386",
        core: "Cortex-M4F",
    },
    Board {
        target: "thumbv6m-none-eabi",
        machine: "microbit",
        core: "Cortex-M0",
    },
    Board {
        target: "thumbv7m-none-eabi",
        machine: "lm3s6965evb",
        core: "Cortex-M3",
    },
];

/// The device test suite (seeds' examples, XOR in `f32`), the gradient checks, the XOR training
/// in Q16.16 (binaries of `firmware/` that print `metric` lines and `RESULT PASS`), and the
/// README's minimal embedding in `f32` and in Q16.16 (exit code only, for their footprint).
const SUITE: &str = "autograd-firmware";
const GRADIENT_CHECKS: &str = "gradient-checks";
const XOR_Q16: &str = "xor-q16";
const MINIMAL: &str = "minimal";
const MINIMAL_Q16: &str = "minimal-q16";

/// Runs the task with its arguments.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some(options) = options::parse(args)? else {
        out!("{}", options::HELP);
        return Ok(ExitCode::SUCCESS);
    };
    let dir = crate::project_root().join("firmware");
    let runners = qemu::read_runners(&dir.join(".cargo/config.toml"))?;
    let targets: Vec<&str> = options.boards.iter().map(|b| b.target).collect();
    let ci = std::env::var_os("CI");
    tools::ensure(
        &targets,
        tools::should_install(options.install, ci.as_deref()),
    )?;

    if !build::build(&dir, &targets)? {
        eprintln!("firmware: the build failed");
        return Ok(ExitCode::from(1));
    }

    let mut rows = Vec::new();
    for board in &options.boards {
        let runner = runners.get(board.target).ok_or_else(|| {
            format!(
                "firmware/.cargo/config.toml has no runner for {}",
                board.target
            )
        })?;
        rows.push(device::run_board(&dir, board, runner, &options)?);
    }

    let icount = runners
        .values()
        .next()
        .and_then(|r| {
            let i = r.iter().position(|a| a == "-icount")?;
            r.get(i + 1).cloned()
        })
        .unwrap_or_else(|| "?".into());
    report::print_tables(&rows, &icount, options.selftest);
    let failed = rows.iter().filter(|r| !r.problems.is_empty()).count();
    if failed == 0 {
        outln!(
            "\nfirmware: {} of {} targets passed",
            rows.len(),
            rows.len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        for row in rows.iter().filter(|r| !r.problems.is_empty()) {
            for p in &row.problems {
                eprintln!("firmware: {}: {p}", row.target);
            }
        }
        eprintln!("\nfirmware: {failed} of {} targets FAILED", rows.len());
        Ok(ExitCode::from(1))
    }
}
