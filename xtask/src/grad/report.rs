//! The results as aligned text tables (the Go article's gradient-check table, grown) or JSON.

use std::fmt::Write as _;

use super::compute::PointResult;
use crate::json;
use crate::table::Table;

/// A number as a learner wants to read it: shortest round-trip digits (`10`, `-1.25`,
/// `10.000000000065512`), exponent form only when very small or very large.
pub fn num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e16).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A difference: two significant digits are enough to see its size.
pub fn diff(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v:.1e}")
    }
}

/// The gradient columns of one input at one point.
fn gradient_cells(r: &PointResult, i: usize, out: &mut Vec<String>) {
    out.push(num(r.reverse[i]));
    out.push(num(r.forward[i]));
    out.push(num(r.central[i]));
    out.push(diff((r.reverse[i] - r.forward[i]).abs()));
    out.push(diff((r.reverse[i] - r.central[i]).abs()));
    if let Some(s) = &r.sweeps {
        out.push(format!("{:.1e}", s[i].best.0));
        out.push(diff(s[i].best.1));
    }
    if let Some(single) = &r.f32 {
        let (g, c) = (f64::from(single.reverse[i]), f64::from(single.central[i]));
        out.push(num(g));
        out.push(diff(relative(g, r.reverse[i])));
        out.push(num(c));
        out.push(diff(relative(c, r.reverse[i])));
    }
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
}

fn gradient_columns(results: &[PointResult]) -> Vec<(&'static str, bool)> {
    let mut c = vec![
        ("reverse (tape)", false),
        ("forward (Dual)", false),
        ("central diff.", false),
        ("|rev-fwd|", false),
        ("|rev-cd|", false),
    ];
    if results.first().is_some_and(|r| r.sweeps.is_some()) {
        c.extend([("best h", false), ("|rev-cd| at best h", false)]);
    }
    if results.first().is_some_and(|r| r.f32.is_some()) {
        c.extend([
            ("reverse f32", false),
            ("rel. err", false),
            ("central f32", false),
            ("rel. err", false),
        ]);
    }
    c
}

/// The text report: one row per point for a single input, else a table per point.
pub fn text(source: &str, read_as: &str, names: &[String], results: &[PointResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "expression: {}", source.trim().replace('\n', "; "));
    // With statements the result is one of several; "read as" shows single expressions only.
    let single = !source.trim().contains(['\n', ';']);
    if single && read_as != source.trim() {
        let _ = writeln!(out, "read as: {read_as}");
    }
    let _ = writeln!(
        out,
        "gradient by reverse mode (the tape), forward mode (dual numbers) and central \
         differences (step h = cbrt(eps) max(1, |x|))\n"
    );
    let with_f32 = results.first().is_some_and(|r| r.f32.is_some());
    if names.is_empty() {
        for r in results {
            let _ = writeln!(
                out,
                "value = {} (no inputs: nothing to differentiate)",
                num(r.value)
            );
        }
    } else if names.len() == 1 {
        let name = &names[0];
        let dname = format!("df/d{name}");
        let mut columns = vec![(name.as_str(), false), ("f", false)];
        if with_f32 {
            columns.push(("f (f32)", false));
        }
        let mut t = Table::new(&[columns, gradient_columns(results)].concat());
        for r in results {
            let mut row = vec![num(r.x[0]), num(r.value)];
            if let Some(single) = &r.f32 {
                row.push(num(f64::from(single.value)));
            }
            gradient_cells(r, 0, &mut row);
            t.push(row);
        }
        let _ = writeln!(out, "{dname}:");
        out.push_str(&t.plain("  "));
    } else {
        for (p, r) in results.iter().enumerate() {
            let point: Vec<String> = names
                .iter()
                .zip(&r.x)
                .map(|(n, v)| format!("{n} = {}", num(*v)))
                .collect();
            let _ = writeln!(out, "point {}: {}", p + 1, point.join(", "));
            let _ = write!(out, "  value = {}", num(r.value));
            if let Some(single) = &r.f32 {
                let _ = write!(out, "   (f32: {})", num(f64::from(single.value)));
            }
            out.push('\n');
            let mut t = Table::new(&[vec![("input", true)], gradient_columns(results)].concat());
            for (i, name) in names.iter().enumerate() {
                let mut row = vec![name.clone()];
                gradient_cells(r, i, &mut row);
                t.push(row);
            }
            out.push_str(&t.plain("  "));
            out.push('\n');
        }
    }
    // Where a mode's convention meets central differences straddling a kink: say so, so that
    // a large |rev-cd| there reads as what it is.
    for (p, r) in results.iter().enumerate() {
        for (op, convention) in &r.kinks {
            let at = if names.len() == 1 {
                format!("{} = {}", names[0], num(r.x[0]))
            } else {
                format!("point {}", p + 1)
            };
            let _ = writeln!(
                out,
                "note: at {at}, {op} is at a kink: both modes use {convention} there \
                 (PyTorch's convention); central differences see the mean of the two one-sided \
                 slopes."
            );
        }
    }
    for (p, r) in results.iter().enumerate() {
        if let Some((h, hf)) = &r.hessian {
            let worst = h
                .iter()
                .zip(hf)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            let _ = writeln!(
                out,
                "\nHessian at point {} (forward over reverse; forward over forward differs by \
                 at most {}):",
                p + 1,
                diff(worst)
            );
            let n = names.len();
            let columns: Vec<(&str, bool)> = std::iter::once(("", true))
                .chain(names.iter().map(|s| (s.as_str(), false)))
                .collect();
            let mut t = Table::new(&columns);
            for i in 0..n {
                let mut row = vec![names[i].clone()];
                row.extend(h[i * n..(i + 1) * n].iter().map(|v| num(*v)));
                t.push(row);
            }
            out.push_str(&t.plain("  "));
        }
    }
    out
}

fn array(v: impl IntoIterator<Item = f64>) -> String {
    let items: Vec<String> = v.into_iter().map(json::number).collect();
    format!("[{}]", items.join(", "))
}

/// The JSON report (one object; numbers that are not finite are `null`).
pub fn json(source: &str, read_as: &str, names: &[String], results: &[PointResult]) -> String {
    let mut out = String::new();
    let names_json: Vec<String> = names.iter().map(|n| json::string(n)).collect();
    let _ = write!(
        out,
        "{{\"expression\": {}, \"read_as\": {}, \"inputs\": [{}], \"points\": [",
        json::string(source.trim()),
        json::string(read_as),
        names_json.join(", ")
    );
    for (p, r) in results.iter().enumerate() {
        if p > 0 {
            out.push_str(", ");
        }
        let _ = write!(
            out,
            "{{\"x\": {}, \"value\": {}, \"reverse\": {}, \"forward\": {}, \"central\": {}, \
             \"central_step\": {}",
            array(r.x.iter().copied()),
            json::number(r.value),
            array(r.reverse.iter().copied()),
            array(r.forward.iter().copied()),
            array(r.central.iter().copied()),
            array(r.step.iter().copied()),
        );
        if let Some(single) = &r.f32 {
            let _ = write!(
                out,
                ", \"f32\": {{\"value\": {}, \"reverse\": {}, \"central\": {}}}",
                json::number(f64::from(single.value)),
                array(single.reverse.iter().map(|v| f64::from(*v))),
                array(single.central.iter().map(|v| f64::from(*v)))
            );
        }
        if let Some((h, hf)) = &r.hessian {
            let n = names.len();
            let rows = |m: &[f64]| -> String {
                let r: Vec<String> = m.chunks(n.max(1)).map(|c| array(c.to_vec())).collect();
                format!("[{}]", r.join(", "))
            };
            let _ = write!(
                out,
                ", \"hessian\": {{\"forward_over_reverse\": {}, \"forward_over_forward\": {}}}",
                rows(h),
                rows(hf)
            );
        }
        if !r.kinks.is_empty() {
            let k: Vec<String> = r
                .kinks
                .iter()
                .map(|(op, convention)| {
                    format!(
                        "{{\"operation\": {}, \"convention\": {}}}",
                        json::string(op),
                        json::string(convention)
                    )
                })
                .collect();
            let _ = write!(out, ", \"kinks\": [{}]", k.join(", "));
        }
        if let Some(sweeps) = &r.sweeps {
            let s: Vec<String> = sweeps
                .iter()
                .map(|s| {
                    format!(
                        "{{\"best_h\": {}, \"best_error\": {}, \"default_h\": {}, \
                         \"default_error\": {}}}",
                        json::number(s.best.0),
                        json::number(s.best.1),
                        json::number(s.default.0),
                        json::number(s.default.1)
                    )
                })
                .collect();
            let _ = write!(out, ", \"steps\": [{}]", s.join(", "));
        }
        out.push('}');
    }
    out.push_str("]}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_plainly() {
        assert_eq!(num(10.0), "10");
        assert_eq!(num(-1.25), "-1.25");
        assert_eq!(num(1e-300), "1e-300");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(f64::NAN), "NaN");
        assert_eq!(diff(5.2e-11), "5.2e-11");
        assert_eq!(diff(0.0), "0");
    }
}
