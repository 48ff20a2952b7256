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

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use crate::op::Op;
use crate::{Scalar, TapeError, Var};

mod backward;
#[cfg(feature = "alloc")]
mod boxed;
mod closure;
mod gradients;
mod ids;
mod leaves;
mod operands;
mod vars;
mod write;

pub use gradients::Gradients;
pub use ids::{Mark, NodeId};
pub use leaves::Leaves;
pub(crate) use operands::NO_OPERAND;
pub use vars::Vars;

/// A header's `link` has its top bit set, the operation in the next 7 bits, the [`LAYER`] flag
/// in bit 23 and the count of slots below it that belong to the statement in the low 23; an
/// operand's `link` is an index, below 2^31.
const HEADER: u32 = 1 << 31;
const COUNT_BITS: u32 = 24;
/// Marks a row of a layer statement (see `operands.rs`).
const LAYER: u32 = 1 << 23;
const COUNT_MASK: u32 = LAYER - 1;
/// Index of nothing: the index a failed recording returns.
pub(crate) const POISON: u32 = u32::MAX;

/// The largest capacity a [`Tape`] may have, in slots.
pub const MAX_CAPACITY: usize = (HEADER - 1) as usize;
/// The most operands one statement's header can count: a statement with more (a `sum`, `dot` or
/// `affine` of millions of terms) is written as a chain of statements (`write.rs`, `spread`),
/// and a layer statement of more slots row by row.
pub(crate) const MAX_OPERANDS: usize = COUNT_MASK as usize;

/// One slot of the tape: a statement's header or one of its operands.
///
/// A header holds the statement's value in `x`, its adjoint in `adj`, and its operation and
/// operand count in `link`; an operand holds a partial derivative in `x` and the index of the
/// header it refers to in `link`. 12 bytes in `f32`, 24 in `f64`.
///
/// Each field is a [`Cell`] (which has the layout of what it holds), so a tape is written through
/// a shared reference without a borrow flag to test on every write, and a heap-placed tape can
/// be initialized slot by slot where it lies (`Tape::boxed`, feature `alloc`).
pub struct Slot<S> {
    x: Cell<S>,
    adj: Cell<S>,
    link: Cell<u32>,
}

impl<S: Scalar> Slot<S> {
    /// A fresh empty slot at each use (array repeats and in-place writes need a `const`).
    #[allow(clippy::declare_interior_mutable_const)]
    pub(crate) const EMPTY: Self = Slot {
        x: Cell::new(S::ZERO),
        adj: Cell::new(S::ZERO),
        link: Cell::new(0),
    };

    /// Writes a header (with a zero adjoint).
    #[inline(always)]
    pub(crate) fn put_header(&self, value: S, op: Op, count: usize) {
        self.put(value, header_link(op, count));
    }

    /// Writes a row of a layer statement (see `operands.rs`): the row's value, and its `link`
    /// ([`layer_row_link`] for the first row, plus `j` for row `j`).
    #[inline(always)]
    pub(crate) fn put_layer_row(&self, value: S, link: u32) {
        self.put(value, link);
    }

    /// Writes one input slot of a layer statement: the pair `(index, partial)` and, in the
    /// adjoint's place (an operand slot's adjoint is never read as one), the input's value, the
    /// partial with respect to each row's weight for this input.
    #[inline(always)]
    pub(crate) fn put_paired(&self, index: u32, partial: S, weight_partial: S) {
        self.put(partial, index);
        self.adj.set(weight_partial);
    }

    /// Writes an operand. Its adjoint is left as it was: only headers' adjoints are ever read
    /// (an operand's slot becomes a header again only through `put_header`, which clears it).
    #[inline(always)]
    pub(crate) fn put_operand(&self, index: u32, partial: S) {
        self.x.set(partial);
        self.link.set(index);
    }

    #[inline(always)]
    fn put(&self, x: S, link: u32) {
        self.x.set(x);
        self.adj.set(S::ZERO);
        self.link.set(link);
    }

    /// A header's value or an operand's partial.
    #[inline(always)]
    pub(crate) fn x(&self) -> S {
        self.x.get()
    }

    #[inline(always)]
    pub(crate) fn set_x(&self, x: S) {
        self.x.set(x);
    }

    /// A header's adjoint.
    #[inline(always)]
    pub(crate) fn adj(&self) -> S {
        self.adj.get()
    }

    #[inline(always)]
    pub(crate) fn set_adj(&self, adj: S) {
        self.adj.set(adj);
    }

    /// An operand's index (a header's link is its operation and count).
    #[inline(always)]
    pub(crate) fn link(&self) -> u32 {
        self.link.get()
    }

    #[inline(always)]
    pub(crate) fn count(&self) -> usize {
        (self.link() & COUNT_MASK) as usize
    }

    /// The operation of a header (a layer's row: `dot`, its operation's bits holding its place,
    /// [`layer_row_link`]).
    #[inline(always)]
    pub(crate) fn op(&self) -> Op {
        if self.is_layer() {
            return Op::Dot;
        }
        Op::from_code(((self.link() & !HEADER) >> COUNT_BITS) as u8)
    }

    /// A layer row's place `j` in its statement, if it is below [`ROW_PLACES`] (read from the
    /// bits a plain header's operation takes, [`layer_row_link`]).
    #[inline(always)]
    pub(crate) fn row_place(&self) -> Option<usize> {
        let j = (self.link() & !HEADER) >> COUNT_BITS;
        (j < ROW_PLACES).then_some(j as usize)
    }

    #[inline(always)]
    pub(crate) fn is_header(&self) -> bool {
        self.link() & HEADER != 0
    }

    /// `true` for a header without operands (a leaf, or a value that depends on nothing): the
    /// sweep has nothing to send from it.
    #[inline(always)]
    pub(crate) fn is_alone(&self) -> bool {
        self.link() & (HEADER | LAYER | COUNT_MASK) == HEADER
    }

    /// The operand count of a plain statement's header (not a layer's row) with one to four
    /// operands, if it is one.
    #[inline(always)]
    pub(crate) fn few_operands(&self) -> Option<usize> {
        self.operands_in(1, 4)
    }

    /// The operand count of a plain statement's header (not a layer's row) with `least`
    /// operands or more, if it is one.
    ///
    /// For the re-sweep's clearing, which passes over that many slots below the header: a
    /// `None` or a smaller count only makes it test those slots one by one. So cargo-mutants'
    /// mutants that answer so survive (`None`, `Some(0)`, and those that shorten its span,
    /// `COUNT_MASK - least + 1`); one slot too many is caught (`tests/tape.rs`,
    /// `tests/resweep.rs`).
    #[inline(always)]
    pub(crate) fn many_operands(&self, least: u32) -> Option<usize> {
        self.operands_in(least, COUNT_MASK - least + 1)
    }

    /// The operand count of a plain statement's header with `least .. least + span` operands,
    /// if it is one: the header bit set, the layer bit clear and such a count are one range of
    /// the masked link, `HEADER + least .. HEADER + least + span`, so one subtraction and one
    /// comparison test all three.
    #[inline(always)]
    fn operands_in(&self, least: u32, span: u32) -> Option<usize> {
        let above = (self.link() & (HEADER | LAYER | COUNT_MASK)).wrapping_sub(HEADER + least);
        (above < span).then_some(above as usize + least as usize)
    }

    /// `true` for a row of a layer statement (see `operands.rs`).
    #[inline(always)]
    pub(crate) fn is_layer(&self) -> bool {
        self.link() & (HEADER | LAYER) == HEADER | LAYER
    }
}

impl<S: Scalar> fmt::Debug for Slot<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slot")
            .field("x", &self.x())
            .field("adj", &self.adj())
            .field("link", &self.link())
            .finish()
    }
}

/// A header's `link`: the operation and the operand count.
#[inline(always)]
fn header_link(op: Op, count: usize) -> u32 {
    HEADER | (count as u32 & COUNT_MASK) | ((op as u32 & 0x7F) << COUNT_BITS)
}

/// The `link` of the first row of a layer statement of `k` inputs: its count of slots below it
/// down to the statement's first is `k + 1`, and its operation's bits hold 0. Row `j`'s is this
/// plus [`row_step`]`(j)` (its count `k + 1 + j` is below [`MAX_OPERANDS`] in a statement that
/// fits, so the sum stays in the count's bits): `j` in the operation's bits too while `j` is
/// below [`ROW_PLACES`], so that the sweep finds the first row from any other at once
/// (`operands.rs`, `layer_of`). A row's operation is `dot` ([`Slot::op`]).
#[inline(always)]
pub(crate) fn layer_row_link(k: usize) -> u32 {
    HEADER | LAYER | (k as u32 + 1)
}

/// What row `j`'s link adds to the first row's ([`layer_row_link`]).
#[inline(always)]
pub(crate) fn row_step(j: usize) -> u32 {
    j as u32 + ((j as u32).min(ROW_PLACES) << COUNT_BITS)
}

/// [`row_step`] from row `j` to row `j + i` where `j + i < ROW_PLACES`: `i` in the count's bits
/// and in the operation's.
pub(crate) const ROW_STEP: u32 = 1 + (1 << COUNT_BITS);

/// The rows of a layer statement whose place its link holds: rows `0 .. ROW_PLACES`; every row
/// above holds `ROW_PLACES` there.
pub(crate) const ROW_PLACES: u32 = 0x7F;

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
    inner: TapeView<S, [Slot<S>; N]>,
}

/// A tape with its capacity erased: the type every [`Var`] points to and where the tape's
/// methods live. Obtain one by dereferencing a [`Tape`].
pub struct TapeView<S: Scalar, B: ?Sized = [Slot<S>]> {
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
    slots: B,
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
                leaf_run: Cell::new(0),
                dirty: Cell::new((0, 0, 0)),
                seed: Cell::new([(POISON, S::ZERO); 2]),
                overflow: Cell::new(0),
                sweeps: Cell::new(0),
                tag: Cell::new(0),
                scalar: PhantomData,
                slots: [Slot::EMPTY; N],
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
        self.slots.len()
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
        self.shorten(len);
        let (lo, wide, hi) = self.dirty.get();
        let hi = hi.min(len);
        self.dirty.set((lo.min(hi), wide.min(hi), hi));
        self.error.set(None);
        self.overflow.set(0);
        self.seed.set([(POISON, S::ZERO); 2]);
    }

    /// Discards everything.
    pub fn clear(&mut self) {
        self.rewind(Mark { len: 0, tag: 0 });
    }

    /// The header at slot `id`, if that slot is in use and is a header.
    fn header_at(&self, id: NodeId) -> Result<&Slot<S>, TapeError> {
        self.own(id.tag)?;
        match self.slots().get(id.index()) {
            Some(h) if h.is_header() => Ok(h),
            _ => Err(TapeError::UnknownNode {
                index: id.index(),
                len: self.len(),
            }),
        }
    }

    /// A fresh handle to an existing statement (e.g. a parameter kept across
    /// [`rewind`](Self::rewind)).
    pub fn get(&self, id: NodeId) -> Result<Var<'_, S>, TapeError> {
        let h = self.header_at(id)?;
        Ok(Var::node(self, id.index, h.x()))
    }

    /// Sets the value of a leaf (e.g. a parameter after an optimizer step). Statements computed
    /// from it keep their old values and partials until recorded again, so set leaves right
    /// after a rewind.
    pub fn set_value(&mut self, id: NodeId, value: S) -> Result<(), TapeError> {
        self.own(id.tag)?;
        let len = self.len();
        match self.slots[..len].get(id.index()) {
            Some(slot) if slot.link() == header_link(Op::Leaf, 0) => {
                slot.set_x(value);
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
        let h = self.header_at(id)?;
        Ok(Node {
            op: h.op(),
            value: h.x(),
            grad: h.adj(),
            operands: self.operands(id.index()).count(),
        })
    }

    /// Calls `f(index, partial)` for every operand of statement `id`, in recording order (for a
    /// row of a layer statement, written with its weights implied, each input's pair and then
    /// its weight's, and last the bias's).
    pub fn for_each_operand(
        &self,
        id: NodeId,
        mut f: impl FnMut(usize, S),
    ) -> Result<(), TapeError> {
        self.header_at(id)?;
        for (index, partial) in self.operands(id.index()) {
            f(index as usize, partial);
        }
        Ok(())
    }

    /// Calls `f(id, node)` for every statement (leaves included) in creation order, without
    /// copying the tape. Statements that `f` records are not visited.
    pub fn for_each_node(&self, mut f: impl FnMut(NodeId, &Node<S>)) {
        for (i, h) in self.slots().iter().enumerate() {
            if h.is_header() {
                let node = Node {
                    op: h.op(),
                    value: h.x(),
                    grad: h.adj(),
                    operands: self.operands(i).count(),
                };
                f(NodeId::on(self, i as u32), &node);
            }
        }
    }

    /// The seed of the last sweep (see the field).
    pub(crate) fn last_seed(&self) -> [(u32, S); 2] {
        self.seed.get()
    }

    /// The slots in use.
    #[inline]
    pub(crate) fn slots(&self) -> &[Slot<S>] {
        &self.slots[..self.len()]
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

    #[test]
    fn headers_round_trip_op_and_count() {
        for &op in Op::ALL {
            for count in [0, 1, 4, MAX_OPERANDS] {
                let h = Slot::EMPTY;
                h.put_header(1.5_f64, op, count);
                assert_eq!((h.op(), h.count()), (op, count));
            }
        }
    }
}
