//! Reverse-mode automatic differentiation of scalar code on a fixed-capacity tape, without a heap.
//!
//! `autograd-core` exists so that the chain rule can run wherever the code runs: in a training
//! loop on a host, or inside microcontroller firmware with a few kilobytes of RAM. Every operation
//! is recorded on a [`Tape`] whose capacity is a compile-time constant and whose nodes live inline
//! in [`heapless`] storage; math comes from [`libm`], so results are the same on every target.
//!
//! - **Reverse mode**: record with [`Var`] handles, then one [`backward`](TapeView::backward)
//!   sweep gives the gradient with respect to every recorded value.
//! - Running out of room is a value, not a crash: see [`TapeError`].
//! - Functions written against [`Number`] run on plain `f32`/`f64` and on a tape unchanged.
//! - **One statement an expression**: `stmt!(expr)` (crate `autograd-macros`) records a whole
//!   expression as one statement, its partials from straight-line code derived when compiling
//!   ([`Statement`], [`Number::statement`]; the table's rules on plain scalars: [`rules`]).
//! - **Forward mode**: [`Dual`] numbers (they nest: `Dual<Dual<f64>>` carries second
//!   derivatives) and [`DualVec`] (`N` directional derivatives per pass), with the same kink
//!   conventions, their derivative rules written independently of the tape's.
//! - **One function, every mode**: implement [`Function`] (R^n → R) or [`VectorFunction`]
//!   (R^n → R^m) once over [`Number`]; then [`gradient_reverse`], [`gradient_forward`],
//!   [`gradient_forward_vec`], [`gradient_central`] (central differences, step
//!   `cbrt(ε)·max(1, |x|)`), [`jacobian_reverse`], [`jacobian_forward`] and [`jacobian_central`]
//!   differentiate it into caller-provided slices, without allocating; each keeps its scratch
//!   within [`SCRATCH_STACK_BYTES`] of stack and documents its bound. The crate's one feature,
//!   `alloc`, lets larger problems put that scratch on the heap instead of failing.
//! - **Checks**: [`compare`] (`|a - b| <= atol + rtol·|b|`, worst element reported) and
//!   [`gradcheck`] (reverse vs forward vs central differences, backward twice, zero seed), with
//!   default [`Tolerance`]s per scalar type.
//! - **Second order**: [`hessian_vector_product`] by forward over reverse (a `Tape<Dual<S>, N>`),
//!   full [`hessian`] from `n` of them ([`hessian_vec`]: `L` columns per sweep), or
//!   [`hessian_forward`] (forward over forward).
//! - **`num-traits`** (cargo feature): `num_traits::Float` and its companions for [`Var`],
//!   [`Dual`] and [`DualVec`], so generic numeric code (and `nalgebra`'s arithmetic)
//!   differentiates unchanged; see the `num` module.
//!
//! The seed lesson's example, `y = relu(x1 * x2 + 1)`:
//!
//! ```
//! use autograd_core::{Tape, TapeError};
//!
//! fn main() -> Result<(), TapeError> {
//!     let tape = Tape::<f64, 16>::new();
//!     let x1 = tape.var(2.0);
//!     let x2 = tape.var(3.0);
//!     let y = (x1 * x2 + 1.0).relu();
//!
//!     let grads = tape.backward(y)?;
//!     assert_eq!(y.value(), 7.0);
//!     assert_eq!(grads.wrt(x1), 3.0); // = x2
//!     assert_eq!(grads.wrt(x2), 2.0); // = x1
//!     Ok(())
//! }
//! ```
//!
//! # Conventions at kinks
//! As PyTorch: `relu'(0) = 0`, `abs'(0) = 0`, `leaky_relu'(0) = slope`, and `max`/`min` of equal
//! arguments give each argument half the gradient. `tanh`, `sigmoid` and `softplus` are finite,
//! with finite derivatives, for every finite input.
#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]
// One `unsafe` block, in `Tape::boxed` (feature `alloc`), allowed where it is; none elsewhere.
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "alloc")]
extern crate alloc;

mod anomaly;
mod check;
mod diff_error;
mod dot;
mod drive;
mod dual;
mod dual_vec;
mod error;
#[cfg(autograd_fault_injection)]
pub mod fault;
mod finite_diff;
mod fixed;
mod function;
mod gradient;
mod hessian;
mod jacobian;
pub mod math;
#[cfg(feature = "num-traits")]
pub mod num;
mod number;
mod op;
mod outlined;
mod scalar;
mod scratch;
mod statement;
mod tape;
#[cfg(feature = "testkit")]
pub mod testkit;
mod var;

pub use anomaly::{Anomaly, AnomalyInput, AnomalyKind};
pub use check::{
    compare, gradcheck, gradcheck_with, Comparison, ElementError, GradcheckReport, Tolerance,
};
pub use dual::Dual;
pub use dual_vec::DualVec;
pub use error::{Error, TapeError};
pub use finite_diff::{central_step, gradient_central, jacobian_central};
pub use fixed::Q16;
pub use function::{Function, VectorFunction};
pub use gradient::{
    directional_derivative, gradient_forward, gradient_forward_vec, gradient_reverse,
};
pub use hessian::{hessian, hessian_forward, hessian_vec, hessian_vector_product};
pub use jacobian::{jacobian_forward, jacobian_forward_vec, jacobian_reverse};
pub use number::Number;
pub use op::{rules, Op};
pub use outlined::Outlined;
pub use scalar::Scalar;
pub use scratch::{MAX_DIMENSION, SCRATCH_STACK_BYTES};
pub use statement::Statement;
#[doc(hidden)]
pub use tape::Layout;
pub use tape::{
    slot_bytes, Gradients, Leaves, Mark, Node, NodeId, Slot, Tape, TapeView, Vars, MAX_CAPACITY,
};
pub use var::{Activate, Var};

/// The README's Rust examples, compiled and run as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
