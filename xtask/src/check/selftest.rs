//! `cargo xtask check --selftest`: the checks must be able to fail.
//!
//! Builds this program again with `RUSTFLAGS="--cfg autograd_fault_injection"` into its own
//! target directory (`target/selftest`), which compiles the core's `fault.rs`: known-wrong
//! derivative rules and a sweep that keeps the last sweep's adjoints, selected at run time. It
//! then runs `check --quick` once per fault, with the fault named in the environment variable
//! `AUTOGRAD_FAULT`, and requires exit code 1 and a failure of that operation in the `ops` suite
//! (for the sweep's fault, a second sweep over one recording found to differ from the first and
//! a sweep from `0 · f` found to give a nonzero gradient);
//! and once without a fault, requiring exit code 0.
//! Normal builds have no fault injection: there `AUTOGRAD_FAULT` is an error.

use std::process::{Command, ExitCode};

use super::Options;

/// The environment variable that selects a fault in a fault-injection build.
const FAULT_VAR: &str = "AUTOGRAD_FAULT";

/// Each fault (its name in `autograd_core::fault::Fault::name`) and the failure line it must
/// produce: how it starts (the `ops` suite naming the operation) and what it contains (for the
/// sweep's fault, both checks of a sweep over a recording swept before: a second sweep gives the
/// first's gradient, and a sweep from `0 · f` gives zero).
const FAULTS: [(&str, &str, &[&str]); 5] = [
    ("sin-nan-above-one", "FAILED [ops] sin at ", &[]),
    ("tanh-wrong-sign", "FAILED [ops] tanh at ", &[]),
    ("mul-missing-factor-two", "FAILED [ops] mul at ", &[]),
    ("powi-missing-factor-two", "FAILED [ops] powi(", &[]),
    (
        "sweep-keeps-adjoints",
        "FAILED [ops] ",
        &[
            "a second backward sweep over one recording differs from the first",
            "a backward sweep from 0 · f gives a nonzero gradient",
        ],
    ),
];

/// In a fault-injection build, selects the fault `AUTOGRAD_FAULT` names (if set).
#[cfg(autograd_fault_injection)]
pub fn inject_from_env() -> Result<(), String> {
    use autograd_core::fault::{inject, Fault};
    let Ok(name) = std::env::var(FAULT_VAR) else {
        return Ok(());
    };
    let fault = Fault::ALL
        .into_iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| format!("unknown fault `{name}` in {FAULT_VAR}"))?;
    inject(fault);
    outln!("fault injected: {name}");
    Ok(())
}

/// In a normal build there are no faults to inject: asking for one is an error.
#[cfg(not(autograd_fault_injection))]
pub fn inject_from_env() -> Result<(), String> {
    match std::env::var_os(FAULT_VAR) {
        Some(_) => Err(format!(
            "{FAULT_VAR} is set, but this build has no fault injection (it is compiled only \
             with `--cfg autograd_fault_injection`; `cargo xtask check --selftest` does that)"
        )),
        None => Ok(()),
    }
}

pub fn run(options: &Options) -> Result<ExitCode, String> {
    let root = crate::project_root();
    let target = root.join("target").join("selftest");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
    flags.push_str(" --cfg autograd_fault_injection");
    outln!(
        "building the check with fault injection into {}",
        target.display()
    );
    let built = Command::new(&cargo)
        .current_dir(&root)
        .env("RUSTFLAGS", flags.trim())
        .args(["build", "--package", "xtask", "--target-dir"])
        .arg(&target)
        .status()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if !built.success() {
        return Err("the fault-injection build failed".into());
    }
    let exe = target
        .join("debug")
        .join(format!("xtask{}", std::env::consts::EXE_SUFFIX));
    let threads = options.threads.to_string();
    let seed = options.seed.to_string();
    let check = |fault: Option<&str>| -> Result<(Option<i32>, String), String> {
        let mut cmd = Command::new(&exe);
        cmd.args(["check", "--quick", "--seed", &seed, "--threads", &threads]);
        cmd.env_remove(FAULT_VAR);
        if let Some(f) = fault {
            cmd.env(FAULT_VAR, f);
        }
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        Ok((out.status.code(), text))
    };

    let mut all_ok = true;
    outln!(
        "\n{:<26} {:>9}  {:>14}  verdict",
        "fault",
        "exit code",
        "failed cases"
    );
    for (fault, expected, says) in FAULTS {
        let (code, text) = check(Some(fault))?;
        let named = text
            .lines()
            .any(|l| l.starts_with(expected) && says.iter().all(|s| l.contains(s)));
        let failed = text.lines().filter(|l| l.starts_with("FAILED ")).count();
        let ok = code == Some(1) && named;
        all_ok &= ok;
        // The line looked for, as the verdict quotes it.
        let line = says
            .iter()
            .fold(expected.trim_end().to_string(), |l, s| format!("{l}...{s}"));
        outln!(
            "{fault:<26} {:>9}  {failed:>14}  {}",
            code.map_or("signal".into(), |c| c.to_string()),
            if ok {
                format!("caught (\"{line}\")")
            } else if code == Some(1) {
                format!("NOT NAMED: no line like \"{line}\"")
            } else {
                "NOT CAUGHT".into()
            }
        );
        if !ok {
            outln!("--- output of the run with {fault} ---\n{text}---");
        }
    }
    let (code, text) = check(None)?;
    let clean = code == Some(0);
    all_ok &= clean;
    outln!(
        "{:<26} {:>9}  {:>14}  {}",
        "(none)",
        code.map_or("signal".into(), |c| c.to_string()),
        text.lines().filter(|l| l.starts_with("FAILED ")).count(),
        if clean {
            "passes"
        } else {
            "FAILS WITHOUT A FAULT"
        }
    );
    if !clean {
        outln!("--- output of the clean run ---\n{text}---");
    }
    outln!(
        "\nselftest {}",
        if all_ok {
            "passed: every injected fault failed the check, naming its operation"
        } else {
            "FAILED"
        }
    );
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
