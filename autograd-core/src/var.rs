//! [`Var`]: the `Copy` handle through which expressions are recorded.
//!
//! A handle carries its value and up to two pending `(index, partial)` pairs: the derivative of
//! its value with respect to at most two recorded statements. A one-input operation multiplies
//! the pending partials by its local derivative; a two-input operation merges both handles'
//! pairs (adding the partials of a shared index). Only when a result depends on more than two
//! recorded values is a statement written, holding all of them (at most four) as operands, and
//! the result becomes a handle to that statement. So `x * x`, `(1 - x)^2`, `100 (y - x^2)^2`
//! and their sum never touch the tape, and constants are folded into partials: they never cost
//! a slot.
//!
//! This is Adept's statement-level preaccumulation done at run time, in a fixed-size handle, so
//! generic code written against [`Number`](crate::Number) gets it without any change.

use core::fmt;

use crate::op::{self, Op};
use crate::tape::{NodeId, TapeView, POISON};
use crate::{Scalar, TapeError};

mod layer;
mod merge;
mod nary;
mod ops;
mod statement;

pub use layer::Activate;
use merge::{foreign, merge_shared, non_finite, pack, unshared, write_apart, SHARED_I, SHARED_J};

/// A value recorded on a tape (or a constant), used like a number: `(x1 * x2 + 1.0).relu()`.
///
/// A `Var` is `Copy` and carries its own value, so reading it never touches the tape. A `Var`
/// made by [`Number::from_f64`](crate::Number::from_f64) / [`Var::constant`] is a constant that is on no tape; it is folded
/// into the partial derivatives of whatever it meets and never recorded.
///
/// ```
/// use autograd_core::Tape;
///
/// let tape = Tape::<f64, 64>::new();
/// let x = tape.var(0.5);
/// let y = 2.0 * x.sin() / (1.0 - x) + x.powi(3);
/// let dy = tape.backward(y)?.wrt(x);
/// let expected = 2.0 * (0.5f64.cos() * 0.5 + 0.5f64.sin()) / 0.25 + 3.0 * 0.25;
/// assert!((dy - expected).abs() < 1e-14);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Var<'t, S: Scalar> {
    tape: Option<&'t TapeView<S>>,
    value: S,
    /// Partials of `value` with respect to statements `index[..n]`.
    partial: [S; 2],
    index: [u32; 2],
    /// The pair count, the last operation applied and the node flag, in one word ([`Meta`]).
    meta: Meta,
}

/// A handle's pair count `n` and its label (bits 0-7: the last operation applied, the label of
/// the statement if the handle is written) with its node flag (bit 8: `true` only for a handle
/// that is exactly statement `index[0]`, a leaf, `get` or a written result; every operation
/// clears it, so `x + 0.0` or `x * 1.0`, whose only pending partial is 1 with respect to `x`, is
/// not mistaken for `x` itself): two halves of one word ([`Half`]).
///
/// One word, so that an `f64` handle on a 64-bit host (56 bytes) and an `f32` one on a 32-bit
/// part (32 bytes) have no padding: a copy of the handle through memory (the running sum a loop
/// carries into `stmt!`'s statement) read padding together with the fields before it as one
/// wider load, which a processor cannot forward from the narrower stores that wrote them. Two
/// halves, not one `usize` with the count in its low byte: every read of that count was a
/// truncation of the word, and the word went from each operation's result into the next through
/// masks, `select`s and `phi`s, so in a long generated function LLVM 22's InstCombine walked
/// thousands of operations deep under each truncation (it recurses once a value). As halves,
/// the count is never truncated.
// Measured (PERFORMANCE.md, "One word for a handle's count, label and flag" and "The count as a
// half-word"): three one-byte fields took `stmt!`'s Rosenbrock gradient about 17 % longer; with
// the count in the word's low byte, rustc 1.95 overflowed its stack on the 3,000-operation
// function of `cargo xtask bench --compile-time` and built the 1,000-operation one in 42.5 s of
// user CPU; as halves, 29.0 s and the 3,000-operation one with the default stack, the gradients
// within 1 % of the instructions they took.
#[derive(Clone, Copy)]
struct Meta {
    n: Half,
    /// The label (bits 0-7) and the node flag (bit 8).
    label: Half,
}

/// Half a `usize`: the count and the label each take one, so that [`Meta`] is one word.
#[cfg(target_pointer_width = "64")]
type Half = u32;
/// Half a `usize`: the count and the label each take one, so that [`Meta`] is one word.
#[cfg(not(target_pointer_width = "64"))]
type Half = u16;

/// Two handles' pair counts in one word, as the out-of-line merges take them (`merge.rs`).
// (The casts are needed where `Half` is `u16`.)
#[allow(clippy::unnecessary_cast)]
#[inline(always)]
fn counts(nx: Half, ny: Half) -> u32 {
    nx as u32 | (ny as u32) << 8
}

impl Meta {
    #[inline(always)]
    const fn new(n: Half, op: Op, node: bool) -> Meta {
        Meta {
            n,
            label: op as u8 as Half | (node as Half) << 8,
        }
    }

    /// Number of pending pairs.
    #[inline(always)]
    const fn n(self) -> Half {
        self.n
    }

    /// The label.
    #[inline(always)]
    const fn op(self) -> Op {
        Op::from_code(self.label as u8)
    }

    /// The node flag.
    #[inline(always)]
    const fn node(self) -> bool {
        (self.label >> 8) & 1 != 0
    }

    /// The same pair count and flag, labelled `op`.
    #[inline(always)]
    const fn with_op(self, op: Op) -> Meta {
        Meta {
            label: self.label & !0xff | op as u8 as Half,
            ..self
        }
    }
}

impl<'t, S: Scalar> Var<'t, S> {
    /// A handle to statement `index` (or an unrecorded value if `index` is `POISON`).
    #[inline(always)]
    pub(crate) fn node(tape: &'t TapeView<S>, index: u32, value: S) -> Self {
        Var::labelled_on(Some(tape), index, value, Op::Leaf)
    }

    /// A constant that belongs to no tape (derivative 0 with respect to everything).
    #[inline(always)]
    pub const fn constant(value: S) -> Self {
        Var {
            tape: None,
            value,
            partial: [S::ZERO, S::ZERO],
            index: [0, 0],
            meta: Meta::new(0, Op::Leaf, false),
        }
    }

    /// The value.
    #[inline(always)]
    pub fn value(self) -> S {
        self.value
    }

    /// The statement this handle stands for: `Some` for a leaf, for a handle from
    /// [`TapeView::get`] and for the result of [`recorded`](Self::recorded); `None` for a constant,
    /// a failed recording, and an intermediate result that lives only in its handle (it depends
    /// on recorded values through pending partials, so it has no statement of its own).
    pub fn id(self) -> Option<NodeId> {
        match self.tape {
            Some(t) if self.meta.node() => Some(NodeId::on(t, self.index[0])),
            _ => None,
        }
    }

    /// The tape this value is recorded on (`None` for a constant).
    pub fn tape(self) -> Option<&'t TapeView<S>> {
        self.tape
    }

    /// `true` if this value is a constant (on no tape).
    pub fn is_constant(self) -> bool {
        self.tape.is_none()
    }

    /// The fallible path: a handle to a statement holding this value, written now if this value
    /// is an intermediate result, so that its gradient can be read with
    /// [`Gradients::wrt`](crate::Gradients::wrt) after a sweep from a result computed *from the
    /// returned handle*. Fails with the tape's error if recording failed (or does now), and with
    /// [`TapeError::NotRecorded`] for a constant.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// let tape = Tape::<f32, 3>::new();
    /// let x = tape.try_var(2.0)?;
    /// let h = (x * x).recorded()?; // one statement: an operand and a header (3 slots in all)
    /// assert_eq!(tape.backward(h.exp())?.wrt(h), libm::expf(4.0));
    /// let err = (h * x).recorded().unwrap_err(); // needs 3 more slots
    /// assert_eq!(err, TapeError::CapacityExceeded { capacity: 3, needed: 6 });
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn recorded(self) -> Result<Self, TapeError> {
        let Some(t) = self.tape else {
            return Err(TapeError::NotRecorded);
        };
        t.check()?;
        if self.id().is_some() {
            return Ok(self);
        }
        let r = self.written();
        t.check()?;
        Ok(r)
    }

    /// This value as a handle to a statement of its own (written now).
    #[inline(never)]
    fn written(self) -> Self {
        match self.tape {
            Some(t) => {
                let pairs = self.pair_array();
                let op = self.meta.op();
                let index = t.push4(op, self.value, pairs, self.meta.n() as usize);
                Var::labelled(t, index, self.value, op)
            }
            None => self,
        }
    }

    /// The pending pairs in a fixed array (the first `n` are meaningful).
    #[inline(always)]
    pub(crate) fn pair_array(&self) -> [(u32, S); 4] {
        [
            (self.index[0], self.partial[0]),
            (self.index[1], self.partial[1]),
            (0, S::ZERO),
            (0, S::ZERO),
        ]
    }

    /// Number of pending pairs.
    #[inline(always)]
    pub(crate) fn pending(&self) -> usize {
        self.meta.n() as usize
    }

    /// The result of a one-input operation `op` with value `value` and local derivative `d`.
    #[inline(always)]
    pub(crate) fn chain(self, op: Op, value: S, d: S) -> Self {
        #[cfg(autograd_fault_injection)]
        let d = crate::fault::corrupt(op, self.value, (d, S::ZERO)).0;
        let partial = times(self.partial, self.meta.n(), d, op, false);
        // Where an operation is flat over intervals (relu below 0, a saturated tanh), a zero
        // derivative cuts the dependence: the result is a value on the tape that depends on
        // nothing, as a zero adjoint would be skipped (`Op::has_flat_regions`; `op` is a
        // constant at every call, so the other operations test nothing). Only a finite result
        // is cut (`settled_cut`): `relu(NaN)` and `NaN * 0.0` keep their operand, with a partial
        // of 0, so NaN provenance follows it back to where the NaN arose.
        let cut = op.has_flat_regions() && d.is_zero();
        Var { partial, ..self }.settled_cut(self.tape, op, value, cut)
    }

    /// The result of operation `op`: these partials with the new value and label (depending on
    /// nothing if `cut` and it is finite), or, where the value or a partial is not finite,
    /// written at once as a statement of its own with its operands whatever `cut` says, so NaN
    /// provenance names the operation. A cut costs no test of its own. The result is made in one
    /// place from either branch's parts (see [`combine`](Self::combine)).
    #[inline(always)]
    fn settled_cut(self, tape: Option<&'t TapeView<S>>, op: Op, value: S, cut: bool) -> Self {
        let (partial, index, meta) = if !finite_result(op, value, self.partial) {
            let [p0, p1] = self.partial;
            let index = non_finite(tape, op, value, pack(self.index), p0, p1, self.meta.n());
            written(index, op)
        } else {
            let n = if cut { 0 } else { self.meta.n() };
            (self.partial, self.index, Meta::new(n, op, false))
        };
        Var {
            tape,
            value,
            partial,
            index,
            meta,
        }
    }

    /// A handle to statement `index`, labelled `op`.
    #[inline(always)]
    pub(crate) fn labelled(t: &'t TapeView<S>, index: u32, value: S, op: Op) -> Self {
        Var::labelled_on(Some(t), index, value, op)
    }

    /// The result of an operation between handles of two tapes: both tapes record the error,
    /// and the result is unrecorded. (Made here, not returned by the cold call: a handle comes
    /// back from a call through memory, and the caller's result then lived in memory on every
    /// path of the operation.)
    #[inline(always)]
    fn between_tapes(a: &'t TapeView<S>, b: &'t TapeView<S>, value: S) -> Self {
        foreign(a, b);
        Var::node(a, POISON, value)
    }

    /// A handle to statement `index`, which a writer has just reserved on `t`: a real slot (a
    /// tape holds fewer than 2^31 slots, so never `POISON`), and the handle is that statement
    /// itself, so the operation applied to it next knows its one pending pair without a test
    /// (a network's activations, `var/layer/stack.rs`).
    #[inline(always)]
    pub(crate) fn statement(t: &'t TapeView<S>, index: u32, value: S, op: Op) -> Self {
        Var {
            tape: Some(t),
            value,
            partial: [S::ONE, S::ZERO],
            index: [index, 0],
            meta: Meta::new(1, op, true),
        }
    }

    /// A handle to statement `index` of `tape` (or an unrecorded value if `index` is `POISON`),
    /// labelled `op`. Where a statement was just written the tape is present, and is passed on
    /// as the option it is (`write_apart` and `merge_shared` take the option and unwrap it out of
    /// line): a test of it in every operation between handles made long generated functions
    /// build markedly slower (PERFORMANCE.md, "Handles no longer returned through memory").
    #[inline(always)]
    fn labelled_on(tape: Option<&'t TapeView<S>>, index: u32, value: S, op: Op) -> Self {
        let (partial, index, meta) = written(index, op);
        Var {
            tape,
            value,
            partial,
            index,
            meta,
        }
    }

    /// The result of a two-input operation: `dx`, `dy` are its partials with respect to `self`
    /// and `y`.
    #[inline(always)]
    fn combine(self, op: Op, value: S, dx: S, y: Self, dy: S) -> Self {
        self.combine_labelled(op, value, dx, y, dy, [op, op])
    }

    /// [`combine`](Self::combine), where an operand that depends on nothing recorded (a
    /// constant, or a cut result: no pending pair) makes the operation one of a constant: the
    /// result is labelled `constant[0]` where that operand is `y`, `constant[1]` where it is
    /// `self` (`x + c` is a shift, `x * c` a scale; where neither has a pair, `y`'s, except that
    /// a constant dividend keeps `c / x` a division), and cut where the label is flat over
    /// intervals and the local derivative is 0 (`x * 0.0`), as the one-input operations are.
    ///
    /// Every shape's result is made in one place, at the end, from its parts (its pairs, or the
    /// statement written for it), and the operators call only this: inlined into a long
    /// function, a handle written in each shape's branch was memory that LLVM turned into
    /// registers by walking, for each of its fields, every block after the operation (the
    /// placement of `phi`s in SROA), which made a straight-line function's build quadratic.
    // Measured (PERFORMANCE.md, "One place an operation's result is made"): the 1,000-operation
    // generated function of `cargo xtask bench --compile-time` built in 27.4 s of user CPU with
    // a handle written in each branch and in each operator's constant arms, 12.3 s like this;
    // SROA's share of LLVM's time went from 10.4 s to 0.3 s.
    #[inline(always)]
    fn combine_labelled(self, op: Op, value: S, dx: S, y: Self, dy: S, constant: [Op; 2]) -> Self {
        #[cfg(autograd_fault_injection)]
        let (dx, dy) = crate::fault::corrupt(op, self.value, (dx, dy));
        let (tape, apart) = match (self.tape, y.tape) {
            _ if self.same_tape(y) => (self.tape, false),
            (Some(a), Some(b)) => {
                foreign(a, b);
                (Some(a), true)
            }
            (a, b) => (a.or(b), false),
        };
        let [a0, a1] = times(self.partial, self.meta.n(), dx, op, false);
        let [b0, b1] = times(y.partial, y.meta.n(), dy, op, true);
        let (i, j) = (self.index, y.index);
        // The result's pairs (whether they are to be tested, and cut if finite), or the statement
        // written.
        let (partial, index, meta, test, cut) = match (self.meta.n(), y.meta.n()) {
            _ if apart => {
                let (p, i, m) = written(POISON, op);
                (p, i, m, false, false)
            }
            // One operand depends on nothing recorded (a constant, or a cut): `x + c` is a shift,
            // `x * c` a scale, cut where `c` is 0, as the one-input operations are.
            (nx, 0) => {
                let cut = constant[0].has_flat_regions() && dx.is_zero();
                // `c / x` where neither depends on anything recorded is still a division: the
                // constant `c` decides (only `Div` labels its two constant rules apart).
                let label = if matches!(op, Op::Div) && nx == 0 && self.tape.is_none() {
                    constant[1]
                } else {
                    constant[0]
                };
                ([a0, a1], i, Meta::new(nx, label, false), true, cut)
            }
            (0, ny) => {
                let cut = constant[1].has_flat_regions() && dy.is_zero();
                ([b0, b1], j, Meta::new(ny, constant[1], false), true, cut)
            }
            (1, 1) if i[0] == j[0] => {
                // (Two finite partials may add up to an infinity: for a sum or a difference,
                // whose result's partials are not tested otherwise, written now if they did.)
                let s = a0 + b0;
                if passes_partials(op) && !s.is_finite() {
                    let index = non_finite(tape, op, value, pack(i), s, S::ZERO, 1);
                    let (p, i, m) = written(index, op);
                    (p, i, m, false, false)
                } else {
                    ([s, a1], i, Meta::new(1, op, false), true, false)
                }
            }
            (1, 1) => ([a0, b0], [i[0], j[0]], Meta::new(2, op, false), true, false),
            // Three or four pairs with no index in common: a statement of them all, written out
            // of line (see `write_apart`).
            (nx, ny) if unshared(i, j) => {
                let counts = counts(nx, ny);
                let index = write_apart(tape, op, value, counts, pack(i), a0, a1, pack(j), b0, b1);
                let (p, i, m) = written(index, op);
                (p, i, m, false, false)
            }
            // The rarer shapes (an index in common), out of line: inlined into every operation of
            // a long generated function they made it compile several times slower. Their pairs
            // go as plain values (see `merge_shared`).
            (nx, ny) => {
                let counts = counts(nx, ny);
                let (pi, pj) = (pack(i), pack(j));
                let (index, p0, p1) = merge_shared(tape, op, counts, value, pi, a0, a1, pj, b0, b1);
                match index {
                    SHARED_I => ([p0, p1], i, Meta::new(2, op, false), true, false),
                    SHARED_J => ([p0, p1], j, Meta::new(2, op, false), true, false),
                    _ => {
                        let (p, i, m) = written(index, op);
                        (p, i, m, false, false)
                    }
                }
            }
        };
        // (The same settling as `settled_cut`'s, written out: one function for both, taking
        // and returning the parts, took Rosenbrock as written 350.9 -> 367.9 instructions a
        // term, `dense` 781,813 -> 791,871 and the 1,000-operation build 12.9 -> 14.6 s:
        // callgrind on `examples/profile`, PERFORMANCE.md's "One place an operation's result
        // is made".)
        let (partial, index, meta) = if test && !finite_result(op, value, partial) {
            let [p0, p1] = partial;
            let index = non_finite(tape, meta.op(), value, pack(index), p0, p1, meta.n());
            written(index, meta.op())
        } else if cut {
            // (Only where finite: a non-finite result keeps its operand, with a partial of 0,
            // so NaN provenance follows it back, as `settled_cut` does.)
            (partial, index, Meta::new(0, meta.op(), false))
        } else {
            (partial, index, meta)
        };
        Var {
            tape,
            value,
            partial,
            index,
            meta,
        }
    }

    /// `true` if both are on the same tape or both constants: one comparison of addresses, the
    /// operators' first test (the common case: two handles of one tape), before any test for a
    /// constant. By callgrind on `examples/profile rosenbrock 1000` (10 and 20 gradients), 422.8
    /// -> 418.8 instructions a term, where the operators tested for a constant operand first and
    /// `combine` compared the tapes after testing that the first was present.
    #[inline(always)]
    fn same_tape(self, other: Self) -> bool {
        address(self.tape) == address(other.tape)
    }

    #[inline(always)]
    fn binary(self, op: Op, y: Self) -> Self {
        self.binary_labelled(op, y, [op, op])
    }

    /// [`binary`](Self::binary), labelled as [`combine_labelled`](Self::combine_labelled) says.
    #[inline(always)]
    fn binary_labelled(self, op: Op, y: Self, constant: [Op; 2]) -> Self {
        let (value, dx, dy) = op::binary(op, self.value, y.value);
        self.combine_labelled(op, value, dx, y, dy, constant)
    }

    /// `self^y`, differentiable in both; `d/dy` at `self = 0, y >= 0` is taken as 0.
    #[cfg_attr(not(feature = "outlined-ops"), inline)]
    #[cfg_attr(feature = "outlined-ops", inline(never))]
    pub fn pow(self, y: Self) -> Self {
        self.binary(Op::Pow, y)
    }
    /// The larger of two; equal values split the gradient 0.5/0.5.
    #[cfg_attr(not(feature = "outlined-ops"), inline)]
    #[cfg_attr(feature = "outlined-ops", inline(never))]
    pub fn max(self, other: Self) -> Self {
        self.binary(Op::Max, other)
    }
    /// The smaller of two; equal values split the gradient 0.5/0.5.
    #[cfg_attr(not(feature = "outlined-ops"), inline)]
    #[cfg_attr(feature = "outlined-ops", inline(never))]
    pub fn min(self, other: Self) -> Self {
        self.binary(Op::Min, other)
    }
    /// The angle of `(x, self)`, `self` being the ordinate (as `f64::atan2`); both partials
    /// are 0 at the origin, where the angle has no derivative.
    #[cfg_attr(not(feature = "outlined-ops"), inline)]
    #[cfg_attr(feature = "outlined-ops", inline(never))]
    pub fn atan2(self, x: Self) -> Self {
        self.binary(Op::Atan2, x)
    }
    /// `sqrt(self^2 + other^2)` without overflow; both partials are 0 at the origin.
    #[cfg_attr(not(feature = "outlined-ops"), inline)]
    #[cfg_attr(feature = "outlined-ops", inline(never))]
    pub fn hypot(self, other: Self) -> Self {
        self.binary(Op::Hypot, other)
    }
}

/// The pairs, indices and [`Meta`] of a handle to statement `index` (none if it is `POISON`),
/// labelled `op`: what [`Var::labelled_on`] makes, as the parts an operation assembles its
/// result from.
#[inline(always)]
fn written<S: Scalar>(index: u32, op: Op) -> ([S; 2], [u32; 2], Meta) {
    let node = index != POISON;
    (
        [S::ONE, S::ZERO],
        [index, 0],
        Meta::new(node as Half, op, node),
    )
}

/// A tape's address, 0 for none (tapes compared by one integer comparison).
#[inline(always)]
fn address<S: Scalar>(t: Option<&TapeView<S>>) -> usize {
    t.map_or(0, |t| core::ptr::from_ref(t).addr())
}

/// Pending partials times a local derivative `d`, without the multiplications that cannot
/// change them: `+`, `-` and `+ c` pass partials through or negate them, and an unused second
/// partial stays 0 (on a part without an FPU every multiplication is a library call).
/// `rhs` says whether these are the second operand's partials. `op` is a constant at every
/// call site, so the match folds away.
#[inline(always)]
fn times<S: Scalar>(p: [S; 2], n: Half, d: S, op: Op, rhs: bool) -> [S; 2] {
    if cfg!(autograd_fault_injection) {
        // The self-test's wrong rules must reach every operation.
        return [p[0] * d, p[1] * d];
    }
    match (op, rhs) {
        (Op::Shift | Op::Add, _) | (Op::Sub, false) => p,
        (Op::Neg, _) | (Op::Sub, true) => [-p[0], -p[1]],
        // An unused partial is 0: multiplying it is free in hardware, a call in software.
        _ if S::COSTLY_PRODUCT && n < 2 => [p[0] * d, S::ZERO],
        _ => [p[0] * d, p[1] * d],
    }
}

/// `true` for an operation whose result's partials are its operands' pending partials passed
/// through or negated (`times`), so finite, as every pending partial is: where two pairs meet at
/// one index they are added, and those sums are tested where they are made (`combine`'s arm for
/// one shared pair, `merge_shared`). The self-test's wrong rules multiply every partial: there
/// every operation's partials are tested.
#[inline(always)]
fn passes_partials(op: Op) -> bool {
    !cfg!(autograd_fault_injection) && matches!(op, Op::Shift | Op::Neg | Op::Add | Op::Sub)
}

/// `true` if the result of `op`, its value and partials `p`, is finite: of a shift, a negation,
/// a sum or a difference only the value is tested (`passes_partials`). By callgrind on
/// `examples/profile` (`rosenbrock 1000`, 10 and 20 gradients), against every result's value
/// and both partials tested: 371.8 -> 357.8 instructions a term; `dense 1000` 800,684 ->
/// 798,235 a gradient.
///
/// Where a product by a derivative bounded by 1 cannot overflow (`f32`, `f64`:
/// [`Scalar::SHRINKING_PRODUCT`]), an operation with such a derivative (`sin`, `tanh`, `relu`,
/// ...: [`Op::derivative_within_one`]) also tests only its value.
#[inline(always)]
fn finite_result<S: Scalar>(op: Op, value: S, p: [S; 2]) -> bool {
    if passes_partials(op)
        || (S::SHRINKING_PRODUCT && !cfg!(autograd_fault_injection) && op.derivative_within_one())
    {
        value.is_finite()
    } else {
        all_finite(value, p)
    }
}

/// `true` if the value and both partials are finite. Where a product is cheap (hardware floating
/// point), one product tests all three (an unused partial is 0; a product that overflows only
/// writes a statement that was not needed); where it is not ([`Scalar::COSTLY_PRODUCT`]: a
/// soft-float ARM part, fixed point), three tests.
#[inline(always)]
fn all_finite<S: Scalar>(value: S, p: [S; 2]) -> bool {
    if S::COSTLY_PRODUCT {
        value.is_finite() & p[0].is_finite() & p[1].is_finite()
    } else {
        (value * p[0] * p[1]).is_finite()
    }
}

impl<S: Scalar> fmt::Debug for Var<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.tape, self.id()) {
            (None, _) => write!(f, "Var(const {:?})", self.value),
            (Some(_), Some(id)) => write!(f, "Var(#{}: {:?})", id.index(), self.value),
            (Some(_), None) => {
                write!(f, "Var({:?}", self.value)?;
                for k in 0..self.meta.n() as usize {
                    write!(f, ", d/d#{} = {:?}", self.index[k], self.partial[k])?;
                }
                f.write_str(")")
            }
        }
    }
}

impl<S: Scalar> fmt::Display for Var<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}
