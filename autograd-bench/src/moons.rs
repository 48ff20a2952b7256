//! micrograd's demo: a `[2, 16, 16, 1]` ReLU MLP (337 parameters) trained on 100 "moons" points
//! with a max-margin loss plus L2 regularisation, one full-batch SGD step at a time.
//!
//! The network is written once against [`Number`] ([`loss`]); [`hand_loss_gradient`] is the same
//! network's backprop written out by hand in plain Rust (the practical limit), and
//! [`crate::rc_graph`] builds it as micrograd does.

use autograd_core::{Number, Scalar, TapeError, TapeView, Var};

/// Layer widths, input first.
pub const SIZES: [usize; 4] = [2, HIDDEN, HIDDEN, 1];
/// Width of both hidden layers.
pub const HIDDEN: usize = 16;
/// Number of parameters: each neuron has its weights then its bias (micrograd's order).
pub const PARAMS: usize = (2 + 1) * HIDDEN + (HIDDEN + 1) * HIDDEN + (HIDDEN + 1);
/// Number of training points.
pub const SAMPLES: usize = 100;
/// Weight of the L2 term, as micrograd's demo.
pub const ALPHA: f64 = 1e-4;

/// A labelled data set: points and labels in {-1, +1}.
#[derive(Clone, Debug)]
pub struct Moons {
    /// The points.
    pub x: Vec<[f64; 2]>,
    /// Their labels, -1 or +1.
    pub y: Vec<f64>,
}

/// A small deterministic generator (SplitMix64), so every run trains on the same data.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.uniform();
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (core::f64::consts::TAU * v).cos()
    }
}

/// scikit-learn's `make_moons(n, noise)`: two interleaved half circles, labels -1 and +1.
pub fn make_moons(n: usize, noise: f64, seed: u64) -> Moons {
    let mut rng = Rng::new(seed);
    let upper = n / 2;
    let lower = n - upper;
    let mut x = Vec::with_capacity(n);
    let mut y = Vec::with_capacity(n);
    for i in 0..upper {
        let t = core::f64::consts::PI * i as f64 / (upper.max(2) - 1) as f64;
        x.push([t.cos(), t.sin()]);
        y.push(-1.0);
    }
    for i in 0..lower {
        let t = core::f64::consts::PI * i as f64 / (lower.max(2) - 1) as f64;
        x.push([1.0 - t.cos(), 1.0 - t.sin() - 0.5]);
        y.push(1.0);
    }
    for p in &mut x {
        p[0] += noise * rng.normal();
        p[1] += noise * rng.normal();
    }
    Moons { x, y }
}

/// The benchmark's data: 100 points, noise 0.1.
pub fn data() -> Moons {
    make_moons(SAMPLES, 0.1, 1)
}

/// Initial parameters: weights uniform in `[-1, 1)`, biases 0 (micrograd's `Neuron`).
pub fn init_params(seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let mut p = Vec::with_capacity(PARAMS);
    for l in 0..3 {
        let (nin, nout) = (SIZES[l], SIZES[l + 1]);
        for _ in 0..nout {
            for _ in 0..nin {
                p.push(2.0 * rng.uniform() - 1.0);
            }
            p.push(0.0);
        }
    }
    p
}

/// One neuron's pre-activation `b + sum_i w_i x_i`, summed in micrograd's order
/// (`Number::affine`: one statement on a tape); `p` holds the weights then the bias.
#[inline(always)]
fn neuron<T: Number>(p: &[T], x: &[T]) -> T {
    T::affine(&p[..x.len()], x, p[x.len()])
}

/// The network's score for one point (ReLU hidden layers, linear output; `Number::affine_layer`
/// per hidden layer: one statement each on a tape).
#[inline]
pub fn mlp<T: Number>(p: &[T], x: [T; 2]) -> T {
    const L2: usize = 3 * HIDDEN;
    const L3: usize = L2 + (HIDDEN + 1) * HIDDEN;
    let relu = |h: &mut [T; HIDDEN]| h.iter_mut().for_each(|v| *v = v.relu());
    let mut h1 = [T::zero(); HIDDEN];
    T::affine_layer(&p[..L2], &x, &mut h1);
    relu(&mut h1);
    let mut h2 = [T::zero(); HIDDEN];
    T::affine_layer(&p[L2..L3], &h1, &mut h2);
    relu(&mut h2);
    neuron(&p[L3..L3 + HIDDEN + 1], &h2)
}

/// micrograd's loss: mean of `relu(1 - y score)` plus `ALPHA * sum p^2`.
#[inline]
pub fn loss<T: Number>(p: &[T], inputs: &[[T; 2]], labels: &[f64]) -> T {
    let mut data = T::zero();
    for (x, y) in inputs.iter().zip(labels) {
        let score = mlp(p, *x);
        data += (T::one() + T::from_f64(-y) * score).relu();
    }
    data *= T::from_f64(1.0 / inputs.len() as f64);
    // sum p_i^2, summed from 0 in order (`Number::dot`: one statement on a tape).
    let reg = T::dot(p, p);
    data + T::from_f64(ALPHA) * reg
}

/// The loss as a function of the parameters alone (the points enter as constants), for the
/// core's gradient drivers: forward mode differentiates it in 337 dual passes.
#[derive(Clone, Copy, Debug)]
pub struct MoonsLoss<'a>(pub &'a Moons);

impl autograd_core::Function for MoonsLoss<'_> {
    #[inline]
    fn eval<T: Number>(&self, p: &[T]) -> T {
        let mut inputs = [[T::zero(); 2]; SAMPLES];
        let n = self.0.x.len().min(SAMPLES);
        for (v, x) in inputs.iter_mut().zip(&self.0.x) {
            *v = [T::from_f64(x[0]), T::from_f64(x[1])];
        }
        loss(p, &inputs[..n], &self.0.y[..n])
    }
}

/// The loss on plain numbers.
pub fn plain_loss(p: &[f64], moons: &Moons) -> f64 {
    loss(p, &moons.x, &moons.y)
}

/// Reverse mode on a tape: records the parameters as leaves and the loss (the points enter as
/// constants: nothing asks for their gradient, and the hand-written backprop computes none),
/// sweeps back, writes the gradient and returns the loss.
///
/// # Errors
/// The tape's error if it is too small (about 25,000 slots at the benchmark's parameters); a
/// length mismatch if `p` or `grad` do not have [`PARAMS`] entries.
pub fn tape_loss_gradient(
    tape: &mut TapeView<f64>,
    p: &[f64],
    moons: &Moons,
    grad: &mut [f64],
) -> Result<f64, TapeError> {
    if p.len() != PARAMS {
        return Err(TapeError::LengthMismatch {
            what: "parameters",
            expected: PARAMS,
            found: p.len(),
        });
    }
    tape.clear();
    let tape: &TapeView<f64> = tape;
    let mut params = [Var::constant(0.0); PARAMS];
    for (v, &w) in params.iter_mut().zip(p) {
        *v = tape.var(w);
    }
    let mut inputs = [[Var::constant(0.0); 2]; SAMPLES];
    let n = moons.x.len().min(SAMPLES);
    for (v, x) in inputs.iter_mut().zip(&moons.x) {
        *v = [Var::constant(x[0]), Var::constant(x[1])];
    }
    let l = loss(&params, &inputs[..n], &moons.y[..n]);
    tape.backward(l)?.write_to(&params, grad)?;
    Ok(l.value())
}

/// The same network's loss and gradient by hand-written backprop in plain Rust (the practical
/// limit for this network in scalar code). Writes the gradient into `grad` and returns the loss.
// Index loops read like the backprop equations (several arrays indexed by the same unit).
#[allow(clippy::needless_range_loop)]
pub fn hand_loss_gradient<S: Scalar>(
    p: &[S],
    inputs: &[[S; 2]],
    labels: &[f64],
    grad: &mut [S],
) -> S {
    const L2: usize = 3 * HIDDEN;
    const L3: usize = L2 + (HIDDEN + 1) * HIDDEN;
    grad.iter_mut().for_each(|g| *g = S::ZERO);
    let scale = S::from_f64(1.0 / inputs.len() as f64);
    let mut data = S::ZERO;
    for (x, &y) in inputs.iter().zip(labels) {
        // forward, keeping pre-activations
        let (mut z1, mut h1) = ([S::ZERO; HIDDEN], [S::ZERO; HIDDEN]);
        for j in 0..HIDDEN {
            let w = &p[3 * j..3 * j + 3];
            z1[j] = w[2] + w[0] * x[0] + w[1] * x[1];
            h1[j] = if z1[j] > S::ZERO { z1[j] } else { S::ZERO };
        }
        let (mut z2, mut h2) = ([S::ZERO; HIDDEN], [S::ZERO; HIDDEN]);
        for j in 0..HIDDEN {
            let w = &p[L2 + (HIDDEN + 1) * j..L2 + (HIDDEN + 1) * (j + 1)];
            let mut s = w[HIDDEN];
            for k in 0..HIDDEN {
                s += w[k] * h1[k];
            }
            z2[j] = s;
            h2[j] = if s > S::ZERO { s } else { S::ZERO };
        }
        let w3 = &p[L3..L3 + HIDDEN + 1];
        let mut score = w3[HIDDEN];
        for k in 0..HIDDEN {
            score += w3[k] * h2[k];
        }
        let margin = S::ONE - S::from_f64(y) * score;
        if margin <= S::ZERO {
            continue; // relu'(0) = 0: this point contributes nothing
        }
        data += margin;
        // backward
        let ds = -S::from_f64(y) * scale;
        let mut dz2 = [S::ZERO; HIDDEN];
        for k in 0..HIDDEN {
            grad[L3 + k] += ds * h2[k];
            dz2[k] = if z2[k] > S::ZERO { ds * w3[k] } else { S::ZERO };
        }
        grad[L3 + HIDDEN] += ds;
        let mut dh1 = [S::ZERO; HIDDEN];
        for j in 0..HIDDEN {
            let d = dz2[j];
            if d == S::ZERO {
                continue;
            }
            let base = L2 + (HIDDEN + 1) * j;
            for k in 0..HIDDEN {
                grad[base + k] += d * h1[k];
                dh1[k] += d * p[base + k];
            }
            grad[base + HIDDEN] += d;
        }
        for j in 0..HIDDEN {
            if z1[j] > S::ZERO {
                let d = dh1[j];
                grad[3 * j] += d * x[0];
                grad[3 * j + 1] += d * x[1];
                grad[3 * j + 2] += d;
            }
        }
    }
    let alpha = S::from_f64(ALPHA);
    let mut reg = S::ZERO;
    for (g, &w) in grad.iter_mut().zip(p) {
        reg += w * w;
        *g += S::from_f64(2.0) * alpha * w;
    }
    data * scale + alpha * reg
}

/// One SGD step `p -= lr * grad` (micrograd's update).
pub fn sgd_step(p: &mut [f64], grad: &[f64], lr: f64) {
    for (w, g) in p.iter_mut().zip(grad) {
        *w -= lr * g;
    }
}

/// Fraction of points the network classifies correctly (sign of the score).
pub fn accuracy(p: &[f64], moons: &Moons) -> f64 {
    let right = moons
        .x
        .iter()
        .zip(&moons.y)
        .filter(|(x, y)| (mlp(p, **x) > 0.0) == (**y > 0.0))
        .count();
    right as f64 / moons.x.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_has_micrograds_337_parameters() {
        assert_eq!(PARAMS, 337);
        assert_eq!(init_params(7).len(), PARAMS);
    }

    #[test]
    fn hand_written_backprop_matches_the_tape() {
        let moons = data();
        let p = init_params(3);
        let mut tape = crate::tape_f64();
        let (mut g_tape, mut g_hand) = (vec![0.0; PARAMS], vec![0.0; PARAMS]);
        let l_tape = tape_loss_gradient(&mut tape, &p, &moons, &mut g_tape).unwrap();
        let l_hand = hand_loss_gradient(&p, &moons.x, &moons.y, &mut g_hand);
        assert!((l_tape - l_hand).abs() < 1e-12, "{l_tape} vs {l_hand}");
        assert!((l_tape - plain_loss(&p, &moons)).abs() < 1e-12);
        assert!(
            g_tape.iter().any(|g| g.abs() > 1e-3),
            "a gradient that is not trivially zero"
        );
        for (i, (a, b)) in g_tape.iter().zip(&g_hand).enumerate() {
            assert!((a - b).abs() < 1e-12, "parameter {i}: tape {a} vs hand {b}");
        }
    }

    #[test]
    fn forward_mode_on_the_loss_agrees_with_hand_written_backprop() {
        use autograd_core::{gradient_forward_vec, Function};
        let moons = data();
        let few = Moons {
            x: moons.x[..10].to_vec(),
            y: moons.y[..10].to_vec(),
        };
        let p = init_params(2);
        let (mut fwd, mut hand) = (vec![0.0; PARAMS], vec![0.0; PARAMS]);
        let l = gradient_forward_vec::<8, _, _>(&MoonsLoss(&few), &p, &mut fwd).unwrap();
        let l_hand = hand_loss_gradient(&p, &few.x, &few.y, &mut hand);
        assert!((l - l_hand).abs() < 1e-12 && (l - MoonsLoss(&few).eval(&p)).abs() < 1e-12);
        for (a, b) in fwd.iter().zip(&hand) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    #[test]
    fn a_few_sgd_steps_lower_the_loss() {
        let moons = data();
        let mut p = init_params(3);
        let mut g = vec![0.0; PARAMS];
        let first = hand_loss_gradient(&p, &moons.x, &moons.y, &mut g);
        for k in 0..20 {
            hand_loss_gradient(&p, &moons.x, &moons.y, &mut g);
            sgd_step(&mut p, &g, 1.0 - 0.9 * k as f64 / 100.0);
        }
        let last = plain_loss(&p, &moons);
        assert!(last < 0.8 * first, "{first} -> {last}");
        assert!(accuracy(&p, &moons) > 0.75);
    }
}
