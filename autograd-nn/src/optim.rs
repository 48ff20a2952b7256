//! Optimizers: update parameters in place from a gradient, keeping their state in arrays.
//!
//! Each optimizer counts its own steps (the step number drives the learning-rate schedule and
//! Adam's bias correction), so a training loop only calls [`Optimizer::step`].

use autograd_core::Scalar;

use crate::NnError;

/// The learning rate as a function of the step number `k` (0 for the first update).
///
/// ```
/// use autograd_nn::LearningRate;
/// // micrograd's moons schedule: 1.0 - 0.9 * k / 100
/// let lr = LearningRate::Linear { start: 1.0, end: 0.1, steps: 100 };
/// assert_eq!(lr.at(0), 1.0);
/// assert!((lr.at(50) - 0.55).abs() < 1e-15);
/// assert!((lr.at(99) - 0.109).abs() < 1e-15);
/// assert!((lr.at(500) - 0.1).abs() < 1e-15); // stays at `end` afterwards
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LearningRate {
    /// The same rate at every step.
    Constant(f64),
    /// From `start` at step 0 towards `end` at step `steps`, linearly; `end` from then on.
    Linear {
        /// Rate at step 0.
        start: f64,
        /// Rate at step `steps` and after.
        end: f64,
        /// Length of the ramp.
        steps: usize,
    },
    /// `initial * factor^(k / every)` (integer division): a step decay.
    Step {
        /// Rate at step 0.
        initial: f64,
        /// Multiplier applied every `every` steps.
        factor: f64,
        /// Steps between decays (0 is taken as 1).
        every: usize,
    },
}

impl LearningRate {
    /// The rate for step `k`.
    ///
    /// ```
    /// use autograd_nn::LearningRate;
    /// assert_eq!(LearningRate::Constant(0.05).at(1000), 0.05);
    /// // start + (end - start) k / steps: 0.5 - 0.5 k / 4 until step 4, then 0.
    /// let ramp = LearningRate::Linear { start: 0.5, end: 0.0, steps: 4 };
    /// assert_eq!([ramp.at(1), ramp.at(2), ramp.at(4), ramp.at(9)], [0.375, 0.25, 0.0, 0.0]);
    /// // initial * factor^(k / every), integer division: 1, 1, 0.5, then 0.5^3 at 35 / 10 = 3.
    /// let decay = LearningRate::Step { initial: 1.0, factor: 0.5, every: 10 };
    /// assert_eq!([decay.at(0), decay.at(9), decay.at(10), decay.at(35)], [1.0, 1.0, 0.5, 0.125]);
    /// ```
    pub fn at(&self, k: usize) -> f64 {
        match *self {
            LearningRate::Constant(lr) => lr,
            LearningRate::Linear { start, end, steps } => {
                if k >= steps {
                    end
                } else {
                    start + (end - start) * k as f64 / steps as f64
                }
            }
            LearningRate::Step {
                initial,
                factor,
                every,
            } => {
                let n = k / every.max(1);
                initial * autograd_core::Number::powi(factor, n.min(i32::MAX as usize) as i32)
            }
        }
    }
}

/// A [`LearningRate`] and the number of updates made along it: the state every optimizer
/// shares (the step number drives the schedule and Adam's bias correction).
///
/// ```
/// use autograd_nn::{LearningRate, Schedule};
/// let mut s = Schedule::new(LearningRate::Step { initial: 1.0, factor: 0.5, every: 2 });
/// assert_eq!([s.advance(), s.advance(), s.advance()], [1.0, 1.0, 0.5]);
/// assert_eq!((s.steps(), s.rate()), (3, 0.5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    lr: LearningRate,
    k: usize,
}

impl Schedule {
    /// At step 0 of `lr`.
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Schedule};
    /// let s = Schedule::new(LearningRate::Constant(0.1));
    /// assert_eq!((s.steps(), s.rate()), (0, 0.1));
    /// ```
    pub fn new(lr: LearningRate) -> Self {
        Schedule { lr, k: 0 }
    }

    /// The rate of the next update.
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Schedule};
    /// let mut s = Schedule::new(LearningRate::Linear { start: 1.0, end: 0.0, steps: 4 });
    /// assert_eq!(s.rate(), 1.0);
    /// s.advance();
    /// assert_eq!(s.rate(), 0.75); // step 1: 1 - 1 / 4
    /// assert_eq!(s.rate(), 0.75); // reading it does not advance
    /// ```
    pub fn rate(&self) -> f64 {
        self.lr.at(self.k)
    }

    /// Number of updates made so far.
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Schedule};
    /// let mut s = Schedule::new(LearningRate::Constant(0.1));
    /// for _ in 0..3 { s.advance(); }
    /// assert_eq!(s.steps(), 3);
    /// ```
    pub fn steps(&self) -> usize {
        self.k
    }

    /// The rate of this update; counts it.
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Schedule};
    /// let mut s = Schedule::new(LearningRate::Step { initial: 0.8, factor: 0.5, every: 1 });
    /// assert_eq!([s.advance(), s.advance(), s.advance()], [0.8, 0.4, 0.2]); // 0.8 * 0.5^k
    /// assert_eq!((s.steps(), s.rate()), (3, 0.1));
    /// ```
    pub fn advance(&mut self) -> f64 {
        let lr = self.rate();
        self.k += 1;
        lr
    }
}

/// Updates `P` parameters in place from their gradient.
pub trait Optimizer<S: Scalar, const P: usize> {
    /// One update: `params` move against `grads`; the step counter advances.
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Optimizer, Sgd};
    /// let mut sgd = Sgd::new(LearningRate::Constant(0.5));
    /// let mut p = [1.0_f32, 2.0];
    /// sgd.step(&mut p, &[2.0, -2.0]); // p - 0.5 g
    /// assert_eq!(p, [0.0, 3.0]);
    /// ```
    fn step(&mut self, params: &mut [S; P], grads: &[S; P]);

    /// The schedule and the updates made along it.
    ///
    /// ```
    /// use autograd_nn::{Adam, LearningRate, Optimizer};
    /// let halving = LearningRate::Step { initial: 0.1, factor: 0.5, every: 1 };
    /// let mut adam = Adam::<f64, 1>::new(halving);
    /// adam.step(&mut [0.0], &[1.0]);
    /// assert_eq!((adam.schedule().steps(), adam.schedule().rate()), (1, 0.05));
    /// ```
    fn schedule(&self) -> &Schedule;

    /// The learning rate the next [`step`](Self::step) will use.
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Momentum, Optimizer};
    /// let ramp = LearningRate::Linear { start: 1.0, end: 0.5, steps: 2 };
    /// let mut m = Momentum::<f64, 1>::new(ramp, 0.9)?;
    /// assert_eq!(m.learning_rate(), 1.0);
    /// m.step(&mut [0.0], &[0.0]);
    /// assert_eq!(m.learning_rate(), 0.75);
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    fn learning_rate(&self) -> f64 {
        self.schedule().rate()
    }

    /// Number of updates made so far.
    ///
    /// ```
    /// use autograd_nn::{Adam, LearningRate, Optimizer};
    /// let mut adam = Adam::<f32, 2>::new(LearningRate::Constant(0.01));
    /// adam.step(&mut [0.0; 2], &[1.0; 2]);
    /// adam.step(&mut [0.0; 2], &[1.0; 2]);
    /// assert_eq!(adam.steps(), 2);
    /// ```
    fn steps(&self) -> usize {
        self.schedule().steps()
    }
}

/// Plain gradient descent, `p -= lr(k) * g`: the seed lesson's and micrograd's update.
///
/// ```
/// use autograd_nn::{LearningRate, Optimizer, Sgd};
/// let mut sgd = Sgd::new(LearningRate::Constant(0.1));
/// let mut p = [1.0_f64, -2.0];
/// sgd.step(&mut p, &[0.5, -1.0]);
/// assert_eq!(p, [0.95, -1.9]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sgd {
    schedule: Schedule,
}

impl Sgd {
    /// Gradient descent with the given schedule.
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Optimizer, Sgd};
    /// // The rate halves after every step: 0.5, then 0.25.
    /// let mut sgd = Sgd::new(LearningRate::Step { initial: 0.5, factor: 0.5, every: 1 });
    /// let mut p = [1.0_f64, 1.0];
    /// sgd.step(&mut p, &[1.0, -2.0]); // p - 0.5 g = (0.5, 2)
    /// sgd.step(&mut p, &[1.0, -2.0]); // p - 0.25 g = (0.25, 2.5)
    /// assert_eq!(p, [0.25, 2.5]);
    /// ```
    pub fn new(lr: LearningRate) -> Self {
        Sgd {
            schedule: Schedule::new(lr),
        }
    }

    /// The learning rate the next step will use: [`Optimizer::learning_rate`], callable as a
    /// method (`Sgd` is an optimizer for every scalar and size, so the trait's method needs
    /// them named: `Optimizer::<f64, 2>::learning_rate(&sgd)`).
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Optimizer, Sgd};
    /// let mut sgd = Sgd::new(LearningRate::Linear { start: 1.0, end: 0.0, steps: 4 });
    /// assert_eq!(sgd.learning_rate(), 1.0);
    /// sgd.step(&mut [1.0_f64], &[1.0]);
    /// assert_eq!(sgd.learning_rate(), 0.75); // 1 - 1 / 4
    /// ```
    pub fn learning_rate(&self) -> f64 {
        self.schedule.rate()
    }

    /// Number of updates made so far: [`Optimizer::steps`], callable as a method (see
    /// [`learning_rate`](Self::learning_rate)).
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Optimizer, Sgd};
    /// let mut sgd = Sgd::new(LearningRate::Constant(0.1));
    /// let mut p = [1.0_f32, 2.0];
    /// for _ in 0..3 {
    ///     sgd.step(&mut p, &[0.0, 0.0]);
    /// }
    /// assert_eq!(sgd.steps(), 3);
    /// ```
    pub fn steps(&self) -> usize {
        self.schedule.steps()
    }
}

impl<S: Scalar, const P: usize> Optimizer<S, P> for Sgd {
    fn step(&mut self, params: &mut [S; P], grads: &[S; P]) {
        let lr = S::from_f64(self.schedule.advance());
        for (p, g) in params.iter_mut().zip(grads) {
            *p -= lr * *g;
        }
    }
    fn schedule(&self) -> &Schedule {
        &self.schedule
    }
}

/// Gradient descent with momentum, PyTorch's form: `v = mu * v + g; p -= lr(k) * v`
/// (`v` starts at 0), for `P` parameters.
///
/// ```
/// use autograd_nn::{LearningRate, Momentum, Optimizer};
/// let mut opt = Momentum::new(LearningRate::Constant(0.1), 0.9)?;
/// let mut p = [1.0_f64];
/// opt.step(&mut p, &[1.0]); // v = 1,   p = 1 - 0.1
/// opt.step(&mut p, &[1.0]); // v = 1.9, p = 0.9 - 0.19
/// assert!((p[0] - 0.71).abs() < 1e-15);
/// # Ok::<(), autograd_nn::NnError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Momentum<S, const P: usize> {
    schedule: Schedule,
    mu: S,
    velocity: [S; P],
}

impl<S: Scalar, const P: usize> Momentum<S, P> {
    /// Momentum `mu` (typically 0.9) with the given schedule; `mu` finite and not negative (as
    /// PyTorch's `SGD` asks).
    ///
    /// # Errors
    /// [`NnError::BadHyperparameter`] for any other `mu`.
    ///
    /// ```
    /// use autograd_nn::{LearningRate, Momentum, NnError, Optimizer};
    /// let mut opt = Momentum::new(LearningRate::Constant(0.5), 0.5)?;
    /// let mut p = [2.0_f64];
    /// opt.step(&mut p, &[1.0]); // v = 1, p = 2 - 0.5 * 1 = 1.5
    /// opt.step(&mut p, &[1.0]); // v = 0.5 * 1 + 1 = 1.5, p = 1.5 - 0.5 * 1.5
    /// assert_eq!(p, [0.75]);
    /// let bad = Momentum::<f64, 1>::new(LearningRate::Constant(0.5), -0.9);
    /// assert_eq!(bad, Err(NnError::BadHyperparameter { name: "mu", value: -0.9 }));
    /// # Ok::<(), NnError>(())
    /// ```
    pub fn new(lr: LearningRate, mu: f64) -> Result<Self, NnError> {
        in_range("mu", mu, non_negative(mu))?;
        Ok(Momentum {
            schedule: Schedule::new(lr),
            mu: S::from_f64(mu),
            velocity: [S::ZERO; P],
        })
    }
}

impl<S: Scalar, const P: usize> Optimizer<S, P> for Momentum<S, P> {
    fn step(&mut self, params: &mut [S; P], grads: &[S; P]) {
        let lr = S::from_f64(self.schedule.advance());
        for ((p, g), v) in params.iter_mut().zip(grads).zip(&mut self.velocity) {
            *v = self.mu * *v + *g;
            *p -= lr * *v;
        }
    }
    fn schedule(&self) -> &Schedule {
        &self.schedule
    }
}

/// Adam (Kingma and Ba, 2015) for `P` parameters:
/// `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g^2`,
/// `p -= lr(k) * m_hat / (sqrt(v_hat) + eps)` with `m_hat = m / (1 - b1^t)`,
/// `v_hat = v / (1 - b2^t)` and `t = k + 1`.
///
/// ```
/// use autograd_nn::{Adam, LearningRate, Optimizer};
/// let mut adam = Adam::new(LearningRate::Constant(0.01));
/// let mut p = [1.0_f64, 1.0];
/// adam.step(&mut p, &[4.0, -0.001]);
/// // The first step moves every parameter by about lr, whatever the gradient's size.
/// assert!((p[0] - (1.0 - 0.01)).abs() < 1e-9);
/// assert!((p[1] - (1.0 + 0.01)).abs() < 1e-7);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Adam<S, const P: usize> {
    schedule: Schedule,
    beta1: f64,
    beta2: f64,
    eps: f64,
    m: [S; P],
    v: [S; P],
}

impl<S: Scalar, const P: usize> Adam<S, P> {
    /// Adam with the usual constants `b1 = 0.9`, `b2 = 0.999`, `eps = 1e-8`.
    ///
    /// ```
    /// use autograd_nn::{Adam, LearningRate, Optimizer};
    /// let mut adam = Adam::new(LearningRate::Constant(0.1));
    /// let mut p = [0.0_f64, 0.0];
    /// adam.step(&mut p, &[-3.0, 0.5]);
    /// adam.step(&mut p, &[-3.0, 0.5]);
    /// // A constant gradient g gives m_hat = g and v_hat = g^2 at every step: each step moves a
    /// // parameter by lr g / (|g| + eps), about lr, against the gradient's sign.
    /// assert!((p[0] - 0.2).abs() < 1e-8 && (p[1] + 0.2).abs() < 1e-8);
    /// ```
    pub fn new(lr: LearningRate) -> Self {
        Self::unchecked(lr, 0.9, 0.999, 1e-8)
    }

    /// Adam with explicit constants: `beta1` and `beta2` in `[0, 1)` (a decay of 1 never
    /// forgets, and its bias correction `1 - beta^t` would divide by 0), `eps` finite and not
    /// negative.
    ///
    /// # Errors
    /// [`NnError::BadHyperparameter`] naming the first constant out of its range.
    ///
    /// ```
    /// use autograd_nn::{Adam, LearningRate, NnError, Optimizer};
    /// // b1 = b2 = 0, eps = 0: m = g, v = g^2 and no bias correction (1 - 0^t = 1), so each
    /// // step is lr g / |g|: sign descent.
    /// let mut adam = Adam::with_betas(LearningRate::Constant(0.25), 0.0, 0.0, 0.0)?;
    /// let mut p = [1.0_f64, 1.0];
    /// adam.step(&mut p, &[8.0, -0.5]);
    /// assert_eq!(p, [0.75, 1.25]);
    /// let err = Adam::<f64, 2>::with_betas(LearningRate::Constant(0.1), 1.0, 0.999, 1e-8);
    /// assert_eq!(err, Err(NnError::BadHyperparameter { name: "beta1", value: 1.0 }));
    /// let eps = Adam::<f64, 2>::with_betas(LearningRate::Constant(0.1), 0.9, 0.999, f64::NAN);
    /// assert!(eps.unwrap_err().to_string().starts_with("optimizer constant `eps` = NaN"));
    /// # Ok::<(), NnError>(())
    /// ```
    pub fn with_betas(lr: LearningRate, beta1: f64, beta2: f64, eps: f64) -> Result<Self, NnError> {
        in_range("beta1", beta1, (0.0..1.0).contains(&beta1))?;
        in_range("beta2", beta2, (0.0..1.0).contains(&beta2))?;
        in_range("eps", eps, non_negative(eps))?;
        Ok(Self::unchecked(lr, beta1, beta2, eps))
    }

    fn unchecked(lr: LearningRate, beta1: f64, beta2: f64, eps: f64) -> Self {
        Adam {
            schedule: Schedule::new(lr),
            beta1,
            beta2,
            eps,
            m: [S::ZERO; P],
            v: [S::ZERO; P],
        }
    }
}

impl<S: Scalar, const P: usize> Optimizer<S, P> for Adam<S, P> {
    fn step(&mut self, params: &mut [S; P], grads: &[S; P]) {
        use autograd_core::Number;
        let t = (self.schedule.steps() + 1).min(i32::MAX as usize) as i32;
        let lr = S::from_f64(self.schedule.advance());
        let (b1, b2) = (S::from_f64(self.beta1), S::from_f64(self.beta2));
        let c1 = S::from_f64(1.0 - Number::powi(self.beta1, t));
        let c2 = S::from_f64(1.0 - Number::powi(self.beta2, t));
        let eps = S::from_f64(self.eps);
        for (((p, g), m), v) in params
            .iter_mut()
            .zip(grads)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            *m = b1 * *m + (S::ONE - b1) * *g;
            *v = b2 * *v + (S::ONE - b2) * *g * *g;
            let m_hat = *m / c1;
            let v_hat = *v / c2;
            *p -= lr * m_hat / (v_hat.sqrt() + eps);
        }
    }
    fn schedule(&self) -> &Schedule {
        &self.schedule
    }
}

/// `Ok` if `ok`, else the optimizer's constant `name` is out of its range.
fn in_range(name: &'static str, value: f64, ok: bool) -> Result<(), NnError> {
    if ok {
        Ok(())
    } else {
        Err(NnError::BadHyperparameter { name, value })
    }
}

/// `true` for a finite value that is not negative.
fn non_negative(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}
