//! The backward sweep's cost per operand from 10^3 to 10^6 operands, in the tape's former `f64`
//! slot layout and with the values apart (`autograd_bench::layout`), next to the tape's own
//! sweeps of the same shapes, all in one run:
//!
//! ```text
//! cargo run --release -p autograd-bench --example slot_layout
//! ```
//!
//! The last three rows ask what would flatten the wide sum: its sends alone, without the
//! clearing of the adjoints the last sweep wrote (`Layout::sends`), and its re-sweep reduced to
//! its memory traffic (no statement walk) with 12-byte operand slots and with the operands
//! stored as indices alone.
//!
//! Each figure is the best of five timings of back-to-back re-sweeps of one recording (about
//! 2*10^7 operands each), in ns per operand, then the ratio of the largest to the smallest over
//! the four sizes (the issue's flatness target: at most 1.5).

use std::hint::black_box;
use std::time::Instant;

use autograd_bench::layout::{Apart12, Apart16, Inline24, Layout};
use autograd_bench::scaling::{record_chain, record_wide_sum};
use autograd_bench::{tape_f32, tape_f64};

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// ns per operand of `sweep`, which sweeps `operands` operands: the best of five runs.
fn time(operands: usize, mut sweep: impl FnMut()) -> f64 {
    let reps = (20_000_000 / operands).max(5);
    sweep();
    (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                sweep();
            }
            start.elapsed().as_secs_f64() * 1e9 / (reps * operands) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn layout<L: Layout>(operands: usize, wide: bool) -> f64 {
    let mut tape = L::with_capacity(2 * operands + 3);
    let y = if wide {
        tape.wide_sum(operands)
    } else {
        tape.chain(operands).0
    };
    time(operands, || tape.backward(black_box(y)))
}

/// [`layout`]'s wide sum with its sends alone, no clearing ([`Layout::sends`]): the cost of a
/// sweep that would not have to clear the adjoints the last one wrote.
fn sends_alone<L: Layout>(operands: usize) -> f64 {
    let mut tape = L::with_capacity(2 * operands + 3);
    let y = tape.wide_sum(operands);
    time(operands, || tape.sends(black_box(y)))
}

/// The tape's re-sweep of a wide sum reduced to its memory traffic, in 12-byte slots: the
/// leaves' adjoints zeroed (the leading run, as the tape clears it: no test), then each operand's
/// leaf adjoint added the sum's adjoint times the operand's partial. The operands are
/// `(index, partial)` slots of 12 bytes, or, with `indices`, 4-byte indices alone (every
/// partial of a sum is 1): what storing a sum's operands as indices would save.
fn traffic(operands: usize, indices: bool) -> f64 {
    use autograd_bench::layout::{Slot, Slot12};
    let mut leaves = vec![Slot12::header(0); operands];
    let slots: Vec<Slot12> = (0..operands as u32)
        .map(|i| Slot12::operand(i, 1.0))
        .collect();
    let index: Vec<u32> = (0..operands as u32).collect();
    let a = black_box(1.0);
    time(operands, || {
        for leaf in leaves.iter_mut() {
            leaf.set_adj(0.0);
        }
        if indices {
            for &i in &index {
                if let Some(t) = leaves.get_mut(i as usize) {
                    t.set_adj(t.adj() + a);
                }
            }
        } else {
            for o in &slots {
                if let Some(t) = leaves.get_mut(o.link() as usize) {
                    t.set_adj(t.adj() + a * o.partial());
                }
            }
        }
        black_box(&leaves);
    })
}

fn row(name: &str, mut figure: impl FnMut(usize) -> f64) {
    let ns: Vec<f64> = SIZES.iter().map(|&n| figure(n)).collect();
    let (lo, hi) = ns.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &t| {
        (lo.min(t), hi.max(t))
    });
    let cells: Vec<String> = ns.iter().map(|t| format!("{t:.2}")).collect();
    println!("| {name} | {} | {:.2}x |", cells.join(" | "), hi / lo);
}

fn main() {
    println!("| ns per operand | 10^3 | 10^4 | 10^5 | 10^6 | max / min |");
    println!("|---|---:|---:|---:|---:|---:|");
    row("chain, the tape (`f64`, 12 B slots, values apart)", |n| {
        let mut tape = tape_f64();
        tape.clear();
        let (y, _, _) = record_chain(&tape, n);
        time(n, || {
            black_box(tape.backward(y).map(|g| g.wrt(y)).ok());
        })
    });
    row("chain, the tape (`f32`, 12 B slots)", |n| {
        let mut tape = tape_f32();
        tape.clear();
        let (y, _, _) = record_chain(&tape, n);
        time(n, || {
            black_box(tape.backward(y).map(|g| g.wrt(y)).ok());
        })
    });
    row(&format!("chain, {}", Inline24::NAME), |n| {
        layout::<Inline24>(n, false)
    });
    row(&format!("chain, {}", Apart16::NAME), |n| {
        layout::<Apart16>(n, false)
    });
    row(&format!("chain, {}", Apart12::NAME), |n| {
        layout::<Apart12>(n, false)
    });
    row(
        "wide sum, the tape (`f64`, 12 B slots, values apart)",
        |n| {
            let mut tape = tape_f64();
            tape.clear();
            let xs = record_wide_sum(&tape, n);
            let y = *xs.last().expect("a sum");
            time(n, || {
                black_box(tape.backward(y).map(|g| g.wrt(y)).ok());
            })
        },
    );
    row(&format!("wide sum, {}", Inline24::NAME), |n| {
        layout::<Inline24>(n, true)
    });
    row(&format!("wide sum, {}", Apart16::NAME), |n| {
        layout::<Apart16>(n, true)
    });
    row(&format!("wide sum, {}", Apart12::NAME), |n| {
        layout::<Apart12>(n, true)
    });
    row(
        &format!("wide sum, {}, its sends alone (no clearing)", Apart12::NAME),
        sends_alone::<Apart12>,
    );
    row(
        "wide sum's traffic, 12 B slots, (index, partial) operands",
        |n| traffic(n, false),
    );
    row(
        "wide sum's traffic, 12 B slots, operands as indices alone",
        |n| traffic(n, true),
    );
}
