//! `Q16`, the Q16.16 fixed-point scalar: its elementary functions against `f64` (the largest
//! error over a grid, in steps of 2^-16), its poison, and the tape and dual numbers on it
//! against the seeds' worked examples.

use autograd_core::testkit::EXAMPLES;
use autograd_core::{gradient_forward, gradient_reverse, Error, Number, Op, Scalar, Tape, Q16};

/// `|q - exact|` in steps of 2^-16, divided by `|exact|` where that is above 1 if `relative`.
fn steps(q: Q16, exact: f64, relative: bool) -> f64 {
    let scale = if relative { exact.abs().max(1.0) } else { 1.0 };
    (q.to_f64() - exact).abs() / scale * 65536.0
}

/// Every `stride`-th Q16 value in `[lo, hi]` (and the ends).
fn grid(lo: f64, hi: f64, stride: i64) -> impl Iterator<Item = Q16> {
    let (a, b) = (
        Q16::from_f64(lo).to_bits() as i64,
        Q16::from_f64(hi).to_bits() as i64,
    );
    (a..=b)
        .step_by(stride as usize)
        .chain([b])
        .map(|v| Q16::from_bits(v as i32))
}

/// The largest error of `f` against `exact` over `points`; a point where `exact` is not a Q16
/// value (not finite, or out of range) must give poison.
fn worst(
    name: &str,
    relative: bool,
    points: impl Iterator<Item = Q16>,
    f: impl Fn(Q16) -> Q16,
    exact: impl Fn(f64) -> f64,
) -> f64 {
    let mut worst = 0.0f64;
    for x in points {
        let (q, e) = (f(x), exact(x.to_f64()));
        if !e.is_finite() || e.abs() > 32767.99 {
            assert!(
                q.is_poison(),
                "{name}({x}) = {q}, exact {e}: should be poison"
            );
            continue;
        }
        if e.abs() > 32767.0 {
            continue; // at the edge of the range: either is right
        }
        assert!(!q.is_poison(), "{name}({x}) is poison, exact {e}");
        let s = steps(q, e, relative);
        assert!(s.is_finite());
        worst = worst.max(s);
    }
    worst
}

/// `(name, lo, hi, function, exact, relative, bound in steps)`.
type Case = (
    &'static str,
    f64,
    f64,
    fn(Q16) -> Q16,
    fn(f64) -> f64,
    bool,
    f64,
);

#[test]
fn elementary_functions_against_f64() {
    // Every 97th value: about 675 points per unit, millions over the wide ranges.
    let stride = 97;
    // (name, range, function, exact, relative, bound in steps): the bounds are the largest
    // errors measured, rounded up to a quarter step (0.51 where a result is
    // rounded once from a Q30 value: half a step, plus what the Q30 value carries; 0.5 where it is
    // exact). Where results grow past 1 (exp, exp2,
    // sinh, cosh) the error is absolute all the same: the Q30 intermediate's relative error
    // times a result up to 2^15. tan near its poles is measured relative to the result.
    let cases: Vec<Case> = vec![
        ("exp", -16.0, 11.0, Q16::exp, f64::exp, false, 2.25),
        ("exp2", -20.0, 15.5, Q16::exp2, f64::exp2, false, 2.0),
        ("ln", 0.0, 32767.0, Q16::ln, f64::ln, false, 0.51),
        ("log2", 0.0, 32767.0, Q16::log2, f64::log2, false, 0.51),
        ("log10", 0.0, 32767.0, Q16::log10, f64::log10, false, 0.51),
        ("sqrt", -1.0, 32767.0, Q16::sqrt, f64::sqrt, false, 0.5),
        ("cbrt", -32767.0, 32767.0, Q16::cbrt, f64::cbrt, false, 0.5),
        ("sin", -1000.0, 1000.0, Q16::sin, f64::sin, false, 0.51),
        ("cos", -1000.0, 1000.0, Q16::cos, f64::cos, false, 0.51),
        ("tan", -10.0, 10.0, Q16::tan, f64::tan, true, 0.51),
        ("tanh", -20.0, 20.0, Q16::tanh, f64::tanh, false, 0.51),
        ("sinh", -12.0, 12.0, Q16::sinh, f64::sinh, false, 3.0),
        ("cosh", -12.0, 12.0, Q16::cosh, f64::cosh, false, 2.0),
        ("atan", -32767.0, 32767.0, Q16::atan, f64::atan, false, 0.51),
        ("asin", -1.5, 1.5, Q16::asin, f64::asin, false, 0.51),
        ("acos", -1.5, 1.5, Q16::acos, f64::acos, false, 0.51),
        (
            "sigmoid",
            -20.0,
            20.0,
            Q16::sigmoid,
            |x| 1.0 / (1.0 + (-x).exp()),
            false,
            1.0,
        ),
    ];
    let mut report = String::new();
    for (name, lo, hi, f, exact, relative, bound) in cases {
        let w = worst(name, relative, grid(lo, hi, stride), f, exact);
        report += &format!("{name}: {w:.3} steps (bound {bound})\n");
        assert!(w <= bound, "{name}: worst error {w} steps, bound {bound}");
    }
    println!("{report}");
}

/// The largest error of a two-argument function over a square grid of `n` x `n` points.
fn worst2(
    name: &str,
    (lo, hi, n): (f64, f64, usize),
    f: fn(Q16, Q16) -> Q16,
    exact: fn(f64, f64) -> f64,
) -> f64 {
    let at = |i: usize| Q16::from_f64(lo + (hi - lo) * i as f64 / (n - 1) as f64);
    let mut worst = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            let (a, b) = (at(i), at(j));
            let (q, e) = (f(a, b), exact(a.to_f64(), b.to_f64()));
            assert!(!q.is_poison(), "{name}({a}, {b}) is poison, exact {e}");
            worst = worst.max(steps(q, e, false));
        }
    }
    worst
}

#[test]
fn two_argument_functions_against_f64() {
    // hypot is rounded once from the exact root; atan2 has atan's polynomial.
    let hypot = worst2("hypot", (-20000.0, 20000.0, 301), Q16::hypot, f64::hypot);
    let atan2 = worst2("atan2", (-100.0, 100.0, 301), Q16::atan2, f64::atan2);
    println!("hypot: {hypot:.3} steps, atan2: {atan2:.3} steps");
    assert!(
        hypot <= 0.5 && atan2 <= 0.51,
        "hypot {hypot}, atan2 {atan2}"
    );
    // Out of range is poison, not a wrapped value.
    assert!(Q16::from_f64(30000.0)
        .hypot(Q16::from_f64(30000.0))
        .is_poison());
    assert_eq!(Q16::ZERO.atan2(Q16::ZERO).to_f64(), 0.0);
}

#[test]
fn pow_against_f64() {
    // x^y = e^(y ln x): the error of ln x, times y, becomes a relative error of the result, so
    // it is measured relative to results above 1, in steps.
    let mut worst = 0.0f64;
    for x in grid(0.0, 200.0, 997) {
        for k in -12..=12 {
            let y = k as f64 / 4.0;
            let (q, e) = (x.pow(Q16::from_f64(y)), x.to_f64().powf(y));
            if !e.is_finite() || e.abs() > 32767.0 {
                assert!(
                    q.is_poison() || e.abs() <= 32768.0,
                    "{x}^{y} = {q}, exact {e}"
                );
                continue;
            }
            assert!(!q.is_poison(), "{x}^{y} is poison, exact {e}");
            worst = worst.max(steps(q, e, true));
        }
    }
    // A negative base with an integer exponent is the real power; with a fraction, poison.
    assert_eq!(Q16::from_f64(-2.0).pow(Q16::from_f64(3.0)).to_f64(), -8.0);
    assert!(Q16::from_f64(-2.0).pow(Q16::from_f64(0.5)).is_poison());
    assert!(Q16::ZERO.pow(Q16::from_f64(-1.0)).is_poison());
    println!("pow: {worst:.3} steps (relative above 1)");
    assert!(worst <= 0.51, "pow: worst error {worst} steps");

    // powi: repeated products for -1 <= n <= 4 (each rounded: a step or two), pow otherwise.
    let mut worst_small = 0.0f64;
    let mut worst_large = 0.0f64;
    for x in grid(-40.0, 40.0, 211) {
        for n in -80..=80 {
            let (q, e) = (x.powi(n), x.to_f64().powi(n));
            if !e.is_finite() || e.abs() > 32767.0 {
                assert!(
                    q.is_poison() || e.abs() <= 32768.0,
                    "{x}^{n} = {q}, exact {e}"
                );
                continue;
            }
            assert!(!q.is_poison(), "{x}^{n} is poison, exact {e}");
            let w = if (-1..=4).contains(&n) {
                &mut worst_small
            } else {
                &mut worst_large
            };
            *w = w.max(steps(q, e, true));
        }
    }
    println!("powi: {worst_small:.3} steps for -1 <= n <= 4, {worst_large:.3} otherwise (relative above 1)");
    assert!(
        worst_small <= 1.25 && worst_large <= 0.51,
        "{worst_small} {worst_large}"
    );
}

/// `powi` with the exponents that keep a power in range, the largest of them: over bases within
/// 1/8 of +-1 (every third Q16 value), `n` taking `|x|^n` to `e^t` for `t` from -11 to 10.39 by
/// 0.23. The error does not grow with `n` (`ln |x|` to 2^-60, its product with `n` exact):
/// absolute steps, the results reaching 32767.
#[test]
fn powi_of_large_exponents_against_f64() {
    let (mut worst, mut count) = (0.0f64, 0);
    for bits in (65536 - 8192..65536 + 8192)
        .step_by(3)
        .filter(|&b| b != 65536)
    {
        for x in [Q16::from_bits(bits), Q16::from_bits(-bits)] {
            let ln = x.to_f64().abs().ln();
            for k in 0..94 {
                let t = -11.0 + 0.23 * k as f64;
                let n = (t / ln).round() as i32;
                let e = x.to_f64().powi(n);
                if (-1..=4).contains(&n) || e.abs() >= 32767.0 {
                    continue;
                }
                let q = x.powi(n);
                assert!(!q.is_poison(), "{x}^{n} is poison, exact {e}");
                worst = worst.max(steps(q, e, false));
                count += 1;
            }
        }
    }
    println!("powi, large exponents: {worst:.3} steps over {count} powers");
    assert!(
        worst <= 3.5,
        "powi, large exponents: worst error {worst} steps"
    );
}

/// `|got - want|` in steps of 2^-16, relative where `want` is above 1.
fn err(got: Q16, want: f64) -> f64 {
    steps(got, want, true)
}

#[test]
fn the_seeds_examples_on_the_tape_and_with_dual_numbers() {
    // Each example's gradient in Q16, reverse and forward, against its expected numbers. The
    // bound: the examples' own tolerance (the precision the documents print) plus 16 steps
    // relative, room for the roundings of a dozen operations, each at most a step or two.
    let mut tape = Tape::<Q16, 64>::new();
    let mut worst = 0.0f64;
    for example in &EXAMPLES {
        let n = example.x.len();
        let x: Vec<Q16> = example.x.iter().map(|&v| Q16::from_f64(v)).collect();
        let (mut rev, mut fwd) = (vec![Q16::ZERO; n], vec![Q16::ZERO; n]);
        let y = gradient_reverse(&example.function, &mut tape, &x, &mut rev).unwrap();
        let y_fwd = gradient_forward(&example.function, &x, &mut fwd).unwrap();
        assert_eq!(y.to_bits(), y_fwd.to_bits(), "{}: the value", example.name);
        let tolerance = example.tolerance * 65536.0;
        for (i, &want) in example.gradient.iter().enumerate() {
            for (mode, got) in [("reverse", rev[i]), ("forward", fwd[i])] {
                let e = (err(got, want) - tolerance).max(0.0);
                assert!(
                    e <= 16.0,
                    "{} ({mode}): d/dx{i} = {got}, expected {want}: {e} steps",
                    example.name
                );
                worst = worst.max(e);
            }
        }
        if let Some(v) = example.value {
            assert!((err(y, v) - tolerance).max(0.0) <= 16.0, "{}", example.name);
        }
    }
    println!("seeds in Q16: worst gradient error {worst:.2} steps beyond the documents' precision");
}

#[test]
fn roots_of_0_and_of_squares_and_cubes_are_exact() {
    // The grids step over 0; a root is rounded once, so exact squares and cubes come out exact.
    assert_eq!(Q16::ZERO.sqrt(), Q16::ZERO);
    assert_eq!(Q16::ZERO.cbrt(), Q16::ZERO);
    assert_eq!(Q16::ZERO.hypot(Q16::ZERO), Q16::ZERO);
    for (x, root) in [(1.0, 1.0), (0.25, 0.5), (16384.0, 128.0), (2.25, 1.5)] {
        assert_eq!(Q16::from_f64(x).sqrt().to_f64(), root, "sqrt({x})");
    }
    for (x, root) in [(1.0, 1.0), (-8.0, -2.0), (0.125, 0.5), (-27000.0, -30.0)] {
        assert_eq!(Q16::from_f64(x).cbrt().to_f64(), root, "cbrt({x})");
    }
    assert_eq!(Q16::from_f64(-3.0).hypot(Q16::from_f64(4.0)).to_f64(), 5.0);
}

#[test]
fn inverse_sines_at_the_ends_of_their_domain() {
    // The grid steps over +-1: there asin is +-pi/2 and acos 0 or pi, rounded to a step; just
    // past them both are poison.
    use std::f64::consts::{FRAC_PI_2, PI};
    let (one, minus_one) = (Q16::ONE, -Q16::ONE);
    assert_eq!(one.asin(), Q16::from_f64(FRAC_PI_2));
    assert_eq!(minus_one.asin(), Q16::from_f64(-FRAC_PI_2));
    assert_eq!(one.acos(), Q16::ZERO);
    assert_eq!(minus_one.acos(), Q16::from_f64(PI));
    for past in [one + Q16::STEP, minus_one - Q16::STEP] {
        assert!(past.asin().is_poison() && past.acos().is_poison(), "{past}");
    }
}

#[test]
fn the_exponentials_past_their_grids_round_to_0_or_are_poison() {
    // Below the grids above, down to the most negative Q16 value: e^x is below half a step
    // (2^-17) for x < -11.8 and 2^x for x < -17, so both are 0, also where reducing x by ln 2
    // would overflow if it were computed (below about -1418). Above them e^x is poison from
    // ln 32768 = 10.397 on.
    let most_negative = Q16::MIN.to_f64();
    for x in [
        most_negative,
        -30000.0,
        -2000.0,
        -1419.0,
        -100.0,
        -41.0,
        -40.0,
        -18.0,
    ] {
        assert_eq!(Q16::from_f64(x).exp(), Q16::ZERO, "exp({x})");
    }
    for x in [most_negative, -2000.0, -100.0, -58.0, -21.0] {
        assert_eq!(Q16::from_f64(x).exp2(), Q16::ZERO, "exp2({x})");
    }
    for x in [10.0, 10.39, 10.4, 11.0, 12.5, 100.0, 32767.0] {
        let want = x.exp();
        let q = Q16::from_f64(x).exp();
        assert_eq!(q.is_poison(), want > 32767.99, "exp({x}) = {q}");
    }
    // sinh and cosh leave the range at |x| = ln 65536 = 11.09; past their grid's end, 12, one
    // of the two exponentials they are made of is out of range, which alone makes them poison.
    for x in [11.2, 12.5, 100.0, 32767.0] {
        for x in [x, -x] {
            let q = Q16::from_f64(x);
            assert!(
                q.sinh().is_poison() && q.cosh().is_poison(),
                "sinh, cosh({x})"
            );
        }
    }
}

#[test]
fn overflow_is_poison_and_the_tape_names_the_operation() {
    // 200 * 200 = 40000 is out of range: the product is poison, written as its own statement.
    let tape = Tape::<Q16, 16>::new();
    let x = tape.var(Q16::from_f64(200.0));
    let y = x * x + Q16::ONE;
    assert!(!y.value().is_finite());
    let err = tape.backward_checked(y).unwrap_err();
    assert!(
        matches!(
            err,
            Error::NonFinite {
                op: Op::Mul,
                in_gradient: false,
                ..
            }
        ),
        "{err}"
    );

    // A finite value whose derivative overflows: (181 x)^2 at x = 1 is 32761, its derivative
    // 2 * 181^2 = 65522 is out of range. The gradient is poison and the check says so.
    let tape = Tape::<Q16, 16>::new();
    let x = tape.var(Q16::ONE);
    let y = x.mul_f64(181.0).powi(2);
    assert_eq!(y.value().to_f64(), 32761.0);
    assert!(!tape.backward(y).unwrap().wrt(x).is_finite());
    assert!(tape.backward_checked(y).is_err());

    // Poison spreads and compares false, like NaN.
    let p = Q16::POISON;
    assert!((p + Q16::ONE).is_poison() && (p * Q16::ZERO).is_poison());
    assert_eq!(p.partial_cmp(&Q16::ONE), None);
    assert!(p != p);
    assert!(Q16::from_f64(-1.0).sqrt().is_poison() && Q16::ZERO.ln().is_poison());
    assert!((Q16::ONE / Q16::ZERO).is_poison());
}
