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

use crate::op::Op;
use crate::outlined::outlined_binary;
use crate::tape::{NodeId, TapeView, POISON};
use crate::{Scalar, TapeError};

mod combine;
mod layer;
mod merge;
mod nary;
mod ops;
mod statement;

pub use layer::Activate;
use merge::foreign;

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
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(2.0);
    /// let c = Var::constant(10.0);
    /// let y = x * c; // a scale: nothing recorded for `c`
    /// assert!(c.is_constant() && c.id().is_none());
    /// assert_eq!(tape.backward(y)?.wrt(x), 10.0);
    /// assert_eq!(tape.len(), 1); // x alone
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
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
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(3.0);
    /// assert_eq!((x * x - 1.0).value(), 8.0);
    /// ```
    #[inline(always)]
    pub fn value(self) -> S {
        self.value
    }

    /// The statement this handle stands for: `Some` for a leaf, for a handle from
    /// [`TapeView::get`] and for the result of [`recorded`](Self::recorded); `None` for a constant,
    /// a failed recording, and an intermediate result that lives only in its handle (it depends
    /// on recorded values through pending partials, so it has no statement of its own).
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(3.0);
    /// assert_eq!(x.id().map(|id| id.index()), Some(0)); // a leaf
    /// let y = x * x; // lives in its handle: d/dx pending, no statement
    /// assert_eq!(y.id(), None);
    /// assert!(y.recorded()?.id().is_some()); // written now
    /// assert_eq!(Var::<f64>::constant(1.0).id(), None);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn id(self) -> Option<NodeId> {
        match self.tape {
            Some(t) if self.meta.node() => Some(NodeId::on(t, self.index[0])),
            _ => None,
        }
    }

    /// The tape this value is recorded on (`None` for a constant).
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(3.0);
    /// assert!(x.tape().is_some_and(|t| core::ptr::eq(t, &*tape)));
    /// assert!(Var::<f64>::constant(1.0).tape().is_none());
    /// ```
    pub fn tape(self) -> Option<&'t TapeView<S>> {
        self.tape
    }

    /// `true` if this value is a constant (on no tape).
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 8>::new();
    /// assert!(!tape.var(3.0).is_constant());
    /// assert!((Var::<f64>::constant(2.0) * 3.0).is_constant());
    /// ```
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

    /// `self^y`, differentiable in both; `d/dy` at `self = 0, y >= 0` is taken as 0.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (x, y) = (tape.var(2.0), tape.var(3.0));
    /// let g = tape.backward(x.pow(y))?;
    /// assert_eq!(g.wrt(x), 12.0); // y x^(y - 1)
    /// assert!((g.wrt(y) - 8.0 * 2.0f64.ln()).abs() < 1e-14); // x^y ln x
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline]
    pub fn pow(self, y: Self) -> Self {
        outlined_binary!(S, self, y, Pow, Pow, Pow);
        self.binary(Op::Pow, y)
    }
    /// The larger of two; equal values split the gradient 0.5/0.5.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (a, b) = (tape.var(2.0), tape.var(5.0));
    /// let g = tape.backward(a.max(b))?;
    /// assert_eq!((g.wrt(a), g.wrt(b)), (0.0, 1.0));
    /// let g = tape.backward(a.max(a * 1.0))?; // a tie
    /// assert_eq!(g.wrt(a), 1.0); // 0.5 + 0.5
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline]
    pub fn max(self, other: Self) -> Self {
        outlined_binary!(S, self, other, Max, Max, Max);
        self.binary(Op::Max, other)
    }
    /// The smaller of two; equal values split the gradient 0.5/0.5.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (a, b) = (tape.var(2.0), tape.var(2.0));
    /// let g = tape.backward(a.min(b))?; // equal: the gradient split
    /// assert_eq!((g.wrt(a), g.wrt(b)), (0.5, 0.5));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline]
    pub fn min(self, other: Self) -> Self {
        outlined_binary!(S, self, other, Min, Min, Min);
        self.binary(Op::Min, other)
    }
    /// The angle of `(x, self)`, `self` being the ordinate (as `f64::atan2`); both partials
    /// are 0 at the origin, where the angle has no derivative.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (y, x) = (tape.var(1.0), tape.var(1.0));
    /// let angle = y.atan2(x);
    /// assert!((angle.value() - core::f64::consts::FRAC_PI_4).abs() < 1e-15);
    /// let g = tape.backward(angle)?;
    /// // (x, -y) / (x^2 + y^2)
    /// assert!((g.wrt(y) - 0.5).abs() < 1e-15 && (g.wrt(x) + 0.5).abs() < 1e-15);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline]
    pub fn atan2(self, x: Self) -> Self {
        outlined_binary!(S, self, x, Atan2, Atan2, Atan2);
        self.binary(Op::Atan2, x)
    }
    /// `sqrt(self^2 + other^2)` without overflow; both partials are 0 at the origin.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (a, b) = (tape.var(3.0), tape.var(4.0));
    /// let h = a.hypot(b);
    /// assert_eq!(h.value(), 5.0);
    /// let g = tape.backward(h)?;
    /// assert_eq!((g.wrt(a), g.wrt(b)), (0.6, 0.8)); // (a, b) / h
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline]
    pub fn hypot(self, other: Self) -> Self {
        outlined_binary!(S, self, other, Hypot, Hypot, Hypot);
        self.binary(Op::Hypot, other)
    }
    /// `(sin self, cos self)` from one call of the scalar's `sin_cos` instead of one each: the
    /// two handles are [`sin`](Self::sin)'s and [`cos`](Self::cos)'s, bit for bit (their rows
    /// of the table of operations, `sin`'s derivative `cos` and `cos`'s `-sin`, taken from the
    /// one pair of values; `tests/sin_cos.rs` compares them). On a tape of
    /// [`Outlined`](crate::Outlined) scalars it records `sin` and `cos`, each out of line.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (r, t) = (tape.var(2.0), tape.var(0.5));
    /// let (s, c) = t.sin_cos();
    /// let (x, y) = (r * c, r * s); // polar to Cartesian
    /// let g = tape.backward(x)?;
    /// assert_eq!((g.wrt(r), g.wrt(t)), (c.value(), -2.0 * s.value()));
    /// let g = tape.backward(y)?;
    /// assert_eq!((g.wrt(r), g.wrt(t)), (s.value(), 2.0 * c.value()));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline(always)]
    pub fn sin_cos(self) -> (Self, Self) {
        if S::OUTLINED {
            return (self.sin(), self.cos());
        }
        let (s, c) = self.value().sin_cos();
        (self.chain(Op::Sin, s, c), self.chain(Op::Cos, c, -s))
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
