//! Where a layer's writer reads its rows' parameters ([`Source`]): handles tested one by one
//! ([`Rows`]), or leaves checked once ([`Leaves`]), a row at a time or four side by side.

use crate::tape::{Leaves, Slot, TapeView};
use crate::{Scalar, Var};

use crate::var::address;

/// Where a layer's writer reads an input's value: its handle, or the input slot written for it
/// (which holds the input's value where an operand holds its partial, `operands.rs`).
pub(in crate::var) trait Input<S> {
    /// The input's value.
    fn value(&self) -> S;
}

impl<S: Scalar> Input<S> for Var<'_, S> {
    #[inline(always)]
    fn value(&self) -> S {
        self.value
    }
}

impl<S: Scalar> Input<S> for Slot<S> {
    #[inline(always)]
    fn value(&self) -> S {
        self.input_value()
    }
}

/// Where the layer's writer (`write`) reads its rows' parameters: handles, each tested to be
/// the tape's next consecutive statement ([`Rows`]), or leaves checked once ([`Leaves`]). A
/// copy is a cursor over the rows: each call of `next_row` or `next_four` reads the next rows
/// and leaves the rest (one split per call, where indexing row `j` multiplied and tested both
/// ends of its range).
pub(super) trait Source<'t, S: Scalar>: Copy {
    /// The tape and the index of the first parameter, or `None` where the parameters cannot be
    /// a layer statement's.
    fn start(self) -> Option<(&'t TapeView<S>, u32)>;
    /// The next row `j` over the inputs `x`: `b_j + w_j0 x_0 + w_j1 x_1 + ...` (in
    /// `Number::affine`'s order) and whether its parameters are the statements `first ..
    /// first + k` of `t` (`first = w0 + j (k + 1)`), the weights then the bias; `None` if there
    /// is no row left.
    fn next_row<X: Input<S>>(
        &mut self,
        x: &[X],
        t: &'t TapeView<S>,
        first: u32,
    ) -> Option<(S, bool)>;
    /// The next four rows as [`next_row`](Self::next_row) reads one, summed side by side, each
    /// in its own order (the same values): each input read once for the four, and four sums
    /// that do not wait on each other. `None` if fewer than four rows are left.
    fn next_four<X: Input<S>>(
        &mut self,
        x: &[X],
        t: &'t TapeView<S>,
        first: u32,
    ) -> Option<([S; 4], bool)>;
}

/// Parameters as handles: each row's weights then its bias in `params`, or, with `bias`, the one
/// row of weights `params` and that bias.
#[derive(Clone, Copy)]
pub(super) struct Rows<'a, 't, S: Scalar> {
    pub(super) params: &'a [Var<'t, S>],
    pub(super) bias: Option<&'a Var<'t, S>>,
}

impl<'t, S: Scalar> Source<'t, S> for Rows<'_, 't, S> {
    #[inline(always)]
    fn start(self) -> Option<(&'t TapeView<S>, u32)> {
        let first = self.params.first()?;
        first
            .tape
            .filter(|_| first.meta.node())
            .map(|t| (t, first.index[0]))
    }

    /// Each parameter tested to be the expected statement of this tape (one test for all,
    /// without a branch per parameter, in the pass that reads their values).
    #[inline(always)]
    fn next_row<X: Input<S>>(
        &mut self,
        x: &[X],
        t: &'t TapeView<S>,
        first: u32,
    ) -> Option<(S, bool)> {
        let k = x.len();
        let (w, rest) = self.params.split_at_checked(k)?;
        let (b, rest) = match self.bias {
            Some(b) => (b, rest),
            None => rest.split_first()?,
        };
        self.params = rest;
        // (Tapes compared by address, 0 for none: one comparison.)
        let tape = address(Some(t));
        let is = |v: &Var<'t, S>, index: u32| {
            v.meta.node() & (address(v.tape) == tape) & (v.index[0] == index)
        };
        let mut consecutive = is(b, first.wrapping_add(k as u32));
        let mut value = b.value;
        for i in 0..k {
            consecutive &= is(&w[i], first.wrapping_add(i as u32));
            value += w[i].value * x[i].value();
        }
        Some((value, consecutive))
    }

    #[inline(always)]
    fn next_four<X: Input<S>>(
        &mut self,
        x: &[X],
        t: &'t TapeView<S>,
        first: u32,
    ) -> Option<([S; 4], bool)> {
        let k = x.len();
        // Four rows of handles, each its weights then its bias. With `bias`, `params` is one
        // row's `k` weights, too few for the split; the test of `bias` says so again, and the
        // reader without it took 0.8 % more instructions on the moons loss (callgrind,
        // `examples/profile moons`: 1,082,429 against 1,073,929).
        let (rows, rest) = self.params.split_at_checked(4 * (k + 1))?;
        if self.bias.is_some() {
            return None;
        }
        self.params = rest;
        let (w0, rows) = rows.split_at(k + 1);
        let (w1, rows) = rows.split_at(k + 1);
        let (w2, w3) = rows.split_at(k + 1);
        let tape = address(Some(t));
        let is = |v: &Var<'t, S>, index: u32| {
            v.meta.node() & (address(v.tape) == tape) & (v.index[0] == index)
        };
        let stride = k as u32 + 1;
        let at = |r: u32, i: usize| first.wrapping_add(r * stride).wrapping_add(i as u32);
        let bias = |w: &[Var<'t, S>], r: u32| w.get(k).map(|b| (b.value, is(b, at(r, k))));
        let [(v0, b0), (v1, b1), (v2, b2), (v3, b3)] =
            [bias(w0, 0)?, bias(w1, 1)?, bias(w2, 2)?, bias(w3, 3)?];
        let (mut value, mut consecutive) = ([v0, v1, v2, v3], b0 & b1 & b2 & b3);
        let weights = w0.iter().zip(w1).zip(w2).zip(w3);
        for (i, (xi, (((a, b), c), d))) in x.iter().zip(weights).enumerate() {
            consecutive &= is(a, at(0, i)) & is(b, at(1, i)) & is(c, at(2, i)) & is(d, at(3, i));
            let xi = xi.value();
            value[0] += a.value * xi;
            value[1] += b.value * xi;
            value[2] += c.value * xi;
            value[3] += d.value * xi;
        }
        Some((value, consecutive))
    }
}

impl<'t, S: Scalar> Source<'t, S> for Leaves<'t, S> {
    #[inline(always)]
    fn start(self) -> Option<(&'t TapeView<S>, u32)> {
        Some((self.tape(), self.first_index()))
    }

    /// The weights' values read from their slots: leaves checked once, when `self` was made.
    #[inline(always)]
    fn next_row<X: Input<S>>(&mut self, x: &[X], _: &'t TapeView<S>, _: u32) -> Option<(S, bool)> {
        let k = x.len();
        let (w, b) = self.take_front(k + 1)?.split_at(k);
        let mut value = b.first()?.value();
        for i in 0..k {
            value += w[i].value() * x[i].value();
        }
        Some((value, true))
    }

    #[inline(always)]
    fn next_four<X: Input<S>>(
        &mut self,
        x: &[X],
        _: &'t TapeView<S>,
        _: u32,
    ) -> Option<([S; 4], bool)> {
        let k = x.len();
        let rows = self.take_front(4 * (k + 1))?;
        let (w0, rows) = rows.split_at(k + 1);
        let (w1, rows) = rows.split_at(k + 1);
        let (w2, w3) = rows.split_at(k + 1);
        let bias = |w: &[Slot<S>]| w.get(k).map(Slot::value);
        let mut value = [bias(w0)?, bias(w1)?, bias(w2)?, bias(w3)?];
        let weights = w0.iter().zip(w1).zip(w2).zip(w3);
        for (xi, (((a, b), c), d)) in x.iter().zip(weights) {
            let xi = xi.value();
            value[0] += a.value() * xi;
            value[1] += b.value() * xi;
            value[2] += c.value() * xi;
            value[3] += d.value() * xi;
        }
        Some((value, true))
    }
}
