//! Preaccumulation: how a one-input operation ([`Var::chain`]) and a two-input one
//! ([`Var::combine`]) make their result's pending pairs from their operands', and when they
//! write a statement instead (more than two recorded values, a non-finite result). The
//! out-of-line halves are in `merge.rs`.

use super::merge::{
    foreign, merge_shared, non_finite, pack, unshared, write_apart, SHARED_I, SHARED_J,
};
use super::{address, counts, written, Half, Meta, Var};
use crate::op::{self, Op};
use crate::tape::{TapeView, POISON};
use crate::Scalar;

impl<'t, S: Scalar> Var<'t, S> {
    /// The result of a one-input operation `op` with value `value` and local derivative `d`.
    #[inline(always)]
    pub(crate) fn chain(self, op: Op, value: S, d: S) -> Self {
        #[cfg(autograd_fault_injection)]
        let d = crate::fault::corrupt(op, self.value, (d, S::ZERO)).0;
        let partial = times(self.partial, self.meta.n(), d, op, false);
        // Where an operation is flat over intervals (relu below 0, a saturated tanh), a zero
        // derivative cuts the dependence: the result is a value on the tape that depends on
        // nothing, as a zero adjoint would be skipped (`Op::has_flat_regions`; `op` is a
        // constant at every call, so the other operations test nothing). Only a finite result
        // is cut (`settled_cut`): `relu(NaN)` and `NaN * 0.0` keep their operand, with a partial
        // of 0, so NaN provenance follows it back to where the NaN arose.
        let cut = op.has_flat_regions() && d.is_zero();
        Var { partial, ..self }.settled_cut(self.tape, op, value, cut)
    }

    /// The result of operation `op`: these partials with the new value and label (depending on
    /// nothing if `cut` and it is finite), or, where the value or a partial is not finite,
    /// written at once as a statement of its own with its operands whatever `cut` says, so NaN
    /// provenance names the operation. A cut costs no test of its own. The result is made in one
    /// place from either branch's parts (see [`combine`](Self::combine)).
    #[inline(always)]
    pub(super) fn settled_cut(
        self,
        tape: Option<&'t TapeView<S>>,
        op: Op,
        value: S,
        cut: bool,
    ) -> Self {
        let (partial, index, meta) = if !finite_result(op, value, self.partial) {
            let [p0, p1] = self.partial;
            let index = non_finite(tape, op, value, pack(self.index), p0, p1, self.meta.n());
            written(index, op)
        } else {
            let n = if cut { 0 } else { self.meta.n() };
            (self.partial, self.index, Meta::new(n, op, false))
        };
        Var {
            tape,
            value,
            partial,
            index,
            meta,
        }
    }

    /// The result of a two-input operation: `dx`, `dy` are its partials with respect to `self`
    /// and `y`.
    #[inline(always)]
    pub(super) fn combine(self, op: Op, value: S, dx: S, y: Self, dy: S) -> Self {
        self.combine_labelled(op, value, dx, y, dy, [op, op])
    }

    /// [`combine`](Self::combine), where an operand that depends on nothing recorded (a
    /// constant, or a cut result: no pending pair) makes the operation one of a constant: the
    /// result is labelled `constant[0]` where that operand is `y`, `constant[1]` where it is
    /// `self` (`x + c` is a shift, `x * c` a scale; where neither has a pair, `y`'s, except that
    /// a constant dividend keeps `c / x` a division), and cut where the label is flat over
    /// intervals and the local derivative is 0 (`x * 0.0`), as the one-input operations are.
    ///
    /// Every shape's result is made in one place, at the end, from its parts (its pairs, or the
    /// statement written for it), and the operators call only this: inlined into a long
    /// function, a handle written in each shape's branch was memory that LLVM turned into
    /// registers by walking, for each of its fields, every block after the operation (the
    /// placement of `phi`s in SROA), which made a straight-line function's build quadratic.
    // Measured (PERFORMANCE.md, "One place an operation's result is made"): the 1,000-operation
    // generated function of `cargo xtask bench --compile-time` built in 27.4 s of user CPU with
    // a handle written in each branch and in each operator's constant arms, 12.3 s like this;
    // SROA's share of LLVM's time went from 10.4 s to 0.3 s.
    #[inline(always)]
    pub(super) fn combine_labelled(
        self,
        op: Op,
        value: S,
        dx: S,
        y: Self,
        dy: S,
        constant: [Op; 2],
    ) -> Self {
        #[cfg(autograd_fault_injection)]
        let (dx, dy) = crate::fault::corrupt(op, self.value, (dx, dy));
        let (tape, apart) = match (self.tape, y.tape) {
            _ if self.same_tape(y) => (self.tape, false),
            (Some(a), Some(b)) => {
                foreign(a, b);
                (Some(a), true)
            }
            (a, b) => (a.or(b), false),
        };
        let [a0, a1] = times(self.partial, self.meta.n(), dx, op, false);
        let [b0, b1] = times(y.partial, y.meta.n(), dy, op, true);
        let (i, j) = (self.index, y.index);
        // The result's pairs (whether they are to be tested, and cut if finite), or the statement
        // written.
        let (partial, index, meta, test, cut) = match (self.meta.n(), y.meta.n()) {
            _ if apart => {
                let (p, i, m) = written(POISON, op);
                (p, i, m, false, false)
            }
            // One operand depends on nothing recorded (a constant, or a cut): `x + c` is a shift,
            // `x * c` a scale, cut where `c` is 0, as the one-input operations are.
            (nx, 0) => {
                let cut = constant[0].has_flat_regions() && dx.is_zero();
                // `c / x` where neither depends on anything recorded is still a division: the
                // constant `c` decides (only `Div` labels its two constant rules apart).
                let label = if matches!(op, Op::Div) && nx == 0 && self.tape.is_none() {
                    constant[1]
                } else {
                    constant[0]
                };
                ([a0, a1], i, Meta::new(nx, label, false), true, cut)
            }
            (0, ny) => {
                let cut = constant[1].has_flat_regions() && dy.is_zero();
                ([b0, b1], j, Meta::new(ny, constant[1], false), true, cut)
            }
            (1, 1) if i[0] == j[0] => {
                // (Two finite partials may add up to an infinity: for a sum or a difference,
                // whose result's partials are not tested otherwise, written now if they did.)
                let s = a0 + b0;
                if passes_partials(op) && !s.is_finite() {
                    let index = non_finite(tape, op, value, pack(i), s, S::ZERO, 1);
                    let (p, i, m) = written(index, op);
                    (p, i, m, false, false)
                } else {
                    ([s, a1], i, Meta::new(1, op, false), true, false)
                }
            }
            (1, 1) => ([a0, b0], [i[0], j[0]], Meta::new(2, op, false), true, false),
            // Three or four pairs with no index in common: a statement of them all, written out
            // of line (see `write_apart`).
            (nx, ny) if unshared(i, j) => {
                let counts = counts(nx, ny);
                let index = write_apart(tape, op, value, counts, pack(i), a0, a1, pack(j), b0, b1);
                let (p, i, m) = written(index, op);
                (p, i, m, false, false)
            }
            // The rarer shapes (an index in common), out of line: inlined into every operation of
            // a long generated function they made it compile several times slower. Their pairs
            // go as plain values (see `merge_shared`).
            (nx, ny) => {
                let counts = counts(nx, ny);
                let (pi, pj) = (pack(i), pack(j));
                let (index, p0, p1) = merge_shared(tape, op, counts, value, pi, a0, a1, pj, b0, b1);
                match index {
                    SHARED_I => ([p0, p1], i, Meta::new(2, op, false), true, false),
                    SHARED_J => ([p0, p1], j, Meta::new(2, op, false), true, false),
                    _ => {
                        let (p, i, m) = written(index, op);
                        (p, i, m, false, false)
                    }
                }
            }
        };
        // (The same settling as `settled_cut`'s, written out: one function for both, taking
        // and returning the parts, took Rosenbrock as written 350.9 -> 367.9 instructions a
        // term, `dense` 781,813 -> 791,871 and the 1,000-operation build 12.9 -> 14.6 s:
        // callgrind on `examples/profile`, PERFORMANCE.md's "One place an operation's result
        // is made".)
        let (partial, index, meta) = if test && !finite_result(op, value, partial) {
            let [p0, p1] = partial;
            let index = non_finite(tape, meta.op(), value, pack(index), p0, p1, meta.n());
            written(index, meta.op())
        } else if cut {
            // (Only where finite: a non-finite result keeps its operand, with a partial of 0,
            // so NaN provenance follows it back, as `settled_cut` does.)
            (partial, index, Meta::new(0, meta.op(), false))
        } else {
            (partial, index, meta)
        };
        Var {
            tape,
            value,
            partial,
            index,
            meta,
        }
    }

    /// `true` if both are on the same tape or both constants: one comparison of addresses, the
    /// operators' first test (the common case: two handles of one tape), before any test for a
    /// constant. By callgrind on `examples/profile rosenbrock 1000` (10 and 20 gradients), 422.8
    /// -> 418.8 instructions a term, where the operators tested for a constant operand first and
    /// `combine` compared the tapes after testing that the first was present.
    #[inline(always)]
    pub(super) fn same_tape(self, other: Self) -> bool {
        address(self.tape) == address(other.tape)
    }

    #[inline(always)]
    pub(super) fn binary(self, op: Op, y: Self) -> Self {
        self.binary_labelled(op, y, [op, op])
    }

    /// [`binary`](Self::binary), labelled as [`combine_labelled`](Self::combine_labelled) says.
    #[inline(always)]
    pub(crate) fn binary_labelled(self, op: Op, y: Self, constant: [Op; 2]) -> Self {
        let (value, dx, dy) = op::binary(op, self.value, y.value);
        self.combine_labelled(op, value, dx, y, dy, constant)
    }
}

/// Pending partials times a local derivative `d`, without the multiplications that cannot
/// change them: `+`, `-` and `+ c` pass partials through or negate them, and an unused second
/// partial stays 0 (on a part without an FPU every multiplication is a library call).
/// `rhs` says whether these are the second operand's partials. `op` is a constant at every
/// call site, so the match folds away.
#[inline(always)]
fn times<S: Scalar>(p: [S; 2], n: Half, d: S, op: Op, rhs: bool) -> [S; 2] {
    if cfg!(autograd_fault_injection) {
        // The self-test's wrong rules must reach every operation.
        return [p[0] * d, p[1] * d];
    }
    match (op, rhs) {
        (Op::Shift | Op::Add, _) | (Op::Sub, false) => p,
        (Op::Neg, _) | (Op::Sub, true) => [-p[0], -p[1]],
        // An unused partial is 0: multiplying it is free in hardware, a call in software.
        _ if S::COSTLY_PRODUCT && n < 2 => [p[0] * d, S::ZERO],
        _ => [p[0] * d, p[1] * d],
    }
}

/// `true` for an operation whose result's partials are its operands' pending partials passed
/// through or negated (`times`), so finite, as every pending partial is: where two pairs meet at
/// one index they are added, and those sums are tested where they are made (`combine`'s arm for
/// one shared pair, `merge_shared`). The self-test's wrong rules multiply every partial: there
/// every operation's partials are tested.
#[inline(always)]
fn passes_partials(op: Op) -> bool {
    !cfg!(autograd_fault_injection) && matches!(op, Op::Shift | Op::Neg | Op::Add | Op::Sub)
}

/// `true` if the result of `op`, its value and partials `p`, is finite: of a shift, a negation,
/// a sum or a difference only the value is tested (`passes_partials`). By callgrind on
/// `examples/profile` (`rosenbrock 1000`, 10 and 20 gradients), against every result's value
/// and both partials tested: 371.8 -> 357.8 instructions a term; `dense 1000` 800,684 ->
/// 798,235 a gradient.
///
/// Where a product by a derivative bounded by 1 cannot overflow (`f32`, `f64`:
/// [`Scalar::SHRINKING_PRODUCT`]), an operation with such a derivative (`sin`, `tanh`, `relu`,
/// ...: [`Op::derivative_within_one`]) also tests only its value.
#[inline(always)]
fn finite_result<S: Scalar>(op: Op, value: S, p: [S; 2]) -> bool {
    if passes_partials(op)
        || (S::SHRINKING_PRODUCT && !cfg!(autograd_fault_injection) && op.derivative_within_one())
    {
        value.is_finite()
    } else {
        all_finite(value, p)
    }
}

/// `true` if the value and both partials are finite. Where a product is cheap (hardware floating
/// point), one product tests all three (an unused partial is 0; a product that overflows only
/// writes a statement that was not needed); where it is not ([`Scalar::COSTLY_PRODUCT`]: a
/// soft-float ARM part, fixed point), three tests.
#[inline(always)]
pub(super) fn all_finite<S: Scalar>(value: S, p: [S; 2]) -> bool {
    if S::COSTLY_PRODUCT {
        value.is_finite() & p[0].is_finite() & p[1].is_finite()
    } else {
        (value * p[0] * p[1]).is_finite()
    }
}
