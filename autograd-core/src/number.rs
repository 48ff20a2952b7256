//! [`Number`]: the one trait a function is written against to be evaluated plainly and
//! differentiated in every mode.

use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::Statement;

/// Everything a differentiable function may do with its arguments.
///
/// Implemented by the plain scalars (`f32`, `f64`), the dual numbers of forward mode and the tape
/// handle [`Var`](crate::Var) of reverse mode, so a function written once against `Number` is
/// evaluated, differentiated in reverse and forward mode and checked by finite differences
/// unchanged. Constants come from [`Number::from_f64`]; for a `Var` that is a constant that
/// lives off the tape until it meets a recorded value, so it costs nothing when unused.
///
/// ```
/// use autograd_core::{Number, Tape};
///
/// // f(x, y) = x^2 y + sin(y), written once.
/// fn f<T: Number>(x: T, y: T) -> T {
///     x.powi(2) * y + y.sin()
/// }
///
/// assert_eq!(f(3.0_f64, 0.0), 0.0);
///
/// let tape = Tape::<f64, 16>::new();
/// let (x, y) = (tape.var(3.0), tape.var(0.0));
/// let grads = tape.backward(f(x, y)).unwrap();
/// assert_eq!(grads.wrt(x), 0.0); // 2xy
/// assert_eq!(grads.wrt(y), 10.0); // x^2 + cos(y)
/// ```
pub trait Number:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + PartialEq
    + PartialOrd
    + Sum
    + Product
    + for<'a> Sum<&'a Self>
    + for<'a> Product<&'a Self>
{
    /// A constant (rounded to the nearest `f32` where the scalar is `f32`).
    fn from_f64(c: f64) -> Self;
    /// The real value as `f64` (for a dual number, its real part; for a `Var`, its value).
    fn to_f64(&self) -> f64;

    /// `e^x`
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Sine (radians).
    fn sin(self) -> Self;
    /// Cosine (radians).
    fn cos(self) -> Self;
    /// Tangent (radians).
    fn tan(self) -> Self;
    /// Hyperbolic tangent: finite with derivative `1 - tanh^2` (0, not NaN) for large `|x|`.
    fn tanh(self) -> Self;
    /// Logistic sigmoid `1 / (1 + e^-x)`, stable for large `|x|`.
    fn sigmoid(self) -> Self;
    /// `max(x, 0)`, derivative 0 at `x = 0`.
    fn relu(self) -> Self;
    /// `x` for `x > 0`, else `slope * x`; derivative `slope` at 0.
    fn leaky_relu(self, slope: f64) -> Self;
    /// `|x|`, derivative 0 at `x = 0`.
    fn abs(self) -> Self;
    /// `ln(1 + e^x)`, stable for large `|x|`.
    fn softplus(self) -> Self;
    /// `x^n` for an integer `n`.
    fn powi(self, n: i32) -> Self;
    /// `x^c` for a constant real `c`.
    fn powf(self, c: f64) -> Self;
    /// `x^y`, differentiable in both.
    fn pow(self, y: Self) -> Self;
    /// The larger of two; equal arguments split the derivative 0.5/0.5.
    fn max(self, other: Self) -> Self;
    /// The smaller of two; equal arguments split the derivative 0.5/0.5.
    fn min(self, other: Self) -> Self;
    /// Arctangent (radians).
    fn atan(self) -> Self;
    /// Arcsine (radians), on `[-1, 1]`; the derivative is `+inf` at `±1`.
    fn asin(self) -> Self;
    /// Arccosine (radians), on `[-1, 1]`; the derivative is `-inf` at `±1`.
    fn acos(self) -> Self;
    /// Hyperbolic sine.
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Base-2 logarithm.
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// `2^x`
    fn exp2(self) -> Self;
    /// Cube root (real for negative `x`); the derivative is `+inf` at 0.
    fn cbrt(self) -> Self;
    /// The angle of the point `(x, y)` for `self = y` (as `f64::atan2`), in `[-π, π]`; both
    /// partial derivatives are 0 at the origin, where the angle has none.
    fn atan2(self, x: Self) -> Self;
    /// `sqrt(self^2 + other^2)` without overflow or underflow on the way; both partial
    /// derivatives are 0 at the origin (as `abs'(0) = 0`).
    fn hypot(self, other: Self) -> Self;

    /// The constant 0.
    #[inline]
    fn zero() -> Self {
        Self::from_f64(0.0)
    }
    /// The constant 1.
    #[inline]
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    /// `x * x`
    #[inline]
    fn square(self) -> Self {
        self * self
    }
    /// `x * c` for a constant `c`: on a tape the constant is folded into a partial derivative;
    /// a dual number scales its parts without a full product.
    #[inline]
    fn mul_f64(self, c: f64) -> Self {
        self * Self::from_f64(c)
    }
    /// `x + c` for a constant `c`.
    #[inline]
    fn add_f64(self, c: f64) -> Self {
        self + Self::from_f64(c)
    }
    /// `c - x` for a constant `c`.
    #[inline]
    fn rsub_f64(self, c: f64) -> Self {
        Self::from_f64(c) - self
    }
    /// `x * a + b` (one statement on a tape).
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        self * a + b
    }
    /// `xs[0] + xs[1] + ...` (0 for an empty slice; one statement on a tape, where
    /// `xs.iter().sum()` is a fold of `+`). In generic code `T::sum` also names
    /// [`Iterator::sum`]'s trait method: write `Number::sum(&xs)`.
    #[inline]
    fn sum(xs: &[Self]) -> Self {
        xs.iter().fold(Self::zero(), |s, x| s + *x)
    }
    /// `a[0] b[0] + a[1] b[1] + ...` over the shorter length (one statement on a tape).
    #[inline]
    fn dot(a: &[Self], b: &[Self]) -> Self {
        a.iter().zip(b).fold(Self::zero(), |s, (x, y)| s + *x * *y)
    }
    /// `w · x + b` over the shorter length: a neuron's pre-activation (one statement on a tape,
    /// the whole sum evaluated in that order: `((b + w0 x0) + w1 x1) + ...`).
    #[inline]
    fn affine(w: &[Self], x: &[Self], b: Self) -> Self {
        w.iter().zip(x).fold(b, |s, (wi, xi)| s + *wi * *xi)
    }
    /// The expression `e` of the values `leaves` (see [`Statement`]): evaluated operation by
    /// operation, as written, except on a tape, where it is one statement whose partials come
    /// from `e`'s straight-line derivative, unless a value or partial is not finite (then the
    /// operations are recorded one by one, so NaN provenance names the one that made it), the
    /// leaves belong to two tapes (the error the operations report) or the tape lacks room for
    /// the largest statement they could make (the operations record what fits). `stmt!` (crate
    /// `autograd-macros`) calls it.
    ///
    /// ```
    /// use autograd_core::{rules, Number, Op, Scalar, Statement};
    /// struct Square;
    /// impl Statement<1> for Square {
    ///     const OP: Op = Op::Square;
    ///     const CUTS: bool = false;
    ///     fn eval<N: Number>(&self, [x]: [N; 1]) -> N { x.square() }
    ///     fn jacobian<S: Scalar>(&self, [x]: [S; 1]) -> (S, [S; 1]) {
    ///         let (y, d) = rules::square(x);
    ///         (y, [d])
    ///     }
    /// }
    /// assert_eq!(f64::statement(&Square, [&3.0]), 9.0);
    /// ```
    #[inline(always)]
    fn statement<E: Statement<L>, const L: usize>(e: &E, leaves: [&Self; L]) -> Self {
        e.eval(leaves.map(|x| *x))
    }
    /// A dense layer's pre-activations: `y[j] = affine(w_j, x, b_j)` for each row `j`, where
    /// `params` holds the rows one after another, each `x.len()` weights then the bias (the
    /// layout of a network's parameters). Rows past the end of `params` or of `y` are left out.
    /// Each `y[j]` is exactly [`affine`](Self::affine) of its row; on a tape whose parameters
    /// are consecutive leaves the whole layer is one statement (the inputs written once, the
    /// weights implied, a header per row).
    ///
    /// ```
    /// use autograd_core::Number;
    /// let params = [1.0, 2.0, 0.5, /* row 1: */ -1.0, 0.0, 3.0];
    /// let mut y = [0.0; 2];
    /// f64::affine_layer(&params, &[10.0, 100.0], &mut y);
    /// assert_eq!(y, [210.5, -7.0]);
    /// ```
    #[inline]
    fn affine_layer(params: &[Self], x: &[Self], y: &mut [Self]) {
        for (yj, row) in y.iter_mut().zip(params.chunks_exact(x.len() + 1)) {
            let (w, b) = row.split_at(x.len());
            *yj = Self::affine(w, x, b[0]);
        }
    }
}
