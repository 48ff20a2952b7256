//! Closed-form values and derivatives of every single operation the `ops` suite checks, written
//! here from the textbook formulas in plain `f64` (std math, not libm), independently of the
//! core's derivative rules (`op.rs`, `dual.rs`): the `ops` suite's reference. For an `f32` case
//! they are evaluated at the `f32` point, where they are far more precise than the `f32` result.
//!
//! Where the derivative is not defined (kinks), the value is the documented convention
//! (PyTorch's): `relu'(0) = abs'(0) = 0`, `leaky_relu'(0) = slope`, `max`/`min` of equal
//! arguments give each half; and the core's at the origin: `atan2` and `hypot` give 0 for both
//! partials.

/// `(f(x, y), [df/dx, df/dy])`; one-input operations ignore `y` and give `df/dy = 0`.
pub type ClosedForm = fn(f64, f64) -> (f64, [f64; 2]);

pub fn neg(x: f64, _: f64) -> (f64, [f64; 2]) {
    (-x, [-1.0, 0.0])
}

pub fn exp(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.exp(), [x.exp(), 0.0])
}

pub fn ln(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.ln(), [1.0 / x, 0.0])
}

pub fn sqrt(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.sqrt(), [1.0 / (2.0 * x.sqrt()), 0.0])
}

pub fn sin(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.sin(), [x.cos(), 0.0])
}

pub fn cos(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.cos(), [-x.sin(), 0.0])
}

/// tan' = sec^2.
pub fn tan(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.tan(), [1.0 / (x.cos() * x.cos()), 0.0])
}

/// tanh' = sech^2 = 1 / cosh^2 (cosh overflows to inf for |x| > 710: the derivative is then 0).
pub fn tanh(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.tanh(), [1.0 / (x.cosh() * x.cosh()), 0.0])
}

/// sigmoid' = e^-|x| / (1 + e^-|x|)^2 (symmetric, no overflow).
pub fn sigmoid(x: f64, _: f64) -> (f64, [f64; 2]) {
    let e = (-x.abs()).exp();
    let value = if x >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    };
    (value, [e / ((1.0 + e) * (1.0 + e)), 0.0])
}

/// softplus(x) = ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|); softplus' = sigmoid.
pub fn softplus(x: f64, _: f64) -> (f64, [f64; 2]) {
    let value = x.max(0.0) + (-x.abs()).exp().ln_1p();
    (value, [sigmoid(x, 0.0).0, 0.0])
}

pub fn relu(x: f64, _: f64) -> (f64, [f64; 2]) {
    if x > 0.0 {
        (x, [1.0, 0.0])
    } else {
        (0.0, [0.0, 0.0])
    }
}

pub fn abs(x: f64, _: f64) -> (f64, [f64; 2]) {
    let d = if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    };
    (x.abs(), [d, 0.0])
}

/// Leaky ReLU with slope 0.1 (the suite's).
pub fn leaky_relu_01(x: f64, _: f64) -> (f64, [f64; 2]) {
    if x > 0.0 {
        (x, [1.0, 0.0])
    } else {
        (0.1 * x, [0.1, 0.0])
    }
}

pub fn cube(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x * x * x, [3.0 * x * x, 0.0])
}

/// x^-2, derivative -2 x^-3.
pub fn inverse_square(x: f64, _: f64) -> (f64, [f64; 2]) {
    (1.0 / (x * x), [-2.0 / (x * x * x), 0.0])
}

/// x^0 = 1 everywhere (0^0 = 1 too), derivative 0.
pub fn constant_one(_: f64, _: f64) -> (f64, [f64; 2]) {
    (1.0, [0.0, 0.0])
}

/// x^2.5, derivative 2.5 x^1.5.
pub fn pow_2_5(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x * x * x.sqrt(), [2.5 * x * x.sqrt(), 0.0])
}

/// x^3 with the exponent given as a float (`powf`), derivative 3 x^2: negative bases too.
pub fn pow_3(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x * x * x, [3.0 * x * x, 0.0])
}

/// x^-0.5, derivative -0.5 x^-1.5.
pub fn pow_minus_0_5(x: f64, _: f64) -> (f64, [f64; 2]) {
    (1.0 / x.sqrt(), [-0.5 / (x * x.sqrt()), 0.0])
}

pub fn add(x: f64, y: f64) -> (f64, [f64; 2]) {
    (x + y, [1.0, 1.0])
}

pub fn sub(x: f64, y: f64) -> (f64, [f64; 2]) {
    (x - y, [1.0, -1.0])
}

pub fn mul(x: f64, y: f64) -> (f64, [f64; 2]) {
    (x * y, [y, x])
}

pub fn div(x: f64, y: f64) -> (f64, [f64; 2]) {
    (x / y, [1.0 / y, -x / (y * y)])
}

/// x^y for x > 0: d/dx = y x^(y-1), d/dy = x^y ln x.
pub fn pow(x: f64, y: f64) -> (f64, [f64; 2]) {
    let v = x.powf(y);
    (v, [y * x.powf(y - 1.0), v * x.ln()])
}

pub fn max(x: f64, y: f64) -> (f64, [f64; 2]) {
    if x > y {
        (x, [1.0, 0.0])
    } else if y > x {
        (y, [0.0, 1.0])
    } else {
        (x, [0.5, 0.5])
    }
}

pub fn min(x: f64, y: f64) -> (f64, [f64; 2]) {
    if x < y {
        (x, [1.0, 0.0])
    } else if y < x {
        (y, [0.0, 1.0])
    } else {
        (x, [0.5, 0.5])
    }
}

/// atan' = 1 / (1 + x^2) (0 where x^2 overflows, as the true value underflows).
pub fn atan(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.atan(), [1.0 / (1.0 + x * x), 0.0])
}

/// asin' = 1 / sqrt(1 - x^2), with 1 - x^2 as (1 - x)(1 + x), which keeps its digits near ±1
/// (the f64 reference must stay far more precise than the result); +inf at ±1.
pub fn asin(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.asin(), [1.0 / ((1.0 - x) * (1.0 + x)).sqrt(), 0.0])
}

/// acos = π/2 - asin, so acos' = -asin'.
pub fn acos(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.acos(), [-asin(x, 0.0).1[0], 0.0])
}

pub fn sinh(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.sinh(), [x.cosh(), 0.0])
}

pub fn cosh(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.cosh(), [x.sinh(), 0.0])
}

/// log2 x = ln x / ln 2, so log2' = 1 / (x ln 2).
pub fn log2(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.log2(), [1.0 / (x * std::f64::consts::LN_2), 0.0])
}

/// log10' = 1 / (x ln 10).
pub fn log10(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.log10(), [1.0 / (x * std::f64::consts::LN_10), 0.0])
}

/// 2^x = e^(x ln 2), so (2^x)' = ln 2 * 2^x.
pub fn exp2(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x.exp2(), [std::f64::consts::LN_2 * x.exp2(), 0.0])
}

/// x^(1/3), real for negative x; derivative (1/3) x^(-2/3) = 1 / (3 cbrt(x)^2), +inf at ±0.
pub fn cbrt(x: f64, _: f64) -> (f64, [f64; 2]) {
    let c = x.cbrt();
    (c, [1.0 / (3.0 * c * c), 0.0])
}

/// atan2(y, x) with `y` first (the ordinate): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2);
/// at the origin, where the angle has no derivative, the convention: 0 for both.
pub fn atan2(y: f64, x: f64) -> (f64, [f64; 2]) {
    let r2 = x * x + y * y;
    if x == 0.0 && y == 0.0 {
        (y.atan2(x), [0.0, 0.0])
    } else {
        (y.atan2(x), [x / r2, -y / r2])
    }
}

/// hypot = sqrt(x^2 + y^2): partials x / h, y / h; 0 at the origin (convention: hypot(x, 0) =
/// |x| and abs'(0) = 0).
pub fn hypot(x: f64, y: f64) -> (f64, [f64; 2]) {
    let h = x.hypot(y);
    if h == 0.0 {
        (h, [0.0, 0.0])
    } else {
        (h, [x / h, y / h])
    }
}

/// x0 + x1 + x0 (the `sum` case: an input used twice).
pub fn sum_x0_x1_x0(x: f64, y: f64) -> (f64, [f64; 2]) {
    (2.0 * x + y, [2.0, 1.0])
}

/// 2.5 x0 (a constant multiplier: `mul_f64`).
pub fn scale_2_5(x: f64, _: f64) -> (f64, [f64; 2]) {
    (2.5 * x, [2.5, 0.0])
}

/// x0 + 1.5 (`add_f64`).
pub fn shift_1_5(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x + 1.5, [1.0, 0.0])
}

/// 1.5 - x0 (a constant minus the input: `rsub_f64`).
pub fn rsub_1_5(x: f64, _: f64) -> (f64, [f64; 2]) {
    (1.5 - x, [-1.0, 0.0])
}

/// x0^2 (`square`).
pub fn square(x: f64, _: f64) -> (f64, [f64; 2]) {
    (x * x, [2.0 * x, 0.0])
}

/// x0 x1 + x1 x0 (the `dot` case: each input twice).
pub fn dot_x0x1_x1x0(x: f64, y: f64) -> (f64, [f64; 2]) {
    (2.0 * x * y, [2.0 * y, 2.0 * x])
}

/// x0 x1 + x0 (`mul_add`).
pub fn mul_add_x0_x1_x0(x: f64, y: f64) -> (f64, [f64; 2]) {
    (x * y + x, [y + 1.0, x])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table against central differences of its own values, at points away from kinks and
    /// bounds: a typo in a formula shows up here before it shows up as a failing check.
    #[test]
    fn derivatives_match_differences_of_the_values() {
        let table: [(&str, ClosedForm, f64, f64); 43] = [
            ("scale", scale_2_5, 0.7, 0.0),
            ("shift", shift_1_5, 0.7, 0.0),
            ("rsub", rsub_1_5, 0.7, 0.0),
            ("square", square, 0.7, 0.0),
            ("dot", dot_x0x1_x1x0, 0.7, -1.3),
            ("mul_add", mul_add_x0_x1_x0, 0.7, -1.3),
            ("neg", neg, 0.7, 0.0),
            ("exp", exp, 0.7, 0.0),
            ("ln", ln, 0.7, 0.0),
            ("sqrt", sqrt, 0.7, 0.0),
            ("sin", sin, 0.7, 0.0),
            ("cos", cos, 0.7, 0.0),
            ("tan", tan, 0.7, 0.0),
            ("tanh", tanh, 0.7, 0.0),
            ("sigmoid", sigmoid, -0.7, 0.0),
            ("softplus", softplus, -0.7, 0.0),
            ("relu", relu, 0.7, 0.0),
            ("abs", abs, -0.7, 0.0),
            ("leaky_relu", leaky_relu_01, -0.7, 0.0),
            ("cube", cube, 0.7, 0.0),
            ("inverse_square", inverse_square, 0.7, 0.0),
            ("constant_one", constant_one, 0.7, 0.0),
            ("pow_2_5", pow_2_5, 0.7, 0.0),
            ("pow_minus_0_5", pow_minus_0_5, 0.7, 0.0),
            ("add", add, 0.7, -1.3),
            ("sub", sub, 0.7, -1.3),
            ("mul", mul, 0.7, -1.3),
            ("div", div, 0.7, -1.3),
            ("pow", pow, 0.7, -1.3),
            ("max", max, 0.7, -1.3),
            ("sum", sum_x0_x1_x0, 0.7, -1.3),
            ("atan", atan, -1.7, 0.0),
            ("asin", asin, 0.7, 0.0),
            ("acos", acos, -0.7, 0.0),
            ("sinh", sinh, 0.7, 0.0),
            ("cosh", cosh, -0.7, 0.0),
            ("log2", log2, 0.7, 0.0),
            ("log10", log10, 2.7, 0.0),
            ("exp2", exp2, 0.7, 0.0),
            ("cbrt", cbrt, 0.7, 0.0),
            ("cbrt", cbrt, -2.7, 0.0),
            ("atan2", atan2, 0.7, -1.3),
            ("hypot", hypot, 0.7, -1.3),
        ];
        let h = 1e-6;
        for (name, f, x, y) in table {
            let (_, d) = f(x, y);
            let dx = (f(x + h, y).0 - f(x - h, y).0) / (2.0 * h);
            let dy = (f(x, y + h).0 - f(x, y - h).0) / (2.0 * h);
            assert!((d[0] - dx).abs() < 1e-8, "{name}: d/dx {} vs {dx}", d[0]);
            assert!((d[1] - dy).abs() < 1e-8, "{name}: d/dy {} vs {dy}", d[1]);
        }
        assert_eq!(min(0.7, -1.3).1, [0.0, 1.0]);
        // The conventions at the origin.
        assert_eq!(atan2(0.0, 0.0).1, [0.0, 0.0]);
        assert_eq!(hypot(-0.0, 0.0).1, [0.0, 0.0]);
    }
}
