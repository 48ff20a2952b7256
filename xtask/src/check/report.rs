//! The report of `cargo xtask check`: one table per suite on stdout, the same figures as JSON.

use std::time::Duration;

use super::{Error, Options, Outcome, Skip, Suite};

/// Figures of one suite.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Passed cases in which some derivative was non-finite on both sides, of the same IEEE
    /// class (same-signed infinity, or NaN and NaN): counted as agreement.
    pub non_finite_agreed: usize,
    pub skips: Vec<(Skip, usize)>,
    pub fd_skips: Vec<(Skip, usize)>,
    /// The worst error of each comparison, in the order the comparisons first appeared.
    pub worst: Vec<(&'static str, Worst)>,
    /// Q16 cases: the error of reverse mode against the reference (closed form or hand-derived),
    /// absolute and relative, for the distribution the report prints.
    pub fixed: Vec<Error>,
}

/// The Q16 cases' names end with the type's name, as every case's does.
const FIXED_SUFFIX: &str = " Q16";

/// The largest absolute and the largest relative error of one comparison over a suite, each with
/// the case that produced it.
#[derive(Clone, Debug, Default)]
pub struct Worst {
    abs: Option<(f64, String)>,
    rel: Option<(f64, String)>,
}

impl Worst {
    fn add(&mut self, e: Error, case: &str) {
        for (slot, v) in [(&mut self.abs, e.abs), (&mut self.rel, e.rel)] {
            let larger = slot
                .as_ref()
                .is_none_or(|(w, _)| v > *w || (v.is_nan() && !w.is_nan()));
            if larger {
                *slot = Some((v, case.to_string()));
            }
        }
    }
}

fn bump(list: &mut Vec<(Skip, usize)>, s: Skip) {
    match list.iter_mut().find(|(k, _)| *k == s) {
        Some((_, n)) => *n += 1,
        None => list.push((s, 1)),
    }
}

impl Summary {
    /// Folds one case's outcome in; returns its failure message, if any.
    pub fn add(&mut self, name: &str, outcome: &Outcome) -> Option<String> {
        self.cases += 1;
        if let Some(reason) = outcome.skipped {
            self.skipped += 1;
            bump(&mut self.skips, reason);
            return None;
        }
        if let Some(reason) = outcome.fd_skipped {
            bump(&mut self.fd_skips, reason);
        }
        if name.ends_with(FIXED_SUFFIX) {
            let against_reference = |l: &&str| l.starts_with("reverse vs") && !l.contains("finite");
            if let Some((_, e)) = outcome.errors.iter().find(|(l, _)| against_reference(l)) {
                self.fixed.push(*e);
            }
        }
        for (label, e) in &outcome.errors {
            match self.worst.iter_mut().find(|(l, _)| l == label) {
                Some((_, w)) => w.add(*e, name),
                None => {
                    let mut w = Worst::default();
                    w.add(*e, name);
                    self.worst.push((label, w));
                }
            }
        }
        match &outcome.failure {
            None => {
                self.passed += 1;
                self.non_finite_agreed += usize::from(outcome.non_finite_agreed);
                None
            }
            Some(msg) => {
                self.failed += 1;
                Some(msg.clone())
            }
        }
    }
}

fn skip_list(list: &[(Skip, usize)]) -> String {
    if list.is_empty() {
        return "-".into();
    }
    let mut sorted = list.to_vec();
    sorted.sort();
    sorted
        .iter()
        .map(|(k, n)| format!("{n} {}", k.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn worst_cell(w: &Option<(f64, String)>) -> String {
    match w {
        Some((v, name)) => format!("{v:.1e} ({name})"),
        None => "-".into(),
    }
}

pub fn print_table(summaries: &[(Suite, Summary)]) {
    for (suite, s) in summaries {
        outln!("\nsuite {}", suite.name());
        outln!(
            "  cases {:>6}   passed {:>6}   failed {:>4}   skipped {:>4} ({})",
            s.cases,
            s.passed,
            s.failed,
            s.skipped,
            skip_list(&s.skips)
        );
        outln!(
            "  passed with a non-finite derivative on both sides (same IEEE class): {}",
            s.non_finite_agreed
        );
        outln!(
            "  finite-difference comparison skipped: {}",
            skip_list(&s.fd_skips)
        );
        let width = s.worst.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
        for (label, w) in &s.worst {
            outln!("  worst {label:<width$}: abs {}", worst_cell(&w.abs));
            outln!("  {:>w2$} rel {}", "", worst_cell(&w.rel), w2 = width + 7);
        }
        if !s.fixed.is_empty() {
            let steps: Vec<f64> = s.fixed.iter().map(|e| e.abs * 65536.0).collect();
            let rel: Vec<f64> = s.fixed.iter().map(|e| e.rel).collect();
            outln!(
                "  Q16 reverse vs reference over {} cases (median / 90 % / 99 % / max):",
                s.fixed.len()
            );
            outln!("    abs in steps of 2^-16: {}", percentiles(steps));
            outln!("    rel                  : {}", percentiles(rel));
        }
    }
    outln!();
}

/// The median, 90th and 99th percentiles and the largest of `v` (NaN sorts last).
fn percentiles(mut v: Vec<f64>) -> String {
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    format!(
        "{:.2e} / {:.2e} / {:.2e} / {:.2e}",
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    )
}

fn json_worst(w: &Worst) -> String {
    let one = |v: &Option<(f64, String)>| match v {
        Some((x, name)) => format!(
            "{{\"value\": {}, \"case\": {}}}",
            crate::json::number(*x),
            crate::json::string(name)
        ),
        None => "null".into(),
    };
    format!("{{\"abs\": {}, \"rel\": {}}}", one(&w.abs), one(&w.rel))
}

fn json_skips(list: &[(Skip, usize)]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|(k, n)| format!("{}: {n}", crate::json::string(k.name())))
        .collect();
    format!("{{{}}}", items.join(", "))
}

pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

pub fn to_json(
    o: &Options,
    summaries: &[(Suite, Summary)],
    wall: Duration,
    sequential: Option<Duration>,
    t: &Totals,
) -> String {
    let suites: Vec<String> = summaries
        .iter()
        .map(|(suite, s)| {
            let worst: Vec<String> = s
                .worst
                .iter()
                .map(|(l, w)| format!("{}: {}", crate::json::string(l), json_worst(w)))
                .collect();
            format!(
                "    {{\"suite\": {}, \"cases\": {}, \"passed\": {}, \"failed\": {}, \"skipped\": {}, \
                 \"non_finite_agreed\": {}, \"skips\": {}, \"fd_skips\": {}, \"worst\": {{{}}}}}",
                crate::json::string(suite.name()),
                s.cases,
                s.passed,
                s.failed,
                s.skipped,
                s.non_finite_agreed,
                json_skips(&s.skips),
                json_skips(&s.fd_skips),
                worst.join(", ")
            )
        })
        .collect();
    format!(
        "{{\n  \"seed\": {},\n  \"quick\": {},\n  \"threads\": {},\n  \"wall_seconds\": {},\n  \
         \"sequential_seconds\": {},\n  \"speedup\": {},\n  \"passed\": {},\n  \
         \"failed\": {},\n  \"skipped\": {},\n  \"suites\": [\n{}\n  ]\n}}\n",
        o.seed,
        o.quick,
        o.threads,
        crate::json::number(wall.as_secs_f64()),
        sequential.map_or("null".into(), |t| crate::json::number(t.as_secs_f64())),
        sequential.map_or("null".into(), |t| crate::json::number(
            t.as_secs_f64() / wall.as_secs_f64().max(1e-9)
        )),
        t.passed,
        t.failed,
        t.skipped,
        suites.join(",\n")
    )
}
