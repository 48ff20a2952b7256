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

use crate::Scalar;

use super::{Slot, TapeView, HEADER};

/// The index of an input slot whose input depends on nothing recorded: never a slot (tapes hold
/// at most `2^31 - 1`, so the last index is `2^31 - 2`), and below [`HEADER`], so the slot is not
/// mistaken for a header.
pub(crate) const NO_OPERAND: u32 = HEADER - 1;

/// The `(index, partial)` pairs of one statement, in recording order.
pub(crate) struct Operands<'a, S> {
    /// The operand slots.
    slots: &'a [Slot<S>],
    /// The first weight of a neuron statement.
    w0: Option<u32>,
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
            let o = self.slots.get(self.i)?;
            let Some(w0) = self.w0 else {
                self.i += 1;
                return Some((o.link(), o.x()));
            };
            // The last slot (the bias) has a weight pair only.
            if self.weight_next || self.i + 1 == self.slots.len() {
                self.weight_next = false;
                self.i += 1;
                return Some((w0 + self.i as u32 - 1, o.adj()));
            }
            self.weight_next = true;
            if o.link() != NO_OPERAND {
                return Some((o.link(), o.x()));
            }
        }
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
            i: 0,
            weight_next: false,
        };
        let Some(head) = slots.get(h).filter(|s| s.is_header()) else {
            return empty;
        };
        let below = &slots[h - head.count().min(h)..h];
        Operands {
            slots: below,
            w0: below.last().filter(|_| head.is_ranged()).map(Slot::link),
            ..empty
        }
    }
}
