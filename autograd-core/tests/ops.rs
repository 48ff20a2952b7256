//! Every operation against its hand-derived derivative at several points, in f32 and f64, and
//! the kink conventions exactly at the kinks. The references are written out with plain libm
//! calls, independently of the engine's derivative rules.

use autograd_core::{Dual, Number, Scalar, Tape, TapeError, Var};

/// d/dx of a one-input function recorded on a fresh tape.
fn d1<S: Scalar>(x: f64, f: impl for<'t> Fn(Var<'t, S>) -> Var<'t, S>) -> (f64, f64) {
    let tape = Tape::<S, 16>::new();
    let v = tape.var(S::from_f64(x));
    let y = f(v);
    let g = tape.backward(y).expect("recorded").wrt(v);
    (y.value().to_f64(), g.to_f64())
}

/// (dz/dx, dz/dy) of a two-input function.
fn d2<S: Scalar>(
    x: f64,
    y: f64,
    f: impl for<'t> Fn(Var<'t, S>, Var<'t, S>) -> Var<'t, S>,
) -> (f64, f64, f64) {
    let tape = Tape::<S, 16>::new();
    let (a, b) = (tape.var(S::from_f64(x)), tape.var(S::from_f64(y)));
    let z = f(a, b);
    let g = tape.backward(z).expect("recorded");
    (z.value().to_f64(), g.wrt(a).to_f64(), g.wrt(b).to_f64())
}

fn assert_close(what: &str, got: f64, want: f64, rtol: f64) {
    let tol = rtol * want.abs().max(1.0);
    assert!(
        (got - want).abs() <= tol || (got.is_nan() && want.is_nan()) || got == want,
        "{what}: got {got}, want {want} (tol {tol})"
    );
}

const POINTS: [f64; 7] = [-2.5, -1.0, -0.3, 0.2, 0.7, 1.5, 3.0];
const POSITIVE: [f64; 5] = [0.05, 0.5, 1.0, 2.0, 10.0];

fn unary_table<S: Scalar>(rtol: f64) {
    use libm::{cos, exp, log, sin, sqrt, tan, tanh};
    type Rule = (&'static str, fn(f64) -> f64, fn(f64) -> f64);
    let on_all: [Rule; 11] = [
        ("exp", exp, exp),
        ("sin", sin, cos),
        ("cos", cos, |x| -sin(x)),
        ("tan", tan, |x| 1.0 / (cos(x) * cos(x))),
        ("tanh", tanh, |x| 1.0 - tanh(x) * tanh(x)),
        (
            "sigmoid",
            |x| 1.0 / (1.0 + exp(-x)),
            |x| exp(-x) / ((1.0 + exp(-x)) * (1.0 + exp(-x))),
        ),
        ("softplus", |x| log(1.0 + exp(x)), |x| 1.0 / (1.0 + exp(-x))),
        ("neg", |x| -x, |_| -1.0),
        ("powi3", |x| x * x * x, |x| 3.0 * x * x),
        ("powi-2", |x| 1.0 / (x * x), |x| -2.0 / (x * x * x)),
        ("abs", f64::abs, f64::signum),
    ];
    for (name, f, df) in on_all {
        for &x in &POINTS {
            let (y, d) = d1::<S>(x, |v| match name {
                "exp" => v.exp(),
                "sin" => v.sin(),
                "cos" => v.cos(),
                "tan" => v.tan(),
                "tanh" => v.tanh(),
                "sigmoid" => v.sigmoid(),
                "softplus" => v.softplus(),
                "neg" => -v,
                "powi3" => v.powi(3),
                "powi-2" => v.powi(-2),
                _ => v.abs(),
            });
            // Reference evaluated at the point as the scalar type represents it.
            let xs = S::from_f64(x).to_f64();
            assert_close(&format!("{name}({x}) value"), y, f(xs), rtol);
            assert_close(&format!("{name}'({x})"), d, df(xs), rtol);
        }
    }
    type PosRule = (&'static str, fn(f64) -> f64, fn(f64) -> f64);
    let on_positive: [PosRule; 3] = [
        ("ln", log, |x| 1.0 / x),
        ("sqrt", sqrt, |x| 0.5 / sqrt(x)),
        (
            "powf2.5",
            |x| libm::pow(x, 2.5),
            |x| 2.5 * libm::pow(x, 1.5),
        ),
    ];
    for (name, f, df) in on_positive {
        for &x in &POSITIVE {
            let (y, d) = d1::<S>(x, |v| match name {
                "ln" => v.ln(),
                "sqrt" => v.sqrt(),
                _ => v.powf(S::from_f64(2.5)),
            });
            let xs = S::from_f64(x).to_f64();
            assert_close(&format!("{name}({x}) value"), y, f(xs), rtol);
            assert_close(&format!("{name}'({x})"), d, df(xs), rtol);
        }
    }
    for &x in &POINTS {
        let xs = S::from_f64(x).to_f64();
        let (y, d) = d1::<S>(x, |v| v.relu());
        assert_eq!((y, d), if x > 0.0 { (xs, 1.0) } else { (0.0, 0.0) });
        let (_, d) = d1::<S>(x, |v| v.leaky_relu(S::from_f64(0.125)));
        assert_eq!(d, if x > 0.0 { 1.0 } else { 0.125 });
    }
}

fn binary_table<S: Scalar>(rtol: f64) {
    let pairs = [(1.5, -0.5), (-2.0, 3.0), (0.25, 4.0), (-1.0, -7.5)];
    for &(x, y) in &pairs {
        let (xs, ys) = (S::from_f64(x).to_f64(), S::from_f64(y).to_f64());
        type Triple = (f64, f64, f64);
        let cases: [(&str, Triple, Triple); 6] = [
            ("add", d2::<S>(x, y, |a, b| a + b), (xs + ys, 1.0, 1.0)),
            ("sub", d2::<S>(x, y, |a, b| a - b), (xs - ys, 1.0, -1.0)),
            ("mul", d2::<S>(x, y, |a, b| a * b), (xs * ys, ys, xs)),
            (
                "div",
                d2::<S>(x, y, |a, b| a / b),
                (xs / ys, 1.0 / ys, -xs / (ys * ys)),
            ),
            (
                "max",
                d2::<S>(x, y, |a, b| a.max(b)),
                if xs > ys {
                    (xs, 1.0, 0.0)
                } else {
                    (ys, 0.0, 1.0)
                },
            ),
            (
                "min",
                d2::<S>(x, y, |a, b| a.min(b)),
                if xs < ys {
                    (xs, 1.0, 0.0)
                } else {
                    (ys, 0.0, 1.0)
                },
            ),
        ];
        for (name, got, want) in cases {
            assert_close(&format!("{name}({x},{y})"), got.0, want.0, rtol);
            assert_close(&format!("d{name}/dx({x},{y})"), got.1, want.1, rtol);
            assert_close(&format!("d{name}/dy({x},{y})"), got.2, want.2, rtol);
        }
    }
    // pow(x, y) = x^y: d/dx = y x^(y-1), d/dy = ln(x) x^y, on x > 0.
    for &(x, y) in &[(0.5, 2.0), (2.0, -1.5), (3.0, 0.5), (1.0, 4.0)] {
        let (xs, ys) = (S::from_f64(x).to_f64(), S::from_f64(y).to_f64());
        let (z, dx, dy) = d2::<S>(x, y, |a, b| a.pow(b));
        let p = libm::pow(xs, ys);
        assert_close("pow", z, p, rtol);
        assert_close("dpow/dx", dx, ys * libm::pow(xs, ys - 1.0), rtol);
        assert_close("dpow/dy", dy, libm::log(xs) * p, rtol);
    }
    // sum and dot over slices.
    let tape = Tape::<S, 32>::new();
    let w: [Var<S>; 3] = [1.0, -2.0, 0.5].map(|v| tape.var(S::from_f64(v)));
    let x: [Var<S>; 3] = [3.0, 0.25, -4.0].map(|v| tape.var(S::from_f64(v)));
    let y = Var::dot(&w, &x).unwrap() + Var::sum(&w);
    let g = tape.backward(y).unwrap();
    // w.x = 3 - 0.5 - 2 = 0.5, sum(w) = -0.5
    assert_eq!(y.value().to_f64(), 0.0);
    for i in 0..3 {
        assert_eq!(g.wrt(w[i]), x[i].value() + S::ONE);
        assert_eq!(g.wrt(x[i]), w[i].value());
    }
}

#[test]
fn unary_operations_match_hand_derived_derivatives_f64() {
    unary_table::<f64>(1e-14);
}

#[test]
fn unary_operations_match_hand_derived_derivatives_f32() {
    unary_table::<f32>(2e-6);
}

#[test]
fn binary_operations_match_hand_derived_derivatives_f64() {
    binary_table::<f64>(1e-14);
}

#[test]
fn binary_operations_match_hand_derived_derivatives_f32() {
    binary_table::<f32>(2e-6);
}

#[test]
fn kink_conventions_at_the_kinks() {
    assert_eq!(d1::<f64>(0.0, |v| v.relu()), (0.0, 0.0));
    assert_eq!(d1::<f32>(0.0, |v| v.relu()), (0.0, 0.0));
    assert_eq!(d1::<f64>(0.0, |v| v.abs()), (0.0, 0.0));
    assert_eq!(d1::<f32>(-0.0, |v| v.abs()), (0.0, 0.0));
    assert_eq!(d1::<f64>(0.0, |v| v.leaky_relu(0.01)).1, 0.01);
    assert_eq!(d2::<f64>(2.0, 2.0, |a, b| a.max(b)), (2.0, 0.5, 0.5));
    assert_eq!(d2::<f32>(-1.0, -1.0, |a, b| a.min(b)), (-1.0, 0.5, 0.5));
    // max(x, x) is x: the two halves add back to 1.
    assert_eq!(d1::<f64>(3.0, |v| v.max(v)), (3.0, 1.0));
    // Powers at 0: constant exponent 0, and d/dy of 0^y for y >= 0 (PyTorch's rule).
    assert_eq!(d1::<f64>(0.0, |v| v.powi(0)), (1.0, 0.0));
    assert_eq!(d1::<f64>(0.0, |v| v.powi(2)), (0.0, 0.0));
    assert_eq!(d2::<f64>(0.0, 2.0, |a, b| a.pow(b)), (0.0, 0.0, 0.0));
}

#[test]
fn saturating_functions_stay_finite_for_large_arguments() {
    // A naive tanh = (e^2x - 1)/(e^2x + 1) gives NaN at x = 1000 (micrograd's bug).
    for &x in &[1000.0, -1000.0, 1e300, -1e300] {
        let (t, dt) = d1::<f64>(x, |v| v.tanh());
        assert_eq!((t, dt), (x.signum(), 0.0));
        let (s, ds) = d1::<f64>(x, |v| v.sigmoid());
        assert_eq!((s, ds), (if x > 0.0 { 1.0 } else { 0.0 }, 0.0));
        let (sp, dsp) = d1::<f64>(x, |v| v.softplus());
        assert_eq!((sp, dsp), if x > 0.0 { (x, 1.0) } else { (0.0, 0.0) });
    }
    let (t, dt) = d1::<f32>(100.0, |v| v.tanh());
    assert_eq!((t, dt), (1.0, 0.0));
    let (sp, dsp) = d1::<f32>(-200.0, |v| v.softplus());
    assert_eq!((sp, dsp), (0.0, 0.0));
}

#[test]
fn constants_on_either_side_of_every_operator() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let x = tape.var(3.0);
    let cases = [
        (2.0 * x, 6.0, 2.0),
        (x * 2.0, 6.0, 2.0),
        (x / 4.0, 0.75, 0.25),
        (6.0 / x, 2.0, -6.0 / 9.0),
        (1.0 - x, -2.0, -1.0),
        (x - 1.0, 2.0, 1.0),
        (1.0 + x, 4.0, 1.0),
        (x + 1.0, 4.0, 1.0),
        (-x, -3.0, -1.0),
    ];
    for (i, (y, value, slope)) in cases.into_iter().enumerate() {
        assert_eq!(y.value(), value, "case {i}");
        let d = tape.backward(y)?.wrt(x);
        assert!((d - slope).abs() < 1e-15, "case {i}: {d} vs {slope}");
    }
    Ok(())
}

#[test]
fn extreme_integer_exponents_do_not_panic() {
    // |n| beyond what a node stores inline is recorded as powf; i32::MIN must not overflow.
    let (y, d) = d1::<f64>(1.0, |v| v.powi(i32::MIN));
    assert_eq!((y, d), (1.0, i32::MIN as f64));
    let (y, d) = d1::<f64>(1.0, |v| v.powi(i32::MAX));
    assert_eq!((y, d), (1.0, i32::MAX as f64));
    let (y, d) = d1::<f64>(-1.0, |v| v.powi(1 << 27));
    assert_eq!((y, d), (1.0, -((1 << 27) as f64)));
}

/// `powf` at a negative base takes its derivative's sign from the value (`c z / x`), because
/// `c - 1` can lose the parity of a huge integer `c`: at x = -1, c = 2^53 + 2 (even),
/// `c - 1` rounds to an even number, so `c x^(c - 1)` would give +c instead of -c.
#[test]
fn powf_at_a_negative_base_keeps_the_sign_of_its_derivative() {
    let c = 9_007_199_254_740_994.0_f64; // 2^53 + 2
    assert_eq!(c - 1.0, c - 2.0, "c - 1 is not representable");
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(-1.0);
    let y = x.powf(c);
    assert_eq!(y.value(), 1.0);
    assert_eq!(tape.backward(y).unwrap().wrt(x), -c);
    let d = autograd_core::Number::powf(autograd_core::Dual::variable(-1.0), c);
    assert_eq!((d.re, d.eps), (1.0, -c));
}

/// The same for `pow` with a variable exponent, at the same point, in both modes.
#[test]
fn pow_at_a_negative_base_keeps_the_sign_of_its_derivative() {
    let c = 9_007_199_254_740_994.0_f64; // 2^53 + 2
    let tape = Tape::<f64, 8>::new();
    let (x, e) = (tape.var(-1.0), tape.var(c));
    let y = x.pow(e);
    assert_eq!(tape.backward(y).unwrap().wrt(x), -c);
    let d = autograd_core::Number::pow(
        autograd_core::Dual::variable(-1.0),
        autograd_core::Dual::constant(c),
    );
    assert_eq!((d.re, d.eps), (1.0, -c));
}

/// The same branch (`c - 1` rounds) at a base other than -1, where `c z / x` and `c z x`
/// differ (at -1 they agree, so the tests above cannot tell them apart), and at 0, which is not
/// a negative base: there the derivative is `c 0^(c-1) = 0`, not `c z / x = 0 / 0`. The tape's
/// rule (`op.rs`), forward mode's (`dual.rs`, also `DualVec`'s) and `pow` with a recorded
/// exponent, each against the reference.
#[test]
fn powf_of_a_huge_integer_exponent_near_minus_one_and_at_zero() {
    use autograd_core::DualVec;
    let c = 9_007_199_254_740_994.0_f64; // 2^53 + 2: c - 1 rounds
    let x = -(1.0 - 2.0_f64.powi(-44));
    // -c (1 - 2^-44)^(c-1), by Python's `decimal` at 60 digits: `-(c * ((c - 1) * a.ln()).exp())`
    // with `a = 1 - 2^-44`, rounded to f64 (`c z x` would be 1.1e-13 off, relatively).
    let expected = -3.942893400600362e-207;
    let close = |g: f64, what: &str| {
        assert!(
            (g - expected).abs() <= 4.0 * f64::EPSILON * expected.abs(),
            "{what}: {g:e} vs {expected:e}"
        );
    };
    for at in [x, 0.0] {
        let tape = Tape::<f64, 8>::new();
        let v = tape.var(at);
        let g = tape.backward(v.powf(c)).unwrap().wrt(v);
        let tape = Tape::<f64, 8>::new();
        let (v, e) = (tape.var(at), tape.var(c));
        let g_pow = tape.backward(v.pow(e)).unwrap().wrt(v);
        let dual = Number::powf(Dual::variable(at), c).eps;
        let dual_pow = Number::pow(Dual::variable(at), Dual::constant(c)).eps;
        let vec = Number::powf(DualVec::<f64, 2>::variable(at, 1), c).eps[1];
        let found = [
            ("tape powf", g),
            ("tape pow", g_pow),
            ("Dual powf", dual),
            ("Dual pow", dual_pow),
            ("DualVec powf", vec),
        ];
        for (what, g) in found {
            if at == 0.0 {
                assert_eq!(g, 0.0, "{what} at 0");
            } else {
                close(g, what);
            }
        }
    }
}

/// (value, d/dx) of a one-input function by forward mode (one dual number).
fn f1<S: Scalar>(x: f64, f: impl Fn(Dual<S>) -> Dual<S>) -> (f64, f64) {
    let y = f(Dual::variable(S::from_f64(x)));
    (y.re.to_f64(), y.eps.to_f64())
}

/// (value, d/dx, d/dy) of a two-input function by forward mode (two passes).
fn f2<S: Scalar>(x: f64, y: f64, f: impl Fn(Dual<S>, Dual<S>) -> Dual<S>) -> (f64, f64, f64) {
    let (a, b) = (S::from_f64(x), S::from_f64(y));
    let dx = f(Dual::variable(a), Dual::constant(b));
    let dy = f(Dual::constant(a), Dual::variable(b));
    (dx.re.to_f64(), dx.eps.to_f64(), dy.eps.to_f64())
}

/// The elementary functions embedded code needs, at points where the derivative is a number one
/// can work out by hand, in reverse and forward mode.
fn elementary_functions_by_hand<S: Scalar>(rtol: f64) {
    use core::f64::consts::{FRAC_PI_4, FRAC_PI_6, LN_10, LN_2};
    // (name, x, value, derivative), each derived beside it.
    let unary: [(&str, f64, f64, f64); 14] = [
        // atan' = 1 / (1 + x^2): 1/2 at 1, 1/5 at -2.
        ("atan", 1.0, FRAC_PI_4, 0.5),
        ("atan", -2.0, -libm::atan(2.0), 0.2),
        // asin' = 1 / sqrt(1 - x^2): at 0.6, sqrt(1 - 0.36) = 0.8, so 1.25; at 0.5, 2/sqrt(3).
        ("asin", 0.6, libm::asin(0.6), 1.25),
        ("asin", 0.5, FRAC_PI_6, 2.0 / libm::sqrt(3.0)),
        // acos' = -asin'.
        ("acos", 0.6, libm::acos(0.6), -1.25),
        (
            "acos",
            -0.5,
            2.0 * core::f64::consts::FRAC_PI_3,
            -2.0 / libm::sqrt(3.0),
        ),
        // sinh' = cosh, cosh' = sinh: at 0, 1 and 0; at ln 2, (2 ∓ 1/2) / 2.
        ("sinh", 0.0, 0.0, 1.0),
        ("sinh", LN_2, 0.75, 1.25),
        ("cosh", 0.0, 1.0, 0.0),
        ("cosh", LN_2, 1.25, 0.75),
        // log2' = 1 / (x ln 2), log10' = 1 / (x ln 10).
        ("log2", 8.0, 3.0, 1.0 / (8.0 * LN_2)),
        ("log10", 100.0, 2.0, 1.0 / (100.0 * LN_10)),
        // exp2' = ln 2 * 2^x.
        ("exp2", 3.0, 8.0, 8.0 * LN_2),
        // cbrt' = 1 / (3 cbrt(x)^2): 1/12 at 8.
        ("cbrt", 8.0, 2.0, 1.0 / 12.0),
    ];
    fn apply<T: Number>(name: &str, v: T) -> T {
        match name {
            "atan" => v.atan(),
            "asin" => v.asin(),
            "acos" => v.acos(),
            "sinh" => v.sinh(),
            "cosh" => v.cosh(),
            "log2" => v.log2(),
            "log10" => v.log10(),
            "exp2" => v.exp2(),
            _ => v.cbrt(),
        }
    }
    for (name, x, value, slope) in unary {
        for (mode, (y, d)) in [
            ("reverse", d1::<S>(x, |v| apply(name, v))),
            ("forward", f1::<S>(x, |v| apply(name, v))),
        ] {
            assert_close(&format!("{name}({x}) {mode}"), y, value, rtol);
            assert_close(&format!("{name}'({x}) {mode}"), d, slope, rtol);
        }
    }
    // cbrt of a negative number is real: cbrt(-27) = -3, derivative 1/27.
    assert_close(
        "cbrt(-27)",
        d1::<S>(-27.0, |v| v.cbrt()).1,
        1.0 / 27.0,
        rtol,
    );
    assert_close(
        "cbrt(-27)",
        f1::<S>(-27.0, |v| v.cbrt()).1,
        1.0 / 27.0,
        rtol,
    );
    // atan2(y, x) at (3, 4): r^2 = 25, d/dy = x / r^2 = 0.16, d/dx = -y / r^2 = -0.12;
    // at (-1, -1), the angle -3π/4, d/dy = -0.5, d/dx = 0.5.
    // hypot at (3, 4) = 5, partials 3/5 and 4/5; at (-5, 12) = 13, partials -5/13, 12/13.
    let binary: [(&str, f64, f64, [f64; 3]); 4] = [
        ("atan2", 3.0, 4.0, [libm::atan2(3.0, 4.0), 0.16, -0.12]),
        ("atan2", -1.0, -1.0, [-3.0 * FRAC_PI_4, -0.5, 0.5]),
        ("hypot", 3.0, 4.0, [5.0, 0.6, 0.8]),
        ("hypot", -5.0, 12.0, [13.0, -5.0 / 13.0, 12.0 / 13.0]),
    ];
    fn apply2<T: Number>(name: &str, a: T, b: T) -> T {
        if name == "atan2" {
            a.atan2(b)
        } else {
            a.hypot(b)
        }
    }
    for (name, x, y, want) in binary {
        for (mode, got) in [
            ("reverse", d2::<S>(x, y, |a, b| apply2(name, a, b))),
            ("forward", f2::<S>(x, y, |a, b| apply2(name, a, b))),
        ] {
            assert_close(&format!("{name}({x}, {y}) {mode}"), got.0, want[0], rtol);
            assert_close(
                &format!("d{name}/dx({x}, {y}) {mode}"),
                got.1,
                want[1],
                rtol,
            );
            assert_close(
                &format!("d{name}/dy({x}, {y}) {mode}"),
                got.2,
                want[2],
                rtol,
            );
        }
    }
}

#[test]
fn elementary_functions_match_hand_derived_derivatives_f64() {
    elementary_functions_by_hand::<f64>(1e-15);
}

#[test]
fn elementary_functions_match_hand_derived_derivatives_f32() {
    elementary_functions_by_hand::<f32>(2e-7);
}

#[test]
fn elementary_functions_at_their_bounds() {
    // Infinite derivatives at a finite input, as sqrt at 0: +inf (the tape writes the statement
    // labelled with its operation, where NaN provenance finds it).
    let inf = f64::INFINITY;
    assert_eq!(d1::<f64>(0.0, |v| v.cbrt()), (0.0, inf));
    assert_eq!(f1::<f64>(0.0, |v| v.cbrt()), (0.0, inf));
    assert_eq!(d1::<f32>(0.0, |v| v.cbrt()), (0.0, inf));
    assert_eq!(d1::<f64>(1.0, |v| v.asin()).1, inf);
    assert_eq!(f1::<f64>(-1.0, |v| v.asin()).1, inf);
    assert_eq!(d1::<f64>(1.0, |v| v.acos()), (0.0, -inf));
    assert_eq!(f1::<f32>(-1.0, |v| v.acos()).1, -inf);
    assert_eq!(d1::<f64>(0.0, |v| v.log2()), (-inf, inf));
    assert_eq!(d1::<f64>(0.0, |v| v.log10()).1, inf);
    // Outside the domain: NaN in both modes.
    assert!(d1::<f64>(1.5, |v| v.asin()).1.is_nan());
    assert!(f1::<f64>(-1.5, |v| v.acos()).1.is_nan());
    // A constant through an infinite derivative stays a constant (zero tangent, no NaN).
    assert_eq!(Dual::constant(0.0_f64).cbrt().eps, 0.0);
    assert_eq!(Dual::constant(1.0_f64).asin().eps, 0.0);
    // The origin, by convention: atan2 and hypot have partials 0 (hypot(x, 0) = |x|, abs'(0) = 0).
    for (x, y) in [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0)] {
        assert_eq!(d2::<f64>(x, y, |a, b| a.hypot(b)), (0.0, 0.0, 0.0));
        assert_eq!(f2::<f64>(x, y, |a, b| a.hypot(b)), (0.0, 0.0, 0.0));
        let (_, dx, dy) = d2::<f32>(x, y, |a, b| a.atan2(b));
        assert_eq!((dx, dy), (0.0, 0.0));
        let (_, dx, dy) = f2::<f64>(x, y, |a, b| a.atan2(b));
        assert_eq!((dx, dy), (0.0, 0.0));
    }
    // atan2's value at the origin is libm's (±0 or ±π by the signs of the zeros).
    assert_eq!(
        d2::<f64>(0.0, -0.0, |a, b| a.atan2(b)).0,
        core::f64::consts::PI
    );
    // Far from the origin and very near it, the partials neither overflow nor underflow where
    // x^2 + y^2 would: d/dy atan2(y, x) = x / r^2 at (1e-200, 1e-200) is 5e199, at 1e200 5e-201.
    let (_, dy, dx) = d2::<f64>(1e-200, 1e-200, |a, b| a.atan2(b));
    assert_close("atan2 tiny", dy, 0.5e200, 1e-15);
    assert_close("atan2 tiny", dx, -0.5e200, 1e-15);
    let (_, dy, _) = d2::<f64>(1e200, 1e200, |a, b| a.atan2(b));
    assert!((dy - 0.5e-200).abs() < 1e-215, "{dy}");
    // The smallest subnormal over 1, where r = hypot = 1 exactly: d/dy atan2(y, x) = x / r^2 = 1
    // and d/dx = -y / r^2 = -5e-324, both exact. Halving first, as the rule does only where r
    // overflows, would round y to 0 (cargo-mutants: that branch taken for a finite r survived).
    let tiny = 5e-324_f64;
    assert_eq!(d2::<f64>(tiny, 1.0, |a, b| a.atan2(b)), (tiny, 1.0, -tiny));
    assert_eq!(f2::<f64>(tiny, 1.0, |a, b| a.atan2(b)), (tiny, 1.0, -tiny));
    assert_eq!(
        d2::<f64>(3e300, 4e300, |a, b| a.hypot(b)),
        (5e300, 0.6, 0.8)
    );
    // cbrt' at f32::MAX, 1 / (3 cbrt(x)^2) = 6.84e-27, where 3x would overflow (found by the
    // differential fuzz target, in its reference's c / 3x).
    let max = f64::from(f32::MAX);
    let want = 1.0 / (3.0 * libm::cbrt(max) * libm::cbrt(max));
    assert_close(
        "cbrt'(f32::MAX)",
        d1::<f32>(max, |v| v.cbrt()).1,
        want,
        1e-6 * want,
    );
    assert_close(
        "cbrt'(f32::MAX)",
        f1::<f32>(max, |v| v.cbrt()).1,
        want,
        1e-6 * want,
    );
    // log10' at f32::MAX is 1.28e-39 (subnormal), not 0: x ln 10 would overflow (found by the
    // differential fuzz target in forward mode).
    let want = 1.0 / (max * core::f64::consts::LN_10);
    for (mode, got) in [
        ("reverse", d1::<f32>(max, |v| v.log10()).1),
        ("forward", f1::<f32>(max, |v| v.log10()).1),
    ] {
        assert!(
            (got - want).abs() < 1e-44,
            "log10'(f32::MAX) {mode}: {got:e} vs {want:e}"
        );
    }
}
