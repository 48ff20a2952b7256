//! The tape: a fixed-capacity record of statements, each with the partial derivatives of its
//! value with respect to earlier statements (Jacobian taping, as Adept and CoDiPack do).
//!
//! A statement occupies `k + 1` consecutive slots: its `k` operands (`(index, partial)` pairs),
//! then its header (value, operation, `k`). Operands always refer to earlier headers, so creation
//! order is a topological order and backward is one loop from the output down: for each header,
//! `adjoint[operand] += adjoint[header] * partial`. No recursion, no operation decode, no
//! derivative recomputed, no allocation.
//!
//! Handles ([`Var`]) carry up to two pending `(index, partial)` pairs of their own, so most
//! operations never touch the tape: a statement is written only when a result depends on more
//! than two recorded values (see `var/combine.rs`).

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use crate::{Scalar, TapeError, Var};

mod backward;
#[cfg(feature = "alloc")]
mod boxed;
mod closure;
mod gradients;
mod ids;
mod leaves;
mod nodes;
mod operands;
mod slot;
mod vars;
mod write;

pub use gradients::Gradients;
pub use ids::{Mark, NodeId};
pub use leaves::Leaves;
pub use nodes::Node;
pub(crate) use operands::NO_OPERAND;
pub use slot::Slot;
pub use slot::MAX_CAPACITY;
use slot::{header_link, HEADER};
pub(crate) use slot::{held, held_all, inline_layout, WithValues};
pub(crate) use slot::{layer_row_link, row_step, MAX_OPERANDS, POISON, ROW_PLACES, ROW_STEP};
pub use slot::{slot_bytes, Layout};
pub use vars::Vars;

/// A tape of `N` slots of scalar `S`, stored inline (no allocation).
///
/// **Choosing `N`**: a leaf takes one slot and a statement `k + 1` (its `k` operands and a
/// header); most operations take none, because handles carry up to two pending partials and a
/// statement is written only when a result depends on more than two recorded values. Arithmetic
/// code such as Rosenbrock records about 6 slots per term; a neuron's pre-activation
/// `w · x + b` over `n` inputs takes `n + 2` slots when its parameters are consecutive leaves (a
/// network's parameters recorded in order), else one slot per pending pair of its terms and a
/// header, at most `4 n + 3`. Too small a tape is an error value, never a crash: see
/// [`TapeError::CapacityExceeded`].
///
/// **Where it lives**: a slot is 12 bytes in `f32` and 24 in `f64`, and the tape lives where you
/// put it: in a `static` or a local (`Tape::new` is `const`; a local needs that much stack), or,
/// with the feature `alloc`, on the heap with `Tape::boxed()`, which never builds it on the
/// stack. Prefer `boxed` to `Box::new(Tape::new())` for large tapes: in a debug build that
/// expression builds the tape on the stack first, and a tape of a few hundred thousand slots
/// overflows an 8 MiB main thread.
///
/// ```
/// use autograd_core::Tape;
///
/// let tape = Tape::<f64, 32>::new();
/// let (x1, x2) = (tape.var(2.0), tape.var(3.0));
/// let y = (x1 * x2 + 1.0).relu();
/// let grads = tape.backward(y)?;
/// assert_eq!((y.value(), grads.wrt(x1), grads.wrt(x2)), (7.0, 3.0, 2.0));
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub struct Tape<S: Scalar, const N: usize> {
    inner: TapeView<S, [S::Unit; N]>,
}

/// A tape with its capacity erased: the type every [`Var`] points to and where the tape's
/// methods live. Obtain one by dereferencing a [`Tape`].
///
/// ```
/// use autograd_core::{Tape, TapeView};
/// // Code that records on a tape of any capacity takes the view.
/// fn square_on(tape: &TapeView<f64>, x: f64) -> f64 {
///     let v = tape.var(x);
///     tape.backward(v * v).map(|g| g.wrt(v)).unwrap_or(f64::NAN)
/// }
/// assert_eq!(square_on(&Tape::<f64, 4>::new(), 3.0), 6.0);
/// assert_eq!(square_on(&Tape::<f64, 1024>::new(), 0.5), 1.0);
/// ```
pub struct TapeView<S: Scalar, B: ?Sized = [<S as Layout>::Unit]> {
    /// The first recording failure; sticky until the tape is rewound.
    error: Cell<Option<TapeError>>,
    /// Number of slots in use.
    len: Cell<u32>,
    /// Slots `0..leaf_run` are leaves (headers without operands): the inputs or parameters a
    /// recording begins with. They send nothing, so a sweep stops above them. Grows only while
    /// nothing but leaves is written; never above `len` (every shortening goes through
    /// `shorten`).
    leaf_run: Cell<u32>,
    /// The range of slots whose adjoints the last sweep may have written, `(lo, wide, hi)` for
    /// `lo..hi`, and where the lowest plain statement of many operands it passed begins (`hi`
    /// if none): every other adjoint below `len` is zero (slots are written with a zero
    /// adjoint), so the next sweep clears only this range, and above `wide` statement by
    /// statement (`backward.rs`).
    dirty: Cell<(u32, u32, u32)>,
    /// The `(index, partial)` pairs the last sweep was seeded with (unused ones `POISON`): the
    /// anomaly scan adds them first when it replays a gradient's sum.
    seed: Cell<[(u32, S); 2]>,
    /// Slots asked for that did not fit, since creation or the last rewind (for the error's
    /// `needed`).
    overflow: Cell<u32>,
    /// Backward sweeps so far: a [`Gradients`] remembers its sweep and refuses to read after a
    /// later one.
    sweeps: Cell<u32>,
    /// This tape's tag for [`NodeId`] and [`Mark`] (0 until first needed).
    tag: Cell<u32>,
    scalar: PhantomData<S>,
    /// The slots, as the scalar's [`Layout`] stores them (read through `parts`).
    units: B,
}

impl<S: Scalar, const N: usize> Tape<S, N> {
    const CAPACITY_FITS: () = assert!(N <= MAX_CAPACITY, "a tape holds at most 2^31 - 1 slots");

    /// An empty tape.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// // On the stack (or in a `static` on a microcontroller): 64 slots of 12 bytes in `f32`.
    /// let tape = Tape::<f32, 64>::new();
    /// assert_eq!((tape.len(), tape.capacity()), (0, 64));
    /// ```
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_FITS;
        Tape {
            inner: TapeView {
                error: Cell::new(None),
                len: Cell::new(0),
                leaf_run: Cell::new(0),
                dirty: Cell::new((0, 0, 0)),
                seed: Cell::new([(POISON, S::ZERO); 2]),
                overflow: Cell::new(0),
                sweeps: Cell::new(0),
                tag: Cell::new(0),
                scalar: PhantomData,
                units: [S::EMPTY_UNIT; N],
            },
        }
    }
}

impl<S: Scalar, const N: usize> Default for Tape<S, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Scalar, const N: usize> Deref for Tape<S, N> {
    type Target = TapeView<S>;
    #[inline(always)]
    fn deref(&self) -> &TapeView<S> {
        &self.inner
    }
}

impl<S: Scalar, const N: usize> DerefMut for Tape<S, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut TapeView<S> {
        &mut self.inner
    }
}

/// Its length, capacity and error, the error as [`check`](TapeView::check) reports it (the
/// stored one leaves `needed` to be counted when it is read).
impl<S: Scalar> fmt::Debug for TapeView<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tape")
            .field("len", &self.len())
            .field("capacity", &self.capacity())
            .field("error", &self.check().err())
            .finish()
    }
}

impl<S: Scalar, const N: usize> fmt::Debug for Tape<S, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<S: Scalar> TapeView<S> {
    /// Records a new independent variable (an input or a parameter) and returns its handle.
    ///
    /// If the tape is full the handle still carries `value` but is not recorded, and the tape
    /// reports [`TapeError::CapacityExceeded`] from then on.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// let tape = Tape::<f64, 1>::new();
    /// let x = tape.var(2.0); // the one slot
    /// let y = tape.var(3.0); // no room: the handle keeps its value, the tape the overflow
    /// assert_eq!((x * y).value(), 6.0);
    /// let needed = 2;
    /// assert_eq!(tape.check(), Err(TapeError::CapacityExceeded { capacity: 1, needed }));
    /// ```
    #[inline]
    pub fn var(&self, value: S) -> Var<'_, S> {
        Var::node(self, self.push_leaf(value), value)
    }

    /// Like [`var`](Self::var), but fails at once when the tape is full or already failed.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// let tape = Tape::<f32, 1>::new();
    /// let x = tape.try_var(2.0)?;
    /// assert_eq!(x.value(), 2.0);
    /// let full = tape.try_var(3.0).unwrap_err();
    /// assert_eq!(full, TapeError::CapacityExceeded { capacity: 1, needed: 2 });
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn try_var(&self, value: S) -> Result<Var<'_, S>, TapeError> {
        // Check first: a tape that already failed writes nothing, even if it has room.
        self.check()?;
        self.var(value).recorded()
    }

    /// Number of slots in use.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// assert!(tape.is_empty());
    /// let (a, b, c) = (tape.var(1.0), tape.var(2.0), tape.var(3.0));
    /// // `a * b` depends on two values and stays in its handle; times `c` it depends on three: one
    /// // statement of three operands and a header.
    /// let _y = a * b * c;
    /// assert_eq!(tape.len(), 3 + 4);
    /// assert_eq!(tape.capacity(), 8);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.len.get() as usize
    }

    /// `true` if nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Maximum number of slots.
    pub fn capacity(&self) -> usize {
        self.units.len()
    }

    /// `Ok` unless a recording failed since the tape was created or last rewound.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// let tape = Tape::<f64, 2>::new();
    /// let (a, b) = (tape.var(1.0), tape.var(2.0));
    /// assert_eq!(tape.check(), Ok(()));
    /// let c = tape.var(3.0); // a third leaf does not fit
    /// assert_eq!((a * b * c).value(), 6.0); // values stay right
    /// assert_eq!(tape.check(), Err(TapeError::CapacityExceeded { capacity: 2, needed: 3 }));
    /// ```
    pub fn check(&self) -> Result<(), TapeError> {
        match self.error.get() {
            None => Ok(()),
            Some(TapeError::CapacityExceeded { capacity, .. }) => {
                Err(TapeError::CapacityExceeded {
                    capacity,
                    needed: self.len() + self.overflow.get() as usize,
                })
            }
            Some(e) => Err(e),
        }
    }

    /// The current position, to [`rewind`](Self::rewind) to later.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let mut tape = Tape::<f64, 16>::new();
    /// let w = tape.var(0.5).id().unwrap(); // a parameter, kept across rewinds
    /// let mark = tape.mark();
    /// assert_eq!(mark.len(), 1);
    /// for x in [1.0, 2.0, 3.0] {
    ///     tape.rewind(mark); // forget the last sample, keep the parameter
    ///     let w = tape.get(w)?;
    ///     let y = w * tape.var(x) * w; // w^2 x
    ///     assert_eq!(tape.backward(y)?.wrt(w), 2.0 * 0.5 * x);
    ///     assert_eq!(tape.len(), 2); // w and this x
    /// }
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn mark(&self) -> Mark {
        Mark {
            len: self.len.get(),
            tag: self.tag(),
        }
    }

    /// Discards every slot recorded after `mark` (a mark past the end changes nothing) and
    /// clears a recording failure, so the tape can be reused without reallocating. Taking
    /// `&mut self` guarantees no handle to a discarded statement survives.
    ///
    /// A mark from another tape discards nothing and leaves [`TapeError::ForeignId`] as the
    /// tape's sticky error, reported by the next [`check`](Self::check) or sweep.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// let mut tape = Tape::<f64, 2>::new();
    /// let mark = tape.mark();
    /// let _ = (tape.var(1.0), tape.var(2.0), tape.var(3.0)); // one leaf too many
    /// assert!(tape.check().is_err());
    /// tape.rewind(mark); // the slots and the error are gone
    /// assert_eq!((tape.len(), tape.check()), (0, Ok(())));
    /// let other = Tape::<f64, 2>::new();
    /// tape.rewind(other.mark()); // another tape's mark
    /// assert_eq!(tape.check(), Err(TapeError::ForeignId));
    /// ```
    pub fn rewind(&mut self, mark: Mark) {
        if let Err(e) = self.own(mark.tag) {
            self.fail(e);
            return;
        }
        let len = self.len.get().min(mark.len);
        self.shorten(len);
        let (lo, wide, hi) = self.dirty.get();
        let hi = hi.min(len);
        self.dirty.set((lo.min(hi), wide.min(hi), hi));
        self.error.set(None);
        self.overflow.set(0);
        self.seed.set([(POISON, S::ZERO); 2]);
    }

    /// Discards everything.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let mut tape = Tape::<f64, 4>::new();
    /// let x = tape.var(2.0);
    /// let _ = x * x * tape.var(3.0);
    /// tape.clear();
    /// assert!(tape.is_empty() && tape.check().is_ok());
    /// ```
    pub fn clear(&mut self) {
        self.rewind(Mark { len: 0, tag: 0 });
    }

    /// The seed of the last sweep (see the field).
    pub(crate) fn last_seed(&self) -> [(u32, S); 2] {
        self.seed.get()
    }

    /// The slots in use.
    #[inline]
    pub(crate) fn slots(&self) -> &[Slot<S>] {
        &self.parts().0[..self.len()]
    }

    /// For each slot in use, the slot its value is in (the same slot, or one apart: the
    /// scalar's [`Layout`]).
    #[inline]
    pub(crate) fn values(&self) -> &[Slot<S>] {
        &self.parts().1[..self.len()]
    }

    /// Every slot of the capacity, and for each the slot its value is in (the same length).
    #[inline(always)]
    pub(crate) fn parts(&self) -> WithValues<'_, S> {
        let (slots, values) = S::split(S::slots(&self.units));
        (slots, held_all(slots, values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Op;

    /// A handle's size on a 64-bit host (the tape's address and capacity, the value, two
    /// pending partials and their indices, and one word for the pair count, the operation and
    /// the node flag; `firmware/src/lib.rs` asserts the 32-bit parts' at compile time). The
    /// word is two halves of a `usize` (the count; the operation and the flag), so an `f64`
    /// handle has no padding (56 bytes) and an `f32` one takes 48 on the host (40 with the
    /// three one-byte fields the word replaced). With 16-bit indices and
    /// those bytes an `f64` handle would take 48 bytes and an `f32` one still 40 (PERFORMANCE.md,
    /// "The smallest index type").
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn handle_sizes_are_as_documented() {
        assert_eq!(core::mem::size_of::<Var<'static, f64>>(), 56);
        assert_eq!(core::mem::size_of::<Var<'static, f32>>(), 48);
        type U16Handle<S> = (&'static [Slot<S>], S, [S; 2], [u16; 2], u8, Op, bool);
        assert_eq!(core::mem::size_of::<U16Handle<f64>>(), 48);
        assert_eq!(core::mem::size_of::<U16Handle<f32>>(), 40);
    }
}
