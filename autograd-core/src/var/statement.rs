//! A [`Statement`] on a tape: its value and partials from the straight-line derivative that
//! `stmt!` generated, each leaf's pending pairs times its partial, written as one statement
//! (or kept in the handle where at most two remain), with one test of the tapes and one of
//! finiteness for the whole expression instead of one per operation.

use super::{address, Meta};
use crate::{Scalar, Statement, TapeView, Var};

impl<'t, S: Scalar> Var<'t, S> {
    /// [`Number::statement`] on a tape. Falls back to the operations one by one (the
    /// expression's [`eval`](Statement::eval)) where they have something to report that one
    /// statement would not: leaves on two tapes (`ForeignVar` on both), a value or partial that
    /// is not finite (NaN provenance names the operation that made it), or no room for the
    /// largest statement the leaves could make (the operations record what they need, and the
    /// overflow where it does not fit). Leaves that are all constants give a constant.
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
        // The value and partials first: where the expression calls functions (`sin`, `exp`),
        // nothing else of the leaves is live across the calls, which keep no register. (Pure:
        // a fallback below only discards them.)
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
        let Some(w) = t.free_slots(2 * L + 1) else {
            return fallback(e, x);
        };
        // Each leaf's pending pairs times its partial, written as operands as they come. Where
        // the expression holds an operation that is flat over intervals (`Statement::CUTS`), a
        // zero product is written over by the next: it sends nothing, as the operation's zero
        // derivative cuts the dependence operation by operation (`Var::chain`). Elsewhere every
        // product is an operand, as `x * y` at `y = 0` keeps `x` (and the count depends on the
        // leaves' pairs alone, not on a test of each product: by callgrind on
        // `examples/profile rosenbrock-stmt`, 249.7 instructions a term with the test, 236.7
        // without, measured with the leaves passed by value).
        // Finiteness of the value and every product: where a product is cheap (hardware
        // floating point), one running product tests them all (a factor that is not finite
        // makes it so; products that overflow only send the expression to the fallback, which
        // records the same values operation by operation); where it is not
        // (`Scalar::COSTLY_PRODUCT`: a soft-float part, fixed point), a test each. (A running
        // sum would do as well: cargo-mutants' `+=` for `*=` survives.)
        let mut finite = value.is_finite();
        let mut all = value;
        let mut count = 0;
        let mut send = |index: u32, p: S| {
            if S::COSTLY_PRODUCT {
                finite &= p.is_finite();
            } else {
                all *= p;
            }
            if let Some(s) = w.get(count) {
                s.put_operand(index, p);
            }
            count += if E::CUTS { !p.is_zero() as usize } else { 1 };
        };
        // Leaves that are all statements themselves (inputs, a running sum that is the last
        // statement written: the common case) have one pair each with partial 1: their operands
        // are the expression's partials as they are, without the products or the tests of each
        // leaf's pair count. By callgrind (`examples/profile rosenbrock-stmt 1000` 10 and 20
        // gradients) 218.9 -> 205.9 instructions a term; `dense-stmt` 598,217 -> 578,270 a
        // gradient.
        if x.iter().all(|v| v.meta.node()) {
            for (v, &dk) in x.iter().zip(&d) {
                debug_assert!(
                    v.meta.n() == 1 && v.partial[0] == S::ONE,
                    "a node is itself"
                );
                send(v.index[0], dk);
            }
        } else {
            for (v, &dk) in x.iter().zip(&d) {
                if v.meta.n() >= 1 {
                    send(v.index[0], v.partial[0] * dk);
                }
                if v.meta.n() >= 2 {
                    send(v.index[1], v.partial[1] * dk);
                }
            }
        }
        let finite = if S::COSTLY_PRODUCT {
            finite
        } else {
            all.is_finite()
        };
        if !finite {
            return fallback(e, x);
        }
        let operand = |k: usize| (w[k].link(), w[k].x());
        let pending = |n: u8, index: [u32; 2], partial: [S; 2]| Var {
            tape: Some(t),
            value,
            partial,
            index,
            meta: Meta::new(n, E::OP, false),
        };
        match count {
            0 => pending(0, [0, 0], [S::ZERO, S::ZERO]),
            1 => pending(1, [operand(0).0, 0], [operand(0).1, S::ZERO]),
            2 => {
                let ((i, p), (j, q)) = (operand(0), operand(1));
                if i != j {
                    return pending(2, [i, j], [p, q]);
                }
                let s = p + q;
                if !s.is_finite() {
                    return fallback(e, x);
                }
                pending(1, [i, 0], [s, S::ZERO])
            }
            _ => {
                w[count].put_header(value, E::OP, count);
                let index = t.len() + count;
                t.commit(count + 1);
                Var::statement(t, index as u32, value, E::OP)
            }
        }
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

/// [`operations`] on copies of the leaves: the statement's result where it falls back. The
/// same handle, rebuilt field by field around an opaque copy of its word (`black_box`, an
/// identity), so that it is not the place the out-of-line call writes its result into.
// A handle is returned through memory. Returned as it came, LLVM had the call write into the
// place of `of_statement`'s own result, which then lived in the stack on every path: the running
// sum a loop carries was stored after every statement and loaded again at the top of the next
// (seven stores and seven loads a Rosenbrock term). Rebuilt, only the cold path copies it.
// `examples/alternate rosenbrock 1000`, three rounds by turns: `stmt!` 10.86-11.06 -> 10.50-10.61
// us; callgrind (`examples/profile`, 10 and 20 gradients) rosenbrock-stmt 205.9 -> 203.9
// instructions a term, dense-stmt 578,270 -> 575,272 a gradient. (The whole handle through
// `black_box` was copied back into that same place: 217.9 instructions a term, no faster.)
#[inline(always)]
fn fallback<'t, S: Scalar, E: Statement<L>, const L: usize>(
    e: &E,
    x: [&Var<'t, S>; L],
) -> Var<'t, S> {
    let r = operations(e, x.map(|v| *v));
    Var {
        meta: Meta(core::hint::black_box(r.meta.0)),
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
