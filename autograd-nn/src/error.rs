//! The one error type of the crate.

use core::fmt;

use autograd_core::TapeError;

/// What went wrong while building, evaluating or training a network.
///
/// ```
/// use autograd_nn::{Activation, Mlp, NnError};
/// let err = Mlp::try_new([2, 0, 1], Activation::Tanh, Activation::Linear).unwrap_err();
/// assert_eq!(err, NnError::EmptyLayer { layer: 1 });
/// assert_eq!(err.to_string(), "layer 1 has no neurons; every layer needs at least one");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum NnError {
    /// The tape failed (most often: it is too small for even one sample; see
    /// [`Trainer`](crate::Trainer) for sizing).
    Tape(TapeError),
    /// A slice has the wrong length (parameters, inputs, outputs or gradients).
    LengthMismatch {
        /// What was being passed.
        what: &'static str,
        /// The length the network needs.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A network needs at least an input and an output size.
    TooFewLayers,
    /// A layer of width 0.
    EmptyLayer {
        /// Index of the size in the layer list.
        layer: usize,
    },
    /// A layer wider than [`MAX_WIDTH`](crate::MAX_WIDTH).
    LayerTooWide {
        /// Index of the size in the layer list.
        layer: usize,
        /// Its width.
        width: usize,
    },
    /// A batch with no samples (a mean over nothing is undefined).
    EmptyBatch,
    /// A mini-batch size of 0 or larger than the data set.
    BadBatchSize {
        /// The size asked for.
        size: usize,
        /// Number of samples in the data set.
        samples: usize,
    },
    /// A target the loss cannot use: not finite, a class the network has no output for, a
    /// probability outside [0, 1].
    BadLabel {
        /// The label.
        label: f64,
        /// Number of outputs (classes).
        classes: usize,
    },
    /// A sample whose input is NaN or infinite.
    NonFiniteInput {
        /// Index of the sample in its batch.
        sample: usize,
    },
    /// Training produced a value that is not finite; the step is the one that did.
    NotFinite {
        /// The training step (from 0).
        step: usize,
        /// What is not finite: the loss, a gradient, a parameter or the learning rate.
        what: &'static str,
    },
    /// A target accuracy was asked of a loss that does not classify these targets (a squared
    /// error against targets other than ±1).
    NoAccuracy,
    /// An optimizer's constant outside its range (see
    /// [`Adam::with_betas`](crate::Adam::with_betas) and [`Momentum::new`](crate::Momentum::new)).
    BadHyperparameter {
        /// Its name.
        name: &'static str,
        /// The value given.
        value: f64,
    },
}

impl fmt::Display for NnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NnError::Tape(e) => write!(f, "tape error: {e}"),
            NnError::LengthMismatch {
                what,
                expected,
                actual,
            } => write!(f, "{what}: expected {expected} values, got {actual}"),
            NnError::TooFewLayers => {
                f.write_str("a network needs at least two sizes (inputs and outputs)")
            }
            NnError::EmptyLayer { layer } => write!(
                f,
                "layer {layer} has no neurons; every layer needs at least one"
            ),
            NnError::LayerTooWide { layer, width } => write!(
                f,
                "layer {layer} has {width} neurons; at most {} are supported",
                crate::MAX_WIDTH
            ),
            NnError::EmptyBatch => f.write_str("the batch holds no samples"),
            NnError::BadBatchSize { size, samples } => write!(
                f,
                "mini-batch size {size} is not in 1..={samples} (the data set's size)"
            ),
            NnError::BadLabel { label, classes } => write!(
                f,
                "target {label} cannot be used by this loss with {classes} output(s) (a class \
                 index in 0..{classes}, a probability in [0, 1], a finite value)"
            ),
            NnError::NonFiniteInput { sample } => {
                write!(f, "sample {sample} has an input that is NaN or infinite")
            }
            NnError::NotFinite { step, what } => write!(
                f,
                "training step {step}: the {what} is NaN or infinite; training stopped (check the \
                 learning rate, the data and the initial parameters)"
            ),
            NnError::BadHyperparameter { name, value } => write!(
                f,
                "optimizer constant `{name}` = {value} is out of its range (Adam's betas in \
                 [0, 1), eps and momentum's mu finite and not negative)"
            ),
            NnError::NoAccuracy => f.write_str(
                "a target accuracy needs a loss that classifies every sample (a squared error \
                 does only against labels -1 and 1)",
            ),
        }
    }
}

impl core::error::Error for NnError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            NnError::Tape(e) => Some(e),
            _ => None,
        }
    }
}

impl From<TapeError> for NnError {
    fn from(e: TapeError) -> Self {
        NnError::Tape(e)
    }
}
