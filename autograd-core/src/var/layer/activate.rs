//! What a layer applies to each of its outputs ([`Activate`]): any closure, or a type of one's
//! own; none ([`Identity`]); and the activation applied in a pass of its own
//! ([`activate_in_place`]).

use crate::{Scalar, Var};

/// What [`Var::affine_layer_of_then`] applies to each output of the layer: any closure
/// `FnMut(Var) -> Var`, or a type of one's own.
///
/// The layer's writer is compiled once per type given. A type whose `apply` is
/// `#[inline(always)]` and chooses among several functions at run time (as `autograd-nn`'s
/// activations do) gives one writer for all of them, with each inlined into it; a closure that
/// makes the same choice is not inlined (it is called for every row), and a closure per function
/// compiles the writer once per function (code size that firmware feels).
///
/// ```
/// use autograd_core::{Activate, Tape, Var};
///
/// /// A choice made at run time: one writer, both functions inlined into it.
/// struct Squash(bool);
/// impl<'t> Activate<'t, f64> for Squash {
///     #[inline(always)]
///     fn apply(&mut self, v: Var<'t, f64>) -> Var<'t, f64> {
///         if self.0 { v.tanh() } else { v }
///     }
/// }
///
/// let tape = Tape::<f64, 16>::new();
/// let params = [1.0, 2.0, 0.5].map(|p| tape.var(p));
/// let leaves = tape.leaves(params[0].id().unwrap(), 3)?;
/// let x = [Var::constant(0.25), Var::constant(-0.5)];
/// let mut y = [Var::constant(0.0)];
/// Var::affine_layer_of_then(leaves, &x, &mut y, Squash(true))?;
/// assert_eq!(y[0].value(), (0.5_f64 + 0.25 - 1.0).tanh());
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub trait Activate<'t, S: Scalar> {
    /// The image of one output `v`: a handle computed from it by operations on its tape.
    fn apply(&mut self, v: Var<'t, S>) -> Var<'t, S>;

    /// `put(i, self.apply(get(i)))` for each `i` in `0..n` in turn, until `put` returns `false`
    /// (then `false`); how the writers apply the activation to a layer's outputs. A type that
    /// chooses among several functions at run time can override it to choose once for all `n`
    /// (as `autograd-nn`'s activations do) rather than once an output; the result must be what
    /// this default gives.
    ///
    /// ```
    /// use autograd_core::{Activate, Tape, Var};
    /// let tape = Tape::<f64, 8>::new();
    /// let x = [tape.var(-1.0), tape.var(2.0)];
    /// let mut y = [Var::constant(0.0); 2];
    /// let mut relu = Var::relu;
    /// assert!(relu.apply_each(2, |i| x[i], |i, v| {
    ///     y[i] = v;
    ///     true
    /// }));
    /// assert_eq!((y[0].value(), y[1].value()), (0.0, 2.0));
    /// ```
    #[inline(always)]
    fn apply_each<G, P>(&mut self, n: usize, mut get: G, mut put: P) -> bool
    where
        G: FnMut(usize) -> Var<'t, S>,
        P: FnMut(usize, Var<'t, S>) -> bool,
    {
        for i in 0..n {
            if !put(i, self.apply(get(i))) {
                return false;
            }
        }
        true
    }
}

impl<'t, S: Scalar, F: FnMut(Var<'t, S>) -> Var<'t, S>> Activate<'t, S> for F {
    #[inline(always)]
    fn apply(&mut self, v: Var<'t, S>) -> Var<'t, S> {
        self(v)
    }
}

/// No activation: the writer's activation type where there is none.
pub(super) struct Identity;

impl<'t, S: Scalar> Activate<'t, S> for Identity {
    #[inline(always)]
    fn apply(&mut self, v: Var<'t, S>) -> Var<'t, S> {
        v
    }
}

/// `f` on each of `y`, in order: the activation after a layer written row by row or without
/// room (rare: out of line, so the writer holds one inlined copy of the activation, not three).
#[inline(never)]
pub(super) fn activate_in_place<'t, S: Scalar>(f: &mut impl Activate<'t, S>, y: &mut [Var<'t, S>]) {
    y.iter_mut().for_each(|v| *v = f.apply(*v));
}
