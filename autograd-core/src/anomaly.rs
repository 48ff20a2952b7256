//! NaN provenance: which statement first produced a NaN or an infinity, and from what.
//!
//! The counterpart of PyTorch's `torch.autograd.detect_anomaly`, without a heap. Recording
//! writes any result whose value or local derivative is not finite as a statement of its own,
//! labelled with the operation that produced it, so the tape holds every non-finite value where
//! it arose; finding where a NaN came from is then a scan of the tape after the fact. The checks
//! cost nothing unless they are called.
//!
//! - [`TapeView::first_non_finite`]: the first statement, in creation order, whose value is NaN or
//!   infinite (its operands are therefore finite: it is where the trouble started), or failing
//!   that the statement whose backward step made a gradient non-finite.
//! - [`TapeView::non_finite_origin`]: follows a non-finite result back through its operands to
//!   the statement that produced the first non-finite value on its own (e.g. `ln(0)`).
//! - [`TapeView::backward_checked`]: the opt-in "anomaly mode": backward, then an error naming
//!   the culprit if the output or any gradient is not finite; [`TapeView::anomaly`] gives the
//!   full report.
//!
//! ```
//! use autograd_core::{AnomalyKind, Error, Op, Tape};
//!
//! let tape = Tape::<f64, 16>::new();
//! let x = tape.var(0.0);
//! let loss = x.ln() * 2.0 + 1.0; // ln(0) = -inf
//! let err = tape.backward_checked(loss).unwrap_err();
//! assert!(matches!(err, Error::NonFinite { statement: 2, op: Op::Ln, in_gradient: false }));
//! let anomaly = tape.anomaly(loss).unwrap();
//! assert_eq!((anomaly.index, anomaly.op, anomaly.kind), (2, Op::Ln, AnomalyKind::Value));
//! assert_eq!(anomaly.to_string(), "statement 2 (ln) produced -inf from operand 0 = 0");
//! ```

use core::fmt;

use crate::op::Op;
use crate::tape::{Gradients, Slot};
use crate::{Error, Scalar, TapeView, Var};

/// How many operands an [`Anomaly`] lists (a longer statement lists its first ones).
const LISTED: usize = 4;

/// An operand of the statement named by an [`Anomaly`]: the statement it refers to, its
/// operation and value, and the partial derivative recorded for it.
///
/// ```
/// use autograd_core::{AnomalyInput, Op, Tape};
/// let tape = Tape::<f64, 16>::new();
/// let x = tape.var(0.0);
/// let y = x.ln(); // ln(0) = -inf
/// let input = tape.anomaly(y).unwrap().inputs()[0];
/// assert_eq!(input, AnomalyInput { index: 0, op: Op::Leaf, value: 0.0, partial: f64::INFINITY });
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnomalyInput<S> {
    /// Index of the operand's statement.
    pub index: usize,
    /// Operation that produced the operand.
    pub op: Op,
    /// Its value.
    pub value: S,
    /// The recorded partial derivative with respect to it.
    pub partial: S,
}

/// What was non-finite at the statement an [`Anomaly`] names.
///
/// ```
/// use autograd_core::{AnomalyKind, Tape};
/// let tape = Tape::<f64, 16>::new();
/// let x = tape.var(0.0);
/// let y = x.sqrt() * 3.0; // sqrt(0) = 0 is finite, its derivative is not
/// tape.backward(y)?;
/// match tape.anomaly(y).unwrap().kind {
///     AnomalyKind::Gradient { adjoint, local, .. } => {
///         assert_eq!((adjoint, local), (3.0, f64::INFINITY))
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum AnomalyKind<S> {
    /// The statement's value is NaN or infinite although every operand is finite (or it is a
    /// leaf that was given a non-finite value).
    Value,
    /// The statement's value, operands and adjoint are finite, but its backward step made the
    /// gradient of operand `input` non-finite: either `adjoint * local` is itself non-finite (a
    /// non-finite local derivative such as `sqrt'(0)`), or adding it overflowed.
    Gradient {
        /// Index of the operand whose gradient became non-finite.
        input: usize,
        /// The statement's adjoint (`dy/dstatement`), finite.
        adjoint: S,
        /// The recorded partial `dstatement/dinput`.
        local: S,
        /// `adjoint * local`, the amount added to the operand's gradient.
        contribution: S,
        /// The operand's gradient right after the addition (non-finite).
        sum: S,
    },
}

/// The report of a NaN or infinity: the statement where it started, its operation, its operands.
///
/// Its `Display` reads like `statement 12 (ln) produced -inf from operand 7 = 0`.
///
/// ```
/// use autograd_core::{AnomalyKind, Op, Tape};
/// let tape = Tape::<f64, 16>::new();
/// let (a, b) = (tape.var(1.0), tape.var(-1.0));
/// let y = (a + b).ln() + a; // ln(0)
/// let anomaly = tape.anomaly(y).unwrap();
/// let expected = (Op::Ln, AnomalyKind::Value, f64::NEG_INFINITY);
/// assert_eq!((anomaly.op, anomaly.kind, anomaly.value), expected);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Anomaly<S> {
    /// Whether the statement's value or a gradient it propagated is non-finite.
    pub kind: AnomalyKind<S>,
    /// Index of the statement (as in [`NodeId::index`](crate::NodeId::index) and
    /// [`TapeView::write_dot`]).
    pub index: usize,
    /// Its operation.
    pub op: Op,
    /// Its value.
    pub value: S,
    inputs: [AnomalyInput<S>; LISTED],
    listed: usize,
}

impl<S: Scalar> Anomaly<S> {
    /// The statement's operands (its first four, for a longer statement).
    ///
    /// ```
    /// use autograd_core::{Op, Tape};
    /// let tape = Tape::<f64, 16>::new();
    /// let (x, y) = (tape.var(-1.0), tape.var(2.0));
    /// let bad = (x * y).sqrt() + 1.0; // sqrt(-2)
    /// let anomaly = tape.anomaly(bad).unwrap();
    /// assert_eq!(anomaly.op, Op::Sqrt);
    /// let inputs = anomaly.inputs();
    /// assert_eq!(inputs.len(), 2); // x * y lived in its handle: sqrt's statement holds x and y
    /// assert_eq!((inputs[0].index, inputs[0].value), (0, -1.0));
    /// assert_eq!((inputs[1].index, inputs[1].value), (1, 2.0));
    /// ```
    pub fn inputs(&self) -> &[AnomalyInput<S>] {
        &self.inputs[..self.listed]
    }
}

impl<S: Scalar> fmt::Display for Anomaly<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs = self.inputs();
        match self.kind {
            AnomalyKind::Value => {
                write!(f, "statement {} ({})", self.index, self.op)?;
                if inputs.is_empty() {
                    return write!(f, " holds {}", self.value);
                }
                write!(f, " produced {} from ", self.value)?;
                f.write_str(if inputs.len() == 1 {
                    "operand"
                } else {
                    "operands"
                })?;
                for (k, x) in inputs.iter().enumerate() {
                    let sep = if k == 0 { " " } else { ", " };
                    write!(f, "{sep}{} = {}", x.index, x.value)?;
                }
                Ok(())
            }
            AnomalyKind::Gradient {
                input,
                adjoint,
                local,
                contribution,
                sum,
            } => {
                write!(
                    f,
                    "backward through statement {} ({}) = {} sent operand {input}",
                    self.index, self.op, self.value
                )?;
                if let Some(x) = inputs.iter().find(|x| x.index == input) {
                    write!(f, " = {}", x.value)?;
                }
                write!(
                    f,
                    " the gradient term {adjoint} * {local} = {contribution} \
                     (adjoint * local derivative)"
                )?;
                if contribution.is_finite() {
                    write!(f, ", which overflowed its gradient to {sum}")?;
                }
                Ok(())
            }
        }
    }
}

impl<S: Scalar> TapeView<S> {
    /// The first statement whose value is NaN or infinite, in creation order; if every value is
    /// finite, the statement whose backward step made a gradient non-finite in the last
    /// [`backward`](Self::backward) sweep. `None` if everything is finite.
    ///
    /// The first non-finite value in creation order always has finite operands (they were
    /// recorded before it), so it is where the trouble started. A gradient report names the
    /// statement reached first by the sweep whose `adjoint * partial` is non-finite, e.g. `sqrt`
    /// at 0; if no single term is, the statement whose term made a sum of finite terms overflow.
    /// Gradients are read as the last sweep left them: call it before changing a leaf.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f32, 8>::new();
    /// let x = tape.var(0.0);
    /// let y = x.sqrt() * 3.0; // y = 0, but dy/dx = 3 / (2 sqrt 0) = inf
    /// assert!(tape.first_non_finite().is_none());
    /// assert_eq!(tape.backward(y)?.wrt(x), f32::INFINITY);
    /// let report = tape.first_non_finite().unwrap();
    /// assert_eq!(report.index, 2);
    /// assert_eq!(
    ///     report.to_string(),
    ///     "backward through statement 2 (sqrt) = 0 sent operand 0 = 0 the gradient term \
    ///      3 * inf = inf (adjoint * local derivative)"
    /// );
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn first_non_finite(&self) -> Option<Anomaly<S>> {
        let first = self
            .slots()
            .iter()
            .zip(self.values())
            .position(|(h, v)| h.is_header() && !v.value().is_finite());
        match first {
            Some(i) => self.value_anomaly(i),
            None => self.gradient_anomaly(self.len()),
        }
    }

    /// Where the non-finite value of `y` came from: follows non-finite operands back from `y` to
    /// the statement that produced a non-finite value from finite operands (or a leaf given
    /// one). `None` if `y` is finite, a constant, or not on this tape.
    ///
    /// Unlike [`first_non_finite`](Self::first_non_finite) it ignores statements `y` does not
    /// depend on. The walk takes one step per statement along one path; no allocation.
    ///
    /// ```
    /// use autograd_core::{Op, Tape};
    /// let tape = Tape::<f64, 32>::new();
    /// let (a, b) = (tape.var(1.0), tape.var(0.0));
    /// let unused = b.ln(); // -inf, but the loss does not use it
    /// let loss = (a / b).tanh() + (a - 1.0) / b; // tanh(inf) + 0/0 = 1 + NaN
    /// let origin = tape.non_finite_origin(loss).unwrap();
    /// assert_eq!(origin.op, Op::Div);
    /// assert!(origin.to_string().contains("(/) produced NaN"), "{origin}");
    /// // The whole-tape scan finds the unused ln(0) first.
    /// assert!(tape.first_non_finite().unwrap().to_string().contains("(ln) produced -inf"));
    /// # let _ = unused;
    /// ```
    pub fn non_finite_origin(&self, y: Var<'_, S>) -> Option<Anomaly<S>> {
        if y.value().is_finite() || !y.tape().is_some_and(|t| core::ptr::eq(t, self)) {
            return None;
        }
        self.trace_value(y.id()?.index())
    }

    /// [`backward`](Self::backward) in anomaly mode: the same gradients, but an error naming the
    /// culprit if `y` or any gradient is NaN or infinite.
    ///
    /// If `y` is not finite, the report is [`non_finite_origin(y)`](Self::non_finite_origin).
    /// If only a gradient is, it names the statement whose backward step made it non-finite (see
    /// [`first_non_finite`](Self::first_non_finite)); if that statement's own operands are not
    /// finite, it names where they came from instead.
    ///
    /// `backward` itself is unchanged: this method runs it, then makes one pass over the
    /// statements up to `y`, so the check costs nothing unless called.
    ///
    /// # Errors
    /// Every error of [`backward`](Self::backward); [`Error::NonFinite`] naming the statement
    /// otherwise: [`anomaly`](Self::anomaly) gives the full report.
    ///
    /// ```
    /// use autograd_core::{Error, Op, Tape};
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(-1.0);
    /// let y = x.sqrt() + x; // sqrt(-1) = NaN
    /// let err = tape.backward_checked(y).unwrap_err();
    /// assert_eq!(err, Error::NonFinite { statement: 2, op: Op::Sqrt, in_gradient: false });
    /// let report = tape.anomaly(y).unwrap();
    /// assert_eq!(report.to_string(), "statement 2 (sqrt) produced NaN from operand 0 = -1");
    /// let z = x * 2.0;
    /// assert_eq!(tape.backward_checked(z)?.wrt(x), 2.0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn backward_checked(&self, y: Var<'_, S>) -> Result<Gradients<'_, S>, Error> {
        let grads = self.backward(y)?;
        match self.anomaly(y) {
            Some(a) => Err(Error::NonFinite {
                statement: a.index,
                op: a.op,
                in_gradient: matches!(a.kind, AnomalyKind::Gradient { .. }),
            }),
            None => Ok(grads),
        }
    }

    /// After a backward sweep from `y`, the report [`backward_checked`](Self::backward_checked)
    /// names in its error: where a non-finite value of `y` started (see
    /// [`non_finite_origin`](Self::non_finite_origin)), or else the statement whose backward
    /// step made a gradient non-finite (see [`first_non_finite`](Self::first_non_finite)),
    /// traced to where its own operands came from if they are not finite. `None` if `y` and
    /// every gradient are finite.
    ///
    /// ```
    /// use autograd_core::{AnomalyKind, Op, Tape};
    /// let tape = Tape::<f64, 16>::new();
    /// let x = tape.var(0.0);
    /// let fine = x * 2.0 + 1.0;
    /// tape.backward(fine)?;
    /// assert!(tape.anomaly(fine).is_none());
    /// let y = x.sqrt(); // finite value, infinite derivative at 0
    /// tape.backward(y)?;
    /// let report = tape.anomaly(y).unwrap();
    /// assert_eq!(report.op, Op::Sqrt);
    /// assert!(matches!(report.kind, AnomalyKind::Gradient { input: 0, .. }));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn anomaly(&self, y: Var<'_, S>) -> Option<Anomaly<S>> {
        let pairs = y.pair_array();
        let root = pairs[..y.pending()]
            .iter()
            .map(|p| p.0 as usize + 1)
            .max()
            .unwrap_or(0);
        let anomaly = if !y.value().is_finite() {
            match y.id() {
                Some(id) => self.trace_value(id.index()),
                None => pairs[..y.pending()]
                    .iter()
                    .find_map(|p| self.trace_value(p.0 as usize)),
            }
        } else {
            match self.gradient_anomaly(root) {
                Some(a) if !a.value.is_finite() => self.trace_value(a.index),
                Some(a) => match a.inputs().iter().find(|x| !x.value.is_finite()) {
                    Some(x) => self.trace_value(x.index),
                    None => Some(a),
                },
                None => None,
            }
        };
        anomaly
    }

    /// The report for statement `i`, of kind `Value`.
    fn value_anomaly(&self, i: usize) -> Option<Anomaly<S>> {
        let (slots, values) = (self.slots(), self.values());
        {
            let head = slots.get(i).filter(|h| h.is_header())?;
            let blank = AnomalyInput {
                index: 0,
                op: Op::Leaf,
                value: S::ZERO,
                partial: S::ZERO,
            };
            let mut inputs = [blank; LISTED];
            let mut listed = 0;
            for (slot, (index, partial)) in inputs.iter_mut().zip(self.operands(i)) {
                let target: &Slot<S> = slots.get(index as usize)?;
                *slot = AnomalyInput {
                    index: index as usize,
                    op: target.op(),
                    value: values.get(index as usize)?.value(),
                    partial,
                };
                listed += 1;
            }
            Some(Anomaly {
                kind: AnomalyKind::Value,
                index: i,
                op: head.op(),
                value: values.get(i)?.value(),
                inputs,
                listed,
            })
        }
    }

    /// Walks from non-finite statement `i` through non-finite operands to where they started.
    fn trace_value(&self, mut i: usize) -> Option<Anomaly<S>> {
        loop {
            let anomaly = self.value_anomaly(i)?;
            if anomaly.value.is_finite() {
                return None;
            }
            // Operands precede their statement, so the walk strictly descends and ends.
            let values = self.values();
            let next = self
                .operands(i)
                .map(|(t, _)| t as usize)
                .find(|&t| values.get(t).is_some_and(|s| !s.value().is_finite()));
            match next {
                Some(t) => i = t,
                None => return Some(anomaly),
            }
        }
    }

    /// The gradient report for the slots below `end`, from the adjoints of the last sweep.
    fn gradient_anomaly(&self, end: usize) -> Option<Anomaly<S>> {
        // Backward visits statements from the top down; a statement's adjoint is final when it
        // is visited. The first visited statement with a finite adjoint that sends a non-finite
        // term to an operand is where the gradient went bad.
        let slots = self.slots();
        let found = (|| {
            let mut highest_bad = None;
            let mut p = end.min(slots.len());
            while p > 0 {
                let h = p - 1;
                let head = &slots[h];
                let g = head.adj();
                if !g.is_finite() {
                    highest_bad.get_or_insert(h);
                } else if !g.is_zero() {
                    for (k, (link, partial)) in self.operands(h).enumerate() {
                        if !(g * partial).is_finite() {
                            return Some((link as usize, Some((h, k))));
                        }
                    }
                }
                p = self.next_below(h);
            }
            // No single term is non-finite, so the highest statement with a non-finite
            // gradient got it by overflowing a sum of finite terms.
            highest_bad.map(|b| (b, None))
        })()?;
        self.replay_sum(found.0, end, found.1)
    }

    /// Replays, in backward's order, the sum that forms the gradient of statement `k` from the
    /// terms its users send it, up to operand `slot` of statement `i` if `stop` is
    /// `Some((i, slot))`, else up to the term that makes the sum non-finite; returns that step's
    /// report.
    fn replay_sum(&self, k: usize, end: usize, stop: Option<(usize, usize)>) -> Option<Anomaly<S>> {
        let seed = self.last_seed();
        let slots = self.slots();
        let step = (|| {
            // The sweep seeds the output's own pairs first, then adds the statements' terms.
            let mut sum = S::ZERO;
            for (i, d) in seed {
                if i as usize == k {
                    sum += d;
                }
            }
            let mut p = end.min(slots.len());
            while p > k + 1 {
                let h = p - 1;
                let head = &slots[h];
                let g = head.adj();
                if !g.is_zero() {
                    for (s, (link, partial)) in self.operands(h).enumerate() {
                        if link as usize != k {
                            continue;
                        }
                        let contribution = g * partial;
                        sum += contribution;
                        let here = match stop {
                            Some(at) => at == (h, s),
                            None => !sum.is_finite(),
                        };
                        if here {
                            return Some((h, g, partial, contribution, sum));
                        }
                    }
                }
                p = self.next_below(h);
            }
            None
        })()?;
        let (h, adjoint, local, contribution, sum) = step;
        let mut anomaly = self.value_anomaly(h)?;
        anomaly.kind = AnomalyKind::Gradient {
            input: k,
            adjoint,
            local,
            contribution,
            sum,
        };
        Some(anomaly)
    }
}
