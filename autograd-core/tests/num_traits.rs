//! Generic `num_traits::Float` code, written without any knowledge of this crate, differentiated
//! on a tape and with dual numbers (cargo feature `num-traits`): every `Float` method against its
//! derivative derived by hand, a function of three variables forward vs reverse vs by hand, and
//! small `nalgebra` computations (a rotation applied to a vector, a 3x3 determinant).

use std::f64::consts::{LN_10, LN_2, PI};
use std::ops::{AddAssign, MulAssign, SubAssign};

use autograd_core::{Dual, DualVec, Tape, Var};
use nalgebra::{Matrix3, Vector3};
use num_traits::{Float, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero};

/// `a` agrees with the hand-derived `b` to `rtol` relatively (or both are the same infinity / 0).
fn close(a: f64, b: f64, rtol: f64) -> bool {
    a == b || (a - b).abs() <= rtol * b.abs()
}

fn assert_close(a: f64, b: f64, rtol: f64, what: &str) {
    assert!(close(a, b, rtol), "{what}: got {a:e}, expected {b:e}");
}

/// A tape that lives for the whole test run, so its handles are `'static` (`nalgebra::Scalar`).
fn leaked_tape() -> &'static Tape<f64, 512> {
    Box::leak(Box::new(Tape::new()))
}

/// One-input `Float` methods, as generic code sees them.
const UNARY: &[&str] = &[
    "sqrt",
    "exp",
    "exp2",
    "exp_m1",
    "ln",
    "ln_1p",
    "log2",
    "log10",
    "log3",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "cbrt",
    "recip",
    "powi3",
    "powf2.5",
    "abs",
    "signum",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
    "to_degrees",
    "to_radians",
    "mul_add",
    "hypot3",
    "atan2_x",
    "rem2.5",
];

fn unary<T: Float>(name: &str, x: T) -> T {
    let c = |v: f64| T::from(v).unwrap();
    match name {
        "sqrt" => x.sqrt(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "exp_m1" => x.exp_m1(),
        "ln" => x.ln(),
        "ln_1p" => x.ln_1p(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "log3" => x.log(c(3.0)),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "asinh" => x.asinh(),
        "acosh" => x.acosh(),
        "atanh" => x.atanh(),
        "cbrt" => x.cbrt(),
        "recip" => x.recip(),
        "powi3" => x.powi(3),
        "powf2.5" => x.powf(c(2.5)),
        "abs" => x.abs(),
        "signum" => x.signum(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "round" => x.round(),
        "trunc" => x.trunc(),
        "fract" => x.fract(),
        "to_degrees" => x.to_degrees(),
        "to_radians" => x.to_radians(),
        "mul_add" => x.mul_add(c(2.0), c(1.0)),
        "hypot3" => x.hypot(c(3.0)),
        "atan2_x" => c(1.5).atan2(x),
        "rem2.5" => x % c(2.5),
        _ => unreachable!("{name}"),
    }
}

/// The derivative of `unary(name, x)`, derived by hand, and the points where it holds.
fn by_hand(name: &str, x: f64) -> f64 {
    let s = |v: f64| 1.0 / (1.0 - v * v).sqrt();
    match name {
        "sqrt" => 0.5 / x.sqrt(),
        "exp" | "exp_m1" => x.exp(),
        "exp2" => LN_2 * x.exp2(),
        "ln" => 1.0 / x,
        "ln_1p" => 1.0 / (1.0 + x),
        "log2" => 1.0 / (x * LN_2),
        "log10" => 1.0 / (x * LN_10),
        "log3" => 1.0 / (x * 3.0_f64.ln()),
        "sin" => x.cos(),
        "cos" => -x.sin(),
        "tan" => 1.0 / (x.cos() * x.cos()),
        "asin" => s(x),
        "acos" => -s(x),
        "atan" => 1.0 / (1.0 + x * x),
        "sinh" => x.cosh(),
        "cosh" => x.sinh(),
        "tanh" => 1.0 - x.tanh() * x.tanh(),
        // 1 / sqrt(x^2 ± 1), written so that x^2 does not overflow for |x| = 1e200.
        "asinh" if x.abs() > 1.0 => 1.0 / (x.abs() * (1.0 + 1.0 / (x * x)).sqrt()),
        "asinh" => 1.0 / (x * x + 1.0).sqrt(),
        "acosh" if x > 2.0 => 1.0 / (x * (1.0 - 1.0 / (x * x)).sqrt()),
        "acosh" => 1.0 / ((x - 1.0) * (x + 1.0)).sqrt(),
        "atanh" => 1.0 / (1.0 - x * x),
        "cbrt" => 1.0 / (3.0 * x.cbrt() * x.cbrt()),
        "recip" => -1.0 / (x * x),
        "powi3" => 3.0 * x * x,
        "powf2.5" => 2.5 * x.powf(1.5),
        "abs" => x.signum(),
        "signum" | "floor" | "ceil" | "round" | "trunc" => 0.0,
        "fract" => 1.0,
        "to_degrees" => 180.0 / PI,
        "to_radians" => PI / 180.0,
        "mul_add" => 2.0,
        "hypot3" => x / (x * x + 9.0).sqrt(),
        "atan2_x" => -1.5 / (x * x + 2.25), // d/dx atan2(y, x) = -y / (x^2 + y^2)
        "rem2.5" => 1.0,
        _ => unreachable!("{name}"),
    }
}

fn points(name: &str) -> &'static [f64] {
    match name {
        "sqrt" | "ln" | "log2" | "log10" | "log3" | "powf2.5" => &[0.3, 1.7, 12.5, 1e-3],
        "ln_1p" => &[-0.5, 1e-9, 0.7, 30.0],
        "asin" | "acos" | "atanh" => &[-0.9, -0.2, 1e-9, 0.6, 0.999],
        "acosh" => &[1.0001, 1.05, 1.7, 2.5, 1e3, 1e200],
        "asinh" => &[-1e200, -1e3, -2.0, -0.5, 1e-9, 0.3, 1.5, 40.0, 1e200],
        "sinh" | "cosh" => &[-3.0, -0.4, 1e-9, 0.8, 5.0, 710.0],
        "tan" => &[-1.2, -0.3, 0.5, 1.4],
        _ => &[-2.3, -0.7, 0.4, 1.9, 3.7],
    }
}

#[test]
fn every_float_method_differentiates_as_derived_by_hand() {
    for name in UNARY {
        for &x in points(name) {
            let expected = by_hand(name, x);
            let what = format!("d/dx {name} at {x:e}");
            let value = unary(name, x);

            let d = unary(name, Dual::variable(x));
            assert_close(d.re, value, 1e-15, &what);
            assert_close(d.eps, expected, 1e-12, &what);

            let dv = unary(name, DualVec::<f64, 2>::variable(x, 1));
            assert_close(dv.re, value, 1e-15, &what);
            assert_eq!(dv.eps[0], 0.0, "{what}: unseeded lane");
            assert_close(dv.eps[1], expected, 1e-12, &what);

            let tape = Tape::<f64, 64>::new();
            let v = tape.var(x);
            let y = unary(name, v);
            assert_close(y.value(), value, 1e-15, &what);
            assert_close(tape.backward(y).unwrap().wrt(v), expected, 1e-12, &what);

            // A constant stays a constant: no derivative at all, not NaN.
            assert_eq!(unary(name, Dual::constant(x)).eps, 0.0, "{what}: constant");
        }
    }
}

#[test]
fn values_are_the_scalars_own_functions() {
    // Composed on the tape, but the value is f64's own (`log2(8)` is 3, not 2.9999999999999996).
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(8.0);
    assert_eq!(Float::log2(x).value(), 3.0);
    assert_eq!(Float::cbrt(x).value(), 2.0);
    assert_eq!(Float::exp2(Dual::variable(10.0_f64)).re, 1024.0);
    // f32 too: the value is f32's, the derivative 1 / (x ln 2).
    let l = Float::log2(Dual::variable(8.0_f32));
    assert_eq!(l.re, 3.0);
    assert!((l.eps - 1.0 / (8.0 * std::f32::consts::LN_2)).abs() <= 1e-7);
    assert_eq!(Float::log10(Dual::variable(1000.0_f64)).re, 3.0);
    assert_eq!(Float::sinh(Dual::variable(1e-10_f64)).re, 1e-10_f64.sinh());
    assert_eq!(
        Float::exp_m1(Dual::variable(1e-10_f64)).re,
        1e-10_f64.exp_m1()
    );
    let h = Float::hypot(Dual::variable(3e200_f64), Dual::constant(4e200));
    assert_eq!(h.re, 3e200_f64.hypot(4e200));
    assert_close(h.eps, 0.6, 1e-15, "hypot far from overflow");
}

#[test]
fn two_input_methods_differentiate_in_both_arguments() {
    type Case = (&'static str, fn(f64, f64) -> (f64, f64));
    let cases: &[Case] = &[
        // (x/h, y/h)
        ("hypot", |x, y| (x / x.hypot(y), y / x.hypot(y))),
        // atan2(x, y) is the angle of (y, x): (y, -x) / (x^2 + y^2)
        ("atan2", |x, y| (y / (x * x + y * y), -x / (x * x + y * y))),
        // x^y: (y x^(y-1), ln(x) x^y)
        ("powf", |x, y| (y * x.powf(y - 1.0), x.ln() * x.powf(y))),
        // ln x / ln y: (1 / (x ln y), -ln x / (y ln^2 y))
        ("log", |x, y| {
            (1.0 / (x * y.ln()), -x.ln() / (y * y.ln() * y.ln()))
        }),
        // x - trunc(x / y) y
        ("rem", |x, y| (1.0, -(x / y).trunc())),
        ("max", |x, y| if x > y { (1.0, 0.0) } else { (0.0, 1.0) }),
        ("min", |x, y| if x < y { (1.0, 0.0) } else { (0.0, 1.0) }),
        (
            "abs_sub",
            |x, y| if x > y { (1.0, -1.0) } else { (0.0, 0.0) },
        ),
        ("copysign", |x, y| (x.signum() * y.signum(), 0.0)),
    ];
    fn apply<T: Float>(name: &str, x: T, y: T) -> T {
        match name {
            "hypot" => x.hypot(y),
            "atan2" => x.atan2(y),
            "powf" => x.powf(y),
            "log" => x.log(y),
            "rem" => x % y,
            "max" => x.max(y),
            "min" => x.min(y),
            "abs_sub" => x.abs_sub(y),
            "copysign" => x.copysign(y),
            _ => unreachable!(),
        }
    }
    let points = [
        (0.7, 2.0),
        (3.5, 1.2),
        (1.3, -0.6),
        (-2.0, 0.375),
        (7.25, 2.5),
    ];
    for &(name, hand) in cases {
        for &(x, y) in &points {
            let (x, y) = if matches!(name, "powf" | "log") {
                (x.abs(), y.abs())
            } else {
                (x, y)
            };
            let (dx, dy) = hand(x, y);
            let what = format!("{name} at ({x}, {y})");
            let d = apply(
                name,
                DualVec::<f64, 2>::variable(x, 0),
                DualVec::variable(y, 1),
            );
            assert_close(d.re, apply(name, x, y), 1e-15, &what);
            assert_close(d.eps[0], dx, 1e-12, &what);
            assert_close(d.eps[1], dy, 1e-12, &what);
            let tape = Tape::<f64, 64>::new();
            let (vx, vy) = (tape.var(x), tape.var(y));
            let g = tape.backward(apply(name, vx, vy)).unwrap();
            assert_close(g.wrt(vx), dx, 1e-12, &what);
            assert_close(g.wrt(vy), dy, 1e-12, &what);
        }
    }
}

#[test]
fn edges_are_infinite_or_conventional_never_silently_nan() {
    // asin at 1: the derivative is +inf (as sqrt at 0); with a constant, no derivative at all.
    assert_eq!(Float::asin(Dual::variable(1.0_f64)).eps, f64::INFINITY);
    assert_eq!(Float::asin(Dual::constant(1.0_f64)).eps, 0.0);
    assert_eq!(Float::cbrt(Dual::variable(0.0_f64)).eps, f64::INFINITY);
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(1.0);
    let y = Float::asin(x);
    assert_eq!(y.value(), PI / 2.0);
    assert_eq!(tape.backward(y).unwrap().wrt(x), f64::INFINITY);
    // Not differentiable at the origin: 0 by convention (as abs'(0) = 0).
    let o = DualVec::<f64, 2>::variable(0.0, 0);
    let p = DualVec::<f64, 2>::variable(0.0, 1);
    assert_eq!(Float::atan2(o, p).eps, [0.0, 0.0]);
    assert_eq!(Float::hypot(o, p).eps, [0.0, 0.0]);
    // Float's NaN rule for max/min: the other argument, with its derivative.
    let m = Float::max(Dual::constant(f64::NAN), Dual::variable(2.0));
    assert_eq!((m.re, m.eps), (2.0, 1.0));
}

/// A function of three variables using many `Float` methods.
fn f<T: Float>(x: T, y: T, z: T) -> T {
    let four = T::from(4.0).unwrap();
    x.sinh() * y.cbrt() + x.hypot(y).ln() + z.atan2(x) + (y * z).log2() + z.powf(x)
        - (x / four).acos()
}

#[test]
fn a_generic_function_forward_reverse_and_by_hand() {
    let (x, y, z) = (0.7_f64, 2.0, 1.5);
    // Derived by hand, term by term.
    let dx = x.cosh() * y.cbrt() + x / (x * x + y * y) - z / (x * x + z * z)
        + z.ln() * z.powf(x)
        + 0.25 / (1.0 - x * x / 16.0).sqrt();
    let dy = x.sinh() / (3.0 * y.cbrt() * y.cbrt()) + y / (x * x + y * y) + 1.0 / (y * LN_2);
    let dz = x / (x * x + z * z) + 1.0 / (z * LN_2) + x * z.powf(x - 1.0);

    let tape = Tape::<f64, 128>::new();
    let (vx, vy, vz) = (tape.var(x), tape.var(y), tape.var(z));
    let out = f(vx, vy, vz);
    let g = tape.backward(out).unwrap();
    let reverse = [g.wrt(vx), g.wrt(vy), g.wrt(vz)];

    let d = f(
        DualVec::<f64, 3>::variable(x, 0),
        DualVec::variable(y, 1),
        DualVec::variable(z, 2),
    );
    let single = [
        f(Dual::variable(x), Dual::constant(y), Dual::constant(z)).eps,
        f(Dual::constant(x), Dual::variable(y), Dual::constant(z)).eps,
        f(Dual::constant(x), Dual::constant(y), Dual::variable(z)).eps,
    ];
    assert_close(out.value(), f(x, y, z), 1e-15, "value");
    for (k, hand) in [dx, dy, dz].into_iter().enumerate() {
        assert_close(reverse[k], hand, 1e-13, "reverse vs hand");
        assert_close(d.eps[k], hand, 1e-13, "forward vs hand");
        assert_close(single[k], hand, 1e-13, "dual vs hand");
        assert_close(reverse[k], d.eps[k], 1e-14, "reverse vs forward");
    }
}

#[test]
fn second_derivatives_through_nested_duals_and_forward_over_reverse() {
    // asin'' = x / (1 - x^2)^(3/2); atan'' = -2x / (1 + x^2)^2; sinh'' = sinh.
    let x = 0.4_f64;
    type D2 = Dual<Dual<f64>>;
    type Case = (fn(D2) -> D2, f64);
    let cases: [Case; 3] = [
        (Float::asin, x / (1.0 - x * x).powf(1.5)),
        (Float::atan, -2.0 * x / ((1.0 + x * x) * (1.0 + x * x))),
        (Float::sinh, x.sinh()),
    ];
    for (g, hand) in cases {
        let d = g(Dual::new(Dual::variable(x), Dual::constant(1.0)));
        assert_close(d.eps.eps, hand, 1e-13, "nested dual");
    }
    // On a tape of duals: the gradient's tangent is the second derivative.
    let tape = Tape::<Dual<f64>, 16>::new();
    let v = tape.var(Dual::variable(x));
    let y = Float::asin(v);
    let d2 = tape.backward(y).unwrap().wrt(v).eps;
    assert_close(
        d2,
        x / (1.0 - x * x).powf(1.5),
        1e-13,
        "forward over reverse",
    );
}

#[test]
fn the_companion_traits() {
    type D = Dual<f64>;
    assert!(D::zero().is_zero() && D::one().is_one());
    assert_eq!(<D as NumCast>::from(3_u8).unwrap().re, 3.0);
    assert_eq!(<D as FromPrimitive>::from_i64(-7).unwrap().eps, 0.0);
    assert_eq!(D::from_str_radix("2.5", 10).unwrap().re, 2.5);
    assert!(D::from_str_radix("x", 10).is_err());
    assert_eq!(Dual::new(2.9_f64, 1.0).to_i32(), Some(2));
    assert_eq!(ToPrimitive::to_f64(&Dual::new(2.5_f64, 1.0)), Some(2.5));
    assert!(Dual::new(-1.0_f64, 1.0).is_negative());
    assert_eq!(Signed::abs(&Dual::new(-2.0_f64, 1.0)).eps, -1.0);
    assert_eq!(<Var<'_, f64> as Float>::epsilon().value(), f64::EPSILON);
    assert!(<Var<'_, f32> as Float>::infinity().is_constant());
    // Questions look at the value only: a NaN tangent does not make a dual NaN.
    assert!(!Float::is_nan(Dual::new(1.0_f64, f64::NAN)));
}

// nalgebra: generic code over `num_traits::Float` plus what nalgebra's arithmetic asks for.

trait Field: Float + nalgebra::Scalar + AddAssign + SubAssign + MulAssign {}
impl<T: Float + nalgebra::Scalar + AddAssign + SubAssign + MulAssign> Field for T {}

/// `R_z(a) R_y(b) R_x(c) v`: Euler angles applied to a vector.
fn rotate<T: Field>(a: T, b: T, c: T, v: Vector3<T>) -> Vector3<T> {
    let (o, l) = (T::zero(), T::one());
    let (sa, ca) = a.sin_cos();
    let (sb, cb) = b.sin_cos();
    let (sc, cc) = c.sin_cos();
    let rz = Matrix3::new(ca, -sa, o, sa, ca, o, o, o, l);
    let ry = Matrix3::new(cb, o, sb, o, l, o, -sb, o, cb);
    let rx = Matrix3::new(l, o, o, o, cc, -sc, o, sc, cc);
    rz * ry * rx * v
}

/// The determinant as the triple product of the columns, `a0 · (a1 × a2)`.
fn det<T: Field>(a: &Matrix3<T>) -> T {
    a.column(0).dot(&a.column(1).cross(&a.column(2)))
}

#[test]
fn nalgebra_rotation_differentiated_on_a_tape_and_with_duals() {
    let (a, b, c) = (0.3_f64, -1.1, 2.0);
    let v = Vector3::new(1.0, -2.0, 0.5);
    // By hand: each rotation's derivative matrix in plain f64 arithmetic.
    let (sa, ca, sb, cb, sc, cc) = (a.sin(), a.cos(), b.sin(), b.cos(), c.sin(), c.cos());
    let rz = Matrix3::new(ca, -sa, 0.0, sa, ca, 0.0, 0.0, 0.0, 1.0);
    let ry = Matrix3::new(cb, 0.0, sb, 0.0, 1.0, 0.0, -sb, 0.0, cb);
    let rx = Matrix3::new(1.0, 0.0, 0.0, 0.0, cc, -sc, 0.0, sc, cc);
    let drz = Matrix3::new(-sa, -ca, 0.0, ca, -sa, 0.0, 0.0, 0.0, 0.0);
    let dry = Matrix3::new(-sb, 0.0, cb, 0.0, 0.0, 0.0, -cb, 0.0, -sb);
    let drx = Matrix3::new(0.0, 0.0, 0.0, 0.0, -sc, -cc, 0.0, cc, -sc);
    let hand = [drz * ry * rx * v, rz * dry * rx * v, rz * ry * drx * v];

    // Forward: one DualVec pass gives all three angles' derivatives of every component.
    let lift = |x: f64| DualVec::<f64, 3>::constant(x);
    let w = rotate(
        DualVec::variable(a, 0),
        DualVec::variable(b, 1),
        DualVec::variable(c, 2),
        v.map(lift),
    );
    // Reverse: one sweep per component, on a tape that lives long enough for nalgebra.
    let tape = leaked_tape();
    let (ta, tb, tc) = (tape.var(a), tape.var(b), tape.var(c));
    let r = rotate(ta, tb, tc, v.map(Var::constant));
    let plain = rotate(a, b, c, v);
    for i in 0..3 {
        assert_close(w[i].re, plain[i], 1e-15, "value");
        let g = tape.backward(r[i]).unwrap();
        for (k, t) in [ta, tb, tc].into_iter().enumerate() {
            let what = format!("d(Rv)_{i}/d angle {k}");
            assert_close(w[i].eps[k], hand[k][i], 1e-13, &what);
            assert_close(g.wrt(t), hand[k][i], 1e-13, &what);
        }
    }
    // The rotation also moves with the vector: d(Rv)/dv = R, a column per input component.
    let dv = rotate(
        lift(a),
        lift(b),
        lift(c),
        Vector3::from_fn(|i, _| DualVec::variable(v[i], i)),
    );
    let m = rz * ry * rx;
    for i in 0..3 {
        for k in 0..3 {
            assert_close(dv[i].eps[k], m[(i, k)], 1e-14, "d(Rv)/dv = R");
        }
    }
}

#[test]
fn nalgebra_determinant_gradient_is_the_cofactor_matrix() {
    let a = Matrix3::new(2.0, -1.0, 0.5, 1.5, 3.0, -2.0, 0.25, 4.0, 1.0);
    // By hand: C_ij = (-1)^(i+j) times the minor without row i and column j.
    let minor = |i: usize, j: usize| {
        let rows: Vec<usize> = (0..3).filter(|&r| r != i).collect();
        let cols: Vec<usize> = (0..3).filter(|&c| c != j).collect();
        a[(rows[0], cols[0])] * a[(rows[1], cols[1])]
            - a[(rows[0], cols[1])] * a[(rows[1], cols[0])]
    };
    let cofactor = Matrix3::from_fn(|i, j| if (i + j) % 2 == 0 { 1.0 } else { -1.0 } * minor(i, j));
    let det_by_hand = a[(0, 0)] * minor(0, 0) - a[(0, 1)] * minor(0, 1) + a[(0, 2)] * minor(0, 2);

    // Forward: nine lanes, one pass.
    let d = det(&Matrix3::from_fn(|i, j| {
        DualVec::<f64, 9>::variable(a[(i, j)], 3 * i + j)
    }));
    assert_close(d.re, det_by_hand, 1e-14, "det");
    // Reverse: nine leaves, one sweep.
    let tape = leaked_tape();
    let m = Matrix3::from_fn(|i, j| tape.var(a[(i, j)]));
    let y = det(&m);
    let g = tape.backward(y).unwrap();
    assert_close(y.value(), det_by_hand, 1e-14, "det");
    for i in 0..3 {
        for j in 0..3 {
            let what = format!("d det / d a_{i}{j}");
            assert_close(d.eps[3 * i + j], cofactor[(i, j)], 1e-14, &what);
            assert_close(g.wrt(m[(i, j)]), cofactor[(i, j)], 1e-14, &what);
        }
    }
    // One dual direction: Jacobi's formula, d/dt det(A + tB) = tr(adj(A) B) = sum(C .* B).
    let b = Matrix3::new(0.5, 1.0, -1.0, 2.0, 0.0, 0.25, -0.5, 1.5, 3.0);
    let dd = det(&Matrix3::from_fn(|i, j| Dual::new(a[(i, j)], b[(i, j)])));
    assert_close(dd.eps, cofactor.component_mul(&b).sum(), 1e-14, "Jacobi");
}
