//! The benchmarks' reverse-mode loop on a tape of `Outlined<f64>` (every operation a call), to
//! count its instructions with callgrind:
//!
//! ```text
//! cargo build --release -p autograd-bench --example profile_outlined
//! valgrind --tool=callgrind target/release/examples/profile_outlined rosenbrock 1000 10
//! ```
//!
//! `rosenbrock N REPS` or `dense N REPS`: REPS gradients in N inputs, as `examples/profile.rs`
//! takes them on an `f64` tape. A binary of its own, so that its code does not move the counts
//! of `profile`'s workloads through LLVM's decisions for a shared `main` (with it in `profile`,
//! `stmt!`'s Rosenbrock went from 186.9 to 188.0 instructions a term). `cargo xtask bench`
//! counts it beside them (`instructions.rs` in xtask).

use autograd_bench::functions::{point, Function};
use autograd_bench::modes::reverse_gradient;
use autograd_core::{Outlined, Tape};

/// Slots of the tape: Rosenbrock and `dense` at n = 1024 take 6,657.
const SLOTS: usize = 1 << 16;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    refuse_typos(&args);
    let number = |i: usize, default: usize| {
        args.get(i)
            .map(|s| s.parse().unwrap_or(default))
            .unwrap_or(default)
    };
    let Some(f) = args
        .first()
        .and_then(|name| Function::ALL.into_iter().find(|f| f.name() == name))
    else {
        eprintln!("usage: profile_outlined rosenbrock|dense N REPS");
        std::process::exit(2);
    };
    let (n, reps) = (number(1, 1000), number(2, 10));
    let x: Vec<Outlined<f64>> = point(n).into_iter().map(Outlined).collect();
    let mut g = vec![Outlined(0.0); n];
    let mut tape = Tape::<Outlined<f64>, SLOTS>::boxed();
    for _ in 0..reps {
        if let Err(e) = reverse_gradient(&mut tape, f, &x, &mut g) {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
    println!("{} n = {n}: {} slots, g0 = {}", f.name(), tape.len(), g[0]);
}

/// Exits with an error (code 2) where a count does not parse, so that a typo is not counted as
/// the default instead; out of line, before `main`'s own reading of the arguments (left as it
/// was, so that the loops `main` inlines compile as before: `examples/profile.rs`).
#[inline(never)]
fn refuse_typos(args: &[String]) {
    for (i, a) in args.iter().enumerate().skip(1) {
        if a.parse::<usize>().is_err() || i > 2 {
            eprintln!(
                "error: argument {}: `{a}` (usage: profile_outlined rosenbrock|dense N REPS)",
                i + 1
            );
            std::process::exit(2);
        }
    }
}
