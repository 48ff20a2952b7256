//! A [`Statement`] on a tape: its value and partials from the straight-line derivative that
//! `stmt!` generated, each leaf's pending pairs times its partial, written as one statement
//! (or kept in the handle where at most two remain), with one test of the tapes and one of
//! finiteness for the whole expression instead of one per operation.

use super::{address, Half, Meta};
use crate::tape::Slot;
use crate::{Scalar, Statement, TapeView, Var};

impl<'t, S: Scalar> Var<'t, S> {
    /// [`Number::statement`] on a tape. Falls back to the operations one by one (the
    /// expression's [`eval`](Statement::eval)) where they have something to report that one
    /// statement would not: leaves on two tapes (`ForeignVar` on both), a value or partial that
    /// is not finite (NaN provenance names the operation that made it), or no room for the
    /// statement (an operand a leaf where each has one pending pair, else the largest the
    /// leaves could make; the operations record what they need, and the overflow where it does
    /// not fit). Leaves that are all constants give a constant.
    // The leaves come by reference: passed by value, the handle a loop carries from one
    // statement to the next (a running sum) was stored field by field and read back in wider
    // pieces, which a processor cannot forward from the stores (PERFORMANCE.md, "One statement
    // an expression", has the timings; measured again with the handle's count, label and flag
    // in one word, copies of the leaves taken at the top took 15 % longer on Rosenbrock).
    #[inline(always)]
    pub(crate) fn of_statement<E: Statement<L>, const L: usize>(e: &E, x: [&Self; L]) -> Self {
        if cfg!(autograd_fault_injection) {
            // The self-test's wrong rules live in the operations: they must reach these too.
            return fallback(e, x);
        }
        // Leaves of one pending pair each, all on one tape (inputs, a running sum that is the
        // last statement written, `2.0 * x`: the common case): each sends one operand, without
        // the tests of a second pair, and what the statement keeps of such a leaf (`Pair`: its
        // pair, value and word) is all that stays live across the calls an expression makes
        // (`sin`, `exp`, which keep no register). By callgrind (`examples/profile
        // rosenbrock-stmt 1000` and `dense-stmt 1000`, 10 and 20 gradients): 203.9 -> 188.9
        // instructions a term, `dense-stmt` unchanged (575,272 -> 576,274); PERFORMANCE.md,
        // "Leaves of one pair apart", has the timings and the variants measured.
        if let Some(t) = x.first().and_then(|v| v.tape) {
            let at = address(Some(t));
            if x.iter().fold(true, |all, v| {
                all & (v.meta.n() == 1) & (address(v.tape) == at)
            }) {
                return over_pairs(e, t, x.map(Pair::of));
            }
        }
        over_handles(e, x)
    }
}

/// The statement over any leaves (a constant, a leaf of two pairs, leaves of two tapes): each
/// leaf's pending pairs times its partial.
// Inline: out of line, on copies of the leaves, the one-pair path kept less live (174.0
// instructions a Rosenbrock term, `dense-stmt` 552,467), but a leaf of two pairs then cost 29 %
// more instructions and 40 % more time than before (`examples/stmt_leaves`).
#[inline(always)]
fn over_handles<'t, S: Scalar, E: Statement<L>, const L: usize>(
    e: &E,
    x: [&Var<'t, S>; L],
) -> Var<'t, S> {
    // The value and partials first: where the expression calls functions, little else of
    // the leaves is live across the calls. (Pure: a fallback below only discards them.)
    let (value, d) = e.jacobian(x.map(|v| v.value));
    // The leaves' tape: the first one's where every leaf is on it (compared by address, as
    // the operators compare tapes), the common case, tested first; else the first tape of
    // any leaf, the others on it or constants (`one_tape`). (cargo-mutants' mutants of the
    // guard survive: where it fails, `one_tape` finds the same tape, more slowly.)
    let t = match x.first().and_then(|v| v.tape) {
        Some(t) if x.iter().all(|v| address(v.tape) == address(Some(t))) => t,
        _ => match one_tape(x.map(|v| v.tape)) {
            Some(t) => t,
            None => return fallback(e, x),
        },
    };
    let Some((w, values)) = t.free_slots(2 * L + 1) else {
        return fallback(e, x);
    };
    // Each leaf's pending pairs times its partial, written as operands as they come.
    let mut operands = Operands::new(w, values, value);
    for (v, &dk) in x.iter().zip(&d) {
        if v.meta.n() >= 1 {
            operands.send::<E, L>(v.index[0], v.partial[0] * dk);
        }
        if v.meta.n() >= 2 {
            operands.send::<E, L>(v.index[1], v.partial[1] * dk);
        }
    }
    match operands.finish::<E, L>(t) {
        Some(r) => r,
        None => fallback(e, x),
    }
}

/// What [`Var::of_statement`] needs of a leaf of one pending pair on its tape: the pair, the
/// value and the word. Such a handle's second pair is zeros (a statement's handle is made so,
/// and every operation that leaves one pair keeps them: checked in debug builds), so it is
/// rebuilt from these exactly where the expression falls back.
#[derive(Clone, Copy)]
struct Pair<S: Scalar> {
    partial: S,
    index: u32,
    value: S,
    meta: Meta,
}

impl<S: Scalar> Pair<S> {
    #[inline(always)]
    fn of(v: &Var<'_, S>) -> Self {
        debug_assert!(
            v.meta.n() == 1 && v.partial[1] == S::ZERO && v.index[1] == 0,
            "a handle of one pair has zeros for its second"
        );
        Pair {
            partial: v.partial[0],
            index: v.index[0],
            value: v.value,
            meta: v.meta,
        }
    }

    /// The handle again, on tape `t`.
    #[inline(always)]
    fn handle(self, t: &TapeView<S>) -> Var<'_, S> {
        Var {
            tape: Some(t),
            value: self.value,
            partial: [self.partial, S::ZERO],
            index: [self.index, 0],
            meta: self.meta,
        }
    }
}

/// The statement over leaves of one pair each on tape `t`: an operand a leaf, its partial
/// times the expression's (1 for a statement's own handle: the product is exact).
#[inline(always)]
fn over_pairs<'t, S: Scalar, E: Statement<L>, const L: usize>(
    e: &E,
    t: &'t TapeView<S>,
    leaves: [Pair<S>; L],
) -> Var<'t, S> {
    let (value, d) = e.jacobian(leaves.map(|l| l.value));
    // An operand a leaf, and a header: room for these is all the statement needs.
    let written = match t.free_slots(L + 1) {
        Some((w, values)) => {
            let mut operands = Operands::new(w, values, value);
            for (l, &dk) in leaves.iter().zip(&d) {
                operands.send::<E, L>(l.index, l.partial * dk);
            }
            operands.finish::<E, L>(t)
        }
        None => None,
    };
    match written {
        Some(r) => r,
        None => fallback_of(e, leaves.map(|l| l.handle(t))),
    }
}

/// A statement's operands as they are written into the free slots `w` (`values`: the slots
/// their values are in), with the test of their finiteness.
struct Operands<'w, S: Scalar> {
    w: &'w [Slot<S>],
    values: &'w [Slot<S>],
    value: S,
    finite: bool,
    all: S,
    count: usize,
}

impl<'w, S: Scalar> Operands<'w, S> {
    #[inline(always)]
    fn new(w: &'w [Slot<S>], values: &'w [Slot<S>], value: S) -> Self {
        Operands {
            w,
            values,
            value,
            finite: value.is_finite(),
            all: value,
            count: 0,
        }
    }

    /// One operand. Where the expression holds an operation that is flat over intervals
    /// (`Statement::CUTS`), a zero partial is written over by the next: it sends nothing, as
    /// the operation's zero derivative cuts the dependence operation by operation
    /// (`Var::chain`). Elsewhere every partial is an operand, as `x * y` at `y = 0` keeps `x`
    /// (and the count depends on the leaves' pairs alone, not on a test of each partial: by
    /// callgrind on `examples/profile rosenbrock-stmt`, 249.7 instructions a term with the
    /// test, 236.7 without, measured with the leaves passed by value).
    /// Finiteness of the value and every partial: where a product is cheap (hardware floating
    /// point), one running product tests them all (a factor that is not finite makes it so;
    /// products that overflow only send the expression to the fallback, which records the same
    /// values operation by operation); where it is not (`Scalar::COSTLY_PRODUCT`: a soft-float
    /// part, fixed point), a test each. (A running sum would do as well: cargo-mutants' `+=`
    /// for `*=` survives.)
    #[inline(always)]
    fn send<E: Statement<L>, const L: usize>(&mut self, index: u32, p: S) {
        if S::COSTLY_PRODUCT {
            self.finite &= p.is_finite();
        } else {
            self.all *= p;
        }
        if let Some(s) = self.w.get(self.count) {
            s.put_operand(index, p);
        }
        self.count += if E::CUTS { !p.is_zero() as usize } else { 1 };
    }

    /// The result: a constant-like handle of no pair, one or two pairs kept pending in the
    /// handle, or the statement written; `None` where a value or a sum of two partials at one
    /// index is not finite (the expression falls back).
    #[inline(always)]
    fn finish<'t, E: Statement<L>, const L: usize>(self, t: &'t TapeView<S>) -> Option<Var<'t, S>> {
        let (w, values, value, count) = (self.w, self.values, self.value, self.count);
        let finite = if S::COSTLY_PRODUCT {
            self.finite
        } else {
            self.all.is_finite()
        };
        if !finite {
            return None;
        }
        let operand = |k: usize| (w[k].link(), w[k].partial());
        let pending = |n: Half, index: [u32; 2], partial: [S; 2]| Var {
            tape: Some(t),
            value,
            partial,
            index,
            meta: Meta::new(n, E::OP, false),
        };
        Some(match count {
            0 => pending(0, [0, 0], [S::ZERO, S::ZERO]),
            1 => pending(1, [operand(0).0, 0], [operand(0).1, S::ZERO]),
            2 => {
                let ((i, p), (j, q)) = (operand(0), operand(1));
                if i != j {
                    return Some(pending(2, [i, j], [p, q]));
                }
                let s = p + q;
                if !s.is_finite() {
                    return None;
                }
                pending(1, [i, 0], [s, S::ZERO])
            }
            _ => {
                w[count].put_header(E::OP, count);
                values[count].set_value(value);
                let index = t.len() + count;
                t.commit(count + 1);
                Var::statement(t, index as u32, value, E::OP)
            }
        })
    }
}

/// The leaves' tape where they are not all on the first leaf's: the first tape a leaf is on,
/// if every other leaf is on it or a constant; `None` if all are constants or two tapes meet.
/// Out of line: a leaf that is a constant (Rosenbrock's running sum before its first term) or
/// one of another tape (an error) is what brings a statement here. It takes the leaves' tapes,
/// not references to the leaves.
// Given the references, the leaves' places escaped into the call, and LLVM kept the leaves (the
// running sum a loop carries) in the stack on the hot path too, stored and loaded again every
// statement (`examples/alternate`: `stmt!`'s Rosenbrock gradient took about 15 % longer at
// n = 1000 and 20 % at n = 100; PERFORMANCE.md, "The leading leaves taken on trust").
#[inline(never)]
fn one_tape<S: Scalar, const L: usize>(tapes: [Option<&TapeView<S>>; L]) -> Option<&TapeView<S>> {
    let t = tapes.iter().find_map(|&t| t)?;
    let at = address(Some(t));
    let apart = tapes.iter().any(|&u| address(u) != 0 && address(u) != at);
    (!apart).then_some(t)
}

/// [`operations`] on copies of the leaves: the statement's result where it falls back.
#[inline(always)]
fn fallback<'t, S: Scalar, E: Statement<L>, const L: usize>(
    e: &E,
    x: [&Var<'t, S>; L],
) -> Var<'t, S> {
    fallback_of(e, x.map(|v| *v))
}

/// [`fallback`] on the leaves themselves. The handle [`operations`] returns is rebuilt field by
/// field around an opaque copy of its pair count (`black_box`, an identity), so that it is not
/// the place the out-of-line call writes its result into.
// A handle is returned through memory. Returned as it came, LLVM had the call write into the
// place of `of_statement`'s own result, which then lived in the stack on every path: the running
// sum a loop carries was stored after every statement and loaded again at the top of the next
// (seven stores and seven loads a Rosenbrock term). Rebuilt, only the cold path copies it.
// `examples/alternate rosenbrock 1000`, three rounds by turns: `stmt!` 10.86-11.06 -> 10.50-10.61
// us; callgrind (`examples/profile`, 10 and 20 gradients) rosenbrock-stmt 205.9 -> 203.9
// instructions a term, dense-stmt 578,270 -> 575,272 a gradient. (The whole handle through
// `black_box` was copied back into that same place: 217.9 instructions a term, no faster. With
// the count and label as two fields, the count alone through it: 187.0 instructions a term;
// both, 190.9.)
#[inline(always)]
fn fallback_of<'t, S: Scalar, E: Statement<L>, const L: usize>(
    e: &E,
    x: [Var<'t, S>; L],
) -> Var<'t, S> {
    let r = operations(e, x);
    Var {
        meta: Meta {
            n: core::hint::black_box(r.meta.n),
            ..r.meta
        },
        ..r
    }
}

/// The expression recorded operation by operation: the fallback, out of line (inlined, it made
/// the leaves live in memory on every path: Rosenbrock's running sum went through the stack
/// with every term). It takes copies of the leaves, made on the cold path, not the references:
/// given those, the leaves' places escaped into the call, and LLVM kept the running sum in the
/// stack on the hot path too (by `examples/alternate`, `stmt!`'s Rosenbrock gradient at n =
/// 1000 about 6 % slower, at 100 about 2 %; `dense` the same).
#[cold]
#[inline(never)]
fn operations<'t, S: Scalar, E: Statement<L>, const L: usize>(
    e: &E,
    x: [Var<'t, S>; L],
) -> Var<'t, S> {
    e.eval(x)
}
