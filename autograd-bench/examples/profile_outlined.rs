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

use autograd_bench::args::{refuse_misfits, Arg};
use autograd_bench::functions::{point, Function};
use autograd_bench::modes::reverse_gradient;
use autograd_core::{Outlined, Tape};

/// Slots of the tape: Rosenbrock and `dense` at n = 1024 take 6,657.
const SLOTS: usize = 1 << 16;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // (Out of line, before main reads them as it did: `autograd_bench::args`.)
    refuse_misfits(
        &args,
        &[Arg::Any, Arg::Count, Arg::Count],
        "usage: profile_outlined rosenbrock|dense N REPS",
    );
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
