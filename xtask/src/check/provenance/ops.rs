//! The operations of the table one by one: where each starts a non-finite value, where one
//! passes through it, where its derivative is infinite.

use autograd_core::{AnomalyKind, Error, Op, Scalar, Tape, TapeView, Var, Q16};

use super::super::closed_form::ClosedForm;
use super::super::expr::{Binary, Expr, Unary};
use super::super::judge::CheckScalar;
use super::super::ops::checked_by;
use super::super::ops::specs::op_specs;
use super::super::{Case, Outcome, Suite};
use super::same_class;

/// An expression whose provenance is checked, and the operation its result is labelled with.
struct Subject {
    name: String,
    expr: Expr,
    arity: usize,
    op: Op,
    /// Points where it is evaluated (finite coordinates).
    points: Vec<[f64; 2]>,
    /// Its value and derivatives in closed form (the `ops` suite's reference), for the
    /// operations of the table.
    closed: Option<ClosedForm>,
}

/// A non-finite value an earlier statement produced: what it is, and how a tape records it.
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// `sqrt(-1)`.
    Nan,
    /// `ln(0)`.
    NegInf,
    /// `exp(1000)`.
    PosInf,
}

impl Origin {
    const ALL: [Origin; 3] = [Origin::Nan, Origin::NegInf, Origin::PosInf];

    /// Records the origin on `t`: its handle, value, statement index and operation.
    fn record<S: Scalar>(self, t: &TapeView<S>) -> (Var<'_, S>, S, usize, Op) {
        let (v, op) = match self {
            Origin::Nan => (t.var(S::from_f64(-1.0)).sqrt(), Op::Sqrt),
            Origin::NegInf => (t.var(S::ZERO).ln(), Op::Ln),
            Origin::PosInf => (t.var(S::from_f64(1000.0)).exp(), Op::Exp),
        };
        (v, v.value(), v.id().map_or(usize::MAX, |id| id.index()), op)
    }
}

/// Every operation of the table as the `ops` suite writes it, and the forms that multiply a term
/// by an exact 0 (which a recording may leave out of a statement).
fn subjects() -> Vec<Subject> {
    let extremes = [
        [0.0, 0.0],
        [-0.0, 1.0],
        [-1.0, 0.0],
        [1.0, -0.0],
        [1e300, 1e300],
        [-1e300, 1e300],
        [1e300, -1e-300],
        [1000.0, 2.0],
        [-1000.0, 0.5],
        [710.0, 0.0],
        [f64::MAX, 2.0],
    ];
    let mut out = Vec::new();
    for spec in op_specs() {
        let Some(&op) = Op::ALL.iter().find(|&&o| checked_by(o) == Some(spec.name)) else {
            continue; // (the `ops` suite fails a name without an operation)
        };
        let mut points = spec.edges.clone();
        points.extend(extremes);
        out.push(Subject {
            name: spec.name.to_string(),
            expr: spec.expr,
            arity: spec.arity,
            op,
            points,
            closed: Some(spec.closed),
        });
    }
    let (x0, x1) = (Expr::x(0), Expr::x(1));
    let zero = Expr::Const(0.0);
    let zeros: [(&str, Expr, usize, Op); 7] = [
        (
            "relu (dead below 0)",
            Expr::un(Unary::Relu, x0.clone()),
            1,
            Op::Relu,
        ),
        (
            "leaky_relu(0)",
            Expr::LeakyRelu(Box::new(x0.clone()), 0.0),
            1,
            Op::LeakyRelu,
        ),
        (
            "x0 * 0.0",
            Expr::Scale(Box::new(x0.clone()), 0.0),
            1,
            Op::Scale,
        ),
        (
            "x0 * const 0",
            Expr::bin(Binary::Mul, x0.clone(), zero.clone()),
            1,
            Op::Scale,
        ),
        (
            "dot([x0, x1], [0, x1])",
            Expr::Dot(vec![x0.clone(), x1.clone()], vec![zero.clone(), x1.clone()]),
            2,
            Op::Dot,
        ),
        (
            "dot([x0, x0, x1], [0, 0, x1])",
            Expr::Dot(
                vec![x0.clone(), x0.clone(), x1.clone()],
                vec![zero.clone(), zero.clone(), x1.clone()],
            ),
            2,
            Op::Dot,
        ),
        (
            "mul_add(x0, 0, x1)",
            Expr::MulAdd(Box::new(x0.clone()), Box::new(zero), Box::new(x1.clone())),
            2,
            Op::MulAdd,
        ),
    ];
    for (name, expr, arity, op) in zeros {
        out.push(Subject {
            name: name.to_string(),
            expr,
            arity,
            op,
            points: extremes.to_vec(),
            closed: None,
        });
    }
    out
}

/// The checks of one subject in scalar type `S` (its plain evaluation the reference); the first
/// failure, or `None`. Points and values the type cannot hold (`1e300` in `f32`, beyond Q16's
/// range) are passed over: there the input itself is not finite.
fn check_subject<S: CheckScalar>(s: &Subject) -> Option<String> {
    let name = S::NAME;
    // Where a finite point gives a non-finite value: the result's own statement.
    for p in &s.points {
        let p = p.map(S::from_f64);
        if !p.iter().all(|v| v.is_finite()) {
            continue;
        }
        let plain = s.expr.eval(&p[..]);
        if plain.is_finite() {
            continue;
        }
        let tape = Tape::<S, 256>::new();
        let x = p.map(|v| tape.var(v));
        let y = s.expr.eval(&x[..s.arity]);
        let at = format!("{} {name} at {:?}", s.name, &p[..s.arity]);
        if !same_class(y.value(), plain) {
            return Some(format!(
                "{at}: the tape's value {} where plain evaluation gives {plain}",
                y.value()
            ));
        }
        let Some(a) = tape.anomaly(y) else {
            return Some(format!(
                "{at}: value {plain}, but `anomaly` reports nothing"
            ));
        };
        let own = y.id().map(|id| id.index());
        if a.kind != AnomalyKind::Value || a.op != s.op || Some(a.index) != own {
            return Some(format!(
                "{at}: value {plain} arose at the result (statement {own:?}, {}), but `anomaly` \
                 reports: {a}",
                s.op
            ));
        }
        if !same_class(a.value, plain) || a.inputs().iter().any(|i| !i.value.is_finite()) {
            return Some(format!(
                "{at}: the report is not where the value started: {a}"
            ));
        }
        let expected = Error::NonFinite {
            statement: a.index,
            op: a.op,
            in_gradient: false,
        };
        if tape.backward_checked(y).err() != Some(expected) {
            return Some(format!(
                "{at}: `backward_checked` does not give `{expected}`"
            ));
        }
    }
    // A non-finite value from an earlier statement, passed through.
    let others: Vec<S> = [0.0, -0.0, 1.0, -1.0, 2.5, 1e300, -1e300]
        .into_iter()
        .chain(s.points.iter().flat_map(|p| p[..s.arity].to_vec()))
        .map(S::from_f64)
        .filter(|q| q.is_finite())
        .collect();
    for origin in Origin::ALL {
        for k in 0..s.arity {
            for &q in &others {
                let tape = Tape::<S, 256>::new();
                let (o, bad, index, op) = origin.record(&tape);
                let mut p = [q; 2];
                p[k] = bad;
                let plain = s.expr.eval(&p[..]);
                let other = tape.var(q);
                let mut x = [other; 2];
                x[k] = o;
                let y = s.expr.eval(&x[..s.arity]);
                let at = format!("{} {name} with x{k} = {bad} ({op}) and {q}", s.name);
                if plain.is_finite() {
                    if y.value().to_f64().to_bits() != plain.to_f64().to_bits() {
                        return Some(format!("{at}: the tape gives {}, plain {plain}", y.value()));
                    }
                    if let Some(a) = tape.non_finite_origin(y) {
                        return Some(format!("{at}: a finite result, yet a report: {a}"));
                    }
                    continue;
                }
                if !same_class(y.value(), plain) {
                    return Some(format!("{at}: the tape gives {}, plain {plain}", y.value()));
                }
                for (how, a) in [
                    ("anomaly", tape.anomaly(y)),
                    ("non_finite_origin", tape.non_finite_origin(y)),
                ] {
                    match a {
                        Some(a) if (a.index, a.op, a.kind) == (index, op, AnomalyKind::Value) => {}
                        Some(a) => {
                            return Some(format!(
                                "{at}: value {plain} came from statement {index} ({op}), but \
                                 `{how}` reports: {a}"
                            ))
                        }
                        None => {
                            return Some(format!(
                                "{at}: value {plain}, but `{how}` reports nothing"
                            ))
                        }
                    }
                }
            }
        }
    }
    None
}

/// Where the closed form has a finite value and a non-finite derivative (`sqrt'(0)`,
/// `asin'(1)`): `backward_checked` must name the result's statement as where the gradient went
/// non-finite, and `anomaly` give the partial it recorded for that input, of the closed form's
/// IEEE class. `f64` only (the closed forms are `f64`). The first failure, or `None`.
fn check_gradient_origin(s: &Subject) -> Option<String> {
    let closed = s.closed?;
    for p in &s.points {
        let (value, d) = closed(p[0], p[1]);
        let Some(k) = (0..s.arity).find(|&k| !d[k].is_finite()) else {
            continue;
        };
        if !value.is_finite() || d[..s.arity].iter().any(|v| v.is_nan()) {
            continue;
        }
        let tape = Tape::<f64, 256>::new();
        let x = p.map(|v| tape.var(v));
        let y = s.expr.eval(&x[..s.arity]);
        let at = format!(
            "{} at {:?}: d/dx{k} = {} (closed form)",
            s.name,
            &p[..s.arity],
            d[k]
        );
        let Some(own) = y.id().map(|id| id.index()) else {
            return Some(format!("{at}, but the result is no statement"));
        };
        let expected = Error::NonFinite {
            statement: own,
            op: s.op,
            in_gradient: true,
        };
        if tape.backward_checked(y).err() != Some(expected) {
            return Some(format!(
                "{at}, so `backward_checked` must give `{expected}`; `anomaly` reports {:?}",
                tape.anomaly(y).map(|a| a.to_string())
            ));
        }
        let leaf = x[k].id().map(|id| id.index());
        match tape.anomaly(y).map(|a| a.kind) {
            Some(AnomalyKind::Gradient { input, local, .. })
                if Some(input) == leaf && same_class(local, d[k]) => {}
            other => return Some(format!("{at}, `anomaly`'s kind: {other:?}")),
        }
    }
    None
}

/// One case per operation of the table and per zero-partial form.
pub(super) fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for s in subjects() {
        cases.push(Case {
            suite: Suite::Provenance,
            name: format!("provenance of {}", s.name),
            run: Box::new(move || {
                match check_subject::<f64>(&s)
                    .or_else(|| check_subject::<f32>(&s))
                    .or_else(|| check_subject::<Q16>(&s))
                    .or_else(|| check_gradient_origin(&s))
                {
                    Some(f) => Outcome::failure(f),
                    None => Outcome::default(),
                }
            }),
        });
    }
    cases
}
