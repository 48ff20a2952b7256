//! `Activation` as an `Activate`: how a layer's writer applies it to the layer's outputs.

use autograd_core::{Activate, Scalar, Var};

use super::Activation;

/// An activation as a layer's writer applies it to each output
/// ([`Var::affine_layer_of_then`], how the [`Trainer`](crate::Trainer) records a layer): the
/// choice made at run time and inlined into the writer, so one writer serves every activation.
///
/// ```
/// use autograd_core::{Tape, Var};
/// use autograd_nn::Activation;
/// let tape = Tape::<f64, 16>::new();
/// let params = [1.0, 2.0, 0.5].map(|p| tape.var(p));
/// let leaves = tape.leaves(params[0].id().unwrap(), 3)?;
/// let x = [Var::constant(0.25), Var::constant(-0.5)];
/// let mut y = [Var::constant(0.0)];
/// Var::affine_layer_of_then(leaves, &x, &mut y, Activation::Relu)?;
/// assert_eq!(y[0].value(), 0.0); // relu(0.5 + 0.25 - 1)
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
impl<'t, S: Scalar> Activate<'t, S> for Activation {
    #[inline(always)]
    fn apply(&mut self, v: Var<'t, S>) -> Var<'t, S> {
        Activation::apply(*self, v)
    }

    /// The activation chosen once for a layer's outputs, not once an output: each arm is the
    /// default loop over one activation, whose `match` then folds away. On 64-bit targets only:
    /// on the Cortex-M parts the five copies of the loop cost more flash, and on the M0 and M3
    /// more instructions, than the choice they save.
    // Measured: the moons `Trainer`'s step 497,606 -> 485,506 instructions on the host by
    // `valgrind --tool=cachegrind --cache-sim=no target/release/examples/profile trainer 3` and
    // `5` (autograd-bench), the difference over 2 steps (499,506 without the override, the
    // hidden units' loop through `apply_each` as it is now); `cargo xtask firmware`, the XOR step on the M4F / M0 / M3 in 7,995 / 51,078 /
    // 29,214 instructions without the override and 7,867 / 51,374 / 29,511 with it, the minimal
    // program's flash 34,140 / 39,368 / 40,576 B without and 35,364 / 40,676 / 41,768 B with.
    // PERFORMANCE.md, thirty-ninth session.
    #[cfg(target_pointer_width = "64")]
    #[inline(always)]
    fn apply_each<G, P>(&mut self, n: usize, get: G, put: P) -> bool
    where
        G: FnMut(usize) -> Var<'t, S>,
        P: FnMut(usize, Var<'t, S>) -> bool,
    {
        match *self {
            Activation::Tanh => Chosen(Activation::Tanh).apply_each(n, get, put),
            Activation::Relu => Chosen(Activation::Relu).apply_each(n, get, put),
            Activation::LeakyRelu(s) => Chosen(Activation::LeakyRelu(s)).apply_each(n, get, put),
            Activation::Sigmoid => Chosen(Activation::Sigmoid).apply_each(n, get, put),
            Activation::Linear => Chosen(Activation::Linear).apply_each(n, get, put),
        }
    }
}

/// An activation known where it is made: `Activate`'s default loop over it, each `apply`
/// inlined with its `match` on a constant.
#[cfg(target_pointer_width = "64")]
struct Chosen(Activation);

#[cfg(target_pointer_width = "64")]
impl<'t, S: Scalar> Activate<'t, S> for Chosen {
    #[inline(always)]
    fn apply(&mut self, v: Var<'t, S>) -> Var<'t, S> {
        self.0.apply(v)
    }
}
