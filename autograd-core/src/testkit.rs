//! Data and functions shared by the test suites (feature `testkit`): the core's tests, `cargo
//! xtask check`, the firmware's device checks, the benchmarks and the fuzz targets.
//!
//! It holds what the suites would otherwise write several times: the seeds' worked examples
//! ([`EXAMPLES`], each a [`Seed`] function, a point, and the value and gradient the seed
//! documents give or that follow from them by hand), Rosenbrock's function with its derivatives
//! derived by hand ([`rosenbrock`]), and the vocabulary of the random-expression generators
//! ([`Unary`], [`Binary`]).
//!
//! Never a reference computed by the engine: every expected number here is a literal, copied
//! from the seeds or worked out by hand, and the hand-written derivatives use plain `f64`
//! arithmetic, no tape and no dual number. A suite that compares the engine with these numbers
//! compares it with something independent of it.
//!
//! Like the rest of the core: `no_std`, no allocation, no `unsafe`, so the firmware uses it too.
//!
//! ```
//! use autograd_core::testkit::EXAMPLES;
//! use autograd_core::{gradient_reverse, Tape};
//!
//! let mut tape = Tape::<f64, 64>::new();
//! for example in &EXAMPLES {
//!     let mut g = [0.0; 5];
//!     let g = &mut g[..example.x.len()];
//!     let y = gradient_reverse(&example.function, &mut tape, example.x, g).unwrap();
//!     assert!(example.agrees(y, g, 1e-15), "{}", example.name);
//! }
//! ```

mod functions;
mod ops;
mod seeds;

pub use functions::{rosenbrock, rosenbrock_gradient, rosenbrock_hessian, Rosenbrock};
pub use ops::{Binary, Unary};
pub use seeds::{Example, Seed, EXAMPLES, MICROGRAD};
