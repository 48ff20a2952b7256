//! The operations the random-expression generators draw from (`cargo xtask check`'s expression
//! trees, the fuzz targets' programs), each applied through [`Number`]'s methods: the engine's
//! own rules, no derivative here.

use crate::Number;

/// An operation with one argument.
///
/// ```
/// use autograd_core::testkit::Unary;
///
/// assert_eq!(Unary::Relu.apply(-2.0_f64), 0.0);
/// assert_eq!(Unary::Square.name(), "square");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[allow(missing_docs)] // each is the `Number` method of its name
pub enum Unary {
    Neg,
    Exp,
    Ln,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Relu,
    Abs,
    Softplus,
    Square,
    // Appended, so that the generators' draws over the first 13 keep their meaning.
    Atan,
    Asin,
    Acos,
    Sinh,
    Cosh,
    Log2,
    Log10,
    Exp2,
    Cbrt,
}

impl Unary {
    /// Every one, in declaration order (the order generators draw by index).
    pub const ALL: [Unary; 22] = [
        Unary::Neg,
        Unary::Exp,
        Unary::Ln,
        Unary::Sqrt,
        Unary::Sin,
        Unary::Cos,
        Unary::Tan,
        Unary::Tanh,
        Unary::Sigmoid,
        Unary::Relu,
        Unary::Abs,
        Unary::Softplus,
        Unary::Square,
        Unary::Atan,
        Unary::Asin,
        Unary::Acos,
        Unary::Sinh,
        Unary::Cosh,
        Unary::Log2,
        Unary::Log10,
        Unary::Exp2,
        Unary::Cbrt,
    ];

    /// The name of its [`Number`] method (`neg` for `-x`).
    pub fn name(self) -> &'static str {
        match self {
            Unary::Neg => "neg",
            Unary::Exp => "exp",
            Unary::Ln => "ln",
            Unary::Sqrt => "sqrt",
            Unary::Sin => "sin",
            Unary::Cos => "cos",
            Unary::Tan => "tan",
            Unary::Tanh => "tanh",
            Unary::Sigmoid => "sigmoid",
            Unary::Relu => "relu",
            Unary::Abs => "abs",
            Unary::Softplus => "softplus",
            Unary::Square => "square",
            Unary::Atan => "atan",
            Unary::Asin => "asin",
            Unary::Acos => "acos",
            Unary::Sinh => "sinh",
            Unary::Cosh => "cosh",
            Unary::Log2 => "log2",
            Unary::Log10 => "log10",
            Unary::Exp2 => "exp2",
            Unary::Cbrt => "cbrt",
        }
    }

    /// `self(x)` over any [`Number`].
    pub fn apply<T: Number>(self, x: T) -> T {
        match self {
            Unary::Neg => -x,
            Unary::Exp => x.exp(),
            Unary::Ln => x.ln(),
            Unary::Sqrt => x.sqrt(),
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Tanh => x.tanh(),
            Unary::Sigmoid => x.sigmoid(),
            Unary::Relu => x.relu(),
            Unary::Abs => x.abs(),
            Unary::Softplus => x.softplus(),
            Unary::Square => x.square(),
            Unary::Atan => x.atan(),
            Unary::Asin => x.asin(),
            Unary::Acos => x.acos(),
            Unary::Sinh => x.sinh(),
            Unary::Cosh => x.cosh(),
            Unary::Log2 => x.log2(),
            Unary::Log10 => x.log10(),
            Unary::Exp2 => x.exp2(),
            Unary::Cbrt => x.cbrt(),
        }
    }
}

/// An operation with two arguments.
///
/// ```
/// use autograd_core::testkit::Binary;
///
/// assert_eq!(Binary::Max.apply(2.0_f64, 3.0), 3.0);
/// assert_eq!(Binary::Div.name(), "/");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[allow(missing_docs)] // the operator or `Number` method of its name
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Max,
    Min,
    // Appended, so that draws over the first 7 keep their meaning.
    Atan2,
    Hypot,
}

impl Binary {
    /// Every one, in declaration order.
    pub const ALL: [Binary; 9] = [
        Binary::Add,
        Binary::Sub,
        Binary::Mul,
        Binary::Div,
        Binary::Pow,
        Binary::Max,
        Binary::Min,
        Binary::Atan2,
        Binary::Hypot,
    ];

    /// The operator (`+`) or the method's name (`pow`; `atan2(a, b)` is `a.atan2(b)`, `a` the
    /// ordinate).
    pub fn name(self) -> &'static str {
        match self {
            Binary::Add => "+",
            Binary::Sub => "-",
            Binary::Mul => "*",
            Binary::Div => "/",
            Binary::Pow => "pow",
            Binary::Max => "max",
            Binary::Min => "min",
            Binary::Atan2 => "atan2",
            Binary::Hypot => "hypot",
        }
    }

    /// `a self b` over any [`Number`].
    pub fn apply<T: Number>(self, a: T, b: T) -> T {
        match self {
            Binary::Add => a + b,
            Binary::Sub => a - b,
            Binary::Mul => a * b,
            Binary::Div => a / b,
            Binary::Pow => a.pow(b),
            Binary::Max => a.max(b),
            Binary::Min => a.min(b),
            Binary::Atan2 => a.atan2(b),
            Binary::Hypot => a.hypot(b),
        }
    }
}
