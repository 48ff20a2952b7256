//! `--at` specifications to points: `x=-2,-0.5,0` (five values of one input are five points),
//! `x1=2,x2=0,w1=-3` (one point), lists of equal length zip, a single value is shared.

/// The points to evaluate at: input names (in the order first given) and one row per point.
#[derive(Debug, PartialEq)]
pub struct Points {
    /// Input names.
    pub names: Vec<String>,
    /// `rows[p][i]`: the value of input `i` at point `p`.
    pub rows: Vec<Vec<f64>>,
}

/// Reads every `--at` given (each adds its points).
pub fn parse(specs: &[String]) -> Result<Points, String> {
    let mut names: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for spec in specs {
        let lists = lists(spec)?;
        let spec_names: Vec<&str> = lists.iter().map(|(n, _)| n.as_str()).collect();
        if names.is_empty() {
            names = spec_names.iter().map(|n| n.to_string()).collect();
        } else {
            let mut a = spec_names.clone();
            let mut b: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
            a.sort_unstable();
            b.sort_unstable();
            if a != b {
                return Err(format!(
                    "--at {spec}: gives {}, an earlier --at gave {}; every --at must name the \
                     same inputs",
                    spec_names.join(", "),
                    names.join(", ")
                ));
            }
        }
        let len = lists.iter().map(|(_, v)| v.len()).max().unwrap_or(1);
        if let Some((n, v)) = lists.iter().find(|(_, v)| v.len() != 1 && v.len() != len) {
            return Err(format!(
                "--at {spec}: `{n}` has {} values but another input has {len}; give each input \
                 one value or the same number of values",
                v.len()
            ));
        }
        for p in 0..len {
            let row = names
                .iter()
                .map(|name| {
                    let (_, v) = lists.iter().find(|(n, _)| n == name).expect("same names");
                    v[if v.len() == 1 { 0 } else { p }]
                })
                .collect();
            rows.push(row);
        }
    }
    Ok(Points { names, rows })
}

/// `a=1,2,b=3` to `[("a", [1, 2]), ("b", [3])]`.
fn lists(spec: &str) -> Result<Vec<(String, Vec<f64>)>, String> {
    let mut out: Vec<(String, Vec<f64>)> = Vec::new();
    for item in spec.split(',') {
        let item = item.trim();
        let (name, value) = match item.split_once('=') {
            Some((name, value)) => {
                let name = name.trim();
                let valid = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                if !valid {
                    return Err(format!(
                        "--at {spec}: `{name}` is not an input name (a letter or `_`, then \
                         letters, digits or `_`)"
                    ));
                }
                if out.iter().any(|(n, _)| n == name) {
                    return Err(format!("--at {spec}: `{name}` is given twice"));
                }
                out.push((name.to_string(), Vec::new()));
                (name.to_string(), value)
            }
            None => match out.last() {
                Some((name, _)) => (name.clone(), item),
                None => {
                    return Err(format!(
                        "--at {spec}: `{item}` has no input name; write `x={item}`"
                    ))
                }
            },
        };
        let v = number(value).map_err(|e| format!("--at {spec}: {name}={value}: {e}"))?;
        out.last_mut().expect("pushed above").1.push(v);
    }
    Ok(out)
}

/// A value: a number or a constant expression (`pi/4`, `2^-3`, `1e-3`).
fn number(s: &str) -> Result<f64, String> {
    let e = autograd_expr::parse(s).map_err(|e| match s.trim() {
        "" => "the value is missing".to_string(),
        _ => format!("not a number ({})", e.message),
    })?;
    if !e.inputs().is_empty() {
        return Err(format!("not a number (it uses `{}`)", e.inputs()[0]));
    }
    let v: f64 = e.eval(&[]);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{v} is not a finite number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(specs: &[&str]) -> Result<Points, String> {
        parse(&specs.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn one_input_many_points_and_many_inputs_one_point() {
        let p = at(&["x=-2,-0.5,0,1,3"]).unwrap();
        assert_eq!(p.names, ["x"]);
        assert_eq!(p.rows, [[-2.0], [-0.5], [0.0], [1.0], [3.0]]);
        let p = at(&["x1=2,x2=0,w1=-3,w2=1,b=6.8813735870195432"]).unwrap();
        assert_eq!(p.names, ["x1", "x2", "w1", "w2", "b"]);
        assert_eq!(p.rows, [[2.0, 0.0, -3.0, 1.0, 6.881_373_587_019_543]]);
    }

    #[test]
    fn lists_zip_single_values_are_shared_and_at_repeats() {
        let p = at(&["x=1,2,y=5", "y=0,x=pi/2"]).unwrap();
        let half_pi = std::f64::consts::FRAC_PI_2;
        assert_eq!(p.rows, [[1.0, 5.0], [2.0, 5.0], [half_pi, 0.0]]);
        let p = at(&["a=1,2,b=3,4"]).unwrap();
        assert_eq!(p.rows, [[1.0, 3.0], [2.0, 4.0]]);
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        for (spec, says) in [
            ("2,3", "has no input name"),
            ("x=", "missing"),
            ("x=abc", "uses `abc`"),
            ("x=1,2,y=1,2,3", "`x` has 2 values but another input has 3"),
            ("x=1,x=2", "given twice"),
            ("1x=2", "not an input name"),
            ("x=1e999", "too large"),
            ("x=0^-1", "not a finite number"),
        ] {
            let err = at(&[spec]).unwrap_err();
            assert!(err.contains(says), "{spec}: {err}");
        }
        assert!(at(&["x=1", "y=2"]).unwrap_err().contains("same inputs"));
    }
}
