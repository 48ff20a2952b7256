//! [`Gradients`]: reading the adjoints a backward sweep left.

use core::fmt;

use crate::{Scalar, TapeError, Var};

use super::{Leaves, NodeId, TapeView};

/// The gradients left by a backward sweep: `grads.wrt(x)` is `dy/dx`.
///
/// A view of the tape's adjoints from one sweep. Recording may continue while it is alive; a
/// later backward sweep on the same tape replaces the adjoints, and from then on this view
/// refuses to read: [`wrt`](Self::wrt) panics, [`try_wrt`](Self::try_wrt) and
/// [`write_to`](Self::write_to) return [`TapeError::StaleGradients`], [`get`](Self::get) returns
/// `None`. It never shows another sweep's numbers.
///
/// ```
/// use autograd_core::{Tape, TapeError};
/// let tape = Tape::<f64, 16>::new();
/// let x = tape.var(3.0);
/// let (y1, y2) = (x * x, x * 10.0);
/// let g1 = tape.backward(y1)?;
/// assert_eq!(g1.wrt(x), 6.0);
/// let g2 = tape.backward(y2)?;
/// assert_eq!(g2.wrt(x), 10.0);
/// assert_eq!(g1.try_wrt(x), Err(TapeError::StaleGradients));
/// # Ok::<(), TapeError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Gradients<'t, S: Scalar> {
    tape: &'t TapeView<S>,
    /// The sweep this view belongs to (the tape's sweep counter when it was made).
    sweep: u32,
}

impl<'t, S: Scalar> Gradients<'t, S> {
    /// The view of `tape`'s adjoints after the sweep just done.
    pub(super) fn new(tape: &'t TapeView<S>) -> Self {
        Gradients {
            tape,
            sweep: tape.sweeps.get(),
        }
    }

    /// `Ok` while no later sweep has replaced this one's adjoints.
    fn fresh(&self) -> Result<(), TapeError> {
        if self.tape.sweeps.get() == self.sweep {
            Ok(())
        } else {
            Err(TapeError::StaleGradients)
        }
    }

    /// `dy/dx`, or [`TapeError::StaleGradients`] if a later sweep replaced these gradients.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError, Var};
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(3.0);
    /// let g = tape.backward(x * 4.0)?;
    /// assert_eq!(g.try_wrt(x), Ok(4.0));
    /// assert_eq!(g.try_wrt(Var::constant(1.0)), Ok(0.0));
    /// tape.backward(x)?; // a later sweep
    /// assert_eq!(g.try_wrt(x), Err(TapeError::StaleGradients));
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn try_wrt(&self, x: Var<'_, S>) -> Result<S, TapeError> {
        self.fresh()?;
        Ok(self.tape.grad(x))
    }

    /// `dy/dx`: 0 for constants and for statements `y` does not depend on.
    ///
    /// # Panics
    /// If a later backward sweep on the same tape replaced these gradients (reading on would
    /// give that sweep's numbers). [`try_wrt`](Self::try_wrt) returns the error instead.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (x, unused) = (tape.var(3.0), tape.var(5.0));
    /// let g = tape.backward(x.powi(2) * 0.5)?;
    /// assert_eq!((g.wrt(x), g.wrt(unused)), (3.0, 0.0));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline]
    pub fn wrt(&self, x: Var<'_, S>) -> S {
        match self.try_wrt(x) {
            Ok(d) => d,
            Err(e) => stale(e),
        }
    }

    /// `dy/dv` for the statement `id`, or `None` if it does not exist (or these gradients are
    /// stale, see [`try_wrt`](Self::try_wrt)).
    ///
    /// ```
    /// use autograd_core::{NodeId, Tape};
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(3.0);
    /// let g = tape.backward(x.powi(3))?;
    /// assert_eq!(g.get(x.id().unwrap()), Some(27.0));
    /// assert_eq!(g.get(NodeId::from_index(5)), None); // nothing there
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn get(&self, id: NodeId) -> Option<S> {
        self.fresh().ok()?;
        self.tape.node(id).ok().map(|n| n.grad)
    }

    /// Writes `dy/dx[i]` into `out[i]` for every `x[i]`.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if the slices differ in length,
    /// [`TapeError::StaleGradients`] if a later sweep replaced these gradients.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError, Var};
    /// let tape = Tape::<f64, 16>::new();
    /// let xs = [tape.var(1.0), tape.var(2.0), tape.var(3.0)];
    /// let y = Var::dot(&xs, &xs)?; // x · x, gradient 2 x
    /// let g = tape.backward(y)?;
    /// let mut out = [0.0; 3];
    /// g.write_to(&xs, &mut out)?;
    /// assert_eq!(out, [2.0, 4.0, 6.0]);
    /// let short = TapeError::LengthMismatch { what: "gradient output", expected: 3, found: 2 };
    /// assert_eq!(g.write_to(&xs, &mut out[..2]), Err(short));
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn write_to(&self, xs: &[Var<'_, S>], out: &mut [S]) -> Result<(), TapeError> {
        self.fresh()?;
        if xs.len() != out.len() {
            return Err(TapeError::LengthMismatch {
                what: "gradient output",
                expected: xs.len(),
                found: out.len(),
            });
        }
        let slots = self.tape.slots();
        for (x, o) in xs.iter().zip(out.iter_mut()) {
            *o = match x.id() {
                Some(id) if x.tape().is_some_and(|t| core::ptr::eq(t, self.tape)) => {
                    slots.get(id.index()).map_or(S::ZERO, |s| s.adj())
                }
                _ => S::ZERO,
            };
        }
        Ok(())
    }

    /// Writes `dy/dl[i]` into `out[i]` for every leaf `l[i]` of `leaves` (a network's parameters
    /// checked once, [`TapeView::leaves`]): the adjoints read from their slots in one pass, with
    /// no handle to test per parameter.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 16>::new();
    /// let p = [2.0, 3.0].map(|v| tape.var(v));
    /// let leaves = tape.leaves(p[0].id().unwrap(), 2)?;
    /// let mut g = [0.0; 2];
    /// tape.backward(p[0] * p[1] * p[1])?.write_leaves(leaves, &mut g)?;
    /// assert_eq!(g, [9.0, 12.0]);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if `out` and `leaves` differ in length,
    /// [`TapeError::ForeignId`] if `leaves` are another tape's, [`TapeError::StaleGradients`] if
    /// a later sweep replaced these gradients.
    pub fn write_leaves(&self, leaves: Leaves<'_, S>, out: &mut [S]) -> Result<(), TapeError> {
        self.fresh()?;
        if !core::ptr::eq(leaves.tape(), self.tape) {
            return Err(TapeError::ForeignId);
        }
        if leaves.len() != out.len() {
            return Err(TapeError::LengthMismatch {
                what: "gradient output",
                expected: leaves.len(),
                found: out.len(),
            });
        }
        let first = leaves.first_index() as usize;
        let adjoints = self
            .tape
            .slots()
            .get(first..first + leaves.len())
            .unwrap_or(&[]);
        for (o, s) in out.iter_mut().zip(adjoints) {
            *o = s.adj();
        }
        Ok(())
    }
}

#[cold]
#[track_caller]
fn stale(e: TapeError) -> ! {
    panic!("{e}")
}

impl<S: Scalar> fmt::Debug for Gradients<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gradients")
            .field("tape", &self.tape)
            .finish()
    }
}
