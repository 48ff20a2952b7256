//! "No allocation per step", checked: a counting global allocator sees no allocation on the
//! training thread while gradients are computed and parameters updated.

use std::ops::ControlFlow;

use autograd_core::Tape;
use autograd_nn::{
    data, Activation, Adam, Hinge, Init, LearningRate, Mlp, Objective, Rng, Sgd, TrainConfig,
    Trainer,
};

#[path = "../../autograd-core/tests/counting/mod.rs"]
mod counting;
use counting::allocations;

#[test]
fn training_steps_do_not_allocate() {
    const MODEL: Mlp<4> = Mlp::new([2, 8, 8, 1], Activation::Relu, Activation::Linear);
    const P: usize = MODEL.param_count();
    let objective = Objective::new(MODEL, Hinge).with_l2(1e-4);
    let mut data = data::moons::<30>(0.1, 2);
    let mut params = [0.0; P];
    MODEL
        .init(&mut params, Init::Uniform, &mut Rng::new(2))
        .unwrap();
    // Small enough to force several sweeps per step, so chunking is covered too.
    let mut tape = Tape::<f64, 1_000>::boxed();
    let mut trainer = Trainer::new(&mut *tape, &params).unwrap();
    let mut sgd = Sgd::new(LearningRate::Constant(0.1));
    let mut adam = Adam::new(LearningRate::Constant(0.01));
    let mini = TrainConfig {
        batch_size: Some(8),
        ..TrainConfig::steps(10)
    };

    let before = allocations();
    let mut steps = 0;
    trainer
        .train(
            &objective,
            &mut params,
            &mut data,
            &mut sgd,
            &TrainConfig::steps(10),
            |_| {
                steps += 1;
                ControlFlow::Continue(())
            },
        )
        .unwrap();
    let sweeps = trainer.sweeps();
    trainer
        .train(&objective, &mut params, &mut data, &mut adam, &mini, |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
    let after = allocations();

    assert_eq!(steps, 10);
    assert!(
        sweeps > 1,
        "expected a chunked gradient, got {sweeps} sweep"
    );
    assert_eq!(after - before, 0, "allocations during training");

    // The counter works: a Vec allocates.
    let v: Vec<u8> = Vec::with_capacity(16);
    assert!(allocations() > after);
    drop(v);
    let _ = Tape::<f32, 4>::new();
}
