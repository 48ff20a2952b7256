//! NaN provenance: which node first produced a NaN or an infinity, and from what.
//!
//! The counterpart of PyTorch's `torch.autograd.detect_anomaly`, without a heap: a tape already
//! holds every value, every adjoint and every edge, so finding where a NaN came from is a scan of
//! the tape after the fact. Nothing is added to recording or to [`TapeView::backward`]; the checks
//! cost nothing unless they are called.
//!
//! - [`TapeView::first_non_finite`]: the first node, in creation order, whose value is NaN or
//!   infinite (its inputs are therefore finite: it is where the trouble started), or failing that
//!   the node whose backward step made a gradient non-finite.
//! - [`TapeView::non_finite_origin`]: follows a non-finite result back through its inputs to the
//!   node that produced the first non-finite value on its own (e.g. `ln(0)`).
//! - [`TapeView::backward_checked`]: the opt-in "anomaly mode": backward, then an error naming
//!   the culprit if the output or any gradient is not finite.
//!
//! ```
//! use autograd_core::{AnomalyKind, Op, Tape};
//!
//! let tape = Tape::<f64, 16>::new();
//! let x = tape.var(0.0);
//! let loss = x.ln() * 2.0 + 1.0; // ln(0) = -inf
//! let err = tape.backward_checked(loss).unwrap_err();
//! let anomaly = err.anomaly().unwrap();
//! assert_eq!((anomaly.index, anomaly.op, anomaly.kind), (1, Op::Ln, AnomalyKind::Value));
//! assert_eq!(anomaly.to_string(), "node 1 (ln) produced -inf from input node 0 = 0");
//! ```

use core::fmt;

use crate::op::{self, Op};
use crate::tape::{Gradients, Node, NodeId};
use crate::{Scalar, TapeError, TapeView, Var};

/// An input of the node named by an [`Anomaly`]: its index, operation and value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnomalyInput<S> {
    /// Index of the input node.
    pub index: usize,
    /// Operation that produced the input.
    pub op: Op,
    /// Its value.
    pub value: S,
}

/// What was non-finite at the node an [`Anomaly`] names.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum AnomalyKind<S> {
    /// The node's value is NaN or infinite although every input is finite (or the node is a leaf
    /// or constant that was given a non-finite value).
    Value,
    /// The node's value, inputs and adjoint are finite, but its backward step made the gradient of
    /// input `input` non-finite: either `adjoint * local` is itself non-finite (a non-finite local
    /// derivative such as `sqrt'(0)`), or adding it to the input's gradient overflowed.
    Gradient {
        /// Index of the input whose gradient became non-finite.
        input: usize,
        /// The node's adjoint (`dy/dnode`), finite.
        adjoint: S,
        /// The local derivative `dnode/dinput`.
        local: S,
        /// `adjoint * local`, the amount added to the input's gradient.
        contribution: S,
        /// The input's gradient right after the addition (non-finite).
        sum: S,
    },
}

/// The report of a NaN or infinity: the node where it started, its operation, its inputs.
///
/// Its `Display` reads like `node 1234 (ln) produced -inf from input node 17 = 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Anomaly<S> {
    /// Whether the node's value or a gradient it propagated is non-finite.
    pub kind: AnomalyKind<S>,
    /// Index of the node (as in [`NodeId::index`] and [`TapeView::write_dot`]).
    pub index: usize,
    /// Its operation.
    pub op: Op,
    /// The exponent of a [`Op::Powi`] node, else `None`.
    pub exponent: Option<i32>,
    /// Its value.
    pub value: S,
    inputs: [AnomalyInput<S>; 2],
    arity: usize,
}

impl<S: Scalar> Anomaly<S> {
    /// The node's inputs (`op.arity()` of them: none for a leaf or a constant).
    pub fn inputs(&self) -> &[AnomalyInput<S>] {
        &self.inputs[..self.arity]
    }
}

impl<S: Scalar> fmt::Display for Anomaly<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs = self.inputs();
        match self.kind {
            AnomalyKind::Value => {
                write!(f, "node {} ({}", self.index, self.op)?;
                if let Some(n) = self.exponent {
                    write!(f, " {n}")?;
                }
                match inputs {
                    [] => write!(f, ") holds {}", self.value),
                    [x] => write!(
                        f,
                        ") produced {} from input node {} = {}",
                        self.value, x.index, x.value
                    ),
                    [x, y, ..] => write!(
                        f,
                        ") produced {} from inputs node {} = {} and node {} = {}",
                        self.value, x.index, x.value, y.index, y.value
                    ),
                }
            }
            AnomalyKind::Gradient {
                input,
                adjoint,
                local,
                contribution,
                sum,
            } => {
                write!(f, "backward through node {} ({}", self.index, self.op)?;
                if let Some(n) = self.exponent {
                    write!(f, " {n}")?;
                }
                write!(f, ") = {} sent input node {input}", self.value)?;
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

/// The error of [`TapeView::backward_checked`]: the tape's own error, or a non-finite result.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum BackwardError<S> {
    /// The sweep could not run (see [`TapeView::backward`]).
    Tape(TapeError),
    /// The output or a gradient is NaN or infinite; the report names where it started.
    NonFinite(Anomaly<S>),
}

impl<S> BackwardError<S> {
    /// The anomaly report, if that is what went wrong.
    pub fn anomaly(&self) -> Option<&Anomaly<S>> {
        match self {
            BackwardError::NonFinite(a) => Some(a),
            BackwardError::Tape(_) => None,
        }
    }
}

impl<S> From<TapeError> for BackwardError<S> {
    fn from(e: TapeError) -> Self {
        BackwardError::Tape(e)
    }
}

impl<S: Scalar> fmt::Display for BackwardError<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackwardError::Tape(e) => fmt::Display::fmt(e, f),
            BackwardError::NonFinite(a) => write!(f, "non-finite value: {a}"),
        }
    }
}

impl<S: Scalar> core::error::Error for BackwardError<S> {}

impl<S: Scalar> TapeView<S> {
    /// The first node whose value is NaN or infinite, in creation order; if every value is finite,
    /// the node whose backward step made a gradient non-finite in the last
    /// [`backward`](Self::backward) sweep. `None` if everything is finite.
    ///
    /// The first non-finite value in creation order always has finite inputs (they were created
    /// before it), so it is where the trouble started. A gradient report names the node reached
    /// first by the sweep whose `adjoint * local derivative` is non-finite, e.g. `sqrt` at 0;
    /// if no single term is, the node whose term made a sum of finite terms overflow.
    /// Gradients are read as the last sweep left them: call it before changing a leaf.
    ///
    /// One pass over the tape (two if a gradient overflowed); no allocation.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f32, 8>::new();
    /// let x = tape.var(0.0);
    /// let y = x.sqrt() * 3.0; // y = 0, but dy/dx = 3 / (2 sqrt 0) = inf
    /// assert!(tape.first_non_finite().is_none());
    /// assert_eq!(tape.backward(y)?.wrt(x), f32::INFINITY);
    /// let report = tape.first_non_finite().unwrap();
    /// assert_eq!(report.index, 1);
    /// assert_eq!(
    ///     report.to_string(),
    ///     "backward through node 1 (sqrt) = 0 sent input node 0 = 0 the gradient term \
    ///      3 * inf = inf (adjoint * local derivative)"
    /// );
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn first_non_finite(&self) -> Option<Anomaly<S>> {
        let mut first = None;
        self.for_each_node(|i, node| {
            if first.is_none() && !node.value().is_finite() {
                first = Some(i);
            }
        })
        .ok()?;
        match first {
            Some(i) => self.value_anomaly(i),
            None => self.gradient_anomaly(self.len().checked_sub(1)?),
        }
    }

    /// Where the non-finite value of `y` came from: follows non-finite inputs back from `y` to
    /// the node that produced a non-finite value from finite inputs (or a leaf given one).
    /// `None` if `y` is finite, a constant, or not on this tape.
    ///
    /// Unlike [`first_non_finite`](Self::first_non_finite) it ignores nodes `y` does not depend
    /// on. The walk takes one step per node along one path; no allocation.
    ///
    /// ```
    /// use autograd_core::{Op, Tape};
    /// let tape = Tape::<f64, 16>::new();
    /// let (a, b) = (tape.var(1.0), tape.var(0.0));
    /// let unused = b.ln(); // -inf, but the loss does not use it
    /// let loss = (a / b).tanh() + (a - 1.0) / b; // tanh(inf) + 0/0 = 1 + NaN
    /// let origin = tape.non_finite_origin(loss).unwrap();
    /// assert_eq!((origin.index, origin.op), (6, Op::Div));
    /// assert_eq!(origin.to_string(), "node 6 (/) produced NaN from inputs node 5 = 0 and node 1 = 0");
    /// // The whole-tape scan finds the unused ln(0) first.
    /// assert_eq!(tape.first_non_finite().unwrap().to_string(), "node 2 (ln) produced -inf from input node 1 = 0");
    /// # let _ = unused;
    /// ```
    pub fn non_finite_origin(&self, y: Var<'_, S>) -> Option<Anomaly<S>> {
        let index = self.index_of(y).ok()? as usize;
        self.trace_value(index)
    }

    /// [`backward`](Self::backward) in anomaly mode: the same gradients, but an error naming the
    /// culprit if `y` or any gradient is NaN or infinite.
    ///
    /// If `y` is not finite, the report is [`non_finite_origin(y)`](Self::non_finite_origin).
    /// If only a gradient is, it names the node whose backward step made it non-finite (see
    /// [`first_non_finite`](Self::first_non_finite)); if that node's own inputs are not finite,
    /// it names where they came from instead. The gradients stay readable through
    /// [`TapeView::grad`] and [`TapeView::node`] for a closer look.
    ///
    /// `backward` itself is unchanged: this method runs it, then makes one pass over the nodes
    /// up to `y`, so the check costs nothing unless called.
    ///
    /// # Errors
    /// [`BackwardError::Tape`] for every error of [`backward`](Self::backward);
    /// [`BackwardError::NonFinite`] with the report otherwise.
    ///
    /// ```
    /// use autograd_core::{BackwardError, Tape};
    /// let tape = Tape::<f64, 8>::new();
    /// let x = tape.var(-1.0);
    /// let y = x.sqrt() + x; // sqrt(-1) = NaN
    /// match tape.backward_checked(y) {
    ///     Err(BackwardError::NonFinite(a)) => {
    ///         assert_eq!(a.to_string(), "node 1 (sqrt) produced NaN from input node 0 = -1")
    ///     }
    ///     other => panic!("expected an anomaly, got {other:?}"),
    /// }
    /// let z = x * 2.0;
    /// assert_eq!(tape.backward_checked(z)?.wrt(x), 2.0);
    /// # Ok::<(), BackwardError<f64>>(())
    /// ```
    pub fn backward_checked(&self, y: Var<'_, S>) -> Result<Gradients<'_, S>, BackwardError<S>> {
        let grads = self.backward(y)?;
        let root = self.index_of(y)? as usize;
        let anomaly = if !y.value().is_finite() {
            self.trace_value(root)
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
        match anomaly {
            Some(a) => Err(BackwardError::NonFinite(a)),
            None => Ok(grads),
        }
    }

    fn node_at(&self, i: usize) -> Option<Node<S>> {
        self.node(NodeId(u32::try_from(i).ok()?)).ok()
    }

    /// The report for node `i`, of kind `Value`.
    fn value_anomaly(&self, i: usize) -> Option<Anomaly<S>> {
        let node = self.node_at(i)?;
        let op = node.op();
        let arity = op.arity();
        let mut inputs = [AnomalyInput {
            index: 0,
            op: Op::Const,
            value: S::ZERO,
        }; 2];
        for (slot, &index) in inputs.iter_mut().zip(&node.inputs()).take(arity) {
            let input = self.node_at(index)?;
            *slot = AnomalyInput {
                index,
                op: input.op(),
                value: input.value(),
            };
        }
        Some(Anomaly {
            kind: AnomalyKind::Value,
            index: i,
            op,
            exponent: (op == Op::Powi).then(|| node.exponent()),
            value: node.value(),
            inputs,
            arity,
        })
    }

    /// Walks from non-finite node `i` through non-finite inputs to where they started.
    fn trace_value(&self, mut i: usize) -> Option<Anomaly<S>> {
        if self.node_at(i)?.value().is_finite() {
            return None;
        }
        loop {
            let anomaly = self.value_anomaly(i)?;
            // Inputs precede their node, so the walk strictly descends and ends.
            match anomaly.inputs().iter().find(|x| !x.value.is_finite()) {
                Some(x) => i = x.index,
                None => return Some(anomaly),
            }
        }
    }

    /// The local derivatives of `node` with respect to its inputs, exactly as backward computes
    /// them.
    fn local_derivatives(&self, node: &Node<S>) -> Option<[S; 2]> {
        let [a, b] = node.inputs();
        let arity = node.op().arity();
        if arity == 0 {
            return Some([S::ZERO; 2]);
        }
        let x = self.node_at(a)?.value();
        let y = if arity == 2 {
            self.node_at(b)?.value()
        } else {
            S::ZERO
        };
        let (da, db) = op::partials(node.op(), x, y, node.value(), node.exponent());
        Some([da, db])
    }

    /// The gradient report for the nodes up to `last`, from the adjoints of the last sweep.
    fn gradient_anomaly(&self, last: usize) -> Option<Anomaly<S>> {
        // Backward visits nodes from the top down; a node's adjoint is final when it is visited.
        // The first visited node with a finite adjoint that sends a non-finite term to an input
        // is where the gradient went bad.
        let mut highest_bad = None;
        for i in (0..=last).rev() {
            let node = self.node_at(i)?;
            let g = node.grad();
            if !g.is_finite() {
                highest_bad.get_or_insert(i);
                continue;
            }
            if g.is_zero() {
                continue;
            }
            let local = self.local_derivatives(&node)?;
            for (slot, d) in local.into_iter().enumerate().take(node.op().arity()) {
                if !(g * d).is_finite() {
                    return self.replay_sum(node.inputs()[slot], last, Some((i, slot)));
                }
            }
        }
        // No single term is non-finite, so the highest node with a non-finite gradient got it by
        // overflowing a sum of finite terms (its users' adjoints are finite: they are higher).
        self.replay_sum(highest_bad?, last, None)
    }

    /// Replays, in backward's order, the sum that forms the gradient of node `k` from the terms
    /// its users `last, last - 1, ...` send it, up to the term of input `slot` of node `i` if
    /// `stop` is `Some((i, slot))`, else up to the term that makes the sum non-finite; returns
    /// that step's report.
    fn replay_sum(
        &self,
        k: usize,
        last: usize,
        stop: Option<(usize, usize)>,
    ) -> Option<Anomaly<S>> {
        let mut sum = S::ZERO;
        for i in (k + 1..=last).rev() {
            let node = self.node_at(i)?;
            let g = node.grad();
            if g.is_zero() {
                continue;
            }
            let local = self.local_derivatives(&node)?;
            for (slot, d) in local.into_iter().enumerate().take(node.op().arity()) {
                if node.inputs()[slot] != k {
                    continue;
                }
                let contribution = g * d;
                sum += contribution;
                let here = match stop {
                    Some(at) => at == (i, slot),
                    None => !sum.is_finite(),
                };
                if here {
                    let mut anomaly = self.value_anomaly(i)?;
                    anomaly.kind = AnomalyKind::Gradient {
                        input: k,
                        adjoint: g,
                        local: d,
                        contribution,
                        sum,
                    };
                    return Some(anomaly);
                }
            }
        }
        None
    }
}
