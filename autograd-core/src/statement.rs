//! [`Statement`]: a whole expression of a few values, known when the program is compiled, so a
//! tape can record it as one statement with its partials computed in straight-line code (what
//! Adept's expression templates do in C++). The `stmt!` macro of the crate `autograd-macros`
//! writes the implementations; [`Number::statement`] evaluates one.

use crate::{Number, Op, Scalar};

/// An expression of `L` values (its leaves), written out twice: as itself over any [`Number`]
/// (the plain evaluation, the dual numbers, and the tape's operation-by-operation recording) and
/// as its value with its partial derivative with respect to each leaf, on plain scalars, by the
/// chain rule applied when the code was generated (the tape's one-statement recording, see
/// [`Number::statement`]). The two must describe the same function: `stmt!` generates both from
/// one expression, the derivatives from the table of operations ([`rules`](crate::rules)).
///
/// ```
/// use autograd_core::{rules, Number, Op, Scalar, Statement, Tape};
///
/// /// `x0 x1 + sin(x0)`, written by hand as `stmt!(a * b + a.sin())` would write it.
/// struct Example;
/// impl Statement<2> for Example {
///     const OP: Op = Op::Add;
///     const CUTS: bool = false;
///     fn eval<N: Number>(&self, [a, b]: [N; 2]) -> N {
///         a * b + a.sin()
///     }
///     fn jacobian<S: Scalar>(&self, [a, b]: [S; 2]) -> (S, [S; 2]) {
///         let (ab, d_a, d_b) = rules::binary(Op::Mul, a, b);
///         let (s, d_s) = rules::sin(a);
///         let (y, _, _) = rules::binary(Op::Add, ab, s);
///         (y, [d_a + d_s, d_b])
///     }
/// }
///
/// assert_eq!(f64::statement(&Example, [&2.0, &3.0]), 6.0 + 2.0_f64.sin());
/// let tape = Tape::<f64, 16>::new();
/// let (a, b) = (tape.var(2.0), tape.var(3.0));
/// let y = Number::statement(&Example, [&a, &b]);
/// let g = tape.backward(y)?;
/// assert_eq!((g.wrt(a), g.wrt(b)), (3.0 + 2.0_f64.cos(), 2.0));
/// # Ok::<(), autograd_core::Error>(())
/// ```
pub trait Statement<const L: usize> {
    /// The operation at the expression's root: the label of the statement it is written as.
    const OP: Op;
    /// `true` if the expression holds an operation that is flat over intervals
    /// ([`Op::has_flat_regions`]: `relu`, a saturated `tanh`, ...): then a leaf whose partial is
    /// exactly 0 is not an operand of the statement (it sends nothing back, not even to an
    /// infinite adjoint), as such an operation's zero derivative cuts the dependence operation
    /// by operation. `false`: every leaf's pairs are operands, as `x * y` at `y = 0` keeps `x`.
    const CUTS: bool;
    /// The expression over any [`Number`], operation by operation.
    fn eval<N: Number>(&self, leaves: [N; L]) -> N;
    /// The expression's value and its partial derivative with respect to each leaf, at
    /// `leaves`.
    fn jacobian<S: Scalar>(&self, leaves: [S; L]) -> (S, [S; L]);
}
