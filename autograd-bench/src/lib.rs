//! Functions shared by the benchmarks (in progress: see issue 6).
#![deny(missing_docs)]
