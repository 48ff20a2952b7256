//! The five suites: which functions at which points.

use std::sync::Arc;

use autograd_core::{
    gradient_forward, gradient_reverse, hessian, hessian_forward, hessian_vector_product, Dual,
    Function, Number, Tape, Tolerance,
};
use autograd_nn::data::Sample;
use autograd_nn::{
    Activation, BceWithLogits, Hinge, Init, Loss, Mlp, Objective, Rng as NnRng,
    SoftmaxCrossEntropy, SquaredError,
};

use super::expr::{random_expr, Binary, Expr, Rng, Unary};
use super::{
    compare, extrapolate, failure, fmt_vec, gradient_case, judge_fd, scaled, step, Case,
    CheckScalar, Error, Estimate, Options, Outcome, Suite,
};

pub fn cases(suite: Suite, o: &Options) -> Vec<Case> {
    match suite {
        Suite::Ops => ops(o),
        Suite::Seeds => seeds(),
        Suite::Expressions => expressions(o),
        Suite::Nn => nn(o),
        Suite::SecondOrder => second_order(o),
    }
}

/// An expression as a [`Function`].
struct ExprFn(Expr);

impl Function for ExprFn {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        self.0.eval(x)
    }
}

fn expr_case<S: CheckScalar>(suite: Suite, name: String, e: Arc<Expr>, x: Vec<f64>) -> Case {
    Case {
        suite,
        name,
        run: Box::new(move || {
            let f = ExprFn((*e).clone());
            let kink = e.kink_distance(&x);
            gradient_case::<S, _>(&f, &x, kink, &|| format!("f(x) = {}", e))
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// 1. ops

/// One operation under test: its expression over `x0` (and `x1`), and where to sample it.
struct OpSpec {
    name: &'static str,
    expr: Expr,
    /// Sampling interval of each input.
    domain: [(f64, f64); 2],
    arity: usize,
    /// Edge points: ±0, near kinks, large |x|, near domain bounds.
    edges: Vec<[f64; 2]>,
}

fn op_specs() -> Vec<OpSpec> {
    let x0 = Expr::x(0);
    let x1 = Expr::x(1);
    let wide = (-3.0, 3.0);
    let positive = (1e-3, 10.0);
    let sat = vec![
        [0.0, 0.0],
        [-0.0, 0.0],
        [30.0, 0.0],
        [-30.0, 0.0],
        [1000.0, 0.0],
        [-1000.0, 0.0],
    ];
    let kinky = vec![
        [0.0, 0.0],
        [-0.0, 0.0],
        [1e-9, 0.0],
        [-1e-9, 0.0],
        [1e-3, 0.0],
        [-1e-3, 0.0],
        [1e6, 0.0],
        [-1e6, 0.0],
    ];
    let near_zero_bound = vec![[1e-8, 0.0], [1e-4, 0.0], [1.0, 0.0], [1e8, 0.0]];
    let unary = |name, op: Unary, domain: (f64, f64), edges: Vec<[f64; 2]>| OpSpec {
        name,
        expr: Expr::un(op, x0.clone()),
        domain: [domain, (0.0, 0.0)],
        arity: 1,
        edges,
    };
    let binary = |name, op: Binary, d0, d1, edges| OpSpec {
        name,
        expr: Expr::bin(op, x0.clone(), x1.clone()),
        domain: [d0, d1],
        arity: 2,
        edges,
    };
    vec![
        unary(
            "neg",
            Unary::Neg,
            wide,
            vec![[0.0, 0.0], [-0.0, 0.0], [1e300, 0.0]],
        ),
        unary(
            "exp",
            Unary::Exp,
            (-20.0, 20.0),
            vec![[0.0, 0.0], [-700.0, 0.0], [80.0, 0.0]],
        ),
        unary("ln", Unary::Ln, positive, near_zero_bound.clone()),
        unary("sqrt", Unary::Sqrt, positive, near_zero_bound.clone()),
        unary(
            "sin",
            Unary::Sin,
            (-10.0, 10.0),
            vec![[0.0, 0.0], [1e4, 0.0]],
        ),
        unary(
            "cos",
            Unary::Cos,
            (-10.0, 10.0),
            vec![[0.0, 0.0], [1e4, 0.0]],
        ),
        unary(
            "tan",
            Unary::Tan,
            (-1.4, 1.4),
            vec![[0.0, 0.0], [1.5, 0.0], [-1.5, 0.0]],
        ),
        unary("tanh", Unary::Tanh, (-5.0, 5.0), sat.clone()),
        unary("sigmoid", Unary::Sigmoid, (-10.0, 10.0), sat.clone()),
        unary("softplus", Unary::Softplus, (-10.0, 10.0), sat),
        unary("relu", Unary::Relu, wide, kinky.clone()),
        unary("abs", Unary::Abs, wide, kinky.clone()),
        OpSpec {
            name: "leaky_relu",
            expr: Expr::LeakyRelu(Box::new(x0.clone()), 0.1),
            domain: [wide, (0.0, 0.0)],
            arity: 1,
            edges: kinky,
        },
        OpSpec {
            name: "powi(3)",
            expr: Expr::Powi(Box::new(x0.clone()), 3),
            domain: [wide, (0.0, 0.0)],
            arity: 1,
            edges: vec![[0.0, 0.0], [-0.0, 0.0], [1e5, 0.0]],
        },
        OpSpec {
            name: "powi(-2)",
            expr: Expr::Powi(Box::new(x0.clone()), -2),
            domain: [(0.2, 3.0), (0.0, 0.0)],
            arity: 1,
            edges: vec![[-0.5, 0.0], [1e-3, 0.0]],
        },
        OpSpec {
            name: "powi(0)",
            expr: Expr::Powi(Box::new(x0.clone()), 0),
            domain: [wide, (0.0, 0.0)],
            arity: 1,
            edges: vec![[0.0, 0.0]],
        },
        OpSpec {
            name: "powf(2.5)",
            expr: Expr::Powf(Box::new(x0.clone()), 2.5),
            domain: [positive, (0.0, 0.0)],
            arity: 1,
            edges: near_zero_bound.clone(),
        },
        OpSpec {
            name: "powf(-0.5)",
            expr: Expr::Powf(Box::new(x0.clone()), -0.5),
            domain: [positive, (0.0, 0.0)],
            arity: 1,
            edges: near_zero_bound,
        },
        binary(
            "add",
            Binary::Add,
            wide,
            wide,
            vec![[0.0, -0.0], [1e300, -1e300]],
        ),
        binary("sub", Binary::Sub, wide, wide, vec![[0.0, 0.0], [1.0, 1.0]]),
        binary(
            "mul",
            Binary::Mul,
            wide,
            wide,
            vec![[0.0, 0.0], [1e150, 1e-150]],
        ),
        binary(
            "div",
            Binary::Div,
            wide,
            (0.2, 5.0),
            vec![[0.0, 1.0], [1.0, -0.3], [1e-300, 1e10]],
        ),
        binary(
            "pow",
            Binary::Pow,
            (0.05, 5.0),
            (-3.0, 3.0),
            vec![[1.0, 0.0], [2.0, 0.5], [1e-6, 2.0]],
        ),
        binary(
            "max",
            Binary::Max,
            wide,
            wide,
            vec![[1.0, 1.0], [0.0, 1e-9], [-2.0, -2.0]],
        ),
        binary(
            "min",
            Binary::Min,
            wide,
            wide,
            vec![[1.0, 1.0], [0.0, 1e-9], [-2.0, -2.0]],
        ),
        OpSpec {
            name: "sum",
            expr: Expr::Sum(vec![x0.clone(), x1.clone(), x0.clone()]),
            domain: [wide, wide],
            arity: 2,
            edges: vec![[0.0, 0.0]],
        },
    ]
}

fn ops(o: &Options) -> Vec<Case> {
    let random_points = if o.quick { 8 } else { 64 };
    let grid = if o.quick { 5 } else { 17 };
    let mut rng = Rng::new(o.seed ^ 0x6f70_7321);
    let mut cases = Vec::new();
    for spec in op_specs() {
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
            cases.push(expr_case::<f64>(
                Suite::Ops,
                format!("{label} f64"),
                e.clone(),
                p.clone(),
            ));
            cases.push(expr_case::<f32>(
                Suite::Ops,
                format!("{label} f32"),
                e.clone(),
                p,
            ));
        }
    }
    cases.extend(kink_conventions());
    cases
}

fn fmt_short(p: &[f64]) -> String {
    let parts: Vec<String> = p.iter().map(|v| format!("{v:.4e}")).collect();
    format!("({})", parts.join(", "))
}

/// Reverse and forward mode at exactly the kinks, against the documented conventions.
fn kink_conventions() -> Vec<Case> {
    let x0 = Expr::x(0);
    let x1 = Expr::x(1);
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
                return failure(format!("f(x) = {e}: {err}"));
            }
            let rev: Vec<f64> = rev.iter().map(|v| v.to_f64()).collect();
            let fwd: Vec<f64> = fwd.iter().map(|v| v.to_f64()).collect();
            // The convention's value as the scalar type represents it (0.2 in f32 is 0.2000000030).
            let expected: Vec<f64> = expected.iter().map(|&v| S::from_f64(v).to_f64()).collect();
            let exact = Tolerance::new(0.0, 0.0);
            let (ok_r, err_r, _) = compare(&rev, &expected, exact);
            let (ok_f, err_f, _) = compare(&fwd, &expected, exact);
            let worst = if err_r.rel >= err_f.rel { err_r } else { err_f };
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
                fd_skipped: Some(super::Skip::NearKink),
                exact: Some(worst),
                fd: None,
            }
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// 2. seeds

/// A case with a hand-derived (or the seed documents') gradient: reverse and forward must match
/// it within `tol` (absolute), and the usual three-way comparison must pass too.
fn reference_case<S: CheckScalar, F: Function + Send + Sync + 'static>(
    name: &str,
    f: F,
    x: Vec<f64>,
    expected: Vec<f64>,
    tol: f64,
) -> Case {
    let name = format!("{name} {}", S::NAME);
    Case {
        suite: Suite::Seeds,
        name: name.clone(),
        run: Box::new(move || {
            let mut outcome = gradient_case::<S, _>(&f, &x, f64::INFINITY, &|| name.clone());
            if outcome.failure.is_some() || outcome.skipped.is_some() {
                return outcome;
            }
            let xs: Vec<S> = x.iter().map(|&v| S::from_f64(v)).collect();
            let mut rev = vec![S::ZERO; x.len()];
            if let Err(e) = S::with_tape(|t| gradient_reverse(&f, t, &xs, &mut rev)) {
                return failure(format!("{name}: {e}"));
            }
            let rev: Vec<f64> = rev.iter().map(|v| v.to_f64()).collect();
            // Hand-derived values are exact reals: allow the scalar type's rounding on top of the
            // documents' printed precision `tol`.
            let rounding = Tolerance::between_modes::<S>().rtol;
            let (ok, err, _) = compare(&rev, &expected, Tolerance::new(tol, rounding));
            let exact = outcome.exact.unwrap_or_default();
            outcome.exact = Some(Error {
                abs: exact.abs.max(err.abs),
                rel: exact.rel.max(err.rel),
            });
            if !ok {
                outcome.failure = Some(format!(
                    "{name} at x = {}: expected {}, reverse mode gave {}",
                    fmt_vec(&x),
                    fmt_vec(&expected),
                    fmt_vec(&rev)
                ));
            }
            outcome
        }),
    }
}

macro_rules! function {
    ($name:ident, |$x:ident| $body:expr) => {
        struct $name;
        impl Function for $name {
            fn eval<T: Number>(&self, $x: &[T]) -> T {
                $body
            }
        }
    };
}

function!(ReluOfProduct, |x| (x[0] * x[1] + T::one()).relu());
function!(ReluABC, |x| (x[0] * x[1] + x[2]).relu());
function!(Linear, |x| x[0] * x[1] + x[2]);
function!(SinOfSquare, |x| x[0].powi(2).sin());
function!(Cube, |x| x[0].powi(3));
function!(Tanh, |x| x[0].tanh());
function!(Cubic, |x| x[0].powi(3) - x[0] * T::from_f64(2.0) + T::one());
function!(TanhPoly, |x| (x[0].powi(3)
    + x[0] * T::from_f64(2.0)
    + T::one())
.tanh());
function!(Neuron, |x| (x[0] * x[1] + x[2] * x[3] + x[4]).relu());
function!(Micrograd, |x| micrograd_expression(x[0], x[1]));

/// micrograd's README expression, line by line.
fn micrograd_expression<T: Number>(a: T, b: T) -> T {
    let k = T::from_f64;
    let mut c = a + b;
    let mut d = a * b + b.powi(3);
    c = c + (c + k(1.0));
    c = c + (k(1.0) + c + (-a));
    d = d + (d * k(2.0) + (b + a).relu());
    d = d + (k(3.0) * d + (b - a).relu());
    let e = c - d;
    let f = e.powi(2);
    let g = f / k(2.0);
    g + k(10.0) / f
}

fn seeds() -> Vec<Case> {
    let mut cases = Vec::new();
    macro_rules! both {
        ($name:expr, $f:expr, $x:expr, $g:expr, $tol:expr) => {
            cases.push(reference_case::<f64, _>(
                $name,
                $f,
                $x.to_vec(),
                $g.to_vec(),
                $tol,
            ));
            cases.push(reference_case::<f32, _>(
                $name,
                $f,
                $x.to_vec(),
                $g.to_vec(),
                $tol,
            ));
        };
    }
    both!(
        "lesson: relu(x1*x2 + 1) at (2, 3)",
        ReluOfProduct,
        [2.0, 3.0],
        [3.0, 2.0],
        0.0
    );
    both!(
        "lesson: relu(a*b + c) at (2, -3, 10)",
        ReluABC,
        [2.0, -3.0, 10.0],
        [-3.0, 2.0, 1.0],
        0.0
    );
    both!(
        "article: L = x*w + b at (1, 0.5, 0.1)",
        Linear,
        [1.0, 0.5, 0.1],
        [0.5, 1.0, 1.0],
        0.0
    );
    both!(
        "lesson: d/dx sin(x^2) at 2 = -2.615",
        SinOfSquare,
        [2.0],
        [-2.615],
        5e-4
    );
    both!(
        "lesson: d/dx sin(x^2) at 2 = 4 cos 4",
        SinOfSquare,
        [2.0],
        [4.0 * 4f64.cos()],
        1e-14
    );
    both!("exercise 1: d/dx x^3 at 2 = 12", Cube, [2.0], [12.0], 0.0);
    both!("exercise 2: tanh'(0) = 1", Tanh, [0.0], [1.0], 0.0);
    both!("exercise 2: tanh'(2) ~ 0.0707", Tanh, [2.0], [0.0707], 5e-5);
    for x in [-2.0, -0.5, 0.0, 1.0, 3.0] {
        // The article's check: autograd against central differences with h = 1e-5, tol 1e-4;
        // here against the analytic 3x^2 - 2 (the three-way comparison adds the differences).
        both!(
            &format!("article: x^3 - 2x + 1 at {x}"),
            Cubic,
            [x],
            [3.0 * x * x - 2.0],
            1e-12
        );
    }
    let t = (0.125_f64 + 1.0 + 1.0).tanh();
    both!(
        "lesson: tanh(x^3 + 2x + 1) at 0.5",
        TanhPoly,
        [0.5],
        [(1.0 - t * t) * 2.75],
        1e-14
    );
    // Exercise 3: relu(w1 x1 + w2 x2 + b), active and inactive; gradients (x1, w1, x2, w2, 1).
    both!(
        "exercise 3: neuron relu(w1 x1 + w2 x2 + b), active",
        Neuron,
        [0.5, 3.0, -1.5, 0.5, 2.0],
        [3.0, 0.5, 0.5, -1.5, 1.0],
        0.0
    );
    both!(
        "exercise 3: neuron relu(w1 x1 + w2 x2 + b), inactive",
        Neuron,
        [-1.0, 3.0, 0.5, 1.0, 0.5],
        [0.0; 5],
        0.0
    );
    cases.push(reference_case::<f64, _>(
        "micrograd README: g(a=-4, b=2) gradients (138.8338, 645.5773)",
        Micrograd,
        vec![-4.0, 2.0],
        vec![138.8338, 645.5773],
        5e-5,
    ));
    cases
}

// ---------------------------------------------------------------------------------------------
// 3. expressions

fn expressions(o: &Options) -> Vec<Case> {
    let mut rng = Rng::new(o.seed ^ 0x6578_7072);
    (0..o.cases)
        .map(|k| {
            let inputs = 1 + rng.below(8);
            let depth = 1 + rng.below(8);
            let mut e = random_expr(&mut rng, inputs, depth);
            while e.size() > 400 {
                e = random_expr(&mut rng, inputs, depth);
            }
            let x: Vec<f64> = (0..inputs).map(|_| rng.uniform(-2.0, 2.0)).collect();
            let e = Arc::new(e);
            if k % 4 == 3 {
                expr_case::<f32>(Suite::Expressions, format!("expr #{k} f32"), e, x)
            } else {
                expr_case::<f64>(Suite::Expressions, format!("expr #{k} f64"), e, x)
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 4. nn

/// A loss of a small MLP as a function of its parameters.
struct NetLoss<L, const D: usize> {
    objective: Objective<L, D>,
    batch: Vec<Sample<2>>,
}

impl<L: Loss, const D: usize> Function for NetLoss<L, D> {
    fn eval<T: Number>(&self, params: &[T]) -> T {
        // Shapes are fixed by construction below; an error would be a bug in this suite, and
        // NaN makes the case fail loudly rather than pass.
        self.objective
            .evaluate(params, &self.batch)
            .unwrap_or_else(|_| T::from_f64(f64::NAN))
    }
}

fn net_case<L: Loss + Copy + Send + Sync + 'static, const D: usize>(
    name: String,
    objective: Objective<L, D>,
    batch: Vec<Sample<2>>,
    seed: u64,
) -> Case {
    Case {
        suite: Suite::Nn,
        name: name.clone(),
        run: Box::new(move || {
            let mut params = vec![0.0_f64; objective.model.param_count()];
            if let Err(e) = objective
                .model
                .init(&mut params, Init::Uniform, &mut NnRng::new(seed))
            {
                return failure(format!("{name}: {e}"));
            }
            let f = NetLoss {
                objective,
                batch: batch.clone(),
            };
            let kink = kink_margin(&objective, &params, &batch);
            gradient_case::<f64, _>(&f, &params, kink, &|| name.clone())
        }),
    }
}

/// How close the network is to a kink, in parameter units: the smallest |pre-activation| of a
/// relu-like hidden neuron, and for the hinge loss the smallest |1 - y s|, each divided by
/// `1 + sum |inputs|` of that neuron (a parameter step `h` moves its pre-activation by about
/// `h (1 + sum |inputs|)`). Infinite for smooth networks and losses. A heuristic bound, used
/// only to decide whether central differences straddle a kink.
fn kink_margin<L: Loss, const D: usize>(
    objective: &Objective<L, D>,
    params: &[f64],
    batch: &[Sample<2>],
) -> f64 {
    let model = objective.model;
    let sizes = model.sizes();
    let kinky_hidden = matches!(
        model.hidden_activation(),
        Activation::Relu | Activation::LeakyRelu(_)
    );
    let hinge = core::any::type_name::<L>().ends_with("Hinge");
    let mut margin = f64::INFINITY;
    for s in batch {
        let mut x: Vec<f64> = s.x.to_vec();
        let mut offset = 0;
        for l in 0..D - 1 {
            let (n_in, n_out) = (sizes[l], sizes[l + 1]);
            let last = l + 2 == D;
            let act = if last {
                model.output_activation()
            } else {
                model.hidden_activation()
            };
            let scale = 1.0 + x.iter().map(|v| v.abs()).sum::<f64>();
            let mut y = Vec::with_capacity(n_out);
            for _ in 0..n_out {
                let w = &params[offset..offset + n_in];
                let z = params[offset + n_in] + w.iter().zip(&x).map(|(a, b)| a * b).sum::<f64>();
                if !last && kinky_hidden {
                    margin = margin.min(z.abs() / scale);
                }
                if last && hinge {
                    let label = if s.y > 0.0 { 1.0 } else { -1.0 };
                    margin = margin.min((1.0 - label * z).abs() / scale);
                }
                y.push(act.apply(z));
                offset += n_in + 1;
            }
            x = y;
        }
    }
    margin
}

fn nn(o: &Options) -> Vec<Case> {
    let mut rng = Rng::new(o.seed ^ 0x6e6e);
    let seeds_per_net = if o.quick { 2 } else { 8 };
    let acts = [
        ("tanh", Activation::Tanh),
        ("relu", Activation::Relu),
        ("sigmoid", Activation::Sigmoid),
        ("leaky_relu", Activation::LeakyRelu(0.1)),
    ];
    let mut batch = |n: usize, classes: usize| -> Vec<Sample<2>> {
        (0..n)
            .map(|_| Sample {
                x: [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)],
                y: rng.below(classes) as f64,
            })
            .collect()
    };
    let mut cases = Vec::new();
    for k in 0..seeds_per_net {
        let seed = o.seed.wrapping_mul(1000) + k as u64;
        for (an, act) in acts {
            let net = Mlp::new([2, 4, 3, 1], act, Activation::Linear);
            let regression: Vec<Sample<2>> = batch(6, 2)
                .into_iter()
                .map(|s| Sample {
                    y: s.x[0] * s.x[1],
                    ..s
                })
                .collect();
            cases.push(net_case(
                format!("[2,4,3,1] {an} squared error #{k}"),
                Objective::new(net, SquaredError),
                regression,
                seed,
            ));
            cases.push(net_case(
                format!("[2,4,3,1] {an} hinge + 1e-4 L2 #{k}"),
                Objective::new(net, Hinge).with_l2(1e-4),
                batch(6, 2),
                seed,
            ));
            cases.push(net_case(
                format!("[2,4,3,1] {an} BCE with logits #{k}"),
                Objective::new(net, BceWithLogits),
                batch(6, 2),
                seed,
            ));
            let net3 = Mlp::new([2, 5, 3], act, Activation::Linear);
            cases.push(net_case(
                format!("[2,5,3] {an} softmax cross-entropy #{k}"),
                Objective::new(net3, SoftmaxCrossEntropy).with_l2(1e-3),
                batch(6, 3),
                seed,
            ));
        }
    }
    cases
}

// ---------------------------------------------------------------------------------------------
// 5. second order

const HESSIAN_TAPE: usize = 1 << 12;

/// Hessian by forward over reverse, against forward over forward (tight) and central differences
/// of reverse-mode gradients (loose); one HVP against H v.
fn hessian_case(name: String, e: Arc<Expr>, x: Vec<f64>, v: Vec<f64>) -> Case {
    Case {
        suite: Suite::SecondOrder,
        name: name.clone(),
        run: Box::new(move || {
            let n = x.len();
            let f = ExprFn((*e).clone());
            let describe = || format!("{name}: f(x) = {e} at x = {}", fmt_vec(&x));
            let mut tape = Box::new(Tape::<Dual<f64>, HESSIAN_TAPE>::new());
            let (mut g, mut h) = (vec![0.0; n], vec![0.0; n * n]);
            let value = match hessian(&f, &mut tape, &x, &mut g, &mut h) {
                Ok(v) => v,
                Err(err) => return failure(format!("{}: {err}", describe())),
            };
            if !value.is_finite() || h.iter().chain(&g).any(|v| !v.is_finite()) {
                return Outcome::skipped(super::Skip::NonFinite);
            }
            let (mut g2, mut h2) = (vec![0.0; n], vec![0.0; n * n]);
            if let Err(err) = hessian_forward(&f, &x, &mut g2, &mut h2) {
                return failure(format!("{}: {err}", describe()));
            }
            let (ok, exact, i) = compare(&h, &h2, scaled(Tolerance::between_modes::<f64>(), &h2));
            let mut outcome = Outcome {
                failure: None,
                skipped: None,
                fd_skipped: None,
                exact: Some(exact),
                fd: None,
            };
            if !ok {
                outcome.failure = Some(format!(
                    "{}\n  forward-over-reverse vs forward-over-forward differ at entry {i}\n  H (f-o-r) = {}\n  H (f-o-f) = {}",
                    describe(),
                    fmt_vec(&h),
                    fmt_vec(&h2)
                ));
                return outcome;
            }
            // H v by one HVP against the product with the full Hessian.
            let (mut g3, mut hv) = (vec![0.0; n], vec![0.0; n]);
            if let Err(err) = hessian_vector_product(&f, &mut tape, &x, &v, &mut g3, &mut hv) {
                return failure(format!("{}: {err}", describe()));
            }
            let hv_ref: Vec<f64> = (0..n)
                .map(|r| (0..n).map(|c| h[r * n + c] * v[c]).sum())
                .collect();
            let (ok, err, i) = compare(&hv, &hv_ref, scaled(Tolerance::between_modes::<f64>(), &h));
            if !ok {
                outcome.failure = Some(format!(
                    "{}\n  HVP differs from H v at {i}\n  hvp = {}\n  H v = {}",
                    describe(),
                    fmt_vec(&hv),
                    fmt_vec(&hv_ref)
                ));
                return outcome;
            }
            outcome.exact = Some(Error {
                abs: exact.abs.max(err.abs),
                rel: exact.rel.max(err.rel),
            });
            // Central differences of reverse-mode gradients, column by column.
            if e.kink_distance(&x) < 1e-3 {
                outcome.fd_skipped = Some(super::Skip::NearKink);
                return outcome;
            }
            // Richardson-extrapolated central differences of reverse-mode gradients.
            let mut fd = vec![
                Estimate {
                    value: 0.0,
                    error: 0.0
                };
                n * n
            ];
            for j in 0..n {
                let h = step(x[j]);
                let column = |s: f64| -> Option<Vec<f64>> {
                    let (mut xp, mut xm) = (x.clone(), x.clone());
                    xp[j] += s;
                    xm[j] -= s;
                    let (mut gp, mut gm) = (vec![0.0; n], vec![0.0; n]);
                    let ok = <f64 as CheckScalar>::with_tape(|t| {
                        gradient_reverse(&f, t, &xp, &mut gp).is_ok()
                            && gradient_reverse(&f, t, &xm, &mut gm).is_ok()
                    });
                    let width = xp[j] - xm[j];
                    ok.then(|| (0..n).map(|r| (gp[r] - gm[r]) / width).collect())
                };
                let (Some(d1), Some(d2), Some(d4)) = (column(h), column(h / 2.0), column(h / 4.0))
                else {
                    return failure(format!("{}: reverse mode failed", describe()));
                };
                for r in 0..n {
                    match extrapolate(d1[r], d2[r], d4[r]) {
                        Ok(e) => fd[r * n + j] = e,
                        Err(reason) => {
                            outcome.fd_skipped = Some(reason);
                            return outcome;
                        }
                    }
                }
            }
            judge_fd(
                &mut outcome,
                &h,
                &fd,
                Tolerance::finite_differences::<f64>(),
                &|i, fd| {
                    format!(
                    "{}\n  Hessian vs differences of gradients differ at entry {i}\n  H  = {}\n  fd = {}",
                    describe(),
                    fmt_vec(&h),
                    fmt_vec(fd)
                )
                },
            );
            outcome
        }),
    }
}

/// Rosenbrock in `n` inputs.
fn rosenbrock_expr(n: usize) -> Expr {
    Expr::Sum(
        (0..n - 1)
            .map(|i| {
                let a = Expr::bin(
                    Binary::Sub,
                    Expr::x(i + 1),
                    Expr::Powi(Box::new(Expr::x(i)), 2),
                );
                let b = Expr::bin(Binary::Sub, Expr::Const(1.0), Expr::x(i));
                Expr::bin(
                    Binary::Add,
                    Expr::bin(Binary::Mul, Expr::Const(100.0), Expr::Powi(Box::new(a), 2)),
                    Expr::Powi(Box::new(b), 2),
                )
            })
            .collect(),
    )
}

fn second_order(o: &Options) -> Vec<Case> {
    let mut rng = Rng::new(o.seed ^ 0x6865_7373);
    let mut cases = Vec::new();
    for n in 2..=5 {
        let e = Arc::new(rosenbrock_expr(n));
        for k in 0..3 {
            let x: Vec<f64> = (0..n).map(|_| rng.uniform(-1.5, 1.5)).collect();
            let v: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
            cases.push(hessian_case(
                format!("rosenbrock n={n} #{k}"),
                e.clone(),
                x,
                v,
            ));
        }
    }
    let count = (o.cases / 4).max(10);
    for k in 0..count {
        let inputs = 1 + rng.below(4);
        let depth = 1 + rng.below(6);
        let mut e = random_expr(&mut rng, inputs, depth);
        while e.size() > 200 {
            e = random_expr(&mut rng, inputs, depth);
        }
        let x: Vec<f64> = (0..inputs).map(|_| rng.uniform(-1.5, 1.5)).collect();
        let v: Vec<f64> = (0..inputs).map(|_| rng.uniform(-1.0, 1.0)).collect();
        cases.push(hessian_case(format!("expr #{k}"), Arc::new(e), x, v));
    }
    cases
}
