//! The elementary functions embedded code needs (atan, asin, acos, sinh, cosh, log2, log10, exp2,
//! cbrt, atan2, hypot) at points where the derivative is a number one can work out by hand, in
//! reverse and forward mode, and at their bounds: infinite derivatives at a finite input, NaN
//! outside the domain, the origin's conventions, arguments where a naive rule would overflow.
//! (Every operation of the table against libm-written references: `ops.rs`.)

mod by_hand;

use autograd_core::{Dual, Number, Scalar};
use by_hand::{assert_close, d1, d2, f1, f2};

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
