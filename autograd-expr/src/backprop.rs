//! The chain rule by hand over an [`Expr`], as the lessons do it on their `Value` graph: every
//! operation's value, its local partial derivative with respect to each operand, and its
//! gradient `d(result)/d(operation)`, from one forward loop and one reverse loop.
//!
//! This is deliberately not the core's tape: the rules below are written from the math, so the
//! gradients it gives for the inputs are an independent check of reverse mode (see the tests),
//! and the per-operation figures are what `cargo xtask grad --graph` draws.

use crate::{Expr, Func, Op};

/// Values, local partials and gradients of every operation of an [`Expr`] at one point.
///
/// ```
/// // y = x * x + x at 3: dy/dx = 2x + 1 = 7, the two uses of x in the product each given x = 3.
/// let f = autograd_expr::parse("x * x + x")?;
/// let b = autograd_expr::backprop(&f, &[3.0]);
/// assert_eq!((b.values[f.root()], b.input_grads[0]), (12.0, 7.0));
/// let product = b.values.iter().position(|&v| v == 9.0).unwrap();
/// assert_eq!((b.partials[product], b.grads[product]), ([3.0, 3.0], 1.0));
/// # Ok::<(), autograd_expr::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Backprop {
    /// `values[i]`: the value of operation `i`.
    pub values: Vec<f64>,
    /// `partials[i][k]`: the derivative of operation `i` with respect to its operand `k`
    /// (unused entries 0).
    pub partials: Vec<[f64; 2]>,
    /// `grads[i]`: the derivative of the result with respect to operation `i` (0 for
    /// operations the result does not use).
    pub grads: Vec<f64>,
    /// The gradient with respect to each input, in the order of [`Expr::inputs`].
    pub input_grads: Vec<f64>,
}

/// Runs the expression forward at `x`, then the chain rule backward from the result, seeding
/// `d(result)/d(result) = 1` and adding `grad(user) * partial` into each operand (`+=`: an
/// operation used twice, like `x` in `x*x`, collects both contributions).
///
/// Kinks follow the core's (and PyTorch's) conventions: `relu'(0) = 0`, `abs'(0) = 0`,
/// `leaky_relu'(0) = slope`, `max`/`min` of equal operands split 0.5/0.5,
/// `d/dy x^y = 0` at `x = 0, y >= 0`. A zero gradient is not propagated (so an infinite
/// partial behind it does not turn into NaN), as the tape skips zero adjoints.
///
/// # Panics
/// If `x.len()` differs from the number of inputs.
///
/// ```
/// // The lesson's y = relu(x1*x2 + 1) at (2, 3).
/// let f = autograd_expr::parse("relu(x1*x2 + 1)")?;
/// let b = autograd_expr::backprop(&f, &[2.0, 3.0]);
/// assert_eq!(b.values[f.root()], 7.0);
/// assert_eq!(b.input_grads, [3.0, 2.0]); // (x2, x1)
/// # Ok::<(), autograd_expr::ParseError>(())
/// ```
pub fn backprop(expr: &Expr, x: &[f64]) -> Backprop {
    let values = expr.eval_all(x);
    let partials: Vec<[f64; 2]> = expr
        .ops()
        .iter()
        .enumerate()
        .map(|(i, op)| local_partials(op, &values, values[i]))
        .collect();
    let mut grads = vec![0.0; values.len()];
    grads[expr.root()] = 1.0;
    for i in (0..=expr.root()).rev() {
        let g = grads[i];
        if g == 0.0 {
            continue;
        }
        let (args, n) = expr.ops()[i].args();
        for k in 0..n {
            grads[args[k]] += g * partials[i][k];
        }
    }
    let input_grads = (0..expr.inputs().len())
        .map(|k| expr.input_op(k).map_or(0.0, |i| grads[i]))
        .collect();
    Backprop {
        values,
        partials,
        grads,
        input_grads,
    }
}

/// An operation evaluated where its derivative has no single value, and on which the result
/// depends: `relu`, `leaky_relu` or `abs` of 0, `max` or `min` of two different operands that
/// are equal. Reverse and forward mode take the convention there (as [`backprop`] does), while
/// central differences straddle the point and see the mean of the slopes on its two sides: the
/// two disagree there by design, not by error.
#[derive(Clone, Debug, PartialEq)]
pub struct Kink {
    /// The operation, an index into [`Expr::ops`].
    pub op: usize,
    /// What the modes take there, e.g. `relu'(0) = 0`.
    pub convention: String,
}

impl Backprop {
    /// The operations at a kink that the result depends on (a nonzero
    /// [`grads`](Self::grads) entry), in evaluation order.
    ///
    /// ```
    /// let f = autograd_expr::parse("relu(x) + max(x, 0)")?;
    /// let kinks = autograd_expr::backprop(&f, &[0.0]).kinks(&f);
    /// let named: Vec<_> =
    ///     kinks.iter().map(|k| (f.op_text(k.op).unwrap(), &k.convention[..])).collect();
    /// assert_eq!(named, [("relu(x)".to_string(), "relu'(0) = 0"),
    ///                    ("max(x, 0)".to_string(), "1/2 for each operand of a tie")]);
    /// assert!(autograd_expr::backprop(&f, &[1.0]).kinks(&f).is_empty());
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn kinks(&self, expr: &Expr) -> Vec<Kink> {
        let v = &self.values;
        expr.ops()
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.grads[i] != 0.0)
            .filter_map(|(i, op)| {
                let convention = match *op {
                    Op::Call(Func::Relu, a) if v[a] == 0.0 => "relu'(0) = 0".to_string(),
                    Op::Call(Func::Abs, a) if v[a] == 0.0 => "abs'(0) = 0".to_string(),
                    Op::LeakyRelu(a, s) if v[a] == 0.0 => {
                        format!("leaky_relu'(0) = {s} (its slope)")
                    }
                    Op::Max(a, b) | Op::Min(a, b) if a != b && v[a] == v[b] => {
                        "1/2 for each operand of a tie".to_string()
                    }
                    _ => return None,
                };
                Some(Kink { op: i, convention })
            })
            .collect()
    }
}

/// `[dz/da, dz/db]` of `z = op(a, b)` (`v` the values of all operations, `z` this one's).
fn local_partials(op: &Op, v: &[f64], z: f64) -> [f64; 2] {
    let sign = |x: f64| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    match *op {
        Op::Const(_) | Op::Input(_) => [0.0, 0.0],
        Op::Neg(_) => [-1.0, 0.0],
        Op::Add(..) => [1.0, 1.0],
        Op::Sub(..) => [1.0, -1.0],
        Op::Mul(a, b) => [v[b], v[a]],
        Op::Div(_, b) => [1.0 / v[b], -z / v[b]],
        Op::Powi(_, 0) => [0.0, 0.0],
        Op::Powi(a, n) => [f64::from(n) * v[a].powi(n - 1), 0.0],
        Op::Powf(_, 0.0) => [0.0, 0.0],
        Op::Powf(a, c) => [c * v[a].powf(c - 1.0), 0.0],
        Op::Pow(a, b) => {
            let (x, y) = (v[a], v[b]);
            let dx = if y == 0.0 { 0.0 } else { y * x.powf(y - 1.0) };
            let dy = if x == 0.0 && y >= 0.0 {
                0.0
            } else {
                x.ln() * z
            };
            [dx, dy]
        }
        Op::Call(f, a) => {
            let x = v[a];
            let d = match f {
                Func::Exp => z,
                Func::Ln => 1.0 / x,
                Func::Sqrt => 0.5 / z,
                Func::Sin => x.cos(),
                Func::Cos => -x.sin(),
                Func::Tan => 1.0 + z * z,
                Func::Tanh => 1.0 - z * z,
                Func::Sigmoid => z * (1.0 - z),
                Func::Relu => f64::from(u8::from(x > 0.0)),
                Func::Abs => sign(x),
                // d/dx ln(1 + e^x) = e^x / (1 + e^x) = sigmoid(x)
                Func::Softplus => 1.0 / (1.0 + (-x).exp()),
            };
            [d, 0.0]
        }
        Op::LeakyRelu(a, s) => [if v[a] > 0.0 { 1.0 } else { s }, 0.0],
        Op::Max(a, b) | Op::Min(a, b) => {
            let first_wins = if matches!(op, Op::Max(..)) {
                v[a] > v[b]
            } else {
                v[a] < v[b]
            };
            if v[a] == v[b] {
                [0.5, 0.5]
            } else if first_wins {
                [1.0, 0.0]
            } else {
                [0.0, 1.0]
            }
        }
    }
}
