//! Unit tests of `Q16`: arithmetic, poison, conversions, and the integer building blocks of
//! `funcs` against 64-bit references.

use super::*;

fn q(x: f64) -> Q16 {
    Q16::from_f64(x)
}

/// A reproducible stream of 64-bit patterns (SplitMix64).
fn patterns(mut s: u64) -> impl Iterator<Item = u64> {
    core::iter::from_fn(move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Some(z ^ (z >> 31))
    })
}

#[test]
fn conversions_from_f64_are_round_of_c_times_65536() {
    // The reference: the float computation the bit-level conversion replaces.
    let reference = |c: f64| {
        let v = (c * 65536.0).round();
        if v.is_nan() || v.abs() > i32::MAX as f64 {
            None
        } else {
            Some(v as i32)
        }
    };
    let bits = patterns(1).take(200_000);
    // Values near the range's scale (any exponent from 2^-20 to 2^16), and raw patterns.
    let scaled = patterns(2)
        .take(200_000)
        .map(|b| f64::from_bits((b & !(0x7FF << 52)) | ((1003 + b % 36) << 52)));
    let edges = [
        0.0,
        -0.0,
        0.5 / 65536.0,
        -0.5 / 65536.0,
        1.5 / 65536.0,
        2.5 / 65536.0,
        32767.99998,
        32767.999992370605,
        -32767.999992370605,
        32768.0,
        -32768.0,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    for c in bits.map(f64::from_bits).chain(scaled).chain(edges) {
        let got = Q16::from_f64(c);
        match reference(c) {
            Some(v) => assert_eq!(got.to_bits(), v, "{c:e}"),
            None => assert!(got.is_poison(), "{c:e}: {got:?}"),
        }
        if !got.is_poison() {
            assert_eq!(got.to_f64(), got.to_bits() as f64 / 65536.0, "{c:e}");
        }
    }
}

#[test]
fn tanh_is_correctly_rounded_at_every_point_below_saturation() {
    // Every Q16 value in [0, 6.25] (and their negatives by symmetry): within half a step
    // of f64's tanh, plus what the Q30 intermediate carries (measured: at most 0.50012).
    let mut worst = 0.0f64;
    for bits in 0..=409_600 {
        let x = Q16(bits);
        let (q, e) = (Number::tanh(x).to_f64(), libm::tanh(x.to_f64()));
        worst = worst.max((q - e).abs() * 65536.0);
        assert_eq!(Number::tanh(-x).to_bits(), -Number::tanh(x).to_bits());
    }
    assert!(worst <= 0.501, "{worst}");
}

#[test]
fn the_products_and_quotients_by_parts_are_exact() {
    let reference = |a: i32, b: i32| {
        let v = (a as i64 * b as i64 + (1 << 15)) >> 16;
        (v.abs() <= i32::MAX as i64).then_some(v as i32)
    };
    // 16384 * -2 = -32768: exactly i32::MIN, poison.
    assert_eq!(funcs::mul_q16_by_halves(0x4000_0000, -0x20000), None);
    assert_eq!(
        funcs::mul_q16_by_halves(0x3FFF_FFFF, -0x20000),
        Some(-0x7FFF_FFFE)
    );
    let extremes = [
        0,
        1,
        -1,
        0x7FFF,
        0x8000,
        0xFFFF,
        0x10000,
        -0x10000,
        i32::MAX,
        -i32::MAX,
    ];
    for a in extremes {
        for b in extremes {
            assert_eq!(funcs::mul_q16(a, b), reference(a, b), "{a} {b}");
            assert_eq!(funcs::mul_q16_by_halves(a, b), reference(a, b), "{a} {b}");
        }
    }
    for p in patterns(3).take(100_000) {
        let (a, b) = (p as i32, (p >> 32) as i32);
        for shift in [0, 8, 12, 16] {
            let (a, b) = (a >> shift, b >> shift);
            assert_eq!(funcs::mul_q16(a, b), reference(a, b), "{a} {b}");
            assert_eq!(funcs::mul_q16_by_halves(a, b), reference(a, b), "{a} {b}");
        }
        let (a30, b30) = (
            p as u32 % ((1 << 30) + 1),
            (p >> 32) as u32 % ((1 << 30) + 1),
        );
        assert_eq!(
            funcs::mul30u_by_halves(a30, b30),
            ((a30 as u64 * b30 as u64 + (1 << 29)) >> 30) as u32
        );
        assert_eq!(funcs::mul30u(a30, b30), funcs::mul30u_by_halves(a30, b30));
        // n < d < 2^31: the restoring division rounds as the 64-bit one does; n = d is 1.
        let d = (p >> 33) as i64 + 1;
        let n = (p as u32 >> 1) as i64 % d;
        for bits in [16, 30] {
            assert_eq!(
                funcs::div_below_one(n, d, bits),
                funcs::div_round(n << bits, d),
                "{n} / {d} at {bits} bits"
            );
            assert_eq!(funcs::div_below_one(d, d, bits), 1 << bits, "{d} / {d}");
        }
    }
}

#[test]
fn arithmetic_rounds_to_nearest_and_overflow_is_poison() {
    assert_eq!((q(1.5) + q(2.25)).to_f64(), 3.75);
    assert_eq!((q(1.5) - q(2.25)).to_f64(), -0.75);
    assert_eq!((q(1.5) * q(-2.25)).to_f64(), -3.375);
    assert_eq!((q(1.0) / q(4.0)).to_f64(), 0.25);
    // 1/3 = 21845.33 steps: 21845.
    assert_eq!((q(1.0) / q(3.0)).to_bits(), 21845);
    // 2/3 = 43690.67 steps: 43691.
    assert_eq!((q(2.0) / q(3.0)).to_bits(), 43691);
    // (1.5 steps) * 1: a half step rounds up.
    assert_eq!((Q16::from_bits(3) * q(0.5)).to_bits(), 2);
    assert!((q(30000.0) + q(30000.0)).is_poison());
    assert!((q(-30000.0) - q(30000.0)).is_poison());
    assert!((q(200.0) * q(200.0)).is_poison());
    assert!((q(1.0) / q(0.0)).is_poison());
    assert!((q(1000.0) / q(0.001)).is_poison());
    assert!(q(40000.0).is_poison());
    assert!(q(f64::NAN).is_poison());
    assert_eq!(q(32767.0).to_f64(), 32767.0);
}

/// The ends of the range are numbers and a step beyond them is poison, for a quotient (computed in
/// 64 bits and range-tested as the elementary functions' results are) as for a sum.
#[test]
fn the_ends_of_the_range_are_numbers() {
    assert_eq!(Q16::MAX / Q16::ONE, Q16::MAX);
    assert_eq!(Q16::MIN / Q16::ONE, Q16::MIN);
    assert_eq!(Q16::MIN / -Q16::ONE, Q16::MAX);
    // MAX * 65536 / 65535 steps: beyond MAX.
    assert!((Q16::MAX / Q16::from_bits(65535)).is_poison());
    assert!((Q16::MIN / Q16::from_bits(65535)).is_poison());
    assert_eq!(Q16::MAX - Q16::STEP + Q16::STEP, Q16::MAX);
    assert!((Q16::MIN - Q16::STEP).is_poison());
}

/// `Iterator::sum` and `product`, over values and over references: 0 and 1 when empty, poison
/// spreads.
#[test]
fn sums_and_products_of_iterators() {
    let xs = [q(1.5), q(-0.25), q(2.0)];
    assert_eq!(xs.iter().sum::<Q16>(), q(3.25));
    assert_eq!(xs.into_iter().sum::<Q16>(), q(3.25));
    assert_eq!(xs.iter().product::<Q16>(), q(-0.75));
    assert_eq!(xs.into_iter().product::<Q16>(), q(-0.75));
    let none: [Q16; 0] = [];
    assert_eq!(none.iter().sum::<Q16>(), q(0.0));
    assert_eq!(none.into_iter().product::<Q16>(), q(1.0));
    assert!([q(1.0), Q16::POISON].iter().sum::<Q16>().is_poison());
    assert!([Q16::POISON, q(0.0)]
        .into_iter()
        .product::<Q16>()
        .is_poison());
}

#[test]
fn poison_spreads_and_compares_like_nan() {
    let p = Q16::POISON;
    for r in [
        p + q(1.0),
        q(1.0) - p,
        p * q(0.0),
        q(0.0) / p,
        -p,
        p.exp(),
        p.abs(),
        // The pattern less a negative number does not overflow: it must stay poison.
        p - q(-1.0),
        // Two-argument functions, poison in either argument.
        p.atan2(q(1.0)),
        q(1.0).atan2(p),
        p.hypot(q(0.5)),
        q(0.5).hypot(p),
        p.pow(q(2.0)),
        q(2.0).pow(p),
    ] {
        assert!(r.is_poison(), "{r:?}");
    }
    assert!(p != p);
    assert!(p.partial_cmp(&q(0.0)).is_none());
    assert_eq!(p.partial_cmp(&q(1.0)), None);
    assert!(!p.is_finite() && q(3.0).is_finite());
    assert!(p.to_f64().is_nan());
    // Adding to the poison pattern must not make a number of it.
    assert!((p + q(0.5)).is_poison());
}

/// The functions built on comparisons, at both sides of their kink and at it, and `max`, `min`.
#[test]
fn abs_relu_leaky_relu_and_softplus() {
    for (x, abs, relu, leaky) in [
        (-2.5, 2.5, 0.0, -0.3125),
        (2.5, 2.5, 2.5, 2.5),
        (0.0, 0.0, 0.0, 0.0),
    ] {
        assert_eq!(q(x).abs(), q(abs), "abs({x})");
        assert_eq!(q(x).relu(), q(relu), "relu({x})");
        assert_eq!(q(x).leaky_relu(0.125), q(leaky), "leaky_relu({x}, 0.125)");
    }
    assert_eq!(q(-1.0).max(q(2.0)), q(2.0));
    assert_eq!(q(-1.0).min(q(2.0)), q(-1.0));
    // softplus(0) = ln 2, softplus(2) = ln(1 + e^2) = 2.126928: within a step.
    assert!((q(0.0).softplus().to_f64() - core::f64::consts::LN_2).abs() <= 1.0 / 65536.0);
    assert!((q(2.0).softplus().to_f64() - 2.126_928_011).abs() <= 1.0 / 65536.0);
}

/// `powf` is `pow` of the constant: powers of 2 exact, a root within a step.
#[test]
fn powf_is_pow_of_the_constant() {
    assert_eq!(q(2.0).powf(3.0), q(8.0));
    assert_eq!(q(2.0).powf(-2.0), q(0.25));
    assert!((q(2.0).powf(0.5).to_f64() - core::f64::consts::SQRT_2).abs() <= 1.0 / 65536.0);
    assert!(q(-2.0).powf(0.5).is_poison());
}

/// `Scalar`'s parts: `EPSILON` is one step of the format, `ln_1p` is `ln(1 + x)`.
#[test]
fn epsilon_is_one_step_and_ln_1p() {
    let eps = <Q16 as Scalar>::EPSILON;
    assert_eq!(q(eps), Q16::STEP);
    assert_eq!(q(1.0 + eps).to_bits(), q(1.0).to_bits() + 1);
    assert!((q(1.0).ln_1p().to_f64() - core::f64::consts::LN_2).abs() <= eps);
    assert!((q(-0.5).ln_1p().to_f64() + core::f64::consts::LN_2).abs() <= eps);
    assert!(q(-1.0).ln_1p().is_poison());
    assert!(Scalar::is_zero(q(0.0)) && !Scalar::is_zero(Q16::STEP));
}

#[test]
fn powi_is_repeated_multiplication() {
    assert_eq!(q(2.0).powi(10).to_f64(), 1024.0);
    assert_eq!(q(2.0).powi(-2).to_f64(), 0.25);
    assert_eq!(q(-1.5).powi(3).to_f64(), -3.375);
    assert_eq!(q(0.0).powi(0).to_f64(), 1.0);
    assert!(q(2.0).powi(15).is_poison());
    assert!(q(0.0).powi(-1).is_poison());
    assert!(Q16::POISON.powi(0).is_poison());
    // x^-1 is the quotient 1 / x, rounded once: 2^32 / 780903145 = 5.4999999981 steps, 5; the
    // exponential of -ln |x| that larger exponents take rounds it to 6 (so this point tells the
    // two paths apart).
    let x = Q16::from_bits(-780_903_145);
    assert_eq!(x.powi(-1).to_bits(), -5);
    assert_eq!(x.pow(q(-1.0)).to_bits(), -6);
}

/// Beyond `-1..=4` a power is `e^(n ln |x|)`, whose error does not grow with `n`: against
/// `f64` on the Q16 base itself, within 4 steps, for exponents up to the largest whose power is
/// in range (bases a few steps from 1 in magnitude, where `n` is largest; `tests/fixed.rs`
/// measures a grid of such powers).
#[test]
fn powi_of_a_large_exponent_is_within_steps_of_f64() {
    for bits in [-65542, -65530, -65537, 65535, 65536 + 3, 2 * 65536, 32768] {
        let x = Q16::from_bits(bits);
        let xf = x.to_f64();
        for n in [
            5,
            -2,
            73,
            -73,
            1001,
            32767,
            32768,
            -39937,
            40000,
            65536 * 8,
            i32::MAX,
        ] {
            let exact = xf.powi(n);
            let got = x.powi(n);
            if exact.abs() >= 32767.0 {
                assert!(got.is_poison(), "{xf}^{n}: {got:?}, f64 {exact}");
            } else {
                let error = (got.to_f64() - exact).abs();
                assert!(
                    error <= 4.0 / 65536.0,
                    "{xf}^{n}: {got:?}, f64 {exact}, error {error:e}"
                );
            }
        }
    }
    // Exponents whose `n ln |x|` is beyond 64 bits (|ln x| near 10.4 or 11.1, |n| near 2^31):
    // poison or 0, never a product cut to 64 bits.
    let (largest, smallest) = (Q16::from_bits(i32::MAX), Q16::from_bits(1));
    assert!(largest.powi(i32::MAX).is_poison());
    assert!(smallest.powi(i32::MIN).is_poison());
    // Where that product, cut to 64 bits, would wrap to a few units (Q30) and read as a number:
    // around n = 2^64 / (ln x 2^30), for the largest and the smallest bases.
    for (x, sign) in [(largest, 1.0), (smallest, -1.0)] {
        let wrap = sign * 2f64.powi(64) / (x.to_f64().ln().abs() * 2f64.powi(30));
        for n in wrap as i32 - 50..wrap as i32 + 50 {
            assert!(x.powi(n).is_poison(), "{x:?}^{n}: {:?}", x.powi(n));
        }
    }
    assert_eq!(largest.powi(i32::MIN).to_f64(), 0.0);
    assert_eq!(smallest.powi(i32::MAX).to_f64(), 0.0);
    assert_eq!(q(1.0).powi(i32::MIN).to_f64(), 1.0);
    assert_eq!(q(-1.0).powi(i32::MAX).to_f64(), -1.0);
    assert_eq!(q(0.0).powi(7).to_f64(), 0.0);
    assert!(q(0.0).powi(-7).is_poison());
}

/// `funcs::pow` with integer exponents `Q16::powi` never gives it (`-1 <= n <= 4`): `0^0 = 1`,
/// `0^n` 0 for `n > 0` and undefined for `n < 0`, `x^0 = 1`, odd and even powers of a negative
/// base.
#[test]
fn pow_on_the_bits_of_small_integer_exponents() {
    let n = |n: i64| n << 16;
    assert_eq!(funcs::pow(0, n(0)), 1 << 16);
    assert_eq!(funcs::pow(0, n(2)), 0);
    assert_eq!(funcs::pow(0, n(-1)), funcs::UNDEFINED);
    assert_eq!(funcs::pow(3 << 16, n(0)), 1 << 16);
    assert_eq!(funcs::pow(-2 << 16, n(3)), -8 << 16);
    assert_eq!(funcs::pow(-2 << 16, n(2)), 4 << 16);
}

#[test]
fn display_and_debug() {
    assert_eq!(format!("{}", q(-2.5)), "-2.5");
    assert_eq!(format!("{:?}", q(0.25)), "Q16(0.25)");
    assert_eq!(format!("{}", Q16::POISON), "poison");
}

#[test]
fn atan_in_q30_is_within_a_few_units_of_2_to_the_minus_30() {
    // The Q30 angle that atan, atan2, asin and acos round to Q16: its own error, far below
    // what a Q16 result can show (a step is 2^14 of these units), over every 61st t in [0, 1].
    let unit = (1u64 << 30) as f64;
    let mut worst = 0.0f64;
    for t in (0..=1i64 << 30).step_by(61).chain([1 << 30]) {
        let exact = (t as f64 / unit).atan() * unit;
        worst = worst.max((funcs::atan_unit(t) as f64 - exact).abs());
    }
    println!("atan_unit: {worst:.2} units of 2^-30");
    assert!(worst <= 4.5, "atan_unit: {worst} units of 2^-30");
}
