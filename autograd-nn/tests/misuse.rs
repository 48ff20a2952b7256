//! Training cannot silently go wrong: NaN learning rates, data and labels, divergence, an
//! accuracy that means nothing and out-of-range classes are errors that say what and where.

use std::ops::ControlFlow;

use autograd_core::Tape;
use autograd_nn::data::{self, Sample};
use autograd_nn::{
    Activation, Hinge, Init, LearningRate, Loss, Mlp, NnError, Objective, Rng, Sgd,
    SoftmaxCrossEntropy, SquaredError, TrainConfig, Trainer,
};

const MODEL: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);
/// The same shape with an unbounded output.
const LINEAR_OUT: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Linear);
const P: usize = MODEL.param_count();

fn params() -> [f64; P] {
    let mut p = [0.0; P];
    MODEL
        .init(&mut p, Init::Uniform, &mut Rng::new(42))
        .unwrap();
    p
}

/// Trains `model` with `lr` on `data` and the given loss; returns the error or the updates made.
fn train<L: Loss>(
    model: Mlp<3>,
    loss: L,
    lr: f64,
    data: &mut [Sample<2>],
    config: TrainConfig,
    params: &mut [f64; P],
) -> Result<usize, NnError> {
    let mut tape = Tape::<f64, 512>::new();
    let mut trainer = Trainer::new(&mut tape, params)?;
    let mut sgd = Sgd::new(LearningRate::Constant(lr));
    let objective = Objective::new(model, loss);
    let outcome = trainer.train(&objective, params, data, &mut sgd, &config, |_| {
        ControlFlow::Continue(())
    })?;
    Ok(outcome.updates)
}

#[test]
fn a_nan_learning_rate_stops_at_step_0_with_the_parameters_untouched() {
    let mut p = params();
    let config = TrainConfig {
        target_accuracy: Some(1.0),
        ..TrainConfig::steps(100)
    };
    let err = train(
        MODEL,
        SquaredError,
        f64::NAN,
        &mut data::xor(),
        config,
        &mut p,
    )
    .unwrap_err();
    assert_eq!(
        err,
        NnError::NotFinite {
            step: 0,
            what: "learning rate"
        }
    );
    assert!(err.to_string().contains("training step 0"), "{err}");
    assert_eq!(p, params());
}

#[test]
fn divergence_stops_at_the_step_that_produced_it() {
    // A learning rate of 1e300 sends the output weights to ~1e300 on the first update, and the
    // squared error of the next step overflows.
    let mut p = params();
    let err = train(
        LINEAR_OUT,
        SquaredError,
        1e300,
        &mut data::xor(),
        TrainConfig::steps(100),
        &mut p,
    )
    .unwrap_err();
    match err {
        NnError::NotFinite { step, what } => {
            assert!(step <= 2, "stopped late: step {step}");
            assert!(
                ["loss", "gradient", "updated parameter"].contains(&what),
                "{what}"
            );
        }
        e => panic!("expected NotFinite, got {e:?}"),
    }
}

#[test]
fn nan_data_and_labels_are_rejected_before_the_first_step() {
    let mut p = params();
    let mut data = data::xor();
    data[2].x[1] = f64::NAN;
    let err = train(
        MODEL,
        SquaredError,
        0.1,
        &mut data,
        TrainConfig::steps(5),
        &mut p,
    )
    .unwrap_err();
    assert_eq!(err, NnError::NonFiniteInput { sample: 2 });
    assert_eq!(p, params(), "nothing was trained");

    let mut data = data::xor();
    data[1].y = f64::NAN;
    let err = train(MODEL, Hinge, 0.1, &mut data, TrainConfig::steps(5), &mut p).unwrap_err();
    assert!(
        matches!(err, NnError::BadLabel { label, .. } if label.is_nan()),
        "{err:?}"
    );
    assert!(Hinge.sample(&[0.5_f64], f64::NAN).is_err());
}

#[test]
fn a_regression_has_no_accuracy_and_cannot_target_one() {
    // Targets 0.25 and 0.75 are values, not ±1 labels: sign agreement would mean nothing.
    let mut data: Vec<Sample<2>> = data::xor()
        .iter()
        .map(|s| Sample {
            x: s.x,
            y: if s.y > 0.0 { 0.75 } else { 0.25 },
        })
        .collect();
    let objective = Objective::new(MODEL, SquaredError);
    let stats = objective.stats(&params(), &data).unwrap();
    assert_eq!(stats.accuracy(), None);
    assert!(stats.loss.is_finite());
    let config = TrainConfig {
        target_accuracy: Some(0.9),
        ..TrainConfig::steps(10)
    };
    let mut p = params();
    let err = train(MODEL, SquaredError, 0.1, &mut data, config, &mut p).unwrap_err();
    assert_eq!(err, NnError::NoAccuracy);
    // Without a target accuracy it trains, and the loss goes down.
    let before = objective.stats(&p, &data).unwrap().loss;
    train(
        MODEL,
        SquaredError,
        0.05,
        &mut data,
        TrainConfig::steps(50),
        &mut p,
    )
    .unwrap();
    assert!(objective.stats(&p, &data).unwrap().loss < before);
    // XOR's ±1 labels still classify.
    let xor = objective.stats(&params(), &data::xor()).unwrap();
    assert!(xor.accuracy().is_some());
}

#[test]
fn a_class_out_of_range_is_an_error_not_a_panic() {
    let z = [1.0_f64, 2.0, 3.0];
    for bad in [3.0, -1.0, 0.5, f64::NAN, 1e30] {
        let err = SoftmaxCrossEntropy.sample(&z, bad).unwrap_err();
        assert!(
            matches!(err, NnError::BadLabel { classes: 3, .. }),
            "{bad}: {err:?}"
        );
    }
    assert!(SoftmaxCrossEntropy.sample(&z, 2.0).is_ok());
    let empty: [f64; 0] = [];
    assert!(SoftmaxCrossEntropy.sample(&empty, 0.0).is_err());
    // The unchecked form does not panic either.
    assert!(SoftmaxCrossEntropy.sample_unchecked(&z, 7.0).is_finite());
}
