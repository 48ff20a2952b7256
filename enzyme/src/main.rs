//! `std::autodiff` (Enzyme) on the benchmark functions, timed next to this project's tape in one
//! binary built by the nightly toolchain with fat LTO. `cargo xtask bench --enzyme` builds and
//! runs it after the main benchmarks, reads its medians back with theirs and reports them side by
//! side (PERFORMANCE.md).
//!
//! Benchmark ids (criterion groups as in `autograd-bench`): `{rosenbrock,dense}/{mode}/{n}` for
//! n = 10, 100, 1000, where `mode` is
//! - `lto_plain_f64`: the function the tape differentiates (`Number` on `f64`), built here;
//! - `lto_reverse_f64`: its gradient on the tape (the core's `gradient_reverse`), built here;
//! - `enzyme_plain_f64`: the function Enzyme differentiates;
//! - `enzyme_f64`: its gradient by `std::autodiff`.
//!
//! Rosenbrock is the same source for both (`autograd-bench`'s, generic over `Number`). `dense`
//! is not: Enzyme cannot differentiate the `libm` crate's bit-level code that `Number` calls for
//! `f64` (its type analysis rejects the exponent built by a shift), so Enzyme's `dense` calls
//! std's `sin`, `cos`, `exp` and `tanh`, which it knows, and its ratio is to that function's own
//! plain evaluation.
//!
//! What this toolchain's Enzyme does not build, found while writing this crate (each aborts the
//! build): the tape's own code compiled in this crate (type analysis: "illegal insertion"; the
//! tape is timed through `autograd_bench::modes::gradient_reverse_f64`, compiled in that crate),
//! and the moons MLP loss once criterion is linked in ("Cannot deduce type of memset" for its
//! zeroed activation arrays; built without criterion, it agreed with the hand-written backprop to
//! 2e-16), so there is no moons comparison.
//!
//! Before timing, every Enzyme gradient is compared with the hand-written one; a mismatch exits
//! with status 1.
#![feature(autodiff)]

use std::autodiff::autodiff_reverse;
use std::hint::black_box;
use std::process::ExitCode;

use autograd_bench::facts::REFERENCE_SIZES;
use autograd_bench::functions::{point, Function};
use autograd_bench::harness::{config, wall_clock};
use autograd_bench::modes::gradient_reverse_f64;
use autograd_bench::{analytic, tape_f64};
use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion};

/// Rosenbrock as the tape differentiates it (`autograd-bench`'s, generic over `Number`).
#[autodiff_reverse(rosenbrock_enzyme, Duplicated, Active)]
fn rosenbrock(x: &[f64]) -> f64 {
    autograd_bench::functions::rosenbrock(x)
}

/// `dense` on std's elementary functions (see the crate docs).
#[autodiff_reverse(dense_enzyme, Duplicated, Active)]
fn dense_std(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum = sum + a.sin() * b.cos().exp() + (a * b).tanh();
    }
    sum
}

/// Enzyme's gradient of `f` (one of the above) at `x`: it adds into `g`, so `g` starts at zero.
fn enzyme_gradient(f: Function, x: &[f64], g: &mut [f64]) -> f64 {
    g.fill(0.0);
    match f {
        Function::Rosenbrock => rosenbrock_enzyme(x, g, 1.0),
        Function::Dense => dense_enzyme(x, g, 1.0),
    }
}

/// The function Enzyme differentiates, evaluated.
fn enzyme_plain(f: Function, x: &[f64]) -> f64 {
    match f {
        Function::Rosenbrock => rosenbrock(x),
        Function::Dense => dense_std(x),
    }
}

/// `Err` naming the first entry where `got` and the hand-written `want` differ by more than
/// `1e-12 + 1e-10 |want|` (Enzyme's `dense` calls std's math, the hand-written one `libm`'s).
fn agree(what: &str, got: &[f64], want: &[f64]) -> Result<(), String> {
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        if !((a - b).abs() <= 1e-12 + 1e-10 * b.abs()) {
            return Err(format!(
                "{what}: d/dx{i} is {a}, the hand-written gradient {b}"
            ));
        }
    }
    if got.len() == want.len() {
        Ok(())
    } else {
        Err(format!(
            "{what}: {} entries, expected {}",
            got.len(),
            want.len()
        ))
    }
}

/// Every Enzyme gradient against the hand-written one, at every size timed.
fn check() -> Result<(), String> {
    for n in REFERENCE_SIZES {
        let x = point(n);
        let (mut got, mut want) = (vec![0.0; n], vec![0.0; n]);
        enzyme_gradient(Function::Rosenbrock, &x, &mut got);
        analytic::rosenbrock_gradient(&x, &mut want);
        agree(&format!("rosenbrock, n = {n}"), &got, &want)?;
        enzyme_gradient(Function::Dense, &x, &mut got);
        analytic::dense_gradient(&x, &mut want);
        agree(&format!("dense, n = {n}"), &got, &want)?;
    }
    Ok(())
}

fn functions<M: Measurement>(c: &mut Criterion<M>) {
    for f in Function::ALL {
        let mut group = c.benchmark_group(f.name());
        for n in REFERENCE_SIZES {
            let x = point(n);
            let mut g = vec![0.0; n];
            group.bench_with_input(BenchmarkId::new("lto_plain_f64", n), &x, |b, x| {
                b.iter(|| f.eval(black_box(x.as_slice())))
            });
            {
                let mut tape = tape_f64();
                group.bench_with_input(BenchmarkId::new("lto_reverse_f64", n), &x, |b, x| {
                    b.iter(|| gradient_reverse_f64(f, &mut tape, black_box(x), &mut g).unwrap())
                });
            }
            group.bench_with_input(BenchmarkId::new("enzyme_plain_f64", n), &x, |b, x| {
                b.iter(|| enzyme_plain(f, black_box(x)))
            });
            group.bench_with_input(BenchmarkId::new("enzyme_f64", n), &x, |b, x| {
                b.iter(|| enzyme_gradient(f, black_box(x), &mut g))
            });
        }
        group.finish();
    }
}

fn main() -> ExitCode {
    if let Err(e) = check() {
        eprintln!("error: std::autodiff disagrees with the hand-written gradient: {e}");
        return ExitCode::from(1);
    }
    #[cfg(target_os = "linux")]
    if !wall_clock() {
        let mut c = config()
            .with_measurement(autograd_bench::harness::thread_cpu::ThreadCpuTime)
            .configure_from_args();
        functions(&mut c);
        c.final_summary();
        return ExitCode::SUCCESS;
    }
    let mut c = config().configure_from_args();
    functions(&mut c);
    c.final_summary();
    ExitCode::SUCCESS
}
