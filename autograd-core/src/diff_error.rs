//! The drivers' shape checks (their errors are [`Error`]'s `LengthMismatch` and
//! `DimensionTooLarge`).

use crate::{Error, MAX_DIMENSION};

/// `Ok` if a slice has the length it must have.
#[inline]
pub(crate) fn expect_len(what: &'static str, expected: usize, found: usize) -> Result<(), Error> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
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
) -> Result<(), Error> {
    expect_len("Jacobian", product(n, values.len())?, jac.len())
}

/// Checks `grad.len() = n`, `hess.len() = n n`.
pub(crate) fn hessian_shape(n: usize, grad: &[impl Copy], hess: &[impl Copy]) -> Result<(), Error> {
    expect_len("gradient", n, grad.len())?;
    expect_len("Hessian", product(n, n)?, hess.len())
}

/// `n m`, or [`Error::DimensionTooLarge`] (naming `m`) if it overflows.
fn product(n: usize, m: usize) -> Result<usize, Error> {
    n.checked_mul(m).ok_or(Error::DimensionTooLarge {
        len: m,
        max: MAX_DIMENSION,
    })
}
