//! Recorded statements read and leaves set by id: [`TapeView::get`], [`TapeView::set_value`],
//! [`TapeView::node`] (a [`Node`]), [`TapeView::for_each_operand`] and
//! [`TapeView::for_each_node`].

use super::slot::header_link;
use super::{NodeId, Slot, TapeView};
use crate::op::Op;
use crate::{Scalar, TapeError, Var};

/// A recorded statement, as [`TapeView::node`] reports it.
///
/// ```
/// use autograd_core::{Node, Op, Tape};
/// let tape = Tape::<f64, 8>::new();
/// let x = tape.var(2.0);
/// let y = x.exp().recorded()?; // one operand and a header
/// let node = tape.node(y.id().unwrap())?;
/// assert_eq!((node.op, node.grad, node.operands), (Op::Exp, 0.0, 1));
/// assert!((node.value - 2.0f64.exp()).abs() < 1e-14); // e^2, as std computes it
/// assert_eq!(node, Node { value: y.value(), ..node }); // the handle's value, as recorded
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node<S> {
    /// The operation that produced the statement (for a preaccumulated statement, the last one).
    pub op: Op,
    /// Its value.
    pub value: S,
    /// Its adjoint from the last backward sweep (0 before any).
    pub grad: S,
    /// How many operands (`(index, partial)` pairs) it has: 0 for a leaf.
    pub operands: usize,
}

impl<S: Scalar> TapeView<S> {
    /// The header at slot `id`, if that slot is in use and is a header, and the slot its value
    /// is in.
    fn header_at(&self, id: NodeId) -> Result<(&Slot<S>, &Slot<S>), TapeError> {
        self.own(id.tag)?;
        match (self.slots().get(id.index()), self.values().get(id.index())) {
            (Some(h), Some(v)) if h.is_header() => Ok((h, v)),
            _ => Err(TapeError::UnknownNode {
                index: id.index(),
                len: self.len(),
            }),
        }
    }

    /// A fresh handle to an existing statement (e.g. a parameter kept across
    /// [`rewind`](Self::rewind)).
    ///
    /// ```
    /// use autograd_core::{NodeId, Tape, TapeError};
    /// let tape = Tape::<f64, 8>::new();
    /// let id = tape.var(1.5).id().unwrap();
    /// let x = tape.get(id)?;
    /// assert_eq!(x.value(), 1.5);
    /// let dy = tape.backward(x.exp())?.wrt(x);
    /// assert!((dy - 1.5f64.exp()).abs() < 1e-14); // e^1.5, as std computes it
    /// let past = TapeError::UnknownNode { index: 5, len: 1 };
    /// assert_eq!(tape.get(NodeId::from_index(5)).unwrap_err(), past);
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn get(&self, id: NodeId) -> Result<Var<'_, S>, TapeError> {
        let (_, v) = self.header_at(id)?;
        Ok(Var::node(self, id.index, v.value()))
    }

    /// Sets the value of a leaf (e.g. a parameter after an optimizer step). Statements computed
    /// from it keep their old values and partials until recorded again, so set leaves right
    /// after a rewind.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// let mut tape = Tape::<f64, 8>::new();
    /// let id = tape.var(1.0).id().unwrap();
    /// tape.set_value(id, 4.0)?;
    /// let x = tape.get(id)?;
    /// let y = x.sqrt().recorded()?;
    /// assert_eq!(tape.backward(y)?.wrt(x), 0.25); // 1 / (2 sqrt(4))
    /// let s = y.id().unwrap();
    /// assert_eq!(tape.set_value(s, 1.0), Err(TapeError::NotALeaf { index: s.index() }));
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn set_value(&mut self, id: NodeId, value: S) -> Result<(), TapeError> {
        self.own(id.tag)?;
        let len = self.len();
        match self.slots().get(id.index()) {
            Some(slot) if slot.link() == header_link(Op::Leaf, 0) => {
                if let Some(held) = self.values().get(id.index()) {
                    held.set_value(value);
                }
                Ok(())
            }
            Some(slot) if !slot.is_header() => Err(TapeError::UnknownNode {
                index: id.index(),
                len,
            }),
            Some(_) => Err(TapeError::NotALeaf { index: id.index() }),
            None => Err(TapeError::UnknownNode {
                index: id.index(),
                len,
            }),
        }
    }

    /// Reads a statement: its operation, value, adjoint and number of operands.
    ///
    /// ```
    /// use autograd_core::{Op, Tape};
    /// let tape = Tape::<f64, 8>::new();
    /// let (a, b, c) = (tape.var(1.0), tape.var(2.0), tape.var(3.0));
    /// let y = (a * b * c).recorded()?;
    /// let n = tape.node(y.id().unwrap())?;
    /// assert_eq!((n.op, n.value, n.operands, n.grad), (Op::Mul, 6.0, 3, 0.0));
    /// tape.backward(y)?;
    /// assert_eq!(tape.node(y.id().unwrap())?.grad, 1.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn node(&self, id: NodeId) -> Result<Node<S>, TapeError> {
        let (h, v) = self.header_at(id)?;
        Ok(self.node_of(id.index(), h, v))
    }

    /// Calls `f(index, partial)` for every operand of statement `id`, in recording order (for a
    /// row of a layer statement, written with its weights implied, each input's pair and then
    /// its weight's, and last the bias's).
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (a, b, c) = (tape.var(1.0), tape.var(2.0), tape.var(3.0));
    /// let y = (a * b * c).recorded()?;
    /// let mut pairs = Vec::new();
    /// tape.for_each_operand(y.id().unwrap(), |i, d| pairs.push((i, d)))?;
    /// // d(abc)/da = bc, d/db = ac, d/dc = ab, with respect to slots 0, 1, 2.
    /// assert_eq!(pairs, [(0, 6.0), (1, 3.0), (2, 2.0)]);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn for_each_operand(
        &self,
        id: NodeId,
        mut f: impl FnMut(usize, S),
    ) -> Result<(), TapeError> {
        self.header_at(id)?;
        for (index, partial) in self.operands(id.index()) {
            f(index as usize, partial);
        }
        Ok(())
    }

    /// Calls `f(id, node)` for every statement (leaves included) in creation order, without
    /// copying the tape. Statements that `f` records are not visited.
    ///
    /// ```
    /// use autograd_core::{Op, Tape};
    /// let tape = Tape::<f64, 8>::new();
    /// let (a, b, c) = (tape.var(1.0), tape.var(2.0), tape.var(3.0));
    /// let _ = (a * b * c).recorded()?;
    /// let mut nodes = Vec::new();
    /// tape.for_each_node(|id, n| nodes.push((id.index(), n.op, n.operands)));
    /// // Three leaves, then the statement's header after its three operands.
    /// let expected = [(0, Op::Leaf, 0), (1, Op::Leaf, 0), (2, Op::Leaf, 0), (6, Op::Mul, 3)];
    /// assert_eq!(nodes, expected);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn for_each_node(&self, mut f: impl FnMut(NodeId, &Node<S>)) {
        for (i, (h, v)) in self.slots().iter().zip(self.values()).enumerate() {
            if h.is_header() {
                f(NodeId::on(self, i as u32), &self.node_of(i, h, v));
            }
        }
    }

    /// The statement whose header is slot `i` (`h`, its value in `v`), as [`node`](Self::node)
    /// reports it.
    fn node_of(&self, i: usize, h: &Slot<S>, v: &Slot<S>) -> Node<S> {
        Node {
            op: h.op(),
            value: v.value(),
            grad: h.adj(),
            operands: self.operands(i).count(),
        }
    }
}
