//! [`DiffError`], the error of the gradient, Jacobian, Hessian and check drivers, and the shape
//! checks that produce it.

use core::fmt;

use crate::{TapeError, MAX_DIMENSION};

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
    /// More inputs (or outputs) than [`MAX_DIMENSION`], without the `alloc` feature (or a
    /// Jacobian or Hessian whose size overflows `usize`).
    DimensionTooLarge {
        /// The dimension asked for.
        len: usize,
        /// The largest supported.
        max: usize,
    },
    /// The driver's scratch would take more than
    /// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) of stack, and the `alloc` feature
    /// (which puts it on the heap) is off.
    ScratchTooLarge {
        /// Elements of scratch needed (inputs, plus outputs for a Jacobian).
        len: usize,
        /// The bytes of stack that would take.
        bytes: usize,
        /// The most allowed, [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES).
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
            DiffError::ScratchTooLarge { len, bytes, max } => write!(
                f,
                "scratch for {len} elements would take {bytes} bytes of stack, over the limit of \
                 {max} (SCRATCH_STACK_BYTES); enable autograd-core's `alloc` feature to put it on \
                 the heap, or differentiate fewer inputs (or with fewer lanes) per call"
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

/// Checks `values.len() = m`, `jac.len() = m n`.
pub(crate) fn jacobian_shape(
    n: usize,
    values: &[impl Copy],
    jac: &[impl Copy],
) -> Result<(), DiffError> {
    expect_len("Jacobian", product(n, values.len())?, jac.len())
}

/// Checks `grad.len() = n`, `hess.len() = n n`.
pub(crate) fn hessian_shape(
    n: usize,
    grad: &[impl Copy],
    hess: &[impl Copy],
) -> Result<(), DiffError> {
    expect_len("gradient", n, grad.len())?;
    expect_len("Hessian", product(n, n)?, hess.len())
}

/// `n m`, or [`DiffError::DimensionTooLarge`] (naming `m`) if it overflows.
fn product(n: usize, m: usize) -> Result<usize, DiffError> {
    n.checked_mul(m).ok_or(DiffError::DimensionTooLarge {
        len: m,
        max: MAX_DIMENSION,
    })
}
