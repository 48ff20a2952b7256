//! A tape's slot: a statement's header or one of its operands, and how a `link` encodes which
//! (the header bit, the operation, the layer flag, the operand count) or the index an operand
//! refers to.

use core::cell::Cell;
use core::fmt;

use crate::op::Op;
use crate::Scalar;

/// A header's `link` has its top bit set, the operation in the next 7 bits, the [`LAYER`] flag
/// in bit 23 and the count of slots below it that belong to the statement in the low 23; an
/// operand's `link` is an index, below 2^31.
pub(super) const HEADER: u32 = 1 << 31;
const COUNT_BITS: u32 = 24;
/// Marks a row of a layer statement (see `operands.rs`).
const LAYER: u32 = 1 << 23;
const COUNT_MASK: u32 = LAYER - 1;
/// Index of nothing: the index a failed recording returns.
pub(crate) const POISON: u32 = u32::MAX;

/// The largest capacity a [`Tape`](super::Tape) may have, in slots.
pub const MAX_CAPACITY: usize = (HEADER - 1) as usize;
/// The most operands one statement's header can count: a statement with more (a `sum`, `dot` or
/// `affine` of millions of terms) is written as a chain of statements (`write.rs`, `spread`),
/// and a layer statement of more slots row by row.
pub(crate) const MAX_OPERANDS: usize = COUNT_MASK as usize;

/// One slot of the tape: a statement's header or one of its operands.
///
/// Two parts, by what the backward sweep reads. The swept part: `d`, a header's adjoint or an
/// operand's partial derivative, and `link`, a header's operation and operand count or the index
/// of the header an operand refers to. The part apart, `v`: a header's value, or the value of a
/// layer statement's input (the partial with respect to each row's weight for that input); a
/// plain operand's is unused. The sweep reads `v` only for a layer's weights and inputs. 12
/// bytes in `f32`, 24 in `f64`.
///
/// Each field is a [`Cell`] (which has the layout of what it holds), so a tape is written through
/// a shared reference without a borrow flag to test on every write, and a heap-placed tape can
/// be initialized slot by slot where it lies (`Tape::boxed`, feature `alloc`).
pub struct Slot<S> {
    v: Cell<S>,
    d: Cell<S>,
    link: Cell<u32>,
}

impl<S: Scalar> Slot<S> {
    /// A fresh empty slot at each use (array repeats and in-place writes need a `const`).
    #[allow(clippy::declare_interior_mutable_const)]
    pub(crate) const EMPTY: Self = Slot {
        v: Cell::new(S::ZERO),
        d: Cell::new(S::ZERO),
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

    /// Writes one input slot of a layer statement: the pair `(index, partial)` and the input's
    /// value, the partial with respect to each row's weight for this input.
    #[inline(always)]
    pub(crate) fn put_paired(&self, index: u32, partial: S, value: S) {
        self.put_operand(index, partial);
        self.v.set(value);
    }

    /// Writes an operand. Its value is left as it was: a plain operand's is never read.
    #[inline(always)]
    pub(crate) fn put_operand(&self, index: u32, partial: S) {
        self.d.set(partial);
        self.link.set(index);
    }

    #[inline(always)]
    fn put(&self, value: S, link: u32) {
        self.v.set(value);
        self.d.set(S::ZERO);
        self.link.set(link);
    }

    /// A header's value, or a layer input's (see [`put_paired`](Self::put_paired)).
    #[inline(always)]
    pub(crate) fn value(&self) -> S {
        self.v.get()
    }

    /// Sets a header's value (a leaf's, `set_value`).
    #[inline(always)]
    pub(crate) fn set_value(&self, value: S) {
        self.v.set(value);
    }

    /// An operand's partial derivative.
    #[inline(always)]
    pub(crate) fn partial(&self) -> S {
        self.d.get()
    }

    /// A header's adjoint.
    #[inline(always)]
    pub(crate) fn adj(&self) -> S {
        self.d.get()
    }

    #[inline(always)]
    pub(crate) fn set_adj(&self, adj: S) {
        self.d.set(adj);
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
            .field("d", &self.d.get())
            .field("v", &self.value())
            .field("link", &self.link())
            .finish()
    }
}

/// A header's `link`: the operation and the operand count.
#[inline(always)]
pub(super) fn header_link(op: Op, count: usize) -> u32 {
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
                let h = Slot::EMPTY;
                h.put_header(1.5_f64, op, count);
                assert_eq!((h.op(), h.count()), (op, count));
            }
        }
    }
}
