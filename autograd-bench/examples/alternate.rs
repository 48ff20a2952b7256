//! The benchmark functions' gradients with and without `stmt!`, timed in one process by turns:
//! 300 rounds, each timing a batch of every workload in turn, and the median of each. This VM's
//! speed moves by up to 1.6x from one minute to the next, which a criterion run of one workload
//! after another takes as a difference between them; taken by turns, every workload sees the
//! same moments, and their ratios hold still (the absolute times still move).
//!
//! ```text
//! cargo run --release -p autograd-bench --example alternate -- rosenbrock 1000
//! cargo run --release -p autograd-bench --example alternate -- dense 1000
//! ```
//!
//! Workloads: the reverse gradient as written (`operations`) and with each term one statement
//! (`stmt!`), both through the benchmarks' loop (`modes::reverse_gradient_of`); the plain
//! evaluation; and recording alone (the inputs and the function on the tape, no sweep), as
//! written, with `stmt!`, and of the inputs only (`leaves`); both gradients again through the
//! core's driver, `gradient_reverse`, as the criterion benchmarks call it (`core`). For
//! Rosenbrock also the floor of a
//! statement tape (`autograd_bench::floor`: the same statements in the same slot layout with
//! nothing else done), its gradient and its recording alone.

use std::hint::black_box;
use std::time::Instant;

use autograd_bench::floor::Floor;
use autograd_bench::functions::{point, Function, Statements};
use autograd_bench::modes::reverse_gradient_of;
use autograd_core::{gradient_reverse, Number, TapeView, Var};

/// Records the inputs and `f` on `tape`, without a sweep; returns the value.
fn record<F: autograd_core::Function>(tape: &mut TapeView<f64>, f: &F, x: &[f64]) -> f64 {
    tape.clear();
    let tape: &TapeView<f64> = tape;
    let mut vars = heapless::Vec::<Var<'_, f64>, { autograd_bench::modes::MAX_INPUTS }>::new();
    vars.extend(tape.vars(x));
    f.eval(&vars).value()
}

/// The inputs alone: the function of the leaves' recording.
struct Leaves;

impl autograd_core::Function for Leaves {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        x[0]
    }
}

const ROUNDS: usize = 300;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let f = match args.first().map(String::as_str) {
        Some("dense") => Function::Dense,
        Some("rosenbrock") | None => Function::Rosenbrock,
        Some(other) => {
            eprintln!("usage: alternate [rosenbrock|dense] [N] (not `{other}`)");
            std::process::exit(2);
        }
    };
    let n = match args.get(1).map(|s| s.parse::<usize>()) {
        None => 1000,
        Some(Ok(n)) if (2..=autograd_bench::modes::MAX_INPUTS).contains(&n) => n,
        Some(_) => {
            eprintln!(
                "usage: alternate [rosenbrock|dense] [N], 2 <= N <= {}",
                autograd_bench::modes::MAX_INPUTS
            );
            std::process::exit(2);
        }
    };
    let mut tape = autograd_bench::tape_f64();
    let x = point(n);
    let mut g = vec![0.0; n];
    let batch = (200_000 / n).max(1);
    let statements = Statements(f);
    let names = [
        "operations",
        "stmt!",
        "plain",
        "record, operations",
        "record, stmt!",
        "record, leaves",
        "operations, core",
        "stmt!, core",
        "floor",
        "record, floor",
    ];
    // The floor (the last two) is Rosenbrock's only: its partials are written by hand.
    let names = match f {
        Function::Rosenbrock => &names[..],
        _ => &names[..names.len() - 2],
    };
    let mut floor = Floor::new(5 * n);
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(ROUNDS); names.len()];
    for _ in 0..ROUNDS {
        for (k, t) in times.iter_mut().enumerate() {
            // The core's driver records after whatever the tape holds (the rows before it leave
            // their recording there): it starts on an empty tape, as criterion's benchmarks
            // start it, and as the benchmarks' loop and `record` empty it on every call.
            tape.clear();
            let start = Instant::now();
            for _ in 0..batch {
                let v = match k {
                    0 => reverse_gradient_of(&mut tape, &f, black_box(&x), &mut g),
                    1 => reverse_gradient_of(&mut tape, &statements, black_box(&x), &mut g),
                    2 => Ok(f.eval(black_box(x.as_slice()))),
                    3 => Ok(record(&mut tape, &f, black_box(&x))),
                    4 => Ok(record(&mut tape, &statements, black_box(&x))),
                    5 => Ok(record(&mut tape, &Leaves, black_box(&x))),
                    6 => gradient_reverse(&f, &mut tape, black_box(&x), &mut g),
                    7 => gradient_reverse(&statements, &mut tape, black_box(&x), &mut g),
                    8 => Ok(floor.rosenbrock_gradient(black_box(&x), &mut g)),
                    _ => Ok(floor.record_rosenbrock(black_box(&x)).0),
                };
                if let Err(e) = black_box(v) {
                    eprintln!("error: {e}");
                    std::process::exit(2);
                }
            }
            t.push(start.elapsed().as_nanos() as f64 / batch as f64);
        }
    }
    let median = |t: &mut Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    let medians: Vec<f64> = times.iter_mut().map(median).collect();
    println!(
        "{} n = {n}: medians of {ROUNDS} rounds by turns, {batch} each",
        f.name()
    );
    for (name, m) in names.iter().zip(&medians) {
        println!("  {name:<20} {m:>12.0} ns  {:>6.2}x plain", m / medians[2]);
    }
}
