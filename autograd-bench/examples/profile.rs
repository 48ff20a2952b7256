//! A loop to count instructions with callgrind, reproducing PERFORMANCE.md's "where the time
//! goes" figures:
//!
//! ```text
//! cargo build --release -p autograd-bench --example profile
//! valgrind --tool=callgrind target/release/examples/profile rosenbrock 1000 10
//! valgrind --tool=callgrind target/release/examples/profile moons 3
//! ```
//!
//! `rosenbrock N REPS`: REPS reverse gradients of Rosenbrock in N inputs (divide the recording
//! and sweep counts by `REPS * (N - 1)` for instructions per term); `dense N REPS` the same for
//! `dense`; `rosenbrock-stmt` and `dense-stmt` the same with each term one statement
//! (`stmt!`, `functions::Statements`); a third argument `driver` takes the gradients through the core's `gradient_reverse`
//! instead of the benchmarks' loop (its input handles then live on the heap past 32 KiB, as that
//! driver documents). `moons REPS`: REPS gradients of micrograd's moons loss on the tape;
//! `trainer REPS`: REPS steps of the same network through autograd-nn's `Trainer` (and SGD).
//! `xor REPS`: REPS steps of the firmware's minimal embedding on the host (`firmware/src/bin/
//! minimal.rs`: XOR, an `f32` MLP [2, 4, 1] with tanh units, on a 256-slot tape, through the
//! `Trainer`), for the host's view of what the firmware counts. `polar N REPS`: REPS gradients
//! of `sum r_i cos t_i + r_i sin t_i` over N pairs, the sine and cosine from one `sin_cos`;
//! `polar-apart` the same from `sin` and `cos` (`Number::sin_cos`'s saving). A count that is not
//! one, or a fourth argument other than `driver`, is an error (exit 2).
//!
//! The workloads that do not use the tape (plain evaluations, easy-ml's `Record`, the
//! hand-written backprop) are counted from a binary of their own, `examples/profile_reference.rs`,
//! so that the tape's code does not move their counts. `cargo xtask bench` runs both under
//! valgrind for its instruction counts (`instructions.rs` in xtask).

use autograd_bench::args::{refuse_misfits, Arg};
use autograd_bench::functions::{point, Function, Statements};
use autograd_bench::modes::{reverse_gradient, reverse_gradient_of};
use autograd_bench::moons::{data, init_params, tape_loss_gradient, PARAMS};
use autograd_bench::nn_step;
use autograd_nn::{LearningRate, Sgd};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // (Out of line, before main reads them as it did: `autograd_bench::args`.)
    refuse_misfits(
        &args,
        &[Arg::Any, Arg::Count, Arg::Count, Arg::Word(&["driver"])],
        "usage: profile WORKLOAD N REPS [driver], or WORKLOAD REPS",
    );
    let number = |i: usize, default: usize| {
        args.get(i)
            .map(|s| s.parse().unwrap_or(default))
            .unwrap_or(default)
    };
    let mut tape = autograd_bench::tape_f64();
    // `rosenbrock` or `dense`: a benchmark function, by its name; `rosenbrock-stmt` or
    // `dense-stmt`: the same with each term one statement (`stmt!`).
    let function = args.first().and_then(|a| {
        let (name, statements) = a
            .strip_suffix("-stmt")
            .map_or((a.as_str(), false), |n| (n, true));
        let f = Function::ALL.into_iter().find(|f| f.name() == name)?;
        Some((f, statements))
    });
    match (args.first().map(String::as_str), function) {
        (Some("moons"), _) => {
            let (d, p) = (data(), init_params(1));
            let mut g = vec![0.0; PARAMS];
            for _ in 0..number(1, 3) {
                if let Err(e) = tape_loss_gradient(&mut tape, &p, &d, &mut g) {
                    eprintln!("error: {e}");
                    std::process::exit(2);
                }
            }
            println!("moons: {} slots, dloss/dp0 = {}", tape.len(), g[0]);
        }
        (Some("trainer"), _) => {
            // The moons step as autograd-nn's `Trainer` takes it (`nn_step`): gradient and SGD.
            let d = data();
            let start: [f64; PARAMS] = init_params(1).try_into().expect("PARAMS parameters");
            let (objective, batch) = (nn_step::objective(), nn_step::samples(&d));
            let mut params = start;
            let mut sgd = Sgd::new(LearningRate::Constant(0.05));
            let mut loss = 0.0;
            let outcome = nn_step::trainer(&mut tape, &start).and_then(|mut trainer| {
                for _ in 0..number(1, 3) {
                    params = start;
                    loss = nn_step::step(&mut trainer, &objective, &mut params, &batch, &mut sgd)?;
                }
                Ok(())
            });
            if let Err(e) = outcome {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
            println!(
                "moons by autograd-nn's Trainer: loss {loss}, p0 after a step {}",
                params[0]
            );
        }
        (Some("xor"), _) => {
            use autograd_nn::{
                data, Activation, Init, Mlp, Objective, Reduction, Rng, SquaredError, TrainConfig,
                Trainer,
            };
            const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
            let mut tape = autograd_core::Tape::<f32, 256>::new();
            let mut params = [0.0_f32; XOR.param_count()];
            let objective = Objective::new(XOR, SquaredError).with_reduction(Reduction::Sum);
            let mut sgd = Sgd::new(LearningRate::Constant(0.05));
            // A fixed number of steps (no early stop), so that REPS and 2 REPS differ by REPS.
            let config = TrainConfig::steps(number(1, 100));
            let outcome = XOR
                .init(&mut params, Init::Uniform, &mut Rng::new(42))
                .and_then(|()| Trainer::new(&mut tape, &params))
                .and_then(|mut trainer| {
                    trainer.train(
                        &objective,
                        &mut params,
                        &mut data::xor(),
                        &mut sgd,
                        &config,
                        |_| std::ops::ControlFlow::Continue(()),
                    )
                });
            match outcome {
                Ok(o) => println!("xor: {} updates, p0 = {}", o.updates, params[0]),
                Err(e) => {
                    eprintln!("error: {e}");
                    std::process::exit(2);
                }
            }
        }
        (Some(name @ ("polar" | "polar-apart")), _) => {
            let (n, reps) = (number(1, 1000), number(2, 10));
            let polar = Polar {
                together: name == "polar",
            };
            let x = point(2 * n);
            let mut g = vec![0.0; 2 * n];
            for _ in 0..reps {
                if let Err(e) = reverse_gradient_of(&mut tape, &polar, &x, &mut g) {
                    eprintln!("error: {e}");
                    std::process::exit(2);
                }
            }
            println!("{name} n = {n}: {} slots, g1 = {}", tape.len(), g[1]);
        }
        (Some(name), Some((f, statements))) => {
            let (n, reps) = (number(1, 1000), number(2, 10));
            let x = point(n);
            let mut g = vec![0.0; n];
            let driver = args.get(3).map(String::as_str) == Some("driver");
            for _ in 0..reps {
                let outcome = if statements {
                    reverse_gradient_of(&mut tape, &Statements(f), &x, &mut g)
                } else if driver {
                    autograd_core::gradient_reverse(&f, &mut tape, &x, &mut g)
                } else {
                    reverse_gradient(&mut tape, f, &x, &mut g)
                };
                if let Err(e) = outcome {
                    eprintln!("error: {e}");
                    std::process::exit(2);
                }
            }
            println!("{name} n = {n}: {} slots, g0 = {}", tape.len(), g[0]);
        }
        _ => {
            eprintln!(
                "usage: profile rosenbrock|dense[-stmt] N REPS [driver] | profile polar[-apart] N REPS | profile moons|trainer|xor REPS (plain evaluations, easy-ml and the hand-written backprop: profile_reference)"
            );
            std::process::exit(2);
        }
    }
}

/// `sum_i r_i cos t_i + r_i sin t_i` over the pairs `(r_i, t_i) = (x_2i, x_2i+1)`, the sine
/// and cosine from one `sin_cos` call (`together`) or from `sin` and `cos`.
struct Polar {
    together: bool,
}

impl autograd_core::Function for Polar {
    fn eval<T: autograd_core::Number>(&self, x: &[T]) -> T {
        let mut sum = T::zero();
        for p in x.chunks_exact(2) {
            let (r, t) = (p[0], p[1]);
            let (s, c) = if self.together {
                t.sin_cos()
            } else {
                (t.sin(), t.cos())
            };
            sum += r * c + r * s;
        }
        sum
    }
}
