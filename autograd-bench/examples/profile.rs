//! A loop to count instructions with callgrind, reproducing PERFORMANCE.md's "where the time
//! goes" figures:
//!
//! ```text
//! cargo build --release -p autograd-bench --example profile
//! valgrind --tool=callgrind target/release/examples/profile rosenbrock 1000 10
//! valgrind --tool=callgrind target/release/examples/profile moons 3
//! valgrind --tool=callgrind target/release/examples/profile moons-hand 3
//! ```
//!
//! `rosenbrock N REPS`: REPS reverse gradients of Rosenbrock in N inputs (divide the recording
//! and sweep counts by `REPS * (N - 1)` for instructions per term); `dense N REPS` the same for
//! `dense`; a third argument `plain` evaluates the function REPS times instead, `driver` takes the
//! gradients through the core's `gradient_reverse` instead of the benchmarks' loop (its input
//! handles then live on the heap past 32 KiB, as that driver documents). `moons REPS`: REPS gradients
//! of micrograd's moons loss on the tape; `moons-hand REPS`: the same by the hand-written backprop;
//! `trainer REPS`: REPS steps of the same network through autograd-nn's `Trainer` (and SGD).
//! `xor REPS`: REPS steps of the firmware's minimal embedding on the host (`firmware/src/bin/
//! minimal.rs`: XOR, an `f32` MLP [2, 4, 1] with tanh units, on a 256-slot tape, through the
//! `Trainer`), for the host's view of what the firmware counts.
//! `easy-ml rosenbrock|dense N REPS`: REPS gradients by easy-ml's `Record`, the reference crate
//! the benchmarks time (`benches/reference.rs`).
//!
//! `cargo xtask bench` runs these under valgrind for its instruction counts (`instructions.rs`
//! in xtask).

use autograd_bench::functions::{point, Function};
use autograd_bench::modes::reverse_gradient;
use autograd_bench::moons::{data, hand_loss_gradient, init_params, tape_loss_gradient, PARAMS};
use autograd_bench::nn_step;
use autograd_nn::{LearningRate, Sgd};

#[path = "../benches/reference.rs"]
#[allow(dead_code)] // (num-dual's half is the benchmarks')
mod reference;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| {
        args.get(i)
            .map(|s| s.parse().unwrap_or(default))
            .unwrap_or(default)
    };
    let mut tape = autograd_bench::tape_f64();
    // `rosenbrock` or `dense`: a benchmark function, by its name.
    let function = args
        .first()
        .and_then(|a| Function::ALL.into_iter().find(|f| f.name() == a));
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
        (Some("easy-ml"), _) => {
            let Some(f) = args
                .get(1)
                .and_then(|a| Function::ALL.into_iter().find(|f| f.name() == a))
            else {
                eprintln!("usage: profile easy-ml rosenbrock|dense N REPS");
                std::process::exit(2);
            };
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
        (Some("moons-hand"), _) => {
            let (d, p) = (data(), init_params(1));
            let mut g = vec![0.0; PARAMS];
            let mut l = 0.0;
            for _ in 0..number(1, 3) {
                l = hand_loss_gradient(std::hint::black_box(&p), &d.x, &d.y, &mut g);
            }
            println!("moons by hand: loss {l}, dloss/dp0 = {}", g[0]);
        }
        (_, Some(f)) => {
            let name = f.name();
            let (n, reps) = (number(1, 1000), number(2, 10));
            let x = point(n);
            let mut g = vec![0.0; n];
            if args.get(3).map(String::as_str) == Some("plain") {
                let mut y = 0.0;
                for _ in 0..reps {
                    y += f.eval(std::hint::black_box(&x[..]));
                }
                println!("{name} n = {n}, plain: sum of values {y}");
                return;
            }
            let driver = args.get(3).map(String::as_str) == Some("driver");
            for _ in 0..reps {
                let outcome = if driver {
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
                "usage: profile rosenbrock|dense N REPS [plain|driver] | profile moons|moons-hand|trainer|xor REPS | profile easy-ml rosenbrock|dense N REPS"
            );
            std::process::exit(2);
        }
    }
}
