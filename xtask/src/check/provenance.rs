//! The `provenance` suite: NaN provenance (`TapeView::anomaly`, `non_finite_origin`,
//! `first_non_finite`, `backward_checked`) judged by plain `f64` evaluation, which says where a
//! NaN or an infinity first appears without looking at any tape.
//!
//! In `f64`, `f32` and Q16.16 fixed point (where "not finite" is poison) for the operations;
//! in `f64` for the networks.
//!
//! - Origins: every operation of the core's table (the `ops` suite's expressions) at points of
//!   finite inputs where its plain value is not finite (`ln(0)`, `exp(1000)`, `1e300 * 1e300`,
//!   `sqrt(-1)`) must be named as the statement where it started: its value of the same IEEE
//!   class, its listed operands finite, its operation the expression's.
//! - Passing through: every operation and the zero-coefficient forms that leave a term out
//!   (`relu` below 0, `x * 0.0`, a dot product's zero coefficient) applied to a NaN, `-inf` or
//!   `+inf` that an earlier statement produced: where the plain result is not finite, the report
//!   names that earlier statement, not the one it went through; where it is finite, nothing is
//!   reported.
//! - Gradients: where an operation's closed form (the `ops` suite's reference) has a finite
//!   value and an infinite derivative (`sqrt'(0)`, `asin'(1)`, `cbrt'(0)`), `backward_checked`
//!   must name the operation's statement as where the gradient went non-finite, and `anomaly`
//!   the recorded partial, of the closed form's class (`f64`).
//! - Networks: small MLPs over handles and over leaves (the `Trainer`'s path, layer statements),
//!   with a non-finite input or an overflowing weight: the first non-finite pre-activation the
//!   plain evaluation finds is the tape's first non-finite statement (a neuron's `dot`, its
//!   operands finite), and a non-finite output is traced to a neuron where it started.

use autograd_core::{AnomalyKind, Error, Op, Scalar, Tape, TapeView, Var, Q16};
use autograd_nn::{Activation, Init, Mlp, Rng as NnRng};

use super::closed_form::ClosedForm;
use super::expr::{random_case, Binary, Expr, Rng, Unary, Vocabulary};
use super::ops::checked_by;
use super::ops::specs::op_specs;
use super::{Case, Options, Outcome, Suite};

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

/// `true` if `a` and `b` are the same non-finite class: both NaN (in fixed point, poison), or
/// the same infinity.
fn same_class<S: Scalar>(a: S, b: S) -> bool {
    let (a, b) = (a.to_f64(), b.to_f64());
    (a.is_nan() && b.is_nan()) || (a.is_infinite() && a == b)
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
fn check_subject<S: Scalar>(s: &Subject) -> Option<String> {
    let name = core::any::type_name::<S>()
        .rsplit("::")
        .next()
        .unwrap_or("?");
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
/// IEEE class. `f64` only (the closed forms are `f64`). Returns the first failure and how many
/// points were judged.
fn check_gradient_origin(s: &Subject) -> (Option<String>, usize) {
    let Some(closed) = s.closed else {
        return (None, 0);
    };
    let mut judged = 0;
    for p in &s.points {
        let (value, d) = closed(p[0], p[1]);
        let Some(k) = (0..s.arity).find(|&k| !d[k].is_finite()) else {
            continue;
        };
        if !value.is_finite() || d[..s.arity].iter().any(|v| v.is_nan()) {
            continue;
        }
        judged += 1;
        let tape = Tape::<f64, 256>::new();
        let x = p.map(|v| tape.var(v));
        let y = s.expr.eval(&x[..s.arity]);
        let at = format!("{} at {:?}", s.name, &p[..s.arity]);
        let own = y.id().map(|id| id.index());
        let Some(own) = own else {
            return (
                Some(format!(
                    "{at}: d/dx{k} = {} but the result is no statement",
                    d[k]
                )),
                judged,
            );
        };
        let expected = Error::NonFinite {
            statement: own,
            op: s.op,
            in_gradient: true,
        };
        if tape.backward_checked(y).err() != Some(expected) {
            return (
                Some(format!(
                    "{at}: d/dx{k} = {} (closed form), so `backward_checked` must give `{expected}`; \
                     `anomaly` reports {:?}",
                    d[k],
                    tape.anomaly(y).map(|a| a.to_string())
                )),
                judged,
            );
        }
        let leaf = x[k].id().map(|id| id.index());
        match tape.anomaly(y).map(|a| a.kind) {
            Some(AnomalyKind::Gradient { input, local, .. })
                if Some(input) == leaf && same_class(local, d[k]) => {}
            other => {
                return (
                    Some(format!(
                        "{at}: d/dx{k} = {} (closed form), `anomaly`'s kind: {other:?}",
                        d[k]
                    )),
                    judged,
                )
            }
        }
    }
    (None, judged)
}

/// The operations a statement where a non-finite value starts may be labelled with, at each
/// node of `e` that is such a place in plain `f64` at `x`: its value not finite, and every
/// operand that depends on an input finite (a subtree of constants is a constant on the tape,
/// not an operand) or some constant operand not finite. Returns the node's value and whether it
/// depends on an input.
fn origin_labels(e: &Expr, x: &[f64], out: &mut Vec<Vec<Op>>) -> (f64, bool) {
    let by_name = |name: &str| Op::ALL.iter().copied().find(|o| o.name() == name);
    let (children, labels): (Vec<&Expr>, Vec<Op>) = match e {
        Expr::Input(i) => return (x[*i], true),
        Expr::Const(c) => return (*c, false),
        Expr::Unary(op, a) => (vec![a], by_name(op.name()).into_iter().collect()),
        // With a constant operand a two-input operation is recorded as the one-input operation
        // it then is (`x * c` a scale, `c - x` a shift, `pow(x, c)` a power, `c / x` ...).
        Expr::Binary(op, a, b) => (
            vec![a, b],
            by_name(op.name())
                .into_iter()
                .chain([
                    Op::Scale,
                    Op::Shift,
                    Op::Neg,
                    Op::Powf,
                    Op::Powi,
                    Op::Square,
                ])
                .collect(),
        ),
        Expr::Powi(a, _) => (vec![a], vec![Op::Powi, Op::Square, Op::Neg, Op::Scale]),
        Expr::Powf(a, _) => (vec![a], vec![Op::Powf]),
        Expr::LeakyRelu(a, _) => (vec![a], vec![Op::LeakyRelu]),
        // With constant terms an n-ary operation may be recorded as a scale or a shift of the one
        // recorded term (a NaN coefficient times it), or as the product and sum it stands for.
        Expr::Sum(t) => (t.iter().collect(), vec![Op::Sum, Op::Shift]),
        Expr::Scale(a, _) => (vec![a], vec![Op::Scale]),
        Expr::Shift(a, _) => (vec![a], vec![Op::Shift]),
        Expr::Square(a) => (vec![a], vec![Op::Square]),
        Expr::Dot(a, b) => (a.iter().chain(b).collect(), vec![Op::Dot, Op::Scale]),
        // Of two operands or fewer, `mul_add` is recorded as the product and the sum it stands
        // for: each may be where a non-finite value starts (`x * 1e300`); of more, as one
        // statement over the three.
        Expr::MulAdd(a, b, c) => {
            let product = Expr::bin(Binary::Mul, (**a).clone(), (**b).clone());
            let (p, p_on) = origin_labels(&product, x, out);
            let (c_value, c_on) = origin_labels(c, x, out);
            let value = e.eval(x);
            let starts = |parts: &[(f64, bool)]| {
                parts.iter().all(|&(v, on)| !on || v.is_finite())
                    || parts.iter().any(|&(v, on)| !on && !v.is_finite())
            };
            let part = |e: &Expr| origin_labels(e, x, &mut Vec::new());
            let whole = [part(a), part(b), (c_value, c_on)];
            if (p_on || c_on)
                && !value.is_finite()
                && (starts(&[(p, p_on), (c_value, c_on)]) || starts(&whole))
            {
                out.push(vec![Op::MulAdd, Op::Mul, Op::Add, Op::Scale, Op::Shift]);
            }
            return (value, p_on || c_on);
        }
    };
    let (mut recorded_finite, mut constant_finite, mut recorded) = (true, true, false);
    for c in children {
        let (v, on_tape) = origin_labels(c, x, out);
        recorded |= on_tape;
        if on_tape {
            recorded_finite &= v.is_finite();
        } else {
            constant_finite &= v.is_finite();
        }
    }
    // A non-finite constant operand may start a non-finite value inside an operation of
    // several parts whatever its other operands (`mul_add(NaN, y, ln(-1))`: `NaN * y` is one).
    let value = e.eval(x);
    if recorded && (recorded_finite || !constant_finite) && !value.is_finite() {
        out.push(labels);
    }
    (value, recorded)
}

/// A random tree over every operation with no guard on its arguments (unlike the expression
/// suite's generator, which keeps each argument in its operation's domain): `ln` of anything,
/// products and coefficients of exactly 0, so that NaN and infinities arise and meet zero
/// partials.
fn wild_expr(rng: &mut Rng, inputs: usize, depth: usize) -> Expr {
    let constants = [0.0, 0.0, -0.0, 1.0, -1.0, 2.5, 1e300];
    if depth == 0 || rng.unit() < 0.15 {
        return if rng.unit() < 0.75 {
            Expr::Input(rng.below(inputs))
        } else {
            Expr::Const(constants[rng.below(constants.len())])
        };
    }
    let sub = |rng: &mut Rng| wild_expr(rng, inputs, depth - 1);
    match rng.below(12) {
        0..=3 => Expr::un(Unary::ALL[rng.below(Unary::ALL.len())], sub(rng)),
        4..=6 => {
            let op = Binary::ALL[rng.below(Binary::ALL.len())];
            Expr::bin(op, sub(rng), sub(rng))
        }
        7 => Expr::Powi(Box::new(sub(rng)), rng.below(5) as i32 - 2),
        8 => Expr::LeakyRelu(Box::new(sub(rng)), [0.0, 0.1][rng.below(2)]),
        9 => Expr::Scale(Box::new(sub(rng)), constants[rng.below(constants.len())]),
        10 => {
            let n = 2 + rng.below(3);
            let a = (0..n).map(|_| sub(rng)).collect();
            let b = (0..n).map(|_| sub(rng)).collect();
            Expr::Dot(a, b)
        }
        _ => Expr::MulAdd(Box::new(sub(rng)), Box::new(sub(rng)), Box::new(sub(rng))),
    }
}

/// A random expression tree at a point of extreme coordinates: where the tape's result is not
/// finite, `anomaly` and `first_non_finite` must report a statement whose value is not finite
/// and whose listed operands are finite, labelled with the operation of a node where plain
/// evaluation finds a non-finite value starting (`origin_labels`).
fn check_random(e: &Expr, x: &[f64]) -> Option<String> {
    let plain = e.eval(x);
    if plain.is_finite() {
        return None;
    }
    let mut origins = Vec::new();
    origin_labels(e, x, &mut origins);
    let tape = Tape::<f64, 4096>::new();
    let v: Vec<Var<f64>> = x.iter().map(|&c| tape.var(c)).collect();
    let y = e.eval(&v);
    let at = format!("{e} at {x:?}");
    if !same_class(y.value(), plain) {
        return Some(format!(
            "{at}: the tape gives {}, plain f64 {plain}",
            y.value()
        ));
    }
    if y.id().is_none() && y.tape().is_none() {
        return None; // (a constant: nothing recorded to report)
    }
    for (how, a) in [
        ("anomaly", tape.anomaly(y)),
        ("first_non_finite", tape.first_non_finite()),
    ] {
        let Some(a) = a else {
            return Some(format!("{at}: value {plain}, but `{how}` reports nothing"));
        };
        let started = a.kind == AnomalyKind::Value
            && !a.value.is_finite()
            && a.inputs().iter().all(|i| i.value.is_finite())
            && origins.iter().any(|labels| labels.contains(&a.op));
        if !started {
            return Some(format!(
                "{at}: value {plain}; `{how}` reports a statement that is not where a \
                 non-finite value starts (plain f64: {} such nodes): {a}",
                origins.len()
            ));
        }
    }
    None
}

/// A small network for the network cases, and the ways it is made to go non-finite.
const NET: [usize; 4] = [2, 4, 3, 1];

/// How a network case makes a value non-finite.
#[derive(Clone, Copy, Debug)]
enum Spoil {
    /// Input `k` is this value.
    Input(usize, f64),
    /// Parameter `k` is this value (the input stays finite).
    Param(usize, f64),
}

/// The plain `f64` pre-activations of `net` at `params` and `x`, layer by layer, unit by unit,
/// with whether each unit's recorded operands can all be finite: the first layer's inputs are
/// constants (not statements), so a unit of it is where a non-finite sum starts; a later unit
/// is where it starts only if the layer before gave it finite inputs.
fn pre_activations(net: &Mlp<4>, params: &[f64], x: &[f64]) -> Vec<(f64, bool)> {
    let sizes = net.sizes();
    let mut out = Vec::new();
    let mut input = x.to_vec();
    let mut offset = 0;
    for l in 0..sizes.len() - 1 {
        let last = l + 2 == sizes.len();
        let finite_in = l == 0 || input.iter().all(|v| v.is_finite());
        let mut next = Vec::new();
        for _ in 0..sizes[l + 1] {
            let w = &params[offset..offset + sizes[l]];
            let z =
                params[offset + sizes[l]] + w.iter().zip(&input).map(|(a, b)| a * b).sum::<f64>();
            out.push((z, finite_in));
            let act = if last {
                net.output_activation()
            } else {
                net.hidden_activation()
            };
            next.push(act.apply(z));
            offset += sizes[l] + 1;
        }
        input = next;
    }
    out
}

/// One network case: both recording paths (parameters as handles, and as leaves through layer
/// statements) judged by the plain pre-activations.
fn check_network(act: Activation, spoil: Spoil, seed: u64) -> Option<String> {
    let net = Mlp::new(NET, act, Activation::Linear);
    let mut params = vec![0.0; net.param_count()];
    if let Err(e) = net.init(&mut params, Init::Uniform, &mut NnRng::new(seed)) {
        return Some(e.to_string());
    }
    let mut x = [1.5, -2.0];
    // A parameter given a non-finite value is itself where it starts: a leaf that holds it.
    let mut bad_leaf = None;
    match spoil {
        Spoil::Input(k, v) => x[k] = v,
        Spoil::Param(k, v) => {
            params[k] = v;
            bad_leaf = (!v.is_finite()).then_some(k);
        }
    }
    let plain = pre_activations(&net, &params, &x);
    let mut out = [0.0];
    if let Err(e) = net.forward(&params, &x, &mut out) {
        return Some(e.to_string());
    }
    // Where the non-finite values start: units whose inputs are finite, their sum not.
    let origins: Vec<f64> = plain
        .iter()
        .filter(|(z, finite_in)| *finite_in && !z.is_finite())
        .map(|&(z, _)| z)
        .collect();
    let Some(&first) = origins.first() else {
        return Some(format!(
            "{spoil:?} makes nothing non-finite: not a provenance case"
        ));
    };
    for leaves in [false, true] {
        let path = if leaves {
            "over leaves"
        } else {
            "over handles"
        };
        let tape = Tape::<f64, 512>::new();
        let p: Vec<Var<f64>> = params.iter().map(|&v| tape.var(v)).collect();
        let xs = x.map(Var::constant);
        let mut y = [Var::constant(0.0)];
        let recorded = match (leaves, p[0].id()) {
            (true, Some(id)) => tape
                .leaves(id, p.len())
                .map_err(|e| e.to_string())
                .and_then(|l| {
                    net.forward_leaves(l, &xs, &mut y)
                        .map_err(|e| e.to_string())
                }),
            _ => net.forward(&p, &xs, &mut y).map_err(|e| e.to_string()),
        };
        if let Err(e) = recorded {
            return Some(format!("{path}: {e}"));
        }
        let at = format!("{path}, {spoil:?}");
        let y = y[0];
        if y.value().to_bits() != out[0].to_bits() && !same_class(y.value(), out[0]) {
            return Some(format!(
                "{at}: output {} on the tape, {} in plain f64",
                y.value(),
                out[0]
            ));
        }
        // The first statement that went non-finite is the parameter given a non-finite value,
        // or else the first unit where it started.
        let Some(f) = tape.first_non_finite() else {
            return Some(format!(
                "{at}: pre-activation {first} in plain f64, but no report"
            ));
        };
        let leaf = |a: &autograd_core::Anomaly<f64>| {
            bad_leaf.is_some_and(|k| {
                (a.index, a.op, a.kind) == (k, Op::Leaf, AnomalyKind::Value)
                    && same_class(a.value, params[k])
            })
        };
        let started = |a: &autograd_core::Anomaly<f64>| {
            a.kind == AnomalyKind::Value
                && a.op == Op::Dot
                && a.inputs().iter().all(|i| i.value.is_finite())
        };
        if bad_leaf.is_some() {
            if !leaf(&f) {
                return Some(format!(
                    "{at}: parameter {} holds {}, but `first_non_finite` reports: {f}",
                    bad_leaf.unwrap_or(0),
                    params[bad_leaf.unwrap_or(0)]
                ));
            }
        } else if !started(&f) || !same_class(f.value, first) {
            return Some(format!(
                "{at}: the first non-finite pre-activation is {first} (plain f64), but \
                 `first_non_finite` reports: {f}"
            ));
        }
        // A non-finite output is traced to a unit where it started.
        if !y.value().is_finite() {
            match tape.anomaly(y) {
                Some(a) if leaf(&a) => {}
                Some(a)
                    if bad_leaf.is_none()
                        && started(&a)
                        && origins.iter().any(|&z| same_class(a.value, z)) => {}
                Some(a) => {
                    return Some(format!(
                        "{at}: output {}, traced to a statement that is not a unit where it \
                         started (plain f64: {origins:?}): {a}",
                        y.value()
                    ))
                }
                None => return Some(format!("{at}: output {}, but no report", y.value())),
            }
        }
    }
    None
}

pub fn cases(o: &Options) -> Vec<Case> {
    let mut cases = Vec::new();
    // Random trees over every operation at points of extreme coordinates (the expression
    // suite's generator keeps its arguments in each operation's domain; these points leave it).
    let mut rng = Rng::new(o.seed ^ 0x7072_6f76);
    let extremes = [
        0.0, -0.0, 1.0, -1.0, 1e-300, 1e200, -1e200, 1e300, -1e300, 710.0, -1000.0,
    ];
    for k in 0..o.cases {
        let (e, mut x) = if k % 2 == 0 {
            random_case(&mut rng, Vocabulary::All, [3, 5, 24], (-3.0, 3.0))
        } else {
            let inputs = 1 + rng.below(3);
            let depth = 1 + rng.below(5);
            let e = wild_expr(&mut rng, inputs, depth);
            (e, (0..inputs).map(|_| rng.uniform(-3.0, 3.0)).collect())
        };
        for c in &mut x {
            if rng.unit() < 0.6 {
                *c = extremes[rng.below(extremes.len())];
            }
        }
        cases.push(Case {
            suite: Suite::Provenance,
            name: format!("provenance tree #{k}"),
            run: Box::new(move || match check_random(&e, &x) {
                Some(f) => Outcome::failure(format!("tree #{k}: {f}")),
                None => Outcome::default(),
            }),
        });
    }
    for s in subjects() {
        cases.push(Case {
            suite: Suite::Provenance,
            name: format!("provenance of {}", s.name),
            run: Box::new(move || {
                match check_subject::<f64>(&s)
                    .or_else(|| check_subject::<f32>(&s))
                    .or_else(|| check_subject::<Q16>(&s))
                    .or_else(|| check_gradient_origin(&s).0)
                {
                    Some(f) => Outcome::failure(f),
                    None => Outcome::default(),
                }
            }),
        });
    }
    let acts = [
        ("tanh", Activation::Tanh),
        ("relu", Activation::Relu),
        ("sigmoid", Activation::Sigmoid),
        ("leaky_relu", Activation::LeakyRelu(0.1)),
    ];
    // Parameter 3 is the second unit's first weight; 12 the first weight of the second layer's
    // first unit (after 4 units of 3 parameters).
    let spoils = [
        Spoil::Input(0, f64::NAN),
        Spoil::Input(1, f64::INFINITY),
        Spoil::Input(0, f64::NEG_INFINITY),
        Spoil::Param(3, f64::MAX),
        Spoil::Param(3, f64::NAN),
        Spoil::Param(12, f64::INFINITY),
    ];
    for (an, act) in acts {
        for spoil in spoils {
            for seed in [1, 2] {
                cases.push(Case {
                    suite: Suite::Provenance,
                    name: format!("[2,4,3,1] {an} {spoil:?} #{seed}"),
                    run: Box::new(move || match check_network(act, spoil, seed) {
                        Some(f) => Outcome::failure(format!("[2,4,3,1] {an}: {f}")),
                        None => Outcome::default(),
                    }),
                });
            }
        }
    }
    cases
}
