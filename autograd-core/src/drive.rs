//! The skeleton every driver shares, written once: a gradient is a one-row Jacobian
//! ([`OneRow`]), forward mode is `ceil(n / L)` seeded passes ([`forward_passes`], for [`Dual`]
//! and [`DualVec`] alike through [`Tangents`]), and reverse mode records the inputs in scratch
//! after the tape's end, sweeps down to the first of them and rewinds ([`record`], [`sweep`];
//! [`reverse_rows`] for a Jacobian, while `gradient_reverse` writes its one row directly).
//! Where the scratch lives is [`with_scratch`](crate::scratch::with_scratch)'s business.

use crate::scratch::with_scratch;
use crate::{
    Dual, DualVec, Function, Gradients, Mark, Number, Scalar, TapeError, TapeView, Var,
    VectorFunction,
};

/// A [`Function`] seen as a [`VectorFunction`] with one output.
pub(crate) struct OneRow<'a, F: ?Sized>(pub &'a F);

impl<F: Function + ?Sized> VectorFunction for OneRow<'_, F> {
    #[inline(always)]
    fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
        out[0] = self.0.eval(x);
    }
}

/// A forward-mode number with `LANES` tangents over the scalar `S`.
pub(crate) trait Tangents<S: Scalar>: Scalar {
    /// Tangent lanes per number.
    const LANES: usize;
    /// `x` with every tangent 0.
    fn constant_of(x: S) -> Self;
    /// The value.
    fn real(&self) -> S;
    /// Tangent `lane`.
    fn tangent(&self, lane: usize) -> S;
    /// Sets tangent `lane` to `t`.
    fn set_tangent(&mut self, lane: usize, t: S);
}

impl<S: Scalar> Tangents<S> for Dual<S> {
    const LANES: usize = 1;
    #[inline(always)]
    fn constant_of(x: S) -> Self {
        Dual::constant(x)
    }
    #[inline(always)]
    fn real(&self) -> S {
        self.re
    }
    #[inline(always)]
    fn tangent(&self, _lane: usize) -> S {
        self.eps
    }
    #[inline(always)]
    fn set_tangent(&mut self, _lane: usize, t: S) {
        self.eps = t;
    }
}

impl<S: Scalar, const L: usize> Tangents<S> for DualVec<S, L> {
    const LANES: usize = L;
    #[inline(always)]
    fn constant_of(x: S) -> Self {
        DualVec::constant(x)
    }
    #[inline(always)]
    fn real(&self) -> S {
        self.re
    }
    #[inline(always)]
    fn tangent(&self, lane: usize) -> S {
        self.eps[lane]
    }
    #[inline(always)]
    fn set_tangent(&mut self, lane: usize, t: S) {
        self.eps[lane] = t;
    }
}

/// Forward mode: `ceil(n / L)` passes of `f` (one if `n = 0`), pass `k` seeding inputs
/// `kL .. kL + L` in lanes `0 .. L` and giving those columns of `jac` (row-major `m × n`);
/// then `values = f(x)`. `xs` holds the `n` inputs as constants (and is left so), `outs` the
/// `m` outputs.
pub(crate) fn forward_passes<S: Scalar, T: Tangents<S>, F: VectorFunction + ?Sized>(
    f: &F,
    xs: &mut [T],
    outs: &mut [T],
    values: &mut [S],
    jac: &mut [S],
) {
    let n = xs.len();
    if n == 0 {
        f.eval(xs, outs);
    }
    for start in (0..n).step_by(T::LANES) {
        let lanes = T::LANES.min(n - start);
        for k in 0..lanes {
            xs[start + k].set_tangent(k, S::ONE);
        }
        f.eval(xs, outs);
        for k in 0..lanes {
            xs[start + k].set_tangent(k, S::ZERO);
        }
        for (i, y) in outs.iter().enumerate() {
            for k in 0..lanes {
                jac[i * n + start + k] = y.tangent(k);
            }
        }
    }
    for (v, y) in values.iter_mut().zip(outs.iter()) {
        *v = y.real();
    }
}

/// A forward-mode gradient: the one-row Jacobian by [`forward_passes`] in `T`; returns `f(x)`.
pub(crate) fn forward_gradient<S: Scalar, T: Tangents<S>, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
) -> Result<S, TapeError> {
    crate::diff_error::expect_len("gradient", x.len(), grad.len())?;
    if x.is_empty() {
        return Ok(f.eval(x));
    }
    with_scratch(x.len(), x.iter().map(|&xi| T::constant_of(xi)), |xs| {
        let (mut out, mut value) = ([T::constant_of(S::ZERO)], [S::ZERO]);
        forward_passes(&OneRow(f), xs, &mut out, &mut value, grad);
        Ok(value[0])
    })
}

/// A forward-mode Jacobian by [`forward_passes`] in `T`, its `n + m` numbers in one scratch.
pub(crate) fn forward_jacobian<S: Scalar, T: Tangents<S>, F: VectorFunction + ?Sized>(
    f: &F,
    x: &[S],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), TapeError> {
    crate::diff_error::jacobian_shape(x.len(), values, jac)?;
    with_inputs_and_outputs(x, values.len(), T::constant_of, |xs, outs| {
        forward_passes(f, xs, outs, values, jac);
        Ok(())
    })
}

/// Scratch for a Jacobian without a tape: the `n` inputs `init(x_i)`, then `m` outputs
/// `init(0)`, in one buffer of `n + m` elements, handed to `body` as the two parts.
pub(crate) fn with_inputs_and_outputs<S: Scalar, E, R>(
    x: &[S],
    m: usize,
    init: impl Fn(S) -> E,
    body: impl FnOnce(&mut [E], &mut [E]) -> Result<R, TapeError>,
) -> Result<R, TapeError> {
    let n = x.len();
    let inputs = x.iter().map(|&xi| init(xi));
    let elements = inputs.chain((0..m).map(|_| init(S::ZERO)));
    with_scratch(n.saturating_add(m), elements, |scratch| {
        let (xs, outs) = scratch.split_at_mut(n);
        body(xs, outs)
    })
}

/// Reverse mode's frame: records the `n` inputs that `inputs` yields after the tape's end,
/// followed in the same scratch by `outputs` constant handles for `f` to write, hands them to
/// `body`, and rewinds the tape to where it was however `body` ends.
pub(crate) fn record<S: Scalar, R>(
    tape: &mut TapeView<S>,
    n: usize,
    outputs: usize,
    inputs: impl Iterator<Item = S>,
    body: impl for<'t> FnOnce(&'t TapeView<S>, &mut [Var<'t, S>]) -> Result<R, TapeError>,
) -> Result<R, TapeError> {
    tape.check()?;
    let mark = tape.mark();
    let result = {
        let view: &TapeView<S> = tape;
        let vars = inputs.map(|xi| view.var(xi));
        let elements = vars.chain((0..outputs).map(|_| Var::constant(S::ZERO)));
        with_scratch(n.saturating_add(outputs), elements, |scratch| {
            body(view, scratch)
        })
    };
    tape.rewind(mark);
    result
}

/// `f` recorded on `vars`, in a function of its own: how the drivers that record a [`Function`]
/// through [`record`] evaluate it (the call costs one handle returned through memory a
/// recording).
// Inlined into the driver (where it sits in the scratch's tier functions, among the sweep's and
// the gradient's values), the recording of a long function lost its registers: Rosenbrock's
// running sum and partials went through the stack every term as chains of stores and loads,
// and `gradient_reverse` took 1.3x the time of the same recording in the benchmarks' own loop
// at n = 1000 for 5 % more instructions (`examples/alternate rosenbrock 1000`, as written:
// 19.4-20.0 us inlined, 16.3-16.6 us out of line; PERFORMANCE.md, "The core's driver").
#[inline(never)]
pub(crate) fn evaluated<'t, S: Scalar, F: Function + ?Sized>(
    f: &F,
    vars: &[Var<'t, S>],
) -> Var<'t, S> {
    f.eval(vars)
}

/// The backward sweep from `y`, down to the first of the inputs `vars` only (they were recorded
/// in order, so nothing below the first can depend on them, and the cost does not depend on what
/// the tape held before). `None` if `y` is a constant: `f` did not use its inputs.
pub(crate) fn sweep<'t, S: Scalar>(
    tape: &'t TapeView<S>,
    y: Var<'_, S>,
    vars: &[Var<'_, S>],
) -> Result<Option<Gradients<'t, S>>, TapeError> {
    if y.is_constant() {
        tape.check()?;
        return Ok(None);
    }
    match vars.first().and_then(|v| v.id()) {
        Some(first) => tape.backward_above(y, Mark::before(first)).map(Some),
        None => tape.backward(y).map(Some),
    }
}

/// `out = dy/dvars` (zeros if `y` is a constant).
#[inline]
pub(crate) fn write_gradient<S: Scalar>(
    tape: &TapeView<S>,
    y: Var<'_, S>,
    vars: &[Var<'_, S>],
    out: &mut [S],
) -> Result<(), TapeError> {
    match sweep(tape, y, vars)? {
        // `record` wrote the inputs as consecutive leaves: their adjoints are read in one pass
        // (the handle-by-handle read stays as the fallback of an invariant that cannot fail).
        Some(grads) => match vars.first().and_then(|v| v.id()) {
            Some(first) => {
                let leaves = tape.leaves(first, vars.len());
                debug_assert!(leaves.is_ok(), "the inputs are consecutive leaves");
                match leaves {
                    Ok(leaves) => grads.write_leaves(leaves, out),
                    Err(_) => grads.write_to(vars, out),
                }
            }
            None => grads.write_to(vars, out),
        },
        None => {
            out.iter_mut().for_each(|o| *o = S::ZERO);
            Ok(())
        }
    }
}

/// Reverse mode: `f` evaluated once on `vars` into `outs`, then one sweep per output, giving
/// row `i` of `jac` (row-major `m × n`) and `values = f(x)`.
pub(crate) fn reverse_rows<'t, S: Scalar, F: VectorFunction + ?Sized>(
    f: &F,
    tape: &'t TapeView<S>,
    vars: &[Var<'t, S>],
    outs: &mut [Var<'t, S>],
    values: &mut [S],
    jac: &mut [S],
) -> Result<(), TapeError> {
    f.eval(vars, outs);
    tape.check()?;
    let n = vars.len();
    for (i, (y, v)) in outs.iter().zip(values.iter_mut()).enumerate() {
        *v = y.value();
        write_gradient(tape, *y, vars, &mut jac[i * n..(i + 1) * n])?;
    }
    Ok(())
}

/// Forward over reverse: records the `n` inputs `seeds` yields (values `x_i`, tangents a
/// direction in each lane) on a tape of `T`, evaluates `f`, sweeps, and hands each input's
/// adjoint (`∂f/∂x_i` and, in the lanes, row `i` of `H` times the directions) to
/// `write(i, adjoint)`; returns `f(x)`.
pub(crate) fn forward_over_reverse<S: Scalar, T: Tangents<S>, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<T>,
    n: usize,
    seeds: impl Iterator<Item = T>,
    mut write: impl FnMut(usize, T),
) -> Result<S, TapeError> {
    record(tape, n, 0, seeds, |tape, vars| {
        let y: Var<'_, T> = evaluated(f, vars);
        let grads = sweep(tape, y, vars)?;
        for (i, var) in vars.iter().enumerate() {
            write(i, grads.map_or(T::ZERO, |g| g.wrt(*var)));
        }
        Ok(y.value().real())
    })
}
