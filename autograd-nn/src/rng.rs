//! [`Rng`]: a small seeded random number generator, so that initialisation, data sets and
//! shuffling are reproducible on every target without `std` or a dependency.

use autograd_core::Number;

/// xoshiro256++ (Blackman and Vigna, 2019), seeded through SplitMix64.
///
/// Not cryptographic: a fast generator with a 2^256 - 1 period whose output for a seed is the
/// same on every platform, which is all initialisation and data generation need. Gaussian samples
/// come from the Box-Muller transform.
///
/// ```
/// use autograd_nn::Rng;
/// let mut a = Rng::new(42);
/// let mut b = Rng::new(42);
/// let x = a.uniform(-1.0, 1.0);
/// assert!((-1.0..1.0).contains(&x));
/// assert_eq!(x, b.uniform(-1.0, 1.0)); // same seed, same stream
/// ```
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
    /// The second value of the last Box-Muller pair, returned by the next `normal` call.
    spare_normal: Option<f64>,
}

/// One SplitMix64 step: expands a 64-bit seed into well-mixed state words.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator whose whole stream is determined by `seed`.
    ///
    /// ```
    /// use autograd_nn::Rng;
    /// let (mut a, mut b) = (Rng::new(7), Rng::new(7));
    /// // Same seed, same stream.
    /// assert_eq!([a.next_u64(), a.next_u64()], [b.next_u64(), b.next_u64()]);
    /// assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
    /// ```
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng {
            s,
            spare_normal: None,
        }
    }

    /// The next 64 random bits.
    ///
    /// ```
    /// let mut rng = autograd_nn::Rng::new(1);
    /// assert_ne!(rng.next_u64(), rng.next_u64()); // the stream moves on
    /// // Each bit is set with probability 1/2: 64 000 bits, about 32 000 ones (sd 126).
    /// let ones: u32 = (0..1000).map(|_| rng.next_u64().count_ones()).sum();
    /// assert!((31_000..33_000).contains(&ones), "{ones}");
    /// ```
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    ///
    /// ```
    /// let mut rng = autograd_nn::Rng::new(2);
    /// let xs: Vec<f64> = (0..10_000).map(|_| rng.next_f64()).collect();
    /// assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
    /// // Each value is k / 2^53 for an integer k.
    /// assert!(xs.iter().all(|x| (x * (1u64 << 53) as f64).fract() == 0.0));
    /// // Mean 1/2 (the sample mean's sd is 1 / sqrt(12 * 10 000) = 0.003).
    /// assert!((xs.iter().sum::<f64>() / 1e4 - 0.5).abs() < 0.015);
    /// ```
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`, as `lo + (hi - lo) u` for `u` of [`next_f64`](Self::next_f64):
    /// where that product rounds up, `hi` itself (for the largest `u`, one draw in 2^53).
    ///
    /// ```
    /// let mut rng = autograd_nn::Rng::new(3);
    /// let xs: Vec<f64> = (0..10_000).map(|_| rng.uniform(-2.0, 6.0)).collect();
    /// assert!(xs.iter().all(|x| (-2.0..6.0).contains(x)));
    /// // Mean (lo + hi) / 2 = 2 (the sample mean's sd is 8 / sqrt(12 * 10 000) = 0.023).
    /// assert!((xs.iter().sum::<f64>() / 1e4 - 2.0).abs() < 0.12);
    /// ```
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// Standard normal (mean 0, variance 1) by the Box-Muller transform; each pair of uniforms
    /// gives two samples.
    ///
    /// ```
    /// let mut rng = autograd_nn::Rng::new(7);
    /// let n = 20_000;
    /// let (mut sum, mut sq) = (0.0, 0.0);
    /// for _ in 0..n { let z = rng.normal(); sum += z; sq += z * z; }
    /// assert!((sum / n as f64).abs() < 0.03);
    /// assert!((sq / n as f64 - 1.0).abs() < 0.05);
    /// ```
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare_normal.take() {
            return z;
        }
        // u1 in (0, 1] so that ln(u1) is finite.
        let u1 = 1.0 - self.next_f64();
        let u2 = self.next_f64();
        let r = Number::sqrt(-2.0 * Number::ln(u1));
        let theta = 2.0 * core::f64::consts::PI * u2;
        self.spare_normal = Some(r * Number::sin(theta));
        r * Number::cos(theta)
    }

    /// Uniform integer in `0..n` (Lemire's multiply-and-reject, no modulo bias). `n = 0` gives 0.
    ///
    /// ```
    /// let mut rng = autograd_nn::Rng::new(4);
    /// let mut seen = [0usize; 6];
    /// for _ in 0..6000 {
    ///     seen[rng.below(6)] += 1; // always < 6, or the index panics
    /// }
    /// // Each value about 1000 times (sd 29).
    /// assert!(seen.iter().all(|c| (850..1150).contains(c)), "{seen:?}");
    /// assert_eq!((rng.below(1), rng.below(0)), (0, 0));
    /// ```
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let n = n as u64;
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as usize;
            }
        }
    }

    /// Shuffles a slice in place (Fisher-Yates): every permutation equally likely.
    ///
    /// ```
    /// let mut rng = autograd_nn::Rng::new(5);
    /// let mut xs = [0, 1, 2, 3, 4, 5, 6, 7];
    /// rng.shuffle(&mut xs);
    /// let mut sorted = xs;
    /// sorted.sort();
    /// assert_eq!(sorted, [0, 1, 2, 3, 4, 5, 6, 7]); // a permutation: nothing lost or repeated
    /// // Each element of [0, 1, 2] lands first in about a third of 3000 shuffles (sd 26).
    /// let mut first = [0usize; 3];
    /// for _ in 0..3000 { let mut ys = [0, 1, 2]; rng.shuffle(&mut ys); first[ys[0]] += 1; }
    /// assert!(first.iter().all(|c| (850..1150).contains(c)), "{first:?}");
    /// ```
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xoshiro256pp_matches_the_reference_stream() {
        // Reference: the C implementation seeded with s = {1, 2, 3, 4} gives these first outputs.
        let mut rng = Rng {
            s: [1, 2, 3, 4],
            spare_normal: None,
        };
        let first: [u64; 3] = [rng.next_u64(), rng.next_u64(), rng.next_u64()];
        assert_eq!(first, [41943041, 58720359, 3588806011781223]);
    }

    #[test]
    fn splitmix64_matches_the_reference_stream() {
        // Reference values of SplitMix64 seeded with 1234567 (from the C reference code).
        let mut s = 1234567u64;
        assert_eq!(splitmix64(&mut s), 6457827717110365317);
        assert_eq!(splitmix64(&mut s), 3203168211198807973);
    }

    #[test]
    fn below_is_in_range_and_hits_every_value() {
        let mut rng = Rng::new(3);
        let mut seen = [0usize; 7];
        for _ in 0..7000 {
            let k = rng.below(7);
            seen[k] += 1;
        }
        for c in seen {
            assert!((800..1200).contains(&c), "{seen:?}");
        }
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut rng = Rng::new(11);
        let mut xs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        rng.shuffle(&mut xs);
        assert_ne!(xs, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let mut sorted = xs;
        sorted.sort();
        assert_eq!(sorted, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
}
