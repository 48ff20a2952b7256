//! `tanh` for `f32` in 32-bit integer arithmetic: the same bits on every target, more accurate
//! than libm's `tanhf`, and cheap where `f32` arithmetic is in software.
//!
//! On a Cortex-M0 or M3 every `f32` addition or product is a library call of about a hundred
//! instructions, and libm's `tanhf` makes about 28 of them (through `expm1f`): the 20 `tanh` of
//! an XOR training step were half of the M0's step. Here the same function takes a few 32-bit
//! integer products instead:
//! - below 2^-12, `tanh x` rounds to `x`; from 9.0109 up (`atanh(1 - 2^-25)`) it rounds to 1;
//! - below 1/2, `tanh x = x (1 - s Q(s))` with `s = x^2` and `Q` a polynomial of degree 5 (Q32
//!   fixed point; its error times `s` is below 2^-34, so the result is as accurate relatively as
//!   the final product);
//! - from 1/2 up, `tanh x = 1 - 2E / (1 + E)` with `E = e^(-2x) = 2^-y`, `y = 2x log2(e)`
//!   (Q27): `2^-y` from its integer part (a shift), a table of `2^(-j/16)` and a cubic in the
//!   rest (below 1/16); `1 / (1 + E)` from a quadratic and two Newton steps (no division: a
//!   part without a divide instruction would take a library call or a loop per bit).
//!
//! Each path ends in one rounding of a 31- or 32-bit fixed-point result to the 24 bits of an
//! `f32`. Against the exact `tanh`, the error is at most 0.5635 units in the last place over
//! every `f32` from 2^-12 to 9.0109, each checked (0.60 % of them are not the nearest `f32`),
//! and the results outside are `x` or 1, the nearest (one in 97 checked); libm's `tanhf` errs by up to 2.19
//! units (25 % not the nearest). Integer arithmetic gives the same bits on a host, an M0 and an
//! M4F, so a network trained on a part and on the host ends bit-identical (`cargo xtask
//! firmware` compares them).
//!
//! The coefficients are Chebyshev interpolants (computed with mpmath at 60 digits): `Q` at six
//! nodes of `[0, 1/4]`, `2^-g` at four of `[0, 1/16]`, `1 / (1 + E)` at three of `[0, e^-1]`;
//! their errors, 2^-35 for `s Q(s)`, 2^-29.7 relative for `2^-g` and 0.23 % relative for
//! `1 / (1 + E)` (lowered to stay below it; before two Newton steps), were measured at 4,000
//! points of each interval.

use crate::fixed::NO_LONG_MULTIPLY;

/// `round(2^-12)` as `f32` bits: below it `tanh x` rounds to `x`.
const TINY: u32 = 0x3980_0000;
/// The least `f32` above `atanh(1 - 2^-25) = 9.01091334`: from it up `tanh x` rounds to 1.
const SATURATED: u32 = 0x4110_2cb4;
/// `0.5` as `f32` bits: the boundary between the two paths.
const HALF: u32 = 0x3f00_0000;

/// The coefficients of `Q(s) = 1/3 - q1 s + q2 s^2 - ...` in Q32 (magnitudes; the signs
/// alternate), so that `tanh x = x (1 - s Q(s))` for `s = x^2 <= 1/4`.
const Q: [u32; 6] = [
    1_431_655_765,
    572_662_146,
    231_784_347,
    93_798_136,
    37_030_439,
    11_509_407,
];

/// `2^-g = p0 - p1 g + p2 g^2 - p3 g^3` for `0 <= g < 1/16`, in Q32 (magnitudes).
const P: [u32; 4] = [4_294_967_291, 2_977_041_993, 1_031_566_400, 233_285_634];

/// `round(2^(-j/16) 2^31)`, j = 0..16.
const EXP2_NEG_SIXTEENTHS: [u32; 16] = [
    2_147_483_648,
    2_056_437_387,
    1_969_251_188,
    1_885_761_398,
    1_805_811_301,
    1_729_250_827,
    1_655_936_265,
    1_585_730_000,
    1_518_500_250,
    1_454_120_821,
    1_392_470_869,
    1_333_434_672,
    1_276_901_417,
    1_222_764_986,
    1_170_923_762,
    1_121_280_436,
];

/// `1 / (1 + E) ~ c0 - c1 E + c2 E^2` for `0 <= E <= e^-1`, `c0` in Q31 and `c1`, `c2` in Q32:
/// the Chebyshev interpolant at three nodes with `c0` lowered by 1.05 times its error, so that it
/// is below `1 / (1 + E)` everywhere (relative error at most 0.23 %).
const RECIPROCAL: [u32; 3] = [2_143_280_297, 4_090_216_650, 2_635_755_990];

/// `round((log2(e) - 1) 2^32)`.
const LOG2E_MINUS_ONE: u32 = 1_901_360_723;

/// `tanh(x)` in integer arithmetic (module docs), within 0.5635 units in the last place; NaN
/// stays NaN, `tanh(±inf) = ±1`, `tanh(-0) = -0`.
pub(crate) fn tanhf(x: f32) -> f32 {
    let bits = x.to_bits();
    let sign = bits & 0x8000_0000;
    let abs = bits & 0x7fff_ffff;
    if abs < TINY {
        return x; // zeros and subnormals included
    }
    if abs >= SATURATED {
        if abs > 0x7f80_0000 {
            return x; // NaN
        }
        return f32::from_bits(sign | 0x3f80_0000);
    }
    // |x| = m 2^(e - 31), with m in [2^31, 2^32) and e in [-12, 3].
    let e = (abs >> 23) as i32 - 127;
    let m = (abs << 8) | 0x8000_0000;
    let magnitude = if abs < HALF { small(m, e) } else { large(m, e) };
    f32::from_bits(sign | magnitude)
}

/// `|tanh x|` as `f32` bits for `2^-12 <= |x| = m 2^(e - 31) < 1/2`.
#[inline]
fn small(m: u32, e: i32) -> u32 {
    // s = x^2 in Q32: m^2 2^(2e - 62) 2^32 = mulhi(m, m) 2^(2e + 2), with 2e + 2 in [-22, -2].
    let s = mulhi(m, m) >> (-2 * e - 2) as u32;
    // Q(s), every bracket positive (each is a tail of tanh's alternating series).
    let q = alternating(&Q, s);
    // 1 - s Q(s) in Q32: below 1 (s >= 2^-24 makes s Q(s) at least 85 units) and above 0.9.
    let r = 0u32.wrapping_sub(mulhi(s, q));
    // |tanh x| = mulhi(m, r) 2^(e - 31), the product in [0.9 2^31, 2^32).
    round_to_f32(mulhi(m, r), e)
}

/// `|tanh x|` as `f32` bits for `1/2 <= |x| = m 2^(e - 31) < 9.0109`.
#[inline]
fn large(m: u32, e: i32) -> u32 {
    // |x| in Q28 (exact: m has 8 low zero bits, the shift is at most 4).
    let a = m >> (3 - e) as u32;
    // y = 2 |x| log2(e) in Q27: below 26.1 2^27 < 2^32.
    let y = a + mulhi(a, LOG2E_MINUS_ONE);
    let (k, j) = (y >> 27, ((y >> 23) & 15) as usize);
    // The rest below 1/16, g, in Q32, and 2^-g in Q32.
    let g = (y & 0x7f_ffff) << 5;
    let p = alternating(&P, g);
    // E = e^(-2|x|) = 2^-y in Q32 (k >= 1: y >= log2(e)).
    let big_e = mulhi(EXP2_NEG_SIXTEENTHS[j], p) >> (k - 1);
    // r = 1 / (1 + E) in Q31, from below: a quadratic within 0.23 %, then two Newton steps
    // r += r (1 - (1 + E) r), each squaring the relative error (to about 2^-36, before the
    // products' truncation, which keeps r below 1 / (1 + E) and so the correction positive).
    let d = (1 << 31) + (big_e >> 1); // 1 + E in Q31
    let [c0, c1, c2] = RECIPROCAL;
    let mut r = c0 - (mulhi(big_e, c1 - mulhi(big_e, c2)) >> 1);
    for _ in 0..2 {
        let shortfall = (1 << 30) - mulhi(d, r); // 1 - (1 + E) r in Q30, below 2^-8
        r += mulhi(r, shortfall << 2);
    }
    // |tanh x| = 1 - 2E / (1 + E) in Q31, in (0.46, 1].
    let v = (1 << 31) - 2 * mulhi(big_e, r);
    if v >> 30 == 0 {
        round_to_f32(v << 1, -1) // |tanh x| in [0.46, 1/2)
    } else {
        round_to_f32(v, 0)
    }
}

/// `c0 - x (c1 - x (c2 - ...))` in Q32, for coefficients whose every bracket stays positive.
#[inline(always)]
fn alternating(c: &[u32], x: u32) -> u32 {
    c.iter().rev().fold(0, |acc, &ci| ci - mulhi(x, acc))
}

/// `f32` bits of `v 2^(e - 31)` for `v` in `[2^30, 2^32)`, rounded to nearest (halves up).
#[inline]
fn round_to_f32(v: u32, e: i32) -> u32 {
    // The exponent of the result and the bits below its 24-bit significand.
    let (exponent, drop) = if v >> 31 != 0 { (e, 8) } else { (e - 1, 7) };
    // The significand, rounded, in [2^23, 2^24]: its leading bit adds one to the biased
    // exponent field, and a carry to 2^24 moves the result to the next power of two.
    let significand = (v + (1 << (drop - 1))) >> drop;
    (((exponent + 126) as u32) << 23) + significand
}

/// The high 32 bits of the 64-bit product `a b`: exact; on Armv6-M from four 16 x 16 products
/// (Hacker's Delight's `mulhu`), elsewhere one long multiply.
#[inline(always)]
fn mulhi(a: u32, b: u32) -> u32 {
    if NO_LONG_MULTIPLY {
        mulhi_by_halves(a, b)
    } else {
        ((u64::from(a) * u64::from(b)) >> 32) as u32
    }
}

/// [`mulhi`] in 32-bit arithmetic (tested on every target, used on Armv6-M).
///
/// LLVM recognizes this sum of partial products as a high multiply and emits the 64-bit product
/// it was written to avoid, a call to `__aeabi_lmul` (about 40 instructions on the M0, against
/// about 20 for this). `black_box` on one partial product hides the pattern; it costs a store
/// and a load. By `cargo xtask firmware`, the M0's XOR step (20 `tanh`) took 58,508
/// instructions with the call, 56,559 with this inlined (29,676 B of flash for the minimal
/// embedding, 392 B more) and 57,770 with this out of line (28,992 B).
#[inline(always)]
fn mulhi_by_halves(a: u32, b: u32) -> u32 {
    let (a1, a0, b1, b0) = (a >> 16, a & 0xffff, b >> 16, b & 0xffff);
    // Each partial product is at most (2^16 - 1)^2 = 2^32 - 2^17 + 1, so each sum below, which
    // adds less than 2^17 to one, fits.
    let t = core::hint::black_box(a1 * b0) + ((a0 * b0) >> 16);
    let u = a0 * b1 + (t & 0xffff);
    a1 * b1 + (t >> 16) + (u >> 16)
}

#[cfg(test)]
mod tests;
