//! The backward sweep in three slot layouts, the measurement that chose the tape's `f64` one:
//! how the cost per operand grows from 10^3 to 10^6 operands when a slot holds its statement's
//! value and when the values live apart.
//!
//! The tape's `f64` slot was 24 bytes: a header's value and adjoint or an operand's partial, and
//! a 32-bit link. A sweep reads only the adjoints, partials and links, 12 of those bytes, but it
//! brings every slot's whole cache line in, values and padding included. Here the same two tape
//! shapes as the scaling benchmarks ([`crate::scaling`]) are recorded in three layouts (the tape
//! now keeps `f64` values apart in 12-byte slots, as the third does):
//!
//! - [`Inline24`]: the tape's former layout, value, adjoint and link in one 24-byte slot;
//! - [`Apart16`]: a 16-byte slot (a header's adjoint or an operand's partial, and the link), the
//!   values in an array of their own;
//! - [`Apart12`]: the same in 12 bytes, the `f64` held as two 32-bit words (alignment 4; the
//!   compiler reads and writes it as one 8-byte access on x86-64), the values apart.
//!
//! Each is swept by the same code ([`Layout::backward`]: the adjoints the last sweep wrote
//! cleared statement by statement, then `adj[operand] += adj[statement] * partial` down to the
//! leaves), and each gives the tape's gradients bit for bit (the tests compare them with
//! `autograd-core`'s on the same shapes). Like [`crate::floor`] these are measuring
//! instruments, not tapes: no handles, no error values, a full tape panics.
//! `examples/slot_layout` times them next to the tape's own sweep, in one run.
//!
//! ```
//! use autograd_bench::layout::{Apart12, Layout};
//!
//! let mut tape = Apart12::with_capacity(16);
//! let (y, x, c) = tape.chain(10); // five statements `v <- v * c` from v = x = 0.5, c = 1
//! tape.backward(y);
//! assert_eq!((tape.adj(x), tape.adj(c)), (1.0, 2.5)); // c^5 and 5 x c^4
//! ```

/// A header's link: the top bit and the operand count; an operand's link is an index.
const HEADER: u32 = 1 << 31;

/// The operand count from which clearing passes over a statement's operand slots (the tape's
/// `PASS_OVER`).
const PASS_OVER: u32 = 16;

/// One slot of a layout: a header (its adjoint) or an operand (its partial), and its link.
pub trait Slot: Copy {
    /// A header of `count` operands, its adjoint zero.
    fn header(count: u32) -> Self;
    /// An operand: the index it refers to and the partial.
    fn operand(index: u32, partial: f64) -> Self;
    /// The link: an operand's index, or the header bit and a header's count.
    fn link(&self) -> u32;
    /// An operand's partial.
    fn partial(&self) -> f64;
    /// A header's adjoint.
    fn adj(&self) -> f64;
    /// Sets a header's adjoint.
    fn set_adj(&mut self, adj: f64);
}

/// A layout: slots and, unless a slot holds it, each header's value apart.
pub trait Layout: Sized {
    /// Its slot.
    type Slot: Slot;
    /// Its name in tables.
    const NAME: &'static str;
    /// Bytes of a slot, the part a sweep reads.
    const SLOT_BYTES: usize = core::mem::size_of::<Self::Slot>();

    /// An empty tape with room for `capacity` slots.
    fn with_capacity(capacity: usize) -> Self;
    /// The slots, as the sweep reads them.
    fn slots(&mut self) -> &mut Vec<Self::Slot>;
    /// Stores the value of the slot about to be pushed (a header's; an operand's is unused).
    fn push_value(&mut self, value: f64);
    /// Where the last sweep wrote and where the leaves end.
    fn state(&mut self) -> &mut State;

    /// Empties the tape.
    fn clear(&mut self) {
        self.slots().clear();
        *self.state() = State::default();
    }

    /// Pushes a slot; returns its index.
    fn push(&mut self, slot: Self::Slot, value: f64) -> u32 {
        self.push_value(value);
        let slots = self.slots();
        slots.push(slot);
        (slots.len() - 1) as u32
    }

    /// Records the scaling benchmarks' chain ([`crate::scaling::record_chain`]): leaves
    /// `x = 0.5` and `c = 1`, then `operands / 2` statements `v <- v * c` of two operands each.
    /// Returns the indices of the result, `x` and `c`.
    fn chain(&mut self, operands: usize) -> (u32, u32, u32) {
        self.clear();
        let x = self.push(Self::Slot::header(0), 0.5);
        let c = self.push(Self::Slot::header(0), 1.0);
        self.state().leaves = 2;
        let (mut v, mut value) = (x, 0.5);
        for _ in 0..operands / 2 {
            self.push(Self::Slot::operand(v, 1.0), 0.0);
            self.push(Self::Slot::operand(c, value), 0.0);
            value *= 1.0;
            v = self.push(Self::Slot::header(2), value);
        }
        (v, x, c)
    }

    /// Records the scaling benchmarks' wide sum ([`crate::scaling::record_wide_sum`]):
    /// `operands` leaves, then one statement summing them. Returns the sum's index.
    fn wide_sum(&mut self, operands: usize) -> u32 {
        self.clear();
        let mut sum = 0.0;
        for i in 0..operands {
            let value = 1.0 + (i % 7) as f64;
            sum += value;
            self.push(Self::Slot::header(0), value);
        }
        self.state().leaves = operands;
        for i in 0..operands {
            self.push(Self::Slot::operand(i as u32, 1.0), 0.0);
        }
        self.push(Self::Slot::header(operands as u32), sum)
    }

    /// One sweep from the statement `y`: the last sweep's adjoints cleared, `y`'s set to 1, then
    /// every statement's partials sent down (statements with a zero adjoint send nothing) to the
    /// leaves the recording began with, which send nothing and are not visited (as on the tape).
    fn backward(&mut self, y: u32) {
        let state = self.state();
        let hi = state.dirty;
        state.dirty = y as usize + 1;
        let slots = &mut self.slots()[..];
        let swept = hi.min(slots.len());
        clear_down(&mut slots[..swept]);
        self.sends(y);
    }

    /// [`backward`](Self::backward) without its clearing: `y`'s adjoint set to 1 and every
    /// statement's partials sent down, onto whatever adjoints the slots hold. Right only on a
    /// fresh recording; timed alone, it says what a sweep costs that has no adjoints to clear
    /// (`examples/slot_layout`).
    fn sends(&mut self, y: u32) {
        let leaves = self.state().leaves;
        let slots = &mut self.slots()[..];
        slots[y as usize].set_adj(1.0);
        let mut p = y as usize + 1;
        while p > leaves {
            let h = p - 1;
            let count = (slots[h].link() & !HEADER) as usize;
            let a = slots[h].adj();
            let base = h - count;
            if a != 0.0 {
                for k in base..h {
                    let o = slots[k];
                    if let Some(t) = slots.get_mut(o.link() as usize) {
                        t.set_adj(t.adj() + a * o.partial());
                    }
                }
            }
            p = base;
        }
    }

    /// The adjoint of slot `i` after a sweep.
    fn adj(&mut self, i: u32) -> f64 {
        self.slots()[i as usize].adj()
    }
}

/// A layout's bookkeeping.
#[derive(Clone, Copy, Debug, Default)]
pub struct State {
    /// The slots below this may hold adjoints the last sweep wrote.
    dirty: usize,
    /// Slots `0..leaves` are the leaves the recording began with.
    leaves: usize,
}

/// Zeroes the headers' adjoints of `slots`, walking down a statement at a time and passing over
/// the operand slots of statements of [`PASS_OVER`] operands or more (as the tape's re-sweep).
fn clear_down<T: Slot>(slots: &mut [T]) {
    let mut p = slots.len();
    while p > 0 {
        p -= 1;
        let link = slots[p].link();
        if link & HEADER != 0 {
            slots[p].set_adj(0.0);
            let count = link & !HEADER;
            if count >= PASS_OVER {
                p -= (count as usize).min(p);
            }
        }
    }
}

/// The tape's former `f64` slot: value or partial, adjoint, link (24 bytes).
#[derive(Clone, Copy, Debug)]
pub struct InlineSlot {
    x: f64,
    adj: f64,
    link: u32,
}

impl Slot for InlineSlot {
    fn header(count: u32) -> Self {
        InlineSlot {
            x: 0.0,
            adj: 0.0,
            link: HEADER | count,
        }
    }
    fn operand(index: u32, partial: f64) -> Self {
        InlineSlot {
            x: partial,
            adj: 0.0,
            link: index,
        }
    }
    #[inline(always)]
    fn link(&self) -> u32 {
        self.link
    }
    #[inline(always)]
    fn partial(&self) -> f64 {
        self.x
    }
    #[inline(always)]
    fn adj(&self) -> f64 {
        self.adj
    }
    #[inline(always)]
    fn set_adj(&mut self, adj: f64) {
        self.adj = adj;
    }
}

/// How a slot with its value apart stores its `f64` (a header's adjoint or an operand's
/// partial): as itself, a 16-byte slot, or as the tape does, two 32-bit words (`autograd_core`'s
/// `Layout::pack` for `f64`), a 12-byte one.
pub trait Stored: Copy {
    /// The layout's name in tables.
    const NAME: &'static str;
    /// `x` as stored.
    fn store(x: f64) -> Self;
    /// The `f64` stored.
    fn load(self) -> f64;
}

impl Stored for f64 {
    const NAME: &'static str = "values apart, 16 B";
    #[inline(always)]
    fn store(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn load(self) -> f64 {
        self
    }
}

impl Stored for [u32; 2] {
    const NAME: &'static str = "values apart, 12 B";
    #[inline(always)]
    fn store(x: f64) -> [u32; 2] {
        autograd_core::Layout::pack(x)
    }
    #[inline(always)]
    fn load(self) -> f64 {
        <f64 as autograd_core::Layout>::unpack(self)
    }
}

/// A slot of one `f64`, stored as `X`, and the link.
#[derive(Clone, Copy, Debug)]
pub struct ApartSlot<X> {
    x: X,
    link: u32,
}

/// 16 bytes: the `f64` as itself.
pub type Slot16 = ApartSlot<f64>;
/// 12 bytes: the `f64` as two 32-bit words.
pub type Slot12 = ApartSlot<[u32; 2]>;

impl<X: Stored> Slot for ApartSlot<X> {
    fn header(count: u32) -> Self {
        ApartSlot {
            x: X::store(0.0),
            link: HEADER | count,
        }
    }
    fn operand(index: u32, partial: f64) -> Self {
        ApartSlot {
            x: X::store(partial),
            link: index,
        }
    }
    #[inline(always)]
    fn link(&self) -> u32 {
        self.link
    }
    #[inline(always)]
    fn partial(&self) -> f64 {
        self.x.load()
    }
    #[inline(always)]
    fn adj(&self) -> f64 {
        self.x.load()
    }
    #[inline(always)]
    fn set_adj(&mut self, adj: f64) {
        self.x = X::store(adj);
    }
}

/// The tape's former `f64` layout: each slot holds its header's value ([`InlineSlot`], 24 bytes).
#[derive(Debug)]
pub struct Inline24 {
    slots: Vec<InlineSlot>,
    state: State,
}

impl Layout for Inline24 {
    type Slot = InlineSlot;
    const NAME: &'static str = "value in the slot, 24 B";
    fn with_capacity(capacity: usize) -> Self {
        Inline24 {
            slots: Vec::with_capacity(capacity),
            state: State::default(),
        }
    }
    fn slots(&mut self) -> &mut Vec<InlineSlot> {
        &mut self.slots
    }
    fn push_value(&mut self, _: f64) {}
    fn push(&mut self, mut slot: InlineSlot, value: f64) -> u32 {
        if slot.link & HEADER != 0 {
            slot.x = value;
        }
        self.slots.push(slot);
        (self.slots.len() - 1) as u32
    }
    fn state(&mut self) -> &mut State {
        &mut self.state
    }
}

/// Values apart, the slots [`Slot16`] or [`Slot12`].
#[derive(Debug)]
pub struct Apart<T> {
    slots: Vec<T>,
    values: Vec<f64>,
    state: State,
}

/// Values apart, 16-byte slots.
pub type Apart16 = Apart<Slot16>;
/// Values apart, 12-byte slots.
pub type Apart12 = Apart<Slot12>;

impl<T> Apart<T> {
    /// The value recorded in slot `i` (a header's; 0 for an operand's).
    pub fn value(&self, i: u32) -> f64 {
        self.values[i as usize]
    }
}

impl<X: Stored> Layout for Apart<ApartSlot<X>> {
    type Slot = ApartSlot<X>;
    const NAME: &'static str = X::NAME;
    fn with_capacity(capacity: usize) -> Self {
        Apart {
            slots: Vec::with_capacity(capacity),
            values: Vec::with_capacity(capacity),
            state: State::default(),
        }
    }
    fn slots(&mut self) -> &mut Vec<ApartSlot<X>> {
        &mut self.slots
    }
    fn push_value(&mut self, value: f64) {
        self.values.push(value);
    }
    fn state(&mut self) -> &mut State {
        &mut self.state
    }
    fn clear(&mut self) {
        self.slots.clear();
        self.values.clear();
        self.state = State::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaling::{record_chain, record_wide_sum};
    use autograd_core::Tape;

    /// Each layout's chain gives the tape's gradients, bit for bit, sweep after sweep.
    fn chain_is_the_tapes<L: Layout>() {
        let mut tape = Box::new(Tape::<f64, 4000>::new());
        let mut layout = L::with_capacity(4000);
        for operands in [0, 2, 10, 1000, 2000] {
            tape.clear();
            let (y, x, c) = record_chain(&tape, operands);
            let g = tape.backward(y).unwrap();
            let (ly, lx, lc) = layout.chain(operands);
            for _ in 0..2 {
                layout.backward(ly);
                assert_eq!(layout.adj(lx), g.wrt(x), "{}, {operands}", L::NAME);
                assert_eq!(layout.adj(lc), g.wrt(c), "{}, {operands}", L::NAME);
            }
            // The tape's slots: 2 leaves and 3 per statement.
            assert_eq!(layout.slots().len(), tape.len(), "{}", L::NAME);
        }
    }

    /// Each layout's wide sum gives the tape's gradients, bit for bit, after a chain swept on
    /// the same layout (so the clearing is tested too).
    fn wide_sum_is_the_tapes<L: Layout>() {
        let mut tape = Box::new(Tape::<f64, 4000>::new());
        let mut layout = L::with_capacity(4000);
        for operands in [1, 3, 20, 1000] {
            tape.clear();
            let xs = record_wide_sum(&tape, operands);
            let g = tape.backward(*xs.last().unwrap()).unwrap();
            let (y, _, _) = layout.chain(2 * operands);
            layout.backward(y);
            let y = layout.wide_sum(operands);
            layout.backward(y);
            layout.backward(y);
            for (i, &x) in xs[..operands].iter().enumerate() {
                assert_eq!(layout.adj(i as u32), g.wrt(x), "{}, {operands}", L::NAME);
            }
            assert_eq!(layout.adj(y), 1.0);
        }
    }

    #[test]
    fn every_layout_gives_the_tapes_gradients() {
        chain_is_the_tapes::<Inline24>();
        chain_is_the_tapes::<Apart16>();
        chain_is_the_tapes::<Apart12>();
        wide_sum_is_the_tapes::<Inline24>();
        wide_sum_is_the_tapes::<Apart16>();
        wide_sum_is_the_tapes::<Apart12>();
    }

    /// The sends alone give the tape's gradients on a fresh recording, and add onto what the
    /// adjoints hold after it (what the slot-layout example times).
    #[test]
    fn sends_alone_are_right_on_a_fresh_recording_only() {
        let tape = Box::new(Tape::<f64, 64>::new());
        let xs = record_wide_sum(&tape, 20);
        let g = tape.backward(*xs.last().unwrap()).unwrap();
        let mut layout = Apart12::with_capacity(64);
        let y = layout.wide_sum(20);
        layout.sends(y);
        for (i, &x) in xs[..20].iter().enumerate() {
            assert_eq!(layout.adj(i as u32), g.wrt(x));
        }
        layout.sends(y);
        assert_eq!(layout.adj(0), 2.0 * g.wrt(xs[0]));
    }

    /// The layouts are the sizes they are named for, and the values apart are the tape's.
    #[test]
    fn sizes_and_values() {
        assert_eq!(Inline24::SLOT_BYTES, 24);
        assert_eq!(Apart16::SLOT_BYTES, 16);
        assert_eq!(Apart12::SLOT_BYTES, 12);
        let mut layout = Apart12::with_capacity(16);
        let y = layout.wide_sum(3);
        assert_eq!((layout.value(1), layout.value(y)), (2.0, 6.0));
        let tape = Tape::<f64, 16>::new();
        assert_eq!(record_wide_sum(&tape, 3)[3].value(), 6.0);
    }
}
