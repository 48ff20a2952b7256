//! The moons training step through `autograd-nn` (its `Mlp`, `Hinge` loss with L2 and
//! `Trainer`), the way a user of the library writes it: the same network, data and loss as
//! [`crate::moons`].

use autograd_core::TapeView;
use autograd_nn::data::Sample;
use autograd_nn::{Activation, Hinge, Mlp, NnError, Objective, Optimizer, Trainer};

use crate::moons::{Moons, ALPHA, PARAMS, SAMPLES};

/// micrograd's network as an `autograd-nn` model.
pub const MODEL: Mlp<4> = Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear);

/// The objective: mean hinge loss `relu(1 - y score)` plus `ALPHA * sum p^2`.
pub fn objective() -> Objective<Hinge, 4> {
    Objective::new(MODEL, Hinge).with_l2(ALPHA)
}

/// The data set as `autograd-nn` samples (labels -1/+1 unchanged).
pub fn samples(moons: &Moons) -> [Sample<2>; SAMPLES] {
    let mut out = [Sample {
        x: [0.0; 2],
        y: 0.0,
    }; SAMPLES];
    for ((s, x), y) in out.iter_mut().zip(&moons.x).zip(&moons.y) {
        *s = Sample { x: *x, y: *y };
    }
    out
}

/// One full-batch step: the gradient by [`Trainer::gradient`], then `optimizer`. Returns the
/// loss before the step.
///
/// # Errors
/// As [`Trainer::gradient`].
pub fn step<O: Optimizer<f64, PARAMS>>(
    trainer: &mut Trainer<'_, f64, PARAMS>,
    objective: &Objective<Hinge, 4>,
    params: &mut [f64; PARAMS],
    batch: &[Sample<2>],
    optimizer: &mut O,
) -> Result<f64, NnError> {
    let stats = trainer.gradient(objective, params, batch)?;
    let grads = *trainer.grads();
    optimizer.step(params, &grads);
    Ok(stats.loss)
}

/// A trainer on `tape` for parameters `params`.
///
/// # Errors
/// If the tape cannot hold the parameters.
pub fn trainer<'t>(
    tape: &'t mut TapeView<f64>,
    params: &[f64; PARAMS],
) -> Result<Trainer<'t, f64, PARAMS>, NnError> {
    Trainer::new(tape, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moons::{data, hand_loss_gradient, init_params};

    #[test]
    fn the_nn_trainer_computes_the_hand_written_gradient() {
        let moons = data();
        let p: [f64; PARAMS] = init_params(4).try_into().unwrap();
        let mut hand = [0.0; PARAMS];
        let l_hand = hand_loss_gradient(&p, &moons.x, &moons.y, &mut hand);
        let mut tape = crate::tape_f64();
        let mut t = trainer(&mut tape, &p).unwrap();
        let stats = t.gradient(&objective(), &p, &samples(&moons)).unwrap();
        assert!(
            (stats.loss - l_hand).abs() < 1e-12,
            "{} vs {l_hand}",
            stats.loss
        );
        for (a, b) in t.grads().iter().zip(&hand) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }
}
