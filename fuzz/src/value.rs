//! [`Value`]: the numbers a fuzz input can pick (small exact values, edge cases, any bit pattern).

use arbitrary::Arbitrary;

/// A number from the fuzz input: a small exact value, an edge case, or any bit pattern.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Value {
    /// `n / 8`: exact, hits kinks (0) and ties (`max(x, x)`) often.
    Small(i8),
    /// An edge case.
    Special(Special),
    /// Any `f64` bit pattern.
    Bits(u64),
}

/// Edge cases of floating point and of the operations.
#[derive(Arbitrary, Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum Special {
    Zero,
    NegZero,
    Nan,
    Inf,
    NegInf,
    MinPositive,
    MinSubnormal,
    Subnormal,
    Max,
    NegMax,
    Huge,
    NegHuge,
    Tiny,
    F32Max,
    F32MinPositive,
    F32Subnormal,
    ExpEdge,
    ExpOverflow,
    HalfPi,
    Pi,
    Big,
    Epsilon,
    OneMinusEps,
}

impl Value {
    /// The value as `f64` (rounded to the scalar type where it is used).
    pub fn get(self) -> f64 {
        match self {
            Value::Small(n) => f64::from(n) / 8.0,
            Value::Bits(b) => f64::from_bits(b),
            Value::Special(s) => match s {
                Special::Zero => 0.0,
                Special::NegZero => -0.0,
                Special::Nan => f64::NAN,
                Special::Inf => f64::INFINITY,
                Special::NegInf => f64::NEG_INFINITY,
                Special::MinPositive => f64::MIN_POSITIVE,
                Special::MinSubnormal => f64::from_bits(1),
                Special::Subnormal => 1e-310,
                Special::Max => f64::MAX,
                Special::NegMax => f64::MIN,
                Special::Huge => 1e300,
                Special::NegHuge => -1e300,
                Special::Tiny => 1e-300,
                Special::F32Max => f64::from(f32::MAX),
                Special::F32MinPositive => f64::from(f32::MIN_POSITIVE),
                Special::F32Subnormal => 1e-42,
                Special::ExpEdge => 709.0,
                Special::ExpOverflow => 710.0,
                Special::HalfPi => core::f64::consts::FRAC_PI_2,
                Special::Pi => core::f64::consts::PI,
                Special::Big => 1e16,
                Special::Epsilon => f64::EPSILON,
                Special::OneMinusEps => 1.0 - f64::EPSILON,
            },
        }
    }
}
