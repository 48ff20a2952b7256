//! The one error type of the core.

use core::fmt;

use crate::Op;

/// What went wrong while recording on, or differentiating, a tape, in a gradient, Jacobian,
/// Hessian or check driver, or in a checked backward sweep: the core's one error type.
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
pub enum Error {
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
    /// A slice does not have the length it must have (an output, a direction, a gradient).
    LengthMismatch {
        /// Which slice.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        found: usize,
    },
    /// More inputs (or outputs) than [`MAX_DIMENSION`](crate::MAX_DIMENSION), without the
    /// `alloc` feature (or a Jacobian or Hessian whose size overflows `usize`).
    DimensionTooLarge {
        /// The dimension asked for.
        len: usize,
        /// The largest supported.
        max: usize,
    },
    /// A driver's scratch would take more than
    /// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) of stack, and the `alloc` feature
    /// (which puts it on the heap) is off.
    ScratchTooLarge {
        /// Elements of scratch needed (inputs, plus outputs for a Jacobian).
        len: usize,
        /// The bytes of stack that would take.
        bytes: usize,
        /// The most allowed, [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES).
        max: usize,
    },
    /// [`TapeView::backward_checked`](crate::TapeView::backward_checked): the output or a
    /// gradient is NaN or infinite, and this statement is where it started;
    /// [`TapeView::non_finite_origin`](crate::TapeView::non_finite_origin) gives the full
    /// report (operands, values, the gradient term).
    NonFinite {
        /// Index of the statement.
        statement: usize,
        /// Its operation.
        op: Op,
        /// `true` if its value is finite and a gradient term through it is not.
        in_gradient: bool,
    },
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
            TapeError::LengthMismatch {
                what,
                expected,
                found,
            } => write!(f, "{what} slice has length {found}, expected {expected}"),
            TapeError::DimensionTooLarge { len, max } => write!(
                f,
                "dimension {len} exceeds the supported maximum of {max} (MAX_DIMENSION)"
            ),
            TapeError::ScratchTooLarge { len, bytes, max } => write!(
                f,
                "scratch for {len} elements would take {bytes} bytes of stack, over the limit of \
                 {max} (SCRATCH_STACK_BYTES); enable autograd-core's `alloc` feature to put it on \
                 the heap, or differentiate fewer inputs (or with fewer lanes) per call"
            ),
            TapeError::NonFinite {
                statement,
                op,
                in_gradient,
            } => {
                let place = if in_gradient {
                    "a gradient term through"
                } else {
                    "the value of"
                };
                write!(
                    f,
                    "{place} statement {statement} ({op}) is NaN or infinite; \
                     `non_finite_origin` reports its operands"
                )
            }
        }
    }
}

impl core::error::Error for Error {}

/// The error's name before the drivers' (`DiffError`) and the checked sweep's (`BackwardError`)
/// errors were merged into it: the same type.
pub type TapeError = Error;
