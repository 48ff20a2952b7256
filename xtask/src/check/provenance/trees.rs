//! Random expression trees at extreme points, judged by where plain evaluation (in `f64`, `f32`
//! and Q16) finds non-finite values starting.

use autograd_core::{AnomalyKind, Op, Scalar, Tape, Var, Q16};

use super::super::expr::{random_case, Binary, Expr, Rng, Unary, Vocabulary};
use super::super::judge::CheckScalar;
use super::super::{Case, Options, Outcome, Suite};
use super::same_class;

/// What a two-input operation with a constant operand may be recorded as: the one-input
/// operation it then is (`x * c` a scale, `c - x` a shift, `pow(x, c)` a power, `c / x` ...).
const WITH_A_CONSTANT: [Op; 6] = [
    Op::Scale,
    Op::Shift,
    Op::Neg,
    Op::Powf,
    Op::Powi,
    Op::Square,
];

/// `true` if an operation over `parts` (each operand's value and whether it depends on an
/// input) is where a non-finite result starts: every operand that depends on an input is finite
/// (a subtree of constants is a constant on the tape, not an operand), or some constant operand
/// is not finite, which may start a non-finite value inside an operation of several parts
/// whatever the others (`mul_add(NaN, y, ln(-1))`: `NaN * y` is one).
fn starts<S: Scalar>(parts: &[(S, bool)]) -> bool {
    parts.iter().all(|&(v, on)| !on || v.is_finite())
        || parts.iter().any(|&(v, on)| !on && !v.is_finite())
}

/// The operations a statement where a non-finite value starts may be labelled with, at each
/// node of `e` that is such a place in plain evaluation at `x` (its value not finite, its
/// operands as [`starts`] says). Returns the node's value and whether it depends on an input.
fn origin_labels<S: Scalar>(e: &Expr, x: &[S], out: &mut Vec<Vec<Op>>) -> (S, bool) {
    let by_name = |name: &str| Op::ALL.iter().copied().find(|o| o.name() == name);
    let (children, labels): (Vec<&Expr>, Vec<Op>) = match e {
        Expr::Input(i) => return (x[*i], true),
        Expr::Const(c) => return (S::from_f64(*c), false),
        Expr::Unary(op, a) => (vec![a], by_name(op.name()).into_iter().collect()),
        Expr::Binary(op, a, b) => (
            vec![a, b],
            by_name(op.name())
                .into_iter()
                .chain(WITH_A_CONSTANT)
                .collect(),
        ),
        Expr::Powi(a, _) => (vec![a], vec![Op::Powi, Op::Square, Op::Neg, Op::Scale]),
        Expr::Powf(a, _) => (vec![a], vec![Op::Powf]),
        Expr::LeakyRelu(a, _) => (vec![a], vec![Op::LeakyRelu]),
        // With constant terms an n-ary operation may be recorded as a scale or a shift of the one
        // recorded term (a NaN coefficient times it).
        Expr::Sum(t) => (t.iter().collect(), vec![Op::Sum, Op::Shift]),
        Expr::Scale(a, _) => (vec![a], vec![Op::Scale]),
        Expr::Shift(a, _) => (vec![a], vec![Op::Shift]),
        // On a tape `c - a` is a negation then a shift.
        Expr::Rsub(a, _) => (vec![a], vec![Op::Neg, Op::Shift]),
        Expr::Square(a) => (vec![a], vec![Op::Square]),
        Expr::Dot(a, b) => (a.iter().chain(b).collect(), vec![Op::Dot, Op::Scale]),
        // Of two operands or fewer, `mul_add` is recorded as the product and the sum it stands
        // for: each may be where a non-finite value starts (`x * 1e300`); of more, as one
        // statement over the three.
        Expr::MulAdd(a, b, c) => {
            let [pa, pb, pc] = [a, b, c].map(|e| origin_labels(e, x, out));
            let product = (pa.0 * pb.0, pa.1 || pb.1);
            if product.1 && !product.0.is_finite() && starts(&[pa, pb]) {
                out.push([Op::Mul].into_iter().chain(WITH_A_CONSTANT).collect());
            }
            let value = e.eval(x);
            if (product.1 || pc.1)
                && !value.is_finite()
                && (starts(&[product, pc]) || starts(&[pa, pb, pc]))
            {
                out.push(vec![Op::MulAdd, Op::Mul, Op::Add, Op::Scale, Op::Shift]);
            }
            return (value, product.1 || pc.1);
        }
    };
    let parts: Vec<(S, bool)> = children
        .into_iter()
        .map(|c| origin_labels(c, x, out))
        .collect();
    let value = e.eval(x);
    let recorded = parts.iter().any(|&(_, on)| on);
    if recorded && starts(&parts) && !value.is_finite() {
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
fn check_random<S: CheckScalar>(e: &Expr, x: &[f64]) -> Option<String> {
    let x: Vec<S> = x.iter().map(|&c| S::from_f64(c)).collect();
    let x = &x[..];
    if !x.iter().all(|c| c.is_finite()) {
        return None; // (a coordinate the type cannot hold: the input itself is not finite)
    }
    let plain = e.eval(x);
    if plain.is_finite() {
        return None;
    }
    let mut origins = Vec::new();
    origin_labels(e, x, &mut origins);
    let tape = Tape::<S, 4096>::new();
    let v: Vec<Var<S>> = x.iter().map(|&c| tape.var(c)).collect();
    let y = e.eval(&v);
    let name = S::NAME;
    let at = format!("{e} at {x:?} ({name})");
    if !same_class(y.value(), plain) {
        return Some(format!("{at}: the tape gives {}, plain {plain}", y.value()));
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
                 non-finite value starts (plain: {} such nodes): {a}",
                origins.len()
            ));
        }
    }
    None
}

/// `o.cases` random trees.
pub(super) fn cases(o: &Options) -> Vec<Case> {
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
            run: Box::new(move || {
                let f = check_random::<f64>(&e, &x)
                    .or_else(|| check_random::<f32>(&e, &x))
                    .or_else(|| check_random::<Q16>(&e, &x));
                match f {
                    Some(f) => Outcome::failure(format!("tree #{k}: {f}")),
                    None => Outcome::default(),
                }
            }),
        });
    }
    cases
}
