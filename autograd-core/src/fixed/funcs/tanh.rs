//! `tanh`, the activation a small network calls most, on its own fast path: `e^(-2|x|)` from two
//! tables and a quadratic (two Q30 products, from 16-bit halves on Armv6-M), then a restoring
//! division. Every Q16 value of [0, 6.25] is checked against `libm::tanh` (`fixed/tests.rs`).

use super::{div_below_one, NO_LONG_MULTIPLY, ONE16, ONE30};

/// `round(e^(-j/8) 2^30)`, j = 0..100: the coarse factor of [`exp_neg_q30`].
const EXP_NEG_EIGHTHS: [u32; 100] = [
    1_073_741_824,
    947_573_834,
    836_230_973,
    737_971_244,
    651_257_337,
    574_732_583,
    507_199_724,
    447_602_185,
    395_007_542,
    348_592_932,
    307_632_183,
    271_484_449,
    239_584_185,
    211_432_301,
    186_588_351,
    164_663_642,
    145_315_154,
    128_240_173,
    113_171_556,
    99_873_547,
    88_138_096,
    77_781_597,
    68_642_018,
    60_576_369,
    53_458_458,
    47_176_923,
    41_633_489,
    36_741_425,
    32_424_194,
    28_614_250,
    25_251_987,
    22_284_801,
    19_666_268,
    17_355_420,
    15_316_105,
    13_516_415,
    11_928_194,
    10_526_594,
    9_289_687,
    8_198_120,
    7_234_816,
    6_384_702,
    5_634_480,
    4_972_411,
    4_388_137,
    3_872_518,
    3_417_485,
    3_015_920,
    2_661_540,
    2_348_801,
    2_072_809,
    1_829_248,
    1_614_306,
    1_424_620,
    1_257_222,
    1_109_495,
    979_126,
    864_075,
    762_544,
    672_943,
    593_870,
    524_088,
    462_506,
    408_160,
    360_200,
    317_876,
    280_524,
    247_562,
    218_472,
    192_801,
    170_147,
    150_154,
    132_510,
    116_940,
    103_199,
    91_073,
    80_372,
    70_928,
    62_593,
    55_238,
    48_748,
    43_020,
    37_965,
    33_504,
    29_567,
    26_093,
    23_027,
    20_321,
    17_933,
    15_826,
    13_966,
    12_325,
    10_877,
    9_599,
    8_471,
    7_476,
    6_597,
    5_822,
    5_138,
    4_534,
];
/// `round(e^(-k/512) 2^30)`, k = 0..64: its fine factor.
const EXP_NEG_512THS: [u32; 64] = [
    1_073_741_824,
    1_071_646_719,
    1_069_555_701,
    1_067_468_764,
    1_065_385_899,
    1_063_307_098,
    1_061_232_353,
    1_059_161_656,
    1_057_095_000,
    1_055_032_376,
    1_052_973_777,
    1_050_919_195,
    1_048_868_621,
    1_046_822_049,
    1_044_779_470,
    1_042_740_877,
    1_040_706_261,
    1_038_675_615,
    1_036_648_932,
    1_034_626_203,
    1_032_607_421,
    1_030_592_578,
    1_028_581_666,
    1_026_574_678,
    1_024_571_606,
    1_022_572_443,
    1_020_577_180,
    1_018_585_810,
    1_016_598_326,
    1_014_614_721,
    1_012_634_985,
    1_010_659_113,
    1_008_687_096,
    1_006_718_926,
    1_004_754_597,
    1_002_794_101,
    1_000_837_430,
    998_884_577,
    996_935_535,
    994_990_295,
    993_048_852,
    991_111_196,
    989_177_321,
    987_247_220,
    985_320_884,
    983_398_307,
    981_479_482,
    979_564_401,
    977_653_056,
    975_745_441,
    973_841_548,
    971_941_370,
    970_044_900,
    968_152_130,
    966_263_053,
    964_377_662,
    962_495_950,
    960_617_910,
    958_743_534,
    956_872_816,
    955_005_748,
    953_142_322,
    951_282_533,
    949_426_373,
];

/// Product of two Q30 numbers in [0, 1], rounded (halves up).
#[inline]
pub(in crate::fixed) fn mul30u(a: u32, b: u32) -> u32 {
    if NO_LONG_MULTIPLY {
        return mul30u_by_halves(a, b);
    }
    ((u64::from(a) * u64::from(b) + (1 << 29)) >> 30) as u32
}

/// [`mul30u`] from four 16 x 16 -> 32 products (tested on every target, used on Armv6-M): the
/// same bits. `a, b <= 2^30`, so `a1, b1 <= 2^14` and each cross product is below 2^31.
#[inline]
pub(in crate::fixed) fn mul30u_by_halves(a: u32, b: u32) -> u32 {
    let (a0, a1, b0, b1) = (a & 0xFFFF, a >> 16, b & 0xFFFF, b >> 16);
    let p = (u64::from(a1 * b1) << 32) + (u64::from(a1 * b0 + a0 * b1) << 16) + u64::from(a0 * b0);
    ((p + (1 << 29)) >> 30) as u32
}

/// `e^(-y)` in Q30 for `y` in Q16, `0 <= y < 12.5`, from two tables and a quadratic:
/// `y = j/8 + k/512 + f` with `f < 2^-9`, `e^(-f) = 1 - f + f^2/2` within `f^3/6 < 2^-29`.
/// Two 64-bit products instead of the nine of [`exp_bits`]: `tanh` is the activation a small
/// network calls most (20 times per XOR step), and on a Cortex-M0 each product is a library call.
/// Error below 3 units of Q30 (measured through `tanh`, `tests/fixed.rs`).
#[inline]
fn exp_neg_q30(y: u32) -> u32 {
    debug_assert!(y < 100 << 13);
    let (j, k, m) = (y >> 13, (y >> 7) & 63, y & 127);
    // In Q30: f = m 2^14, f^2 / 2 = m^2 / 8.
    let p = (1 << 30) - (m << 14) + ((m * m) >> 3);
    mul30u(
        mul30u(EXP_NEG_EIGHTHS[j as usize], EXP_NEG_512THS[k as usize]),
        p,
    )
}

/// `tanh x = (1 - e^(-2|x|)) / (1 + e^(-2|x|))`, with the sign of `x`. Measured over
/// [-20, 20]: at most 0.5 steps.
pub(in crate::fixed) fn tanh(x: i32) -> i64 {
    let a = x.unsigned_abs();
    // |x| >= 6.25: 1 - tanh|x| < 2e^-12.5 = 0.49 steps, so the result rounds to +-1.
    let r = if a >= 409_600 {
        ONE16
    } else {
        // t = e^(-2|x|) is in (0, 1], so the quotient is at most 1.
        let t = i64::from(exp_neg_q30(2 * a));
        div_below_one(ONE30 - t, ONE30 + t, 16)
    };
    if x < 0 {
        -r
    } else {
        r
    }
}
