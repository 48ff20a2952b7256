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
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// assert_eq!(f32::from_f64(0.1), 0.1_f32); // rounded to the nearest f32
    /// let c = Dual::<f64>::from_f64(2.5); // a constant: no derivative
    /// assert_eq!((c.re, c.eps), (2.5, 0.0));
    /// ```
    fn from_f64(c: f64) -> Self;
    /// The real value as `f64` (for a dual number, its real part; for a `Var`, its value).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// assert_eq!(Dual::new(1.5_f32, 4.0).to_f64(), 1.5); // the real part
    /// ```
    fn to_f64(&self) -> f64;

    /// `e^x`
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.5_f64).exp();
    /// assert!((y.re - 0.5f64.exp()).abs() < 1e-15); // e^0.5, as std computes it
    /// assert_eq!(y.eps, y.re); // (e^x)' = e^x
    /// ```
    fn exp(self) -> Self;
    /// Natural logarithm.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(4.0_f64).ln();
    /// assert_eq!(y.eps, 0.25); // 1 / x
    /// assert!((y.re - 2.0 * 2f64.ln()).abs() < 1e-15);
    /// ```
    fn ln(self) -> Self;
    /// Square root.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(9.0_f64).sqrt();
    /// assert_eq!((y.re, y.eps), (3.0, 1.0 / 6.0)); // 1 / (2 sqrt x)
    /// ```
    fn sqrt(self) -> Self;
    /// Sine (radians).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).sin();
    /// assert_eq!((y.re, y.eps), (0.0, 1.0)); // cos 0
    /// ```
    fn sin(self) -> Self;
    /// Cosine (radians).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).cos();
    /// assert_eq!((y.re, y.eps), (1.0, 0.0)); // -sin 0
    /// ```
    fn cos(self) -> Self;
    /// `(sin x, cos x)`, the same values as [`sin`](Self::sin) and [`cos`](Self::cos) bit for
    /// bit, from one computation where the type has one: `f32` and `f64` share libm's argument
    /// reduction (`sincos`), `Q16` its angle, a dual number or a tape handle one call of its
    /// scalar's. Code that needs both (a rotation, polar coordinates) calls this once.
    ///
    /// ```
    /// use autograd_core::{Number, Tape};
    ///
    /// assert_eq!(Number::sin_cos(0.5_f64), (Number::sin(0.5_f64), Number::cos(0.5_f64)));
    /// let tape = Tape::<f64, 16>::new();
    /// let t = tape.var(0.5);
    /// let (s, c) = t.sin_cos();
    /// let grads = tape.backward(s * c).unwrap();
    /// // d/dt sin t cos t = cos^2 t - sin^2 t
    /// assert_eq!(grads.wrt(t), c.value() * c.value() - s.value() * s.value());
    /// ```
    #[inline]
    fn sin_cos(self) -> (Self, Self) {
        (self.sin(), self.cos())
    }
    /// Tangent (radians).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).tan();
    /// assert_eq!((y.re, y.eps), (0.0, 1.0)); // 1 + tan^2
    /// ```
    fn tan(self) -> Self;
    /// Hyperbolic tangent: finite with derivative `1 - tanh^2` (0, not NaN) for large `|x|`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).tanh();
    /// assert_eq!((y.re, y.eps), (0.0, 1.0)); // 1 - tanh^2
    /// let far = Dual::variable(400.0_f64).tanh();
    /// assert_eq!((far.re, far.eps), (1.0, 0.0)); // saturated, no NaN
    /// ```
    fn tanh(self) -> Self;
    /// Logistic sigmoid `1 / (1 + e^-x)`, stable for large `|x|`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).sigmoid();
    /// assert_eq!((y.re, y.eps), (0.5, 0.25)); // s (1 - s)
    /// assert_eq!(Dual::variable(-800.0_f64).sigmoid().eps, 0.0);
    /// ```
    fn sigmoid(self) -> Self;
    /// `max(x, 0)`, derivative 0 at `x = 0`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// assert_eq!(Dual::variable(2.0_f64).relu().eps, 1.0);
    /// assert_eq!(Dual::variable(0.0_f64).relu().eps, 0.0); // PyTorch's relu'(0)
    /// ```
    fn relu(self) -> Self;
    /// `x` for `x > 0`, else `slope * x`; derivative `slope` at 0.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(-2.0_f64).leaky_relu(0.1);
    /// assert_eq!((y.re, y.eps), (-0.2, 0.1));
    /// assert_eq!(Dual::variable(0.0_f64).leaky_relu(0.1).eps, 0.1);
    /// ```
    fn leaky_relu(self, slope: f64) -> Self;
    /// `|x|`, derivative 0 at `x = 0`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// assert_eq!(Dual::variable(-3.0_f64).abs().eps, -1.0);
    /// assert_eq!(Dual::variable(0.0_f64).abs().eps, 0.0);
    /// ```
    fn abs(self) -> Self;
    /// `ln(1 + e^x)`, stable for large `|x|`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).softplus();
    /// assert!((y.re - 2f64.ln()).abs() < 1e-15);
    /// assert_eq!(y.eps, 0.5); // the sigmoid
    /// assert_eq!(Dual::variable(1000.0_f64).softplus().re, 1000.0); // no overflow
    /// ```
    fn softplus(self) -> Self;
    /// `x^n` for an integer `n`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(2.0_f64).powi(3);
    /// assert_eq!((y.re, y.eps), (8.0, 12.0)); // 3 x^2
    /// assert_eq!(Dual::variable(2.0_f64).powi(-1).eps, -0.25);
    /// ```
    fn powi(self, n: i32) -> Self;
    /// `x^c` for a constant real `c`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(4.0_f64).powf(1.5);
    /// assert_eq!((y.re, y.eps), (8.0, 3.0)); // 1.5 x^0.5
    /// ```
    fn powf(self, c: f64) -> Self;
    /// `x^y`, differentiable in both.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// // d/dy 2^y = 2^y ln 2 at y = 3, the base held.
    /// let z = Dual::constant(2.0_f64).pow(Dual::variable(3.0));
    /// assert_eq!(z.re, 8.0);
    /// assert!((z.eps - 8.0 * 2f64.ln()).abs() < 1e-14);
    /// ```
    fn pow(self, y: Self) -> Self;
    /// The larger of two; equal arguments split the derivative 0.5/0.5.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let x = Dual::variable(1.0_f64);
    /// assert_eq!(x.max(Dual::constant(0.0)).eps, 1.0);
    /// assert_eq!(x.max(Dual::constant(1.0)).eps, 0.5); // a tie
    /// ```
    fn max(self, other: Self) -> Self;
    /// The smaller of two; equal arguments split the derivative 0.5/0.5.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let x = Dual::variable(1.0_f64);
    /// assert_eq!(x.min(Dual::constant(0.0)).eps, 0.0);
    /// assert_eq!(x.min(Dual::constant(1.0)).eps, 0.5); // a tie
    /// ```
    fn min(self, other: Self) -> Self;
    /// Arctangent (radians).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(1.0_f64).atan();
    /// assert!((y.re - core::f64::consts::FRAC_PI_4).abs() < 1e-15);
    /// assert_eq!(y.eps, 0.5); // 1 / (1 + x^2)
    /// ```
    fn atan(self) -> Self;
    /// Arcsine (radians), on `[-1, 1]`; the derivative is `+inf` at `±1`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).asin();
    /// assert_eq!((y.re, y.eps), (0.0, 1.0)); // 1 / sqrt(1 - x^2)
    /// assert_eq!(Dual::variable(1.0_f64).asin().eps, f64::INFINITY);
    /// ```
    fn asin(self) -> Self;
    /// Arccosine (radians), on `[-1, 1]`; the derivative is `-inf` at `±1`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).acos();
    /// assert!((y.re - core::f64::consts::FRAC_PI_2).abs() < 1e-15);
    /// assert_eq!(y.eps, -1.0); // -1 / sqrt(1 - x^2)
    /// ```
    fn acos(self) -> Self;
    /// Hyperbolic sine.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).sinh();
    /// assert_eq!((y.re, y.eps), (0.0, 1.0)); // cosh 0
    /// ```
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(0.0_f64).cosh();
    /// assert_eq!((y.re, y.eps), (1.0, 0.0)); // sinh 0
    /// ```
    fn cosh(self) -> Self;
    /// Base-2 logarithm.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(8.0_f64).log2();
    /// assert_eq!(y.re, 3.0);
    /// assert!((y.eps - 1.0 / (8.0 * 2f64.ln())).abs() < 1e-15); // 1 / (x ln 2)
    /// ```
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(100.0_f64).log10();
    /// assert_eq!(y.re, 2.0);
    /// assert!((y.eps - 1.0 / (100.0 * 10f64.ln())).abs() < 1e-15); // 1 / (x ln 10)
    /// ```
    fn log10(self) -> Self;
    /// `2^x`
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(3.0_f64).exp2();
    /// assert_eq!(y.re, 8.0);
    /// assert!((y.eps - 8.0 * 2f64.ln()).abs() < 1e-14); // 2^x ln 2
    /// ```
    fn exp2(self) -> Self;
    /// Cube root (real for negative `x`); the derivative is `+inf` at 0.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(-8.0_f64).cbrt();
    /// assert_eq!(y.re, -2.0);
    /// assert!((y.eps - 1.0 / 12.0).abs() < 1e-16); // 1 / (3 cbrt(x)^2)
    /// ```
    fn cbrt(self) -> Self;
    /// The angle of the point `(x, y)` for `self = y` (as `f64::atan2`), in `[-π, π]`; both
    /// partial derivatives are 0 at the origin, where the angle has none.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// // The angle of (x, y) = (0, 2), y varied: d/dy = x / (x^2 + y^2) = 0.
    /// let a = Dual::variable(2.0_f64).atan2(Dual::constant(0.0));
    /// assert!((a.re - core::f64::consts::FRAC_PI_2).abs() < 1e-15);
    /// assert_eq!(a.eps, 0.0);
    /// ```
    fn atan2(self, x: Self) -> Self;
    /// `sqrt(self^2 + other^2)` without overflow or underflow on the way; both partial
    /// derivatives are 0 at the origin (as `abs'(0) = 0`).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let h = Dual::variable(3.0_f64).hypot(Dual::constant(4.0));
    /// assert_eq!((h.re, h.eps), (5.0, 0.6)); // x / h
    /// let big = 1e300_f64.hypot(1e300); // no overflow on the way
    /// assert!(big.is_finite());
    /// ```
    fn hypot(self, other: Self) -> Self;

    /// The constant 0.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// assert_eq!(f64::zero(), 0.0);
    /// assert_eq!(Dual::<f32>::zero().eps, 0.0);
    /// ```
    #[inline]
    fn zero() -> Self {
        Self::from_f64(0.0)
    }
    /// The constant 1.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// assert_eq!(f32::one(), 1.0);
    /// assert_eq!(Dual::<f64>::one().eps, 0.0); // a constant
    /// ```
    #[inline]
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    /// `x * x`
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(-3.0_f64).square();
    /// assert_eq!((y.re, y.eps), (9.0, -6.0));
    /// ```
    #[inline]
    fn square(self) -> Self {
        self * self
    }
    /// `x * c` for a constant `c`: on a tape the constant is folded into a partial derivative;
    /// a dual number scales its parts without a full product.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(2.0_f64).mul_f64(100.0);
    /// assert_eq!((y.re, y.eps), (200.0, 100.0));
    /// ```
    #[inline]
    fn mul_f64(self, c: f64) -> Self {
        self * Self::from_f64(c)
    }
    /// `x + c` for a constant `c`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(2.0_f64).add_f64(0.5);
    /// assert_eq!((y.re, y.eps), (2.5, 1.0));
    /// ```
    #[inline]
    fn add_f64(self, c: f64) -> Self {
        self + Self::from_f64(c)
    }
    /// `c - x` for a constant `c`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = Dual::variable(2.0_f64).rsub_f64(1.0); // 1 - x
    /// assert_eq!((y.re, y.eps), (-1.0, -1.0));
    /// ```
    #[inline]
    fn rsub_f64(self, c: f64) -> Self {
        Self::from_f64(c) - self
    }
    /// `x * a + b` (one statement on a tape).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let x = Dual::variable(2.0_f64);
    /// let y = x.mul_add(Dual::constant(3.0), Dual::constant(1.0)); // 3x + 1
    /// assert_eq!((y.re, y.eps), (7.0, 3.0));
    /// assert_eq!(2.0_f64.mul_add(3.0, 1.0), 7.0);
    /// ```
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        self * a + b
    }
    /// `xs[0] + xs[1] + ...` (0 for an empty slice; one statement on a tape, where
    /// `xs.iter().sum()` is a fold of `+`). In generic code `T::sum` also names
    /// [`Iterator::sum`]'s trait method: write `Number::sum(&xs)`.
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let xs = [1.0_f64, 2.0, 3.5];
    /// assert_eq!(<f64 as Number>::sum(&xs), 6.5);
    /// let ds = [Dual::variable(1.0_f64), Dual::constant(2.0), Dual::variable(3.0)];
    /// assert_eq!(Number::sum(&ds).eps, 2.0);
    /// assert_eq!(<f64 as Number>::sum(&[]), 0.0);
    /// ```
    #[inline]
    fn sum(xs: &[Self]) -> Self {
        xs.iter().fold(Self::zero(), |s, x| s + *x)
    }
    /// `a[0] b[0] + a[1] b[1] + ...` over the shorter length (one statement on a tape).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// assert_eq!(f64::dot(&[1.0, 2.0, 3.0], &[4.0, 5.0]), 14.0); // the shorter length
    /// let w = [Dual::variable(0.5_f64), Dual::constant(-1.0)];
    /// let x = [Dual::constant(4.0), Dual::constant(3.0)];
    /// let y = Dual::dot(&w, &x);
    /// assert_eq!((y.re, y.eps), (-1.0, 4.0)); // d/dw0 = x0
    /// ```
    #[inline]
    fn dot(a: &[Self], b: &[Self]) -> Self {
        a.iter().zip(b).fold(Self::zero(), |s, (x, y)| s + *x * *y)
    }
    /// `w · x + b` over the shorter length: a neuron's pre-activation (one statement on a tape,
    /// the whole sum evaluated in that order: `((b + w0 x0) + w1 x1) + ...`).
    ///
    /// ```
    /// use autograd_core::{Dual, Number};
    ///
    /// let y = f64::affine(&[0.5, -1.0], &[2.0, 3.0], 0.25); // 0.25 + 1 - 3
    /// assert_eq!(y, -1.75);
    /// let b = Dual::variable(0.25_f64);
    /// let z = Dual::affine(&[Dual::constant(0.5)], &[Dual::constant(2.0)], b);
    /// assert_eq!((z.re, z.eps), (1.25, 1.0)); // d/db = 1
    /// ```
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
    /// Each `y[j]` is exactly [`affine`](Self::affine) of its row (on a tape, its gradient up to
    /// rounding over one input or over an input of two pending partials:
    /// [`Var::affine_layer`](crate::Var::affine_layer)); on a tape
    /// whose parameters are consecutive leaves the whole layer is one statement (the inputs
    /// written once, the weights implied, a header per row).
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
