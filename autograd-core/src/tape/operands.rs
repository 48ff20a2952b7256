//! Reading a statement's operands, in both layouts a statement can have.
//!
//! A plain statement of `k` operands is `k` slots `(index, partial)` below its header.
//!
//! A *neuron statement* (`w · x + b` whose weights and bias are consecutive statements
//! `w0, w0 + 1, ..., w0 + k`, as a network's parameters recorded in order are) is written with
//! its weights implied, one slot per input instead of two, and as many slots as a plain statement
//! when no input is recorded:
//!
//! ```text
//! [x_0's index, w_0 p_0 | x_0] ... [x_{k-1}'s index, w_{k-1} p_{k-1} | x_{k-1}] [w0, 0 | 1] [header, RANGED]
//! ```
//!
//! Slot `i < k` holds the pair of input `i` (the index its handle depends on, or [`NO_OPERAND`]
//! for an input that depends on nothing recorded, and that partial times the weight) and, in the
//! place of an adjoint, the partial with respect to weight `w0 + i`: the input's value. The last
//! slot names `w0` and holds the bias's partial, 1, in the same place (its own partial is 0, so
//! even a reader of plain operands would add nothing). Every walker over operands (the sweep,
//! NaN provenance, Graphviz export, [`TapeView::for_each_operand`]) reads them through
//! [`TapeView::operands`], which yields each slot's pairs in that order (input, then weight);
//! the sweep inlines the same order.
//!
//! A *layer statement* (`m` neurons over the same `k` inputs, their rows of weights and bias the
//! consecutive statements `w0 .. w0 + m (k + 1)`) writes the inputs once and a header per row:
//!
//! ```text
//! [x_0's index, p_0 | x_0] ... [x_{k-1}'s index, p_{k-1} | x_{k-1}] [w0, 0 | 0] [row 0, LAYER] ... [row m-1, LAYER]
//! ```
//!
//! Row `j` is the statement `y_j = w_j · x + b_j`, with the operands a neuron statement would
//! have: for each input its pair `(index, p_i w_ji)` then `(w0 + j (k + 1) + i, x_i)`, and last
//! `(w0 + j (k + 1) + k, 1)`. `p_i` is the input's pending partial; `w_ji`, the weight's value,
//! is read from the weight's own slot. A row's count reaches down to the first input slot
//! (`k + 1 + j`), so the slots of a row are not all below it: a walk down the tape goes from row
//! `j > 0` to row `j - 1` ([`TapeView::next_below`]).

use crate::Scalar;

use super::{Slot, TapeView, HEADER};

/// The index of an input slot whose input depends on nothing recorded: never a slot (tapes hold
/// at most `2^31 - 1`, so the last index is `2^31 - 2`), and below [`HEADER`], so the slot is not
/// mistaken for a header.
pub(crate) const NO_OPERAND: u32 = HEADER - 1;

/// The `(index, partial)` pairs of one statement, in recording order.
pub(crate) struct Operands<'a, S> {
    /// The operand slots (a layer row: its statement's input slots).
    slots: &'a [Slot<S>],
    /// The first weight of a neuron statement or of a layer row.
    w0: Option<u32>,
    /// A layer row's weights and bias (the slots of their statements, for their values).
    row: Option<&'a [Slot<S>]>,
    /// The next slot to read.
    i: usize,
    /// `true` when slot `i`'s input pair was given (or there is none) and its weight pair comes
    /// next.
    weight_next: bool,
}

impl<S: Scalar> Iterator for Operands<'_, S> {
    type Item = (u32, S);

    fn next(&mut self) -> Option<(u32, S)> {
        loop {
            let Some(w0) = self.w0 else {
                let o = self.slots.get(self.i)?;
                self.i += 1;
                return Some((o.link(), o.x()));
            };
            let weight = w0 + self.i as u32;
            let Some(o) = self.slots.get(self.i) else {
                // A layer row's bias comes after its inputs.
                self.row?;
                self.w0 = None;
                self.slots = &[];
                return Some((weight, S::ONE));
            };
            // The last slot of a neuron statement (the bias) has a weight pair only.
            if self.weight_next || (self.row.is_none() && self.i + 1 == self.slots.len()) {
                self.weight_next = false;
                self.i += 1;
                return Some((weight, o.adj()));
            }
            self.weight_next = true;
            if o.link() != NO_OPERAND {
                let partial = match self.row {
                    Some(row) => o.x() * row.get(self.i).map_or(S::ZERO, Slot::x),
                    None => o.x(),
                };
                return Some((o.link(), partial));
            }
        }
    }
}

/// Where a layer statement's parts are, from one of its rows.
#[derive(Clone, Copy)]
pub(crate) struct Layer {
    /// The first input slot.
    pub(crate) base: usize,
    /// The slot naming the first weight (after the `k` input slots).
    pub(crate) info: usize,
    /// The header of row 0 (`info + 1`).
    pub(crate) first: usize,
}

impl Layer {
    /// Row `r`'s first weight, for a statement whose first weight is `w0`.
    #[inline(always)]
    pub(crate) fn row_start(&self, w0: usize, r: usize) -> usize {
        w0 + (r - self.first) * (self.info - self.base + 1)
    }
}

impl<S: Scalar> TapeView<S> {
    /// The operands of the statement whose header is slot `h` (none if `h` is not a header in
    /// use).
    pub(crate) fn operands(&self, h: usize) -> Operands<'_, S> {
        let slots = self.slots();
        let empty = Operands {
            slots: &[],
            w0: None,
            row: None,
            i: 0,
            weight_next: false,
        };
        let Some(head) = slots.get(h).filter(|s| s.is_header()) else {
            return empty;
        };
        if head.is_layer() {
            let l = layer_of(slots, h);
            let w0 = slots[l.info].link() as usize;
            let start = l.row_start(w0, h);
            let k = l.info - l.base;
            return Operands {
                slots: &slots[l.base..l.info],
                w0: Some(start as u32),
                row: slots.get(start..=start + k),
                ..empty
            };
        }
        let below = &slots[h - head.count().min(h)..h];
        Operands {
            slots: below,
            w0: below.last().filter(|_| head.is_ranged()).map(Slot::link),
            ..empty
        }
    }

    /// Where a walk down the tape goes after the statement whose header is `h`: the returned
    /// `p` is one past the next header it visits (`p - 1`), below `h`'s operands, or, from a
    /// layer row above the first, the row below.
    pub(crate) fn next_below(&self, h: usize) -> usize {
        let slots = self.slots();
        let Some(head) = slots.get(h) else { return h };
        if head.is_layer() && h > 0 && slots[h - 1].is_header() {
            h
        } else {
            h - head.count().min(h)
        }
    }
}

/// The layer statement row `h` belongs to. Its rows are consecutive headers above the slot naming
/// its first weight, which is not a header (`O(j)` for row `j`).
#[inline]
pub(crate) fn layer_of<S: Scalar>(slots: &[Slot<S>], h: usize) -> Layer {
    let base = h - slots[h].count().min(h);
    let mut first = h;
    while first > base + 1 && slots[first - 1].is_header() {
        first -= 1;
    }
    Layer {
        base,
        info: first - 1,
        first,
    }
}
