//! A neuron's pre-activation `w · x + b` whose weights and bias are consecutive statements
//! (a network's parameters, recorded in order), written with its weights implied: one slot per
//! input instead of an operand for the weight and one for the input (layout in
//! `tape/operands.rs`). The same statement as the general n-ary write: half its slots when every
//! input is recorded, as many when none is.

use crate::op::Op;
use crate::tape::{MAX_OPERANDS, NO_OPERAND};
use crate::Scalar;

use super::Var;

/// `w · x + b` as a neuron statement, its value summed as it is written (in the order of
/// [`Number::affine`](crate::Number::affine)), or `None` (nothing written)
/// where the general write must decide: the weights and bias are not the consecutive statements
/// `w0..=w0 + k`, an input carries two pending pairs or is on another tape, a value or partial is
/// not finite, fewer than two inputs, or the tape has no room. `w` and `x` have the same length.
#[inline]
pub(super) fn neuron<'t, S: Scalar>(
    w: &[Var<'t, S>],
    x: &[Var<'t, S>],
    b: Var<'t, S>,
) -> Option<Var<'t, S>> {
    let t = b.tape?;
    let k = w.len();
    if k < 2 || k != x.len() || !b.node {
        return None;
    }
    let w0 = b.index[0].checked_sub(k as u32)?;
    let size = k + 2;
    if size > MAX_OPERANDS {
        return None;
    }
    let slots = t.free_slots(size)?;
    let (head, rest) = slots.split_last()?;
    let (last, paired) = rest.split_last()?;
    // Every test is one predictable branch out (to the general write, which then overwrites
    // these slots): fewer instructions per input than accumulating the tests.
    let (mut finite, mut tested) = (S::ZERO, true);
    let mut value = b.value;
    for (i, ((wi, xi), slot)) in w.iter().zip(x).zip(paired).enumerate() {
        let same = |v: &Var<'t, S>| v.tape.is_some_and(|a| core::ptr::addr_eq(a, t));
        if !wi.node || wi.index[0] != w0 + i as u32 || !same(wi) {
            return None;
        }
        let (link, partial) = match xi.n {
            0 => (NO_OPERAND, S::ZERO),
            1 if same(xi) => (xi.index[0], xi.partial[0] * wi.value),
            _ => return None,
        };
        // `all_finite`'s policy, summed instead of tested per input (a comparison per input,
        // `finite &= all_finite(..)`, cost a moons gradient 5 % more instructions by callgrind).
        if S::COSTLY_PRODUCT {
            // Soft float or fixed point: an addition is a call, a bit test is not.
            tested &= partial.is_finite() & xi.value.is_finite();
        } else {
            finite += zero_if_finite(partial) + zero_if_finite(xi.value);
        }
        slot.put_paired(link, partial, xi.value);
        value += wi.value * xi.value;
    }
    if !(tested && finite.is_finite() && value.is_finite()) {
        return None;
    }
    last.put_paired(w0, S::ZERO, S::ONE);
    head.put_ranged_header(value, Op::Dot, k + 1);
    let index = (t.len() + k + 1) as u32;
    t.commit(size);
    Some(Var::labelled(t, index, value, Op::Dot))
}

/// `v - v`: 0 for a finite `v`, NaN (poison in fixed point) otherwise, so one sum of these tests
/// every value at once, without a branch per value.
#[inline(always)]
#[allow(clippy::eq_op)]
pub(super) fn zero_if_finite<S: Scalar>(v: S) -> S {
    v - v
}
