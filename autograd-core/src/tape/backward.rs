//! The backward sweep: one reverse loop over the slots, `adj[operand] += adj[header] * partial`.

use crate::{Scalar, TapeError, Var};

use super::operands::layer_of;
use super::{held, held_all, Gradients, Mark, Slot, TapeView, WithValues, POISON};

impl<S: Scalar> TapeView<S> {
    /// Reverse mode: one sweep from `y` down to the first slot gives `dy/dv` for every statement
    /// `v` recorded before `y`.
    ///
    /// Each call starts from zero adjoints, so calling it twice gives identical gradients (there is
    /// no silent accumulation across calls, unlike micrograd). A value used several times sums the
    /// contributions of every use. Statements whose adjoint is exactly zero are skipped, so an
    /// overflowed partial (`±inf`) that only a zero adjoint reaches sends nothing rather than
    /// `0 * inf = NaN`; on a tape of dual numbers "zero" means every part, so there an adjoint
    /// whose real part is 0 but whose tangent is not still sends its products, and such a partial
    /// makes the real part of the gradient NaN.
    ///
    /// # Errors
    /// The tape's sticky recording error, if any; [`TapeError::NotRecorded`] if `y` is a constant;
    /// [`TapeError::ForeignVar`] if `y` belongs to another tape.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError, Var};
    /// let tape = Tape::<f64, 16>::new();
    /// let (x, y) = (tape.var(2.0), tape.var(3.0));
    /// let z = x * y + x.sin();
    /// let g = tape.backward(z)?;
    /// assert!((g.wrt(x) - (3.0 + 2.0f64.cos())).abs() < 1e-15);
    /// assert_eq!(g.wrt(y), 2.0);
    /// assert_eq!(tape.backward(Var::constant(1.0)).unwrap_err(), TapeError::NotRecorded);
    /// # Ok::<(), TapeError>(())
    /// ```
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
        // Above the tape's start is the whole tape: the full sweep, without a bound test per
        // send (a driver's inputs recorded on an empty tape, the common case).
        match mark.len() {
            0 => self.sweep::<false>(y, 0),
            lo => self.sweep::<true>(y, lo),
        }
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
        let slots = self.slots();
        let all = y.pair_array();
        let pairs = &all[..y.pending()];
        let root = pairs.iter().map(|p| p.0 as usize + 1).max().unwrap_or(0);
        let lo = if ABOVE { lo.min(root) } else { 0 };
        // The last sweep's adjoints cleared: slot by slot below the lowest wide statement it
        // passed, statement by statement from there up (`clear_down`).
        let dirty = self.dirty.replace((lo as u32, root as u32, root as u32));
        #[cfg(autograd_fault_injection)]
        let dirty = if crate::fault::keeps_adjoints() {
            (0, 0, 0)
        } else {
            dirty
        };
        clear(slots, dirty, self.leaf_run.get() as usize);
        let mut seed = [(POISON, S::ZERO); 2];
        for (k, &(i, d)) in pairs.iter().enumerate() {
            if let Some(s) = slots.get(i as usize) {
                if !ABOVE || i as usize >= lo {
                    s.set_adj(s.adj() + d);
                    seed[k] = (i, d);
                }
            }
        }
        self.seed.set(seed);
        // The leaves the recording begins with send nothing: the sweep ends above them rather
        // than passing over each (by callgrind on `examples/profile`, Rosenbrock n = 1000 382.9
        // -> 375.8 instructions a term, `dense` 826,236 -> 819,218 a gradient).
        let floor = lo.max(self.leaf_run.get() as usize);
        let mut p = root;
        while p > floor {
            let h = p - 1;
            let head = &slots[h];
            // A plain statement of one to four operands (most statements: what a handle writes
            // when two meet): one test of its header, its sends unrolled. By callgrind
            // (`examples/profile rosenbrock 1000` and `dense 1000`, 10 and 20 gradients) 447.8 ->
            // 433.8 instructions a Rosenbrock term and 888,412 -> 874,581 a `dense` gradient;
            // the same path with a loop over the operands, 444.8 and 884,273.
            if let Some(operands) = head
                .few_operands()
                .and_then(|c| slots.get(h.checked_sub(c)?..h))
            {
                let a = head.adj();
                if !a.is_zero() {
                    let send = |o: &Slot<S>| {
                        send::<S, ABOVE>(slots, lo, o.link() as usize, a * o.partial())
                    };
                    match operands {
                        [o0] => send(o0),
                        [o0, o1] => {
                            send(o0);
                            send(o1);
                        }
                        [o0, o1, o2] => {
                            send(o0);
                            send(o1);
                            send(o2);
                        }
                        [o0, o1, o2, o3] => {
                            send(o0);
                            send(o1);
                            send(o2);
                            send(o3);
                        }
                        _ => {}
                    }
                }
                p = h - operands.len();
                continue;
            }
            // Leaves (a function's inputs, a network's parameters) send nothing: a run of them
            // is passed over at once, before any adjoint is read.
            if head.is_alone() {
                p -= slots[lo..p]
                    .iter()
                    .rev()
                    .take_while(|s| s.is_alone())
                    .count();
                continue;
            }
            if head.is_layer() {
                p = sweep_layers::<S, ABOVE>(self, h, lo, floor);
                continue;
            }
            let count = head.count();
            let base = h - count.min(h);
            if count >= PASS_OVER as usize {
                // (Through the tape, not a local: the loop's registers are spoken for.)
                let (lo, _, root) = self.dirty.get();
                self.dirty.set((lo, base as u32, root));
            }
            let a = head.adj();
            if !a.is_zero() {
                for o in &slots[base..h] {
                    send::<S, ABOVE>(slots, lo, o.link() as usize, a * o.partial());
                }
            }
            p = base;
        }
        Ok(Gradients::new(self))
    }

    /// The adjoint of `x` from the last backward sweep: 0 before any, for constants, for a
    /// handle that is not a single recorded statement (see [`Var::id`]) and for another tape's
    /// handle.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(3.0);
    /// assert_eq!(tape.grad(x), 0.0); // no sweep yet
    /// tape.backward(x * x)?;
    /// assert_eq!(tape.grad(x), 6.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn grad(&self, x: Var<'_, S>) -> S {
        match x.id() {
            Some(id) if x.tape().is_some_and(|t| core::ptr::eq(t, self)) => {
                self.slots().get(id.index()).map_or(S::ZERO, Slot::adj)
            }
            _ => S::ZERO,
        }
    }
}

/// Zeroes the adjoints that the sweep which recorded `dirty` may have written (see
/// `TapeView::dirty`): slot by slot below its lowest wide statement, statement by statement from
/// there up ([`clear_down`]).
#[inline(never)]
fn clear<S: Scalar>(slots: &[Slot<S>], (lo, wide, hi): (u32, u32, u32), leaves: usize) {
    let hi = (hi as usize).min(slots.len());
    let wide = (wide as usize).min(hi);
    let lo = (lo as usize).min(wide);
    // The leaves the recording began with are headers all: cleared without a test.
    let leaves = leaves.clamp(lo, wide);
    for slot in &slots[lo..leaves] {
        slot.set_adj(S::ZERO);
    }
    for slot in &slots[leaves..wide] {
        // Only headers' adjoints are adjoints (an operand's slot keeps its partial in that
        // place, a layer's input slot its input's value).
        if slot.is_header() {
            slot.set_adj(S::ZERO);
        }
    }
    clear_down(&slots[..hi], wide);
}

/// Zeroes the adjoints of the headers of `slots[lo..]` that the last sweep may have written,
/// walking down a statement at a time: the operand slots of a plain statement of
/// [`PASS_OVER`] operands or more (a wide `sum` or `dot`) are passed over unread, every other
/// slot is tested (a layer's rows count other rows' headers among their slots). By the
/// sweep's record (`dirty`), `slots` ends with a header the sweep reached or at a rewind's mark,
/// and `lo` is where a statement begins, so the walk lands on statements' tops.
///
/// Only the part of the last sweep at or above its lowest wide statement is cleared this way:
/// the walk tests more per slot than a pass over them (by callgrind on `examples/profile
/// trainer`, whose re-sweeps clear the network's parameters, 616,448 -> 618,805 instructions a
/// step where every re-sweep walked), and below there it has nothing to pass over.
fn clear_down<S: Scalar>(slots: &[Slot<S>], lo: usize) {
    let mut rest = slots.get(lo..).unwrap_or_default().iter();
    while let Some(slot) = rest.next_back() {
        if slot.is_header() {
            slot.set_adj(S::ZERO);
            if let Some(count) = slot.many_operands(PASS_OVER) {
                let below = rest.as_slice();
                rest = below[..below.len().saturating_sub(count)].iter();
            }
        }
    }
}

/// The operand count from which a re-sweep's clearing passes over a plain statement's operand
/// slots ([`clear_down`]).
const PASS_OVER: u32 = 16;

/// `adj[index] += d`, where `index` is a slot the sweep reaches: operands refer to earlier
/// headers, so only a statement below the mark (when sweeping above one, `lo`) is left out.
#[inline(always)]
fn send<S: Scalar, const ABOVE: bool>(slots: &[Slot<S>], lo: usize, index: usize, d: S) {
    if let Some(t) = slots.get(index) {
        if !ABOVE || index >= lo {
            t.set_adj(t.adj() + d);
        }
    }
}

/// The sweep over the layer statement whose row `h` it reached (`operands.rs`): rows `h` down to
/// 0, each as the plain statement it stands for, its weights' values read from their slots.
/// Returns where the sweep goes on (the statement's first slot). Out of line and marked cold
/// (the layout hint for the loop over plain statements; a layer's work is per row, not per
/// call) so that loop stays about as tight as it was without layers: by callgrind on
/// `examples/profile rosenbrock`, 539 instructions per term before layers, 550 with this inlined,
/// 546 like this, and the moons gradient unchanged.
///
/// A layer statement right below it (a network's layers, recorded one after another) is swept in
/// the same call, down to `floor`, where the sweep stops. By callgrind on `examples/profile`
/// (`trainer 3` and `5` over 2, `moons 3` and `13` over 10), against a call per statement: a
/// `Trainer` step 502,741 -> 494,796 instructions, the moons loss 964,917 -> 956,965.
#[cold]
#[inline(never)]
fn sweep_layers<S: Scalar, const ABOVE: bool>(
    tape: &TapeView<S>,
    mut h: usize,
    lo: usize,
    floor: usize,
) -> usize {
    // (Found here from the tape, not passed in: so the compiler knows where the values are
    // from where the slots are, one place apart.)
    let (slots, values) = (tape.slots(), tape.values());
    loop {
        let base = sweep_layer::<S, ABOVE>(slots, values, h, lo);
        match base.checked_sub(1) {
            Some(below) if below >= floor && slots[below].is_layer() => h = below,
            _ => return base,
        }
    }
}

/// One layer statement of [`sweep_layers`], from its row `h`: returns its first slot. (`values`:
/// the slots the values are in, `Layout`.)
#[inline(always)]
fn sweep_layer<S: Scalar, const ABOVE: bool>(
    slots: &[Slot<S>],
    values: &[Slot<S>],
    h: usize,
    lo: usize,
) -> usize {
    let l = layer_of(slots, h);
    // A statement none of whose rows has an adjoint (a sample the loss does not reach, a layer
    // of dead units) sends nothing: passed over before its weights are found. Nor do the rows
    // below its lowest row with one: the walk down the rows ends there. (Found from the top
    // instead, 504,581 instructions a `Trainer` step against 494,796; without this test,
    // 501,056.)
    let Some(low) = slots[l.first..=h].iter().position(|r| !r.adj().is_zero()) else {
        return l.base;
    };
    let w0 = slots[l.info].link() as usize;
    let inputs = (&slots[l.base..l.info], &values[l.base..l.info]);
    let stride = inputs.0.len() + 1;
    // Every row's weights and bias at once (earlier statements, so always on the tape): one
    // bounds test for the statement, not one per row.
    let span = w0..w0 + (h + 1 - l.first) * stride;
    let (Some(weights), Some(weight_values)) = (slots.get(span.clone()), values.get(span)) else {
        return l.base;
    };
    let inputs = (inputs.0, held_all(inputs.0, inputs.1));
    // Rows from the top down, as the rows written one by one would be swept, each row's weights
    // split off the top of those below (not `chunks_exact`, whose length is a division: a
    // library call on a part without a divide instruction). Rows with an adjoint are swept four
    // at a time where every weight is swept (`sweep_four`), the last one to three two and one
    // at a time. By callgrind on `examples/profile` (`trainer 3` and `5` over 2, `moons 3` and
    // `13` over 10), against every row swept on its own: a `Trainer` step 532,506 -> 509,774
    // instructions, the moons loss 1,002,982 -> 980,250; with the last rows one by one, 522,779
    // and 993,255.
    let grouped = !ABOVE || w0 >= lo;
    // The rows' weights, and apart the slots their values are in (`Layout`: where each slot
    // holds its own value, `values` is never read and these arrays go unused).
    let mut group = [(S::ZERO, &weights[..0]); 4];
    let mut group_values = [&weight_values[..0]; 4];
    let mut n = 0;
    let (mut below, mut below_values) = (weights, weight_values);
    for head in slots[l.first + low..=h].iter().rev() {
        let Some(m) = below.len().checked_sub(stride) else {
            break; // (never: `weights` holds every row's)
        };
        let ((rest, row), (rest_values, row_values)) =
            (below.split_at(m), below_values.split_at(m));
        (below, below_values) = (rest, rest_values);
        // (A row with a zero adjoint, a dead unit's, is passed over at once.)
        let a = head.adj();
        if a.is_zero() {
            continue;
        }
        if grouped {
            group[n] = (a, row);
            group_values[n] = row_values;
            n += 1;
            if n == 4 {
                sweep_four::<S, ABOVE>(slots, lo, inputs, rows(group, group_values));
                n = 0;
            }
            continue;
        }
        let row = (row, held_all(row, row_values));
        sweep_row::<S, ABOVE>(slots, lo, inputs, a, row, w0 + below.len());
    }
    // The last one to three, top first, side by side (one alone: `sweep_row`, whose test of a
    // weight against the mark `lo` passes for every one here, as `grouped` says).
    let [g0, g1, g2, _] = rows(group, group_values);
    match n {
        3 => sweep_three::<S, ABOVE>(slots, lo, inputs, [g0, g1, g2]),
        2 => sweep_two::<S, ABOVE>(slots, lo, inputs, [g0, g1]),
        1 => sweep_row::<S, ABOVE>(slots, lo, inputs, g0.0, g0.1, lo),
        _ => {}
    }
    l.base
}

/// One row of a layer statement swept as the plain statement it stands for: for each input
/// `adj[x_i] += a (p_i w_i)` and `adj[w_i] += a x_i`, then the bias's `adj[b] += a`. `start`
/// is the index of the row's first weight: a sweep above a mark leaves out the weights below
/// it.
#[inline(always)]
fn sweep_row<S: Scalar, const ABOVE: bool>(
    slots: &[Slot<S>],
    lo: usize,
    inputs: Part<'_, S>,
    a: S,
    row: Part<'_, S>,
    start: usize,
) {
    // An input that depends on nothing is skipped by `send`'s bounds test alone: `NO_OPERAND`
    // is past every tape's last slot (its products, inlined, sink below that test). The bias's
    // partial is 1.
    let swept = |i: usize| !ABOVE || start + i >= lo;
    let pairs = inputs.0.iter().zip(inputs.1).zip(row.0.iter().zip(row.1));
    for (i, ((o, x), (w, u))) in pairs.enumerate() {
        send::<S, ABOVE>(
            slots,
            lo,
            o.link() as usize,
            a * (held(o, x).input_partial() * held(w, u).value()),
        );
        if swept(i) {
            w.set_adj(w.adj() + a * o.input_value());
        }
    }
    if let (Some(b), true) = (row.0.last(), swept(inputs.0.len())) {
        b.set_adj(b.adj() + a);
    }
}

/// `sweep_four`, `sweep_three`, `sweep_two`: rows of a layer statement with their adjoints,
/// every weight of them swept: what [`sweep_row`] does for each, in one pass over the inputs. An
/// input's slot is read once for the rows, and its adjoint is read once, added the rows'
/// products in their order (the top row first, as calls of `sweep_row` add them) and written
/// once, after the rows' weights' adjoints for that input are (an input that is one of these
/// weights then has both). Each is given its rows' adjoints `a`, its rows `r`, the weights `w`
/// those rows give an input, and the iterator over the rows side by side with its pattern (the
/// weights reached by `zip`, not by index: indexed, a step took 492,269 instructions against
/// 479,476 by callgrind on `examples/profile trainer`).
macro_rules! sweep_side_by_side {
    ($($name:ident: $n:literal [$($a:ident $r:ident $w:ident $u:ident),+] for $pat:pat in $zip:expr;)+) => {$(
        #[inline(always)]
        fn $name<S: Scalar, const ABOVE: bool>(
            slots: &[Slot<S>],
            lo: usize,
            inputs: Part<'_, S>,
            rows: [(S, Part<'_, S>); $n],
        ) {
            let [$(($a, $r)),+] = rows;
            for ((o, x), $pat) in inputs.0.iter().zip(inputs.1).zip($zip) {
                let value = o.input_value();
                $($w.set_adj($w.adj() + $a * value);)+
                let index = o.link() as usize;
                if let Some(t) = slots.get(index).filter(|_| !ABOVE || index >= lo) {
                    let p = held(o, x).input_partial();
                    let mut adj = t.adj();
                    $(adj += $a * (p * held($w, $u).value());)+
                    t.set_adj(adj);
                }
            }
            biases(inputs.0.len(), rows);
        }
    )+};
}

/// A layer's inputs, or a row's weights and bias, and the slots their values are in.
type Part<'a, S> = WithValues<'a, S>;

/// Rows with their adjoints, and the slots their weights' values are in, as `Part`s.
#[inline(always)]
fn rows<'a, S: Scalar>(
    group: [(S, &'a [Slot<S>]); 4],
    values: [&'a [Slot<S>]; 4],
) -> [(S, Part<'a, S>); 4] {
    let [(a0, r0), (a1, r1), (a2, r2), (a3, r3)] = group;
    let [v0, v1, v2, v3] = values;
    [
        (a0, (r0, held_all(r0, v0))),
        (a1, (r1, held_all(r1, v1))),
        (a2, (r2, held_all(r2, v2))),
        (a3, (r3, held_all(r3, v3))),
    ]
}

sweep_side_by_side! {
    sweep_four: 4 [a0 r0 w0 u0, a1 r1 w1 u1, a2 r2 w2 u2, a3 r3 w3 u3]
        for ((((w0, u0), (w1, u1)), (w2, u2)), (w3, u3)) in r0.0.iter().zip(r0.1)
            .zip(r1.0.iter().zip(r1.1)).zip(r2.0.iter().zip(r2.1)).zip(r3.0.iter().zip(r3.1));
    sweep_three: 3 [a0 r0 w0 u0, a1 r1 w1 u1, a2 r2 w2 u2]
        for (((w0, u0), (w1, u1)), (w2, u2)) in r0.0.iter().zip(r0.1)
            .zip(r1.0.iter().zip(r1.1)).zip(r2.0.iter().zip(r2.1));
    sweep_two: 2 [a0 r0 w0 u0, a1 r1 w1 u1]
        for ((w0, u0), (w1, u1)) in r0.0.iter().zip(r0.1).zip(r1.0.iter().zip(r1.1));
}

/// Each row's bias (after its `k` weights) gets the row's adjoint (its partial is 1).
#[inline(always)]
fn biases<S: Scalar, const N: usize>(k: usize, rows: [(S, Part<'_, S>); N]) {
    for (a, (row, _)) in rows {
        if let Some(b) = row.get(k) {
            b.set_adj(b.adj() + a);
        }
    }
}
