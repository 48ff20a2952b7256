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
//! # Ok::<(), autograd_core::TapeError>(())
//! ```

use crate::drive::{evaluated, forward_gradient, record, write_gradient};
use crate::scratch::with_scratch;
use crate::{Dual, DualVec, Function, Scalar, TapeError, TapeView};

/// Reverse mode: `grad = ∇f(x)` from one recording and one backward sweep; returns `f(x)`.
///
/// Nodes are recorded after the tape's current end and discarded before returning (even on
/// error), so a tape holding parameters can be passed in; it needs room for the `n` inputs plus
/// the operations of `f`. Takes any `Tape<S, N>` (it dereferences to a `TapeView`).
///
/// # Errors
/// [`TapeError::LengthMismatch`] if `grad.len() != x.len()`; [`TapeError::ScratchTooLarge`] where
/// the scratch does not fit the stack (without `alloc`); [`Error::CapacityExceeded`](crate::Error::CapacityExceeded) if the tape runs out
/// of capacity (or had already failed).
///
/// # Stack
/// `tier(n) · size_of::<Var<S>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
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
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn gradient_reverse<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<S>,
    x: &[S],
    grad: &mut [S],
) -> Result<S, TapeError> {
    crate::diff_error::expect_len("gradient", x.len(), grad.len())?;
    // The one-row case of `reverse_rows`, written directly: reverse mode's hot path spares the
    // output buffer and the loop over rows.
    record(tape, x.len(), 0, x.iter().copied(), |tape, vars| {
        let y = evaluated(f, vars);
        write_gradient(tape, y, vars, grad)?;
        Ok(y.value())
    })
}

/// Forward mode with [`Dual`]: `grad = ∇f(x)` from `n` passes, pass `i` seeding `dx_i = 1`;
/// returns `f(x)`. No tape; cost grows with `n` (prefer reverse mode for many inputs, or
/// [`gradient_forward_vec`] to carry several directions per pass).
///
/// # Errors
/// [`TapeError::LengthMismatch`] if `grad.len() != x.len()`; [`TapeError::ScratchTooLarge`]
/// where the scratch does not fit the stack (without `alloc`).
///
/// # Stack
/// `tier(n) · size_of::<Dual<S>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
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
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn gradient_forward<S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, TapeError> {
    forward_gradient::<S, Dual<S>, F>(f, x, grad)
}

/// Forward mode with `L` tangent lanes ([`DualVec<S, L>`]): `grad = ∇f(x)` from
/// `ceil(n / L)` passes; returns `f(x)`. Each pass costs about `L` dual passes of arithmetic
/// but evaluates the primal part (and every `sin`, `exp`, ...) once, so it beats `n` [`Dual`]
/// passes on transcendental-heavy code.
///
/// # Errors
/// As [`gradient_forward`]. `L = 0` does not compile.
///
/// # Stack
/// `tier(n) · size_of::<DualVec<S, L>>()`, that is `tier(n) (L + 1) size_of::<S>()`, bytes of
/// scratch, at most [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the
/// `alloc` feature are explained).
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
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn gradient_forward_vec<const L: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, TapeError> {
    const { assert!(L > 0, "a DualVec driver needs at least one lane") };
    forward_gradient::<S, DualVec<S, L>, F>(f, x, grad)
}

/// The directional derivative `∇f(x) · v` (a Jacobian-vector product for m = 1) in one
/// [`Dual`] pass; returns `(f(x), ∇f(x) · v)`.
///
/// # Errors
/// [`TapeError::LengthMismatch`] if `v.len() != x.len()`; [`TapeError::ScratchTooLarge`] where
/// the scratch does not fit the stack (without `alloc`).
///
/// # Stack
/// `tier(n) · size_of::<Dual<S>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
///
/// ```
/// use autograd_core::{directional_derivative, Function, Number};
/// struct Dot; // x0 x1
/// impl Function for Dot {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x[0] * x[1] }
/// }
/// let (y, d) = directional_derivative(&Dot, &[2.0, 3.0], &[1.0, -1.0])?;
/// assert_eq!((y, d), (6.0, 3.0 - 2.0));
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn directional_derivative<S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    v: &[S],
) -> Result<(S, S), TapeError> {
    crate::diff_error::expect_len("direction", x.len(), v.len())?;
    with_scratch(
        x.len(),
        x.iter().zip(v).map(|(&xi, &vi)| Dual::new(xi, vi)),
        |xs| {
            let y = f.eval(xs);
            Ok((y.re, y.eps))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Number, Tape, TapeError};

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
    fn too_many_inputs_is_an_error_without_alloc() {
        struct Sum;
        impl Function for Sum {
            fn eval<T: Number>(&self, x: &[T]) -> T {
                x.iter().fold(T::zero(), |s, v| s + *v)
            }
        }
        let x = [0.0_f32; crate::MAX_DIMENSION + 1];
        let mut g = [0.0_f32; crate::MAX_DIMENSION + 1];
        let result = gradient_forward(&Sum, &x, &mut g);
        if cfg!(feature = "alloc") {
            assert_eq!(result, Ok(0.0));
        } else {
            let max = crate::MAX_DIMENSION;
            let len = max + 1;
            assert_eq!(result, Err(TapeError::DimensionTooLarge { len, max }));
        }
        // A tier on the stack works (and the tape reports its own capacity).
        let mut tape = Tape::<f32, 8>::new();
        let err = gradient_reverse(&Sum, &mut tape, &x[..200], &mut g[..200]).unwrap_err();
        assert_eq!(
            err,
            TapeError::CapacityExceeded {
                capacity: 8,
                needed: 208
            }
        );
        assert!(tape.is_empty() && tape.check().is_ok());
    }
}
