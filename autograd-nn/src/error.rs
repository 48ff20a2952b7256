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
    /// A class label that the network has no output for.
    BadLabel {
        /// The label.
        label: f64,
        /// Number of outputs (classes).
        classes: usize,
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
            NnError::BadLabel { label, classes } => {
                write!(f, "label {label} is not a class index in 0..{classes}")
            }
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
