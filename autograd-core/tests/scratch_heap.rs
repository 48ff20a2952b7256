//! With the `alloc` feature a driver's scratch goes on the heap only where it would take more
//! stack than `autograd_core::SCRATCH_STACK_BYTES` (32 KiB): a counting global allocator sees
//! no allocation on the calling thread for 1,024 inputs of forward mode (16 KiB of dual
//! numbers) and one for 1,025 (the next tier, 4,096 duals, is 64 KiB), and the gradient is
//! `2 x` either way.
#![cfg(feature = "alloc")]

use autograd_core::{gradient_forward, Dual, Function, Number};

mod counting;
use counting::allocations;

/// `sum_i x_i^2`: its gradient is `2 x`.
struct SumOfSquares;
impl Function for SumOfSquares {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        x.iter().fold(T::zero(), |s, v| s + v.square())
    }
}

/// Forward mode's gradient of `n` inputs, checked against `2 x`; returns the allocations it
/// made on this thread.
fn forward(n: usize) -> usize {
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let mut g = vec![0.0; n];
    let before = allocations();
    let y = gradient_forward(&SumOfSquares, &x, &mut g).unwrap();
    let made = allocations() - before;
    assert_eq!(y, x.iter().map(|v| v * v).sum::<f64>());
    assert!(
        g.iter().zip(&x).all(|(d, v)| *d == 2.0 * v),
        "the gradient is 2 x"
    );
    made
}

#[test]
fn scratch_goes_on_the_heap_only_past_the_stack_budget() {
    assert_eq!(core::mem::size_of::<Dual<f64>>(), 16);
    // 1,024 duals in the 1,024 tier: 16 KiB, within the budget.
    assert_eq!(
        forward(1024),
        0,
        "a scratch within the stack budget was allocated"
    );
    // 1,025 take the 4,096 tier: 64 KiB, past it, so the scratch is one allocation.
    assert_eq!(
        forward(1025),
        1,
        "a scratch past the stack budget: one allocation"
    );
}
