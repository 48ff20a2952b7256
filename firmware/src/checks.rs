//! Derivatives checked on the device, in `f32`: the seeds' worked examples against their
//! hand-derived values, then a batch of functions where reverse mode (the tape), forward mode
//! (dual numbers, whose rules are written independently of the tape's) and finite differences
//! must agree.

use autograd_core::{Dual, Number, TapeError, Var};
use cortex_m_semihosting::hprintln;

use crate::report::Report;
use crate::DeviceTape;

/// Reverse mode: records `f` at `x` on a cleared tape, returns `f(x)` and its gradient.
pub fn reverse<const D: usize>(
    tape: &mut DeviceTape,
    x: [f32; D],
    f: impl for<'t> Fn([Var<'t, f32>; D]) -> Var<'t, f32>,
) -> Result<(f32, [f32; D]), TapeError> {
    tape.clear();
    let xs = x.map(|v| tape.var(v));
    let y = f(xs);
    let mut grad = [0.0; D];
    tape.backward(y)?.write_to(&xs, &mut grad)?;
    if crate::selftest::wrong_derivative() {
        // A 0.1% error in every derivative: the checks below must catch it.
        grad = grad.map(|g| g * 1.001);
    }
    Ok((y.value(), grad))
}

/// Forward mode: `df/dx_i` from one pass of dual numbers seeded in direction `i`.
pub fn forward<const D: usize>(
    f: impl Fn([Dual<f32>; D]) -> Dual<f32>,
    x: [f32; D],
    i: usize,
) -> f32 {
    let mut xs = x.map(Dual::constant);
    xs[i] = Dual::variable(x[i]);
    f(xs).eps
}

/// `df/dx_i` by the five-point central difference in `f32` (error O(h^4) plus rounding).
pub fn finite_difference<const D: usize>(
    f: impl Fn([f32; D]) -> f32,
    x: [f32; D],
    i: usize,
) -> f32 {
    let h = 1.0 / 128.0 * if x[i].abs() > 1.0 { x[i].abs() } else { 1.0 };
    let at = |d: f32| {
        let mut p = x;
        p[i] += d;
        f(p)
    };
    (at(-2.0 * h) - 8.0 * at(-h) + 8.0 * at(h) - at(2.0 * h)) / (12.0 * h)
}

/// Plain central difference `(f(x+h) - f(x-h)) / 2h`, as the seeds do it.
fn central_difference(f: impl Fn(f32) -> f32, x: f32, h: f32) -> f32 {
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// Runs `reverse`, reporting a tape error as a failed check.
fn gradient<const D: usize>(
    tape: &mut DeviceTape,
    report: &mut Report,
    what: &str,
    x: [f32; D],
    f: impl for<'t> Fn([Var<'t, f32>; D]) -> Var<'t, f32>,
) -> (f32, [f32; D]) {
    match reverse(tape, x, f) {
        Ok(r) => r,
        Err(e) => {
            hprintln!("FAIL {}: tape error {}", what, e);
            report.check(false, what);
            (f32::NAN, [f32::NAN; D])
        }
    }
}

/// The worked examples of the seed lesson (Portuguese) and the seed article (Indonesian).
pub fn seed_examples(tape: &mut DeviceTape, report: &mut Report) {
    let before = report.failed();
    let passed_before = report.passed();

    // y = relu(x1 * x2 + 1) at (2, 3): y = 7, dy/dx1 = x2 = 3, dy/dx2 = x1 = 2.
    let (y, g) = gradient(tape, report, "relu(x1*x2+1)", [2.0, 3.0], |[x1, x2]| {
        (x1 * x2 + 1.0).relu()
    });
    report.close("relu(x1*x2+1) value", y, 7.0, 0.0);
    report.close("relu(x1*x2+1) d/dx1", g[0], 3.0, 0.0);
    report.close("relu(x1*x2+1) d/dx2", g[1], 2.0, 0.0);

    // f = relu(a * b + c) at (2, -3, 10): f = 4, gradients (b, a, 1) = (-3, 2, 1).
    let (y, g) = gradient(
        tape,
        report,
        "relu(a*b+c)",
        [2.0, -3.0, 10.0],
        |[a, b, c]| (a * b + c).relu(),
    );
    report.close("relu(a*b+c) value", y, 4.0, 0.0);
    report.close("relu(a*b+c) d/da", g[0], -3.0, 0.0);
    report.close("relu(a*b+c) d/db", g[1], 2.0, 0.0);
    report.close("relu(a*b+c) d/dc", g[2], 1.0, 0.0);

    // L = x * w + b at x = 1, w = 0.5, b = 0.1: dL/dx = w, dL/dw = x, dL/db = 1.
    let (y, g) = gradient(tape, report, "x*w+b", [1.0, 0.5, 0.1], |[x, w, b]| {
        x * w + b
    });
    report.close("x*w+b value", y, 0.6, 1e-7);
    report.close("x*w+b d/dx", g[0], 0.5, 0.0);
    report.close("x*w+b d/dw", g[1], 1.0, 0.0);
    report.close("x*w+b d/db", g[2], 1.0, 0.0);

    // y = sin(x^2) at 2: dy/dx = cos(4) * 4 = -2.6145744834544478 (the lesson prints -2.615).
    let (_, g) = gradient(tape, report, "sin(x^2)", [2.0], |[x]| (x * x).sin());
    report.close("sin(x^2)' at 2", g[0], -2.614_574_5, 1e-6);
    report.close("sin(x^2)' at 2 vs the lesson's -2.615", g[0], -2.615, 2e-4);
    // The lesson's forward-mode walk-through of the same derivative, with a dual number.
    let fwd = forward(|[x]| (x * x).sin(), [2.0], 0);
    report.close("sin(x^2)' at 2, forward mode", fwd, -2.614_574_5, 1e-6);

    // Exercise 1: d/dx x^3 at 2 = 3 * 2^2 = 12, through powi and through products.
    let (_, g) = gradient(tape, report, "x^3", [2.0], |[x]| x.powi(3));
    report.close("d/dx x.powi(3) at 2", g[0], 12.0, 0.0);
    let (_, g) = gradient(tape, report, "x*x*x", [2.0], |[x]| x * x * x);
    report.close("d/dx x*x*x at 2", g[0], 12.0, 0.0);

    // Exercise 2: tanh'(0) = 1, tanh'(2) = 1 - tanh(2)^2 = 0.07065082485316443.
    let (_, g) = gradient(tape, report, "tanh", [0.0], |[x]| x.tanh());
    report.close("tanh'(0)", g[0], 1.0, 0.0);
    let (_, g) = gradient(tape, report, "tanh", [2.0], |[x]| x.tanh());
    report.close("tanh'(2)", g[0], 0.070_650_82, 1e-6);
    report.close("tanh'(2) vs the lesson's 0.0707", g[0], 0.0707, 1e-4);

    // Exercise 3: one neuron y = relu(w1 x1 + w2 x2 + b) at w = (0.5, -1), x = (2, 0.5), b = 0.1:
    // pre-activation 1 - 0.5 + 0.1 = 0.6 > 0, so dy/dw_i = x_i, dy/dx_i = w_i, dy/db = 1.
    let (y, g) = gradient(
        tape,
        report,
        "neuron",
        [0.5, 2.0, -1.0, 0.5, 0.1],
        |[w1, x1, w2, x2, b]| (w1 * x1 + w2 * x2 + b).relu(),
    );
    report.close("neuron value", y, 0.6, 1e-6);
    for (i, want) in [2.0, 0.5, 0.5, -1.0, 1.0].into_iter().enumerate() {
        report.close("neuron gradient", g[i], want, 0.0);
        // Exercise 4: a dual number gives the same derivatives as reverse mode.
        let fwd = forward(
            |[w1, x1, w2, x2, b]| (w1 * x1 + w2 * x2 + b).relu(),
            [0.5, 2.0, -1.0, 0.5, 0.1],
            i,
        );
        report.close("neuron gradient, forward mode", fwd, want, 0.0);
    }

    // The lesson's gradient check: tanh(x^3 + 2x + 1) at 0.5; by hand
    // (1 - tanh(2.125)^2) * (3 * 0.25 + 2) = 0.15252425581397372.
    let (_, g) = gradient(tape, report, "tanh(x^3+2x+1)", [0.5], |[x]| {
        (x.powi(3) + x * 2.0 + 1.0).tanh()
    });
    report.close("tanh(x^3+2x+1)' at 0.5", g[0], 0.152_524_26, 1e-6);
    let fd = central_difference(|x| Number::tanh(x * x * x + 2.0 * x + 1.0), 0.5, 1e-2);
    report.close("tanh(x^3+2x+1)' vs central difference", g[0], fd, 1e-3);

    // The article's check: f(x) = x^3 - 2x + 1 at -2, -0.5, 0, 1, 3 against 3x^2 - 2 and against
    // central differences. The article uses h = 1e-5 and a tolerance of 1e-4 in f64; in f32,
    // rounding would swamp such a small step, so h = 1e-2 (the truncation error of a cubic is
    // exactly h^2 = 1e-4) and the tolerance is 1e-3.
    for x0 in [-2.0f32, -0.5, 0.0, 1.0, 3.0] {
        let (_, g) = gradient(tape, report, "x^3-2x+1", [x0], |[x]| {
            x.powi(3) - x * 2.0 + 1.0
        });
        report.close("x^3-2x+1 vs 3x^2-2", g[0], 3.0 * x0 * x0 - 2.0, 1e-6);
        let fd = central_difference(|x| x * x * x - 2.0 * x + 1.0, x0, 1e-2);
        report.close("x^3-2x+1 vs central difference", g[0], fd, 1e-3);
    }

    hprintln!(
        "seed examples: {} checks, {} failed",
        report.passed() - passed_before + (report.failed() - before),
        report.failed() - before
    );
}

/// A differentiable function of two variables, written once against [`Number`].
pub trait Function {
    const NAME: &'static str;
    fn eval<T: Number>(x: [T; 2]) -> T;
}

macro_rules! functions {
    ($($name:ident: |$x:ident, $y:ident| $body:expr;)*) => {
        $(
            struct $name;
            impl Function for $name {
                const NAME: &'static str = stringify!($body);
                fn eval<T: Number>([$x, $y]: [T; 2]) -> T {
                    $body
                }
            }
        )*
    };
}

fn c<T: Number>(v: f64) -> T {
    T::from_f64(v)
}

// Between them they use every operation the tape records. The grid below keeps every point at
// least 0.05 away from the kinks (x = 0, x = y), farther than the finite-difference stencil reaches.
functions! {
    SinExpTanh: |x, y| x.sin() * y.exp() + (x * y).tanh();
    NormOverSigmoid: |x, y| (x * x + y * y + c(0.1)).sqrt() / (c::<T>(1.0) + x.sigmoid());
    CubicCos: |x, y| (x.powi(3) - c::<T>(2.0) * x + c(1.0)) * y.cos();
    SoftplusTan: |x, y| x.softplus() * y.tan() - x.powi(-2);
    Powers: |x, y| (x * x + c(0.5)).powf(1.5) + (x * x + c(0.5)).pow(y);
    MaxMinLeaky: |x, y| x.max(y) * x.min(y) + x.leaky_relu(0.1) - y.relu();
    LogExpDiv: |x, y| ((x * x + c(1.0)).ln() + y).exp() / (c::<T>(2.0) + y * y);
    AbsRelu: |x, y| x.relu() * y - (x - y).abs() + (-x).exp() * c(0.25);
}

/// Points where every function above is smooth.
const GRID_X: [f32; 6] = [-1.3, -0.4, 0.35, 0.8, 1.45, 2.2];
const GRID_Y: [f32; 3] = [-0.75, 0.3, 0.95];

/// Relative tolerance of reverse mode against the five-point difference in `f32`.
const FD_TOL: f32 = 5e-4;
/// Relative tolerance of reverse against forward mode: both are exact up to `f32` rounding, in
/// a different order of operations.
const FORWARD_TOL: f32 = 4e-6;

/// Worst error seen, to report how much room the tolerance leaves.
#[derive(Default)]
struct Worst(f32);

impl Worst {
    fn see(&mut self, got: f32, want: f32) {
        let scale = if want.abs() > 1.0 { want.abs() } else { 1.0 };
        let e = (got - want).abs() / scale;
        // NaN counts as the worst error.
        if e > self.0 || e.is_nan() {
            self.0 = e;
        }
    }
}

/// Worst errors of reverse mode against finite differences and against forward mode.
#[derive(Default)]
struct Worsts {
    fd: Worst,
    forward: Worst,
}

/// Reverse vs forward vs finite differences for one partial derivative.
fn agree(
    report: &mut Report,
    worst: &mut Worsts,
    name: &str,
    reverse: f32,
    forward: f32,
    fd: f32,
) -> bool {
    worst.fd.see(reverse, fd);
    worst.forward.see(reverse, forward);
    let a = report.close(name, reverse, forward, FORWARD_TOL);
    let b = report.close(name, reverse, fd, FD_TOL);
    a && b
}

fn check_function<F: Function>(tape: &mut DeviceTape, report: &mut Report, worst: &mut Worsts) {
    for x in GRID_X {
        for y in GRID_Y {
            let p = [x, y];
            let (value, g) = gradient(tape, report, F::NAME, p, |v| F::eval(v));
            report.close(F::NAME, value, F::eval::<f32>(p), 0.0);
            for (i, gi) in g.into_iter().enumerate() {
                let fwd = forward(F::eval, p, i);
                let fd = finite_difference(F::eval::<f32>, p, i);
                if !agree(report, worst, F::NAME, gi, fwd, fd) {
                    hprintln!("  at ({}, {}), d/dx{}", x, y, i);
                }
            }
        }
    }
}

/// Reverse mode against finite differences on a grid, for functions covering every operation,
/// and for the XOR network's loss with respect to all its parameters.
pub fn gradient_batch(tape: &mut DeviceTape, report: &mut Report) {
    let before = report.failed();
    let passed_before = report.passed();
    let mut worst = Worsts::default();
    check_function::<SinExpTanh>(tape, report, &mut worst);
    check_function::<NormOverSigmoid>(tape, report, &mut worst);
    check_function::<CubicCos>(tape, report, &mut worst);
    check_function::<SoftplusTan>(tape, report, &mut worst);
    check_function::<Powers>(tape, report, &mut worst);
    check_function::<MaxMinLeaky>(tape, report, &mut worst);
    check_function::<LogExpDiv>(tape, report, &mut worst);
    check_function::<AbsRelu>(tape, report, &mut worst);

    // The XOR loss at the initial parameters, all 17 partial derivatives.
    let params = crate::xor::initial_parameters();
    let (_, g) = gradient(tape, report, "xor loss", params, |p| crate::xor::loss(&p));
    for (i, gi) in g.into_iter().enumerate() {
        let fwd = forward(|p| crate::xor::loss(&p), params, i);
        let fd = finite_difference(|p| crate::xor::loss(&p), params, i);
        agree(report, &mut worst, "xor loss gradient", gi, fwd, fd);
    }

    hprintln!(
        "gradient checks (reverse vs forward vs finite differences): {} checks, {} failed",
        report.passed() - passed_before + (report.failed() - before),
        report.failed() - before,
    );
    hprintln!(
        "  worst relative difference: reverse vs forward {}, reverse vs finite differences {}",
        worst.forward.0,
        worst.fd.0
    );
}
