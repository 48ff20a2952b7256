//! Central finite differences: the mode that needs no derivative rules at all, and so the
//! independent check of the other two.

use crate::diff_error::{expect_len, jacobian_shape};
use crate::drive::{with_inputs_and_outputs, OneRow};
use crate::scratch::with_scratch;
use crate::{Function, Scalar, TapeError, VectorFunction};

/// The central-difference step for an input of value `x`: `cbrt(ε) · max(1, |x|)`.
///
/// `∂f/∂x_i ≈ (f(x + h e_i) - f(x - h e_i)) / (2h)` has truncation error `h² f'''/6` and rounding
/// error about `ε |f| / h`; the two balance at `h ~ ε^(1/3)`. So the step for input `i` is
///
/// `h_i = cbrt(ε) · max(1, |x_i|)`
///
/// (`ε` the machine epsilon of the scalar: `h ≈ 6.1e-6` in `f64`, `4.9e-3` in `f32`, scaled by
/// `|x_i|` for large inputs so the step is not lost in rounding), and the best attainable
/// relative error is about `ε^(2/3)`: ~1e-10 in `f64`, ~1e-4 to 1e-5 in `f32` for a well-scaled
/// function. The divisor is the step actually taken, `(x_i + h) - (x_i - h)`, not `2h`, which
/// removes the error of representing `x_i ± h`.
///
/// ```
/// use autograd_core::central_step;
/// assert!((central_step(0.5_f64) - 6.055454e-6).abs() < 1e-11);
/// assert!((central_step(-100.0_f32) - 0.4921567).abs() < 1e-6);
/// ```
#[inline]
pub fn central_step<S: Scalar>(x: S) -> S {
    let scale = if x.abs() > S::ONE { x.abs() } else { S::ONE };
    S::from_f64(libm::cbrt(S::EPSILON)) * scale
}

/// `grad ≈ ∇f(x)` by central differences, `2n + 1` plain evaluations of `f`; returns `f(x)`.
/// See [`central_step`] for the step and the error to expect.
///
/// # Errors
/// [`TapeError::LengthMismatch`] if `grad.len() != x.len()`; [`TapeError::ScratchTooLarge`]
/// where the scratch does not fit the stack (without `alloc`).
///
/// # Stack
/// `tier(n) · size_of::<S>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
///
/// ```
/// use autograd_core::{gradient_central, Function, Number};
/// struct Cubic; // x^3 - 2x + 1, derivative 3x^2 - 2
/// impl Function for Cubic {
///     fn eval<T: Number>(&self, x: &[T]) -> T {
///         x[0].powi(3) - T::from_f64(2.0) * x[0] + T::one()
///     }
/// }
/// for x in [-2.0, -0.5, 0.0, 1.0, 3.0] {
///     let mut g = [0.0];
///     gradient_central(&Cubic, &[x], &mut g)?;
///     assert!((g[0] - (3.0 * x * x - 2.0)).abs() < 1e-4); // the seed's tolerance
/// }
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn gradient_central<S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, TapeError> {
    expect_len("gradient", x.len(), grad.len())?;
    if x.is_empty() {
        return Ok(f.eval(x));
    }
    with_scratch(x.len(), x.iter().copied(), |xs| {
        let (mut plus, mut value) = ([S::ZERO], [S::ZERO]);
        central_passes(&OneRow(f), x, xs, &mut plus, &mut value, grad);
        Ok(value[0])
    })
}

/// `(x + h, x - h)` with the step of [`central_step`].
#[inline]
fn steps<S: Scalar>(x: S) -> (S, S) {
    let h = central_step(x);
    (x + h, x - h)
}

/// Jacobian of R^n → R^m by central differences (`2n + 1` evaluations); `values = f(x)`, `jac`
/// row-major `m × n`. Same step and error as [`gradient_central`].
///
/// # Errors
/// As [`jacobian_forward`](crate::jacobian_forward).
///
/// # Stack
/// `tier(n + m) · size_of::<S>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES).
///
/// ```
/// use autograd_core::{jacobian_central, Number, VectorFunction};
/// struct F; // (x0 x1, x0 - x1)
/// impl VectorFunction for F {
///     fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
///         out[0] = x[0] * x[1];
///         out[1] = x[0] - x[1];
///     }
/// }
/// let (mut y, mut j) = ([0.0; 2], [0.0; 4]);
/// jacobian_central(&F, &[2.0, 3.0], &mut y, &mut j)?;
/// for (a, b) in j.iter().zip([3.0, 2.0, 1.0, -1.0]) {
///     assert!((a - b).abs() < 1e-9);
/// }
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn jacobian_central<S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), TapeError> {
    jacobian_shape(x.len(), values, jac)?;
    with_inputs_and_outputs(
        x,
        values.len(),
        |v| v,
        |xs, plus| {
            central_passes(f, x, xs, plus, values, jac);
            Ok(())
        },
    )
}

/// Central differences: `2n + 1` evaluations of `f` on `xs` (a copy of `x`, left so), column `j`
/// of `jac` (row-major `m × n`) from `f(x ± h e_j)` (in `plus` and `values`), then
/// `values = f(x)`.
fn central_passes<S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    x: &[S],
    xs: &mut [S],
    plus: &mut [S],
    values: &mut [S],
    jac: &mut [S],
) {
    let n = x.len();
    for j in 0..n {
        let (xp, xm) = steps(x[j]);
        xs[j] = xp;
        f.eval(xs, plus);
        xs[j] = xm;
        f.eval(xs, values);
        xs[j] = x[j];
        for (i, (p, m)) in plus.iter().zip(values.iter()).enumerate() {
            jac[i * n + j] = (*p - *m) / (xp - xm);
        }
    }
    f.eval(xs, values);
}
