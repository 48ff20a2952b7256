//! [`Leaves`]: consecutive leaves of one tape, checked once, so that a layer can read its
//! parameters from their slots instead of testing a handle per parameter on every sample.

use crate::{Scalar, TapeError, Var};

use super::{header_link, NodeId, Slot, TapeView};
use crate::op::Op;

/// Consecutive leaves of one tape (a network's parameters, recorded in order), checked once when
/// made by [`TapeView::leaves`].
///
/// It borrows the tape, so nothing can rewind the tape or set a value while it lives: the
/// statements it names stay leaves. [`Var::affine_layer_of`] reads a layer's weights from it
/// without testing each one, as [`Var::affine_layer`] must test every handle it is given.
///
/// ```
/// use autograd_core::Tape;
/// let tape = Tape::<f64, 16>::new();
/// let p = [0.5, -1.0, 2.0].map(|v| tape.var(v));
/// let leaves = tape.leaves(p[0].id().unwrap(), 3)?;
/// assert_eq!(leaves.len(), 3);
/// assert_eq!(leaves.get(2).map(|v| v.value()), Some(2.0));
/// assert_eq!(leaves.range(1, 2).map(|l| l.len()), Some(2));
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Leaves<'t, S: Scalar> {
    tape: &'t TapeView<S>,
    first: u32,
    /// The slots the leaves' values are in (the scalar's `Layout`: their own, or apart).
    values: &'t [Slot<S>],
}

impl<S: Scalar> TapeView<S> {
    /// The `len` statements from `first` on, which must all be leaves of this tape.
    ///
    /// # Errors
    /// [`TapeError::ForeignId`] if `first` is another tape's; [`TapeError::UnknownNode`] if the
    /// range does not lie within the tape; [`TapeError::NotALeaf`] naming the first statement in
    /// it that is not a leaf.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// let tape = Tape::<f64, 16>::new();
    /// let (a, b) = (tape.var(1.0), tape.var(2.0));
    /// let _product = (a * b).recorded()?; // two operand slots and a header after the leaves
    /// assert!(tape.leaves(a.id().unwrap(), 2).is_ok());
    /// assert_eq!(tape.leaves(a.id().unwrap(), 3).unwrap_err(), TapeError::NotALeaf { index: 2 });
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn leaves(&self, first: NodeId, len: usize) -> Result<Leaves<'_, S>, TapeError> {
        self.own(first.tag)?;
        let all = self.slots();
        let start = first.index();
        // (A range past `usize::MAX` saturates, and no tape holds it.)
        let range = start..start.saturating_add(len);
        let (Some(slots), Some(values)) = (all.get(range.clone()), self.values().get(range)) else {
            return Err(TapeError::UnknownNode {
                index: start.saturating_add(len.saturating_sub(1)),
                len: all.len(),
            });
        };
        // The slots below the tape's leading run of leaves are leaves (the sweep stops above
        // them on the same ground): only the rest of the range is read. A driver that has just
        // recorded its inputs (`TapeView::vars`) names them without a read of each (by
        // callgrind on `examples/profile rosenbrock 1000`, 7 instructions an input).
        let known = (self.leaf_run.get() as usize)
            .saturating_sub(start)
            .min(len);
        let leaf = header_link(Op::Leaf, 0);
        if let Some(k) = slots[known..].iter().position(|s| s.link() != leaf) {
            return Err(TapeError::NotALeaf {
                index: start + known + k,
            });
        }
        Ok(Leaves {
            tape: self,
            first: first.index,
            values,
        })
    }

    /// Sets the values of the leaves `first`, `first + 1`, ... to `values`, in order: what
    /// [`set_value`](Self::set_value) does for each, with the range tested once (as
    /// [`leaves`](Self::leaves) tests it) instead of each statement on its own. How a trainer
    /// puts a network's parameters back on the tape after a step; nothing is set on an error.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let mut tape = Tape::<f64, 16>::new();
    /// let first = tape.var(0.5).id().unwrap();
    /// let _ = (tape.var(-1.0), tape.var(2.0));
    /// tape.set_values(first, &[1.5, 2.5, 3.5])?;
    /// let leaves = tape.leaves(first, 3)?;
    /// assert_eq!(leaves.get(1).map(|v| v.value()), Some(2.5));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`leaves`](Self::leaves) for the `values.len()` statements from `first` on.
    pub fn set_values(&mut self, first: NodeId, values: &[S]) -> Result<(), TapeError> {
        let leaves = self.leaves(first, values.len())?;
        for (slot, &v) in leaves.values.iter().zip(values) {
            slot.set_value(v);
        }
        Ok(())
    }
}

impl<'t, S: Scalar> Leaves<'t, S> {
    /// How many leaves.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let first = tape.var(0.5).id().unwrap();
    /// let _ = (tape.var(1.5), tape.var(2.5));
    /// let leaves = tape.leaves(first, 3)?;
    /// assert_eq!(leaves.len(), 3);
    /// assert!(!leaves.is_empty() && tape.leaves(first, 0)?.is_empty());
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` if there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The `len` leaves from the `start`-th on (a layer's parameters among a network's), or
    /// `None` if they are not all among these.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let first = tape.var(0.5).id().unwrap();
    /// let _ = (tape.var(1.5), tape.var(2.5));
    /// let leaves = tape.leaves(first, 3)?;
    /// let last_two = leaves.range(1, 2).unwrap();
    /// assert_eq!(last_two.get(0).map(|v| v.value()), Some(1.5));
    /// assert!(leaves.range(2, 2).is_none()); // past the end
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn range(&self, start: usize, len: usize) -> Option<Self> {
        let values = self.values.get(start..start.checked_add(len)?)?;
        Some(Leaves {
            first: self.first + start as u32,
            values,
            ..*self
        })
    }

    /// A handle to the `i`-th leaf, or `None` past the end.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let first = tape.var(0.5).id().unwrap();
    /// let _ = tape.var(1.5);
    /// let leaves = tape.leaves(first, 2)?;
    /// let w = leaves.get(1).unwrap();
    /// assert_eq!(tape.backward(w * 3.0)?.wrt(w), 3.0);
    /// assert!(leaves.get(2).is_none());
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn get(&self, i: usize) -> Option<Var<'t, S>> {
        let s = self.values.get(i)?;
        Some(Var::node(self.tape, self.first + i as u32, s.value()))
    }

    pub(crate) fn tape(&self) -> &'t TapeView<S> {
        self.tape
    }

    /// The index of the first leaf.
    pub(crate) fn first_index(&self) -> u32 {
        self.first
    }

    /// The slots the first `len` leaves' values are in, these leaves becoming the rest (a
    /// layer's rows read in order), or `None` (these unchanged) if there are fewer.
    #[inline(always)]
    pub(crate) fn take_front(&mut self, len: usize) -> Option<&'t [Slot<S>]> {
        let (front, rest) = self.values.split_at_checked(len)?;
        self.values = rest;
        self.first = self.first.wrapping_add(len as u32);
        Some(front)
    }

    /// The slots the leaves' values are in.
    pub(crate) fn values(&self) -> &'t [Slot<S>] {
        self.values
    }
}
