//! Benchmarks of `autograd-core`: what a gradient costs in each mode relative to evaluating the
//! function, where each mode wins, and how close the tape comes to hand-written code.
//!
//! The crate holds the code the benchmarks time (`benches/autograd.rs` times it, `cargo xtask
//! bench` runs them and prints the comparison); its tests check every gradient it times against
//! an independent one (hand-written derivatives, the micrograd-style graph, finite differences).
//!
//! - [`functions`]: Rosenbrock and a sin/exp/tanh-heavy function, written once against
//!   [`autograd_core::Number`].
//! - [`analytic`]: their gradients by hand; [`moons`]: micrograd's MLP demo with hand-written
//!   backprop; [`rc_graph`]: micrograd's reference-counted graph, for comparison.
//! - [`nn_step`]: the same training step through `autograd-nn`.
//! - [`harness`]: criterion's settings and the clock, shared with the `enzyme/` crate;
//!   [`args`]: the counting binaries' argument checks.
//! - [`modes`]: one full gradient per mode; [`scaling`]: tape shapes of 10^3..10^6 recorded
//!   operands; [`batch`]: gradient checks sequential and with rayon; [`facts`]: bytes per slot
//!   and slots recorded per benchmark; [`floor`]: a minimal statement tape on Rosenbrock, the
//!   floor any statement tape in this slot layout pays; [`layout`]: the sweep in three slot
//!   layouts (values in the slots or apart), the measurement that chose the tape's `f64` one.
//! - `benches/reference.rs` (bench-only, with the reference crates as dev-dependencies):
//!   easy-ml's reverse-mode `Record` and num-dual's `Dual64` on the same two functions; its
//!   tests run with this crate's.
//!
//! ```
//! use autograd_bench::{functions::{point, Function}, modes::reverse_gradient};
//! use autograd_core::Tape;
//!
//! let mut tape = Box::new(Tape::<f64, 1024>::new());
//! let x = point(4);
//! let mut grad = [0.0; 4];
//! let y = reverse_gradient(&mut tape, Function::Rosenbrock, &x, &mut grad)?;
//! assert_eq!(y, autograd_bench::functions::rosenbrock(&x));
//! # Ok::<(), autograd_core::TapeError>(())
//! ```
#![deny(missing_docs)]

use std::sync::{Mutex, MutexGuard, OnceLock};

use autograd_core::{Scalar, Tape};

pub mod analytic;
pub mod args;
pub mod batch;
pub mod facts;
pub mod floor;
pub mod functions;
pub mod harness;
pub mod layout;
pub mod modes;
pub mod moons;
pub mod nn_step;
pub mod rc_graph;
pub mod scaling;

// The reference crates are dev-dependencies, so their adapters live with the benchmarks; they
// are compiled here too, under test, so that `cargo test` checks their gradients. The alias lets
// that file name this crate the same way from both places.
#[cfg(test)]
extern crate self as autograd_bench;
#[cfg(test)]
#[path = "../benches/reference.rs"]
mod reference;

/// Capacity of the shared benchmark tapes, in slots: room for the scaling runs of 10^6 operands
/// (a chain of two-operand statements takes 1.5 slots per operand, a wide sum 2).
pub const BIG: usize = 1 << 21;

/// A tape of [`BIG`] slots on the heap (48 MiB in `f64`, 24 MiB in `f32`).
pub type BigTape<S> = Box<Tape<S, BIG>>;

fn lock<S: Scalar + Send>(
    cell: &'static OnceLock<Mutex<BigTape<S>>>,
) -> MutexGuard<'static, BigTape<S>> {
    cell.get_or_init(|| Mutex::new(Tape::boxed()))
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The shared `f64` benchmark tape (built on first use). Lock it once, outside a timed loop.
pub fn tape_f64() -> MutexGuard<'static, BigTape<f64>> {
    static TAPE: OnceLock<Mutex<BigTape<f64>>> = OnceLock::new();
    lock(&TAPE)
}

/// The shared `f32` benchmark tape (built on first use).
pub fn tape_f32() -> MutexGuard<'static, BigTape<f32>> {
    static TAPE: OnceLock<Mutex<BigTape<f32>>> = OnceLock::new();
    lock(&TAPE)
}
