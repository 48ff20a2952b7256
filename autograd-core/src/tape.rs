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
//! than two recorded values (see `var.rs`).

use core::cell::{Cell, RefCell};
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use crate::op::Op;
use crate::{Scalar, TapeError, Var};

mod closure;
mod gradients;
mod write;

pub use gradients::Gradients;

/// A header's `link` has its top bit set, the operation in the next 7 bits and the operand count
/// in the low 24; an operand's `link` is an index, below 2^31.
const HEADER: u32 = 1 << 31;
const COUNT_BITS: u32 = 24;
const COUNT_MASK: u32 = (1 << COUNT_BITS) - 1;
/// Index of nothing: the index a failed recording returns.
pub(crate) const POISON: u32 = u32::MAX;

/// The largest capacity a [`Tape`] may have, in slots.
pub const MAX_CAPACITY: usize = (HEADER - 1) as usize;
/// The most operands one statement may have (a longer `dot` or `sum` is split).
pub(crate) const MAX_OPERANDS: usize = COUNT_MASK as usize;

/// One slot of the tape: a statement's header or one of its operands.
///
/// A header holds the statement's value in `x`, its adjoint in `adj`, and its operation and
/// operand count in `link`; an operand holds a partial derivative in `x` and the index of the
/// header it refers to in `link`. 12 bytes in `f32`, 24 in `f64`.
#[derive(Clone, Copy, Debug)]
pub struct Slot<S> {
    pub(crate) x: S,
    pub(crate) adj: S,
    pub(crate) link: u32,
}

impl<S: Scalar> Slot<S> {
    const EMPTY: Self = Slot {
        x: S::ZERO,
        adj: S::ZERO,
        link: 0,
    };

    #[inline(always)]
    pub(crate) fn header(value: S, op: Op, count: usize) -> Self {
        Slot {
            x: value,
            adj: S::ZERO,
            link: HEADER | (count as u32 & COUNT_MASK) | ((op as u32 & 0x7F) << COUNT_BITS),
        }
    }

    #[inline(always)]
    pub(crate) fn operand(index: u32, partial: S) -> Self {
        Slot {
            x: partial,
            adj: S::ZERO,
            link: index,
        }
    }

    #[inline(always)]
    pub(crate) fn count(&self) -> usize {
        (self.link & COUNT_MASK) as usize
    }

    #[inline(always)]
    pub(crate) fn op(&self) -> Op {
        Op::from_code(((self.link & !HEADER) >> COUNT_BITS) as u8)
    }

    #[inline(always)]
    pub(crate) fn is_header(&self) -> bool {
        self.link & HEADER != 0
    }
}

/// A recorded statement, as [`TapeView::node`] reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node<S> {
    /// The operation that produced the statement (for a preaccumulated statement, the last one).
    pub op: Op,
    /// Its value.
    pub value: S,
    /// Its adjoint from the last backward sweep (0 before any).
    pub grad: S,
    /// How many operands (`(index, partial)` pairs) it has: 0 for a leaf.
    pub operands: usize,
}

/// Position on a tape, returned by [`TapeView::mark`] and accepted by [`TapeView::rewind`] and
/// [`TapeView::backward_above`]. It remembers its tape: another tape refuses it
/// ([`TapeError::ForeignId`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark {
    len: u32,
    tag: u32,
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
    pub fn len(self) -> usize {
        self.len as usize
    }
    /// `true` for the mark of an empty tape.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// Index of a statement (a leaf or a recorded result), stable until the tape is rewound below
/// it. Obtain one from [`Var::id`] and get a fresh handle back with [`TapeView::get`]. It
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
    index: u32,
    /// The tape's tag, or 0 for an id made from a bare index (accepted by every tape).
    tag: u32,
}

impl NodeId {
    /// The id of the statement whose header is slot `index` on whichever tape it is used with
    /// (checked when used: an index that is not a header is reported as
    /// [`TapeError::UnknownNode`]). Prefer [`Var::id`], which also remembers the tape.
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
fn next_tag() -> u32 {
    use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    #[cfg(target_has_atomic = "32")]
    let tag = NEXT.fetch_add(1, Relaxed);
    #[cfg(not(target_has_atomic = "32"))]
    let tag = {
        let t = NEXT.load(Relaxed);
        NEXT.store(t.wrapping_add(1), Relaxed);
        t
    };
    if tag == 0 {
        next_tag()
    } else {
        tag
    }
}

/// A tape of `N` slots of scalar `S`, stored inline (no allocation).
///
/// **Choosing `N`**: a leaf takes one slot and a statement `k + 1` (its `k` operands and a
/// header); most operations take none, because handles carry up to two pending partials and a
/// statement is written only when a result depends on more than two recorded values. Arithmetic
/// code such as Rosenbrock records about 6 slots per term, a neuron's pre-activation
/// `dot(w, x) + b` one statement of `2 n + 1` operands. Too small a tape is an error value, never
/// a crash: see [`TapeError::CapacityExceeded`].
///
/// A slot is 12 bytes in `f32` and 24 in `f64`, and the tape lives where you put it: a local
/// tape of many slots needs that much stack (build large tapes in a `Box` or a `static`).
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
    inner: TapeView<S, [Slot<S>; N]>,
}

/// A tape with its capacity erased: the type every [`Var`] points to and where the tape's
/// methods live. Obtain one by dereferencing a [`Tape`].
pub struct TapeView<S: Scalar, B: ?Sized = [Slot<S>]> {
    /// The first recording failure; sticky until the tape is rewound.
    error: Cell<Option<TapeError>>,
    /// Number of slots in use.
    len: Cell<u32>,
    /// The range of slots whose adjoints the last sweep may have written; every other adjoint
    /// below `len` is zero (slots are written with a zero adjoint), so the next sweep clears
    /// only this range.
    dirty: Cell<(u32, u32)>,
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
    slots: RefCell<B>,
}

impl<S: Scalar, const N: usize> Tape<S, N> {
    const CAPACITY_FITS: () = assert!(N <= MAX_CAPACITY, "a tape holds at most 2^31 - 1 slots");

    /// An empty tape.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_FITS;
        Tape {
            inner: TapeView {
                error: Cell::new(None),
                len: Cell::new(0),
                dirty: Cell::new((0, 0)),
                seed: Cell::new([(POISON, S::ZERO); 2]),
                overflow: Cell::new(0),
                sweeps: Cell::new(0),
                tag: Cell::new(0),
                scalar: PhantomData,
                slots: RefCell::new([Slot::EMPTY; N]),
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

impl<S: Scalar> fmt::Debug for TapeView<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tape")
            .field("len", &self.len())
            .field("capacity", &self.capacity())
            .field("error", &self.error.get())
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
    #[inline]
    pub fn var(&self, value: S) -> Var<'_, S> {
        Var::node(self, self.push_leaf(value), value)
    }

    /// Like [`var`](Self::var), but fails at once when the tape is full or already failed.
    pub fn try_var(&self, value: S) -> Result<Var<'_, S>, TapeError> {
        // Check first: a tape that already failed writes nothing, even if it has room.
        self.check()?;
        self.var(value).recorded()
    }

    /// Number of slots in use.
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
        self.slots.try_borrow().map_or(0, |s| s.len())
    }

    /// `Ok` unless a recording failed since the tape was created or last rewound.
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
    pub fn mark(&self) -> Mark {
        Mark {
            len: self.len.get(),
            tag: self.tag(),
        }
    }

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
    fn own(&self, tag: u32) -> Result<(), TapeError> {
        if tag == 0 || tag == self.tag() {
            Ok(())
        } else {
            Err(TapeError::ForeignId)
        }
    }

    /// Discards every slot recorded after `mark` (a mark past the end changes nothing) and
    /// clears a recording failure, so the tape can be reused without reallocating. Taking
    /// `&mut self` guarantees no handle to a discarded statement survives.
    ///
    /// A mark from another tape discards nothing and leaves [`TapeError::ForeignId`] as the
    /// tape's sticky error, reported by the next [`check`](Self::check) or sweep.
    pub fn rewind(&mut self, mark: Mark) {
        if let Err(e) = self.own(mark.tag) {
            self.fail(e);
            return;
        }
        let len = self.len.get().min(mark.len);
        self.len.set(len);
        let (lo, hi) = self.dirty.get();
        let hi = hi.min(len);
        self.dirty.set((lo.min(hi), hi));
        self.error.set(None);
        self.overflow.set(0);
        self.seed.set([(POISON, S::ZERO); 2]);
    }

    /// Discards everything.
    pub fn clear(&mut self) {
        self.rewind(Mark { len: 0, tag: 0 });
    }

    /// The header at slot `id`, if that slot is in use and is a header.
    fn header_at(&self, slots: &[Slot<S>], id: NodeId) -> Result<Slot<S>, TapeError> {
        self.own(id.tag)?;
        let len = self.len();
        match slots[..len].get(id.index()) {
            Some(h) if h.is_header() => Ok(*h),
            _ => Err(TapeError::UnknownNode {
                index: id.index(),
                len,
            }),
        }
    }

    /// A fresh handle to an existing statement (e.g. a parameter kept across
    /// [`rewind`](Self::rewind)).
    pub fn get(&self, id: NodeId) -> Result<Var<'_, S>, TapeError> {
        let slots = self.slots.try_borrow().map_err(|_| TapeError::Busy)?;
        let h = self.header_at(&slots, id)?;
        Ok(Var::node(self, id.index, h.x))
    }

    /// Sets the value of a leaf (e.g. a parameter after an optimizer step). Statements computed
    /// from it keep their old values and partials until recorded again, so set leaves right
    /// after a rewind.
    pub fn set_value(&mut self, id: NodeId, value: S) -> Result<(), TapeError> {
        self.own(id.tag)?;
        let len = self.len();
        let slots = self.slots.get_mut();
        match slots[..len].get_mut(id.index()) {
            Some(slot) if slot.link == Slot::<S>::header(value, Op::Leaf, 0).link => {
                slot.x = value;
                Ok(())
            }
            Some(slot) if !slot.is_header() => Err(TapeError::UnknownNode {
                index: id.index(),
                len,
            }),
            Some(_) => Err(TapeError::NotALeaf { index: id.index() }),
            None => Err(TapeError::UnknownNode {
                index: id.index(),
                len,
            }),
        }
    }

    /// Reads a statement: its operation, value, adjoint and number of operands.
    pub fn node(&self, id: NodeId) -> Result<Node<S>, TapeError> {
        let slots = self.slots.try_borrow().map_err(|_| TapeError::Busy)?;
        let h = self.header_at(&slots, id)?;
        Ok(Node {
            op: h.op(),
            value: h.x,
            grad: h.adj,
            operands: h.count(),
        })
    }

    /// Calls `f(index, partial)` for every operand of statement `id`, in recording order.
    pub fn for_each_operand(
        &self,
        id: NodeId,
        mut f: impl FnMut(usize, S),
    ) -> Result<(), TapeError> {
        let slots = self.slots.try_borrow().map_err(|_| TapeError::Busy)?;
        let h = self.header_at(&slots, id)?;
        for o in &slots[id.index() - h.count()..id.index()] {
            f(o.link as usize, o.x);
        }
        Ok(())
    }

    /// Calls `f(id, node)` for every statement (leaves included) in creation order, without
    /// copying the tape.
    pub fn for_each_node(&self, mut f: impl FnMut(NodeId, &Node<S>)) -> Result<(), TapeError> {
        let slots = self.slots.try_borrow().map_err(|_| TapeError::Busy)?;
        for (i, h) in slots[..self.len()].iter().enumerate() {
            if h.is_header() {
                let node = Node {
                    op: h.op(),
                    value: h.x,
                    grad: h.adj,
                    operands: h.count(),
                };
                f(NodeId::on(self, i as u32), &node);
            }
        }
        Ok(())
    }

    /// Reverse mode: one sweep from `y` down to the first slot gives `dy/dv` for every statement
    /// `v` recorded before `y`.
    ///
    /// Each call starts from zero adjoints, so calling it twice gives identical gradients (there is
    /// no silent accumulation across calls, unlike micrograd). A value used several times sums the
    /// contributions of every use. Statements whose adjoint is exactly zero are skipped.
    ///
    /// # Errors
    /// The tape's sticky recording error, if any; [`TapeError::NotRecorded`] if `y` is a constant;
    /// [`TapeError::ForeignVar`] if `y` belongs to another tape.
    pub fn backward(&self, y: Var<'_, S>) -> Result<Gradients<'_, S>, TapeError> {
        self.sweep::<false>(y, 0)
    }

    /// Like [`backward`](Self::backward), but sweeps only the slots recorded at or after `mark`:
    /// gradients with respect to earlier statements read as 0. Use it when everything you
    /// differentiate with respect to was recorded after `mark` (inputs recorded on a tape that
    /// already holds other work): the cost then does not depend on what lies below the mark.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 64>::new();
    /// let other = tape.var(3.0);
    /// let _unrelated = other.exp().sin();
    /// let mark = tape.mark();
    /// let x = tape.var(2.0);
    /// let y = x * x * other; // depends on `other` too, but only x is asked for
    /// let g = tape.backward_above(y, mark)?;
    /// assert_eq!(g.wrt(x), 12.0);
    /// assert_eq!(g.wrt(other), 0.0); // below the mark: not swept
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`backward`](Self::backward).
    pub fn backward_above(&self, y: Var<'_, S>, mark: Mark) -> Result<Gradients<'_, S>, TapeError> {
        self.own(mark.tag)?;
        self.sweep::<true>(y, mark.len())
    }

    /// The backward sweep over slots `lo..=root`; contributions to statements below `lo` are
    /// dropped. `ABOVE = false` (a full sweep, `lo = 0`) compiles the bound test away.
    fn sweep<const ABOVE: bool>(
        &self,
        y: Var<'_, S>,
        lo: usize,
    ) -> Result<Gradients<'_, S>, TapeError> {
        self.check()?;
        match y.tape() {
            None => return Err(TapeError::NotRecorded),
            Some(t) if !core::ptr::eq(t, self) => return Err(TapeError::ForeignVar),
            Some(_) => {}
        }
        self.sweeps.set(self.sweeps.get().wrapping_add(1));
        let len = self.len();
        let mut slots = self.slots.try_borrow_mut().map_err(|_| TapeError::Busy)?;
        let slots = &mut slots[..len];
        let all = y.pair_array();
        let pairs = &all[..y.pending()];
        let root = pairs.iter().map(|p| p.0 as usize + 1).max().unwrap_or(0);
        let lo = if ABOVE { lo.min(root) } else { 0 };
        let (dirty_lo, dirty_hi) = self.dirty.replace((lo as u32, root as u32));
        let dirty_hi = (dirty_hi as usize).min(len);
        for slot in &mut slots[(dirty_lo as usize).min(dirty_hi)..dirty_hi] {
            slot.adj = S::ZERO;
        }
        let mut seed = [(POISON, S::ZERO); 2];
        for (k, &(i, d)) in pairs.iter().enumerate() {
            if let Some(s) = slots.get_mut(i as usize) {
                if !ABOVE || i as usize >= lo {
                    s.adj += d;
                    seed[k] = (i, d);
                }
            }
        }
        self.seed.set(seed);
        let mut p = root;
        while p > lo {
            let h = p - 1;
            let head = slots[h];
            let base = h - head.count().min(h);
            let a = head.adj;
            if !a.is_zero() {
                for q in base..h {
                    let o = slots[q];
                    // Operands refer to earlier headers, so this never misses; a failed
                    // recording never reaches the tape.
                    if let Some(t) = slots.get_mut(o.link as usize) {
                        if !ABOVE || o.link as usize >= lo {
                            t.adj += a * o.x;
                        }
                    }
                }
            }
            p = base;
        }
        Ok(Gradients::new(self))
    }

    /// The adjoint of `x` from the last backward sweep: 0 before any, for constants, and for a
    /// handle that is not a single recorded statement (see [`Var::id`]).
    pub fn grad(&self, x: Var<'_, S>) -> S {
        match x.id() {
            Some(id) if x.tape().is_some_and(|t| core::ptr::eq(t, self)) => self
                .slots
                .try_borrow()
                .ok()
                .and_then(|s| s[..self.len()].get(id.index()).map(|s| s.adj))
                .unwrap_or(S::ZERO),
            _ => S::ZERO,
        }
    }

    /// The seed of the last sweep (see the field).
    pub(crate) fn last_seed(&self) -> [(u32, S); 2] {
        self.seed.get()
    }

    /// Runs `f` on the slots in use (for the anomaly scan and the graph export).
    pub(crate) fn with_slots<R>(&self, f: impl FnOnce(&[Slot<S>]) -> R) -> Result<R, TapeError> {
        let slots = self.slots.try_borrow().map_err(|_| TapeError::Busy)?;
        Ok(f(&slots[..self.len()]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_sizes_are_as_documented() {
        assert_eq!(core::mem::size_of::<Slot<f32>>(), 12);
        assert_eq!(core::mem::size_of::<Slot<f64>>(), 24);
    }

    #[test]
    fn headers_round_trip_op_and_count() {
        for &op in Op::ALL {
            for count in [0, 1, 4, MAX_OPERANDS] {
                let h = Slot::header(1.5_f64, op, count);
                assert_eq!((h.op(), h.count()), (op, count));
            }
        }
    }
}
