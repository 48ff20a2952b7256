//! One function, every mode: gradients and Jacobians in reverse and forward mode.
//!
//! A function is written once against [`Number`] and wrapped in a type implementing [`Function`]
//! (R^n → R) or [`VectorFunction`] (R^n → R^m). (Rust closures cannot be generic over the number
//! type, so the trait's generic method stands in for one.)
//!
//! ```
//! use autograd_core::{gradient_forward, gradient_reverse, Function, Number, Tape};
//!
//! fn rosenbrock<T: Number>(x: &[T]) -> T {
//!     let mut s = T::zero();
//!     for w in x.windows(2) {
//!         s = s + T::from_f64(100.0) * (w[1] - w[0].square()).square() + (T::one() - w[0]).square();
//!     }
//!     s
//! }
//! struct Rosenbrock;
//! impl Function for Rosenbrock {
//!     fn eval<T: Number>(&self, x: &[T]) -> T {
//!         rosenbrock(x)
//!     }
//! }
//!
//! let x = [0.5, 1.5];
//! let analytic = [-400.0 * 0.5 * (1.5 - 0.25) - 2.0 * (1.0 - 0.5), 200.0 * (1.5 - 0.25)];
//! let mut tape = Tape::<f64, 64>::new();
//! let (mut rev, mut fwd) = ([0.0; 2], [0.0; 2]);
//! let y = gradient_reverse(&Rosenbrock, &mut tape, &x, &mut rev)?;
//! gradient_forward(&Rosenbrock, &x, &mut fwd)?;
//! assert_eq!(y, rosenbrock(&x)); // plain evaluation, same function
//! assert_eq!(rev, analytic);
//! assert_eq!(fwd, analytic);
//! # Ok::<(), autograd_core::DiffError>(())
//! ```

use core::fmt;

use heapless::Vec;

use crate::{Dual, DualVec, Number, Scalar, TapeError, TapeView, Var};

/// A function R^n → R, written once for every [`Number`] type.
///
/// Where it can go, and how many passes each mode takes (measured costs: the README's
/// performance section, reproduced by `cargo xtask bench`):
///
/// | mode | driver | passes |
/// |---|---|---|
/// | reverse | [`gradient_reverse`] | 1 recording + 1 backward sweep |
/// | forward, `Dual` | [`gradient_forward`] | n |
/// | forward, `DualVec<S, L>` | [`gradient_forward_vec`] | ceil(n / L) |
/// | central differences | [`gradient_central`](crate::gradient_central) | 2n + 1 plain |
/// | Jacobian, reverse | [`jacobian_reverse`] | 1 recording + m sweeps |
/// | Jacobian, forward | [`jacobian_forward`], [`jacobian_forward_vec`] | n, ceil(n / L) |
///
/// Reverse mode's cost does not grow with n; forward mode's does, so it pays for few inputs
/// (or many outputs), and its lanes pay where transcendental functions dominate.
///
/// Implement it on a (usually zero-sized) type that forwards to a generic function; the same
/// value can then be passed to every gradient driver, checked by [`gradcheck`](crate::gradcheck)
/// and differentiated twice ([`hessian`](crate::hessian)). Data the function needs (targets,
/// weights) can live in the implementing type and enter the computation as
/// `T::from_f64(c)` constants.
///
/// ```
/// use autograd_core::{Function, Number};
///
/// /// Squared distance to a fixed point.
/// struct DistanceTo<'a>(&'a [f64]);
/// impl Function for DistanceTo<'_> {
///     fn eval<T: Number>(&self, x: &[T]) -> T {
///         x.iter().zip(self.0).fold(T::zero(), |s, (xi, ci)| s + (*xi - T::from_f64(*ci)).square())
///     }
/// }
/// assert_eq!(DistanceTo(&[1.0, 2.0]).eval(&[4.0, 6.0]), 25.0);
/// ```
pub trait Function {
    /// `f(x)`.
    fn eval<T: Number>(&self, x: &[T]) -> T;
}

/// A function R^n → R^m, written once for every [`Number`] type: it writes `f(x)` into `out`
/// (`m = out.len()`, chosen by the caller's slices).
///
/// ```
/// use autograd_core::{jacobian_forward, Number, VectorFunction};
///
/// /// Polar to Cartesian: (r, θ) -> (r cos θ, r sin θ).
/// struct Polar;
/// impl VectorFunction for Polar {
///     fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
///         out[0] = x[0] * x[1].cos();
///         out[1] = x[0] * x[1].sin();
///     }
/// }
/// let (mut y, mut j) = ([0.0; 2], [0.0; 4]);
/// jacobian_forward(&Polar, &[2.0, 0.0], &mut y, &mut j)?;
/// assert_eq!(y, [2.0, 0.0]);
/// assert_eq!(j, [1.0, 0.0, 0.0, 2.0]); // [[cos θ, -r sin θ], [sin θ, r cos θ]]
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub trait VectorFunction {
    /// Writes `f(x)` into `out`.
    fn eval<T: Number>(&self, x: &[T], out: &mut [T]);
}

impl<F: Function + ?Sized> Function for &F {
    #[inline(always)]
    fn eval<T: Number>(&self, x: &[T]) -> T {
        (**self).eval(x)
    }
}

impl<F: VectorFunction + ?Sized> VectorFunction for &F {
    #[inline(always)]
    fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
        (**self).eval(x, out)
    }
}

/// The largest number of inputs (and, for Jacobians, outputs) a driver accepts.
///
/// Every driver writes into caller-provided slices and allocates nothing: the handles or dual
/// numbers it passes to `f` live in a stack buffer sized by a tier (16, 256 or
/// [`MAX_DIMENSION`] elements) picked from the dimension at run time, so a small problem uses a
/// small stack frame. The largest tier takes `MAX_DIMENSION * size_of::<T>()` bytes of stack per
/// buffer (96 KiB for a `Var<f64>`, 288 KiB for a `DualVec<f64, 8>`): every driver at n = 4000
/// ran within a 2 MiB thread stack (Rust's default for spawned threads) in a debug build, and
/// overflowed 1 MiB. Firmware with a small stack only ever enters the small tiers.
pub const MAX_DIMENSION: usize = 4096;

/// What went wrong in a gradient, Jacobian, Hessian or check driver.
///
/// ```
/// use autograd_core::{gradient_forward, DiffError, Function, Number};
/// struct Sum;
/// impl Function for Sum {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x.iter().fold(T::zero(), |s, v| s + *v) }
/// }
/// let err = gradient_forward(&Sum, &[1.0, 2.0], &mut [0.0; 3]).unwrap_err();
/// assert_eq!(err, DiffError::LengthMismatch { what: "gradient", expected: 2, found: 3 });
/// assert_eq!(err.to_string(), "gradient slice has length 3, expected 2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiffError {
    /// Recording or differentiating on the tape failed (e.g. its capacity was exceeded).
    Tape(TapeError),
    /// More inputs (or outputs) than [`MAX_DIMENSION`].
    DimensionTooLarge {
        /// The dimension asked for.
        len: usize,
        /// The largest supported.
        max: usize,
    },
    /// An output (or direction) slice does not fit the input.
    LengthMismatch {
        /// Which slice.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        found: usize,
    },
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DiffError::Tape(e) => fmt::Display::fmt(&e, f),
            DiffError::DimensionTooLarge { len, max } => write!(
                f,
                "dimension {len} exceeds the supported maximum of {max} (MAX_DIMENSION)"
            ),
            DiffError::LengthMismatch {
                what,
                expected,
                found,
            } => write!(f, "{what} slice has length {found}, expected {expected}"),
        }
    }
}

impl core::error::Error for DiffError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            DiffError::Tape(e) => Some(e),
            _ => None,
        }
    }
}

impl From<TapeError> for DiffError {
    fn from(e: TapeError) -> Self {
        DiffError::Tape(e)
    }
}

/// `Ok` if a slice has the length it must have.
#[inline]
pub(crate) fn expect_len(
    what: &'static str,
    expected: usize,
    found: usize,
) -> Result<(), DiffError> {
    if expected == found {
        Ok(())
    } else {
        Err(DiffError::LengthMismatch {
            what,
            expected,
            found,
        })
    }
}

/// Calls `$f::<D, generics...>(args)` with the smallest scratch tier `D` that holds `$n`
/// elements, or fails with [`DiffError::DimensionTooLarge`]. Each tier is its own
/// `#[inline(never)]` function, so only the chosen tier's buffer occupies the stack.
macro_rules! tiered {
    ($n:expr, $f:ident [$($g:tt)*] ($($arg:expr),* $(,)?)) => {{
        let n: usize = $n;
        if n <= 16 {
            $f::<16, $($g)*>($($arg),*)
        } else if n <= 256 {
            $f::<256, $($g)*>($($arg),*)
        } else if n <= $crate::gradient::MAX_DIMENSION {
            $f::<{ $crate::gradient::MAX_DIMENSION }, $($g)*>($($arg),*)
        } else {
            Err($crate::gradient::DiffError::DimensionTooLarge {
                len: n,
                max: $crate::gradient::MAX_DIMENSION,
            })
        }
    }};
}
pub(crate) use tiered;

/// Appends `f(x_i)` to `v`, a buffer of capacity `D` (the caller checked `x.len() <= D`).
///
/// Fills in place: returning the buffer by value would copy its whole capacity on every call
/// (96 KiB of `Var<f64>` in the largest tier), more than a reverse-mode gradient of a
/// thousand-input Rosenbrock costs.
#[inline(always)]
pub(crate) fn fill<const D: usize, S: Copy, T>(
    v: &mut Vec<T, D>,
    x: &[S],
    mut f: impl FnMut(S) -> T,
) -> Result<(), DiffError> {
    for &xi in x {
        v.push(f(xi)).map_err(|_| DiffError::DimensionTooLarge {
            len: x.len(),
            max: D,
        })?;
    }
    Ok(())
}

/// Reverse mode: `grad = ∇f(x)` from one recording and one backward sweep; returns `f(x)`.
///
/// Nodes are recorded after the tape's current end and discarded before returning (even on
/// error), so a tape holding parameters can be passed in; it needs room for the `n` inputs plus
/// the operations of `f`. Takes any `Tape<S, N>` (it dereferences to a `TapeView`).
///
/// # Errors
/// [`DiffError::LengthMismatch`] if `grad.len() != x.len()`; [`DiffError::DimensionTooLarge`]
/// past [`MAX_DIMENSION`] inputs; [`DiffError::Tape`] if the tape runs out of capacity (or had
/// already failed).
///
/// ```
/// use autograd_core::{gradient_reverse, Function, Number, Tape};
/// struct SinOfSquare;
/// impl Function for SinOfSquare {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x[0].powi(2).sin() }
/// }
/// let mut tape = Tape::<f64, 8>::new();
/// let mut g = [0.0];
/// gradient_reverse(&SinOfSquare, &mut tape, &[2.0], &mut g)?;
/// assert_eq!(g[0], 4.0 * libm::cos(4.0)); // -2.615
/// assert!(tape.is_empty());
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn gradient_reverse<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<S>,
    x: &[S],
    grad: &mut [S],
) -> Result<S, DiffError> {
    expect_len("gradient", x.len(), grad.len())?;
    tape.check()?;
    let mark = tape.mark();
    let result = tiered!(x.len(), reverse_tier[S, F](f, &*tape, x, grad));
    tape.rewind(mark);
    result
}

#[inline(never)]
fn reverse_tier<const D: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &TapeView<S>,
    x: &[S],
    grad: &mut [S],
) -> Result<S, DiffError> {
    let mut vars = Vec::<_, D>::new();
    fill(&mut vars, x, |xi| tape.var(xi))?;
    let y = f.eval(&vars);
    write_gradient(tape, y, &vars, grad)?;
    Ok(y.value())
}

/// `out = dy/dvars` (zeros if `y` is a constant: `f` did not use its inputs).
#[inline]
pub(crate) fn write_gradient<S: Scalar>(
    tape: &TapeView<S>,
    y: Var<'_, S>,
    vars: &[Var<'_, S>],
    out: &mut [S],
) -> Result<(), TapeError> {
    if y.is_constant() {
        tape.check()?;
        out.iter_mut().for_each(|o| *o = S::ZERO);
        return Ok(());
    }
    // The inputs were recorded in order: nothing below the first one can depend on them, so
    // the sweep stops there (its cost does not depend on what the tape held before).
    let grads = match vars.first().and_then(|v| v.id()) {
        Some(first) => tape.backward_above(y, crate::Mark::before(first))?,
        None => tape.backward(y)?,
    };
    grads.write_to(vars, out)
}

/// Forward mode with [`Dual`]: `grad = ∇f(x)` from `n` passes, pass `i` seeding `dx_i = 1`;
/// returns `f(x)`. No tape; cost grows with `n` (prefer reverse mode for many inputs, or
/// [`gradient_forward_vec`] to carry several directions per pass).
///
/// # Errors
/// [`DiffError::LengthMismatch`] if `grad.len() != x.len()`; [`DiffError::DimensionTooLarge`]
/// past [`MAX_DIMENSION`] inputs.
///
/// ```
/// use autograd_core::{gradient_forward, Function, Number};
/// struct F; // x^2 + 3x + 1 (the lesson's PyTorch example): f'(2) = 7
/// impl Function for F {
///     fn eval<T: Number>(&self, x: &[T]) -> T {
///         x[0].powi(2) + T::from_f64(3.0) * x[0] + T::one()
///     }
/// }
/// let mut g = [0.0];
/// assert_eq!(gradient_forward(&F, &[2.0], &mut g)?, 11.0);
/// assert_eq!(g, [7.0]);
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn gradient_forward<S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, DiffError> {
    expect_len("gradient", x.len(), grad.len())?;
    if x.is_empty() {
        return Ok(f.eval(x));
    }
    tiered!(x.len(), forward_tier[S, F](f, x, grad))
}

#[inline(never)]
fn forward_tier<const D: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, DiffError> {
    let mut xs = Vec::<_, D>::new();
    fill(&mut xs, x, Dual::constant)?;
    let mut value = S::ZERO;
    for (i, g) in grad.iter_mut().enumerate() {
        xs[i].eps = S::ONE;
        let y = f.eval(&xs);
        xs[i].eps = S::ZERO;
        *g = y.eps;
        value = y.re;
    }
    Ok(value)
}

/// Forward mode with `L` tangent lanes ([`DualVec<S, L>`]): `grad = ∇f(x)` from
/// `ceil(n / L)` passes; returns `f(x)`. Each pass costs about `L` dual passes of arithmetic
/// but evaluates the primal part (and every `sin`, `exp`, ...) once, so it beats `n` [`Dual`]
/// passes on transcendental-heavy code.
///
/// # Errors
/// As [`gradient_forward`]. `L = 0` does not compile.
///
/// ```
/// use autograd_core::{gradient_forward_vec, Function, Number};
/// struct Prod; // x0 x1 x2
/// impl Function for Prod {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x[0] * x[1] * x[2] }
/// }
/// let mut g = [0.0; 3];
/// gradient_forward_vec::<2, _, _>(&Prod, &[2.0, 3.0, 5.0], &mut g)?; // 2 passes
/// assert_eq!(g, [15.0, 10.0, 6.0]);
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn gradient_forward_vec<const L: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, DiffError> {
    const { assert!(L > 0, "a DualVec driver needs at least one lane") };
    expect_len("gradient", x.len(), grad.len())?;
    if x.is_empty() {
        return Ok(f.eval(x));
    }
    tiered!(x.len(), forward_vec_tier[L, S, F](f, x, grad))
}

#[inline(never)]
fn forward_vec_tier<const D: usize, const L: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, DiffError> {
    let mut xs = Vec::<_, D>::new();
    fill(&mut xs, x, DualVec::<S, L>::constant)?;
    let mut value = S::ZERO;
    for (chunk, g) in grad.chunks_mut(L).enumerate() {
        let start = chunk * L;
        let seeded = &mut xs[start..start + g.len()];
        seeded
            .iter_mut()
            .enumerate()
            .for_each(|(k, v)| v.eps[k] = S::ONE);
        let y = f.eval(&xs);
        xs[start..start + g.len()]
            .iter_mut()
            .enumerate()
            .for_each(|(k, v)| v.eps[k] = S::ZERO);
        g.copy_from_slice(&y.eps[..g.len()]);
        value = y.re;
    }
    Ok(value)
}

/// The directional derivative `∇f(x) · v` (a Jacobian-vector product for m = 1) in one
/// [`Dual`] pass; returns `(f(x), ∇f(x) · v)`.
///
/// # Errors
/// [`DiffError::LengthMismatch`] if `v.len() != x.len()`; [`DiffError::DimensionTooLarge`].
///
/// ```
/// use autograd_core::{directional_derivative, Function, Number};
/// struct Dot; // x0 x1
/// impl Function for Dot {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x[0] * x[1] }
/// }
/// let (y, d) = directional_derivative(&Dot, &[2.0, 3.0], &[1.0, -1.0])?;
/// assert_eq!((y, d), (6.0, 3.0 - 2.0));
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn directional_derivative<S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    v: &[S],
) -> Result<(S, S), DiffError> {
    expect_len("direction", x.len(), v.len())?;
    tiered!(x.len(), directional_tier[S, F](f, x, v))
}

#[inline(never)]
fn directional_tier<const D: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    v: &[S],
) -> Result<(S, S), DiffError> {
    let mut xs = Vec::<_, D>::new();
    fill(&mut xs, x, Dual::constant)?;
    for (xi, vi) in xs.iter_mut().zip(v) {
        xi.eps = *vi;
    }
    let y = f.eval(&xs);
    Ok((y.re, y.eps))
}

/// Checks `values.len() = m`, `jac.len() = m n`.
pub(crate) fn jacobian_shape(
    n: usize,
    values: &[impl Copy],
    jac: &[impl Copy],
) -> Result<(), DiffError> {
    let expected = n
        .checked_mul(values.len())
        .ok_or(DiffError::DimensionTooLarge {
            len: values.len(),
            max: MAX_DIMENSION,
        })?;
    expect_len("Jacobian", expected, jac.len())
}

/// Reverse-mode Jacobian of R^n → R^m: one recording, then one backward sweep per output
/// (`m` sweeps). Writes `values = f(x)` (length `m`) and `jac` row-major, `m × n`:
/// `jac[i * n + j] = ∂f_i/∂x_j`. Prefer it when `m < n`; the tape is rewound on return.
///
/// # Errors
/// [`DiffError::LengthMismatch`] if `jac.len() != m * n`; [`DiffError::DimensionTooLarge`] if
/// `n` or `m` exceeds [`MAX_DIMENSION`]; [`DiffError::Tape`] if the tape runs out of capacity.
///
/// ```
/// use autograd_core::{jacobian_reverse, Number, Tape, VectorFunction};
/// struct F; // (x0 x1, x0 + x1, sin x0)
/// impl VectorFunction for F {
///     fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
///         out[0] = x[0] * x[1];
///         out[1] = x[0] + x[1];
///         out[2] = x[0].sin();
///     }
/// }
/// let mut tape = Tape::<f64, 16>::new();
/// let (mut y, mut j) = ([0.0; 3], [0.0; 6]);
/// jacobian_reverse(&F, &mut tape, &[2.0, 3.0], &mut y, &mut j)?;
/// assert_eq!(j, [3.0, 2.0, 1.0, 1.0, libm::cos(2.0), 0.0]);
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn jacobian_reverse<S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    tape: &mut TapeView<S>,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), DiffError> {
    jacobian_shape(x.len(), values, jac)?;
    tape.check()?;
    let mark = tape.mark();
    let dim = x.len().max(values.len());
    let result = tiered!(dim, jacobian_reverse_tier[S, F](f, &*tape, x, values, jac));
    tape.rewind(mark);
    result
}

#[inline(never)]
fn jacobian_reverse_tier<const D: usize, S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    tape: &TapeView<S>,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), DiffError> {
    let mut vars = Vec::<_, D>::new();
    fill(&mut vars, x, |xi| tape.var(xi))?;
    let mut outs = Vec::<_, D>::new();
    fill(&mut outs, values, |_| Var::constant(S::ZERO))?;
    f.eval(&vars, &mut outs);
    tape.check()?;
    let n = x.len();
    for (i, (y, v)) in outs.iter().zip(values.iter_mut()).enumerate() {
        *v = y.value();
        write_gradient(tape, *y, &vars, &mut jac[i * n..(i + 1) * n])?;
    }
    Ok(())
}

/// Forward-mode Jacobian of R^n → R^m: `n` [`Dual`] passes, pass `j` giving column `j`.
/// Writes `values = f(x)` and `jac` row-major `m × n` (`jac[i * n + j] = ∂f_i/∂x_j`). Prefer it
/// when `n <= m`; no tape.
///
/// # Errors
/// As [`jacobian_reverse`], without the tape errors.
///
/// ```
/// use autograd_core::{jacobian_forward, Number, VectorFunction};
/// struct Scale; // (2 x0, 3 x0)
/// impl VectorFunction for Scale {
///     fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
///         out[0] = x[0] * T::from_f64(2.0);
///         out[1] = x[0] * T::from_f64(3.0);
///     }
/// }
/// let (mut y, mut j) = ([0.0; 2], [0.0; 2]);
/// jacobian_forward(&Scale, &[1.5], &mut y, &mut j)?;
/// assert_eq!((y, j), ([3.0, 4.5], [2.0, 3.0]));
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn jacobian_forward<S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), DiffError> {
    jacobian_shape(x.len(), values, jac)?;
    let dim = x.len().max(values.len());
    tiered!(dim, jacobian_forward_tier[S, F](f, x, values, jac))
}

#[inline(never)]
fn jacobian_forward_tier<const D: usize, S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), DiffError> {
    let mut xs = Vec::<_, D>::new();
    fill(&mut xs, x, Dual::constant)?;
    let mut outs = Vec::<_, D>::new();
    fill(&mut outs, values, |_| Dual::constant(S::ZERO))?;
    let n = x.len();
    if n == 0 {
        f.eval(&xs, &mut outs);
    }
    for j in 0..n {
        xs[j].eps = S::ONE;
        f.eval(&xs, &mut outs);
        xs[j].eps = S::ZERO;
        for (i, y) in outs.iter().enumerate() {
            jac[i * n + j] = y.eps;
        }
    }
    for (v, y) in values.iter_mut().zip(outs.iter()) {
        *v = y.re;
    }
    Ok(())
}

/// Forward-mode Jacobian with `L` tangent lanes ([`DualVec<S, L>`]): `ceil(n / L)` passes, pass
/// `k` giving columns `kL .. kL + L`. Same layout and errors as [`jacobian_forward`]; `L = 0`
/// does not compile.
///
/// ```
/// use autograd_core::{jacobian_forward_vec, Number, VectorFunction};
/// struct F; // (x0 x1 x2, x0 + x2)
/// impl VectorFunction for F {
///     fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
///         out[0] = x[0] * x[1] * x[2];
///         out[1] = x[0] + x[2];
///     }
/// }
/// let (mut y, mut j) = ([0.0; 2], [0.0; 6]);
/// jacobian_forward_vec::<2, _, _>(&F, &[2.0, 3.0, 5.0], &mut y, &mut j)?; // 2 passes
/// assert_eq!(y, [30.0, 7.0]);
/// assert_eq!(j, [15.0, 10.0, 6.0, 1.0, 0.0, 1.0]);
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn jacobian_forward_vec<const L: usize, S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), DiffError> {
    const { assert!(L > 0, "a DualVec driver needs at least one lane") };
    jacobian_shape(x.len(), values, jac)?;
    let dim = x.len().max(values.len());
    tiered!(dim, jacobian_forward_vec_tier[L, S, F](f, x, values, jac))
}

#[inline(never)]
fn jacobian_forward_vec_tier<
    const D: usize,
    const L: usize,
    S: Scalar,
    F: VectorFunction + ?Sized,
>(
    f: &F,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), DiffError> {
    let mut xs = Vec::<_, D>::new();
    fill(&mut xs, x, DualVec::<S, L>::constant)?;
    let mut outs = Vec::<_, D>::new();
    fill(&mut outs, values, |_| DualVec::constant(S::ZERO))?;
    let n = x.len();
    if n == 0 {
        f.eval(&xs, &mut outs);
    }
    for start in (0..n).step_by(L) {
        let lanes = L.min(n - start);
        for k in 0..lanes {
            xs[start + k].eps[k] = S::ONE;
        }
        f.eval(&xs, &mut outs);
        for k in 0..lanes {
            xs[start + k].eps[k] = S::ZERO;
        }
        for (i, y) in outs.iter().enumerate() {
            jac[i * n + start..i * n + start + lanes].copy_from_slice(&y.eps[..lanes]);
        }
    }
    for (v, y) in values.iter_mut().zip(outs.iter()) {
        *v = y.re;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tape;

    struct Constant;
    impl Function for Constant {
        fn eval<T: Number>(&self, _x: &[T]) -> T {
            T::from_f64(4.0)
        }
    }

    #[test]
    fn a_function_ignoring_its_inputs_has_zero_gradient() {
        let mut tape = Tape::<f64, 8>::new();
        let mut g = [9.0; 2];
        assert_eq!(
            gradient_reverse(&Constant, &mut tape, &[1.0, 2.0], &mut g),
            Ok(4.0)
        );
        assert_eq!(g, [0.0; 2]);
        let mut g = [9.0; 2];
        assert_eq!(gradient_forward(&Constant, &[1.0, 2.0], &mut g), Ok(4.0));
        assert_eq!(g, [0.0; 2]);
    }

    #[test]
    fn too_many_inputs_is_an_error() {
        struct Sum;
        impl Function for Sum {
            fn eval<T: Number>(&self, x: &[T]) -> T {
                x.iter().fold(T::zero(), |s, v| s + *v)
            }
        }
        let x = [0.0_f32; MAX_DIMENSION + 1];
        let mut g = [0.0_f32; MAX_DIMENSION + 1];
        let err = gradient_forward(&Sum, &x, &mut g).unwrap_err();
        assert_eq!(
            err,
            DiffError::DimensionTooLarge {
                len: MAX_DIMENSION + 1,
                max: MAX_DIMENSION
            }
        );
        // The largest tier works (and the tape reports its own capacity).
        let mut tape = Tape::<f32, 8>::new();
        let err = gradient_reverse(&Sum, &mut tape, &x[..300], &mut g[..300]).unwrap_err();
        assert_eq!(
            err,
            DiffError::Tape(TapeError::CapacityExceeded {
                capacity: 8,
                needed: 308
            })
        );
        assert!(tape.is_empty() && tape.check().is_ok());
    }
}
