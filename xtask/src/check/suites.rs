//! The five suites: which functions at which points.

use std::sync::Arc;

use autograd_core::{
    gradient_reverse, hessian, hessian_forward, hessian_vector_product, Dual, Function, Number,
    Tape, Tolerance,
};
use autograd_nn::data::Sample;
use autograd_nn::{
    Activation, BceWithLogits, Hinge, Init, Loss, Mlp, Objective, Rng as NnRng,
    SoftmaxCrossEntropy, SquaredError,
};

use super::expr::{random_expr, Binary, Expr, Rng};
use super::judge::{
    extrapolate, fmt_vec, gradient_case, judge, judge_fd, scaled, step, CheckScalar, Estimate,
    Reference, Verdict,
};
use super::{Case, Options, Outcome, Skip, Suite};

pub fn cases(suite: Suite, o: &Options) -> Vec<Case> {
    match suite {
        Suite::Ops => super::ops::cases(o),
        Suite::Seeds => seeds(),
        Suite::Expressions => expressions(o),
        Suite::Nn => nn(o),
        Suite::SecondOrder => second_order(o),
    }
}

/// An expression as a [`Function`].
pub struct ExprFn(pub Expr);

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
            gradient_case::<S, _>(&f, &x, kink, None, &|| format!("f(x) = {}", e))
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// 2. seeds

/// A case with a hand-derived (or the seed documents') gradient: reverse and forward mode must
/// match it within `tol` (absolute, the documents' printed precision) plus the scalar type's
/// rounding, and reverse mode must match finite differences. Never skipped.
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
            let reference = Reference {
                label: "hand-derived",
                value: None,
                gradient: expected.clone(),
                tolerance: Some(Tolerance::new(tol, Tolerance::between_modes::<S>().rtol)),
                never_skip: true,
            };
            gradient_case::<S, _>(&f, &x, f64::INFINITY, Some(&reference), &|| name.clone())
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
                return Outcome::failure(format!("{name}: {e}"));
            }
            let f = NetLoss {
                objective,
                batch: batch.clone(),
            };
            let kink = kink_margin(&objective, &params, &batch);
            gradient_case::<f64, _>(&f, &params, kink, None, &|| name.clone())
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
            // The plain value is the reference: where it is not finite the point is outside the
            // function's domain.
            let plain: f64 = f.eval(&x);
            if !plain.is_finite() {
                return Outcome::skipped(Skip::Undefined);
            }
            let mut tape = Box::new(Tape::<Dual<f64>, HESSIAN_TAPE>::new());
            let (mut g, mut h) = (vec![0.0; n], vec![0.0; n * n]);
            let value = match hessian(&f, &mut tape, &x, &mut g, &mut h) {
                Ok(v) => v,
                Err(err) => return Outcome::failure(format!("{}: {err}", describe())),
            };
            let (mut g2, mut h2) = (vec![0.0; n], vec![0.0; n * n]);
            if let Err(err) = hessian_forward(&f, &x, &mut g2, &mut h2) {
                return Outcome::failure(format!("{}: {err}", describe()));
            }
            let between = Tolerance::between_modes::<f64>();
            let mut outcome = Outcome::default();
            if let Verdict::Differ { .. } = judge(&[value], &[plain], scaled(between, &[plain])) {
                outcome.failure = Some(format!(
                    "{}\n  forward over reverse's value {value:e} differs from the plain value {plain:e}",
                    describe()
                ));
                return outcome;
            }
            // Forward over reverse (gradient and Hessian) against forward over forward.
            let label = "forward-over-reverse vs forward-over-forward";
            for (what, actual, reference) in [("gradient", &g, &g2), ("H", &h, &h2)] {
                match judge(actual, reference, scaled(between, reference)) {
                    Verdict::Agree { error, non_finite } => {
                        outcome.errors.push((label, error));
                        outcome.non_finite_agreed |= non_finite > 0;
                    }
                    Verdict::Differ { error, index } => {
                        outcome.errors.push((label, error));
                        outcome.failure = Some(format!(
                            "{}\n  {label}: {what} differs at entry {index}\n  {what} (f-o-r) = {}\n  {what} (f-o-f) = {}",
                            describe(),
                            fmt_vec(actual),
                            fmt_vec(reference)
                        ));
                        return outcome;
                    }
                    Verdict::ReferenceNonFinite => {
                        return Outcome::skipped(Skip::ReferenceNonFinite)
                    }
                }
            }
            if outcome.non_finite_agreed {
                outcome.fd_skipped = Some(Skip::NonFinite);
                return outcome;
            }
            // H v by one HVP against the product with the full Hessian.
            let (mut g3, mut hv) = (vec![0.0; n], vec![0.0; n]);
            if let Err(err) = hessian_vector_product(&f, &mut tape, &x, &v, &mut g3, &mut hv) {
                return Outcome::failure(format!("{}: {err}", describe()));
            }
            let hv_ref: Vec<f64> = (0..n)
                .map(|r| (0..n).map(|c| h[r * n + c] * v[c]).sum())
                .collect();
            match judge(&hv, &hv_ref, scaled(between, &h)) {
                Verdict::Agree { error, .. } => outcome.errors.push(("HVP vs H v", error)),
                Verdict::Differ { error, index } => {
                    outcome.errors.push(("HVP vs H v", error));
                    outcome.failure = Some(format!(
                        "{}\n  HVP differs from H v at {index}\n  hvp = {}\n  H v = {}",
                        describe(),
                        fmt_vec(&hv),
                        fmt_vec(&hv_ref)
                    ));
                    return outcome;
                }
                Verdict::ReferenceNonFinite => return Outcome::skipped(Skip::ReferenceNonFinite),
            }
            // Central differences of reverse-mode gradients, column by column.
            if e.kink_distance(&x) < 1e-3 {
                outcome.fd_skipped = Some(Skip::NearKink);
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
                    return Outcome::failure(format!("{}: reverse mode failed", describe()));
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
