//! The training loop, [`Trainer::train`]: what a run is asked ([`TrainConfig`]) and what it
//! reports ([`Progress`] each step, an [`Outcome`] at the end, and why it stopped: [`Stop`]).

use core::ops::ControlFlow;

use autograd_core::Scalar;

use super::Trainer;
use crate::data::Sample;
use crate::loss::Loss;
use crate::objective::Objective;
use crate::{NnError, Optimizer, Rng, MAX_WIDTH};

/// When to stop, and how to batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainConfig {
    /// At most this many updates.
    pub max_steps: usize,
    /// `None`: every step uses the whole data set (no shuffling). `Some(b)`: each step uses the
    /// next `b` samples of the data set, which is shuffled in place at the start of every epoch
    /// (a final remainder shorter than `b` is skipped).
    pub batch_size: Option<usize>,
    /// Stop, before updating, once a step's batch accuracy reaches this (e.g. `Some(1.0)`).
    pub target_accuracy: Option<f64>,
    /// Stop, before updating, once a step's batch loss is at or below this.
    pub target_loss: Option<f64>,
    /// Seed of the mini-batch shuffling.
    pub seed: u64,
}

impl TrainConfig {
    /// Full batch, `max_steps` updates, no target.
    ///
    /// ```
    /// use autograd_nn::TrainConfig;
    /// let c = TrainConfig::steps(500);
    /// assert_eq!((c.max_steps, c.batch_size, c.seed), (500, None, 0));
    /// assert_eq!((c.target_accuracy, c.target_loss), (None, None));
    /// // The other fields by struct update:
    /// let mini = TrainConfig { batch_size: Some(16), seed: 7, ..TrainConfig::steps(500) };
    /// assert_eq!((mini.max_steps, mini.batch_size), (500, Some(16)));
    /// ```
    pub const fn steps(max_steps: usize) -> Self {
        TrainConfig {
            max_steps,
            batch_size: None,
            target_accuracy: None,
            target_loss: None,
            seed: 0,
        }
    }
}

/// What the trainer reports after computing each step's gradient (before updating).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Step number, from 0.
    pub step: usize,
    /// The batch's loss at the current parameters.
    pub loss: f64,
    /// The batch's accuracy at the current parameters, in `[0, 1]`; `None` when the loss does
    /// not classify (a squared error against real-valued targets).
    pub accuracy: Option<f64>,
    /// The learning rate this step's update uses.
    pub learning_rate: f64,
}

/// Why training stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A step reached [`TrainConfig::target_accuracy`]; the parameters are those it measured.
    TargetAccuracy,
    /// A step reached [`TrainConfig::target_loss`]; the parameters are those it measured.
    TargetLoss,
    /// [`TrainConfig::max_steps`] updates were made.
    StepBudget,
    /// The callback returned `ControlFlow::Break`.
    Callback,
}

/// The end of a training run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Updates made.
    pub updates: usize,
    /// Why it stopped.
    pub stop: Stop,
    /// The last report (`None` if `max_steps` was 0).
    pub last: Option<Progress>,
}

impl<S: Scalar, const P: usize> Trainer<'_, S, P> {
    /// Trains `params` in place: each step computes the gradient and the batch's loss and
    /// accuracy, reports them to `on_step`, then stops if a target is reached (before updating,
    /// so `params` are the ones that reached it) or if `on_step` broke, and otherwise updates
    /// with `optimizer`. `data` is shuffled in place when mini-batching.
    ///
    /// Training never goes on with values that are not finite: a NaN or infinite learning rate,
    /// loss, gradient or updated parameter stops it with [`NnError::NotFinite`] naming the step
    /// (the parameters are then those the step started from, except after a bad update, when
    /// they are the update's result). Bad data and labels are rejected before the first step.
    ///
    /// # Errors
    /// As [`gradient`](Self::gradient) (including [`NnError::NonFiniteInput`] and
    /// [`NnError::BadLabel`] for the whole data set, checked first); [`NnError::BadBatchSize`];
    /// [`NnError::NotFinite`]; [`NnError::NoAccuracy`] for a target accuracy the loss cannot
    /// measure.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use autograd_core::Tape;
    /// use autograd_nn::{data::Sample, Activation, LearningRate, Mlp, Objective, Sgd, SquaredError,
    ///                   Stop, TrainConfig, Trainer};
    /// // Fit y = 2x - 1 at x = -1, 0, 1 with a line w x + b, from w = b = 0: 20 steps of lr 0.1.
    /// let line = Mlp::new([1, 1], Activation::Linear, Activation::Linear);
    /// let objective = Objective::new(line, SquaredError);
    /// let mut data = [-1.0, 0.0, 1.0].map(|x| Sample { x: [x], y: 2.0 * x - 1.0 });
    /// let (mut params, mut sgd) = ([0.0_f64; 2], Sgd::new(LearningRate::Constant(0.1)));
    /// let mut tape = Tape::<f64, 64>::new();
    /// let mut trainer = Trainer::new(&mut tape, &params)?;
    /// let config = TrainConfig::steps(20);
    /// let outcome = trainer.train(&objective, &mut params, &mut data, &mut sgd, &config, |p| {
    ///     // At w = b = 0 the loss is the mean of (-3)^2, (-1)^2 and 1^2.
    ///     assert!(p.step > 0 || (p.loss - 11.0 / 3.0).abs() < 1e-15);
    ///     ControlFlow::Continue(())
    /// })?;
    /// assert_eq!((outcome.updates, outcome.stop), (20, Stop::StepBudget));
    /// // The gradient is (4/3 (w - 2), 2 (b + 1)) (mean x = 0, mean x^2 = 2/3): each step
    /// // multiplies w - 2 by 1 - 0.1 (4/3) = 13/15 and b + 1 by 1 - 0.1 (2) = 0.8, so after 20
    /// // steps w = 2 - 2 (13/15)^20 and b = -1 + 0.8^20.
    /// assert!((params[0] - (2.0 - 2.0 * (13.0 / 15.0_f64).powi(20))).abs() < 1e-12);
    /// assert!((params[1] - (0.8_f64.powi(20) - 1.0)).abs() < 1e-12);
    /// # Ok::<(), autograd_nn::NnError>(())
    /// ```
    // Inlined into its caller, where the `TrainConfig` is usually a constant: the paths it does
    // not take (mini-batches, shuffling) then fold away. Out of line, on the soft-float parts,
    // they stayed, and the minimal firmware's flash grew by 10 KB (about 40 %) on the M0 and M3
    // at 9987a96 (bisected; `cargo xtask firmware` prints the sizes).
    #[inline(always)]
    pub fn train<L, O, const D: usize, const I: usize>(
        &mut self,
        objective: &Objective<L, D>,
        params: &mut [S; P],
        data: &mut [Sample<I>],
        optimizer: &mut O,
        config: &TrainConfig,
        mut on_step: impl FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<Outcome, NnError>
    where
        L: Loss,
        O: Optimizer<S, P>,
    {
        // Everything a step could trip over, before the first one.
        objective.check(P, data)?;
        if config.target_accuracy.is_some() {
            let outputs = [0.0; MAX_WIDTH];
            let classifies = data.iter().all(|s| {
                objective
                    .loss
                    .is_correct(&outputs[..objective.model.outputs()], s.y)
                    .is_some()
            });
            if !classifies {
                return Err(NnError::NoAccuracy);
            }
        }
        let not_finite = |step, what| Err(NnError::NotFinite { step, what });
        if params.iter().any(|p| !p.is_finite()) {
            return not_finite(0, "initial parameter");
        }
        let mut rng = Rng::new(config.seed);
        let mut cursor = 0;
        if let Some(b) = config.batch_size {
            if b == 0 || b > data.len() {
                return Err(NnError::BadBatchSize {
                    size: b,
                    samples: data.len(),
                });
            }
            rng.shuffle(data);
        }
        let mut last = None;
        for step in 0..config.max_steps {
            let batch = match config.batch_size {
                None => &data[..],
                Some(b) => {
                    if cursor + b > data.len() {
                        rng.shuffle(data);
                        cursor = 0;
                    }
                    cursor += b;
                    &data[cursor - b..cursor]
                }
            };
            let stats = self.gradient(objective, params, batch)?;
            if !stats.loss.is_finite() {
                return not_finite(step, "loss");
            }
            if self.grads.iter().any(|g| !g.is_finite()) {
                return not_finite(step, "gradient");
            }
            if !optimizer.learning_rate().is_finite() {
                return not_finite(step, "learning rate");
            }
            let progress = Progress {
                step,
                loss: stats.loss,
                accuracy: stats.accuracy(),
                learning_rate: optimizer.learning_rate(),
            };
            last = Some(progress);
            let flow = on_step(&progress);
            let stop = if config
                .target_accuracy
                .is_some_and(|t| progress.accuracy.is_some_and(|a| a >= t))
            {
                Some(Stop::TargetAccuracy)
            } else if config.target_loss.is_some_and(|t| progress.loss <= t) {
                Some(Stop::TargetLoss)
            } else if flow.is_break() {
                Some(Stop::Callback)
            } else {
                None
            };
            if let Some(stop) = stop {
                return Ok(Outcome {
                    updates: step,
                    stop,
                    last,
                });
            }
            optimizer.step(params, &self.grads);
            if params.iter().any(|p| !p.is_finite()) {
                return not_finite(step, "updated parameter");
            }
        }
        Ok(Outcome {
            updates: config.max_steps,
            stop: Stop::StepBudget,
            last,
        })
    }
}
