//! Derivatives checked on the device, in `f32`: the seeds' worked examples against their
//! hand-derived values, then a batch of functions where reverse mode (the tape), forward mode
//! (dual numbers, whose rules are written independently of the tape's) and finite differences
//! must agree.

use autograd_core::testkit::{Seed, EXAMPLES};
use autograd_core::{Dual, Function as _, Number, Op, TapeError, Var};
use autograd_macros::stmt;
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

/// The most inputs of a seed example (the neuron's five).
const SEED_INPUTS: usize = 5;

/// `f32` rounding allowed on top of an example's own tolerance (relative, as `Report::close`):
/// `1 - tanh(2.125)^2` loses about 1e-6 of its value to cancellation.
const SEED_ROUNDING: f32 = 64.0 * f32::EPSILON;

/// The worked examples of the seed lesson (Portuguese) and the seed article (Indonesian), from
/// the core's testkit: each value and every partial derivative by reverse mode (the tape) and by
/// forward mode (a dual number per input, the lesson's exercise 4), against the numbers the
/// documents give or that follow from them by hand; and the seeds' own gradient checks against
/// central differences.
// Not inlined into `main`: its frame would stay on the stack under the XOR training that follows.
#[inline(never)]
pub fn seed_examples(tape: &mut DeviceTape, report: &mut Report) {
    let before = report.failed();
    let passed_before = report.passed();

    for example in &EXAMPLES {
        let (name, f, n) = (example.name, example.function, example.x.len());
        let mut x = [0.0f32; SEED_INPUTS];
        for (xi, &v) in x.iter_mut().zip(example.x) {
            *xi = v as f32;
        }
        let tol = example.tolerance as f32 + SEED_ROUNDING;
        let (y, g) = gradient(tape, report, name, x, |v| f.eval(&v[..n]));
        if let Some(value) = example.value {
            report.close(name, y, value as f32, tol);
        }
        for (i, &want) in example.gradient.iter().enumerate() {
            let fwd = forward(|v| f.eval(&v[..n]), x, i);
            let reverse_ok = report.close(name, g[i], want as f32, tol);
            if !(report.close(name, fwd, want as f32, tol) && reverse_ok) {
                hprintln!("  d/dx{} (reverse {}, forward {})", i, g[i], fwd);
            }
        }
        // The seeds' gradient checks: the article's of x^3 - 2x + 1 (h = 1e-5, tolerance 1e-4
        // in f64) and the lesson's of tanh(x^3 + 2x + 1). In f32, rounding would swamp such a
        // small step, so h = 1e-2 (the truncation error on the cubic is exactly h^2 = 1e-4) and
        // the tolerance is 1e-3.
        if matches!(f, Seed::Cubic | Seed::TanhPoly) {
            let fd = central_difference(|v| f.eval(&[v]), x[0], 1e-2);
            report.close(name, g[0], fd, 1e-3);
        }
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
                // Not inlined: inlined into each of the five finite-difference evaluations and
                // the checks of each mode, the functions would not fit the boards' 256 KiB of flash.
                #[inline(never)]
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
    // The elementary functions: arguments kept inside their domains on the grid (|0.4 x| and
    // |0.9 y| below 1, x^2 + 0.5 positive; cbrt's argument, x, and atan2's point, (x, y), are
    // never 0 on the grid).
    Heading: |x, y| y.atan2(x) + x.hypot(y) * (x * c(0.4)).asin() - (y * c(0.9)).acos();
    Hyperbolic: |x, y| x.sinh() * y.cosh() + (x * y).atan() + x.cbrt() * y;
    Logarithms: |x, y| (x * x + c(0.5)).log2() * y.exp2() - (y * y + c(0.25)).log10() * x;
    // The n-ary statements: `mul_add` of three recorded values (with fewer it is `x y + b`).
    Nary: |x, y| Number::sum(&[x.square(), x.mul_add(y, x * y + y.sin()), T::dot(&[x, y], &[y.exp(), x])]);
    // Three of the above with each expression one statement (`stmt!`: its partials derived when
    // compiling, on the part's scalar).
    SinExpTanhStatement: |x, y| stmt!(x.sin() * y.exp() + (x * y).tanh());
    PowersStatement: |x, y| stmt!((x * x + 0.5).powf(1.5) + (x * x + 0.5).pow(y));
    LogExpDivStatement: |x, y| stmt!(((x * x + 1.0).ln() + y).exp() / (2.0 + y * y));
}

/// Which function above exercises each operation of the core's table, and the text of that
/// function's body that shows it. An exhaustive match: an operation added to the table fails to
/// compile here until a function uses it, and the constant below fails to compile if the body
/// named does not contain the text.
const fn exercised_by(op: Op) -> (&'static str, &'static str) {
    match op {
        Op::Leaf => (SinExpTanh::NAME, "x"),
        Op::Sum => (Nary::NAME, "Number::sum("),
        Op::Dot => (Nary::NAME, "T::dot("),
        Op::MulAdd => (Nary::NAME, ".mul_add("),
        Op::Add => (SinExpTanh::NAME, " + "),
        Op::Sub => (CubicCos::NAME, " - "),
        Op::Mul => (SinExpTanh::NAME, "x * y"),
        Op::Div => (LogExpDiv::NAME, " / "),
        Op::Pow => (Powers::NAME, ".pow(y)"),
        Op::Max => (MaxMinLeaky::NAME, ".max("),
        Op::Min => (MaxMinLeaky::NAME, ".min("),
        Op::Atan2 => (Heading::NAME, ".atan2("),
        Op::Hypot => (Heading::NAME, ".hypot("),
        Op::Neg => (AbsRelu::NAME, "(-x)"),
        Op::Scale => (CubicCos::NAME, "c::<T>(2.0) * x"),
        Op::Shift => (NormOverSigmoid::NAME, "+ c(0.1)"),
        Op::Square => (Nary::NAME, ".square()"),
        Op::Powi => (CubicCos::NAME, ".powi(3)"),
        Op::Powf => (Powers::NAME, ".powf(1.5)"),
        Op::Exp => (SinExpTanh::NAME, ".exp()"),
        Op::Ln => (LogExpDiv::NAME, ".ln()"),
        Op::Sqrt => (NormOverSigmoid::NAME, ".sqrt()"),
        Op::Sin => (SinExpTanh::NAME, ".sin()"),
        Op::Cos => (CubicCos::NAME, ".cos()"),
        Op::Tan => (SoftplusTan::NAME, ".tan()"),
        Op::Tanh => (SinExpTanh::NAME, ".tanh()"),
        Op::Sigmoid => (NormOverSigmoid::NAME, ".sigmoid()"),
        Op::Relu => (MaxMinLeaky::NAME, ".relu()"),
        Op::LeakyRelu => (MaxMinLeaky::NAME, ".leaky_relu("),
        Op::Abs => (AbsRelu::NAME, ".abs()"),
        Op::Softplus => (SoftplusTan::NAME, ".softplus()"),
        Op::Atan => (Hyperbolic::NAME, ".atan()"),
        Op::Asin => (Heading::NAME, ".asin()"),
        Op::Acos => (Heading::NAME, ".acos()"),
        Op::Sinh => (Hyperbolic::NAME, ".sinh()"),
        Op::Cosh => (Hyperbolic::NAME, ".cosh()"),
        Op::Log2 => (Logarithms::NAME, ".log2()"),
        Op::Log10 => (Logarithms::NAME, ".log10()"),
        Op::Exp2 => (Logarithms::NAME, ".exp2()"),
        Op::Cbrt => (Hyperbolic::NAME, ".cbrt()"),
    }
}

/// `true` if `text` contains `part` (a `const fn`, for the check below).
const fn contains(text: &str, part: &str) -> bool {
    let (t, p) = (text.as_bytes(), part.as_bytes());
    let mut i = 0;
    while i + p.len() <= t.len() {
        let mut j = 0;
        while j < p.len() && t[i + j] == p[j] {
            j += 1;
        }
        if j == p.len() {
            return true;
        }
        i += 1;
    }
    false
}

/// Every operation's claimed function really contains it (checked at compile time).
const _: () = {
    let mut i = 0;
    while i < Op::ALL.len() {
        let (body, text) = exercised_by(Op::ALL[i]);
        assert!(
            contains(body, text),
            "an operation's function does not use it"
        );
        i += 1;
    }
};

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
    check_function::<Heading>(tape, report, &mut worst);
    check_function::<Hyperbolic>(tape, report, &mut worst);
    check_function::<Logarithms>(tape, report, &mut worst);
    check_function::<Nary>(tape, report, &mut worst);
    check_function::<SinExpTanhStatement>(tape, report, &mut worst);
    check_function::<PowersStatement>(tape, report, &mut worst);
    check_function::<LogExpDivStatement>(tape, report, &mut worst);

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
