//! [`NodeId`] and [`Mark`]: positions on a tape that remember which tape they came from (a tag
//! each tape takes on first use), so another tape refuses them.

use crate::{Scalar, TapeError};

use super::{TapeView, POISON};

/// Position on a tape, returned by [`TapeView::mark`] and accepted by [`TapeView::rewind`] and
/// [`TapeView::backward_above`]. It remembers its tape: another tape refuses it
/// ([`TapeError::ForeignId`]).
///
/// ```
/// use autograd_core::Tape;
/// let mut tape = Tape::<f64, 8>::new();
/// let _ = tape.var(1.0);
/// let mark = tape.mark();
/// let _ = (tape.var(2.0), tape.var(3.0));
/// assert!(mark < tape.mark()); // marks order by position
/// tape.rewind(mark);
/// assert_eq!(tape.mark(), mark);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark {
    pub(crate) len: u32,
    pub(crate) tag: u32,
}

impl Mark {
    /// The mark just before slot `id`.
    pub(crate) fn before(id: NodeId) -> Self {
        Mark {
            len: id.index,
            tag: id.tag,
        }
    }
    /// Number of slots before the mark.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// assert!(tape.mark().is_empty());
    /// let _ = (tape.var(1.0), tape.var(2.0));
    /// assert_eq!(tape.mark().len(), 2);
    /// ```
    pub fn len(self) -> usize {
        self.len as usize
    }
    /// `true` for the mark of an empty tape.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// Index of a statement (a leaf or a recorded result), stable until the tape is rewound below
/// it. Obtain one from [`Var::id`](crate::Var::id) and get a fresh handle back with [`TapeView::get`]. It
/// remembers its tape: another tape refuses it ([`TapeError::ForeignId`]).
///
/// ```
/// use autograd_core::{Tape, TapeError};
/// let (a, b) = (Tape::<f64, 8>::new(), Tape::<f64, 8>::new());
/// let x = a.var(1.0);
/// let _ = b.var(2.0);
/// let id = x.id().unwrap();
/// assert_eq!(a.get(id)?.value(), 1.0);
/// assert_eq!(b.get(id).unwrap_err(), TapeError::ForeignId);
/// # Ok::<(), TapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId {
    pub(crate) index: u32,
    /// The tape's tag, or 0 for an id made from a bare index (accepted by every tape).
    pub(crate) tag: u32,
}

impl NodeId {
    /// The id of the statement whose header is slot `index` on whichever tape it is used with
    /// (checked when used: an index that is not a header is reported as
    /// [`TapeError::UnknownNode`]; one past `u32` saturates to 2^32 - 2, past every tape's
    /// slots and not the all-ones index of a write that did not fit). Prefer
    /// [`Var::id`](crate::Var::id), which also remembers the tape.
    ///
    /// ```
    /// use autograd_core::{NodeId, Tape, TapeError};
    /// let tape = Tape::<f64, 8>::new();
    /// let (x, y) = (tape.var(1.0), tape.var(2.0));
    /// assert_eq!(tape.get(NodeId::from_index(1))?.value(), 2.0);
    /// let s = (x * y).recorded()?; // 2 operands from slot 2, its header at 4
    /// assert_eq!(s.id().unwrap().index(), 4);
    /// let operand = TapeError::UnknownNode { index: 3, len: 5 };
    /// assert_eq!(tape.get(NodeId::from_index(3)).unwrap_err(), operand);
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn from_index(index: usize) -> Self {
        NodeId {
            index: u32::try_from(index).unwrap_or(POISON - 1),
            tag: 0,
        }
    }
    /// An id of `tape` (its tag taken now).
    pub(crate) fn on<S: Scalar>(tape: &TapeView<S>, index: u32) -> Self {
        NodeId {
            index,
            tag: tape.tag(),
        }
    }
    /// The header's position on the tape.
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// The next tape tag (never 0). Tags tell tapes apart for [`NodeId`] and [`Mark`]; a tape takes
/// one the first time it hands out either. Where the target has no atomic read-modify-write
/// (Cortex-M0), a load and a store: two tapes tagged at the same instant from an interrupt and
/// the main loop could share a tag, which only weakens the foreign-id check.
#[cold]
fn next_tag() -> u32 {
    use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    loop {
        #[cfg(target_has_atomic = "32")]
        let tag = NEXT.fetch_add(1, Relaxed);
        #[cfg(not(target_has_atomic = "32"))]
        let tag = {
            let t = NEXT.load(Relaxed);
            NEXT.store(t.wrapping_add(1), Relaxed);
            t
        };
        // (0 only when the counter wraps: take the next.)
        if tag != 0 {
            return tag;
        }
    }
}

impl<S: Scalar> TapeView<S> {
    /// This tape's tag, taken on first use.
    pub(crate) fn tag(&self) -> u32 {
        match self.tag.get() {
            0 => {
                let t = next_tag();
                self.tag.set(t);
                t
            }
            t => t,
        }
    }

    /// `Ok` if an id or mark with tag `tag` may be used on this tape.
    pub(crate) fn own(&self, tag: u32) -> Result<(), TapeError> {
        if tag == 0 || tag == self.tag() {
            Ok(())
        } else {
            Err(TapeError::ForeignId)
        }
    }
}
