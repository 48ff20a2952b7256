//! The operations a tape records, each with its forward rule and, beside it, its local derivative.
//!
//! A node stores only its output value, its operation and the indices of its inputs; backward
//! recomputes the local derivatives from those values. That keeps a node at 16 bytes in `f32`
//! (24 in `f64`) instead of also storing two partial derivatives.

use crate::{math, Scalar};

/// An operation recorded on the tape.
///
/// Operations that take a constant (`x * 2.0`, `powf`, `leaky_relu`) store it in a constant node
/// that is their second input; `powi` stores its exponent in the node itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[repr(u8)]
pub enum Op {
    /// An independent variable (an input or a parameter).
    Leaf = 0,
    /// A constant operand of another node; it never depends on anything.
    Const,
    /// `x + y`
    Add,
    /// `x - y`
    Sub,
    /// `x * y`
    Mul,
    /// `x / y`
    Div,
    /// `x ^ y`, both differentiable.
    Pow,
    /// `x ^ c` for a constant `c` (the second input is a constant node).
    Powf,
    /// `max(x, y)`
    Max,
    /// `min(x, y)`
    Min,
    /// Leaky ReLU with the slope in a constant second input.
    LeakyRelu,
    /// `-x`
    Neg,
    /// `x + c` for a constant `c` that the derivative does not need.
    Offset,
    /// `c - x` for a constant `c`.
    NegOffset,
    /// `x ^ n` for an integer `n` stored in the node.
    Powi,
    /// `e^x`
    Exp,
    /// `ln x`
    Ln,
    /// `sqrt x`
    Sqrt,
    /// `sin x`
    Sin,
    /// `cos x`
    Cos,
    /// `tan x`
    Tan,
    /// `tanh x`
    Tanh,
    /// `1 / (1 + e^-x)`
    Sigmoid,
    /// `max(x, 0)`
    Relu,
    /// `|x|`
    Abs,
    /// `ln(1 + e^x)`
    Softplus,
}

/// Every operation, in discriminant order (the tests check `from_bits` against it).
#[cfg(test)]
const ALL: [Op; 26] = [
    Op::Leaf,
    Op::Const,
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Div,
    Op::Pow,
    Op::Powf,
    Op::Max,
    Op::Min,
    Op::LeakyRelu,
    Op::Neg,
    Op::Offset,
    Op::NegOffset,
    Op::Powi,
    Op::Exp,
    Op::Ln,
    Op::Sqrt,
    Op::Sin,
    Op::Cos,
    Op::Tan,
    Op::Tanh,
    Op::Sigmoid,
    Op::Relu,
    Op::Abs,
    Op::Softplus,
];

impl Op {
    /// Number of inputs: 0 for leaves and constants, 2 for `Add` through `LeakyRelu`, else 1.
    #[inline(always)]
    pub const fn arity(self) -> usize {
        match self as u8 {
            0..=1 => 0,
            2..=10 => 2,
            _ => 1,
        }
    }

    #[inline(always)]
    pub(crate) fn from_bits(bits: u32) -> Op {
        // A literal match, not an index into `ALL`: it saves the table load and its bounds check
        // (6.7 % of backward's instructions per node, measured with callgrind). Bits always come
        // from `self as u8`, so the last arm is unreachable; it is not a panic.
        match bits {
            0 => Op::Leaf,
            1 => Op::Const,
            2 => Op::Add,
            3 => Op::Sub,
            4 => Op::Mul,
            5 => Op::Div,
            6 => Op::Pow,
            7 => Op::Powf,
            8 => Op::Max,
            9 => Op::Min,
            10 => Op::LeakyRelu,
            11 => Op::Neg,
            12 => Op::Offset,
            13 => Op::NegOffset,
            14 => Op::Powi,
            15 => Op::Exp,
            16 => Op::Ln,
            17 => Op::Sqrt,
            18 => Op::Sin,
            19 => Op::Cos,
            20 => Op::Tan,
            21 => Op::Tanh,
            22 => Op::Sigmoid,
            23 => Op::Relu,
            24 => Op::Abs,
            25 => Op::Softplus,
            _ => Op::Const,
        }
    }

    /// Short name used in graph exports and error messages.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Leaf => "leaf",
            Op::Const => "const",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Pow => "pow",
            Op::Powf => "powf",
            Op::Max => "max",
            Op::Min => "min",
            Op::LeakyRelu => "leaky_relu",
            Op::Neg => "neg",
            Op::Offset => "+c",
            Op::NegOffset => "c-",
            Op::Powi => "powi",
            Op::Exp => "exp",
            Op::Ln => "ln",
            Op::Sqrt => "sqrt",
            Op::Sin => "sin",
            Op::Cos => "cos",
            Op::Tan => "tan",
            Op::Tanh => "tanh",
            Op::Sigmoid => "sigmoid",
            Op::Relu => "relu",
            Op::Abs => "abs",
            Op::Softplus => "softplus",
        }
    }
}

impl core::fmt::Display for Op {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Forward and derivative rules of the one-input operations, side by side.
///
/// `x` is the input, `c` the constant of `Offset`/`NegOffset` (forward only), `n` the exponent of
/// `Powi`, `y` the output value.
#[inline(always)]
pub(crate) fn unary_forward<S: Scalar>(op: Op, x: S, c: S, n: i32) -> S {
    match op {
        Op::Neg => -x,
        Op::Offset => x + c,
        Op::NegOffset => c - x,
        Op::Powi => x.powi(n),
        Op::Exp => x.exp(),
        Op::Ln => x.ln(),
        Op::Sqrt => x.sqrt(),
        Op::Sin => x.sin(),
        Op::Cos => x.cos(),
        Op::Tan => x.tan(),
        Op::Tanh => x.tanh(),
        Op::Sigmoid => math::sigmoid(x),
        Op::Relu => math::relu(x),
        Op::Abs => x.abs(),
        Op::Softplus => math::softplus(x),
        _ => x,
    }
}

/// Forward rules of the two-input operations.
#[inline(always)]
pub(crate) fn binary_forward<S: Scalar>(op: Op, x: S, y: S) -> S {
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
        Op::Pow | Op::Powf => x.pow(y),
        Op::Max => math::max(x, y),
        Op::Min => math::min(x, y),
        Op::LeakyRelu => math::leaky_relu(x, y),
        _ => x,
    }
}

/// The contributions `(g * dz/dx, g * dz/dy)` of a node `z = op(x, y)` with adjoint `g` to its
/// inputs' adjoints: the derivative rule of every operation, in the order of the forward rules
/// above. `y` is unused by one-input operations, `n` is the `powi` exponent. Constant second
/// inputs get 0.
///
/// The operations that dominate typical tapes are written inline, without multiplying by 1, so
/// the backward loop stays small enough to keep the adjoint chain in registers; the others are
/// in [`cold_partials`].
#[inline(always)]
pub(crate) fn adjoints<S: Scalar>(op: Op, g: S, x: S, y: S, z: S, n: i32) -> (S, S) {
    let (dx, dy) = match op {
        Op::Add => (g, g),
        Op::Sub => (g, -g),
        Op::Mul => (g * y, g * x),
        Op::Offset => (g, S::ZERO),
        Op::Neg | Op::NegOffset => (-g, S::ZERO),
        Op::Exp => (g * z, S::ZERO),
        // 1 - tanh^2 and s(1 - s) from the output: finite (0) where the function saturates.
        Op::Tanh => (g * (S::ONE - z * z), S::ZERO),
        Op::Sigmoid => (g * (z * (S::ONE - z)), S::ZERO),
        Op::Relu => (if x > S::ZERO { g } else { S::ZERO }, S::ZERO),
        _ => {
            let (dx, dy) = cold_partials(op, x, y, z, n);
            (g * dx, g * dy)
        }
    };
    #[cfg(autograd_fault_injection)] // `cargo xtask check --selftest` only (see `fault.rs`)
    let (dx, dy) = crate::fault::corrupt(op, x, (dx, dy));
    (dx, dy)
}

/// `(dz/dx, dz/dy)` of a node (see [`adjoints`], which handles the common operations itself).
pub(crate) fn partials<S: Scalar>(op: Op, x: S, y: S, z: S, n: i32) -> (S, S) {
    adjoints(op, S::ONE, x, y, z, n)
}

/// Derivative rules of the less common operations, out of line.
#[inline(never)]
fn cold_partials<S: Scalar>(op: Op, x: S, y: S, z: S, n: i32) -> (S, S) {
    let half = S::from_f64(0.5);
    let unary = |d: S| (d, S::ZERO);
    match op {
        // ---- two inputs ----
        Op::Div => (S::ONE / y, -z / y),
        // d/dx = y x^(y-1); d/dy = ln(x) x^y, taken as 0 where x = 0 and y >= 0 (PyTorch), so
        // 0^2 does not produce 0 * -inf = NaN.
        Op::Pow => {
            let dx = power_derivative(x, y);
            let dy = if x == S::ZERO && y >= S::ZERO {
                S::ZERO
            } else {
                x.ln() * z
            };
            (dx, dy)
        }
        // A negative base has a real power only for an integer exponent: take c x^(c-1) as
        // c z / x, whose sign comes from the value z. `powi` exponents too large for a node are
        // recorded here with `c` rounded (in f32, 2^27 + 1 becomes 2^27): `x.pow(c - 1)` would
        // then take the sign from the rounded parity, `z` keeps the true one.
        Op::Powf if x < S::ZERO => (y * z / x, S::ZERO),
        Op::Powf => (power_derivative(x, y), S::ZERO),
        Op::Max => {
            if x > y {
                (S::ONE, S::ZERO)
            } else if y > x {
                (S::ZERO, S::ONE)
            } else {
                (half, half)
            }
        }
        Op::Min => {
            if x < y {
                (S::ONE, S::ZERO)
            } else if y < x {
                (S::ZERO, S::ONE)
            } else {
                (half, half)
            }
        }
        Op::LeakyRelu => {
            if x > S::ZERO {
                (S::ONE, S::ZERO)
            } else {
                (y, S::ZERO)
            }
        }
        // ---- one input (output z = f(x)) ----
        // n x^(n-1); n = 0 is the constant 1 (avoids 0 * x^-1 = NaN at x = 0).
        Op::Powi => unary(match n {
            0 => S::ZERO,
            1 => S::ONE,
            _ => S::from_f64(n as f64) * x.powi(n - 1),
        }),
        Op::Ln => unary(S::ONE / x),
        Op::Sqrt => unary(half / z),
        Op::Sin => unary(x.cos()),
        Op::Cos => unary(-x.sin()),
        Op::Tan => unary(S::ONE + z * z),
        Op::Abs => unary(if x > S::ZERO {
            S::ONE
        } else if x < S::ZERO {
            -S::ONE
        } else {
            S::ZERO
        }),
        Op::Softplus => unary(math::sigmoid(x)),
        // Handled inline by `adjoints` (and leaves/constants have no inputs).
        Op::Add
        | Op::Sub
        | Op::Mul
        | Op::Offset
        | Op::Neg
        | Op::NegOffset
        | Op::Exp
        | Op::Tanh
        | Op::Sigmoid
        | Op::Relu
        | Op::Leaf
        | Op::Const => adjoints(op, S::ONE, x, y, z, n),
    }
}

/// `c x^(c-1)`, with `c = 0` giving 0 everywhere (the function is constant).
#[inline(always)]
fn power_derivative<S: Scalar>(x: S, c: S) -> S {
    if c == S::ZERO {
        S::ZERO
    } else {
        c * x.pow(c - S::ONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_round_trips_every_operation() {
        for (i, op) in ALL.iter().enumerate() {
            assert_eq!(*op as usize, i);
            assert_eq!(Op::from_bits(i as u32), *op);
        }
    }

    #[test]
    fn arity_groups() {
        assert_eq!(Op::Leaf.arity(), 0);
        assert_eq!(Op::Const.arity(), 0);
        assert_eq!(Op::Add.arity(), 2);
        assert_eq!(Op::LeakyRelu.arity(), 2);
        assert_eq!(Op::Neg.arity(), 1);
        assert_eq!(Op::Softplus.arity(), 1);
    }
}
