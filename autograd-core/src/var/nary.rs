//! N-ary statements: `sum`, `dot`, `affine` (a neuron's `w · x + b`) and `mul_add`, each one
//! statement with an operand per pending partial of every term, however long the slices (past
//! 2^23 - 1 operands, more than a header counts, a chain of statements: `TapeView::spread`).
//!
//! A term is a handle and the partial of the result with respect to it (`y_i` for `x_i` in a dot
//! product). Terms whose partial is exactly zero are left out ([`left_out`]): a weight times an
//! inactive relu costs no slot. The terms are visited twice, by plain loops (no iterator
//! adapters: on a microcontroller those did not optimise away): once to count and check the
//! tape, once to write.

use crate::op::Op;
use crate::tape::{Leaves, Slot, TapeView, MAX_OPERANDS, POISON};
use crate::{Scalar, TapeError};

use super::combine::all_finite;
use super::{Meta, Var};

/// `true` for a term of value `x` and partial `d` that the statement leaves out: a zero partial,
/// unless the term's value is not finite. Then its product (`NaN * 0`, `inf * 0`) is NaN, and
/// the term keeps its pairs (their partials 0) so that NaN provenance follows them back to where
/// the NaN arose rather than naming this statement. `finite` says the statement's value is: then
/// no such term exists (its NaN would be in the sum) and `x` is not tested. (By callgrind on
/// `examples/profile moons 3`/`13`, the moons loss's `dot` of 337 parameters, the L2 penalty,
/// took 19,746 instructions a gradient leaving out every zero partial, 21,828 testing `x`
/// wherever `d` is 0, and 20,516 like this.)
#[inline(always)]
fn left_out<S: Scalar>(x: S, d: S, finite: bool) -> bool {
    d.is_zero() && (finite || x.is_finite())
}

/// The terms of one n-ary statement.
trait Terms<'t, S: Scalar> {
    /// Calls `f(handle, partial)` for every term, in order.
    fn each(&self, f: impl FnMut(Var<'t, S>, S));
    /// The most operands the statement can have (two pending pairs per term).
    fn bound(&self) -> usize;
    /// The tape of the first term that has one.
    fn first_tape(&self) -> Option<&'t TapeView<S>>;
    /// Writes the terms' pending pairs, each partial times its term's (a term whose partial is
    /// zero is left out: [`left_out`], `finite` saying whether the statement's value is), into
    /// `w` from its first slot, in order, and returns how many; `None` if a term is on a tape
    /// other than `t` (the caller takes back what was written). `w` holds
    /// [`bound`](Self::bound) slots.
    #[inline(always)]
    fn write(&self, t: &TapeView<S>, w: &[Slot<S>], finite: bool) -> Option<usize> {
        let (mut k, mut other) = (0, None);
        self.each(|x, d| {
            if let Some(b) = x.tape.filter(|b| !core::ptr::addr_eq(*b, t)) {
                other = Some(b);
            }
            if left_out(x.value, d, finite) {
                return;
            }
            for j in 0..x.meta.n() as usize {
                if let Some(slot) = w.get(k) {
                    slot.put_operand(x.index[j], x.partial[j] * d);
                    k += 1;
                }
            }
        });
        other.is_none().then_some(k)
    }
}

/// The terms of a product `x y` in a dot product: `x` with partial `y` and `y` with partial `x`;
/// where `x` and `y` are one statement `s` (`sum p^2`), `s` once with partial `s + s`, if that
/// is finite (as [`LeafDot`] writes a run with itself).
#[inline(always)]
fn product<'t, S: Scalar>(x: Var<'t, S>, y: Var<'t, S>, f: &mut impl FnMut(Var<'t, S>, S)) {
    if x.meta.node() & y.meta.node() & (x.index[0] == y.index[0]) && x.same_tape(y) {
        let d = x.value + y.value;
        if d.is_finite() {
            return f(x, d);
        }
    }
    f(x, y.value);
    f(y, x.value);
}

struct Sum<'a, 't, S: Scalar>(&'a [Var<'t, S>]);
struct Dot<'a, 't, S: Scalar>(&'a [Var<'t, S>], &'a [Var<'t, S>]);
struct Affine<'a, 't, S: Scalar>(&'a [Var<'t, S>], &'a [Var<'t, S>], Var<'t, S>);

impl<'t, S: Scalar> Terms<'t, S> for Sum<'_, 't, S> {
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(Var<'t, S>, S)) {
        for x in self.0 {
            f(*x, S::ONE);
        }
    }
    fn bound(&self) -> usize {
        2 * self.0.len()
    }
    fn first_tape(&self) -> Option<&'t TapeView<S>> {
        self.0.iter().find_map(|x| x.tape)
    }
}

impl<'t, S: Scalar> Terms<'t, S> for Dot<'_, 't, S> {
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(Var<'t, S>, S)) {
        for (x, y) in self.0.iter().zip(self.1) {
            product(*x, *y, &mut f);
        }
    }
    fn bound(&self) -> usize {
        4 * self.0.len().min(self.1.len())
    }
    fn first_tape(&self) -> Option<&'t TapeView<S>> {
        self.0.iter().chain(self.1).find_map(|x| x.tape)
    }
}

impl<'t, S: Scalar> Terms<'t, S> for Affine<'_, 't, S> {
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(Var<'t, S>, S)) {
        Dot(self.0, self.1).each(&mut f);
        f(self.2, S::ONE);
    }
    fn bound(&self) -> usize {
        Dot(self.0, self.1).bound() + 2
    }
    fn first_tape(&self) -> Option<&'t TapeView<S>> {
        Dot(self.0, self.1).first_tape().or(self.2.tape)
    }
}

/// A row of a layer over [`Leaves`]: its `k` weights and its bias, then the inputs `x` (the
/// terms of [`Affine`] over the same handles, in the same order).
struct LeafAffine<'a, 't, S: Scalar>(Leaves<'t, S>, &'a [Var<'t, S>]);

impl<'t, S: Scalar> Terms<'t, S> for LeafAffine<'_, 't, S> {
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(Var<'t, S>, S)) {
        let leaf = |i| self.0.get(i).unwrap_or(Var::constant(S::ZERO));
        for (i, x) in self.1.iter().enumerate() {
            let w = leaf(i);
            f(w, x.value);
            f(*x, w.value);
        }
        f(leaf(self.1.len()), S::ONE);
    }
    fn bound(&self) -> usize {
        4 * self.1.len() + 2
    }
    fn first_tape(&self) -> Option<&'t TapeView<S>> {
        Some(self.0.tape())
    }
}

/// A dot product over two runs of [`Leaves`]: the terms of [`Dot`] over their handles, in the
/// same order, each handle made where it is used (no array of handles).
struct LeafDot<'t, S: Scalar>(Leaves<'t, S>, Leaves<'t, S>);

impl<'t, S: Scalar> Terms<'t, S> for LeafDot<'t, S> {
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(Var<'t, S>, S)) {
        let leaf = |l: &Leaves<'t, S>, i| l.get(i).unwrap_or(Var::constant(S::ZERO));
        for i in 0..self.0.len().min(self.1.len()) {
            product(leaf(&self.0, i), leaf(&self.1, i), &mut f);
        }
    }
    fn bound(&self) -> usize {
        // (A leaf is one pending pair.)
        2 * self.0.len().min(self.1.len())
    }
    fn first_tape(&self) -> Option<&'t TapeView<S>> {
        Some(self.0.tape()).filter(|_| !self.0.is_empty())
    }
    /// The pairs [`Terms::write`] gives, from the two runs' slots: a leaf is one pending pair
    /// (its index, partial 1), so no handle is made per term.
    #[inline(always)]
    fn write(&self, t: &TapeView<S>, w: &[Slot<S>], finite: bool) -> Option<usize> {
        let on_t = |l: &Leaves<'t, S>| core::ptr::addr_eq(l.tape(), t);
        if !(on_t(&self.0) && on_t(&self.1)) {
            return None;
        }
        let (ia, ib) = (self.0.first_index(), self.1.first_index());
        let mut k = 0;
        if ia == ib {
            // A run with itself (an L2 penalty, `sum p^2`): a leaf's two operands, each of
            // partial `p`, are one of partial `p + p` where that is finite (else both, as below),
            // as [`Dot`] gives them over the leaves' handles.
            // (A finite `2 p` is left out where it is 0, as `left_out` would: `p` is then
            // finite too. Where it is not, neither partial `p` is 0.)
            for (i, x) in (0..).zip(self.0.values()) {
                let (v, leaf) = (x.value(), ia.wrapping_add(i));
                let d = v + v;
                if d.is_finite() {
                    if let (false, Some(slot)) = (d.is_zero(), w.get(k)) {
                        slot.put_operand(leaf, d);
                        k += 1;
                    }
                } else if let Some([a, b]) = w.get(k..k + 2) {
                    a.put_operand(leaf, v);
                    b.put_operand(leaf, v);
                    k += 2;
                }
            }
            return Some(k);
        }
        for (i, (x, y)) in self.0.values().iter().zip(self.1.values()).enumerate() {
            for (leaf, v, d) in [(ia, x.value(), y.value()), (ib, y.value(), x.value())] {
                if let (false, Some(slot)) = (left_out(v, d, finite), w.get(k)) {
                    slot.put_operand(leaf.wrapping_add(i as u32), d);
                    k += 1;
                }
            }
        }
        Some(k)
    }
}

/// `w · x + b` over a row of leaves `row` (its `x.len()` weights, then the bias), whose value
/// `value` the layer writer has summed, as [`Var::affine`] writes it over their handles where it
/// cannot be a layer statement.
pub(super) fn affine_of_leaves<'t, S: Scalar>(
    row: Leaves<'t, S>,
    x: &[Var<'t, S>],
    value: S,
) -> Var<'t, S> {
    nary(Op::Dot, value, &LeafAffine(row, x))
}

/// The result of an n-ary statement that turned out to have `written <= 2` operands `p`, `q`
/// (the first `written` meaningful): a handle carrying them (one pair if they share an index), as
/// the exact path's fold would give, or `None` where a value or partial is not finite or none
/// was written (the exact path then decides).
#[inline(always)]
fn folded<'t, S: Scalar>(
    t: &'t TapeView<S>,
    op: Op,
    value: S,
    written: usize,
    p: (u32, S),
    q: (u32, S),
) -> Option<Var<'t, S>> {
    let (partial, index, n) = match written {
        // None written: a value on the tape that depends on nothing (the exact path builds it,
        // with the label of a non-finite term if there is one; rare).
        0 => return None,
        1 => ([p.1, S::ZERO], [p.0, 0], 1),
        _ if p.0 == q.0 => ([p.1 + q.1, S::ZERO], [p.0, 0], 1),
        _ => ([p.1, q.1], [p.0, q.0], 2),
    };
    // The exact path tests each partial sum it forms, with the test every operation uses (on
    // hardware floats one product, which may overflow and then writes a statement): take this
    // shortcut only where all of those tests pass, so both paths write the same slots.
    let first = [p.1, S::ZERO];
    if !(value.is_finite() && all_finite(value, first) && all_finite(value, partial)) {
        return None;
    }
    Some(Var {
        tape: Some(t),
        value,
        partial,
        index,
        meta: Meta::new(n, op, false),
    })
}

/// One statement `value = sum_k d_k x_k` over the terms' pending pairs (see the module docs).
#[inline]
fn nary<'t, S: Scalar>(op: Op, value: S, terms: &impl Terms<'t, S>) -> Var<'t, S> {
    // (Whether a term with a zero partial may be left out without testing its value: `left_out`.)
    let finite = value.is_finite();
    // One pass when the tape has room for the most operands the terms can have: the statement is
    // written while the terms are checked (a neuron's product visits each term once). If it
    // turns out to need at most two operands, or a term is on another tape, it is taken back and
    // the exact path below decides.
    if let Some(t) = terms.first_tape() {
        let bound = terms.bound();
        let before = t.len();
        if bound > 2 && bound <= MAX_OPERANDS && before + bound < t.capacity() {
            let mut written = None;
            let index = t.push_with(op, value, bound, |w: &[Slot<S>]| {
                written = terms.write(t, w, finite);
                written.unwrap_or(0)
            });
            if let (Some(written), true) = (written, index != POISON) {
                if written > 2 {
                    return Var::labelled(t, index, value, op);
                }
                // At most two operands (terms with a zero partial, such as a neuron's zero
                // inputs, were left out): they are the result's pending pairs. Read them back
                // rather than visiting the terms again (by the firmware's instruction count, the
                // second visit cost an XOR training step 12% more instructions).
                let [p, q] = t.operands_at(before);
                t.take_back(before);
                if let Some(r) = folded(t, op, value, written, p, q) {
                    return r;
                }
            } else {
                t.take_back(before);
            }
        }
    }
    let mut tape: Option<&'t TapeView<S>> = None;
    let mut foreign_pair = None;
    let mut count = 0;
    terms.each(|x, d| {
        match (tape, x.tape) {
            (Some(a), Some(b)) if !core::ptr::addr_eq(a, b) => foreign_pair = Some((a, b)),
            (None, b) => tape = b,
            _ => {}
        }
        if !left_out(x.value, d, finite) {
            count += x.meta.n() as usize;
        }
    });
    if let Some((a, b)) = foreign_pair {
        return Var::between_tapes(a, b, value);
    }
    let Some(t) = tape else {
        return Var::constant(value);
    };
    // A non-finite result is written as one statement of every term's pairs, as a longer one
    // is: folded term by term, each step would write the value it cannot hold, a statement per
    // term, and NaN provenance would name the first of them rather than the result.
    if count <= 2 && finite {
        // Fits in a handle: fold it, as two-input operations do.
        let mut r = Var::constant(value);
        terms.each(|x, d| {
            if !left_out(x.value, d, true) {
                r = r.combine(op, value, S::ONE, x, d);
            }
        });
        // (`combine` tested `value` and the partials at every step; a result it wrote, a
        // partial that overflowed, stays a statement.)
        if r.tape.is_none() {
            // Terms on the tape whose partials are all zero: a value on the tape that depends
            // on nothing, as `x * 0.0` is, not a constant (its sweep gives zeros rather than
            // `NotRecorded`, the same on every scalar type). Finite here, so nothing to settle.
            return Var {
                tape: Some(t),
                meta: r.meta.with_op(op),
                ..r
            };
        }
        return Var {
            meta: r.meta.with_op(op),
            ..r
        };
    }
    // (Every term is on `t` by now: `write` finds none elsewhere.)
    let index = t.push_with(op, value, count, |w: &[Slot<S>]| {
        terms.write(t, w, finite).unwrap_or(0)
    });
    Var::labelled(t, index, value, op)
}

impl<'t, S: Scalar> Var<'t, S> {
    /// `self * a + b` as one operation (one statement at most).
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (x, a, b) = (tape.var(2.0), tape.var(3.0), tape.var(4.0));
    /// let y = x.mul_add(a, b); // x a + b
    /// assert_eq!(y.value(), 10.0);
    /// let g = tape.backward(y)?;
    /// assert_eq!((g.wrt(x), g.wrt(a), g.wrt(b)), (3.0, 2.0, 1.0));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        let value = self.value * a.value + b.value;
        if self.meta.n() + a.meta.n() + b.meta.n() <= 2 || self.tape.or(a.tape).or(b.tape).is_none()
        {
            return self * a + b;
        }
        nary(Op::MulAdd, value, &Affine(&[self], &[a], b))
    }

    /// Sum of a slice as one statement (the constant 0 for an empty slice).
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 8>::new();
    /// let xs = [tape.var(1.0), tape.var(2.0), tape.var(3.0)];
    /// let s = Var::sum(&xs);
    /// assert_eq!(s.value(), 6.0);
    /// assert_eq!(tape.backward(s)?.wrt(xs[1]), 1.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn sum(xs: &[Self]) -> Self {
        let value = xs.iter().fold(S::ZERO, |s, x| s + x.value);
        nary(Op::Sum, value, &Sum(xs))
    }

    /// `w · x + b` as one statement (a neuron's pre-activation), summed in the order
    /// `((b + w0 x0) + w1 x1) + ...` like [`Number::affine`](crate::Number::affine) on plain
    /// numbers.
    ///
    /// When the weights and then the bias are consecutive leaves (a network's parameters
    /// recorded in order) and no input carries more than one pending partial, the statement
    /// implies the weights: a layer statement of one row (see [`Var::affine_layer`]), one slot
    /// per input, one naming the first weight and a header (`n + 2` slots, where the general
    /// write takes one per weight and one per recorded input).
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if `w` and `x` differ in length.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 16>::new();
    /// let w = [tape.var(0.5), tape.var(-1.0)];
    /// let b = tape.var(0.25);
    /// let y = Var::affine(&w, &[Var::constant(4.0), Var::constant(3.0)], b)?;
    /// assert_eq!(y.value(), -0.75);
    /// let g = tape.backward(y)?;
    /// assert_eq!((g.wrt(w[0]), g.wrt(w[1]), g.wrt(b)), (4.0, 3.0, 1.0));
    /// // Three consecutive leaves, then a slot per input, one naming w[0], and a header.
    /// assert_eq!(tape.len(), 3 + 4);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn affine(w: &[Self], x: &[Self], b: Self) -> Result<Self, TapeError> {
        if w.len() != x.len() {
            return Err(TapeError::LengthMismatch {
                what: "affine's inputs",
                expected: w.len(),
                found: x.len(),
            });
        }
        if let Some(r) = super::layer::neuron(w, x, b) {
            return Ok(r);
        }
        let value = w
            .iter()
            .zip(x)
            .fold(b.value, |s, (wi, xi)| s + wi.value * xi.value);
        Ok(nary(Op::Dot, value, &Affine(w, x, b)))
    }

    /// Dot product `sum_i a[i] * b[i]` as one statement.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if the slices differ in length.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 16>::new();
    /// let w = [tape.var(0.5), tape.var(-1.0)];
    /// let x = [tape.var(4.0), tape.var(3.0)];
    /// let y = Var::dot(&w, &x)?;
    /// assert_eq!(y.value(), -1.0);
    /// assert_eq!(tape.backward(y)?.wrt(w[0]), 4.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn dot(a: &[Self], b: &[Self]) -> Result<Self, TapeError> {
        if a.len() != b.len() {
            return Err(TapeError::LengthMismatch {
                what: "dot's second operand",
                expected: a.len(),
                found: b.len(),
            });
        }
        let value = a
            .iter()
            .zip(b)
            .fold(S::ZERO, |s, (x, y)| s + x.value * y.value);
        Ok(nary(Op::Dot, value, &Dot(a, b)))
    }

    /// [`Var::dot`] over two runs of leaves, checked once ([`TapeView::leaves`]): the same
    /// value, statement and gradients as `dot` over their handles, without an array of handles
    /// (the values are read from the leaves' slots). `Var::dot_of(p, p)` is the sum of squares
    /// of a network's parameters, the L2 penalty `autograd-nn`'s trainer records.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if `a` and `b` differ in length.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 16>::new();
    /// let p = [tape.var(0.5), tape.var(-1.0), tape.var(2.0)];
    /// let leaves = tape.leaves(p[0].id().unwrap(), 3)?;
    /// let l2 = Var::dot_of(leaves, leaves)?;
    /// assert_eq!(l2.value(), 0.25 + 1.0 + 4.0);
    /// // d(sum p^2)/dp = 2 p.
    /// assert_eq!(tape.backward(l2)?.wrt(p[1]), -2.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn dot_of(a: Leaves<'t, S>, b: Leaves<'t, S>) -> Result<Self, TapeError> {
        if a.len() != b.len() {
            return Err(TapeError::LengthMismatch {
                what: "dot_of's second operand",
                expected: a.len(),
                found: b.len(),
            });
        }
        let (xs, ys) = (a.values(), b.values());
        let value = xs
            .iter()
            .zip(ys)
            .fold(S::ZERO, |s, (x, y)| s + x.value() * y.value());
        Ok(nary(Op::Dot, value, &LeafDot(a, b)))
    }
}
