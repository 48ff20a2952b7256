//! A layer whose inputs carry two pending pairs (a residual `h + f(h)`, a value computed from two
//! recorded ones): each such input written as a statement of its own first, then the layer
//! writer again over them ([`write_flushed`]), where an input slot holds one pair.

use crate::tape::{TapeView, POISON};
use crate::{Scalar, Var};

use super::{write, Activate, Source};

/// Where [`write`] declined a layer of two rows or more for an input of two pending pairs: the
/// inputs of two pending pairs written as statements of their own ([`flush`]), then [`write`]
/// again over them, its rows through `f` if there is one, or `false` having written nothing
/// (those statements forgotten) where it is declined still. `f`'s type is the caller's, so
/// that this calls the writer the caller has (a writer for another activation type was a
/// second copy: 4.7 to 6.2 KB more flash for the firmware's minimal program). Out of the
/// writer's way, called where it declined: by callgrind on `examples/profile moons` (3 and 13
/// gradients), a loop in the writer trying at most twice took the moons loss from 955,501
/// instructions to 1,028,503.
#[cold]
#[inline(never)]
pub(super) fn write_flushed<'t, S: Scalar, P: Source<'t, S>, A: Activate<'t, S>>(
    params: P,
    x: &[Var<'t, S>],
    y: &mut [Var<'t, S>],
    f: Option<&mut A>,
) -> bool {
    let Some((t, _)) = params.start() else {
        return false;
    };
    if y.len() < 2 || !to_flush(x, t) {
        return false;
    }
    let then = t.recording();
    let first = flush(t, x);
    let written = write(params, x, y, f, Some(first));
    if !written {
        t.forget_since(then);
    }
    written
}

/// Whether [`write_flushed`] should write the inputs of two pending pairs as statements
/// ([`flush`]) and try again: there is such an input, and every input is a constant or on `t`.
#[inline(never)]
fn to_flush<S: Scalar>(x: &[Var<'_, S>], t: &TapeView<S>) -> bool {
    let mut two = false;
    for v in x {
        if v.pending() > 0 {
            if !v.tape.is_some_and(|a| core::ptr::addr_eq(a, t)) {
                return false;
            }
            two |= v.pending() == 2;
        }
    }
    two
}

/// Writes each input of two pending pairs, in order, as a statement of those pairs (3 slots,
/// labelled with the operation that made it, as [`Var::recorded`] writes it), and returns the
/// first one's index: the others follow it 3 slots apart. Where one does not fit (the tape's
/// sticky error), neither does the layer after them, which needs 4 slots or more. (The write
/// `Var::written` makes, inlined: calling it for each input, with its five-slot `push4`, took a
/// gradient of `examples/profile_residual` from 3,083,714 instructions to 3,165,106.)
#[cold]
#[inline(never)]
fn flush<S: Scalar>(t: &TapeView<S>, x: &[Var<'_, S>]) -> u32 {
    let mut first = None;
    for v in x.iter().filter(|v| v.pending() == 2) {
        let [a, b, ..] = v.pair_array();
        let index = t.push_n::<2>(v.meta.op(), v.value, [a, b]);
        first.get_or_insert(index);
    }
    first.unwrap_or(POISON)
}
