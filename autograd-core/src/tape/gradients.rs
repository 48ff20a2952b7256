//! [`Gradients`]: reading the adjoints a backward sweep left.

use core::fmt;

use crate::{Scalar, TapeError, Var};

use super::{NodeId, TapeView};

/// The gradients left by a backward sweep: `grads.wrt(x)` is `dy/dx`.
///
/// A view of the tape's adjoints, valid until the next backward sweep on the same tape replaces
/// them. It holds no borrow, so recording may continue while it is alive.
#[derive(Clone, Copy)]
pub struct Gradients<'t, S: Scalar> {
    pub(super) tape: &'t TapeView<S>,
}

impl<'t, S: Scalar> Gradients<'t, S> {
    /// `dy/dx`: 0 for constants and for statements `y` does not depend on.
    #[inline]
    pub fn wrt(&self, x: Var<'_, S>) -> S {
        self.tape.grad(x)
    }

    /// `dy/dv` for the statement `id`, or `None` if it does not exist.
    pub fn get(&self, id: NodeId) -> Option<S> {
        self.tape.node(id).ok().map(|n| n.grad)
    }

    /// Writes `dy/dx[i]` into `out[i]` for every `x[i]`.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if the slices differ in length.
    pub fn write_to(&self, xs: &[Var<'_, S>], out: &mut [S]) -> Result<(), TapeError> {
        if xs.len() != out.len() {
            return Err(TapeError::LengthMismatch {
                left: xs.len(),
                right: out.len(),
            });
        }
        let slots = self.tape.slots.try_borrow().map_err(|_| TapeError::Busy)?;
        let slots = &slots[..self.tape.len()];
        for (x, o) in xs.iter().zip(out.iter_mut()) {
            *o = match x.id() {
                Some(id) if x.tape().is_some_and(|t| core::ptr::eq(t, self.tape)) => {
                    slots.get(id.index()).map_or(S::ZERO, |s| s.adj)
                }
                _ => S::ZERO,
            };
        }
        Ok(())
    }
}

impl<S: Scalar> fmt::Debug for Gradients<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gradients")
            .field("tape", &self.tape)
            .finish()
    }
}
