//! Figures that are counted rather than timed: bytes per tape node and how many nodes each
//! benchmark records. The benchmark binary writes them beside criterion's results.

use std::mem::size_of;

use autograd_core::{Node, Tape};

use crate::batch::{batch, CHECK_CAPACITY, CHECK_N};
use crate::functions::{point, Function};
use crate::modes::reverse_gradient;
use crate::moons::{data, init_params, tape_loss_gradient, PARAMS};
use crate::scaling::{record_chain, record_wide_sum};

/// The input sizes every mode is measured at in a full run: powers of two, plus 10, 100 and
/// 1000, the sizes of the reference figures for other crates.
pub const SIZES: [usize; 13] = [2, 4, 8, 10, 16, 32, 64, 100, 128, 256, 512, 1000, 1024];

/// The sizes of a quick run.
pub const QUICK_SIZES: [usize; 5] = [2, 10, 100, 256, 1000];

/// Node counts of the scaling benchmarks.
pub const SCALING_NODES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// `(name, value)` pairs: `bytes_per_node/{f32,f64}` (a node's size), `tape_bytes_per_node/..`
/// (a whole tape's size over its capacity), `rc_graph_bytes_per_node` (heap bytes a
/// micrograd-style binary node asks for, allocator overhead excluded) and
/// `tape_len/<benchmark>` (nodes recorded by one gradient).
///
/// # Panics
/// If a tape is too small for a benchmark (a bug in this crate).
pub fn collect() -> Vec<(String, f64)> {
    let mut out = vec![
        (
            "bytes_per_node/f32".to_string(),
            size_of::<Node<f32>>() as f64,
        ),
        (
            "bytes_per_node/f64".to_string(),
            size_of::<Node<f64>>() as f64,
        ),
        (
            "tape_bytes_per_node/f32".to_string(),
            size_of::<Tape<f32, 4096>>() as f64 / 4096.0,
        ),
        (
            "tape_bytes_per_node/f64".to_string(),
            size_of::<Tape<f64, 4096>>() as f64 / 4096.0,
        ),
        (
            "rc_graph_bytes_per_node".to_string(),
            crate::rc_graph::heap_bytes_per_binary_node() as f64,
        ),
    ];
    let mut tape = crate::tape_f64();
    for f in Function::ALL {
        for n in SIZES {
            let x = point(n);
            let mut g = vec![0.0; n];
            reverse_gradient(&mut tape, f, &x, &mut g).expect("benchmark tape large enough");
            out.push((format!("tape_len/{}/{n}", f.name()), tape.len() as f64));
        }
    }
    let mut g = vec![0.0; PARAMS];
    tape_loss_gradient(&mut tape, &init_params(1), &data(), &mut g).expect("tape large enough");
    out.push(("tape_len/moons".to_string(), tape.len() as f64));
    for nodes in SCALING_NODES {
        tape.clear();
        record_chain(&tape, nodes);
        out.push((format!("tape_len/chain/{nodes}"), tape.len() as f64));
        tape.clear();
        record_wide_sum(&tape, nodes);
        out.push((format!("tape_len/wide_sum/{nodes}"), tape.len() as f64));
    }
    tape.clear();
    let mut small = Tape::<f64, CHECK_CAPACITY>::new();
    let mut g = [0.0; CHECK_N];
    reverse_gradient(&mut small, Function::Dense, &batch(1)[0], &mut g).expect("tape fits");
    out.push(("tape_len/gradcheck".to_string(), small.len() as f64));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_what_the_functions_record() {
        let facts = collect();
        let get = |k: &str| facts.iter().find(|(n, _)| n == k).map(|(_, v)| *v).unwrap();
        assert_eq!(get("bytes_per_node/f32"), 16.0);
        assert_eq!(get("bytes_per_node/f64"), 24.0);
        // Rosenbrock: n leaves, then 9 nodes per term (a*a, b-., square, const 100, *, 1-a,
        // square, +, +), and the first `0 + term` is an offset: 9 per term.
        assert_eq!(get("tape_len/rosenbrock/2"), 2.0 + 9.0);
        assert_eq!(get("tape_len/rosenbrock/1024"), 1024.0 + 9.0 * 1023.0);
        // dense: sin, cos, exp, *, *, tanh, +, + per term.
        assert_eq!(get("tape_len/dense/4"), 4.0 + 8.0 * 3.0);
        assert_eq!(get("tape_len/chain/1000"), 1000.0);
        assert_eq!(get("tape_len/wide_sum/1000000"), 1_000_000.0 - 1.0);
        assert!(get("tape_len/moons") > 60_000.0);
    }
}
