//! [`tanhf`] against libm's `f64` `tanh` (an independent computation, accurate to well
//! below an `f32` unit): every `f32` in a dense sample, the paths' edges, and, when asked
//! (`cargo test --release -p autograd-core --lib tanhf -- --ignored`), every positive `f32` where
//! the polynomials work and one in 97 of the others.

use super::*;

/// The error of `got` against the exact `tanh(x)` (libm's `f64`), in units in the last place
/// of the `f32` nearest the exact value.
fn ulps(x: f32, got: f32) -> f64 {
    let exact = libm::tanh(f64::from(x));
    let nearest = exact as f32;
    let unit = if nearest == 0.0 {
        f64::from(f32::from_bits(1))
    } else {
        // The spacing of f32 at `nearest`'s binade: 2^(exponent - 23).
        let exponent = ((nearest.abs().to_bits() >> 23) as i32 - 127).max(-126);
        libm::ldexp(1.0, exponent - 23)
    };
    (f64::from(got) - exact).abs() / unit
}

/// The worst error over the positive `f32` from `from` to `to` (bits) in steps of `step`, and
/// the count of results that are not the `f32` nearest the exact value.
fn worst(from: u32, to: u32, step: usize) -> (f64, u32, usize) {
    worst_of(tanhf, from, to, step)
}

/// [`worst`] for any `f32` function `tanh`.
fn worst_of(tanh: fn(f32) -> f32, from: u32, to: u32, step: usize) -> (f64, u32, usize) {
    let (mut worst, mut at, mut not_nearest) = (0.0, from, 0);
    for bits in (from..to).step_by(step) {
        let x = f32::from_bits(bits);
        let got = tanh(x);
        let e = ulps(x, got);
        if e > worst {
            (worst, at) = (e, bits);
        }
        if got != libm::tanh(f64::from(x)) as f32 {
            not_nearest += 1;
        }
    }
    (worst, at, not_nearest)
}

/// The worst error over every positive `f32` from 2^-12 to past 9.0109, from the exhaustive
/// test below (0.5635 units, at 0.50119776; 760,058 of the 126,954,676 inputs between [`TINY`]
/// and [`SATURATED`] are not the nearest `f32`, 0.60 %; libm's `tanhf`: 2.1886 units at
/// 0.23329562, 32,206,976 not the nearest), rounded up: the sampled tests hold the function to
/// it.
const WORST: f64 = 0.57;

#[test]
fn within_its_bound_on_a_dense_sample() {
    // About 2 million inputs across every binade of both paths (a step of 61 bits is prime to
    // the significand's structure, so each binade is sampled at scattered significands).
    let (e, at, not_nearest) = worst(TINY, SATURATED + 4096, 61);
    assert!(e < WORST, "{e} units at {}", f32::from_bits(at));
    assert!(
        not_nearest < 2_000_000 / 100,
        "{not_nearest} results not the nearest f32"
    );
}

#[test]
fn within_its_bound_at_the_edges_of_the_paths() {
    for edge in [
        TINY,
        HALF,
        SATURATED,
        0x3f80_0000,
        0x4000_0000,
        0x4080_0000,
        0x4100_0000,
    ] {
        let (e, at, _) = worst(edge - 4096, edge + 4096, 1);
        assert!(e < WORST, "{e} units at {}", f32::from_bits(at));
    }
}

#[test]
fn special_values() {
    assert_eq!(tanhf(0.0).to_bits(), 0);
    assert_eq!(tanhf(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(tanhf(f32::INFINITY), 1.0);
    assert_eq!(tanhf(f32::NEG_INFINITY), -1.0);
    assert_eq!(tanhf(f32::MAX), 1.0);
    assert_eq!(tanhf(-9.011), -1.0);
    assert!(tanhf(f32::NAN).is_nan());
    let tiny = f32::from_bits(1); // the least subnormal
    assert_eq!(tanhf(tiny), tiny);
    assert_eq!(tanhf(1e-5), 1e-5);
    // Tabulated values rounded to f32: tanh(1/2) = 0.462117157260010, tanh(1) =
    // 0.761594155955765, tanh(-3) = -0.995054753686730.
    assert_eq!(tanhf(0.5), 0.462_117_157_260_010_f64 as f32);
    assert_eq!(tanhf(1.0), 0.761_594_155_955_765_f64 as f32);
    assert_eq!(tanhf(-3.0), -0.995_054_753_686_730_f64 as f32);
}

#[test]
fn odd() {
    for bits in (TINY..SATURATED).step_by(9_973) {
        let x = f32::from_bits(bits);
        assert_eq!(tanhf(-x), -tanhf(x));
    }
}

#[test]
fn the_product_from_halves_is_exact() {
    let edges = [0, 1, 0xffff, 0x1_0000, 0x8000_0000, 0xffff_fffe, u32::MAX];
    for &a in &edges {
        for &b in &edges {
            assert_eq!(
                mulhi_by_halves(a, b),
                ((u64::from(a) * u64::from(b)) >> 32) as u32
            );
        }
    }
    // A multiplicative sequence through the whole range.
    let (mut a, mut b) = (0x9e37_79b9u32, 0x7f4a_7c15u32);
    for _ in 0..100_000 {
        assert_eq!(
            mulhi_by_halves(a, b),
            ((u64::from(a) * u64::from(b)) >> 32) as u32
        );
        a = a.wrapping_mul(0x0019_660d).wrapping_add(0x3c6e_f35f);
        b = b.rotate_left(7) ^ a;
    }
}

/// Every positive `f32` where the polynomials work (from 2^-12 to 65,536 steps past 9.0109),
/// one in 97 of those outside (where the result is `x` or 1), and monotony over every positive
/// `f32` (about 2^31 of them; under a minute in release). Run with `cargo test --release -p
/// autograd-core --lib tanhf -- --ignored --nocapture`. Only in optimized builds: `cargo xtask
/// mutants` runs the ignored tests of a debug build for every mutant, where this would take
/// many minutes.
#[cfg(not(debug_assertions))]
#[test]
#[ignore = "exhaustive: every positive f32, run in release"]
fn within_its_bound_everywhere() {
    let (e, at, not_nearest) = worst(TINY, SATURATED + 65_536, 1);
    std::println!(
        "worst {e:.4} units at {:e}; {not_nearest} of {} not the nearest f32",
        f32::from_bits(at),
        SATURATED + 65_536 - TINY
    );
    assert!(e < WORST);
    for (from, to) in [(1, TINY), (SATURATED, 0x7f80_0000)] {
        let (e, at, not_nearest) = worst(from, to, 97);
        assert!(
            e <= 0.5 && not_nearest == 0,
            "{e} at {}",
            f32::from_bits(at)
        );
    }
    let (e, at, not_nearest) = worst_of(libm::tanhf, TINY, SATURATED + 65_536, 1);
    std::println!(
        "libm's tanhf: worst {e:.4} units at {:e}; {not_nearest} not the nearest f32",
        f32::from_bits(at)
    );
    let mut previous = 0.0;
    for bits in 0..0x7f80_0001 {
        let t = tanhf(f32::from_bits(bits));
        assert!(t >= previous, "not monotone at {}", f32::from_bits(bits));
        previous = t;
    }
}
