//! Tape shapes for measuring the cost of backward per recorded operand as a tape grows (10^3 to
//! 10^6 operands). Handles preaccumulate, so a loop of plain operations would write nothing; these
//! shapes write statements on purpose.

use autograd_core::{Scalar, TapeView, Var};

/// Records a chain of two-operand statements with `operands` operands in all (rounded down to
/// an even number): leaves `x = 0.5` and `c = 1`, then `v <- (v * c).recorded()` repeated
/// `operands / 2` times. Each statement depends on the one before (a serial dependency through
/// the adjoints). Slots: 2 leaves + 3 per statement. `dy/dx = c^k = 1`, `dy/dc = k x c^(k-1) =
/// k / 2` for `k = operands / 2`.
pub fn record_chain<S: Scalar>(
    tape: &TapeView<S>,
    operands: usize,
) -> (Var<'_, S>, Var<'_, S>, Var<'_, S>) {
    let x = tape.var(S::from_f64(0.5));
    let c = tape.var(S::ONE);
    let mut v = x;
    for _ in 0..operands / 2 {
        // A tape too small fails sticky; the error surfaces at backward.
        let p = v * c;
        v = p.recorded().unwrap_or(p);
    }
    (v, x, c)
}

/// Records a wide sum: `operands` leaves, then one statement `Var::sum` with `operands`
/// operands, so backward reaches back across the whole tape. Slots: `2 operands + 1`.
/// `dy/dx_i = 1` for every leaf. Returns the leaves followed by the sum.
pub fn record_wide_sum<S: Scalar>(tape: &TapeView<S>, operands: usize) -> Vec<Var<'_, S>> {
    let mut xs = Vec::with_capacity(operands + 1);
    for i in 0..operands {
        xs.push(tape.var(S::from_f64(1.0 + (i % 7) as f64)));
    }
    let sum = Var::sum(&xs);
    xs.push(sum);
    xs
}

#[cfg(test)]
mod tests {
    use super::*;
    use autograd_core::Tape;

    #[test]
    fn chain_gradients_are_exact() {
        let tape = Box::new(Tape::<f64, 1502>::new());
        let (y, x, c) = record_chain(&tape, 1000);
        // 2 leaves + 500 statements of (2 operands + a header).
        assert_eq!(tape.len(), 2 + 3 * 500);
        let g = tape.backward(y).unwrap();
        assert_eq!((y.value(), g.wrt(x), g.wrt(c)), (0.5, 1.0, 500.0 * 0.5));
    }

    #[test]
    fn wide_sum_gradients_are_all_one() {
        let tape = Box::new(Tape::<f32, 2001>::new());
        let xs = record_wide_sum(&tape, 1000);
        assert_eq!(tape.len(), 1000 + 1000 + 1);
        let (y, leaves) = xs.split_last().unwrap();
        let g = tape.backward(*y).unwrap();
        assert!(leaves.iter().all(|x| g.wrt(*x) == 1.0));
        assert_eq!(tape.node(y.id().unwrap()).unwrap().operands, 1000);
    }
}
