//! Every task's command line through the binary: `--help` prints the task's usage and exits 0, an
//! unknown option or a missing value exits 2 with a message (and nothing is run: each case
//! fails while parsing, before any build or tool check).

use std::process::Command;

const TASKS: [&str; 8] = [
    "check", "grad", "bench", "firmware", "fuzz", "mutants", "miri", "examples",
];

fn xtask(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env_remove("CI")
        .output()
        .expect("the xtask binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_task_has_help_and_rejects_bad_options_with_exit_2() {
    for task in TASKS {
        for help in ["--help", "-h"] {
            let (code, stdout, _) = xtask(&[task, help]);
            assert_eq!(code, 0, "{task} {help}");
            assert!(
                stdout.starts_with(&format!("cargo xtask {task}")),
                "{task}: {stdout}"
            );
        }
        let (code, _, stderr) = xtask(&[task, "--no-such-option"]);
        assert_eq!(code, 2, "{task}: {stderr}");
        assert!(
            stderr.starts_with("error: unknown option `--no-such-option`")
                && stderr.contains(&format!("cargo xtask {task}")),
            "{task}: {stderr}"
        );
    }
}

#[test]
fn a_missing_or_bad_value_is_exit_2_naming_the_option() {
    let cases: [(&[&str], &str); 7] = [
        (&["check", "--seed"], "`--seed` needs a value"),
        (&["check", "--cases", "many"], "`--cases` expects"),
        (
            &["firmware", "--timeout", "0"],
            "`--timeout` expects a positive integer",
        ),
        (
            &["fuzz", "--seconds=ten"],
            "`--seconds` expects a positive integer",
        ),
        (&["mutants", "--shard", "4/4"], "K/N with K < N"),
        (&["bench", "--quick=yes"], "`--quick` takes no value"),
        (&["grad", "x", "--at"], "`--at` needs a value"),
    ];
    for (args, says) in cases {
        let (code, _, stderr) = xtask(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
