//! Batched gradient checks (reverse mode against central differences), one point per task, run
//! sequentially or spread over threads with rayon. Each task records on its own stack tape.

use autograd_core::Tape;
use rayon::prelude::*;

use crate::functions::{dense, Function};
use crate::modes::{central_differences, reverse_gradient};

/// Inputs per checked point.
pub const CHECK_N: usize = 32;
/// Tape capacity of one check (the dense function at `CHECK_N` inputs needs 280 nodes).
pub const CHECK_CAPACITY: usize = 512;

/// The batch: `points` points of [`CHECK_N`] inputs around the benchmark point.
pub fn batch(points: usize) -> Vec<[f64; CHECK_N]> {
    (0..points)
        .map(|p| core::array::from_fn(|i| 0.5 + 0.01 * i as f64 + 0.001 * p as f64))
        .collect()
}

/// Largest relative difference between the tape's and central differences' gradient of
/// [`dense`] at `x` (a gradient check; about 1e-10 when both are right).
pub fn gradient_check(x: &[f64; CHECK_N]) -> f64 {
    let mut tape = Tape::<f64, CHECK_CAPACITY>::new();
    let (mut rev, mut fd) = ([0.0; CHECK_N], [0.0; CHECK_N]);
    if reverse_gradient(&mut tape, Function::Dense, x, &mut rev).is_err() {
        return f64::INFINITY;
    }
    let mut scratch = *x;
    central_differences(dense::<f64>, &mut scratch, &mut fd);
    rev.iter()
        .zip(&fd)
        .map(|(r, f)| (r - f).abs() / (1.0 + r.abs()))
        .fold(0.0, f64::max)
}

/// Checks every point on this thread; returns the worst error.
pub fn check_sequential(points: &[[f64; CHECK_N]]) -> f64 {
    points.iter().map(gradient_check).fold(0.0, f64::max)
}

/// Checks the points on rayon's pool; returns the worst error.
pub fn check_parallel(points: &[[f64; CHECK_N]]) -> f64 {
    points
        .par_iter()
        .map(gradient_check)
        .reduce(|| 0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_schedules_pass_the_check_with_the_same_worst_error() {
        let points = batch(8);
        let seq = check_sequential(&points);
        assert!(seq < 1e-8, "{seq}");
        assert_eq!(seq, check_parallel(&points));
    }
}
