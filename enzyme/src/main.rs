//! `std::autodiff` (Enzyme) on the benchmark functions, timed next to this project's tape in one
//! binary built by the nightly toolchain with fat LTO. `cargo xtask bench --enzyme` builds and
//! runs it after the main benchmarks, reads its medians back with theirs and reports them side by
//! side (PERFORMANCE.md).
//!
//! Benchmark ids (criterion groups as in `autograd-bench`): `{rosenbrock,dense}/{mode}/{n}` for
//! n = 10, 100, 1000, and `moons/{mode}/337` (micrograd's MLP loss, its 337 parameters), where
//! `mode` is
//! - `lto_plain_f64`: the function the tape differentiates (`Number` on `f64`), built here;
//! - `lto_reverse_f64`: its gradient on the tape (the core's `gradient_reverse`), built here;
//! - `enzyme_plain_f64`: the function Enzyme differentiates;
//! - `enzyme_f64`: its gradient by `std::autodiff`;
//! - `lto_hand_f64` (moons only): the hand-written backprop, built here.
//!
//! Rosenbrock is the same source for both (`autograd-bench`'s, generic over `Number`). `dense`
//! is not: Enzyme cannot differentiate the `libm` crate's bit-level code that `Number` calls for
//! `f64` (its type analysis rejects the exponent built by a shift), so Enzyme's `dense` calls
//! std's `sin`, `cos`, `exp` and `tanh`, which it knows, and its ratio is to that function's own
//! plain evaluation.
//!
//! The moons loss is not the same source either: `autograd-bench`'s generic loss, once criterion
//! is linked in, fails Enzyme's type analysis ("Cannot deduce type of memset" for its zeroed
//! activation arrays) and the build goes on to a gradient holding only the L2 term, which the
//! check below catches. Enzyme's loss is the same arithmetic written out (see `moons_loss`).
//!
//! What this toolchain's Enzyme does not build (it aborts): the tape's own code compiled in this
//! crate (type analysis: "illegal insertion"); the tape is timed through
//! `autograd_bench::modes::gradient_reverse_f64` and `moons::tape_loss_gradient`, compiled in
//! `autograd-bench`.
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
use autograd_bench::{analytic, moons, tape_f64};
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

/// The moons MLP's loss, the same arithmetic as `autograd_bench::moons::loss` (micrograd's
/// order) written out for Enzyme: its activation arrays start filled with ones and are written
/// in place, since the zeroed arrays of the generic version (a `memset`) and arrays built by
/// `from_fn` (a `memcpy`) abort Enzyme's type analysis once criterion is linked in.
#[autodiff_reverse(moons_enzyme, Duplicated, Const, Const, Active)]
fn moons_loss(p: &[f64], x: &[[f64; 2]], y: &[f64]) -> f64 {
    const H: usize = moons::HIDDEN;
    const L2: usize = 3 * H;
    const L3: usize = L2 + (H + 1) * H;
    let relu = |v: f64| if v > 0.0 { v } else { 0.0 };
    let mut data = 0.0;
    let (mut h1, mut h2) = ([1.0f64; H], [1.0f64; H]);
    for (xi, yi) in x.iter().zip(y) {
        for (j, h) in h1.iter_mut().enumerate() {
            let w = &p[3 * j..3 * j + 3];
            *h = relu(w[2] + w[0] * xi[0] + w[1] * xi[1]);
        }
        for (j, h) in h2.iter_mut().enumerate() {
            let w = &p[L2 + (H + 1) * j..L2 + (H + 1) * (j + 1)];
            *h = relu(h1.iter().zip(w).fold(w[H], |s, (v, wk)| s + wk * v));
        }
        let w3 = &p[L3..L3 + H + 1];
        let score = h2.iter().zip(w3).fold(w3[H], |s, (v, wk)| s + wk * v);
        data += relu(1.0 + -yi * score);
    }
    data *= 1.0 / x.len() as f64;
    let reg = p.iter().fold(0.0, |s, v| s + v * v);
    data + moons::ALPHA * reg
}

fn moons_gradient(p: &[f64], data: &moons::Moons, g: &mut [f64]) -> f64 {
    g.fill(0.0);
    moons_enzyme(p, g, &data.x, &data.y, 1.0)
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
    let (data, p) = (moons::data(), moons::init_params(1));
    let (mut got, mut want) = (vec![0.0; p.len()], vec![0.0; p.len()]);
    let loss = moons_gradient(&p, &data, &mut got);
    let hand = moons::hand_loss_gradient(&p, &data.x, &data.y, &mut want);
    agree("the moons loss", &[loss], &[hand])?;
    agree("the moons loss gradient", &got, &want)
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

fn moons_group<M: Measurement>(c: &mut Criterion<M>) {
    let (data, p) = (moons::data(), moons::init_params(1));
    let mut g = vec![0.0; moons::PARAMS];
    let mut group = c.benchmark_group("moons");
    let id = |mode: &str| BenchmarkId::new(mode, moons::PARAMS);
    group.bench_function(id("lto_plain_f64"), |b| {
        b.iter(|| moons::plain_loss(black_box(&p), &data))
    });
    group.bench_function(id("lto_hand_f64"), |b| {
        b.iter(|| moons::hand_loss_gradient(black_box(&p), &data.x, &data.y, &mut g))
    });
    {
        let mut tape = tape_f64();
        group.bench_function(id("lto_reverse_f64"), |b| {
            b.iter(|| moons::tape_loss_gradient(&mut tape, black_box(&p), &data, &mut g).unwrap())
        });
    }
    group.bench_function(id("enzyme_plain_f64"), |b| {
        b.iter(|| moons_loss(black_box(&p), &data.x, &data.y))
    });
    group.bench_function(id("enzyme_f64"), |b| {
        b.iter(|| moons_gradient(black_box(&p), &data, &mut g))
    });
    group.finish();
}

fn all<M: Measurement>(c: &mut Criterion<M>) {
    functions(c);
    moons_group(c);
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
        all(&mut c);
        c.final_summary();
        return ExitCode::SUCCESS;
    }
    let mut c = config().configure_from_args();
    all(&mut c);
    c.final_summary();
    ExitCode::SUCCESS
}
