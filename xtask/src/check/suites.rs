//! The seeds, expressions and nn suites: which functions at which points (the ops suite is in
//! `ops.rs`, the second-order suite in `second_order.rs`).

use std::sync::Arc;

use autograd_core::{Function, Number, Tolerance};
use autograd_nn::data::Sample;
use autograd_nn::{
    Activation, BceWithLogits, Hinge, Init, Loss, Mlp, Objective, Rng as NnRng,
    SoftmaxCrossEntropy, SquaredError,
};

use super::expr::{random_expr, Expr, Rng};
use super::judge::{gradient_case, CheckScalar, Reference};
use super::{Case, Options, Outcome, Suite};

pub fn cases(suite: Suite, o: &Options) -> Vec<Case> {
    match suite {
        Suite::Ops => super::ops::cases(o),
        Suite::Seeds => seeds(),
        Suite::Expressions => expressions(o),
        Suite::Nn => nn(o),
        Suite::SecondOrder => super::second_order::cases(o),
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
