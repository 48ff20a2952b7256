//! `cargo xtask examples`: every public item of the published crates has documentation, and
//! every item that rustdoc expects an example for (functions, types, traits, macros, ...) has a
//! runnable one. rustdoc counts both with `--show-coverage`, an unstable option, so the task
//! runs the nightly toolchain's rustdoc (in a target directory of its own) and reads its JSON.

use std::process::{ExitCode, Stdio};

use serde_json::Value;

use crate::cli::Args;
use crate::project_root;

const HELP: &str = "\
cargo xtask examples

Checks that every public item of the published crates (autograd-core with all its features,
autograd-nn, autograd-macros) is documented and that every item rustdoc expects an example for
has one (rustdoc --show-coverage, on the nightly toolchain). Prints each file that falls short
and exits with 1 if any does.

Options:
  -h, --help     this text
";

/// The published crates, each with the features that bring in all its public items.
const CRATES: [(&str, &str); 3] = [
    ("autograd-core", "num-traits,alloc,testkit"),
    ("autograd-nn", ""),
    ("autograd-macros", ""),
];

/// One file's counts, as rustdoc reports them.
#[derive(Debug)]
struct Coverage {
    file: String,
    items: u64,
    documented: u64,
    expect_examples: u64,
    examples: u64,
}

impl Coverage {
    fn complete(&self) -> bool {
        self.documented >= self.items && self.examples >= self.expect_examples
    }
}

/// Runs the task with its arguments.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    if Args::help_only(args, HELP)? {
        out!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    }
    let root = project_root();
    let mut short = 0;
    for (krate, features) in CRATES {
        let mut cmd = crate::toolchain::cargo("nightly", &root);
        cmd.args(["rustdoc", "--quiet", "--lib", "-p", krate])
            .arg("--target-dir")
            .arg(root.join("target").join("doc-coverage"));
        if !features.is_empty() {
            cmd.args(["--features", features]);
        }
        cmd.args(["--", "-Z", "unstable-options", "--show-coverage"])
            .args(["--output-format", "json"])
            .stderr(Stdio::inherit());
        let out = cmd.output().map_err(|e| {
            format!("cannot run cargo +nightly rustdoc: {e} (is the nightly toolchain installed?)")
        })?;
        if !out.status.success() {
            return Err(format!(
                "cargo +nightly rustdoc -p {krate} failed ({}): its errors are above, or the \
                 nightly toolchain is missing (`rustup toolchain install nightly`)",
                out.status
            ));
        }
        let files = parse(&String::from_utf8_lossy(&out.stdout))
            .map_err(|e| format!("{krate}: rustdoc's coverage report: {e}"))?;
        let (mut expect, mut have) = (0, 0);
        for f in &files {
            expect += f.expect_examples;
            have += f.examples;
            if !f.complete() {
                short += 1;
                outln!(
                    "{}: {} of {} items documented, {} of {} expected examples",
                    f.file,
                    f.documented,
                    f.items,
                    f.examples,
                    f.expect_examples
                );
            }
        }
        outln!(
            "{krate}: {have} of {expect} expected examples, in {} files",
            files.len()
        );
    }
    Ok(if short == 0 {
        outln!("examples: every public item documented, every expected example there");
        ExitCode::SUCCESS
    } else {
        outln!("examples: {short} file(s) fall short (listed above)");
        ExitCode::FAILURE
    })
}

/// rustdoc's JSON coverage report: `{"file": {"total", "with_docs", "total_examples",
/// "with_examples"}, ...}`, in the report's order.
fn parse(json: &str) -> Result<Vec<Coverage>, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let files = value.as_object().ok_or("not a JSON object")?;
    if files.is_empty() {
        return Err("no files".into());
    }
    files
        .iter()
        .map(|(file, counts)| {
            let count = |key: &str| {
                counts
                    .get(key)
                    .and_then(Value::as_u64)
                    .ok_or_else(|| format!("{file}: no count `{key}`"))
            };
            Ok(Coverage {
                file: file.clone(),
                items: count("total")?,
                documented: count("with_docs")?,
                expect_examples: count("total_examples")?,
                examples: count("with_examples")?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_an_expected_example_falls_short() {
        let files = parse(
            r#"{"a.rs":{"total":9,"with_docs":9,"total_examples":6,"with_examples":5},
                "b.rs":{"total":2,"with_docs":2,"total_examples":1,"with_examples":1},
                "c.rs":{"total":3,"with_docs":2,"total_examples":0,"with_examples":0}}"#,
        )
        .unwrap();
        let complete: Vec<_> = files
            .iter()
            .map(|f| (f.file.as_str(), f.complete()))
            .collect();
        assert_eq!(complete, [("a.rs", false), ("b.rs", true), ("c.rs", false)]);
        assert_eq!(files[0].examples, 5);
    }

    #[test]
    fn a_report_without_counts_is_an_error() {
        assert!(parse("{}").is_err());
        assert!(parse("[]").is_err());
        assert!(parse(r#"{"a.rs":{"total":1}}"#).is_err());
        assert!(parse("not json").is_err());
    }
}
