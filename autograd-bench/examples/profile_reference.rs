//! The workloads whose instructions `cargo xtask bench` counts and that do not use the tape:
//! the plain evaluations, easy-ml's `Record` and the hand-written moons backprop, in a binary of
//! their own, so that their counts do not move with the tape's code. In one binary with the
//! tape's workloads (`examples/profile.rs`, until 2026-12-04), easy-ml's Rosenbrock gradient went
//! from 646,282 to 512,413 instructions with easy-ml unchanged (callgrind, `profile easy-ml
//! rosenbrock 1000 10` and `20`, that binary built before and after): an `#[inline]` in the core
//! moved LLVM's decisions for the whole `main`. PERFORMANCE.md, "the reference workloads counted
//! apart", has the counts from this binary and their commands.
//!
//! ```text
//! cargo build --release -p autograd-bench --example profile_reference
//! valgrind --tool=callgrind target/release/examples/profile_reference rosenbrock 1000 100
//! valgrind --tool=callgrind target/release/examples/profile_reference easy-ml dense 1000 10
//! valgrind --tool=callgrind target/release/examples/profile_reference moons-hand 3
//! ```
//!
//! `rosenbrock|dense N REPS`: REPS plain `f64` evaluations of the function in N inputs;
//! `easy-ml rosenbrock|dense N REPS`: REPS gradients by easy-ml's `Record`, the reference crate
//! the benchmarks time (`benches/reference.rs`); `moons-hand REPS`: REPS gradients of
//! micrograd's moons loss by the hand-written backprop. A bad argument is an error (exit 2).

use autograd_bench::functions::{point, Function};
use autograd_bench::moons::{data, hand_loss_gradient, init_params, PARAMS};

#[path = "../benches/reference.rs"]
#[allow(dead_code)] // (num-dual's half is the benchmarks')
mod reference;

const USAGE: &str = "usage: profile_reference rosenbrock|dense N REPS | profile_reference easy-ml rosenbrock|dense N REPS | profile_reference moons-hand REPS";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let number = |i: usize, default: usize| match arg(i) {
        None => default,
        Some(s) => s
            .parse()
            .unwrap_or_else(|_| fail(&format!("not a count: {s}"))),
    };
    let function = |i: usize| {
        Function::ALL
            .into_iter()
            .find(|f| Some(f.name()) == arg(i))
            .unwrap_or_else(|| fail(USAGE))
    };
    match arg(0) {
        Some("easy-ml") => {
            let f = function(1);
            let (n, reps) = (number(2, 1000), number(3, 10));
            let x = point(n);
            let mut g = vec![0.0; n];
            let list = easy_ml::differentiation::WengertList::new();
            let mut y = 0.0;
            for _ in 0..reps {
                y = reference::easy_ml_gradient(&list, f, std::hint::black_box(&x), &mut g);
            }
            println!("{} n = {n} by easy-ml: value {y}, g0 = {}", f.name(), g[0]);
        }
        Some("moons-hand") => {
            let (d, p) = (data(), init_params(1));
            let mut g = vec![0.0; PARAMS];
            let mut l = 0.0;
            for _ in 0..number(1, 3) {
                l = hand_loss_gradient(std::hint::black_box(&p), &d.x, &d.y, &mut g);
            }
            println!("moons by hand: loss {l}, dloss/dp0 = {}", g[0]);
        }
        _ => {
            let f = function(0);
            let (n, reps) = (number(1, 1000), number(2, 100));
            let x = point(n);
            let mut y = 0.0;
            for _ in 0..reps {
                y += f.eval(std::hint::black_box(&x[..]));
            }
            println!("{} n = {n}, plain: sum of values {y}", f.name());
        }
    }
}

/// Prints `message` and exits with status 2.
fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}
