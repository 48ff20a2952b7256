//! [`Mlp`]: a multilayer perceptron whose parameters live in a plain slice.
//!
//! The network is a *description* (layer sizes and activations, a few words, `Copy`), separate
//! from its parameters (a `[S; P]` the caller owns). The same forward code runs on any
//! [`Number`]: plain `f32`/`f64` for inference, a tape's [`Var`](autograd_core::Var) for reverse
//! mode, a dual number for forward mode.

use autograd_core::{Number, Scalar};

use crate::{NnError, Rng};

mod activate;
mod forward;

/// The widest layer a network may have; the forward pass keeps two buffers of this many values
/// on the stack (2 × 64 × 12 bytes for a `Var<f32>` on a 32-bit target, 2 × 64 × 24 on a host).
pub const MAX_WIDTH: usize = 64;

/// A neuron's non-linearity.
///
/// ```
/// use autograd_nn::Activation;
/// assert_eq!(Activation::Relu.apply(-2.0_f64), 0.0);
/// assert_eq!(Activation::Linear.apply(-2.0_f64), -2.0);
/// assert_eq!(Activation::Sigmoid.apply(0.0_f64), 0.5);
/// assert_eq!(Activation::LeakyRelu(0.1).apply(-2.0_f64), -0.2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// `tanh(x)`: the seed lesson's neuron.
    Tanh,
    /// `max(x, 0)`: micrograd's hidden neurons (derivative 0 at 0).
    Relu,
    /// `x` for `x > 0`, else `slope * x`.
    LeakyRelu(f64),
    /// `1 / (1 + e^-x)`.
    Sigmoid,
    /// The identity: an output layer whose values a loss interprets (scores, logits).
    Linear,
}

impl Activation {
    /// Applies the activation to one pre-activation value.
    ///
    /// ```
    /// use autograd_core::Dual;
    /// use autograd_nn::Activation;
    /// assert_eq!(Activation::Tanh.apply(0.0_f64), 0.0);
    /// assert!((Activation::Tanh.apply(0.5_f64) - 0.5_f64.tanh()).abs() < 1e-15);
    /// assert_eq!(Activation::LeakyRelu(0.1).apply(3.0_f64), 3.0); // x > 0: x
    /// // Any number type: a dual number carries the derivative, sigmoid'(0) = s (1 - s) = 1/4.
    /// let y = Activation::Sigmoid.apply(Dual::new(0.0_f64, 1.0));
    /// assert_eq!((y.re, y.eps), (0.5, 0.25));
    /// ```
    // (Always inlined: the trainer's layer writer inlines it whole, every activation in one
    // writer; see the `Activate` impl below.)
    #[inline(always)]
    pub fn apply<T: Number>(self, x: T) -> T {
        match self {
            Activation::Tanh => x.tanh(),
            Activation::Relu => x.relu(),
            Activation::LeakyRelu(slope) => x.leaky_relu(slope),
            Activation::Sigmoid => x.sigmoid(),
            Activation::Linear => x,
        }
    }
}

/// How initial weights are drawn (biases always start at 0, as in micrograd and the seed), for
/// a layer with `fan_in` inputs and `fan_out` neurons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// Uniform in `[-1, 1)`, whatever the layer size: the seed lesson's and micrograd's
    /// `random.uniform(-1, 1)`. Fine for the small networks of the examples; for wide layers it
    /// makes pre-activations grow like `sqrt(fan_in)`, saturating tanh/sigmoid.
    Uniform,
    /// Glorot/Xavier uniform: `U(-a, a)` with `a = sqrt(6 / (fan_in + fan_out))`, so a layer
    /// keeps the variance of its signal both forwards and backwards. Suits tanh and sigmoid.
    Xavier,
    /// He/Kaiming normal: `N(0, 2 / fan_in)`, compensating for relu zeroing half of its inputs.
    /// Suits relu networks.
    He,
}

/// One neuron: `act(bias + weights · x)`, summed in micrograd's order
/// (`((b + w0 x0) + w1 x1) + ...`). On a tape whose parameters were recorded in order, one
/// statement of `n + 2` slots (see `autograd_core::Var::affine`); the activation writes none.
///
/// ```
/// use autograd_nn::{neuron, Activation};
/// let y = neuron(&[0.5_f64, -1.0], 0.25, &[2.0, 3.0], Activation::Relu);
/// assert_eq!(y, 0.0); // relu(0.25 + 1 - 3)
/// let y = neuron(&[0.5_f64, -1.0], 0.25, &[2.0, 3.0], Activation::Linear);
/// assert_eq!(y, -1.75);
/// ```
#[inline]
pub fn neuron<T: Number>(weights: &[T], bias: T, x: &[T], act: Activation) -> T {
    act.apply(T::affine(weights, x, bias))
}

/// One dense layer of an [`Mlp`]: where its parameters sit in the network's parameter slice,
/// and how to evaluate it. Obtain them from [`Mlp::layers`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layer {
    /// Inputs per neuron.
    pub inputs: usize,
    /// Neurons.
    pub outputs: usize,
    /// The neurons' activation.
    pub activation: Activation,
    /// Index of the layer's first parameter in the network's parameter slice.
    pub offset: usize,
}

/// Makes `v` hold `width` zeros (the outputs of layer `layer`). A `heapless::Vec` initialises
/// only what it holds; it is filled in place, never returned (moving one copies all of it).
pub(crate) fn resize<T: Number>(
    v: &mut heapless::Vec<T, MAX_WIDTH>,
    width: usize,
    layer: usize,
) -> Result<(), NnError> {
    v.resize(width, T::zero())
        .map_err(|_| NnError::LayerTooWide { layer, width })
}

impl Layer {
    /// `outputs * (inputs + 1)`: each neuron's weights, then its bias.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// let xor = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    /// let counts: Vec<usize> = xor.layers().map(|l| l.param_count()).collect();
    /// // 4 neurons of 2 weights and a bias, then 1 neuron of 4 weights and a bias.
    /// assert_eq!(counts, [4 * (2 + 1), 4 + 1]);
    /// ```
    pub const fn param_count(&self) -> usize {
        self.outputs * (self.inputs + 1)
    }
}

/// A multilayer perceptron with `D` sizes (`D - 1` layers of neurons).
///
/// Every neuron computes `act(b + w · x)`. Hidden layers use the `hidden` activation and the
/// last layer the `output` one. Parameters are laid out as micrograd's `model.parameters()`:
/// layer by layer, neuron by neuron, each neuron's weights followed by its bias. A layer of
/// `n_in` inputs and `n_out` neurons holds `n_out * (n_in + 1)` of them.
///
/// ```
/// use autograd_nn::{Activation, Mlp};
///
/// // micrograd's moons network: 2 inputs, two hidden relu layers of 16, a linear score.
/// const MOONS: Mlp<4> = Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear);
/// const P: usize = MOONS.param_count();
/// assert_eq!(P, 337);
///
/// let params = [0.1_f64; P];
/// let mut score = [0.0];
/// MOONS.forward(&params, &[0.5, -0.5], &mut score)?;
/// // Layer 1: 0.1 + 0.1*0.5 - 0.1*0.5 = 0.1; layer 2: 0.1 + 16*0.01 = 0.26; out: 0.1 + 16*0.026
/// assert!((score[0] - 0.516).abs() < 1e-12);
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mlp<const D: usize> {
    sizes: [usize; D],
    hidden: Activation,
    output: Activation,
}

impl<const D: usize> Mlp<D> {
    /// A network with the given sizes (inputs first, outputs last).
    ///
    /// # Panics
    /// If the sizes are invalid (see [`try_new`](Self::try_new)); in a `const` item that is a
    /// compile-time error.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// // The seed lesson's network: 2 inputs, 4 tanh neurons, 1 tanh output.
    /// const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    /// assert_eq!((XOR.inputs(), XOR.outputs()), (2, 1));
    /// assert_eq!(XOR.param_count(), 4 * (2 + 1) + (4 + 1));
    /// ```
    pub const fn new(sizes: [usize; D], hidden: Activation, output: Activation) -> Self {
        match Self::try_new(sizes, hidden, output) {
            Ok(m) => m,
            Err(_) => panic!("invalid layer sizes: need >= 2 sizes, each in 1..=MAX_WIDTH"),
        }
    }

    /// A network with the given sizes, or why they cannot make one: fewer than two sizes, a size
    /// of 0, or one above [`MAX_WIDTH`].
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp, NnError, MAX_WIDTH};
    /// let a = Activation::Relu;
    /// assert!(Mlp::try_new([2, MAX_WIDTH, 1], a, a).is_ok());
    /// let too_wide = NnError::LayerTooWide { layer: 1, width: MAX_WIDTH + 1 };
    /// assert_eq!(Mlp::try_new([2, MAX_WIDTH + 1, 1], a, a), Err(too_wide));
    /// assert_eq!(Mlp::try_new([0, 4, 1], a, a), Err(NnError::EmptyLayer { layer: 0 }));
    /// assert_eq!(Mlp::try_new([3], a, a), Err(NnError::TooFewLayers));
    /// ```
    pub const fn try_new(
        sizes: [usize; D],
        hidden: Activation,
        output: Activation,
    ) -> Result<Self, NnError> {
        if D < 2 {
            return Err(NnError::TooFewLayers);
        }
        let mut i = 0;
        while i < D {
            if sizes[i] == 0 {
                return Err(NnError::EmptyLayer { layer: i });
            }
            if sizes[i] > MAX_WIDTH {
                return Err(NnError::LayerTooWide {
                    layer: i,
                    width: sizes[i],
                });
            }
            i += 1;
        }
        Ok(Mlp {
            sizes,
            hidden,
            output,
        })
    }

    /// The sizes, inputs first.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// let m = Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear);
    /// assert_eq!(m.sizes(), [2, 16, 16, 1]);
    /// ```
    pub const fn sizes(&self) -> [usize; D] {
        self.sizes
    }

    /// Number of inputs.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// let m = Mlp::new([2, 8, 3], Activation::Relu, Activation::Linear);
    /// assert_eq!(m.inputs(), 2);
    /// ```
    pub const fn inputs(&self) -> usize {
        self.sizes[0]
    }

    /// Number of outputs.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// let m = Mlp::new([2, 8, 3], Activation::Relu, Activation::Linear);
    /// assert_eq!(m.outputs(), 3); // e.g. three class scores
    /// ```
    pub const fn outputs(&self) -> usize {
        self.sizes[D - 1]
    }

    /// The hidden layers' activation.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// let m = Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear);
    /// assert_eq!(m.hidden_activation(), Activation::Relu);
    /// ```
    pub const fn hidden_activation(&self) -> Activation {
        self.hidden
    }

    /// The output layer's activation.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// let m = Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear);
    /// assert_eq!(m.output_activation(), Activation::Linear);
    /// ```
    pub const fn output_activation(&self) -> Activation {
        self.output
    }

    /// The `D - 1` layers in order, with their place in the parameter slice.
    ///
    /// ```
    /// use autograd_nn::{Activation, Layer, Mlp};
    /// // The iterator borrows nothing: it may outlive the description.
    /// let mut layers = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Linear).layers();
    /// let hidden = Layer { inputs: 2, outputs: 4, activation: Activation::Tanh, offset: 0 };
    /// // The output layer's parameters follow the hidden layer's 4 * (2 + 1) = 12.
    /// let out = Layer { inputs: 4, outputs: 1, activation: Activation::Linear, offset: 12 };
    /// assert_eq!((layers.next(), layers.next(), layers.next()), (Some(hidden), Some(out), None));
    /// ```
    pub fn layers(&self) -> impl Iterator<Item = Layer> {
        // (A copy of the description, a few words: the iterator borrows nothing, so
        // `Mlp::new(..).layers()` can be kept.)
        let net = *self;
        let mut offset = 0;
        (0..D - 1).map(move |l| {
            let layer = Layer {
                inputs: net.sizes[l],
                outputs: net.sizes[l + 1],
                activation: if l + 2 == D { net.output } else { net.hidden },
                offset,
            };
            offset += layer.param_count();
            layer
        })
    }

    /// Number of parameters (weights and biases): `sum over layers of n_out * (n_in + 1)`.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// const M: Mlp<3> = Mlp::new([3, 5, 2], Activation::Tanh, Activation::Linear);
    /// assert_eq!(M.param_count(), 5 * (3 + 1) + 2 * (5 + 1));
    /// assert_eq!(M.param_count(), M.layers().map(|l| l.param_count()).sum::<usize>());
    /// let params = [0.0_f32; M.param_count()]; // a `const fn`: it sizes the parameter array
    /// assert_eq!(params.len(), 32);
    /// ```
    pub const fn param_count(&self) -> usize {
        let mut total = 0;
        let mut l = 0;
        while l + 1 < D {
            total += self.sizes[l + 1] * (self.sizes[l] + 1);
            l += 1;
        }
        total
    }

    /// At most how many tape slots one [`forward`](Self::forward) pass takes on `Var`
    /// parameters: `n_out * (2 n_in + 2)` per layer, what its neurons take when each is written
    /// as a general statement `w · x + b` (an operand per weight, per recorded input and for the
    /// bias, plus its header). A layer of at least two inputs (or of one under two neurons or
    /// more) whose parameters are the tape's
    /// consecutive leaves (as [`Trainer`](crate::Trainer) records them) and whose values are
    /// finite takes far fewer, `n_in + 1 + n_out` (one layer statement, see
    /// [`Number::affine_layer`]); the activation itself costs no slot. Used to size tapes.
    ///
    /// ```
    /// use autograd_nn::{Activation, Mlp};
    /// let m = Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear);
    /// assert_eq!(m.forward_slots(), 16 * (4 + 2) + 16 * (32 + 2) + (32 + 2));
    /// ```
    pub const fn forward_slots(&self) -> usize {
        let mut total = 0;
        let mut l = 0;
        while l + 1 < D {
            total += self.sizes[l + 1] * (2 * self.sizes[l] + 2);
            l += 1;
        }
        total
    }

    fn check_params(&self, len: usize) -> Result<(), NnError> {
        if len == self.param_count() {
            Ok(())
        } else {
            Err(NnError::LengthMismatch {
                what: "parameters",
                expected: self.param_count(),
                actual: len,
            })
        }
    }

    /// Fills `params` with initial values drawn from `rng` (biases 0), in parameter order, so a
    /// seed determines the network.
    ///
    /// ```
    /// use autograd_nn::{Activation, Init, Mlp, Rng};
    /// let xor = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
    /// let mut params = [0.0_f64; 17];
    /// xor.init(&mut params, Init::Uniform, &mut Rng::new(42))?;
    /// assert!(params.iter().all(|p| (-1.0..1.0).contains(p)));
    /// assert_eq!(params[2], 0.0); // first neuron's bias
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    ///
    /// # Errors
    /// [`NnError::LengthMismatch`] if `params.len() != param_count()`.
    pub fn init<S: Scalar>(
        &self,
        params: &mut [S],
        init: Init,
        rng: &mut Rng,
    ) -> Result<(), NnError> {
        self.check_params(params.len())?;
        let mut offset = 0;
        for l in 0..D - 1 {
            let (fan_in, fan_out) = (self.sizes[l], self.sizes[l + 1]);
            for _ in 0..fan_out {
                for p in &mut params[offset..offset + fan_in] {
                    let w = match init {
                        Init::Uniform => rng.uniform(-1.0, 1.0),
                        Init::Xavier => {
                            let a = Number::sqrt(6.0 / (fan_in + fan_out) as f64);
                            rng.uniform(-a, a)
                        }
                        Init::He => rng.normal() * Number::sqrt(2.0 / fan_in as f64),
                    };
                    *p = S::from_f64(w);
                }
                params[offset + fan_in] = S::ZERO;
                offset += fan_in + 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn param_counts_match_the_issue() {
        assert_eq!(
            Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh).param_count(),
            17
        );
        assert_eq!(
            Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear).param_count(),
            337
        );
    }

    #[test]
    fn invalid_sizes_are_errors() {
        let a = Activation::Tanh;
        assert_eq!(Mlp::try_new([3], a, a), Err(NnError::TooFewLayers));
        assert_eq!(
            Mlp::try_new([2, 65, 1], a, a),
            Err(NnError::LayerTooWide {
                layer: 1,
                width: 65
            })
        );
        let m = Mlp::new([2, 3, 1], a, a);
        let mut out = [0.0];
        assert_eq!(
            m.forward(&[0.0; 12], &[1.0, 2.0], &mut out),
            Err(NnError::LengthMismatch {
                what: "parameters",
                expected: 13,
                actual: 12
            })
        );
        assert!(m.forward(&[0.0; 13], &[1.0], &mut out).is_err());
        assert!(m.forward(&[0.0; 13], &[1.0, 2.0], &mut [0.0; 2]).is_err());
    }

    #[test]
    fn forward_matches_a_hand_computed_network() {
        // [2, 2, 1], tanh hidden, linear out.
        // neuron 1: w = (0.5, -1), b = 0.25; neuron 2: w = (2, 1), b = -1; out: w = (1, -2), b = 0.5
        let m = Mlp::new([2, 2, 1], Activation::Tanh, Activation::Linear);
        let p = [0.5, -1.0, 0.25, 2.0, 1.0, -1.0, 1.0, -2.0, 0.5];
        let x = [0.3, 0.7];
        let h1 = (0.25_f64 + 0.5 * 0.3 - 0.7).tanh();
        let h2 = (-1.0_f64 + 2.0 * 0.3 + 0.7).tanh();
        let mut out = [0.0];
        m.forward(&p, &x, &mut out).unwrap();
        assert!((out[0] - (0.5 + h1 - 2.0 * h2)).abs() < 1e-15);
    }

    #[test]
    fn xavier_and_he_have_the_documented_spread() {
        let m = Mlp::new([64, 64, 1], Activation::Relu, Activation::Linear);
        let mut p = [0.0_f64; 64 * 65 + 65];
        let n = (64 * 64) as f64;
        m.init(&mut p, Init::Xavier, &mut Rng::new(1)).unwrap();
        let a = (6.0_f64 / 128.0).sqrt();
        let first: &[f64] = &p[..64 * 65];
        assert!(first.iter().all(|w| w.abs() <= a));
        let var = first.iter().map(|w| w * w).sum::<f64>() / n;
        assert!((var - a * a / 3.0).abs() < 0.1 * a * a / 3.0, "{var}");
        m.init(&mut p, Init::He, &mut Rng::new(1)).unwrap();
        let var = p[..64 * 65].iter().map(|w| w * w).sum::<f64>() / n;
        assert!((var - 2.0 / 64.0).abs() < 0.1 * 2.0 / 64.0, "{var}");
    }
}
