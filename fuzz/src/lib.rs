//! What the fuzz targets share: a small program of operations decoded from fuzz input, a runner
//! that evaluates it with any implementor of [`Number`](autograd_core::Number) (plain scalars,
//! tape handles, duals), and an independent reference interpreter that computes values and
//! forward-mode derivatives by hand.
//!
//! The reference keeps its own derivative rules (written from the math, with the documented
//! conventions at kinks), so a wrong rule, a mis-wired edge or a missed accumulation in the engine
//! shows up as a disagreement. Where a derivative can be computed in more than one numerically
//! sensible way, it uses the same expression as the engine (`tanh' = 1 - tanh^2` from the value),
//! because the target compares evaluation orders, not the conditioning of formulas.

use autograd_core::{Node, NodeId, Scalar, TapeView, Var};

// Module map: `value` (numbers from fuzz input), `instr` (the instruction set), `program`
// (decoding a program and running it on any `Number`), `coverage` (which instructions exercise
// which core `Op`), `reference` (the independent interpreter), `fixed` (Q16 against f64, one
// instruction at a time); checks on handles stay here.
mod coverage;
mod fixed;
mod instr;
mod program;
mod reference;
mod value;

pub use coverage::{exercised_by, may_record};
pub use fixed::{check_against_f64 as check_q16_against_f64, check_tape as check_q16_tape};
pub use instr::{Binary, Exponent, Instr, Kind, Unary, WithConst, MAX_ROWS};
pub use program::{run, run_prefix, step, Program};
pub use reference::Reference;
pub use value::{Special, Value};

/// Number of program inputs at most.
pub const MAX_INPUTS: usize = 8;
/// Number of instructions at most (longer inputs are truncated).
pub const MAX_INSTRS: usize = 48;
/// Operands of a `sum`, pairs of a `dot` or an `affine` at most.
pub const MAX_OPERANDS: usize = 4;

/// `v.id()`, checked: an id always names a statement that holds `v`'s value (a pending handle
/// with one partial of exactly 1, `x + 1` or `tan(710)`, once claimed its operand's statement;
/// pinned by `a_pending_handle_with_partial_one_is_not_its_operands_statement` in
/// `autograd-core/tests/fuzz_regressions.rs`).
pub fn statement_id<S: Scalar>(v: &Var<'_, S>) -> Option<NodeId> {
    let id = v.id()?;
    let tape = v.tape().expect("a handle with an id is on a tape");
    let node = tape.node(id).expect("an id names a statement");
    assert!(
        same(node.value, v.value()),
        "id {} names a statement holding {:?}, the handle holds {:?}",
        id.index(),
        node.value,
        v.value()
    );
    Some(id)
}

/// Same value or both NaN (NaN payloads may legitimately differ).
pub fn same<S: Scalar>(a: S, b: S) -> bool {
    let (x, y) = (a.to_f64(), b.to_f64());
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// A statement as the tape holds it, with its operands `(index, partial)`.
pub struct Statement<S> {
    /// Its id.
    pub id: NodeId,
    /// The node.
    pub node: Node<S>,
    /// Its operands `(index, partial)`.
    pub operands: Vec<(usize, S)>,
}

/// Every statement on the tape, in creation order.
pub fn statements<S: Scalar>(tape: &TapeView<S>) -> Vec<Statement<S>> {
    let mut out = Vec::new();
    tape.for_each_node(|id, node| {
        out.push(Statement {
            id,
            node: *node,
            operands: Vec::new(),
        })
    });
    for s in &mut out {
        tape.for_each_operand(s.id, |i, d| s.operands.push((i, d)))
            .expect("a statement has operands");
        assert_eq!(s.operands.len(), s.node.operands, "operand count");
        for &(i, _) in &s.operands {
            assert!(
                i < s.id.index(),
                "operand {i} of statement {:?} is not earlier",
                s.id
            );
        }
    }
    out
}
