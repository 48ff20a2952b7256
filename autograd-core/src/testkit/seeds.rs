//! The worked examples of the seed documents (`../shared/seeds/`): the Portuguese lesson's
//! (a Python `Value` class) and the Indonesian article's (Go), with micrograd's README expression.
//! Every expected number is a literal: printed by the documents, or derived by hand from them
//! (the comment beside it shows the derivation).

use crate::{Function, Number};

/// A function of the seed documents, written once against [`Number`].
///
/// ```
/// use autograd_core::testkit::Seed;
/// use autograd_core::Function;
///
/// assert_eq!(Seed::ReluOfProduct.eval(&[2.0, 3.0]), 7.0);
/// assert_eq!(Seed::Cubic.eval(&[3.0]), 22.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seed {
    /// `relu(x1 x2 + 1)` (the lesson's step 7).
    ReluOfProduct,
    /// `relu(a b + c)` (the lesson's "more complex expression").
    ReluAbc,
    /// `x w + b` (the article's `L`).
    Linear,
    /// `sin(x^2)` (the lesson's forward- and reverse-mode walk-through).
    SinOfSquare,
    /// `x^3` by `powi` (exercise 1).
    Cube,
    /// `tanh(x)` (exercise 2).
    Tanh,
    /// `x^3 - 2x + 1` (the article's gradient check).
    Cubic,
    /// `tanh(x^3 + 2x + 1)` (the lesson's gradient check).
    TanhPoly,
    /// `relu(w1 x1 + w2 x2 + b)` over `(w1, x1, w2, x2, b)` (exercise 3).
    Neuron,
    /// micrograd's README expression in `(a, b)`, line by line.
    Micrograd,
}

impl Function for Seed {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        let k = T::from_f64;
        match self {
            Seed::ReluOfProduct => (x[0] * x[1] + T::one()).relu(),
            Seed::ReluAbc => (x[0] * x[1] + x[2]).relu(),
            Seed::Linear => x[0] * x[1] + x[2],
            Seed::SinOfSquare => x[0].powi(2).sin(),
            Seed::Cube => x[0].powi(3),
            Seed::Tanh => x[0].tanh(),
            Seed::Cubic => x[0].powi(3) - x[0] * k(2.0) + T::one(),
            Seed::TanhPoly => (x[0].powi(3) + x[0] * k(2.0) + T::one()).tanh(),
            Seed::Neuron => (x[0] * x[1] + x[2] * x[3] + x[4]).relu(),
            Seed::Micrograd => micrograd(x[0], x[1]),
        }
    }
}

/// micrograd's README expression, line by line (`c += c + 1` included).
fn micrograd<T: Number>(a: T, b: T) -> T {
    let k = T::from_f64;
    let mut c = a + b;
    let mut d = a * b + b.powi(3);
    c = c + (c + k(1.0));
    c = c + (k(1.0) + c + (-a));
    d = d + (d * k(2.0) + (b + a).relu());
    d = d + (k(3.0) * d + (b - a).relu());
    let e = c - d;
    let f = e.powi(2);
    let g = f / k(2.0);
    g + k(10.0) / f
}

/// One worked example: a function, a point, and the value and gradient expected there.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// What it is and where it comes from (the name `cargo xtask check` reports).
    pub name: &'static str,
    /// The function.
    pub function: Seed,
    /// The point.
    pub x: &'static [f64],
    /// The value at `x`, where the example gives it.
    pub value: Option<f64>,
    /// The gradient at `x`.
    pub gradient: &'static [f64],
    /// The absolute tolerance the numbers carry: the precision the document prints them with,
    /// 0 where they are exact. A check adds its scalar type's rounding to it.
    pub tolerance: f64,
}

impl Example {
    /// Whether a computed value and gradient match the example: every number within
    /// `tolerance + rtol |expected|`, `rtol` being the caller's allowance for rounding.
    ///
    /// ```
    /// use autograd_core::testkit::EXAMPLES;
    ///
    /// let lesson = &EXAMPLES[0]; // relu(x1 x2 + 1) at (2, 3)
    /// assert!(lesson.agrees(7.0, &[3.0, 2.0], 0.0));
    /// assert!(!lesson.agrees(7.0, &[3.0, 2.001], 1e-6));
    /// ```
    pub fn agrees(&self, value: f64, gradient: &[f64], rtol: f64) -> bool {
        let close = |got: f64, want: f64| (got - want).abs() <= self.tolerance + rtol * want.abs();
        self.value.is_none_or(|v| close(value, v))
            && gradient.len() == self.gradient.len()
            && gradient
                .iter()
                .zip(self.gradient)
                .all(|(&g, &w)| close(g, w))
    }
}

/// An example with an exact gradient (tolerance 0).
const fn exact(
    name: &'static str,
    function: Seed,
    x: &'static [f64],
    value: f64,
    gradient: &'static [f64],
) -> Example {
    Example {
        name,
        function,
        x,
        value: Some(value),
        gradient,
        tolerance: 0.0,
    }
}

/// The seeds' worked examples and exercises, in the order of the documents.
pub const EXAMPLES: [Example; 16] = [
    // Lesson, step 7: relu(2*3 + 1) = 7 > 0, so dy/dx1 = x2 = 3 and dy/dx2 = x1 = 2.
    exact(
        "lesson: relu(x1*x2 + 1) at (2, 3)",
        Seed::ReluOfProduct,
        &[2.0, 3.0],
        7.0,
        &[3.0, 2.0],
    ),
    // relu(2*(-3) + 10) = relu(4) = 4; df/da = b = -3, df/db = a = 2, df/dc = 1.
    exact(
        "lesson: relu(a*b + c) at (2, -3, 10)",
        Seed::ReluAbc,
        &[2.0, -3.0, 10.0],
        4.0,
        &[-3.0, 2.0, 1.0],
    ),
    // The article: L = x*w + b = 0.6; dL/dx = w = 0.5, dL/dw = x = 1, dL/db = 1.
    exact(
        "article: L = x*w + b at (1, 0.5, 0.1)",
        Seed::Linear,
        &[1.0, 0.5, 0.1],
        0.6,
        &[0.5, 1.0, 1.0],
    ),
    // The lesson prints dy/dx = cos(4) * 4 = -2.615 (three decimals); sin(4) it does not print.
    Example {
        name: "lesson: d/dx sin(x^2) at 2 = -2.615",
        function: Seed::SinOfSquare,
        x: &[2.0],
        value: None,
        gradient: &[-2.615],
        tolerance: 5e-4,
    },
    // The same by hand to f64 precision: 4 cos 4, and the value sin 4.
    Example {
        name: "lesson: d/dx sin(x^2) at 2 = 4 cos 4",
        function: Seed::SinOfSquare,
        x: &[2.0],
        value: Some(-0.7568024953079282),
        gradient: &[-2.6145744834544478],
        tolerance: 1e-14,
    },
    // Exercise 1: d/dx x^3 at 2 = 3 * 2^2 = 12.
    exact(
        "exercise 1: d/dx x^3 at 2 = 12",
        Seed::Cube,
        &[2.0],
        8.0,
        &[12.0],
    ),
    // Exercise 2: tanh'(0) = 1 - tanh(0)^2 = 1.
    exact("exercise 2: tanh'(0) = 1", Seed::Tanh, &[0.0], 0.0, &[1.0]),
    // Exercise 2: tanh'(2) = 0.0707 (approx.), as printed.
    Example {
        name: "exercise 2: tanh'(2) ~ 0.0707",
        function: Seed::Tanh,
        x: &[2.0],
        value: None,
        gradient: &[0.0707],
        tolerance: 5e-5,
    },
    // The article's gradient check of x^3 - 2x + 1 at -2, -0.5, 0, 1, 3 (it checks against
    // central differences with h = 1e-5, tolerance 1e-4); here the analytic 3x^2 - 2, which the
    // article gives at 3: f'(3) = 25.
    exact(
        "article: x^3 - 2x + 1 at -2",
        Seed::Cubic,
        &[-2.0],
        -3.0,
        &[10.0],
    ),
    exact(
        "article: x^3 - 2x + 1 at -0.5",
        Seed::Cubic,
        &[-0.5],
        1.875,
        &[-1.25],
    ),
    exact(
        "article: x^3 - 2x + 1 at 0",
        Seed::Cubic,
        &[0.0],
        1.0,
        &[-2.0],
    ),
    exact(
        "article: x^3 - 2x + 1 at 1",
        Seed::Cubic,
        &[1.0],
        0.0,
        &[1.0],
    ),
    exact(
        "article: x^3 - 2x + 1 at 3",
        Seed::Cubic,
        &[3.0],
        22.0,
        &[25.0],
    ),
    // The lesson's gradient check (autograd against differences within 1e-5), by hand:
    // tanh(0.125 + 1 + 1) = tanh(2.125) = 0.971872745913509, and
    // (1 - tanh(2.125)^2) (3 * 0.25 + 2) = 0.15252425581397372.
    Example {
        name: "lesson: tanh(x^3 + 2x + 1) at 0.5",
        function: Seed::TanhPoly,
        x: &[0.5],
        value: Some(0.971872745913509),
        gradient: &[0.15252425581397372],
        tolerance: 1e-14,
    },
    // Exercise 3: one neuron over (w1, x1, w2, x2, b) = (0.5, 3, -1.5, 0.5, 2): pre-activation
    // 1.5 - 0.75 + 2 = 2.75 > 0, so the gradient is (x1, w1, x2, w2, 1).
    exact(
        "exercise 3: neuron relu(w1 x1 + w2 x2 + b), active",
        Seed::Neuron,
        &[0.5, 3.0, -1.5, 0.5, 2.0],
        2.75,
        &[3.0, 0.5, 0.5, -1.5, 1.0],
    ),
    // ... at (-1, 3, 0.5, 1, 0.5): pre-activation -3 + 0.5 + 0.5 = -2 < 0, every gradient 0.
    exact(
        "exercise 3: neuron relu(w1 x1 + w2 x2 + b), inactive",
        Seed::Neuron,
        &[-1.0, 3.0, 0.5, 1.0, 0.5],
        0.0,
        &[0.0; 5],
    ),
];

/// micrograd's README: `g` at `a = -4, b = 2` prints 24.7041 and the gradients 138.8338 and
/// 645.5773 (four decimals). In `f64` only: `f32` rounding exceeds the printed precision.
pub const MICROGRAD: Example = Example {
    name: "micrograd README: g(a=-4, b=2) gradients (138.8338, 645.5773)",
    function: Seed::Micrograd,
    x: &[-4.0, 2.0],
    value: Some(24.7041),
    gradient: &[138.8338, 645.5773],
    tolerance: 5e-5,
};
