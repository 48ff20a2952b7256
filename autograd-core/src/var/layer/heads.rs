//! Where a layer's row sums go ([`RowSink`]): a layer statement's row headers ([`Heads`]), or
//! any `FnMut(row, value)`.

use crate::tape::{held_all, layer_row_link, row_step, Slot, ROW_PLACES, ROW_STEP};
use crate::Scalar;

/// Takes the rows' sums as `sums` makes them: one at a time, or four side by side.
pub(super) trait RowSink<S> {
    /// Row `j`'s sum.
    fn one(&mut self, j: usize, value: S);

    /// The sums of rows `j..j + 4`.
    #[inline(always)]
    fn four(&mut self, j: usize, values: [S; 4]) {
        for (i, value) in values.into_iter().enumerate() {
            self.one(j + i, value);
        }
    }
}

impl<S, F: FnMut(usize, S)> RowSink<S> for F {
    #[inline(always)]
    fn one(&mut self, j: usize, value: S) {
        self(j, value);
    }
}

/// The row headers of a layer statement of `k` inputs: row `j`'s value and `link`, the first
/// row's plus `row_step(j)`. Four rows are written with one range test and no product per row. By
/// callgrind on `examples/profile` (`trainer 3` and `5` over 2, `moons 3` and `13` over 10),
/// against each row written as `heads[j]` with its link made from its count: a `Trainer` step
/// 579,026 -> 566,026 instructions, the moons loss over handles 1,043,501 -> 1,032,301.
pub(super) struct Heads<'a, S: Scalar> {
    heads: &'a [Slot<S>],
    /// The slots the rows' values are in (`Layout`), as many.
    values: &'a [Slot<S>],
    first: u32,
}

impl<'a, S: Scalar> Heads<'a, S> {
    /// The headers `heads` of a layer statement of `k` inputs, their values going to `values`.
    #[inline(always)]
    pub(super) fn new(heads: &'a [Slot<S>], values: &'a [Slot<S>], k: usize) -> Self {
        Heads {
            heads,
            values: held_all(heads, values),
            first: layer_row_link(k),
        }
    }
}

impl<S: Scalar> RowSink<S> for Heads<'_, S> {
    #[inline(always)]
    fn one(&mut self, j: usize, value: S) {
        if let (Some(head), Some(held)) = (self.heads.get(j), self.values.get(j)) {
            head.put_layer_row(self.first + row_step(j));
            held.set_value(value);
        }
    }

    #[inline(always)]
    fn four(&mut self, j: usize, values: [S; 4]) {
        if let (Some(four), Some(held)) = (self.heads.get(j..j + 4), self.values.get(j..j + 4)) {
            for (held, value) in held.iter().zip(values) {
                held.set_value(value);
            }
            if j + 4 > ROW_PLACES as usize {
                for (i, head) in four.iter().enumerate() {
                    head.put_layer_row(self.first + row_step(j + i));
                }
                return;
            }
            let link = self.first + j as u32 * ROW_STEP;
            for (head, i) in four.iter().zip(0..) {
                head.put_layer_row(link + i * ROW_STEP);
            }
        }
    }
}
