//! The `ops` suite: every single operation on grids, random points and edge points, in `f32`
//! and `f64`, against its closed form (`closed_form.rs`) and Richardson-extrapolated differences;
//! and the kink conventions exactly at the kinks, against their stated values.

use std::sync::Arc;

use autograd_core::{gradient_forward, gradient_reverse, Op, Tolerance, Q16};

use super::closed_form::ClosedForm;
use super::expr::{Binary, Expr, ExprFn, Rng, Unary};
use super::judge::{compare, fmt_vec, gradient_case, CheckScalar, Reference};
use super::{Case, Options, Outcome, Skip, Suite};

pub(super) mod specs;

use specs::op_specs;

/// The case of this suite that checks each operation of the core's table (`autograd_core::Op`).
/// The match has no wildcard: an operation added to the table and not checked here fails to
/// compile. `None` only for what is not an operation.
pub fn checked_by(op: Op) -> Option<&'static str> {
    match op {
        Op::Leaf => None,
        Op::Sum => Some("sum"),
        Op::Dot => Some("dot"),
        Op::MulAdd => Some("mul_add"),
        Op::Add => Some("add"),
        Op::Sub => Some("sub"),
        Op::Mul => Some("mul"),
        Op::Div => Some("div"),
        Op::Pow => Some("pow"),
        Op::Max => Some("max"),
        Op::Min => Some("min"),
        Op::Atan2 => Some("atan2"),
        Op::Hypot => Some("hypot"),
        Op::Neg => Some("neg"),
        Op::Scale => Some("scale"),
        Op::Shift => Some("shift"),
        Op::Square => Some("square"),
        Op::Powi => Some("powi(3)"),
        Op::Powf => Some("powf(2.5)"),
        Op::Exp => Some("exp"),
        Op::Ln => Some("ln"),
        Op::Sqrt => Some("sqrt"),
        Op::Sin => Some("sin"),
        Op::Cos => Some("cos"),
        Op::Tan => Some("tan"),
        Op::Tanh => Some("tanh"),
        Op::Sigmoid => Some("sigmoid"),
        Op::Relu => Some("relu"),
        Op::LeakyRelu => Some("leaky_relu"),
        Op::Abs => Some("abs"),
        Op::Softplus => Some("softplus"),
        Op::Atan => Some("atan"),
        Op::Asin => Some("asin"),
        Op::Acos => Some("acos"),
        Op::Sinh => Some("sinh"),
        Op::Cosh => Some("cosh"),
        Op::Log2 => Some("log2"),
        Op::Log10 => Some("log10"),
        Op::Exp2 => Some("exp2"),
        Op::Cbrt => Some("cbrt"),
    }
}

pub fn cases(o: &Options) -> Vec<Case> {
    let random_points = if o.quick { 8 } else { 64 };
    let grid = if o.quick { 5 } else { 17 };
    let mut rng = Rng::new(o.seed ^ 0x6f70_7321);
    let mut cases = Vec::new();
    let specs = op_specs();
    // Every operation of the core's table must have its case (the match in `checked_by` makes
    // a missing entry a compile error; a name without a case fails here).
    for &op in Op::ALL {
        if let Some(name) = checked_by(op) {
            if !specs.iter().any(|s| s.name == name) {
                cases.push(Case {
                    suite: Suite::Ops,
                    name: format!("table: {op}"),
                    run: Box::new(move || {
                        Outcome::failure(format!("operation `{op}` maps to `{name}`, no such case"))
                    }),
                });
            }
        }
    }
    for spec in specs {
        let e = Arc::new(spec.expr.clone());
        let mut points: Vec<Vec<f64>> = Vec::new();
        // Deterministic grid over the domain (both inputs share the grid index).
        for k in 0..grid {
            let t = k as f64 / (grid - 1) as f64;
            let p: Vec<f64> = (0..spec.arity)
                .map(|i| spec.domain[i].0 + t * (spec.domain[i].1 - spec.domain[i].0))
                .collect();
            points.push(p);
        }
        for _ in 0..random_points {
            points.push(
                (0..spec.arity)
                    .map(|i| rng.uniform(spec.domain[i].0, spec.domain[i].1))
                    .collect(),
            );
        }
        for edge in &spec.edges {
            points.push(edge[..spec.arity].to_vec());
        }
        for p in points {
            let label = format!("{} at {}", spec.name, fmt_short(&p));
            cases.push(op_case::<f64>(
                format!("{label} f64"),
                e.clone(),
                p.clone(),
                spec.closed,
            ));
            cases.push(op_case::<f32>(
                format!("{label} f32"),
                e.clone(),
                p.clone(),
                spec.closed,
            ));
            cases.push(op_case::<Q16>(
                format!("{label} Q16"),
                e.clone(),
                p,
                spec.closed,
            ));
        }
    }
    cases.extend(kink_conventions());
    cases
}

/// One operation at one point in scalar `S`: reverse and forward mode against the closed form
/// evaluated in `f64` at the point as `S` represents it, reverse mode against differences.
fn op_case<S: CheckScalar>(name: String, e: Arc<Expr>, x: Vec<f64>, closed: ClosedForm) -> Case {
    Case {
        suite: Suite::Ops,
        name,
        run: Box::new(move || {
            let at: Vec<f64> = x.iter().map(|&v| S::from_f64(v).to_f64()).collect();
            // In floating point such a point becomes an infinity or a zero, which the closed
            // form judges; in fixed point it becomes poison or a zero the point was not.
            if S::FIXED_POINT
                && x.iter()
                    .zip(&at)
                    .any(|(&v, &a)| !a.is_finite() || (a == 0.0 && v != 0.0))
            {
                return Outcome::skipped(Skip::Unrepresentable);
            }
            let (value, gradient) = closed(at[0], at.get(1).copied().unwrap_or(0.0));
            let reference = Reference {
                label: "closed form",
                value: Some(value),
                gradient: gradient[..x.len()].to_vec(),
                tolerance: None,
                never_skip: false,
            };
            let f = ExprFn((*e).clone());
            let kink = e.kink_distance(&x);
            gradient_case::<S, _>(&f, &x, kink, Some(&reference), &|| format!("f(x) = {e}"))
        }),
    }
}

fn fmt_short(p: &[f64]) -> String {
    let parts: Vec<String> = p.iter().map(|v| format!("{v:.4e}")).collect();
    format!("({})", parts.join(", "))
}

/// Reverse and forward mode at exactly the kinks, against the documented conventions.
fn kink_conventions() -> Vec<Case> {
    let x0 = Expr::x(0);
    let x1 = Expr::x(1);
    let (x0_, x1_) = (x0.clone(), x1.clone());
    let specs: Vec<(&str, Expr, Vec<f64>, Vec<f64>)> = vec![
        (
            "relu'(0) = 0",
            Expr::un(Unary::Relu, x0.clone()),
            vec![0.0],
            vec![0.0],
        ),
        (
            "abs'(0) = 0",
            Expr::un(Unary::Abs, x0.clone()),
            vec![0.0],
            vec![0.0],
        ),
        (
            "abs'(-0) = 0",
            Expr::un(Unary::Abs, x0.clone()),
            vec![-0.0],
            vec![0.0],
        ),
        (
            "leaky_relu'(0) = slope",
            Expr::LeakyRelu(Box::new(x0.clone()), 0.2),
            vec![0.0],
            vec![0.2],
        ),
        (
            "max(a, a) splits 0.5/0.5",
            Expr::bin(Binary::Max, x0.clone(), x1.clone()),
            vec![1.5, 1.5],
            vec![0.5, 0.5],
        ),
        (
            "min(a, a) splits 0.5/0.5",
            Expr::bin(Binary::Min, x0.clone(), x1.clone()),
            vec![-2.0, -2.0],
            vec![0.5, 0.5],
        ),
        (
            "d/dy 0^y = 0 for y >= 0",
            Expr::bin(Binary::Pow, x0.clone(), x1),
            vec![0.0, 2.0],
            vec![0.0, 0.0],
        ),
        (
            "d/dx x^0 = 0 at 0",
            Expr::Powi(Box::new(x0.clone()), 0),
            vec![0.0],
            vec![0.0],
        ),
        (
            "tanh'(1000) = 0, not NaN",
            Expr::un(Unary::Tanh, x0.clone()),
            vec![1000.0],
            vec![0.0],
        ),
        (
            "sigmoid'(-1000) = 0",
            Expr::un(Unary::Sigmoid, x0.clone()),
            vec![-1000.0],
            vec![0.0],
        ),
        (
            "softplus'(1000) = 1",
            Expr::un(Unary::Softplus, x0),
            vec![1000.0],
            vec![1.0],
        ),
        (
            "atan2 at the origin: partials 0",
            Expr::bin(Binary::Atan2, x0_.clone(), x1_.clone()),
            vec![0.0, 0.0],
            vec![0.0, 0.0],
        ),
        (
            "atan2 at (0, -0): partials 0",
            Expr::bin(Binary::Atan2, x0_.clone(), x1_.clone()),
            vec![0.0, -0.0],
            vec![0.0, 0.0],
        ),
        (
            "hypot at the origin: partials 0",
            Expr::bin(Binary::Hypot, x0_.clone(), x1_.clone()),
            vec![0.0, 0.0],
            vec![0.0, 0.0],
        ),
        (
            "hypot at (-0, 0): partials 0",
            Expr::bin(Binary::Hypot, x0_, x1_),
            vec![-0.0, 0.0],
            vec![0.0, 0.0],
        ),
    ];
    let mut cases = Vec::new();
    for (name, e, x, expected) in specs {
        let e = Arc::new(e);
        cases.push(exact_case::<f64>(
            Suite::Ops,
            name,
            e.clone(),
            x.clone(),
            expected.clone(),
        ));
        cases.push(exact_case::<f32>(Suite::Ops, name, e, x, expected));
    }
    cases
}

/// Reverse and forward must both equal `expected` exactly.
fn exact_case<S: CheckScalar>(
    suite: Suite,
    name: &str,
    e: Arc<Expr>,
    x: Vec<f64>,
    expected: Vec<f64>,
) -> Case {
    Case {
        suite,
        name: format!("{name} {}", S::NAME),
        run: Box::new(move || {
            let f = ExprFn((*e).clone());
            let xs: Vec<S> = x.iter().map(|&v| S::from_f64(v)).collect();
            let mut rev = vec![S::ZERO; x.len()];
            let mut fwd = vec![S::ZERO; x.len()];
            let r = S::with_tape(|t| gradient_reverse(&f, t, &xs, &mut rev));
            let d = gradient_forward(&f, &xs, &mut fwd);
            if let Err(err) = r.map(|_| ()).and(d.map(|_| ())) {
                return Outcome::failure(format!("f(x) = {e}: {err}"));
            }
            let rev: Vec<f64> = rev.iter().map(|v| v.to_f64()).collect();
            let fwd: Vec<f64> = fwd.iter().map(|v| v.to_f64()).collect();
            // The convention's value as the scalar type represents it (0.2 in f32 is 0.2000000030).
            let expected: Vec<f64> = expected.iter().map(|&v| S::from_f64(v).to_f64()).collect();
            let exact = Tolerance::new(0.0, 0.0);
            let (ok_r, err_r, _) = compare(&rev, &expected, exact);
            let (ok_f, err_f, _) = compare(&fwd, &expected, exact);
            Outcome {
                failure: (!(ok_r && ok_f)).then(|| {
                    format!(
                        "f(x) = {e} at x = {}: convention {} but reverse = {}, forward = {}",
                        fmt_vec(&x),
                        fmt_vec(&expected),
                        fmt_vec(&rev),
                        fmt_vec(&fwd)
                    )
                }),
                skipped: None,
                fd_skipped: Some(Skip::NearKink),
                errors: vec![
                    ("reverse vs convention", err_r),
                    ("forward vs convention", err_f),
                ],
                non_finite_agreed: false,
            }
        }),
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn every_operation_of_the_core_table_has_a_case() {
        let names: Vec<&str> = op_specs().iter().map(|s| s.name).collect();
        for &op in Op::ALL {
            if let Some(name) = checked_by(op) {
                assert!(
                    names.contains(&name),
                    "{op} maps to `{name}`, which is not a case"
                );
            } else {
                assert_eq!(op, Op::Leaf);
            }
        }
    }
}
