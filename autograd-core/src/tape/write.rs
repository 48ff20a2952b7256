//! Writing slots: leaves and statements, each with one capacity test, and the sticky error
//! when they do not fit.

use crate::op::Op;
use crate::TapeError;

use super::{Scalar, Slot, TapeView, WithValues, MAX_OPERANDS, POISON};

/// A tape's recording state ([`TapeView::recording`]).
#[derive(Clone, Copy)]
pub(crate) struct Recording {
    len: u32,
    error: Option<TapeError>,
    overflow: u32,
}

/// The slots of a chain of statements over `count > max` operands ([`TapeView::spread`]): the
/// first part holds `max` operands, each next one a link and at most `max - 1` more, each part
/// a header. (`max` is [`MAX_OPERANDS`], what a header counts; the tests take smaller ones, so
/// that chains of many parts fit a small tape.)
fn chain_size(count: usize, max: usize) -> usize {
    let parts = 1 + count.saturating_sub(max).div_ceil(max - 1);
    count + 2 * parts - 1
}

impl<S: Scalar> TapeView<S> {
    /// Records the first failure; later ones keep the first.
    #[cold]
    pub(crate) fn fail(&self, e: TapeError) -> u32 {
        if self.error.get().is_none() {
            self.error.set(Some(e));
        }
        POISON
    }

    /// A write of `size` slots did not fit.
    #[cold]
    #[inline(never)]
    pub(crate) fn full(&self, size: usize) -> u32 {
        let capacity = self.capacity();
        let size = u32::try_from(size).unwrap_or(u32::MAX);
        self.overflow.set(self.overflow.get().saturating_add(size));
        self.fail(TapeError::CapacityExceeded {
            capacity,
            needed: 0, // filled in by `check`
        })
    }

    /// Appends a leaf and returns its index, or `POISON` (and records why) if it cannot.
    #[inline]
    pub(crate) fn push_leaf(&self, value: S) -> u32 {
        let len = self.len.get();
        match self.free(len as usize, 1) {
            Some((s, v)) => {
                s[0].put_header(Op::Leaf, 0);
                v[0].set_value(value);
                self.len.set(len + 1);
                self.extend_leaf_run(len, len + 1);
                len
            }
            None => self.full(1),
        }
    }

    /// Appends a statement with the first `n <= 4` of `operands` and returns the index of its
    /// header, or `POISON` if it cannot. Writes a fixed five slots when they fit (one capacity
    /// test, no loop), so the common case has no data-dependent branch.
    #[inline]
    pub(crate) fn push4(&self, op: Op, value: S, operands: [(u32, S); 4], n: usize) -> u32 {
        let len = self.len.get() as usize;
        let n = n.min(4);
        if let Some((w, v)) = self.free(len, 5) {
            for k in 0..4 {
                w[k].put_operand(operands[k].0, operands[k].1);
            }
            w[n].put_header(op, n);
            v[n].set_value(value);
        } else if let Some((w, v)) = self.free(len, n + 1) {
            for k in 0..n {
                w[k].put_operand(operands[k].0, operands[k].1);
            }
            w[n].put_header(op, n);
            v[n].set_value(value);
        } else {
            return self.full(n + 1);
        }
        self.len.set((len + n + 1) as u32);
        (len + n) as u32
    }

    /// Appends a statement of exactly `N` operands; `POISON` if it does not fit.
    #[inline(always)]
    pub(crate) fn push_n<const N: usize>(&self, op: Op, value: S, operands: [(u32, S); N]) -> u32 {
        let len = self.len.get() as usize;
        match self.free(len, N + 1) {
            Some((w, v)) => {
                for k in 0..N {
                    w[k].put_operand(operands[k].0, operands[k].1);
                }
                w[N].put_header(op, N);
                v[N].set_value(value);
                self.len.set((len + N + 1) as u32);
                (len + N) as u32
            }
            None => self.full(N + 1),
        }
    }

    /// Appends a statement with `nx` operands from `x` followed by `ny` from `y` (each at most
    /// 2): the merge of two handles' pending pairs. Writes a fixed five slots when they fit.
    #[inline(always)]
    pub(crate) fn push_merge(
        &self,
        op: Op,
        value: S,
        x: [(u32, S); 2],
        nx: usize,
        y: [(u32, S); 2],
        ny: usize,
    ) -> u32 {
        let len = self.len.get() as usize;
        let (nx, ny) = (nx & 3, ny & 3);
        let n = (nx + ny).min(4);
        match self.free(len, 5) {
            Some((w, v)) if nx <= 2 && ny <= 2 => {
                w[0].put_operand(x[0].0, x[0].1);
                w[1].put_operand(x[1].0, x[1].1);
                w[nx].put_operand(y[0].0, y[0].1);
                w[nx + 1].put_operand(y[1].0, y[1].1);
                w[n].put_header(op, n);
                v[n].set_value(value);
            }
            _ => {
                let z = (0, S::ZERO);
                let mut operands = [x[0], x[1], z, z];
                operands[nx.min(2)] = y[0];
                operands[(nx + 1).min(3)] = y[1];
                return self.push4(op, value, operands, n);
            }
        }
        self.len.set((len + n + 1) as u32);
        (len + n) as u32
    }

    /// Appends a statement of at most `count` operands, written by `fill` into the slice it is
    /// given (it returns how many it wrote); returns the header's index or `POISON`. A
    /// statement of more operands than a header counts ([`MAX_OPERANDS`]) becomes a chain of
    /// statements ([`spread`](Self::spread)).
    #[inline]
    pub(crate) fn push_with(
        &self,
        op: Op,
        value: S,
        count: usize,
        fill: impl FnOnce(&[Slot<S>]) -> usize,
    ) -> u32 {
        self.push_in_parts_of::<MAX_OPERANDS>(op, value, count, fill)
    }

    /// [`push_with`](Self::push_with) for statements of at most `MAX` operands a part.
    #[inline(always)]
    fn push_in_parts_of<const MAX: usize>(
        &self,
        op: Op,
        value: S,
        count: usize,
        fill: impl FnOnce(&[Slot<S>]) -> usize,
    ) -> u32 {
        let len = self.len.get() as usize;
        let size = if count > MAX {
            chain_size(count, MAX)
        } else {
            count + 1
        };
        let Some((w, v)) = self.free(len, size) else {
            return self.full(size);
        };
        let k = fill(&w[..count]).min(count);
        if k > MAX {
            return self.spread::<MAX>(w, v, len, k, value, op);
        }
        w[k].put_header(op, k);
        v[k].set_value(value);
        self.len.set((len + k + 1) as u32);
        (len + k) as u32
    }

    /// Turns the `k > MAX` operands written from slot `len` on into a chain of statements, each
    /// of at most `MAX` operands ([`MAX_OPERANDS`] but in the tests): each part after the first
    /// takes the one before as its first operand, with partial 1, and every part holds `value`
    /// (they are one statement in parts: the sweep sends each part's adjoint on to the part below
    /// it). The operands past the first part move up to make room for the parts' headers and links
    /// ([`chain_size`] slots in all, within the `w` that [`push_with`](Self::push_with) took
    /// from `len` for its `count >= k`). Returns the last header's index. (Cold and out of line:
    /// one copy per scalar type, for a path no microcontroller's tape can reach.)
    #[cold]
    #[inline(never)]
    fn spread<const MAX: usize>(
        &self,
        w: &[Slot<S>],
        v: &[Slot<S>],
        len: usize,
        k: usize,
        value: S,
        op: Op,
    ) -> u32 {
        // (`chain_size` grows with the count: `w` holds at least this many.)
        let size = chain_size(k, MAX).min(w.len());
        let w = &w[..size];
        // Part p >= 1 is the MAX + 1 slots from p (MAX + 1): its link, its operands (each 2 p
        // slots above where it was written), its header; the last part may be shorter. Filled
        // from the top down, so no operand is overwritten before it moves.
        let per = MAX + 1;
        let last = size - 1;
        for (d, (slot, held)) in w.iter().zip(v).enumerate().skip(MAX).rev() {
            let (part, at) = (d / per, d % per);
            if d == last {
                slot.put_header(op, at);
                held.set_value(value);
            } else if at == MAX {
                slot.put_header(op, MAX);
                held.set_value(value);
            } else if at == 0 {
                slot.put_operand((len + d - 1) as u32, S::ONE);
            } else if let Some(from) = w.get(d - 2 * part) {
                slot.put_operand(from.link(), from.partial());
            }
        }
        self.len.set((len + size) as u32);
        (len + last) as u32
    }

    /// The `size` slots after the last one in use, if they fit, to be written and then kept by
    /// [`commit`](Self::commit) (a write abandoned before it leaves the tape as it was).
    #[inline(always)]
    pub(crate) fn free_slots(&self, size: usize) -> Option<WithValues<'_, S>> {
        self.free(self.len(), size)
    }

    /// Slots `from .. from + size` of the capacity and the slots their values are in, if they
    /// fit (one test: the two are as long as each other).
    #[inline(always)]
    pub(crate) fn free(&self, from: usize, size: usize) -> Option<WithValues<'_, S>> {
        let (slots, values) = self.parts();
        let range = from..from.checked_add(size)?;
        Some((slots.get(range.clone())?, values.get(range)?))
    }

    /// What recording changes besides the slots past the end: taken before a write that may be
    /// given up ([`forget_since`](Self::forget_since)).
    #[inline]
    pub(crate) fn recording(&self) -> Recording {
        Recording {
            len: self.len.get(),
            error: self.error.get(),
            overflow: self.overflow.get(),
        }
    }

    /// Forgets everything recorded since `then` was taken, as if it had not been: the length,
    /// the sticky error and the count of slots that did not fit as they were (the slots past
    /// the end are never read, and every write fills the slots it takes). Only for writers that
    /// let no handle to what they wrote escape.
    #[cold]
    pub(crate) fn forget_since(&self, then: Recording) {
        self.shorten(then.len.min(self.len.get()));
        self.error.set(then.error);
        self.overflow.set(then.overflow);
    }

    /// `true` if something was written, or asked for room that it did not find, since `then`
    /// was taken: the slots in use or the count of slots that did not fit changed (the error is
    /// left out: it is sticky, so it may not change, and what sets it does not write).
    #[inline(always)]
    pub(crate) fn wrote_since(&self, then: &Recording) -> bool {
        self.len.get() != then.len || self.overflow.get() != then.overflow
    }

    /// Keeps the next `size` slots, written through [`free_slots`](Self::free_slots).
    #[inline(always)]
    pub(crate) fn commit(&self, size: usize) {
        self.len.set(self.len.get() + size as u32);
    }

    /// The first two slots from `at` as operands `(index, partial)`, `(POISON, 0)` past the end.
    #[inline]
    pub(crate) fn operands_at(&self, at: usize) -> [(u32, S); 2] {
        let read = |i: usize| {
            self.parts()
                .0
                .get(i)
                .map_or((POISON, S::ZERO), |s| (s.link(), s.partial()))
        };
        [read(at), read(at + 1)]
    }

    /// Takes back everything written after slot `len` (a statement written optimistically and
    /// not needed). Nothing refers to those slots yet. (At `len` equal to the length, shortening
    /// changes nothing: the mutant `<=` for `<` survives.)
    pub(crate) fn take_back(&self, len: usize) {
        if len < self.len() {
            self.shorten(len as u32);
        }
    }

    /// Sets the length to `len`, at most the current one (a rewind, or a write taken back), and
    /// keeps the run of leaves the tape begins with inside it.
    #[inline]
    pub(crate) fn shorten(&self, len: u32) {
        self.len.set(len);
        self.leaf_run.set(self.leaf_run.get().min(len));
    }

    /// Leaves were written in slots `from..to`: if every slot below them is a leaf too, the run
    /// of leaves the tape begins with now reaches `to`. (A run that grows less only makes a sweep
    /// pass over more leaves: cargo-mutants' `len * 1` for `push_leaf`'s `len + 1`, and this
    /// body replaced by `()`, survive for that reason; a run that grows more is caught by
    /// `tests/leaf_run.rs`.)
    #[inline(always)]
    pub(crate) fn extend_leaf_run(&self, from: u32, to: u32) {
        if self.leaf_run.get() == from {
            self.leaf_run.set(to);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{chain_size, MAX_OPERANDS};
    use crate::op::Op;
    use crate::{NodeId, Tape};

    /// The slots of a chain, counted part by part: the first part holds `MAX_OPERANDS` operands
    /// and its header; each next part a link, at most `MAX_OPERANDS - 1` operands and a header.
    #[test]
    fn a_chain_takes_its_operands_a_link_and_a_header_a_part() {
        let m = MAX_OPERANDS;
        // One past a header's count: a first part, then the link, one operand and a header.
        assert_eq!(chain_size(m + 1, m), (m + 1) + 3);
        // The second part full.
        assert_eq!(chain_size(2 * m - 1, m), (m + 1) + (m + 1));
        // One more: a third part of a link, one operand and a header.
        assert_eq!(chain_size(2 * m, m), (m + 1) + (m + 1) + 3);
        assert_eq!(chain_size(3 * m, m), (m + 1) + 2 * (m + 1) + 4);
    }

    /// Chains of up to eight parts, of at most three operands each (a header counts millions,
    /// so the real chains need millions of operands before they reach a third part): every
    /// operand's partial reaches its value, each part holds at most three operands, and each part
    /// after the first takes the one before as its first operand, with partial 1.
    #[test]
    fn a_chain_of_many_parts_sends_every_operand_its_partial() -> Result<(), crate::TapeError> {
        const MAX: usize = 3;
        // Parts for 4..=16 operands, counted by hand: 3 in the first, 2 in each next (its link
        // takes the third place).
        let parts_of = [2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8];
        for (k, parts) in (MAX + 1..=16).zip(parts_of) {
            let tape = Tape::<f64, 64>::new();
            let xs: Vec<_> = (0..k).map(|i| tape.var(i as f64)).collect();
            let header = tape.push_in_parts_of::<MAX>(Op::Sum, 42.0, k, |w| {
                for (i, slot) in w.iter().enumerate() {
                    slot.put_operand(i as u32, (i + 1) as f64);
                }
                k
            });
            // The leaves, the operands, a header a part and a link a part after the first.
            assert_eq!(tape.len(), k + k + parts + (parts - 1), "{k} operands");
            let mut headers = Vec::new();
            tape.for_each_node(|id, n| {
                if n.op == Op::Sum {
                    headers.push((id, n.operands));
                }
            });
            assert_eq!(headers.len(), parts);
            assert_eq!(headers.last().map(|h| h.0.index()), Some(header as usize));
            for (p, &(id, operands)) in headers.iter().enumerate() {
                assert!(operands <= MAX && tape.node(id)?.value == 42.0);
                let mut first = None;
                tape.for_each_operand(id, |i, d| {
                    first.get_or_insert((i, d));
                })?;
                if p > 0 {
                    assert_eq!(first, Some((headers[p - 1].0.index(), 1.0)), "part {p}");
                }
            }
            let y = tape.get(NodeId::from_index(header as usize))?;
            let g = tape.backward(y)?;
            for (i, x) in xs.iter().enumerate() {
                assert_eq!(g.wrt(*x), (i + 1) as f64, "operand {i} of {k}");
            }
        }
        Ok(())
    }
}
