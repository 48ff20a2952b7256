//! `Number::sin_cos`: one computation gives what `sin` and `cos` give apart, bit for bit, on
//! every type (`f32`, `f64`, `Q16`, the dual numbers, and handles on tapes of `f64`, `f32`,
//! `Outlined<f64>` and `Dual<f64>`: the same statements, values, gradients and NaN provenance),
//! and its derivatives are `cos` and `-sin` against `std`'s.

use autograd_core::{Dual, Number, Op, Outlined, Scalar, Tape, TapeError, Var, Q16};
use proptest::prelude::*;

/// Everything a recording leaves: the result's value, the tape's statements after a sweep
/// (operation, value and adjoint as `f64` bits, operand count) or the sweep's error, and the
/// first non-finite statement as its report prints it.
type Record = (u64, Result<Vec<(Op, u64, u64, usize)>, TapeError>, String);

/// `3 sin u + cos^2 u` for `u = x w + x`, so the argument is a handle of two pending pairs,
/// with `sin` and `cos` taken by `sin_cos` (`together`) or one by one.
fn record<S: Scalar>(x: f64, w: f64, together: bool) -> Record {
    let tape = Tape::<S, 64>::new();
    let (x, w) = (tape.var(S::from_f64(x)), tape.var(S::from_f64(w)));
    let u = x * w + x;
    let (s, c): (Var<'_, S>, Var<'_, S>) = if together {
        u.sin_cos()
    } else {
        (u.sin(), u.cos())
    };
    let y = s.mul_f64(3.0) + c * c;
    let y = y.recorded().unwrap_or(y);
    let swept = tape.backward(y).map(|_| {
        let mut nodes = Vec::new();
        tape.for_each_node(|_, n| {
            let bits = |v: S| v.to_f64().to_bits();
            nodes.push((n.op, bits(n.value), bits(n.grad), n.operands));
        });
        nodes
    });
    let anomaly = format!("{:?}", tape.first_non_finite());
    (y.value().to_f64().to_bits(), swept, anomaly)
}

fn same_recording<S: Scalar>(x: f64, w: f64) {
    assert_eq!(
        record::<S>(x, w, true),
        record::<S>(x, w, false),
        "{} at x = {x:e}, w = {w}",
        core::any::type_name::<S>()
    );
}

/// Arguments where the reduction or the result is special: zeros, subnormals, multiples of
/// pi/2 far out, the largest floats, infinities (whose sine is NaN) and NaN.
const EDGES: [f64; 12] = [
    0.0,
    -0.0,
    5e-324,
    1e-300,
    core::f64::consts::FRAC_PI_2,
    1e6,
    -3.3e8,
    1e22,
    1.7e308,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

#[test]
fn a_tape_records_the_same_as_sin_and_cos_apart_at_the_edges() {
    for &x in &EDGES {
        // w = 0 makes the argument x itself, one pair of partial 1.
        for w in [0.0, 0.75] {
            same_recording::<f64>(x, w);
            same_recording::<f32>(x, w);
            same_recording::<Outlined<f64>>(x, w);
            same_recording::<Dual<f64>>(x, w);
        }
    }
}

#[test]
fn the_scalars_give_the_same_bits_as_sin_and_cos() {
    for i in 0..4000 {
        let x = -80.0 + 0.04 * i as f64 + 1e-3;
        for x in EDGES.into_iter().chain([x]) {
            let (s, c) = Number::sin_cos(x);
            let apart = (Number::sin(x).to_bits(), Number::cos(x).to_bits());
            assert_eq!((s.to_bits(), c.to_bits()), apart, "f64 at {x:e}");
            let xf = x as f32;
            let (s, c) = Number::sin_cos(xf);
            let apart = (Number::sin(xf).to_bits(), Number::cos(xf).to_bits());
            assert_eq!((s.to_bits(), c.to_bits()), apart, "f32 at {xf:e}");
            let d = Dual::variable(x);
            let (s, c) = d.sin_cos();
            let (sa, ca) = (d.sin(), d.cos());
            let bits = |d: Dual<f64>| (d.re.to_bits(), d.eps.to_bits());
            assert_eq!((bits(s), bits(c)), (bits(sa), bits(ca)), "Dual at {x:e}");
        }
    }
}

#[test]
fn q16_takes_both_from_one_angle_with_the_same_bits() {
    let mut bits: Vec<i32> = (i32::MIN..=i32::MAX).step_by(65_537).collect();
    bits.extend([i32::MAX, i32::MIN + 1, 0, 1, -1, 102_944, -102_944, 205_887]);
    for b in bits {
        let q = Q16::from_bits(b);
        let (s, c) = q.sin_cos();
        let apart = (q.sin().to_bits(), q.cos().to_bits());
        assert_eq!((s.to_bits(), c.to_bits()), apart, "{b}");
        // Against f64 where Q16's sine and cosine are measured (tests/fixed.rs): half a step.
        let x = q.to_f64();
        if x.abs() <= 1000.0 {
            let steps = |v: Q16, exact: f64| (v.to_f64() - exact).abs() * 65536.0;
            assert!(
                steps(s, x.sin()) <= 0.51 && steps(c, x.cos()) <= 0.51,
                "{x}"
            );
        }
    }
    let p = Q16::from_bits(i32::MIN);
    let (s, c) = p.sin_cos();
    assert!(
        !Scalar::is_finite(s) && !Scalar::is_finite(c),
        "poison in, poison out"
    );
}

#[test]
fn second_order_through_a_tape_of_dual_numbers() {
    for x in [-2.0, -0.3, 0.0, 0.5, 1.2, 7.0] {
        let tape = Tape::<Dual<f64>, 16>::new();
        let t = tape.var(Dual::variable(x));
        let (s, c) = t.sin_cos();
        let g = tape.backward(s * c).unwrap().wrt(t);
        // d/dx sin x cos x = cos 2x, and its derivative -2 sin 2x.
        assert!((g.re - (2.0 * x).cos()).abs() < 1e-15, "{x}: {g:?}");
        assert!((g.eps + 2.0 * (2.0 * x).sin()).abs() < 1e-14, "{x}: {g:?}");
    }
}

proptest! {
    #[test]
    fn records_and_gradients_match_apart_and_by_hand(x in -1e4..1e4_f64, w in -3.0..3.0_f64) {
        same_recording::<f64>(x, w);
        same_recording::<f32>(x, w);
        // By hand, with std's sine and cosine: d/dx (3 sin u + cos^2 u) = (3 cos u - 2 cos u
        // sin u)(w + 1).
        let tape = Tape::<f64, 64>::new();
        let (xv, wv) = (tape.var(x), tape.var(w));
        let (s, c) = (xv * wv + xv).sin_cos();
        let g = tape.backward(s * 3.0 + c * c).unwrap();
        let u = x * w + x;
        let expected = (3.0 * u.cos() - 2.0 * u.cos() * u.sin()) * (w + 1.0);
        prop_assert!((g.wrt(xv) - expected).abs() <= 1e-12 * (1.0 + expected.abs()));
    }
}
