//! [`TapeView::vars`]: many inputs recorded as leaves at once, one capacity test for all.

use core::iter::FusedIterator;

use crate::op::Op;
use crate::{Scalar, Var};

use super::{TapeView, POISON};

impl<S: Scalar> TapeView<S> {
    /// Records each of `values` as a leaf, in order, and returns their handles: the same slots,
    /// handles and errors as [`var`](Self::var) called for each value in turn, written in one
    /// pass with one capacity test (the handles are made as the iterator is read; the slots are
    /// written before it returns, whether or not it is read).
    ///
    /// The leaves are consecutive, so [`leaves`](Self::leaves) can name them all from the first.
    /// Values that do not fit are recorded as [`var`](Self::var) records them: each a handle
    /// holding its value that depends on nothing, and the tape's sticky
    /// [`CapacityExceeded`](crate::TapeError::CapacityExceeded) counting one slot for each.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    ///
    /// let tape = Tape::<f64, 8>::new();
    /// let x: Vec<_> = tape.vars(&[1.0, 2.0, 3.0]).collect();
    /// let y = x[0] * x[1] * x[2];
    /// let g = tape.backward(y)?;
    /// assert_eq!([g.wrt(x[0]), g.wrt(x[1]), g.wrt(x[2])], [6.0, 3.0, 2.0]);
    /// let leaves = tape.leaves(x[0].id().unwrap(), 3)?;
    /// assert_eq!(leaves.get(2).map(|v| v.value()), Some(3.0));
    ///
    /// // The product wrote a statement of three operands (4 slots after the 3 leaves), so of
    /// // seven more only one fits: the sticky error counts the slots that were asked for.
    /// let more: Vec<_> = tape.vars(&[0.5; 7]).collect();
    /// assert_eq!((more[0].id().is_some(), more[1].id(), more[6].value()), (true, None, 0.5));
    /// assert_eq!(tape.check(), Err(TapeError::CapacityExceeded { capacity: 8, needed: 14 }));
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn vars<'t, 'v>(&'t self, values: &'v [S]) -> Vars<'t, 'v, S> {
        let len = self.len();
        let fit = values.len().min(self.capacity() - len);
        let (written, rest) = values.split_at(fit);
        if let Some((slots, held)) = self.free_slots(fit) {
            for ((slot, held), &v) in slots.iter().zip(held).zip(written) {
                slot.put_header(Op::Leaf, 0);
                held.set_value(v);
            }
        }
        self.commit(fit);
        self.extend_leaf_run(len as u32, (len + fit) as u32);
        if !rest.is_empty() {
            self.full(rest.len());
        }
        Vars {
            tape: self,
            values: values.iter(),
            next: len as u32,
            fit: (len + fit) as u32,
        }
    }
}

/// The handles of leaves recorded by [`TapeView::vars`], in order.
///
/// ```
/// use autograd_core::Tape;
/// let tape = Tape::<f64, 8>::new();
/// let mut vars = tape.vars(&[1.0, 2.0]);
/// let (x, y) = (vars.next().unwrap(), vars.next().unwrap());
/// assert!(vars.next().is_none());
/// assert_eq!(tape.backward(x * y)?.wrt(y), 1.0);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Vars<'t, 'v, S: Scalar> {
    tape: &'t TapeView<S>,
    values: core::slice::Iter<'v, S>,
    /// The next leaf's index.
    next: u32,
    /// One past the last leaf that was written: the rest did not fit.
    fit: u32,
}

impl<'t, S: Scalar> Iterator for Vars<'t, '_, S> {
    type Item = Var<'t, S>;

    #[inline]
    fn next(&mut self) -> Option<Var<'t, S>> {
        let &value = self.values.next()?;
        let index = if self.next < self.fit {
            self.next
        } else {
            POISON
        };
        self.next = self.next.wrapping_add(1);
        Some(Var::node(self.tape, index, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }
}

impl<S: Scalar> ExactSizeIterator for Vars<'_, '_, S> {}

impl<S: Scalar> FusedIterator for Vars<'_, '_, S> {}
