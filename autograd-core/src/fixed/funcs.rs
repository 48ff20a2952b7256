//! The elementary functions of [`Q16`](super::Q16), on the bits: integer arithmetic only (a
//! part without an FPU runs them without a float routine), the same result on every target.
//!
//! Each takes the bits of a non-poison argument and returns the bits of the result as an `i64`;
//! the caller turns anything out of the `i32` range, [`UNDEFINED`] included, into poison.
//! Internally they reduce the argument, evaluate a polynomial in Q30 (30 fraction bits, so the
//! truncation and rounding of the series stay below 2^-26) and round once to Q16. The error
//! stated on each function is the largest measured against `f64` over a grid of every 97th
//! value of the range named (`cargo test -p autograd-core --test fixed -- --nocapture` prints
//! them; the test fails if one grows past its bound), in steps of 2^-16.

/// An out-of-range marker: the caller makes it poison.
pub(super) const UNDEFINED: i64 = i64::MAX;

mod tanh;

pub(super) use tanh::tanh;
#[cfg(test)]
pub(super) use tanh::{mul30u, mul30u_by_halves};

const ONE30: i64 = 1 << 30;
const ONE16: i64 = 1 << 16;
// round(c * 2^30).
const LN2: i64 = 744_261_118;
const INV_LN2: i64 = 1_549_082_005;
const LOG10_E: i64 = 466_320_149;
const PI: i64 = 3_373_259_426;
const HALF_PI: i64 = 1_686_629_713;
const TWO_PI: i64 = 6_746_518_852;
const PI_6: i64 = 562_209_904;
const SQRT3: i64 = 1_859_775_393;
const SQRT2: i64 = 1_518_500_250;
const TAN_PI_12: i64 = 287_708_255;
/// `1 / k!`, k = 0..=8.
const EXP: [i64; 9] = [
    1_073_741_824,
    1_073_741_824,
    536_870_912,
    178_956_971,
    44_739_243,
    8_947_849,
    1_491_308,
    213_044,
    26_631,
];
/// `(-1)^k / (2k + 1)!`, k = 0..=5.
const SIN: [i64; 6] = [1_073_741_824, -178_956_971, 8_947_849, -213_044, 2_959, -27];
/// `(-1)^k / (2k + 1)`, k = 0..=5.
const ATAN: [i64; 6] = [
    1_073_741_824,
    -357_913_941,
    214_748_365,
    -153_391_689,
    119_304_647,
    -97_612_893,
];
/// `1 / (2k + 1)`, k = 0..=4.
const ATANH: [i64; 5] = [
    1_073_741_824,
    357_913_941,
    214_748_365,
    153_391_689,
    119_304_647,
];

/// `v / 2^s`, rounded to nearest (halves up).
#[inline]
fn shr_round(v: i64, s: u32) -> i64 {
    (v + (1 << (s - 1))) >> s
}

/// Armv6-M (Cortex-M0/M0+) has no 32 x 32 -> 64 multiply: an `i64` product there is a call to
/// a routine that multiplies 64-bit operands, which [`mul_q16_by_halves`] avoids. Armv6-M also
/// has no compare-and-swap, and `target_has_atomic` is the stable `cfg` that tells it from
/// Armv7-M: the `thumb2` target feature is not visible to `cfg` on stable Rust (a test of it was
/// false on every Arm target, so the M3 and M4F took the 16-bit halves too).
pub(crate) const NO_LONG_MULTIPLY: bool =
    cfg!(all(target_arch = "arm", not(target_has_atomic = "32")));

/// `floor(a b / 2^16 + 1/2)`, the bits of a Q16 product rounded to nearest with halves up, or
/// `None` outside the range (`i32::MIN` included: poison). Exact on every target: on Armv6-M
/// from four 16 x 16 products in 32-bit arithmetic, elsewhere from one 64-bit product.
#[inline]
pub(super) fn mul_q16(a: i32, b: i32) -> Option<i32> {
    if NO_LONG_MULTIPLY {
        return mul_q16_by_halves(a, b);
    }
    let v = (i64::from(a) * i64::from(b) + (1 << 15)) >> 16;
    i32::try_from(v).ok().filter(|&v| v != i32::MIN)
}

/// [`mul_q16`] without a 64-bit product (tested on every target, used on Armv6-M). With
/// `a = a1 2^16 + a0` (`a1 = a >> 16` signed, `a0 = a & 0xFFFF`), and `t = a1 b0`, `u = a0 b1`
/// split the same way: `a b / 2^16 + 1/2 = s 2^16 + l` where `l` collects the low halves of `t`
/// and `u` and the rounded `a0 b0 / 2^16`, and `s` the rest and `l`'s carry.
#[inline]
pub(super) fn mul_q16_by_halves(a: i32, b: i32) -> Option<i32> {
    let (a1, a0, b1, b0) = (a >> 16, a & 0xFFFF, b >> 16, b & 0xFFFF);
    // a1, b1 in [-2^15, 2^15), a0, b0 in [0, 2^16): |a1 b1| <= 2^30, |t|, |u| < 2^31,
    // a0 b0 + 2^15 < 2^32.
    let (t, u) = (a1 * b0, a0 * b1);
    let low = ((a0 as u32 * b0 as u32 + (1 << 15)) >> 16) as i32;
    let l = (t & 0xFFFF) + (u & 0xFFFF) + low; // < 3 2^16
    let s = a1 * b1 + (t >> 16) + (u >> 16) + (l >> 16); // |s| < 2^30 + 2^16
    if !(-(1 << 15)..1 << 15).contains(&s) {
        return None;
    }
    let v = (s << 16) | (l & 0xFFFF);
    (v != i32::MIN).then_some(v)
}

/// Product of two Q30 numbers (each below 2^32 in magnitude), rounded.
#[inline]
fn mul30(a: i64, b: i64) -> i64 {
    shr_round(a * b, 30)
}

/// `n 2^bits / d` rounded to nearest for `0 <= n <= d <= 2^31`, by restoring division: on a part
/// without a divide instruction, a few instructions per bit instead of a 64-bit division routine.
#[inline(always)]
pub(super) fn div_below_one(n: i64, d: i64, bits: u32) -> i64 {
    debug_assert!(0 <= n && n <= d && d <= 1 << 31);
    if n == d {
        return 1 << bits;
    }
    let (mut r, d) = (n as u32, d as u32);
    let mut q = 0u32;
    for _ in 0..bits {
        // r < d <= 2^31, so 2r fits.
        r <<= 1;
        q <<= 1;
        if r >= d {
            r -= d;
            q |= 1;
        }
    }
    // Round half up: the remainder is at least half the divisor.
    i64::from(q) + i64::from(r >= d - r)
}

/// `n / d` rounded to nearest, halves away from zero (`d != 0`).
pub(super) fn div_round(n: i64, d: i64) -> i64 {
    let (q, r) = (n / d, n % d);
    if 2 * r.unsigned_abs() >= d.unsigned_abs() {
        q + if (n < 0) == (d < 0) { 1 } else { -1 }
    } else {
        q
    }
}

/// `p[0] + z (p[1] + z (p[2] + ...))` in Q30.
#[inline]
fn horner(p: &[i64], z: i64) -> i64 {
    p.iter().rev().fold(0, |acc, &c| c + mul30(z, acc))
}

/// Floor of the square root.
fn isqrt(mut n: u64) -> u64 {
    let mut root = 0u64;
    let mut bit = 1u64 << 62;
    while bit > n {
        bit >>= 2;
    }
    while bit != 0 {
        if n >= root + bit {
            n -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    root
}

/// The square root of `n`, rounded to nearest.
fn sqrt_round(n: u64) -> u64 {
    let r = isqrt(n);
    // (r + 1/2)^2 = r^2 + r + 1/4 <= n  <=>  n - r^2 > r (integers).
    if n - r * r > r {
        r + 1
    } else {
        r
    }
}

/// `e^v` for `v` in Q30, with `frac` fraction bits (at most 30); [`UNDEFINED`] above `e^12`,
/// 0 below `e^-40`.
fn exp_bits(v: i64, frac: u32) -> i64 {
    if v > 12 * ONE30 {
        return UNDEFINED;
    }
    if v < -40 * ONE30 {
        return 0;
    }
    // v = k ln 2 + r, |r| <= ln 2 / 2: k from v / ln 2 (Q30 times Q30 is Q60).
    let k = shr_round(shr_round(v, 8) * INV_LN2, 52);
    let r = v - k * LN2;
    let e = horner(&EXP, r); // e^r in [0.7, 1.42], Q30
    let shift = k + frac as i64 - 30;
    if shift >= 0 {
        e << shift
    } else if shift > -62 {
        shr_round(e, (-shift) as u32)
    } else {
        0
    }
}

/// `e^x`. Measured over [-16, 11]: at most 2.25 steps (the Q30 intermediate's relative error
/// times a result up to 2^15).
pub(super) fn exp(x: i32) -> i64 {
    exp_bits((x as i64) << 14, 16)
}

/// `2^x`. Measured over [-20, 15.5]: at most 1.76 steps.
pub(super) fn exp2(x: i32) -> i64 {
    exp_bits(shr_round(x as i64 * LN2, 16), 16)
}

/// `ln x` in Q30 for `x > 0` (bits of a Q16 number): `x = m 2^e` with `m` in `[1/sqrt 2,
/// sqrt 2)`, `ln m = 2 atanh((m - 1) / (m + 1))`. Returns `(e, ln m)`.
fn ln_parts(x: i32) -> (i64, i64) {
    let top = 31 - x.leading_zeros() as i64; // x in [2^top, 2^(top+1))
    let mut m = (x as i64) << (30 - top); // [1, 2) in Q30
    let mut e = top - 16;
    if m > SQRT2 {
        m >>= 1;
        e += 1;
    }
    let s = div_round((m - ONE30) << 30, m + ONE30); // |s| <= 0.1716
    (e, 2 * mul30(s, horner(&ATANH, mul30(s, s))))
}

/// `ln x`; [`UNDEFINED`] for `x <= 0`. Measured over the positive range: at most 0.5 steps.
pub(super) fn ln(x: i32) -> i64 {
    if x <= 0 {
        return UNDEFINED;
    }
    let (e, l) = ln_parts(x);
    shr_round(e * LN2 + l, 14)
}

/// `log2 x`; [`UNDEFINED`] for `x <= 0`. Measured over the positive range: at most 0.5 steps.
pub(super) fn log2(x: i32) -> i64 {
    if x <= 0 {
        return UNDEFINED;
    }
    let (e, l) = ln_parts(x);
    shr_round((e << 30) + mul30(l, INV_LN2), 14)
}

/// `log10 x`; [`UNDEFINED`] for `x <= 0`. Measured over the positive range: at most 0.5
/// steps.
pub(super) fn log10(x: i32) -> i64 {
    if x <= 0 {
        return UNDEFINED;
    }
    let (e, l) = ln_parts(x);
    shr_round(mul30(e * LN2 + l, LOG10_E), 14)
}

/// `x^y` for `y` in Q16 (an `i64`, so that an integer exponent `n` is `n << 16` however large):
/// `e^(y ln x)` for `x > 0`; `0^y` is 0 for `y > 0`, 1 for `y = 0`, undefined for `y < 0`; a
/// negative `x` needs an integer `y` (its power has the sign of an odd one). `ln x` is taken to
/// 2^-60 ([`ln_q60`]) and its product with `y` is exact, so the exponent's only rounding is the
/// last, to Q30, and the error does not grow with `y`: measured, at most 0.5 steps per unit of
/// a result above 1 for `x` in [0, 200] and `y` in [-3, 3], and 3.3 steps for integer `y` into
/// the hundreds of thousands at bases near +-1 (`tests/fixed.rs`). Powers of 2 are exact.
pub(super) fn pow(x: i32, y: i64) -> i64 {
    if x == 0 {
        return match y {
            0 => ONE16,
            y if y > 0 => 0,
            _ => UNDEFINED,
        };
    }
    if x < 0 && y & (ONE16 - 1) != 0 {
        return UNDEFINED;
    }
    // y (e ln 2 + ln m) in Q76, rounded once to Q30: for an integer y the multiple of ln 2 is
    // that of the Q30 constant `exp_bits` reduces by, so 2^n comes out exact (2^14 is 16384,
    // not a step below). Below 2^111: |e| <= 15, |y| <= 2^47, |ln m| < 0.35.
    let (e, ln_m) = ln_q60(x.unsigned_abs());
    let y = i128::from(y);
    let v = (((e * y * i128::from(LN2)) << 30) + ln_m * y + (1 << 45)) >> 46;
    if v > (13 * ONE30) as i128 {
        return UNDEFINED;
    }
    let r = exp_bits(v.max(-(41 * ONE30) as i128) as i64, 16);
    let odd = x < 0 && (y >> 16) & 1 == 1;
    if odd && r != UNDEFINED {
        -r
    } else {
        r
    }
}

/// `sqrt 2` in Q60.
const SQRT2_Q60: u64 = 1_630_477_228_166_597_777;

/// `ln x` for `x > 0` (bits of a Q16 number) as `(e, ln m)`, `ln m` in Q60: `x = m 2^e` with `m`
/// in `[1/sqrt 2, sqrt 2)`, `ln m = 2 atanh(s)`, `s = (m - 1) / (m + 1)` (`|s| < 0.1716`) by
/// restoring division to 60 bits and the series `s + s^3/3 + ... + s^25/25` (the next term is
/// below 2^-63).
fn ln_q60(x: u32) -> (i128, i128) {
    let top = 31 - x.leading_zeros(); // x in [2^top, 2^(top+1)), top <= 31
    let mut m = u64::from(x) << (60 - top); // [1, 2) in Q60; x's bits end above bit 28
    let mut e = i128::from(top) - 16;
    if m > SQRT2_Q60 {
        m >>= 1; // (the bit shifted out is 0)
        e += 1;
    }
    let one = 1u64 << 60;
    let (num, den) = (m.abs_diff(one), m + one); // num < den < 2^62
    let (mut r, mut q) = (num, 0u64);
    for _ in 0..60 {
        // r < den < 2^62: doubled, it fits.
        r <<= 1;
        q <<= 1;
        if r >= den {
            r -= den;
            q |= 1;
        }
    }
    let s = if m < one {
        -i128::from(q)
    } else {
        i128::from(q)
    };
    let s2 = (s * s) >> 60;
    let (mut term, mut sum) = (s, s);
    for k in (3..=25).step_by(2) {
        term = (term * s2) >> 60;
        sum += term / k;
    }
    (e, 2 * sum)
}

/// `sqrt x`, rounded to nearest (exact); [`UNDEFINED`] for `x < 0`.
pub(super) fn sqrt(x: i32) -> i64 {
    if x < 0 {
        return UNDEFINED;
    }
    sqrt_round((x as u64) << 16) as i64
}

/// `cbrt x`, rounded to nearest (exact).
pub(super) fn cbrt(x: i32) -> i64 {
    // r = cbrt(|x| 2^32) in integers: (r / 2^16)^3 = |x| / 2^16.
    let n = (x.unsigned_abs() as u64) << 32;
    let (mut lo, mut hi) = (0u64, 1u64 << 21);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if mid * mid * mid <= n {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    // Round up if (lo + 1/2)^3 <= n, i.e. (2 lo + 1)^3 <= 8 n.
    let twice = 2 * lo as u128 + 1;
    let r = if twice * twice * twice <= 8 * n as u128 {
        lo + 1
    } else {
        lo
    } as i64;
    if x < 0 {
        -r
    } else {
        r
    }
}

/// `sqrt(x^2 + y^2)`, rounded to nearest (exact: measured at most 0.5 steps).
pub(super) fn hypot(x: i32, y: i32) -> i64 {
    let (x, y) = (x.unsigned_abs() as u64, y.unsigned_abs() as u64);
    sqrt_round(x * x + y * y) as i64
}

/// `(sin a, cos a)` in Q30 for `a` in Q30 (any magnitude below 2^46).
fn sin_cos_q30(a: i64) -> (i64, i64) {
    let sin_of = |a: i64| {
        // To (-pi, pi], then to [-pi/2, pi/2] by sin(pi - a) = sin a.
        let mut a = a.rem_euclid(TWO_PI);
        if a > PI {
            a -= TWO_PI;
        }
        if a > HALF_PI {
            a = PI - a;
        } else if a < -HALF_PI {
            a = -PI - a;
        }
        mul30(a, horner(&SIN, mul30(a, a)))
    };
    (sin_of(a), sin_of(a + HALF_PI))
}

/// `(sin x, cos x)` from one angle (`sin_cos_q30` computes both). Measured over [-1000, 1000]:
/// each at most 0.51 steps.
pub(super) fn sin_cos(x: i32) -> (i64, i64) {
    let (s, c) = sin_cos_q30((x as i64) << 14);
    (shr_round(s, 14), shr_round(c, 14))
}

/// `sin x`: [`sin_cos`]'s first.
pub(super) fn sin(x: i32) -> i64 {
    sin_cos(x).0
}

/// `cos x`: [`sin_cos`]'s second.
pub(super) fn cos(x: i32) -> i64 {
    sin_cos(x).1
}

/// `tan x`; out of range near the poles. Measured over [-10, 10]: at most 0.5 steps, or 0.5
/// steps per unit of a result above 1.
pub(super) fn tan(x: i32) -> i64 {
    let (s, c) = sin_cos_q30((x as i64) << 14);
    if c == 0 {
        return UNDEFINED;
    }
    div_round(s << 16, c)
}

/// `sinh x`. Measured over [-12, 12]: at most 2.9 steps.
pub(super) fn sinh(x: i32) -> i64 {
    let v = (x as i64) << 14;
    let (p, m) = (exp_bits(v, 30), exp_bits(-v, 30));
    if p == UNDEFINED || m == UNDEFINED {
        return UNDEFINED;
    }
    shr_round(p - m, 15)
}

/// `cosh x`. Measured over [-12, 12]: at most 1.95 steps.
pub(super) fn cosh(x: i32) -> i64 {
    let v = (x as i64) << 14;
    let (p, m) = (exp_bits(v, 30), exp_bits(-v, 30));
    if p == UNDEFINED || m == UNDEFINED {
        return UNDEFINED;
    }
    shr_round(p + m, 15)
}

/// `atan t` in Q30 for `t` in `[0, 1]` (Q30): above `tan(pi/12)` by
/// `atan t = pi/6 + atan((t sqrt 3 - 1) / (t + sqrt 3))`, then the series.
pub(super) fn atan_unit(t: i64) -> i64 {
    let (base, t) = if t > TAN_PI_12 {
        let u = div_round((mul30(t, SQRT3) - ONE30) << 30, t + SQRT3);
        (PI_6, u)
    } else {
        (0, t)
    };
    base + mul30(t, horner(&ATAN, mul30(t, t)))
}

/// The angle of `(x, y)` in Q30, from magnitudes in any common scale (each below 2^31).
fn atan2_any(y: i64, x: i64) -> i64 {
    if x == 0 && y == 0 {
        return 0;
    }
    let (ax, ay) = (x.abs(), y.abs());
    let mut angle = if ay <= ax {
        atan_unit(div_round(ay << 30, ax))
    } else {
        HALF_PI - atan_unit(div_round(ax << 30, ay))
    };
    if x < 0 {
        angle = PI - angle;
    }
    if y < 0 {
        -angle
    } else {
        angle
    }
}

/// `atan x`. Measured over the whole range: at most 0.5 steps.
pub(super) fn atan(x: i32) -> i64 {
    shr_round(atan2_any(x as i64, ONE16), 14)
}

/// `atan2(y, x)`, 0 at the origin. Measured over [-100, 100]^2: at most 0.51 steps.
pub(super) fn atan2(y: i32, x: i32) -> i64 {
    shr_round(atan2_any(y as i64, x as i64), 14)
}

/// `asin x = atan2(x, sqrt(1 - x^2))`; [`UNDEFINED`] for `|x| > 1`. Measured: at most 0.5
/// steps.
pub(super) fn asin(x: i32) -> i64 {
    if x.unsigned_abs() > ONE16 as u32 {
        return UNDEFINED;
    }
    shr_round(asin_q30(x), 14)
}

/// `acos x = pi/2 - asin x`; [`UNDEFINED`] for `|x| > 1`. Measured: at most 0.5 steps.
pub(super) fn acos(x: i32) -> i64 {
    if x.unsigned_abs() > ONE16 as u32 {
        return UNDEFINED;
    }
    shr_round(HALF_PI - asin_q30(x), 14)
}

fn asin_q30(x: i32) -> i64 {
    let s = (x as i64) << 14;
    let c = isqrt(((ONE30 - mul30(s, s)).max(0) as u64) << 30) as i64;
    atan2_any(s, c)
}
