//! A loop to count the instructions of a `Trainer` gradient of a network over one input against
//! the same network over two (PERFORMANCE.md, "A layer over one input"):
//!
//! ```text
//! cargo build --release -p autograd-bench --example profile_one_input
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/profile_one_input 1 3
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/profile_one_input 1 5
//! ```
//!
//! `INPUTS REPS`: REPS gradients, by autograd-nn's `Trainer`, of the squared error of an MLP
//! [INPUTS, 16, 16, 1] (tanh, linear output) fitting `sin t` at 100 points `t` in [-3, 3)
//! (every input `t`), INPUTS 1 or 2; the difference of two runs over the difference of their
//! REPS is one gradient. Prints the loss summed over the gradients, the tape's slots a sample and
//! the first parameter's derivative. A binary of its own, so that its code does not move the
//! counts of `profile`'s workloads. A bad argument is an error (exit 2).

use autograd_core::Tape;
use autograd_nn::{data::Sample, Activation, Init, Mlp, Objective, Rng, SquaredError, Trainer};

const ONE: Mlp<4> = Mlp::new([1, 16, 16, 1], Activation::Tanh, Activation::Linear);
const TWO: Mlp<4> = Mlp::new([2, 16, 16, 1], Activation::Tanh, Activation::Linear);
const USAGE: &str = "usage: profile_one_input 1|2 REPS";

fn run<const I: usize, const P: usize>(model: Mlp<4>, reps: usize) -> Result<(), String> {
    let mut params = [0.0; P];
    model
        .init(&mut params, Init::Uniform, &mut Rng::new(1))
        .map_err(|e| e.to_string())?;
    let mut batch = [Sample {
        x: [0.0; I],
        y: 0.0,
    }; 100];
    for (k, s) in batch.iter_mut().enumerate() {
        let t = k as f64 * 0.06 - 3.0;
        s.x = [t; I];
        s.y = t.sin();
    }
    let objective = Objective::new(model, SquaredError);
    let mut tape = Tape::<f64, 100_000>::boxed();
    let mut trainer = Trainer::new(&mut *tape, &params).map_err(|e| e.to_string())?;
    let mut loss = 0.0;
    for _ in 0..reps {
        loss += trainer
            .gradient(&objective, &params, &batch)
            .map_err(|e| e.to_string())?
            .loss;
    }
    println!(
        "[{I}, 16, 16, 1]: loss summed {loss}, {} slots a sample, d/dp0 {}",
        trainer.slots_per_sample(),
        trainer.grads()[0]
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps = match args.get(1).map(|s| s.parse::<usize>()) {
        Some(Ok(reps)) if args.len() == 2 => reps,
        _ => {
            eprintln!("{USAGE}");
            return std::process::ExitCode::from(2);
        }
    };
    let outcome = match args[0].as_str() {
        "1" => run::<1, { ONE.param_count() }>(ONE, reps),
        "2" => run::<2, { TWO.param_count() }>(TWO, reps),
        _ => Err(USAGE.to_string()),
    };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}
