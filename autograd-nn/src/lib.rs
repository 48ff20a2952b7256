//! Neural networks on `autograd-core` (in progress: see issue 4).
#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use autograd_core;
