//! A dense layer's pre-activations `y_j = w_j · x + b_j` as one layer statement: the inputs
//! written once, the weights implied (they are consecutive statements, a network's parameters
//! recorded in order), a header per row (layout in `tape/operands.rs`): `k + 1 + m` slots where
//! the general write takes an operand per weight and per recorded input and a header per row.
//! A single neuron ([`Var::affine`]) is a layer of one row: `k + 2` slots.

use crate::op::Op;
use crate::tape::{Leaves, TapeView, MAX_OPERANDS, NO_OPERAND, POISON};
use crate::{Scalar, TapeError};

use super::Var;

mod activate;
mod flush;
mod heads;
mod source;
mod stack;

pub use activate::Activate;
use activate::{activate_in_place, Identity};
use flush::write_flushed;
use heads::{Heads, RowSink};
use source::{Input, Rows, Source};

impl<'t, S: Scalar> Var<'t, S> {
    /// A dense layer: `y[j] = w_j · x + b_j` for each row `j`, where `params` holds the rows one
    /// after another, each `x.len()` weights then the bias. Each `y[j]` has the value and the
    /// gradient of [`Var::affine`] of its row (bit for bit over two inputs or more; the
    /// gradient up to rounding over one input, where that row on its own stays in its handle,
    /// and over an input of two pending partials, which the layer writes as a statement first).
    ///
    /// When the parameters are consecutive statements (a network's parameters, recorded as
    /// leaves in order) and there are two inputs or more, or one under two rows or more, the
    /// layer is one statement of `x.len() + 1 + y.len()` slots: the inputs once, a slot naming
    /// the first weight, and a header per row (a row whose value is not finite too: NaN
    /// provenance names it as a `dot`, as it would the row written on its own over two inputs or
    /// more). An input that carries two pending partials (a value computed from two recorded
    /// ones, such as a residual `h + f(h)`) is first written as a statement of its own, 3 slots
    /// labelled with its operation, as [`Var::recorded`] writes it, under two rows or more;
    /// under one row it leaves the row to the general write, which takes fewer slots there.
    /// Otherwise each row is written as [`Var::affine`] writes it.
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
        shape("affine_layer's parameters", params.len(), k, y.len())?;
        let rows = Rows { params, bias: None };
        if !write(rows, x, y, None::<&mut Identity>, None) {
            declined(params, x, y)?;
        }
        Ok(())
    }
}

/// [`Var::affine_layer`] where [`write`] declined: the layer over its inputs of two pending
/// pairs written as statements first ([`write_flushed`]), else each row as [`Var::affine`]
/// writes it. Out of line, so that `affine_layer` stays small enough to inline into its caller
/// (by callgrind on `examples/profile moons`, 3 and 13 gradients, the moons loss took 976,211
/// instructions with both in `affine_layer`, which its caller then called, and 966,612 with
/// them here; 955,501 before `write_flushed`).
#[inline(never)]
fn declined<'t, S: Scalar>(
    params: &[Var<'t, S>],
    x: &[Var<'t, S>],
    y: &mut [Var<'t, S>],
) -> Result<(), TapeError> {
    let k = x.len();
    if !write_flushed(Rows { params, bias: None }, x, y, None::<&mut Identity>) {
        for (yj, row) in y.iter_mut().zip(params.chunks_exact(k + 1)) {
            let (w, b) = row.split_at(k);
            *yj = Var::affine(w, x, b[0])?;
        }
    }
    Ok(())
}

impl<'t, S: Scalar> Var<'t, S> {
    /// [`Var::affine_layer`] over parameters that are leaves of the tape, checked once
    /// ([`TapeView::leaves`]): the same values, gradients and slots as `affine_layer` over their
    /// handles, without testing each parameter on every call (the weights' values are read from
    /// their slots). This is how `autograd-nn`'s trainer records a network's layers.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if `params` does not hold `y.len()` rows of `x.len() + 1`.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 32>::new();
    /// let params = [0.5, -1.0, 0.25, 2.0, 1.0, -3.0].map(|p| tape.var(p));
    /// let leaves = tape.leaves(params[0].id().unwrap(), 6)?;
    /// let x = [Var::constant(4.0), tape.var(3.0)];
    /// let mut y = [Var::constant(0.0); 2];
    /// Var::affine_layer_of(leaves, &x, &mut y)?;
    /// assert_eq!((y[0].value(), y[1].value()), (-0.75, 8.0));
    /// let g = tape.backward(y[0] * y[1])?;
    /// assert_eq!((g.wrt(params[0]), g.wrt(params[4]), g.wrt(params[2])), (32.0, -2.25, 8.0));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn affine_layer_of(
        params: Leaves<'t, S>,
        x: &[Self],
        y: &mut [Self],
    ) -> Result<(), TapeError> {
        Var::affine_layer_of_then(params, x, y, Identity)
    }

    /// [`Var::affine_layer_of`] with each output then passed through `f` (an activation):
    /// `y[j] = f(w_j · x + b_j)`, the same values, gradients and slots as `affine_layer_of`
    /// followed by `f` on each output, applied as each row's handle is made rather than in a
    /// second pass over the outputs. This is how `autograd-nn`'s trainer records a layer and its
    /// activation.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if `params` does not hold `y.len()` rows of `x.len() + 1`.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 32>::new();
    /// let params = [0.5, -1.0, 0.25, 2.0, 1.0, -3.0].map(|p| tape.var(p));
    /// let leaves = tape.leaves(params[0].id().unwrap(), 6)?;
    /// let x = [Var::constant(4.0), tape.var(3.0)];
    /// let mut y = [Var::constant(0.0); 2];
    /// Var::affine_layer_of_then(leaves, &x, &mut y, Var::relu)?;
    /// // relu(-0.75) = 0, relu(8) = 8: only the second row passes a gradient.
    /// assert_eq!((y[0].value(), y[1].value()), (0.0, 8.0));
    /// let g = tape.backward(y[0] + y[1])?;
    /// assert_eq!((g.wrt(params[0]), g.wrt(params[3]), g.wrt(params[5])), (0.0, 4.0, 1.0));
    /// assert_eq!(g.wrt(x[1]), 1.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn affine_layer_of_then<A: Activate<'t, S>>(
        params: Leaves<'t, S>,
        x: &[Self],
        y: &mut [Self],
        mut f: A,
    ) -> Result<(), TapeError> {
        let k = x.len();
        shape("affine_layer_of's parameters", params.len(), k, y.len())?;
        if !write(params, x, y, Some(&mut f), None) && !write_flushed(params, x, y, Some(&mut f)) {
            rows_of(params, x, y, &mut f)?;
        }
        Ok(())
    }
}

/// [`Var::affine_layer_of_then`] where the layer is not one statement: row by row, then the
/// activation. Out of line: inlined, it made the callers' code larger, which moved LLVM's
/// choices for what else they inline (`cargo xtask firmware`: the minimal program's flash on
/// the M0 40,624 B with it inlined and `nary` then out of line, 40,092 B so; 39,404 B before
/// `write_flushed`).
#[inline(never)]
fn rows_of<'t, S: Scalar, A: Activate<'t, S>>(
    params: Leaves<'t, S>,
    x: &[Var<'t, S>],
    y: &mut [Var<'t, S>],
    f: &mut A,
) -> Result<(), TapeError> {
    let k = x.len();
    // Row by row, as `affine` writes each over the handles: a layer statement of one row
    // where it can be one, else the general write.
    // (Every row is there: `shape` has checked the count. The error stands where a row
    // left unwritten would otherwise be; never returned, so the three mutants of its
    // `expected` that cargo-mutants makes survive.)
    let missing = TapeError::LengthMismatch {
        what: "affine_layer_of's parameters",
        expected: y.len() * (k + 1),
        found: params.len(),
    };
    for (j, yj) in y.iter_mut().enumerate() {
        let row = params.range(j * (k + 1), k + 1).ok_or(missing)?;
        // (`None`: the activation comes after every row; the same writer as
        // `affine_layer_of_then`'s.)
        if !write(row, x, core::slice::from_mut(yj), None::<&mut A>, None) {
            let mut cursor = row;
            let (value, _) = cursor.next_row(x, row.tape(), 0).ok_or(missing)?;
            *yj = super::nary::affine_of_leaves(row, x, value);
        }
    }
    // Then the activation, in a pass of its own as it would follow `affine_layer_of`:
    // a result it writes (a non-finite one) comes after every row's statements.
    activate_in_place(f, y);
    Ok(())
}

/// Whether a layer of `k` inputs and `m >= 1` rows is written as one layer statement (`k + 1 + m`
/// slots): two inputs or more, or one input under two rows or more. A single row over a single
/// input, `w x + b`, is two pairs at most, which its handle holds without a slot; several rows
/// over one input are not: written one by one, each row's handle would hold two pairs (its
/// weight's and its bias's, the input a constant) or three (a recorded input), and a layer over
/// such handles cannot be a layer statement (an input slot holds one pair), so a network over
/// one input (fitting `sin x`) took eleven times the slots of one over two.
// (The bound: a header counts at most 2^23 - 1 slots below it. `tests/layer_limit.rs` records
// layers at it and past it, as for `stack.rs`'s `reserve`.)
#[inline(always)]
pub(super) fn shaped_for_one_statement(k: usize, m: usize) -> bool {
    (k >= 2 || (k == 1 && m >= 2)) && k + 1 + m <= MAX_OPERANDS
}

/// `Ok` if `found` parameters are `m` rows of `k` weights and a bias.
fn shape(what: &'static str, found: usize, k: usize, m: usize) -> Result<(), TapeError> {
    let expected = m * (k + 1);
    if found == expected {
        Ok(())
    } else {
        Err(TapeError::LengthMismatch {
            what,
            expected,
            found,
        })
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
    let row = Rows {
        params: w,
        bias: Some(&b),
    };
    write(
        row,
        x,
        core::slice::from_mut(&mut y),
        None::<&mut Identity>,
        None,
    )
    .then_some(y)
}

/// Writes the layer statement and its rows' handles, each passed through `f` if there is one,
/// into `y`, or returns `false` having written nothing where the rows must be written one by
/// one: the parameters are not the consecutive statements of one tape, an input carries two
/// pending pairs or is on another tape, or [`shaped_for_one_statement`] refuses the shape (one
/// row over one input, no input). With `flushed`, the inputs of two pending pairs are read as
/// the statements [`flush`] wrote from that index on ([`write_flushed`]). A layer that would be
/// one statement but finds no room reports the overflow, as every write does (the tape's sticky
/// error; the rows keep their values and depend on nothing). Lengths as checked by
/// [`Var::affine_layer`].
///
/// One function for [`Var::affine_layer`], [`neuron`] and [`Var::affine_layer_of_then`], generic
/// over where the `y.len()` rows of `x.len()` weights and a bias come from ([`Source`]: handles,
/// or leaves checked once) and over the activation's type (one writer per type: `None` with
/// the same type for no activation).
#[inline(never)]
fn write<'t, S: Scalar, P: Source<'t, S>>(
    params: P,
    x: &[Var<'t, S>],
    y: &mut [Var<'t, S>],
    mut f: Option<&mut impl Activate<'t, S>>,
    flushed: Option<u32>,
) -> bool {
    let (k, m) = (x.len(), y.len());
    if m == 0 {
        return true;
    }
    let Some((t, w0)) = params.start() else {
        return false;
    };
    if !shaped_for_one_statement(k, m) {
        return false;
    }
    let size = k + 1 + m;
    let Some((slots, values)) = t.free_slots(size) else {
        // No room: the same decision as with room (the slots a layer takes must not depend on
        // the tape's capacity, or a tape too small for it would record it by the general write,
        // which may take fewer), then the overflow every write reports, with the values.
        if !scan(
            (t, w0),
            params,
            m,
            x,
            flushed,
            |_, _, _, _| {},
            |j, value| {
                y[j] = Var::labelled(t, POISON, value, Op::Dot);
            },
        ) {
            return false;
        }
        t.full(size);
        // (`f` only now: where the layer is not one statement it must have done nothing.)
        if let Some(f) = f {
            activate_in_place(f, y);
        }
        return true;
    };
    let ((inputs, rest), (input_values, rest_values)) = (slots.split_at(k), values.split_at(k));
    let (Some((info, heads)), Some((info_value, head_values))) =
        (rest.split_first(), rest_values.split_first())
    else {
        return false;
    };
    let written = scan(
        (t, w0),
        params,
        m,
        x,
        flushed,
        |i, link, partial, value| {
            inputs[i].put_input(link, value);
            input_values[i].set_input_partial(partial);
        },
        Heads::new(heads, head_values, k),
    );
    if !written {
        return false;
    }
    info.put_operand(w0, S::ZERO);
    info_value.set_value(S::ZERO);
    let top = t.len() + k + 1;
    t.commit(size);
    for (j, (yj, held)) in y.iter_mut().zip(head_values).enumerate() {
        let v = Var::statement(t, (top + j) as u32, held.value(), Op::Dot);
        *yj = match f.as_mut() {
            Some(f) => f.apply(v),
            None => v,
        };
    }
    true
}

/// The pass of [`write`] over the inputs and the rows: `input(i, index, partial, value)` for
/// each input, `row(j, value)` for each row (summed in `Number::affine`'s order); `false` where
/// the layer cannot be one statement (an input with two pending pairs, unless `flushed` names
/// the first of the statements [`flush`] wrote for them, or an input on another tape, a
/// parameter that is not the next consecutive statement of `t` from `w0`), whatever the calls
/// did by then.
///
/// Values are not tested: a row whose sum is not finite (an overflow, a NaN or infinite input
/// or weight) is a header of the statement like any other, labelled `dot` as the row written on
/// its own would be, with the same operands and partials, so NaN provenance names it the same
/// way (the `provenance` suite of `cargo xtask check` judges it), and the sweep sends its
/// non-finite terms as that row's statement would. By callgrind on `examples/profile`
/// (`trainer 3`/`5`, `moons 3`/`13`), with the rows' sums tested (and a layer with a non-finite
/// row written row by row): a `Trainer` step 541,342 instructions, the moons loss 1,016,383.
///
/// The rows are read by a cursor ([`Source::next_row`]), whose slices have the length `k` the
/// loop runs to. By callgrind on `examples/profile moons`, a row's own work outside its weights
/// took 78 instructions with iterators over chunks (a division per call) and 63 with the rows
/// found by index (two products and two range tests a row); on `examples/profile trainer` the
/// cursor's one split takes 7 fewer a row than finding the row by index (55 -> 48). Four rows
/// read side by side ([`Source::next_four`]: each row's sum in its own order, so the same
/// values), in a loop of their own before the rows left over, took the moons gradient from
/// 1,154,527 instructions to 1,073,927 and a `Trainer` step from 850,764 to 816,464 (an input
/// read once for four rows, and on x86-64 two rows to a vector instruction); one loop choosing
/// four rows or one at each turn took 1,117,827 and 833,264, and more on the M4F.
#[inline(always)]
fn scan<'t, S: Scalar>(
    (t, w0): (&'t TapeView<S>, u32),
    rows: impl Source<'t, S>,
    m: usize,
    x: &[Var<'t, S>],
    mut flushed: Option<u32>,
    mut input: impl FnMut(usize, u32, S, S),
    row: impl RowSink<S>,
) -> bool {
    for (i, xi) in x.iter().enumerate() {
        let (link, partial) = match (input_pair(xi, t), flushed) {
            (Some(pair), _) => pair,
            // The input written as a statement of its own, the next of those `flush` wrote.
            (None, Some(at)) if xi.pending() == 2 => {
                flushed = Some(at.wrapping_add(3));
                (at, S::ONE)
            }
            (None, _) => return false,
        };
        input(i, link, partial, xi.value);
    }
    sums(t, w0, rows, m, x, row)
}

/// The pair a layer statement's input slot holds for the input `v`: [`NO_OPERAND`] for a value
/// that depends on nothing recorded, else its one pending pair (a pending partial is finite, as
/// every operation on handles makes sure); `None` where the input cannot be a layer's (two
/// pairs, or another tape). The value is not tested (see [`scan`]): an infinite or NaN `x_i` is
/// the weights' partial `x_i` the rows written one by one would store.
#[inline(always)]
fn input_pair<'t, S: Scalar>(v: &Var<'t, S>, t: &'t TapeView<S>) -> Option<(u32, S)> {
    match v.meta.n() {
        0 => Some((NO_OPERAND, S::ZERO)),
        1 if v.tape.is_some_and(|a| core::ptr::addr_eq(a, t)) => Some((v.index[0], v.partial[0])),
        _ => None,
    }
}

/// The rows' sums of [`scan`] over the inputs' values `x` (their handles, or the input slots
/// written for them); `false` where a row is missing or the parameters are not the consecutive
/// statements of `t` from `w0`.
#[inline(always)]
fn sums<'t, S: Scalar, X: Input<S>>(
    t: &'t TapeView<S>,
    w0: u32,
    mut rows: impl Source<'t, S>,
    m: usize,
    x: &[X],
    mut row: impl RowSink<S>,
) -> bool {
    // Each row summed while its parameters are tested to be the consecutive statements `w0,
    // w0 + 1, ...` of this tape.
    let mut consecutive = true;
    let mut first = w0;
    let stride = x.len() as u32 + 1;
    let mut j = 0;
    // Four rows at a time while there are four, then one.
    while m - j >= 4 {
        let Some((values, ok)) = rows.next_four(x, t, first) else {
            return false;
        };
        first = first.wrapping_add(4 * stride);
        consecutive &= ok;
        row.four(j, values);
        j += 4;
    }
    while j < m {
        let Some((value, ok)) = rows.next_row(x, t, first) else {
            return false;
        };
        first = first.wrapping_add(stride);
        consecutive &= ok;
        row.one(j, value);
        j += 1;
    }
    // The partials `p_i w_ji` are not stored: the sweep forms them, and a product that
    // overflows is sent as the non-finite term it is.
    consecutive
}
