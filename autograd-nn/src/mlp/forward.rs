//! The forward pass of a [`Layer`] and of an [`Mlp`], over parameters given as numbers (handles
//! on a tape among them) or as leaves of a tape checked once ([`Leaves`]).

use autograd_core::{Leaves, Number, Scalar, Var};

use super::{resize, Activation, Layer, Mlp, MAX_WIDTH};
use crate::NnError;

impl Layer {
    /// Evaluates the layer: `params` are this layer's own `param_count()` parameters, `x` its
    /// `inputs` values, `y` receives its `outputs` values.
    ///
    /// # Panics
    /// If a slice is shorter than stated (a programming error; [`Mlp::forward`] checks its
    /// arguments and never passes such slices).
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// let m = Mlp::new([2, 3, 1], Activation::Tanh, Activation::Linear);
    /// let last = m.layers().last().unwrap();
    /// assert_eq!((last.inputs, last.outputs, last.offset), (3, 1, 9));
    /// let mut y = [0.0];
    /// last.forward(&[1.0, 2.0, 3.0, 0.5], &[1.0, 1.0, -1.0], &mut y);
    /// assert_eq!(y, [0.5]); // 0.5 + 1 + 2 - 3
    /// ```
    pub fn forward<T: Number>(&self, params: &[T], x: &[T], y: &mut [T]) {
        // (Numbers always fit: only leaves can fail to.)
        let written = self.forward_by(&params[..self.param_count()], x, y);
        debug_assert!(written, "a slice of numbers is always a layer's parameters");
    }

    /// [`forward`](Self::forward) with this layer's own parameters `params`, wherever they are;
    /// `false` (the outputs unwritten) where they do not fit its widths.
    fn forward_by<T: Number, P: Params<T>>(&self, params: P, x: &[T], y: &mut [T]) -> bool {
        let (x, y) = (&x[..self.inputs], &mut y[..self.outputs]);
        // One layer statement on a tape (each output as `neuron` gives it), then the activation.
        params.affine(x, y, self.activation)
    }
}

/// A network's parameters, as [`Mlp`]'s forward pass reads them: a slice of numbers (handles on
/// a tape among them), or leaves of a tape checked once ([`Leaves`]), which a layer reads from
/// their slots without testing each handle on every sample.
trait Params<T: Number>: Copy {
    /// How many parameters.
    fn len(self) -> usize;
    /// `layer`'s own parameters among the network's (`None` if there are too few).
    fn of(self, layer: &Layer) -> Option<Self>;
    /// `y[j] = act(w_j · x + b_j)` over these parameters, rows of `x.len()` weights then a bias;
    /// `false` if they are not `y.len()` such rows. (A flag, not the error: the error is built
    /// once, by the network; a `Result` returned from every layer of every sample cost 3 % of an
    /// XOR step on the M4F.)
    fn affine(self, x: &[T], y: &mut [T], act: Activation) -> bool;
    /// The whole network `mlp` at `x` into `y` in one call, where these parameters allow it
    /// ([`Var::affine_layers_of`] over leaves: no handle for a hidden unit); `false`, nothing
    /// done, elsewhere.
    fn network<const D: usize>(self, _mlp: &Mlp<D>, _x: &[T], _y: &mut [T]) -> bool {
        false
    }
}

impl<T: Number> Params<T> for &[T] {
    fn len(self) -> usize {
        <[T]>::len(self)
    }
    fn of(self, layer: &Layer) -> Option<Self> {
        self.get(layer.offset..layer.offset + layer.param_count())
    }
    fn affine(self, x: &[T], y: &mut [T], act: Activation) -> bool {
        T::affine_layer(self, x, y);
        for y_j in y.iter_mut() {
            *y_j = act.apply(*y_j);
        }
        true
    }
}

impl<'t, S: Scalar> Params<Var<'t, S>> for Leaves<'t, S> {
    fn len(self) -> usize {
        Leaves::len(&self)
    }
    fn of(self, layer: &Layer) -> Option<Self> {
        self.range(layer.offset, layer.param_count())
    }
    /// The activation applied as the layer writes each output's handle (one pass over the
    /// outputs, not two), inlined into the writer, which is compiled once for every activation
    /// (`Activation`'s `Activate` impl).
    fn affine(self, x: &[Var<'t, S>], y: &mut [Var<'t, S>], act: Activation) -> bool {
        Var::affine_layer_of_then(self, x, y, act).is_ok()
    }

    fn network<const D: usize>(self, mlp: &Mlp<D>, x: &[Var<'t, S>], y: &mut [Var<'t, S>]) -> bool {
        let mut layers = heapless::Vec::<(usize, Activation), D>::new();
        for layer in mlp.layers() {
            if layers.push((layer.outputs, layer.activation)).is_err() {
                return false;
            }
        }
        Var::affine_layers_of(self, &mut layers, x, y) == Ok(true)
    }
}

impl<const D: usize> Mlp<D> {
    /// Evaluates the network at `input`, writing `outputs()` values into `output`.
    ///
    /// Generic over the number type: `f64` parameters give plain inference, `Var` parameters
    /// record the pass on their tape (one statement per layer, see
    /// [`forward_slots`](Self::forward_slots)), dual numbers carry forward-mode derivatives.
    ///
    /// # Errors
    /// [`NnError::LengthMismatch`] if a slice has the wrong length.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// // [2, 2, 1], relu hidden, linear out. Neuron 1: w = (0.5, -1), b = 0.25; neuron 2:
    /// // w = (2, 1), b = -1; output: w = (1, -2), b = 0.5.
    /// let m = Mlp::new([2, 2, 1], Activation::Relu, Activation::Linear);
    /// let p = [0.5, -1.0, 0.25, 2.0, 1.0, -1.0, 1.0, -2.0, 0.5];
    /// let mut out = [0.0];
    /// m.forward(&p, &[1.0, 0.5], &mut out)?;
    /// // h = (relu(0.25 + 0.5 - 0.5), relu(-1 + 2 + 0.5)) = (0.25, 1.5); 0.5 + 0.25 - 3 = -2.25.
    /// assert_eq!(out, [-2.25]);
    /// assert!(m.forward(&p[..8], &[1.0, 0.5], &mut out).is_err()); // 9 parameters needed
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    pub fn forward<T: Number>(
        &self,
        params: &[T],
        input: &[T],
        output: &mut [T],
    ) -> Result<(), NnError> {
        self.forward_by(params, input, output)
    }

    /// [`forward`](Self::forward) on a tape whose parameters are the leaves `params`, checked
    /// once ([`TapeView::leaves`](autograd_core::TapeView::leaves)): the same values, gradients
    /// and slots as `forward` over their handles, without testing each parameter on every
    /// sample, and, where the network can be one [`Var::affine_layers_of`] call (layers of two
    /// inputs or more, hidden units whose activation records nothing), without a handle for each
    /// hidden unit.
    /// [`Trainer`](crate::Trainer) records this way.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// use autograd_nn::{Activation, Mlp};
    /// let m = Mlp::new([2, 3, 1], Activation::Tanh, Activation::Linear);
    /// let tape = Tape::<f64, 64>::new();
    /// let p: Vec<Var<f64>> = (0..13).map(|i| tape.var(0.1 * i as f64)).collect();
    /// let leaves = tape.leaves(p[0].id().unwrap(), 13)?;
    /// let x = [Var::constant(0.5), Var::constant(-1.0)];
    /// let (mut a, mut b) = ([Var::constant(0.0)], [Var::constant(0.0)]);
    /// m.forward_leaves(leaves, &x, &mut a)?;
    /// m.forward(&p, &x, &mut b)?;
    /// assert_eq!(a[0].value(), b[0].value());
    /// let (ga, gb) = (tape.backward(a[0])?.wrt(p[4]), tape.backward(b[0])?.wrt(p[4]));
    /// assert_eq!(ga, gb);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`forward`](Self::forward).
    pub fn forward_leaves<'t, S: Scalar>(
        &self,
        params: Leaves<'t, S>,
        input: &[Var<'t, S>],
        output: &mut [Var<'t, S>],
    ) -> Result<(), NnError> {
        self.forward_by(params, input, output)
    }

    /// The forward pass of [`forward`](Self::forward) and
    /// [`forward_leaves`](Self::forward_leaves), once the lengths are checked.
    fn forward_by<T: Number, P: Params<T>>(
        &self,
        params: P,
        input: &[T],
        output: &mut [T],
    ) -> Result<(), NnError> {
        self.check_params(params.len())?;
        for (what, expected, actual) in [
            ("inputs", self.inputs(), input.len()),
            ("outputs", self.outputs(), output.len()),
        ] {
            if expected != actual {
                return Err(NnError::LengthMismatch {
                    what,
                    expected,
                    actual,
                });
            }
        }
        if params.network(self, input, output) {
            return Ok(());
        }
        if D == 3 {
            // One hidden layer (XOR's [2, 4, 1]): one buffer. A buffer holds MAX_WIDTH values
            // (a tape handle is 32 bytes on a 32-bit part: 2 KiB a buffer), so the second one
            // lives in `forward_deep`'s frame, which a shallow network never enters.
            let mut layers = self.layers();
            let (Some(hidden), Some(out)) = (layers.next(), layers.next()) else {
                return Err(NnError::LengthMismatch {
                    what: "layers",
                    expected: 2,
                    actual: self.layers().count(),
                });
            };
            let (hp, op) = (self.own(params, &hidden)?, self.own(params, &out)?);
            let mut h = heapless::Vec::new();
            resize(&mut h, hidden.outputs, 1)?;
            let written = hidden.forward_by(hp, input, &mut h) && out.forward_by(op, &h, output);
            return written.then_some(()).ok_or_else(|| self.mismatch(params));
        }
        self.forward_deep(params, input, output)?;
        Ok(())
    }

    /// `layer`'s own parameters among `params` (whose count `check_params` accepted, so the
    /// error is never seen: it stands where a silent empty result would otherwise be).
    fn own<T: Number, P: Params<T>>(&self, params: P, layer: &Layer) -> Result<P, NnError> {
        params.of(layer).ok_or_else(|| self.mismatch(params))
    }

    /// The error for parameters that do not fit the network.
    fn mismatch<T: Number, P: Params<T>>(&self, params: P) -> NnError {
        NnError::LengthMismatch {
            what: "parameters",
            expected: self.param_count(),
            actual: params.len(),
        }
    }

    /// [`forward`](Self::forward) for two hidden layers or more: two buffers used in turn.
    #[inline(never)]
    fn forward_deep<T: Number, P: Params<T>>(
        &self,
        params: P,
        input: &[T],
        output: &mut [T],
    ) -> Result<(), NnError> {
        let (mut a, mut b) = (
            heapless::Vec::<T, MAX_WIDTH>::new(),
            heapless::Vec::<T, MAX_WIDTH>::new(),
        );
        let (mut x, mut y) = (&mut a, &mut b);
        let last = D - 2;
        for (l, layer) in self.layers().enumerate() {
            let x_in: &[T] = if l == 0 { input } else { x };
            let own = self.own(params, &layer)?;
            let written = |ok: bool| ok.then_some(()).ok_or_else(|| self.mismatch(params));
            if l == last {
                return written(layer.forward_by(own, x_in, output));
            }
            y.clear();
            resize(y, layer.outputs, l + 1)?;
            written(layer.forward_by(own, x_in, y))?;
            core::mem::swap(&mut x, &mut y);
        }
        Ok(())
    }
}
