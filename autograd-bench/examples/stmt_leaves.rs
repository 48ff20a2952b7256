//! What `stmt!` costs by the kind of its leaves: Rosenbrock (n = 1000) with each term one
//! statement over leaves that are statements themselves (the inputs: `kind 0`), over leaves of
//! one pending pair made by operations first (`2 x_i` and `x_{i+1} + 1`: `kind 1`), and over a
//! leaf of two pending pairs (`2 x_i + x_{i+1}`: `kind 2`). The first two take `stmt!`'s inline
//! path, the third its out-of-line one (`autograd-core/src/var/statement.rs`).
//!
//! ```text
//! cargo build --release -p autograd-bench --example stmt_leaves
//! target/release/examples/stmt_leaves               # the three timed by turns, medians
//! valgrind --tool=callgrind target/release/examples/stmt_leaves 10 KIND   # and 20: the
//!                                                   # difference over 9,990 terms
//! ```

use autograd_bench::args::{refuse_misfits, Arg};
use std::hint::black_box;
use std::time::Instant;

use autograd_core::{Number, TapeView, Var};
use autograd_macros::stmt;

const N: usize = 1000;

/// Rosenbrock with each term one statement, its leaves of the given kind.
fn rosenbrock<T: Number>(x: &[T], kind: u8) -> T {
    let mut sum = T::zero();
    for w in x.windows(2) {
        let (a, b) = match kind {
            1 => (w[0] * T::from_f64(2.0), w[1] + T::from_f64(1.0)),
            2 => (w[0] * T::from_f64(2.0) + w[1], w[1] + T::from_f64(1.0)),
            _ => (w[0], w[1]),
        };
        sum = stmt!(sum + T::from_f64(100.0) * (b - a * a).square() + (T::one() - a).square());
    }
    sum
}

/// One gradient on an emptied tape; returns one of its entries.
fn gradient(tape: &mut TapeView<f64>, x: &[f64], kind: u8) -> f64 {
    tape.clear();
    let t: &TapeView<f64> = tape;
    let mut v = heapless::Vec::<Var<'_, f64>, N>::new();
    v.extend(t.vars(x));
    let y = rosenbrock(&v, black_box(kind));
    match t.backward(y) {
        Ok(g) => g.wrt(v[3]),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // (Out of line, before main reads them as it did: `autograd_bench::args`.)
    refuse_misfits(
        &args,
        &[Arg::Count, Arg::Word(&["0", "1", "2"])],
        "usage: stmt_leaves [REPS [KIND: 0, 1 or 2]]",
    );
    let number = |i: usize| -> Option<usize> {
        let a = args.get(i)?;
        match a.parse() {
            Ok(n) => Some(n),
            Err(_) => {
                eprintln!("error: `{a}` is not a number (usage: stmt_leaves [REPS KIND])");
                std::process::exit(2);
            }
        }
    };
    let x = autograd_bench::functions::point(N);
    let mut tape = autograd_bench::tape_f64();
    if let Some(reps) = number(0) {
        let kind = number(1).unwrap_or(0).min(2) as u8;
        let mut g = 0.0;
        for _ in 0..reps {
            g += gradient(&mut tape, &x, kind);
        }
        println!("kind {kind}: {reps} gradients, dy/dx3 summed {g}");
        return;
    }
    let mut times = [const { Vec::new() }; 3];
    for _ in 0..300 {
        for (kind, t) in times.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..20 {
                black_box(gradient(&mut tape, &x, kind as u8));
            }
            t.push(start.elapsed().as_nanos() as f64 / 20.0);
        }
    }
    let names = ["statements", "one pair each", "a leaf of two pairs"];
    for (t, name) in times.iter_mut().zip(names) {
        t.sort_by(f64::total_cmp);
        println!("  {name:<22} {:>8.0} ns", t[t.len() / 2]);
    }
}
