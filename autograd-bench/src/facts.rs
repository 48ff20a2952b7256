//! Figures that are counted rather than timed: bytes per tape slot, how many slots each benchmark
//! records, and what that costs in bytes. The benchmark binary writes them beside criterion's
//! results.
//!
//! The tape stores statements: a leaf is one slot, a statement with `k` operands `k + 1` slots
//! (its operands, then a header); handles carry up to two pending partials, so a statement is
//! written only when a result depends on more than two recorded values (or by `recorded()`,
//! `sum`, `dot`, `affine`).

use std::mem::size_of;

use autograd_core::{slot_bytes, Slot, Tape, TapeView};

use crate::batch::{batch, CHECK_CAPACITY, CHECK_N};
use crate::functions::{point, Function, Statements};
use crate::modes::{reverse_gradient, reverse_gradient_of};
use crate::moons::{data, init_params, tape_loss_gradient, PARAMS};
use crate::scaling::{record_chain, record_wide_sum};

/// The input sizes every mode is measured at in a full run: powers of two, plus 10, 100 and
/// 1000, the sizes of the reference figures for other crates.
pub const SIZES: [usize; 13] = [2, 4, 8, 10, 16, 32, 64, 100, 128, 256, 512, 1000, 1024];

/// The sizes of a quick run.
pub const QUICK_SIZES: [usize; 5] = [2, 10, 100, 256, 1000];

/// The sizes the reference crates (easy-ml, num-dual) are timed at.
pub const REFERENCE_SIZES: [usize; 3] = [10, 100, 1000];

/// Recorded operands of the scaling benchmarks.
pub const SCALING_OPERANDS: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// Total operands of the statements on a tape.
fn operands<S: autograd_core::Scalar>(tape: &TapeView<S>) -> usize {
    let mut total = 0;
    tape.for_each_node(|_, node| total += node.operands);
    total
}

/// `(name, value)` pairs:
/// - `bytes_per_slot/{f32,f64}`: a slot's size with its value (`autograd_core::slot_bytes`);
///   `swept_bytes_per_slot/..`: the part of it a sweep reads (a `Slot`: in `f64` the values are
///   apart); `tape_bytes_per_slot/..`: a whole tape's size
///   over its capacity; `rc_graph_bytes_per_node`: heap bytes a micrograd-style binary node asks
///   for (allocator overhead excluded);
/// - `slots/<benchmark>[/<n>]`: slots one gradient records (`rosenbrock`, `dense` per n, `moons`
///   the training step's loss gradient, `chain` and `wide_sum` per operand count, `gradcheck`);
///   `operands/<benchmark>/..`: operands of the statements among them;
/// - `bytes_per_rosenbrock_term/..`: tape bytes per extra Rosenbrock term (slots at n = 1000
///   minus n = 100, over 900 terms), `bytes_per_rosenbrock_term_stmt/..` the same with each term
///   one statement (`stmt!`, `slots/rosenbrock_stmt/<n>`); `bytes_per_moons_step/..`: the moons
///   step's slots times a slot's size.
///
/// # Panics
/// If a tape is too small for a benchmark (a bug in this crate).
pub fn collect() -> Vec<(String, f64)> {
    let slot = [
        ("f32", slot_bytes::<f32>(), size_of::<Slot<f32>>()),
        ("f64", slot_bytes::<f64>(), size_of::<Slot<f64>>()),
    ];
    let mut out = Vec::new();
    for (ty, bytes, swept) in slot {
        out.push((format!("bytes_per_slot/{ty}"), bytes as f64));
        out.push((format!("swept_bytes_per_slot/{ty}"), swept as f64));
    }
    out.push((
        "tape_bytes_per_slot/f32".to_string(),
        size_of::<Tape<f32, 4096>>() as f64 / 4096.0,
    ));
    out.push((
        "tape_bytes_per_slot/f64".to_string(),
        size_of::<Tape<f64, 4096>>() as f64 / 4096.0,
    ));
    out.push((
        "rc_graph_bytes_per_node".to_string(),
        crate::rc_graph::heap_bytes_per_binary_node() as f64,
    ));
    let mut tape = crate::tape_f64();
    let mut rosenbrock = [0.0; 2];
    for f in Function::ALL {
        for n in SIZES.into_iter().chain([REFERENCE_SIZES[2], 100]) {
            let x = point(n);
            let mut g = vec![0.0; n];
            reverse_gradient(&mut tape, f, &x, &mut g).expect("benchmark tape large enough");
            let slots = tape.len() as f64;
            out.push((format!("slots/{}/{n}", f.name()), slots));
            out.push((format!("operands/{}/{n}", f.name()), operands(&tape) as f64));
            if f == Function::Rosenbrock && n == 100 {
                rosenbrock[0] = slots;
            }
            if f == Function::Rosenbrock && n == 1000 {
                rosenbrock[1] = slots;
            }
        }
    }
    // Rosenbrock with each term one statement (`stmt!`).
    let mut statements = [0.0; 2];
    for (k, n) in [100, 1000].into_iter().enumerate() {
        let x = point(n);
        let mut g = vec![0.0; n];
        let f = Statements(Function::Rosenbrock);
        reverse_gradient_of(&mut tape, &f, &x, &mut g).expect("benchmark tape large enough");
        statements[k] = tape.len() as f64;
        out.push((format!("slots/rosenbrock_stmt/{n}"), statements[k]));
    }
    for (ty, bytes, _) in slot {
        let per_term = (statements[1] - statements[0]) / 900.0 * bytes as f64;
        out.push((format!("bytes_per_rosenbrock_term_stmt/{ty}"), per_term));
    }
    let mut g = vec![0.0; PARAMS];
    tape_loss_gradient(&mut tape, &init_params(1), &data(), &mut g).expect("tape large enough");
    let moons = tape.len() as f64;
    out.push(("slots/moons".to_string(), moons));
    out.push(("operands/moons".to_string(), operands(&tape) as f64));
    for (ty, bytes, _) in slot {
        let per_term = (rosenbrock[1] - rosenbrock[0]) / 900.0 * bytes as f64;
        out.push((format!("bytes_per_rosenbrock_term/{ty}"), per_term));
        out.push((format!("bytes_per_moons_step/{ty}"), moons * bytes as f64));
    }
    for k in SCALING_OPERANDS {
        tape.clear();
        record_chain(&tape, k);
        out.push((format!("slots/chain/{k}"), tape.len() as f64));
        out.push((format!("operands/chain/{k}"), operands(&tape) as f64));
        tape.clear();
        record_wide_sum(&tape, k);
        out.push((format!("slots/wide_sum/{k}"), tape.len() as f64));
        out.push((format!("operands/wide_sum/{k}"), operands(&tape) as f64));
    }
    tape.clear();
    let mut small = Tape::<f64, CHECK_CAPACITY>::new();
    let mut g = [0.0; CHECK_N];
    reverse_gradient(&mut small, Function::Dense, &batch(1)[0], &mut g).expect("tape fits");
    out.push(("slots/gradcheck".to_string(), small.len() as f64));
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moons::{Moons, HIDDEN};

    fn get(facts: &[(String, f64)], k: &str) -> f64 {
        facts
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("no fact {k}"))
    }

    /// Rosenbrock, `sum = (sum + 100 (b - a^2)^2) + (1 - a)^2` per term `(a, b) = (x_i,
    /// x_{i+1})`: `a a` pends on `a`; `b - a a` on `{b, a}`; squaring and scaling keep that;
    /// `(1 - a)^2` pends on `{a}`. Term 1: `0 + {x1, x0}` then `+ {x0}` (a shared index): the
    /// handle `{x1, x0}`, nothing written. Term 2: `{x1, x0} + {x2, x1}` is 4 pending pairs: a
    /// statement of 4 operands (5 slots), then `+ {x1}` pends on `{s, x1}`. Every later term
    /// does the same: 5 slots per term from the second, plus n leaves. At the benchmark point
    /// `x_50 = 0.5 + 0.01 * 50` is exactly 1, so `(1 - x_50)^2` has derivative exactly 0; a
    /// square is not flat over an interval (`Op::has_flat_regions`), so it still pends on `x_50`
    /// (with a partial of 0) and that term writes its 4 operands too.
    fn rosenbrock_slots(n: usize) -> f64 {
        assert_eq!(point(51)[50], 1.0);
        (n + 5 * (n - 2)) as f64
    }

    /// dense, `sum = (sum + sin(a) exp(cos(b))) + tanh(a b)`: both products pend on `{a, b}`,
    /// except that `tanh(a b)` pends on nothing where it saturates (`1 - tanh^2` is exactly 0 in
    /// f64, from `a b` about 19.1 on: `x_i` about 4.4). Term 1: `0 + {x0, x1} + {x0, x1}`: a
    /// handle, nothing written. Term 2: `{x0, x1} + {x1, x2}`: 4 operands (5 slots), then
    /// `{s} + {x1, x2}`: 3 operands (4 slots). Every later term: `{s} + {a, b}` (4 slots), then
    /// again for the `tanh` unless it saturates. Plus n leaves.
    fn dense_slots(n: usize) -> f64 {
        if n <= 2 {
            return n as f64;
        }
        let x = point(n);
        let live = |t: usize| {
            let y = libm::tanh(x[t] * x[t + 1]);
            usize::from(1.0 - y * y != 0.0)
        };
        let later: usize = (2..n - 1).map(|t| 4 + 4 * live(t)).sum();
        (n + 5 + 4 * live(1) + later) as f64
    }

    #[test]
    fn slot_sizes_and_counts_follow_the_layout() {
        let facts = collect();
        let get = |k: &str| get(&facts, k);
        assert_eq!(get("bytes_per_slot/f32"), 12.0);
        assert_eq!(get("bytes_per_slot/f64"), 24.0);
        assert_eq!(get("swept_bytes_per_slot/f32"), 12.0);
        assert_eq!(get("swept_bytes_per_slot/f64"), 12.0);
        assert_eq!(get("slots/rosenbrock/2"), 2.0);
        assert_eq!(get("slots/rosenbrock/10"), 10.0 + 5.0 * 8.0);
        for n in SIZES {
            assert_eq!(
                get(&format!("slots/rosenbrock/{n}")),
                rosenbrock_slots(n),
                "n={n}"
            );
            assert_eq!(get(&format!("slots/dense/{n}")), dense_slots(n), "n={n}");
        }
        assert_eq!(get("slots/rosenbrock/1000"), 5990.0);
        assert_eq!(get("slots/dense/4"), 4.0 + 5.0 + 4.0 + 4.0 + 4.0);
        // Rosenbrock's operands: 4 per term from the second (x_50 = 1 included).
        assert_eq!(get("operands/rosenbrock/1000"), 4.0 * 998.0);
        // Per extra term: a leaf and a 4-operand statement, 6 slots.
        assert_eq!(get("bytes_per_rosenbrock_term/f32"), 6.0 * 12.0);
        assert_eq!(get("bytes_per_rosenbrock_term/f64"), 6.0 * 24.0);
        // With stmt!: the first term's three pairs at most (the sum a constant) kept in the
        // handle, the second's four written (the sum's two, x1, x2: 5 slots), every later one a
        // statement of the sum, a and b (4 slots): a leaf and 4 slots per extra term.
        assert_eq!(
            get("slots/rosenbrock_stmt/1000"),
            1000.0 + 5.0 + 4.0 * 997.0
        );
        assert_eq!(get("bytes_per_rosenbrock_term_stmt/f32"), 5.0 * 12.0);
        assert_eq!(get("bytes_per_rosenbrock_term_stmt/f64"), 5.0 * 24.0);
        // Chain: 2 leaves, then k/2 statements of 2 operands and a header.
        assert_eq!(get("slots/chain/1000"), 2.0 + 3.0 * 500.0);
        assert_eq!(get("operands/chain/1000"), 1000.0);
        assert_eq!(get("slots/chain/1000000"), 2.0 + 3.0 * 500_000.0);
        // Wide sum: k leaves, then one statement of k operands.
        assert_eq!(get("slots/wide_sum/1000000"), 2_000_001.0);
        assert_eq!(get("operands/wide_sum/1000"), 1000.0);
        assert_eq!(get("slots/gradcheck"), dense_slots(CHECK_N));
        let moons = moons_slots(&init_params(1), &data());
        assert_eq!(get("slots/moons"), moons);
        assert_eq!(get("bytes_per_moons_step/f64"), 24.0 * moons);
        assert_eq!(get("bytes_per_moons_step/f32"), 12.0 * moons);
    }

    /// Slots of the moons loss gradient, from the rules and the network's activations on plain
    /// numbers. Every neuron's parameters are consecutive leaves and its inputs constants or
    /// handles with at most one pending pair, so each hidden layer (`affine_layer`) is a layer
    /// statement of one slot per input, one naming the first weight and a header per neuron,
    /// and the output's `affine` a neuron statement of one slot per input, one for the bias and
    /// a header; each result is a handle pending on its header alone, and a dead ReLU pends on
    /// nothing. The points are constants (no pairs).
    fn moons_slots(p: &[f64], moons: &Moons) -> f64 {
        let slots = std::cell::Cell::new(PARAMS);
        // (value, pending pairs, slots written) of an affine statement over handles `x`
        // ((value, pending pairs) each) with weights `w` and bias `b`.
        let affine = |w: &[f64], b: f64, x: &[(f64, usize)]| -> (f64, usize, usize) {
            let value = w.iter().zip(x).fold(b, |s, (wi, (xv, _))| s + wi * xv);
            (value, 1, w.len() + 2)
        };
        let relu = |(v, n, written): (f64, usize, usize)| {
            slots.set(slots.get() + written);
            if v > 0.0 {
                (v, n)
            } else {
                (0.0, 0)
            }
        };
        let mut data_pairs = 0;
        let l2 = 3 * HIDDEN;
        let l3 = l2 + (HIDDEN + 1) * HIDDEN;
        for (x, y) in moons.x.iter().zip(&moons.y) {
            let input = [(x[0], 0), (x[1], 0)];
            // A layer's rows: their values and pairs, its slots counted once.
            let layer = |p: &[f64], x: &[(f64, usize)]| -> Vec<(f64, usize)> {
                slots.set(slots.get() + x.len() + 1 + HIDDEN);
                p.chunks_exact(x.len() + 1)
                    .map(|w| {
                        let (v, n, _) = affine(&w[..x.len()], w[x.len()], x);
                        relu((v, n, 0))
                    })
                    .collect()
            };
            let h1 = layer(&p[..l2], &input);
            let h2 = layer(&p[l2..l3], &h1);
            let (score, pairs, written) = affine(&p[l3..l3 + HIDDEN], p[l3 + HIDDEN], &h2);
            let (_, margin) = relu((1.0 - y * score, pairs, written));
            // data + margin: a statement when the pairs add up to more than 2.
            if data_pairs + margin > 2 {
                slots.set(slots.get() + data_pairs + margin + 1);
                data_pairs = 1;
            } else {
                data_pairs += margin;
            }
        }
        // reg = dot(p, p): each p_i once, partial 2 p_i (zero for the biases, left out).
        let reg = p.iter().filter(|w| **w != 0.0).count();
        let mut slots = slots.get() + reg + 1;
        if data_pairs + 1 > 2 {
            slots += data_pairs + 1 + 1;
        }
        slots as f64
    }
}
