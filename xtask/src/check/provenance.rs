//! The `provenance` suite: NaN provenance (`TapeView::anomaly`, `non_finite_origin`,
//! `first_non_finite`, `backward_checked`) judged by plain `f64` evaluation, which says where a
//! NaN or an infinity first appears without looking at any tape.
//!
//! In `f64`, `f32` and Q16.16 fixed point (where "not finite" is poison) for the operations;
//! in `f64` for the networks.
//!
//! - Origins: every operation of the core's table (the `ops` suite's expressions) at points of
//!   finite inputs where its plain value is not finite (`ln(0)`, `exp(1000)`, `1e300 * 1e300`,
//!   `sqrt(-1)`) must be named as the statement where it started: its value of the same IEEE
//!   class, its listed operands finite, its operation the expression's.
//! - Passing through: every operation and the zero-coefficient forms that leave a term out
//!   (`relu` below 0, `x * 0.0`, a dot product's zero coefficient) applied to a NaN, `-inf` or
//!   `+inf` that an earlier statement produced: where the plain result is not finite, the report
//!   names that earlier statement, not the one it went through; where it is finite, nothing is
//!   reported.
//! - Gradients: where an operation's closed form (the `ops` suite's reference) has a finite
//!   value and an infinite derivative (`sqrt'(0)`, `asin'(1)`, `cbrt'(0)`), `backward_checked`
//!   must name the operation's statement as where the gradient went non-finite, and `anomaly`
//!   the recorded partial, of the closed form's class (`f64`).
//! - Networks: small MLPs over handles and over leaves (the `Trainer`'s path, layer statements),
//!   with a non-finite input or an overflowing weight: the first non-finite pre-activation the
//!   plain evaluation finds is the tape's first non-finite statement (a neuron's `dot`, its
//!   operands finite), and a non-finite output is traced to a neuron where it started.
//! - Random trees: half from the expression suite's generator, half from an unguarded one (ln of
//!   anything, coefficients of exactly 0), at extreme points: where the result is not finite,
//!   `anomaly` and `first_non_finite` report a statement whose value is not finite, whose listed
//!   operands are finite, labelled with the operation of a node where plain `f64` finds a
//!   non-finite value starting.
//!
//! One file per part: `provenance/ops.rs`, `provenance/trees.rs`, `provenance/networks.rs`.

mod networks;
mod ops;
mod trees;

use autograd_core::Scalar;

use super::judge::non_finite_class;
use super::{Case, Options};

/// `true` if `a` and `b` are the same non-finite class (`judge`'s: both NaN, in fixed point
/// poison, or the same infinity).
fn same_class<S: Scalar>(a: S, b: S) -> bool {
    let class = non_finite_class(a.to_f64());
    class.is_some() && class == non_finite_class(b.to_f64())
}

pub fn cases(o: &Options) -> Vec<Case> {
    let mut cases = trees::cases(o);
    cases.extend(ops::cases());
    cases.extend(networks::cases());
    cases
}
