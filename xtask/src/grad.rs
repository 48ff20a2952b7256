//! `cargo xtask grad`: the lessons' calculator. Parses an expression in the lessons' notation
//! (`autograd-expr`), then at each point prints the value and the gradient by reverse mode,
//! forward mode and central differences side by side (optionally the Hessian two ways, the
//! `f32` figures firmware would compute, the expression's graph with every node's value and
//! gradient, and the finite-difference error against the step size).

mod compute;
mod graph;
mod plot;
mod points;
mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::{Arg, Args};

const HELP: &str = "\
cargo xtask grad EXPRESSION --at NAME=VALUE[,VALUE...][,NAME=VALUE...] [options]

Evaluates EXPRESSION and its gradient at each point by reverse mode (the tape), forward mode
(dual numbers) and central differences, and prints them side by side with their differences;
at a kink (relu, leaky_relu or abs of 0, a max or min tie) a note names the convention taken.

  cargo xtask grad \"x^3 - 2*x + 1\" --at x=-2,-0.5,0,1,3
  cargo xtask grad \"tanh(w1*x1 + w2*x2 + b)\" --at x1=2,x2=0,w1=-3,w2=1,b=6.8813735870195432 --graph neuron.svg
  cargo xtask grad \"sin(x)^2 / x\" --at x=0.5 --hessian --steps fd-error.svg

Expressions: + - * /, ^ or ** (right-associative; -x^2 is -(x^2)), parentheses, numbers such as
1e-3, pi, any input names, and the functions exp ln log sqrt sin cos tan tanh sigmoid relu abs
softplus leaky_relu(x[, slope]) square pow(x, y) powi(x, n) powf(x, c) max(a, b) min(a, b), also
as methods ((a*b + c).relu()) or with a math./np./torch. prefix. x^n with an exponent that does
not depend on the inputs is powi if it is an integer, else powf; otherwise pow. Statements
separated by ; or line breaks name intermediate values (c = a + b; c += 1; c^2); the last one is
the result.

Points: --at x=-2,-0.5,0 gives three points; --at x1=2,x2=0 one point with two inputs; lists of
the same length zip, a single value is shared (--at x=1,2,3,y=0); values may be constant
expressions (x=pi/4); repeat --at for more points. Every input of the expression needs a value.

Options:
  --at SPEC        points (required, repeatable)
  --json           print JSON instead of tables
  --hessian        also the Hessian: forward over reverse, checked against forward over forward
  --f32            also f(x) and the gradient by reverse mode and by central differences in
                   single precision (what firmware computes), with relative errors against f64
  --graph FILE     write the graph at the first point: every node's operation, value and
                   gradient, edges labelled with local partial derivatives (FILE.svg or FILE.dot)
  --steps FILE     write FILE.svg: central-difference error against the step h (1e-1 to 1e-15)
                   for each input, with the default step marked; the table gains the best h
  -h, --help       this text

Exit code 0 on success; 1 if reverse and forward mode (or the two Hessians) disagree beyond
rounding; 2 on a bad expression or bad options (with the column of the error).
";

/// What the command line asked for.
#[derive(Debug, Default)]
struct Options {
    expression: Option<String>,
    at: Vec<String>,
    json: bool,
    hessian: bool,
    f32: bool,
    graph: Option<PathBuf>,
    steps: Option<PathBuf>,
}

fn options(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    let mut args = Args::new(args, HELP);
    while let Some(arg) = args.next()? {
        match arg {
            Arg::Help => return Ok(None),
            Arg::Option("--at") => o.at.push(args.value()?.to_string()),
            Arg::Option("--graph") => o.graph = Some(output_path(args.value()?, &["svg", "dot"])?),
            Arg::Option("--steps") => o.steps = Some(output_path(args.value()?, &["svg"])?),
            Arg::Option("--json") => o.json = true,
            Arg::Option("--hessian") => o.hessian = true,
            Arg::Option("--f32") => o.f32 = true,
            Arg::Option(other) => return Err(args.unknown(other)),
            // `-2*x` and `-x^2` are expressions (the parser leaves them positional).
            Arg::Positional(expression) => set_expression(&mut o, expression)?,
        }
    }
    Ok(Some(o))
}

fn set_expression(o: &mut Options, arg: &str) -> Result<(), String> {
    if let Some(first) = &o.expression {
        return Err(format!(
            "two expressions given (`{first}` and `{arg}`); quote the expression so the shell \
             passes it as one argument"
        ));
    }
    o.expression = Some(arg.to_string());
    Ok(())
}

fn output_path(s: &str, extensions: &[&str]) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if extensions.contains(&ext.to_ascii_lowercase().as_str()) {
        Ok(path)
    } else {
        let list: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
        Err(format!(
            "`{s}`: the file name must end in {}",
            list.join(" or ")
        ))
    }
}

/// Runs the task with its arguments.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some(o) = options(args)? else {
        out!("{HELP}");
        return Ok(ExitCode::SUCCESS);
    };
    let Some(source) = &o.expression else {
        return Err(format!("no expression given\n\n{HELP}"));
    };
    let parsed = autograd_expr::parse(source)
        .map_err(|e| format!("cannot read the expression: {}", e.render(source)))?;
    let points = if !o.at.is_empty() {
        points::parse(&o.at)?
    } else if parsed.inputs().is_empty() {
        // A constant expression (`2^10`) has one point, with no inputs.
        points::Points {
            names: Vec::new(),
            rows: vec![Vec::new()],
        }
    } else {
        return Err(format!(
            "no point given: add --at with a value for each input ({})",
            parsed.inputs().join(", ")
        ));
    };
    let names: Vec<&str> = points.names.iter().map(|s| s.as_str()).collect();
    let f = parsed.with_input_order(&names).map_err(|e| {
        // `e^x` from math notation reads `e` as an input.
        let hint = if e == "no value for `e`" {
            "; for Euler's number write exp(x) instead of e^x, or exp(1)"
        } else {
            ""
        };
        format!(
            "--at: {e} (the expression uses {}){hint}",
            parsed.inputs().join(", ")
        )
    })?;
    let mut results = Vec::new();
    for x in &points.rows {
        results.push(compute::at_point(
            &f,
            x,
            o.f32,
            o.hessian,
            o.steps.is_some(),
        )?);
    }
    let read_as = f.read_as();
    if o.json {
        out!(
            "{}",
            report::json(source, &read_as, &points.names, &results)
        );
    } else {
        out!(
            "{}",
            report::text(source, &read_as, &points.names, &results)
        );
    }
    let disagreements = disagreements(&points.names, &results);
    for d in &disagreements {
        eprintln!("error: {d}");
    }
    if let Some(path) = &o.graph {
        let is_dot = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("dot"));
        let point = &points.rows[0];
        let text = if is_dot {
            graph::dot(&f, point)
        } else {
            graph::svg(&f, point, source)
        };
        write(path, &text, o.json)?;
    }
    if let Some(path) = &o.steps {
        write(path, &plot::svg(source, &points.names, &results), o.json)?;
    }
    Ok(if disagreements.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Where the two exact modes disagree beyond `Tolerance::between_modes` (rounding only):
/// reverse vs forward gradients, forward over reverse vs forward over forward Hessians. Entries
/// that are not finite in both are not judged (the table shows them).
fn disagreements(names: &[String], results: &[compute::PointResult]) -> Vec<String> {
    let tol = autograd_core::Tolerance::between_modes::<f64>();
    let judged = |a: f64, b: f64| a.is_finite() && b.is_finite() && !tol.allows(a, b);
    let mut out = Vec::new();
    for (p, r) in results.iter().enumerate() {
        for (i, name) in names.iter().enumerate() {
            if judged(r.reverse[i], r.forward[i]) {
                out.push(format!(
                    "point {}: d/d{name} by reverse mode {} and forward mode {} disagree",
                    p + 1,
                    r.reverse[i],
                    r.forward[i]
                ));
            }
        }
        if let Some((h, hf)) = &r.hessian {
            if h.iter().zip(hf).any(|(a, b)| judged(*a, *b)) {
                out.push(format!(
                    "point {}: the Hessians by forward over reverse and forward over forward \
                     disagree",
                    p + 1
                ));
            }
        }
    }
    out
}

fn write(path: &Path, text: &str, quiet: bool) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if !quiet {
        outln!("wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn options_and_expressions_that_look_like_options() {
        let o = options(&args(&[
            "-x^2",
            "--at=x=1",
            "--hessian",
            "--steps",
            "a.svg",
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(o.expression.as_deref(), Some("-x^2"));
        assert_eq!(o.at, ["x=1"]);
        assert!(o.hessian && !o.json && !o.f32);
        assert_eq!(o.steps, Some(PathBuf::from("a.svg")));
        let o = options(&args(&["-2*x", "--at", "x=1"])).unwrap().unwrap();
        assert_eq!(o.expression.as_deref(), Some("-2*x"));
    }

    #[test]
    fn modes_that_disagree_are_reported_and_non_finite_ones_are_not_judged() {
        let result = |reverse: f64, forward: f64| compute::PointResult {
            x: vec![1.0],
            value: 0.0,
            reverse: vec![reverse],
            forward: vec![forward],
            central: vec![reverse],
            step: vec![1e-5],
            f32: None,
            hessian: Some((vec![2.0], vec![2.0 + 1e-15])),
            sweeps: None,
            kinks: Vec::new(),
        };
        let names = ["x".to_string()];
        assert!(disagreements(&names, &[result(1.0, 1.0 + 1e-15)]).is_empty());
        assert!(disagreements(&names, &[result(f64::NAN, 1.0)]).is_empty());
        let found = disagreements(&names, &[result(1.0, 1.001)]);
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("d/dx"), "{found:?}");
    }

    #[test]
    fn bad_arguments_are_errors_not_panics() {
        for bad in [
            &["x", "--at"][..],
            &["x", "--frobnicate"],
            &["x", "y"],
            &["x", "--graph", "g.png"],
            &["x", "--steps", "s.dot"],
            &["x", "--json=1"],
        ] {
            assert!(options(&args(bad)).is_err(), "{bad:?}");
        }
        for bad in [
            &["x^"][..],
            &["x", "--at", "y=1"],
            &["x"],
            &["--at", "x=1"],
            &["x", "--at", "x=abc"],
        ] {
            assert!(run(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
