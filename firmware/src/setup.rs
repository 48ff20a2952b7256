//! The seed lesson's XOR setup, shared by the device test suite (`f32`, `xor.rs`) and the
//! fixed-point binary (`bin/xor_q16.rs`): an MLP [2, 4, 1] with tanh units, the sum of squared
//! errors over the four patterns (targets -1/1), plain SGD with lr 0.05, weights uniform in
//! (-1, 1) and biases 0 (seed 42), stopped at the first step after which every prediction has
//! the target's sign with a margin.

use autograd_core::Number;
use autograd_nn::data;
use autograd_nn::{Activation, Mlp, Objective, Reduction, SquaredError};

/// The lesson's network: 2 inputs, 4 tanh hidden units, 1 tanh output.
pub const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
/// 4 * (2 + 1) + (4 + 1).
pub const PARAMS: usize = XOR.param_count();
/// The lesson's loss: the sum (not the mean) of squared errors.
pub fn objective() -> Objective<SquaredError, 3> {
    Objective::new(XOR, SquaredError).with_reduction(Reduction::Sum)
}
pub const LEARNING_RATE: f64 = 0.05;
/// Every prediction on the target's side of 0, by at least this.
pub const MARGIN: f32 = 0.5;
/// Give up after this many steps (a failure).
pub const MAX_STEPS: u32 = 2000;

/// The objective at `params` on the four XOR patterns, in any number type (NaN on error).
pub fn loss<T: Number>(params: &[T; PARAMS]) -> T {
    objective()
        .evaluate(params, &data::xor())
        .unwrap_or_else(|_| T::from_f64(f64::NAN))
}

/// 64-bit FNV-1a over the parameters' bits (`f32::to_bits`, or a `Q16`'s `i32` as `u32`),
/// little-endian bytes.
pub fn fnv1a(bits: impl Iterator<Item = u32>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bits.flat_map(u32::to_le_bytes) {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}
