//! The out-of-line half of [`Var`]'s operations: the statements `combine` writes when two
//! handles' pairs do not fit in one (`write_apart`, `merge_shared`), the statement a non-finite
//! result becomes (`non_finite`), and the failures (`foreign`, `unreachable_tape`). They take
//! and return plain values (indices packed two to an integer), so that the inlined operations
//! that call them keep their handles in registers.

use super::Half;
use crate::op::Op;
use crate::tape::{TapeView, POISON};
use crate::{Scalar, TapeError};

/// `true` if no index of `i` equals one of `j`, the unused second index of a one-pair handle
/// included (whatever it holds: a statement's handle holds 0 there). Called where the two
/// handles hold three or four pairs, so at most one of them has an unused index.
///
/// A speed test, not a rule: where it says `false` without an index in common (an unused index
/// that happens to equal one of the other's, or the mutants `false` for all and several of
/// the operators below), the last arm of `merge_shared` writes the statement `write_apart`
/// would; where it says `true` for two handles of two pairs with one index in common (a
/// mutant), `write_apart` writes the four operands `merge_shared` would (the common index
/// twice). Where the two handles depend on two values only it must say `false`, or a statement
/// is written where the result should keep two pairs: `tests/preaccumulation.rs` tests each such
/// shape. Comparing the unused index too saves the tests of the pair counts: by callgrind on
/// `examples/profile` (10 and 20 gradients), Rosenbrock 357.8 -> 346.8 instructions a term,
/// `dense` 798,235 -> 780,775 a gradient (the unused index 0, as a statement's handle holds it:
/// with `POISON` there, never a real index, 352.8 and 792,380, and the `Trainer` step 0.9 %
/// more).
#[inline(always)]
pub(super) fn unshared(i: [u32; 2], j: [u32; 2]) -> bool {
    !((i[0] == j[0]) | (i[0] == j[1]) | (i[1] == j[0]) | (i[1] == j[1]))
}

/// Two indices in one integer, so that they travel in one register. (The halves share no bit:
/// `^` for `|` is the same, and that mutant survives.)
#[inline(always)]
pub(super) fn pack(i: [u32; 2]) -> u64 {
    i[0] as u64 | (i[1] as u64) << 32
}

/// What [`merge_shared`] returns when the two handles share an index and the result keeps
/// the first's indices ([`SHARED_I`]) or the second's ([`SHARED_J`]): never a slot index
/// (those are below 2^31 - 1, which is `u32::MAX / 2`: that mutant of `SHARED_J` is no index
/// either, and survives).
pub(super) const SHARED_I: u32 = u32::MAX - 1;
pub(super) const SHARED_J: u32 = u32::MAX - 2;

/// [`Var::combine`] for two handles of three or four pairs in all with an index in common: if
/// they depend on two values only, it returns [`SHARED_I`] or [`SHARED_J`] and the result's two
/// partials, in the order of the indices it keeps; otherwise (two pairs each, one index in
/// common) it writes one statement of the four operands (the common index twice) and returns its
/// index (`POISON` if it did not fit). `a`, `b` are the partials already multiplied by the local
/// derivatives, `i`, `j` the packed indices, `counts` both pair counts (`nx | ny << 8`).
///
/// It takes and returns plain scalars: a handle or an array of two partials passed to an
/// out-of-line function goes through memory, and the caller's handles then lived in memory too
/// (by callgrind on `autograd-bench`'s `profile` example, 600 instructions per Rosenbrock term
/// with a handle-taking `merge`, 559 with this). The shared case's partials come back with the
/// index, not from a second call: a second cold call for them, so that neither returns three
/// values through memory, made it 395.9 instructions a term against 382.9.
///
/// Marked cold: a call the optimizer believes may be taken in any operation between handles
/// makes it keep the caller's handles in memory around it, and the shapes this takes are the
/// rare ones (as the benchmarks write Rosenbrock and `dense`, it runs twice a gradient, at the
/// first terms, where `write_apart` runs once or more a term). By callgrind on
/// `examples/profile`: Rosenbrock 415.8 -> 410.8 instructions a term, `dense` 853,604 ->
/// 851,453 a gradient; with `write_apart` marked cold too, 411.8 and 854,138.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) fn merge_shared<S: Scalar>(
    t: Option<&TapeView<S>>,
    op: Op,
    counts: u32,
    value: S,
    i: u64,
    a0: S,
    a1: S,
    j: u64,
    b0: S,
    b1: S,
) -> (u32, S, S) {
    let (nx, ny) = (counts as u8, (counts >> 8) as u8);
    let (i, j) = (unpack(i), unpack(j));
    // (`combine` calls this where an index is in common, or where a one-pair handle's unused
    // index happened to match one of the other's: then no guard holds, and the last arm writes
    // the statement `write_apart` would.)
    let (keep, p0, p1) = match (nx, ny) {
        (2, 1) if j[0] == i[0] => (SHARED_I, a0 + b0, a1),
        (2, 1) if j[0] == i[1] => (SHARED_I, a0, a1 + b0),
        (1, 2) if i[0] == j[0] => (SHARED_J, a0 + b0, b1),
        (1, 2) if i[0] == j[1] => (SHARED_J, b0, a0 + b1),
        (2, 2) if i == j => (SHARED_I, a0 + b0, a1 + b1),
        (2, 2) if i[0] == j[1] && i[1] == j[0] => (SHARED_I, a0 + b1, a1 + b0),
        _ => {
            let x = [(i[0], a0), (i[1], a1)];
            let y = [(j[0], b0), (j[1], b1)];
            let t = t.unwrap_or_else(|| unreachable_tape());
            let index = t.push_merge(op, value, x, nx as usize, y, ny as usize);
            return (index, S::ZERO, S::ZERO);
        }
    };
    // A sum of two finite partials may overflow. Where one did, the result is written now, as
    // `combine` writes any other non-finite result: the caller tests only the value of a sum or
    // a difference, whose other partials it passed through.
    if !(p0.is_finite() && p1.is_finite()) {
        let kept = if keep == SHARED_I { i } else { j };
        return (
            non_finite(t, op, value, pack(kept), p0, p1, 2),
            S::ZERO,
            S::ZERO,
        );
    }
    (keep, p0, p1)
}

/// [`Var::combine`] for two handles of three or four pairs in all with no index in common: a
/// statement of the first's pairs then the second's, its index returned (`POISON` if it did not
/// fit). `counts` is `nx | ny << 8`, `i`, `j` the packed indices, `a`, `b` the partials already
/// multiplied by the local derivatives.
///
/// The shared-index tests stay inline in `combine` (a few integer comparisons) and this call
/// only writes, returning the index in a register. By callgrind (`examples/profile rosenbrock
/// 1000` and `dense 1000`, 10 and 20 gradients), against every such merge through
/// `merge_shared` (then `write_unshared`, which returned three values through memory):
/// Rosenbrock 488.7 -> 447.8 instructions a term, `dense` 941,382 -> 888,412 a gradient; the
/// release build of the generated 1,000-operation `Var<f64>` function (`cargo xtask bench
/// --compile-time --ops 1000`) 19.9-20.8 s -> 21.7 s.
/// The same write inlined: 430.8 and 854,972, but a 37.0 s build.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) fn write_apart<S: Scalar>(
    t: Option<&TapeView<S>>,
    op: Op,
    value: S,
    counts: u32,
    i: u64,
    a0: S,
    a1: S,
    j: u64,
    b0: S,
    b1: S,
) -> u32 {
    let t = t.unwrap_or_else(|| unreachable_tape());
    let (i, j) = (unpack(i), unpack(j));
    match counts {
        0x0202 => t.push_n(op, value, [(i[0], a0), (i[1], a1), (j[0], b0), (j[1], b1)]),
        0x0102 => t.push_n(op, value, [(i[0], a0), (i[1], a1), (j[0], b0)]),
        // (1, 2)
        _ => t.push_n(op, value, [(i[0], a0), (j[0], b0), (j[1], b1)]),
    }
}

/// The two indices of [`pack`].
#[inline(always)]
pub(super) fn unpack(i: u64) -> [u32; 2] {
    [i as u32, (i >> 32) as u32]
}

/// A result whose value or partial is not finite is written at once as its own statement,
/// labelled with the operation that produced it, so NaN provenance names that operation; a
/// result on no tape (of constants only) stays a constant: `POISON`, nothing written. (Cold
/// and out of line, taking plain values, the indices packed: the hot path never spills a handle
/// or an array of partials to memory for it. It takes the tape as the option the operation
/// holds, so that the operation holds no test of it: long generated functions build faster,
/// PERFORMANCE.md, "Handles no longer returned through memory".)
#[cold]
#[inline(never)]
pub(super) fn non_finite<S: Scalar>(
    t: Option<&TapeView<S>>,
    op: Op,
    value: S,
    index: u64,
    p0: S,
    p1: S,
    n: Half,
) -> u32 {
    let index = unpack(index);
    let operands = [(index[0], p0), (index[1], p1), (0, S::ZERO), (0, S::ZERO)];
    t.map_or(POISON, |t| t.push4(op, value, operands, n as usize))
}

/// Two handles from different tapes met: both tapes record the error (the result is made by
/// `Var::between_tapes`).
#[cold]
#[inline(never)]
pub(super) fn foreign<S: Scalar>(a: &TapeView<S>, b: &TapeView<S>) {
    a.fail(TapeError::ForeignVar);
    b.fail(TapeError::ForeignVar);
}

/// Only reached if a handle with pending pairs had no tape, which no constructor makes.
#[cold]
fn unreachable_tape<'t, S: Scalar>() -> &'t TapeView<S> {
    unreachable!("a handle with pending partials always has a tape")
}
