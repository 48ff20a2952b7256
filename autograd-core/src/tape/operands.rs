//! Reading a statement's operands, in both layouts a statement can have.
//!
//! A plain statement of `k` operands is `k` slots `(index, partial)` below its header.
//!
//! A *layer statement* (`m` neurons `y_j = w_j · x + b_j` over the same `k` inputs, their rows of
//! weights and bias the consecutive statements `w0 .. w0 + m (k + 1)`, as a network's parameters
//! recorded in order are) writes the inputs once and a header per row; a single neuron is a layer
//! of one row:
//!
//! ```text
//! [x_0's index, x_0 | p_0] ... [x_{k-1}'s index, x_{k-1} | p_{k-1}] [w0, 0 | 0] [row 0, LAYER] ... [row m-1, LAYER]
//! ```
//!
//! Input slot `i` holds the index input `i`'s handle depends on (or [`NO_OPERAND`] for an input
//! that depends on nothing recorded) and, in the place of an operand's partial, the input's
//! value `x_i`, the partial of every row with respect to its weight for that input: the sweep
//! reads it with the index for every row, so it is in the part of the slot a sweep reads
//! (`Slot::put_input`). The input's pending partial `p_i` is in the place of a header's value
//! (`Layout`: in the slot, or apart). The next slot names `w0`. Row `j` is the statement
//! `y_j`, with the operands a plain statement of it would have: for each input its pair
//! `(index, p_i w_ji)` then `(w0 + j (k + 1) + i, x_i)`, and last the bias's,
//! `(w0 + j (k + 1) + k, 1)`. The weight's value `w_ji` is read from the weight's own slot, so
//! `p_i w_ji` is formed where it is read, as the general write would have formed and stored it.
//! (Where `p_i` was in the swept part and `x_i` where a header's value goes, as an operand's
//! partial and a header's value are, a `Trainer` step took 500,960 instructions; like this,
//! 496,115, by callgrind on `examples/profile trainer`: the sweep's loops over a layer's inputs
//! read one slice fewer.)
//!
//! A row's count reaches down to the first input slot (`k + 1 + j`), so not every slot below a
//! row down to there is its own: a walk down the tape goes from row `j > 0` to row `j - 1`
//! ([`TapeView::next_below`]). Every walker over operands (NaN provenance, Graphviz export,
//! [`TapeView::for_each_operand`]) reads them through [`TapeView::operands`]; the sweep inlines
//! the same order.

use crate::Scalar;

use super::{Slot, TapeView, HEADER};

/// The index of an input slot whose input depends on nothing recorded: never a slot (tapes hold
/// at most `2^31 - 1`, so the last index is `2^31 - 2`), and below [`HEADER`], so the slot is not
/// mistaken for a header.
pub(crate) const NO_OPERAND: u32 = HEADER - 1;
// The sweep skips such an input by its bounds test alone (`backward.rs`, `sweep_layer`).
const _: () = assert!(NO_OPERAND as usize >= super::MAX_CAPACITY);

/// The `(index, partial)` pairs of one statement, in recording order.
pub(crate) struct Operands<'a, S: Scalar> {
    /// The operand slots (a layer row: its statement's input slots).
    slots: &'a [Slot<S>],
    /// A layer row's: the slots its inputs' partials are in, as many as `slots` (`Layout`).
    inputs: &'a [Slot<S>],
    /// A layer row's weights and bias (the slots their statements' values are in) and the
    /// index of the first.
    row: Option<(&'a [Slot<S>], u32)>,
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
            let Some((row, w0)) = self.row else {
                let o = self.slots.get(self.i)?;
                self.i += 1;
                return Some((o.link(), o.partial()));
            };
            let weight = w0 + self.i as u32;
            let Some(o) = self.slots.get(self.i) else {
                // The bias comes after the inputs, and ends the row.
                self.row = None;
                self.slots = &[];
                return Some((weight, S::ONE));
            };
            if self.weight_next {
                self.weight_next = false;
                let x = o.input_value();
                self.i += 1;
                return Some((weight, x));
            }
            self.weight_next = true;
            if o.link() != NO_OPERAND {
                let w = row.get(self.i).map_or(S::ZERO, Slot::value);
                let p = self.inputs.get(self.i).map_or(S::ZERO, Slot::input_partial);
                return Some((o.link(), p * w));
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
        let (slots, values) = (self.slots(), self.values());
        let empty = Operands {
            slots: &[],
            inputs: &[],
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
                inputs: &values[l.base..l.info],
                row: Some((values.get(start..=start + k).unwrap_or(&[]), start as u32)),
                ..empty
            };
        }
        Operands {
            slots: &slots[h - head.count().min(h)..h],
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

/// The layer statement row `h` belongs to. A row below `ROW_PLACES` holds its place `j` in its
/// link (`tape/slot.rs`, `layer_row_link`): the first row is `j` below. Above, the first row is
/// found by bisection (`O(log(k + j))` for row `j` of `k` inputs): the rows are consecutive headers
/// above the slot naming the first weight, which is not a header, as the input slots below it
/// are not. By callgrind on `examples/profile` (`trainer 3` and `5` over 2, `moons 3` and `13`
/// over 10), against bisection for every row: a `Trainer` step 509,774 -> 502,741
/// instructions, the moons loss 980,250 -> 964,917.
#[inline]
pub(crate) fn layer_of<S: Scalar>(slots: &[Slot<S>], h: usize) -> Layer {
    let base = h - slots[h].count().min(h);
    // A row below `ROW_PLACES` holds its place: the first row is that many below.
    if let Some(j) = slots[h].row_place() {
        let first = h - j.min(h);
        return Layer {
            base,
            info: first - 1,
            first,
        };
    }
    // The slots below `h` down to the second input slot: the inputs' and the one naming `w0`
    // (`k >= 2` of them, none a header) and then the rows below `h`. By callgrind on
    // `examples/profile` (`trainer 3`/`5`, `moons 3`/`13`), against a walk down the rows: a
    // `Trainer` step 552,033 -> 548,129 instructions, the moons loss 1,024,217 -> 1,020,313.
    let below = slots.get(base + 1..h).unwrap_or(&[]);
    let first = base + 1 + below.partition_point(|s| !s.is_header());
    Layer {
        base,
        info: first - 1,
        first,
    }
}
