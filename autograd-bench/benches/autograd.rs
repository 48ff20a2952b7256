//! Criterion benchmarks: every mode on the same functions, the moons training step, tape scaling
//! and batched gradient checks. Run through `cargo xtask bench [--quick]`, which reads the
//! results back and prints the comparison table.
//!
//! Environment: `AUTOGRAD_BENCH_QUICK=1` selects short measurements and fewer sizes;
//! `AUTOGRAD_BENCH_REPORT=<dir>` is where the counted figures (bytes per slot, slots recorded) go
//! (default `<target>/bench-report`); `AUTOGRAD_BENCH_CLOCK=wall` times the single-threaded
//! benchmarks by the wall clock instead of the thread's CPU time.
//!
//! # Which clock
//! By default (on Linux) every single-threaded benchmark is timed by the CPU time of its own
//! thread (`CLOCK_THREAD_CPUTIME_ID`), so that time the thread spends descheduled on a shared,
//! loaded machine does not count; on an idle machine the two clocks agree. The rayon comparison
//! is always timed by the wall clock, since its point is elapsed time.

use std::hint::black_box;
use std::time::{Duration, Instant};

mod reference;

use autograd_bench::batch::{batch, check_parallel, check_sequential};
use autograd_bench::facts::{self, QUICK_SIZES, REFERENCE_SIZES, SCALING_OPERANDS, SIZES};
use autograd_bench::functions::{point, Function, Statements};
use autograd_bench::harness::{config, quick, wall_clock};
use autograd_bench::modes::central_differences;
use autograd_bench::scaling::{record_chain, record_wide_sum};
use autograd_bench::{analytic, moons, nn_step, rc_graph, tape_f32, tape_f64};
use autograd_core::{
    gradient_forward, gradient_forward_vec, gradient_reverse, Number, Scalar, TapeView, Var,
};
use autograd_nn::{LearningRate, Sgd};
use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion, Throughput};

/// Input sizes. The quadratic modes (n passes of an O(n) function: finite differences, forward
/// mode) stop at 1000 in a full run (1024 would add about 10 s per mode and function and says
/// nothing the slope does not); a quick run measures every mode at 2, 10, 100, 256 and 1000.
fn sizes(quadratic: bool) -> Vec<usize> {
    let all: &[usize] = if quick() { &QUICK_SIZES } else { &SIZES };
    all.iter()
        .copied()
        .filter(|&n| !quadratic || n <= 1000)
        .collect()
}

fn as_f32(x: &[f64]) -> Vec<f32> {
    x.iter().map(|&v| v as f32).collect()
}

/// Plain evaluation, hand-written gradient, reverse mode (f64, f32; the core's
/// `gradient_reverse`; f64 again with each term one statement, `stmt!`), recording alone, forward mode (`Dual`, n passes; `DualVec<f64, 8>`,
/// n/8 passes), central differences, (Rosenbrock only) the micrograd-style graph, and at
/// n = 10, 100, 1000 the reference crates (easy-ml's reverse-mode `Record`, num-dual's `Dual64`,
/// n passes), for each n.
fn modes<M: Measurement>(c: &mut Criterion<M>) {
    for f in Function::ALL {
        let mut group = c.benchmark_group(f.name());
        for n in sizes(false) {
            let x = point(n);
            let x32 = as_f32(&x);
            let mut g = vec![0.0; n];
            let mut g32 = vec![0.0f32; n];
            group.bench_with_input(BenchmarkId::new("plain_f64", n), &x, |b, x| {
                b.iter(|| f.eval(black_box(x.as_slice())))
            });
            group.bench_with_input(BenchmarkId::new("plain_f32", n), &x32, |b, x| {
                b.iter(|| f.eval(black_box(x.as_slice())))
            });
            group.bench_with_input(BenchmarkId::new("hand_f64", n), &x, |b, x| {
                b.iter(|| match f {
                    Function::Rosenbrock => analytic::rosenbrock_gradient(black_box(x), &mut g),
                    Function::Dense => analytic::dense_gradient(black_box(x), &mut g),
                })
            });
            // Each gradient starts on an empty tape: backward sweeps every node below its root, so
            // slots left over from another benchmark would be timed too.
            {
                let mut tape = tape_f64();
                tape.clear();
                group.bench_with_input(BenchmarkId::new("reverse_f64", n), &x, |b, x| {
                    b.iter(|| gradient_reverse(&f, &mut tape, black_box(x), &mut g).unwrap())
                });
                // The same function with each term one statement (`stmt!`).
                group.bench_with_input(BenchmarkId::new("reverse_stmt_f64", n), &x, |b, x| {
                    b.iter(|| {
                        gradient_reverse(&Statements(f), &mut tape, black_box(x), &mut g).unwrap()
                    })
                });
                group.bench_with_input(BenchmarkId::new("record_f64", n), &x, |b, x| {
                    b.iter(|| record_only(&mut tape, f, black_box(x)))
                });
                tape.clear();
            }
            {
                let mut tape = tape_f32();
                tape.clear();
                group.bench_with_input(BenchmarkId::new("reverse_f32", n), &x32, |b, x| {
                    b.iter(|| gradient_reverse(&f, &mut tape, black_box(x), &mut g32).unwrap())
                });
            }
            if f == Function::Rosenbrock {
                group.bench_with_input(BenchmarkId::new("rc_graph", n), &x, |b, x| {
                    b.iter(|| {
                        let vals: Vec<rc_graph::Value> =
                            x.iter().map(|&v| rc_graph::Value::new(v)).collect();
                        let y = rc_graph::rosenbrock(&vals);
                        y.backward();
                        vals.last().map(|v| v.grad())
                    })
                });
            }
        }
        for n in sizes(true)
            .into_iter()
            .filter(|n| REFERENCE_SIZES.contains(n))
        {
            let x = point(n);
            let mut g = vec![0.0; n];
            let list = easy_ml::differentiation::WengertList::new();
            group.bench_with_input(BenchmarkId::new("easy_ml_record", n), &x, |b, x| {
                b.iter(|| reference::easy_ml_gradient(&list, f, black_box(x), &mut g))
            });
            let mut scratch = Vec::new();
            group.bench_with_input(BenchmarkId::new("num_dual_f64", n), &x, |b, x| {
                b.iter(|| reference::num_dual_gradient(f, black_box(x), &mut scratch, &mut g))
            });
        }
        for n in sizes(true) {
            let x = point(n);
            let mut scratch = x.clone();
            let mut g = vec![0.0; n];
            group.bench_function(BenchmarkId::new("finite_diff_f64", n), |b| {
                b.iter(|| {
                    central_differences(|x: &[f64]| f.eval(x), black_box(&mut scratch), &mut g)
                })
            });
            group.bench_with_input(BenchmarkId::new("forward_dual_f64", n), &x, |b, x| {
                b.iter(|| gradient_forward(&f, black_box(x), &mut g).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("forward_dual8_f64", n), &x, |b, x| {
                b.iter(|| gradient_forward_vec::<8, _, _>(&f, black_box(x), &mut g).unwrap())
            });
        }
        group.finish();
    }
}

/// Clears the tape and records `f` without a backward sweep (the recording share of a gradient).
fn record_only<S: Scalar>(tape: &mut autograd_core::TapeView<S>, f: Function, x: &[S]) -> S {
    tape.clear();
    let tape: &autograd_core::TapeView<S> = tape;
    let mut vars = heapless::Vec::<_, { autograd_bench::modes::MAX_INPUTS }>::new();
    for &v in x {
        let _ = vars.push(tape.var(v));
    }
    f.eval(&vars).value()
}

/// The moons MLP's loss and its gradient with respect to the 337 parameters in each mode.
fn moons_loss<M: Measurement>(c: &mut Criterion<M>) {
    let data = moons::data();
    let p = moons::init_params(1);
    let mut g = vec![0.0; moons::PARAMS];
    let mut group = c.benchmark_group("moons");
    let id = |mode: &str| BenchmarkId::new(mode, moons::PARAMS);
    group.bench_function(id("plain_f64"), |b| {
        b.iter(|| moons::plain_loss(black_box(&p), &data))
    });
    group.bench_function(id("hand_f64"), |b| {
        b.iter(|| moons::hand_loss_gradient(black_box(&p), &data.x, &data.y, &mut g))
    });
    {
        let mut tape = tape_f64();
        group.bench_function(id("reverse_f64"), |b| {
            b.iter(|| moons::tape_loss_gradient(&mut tape, black_box(&p), &data, &mut g).unwrap())
        });
    }
    let mut scratch = p.clone();
    group.sample_size(10);
    let loss = moons::MoonsLoss(&data);
    group.bench_function(id("forward_dual_f64"), |b| {
        b.iter(|| gradient_forward(&loss, black_box(&p), &mut g).unwrap())
    });
    group.bench_function(id("forward_dual8_f64"), |b| {
        b.iter(|| gradient_forward_vec::<8, _, _>(&loss, black_box(&p), &mut g).unwrap())
    });
    group.bench_function(id("finite_diff_f64"), |b| {
        b.iter(|| {
            central_differences(
                |q: &[f64]| moons::plain_loss(q, &data),
                black_box(&mut scratch),
                &mut g,
            )
        })
    });
    group.finish();
}

/// One full-batch SGD step of micrograd's demo: the tape directly, `autograd-nn`'s `Trainer`,
/// hand-written backprop, the micrograd-style graph. Every iteration starts from the same parameters, so the work does not
/// change as the network learns.
fn moons_step<M: Measurement>(c: &mut Criterion<M>) {
    let data = moons::data();
    let p0 = moons::init_params(1);
    let lr = 0.5;
    let mut group = c.benchmark_group("moons_step");
    let mut p = p0.clone();
    let mut g = vec![0.0; moons::PARAMS];
    {
        let mut tape = tape_f64();
        group.bench_function("tape", |b| {
            b.iter(|| {
                p.copy_from_slice(&p0);
                let l = moons::tape_loss_gradient(&mut tape, &p, &data, &mut g).unwrap();
                moons::sgd_step(&mut p, &g, lr);
                l
            })
        });
    }
    {
        let mut tape = tape_f64();
        let objective = nn_step::objective();
        let batch = nn_step::samples(&data);
        let start: [f64; moons::PARAMS] = p0.clone().try_into().expect("337 parameters");
        let mut params = start;
        let mut trainer = nn_step::trainer(&mut tape, &start).expect("tape holds the parameters");
        let mut sgd = Sgd::new(LearningRate::Constant(lr));
        group.bench_function("nn_trainer", |b| {
            b.iter(|| {
                params = start;
                nn_step::step(&mut trainer, &objective, &mut params, &batch, &mut sgd).unwrap()
            })
        });
    }
    group.bench_function("hand", |b| {
        b.iter(|| {
            p.copy_from_slice(&p0);
            let l = moons::hand_loss_gradient(&p, &data.x, &data.y, &mut g);
            moons::sgd_step(&mut p, &g, lr);
            l
        })
    });
    let params: Vec<rc_graph::Value> = p0.iter().map(|&w| rc_graph::Value::new(w)).collect();
    let inputs: Vec<[rc_graph::Value; 2]> = data
        .x
        .iter()
        .map(|x| [rc_graph::Value::new(x[0]), rc_graph::Value::new(x[1])])
        .collect();
    group.bench_function("rc_graph", |b| {
        b.iter(|| {
            for (v, w) in params.iter().zip(&p0) {
                v.add_data(w - v.data());
            }
            rc_graph::moons_step(&params, &inputs, &data.y, lr)
        })
    });
    group.finish();
}

/// Backward alone over tapes of 10^3..10^6 recorded operands: a chain of two-operand
/// statements (f64 and f32) and one wide sum (f64), and recording the chain. Throughput is in
/// operands, so criterion's elements per second is operands per second.
///
/// `backward_*` sweeps one recording again and again, so each sweep first clears the adjoints
/// the one before left (a pass over the slots it reached, as a Jacobian's rows do over one
/// recording); `first_backward_*` times only the first sweep of a fresh recording (as a
/// training step takes it: record, sweep, rewind), the recording untimed.
fn scaling<M: Measurement<Value = Duration>>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("tape_scaling");
    if quick() {
        group.sample_size(10);
    }
    for operands in SCALING_OPERANDS {
        group.throughput(Throughput::Elements(operands as u64));
        let mut tape = tape_f64();
        tape.clear();
        let (y, _, _) = record_chain(&tape, operands);
        tape.check().expect("the scaling tape fits");
        group.bench_function(BenchmarkId::new("backward_chain_f64", operands), |b| {
            b.iter(|| tape.backward(y).map(|g| g.wrt(y)).unwrap())
        });
        group.bench_function(
            BenchmarkId::new("first_backward_chain_f64", operands),
            |b| {
                b.iter_custom(|iters| {
                    first_sweeps(iters, &mut tape, |t| record_chain(t, operands).0)
                })
            },
        );
        tape.clear();
        let xs = record_wide_sum(&tape, operands);
        let y = *xs.last().expect("a sum");
        group.bench_function(BenchmarkId::new("backward_wide_f64", operands), |b| {
            b.iter(|| tape.backward(y).map(|g| g.wrt(y)).unwrap())
        });
        drop(xs);
        group.bench_function(BenchmarkId::new("first_backward_wide_f64", operands), |b| {
            b.iter_custom(|iters| {
                first_sweeps(iters, &mut tape, |t| {
                    *record_wide_sum(t, operands).last().expect("a sum")
                })
            })
        });
        group.bench_function(BenchmarkId::new("record_chain_f64", operands), |b| {
            b.iter(|| {
                tape.clear();
                record_chain(&tape, operands).0.value()
            })
        });
        tape.clear();
        drop(tape);
        let mut tape = tape_f32();
        tape.clear();
        let (y, _, _) = record_chain(&tape, operands);
        group.bench_function(BenchmarkId::new("backward_chain_f32", operands), |b| {
            b.iter(|| tape.backward(y).map(|g| g.wrt(y)).unwrap())
        });
        tape.clear();
    }
    group.finish();
}

/// The time of `iters` first sweeps: each time the tape cleared, `record` run (untimed), then one
/// sweep from the result it returns, timed by the wall clock. (`Instant` reads in about 45 ns on
/// the project's VM; the thread's CPU clock is a system call, about 0.5 µs, and a first sweep of
/// 1,000 operands takes 2 to 4 µs. Each sweep is timed on its own, so the two readings count in
/// every one: a few percent at 1,000 operands.)
fn first_sweeps(
    iters: u64,
    tape: &mut TapeView<f64>,
    record: impl for<'t> Fn(&'t TapeView<f64>) -> Var<'t, f64>,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        tape.clear();
        let view: &TapeView<f64> = tape;
        let y = record(view);
        let start = Instant::now();
        black_box(view.backward(y).map(|g| g.wrt(y)).unwrap());
        total += start.elapsed();
    }
    total
}

/// A batch of gradient checks (reverse vs central differences), sequential vs rayon.
fn rayon_batch<M: Measurement>(c: &mut Criterion<M>) {
    let points = batch(64);
    let mut group = c.benchmark_group("gradcheck_batch");
    group.bench_function(BenchmarkId::new("sequential", points.len()), |b| {
        b.iter(|| check_sequential(black_box(&points)))
    });
    group.bench_function(BenchmarkId::new("rayon", points.len()), |b| {
        b.iter(|| check_parallel(black_box(&points)))
    });
    group.finish();
}

/// Writes the counted figures (bytes per slot, slots recorded) as `name<TAB>value` lines.
fn write_facts() {
    let dir = std::env::var_os("AUTOGRAD_BENCH_REPORT")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            // <target>/release/deps/<this binary>
            let exe = std::env::current_exe().ok()?;
            Some(exe.parent()?.parent()?.parent()?.join("bench-report"))
        });
    let Some(dir) = dir else { return };
    let mut text = String::new();
    for (name, value) in facts::collect() {
        text.push_str(&format!("{name}\t{value}\n"));
    }
    text.push_str(&format!(
        "rayon_threads\t{}\n",
        rayon::current_num_threads()
    ));
    if let Err(e) =
        std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(dir.join("facts.tsv"), text))
    {
        eprintln!("warning: could not write {}: {e}", dir.display());
    }
}

/// `f32`'s `tanh` as the core computes it (32-bit integer arithmetic, `scalar/tanhf.rs`) against
/// libm's `tanhf`, over 1,024 inputs spread over [-4, 4] (both paths of the integer version).
fn tanh_f32<M: Measurement>(c: &mut Criterion<M>) {
    let xs: Vec<f32> = (0..1024).map(|i| i as f32 / 128.0 - 4.0).collect();
    let mut group = c.benchmark_group("tanh_f32");
    group.throughput(criterion::Throughput::Elements(xs.len() as u64));
    group.bench_function("core", |b| {
        b.iter(|| xs.iter().map(|&x| Number::tanh(black_box(x))).sum::<f32>())
    });
    group.bench_function("libm", |b| {
        b.iter(|| xs.iter().map(|&x| libm::tanhf(black_box(x))).sum::<f32>())
    });
    group.finish();
}

fn single_threaded<M: Measurement<Value = Duration>>(c: &mut Criterion<M>) {
    tanh_f32(c);
    modes(c);
    moons_loss(c);
    moons_step(c);
    scaling(c);
}

fn main() {
    write_facts();
    let wall = wall_clock();
    #[cfg(target_os = "linux")]
    if !wall {
        let mut c = config()
            .with_measurement(autograd_bench::harness::thread_cpu::ThreadCpuTime)
            .configure_from_args();
        single_threaded(&mut c);
        c.final_summary();
    }
    let mut c = config().configure_from_args();
    if wall {
        single_threaded(&mut c);
    }
    rayon_batch(&mut c);
    c.final_summary();
}
