//! Tape shapes for measuring the cost of backward per node as a tape grows (10^3 to 10^6 nodes).

use autograd_core::{Scalar, TapeView, Var};

/// Records a chain of `nodes` nodes: leaves `x = 0.5` and `c = 1`, then `v <- v * c` repeated.
/// Every node depends on the one before it (the worst case for a graph walk's recursion depth).
/// `dy/dx = c^(nodes - 2) = 1` and `dy/dc = (nodes - 2) x`.
pub fn record_chain<S: Scalar>(
    tape: &TapeView<S>,
    nodes: usize,
) -> (Var<'_, S>, Var<'_, S>, Var<'_, S>) {
    let x = tape.var(S::from_f64(0.5));
    let c = tape.var(S::ONE);
    let mut v = x;
    for _ in 2..nodes {
        v *= c;
    }
    (v, x, c)
}

/// Records a wide sum of `nodes` nodes: `(nodes + 1) / 2` leaves first, then the additions that
/// sum them, so backward reaches back across the whole tape. `dy/dx_i = 1` for every leaf.
pub fn record_wide_sum<S: Scalar>(tape: &TapeView<S>, nodes: usize) -> Vec<Var<'_, S>> {
    let leaves = nodes.div_ceil(2);
    let mut xs = Vec::with_capacity(leaves + 1);
    for i in 0..leaves {
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
        let tape = Box::new(Tape::<f64, 1000>::new());
        let (y, x, c) = record_chain(&tape, 1000);
        assert_eq!(tape.len(), 1000);
        let g = tape.backward(y).unwrap();
        assert_eq!((y.value(), g.wrt(x), g.wrt(c)), (0.5, 1.0, 998.0 * 0.5));
    }

    #[test]
    fn wide_sum_gradients_are_all_one() {
        let tape = Box::new(Tape::<f32, 1001>::new());
        let xs = record_wide_sum(&tape, 1001);
        assert_eq!(tape.len(), 1001);
        let (y, leaves) = xs.split_last().unwrap();
        let g = tape.backward(*y).unwrap();
        assert!(leaves.iter().all(|x| g.wrt(*x) == 1.0));
    }
}
