//! `cargo xtask bench --enzyme`: the benchmark functions differentiated by `std::autodiff`
//! (Enzyme) in the nightly-only `enzyme/` crate, timed in the same run as the main benchmarks
//! (its criterion results go to the same directory), and the figures and table derived from them.
//!
//! The crate's toolchain (a nightly with the `enzyme` rustup component) is read from
//! `enzyme/rust-toolchain.toml` and installed if missing. `-Zautodiff=Enable` goes to that crate
//! alone (`cargo rustc`): given to every crate, Enzyme's type analysis aborts on a dependency.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use super::criterion::Medians;
use super::figures::{median_of, Report};
use super::report::{fmt_ns, fmt_ratio};

/// What the `enzyme/` binary times, per function and n (see its crate docs).
const PLAIN: &str = "lto_plain_f64";
const TAPE: &str = "lto_reverse_f64";
const ENZYME_PLAIN: &str = "enzyme_plain_f64";
const ENZYME: &str = "enzyme_f64";
/// The hand-written backprop, built in the same binary (the moons loss only).
const HAND: &str = "lto_hand_f64";

/// The `enzyme/` binary's benchmark groups: the two functions, and the moons MLP loss.
const GROUPS: [&str; 3] = ["rosenbrock", "dense", "moons"];

/// Builds the `enzyme/` crate and runs its benchmarks into `criterion_dir`. `Ok(false)` if they
/// failed (the binary exits 1 when an Enzyme gradient disagrees with the hand-written one).
pub fn run(
    root: &Path,
    criterion_dir: &Path,
    quick: bool,
    wall_clock: bool,
    filter: Option<&str>,
) -> Result<bool, String> {
    let dir = root.join("enzyme");
    let channel = channel(&dir)?;
    install(&channel)?;
    eprintln!("building enzyme/ with {channel} (std::autodiff, fat LTO)...");
    let exe = build(&dir, &channel)?;
    eprintln!("running: {} --bench", exe.display());
    let mut cmd = Command::new(&exe);
    cmd.current_dir(&dir)
        .arg("--bench")
        .env("CRITERION_HOME", criterion_dir)
        .env("AUTOGRAD_BENCH_QUICK", if quick { "1" } else { "0" })
        .env(
            "AUTOGRAD_BENCH_CLOCK",
            if wall_clock { "wall" } else { "cpu" },
        );
    if let Some(f) = filter {
        cmd.arg(f);
    }
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    Ok(status.success())
}

/// The `channel` of `enzyme/rust-toolchain.toml`.
fn channel(dir: &Path) -> Result<String, String> {
    let file = dir.join("rust-toolchain.toml");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    parse_channel(&text).ok_or_else(|| format!("{}: no `channel = \"...\"`", file.display()))
}

fn parse_channel(toml: &str) -> Option<String> {
    toml.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "channel").then(|| value.trim().trim_matches('"').to_string())
    })
}

/// `rustup toolchain install` of the channel with the `enzyme` component (quick when present).
fn install(channel: &str) -> Result<(), String> {
    let status = Command::new("rustup")
        .args(["toolchain", "install", channel, "--profile", "minimal"])
        .args(["--component", "enzyme"])
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run rustup: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "cannot install {channel} with the enzyme component \
             (`rustup toolchain install {channel} --component enzyme`)"
        ))
    }
}

/// `cargo rustc --release -- -Zautodiff=Enable` in `dir` with `channel`; returns the binary's path
/// from cargo's JSON messages.
fn build(dir: &Path, channel: &str) -> Result<PathBuf, String> {
    let out = crate::toolchain::cargo(channel, dir)
        .args([
            "rustc",
            "--release",
            "--message-format=json-render-diagnostics",
        ])
        .args(["--", "-Zautodiff=Enable"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("building enzyme/ failed ({})", out.status));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|j| j["reason"] == "compiler-artifact")
        .find_map(|j| j["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "building enzyme/ produced no executable".to_string())
}

/// The n the `enzyme/` binary measured `f` at.
fn sizes(m: &Medians, f: &str) -> Vec<usize> {
    let prefix = format!("{f}/{PLAIN}/");
    m.keys()
        .filter_map(|k| k.strip_prefix(&prefix)?.parse().ok())
        .collect()
}

/// Each side's gradient over its own plain function, the tape's time over Enzyme's, and both
/// over the hand-written backprop where it was timed.
pub fn derive(m: &Medians, d: &mut BTreeMap<String, f64>) {
    for f in GROUPS {
        for n in sizes(m, f) {
            let t = |mode: &str| median_of(m, f, mode, n);
            if let (Some(g), Some(p)) = (t(TAPE), t(PLAIN)) {
                d.insert(format!("ratio/{f}/{TAPE}/{n}"), g / p);
            }
            if let (Some(g), Some(p)) = (t(ENZYME), t(ENZYME_PLAIN)) {
                d.insert(format!("ratio/{f}/{ENZYME}/{n}"), g / p);
            }
            if let (Some(ours), Some(theirs)) = (t(TAPE), t(ENZYME)) {
                d.insert(format!("tape_over_enzyme/{f}/{n}"), ours / theirs);
            }
            if let Some(hand) = t(HAND) {
                for (who, mode) in [("tape", TAPE), ("enzyme", ENZYME)] {
                    if let Some(g) = t(mode) {
                        d.insert(format!("{who}_over_hand_lto/{f}/{n}"), g / hand);
                    }
                }
            }
        }
    }
}

/// The side-by-side table, if the run has Enzyme's figures.
pub fn render(r: &Report, s: &mut String) {
    let m = r.medians;
    let rows: Vec<(&str, usize)> = GROUPS
        .iter()
        .flat_map(|f| sizes(m, f).into_iter().map(move |n| (*f, n)))
        .filter(|(f, n)| median_of(m, f, ENZYME, *n).is_some())
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n`std::autodiff` (Enzyme) in the same run (`--enzyme`): one nightly binary with fat LTO \
         times the plain function, this tape's gradient and Enzyme's (`enzyme/`; Enzyme's `dense` \
         calls std's math, the tape's `libm`'s, and its moons loss is the same arithmetic written \
         out; each gradient over its own function):\n\n\
         | function | n | plain | tape gradient | tape / plain | Enzyme's plain | Enzyme gradient \
         | Enzyme / plain | tape / Enzyme |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for &(f, n) in &rows {
        let ns = |mode: &str| median_of(m, f, mode, n).map_or("–".into(), fmt_ns);
        let ratio = |k: String| r.derived.get(&k).map_or("–".into(), |v| fmt_ratio(*v));
        let _ = writeln!(
            s,
            "| {f} | {n} | {} | {} | {} | {} | {} | {} | {} |",
            ns(PLAIN),
            ns(TAPE),
            ratio(format!("ratio/{f}/{TAPE}/{n}")),
            ns(ENZYME_PLAIN),
            ns(ENZYME),
            ratio(format!("ratio/{f}/{ENZYME}/{n}")),
            ratio(format!("tape_over_enzyme/{f}/{n}")),
        );
    }
    for &(f, n) in &rows {
        if let Some(hand) = median_of(m, f, HAND, n) {
            let ratio = |who: &str| {
                r.derived
                    .get(&format!("{who}_over_hand_lto/{f}/{n}"))
                    .map_or("–".into(), |v| fmt_ratio(*v))
            };
            let _ = writeln!(
                s,
                "\n{f} ({n}): the hand-written backprop in the same binary takes {}; Enzyme's \
                 gradient {} of that, the tape's {}.",
                fmt_ns(hand),
                ratio("enzyme"),
                ratio("tape"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_from_the_toolchain_file() {
        let toml =
            "# comment\n[toolchain]\nchannel = \"nightly-2026-10-01\"\ncomponents = [\"enzyme\"]\n";
        assert_eq!(parse_channel(toml).as_deref(), Some("nightly-2026-10-01"));
        assert_eq!(parse_channel("[toolchain]\n"), None);
        // The file the crate ships parses.
        let shipped = channel(&crate::project_root().join("enzyme")).unwrap();
        assert!(shipped.starts_with("nightly-"), "{shipped}");
    }

    #[test]
    fn figures_and_table_from_medians() {
        let mut m = Medians::new();
        for (mode, v) in [
            (PLAIN, 10.0),
            (TAPE, 300.0),
            (ENZYME_PLAIN, 12.0),
            (ENZYME, 30.0),
        ] {
            m.insert(format!("rosenbrock/{mode}/100"), v);
        }
        for (mode, v) in [
            (PLAIN, 10.0),
            (HAND, 20.0),
            (TAPE, 100.0),
            (ENZYME_PLAIN, 10.0),
            (ENZYME, 40.0),
        ] {
            m.insert(format!("moons/{mode}/337"), v);
        }
        let facts = BTreeMap::new();
        let r = Report::new(&m, &facts);
        assert_eq!(r.derived["enzyme_over_hand_lto/moons/337"], 2.0);
        assert_eq!(r.derived["tape_over_hand_lto/moons/337"], 5.0);
        assert_eq!(r.derived["ratio/rosenbrock/lto_reverse_f64/100"], 30.0);
        assert_eq!(r.derived["ratio/rosenbrock/enzyme_f64/100"], 2.5);
        assert_eq!(r.derived["tape_over_enzyme/rosenbrock/100"], 10.0);
        let mut s = String::new();
        render(&r, &mut s);
        assert!(
            s.contains("| rosenbrock | 100 |") && s.contains("| moons | 337 |"),
            "{s}"
        );
        assert!(
            s.contains("Enzyme's gradient 2.00x of that, the tape's 5.00x"),
            "{s}"
        );
        assert!(
            s.contains("| 30.0x |") && s.contains("| 2.50x |") && s.contains("| 10.0x |"),
            "{s}"
        );
        // No Enzyme figures, no table.
        let bare = Medians::new();
        let mut none = String::new();
        render(&Report::new(&bare, &facts), &mut none);
        assert!(none.is_empty());
    }
}
