//! A dense layer's pre-activations `y_j = w_j · x + b_j` as one layer statement: the inputs
//! written once, the weights implied (they are consecutive statements, a network's parameters
//! recorded in order), a header per row (layout in `tape/operands.rs`): `k + 1 + m` slots where
//! the general write takes an operand per weight and per recorded input and a header per row.
//! A single neuron ([`Var::affine`]) is a layer of one row: `k + 2` slots.

use crate::op::Op;
use crate::tape::{TapeView, MAX_OPERANDS, NO_OPERAND, POISON};
use crate::{Scalar, TapeError};

use super::Var;

impl<'t, S: Scalar> Var<'t, S> {
    /// A dense layer: `y[j] = w_j · x + b_j` for each row `j`, where `params` holds the rows one
    /// after another, each `x.len()` weights then the bias. Each `y[j]` has the value and the
    /// gradient of [`Var::affine`] of its row.
    ///
    /// When the parameters are consecutive statements (a network's parameters, recorded as
    /// leaves in order), every input carries at most one pending partial and the values are
    /// finite, the layer is one statement of `x.len() + 1 + y.len()` slots: the inputs once, a
    /// slot naming the first weight, and a header per row. Otherwise each row is written as
    /// [`Var::affine`] writes it.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if `params` does not hold `y.len()` rows of `x.len() + 1`.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 32>::new();
    /// // Two neurons over two inputs: [w00, w01, b0, w10, w11, b1].
    /// let params = [0.5, -1.0, 0.25, 2.0, 1.0, -3.0].map(|p| tape.var(p));
    /// let x = [Var::constant(4.0), tape.var(3.0)];
    /// let mut y = [Var::constant(0.0); 2];
    /// Var::affine_layer(&params, &x, &mut y)?;
    /// assert_eq!((y[0].value(), y[1].value()), (-0.75, 8.0));
    /// // Six leaves and x1, then the layer: two input slots, one naming w00, two rows.
    /// assert_eq!(tape.len(), 7 + 5);
    /// let g = tape.backward(y[0] * y[1])?;
    /// // d(y0 y1)/dw00 = x0 y1, d/dw11 = x1 y0, d/db0 = y1, d/dx1 = w01 y1 + w11 y0.
    /// assert_eq!((g.wrt(params[0]), g.wrt(params[4]), g.wrt(params[2])), (32.0, -2.25, 8.0));
    /// assert_eq!(g.wrt(x[1]), -1.0 * 8.0 + 1.0 * -0.75);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn affine_layer(params: &[Self], x: &[Self], y: &mut [Self]) -> Result<(), TapeError> {
        let k = x.len();
        if params.len() != y.len() * (k + 1) {
            return Err(TapeError::LengthMismatch {
                what: "affine_layer's parameters",
                expected: y.len() * (k + 1),
                found: params.len(),
            });
        }
        if !write(params, None, x, y) {
            for (yj, row) in y.iter_mut().zip(params.chunks_exact(k + 1)) {
                let (w, b) = row.split_at(k);
                *yj = Var::affine(w, x, b[0])?;
            }
        }
        Ok(())
    }
}

/// `w · x + b` as a layer statement of one row ([`Var::affine`]'s packed write: `k + 2` slots),
/// or `None` (nothing written) where the general write must decide, as [`write`] says.
#[inline]
pub(super) fn neuron<'t, S: Scalar>(
    w: &[Var<'t, S>],
    x: &[Var<'t, S>],
    b: Var<'t, S>,
) -> Option<Var<'t, S>> {
    let mut y = Var::constant(S::ZERO);
    write(w, Some(&b), x, core::slice::from_mut(&mut y)).then_some(y)
}

/// Writes the layer statement and its rows' handles into `y`, or returns `false` having written
/// nothing where the rows must be written one by one: the parameters are not the consecutive
/// statements of one tape, an input carries two pending pairs or is on another tape, a value or
/// partial is not finite, or fewer than two inputs. A layer that would be one statement but
/// finds no room reports the overflow, as every write does (the tape's sticky error; the rows
/// keep their values and depend on nothing). Lengths as checked by [`Var::affine_layer`].
///
/// One function for [`Var::affine_layer`] and [`neuron`] (a firmware links one copy): `y.len()`
/// rows, each `x.len()` weights then a bias, from `params`, or, with `bias`, one row of the
/// weights `params` and that bias.
#[inline(never)]
fn write<'t, S: Scalar>(
    params: &[Var<'t, S>],
    bias: Option<&Var<'t, S>>,
    x: &[Var<'t, S>],
    y: &mut [Var<'t, S>],
) -> bool {
    let (k, m) = (x.len(), y.len());
    let Some(first) = params.first() else {
        return m == 0;
    };
    let Some(t) = first.tape else {
        return false;
    };
    let size = k + 1 + m;
    if k < 2 || size > MAX_OPERANDS || !first.node {
        return false;
    }
    let w0 = first.index[0];
    let rows = Rows { params, bias, m };
    let Some(slots) = t.free_slots(size) else {
        // No room: the same decision as with room (the slots a layer takes must not depend on
        // the tape's capacity, or a tape too small for it would record it by the general write,
        // which may take fewer), then the overflow every write reports, with the values.
        if !scan(
            t,
            w0,
            rows,
            x,
            |_, _, _, _| {},
            |j, value| {
                y[j] = Var::labelled(t, POISON, value, Op::Dot);
            },
        ) {
            return false;
        }
        t.full(size);
        return true;
    };
    let (inputs, rest) = slots.split_at(k);
    let Some((info, heads)) = rest.split_first() else {
        return false;
    };
    let written = scan(
        t,
        w0,
        rows,
        x,
        |i, link, partial, value| inputs[i].put_paired(link, partial, value),
        |j, value| heads[j].put_layer_header(value, k + 1 + j),
    );
    if !written {
        return false;
    }
    info.put_paired(w0, S::ZERO, S::ZERO);
    let top = t.len() + k + 1;
    t.commit(size);
    for (j, (yj, head)) in y.iter_mut().zip(heads).enumerate() {
        *yj = Var::labelled(t, (top + j) as u32, head.x(), Op::Dot);
    }
    true
}

/// The parameters of [`write`]'s `m` rows: each row's weights then its bias in `params`, or,
/// with `bias`, the one row of weights `params` and that bias.
#[derive(Clone, Copy)]
struct Rows<'a, 't, S: Scalar> {
    params: &'a [Var<'t, S>],
    bias: Option<&'a Var<'t, S>>,
    m: usize,
}

/// The pass of [`write`] over the inputs and the rows: `input(i, index, partial, value)` for
/// each input, `row(j, value)` for each row (summed in `Number::affine`'s order); `false` where
/// the layer cannot be one statement (an input with two pending pairs or on another tape, a
/// parameter that is not the next consecutive statement of `t` from `w0`, a value or partial
/// that is not finite), whatever the calls did by then.
///
/// The rows are walked by index, not by iterators over chunks: a row's slices then have the
/// length `k` the loop runs to, with nothing to divide or test per row (by callgrind on
/// `examples/profile moons`, a row's own work outside its weights took 78 instructions with
/// chunk iterators and takes 63 like this).
#[inline(always)]
fn scan<'t, S: Scalar>(
    t: &'t TapeView<S>,
    w0: u32,
    rows: Rows<'_, 't, S>,
    x: &[Var<'t, S>],
    mut input: impl FnMut(usize, u32, S, S),
    mut row: impl FnMut(usize, S),
) -> bool {
    // Summed finiteness tests: `v - v` is 0 for a finite `v` and NaN (poison in fixed point)
    // otherwise, so one sum tests every value, without a branch each; where a sum is a library
    // call (soft float, fixed point), a bit test each instead.
    let (mut finite, mut tested) = (S::ZERO, true);
    let mut test = |v: S| {
        if S::COSTLY_PRODUCT {
            tested &= v.is_finite();
        } else {
            finite += zero_if_finite(v);
        }
    };
    for (i, xi) in x.iter().enumerate() {
        let (link, partial) = match xi.n {
            0 => (NO_OPERAND, S::ZERO),
            1 if xi.tape.is_some_and(|a| core::ptr::addr_eq(a, t)) => (xi.index[0], xi.partial[0]),
            _ => return false,
        };
        test(partial);
        test(xi.value);
        input(i, link, partial, xi.value);
    }
    // Each row summed while its parameters are tested to be the consecutive statements `w0,
    // w0 + 1, ...` of this tape (one test for all, without a branch per parameter, in the same
    // pass that reads their values). A finite sum means finite weights and bias too: a
    // non-finite term (an infinite weight times 0 is NaN) makes the sum non-finite.
    let mut consecutive = true;
    let mut next = w0;
    let mut is = |v: &Var<'t, S>| {
        let same = v.tape.is_some_and(|a| core::ptr::addr_eq(a, t));
        consecutive &= v.node & same & (v.index[0] == next);
        next = next.wrapping_add(1);
    };
    let k = x.len();
    let stride = k + usize::from(rows.bias.is_none());
    for j in 0..rows.m {
        let start = j * stride;
        let (Some(w), Some(b)) = (
            rows.params.get(start..start + k),
            rows.bias.or(rows.params.get(start + k)),
        ) else {
            return false;
        };
        let mut value = b.value;
        for i in 0..k {
            is(&w[i]);
            value += w[i].value * x[i].value;
        }
        is(b);
        test(value);
        row(j, value);
    }
    // The partials `p_i w_ji` are not stored: the sweep forms them, and a product that
    // overflows is sent as the non-finite term it is.
    consecutive && tested && finite.is_finite()
}

/// `v - v`: 0 for a finite `v`, NaN (poison in fixed point) otherwise.
#[inline(always)]
#[allow(clippy::eq_op)]
fn zero_if_finite<S: Scalar>(v: S) -> S {
    v - v
}
