//! Toy data sets, generated in-crate and determined by a seed: XOR, two moons, a spiral.

use autograd_core::Number;

use crate::Rng;

/// One training example: `I` input features and a target whose meaning the loss defines (a
/// value, a 0/1 or ±1 label, or a class index).
///
/// ```
/// use autograd_nn::data::Sample;
///
/// // y = x0 x1 at three points, for a regression loss.
/// let data = [[0.5, 2.0], [1.0, -1.0], [3.0, 0.0]].map(|x| Sample { x, y: x[0] * x[1] });
/// assert_eq!(data[1], Sample { x: [1.0, -1.0], y: -1.0 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<const I: usize> {
    /// Input features.
    pub x: [f64; I],
    /// Target.
    pub y: f64,
}

/// The four XOR points with the seed lesson's targets `-1` (equal inputs) and `1`.
///
/// ```
/// let data = autograd_nn::data::xor();
/// assert_eq!(data[1].x, [0.0, 1.0]);
/// assert_eq!(data[1].y, 1.0);
/// ```
pub const fn xor() -> [Sample<2>; 4] {
    [
        Sample {
            x: [0.0, 0.0],
            y: -1.0,
        },
        Sample {
            x: [0.0, 1.0],
            y: 1.0,
        },
        Sample {
            x: [1.0, 0.0],
            y: 1.0,
        },
        Sample {
            x: [1.0, 1.0],
            y: -1.0,
        },
    ]
}

/// Two interleaving half circles, scikit-learn's `make_moons` formula: `len / 2` points at
/// `(cos t, sin t)` (label 0) and the rest at `(1 - cos t, 0.5 - sin t)` (label 1), with `t`
/// evenly spaced over `[0, π]`, shuffled, then Gaussian noise of standard deviation `noise`
/// added to each coordinate.
///
/// ```
/// use autograd_nn::{data, Rng};
/// let mut points = [data::Sample { x: [0.0; 2], y: 0.0 }; 10];
/// data::fill_moons(&mut points, 0.0, &mut Rng::new(1));
/// // Without noise every point lies on its circle.
/// for p in &points {
///     let (cx, cy) = if p.y == 0.0 { (0.0, 0.0) } else { (1.0, 0.5) };
///     let r = ((p.x[0] - cx).powi(2) + (p.x[1] - cy).powi(2)).sqrt();
///     assert!((r - 1.0).abs() < 1e-12);
/// }
/// ```
pub fn fill_moons(out: &mut [Sample<2>], noise: f64, rng: &mut Rng) {
    let n_outer = out.len() / 2;
    let n_inner = out.len() - n_outer;
    let angle = |i: usize, n: usize| {
        if n > 1 {
            core::f64::consts::PI * i as f64 / (n - 1) as f64
        } else {
            0.0
        }
    };
    for (i, s) in out.iter_mut().enumerate() {
        let (x, y) = if i < n_outer {
            let t = angle(i, n_outer);
            ([Number::cos(t), Number::sin(t)], 0.0)
        } else {
            let t = angle(i - n_outer, n_inner);
            ([1.0 - Number::cos(t), 0.5 - Number::sin(t)], 1.0)
        };
        *s = Sample { x, y };
    }
    rng.shuffle(out);
    for s in out.iter_mut() {
        s.x[0] += noise * rng.normal();
        s.x[1] += noise * rng.normal();
    }
}

/// [`fill_moons`] into a new array, from a seed (micrograd's demo: `moons::<100>(0.1, seed)`).
///
/// ```
/// use autograd_nn::data;
/// let points = data::moons::<100>(0.1, 1337);
/// assert_eq!(points.iter().filter(|s| s.y == 1.0).count(), 50); // 100 / 2 on each moon
/// assert_eq!(points, data::moons::<100>(0.1, 1337)); // the seed determines the set
/// // Without noise the outer moon's points lie on the unit circle around the origin.
/// for s in data::moons::<10>(0.0, 1).iter().filter(|s| s.y == 0.0) {
///     assert!((s.x[0].hypot(s.x[1]) - 1.0).abs() < 1e-12);
/// }
/// ```
pub fn moons<const N: usize>(noise: f64, seed: u64) -> [Sample<2>; N] {
    let mut out = [Sample {
        x: [0.0; 2],
        y: 0.0,
    }; N];
    fill_moons(&mut out, noise, &mut Rng::new(seed));
    out
}

/// A spiral with `classes` arms (CS231n's toy set): the slice is split into `classes` equal
/// runs; the `i`-th of `n` points of arm `j` lies at radius `r = i / (n - 1)` and angle
/// `t = 4 (j + r) + noise * N(0, 1)`, at `(r sin t, r cos t)`, with label `j`. `classes = 0` is
/// taken as 1.
///
/// ```
/// use autograd_nn::{data, Rng};
/// let mut points = [data::Sample { x: [0.0; 2], y: 0.0 }; 300];
/// data::fill_spiral(&mut points, 3, 0.2, &mut Rng::new(7));
/// assert_eq!(points.iter().filter(|s| s.y == 2.0).count(), 100);
/// // The radius runs from 0 to 1 along each arm; the noise only turns the angle.
/// assert!(points.iter().all(|s| s.x[0].hypot(s.x[1]) <= 1.0 + 1e-12));
/// assert_eq!(points[0].x, [0.0, 0.0]); // the first arm's first point, r = 0
/// assert!((points[99].x[0].hypot(points[99].x[1]) - 1.0).abs() < 1e-12); // its last, r = 1
/// ```
pub fn fill_spiral(out: &mut [Sample<2>], classes: usize, noise: f64, rng: &mut Rng) {
    let classes = classes.max(1);
    let len = out.len();
    for j in 0..classes {
        let (start, end) = (j * len / classes, (j + 1) * len / classes);
        let n = end - start;
        for (i, s) in out[start..end].iter_mut().enumerate() {
            let r = if n > 1 {
                i as f64 / (n - 1) as f64
            } else {
                0.0
            };
            let t = 4.0 * (j as f64 + r) + noise * rng.normal();
            *s = Sample {
                x: [r * Number::sin(t), r * Number::cos(t)],
                y: j as f64,
            };
        }
    }
}

/// [`fill_spiral`] into a new array, from a seed.
///
/// ```
/// let d = autograd_nn::data::spiral::<30>(3, 0.0, 1);
/// // Three arms of 10: arm 1 starts at the origin (r = 0); without noise, arm 2 ends at
/// // r = 1, t = 4 (2 + 1) = 12, the point (sin 12, cos 12).
/// assert_eq!((d[10].x, d[10].y), ([0.0, 0.0], 1.0));
/// assert_eq!(d[29].y, 2.0);
/// assert!((d[29].x[0] - 12f64.sin()).abs() < 1e-12);
/// assert!((d[29].x[1] - 12f64.cos()).abs() < 1e-12);
/// ```
pub fn spiral<const N: usize>(classes: usize, noise: f64, seed: u64) -> [Sample<2>; N] {
    let mut out = [Sample {
        x: [0.0; 2],
        y: 0.0,
    }; N];
    fill_spiral(&mut out, classes, noise, &mut Rng::new(seed));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moons_are_balanced_deterministic_and_noisy_as_asked() {
        let a = moons::<100>(0.1, 1337);
        let b = moons::<100>(0.1, 1337);
        assert_eq!(a, b);
        assert_ne!(a, moons::<100>(0.1, 1338));
        assert_eq!(a.iter().filter(|s| s.y == 1.0).count(), 50);
        // Distance to the own circle is |noise| on average ~ 0.1 * sqrt(pi/2) * ... ; check the
        // residuals' spread: each coordinate's noise has sd 0.1, so the radial residual's rms is
        // about 0.1.
        let rms = (a
            .iter()
            .map(|p| {
                let (cx, cy) = if p.y == 0.0 { (0.0, 0.0) } else { (1.0, 0.5) };
                let r = ((p.x[0] - cx).powi(2) + (p.x[1] - cy).powi(2)).sqrt();
                (r - 1.0).powi(2)
            })
            .sum::<f64>()
            / 100.0)
            .sqrt();
        assert!((0.07..0.13).contains(&rms), "{rms}");
    }

    #[test]
    fn spiral_arms_start_at_their_angles() {
        let d = spiral::<30>(3, 0.0, 1);
        // Last point of arm j: r = 1, t = 4 (j + 1).
        for j in 0..3 {
            let last = d[10 * j + 9];
            let t = 4.0 * (j as f64 + 1.0);
            assert!((last.x[0] - t.sin()).abs() < 1e-12 && (last.x[1] - t.cos()).abs() < 1e-12);
            assert_eq!(last.y, j as f64);
        }
        assert_eq!(d[0].x, [0.0, 0.0]);
    }
}
