//! The floor of a statement tape on Rosenbrock: what recording and sweeping one statement a term
//! costs when nothing else is done, to read the tape's figures against.
//!
//! [`Floor`] holds slots of the tape's layout (a value or partial, an adjoint and a 32-bit link:
//! 24 bytes in `f64`), and [`Floor::rosenbrock_gradient`] records Rosenbrock as the tape records
//! it with `stmt!`: the inputs as leaves, then each term `sum + 100 (b - a^2)^2 + (1 - a)^2` as one
//! statement of three operands (the previous sum, `a`, `b`) whose partials are derived by hand,
//! then one sweep `adj[operand] += adj[statement] * partial` down to the leaves. It has none of
//! what the tape promises: no handles (the term's partials are written, not carried), no test of
//! tapes or of finiteness, no error value (a full tape panics), no NaN provenance, no re-sweep;
//! only the slices' bounds checks. Whatever a tape adds to this is its own cost; what this costs
//! is the price of any statement tape in this layout (`examples/alternate` times the two by
//! turns).
//!
//! ```
//! use autograd_bench::floor::Floor;
//! use autograd_bench::{analytic, functions};
//!
//! let x = functions::point(10);
//! let mut floor = Floor::new(5 * x.len());
//! let (mut g, mut want) = ([0.0; 10], [0.0; 10]);
//! let y = floor.rosenbrock_gradient(&x, &mut g);
//! assert_eq!(y, functions::rosenbrock(&x));
//! analytic::rosenbrock_gradient(&x, &mut want);
//! for (g, w) in g.iter().zip(&want) {
//!     assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0));
//! }
//! ```

/// A slot: the value of a leaf or header, or an operand's partial (`x`); the adjoint; the link
/// (an operand's index, or a header's operand count with the top bit set).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    x: f64,
    adj: f64,
    link: u32,
}

/// A header's link: the top bit and the operand count.
const HEADER: u32 = 1 << 31;

/// A minimal statement tape of `f64` slots (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Floor {
    slots: Vec<Slot>,
    len: usize,
}

impl Floor {
    /// A tape of `capacity` slots (Rosenbrock in `n >= 2` inputs takes `5 n - 5`).
    pub fn new(capacity: usize) -> Self {
        Floor {
            slots: vec![Slot::default(); capacity],
            len: 0,
        }
    }

    /// Slot `len` and the `k` below it as one statement's place; panics where the tape is full.
    #[inline(always)]
    fn take(&mut self, k: usize) -> &mut [Slot] {
        let at = self.len;
        self.len += k;
        &mut self.slots[at..at + k]
    }

    /// Writes a statement of `operands` and its header (`value`); returns the header's index.
    #[inline(always)]
    fn statement<const K: usize>(&mut self, value: f64, operands: [Slot; K]) -> u32 {
        let s = self.take(K + 1);
        s[..K].copy_from_slice(&operands);
        s[K] = Slot {
            x: value,
            adj: 0.0,
            link: HEADER | K as u32,
        };
        (self.len - 1) as u32
    }

    /// Records `x` as leaves, then Rosenbrock one statement a term; returns the value and the
    /// statement's index (`None` for fewer than two inputs: no term).
    #[inline]
    pub fn record_rosenbrock(&mut self, x: &[f64]) -> (f64, Option<u32>) {
        self.len = 0;
        for (s, &v) in self.take(x.len()).iter_mut().zip(x) {
            *s = Slot {
                x: v,
                adj: 0.0,
                link: HEADER,
            };
        }
        let mut sum = 0.0;
        let mut top: Option<u32> = None;
        for (i, w) in x.windows(2).enumerate() {
            let (a, b) = (w[0], w[1]);
            let (d, e) = (b - a * a, 1.0 - a);
            sum = sum + 100.0 * (d * d) + e * e;
            let (da, db) = (-400.0 * d * a - 2.0 * e, 200.0 * d);
            let operand = |link: usize, x: f64| Slot {
                x,
                adj: 0.0,
                link: link as u32,
            };
            let (ia, ib) = (operand(i, da), operand(i + 1, db));
            top = Some(match top {
                // The first term: `0 + ...`, two operands.
                None => self.statement(sum, [ia, ib]),
                Some(prev) => self.statement(sum, [operand(prev as usize, 1.0), ia, ib]),
            });
        }
        (sum, top)
    }

    /// Rosenbrock's gradient at `x` into `g` (same length): [`record_rosenbrock`](
    /// Self::record_rosenbrock), then one sweep from the last statement down to the leaves.
    /// Returns the value.
    #[inline]
    pub fn rosenbrock_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        let (value, top) = self.record_rosenbrock(x);
        let leaves = x.len();
        let slots = &mut self.slots[..self.len];
        if let Some(top) = top {
            slots[top as usize].adj = 1.0;
        }
        let mut p = slots.len();
        while p > leaves {
            let h = p - 1;
            let count = (slots[h].link & !HEADER) as usize;
            let a = slots[h].adj;
            for k in h - count..h {
                let o = slots[k];
                slots[o.link as usize].adj += a * o.x;
            }
            p = h - count;
        }
        for (g, s) in g.iter_mut().zip(&slots[..leaves]) {
            *g = s.adj;
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analytic, functions};

    /// The floor's gradient is Rosenbrock's, by the hand-written gradient (another derivation of
    /// the partials, summed per input rather than swept), at every size the benchmarks use.
    #[test]
    fn gradient_matches_the_hand_written_one() {
        for n in [2, 3, 10, 100, 1000] {
            let x = functions::point(n);
            let mut floor = Floor::new(5 * n);
            let (mut g, mut want) = (vec![f64::NAN; n], vec![0.0; n]);
            let y = floor.rosenbrock_gradient(&x, &mut g);
            let expected = analytic::rosenbrock_gradient(&x, &mut want);
            assert_eq!(y, functions::rosenbrock(&x), "n = {n}");
            assert!((y - expected).abs() <= 1e-12 * expected.abs(), "n = {n}");
            for (i, (g, w)) in g.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    "n = {n}, i = {i}: {g} vs {w}"
                );
            }
            // Slots: n leaves, 3 for the first term, 4 for each other.
            assert_eq!(floor.len, 5 * n - 5, "n = {n}");
        }
    }

    /// Twice on one tape gives the same gradient (the adjoints are written 0 as slots are).
    #[test]
    fn a_second_gradient_is_the_same() {
        let x = functions::point(50);
        let mut floor = Floor::new(250);
        let (mut g1, mut g2) = (vec![0.0; 50], vec![0.0; 50]);
        floor.rosenbrock_gradient(&x, &mut g1);
        floor.rosenbrock_gradient(&x, &mut g2);
        assert_eq!(g1, g2);
    }

    /// One input: no term, the value 0 and a zero gradient.
    #[test]
    fn one_input_has_no_term() {
        let mut floor = Floor::new(4);
        let mut g = [f64::NAN];
        assert_eq!(floor.rosenbrock_gradient(&[0.3], &mut g), 0.0);
        assert_eq!(g, [0.0]);
    }
}
