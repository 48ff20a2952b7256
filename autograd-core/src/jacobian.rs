//! Jacobians of R^n → R^m in reverse and forward mode, written into caller slices.

use crate::diff_error::jacobian_shape;
use crate::drive::{forward_jacobian, record, reverse_rows};
use crate::{Dual, DualVec, Scalar, TapeError, TapeView, VectorFunction};

/// Reverse-mode Jacobian of R^n → R^m: one recording, then one backward sweep per output
/// (`m` sweeps). Writes `values = f(x)` (length `m`) and `jac` row-major, `m × n`:
/// `jac[i * n + j] = ∂f_i/∂x_j`. Prefer it when `m < n`; the tape is rewound on return.
///
/// # Errors
/// [`TapeError::LengthMismatch`] if `jac.len() != m * n`; [`TapeError::ScratchTooLarge`] where
/// the scratch does not fit the stack (without `alloc`); [`Error::CapacityExceeded`](crate::Error::CapacityExceeded) if the tape runs out
/// of capacity.
///
/// # Stack
/// `tier(n + m) · size_of::<Var<S>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
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
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn jacobian_reverse<S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    tape: &mut TapeView<S>,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), TapeError> {
    jacobian_shape(x.len(), values, jac)?;
    let n = x.len();
    record(tape, n, values.len(), x.iter().copied(), |tape, scratch| {
        let (vars, outs) = scratch.split_at_mut(n);
        reverse_rows(f, tape, vars, outs, values, jac)
    })
}

/// Forward-mode Jacobian of R^n → R^m: `n` [`Dual`] passes, pass `j` giving column `j`.
/// Writes `values = f(x)` and `jac` row-major `m × n` (`jac[i * n + j] = ∂f_i/∂x_j`). Prefer it
/// when `n <= m`; no tape.
///
/// # Errors
/// As [`jacobian_reverse`], without the tape errors.
///
/// # Stack
/// `tier(n + m) · size_of::<Dual<S>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
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
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn jacobian_forward<S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), TapeError> {
    forward_jacobian::<S, Dual<S>, F>(f, x, values, jac)
}

/// Forward-mode Jacobian with `L` tangent lanes ([`DualVec<S, L>`]): `ceil(n / L)` passes, pass
/// `k` giving columns `kL .. kL + L`. Same layout and errors as [`jacobian_forward`]; `L = 0`
/// does not compile.
///
/// # Stack
/// `tier(n + m) · size_of::<DualVec<S, L>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
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
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn jacobian_forward_vec<const L: usize, S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), TapeError> {
    const { assert!(L > 0, "a DualVec driver needs at least one lane") };
    forward_jacobian::<S, DualVec<S, L>, F>(f, x, values, jac)
}
