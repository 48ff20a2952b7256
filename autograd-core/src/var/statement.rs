//! A [`Statement`] on a tape: its value and partials from the straight-line derivative that
//! `stmt!` generated, each leaf's pending pairs times its partial, written as one statement
//! (or kept in the handle where at most two remain), with one test of the tapes and one of
//! finiteness for the whole expression instead of one per operation.

use super::address;
use crate::{Scalar, Statement, Var};

impl<'t, S: Scalar> Var<'t, S> {
    /// [`Number::statement`] on a tape. Falls back to the operations one by one (the
    /// expression's [`eval`](Statement::eval)) where they have something to report that one
    /// statement would not: leaves on two tapes (`ForeignVar` on both), a value or partial that
    /// is not finite (NaN provenance names the operation that made it), or no room for the
    /// largest statement the leaves could make (the operations record what they need, and the
    /// overflow where it does not fit). Leaves that are all constants give a constant.
    #[inline(always)]
    pub(crate) fn of_statement<E: Statement<L>, const L: usize>(e: &E, x: [Self; L]) -> Self {
        if cfg!(autograd_fault_injection) {
            // The self-test's wrong rules live in the operations: they must reach these too.
            return e.eval(x);
        }
        // The leaves' tape: the first one's, the others on it or constants (compared by
        // address, as the operators compare tapes).
        let Some(t) = x.iter().find_map(|v| v.tape) else {
            return e.eval(x);
        };
        let at = address(Some(t));
        if x.iter()
            .any(|v| !matches!(address(v.tape), 0) && address(v.tape) != at)
        {
            return e.eval(x);
        }
        let Some(w) = t.free_slots(2 * L + 1) else {
            return e.eval(x);
        };
        let (value, d) = e.jacobian(x.map(|v| v.value));
        // Each leaf's pending pairs times its partial, written as operands as they come; a zero
        // product is written over by the next (it would send nothing: a zero derivative cuts,
        // as the operations' does where a function is flat).
        let mut finite = value.is_finite();
        let mut count = 0;
        let mut send = |index: u32, p: S| {
            finite &= p.is_finite();
            if let Some(s) = w.get(count) {
                s.put_operand(index, p);
            }
            count += !p.is_zero() as usize;
        };
        for (v, &dk) in x.iter().zip(&d) {
            if v.n >= 1 {
                send(v.index[0], v.partial[0] * dk);
            }
            if v.n >= 2 {
                send(v.index[1], v.partial[1] * dk);
            }
        }
        if !finite {
            return e.eval(x);
        }
        let operand = |k: usize| (w[k].link(), w[k].x());
        let pending = |n: u8, index: [u32; 2], partial: [S; 2]| Var {
            tape: Some(t),
            value,
            partial,
            index,
            n,
            op: E::OP,
            node: false,
        };
        match count {
            0 => pending(0, [0, 0], [S::ZERO, S::ZERO]),
            1 => pending(1, [operand(0).0, 0], [operand(0).1, S::ZERO]),
            2 => {
                let ((i, p), (j, q)) = (operand(0), operand(1));
                if i != j {
                    return pending(2, [i, j], [p, q]);
                }
                let s = p + q;
                if !s.is_finite() {
                    return e.eval(x);
                }
                pending(1, [i, 0], [s, S::ZERO])
            }
            _ => {
                w[count].put_header(value, E::OP, count);
                let index = t.len() + count;
                t.commit(count + 1);
                Var::labelled(t, index as u32, value, E::OP)
            }
        }
    }
}
