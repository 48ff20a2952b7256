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
///
/// ```
/// use autograd_core::{Tape, MAX_CAPACITY};
/// assert_eq!(MAX_CAPACITY, (1 << 31) - 1);
/// let _fits = Tape::<f32, 16>::new(); // a `Tape<S, N>` with N > MAX_CAPACITY does not compile
/// ```
pub const MAX_CAPACITY: usize = (HEADER - 1) as usize;
/// The most operands one statement's header can count: a statement with more (a `sum`, `dot` or
/// `affine` of millions of terms) is written as a chain of statements (`write.rs`, `spread`),
/// and a layer statement of more slots row by row.
pub(crate) const MAX_OPERANDS: usize = COUNT_MASK as usize;

/// How a tape lays out the slots of a scalar: implemented by every [`Scalar`] of this crate,
/// not meant to be implemented or used elsewhere.
///
/// A tape of `N` slots holds `N` units ([`Unit`](Self::Unit)). Where the values are *inline*
/// (`f32`, `Q16`, the dual numbers, [`Outlined`](crate::Outlined)) a unit is one [`Slot`] that
/// holds its value too. Where they are *apart* (`f64`) a unit is two slots' worth: the tape's
/// `N` units are read as `2 N` slots, the first `N` the slots the sweep reads (12 bytes each: a
/// header's adjoint or an operand's partial, and the link), the other `N` holding the value of
/// slot `i` in slot `N + i`. Either way [`split`](Self::split) gives the slots and, for each,
/// the slot its value is in (for values inline, the same).
#[doc(hidden)]
pub trait Layout: Copy + Send + Sized + 'static {
    /// Whether the values are apart (`f64`); else each slot holds its own.
    const APART: bool = false;
    /// A partial or adjoint as a slot stores it: the scalar itself, or `f64` as two 32-bit
    /// words (so that a slot of `f64` is 12 bytes, not 16).
    type Packed: Copy + Send;
    /// The value held in the slot: `Cell<Self>` inline, `()` apart.
    type Inline: Send;
    /// What the tape's array holds per slot: `[Slot<Self>; 1]` inline, `[Slot<Self>; 2]` apart.
    type Unit: Send;
    /// `0` as [`Packed`](Self::Packed).
    const PACKED_ZERO: Self::Packed;
    /// An empty inline value.
    #[allow(clippy::declare_interior_mutable_const)]
    const INLINE_EMPTY: Self::Inline;
    /// An empty unit.
    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY_UNIT: Self::Unit;
    /// The scalar as a slot stores it.
    fn pack(self) -> Self::Packed;
    /// The scalar a slot stored.
    fn unpack(packed: Self::Packed) -> Self;
    /// A tape's units as slots: the `N` slots (inline), or the `N` slots and the `N` that hold
    /// their values (apart).
    fn slots(units: &[Self::Unit]) -> &[Slot<Self>];
    /// [`slots`](Self::slots)'s result as the slots and the slots their values are in, the same
    /// length.
    fn split(all: &[Slot<Self>]) -> WithValues<'_, Self>;
    /// The value in `slot`, one of [`split`](Self::split)'s second half.
    fn value(slot: &Slot<Self>) -> Self;
    /// Sets the value in `slot`, one of [`split`](Self::split)'s second half.
    fn set_value(slot: &Slot<Self>, value: Self);
}

/// [`Layout`] for a scalar whose values are held in the slots.
macro_rules! inline_layout {
    ([$($gen:tt)*] $T:ty) => {
        impl<$($gen)*> $crate::tape::Layout for $T {
            type Packed = $T;
            type Inline = ::core::cell::Cell<$T>;
            type Unit = [$crate::tape::Slot<$T>; 1];
            const PACKED_ZERO: $T = <$T as $crate::Scalar>::ZERO;
            #[allow(clippy::declare_interior_mutable_const)]
            const INLINE_EMPTY: Self::Inline = ::core::cell::Cell::new(<$T as $crate::Scalar>::ZERO);
            #[allow(clippy::declare_interior_mutable_const)]
            const EMPTY_UNIT: Self::Unit = [$crate::tape::Slot::EMPTY; 1];
            #[inline(always)]
            fn pack(self) -> $T {
                self
            }
            #[inline(always)]
            fn unpack(packed: $T) -> $T {
                packed
            }
            #[inline(always)]
            fn slots(units: &[Self::Unit]) -> &[$crate::tape::Slot<$T>] {
                units.as_flattened()
            }
            #[inline(always)]
            fn split(
                all: &[$crate::tape::Slot<$T>],
            ) -> (&[$crate::tape::Slot<$T>], &[$crate::tape::Slot<$T>]) {
                (all, all)
            }
            #[inline(always)]
            fn value(slot: &$crate::tape::Slot<$T>) -> $T {
                slot.v.get()
            }
            #[inline(always)]
            fn set_value(slot: &$crate::tape::Slot<$T>, value: $T) {
                slot.v.set(value)
            }
        }
    };
}
pub(crate) use inline_layout;

/// `f64`'s values apart: a unit is two 12-byte slots, the swept one and the one holding a value
/// (in its partial's place; its link unused).
impl Layout for f64 {
    const APART: bool = true;
    type Packed = [u32; 2];
    type Inline = ();
    type Unit = [Slot<f64>; 2];
    const PACKED_ZERO: [u32; 2] = [0; 2];
    const INLINE_EMPTY: () = ();
    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY_UNIT: Self::Unit = [Slot::EMPTY; 2];
    #[inline(always)]
    fn pack(self) -> [u32; 2] {
        let bits = self.to_bits();
        [bits as u32, (bits >> 32) as u32]
    }
    #[inline(always)]
    fn unpack([lo, hi]: [u32; 2]) -> f64 {
        f64::from_bits(u64::from(lo) | u64::from(hi) << 32)
    }
    #[inline(always)]
    fn slots(units: &[Self::Unit]) -> &[Slot<f64>] {
        units.as_flattened()
    }
    #[inline(always)]
    fn split(all: &[Slot<f64>]) -> (&[Slot<f64>], &[Slot<f64>]) {
        all.split_at(all.len() / 2)
    }
    #[inline(always)]
    fn value(slot: &Slot<f64>) -> f64 {
        f64::unpack(slot.d.get())
    }
    #[inline(always)]
    fn set_value(slot: &Slot<f64>, value: f64) {
        slot.d.set(value.pack())
    }
}

/// Slots and, for each, the slot its value is in (the same slots where each holds its own).
pub(crate) type WithValues<'a, S> = (&'a [Slot<S>], &'a [Slot<S>]);

/// Where the value of `slot` is, given the slot [`Layout::split`] pairs with it, `apart`: that
/// slot where the values are apart, else `slot` itself (the same slot, but known to be so where
/// this is inlined: the hot loops then carry one slice, not two).
#[inline(always)]
pub(crate) fn held<'a, S: Scalar>(slot: &'a Slot<S>, apart: &'a Slot<S>) -> &'a Slot<S> {
    if S::APART {
        apart
    } else {
        slot
    }
}

/// [`held`] for slices of slots.
#[inline(always)]
pub(crate) fn held_all<'a, S: Scalar>(slots: &'a [Slot<S>], apart: &'a [Slot<S>]) -> &'a [Slot<S>] {
    if S::APART {
        apart
    } else {
        slots
    }
}

/// The bytes a tape of scalar `S` takes per slot: 12 for `f32` and `Q16`, 24 for `f64` (a
/// 12-byte slot, and its value apart in a slot of its own).
///
/// ```
/// assert_eq!(autograd_core::slot_bytes::<f32>(), 12);
/// assert_eq!(autograd_core::slot_bytes::<f64>(), 24);
/// ```
pub const fn slot_bytes<S: Scalar>() -> usize {
    core::mem::size_of::<S::Unit>()
}

/// One slot of the tape: a statement's header or one of its operands.
///
/// The sweep reads `d`, a header's adjoint or an operand's partial derivative, and `link`, a
/// header's operation and operand count or the index of the header an operand refers to. A
/// header's value, or the value of a layer statement's input (the partial with respect to each
/// row's weight for that input), is held where the scalar's [`Layout`] puts it: in the slot's
/// `v` (`f32`, `Q16`, the dual numbers) or in a slot apart (`f64`); the sweep reads values only
/// for a layer's weights and inputs. 12 bytes in `f32` (with its value) and in `f64` (without).
///
/// Each field is a [`Cell`] (which has the layout of what it holds), so a tape is written through
/// a shared reference without a borrow flag to test on every write, and a heap-placed tape can
/// be initialized slot by slot where it lies (`Tape::boxed`, feature `alloc`).
pub struct Slot<S: Layout> {
    pub(crate) v: S::Inline,
    pub(crate) d: Cell<S::Packed>,
    link: Cell<u32>,
}

impl<S: Scalar> Slot<S> {
    /// A fresh empty slot at each use (array repeats and in-place writes need a `const`).
    #[allow(clippy::declare_interior_mutable_const)]
    pub(crate) const EMPTY: Self = Slot {
        v: S::INLINE_EMPTY,
        d: Cell::new(S::PACKED_ZERO),
        link: Cell::new(0),
    };

    /// Writes a header (with a zero adjoint); its value goes to the slot [`Layout::split`]
    /// pairs with it (`put_value`).
    #[inline(always)]
    pub(crate) fn put_header(&self, op: Op, count: usize) {
        self.put(header_link(op, count));
    }

    /// Writes a row of a layer statement (see `operands.rs`): its `link` ([`layer_row_link`] for
    /// the first row, plus `j` for row `j`); its value goes where a header's does.
    #[inline(always)]
    pub(crate) fn put_layer_row(&self, link: u32) {
        self.put(link);
    }

    /// Writes an operand: the pair `(index, partial)`. (A layer statement's input slot is
    /// written by [`put_input`](Self::put_input).)
    #[inline(always)]
    pub(crate) fn put_operand(&self, index: u32, partial: S) {
        self.d.set(partial.pack());
        self.link.set(index);
    }

    /// Writes a layer statement's input slot (see `operands.rs`): its input's `index` and, where
    /// an operand holds its partial, the input's `value` (the partial of every row with respect
    /// to its weight for that input, which the sweep reads for every row: kept with the index,
    /// in the part of the slot a sweep reads). The input's own partial goes where a header's
    /// value does ([`set_input_partial`](Self::set_input_partial)).
    #[inline(always)]
    pub(crate) fn put_input(&self, index: u32, value: S) {
        self.d.set(value.pack());
        self.link.set(index);
    }

    /// A layer statement's input slot's value ([`put_input`](Self::put_input)).
    #[inline(always)]
    pub(crate) fn input_value(&self) -> S {
        S::unpack(self.d.get())
    }

    /// Sets a layer input's partial, in the place of a header's value (the slot must be one of
    /// [`Layout::split`]'s second half, as for [`set_value`](Self::set_value)).
    #[inline(always)]
    pub(crate) fn set_input_partial(&self, partial: S) {
        S::set_value(self, partial);
    }

    /// A layer input's partial ([`set_input_partial`](Self::set_input_partial)).
    #[inline(always)]
    pub(crate) fn input_partial(&self) -> S {
        S::value(self)
    }

    #[inline(always)]
    fn put(&self, link: u32) {
        self.d.set(S::PACKED_ZERO);
        self.link.set(link);
    }

    /// The value this slot holds (it must be one of [`Layout::split`]'s second half): a
    /// header's (for a layer's input slot, the input's partial:
    /// [`input_partial`](Self::input_partial)).
    #[inline(always)]
    pub(crate) fn value(&self) -> S {
        S::value(self)
    }

    /// Sets the value this slot holds (one of [`Layout::split`]'s second half).
    #[inline(always)]
    pub(crate) fn set_value(&self, value: S) {
        S::set_value(self, value);
    }

    /// An operand's partial derivative.
    #[inline(always)]
    pub(crate) fn partial(&self) -> S {
        S::unpack(self.d.get())
    }

    /// A header's adjoint.
    #[inline(always)]
    pub(crate) fn adj(&self) -> S {
        S::unpack(self.d.get())
    }

    #[inline(always)]
    pub(crate) fn set_adj(&self, adj: S) {
        self.d.set(adj.pack());
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
            .field("d", &self.adj())
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
        assert_eq!(core::mem::size_of::<Slot<f64>>(), 12);
        assert_eq!(slot_bytes::<f32>(), 12);
        assert_eq!(slot_bytes::<f64>(), 24);
    }

    #[test]
    fn debug_shows_what_the_sweep_reads() {
        let operand = Slot::<f64>::EMPTY;
        operand.put_operand(7, 2.5);
        assert_eq!(format!("{operand:?}"), "Slot { d: 2.5, link: 7 }");
        let header = Slot::<f32>::EMPTY;
        header.put_header(Op::Mul, 2);
        header.set_adj(-1.5);
        // The header bit, the operation's code in bits 24..30, the count in the low bits.
        let link = (1u32 << 31) | ((Op::Mul as u32) << 24) | 2;
        assert_eq!(
            format!("{header:?}"),
            format!("Slot {{ d: -1.5, link: {link} }}")
        );
    }

    #[test]
    fn headers_round_trip_op_and_count() {
        for &op in Op::ALL {
            for count in [0, 1, 4, MAX_OPERANDS] {
                let h = Slot::<f64>::EMPTY;
                h.put_header(op, count);
                assert_eq!((h.op(), h.count()), (op, count));
            }
        }
    }
}
