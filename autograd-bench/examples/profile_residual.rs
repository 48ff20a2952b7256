//! A loop to count the instructions and slots of a gradient of a residual network, whose layers'
//! inputs carry two pending pairs each (PERFORMANCE.md, "Residual inputs"):
//!
//! ```text
//! cargo build --release -p autograd-bench --example profile_residual
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/profile_residual 3
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/profile_residual 5
//! ```
//!
//! `REPS`: REPS reverse gradients of the squared error of a network over 100 points of two
//! features, through `Var::affine_layer` over the parameters' handles: `h = tanh(W1 x + b1)`
//! (16 units), two residual blocks `h = h + tanh(W h + b)` (16 units each), and one output row
//! `w · h + b` over the last block. Every block's input after the first, and the output row's,
//! is `h + tanh(...)`: two pending pairs a unit. The difference of two runs over the difference
//! of their REPS is one gradient. Prints the loss summed over the gradients, the tape's slots a
//! sample and the first parameter's derivative. A binary of its own, so that its code does not
//! move the counts of `profile`'s workloads. A bad argument is an error (exit 2).

use autograd_core::{Tape, TapeError, TapeView, Var};

const HIDDEN: usize = 16;
const POINTS: usize = 100;
/// The parameters: the first layer, two blocks, the output row.
const PARAMS: usize = HIDDEN * 3 + 2 * HIDDEN * (HIDDEN + 1) + HIDDEN + 1;
const USAGE: &str = "usage: profile_residual REPS";

/// The loss over every point, its gradient swept, and the first parameter's derivative.
fn gradient(tape: &mut TapeView<f64>, params: &[f64; PARAMS]) -> Result<(f64, f64), TapeError> {
    tape.clear();
    let tape: &TapeView<f64> = tape;
    let p: Vec<Var<'_, f64>> = params.iter().map(|&v| tape.var(v)).collect();
    let (first, rest) = p.split_at(HIDDEN * 3);
    let (blocks, out) = rest.split_at(2 * HIDDEN * (HIDDEN + 1));
    let mut loss = Var::constant(0.0);
    for k in 0..POINTS {
        let t = k as f64 * 0.06 - 3.0;
        let x = [Var::constant(t), Var::constant(0.5 * t * t - 1.0)];
        let mut h = [Var::constant(0.0); HIDDEN];
        Var::affine_layer(first, &x, &mut h)?;
        h.iter_mut().for_each(|v| *v = v.tanh());
        for block in blocks.chunks_exact(HIDDEN * (HIDDEN + 1)) {
            let mut f = [Var::constant(0.0); HIDDEN];
            Var::affine_layer(block, &h, &mut f)?;
            for (hi, fi) in h.iter_mut().zip(f) {
                *hi += fi.tanh();
            }
        }
        let mut y = [Var::constant(0.0)];
        Var::affine_layer(out, &h, &mut y)?;
        loss += (y[0] - t.sin()).square();
    }
    let g = tape.backward(loss)?;
    Ok((loss.value(), g.wrt(p[0])))
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps = match args.first().map(|s| s.parse::<usize>()) {
        Some(Ok(reps)) if args.len() == 1 => reps,
        _ => {
            eprintln!("{USAGE}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut params = [0.0; PARAMS];
    for (i, p) in params.iter_mut().enumerate() {
        *p = ((i * 7919) % 1000) as f64 / 2000.0 - 0.25;
    }
    let mut tape = Tape::<f64, 400_000>::boxed();
    let (mut loss, mut d0) = (0.0, 0.0);
    for _ in 0..reps {
        match gradient(&mut tape, &params) {
            Ok((l, d)) => (loss, d0) = (loss + l, d),
            Err(e) => {
                eprintln!("error: {e}");
                return std::process::ExitCode::from(2);
            }
        }
    }
    println!(
        "residual [2, 16, 16, 16, 1]: loss summed {loss}, {} slots a sample, d/dp0 {d0}",
        (tape.len() - PARAMS) / POINTS
    );
    std::process::ExitCode::SUCCESS
}
