//! Every operation against its hand-derived derivative at several points, in f32 and f64, and
//! the kink conventions exactly at the kinks. The references are written out with plain libm
//! calls, independently of the engine's derivative rules. (The elementary functions by hand in
//! both modes, and at their bounds: `elementary.rs`.)

mod by_hand;

use autograd_core::{Dual, Number, Scalar, Tape, TapeError, Var};
use by_hand::{assert_close, d1, d2};

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
