//! `cargo xtask mutants`: mutation testing of the core's derivative and forward rules with
//! cargo-mutants (installed with `cargo install cargo-mutants --locked` when missing).
//!
//! Every mutant of the files in [`RULE_FILES`] (a changed operator, a deleted match arm, a function
//! body replaced by a default value) is built and judged by the core's tests plus `cargo xtask
//! check --quick`: cargo-mutants runs `cargo test --package autograd-core --package xtask --package
//! autograd-macros --features autograd-core/alloc,autograd-core/num-traits --tests --
//! --include-ignored` (`alloc` for the tests of statements of millions of operands, `num-traits`
//! for `num.rs` and its tests), which includes xtask's ignored test `quick_check_passes`
//! (`xtask/tests/quick_check.rs`) that runs the check. Doctests are left out (`--tests`): they
//! document, the tests check. A mutant that survives is either killed by a new test or listed,
//! with a one-line reason it is equivalent (or that only another build, which the reason names,
//! can tell it apart), in `xtask/mutants-equivalent.txt`.
//!
//! Exit code 0 when every surviving mutant is listed as equivalent and, in a run of whole files, no
//! line of the list is left without its survivor; 1 otherwise, 2 for bad arguments, a missing tool
//! or a run that could not start (e.g. the unmutated tree fails).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use crate::cli::{shard, Arg, Args};

/// The files holding the derivative and forward rules: the op table, `f32`'s `tanh` (integer
/// arithmetic of the core's own), `Q16`'s arithmetic and elementary functions (the same), the
/// handles that apply the chain rule (one- and two-input, their out-of-line merges, n-ary, a
/// `stmt!` statement's), the layer statement (its writer, where that writer reads its parameters
/// and writes its rows, a network written in one call, its activation, and the sweep that forms its
/// partials), `Var`'s operators and `Number` methods (`var/ops.rs`) and `Number`'s default methods,
/// the ones `f64` and dual numbers run (`number.rs`), the tape's writes (each statement's slots,
/// the capacity test and the sticky error where they do not fit), how a slot's link encodes a
/// header, a layer row or an operand (`tape/slot.rs`), the dual-number rules and the composite
/// functions; and the files behind the tape's promises: its leaves, marks and rewinds (`tape.rs`),
/// gradients that refuse to read after a later sweep (`tape/gradients.rs`), positions tagged with
/// their tape (`tape/ids.rs`), leaves checked once (`tape/leaves.rs`), NaN provenance
/// (`anomaly.rs`), statements read back and leaves set by id (`tape/nodes.rs`), a statement's
/// operands read in both its layouts (`tape/operands.rs`), many leaves recorded at once
/// (`tape/vars.rs`), a closure's gradient in one call (`tape/closure.rs`), the Graphviz export with
/// its edges' partials (`dot.rs`) and the scalar whose tape records every operation out of line
/// (`outlined.rs`); and the checks that judge the rules: the gradient check (`check.rs`) and
/// central differences, its reference that needs no rule (`finite_diff.rs`); and the drivers that
/// run one function in every mode: the skeleton they share (`drive.rs`), gradients, Jacobians,
/// Hessians and Hessian-vector products (`gradient.rs`, `jacobian.rs`, `hessian.rs`), their shape
/// checks (`diff_error.rs`) and their scratch on the stack or the heap (`scratch.rs`); and the
/// `num_traits` impls' compositions with their exact derivatives (`num.rs`, feature `num-traits`);
/// the errors' messages (`error.rs`), the function traits (`function.rs`) and the heap-placed tape
/// (`tape/boxed.rs`). Update when the tape is redesigned.
pub const RULE_FILES: [&str; 47] = [
    "autograd-core/src/op.rs",
    "autograd-core/src/scalar/tanhf.rs",
    "autograd-core/src/fixed.rs",
    "autograd-core/src/fixed/funcs.rs",
    "autograd-core/src/fixed/funcs/tanh.rs",
    "autograd-core/src/var.rs",
    "autograd-core/src/var/combine.rs",
    "autograd-core/src/var/merge.rs",
    "autograd-core/src/var/nary.rs",
    "autograd-core/src/var/statement.rs",
    "autograd-core/src/var/layer.rs",
    "autograd-core/src/var/layer/source.rs",
    "autograd-core/src/var/layer/flush.rs",
    "autograd-core/src/var/layer/heads.rs",
    "autograd-core/src/var/layer/stack.rs",
    "autograd-core/src/var/layer/activate.rs",
    "autograd-core/src/var/ops.rs",
    "autograd-core/src/number.rs",
    "autograd-core/src/tape/backward.rs",
    "autograd-core/src/tape/write.rs",
    "autograd-core/src/tape/slot.rs",
    "autograd-core/src/tape.rs",
    "autograd-core/src/tape/gradients.rs",
    "autograd-core/src/tape/ids.rs",
    "autograd-core/src/tape/leaves.rs",
    "autograd-core/src/anomaly.rs",
    "autograd-core/src/tape/nodes.rs",
    "autograd-core/src/tape/operands.rs",
    "autograd-core/src/tape/vars.rs",
    "autograd-core/src/tape/closure.rs",
    "autograd-core/src/dot.rs",
    "autograd-core/src/outlined.rs",
    "autograd-core/src/check.rs",
    "autograd-core/src/finite_diff.rs",
    "autograd-core/src/drive.rs",
    "autograd-core/src/gradient.rs",
    "autograd-core/src/jacobian.rs",
    "autograd-core/src/hessian.rs",
    "autograd-core/src/diff_error.rs",
    "autograd-core/src/scratch.rs",
    "autograd-core/src/dual.rs",
    "autograd-core/src/dual_vec.rs",
    "autograd-core/src/math.rs",
    "autograd-core/src/num.rs",
    "autograd-core/src/error.rs",
    "autograd-core/src/function.rs",
    "autograd-core/src/tape/boxed.rs",
];

/// Surviving mutants known to be equivalent, one per line with its reason.
const EQUIVALENT: &str = "xtask/mutants-equivalent.txt";

const HELP: &str = "\
cargo xtask mutants [options]

Mutation testing (cargo-mutants) of the core's derivative and forward rules, the tape's writes and
its promises, the gradient check with its central differences, and the drivers that run one
function in every mode (gradients, Jacobians, Hessians): op.rs, scalar/tanhf.rs, fixed.rs,
fixed/funcs.rs, fixed/funcs/tanh.rs, var.rs, var/combine.rs, var/merge.rs, var/nary.rs,
var/statement.rs, var/layer.rs, var/layer/source.rs, var/layer/flush.rs, var/layer/heads.rs,
var/layer/stack.rs, var/layer/activate.rs, var/ops.rs, number.rs, tape/backward.rs, tape/write.rs,
tape/slot.rs, tape.rs, tape/gradients.rs, tape/ids.rs, tape/leaves.rs, anomaly.rs, tape/nodes.rs,
tape/operands.rs, tape/vars.rs, tape/closure.rs, dot.rs, outlined.rs, check.rs, finite_diff.rs,
drive.rs, gradient.rs, jacobian.rs, hessian.rs, diff_error.rs, scratch.rs, dual.rs, dual_vec.rs,
math.rs, num.rs, error.rs, function.rs, tape/boxed.rs. The killer is the core's tests, `stmt!`'s
(autograd-macros) and `cargo xtask check --quick`. Prints caught / missed / unviable / timeout
counts, the score and the surviving mutants; where whole files were run (no --shard, no --re), also
the lines of xtask/mutants-equivalent.txt that set aside no survivor (stale: remove them). Long:
about a minute per mutant per job. Installs cargo-mutants if missing.

Options:
  --file PATH      mutate only this file (repeatable; default: all of the above)
  --jobs N         mutants built and tested in parallel (default 1)
  --timeout SECS   time limit per test run (default: cargo-mutants' own, from the baseline)
  --shard K/N      test only shard K of N, K from 0 to N - 1 (round-robin: an even sample
                   of every file)
  --re REGEX       only the mutants whose names (as `--list` shows them) match REGEX
                   (repeatable: any of them; cargo-mutants' own `--re`), e.g. one
                   function's mutants again: --re 'heads.rs:.*four'
  --list           list the mutants, run nothing; of whole files (no --re), also check
                   that each line of xtask/mutants-equivalent.txt names a mutant the tree
                   has (exit 1 naming the stale ones)
  -h, --help       this text
";

struct Options {
    files: Vec<String>,
    jobs: u32,
    timeout: Option<u64>,
    shard: Option<String>,
    names: Vec<String>,
    list: bool,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        files: Vec::new(),
        jobs: 1,
        timeout: None,
        shard: None,
        names: Vec::new(),
        list: false,
    };
    let mut args = Args::new(args, HELP);
    while let Some(arg) = args.next()? {
        match arg {
            Arg::Help => return Ok(None),
            Arg::Option("--list") => o.list = true,
            Arg::Option("--file") => {
                let f = args.value()?;
                if !RULE_FILES.contains(&f) {
                    return Err(format!(
                        "`--file {f}`: not one of the rule files: {}",
                        RULE_FILES.join(", ")
                    ));
                }
                o.files.push(f.to_string());
            }
            Arg::Option("--jobs") => {
                o.jobs = u32::try_from(args.positive()?)
                    .map_err(|_| "`--jobs` is too large".to_string())?;
            }
            Arg::Option("--timeout") => o.timeout = Some(args.positive()?),
            Arg::Option("--shard") => {
                let s = args.value()?;
                shard(s)?;
                o.shard = Some(s.to_string());
            }
            Arg::Option("--re") => {
                let r = args.value()?;
                if r.trim().is_empty() {
                    return Err("`--re` needs a pattern: an empty one matches every mutant".into());
                }
                o.names.push(r.to_string());
            }
            Arg::Option(other) | Arg::Positional(other) => return Err(args.unknown(other)),
        }
    }
    if o.files.is_empty() {
        o.files = RULE_FILES.iter().map(|s| s.to_string()).collect();
    }
    Ok(Some(o))
}

pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some(o) = parse(args)? else {
        out!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    };
    ensure_cargo_mutants()?;
    let root = crate::project_root();
    let out_dir = root.join("target").join("mutants");
    let mut cmd = Command::new("cargo");
    cmd.current_dir(&root)
        .args(["mutants", "--package", "autograd-core"])
        .args(["--test-package", "autograd-core", "--test-package", "xtask"])
        // `stmt!`'s tests: the statements `var/statement.rs` writes.
        .args(["--test-package", "autograd-macros"])
        // `tests/layer_limit.rs` needs a heap-placed tape; `num.rs` and `tests/num_traits.rs`
        // the `num_traits` impls.
        .args(["--features", "autograd-core/alloc"])
        .args(["--features", "autograd-core/num-traits"]);
    for f in &o.files {
        cmd.args(["--file", f]);
    }
    for r in &o.names {
        cmd.args(["--re", r]);
    }
    // Only a run of whole files tests every mutant a line of the list can name.
    let whole: &[String] = if o.shard.is_none() && o.names.is_empty() {
        &o.files
    } else {
        &[]
    };
    if o.list {
        let output = cmd
            .arg("--list")
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("cannot run cargo mutants: {e}"))?;
        if !output.status.success() {
            return Ok(ExitCode::from(2));
        }
        let listed = String::from_utf8_lossy(&output.stdout);
        out!("{listed}");
        // A line of the list whose name the tree has fewer mutants of than lines is stale.
        let names: Vec<String> = listed.lines().map(str::to_string).collect();
        let stale = stale(&names, &equivalent(&root.join(EQUIVALENT)), whole);
        print_stale(&stale, "mutant(s) of that name in the tree");
        return Ok(if stale.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    cmd.args(["--jobs", &o.jobs.to_string()])
        .arg("--output")
        .arg(&out_dir);
    if let Some(t) = o.timeout {
        cmd.args(["--timeout", &t.to_string()]);
    }
    if let Some(s) = &o.shard {
        cmd.args(["--shard", s, "--sharding", "round-robin"]);
    }
    // To `cargo test`: unit and integration tests, no doctests; to the test binaries: run the
    // ignored killer too.
    cmd.args(["--", "--tests", "--", "--include-ignored"]);
    outln!("running: {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run cargo mutants: {e}"))?;
    // cargo-mutants: 0 all caught, 2 some missed, 3 some timed out; anything else means the
    // run itself failed (bad usage, a failing unmutated tree).
    if !matches!(status.code(), Some(0 | 2 | 3)) {
        return Err(format!("cargo mutants did not complete ({status})"));
    }
    report(&out_dir.join("mutants.out"), &root.join(EQUIVALENT), whole)
}

/// The lines of one of cargo-mutants' result lists (missing file: none).
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// A mutant's name without its line and column (`file:line:col: what` -> `file: what`), so the
/// list of equivalent mutants survives edits elsewhere in the file.
fn key(name: &str) -> String {
    let mut parts = name.splitn(4, ':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(file), Some(_line), Some(_col), Some(what)) => format!("{file}:{what}"),
        _ => name.to_string(),
    }
}

/// The equivalent mutants: `file: what  # reason` per line (`#` lines and blanks ignored), each
/// name with the number of lines that list it. One line sets aside one survivor: cargo-mutants
/// gives the same name to the same change at two places of one function, and a line that set
/// aside every survivor of its name hid a real gap (`var/layer.rs`'s `rows_of`: `* with /` in
/// an error's count, equivalent, and in the row offset, a missing test).
fn equivalent(path: &Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    tally(
        text.lines()
            .map(|l| l.split(" # ").next().unwrap_or("").trim())
            .filter(|entry| !entry.is_empty() && !entry.starts_with('#'))
            .map(str::to_string),
    )
}

/// How many times each name comes.
fn tally(names: impl Iterator<Item = String>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for name in names {
        *counts.entry(name).or_insert(0) += 1;
    }
    counts
}

/// The survivors set aside as listed (in `missed`' order, as many of each name as the list has
/// lines for it) and the others, each with how many lines list its name (0: not listed).
fn partition<'m>(
    missed: &'m [String],
    known: &BTreeMap<String, usize>,
) -> (Vec<&'m String>, Vec<(&'m String, usize)>) {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let (mut listed, mut survivors) = (Vec::new(), Vec::new());
    for m in missed {
        let k = key(m);
        let lines = known.get(&k).copied().unwrap_or(0);
        let nth = seen.entry(k).or_insert(0);
        *nth += 1;
        if *nth <= lines {
            listed.push(m);
        } else {
            survivors.push((m, lines));
        }
    }
    (listed, survivors)
}

/// The names of `whole`'s files (every mutant of them in `found`) that the list holds more times
/// than `found` has mutants of that name, with the two counts: `found` being a run's survivors
/// (missed or timed out), or every mutant of the tree (`--list`). Such a line sets aside nothing
/// now (its code changed, moved or was tested since) and would silently set aside a real
/// survivor of its name later: `var/nary.rs`' one-pass count went from `nary` to `Terms::write`,
/// and two lines kept naming `nary` for mutants that were all caught.
fn stale(
    found: &[String],
    known: &BTreeMap<String, usize>,
    whole: &[String],
) -> Vec<(String, usize, usize)> {
    let counts = tally(found.iter().map(|m| key(m)));
    known
        .iter()
        .filter(|(k, _)| {
            whole
                .iter()
                .any(|f| k.split(':').next() == Some(f.as_str()))
        })
        .filter_map(|(k, &lines)| {
            let n = counts.get(k).copied().unwrap_or(0);
            (n < lines).then(|| (k.clone(), lines, n))
        })
        .collect()
}

/// Prints [`stale`]'s lines, `what` saying what their counts count.
fn print_stale(stale: &[(String, usize, usize)], what: &str) {
    for (k, lines, n) in stale {
        outln!(
            "  STALE:      {k}: listed {lines} time(s), {n} {what}: remove the line(s) beyond \
             them from {EQUIVALENT}"
        );
    }
}

fn report(out: &Path, equivalent_list: &Path, whole: &[String]) -> Result<ExitCode, String> {
    let caught = lines(&out.join("caught.txt"));
    let missed = lines(&out.join("missed.txt"));
    let timeout = lines(&out.join("timeout.txt"));
    let unviable = lines(&out.join("unviable.txt"));
    let known = equivalent(equivalent_list);
    let (listed, survivors) = partition(&missed, &known);
    let stale = stale(&[&missed[..], &timeout[..]].concat(), &known, whole);
    let viable = caught.len() + missed.len() + timeout.len();
    let percent = |n: usize| 100.0 * n as f64 / viable.max(1) as f64;
    outln!(
        "\nmutants: {} caught, {} missed ({} listed as equivalent), {} unviable, {} timeout",
        caught.len(),
        missed.len(),
        listed.len(),
        unviable.len(),
        timeout.len()
    );
    outln!(
        "score: {:.1} % of {viable} viable mutants caught (timeouts count as caught); \
         {:.1} % with the equivalent ones set aside",
        percent(caught.len() + timeout.len()),
        100.0 * (caught.len() + timeout.len()) as f64 / (viable - listed.len()).max(1) as f64
    );
    for m in &listed {
        outln!("  equivalent: {m}");
    }
    for (m, lines) in &survivors {
        if *lines == 0 {
            outln!("  SURVIVED:   {m}");
        } else {
            outln!(
                "  SURVIVED:   {m} (its name is listed {lines} time(s), for as many survivors: \
                 if this one is equivalent too, list it again with its own reason)"
            );
        }
    }
    print_stale(&stale, "such survivor(s) in this run of the whole file");
    outln!("(lists in {})", out.display());
    Ok(if survivors.is_empty() && stale.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn ensure_cargo_mutants() -> Result<(), String> {
    let installed = Command::new("cargo")
        .args(["mutants", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if installed {
        return Ok(());
    }
    outln!("cargo-mutants is missing: cargo install cargo-mutants --locked");
    let status = Command::new("cargo")
        .args(["install", "cargo-mutants", "--locked"])
        .status()
        .map_err(|e| format!("could not run cargo install: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("`cargo install cargo-mutants --locked` failed".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_validated() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(parse(&s(&["--jobs", "0"])).is_err());
        assert!(parse(&s(&["--timeout", "x"])).is_err());
        assert!(parse(&s(&["--file", "autograd-core/src/lib.rs"])).is_err());
        assert!(parse(&s(&["--shard", "3/3"])).is_err());
        assert!(parse(&s(&["--bogus"])).is_err());
        let o = parse(&s(&["--file", "autograd-core/src/op.rs", "--shard", "0/4"]))
            .unwrap()
            .unwrap();
        assert_eq!(o.files, ["autograd-core/src/op.rs"]);
        assert_eq!((o.jobs, o.shard.as_deref()), (1, Some("0/4")));
        assert!(parse(&s(&["--re", " "])).is_err());
        assert!(parse(&s(&["--re"])).is_err());
        let o = parse(&s(&["--re", "heads.rs:.*four", "--re", "nary"]))
            .unwrap()
            .unwrap();
        assert_eq!(o.names, ["heads.rs:.*four", "nary"]);
        assert_eq!(parse(&[]).unwrap().unwrap().files.len(), RULE_FILES.len());
    }

    /// The help names the rule files by hand: one added to `RULE_FILES` and forgotten there
    /// fails here.
    #[test]
    fn the_help_names_every_rule_file() {
        for f in RULE_FILES {
            let short = f.strip_prefix("autograd-core/src/").unwrap_or(f);
            let named = HELP
                .split(|c: char| c.is_whitespace() || c == ',' || c == ':')
                .any(|w| w.trim_end_matches('.') == short);
            assert!(named, "{short} is missing from the help");
        }
    }

    /// One listed line sets aside one survivor of its name: a second survivor of the same
    /// name elsewhere in the function is reported.
    #[test]
    fn each_listed_line_sets_aside_one_survivor() {
        let dir = std::env::temp_dir().join(format!("xtask-mutants-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("equivalent.txt");
        std::fs::write(
            &list,
            "# a comment\n\
             a.rs: replace * with / in f  # the error's count, never returned\n\
             a.rs: replace + with - in g  # at 0 both sides agree\n\
             a.rs: replace + with - in g  # the same, at the second place\n",
        )
        .unwrap();
        let known = equivalent(&list);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(known.get("a.rs: replace + with - in g"), Some(&2));
        let missed: Vec<String> = [
            "a.rs:3:9: replace * with / in f",
            "a.rs:7:20: replace * with / in f",
            "a.rs:10:5: replace + with - in g",
            "a.rs:11:5: replace + with - in g",
            "a.rs:12:5: replace - with + in h",
        ]
        .map(String::from)
        .into();
        let (listed, survivors) = partition(&missed, &known);
        assert_eq!(listed, [&missed[0], &missed[2], &missed[3]]);
        assert_eq!(survivors, [(&missed[1], 1), (&missed[4], 0)]);
    }

    /// A line whose name no survivor of a whole file's run bears is stale; lines of files not
    /// run whole (a shard, `--re`, another file) are not judged.
    #[test]
    fn a_line_without_its_survivor_is_stale() {
        let known: BTreeMap<String, usize> = [
            ("a.rs: replace + with - in g", 2),
            ("a.rs: delete ! in h", 1),
            ("a.rs: replace * with / in f", 1),
            ("b.rs: replace * with / in f", 1),
        ]
        .map(|(k, n)| (k.to_string(), n))
        .into();
        let survived: Vec<String> = [
            "a.rs:10:5: replace + with - in g",
            "a.rs:3:9: replace * with / in f",
        ]
        .map(String::from)
        .into();
        let whole = ["a.rs".to_string()];
        assert_eq!(
            stale(&survived, &known, &whole),
            [
                ("a.rs: delete ! in h".to_string(), 1, 0),
                ("a.rs: replace + with - in g".to_string(), 2, 1),
            ]
        );
        assert!(stale(&survived, &known, &[]).is_empty());
        assert_eq!(
            stale(&survived, &known, &["b.rs".to_string()]),
            [("b.rs: replace * with / in f".to_string(), 1, 0)]
        );
    }

    #[test]
    fn equivalent_mutants_are_matched_without_line_numbers() {
        assert_eq!(
            key("autograd-core/src/op.rs:83:27: replace * with + in f"),
            "autograd-core/src/op.rs: replace * with + in f"
        );
    }
}
