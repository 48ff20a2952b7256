//! The tape: a fixed-capacity record of every operation, in creation order.
//!
//! Creation order is a topological order (a node's inputs always exist before it), so backward is
//! one loop from the output down to index 0: no recursion, no visited set, no allocation.

use core::cell::{Cell, RefCell};
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use heapless::{Vec, VecView};

use crate::op::{self, Op};
use crate::{Scalar, TapeError, Var};

/// Low bits of a node's input fields hold an index; the top four bits of each hold half of the
/// operation code. This bounds a tape at 2^28 - 1 nodes and keeps a node at 16 bytes in `f32`.
const INDEX_BITS: u32 = 28;
pub(crate) const INDEX_MASK: u32 = (1 << INDEX_BITS) - 1;
/// Index of a result whose recording failed; any index above `INDEX_MASK` means the same.
pub(crate) const POISON: u32 = u32::MAX;

/// The largest capacity a [`Tape`] may have (2^28 - 1 nodes).
pub const MAX_CAPACITY: usize = INDEX_MASK as usize;

/// One recorded operation: its output value, its adjoint and its inputs.
///
/// `size_of::<Node<f32>>() == 16` and `size_of::<Node<f64>>() == 24`: the operation code is
/// packed into the top bits of the two input indices.
#[derive(Clone, Copy, Debug)]
pub struct Node<S> {
    value: S,
    grad: S,
    a: u32,
    b: u32,
}

impl<S: Scalar> Node<S> {
    #[inline(always)]
    fn new(value: S, op: Op, a: u32, b: u32) -> Self {
        let code = op as u32;
        Node {
            value,
            grad: S::ZERO,
            a: (a & INDEX_MASK) | ((code & 0xF) << INDEX_BITS),
            b: (b & INDEX_MASK) | ((code >> 4) << INDEX_BITS),
        }
    }

    /// The operation that produced this node.
    #[inline(always)]
    pub fn op(&self) -> Op {
        Op::from_bits((self.a >> INDEX_BITS) | ((self.b >> INDEX_BITS) << 4))
    }
    /// The output value.
    #[inline(always)]
    pub fn value(&self) -> S {
        self.value
    }
    /// The adjoint left by the last backward sweep (0 before any).
    #[inline(always)]
    pub fn grad(&self) -> S {
        self.grad
    }
    /// Indices of the inputs (`op().arity()` of them are meaningful).
    #[inline(always)]
    pub fn inputs(&self) -> [usize; 2] {
        [
            (self.a & INDEX_MASK) as usize,
            (self.b & INDEX_MASK) as usize,
        ]
    }
    /// The integer exponent of a `Powi` node (sign-extended from 28 bits).
    #[inline(always)]
    pub(crate) fn exponent(&self) -> i32 {
        ((self.b << (32 - INDEX_BITS)) as i32) >> (32 - INDEX_BITS)
    }
}

/// The largest `|n|` a `powi` node stores inline; larger exponents are recorded as `powf`.
pub(crate) const MAX_INLINE_EXPONENT: i32 = (1 << (INDEX_BITS - 1)) - 1;

/// Position on a tape, returned by [`TapeView::mark`] and accepted by [`TapeView::rewind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark(u32);

impl Mark {
    /// The mark just before node `id`.
    pub(crate) fn before(id: NodeId) -> Self {
        Mark(id.0)
    }
    /// Number of nodes before the mark.
    pub fn len(self) -> usize {
        self.0 as usize
    }
    /// `true` for the mark of an empty tape.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Index of a node, stable until the tape is rewound below it. Obtain one from [`Var::id`] and get
/// a fresh handle back with [`TapeView::get`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The id of the node at `index` (checked when used: an index past the end is reported as
    /// [`TapeError::UnknownNode`]).
    pub fn from_index(index: usize) -> Self {
        NodeId(u32::try_from(index).unwrap_or(u32::MAX).min(INDEX_MASK))
    }
    /// The node's position in creation order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A tape that holds up to `N` nodes of scalar `S`, stored inline (no allocation).
///
/// Recording goes through shared references (`&Tape`), so many [`Var`] handles can be alive at
/// once; operations that would invalidate handles (rewinding, setting a leaf) take `&mut` and so
/// can only run once every handle is gone. Nearly all methods live on [`TapeView`], which a `Tape`
/// dereferences to, so that handles do not carry the capacity in their type.
///
/// # Placement
/// A tape is `N * size_of::<Node<S>>()` bytes (16 per node for `f32`, 24 for `f64`) plus a few
/// words. Small tapes live on the stack. Large ones must not: on a microcontroller put the tape
/// in a `static` (`cortex_m::singleton!`, `static_cell`), which lands in `.bss` and is never
/// copied. On a host, `Box` it; since `Box::new(Tape::new())` may build the value on the stack
/// before moving it (it does in debug builds), do that on a thread whose stack can hold it
/// (`autograd_nn::boxed_tape` does exactly this). The tests build a 1,000,001-node `f64` tape
/// (24 MB) that way.
///
/// ```
/// use autograd_core::Tape;
///
/// let tape = Tape::<f64, 32>::new();
/// let (x1, x2) = (tape.var(2.0), tape.var(3.0));
/// let y = (x1 * x2 + 1.0).relu();
/// let grads = tape.backward(y)?;
/// assert_eq!((y.value(), grads.wrt(x1), grads.wrt(x2)), (7.0, 3.0, 2.0));
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub struct Tape<S: Scalar, const N: usize> {
    inner: TapeView<S, Vec<Node<S>, N, u32>>,
}

/// A tape with its capacity erased: the type every [`Var`] points to and where the tape's
/// methods live. Obtain one by dereferencing a [`Tape`].
pub struct TapeView<S: Scalar, B: ?Sized = VecView<Node<S>, u32>> {
    /// The first recording failure; sticky until the tape is rewound.
    error: Cell<Option<TapeError>>,
    /// The range of nodes whose adjoints the last sweep may have written (from its mark up to
    /// its root); every other adjoint is zero (fresh nodes start at zero), so the next sweep
    /// clears only this range.
    dirty: Cell<(u32, u32)>,
    scalar: PhantomData<S>,
    nodes: RefCell<B>,
}

impl<S: Scalar, const N: usize> Tape<S, N> {
    const CAPACITY_FITS: () = assert!(N <= MAX_CAPACITY, "a tape holds at most 2^28 - 1 nodes");

    /// An empty tape.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_FITS;
        Tape {
            inner: TapeView {
                error: Cell::new(None),
                dirty: Cell::new((0, 0)),
                scalar: PhantomData,
                nodes: RefCell::new(Vec::new()),
            },
        }
    }
}

impl<S: Scalar, const N: usize> Default for Tape<S, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Scalar, const N: usize> Deref for Tape<S, N> {
    type Target = TapeView<S>;
    #[inline(always)]
    fn deref(&self) -> &TapeView<S> {
        &self.inner
    }
}

impl<S: Scalar, const N: usize> DerefMut for Tape<S, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut TapeView<S> {
        &mut self.inner
    }
}

impl<S: Scalar> fmt::Debug for TapeView<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tape")
            .field("len", &self.len())
            .field("capacity", &self.capacity())
            .field("error", &self.error.get())
            .finish()
    }
}

impl<S: Scalar, const N: usize> fmt::Debug for Tape<S, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<S: Scalar> TapeView<S> {
    /// Records a new independent variable (an input or a parameter) and returns its handle.
    ///
    /// If the tape is full the handle still carries `value` but is not recorded, and the tape
    /// reports [`TapeError::CapacityExceeded`] from then on.
    #[inline]
    pub fn var(&self, value: S) -> Var<'_, S> {
        Var::on(self, self.push(value, Op::Leaf, 0, 0), value)
    }

    /// Like [`var`](Self::var), but fails at once when the tape is full or already failed.
    pub fn try_var(&self, value: S) -> Result<Var<'_, S>, TapeError> {
        self.var(value).recorded()
    }

    /// Number of recorded nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.nodes.try_borrow().map_or(0, |n| n.len())
    }

    /// `true` if nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Maximum number of nodes.
    pub fn capacity(&self) -> usize {
        self.nodes.try_borrow().map_or(0, |n| n.capacity())
    }

    /// `Ok` unless a recording failed since the tape was created or last rewound.
    pub fn check(&self) -> Result<(), TapeError> {
        match self.error.get() {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    /// The current position, to [`rewind`](Self::rewind) to later.
    pub fn mark(&self) -> Mark {
        Mark(self.len() as u32)
    }

    /// Discards every node recorded after `mark` (a mark past the end changes nothing) and
    /// clears a recording failure, so the tape can be reused without reallocating. Taking
    /// `&mut self` guarantees no handle to a discarded node survives.
    pub fn rewind(&mut self, mark: Mark) {
        self.nodes.get_mut().truncate(mark.len());
        let (lo, hi) = self.dirty.get();
        let hi = hi.min(mark.0);
        self.dirty.set((lo.min(hi), hi));
        self.error.set(None);
    }

    /// Discards every node.
    pub fn clear(&mut self) {
        self.rewind(Mark(0));
    }

    /// A fresh handle to an existing node (e.g. a parameter kept across [`rewind`](Self::rewind)).
    pub fn get(&self, id: NodeId) -> Result<Var<'_, S>, TapeError> {
        let nodes = self.nodes.try_borrow().map_err(|_| TapeError::Busy)?;
        let len = nodes.len();
        match nodes.get(id.index()) {
            Some(node) => Ok(Var::on(self, id.0, node.value)),
            None => Err(TapeError::UnknownNode {
                index: id.index(),
                len,
            }),
        }
    }

    /// Sets the value of a leaf (e.g. a parameter after an optimizer step). Nodes computed from it
    /// keep their old values until recorded again, so set leaves right after a rewind.
    pub fn set_value(&mut self, id: NodeId, value: S) -> Result<(), TapeError> {
        let nodes = self.nodes.get_mut();
        let len = nodes.len();
        match nodes.get_mut(id.index()) {
            Some(node) if node.op() == Op::Leaf => {
                node.value = value;
                Ok(())
            }
            Some(_) => Err(TapeError::NotALeaf { index: id.index() }),
            None => Err(TapeError::UnknownNode {
                index: id.index(),
                len,
            }),
        }
    }

    /// Reads a node: its operation, value, inputs and last adjoint.
    pub fn node(&self, id: NodeId) -> Result<Node<S>, TapeError> {
        let nodes = self.nodes.try_borrow().map_err(|_| TapeError::Busy)?;
        nodes
            .get(id.index())
            .copied()
            .ok_or(TapeError::UnknownNode {
                index: id.index(),
                len: nodes.len(),
            })
    }

    /// Calls `f` with every node in creation order (index, node), without copying the tape.
    pub fn for_each_node(&self, mut f: impl FnMut(usize, &Node<S>)) -> Result<(), TapeError> {
        let nodes = self.nodes.try_borrow().map_err(|_| TapeError::Busy)?;
        for (i, node) in nodes.iter().enumerate() {
            f(i, node);
        }
        Ok(())
    }

    /// Reverse mode: one sweep from `y` down to the first node gives `dy/dv` for every node `v`
    /// recorded before `y`.
    ///
    /// Each call starts from zero adjoints, so calling it twice gives identical gradients (there is
    /// no silent accumulation across calls, unlike micrograd). A node used several times sums the
    /// contributions of every use. Nodes whose adjoint is exactly zero are skipped, so a
    /// non-finite local derivative off the path to `y` cannot leak a NaN into it.
    ///
    /// # Errors
    /// The tape's sticky recording error, if any; [`TapeError::NotRecorded`] if `y` is a constant
    /// or unrecorded; [`TapeError::ForeignVar`] if `y` belongs to another tape.
    pub fn backward(&self, y: Var<'_, S>) -> Result<Gradients<'_, S>, TapeError> {
        self.sweep::<false>(y, 0)
    }

    /// Like [`backward`](Self::backward), but sweeps only the nodes recorded at or after `mark`:
    /// gradients with respect to earlier nodes read as 0. Use it when everything you
    /// differentiate with respect to was recorded after `mark` (inputs recorded on a tape that
    /// already holds other work): the cost then does not depend on what lies below the mark.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 64>::new();
    /// let other = tape.var(3.0);
    /// let _unrelated = other.exp().sin();
    /// let mark = tape.mark();
    /// let x = tape.var(2.0);
    /// let y = x * x * other; // depends on `other` too, but only x is asked for
    /// let g = tape.backward_above(y, mark)?;
    /// assert_eq!(g.wrt(x), 12.0);
    /// assert_eq!(g.wrt(other), 0.0); // below the mark: not swept
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`backward`](Self::backward).
    pub fn backward_above(&self, y: Var<'_, S>, mark: Mark) -> Result<Gradients<'_, S>, TapeError> {
        self.sweep::<true>(y, mark.len())
    }

    /// The backward sweep over nodes `lo..=root`; contributions to inputs below `lo` are dropped.
    /// `ABOVE = false` (a full sweep, `lo = 0`) compiles the bound tests away: they cost 28 % of
    /// backward's instructions per node (callgrind).
    fn sweep<const ABOVE: bool>(
        &self,
        y: Var<'_, S>,
        lo: usize,
    ) -> Result<Gradients<'_, S>, TapeError> {
        self.check()?;
        let root = self.index_of(y)? as usize;
        let mut nodes = self.nodes.try_borrow_mut().map_err(|_| TapeError::Busy)?;
        let nodes = nodes.as_mut_slice();
        let lo = if ABOVE { lo.min(root) } else { 0 };
        let (dirty_lo, dirty_hi) = self.dirty.replace((lo as u32, root as u32 + 1));
        let dirty_hi = (dirty_hi as usize).min(nodes.len());
        for node in &mut nodes[(dirty_lo as usize).min(dirty_hi)..dirty_hi] {
            node.grad = S::ZERO;
        }
        nodes[root].grad = S::ONE;
        // `lo..root + 1` rather than `lo..=root`: an inclusive range costs a test per step.
        for i in (lo..root + 1).rev() {
            let node = nodes[i];
            let g = node.grad;
            let op = node.op();
            let arity = op.arity();
            if arity == 0 || g.is_zero() {
                continue;
            }
            let [a, b] = node.inputs();
            // Inputs precede the node (creation order), so `a, b < i`: a hit, never a panic.
            let x = nodes[a].value;
            let y = if arity == 2 { nodes[b].value } else { S::ZERO };
            let (ga, gb) = op::adjoints(op, g, x, y, node.value, node.exponent());
            if !ABOVE || a >= lo {
                nodes[a].grad += ga;
            }
            if arity == 2 && (!ABOVE || b >= lo) {
                nodes[b].grad += gb;
            }
        }
        Ok(Gradients { tape: self })
    }

    /// The adjoint of `x` from the last backward sweep (0 before any, and for constants).
    pub fn grad(&self, x: Var<'_, S>) -> S {
        match self.index_of(x) {
            Ok(i) => self
                .nodes
                .try_borrow()
                .ok()
                .and_then(|n| n.get(i as usize).map(|n| n.grad))
                .unwrap_or(S::ZERO),
            Err(_) => S::ZERO,
        }
    }

    /// Index of `x` on this tape.
    #[inline]
    pub(crate) fn index_of(&self, x: Var<'_, S>) -> Result<u32, TapeError> {
        match x.tape_ref() {
            None => Err(TapeError::NotRecorded),
            Some(t) if !core::ptr::eq(t, self) => Err(TapeError::ForeignVar),
            Some(_) if x.raw_index() > INDEX_MASK => {
                Err(self.check().err().unwrap_or(TapeError::NotRecorded))
            }
            Some(_) => Ok(x.raw_index()),
        }
    }

    /// Records the first failure; later ones keep the first.
    #[cold]
    pub(crate) fn fail(&self, e: TapeError) -> u32 {
        if self.error.get().is_none() {
            self.error.set(Some(e));
        }
        POISON
    }

    /// Appends a node and returns its index, or `POISON` (and records why) if it cannot.
    #[inline(always)]
    pub(crate) fn push(&self, value: S, op: Op, a: u32, b: u32) -> u32 {
        // An unrecorded input makes the result unrecorded; the tape already holds the reason.
        // (Leaves and constants pass 0 for both inputs, so they never take this branch.)
        if (a | b) > INDEX_MASK {
            return POISON;
        }
        let Ok(mut nodes) = self.nodes.try_borrow_mut() else {
            return self.fail(TapeError::Busy);
        };
        let index = nodes.len() as u32;
        match nodes.push(Node::new(value, op, a, b)) {
            Ok(()) => index,
            Err(_) => {
                let capacity = nodes.capacity();
                drop(nodes);
                self.fail(TapeError::CapacityExceeded { capacity })
            }
        }
    }
}

/// The gradients left by a backward sweep: `grads.wrt(x)` is `dy/dx`.
///
/// A view of the tape's adjoints, valid until the next backward sweep on the same tape replaces
/// them. It holds no borrow, so recording may continue while it is alive.
#[derive(Clone, Copy)]
pub struct Gradients<'t, S: Scalar> {
    tape: &'t TapeView<S>,
}

impl<'t, S: Scalar> Gradients<'t, S> {
    /// `dy/dx`: 0 for constants and for nodes `y` does not depend on.
    #[inline]
    pub fn wrt(&self, x: Var<'_, S>) -> S {
        self.tape.grad(x)
    }

    /// `dy/dv` for the node `id`, or `None` if it does not exist.
    pub fn get(&self, id: NodeId) -> Option<S> {
        self.tape.node(id).ok().map(|n| n.grad)
    }

    /// Writes `dy/dx[i]` into `out[i]` for every `x[i]`.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if the slices differ in length.
    pub fn write_to(&self, xs: &[Var<'_, S>], out: &mut [S]) -> Result<(), TapeError> {
        if xs.len() != out.len() {
            return Err(TapeError::LengthMismatch {
                left: xs.len(),
                right: out.len(),
            });
        }
        let nodes = self.tape.nodes.try_borrow().map_err(|_| TapeError::Busy)?;
        for (x, o) in xs.iter().zip(out.iter_mut()) {
            *o = match self.tape.index_of(*x) {
                Ok(i) => nodes.get(i as usize).map_or(S::ZERO, |n| n.grad),
                Err(_) => S::ZERO,
            };
        }
        Ok(())
    }
}

impl<S: Scalar> fmt::Debug for Gradients<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gradients")
            .field("tape", &self.tape)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_sizes_are_as_documented() {
        assert_eq!(core::mem::size_of::<Node<f32>>(), 16);
        assert_eq!(core::mem::size_of::<Node<f64>>(), 24);
    }

    #[test]
    fn op_and_indices_round_trip_through_packing() {
        let n = Node::new(1.5_f64, Op::Softplus, INDEX_MASK - 1, 12345);
        assert_eq!(n.op(), Op::Softplus);
        assert_eq!(n.inputs(), [(INDEX_MASK - 1) as usize, 12345]);
        for e in [0, 1, -1, 7, -7, MAX_INLINE_EXPONENT, -MAX_INLINE_EXPONENT] {
            let n = Node::new(0.0_f32, Op::Powi, 3, e as u32);
            assert_eq!((n.op(), n.exponent()), (Op::Powi, e));
        }
    }
}
