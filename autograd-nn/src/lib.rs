//! Neurons, layers, multilayer perceptrons, losses, optimizers and a training loop on
//! [`autograd_core`], without a heap.
//!
//! `autograd-nn` trains the small networks of the seed lesson (XOR) and of micrograd's demo (two
//! moons) on a host or on a microcontroller. It is `#![no_std]` and never allocates (a large
//! tape for a host goes on the heap with the core's `Tape::boxed`, feature `alloc`): a network
//! is a `Copy` description ([`Mlp`]), its parameters are a plain `[S; P]` array the caller owns,
//! and a [`Trainer`] reuses one fixed-capacity [`Tape`](autograd_core::Tape) for every step: it
//! rewinds to the parameters, records the forward pass and the loss, runs one backward sweep
//! (or one per chunk of samples when the tape is small) and updates the parameters in place.
//!
//! - Networks: [`neuron`], [`Layer`], [`Mlp`] with any layer sizes up to [`MAX_WIDTH`];
//!   [`Activation`]s tanh, relu, leaky relu, sigmoid and linear; seeded [`Init`]
//!   (uniform(-1, 1), Xavier, He).
//! - Losses ([`Loss`]): [`SquaredError`], [`Hinge`], [`BceWithLogits`],
//!   [`SoftmaxCrossEntropy`]; [`Reduction`]; L2 through [`Objective::with_l2`].
//! - Optimizers ([`Optimizer`]): [`Sgd`] with a [`LearningRate`] schedule, [`Momentum`],
//!   [`Adam`].
//! - Data ([`data`]): XOR, two moons, a spiral, generated from a seed by [`Rng`].
//!
//! The forward pass and the losses are written once against [`Number`](autograd_core::Number),
//! so the objective the trainer differentiates can also be evaluated on `f64` and on dual
//! numbers, which is how the tests check every gradient.
//!
//! Memory is bounded by the tape the caller chooses: a tape that holds the whole batch gives one
//! backward sweep per step; a tape that holds the parameters and a single sample gives the same
//! gradient with one sweep per sample (see [`Trainer`]). Everything works in `f32` as in `f64`.
//!
//! ```
//! use autograd_core::Tape;
//! use autograd_nn::{data, Activation, Init, LearningRate, Mlp, Objective, Rng, Sgd,
//!                   SquaredError, Stop, TrainConfig, Trainer};
//!
//! // The seed lesson: MLP [2, 4, 1] with tanh, squared error on targets -1/1, SGD.
//! const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
//! let objective = Objective::new(XOR, SquaredError);
//! let mut params = [0.0_f64; XOR.param_count()];
//! XOR.init(&mut params, Init::Uniform, &mut Rng::new(42))?;
//!
//! let mut tape = Tape::<f64, 256>::new();
//! let mut trainer = Trainer::new(&mut tape, &params)?;
//! let mut data = data::xor();
//! let config = TrainConfig { target_accuracy: Some(1.0), ..TrainConfig::steps(2000) };
//! let mut sgd = Sgd::new(LearningRate::Constant(0.5));
//! let outcome = trainer.train(&objective, &mut params, &mut data, &mut sgd, &config, |_| {
//!     core::ops::ControlFlow::Continue(())
//! })?;
//! assert_eq!(outcome.stop, Stop::TargetAccuracy);
//! assert_eq!(objective.stats(&params, &data)?.accuracy(), Some(1.0));
//! # Ok::<(), autograd_nn::NnError>(())
//! ```
#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod data;
mod error;
mod loss;
mod mlp;
mod objective;
mod optim;
mod rng;
mod train;

pub use autograd_core;
pub use error::NnError;
pub use loss::{
    l2_penalty, BceWithLogits, Hinge, Loss, Reduction, SoftmaxCrossEntropy, SquaredError,
};
pub use mlp::{neuron, Activation, Init, Layer, Mlp, MAX_WIDTH};
pub use objective::{Objective, Stats};
pub use optim::{Adam, LearningRate, Momentum, Optimizer, Schedule, Sgd};
pub use rng::Rng;
pub use train::{Outcome, Progress, Stop, TrainConfig, Trainer};
