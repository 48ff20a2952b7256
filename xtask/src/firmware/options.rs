//! The options of `cargo xtask firmware`.

use std::time::Duration;

use super::{Board, BOARDS};
use crate::cli::{Arg, Args};

pub const HELP: &str = "\
cargo xtask firmware [options]

Builds firmware/ (release) for each Cortex-M target, runs it under QEMU with a timeout and prints
one row per target: pass/fail, flash and RAM bytes, peak stack, tape capacity, bytes per node and
instructions per XOR training step (QEMU -icount + SysTick, deterministic). Needs the rustup
targets, qemu-system-arm and arm-none-eabi-size (binutils-arm-none-eabi): when one is missing it
prints the commands that install it and exits with 2, unless --install is given or the variable
CI is set (CI=true), in which case it installs them (rustup target add; apt-get).

Targets (boards):
  thumbv7em-none-eabihf   mps2-an386   Cortex-M4F, hardware f32
  thumbv6m-none-eabi      microbit     Cortex-M0, soft float, 16 KiB RAM
  thumbv7m-none-eabi      lm3s6965evb  Cortex-M3, soft float

Options:
  --target <T>       only this target (repeatable; default: all three)
  --timeout <SECS>   per QEMU run (default 60); a run still going then is a failure
  --no-selftest      skip the runs that must fail (panic, fault, wrong derivative, hang)
  --install          install missing tools (the default when CI is set)
  --no-install       never install missing tools, even on CI; report them instead
  -h, --help         this text

Exit status: 0 all passed, 1 a check failed, 2 bad arguments or a missing tool.
";

pub struct Options {
    pub boards: Vec<&'static Board>,
    pub timeout: Duration,
    pub selftest: bool,
    /// `Some(true)` for `--install`, `Some(false)` for `--no-install`, `None`: decided by `CI`.
    pub install: Option<bool>,
}

/// The options, or `None` for `--help`.
pub fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut options = Options {
        boards: Vec::new(),
        timeout: Duration::from_secs(60),
        selftest: true,
        install: None,
    };
    let mut args = Args::new(args, HELP);
    while let Some(arg) = args.next()? {
        match arg {
            Arg::Help => return Ok(None),
            Arg::Option("--no-selftest") => options.selftest = false,
            Arg::Option(flag @ ("--install" | "--no-install")) => {
                let install = flag == "--install";
                if options.install == Some(!install) {
                    return Err("`--install` and `--no-install` contradict each other".into());
                }
                options.install = Some(install);
            }
            Arg::Option("--target") => {
                let t = args.value()?;
                let board = BOARDS.iter().find(|b| b.target == t).ok_or_else(|| {
                    let known: Vec<_> = BOARDS.iter().map(|b| b.target).collect();
                    format!("unknown target `{t}` (known: {})", known.join(", "))
                })?;
                if !options.boards.iter().any(|b| b.target == board.target) {
                    options.boards.push(board);
                }
            }
            Arg::Option("--timeout") => {
                options.timeout = Duration::from_secs(args.positive()?);
            }
            Arg::Option(other) => return Err(args.unknown(other)),
            Arg::Positional(other) => return Err(args.unknown(other)),
        }
    }
    if options.boards.is_empty() {
        options.boards = BOARDS.iter().collect();
    }
    Ok(Some(options))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_parse_and_bad_ones_are_errors() {
        let o = parse(&args(&[])).unwrap().unwrap();
        assert_eq!(o.boards.len(), 3);
        assert!(o.selftest && o.install.is_none());
        let o = parse(&args(&["--target", "thumbv6m-none-eabi", "--timeout", "5"]))
            .unwrap()
            .unwrap();
        assert_eq!(o.boards.len(), 1);
        assert_eq!(o.boards[0].machine, "microbit");
        assert_eq!(o.timeout, Duration::from_secs(5));
        assert_eq!(
            parse(&args(&["--install"])).unwrap().unwrap().install,
            Some(true)
        );
        assert_eq!(
            parse(&args(&["--no-install"])).unwrap().unwrap().install,
            Some(false)
        );
        assert!(parse(&args(&["--help"])).unwrap().is_none());
        for bad in [
            &["--target", "x86_64"][..],
            &["--target"],
            &["--timeout", "0"],
            &["--timeout", "soon"],
            &["--frobnicate"],
            &["--install", "--no-install"],
            &["thumbv6m-none-eabi"],
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
