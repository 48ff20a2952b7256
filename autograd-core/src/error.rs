//! The one error type of the core.

use core::fmt;

/// What went wrong while recording on, or differentiating, a tape.
///
/// Operators such as `a * b` cannot return a `Result`, so a failure while recording is *sticky*:
/// the tape remembers the first error, every later result is marked as not recorded (its value
/// is still computed), and [`TapeView::backward`](crate::TapeView::backward) and
/// [`TapeView::check`](crate::TapeView::check) report it.
///
/// ```
/// use autograd_core::{Tape, TapeError};
///
/// let tape = Tape::<f64, 2>::new();
/// let (x, y) = (tape.var(3.0), tape.var(2.0));
/// let z = tape.var(1.0); // a third leaf does not fit
/// let w = x * y * z;
/// assert_eq!(w.value(), 6.0); // values stay right
/// let err = tape.backward(w).unwrap_err();
/// assert_eq!(err, TapeError::CapacityExceeded { capacity: 2, needed: 3 });
/// assert_eq!(
///     err.to_string(),
///     "tape capacity of 2 slots exceeded: needed at least 3; build a larger `Tape` or rewind it"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TapeError {
    /// More slots were needed than the tape holds.
    CapacityExceeded {
        /// The tape's capacity in slots.
        capacity: usize,
        /// The slots this recording asked for: those in use plus every write that did not fit
        /// since the tape was created or rewound. Results that depend on a failed write are not
        /// recorded and mostly write nothing, so a recording that fits may need more: take it
        /// as the size to try next, not as an exact figure.
        needed: usize,
    },
    /// A `Var` recorded on one tape was combined with, or looked up on, another tape.
    ForeignVar,
    /// A [`NodeId`](crate::NodeId) or [`Mark`](crate::Mark) taken from one tape was given to
    /// another.
    ForeignId,
    /// [`Gradients`](crate::Gradients) were read after a later backward sweep on the same tape
    /// replaced them.
    StaleGradients,
    /// The value has no statement on this tape: a constant, or a result whose recording failed.
    NotRecorded,
    /// [`TapeView::set_value`](crate::TapeView::set_value) on a statement that is not a leaf.
    NotALeaf {
        /// Index of the statement.
        index: usize,
    },
    /// An index that is not a statement of the tape (past its end, or an operand slot).
    UnknownNode {
        /// The index asked for.
        index: usize,
        /// Number of slots on the tape.
        len: usize,
    },
    /// Two slices that must have the same length do not.
    LengthMismatch {
        /// Length of the first slice.
        left: usize,
        /// Length of the second slice.
        right: usize,
    },
    /// The tape was in use by another access (only possible from inside a `fmt::Write` that
    /// records on the tape it is exporting).
    Busy,
}

impl fmt::Display for TapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TapeError::CapacityExceeded { capacity, needed } => write!(
                f,
                "tape capacity of {capacity} slots exceeded: needed at least {needed}; build a \
                 larger `Tape` or rewind it"
            ),
            TapeError::ForeignVar => f.write_str("a value recorded on another tape was used"),
            TapeError::ForeignId => {
                f.write_str("a `NodeId` or `Mark` from another tape was used on this tape")
            }
            TapeError::StaleGradients => f.write_str(
                "these `Gradients` were replaced by a later backward sweep on the same tape; read \
                 them before sweeping again",
            ),
            TapeError::NotRecorded => {
                f.write_str("the value is not recorded on the tape (a constant or a failed result)")
            }
            TapeError::NotALeaf { index } => {
                write!(f, "statement {index} is not a leaf; only leaves can be set")
            }
            TapeError::UnknownNode { index, len } => {
                write!(
                    f,
                    "slot {index} is not a statement of the tape ({len} slots in use)"
                )
            }
            TapeError::LengthMismatch { left, right } => {
                write!(f, "slices of different lengths ({left} and {right})")
            }
            TapeError::Busy => f.write_str("the tape is already in use"),
        }
    }
}

impl core::error::Error for TapeError {}
