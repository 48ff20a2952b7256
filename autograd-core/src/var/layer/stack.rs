//! [`Var::affine_layers_of`]: a network's layers written one after another, each hidden unit's
//! activation written straight into the next layer's input slot instead of into a handle that
//! the next layer then reads back.

use crate::op::Op;
use crate::tape::{Leaves, Slot, TapeView};
use crate::{Scalar, TapeError, Var};

use super::{input_pair, shaped_for_one_statement, sums, Activate, Heads};

impl<'t, S: Scalar> Var<'t, S> {
    /// Dense layers one after another over parameters that are leaves: layer `l` has
    /// `layers[l].0` rows `w · x + b` over the previous layer's outputs (the first layer's over
    /// `x`), each passed through the activation `layers[l].1`; the last layer's go to `y`. The
    /// parameters are the layers' rows in order, each row its weights then its bias (as
    /// [`Var::affine_layer_of`] reads one layer's).
    ///
    /// Where it returns `Ok(true)`, the tape holds exactly what [`Var::affine_layer_of_then`]
    /// records called layer after layer (the same slots, values and gradients), but no handle
    /// was made for a hidden unit: each unit's activation is written straight into the next
    /// layer's input slot.
    ///
    /// Where it returns `Ok(false)`, nothing is recorded and the tape is as it was (its length,
    /// its error and its count of slots that did not fit): a layer cannot be one layer statement
    /// (an input with two pending partials or on another tape, a layer of no rows, one row over
    /// one input, or a hidden layer of one unit), the tape has no room for the network, or a
    /// hidden unit's activation recorded something or tried to (a result that is not finite is
    /// a statement of its own, which may not fit); record the layers one by one then. The
    /// activations may have been applied by then: give functions of their input.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if there are no layers, if `params` does not hold the
    /// layers' rows, or if `y` does not have the last layer's width.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 64>::new();
    /// // Two inputs, a hidden layer of two units (relu), one output (identity).
    /// let p = [0.5, -1.0, 0.25, 2.0, 1.0, -3.0, 1.5, -2.0, 0.5].map(|v| tape.var(v));
    /// let leaves = tape.leaves(p[0].id().unwrap(), 9)?;
    /// let x = [Var::constant(4.0), tape.var(3.0)];
    /// // One activation type for every layer: here function pointers.
    /// let relu: fn(Var<'_, f64>) -> Var<'_, f64> = |v| v.relu();
    /// let identity: fn(Var<'_, f64>) -> Var<'_, f64> = |v| v;
    /// let mut y = [Var::constant(0.0)];
    /// assert!(Var::affine_layers_of(leaves, &mut [(2, relu), (1, identity)], &x, &mut y)?);
    /// // h = relu(-0.75, 8) = (0, 8); y = 1.5 h0 - 2 h1 + 0.5.
    /// assert_eq!(y[0].value(), -15.5);
    /// let g = tape.backward(y[0])?;
    /// // dy/dw10 = -2 x0 (the second unit is live), dy/dx1 = -2 w11.
    /// assert_eq!((g.wrt(p[3]), g.wrt(x[1])), (-8.0, -2.0));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    #[inline]
    pub fn affine_layers_of<A: Activate<'t, S>>(
        params: Leaves<'t, S>,
        layers: &mut [(usize, A)],
        x: &[Self],
        y: &mut [Self],
    ) -> Result<bool, TapeError> {
        let mut k = x.len();
        let mut count = 0usize;
        for &(m, _) in layers.iter() {
            count = count.saturating_add(m.saturating_mul(k.saturating_add(1)));
            k = m;
        }
        let mismatch = |what, expected, found| TapeError::LengthMismatch {
            what,
            expected,
            found,
        };
        if layers.is_empty() {
            return Err(mismatch("affine_layers_of's layers", 1, 0));
        }
        if params.len() != count {
            return Err(mismatch(
                "affine_layers_of's parameters",
                count,
                params.len(),
            ));
        }
        if y.len() != k {
            return Err(mismatch("affine_layers_of's outputs", k, y.len()));
        }
        let t = params.tape();
        let then = t.recording();
        if write_stack(t, params, layers, x, y) {
            Ok(true)
        } else {
            t.forget_since(then);
            Ok(false)
        }
    }
}

/// The layers of [`Var::affine_layers_of`] (lengths checked), or `false` where they cannot all
/// be layer statements, whatever was written by then.
///
/// Each activation and each layer's rows are inlined where they are used (the first layer's
/// rows, the others', the hidden units' activation, the outputs'). By callgrind on
/// `examples/profile trainer` (3 and 5 steps) a step took 618,248 instructions like this;
/// 670,448 with one loop over the layers holding one copy of each (3.2 KB of code on the M0
/// instead of 4.2), 640,048 with the rows out of line and the outputs' activation in
/// `activate_in_place`, 630,848 with only the latter.
#[inline(never)]
fn write_stack<'t, S: Scalar, A: Activate<'t, S>>(
    t: &'t TapeView<S>,
    params: Leaves<'t, S>,
    layers: &mut [(usize, A)],
    x: &[Var<'t, S>],
    y: &mut [Var<'t, S>],
) -> bool {
    // The first layer reads its inputs from their handles.
    let Some((&mut (m, _), _)) = layers.split_first_mut() else {
        return false;
    };
    let Some(mut layer) = reserve::<1, S>(t, x.len(), m) else {
        return false;
    };
    for (xi, (slot, held)) in x.iter().zip(layer.inputs.iter().zip(layer.input_values)) {
        let Some((link, partial)) = input_pair(xi, t) else {
            return false;
        };
        slot.put_input(link, xi.value);
        held.set_input_partial(partial);
    }
    let mut offset = 0;
    if !rows(t, params, &mut offset, &layer) {
        return false;
    }
    // Each next layer reads its inputs from the rows below, through the activation.
    for l in 1..layers.len() {
        let (done, next) = layers.split_at_mut(l);
        let (Some((_, f)), Some(&mut (m, _))) = (done.last_mut(), next.first_mut()) else {
            return false;
        };
        let below = layer;
        // (A hidden layer of one unit under another layer is declined: the layers one by one
        // then write it. Its own copy of the rows, inlined here, may count on two inputs or
        // more, which the `Trainer`'s step takes 1 % fewer instructions for.)
        let Some(next_layer) = reserve::<2, S>(t, below.heads.len(), m) else {
            return false;
        };
        layer = next_layer;
        // (Reserved first, so that an activation that records something writes after them, or
        // fails to for want of room: either is then seen here, and the network given up. What
        // else an activation may do, such as set the tape's error, it does in either order.)
        let reserved = t.recording();
        let (heads, inputs, held) = (below.head_values, layer.inputs, layer.input_values);
        let n = heads.len().min(inputs.len()).min(held.len());
        let written = f.apply_each(
            n,
            |i| Var::statement(t, below.top + i as u32, heads[i].value(), Op::Dot),
            |i, v| {
                let Some((link, partial)) = input_pair(&v, t) else {
                    return false;
                };
                inputs[i].put_input(link, v.value);
                held[i].set_input_partial(partial);
                true
            },
        );
        if !written || t.wrote_since(&reserved) {
            return false;
        }
        if !rows(t, params, &mut offset, &layer) {
            return false;
        }
    }
    // The last layer's handles, as `affine_layer_of_then` makes them (an activation may record
    // a result that is not finite: after the last layer, as there).
    let Some((_, f)) = layers.last_mut() else {
        return false;
    };
    for (j, (yj, head)) in y.iter_mut().zip(layer.head_values).enumerate() {
        *yj = f.apply(Var::statement(
            t,
            layer.top + j as u32,
            head.value(),
            Op::Dot,
        ));
    }
    true
}

/// A layer statement's slots, reserved ([`reserve`]): its input slots, the slot naming its
/// first weight, its rows' headers, each with the slot its value is in (`Layout`), and the
/// index of the first row.
#[derive(Clone, Copy)]
struct Reserved<'a, S: Scalar> {
    inputs: &'a [Slot<S>],
    input_values: &'a [Slot<S>],
    info: &'a Slot<S>,
    info_value: &'a Slot<S>,
    heads: &'a [Slot<S>],
    head_values: &'a [Slot<S>],
    top: u32,
}

/// Takes the slots of a layer statement of `k` inputs and `m` rows past the tape's end. `None`
/// where the layer cannot be one statement (the layer writer's `write` decides by the same
/// shape test: at least two inputs, or one under two rows or more; no rows, too many slots), has
/// fewer than `MIN_INPUTS` inputs, or finds no room.
#[inline(always)]
fn reserve<const MIN_INPUTS: usize, S: Scalar>(
    t: &TapeView<S>,
    k: usize,
    m: usize,
) -> Option<Reserved<'_, S>> {
    let size = k + 1 + m;
    if k < MIN_INPUTS || m == 0 || !shaped_for_one_statement(k, m) {
        return None;
    }
    let top = (t.len() + k + 1) as u32;
    let (slots, values) = t.free_slots(size)?;
    t.commit(size);
    let ((inputs, rest), (input_values, rest_values)) = (slots.split_at(k), values.split_at(k));
    let ((info, heads), (info_value, head_values)) =
        (rest.split_first()?, rest_values.split_first()?);
    Some(Reserved {
        inputs,
        input_values,
        info,
        info_value,
        heads,
        head_values,
        top,
    })
}

/// The rows of `layer` (its input slots written), over the next rows of `params` from the
/// `offset`-th parameter on; `false` if there are too few.
#[inline(always)]
fn rows<'t, S: Scalar>(
    t: &'t TapeView<S>,
    params: Leaves<'t, S>,
    offset: &mut usize,
    layer: &Reserved<'t, S>,
) -> bool {
    let (k, m) = (layer.inputs.len(), layer.heads.len());
    let count = m * (k + 1);
    let Some(own) = params.range(*offset, count) else {
        return false;
    };
    *offset += count;
    let w0 = own.first_index();
    let heads = Heads::new(layer.heads, layer.head_values, k);
    let summed = sums(t, w0, own, m, layer.inputs, heads);
    layer.info.put_operand(w0, S::ZERO);
    layer.info_value.set_value(S::ZERO);
    summed
}
