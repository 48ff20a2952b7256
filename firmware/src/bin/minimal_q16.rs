//! `minimal.rs` in Q16.16 fixed point: the seed lesson's XOR network trained with autograd-nn on
//! `Tape<Q16, 256>`, success reported through the exit code only, so the size `cargo xtask
//! firmware` reports is the footprint of fixed-point training (for comparison with embedded
//! fixed-point libraries that train XOR without automatic differentiation).
#![no_std]
#![no_main]

use core::ops::ControlFlow;

use autograd_core::{Scalar, Tape, Q16};
use autograd_nn::{
    data, Activation, Init, LearningRate, Mlp, Objective, Reduction, Rng, Sgd, SquaredError, Stop,
    TrainConfig, Trainer,
};
use cortex_m_rt::entry;
use cortex_m_semihosting::debug;

/// MLP [2, 4, 1] with tanh units: 17 parameters.
const XOR: Mlp<3> = Mlp::new([2, 4, 1], Activation::Tanh, Activation::Tanh);

#[entry]
fn main() -> ! {
    // 256 slots of 12 bytes in .bss.
    let Some(tape) = cortex_m::singleton!(: Tape<Q16, 256> = Tape::new()) else {
        fail()
    };
    let mut params = [Q16::ZERO; XOR.param_count()];
    let objective = Objective::new(XOR, SquaredError).with_reduction(Reduction::Sum);
    let mut sgd = Sgd::new(LearningRate::Constant(0.05));
    let config = TrainConfig {
        target_accuracy: Some(1.0),
        ..TrainConfig::steps(2000)
    };
    let outcome = XOR
        .init(&mut params, Init::Uniform, &mut Rng::new(42))
        .and_then(|()| Trainer::new(tape, &params))
        .and_then(|mut trainer| {
            trainer.train(
                &objective,
                &mut params,
                &mut data::xor(),
                &mut sgd,
                &config,
                |_| ControlFlow::Continue(()),
            )
        });
    match outcome {
        Ok(o) if o.stop == Stop::TargetAccuracy => debug::exit(debug::EXIT_SUCCESS),
        _ => debug::exit(debug::EXIT_FAILURE),
    }
    fail()
}

fn fail() -> ! {
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::bkpt();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    fail()
}

#[cortex_m_rt::exception]
unsafe fn HardFault(_: &cortex_m_rt::ExceptionFrame) -> ! {
    fail()
}
