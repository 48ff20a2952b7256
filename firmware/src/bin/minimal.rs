//! The smallest useful embedding, shown in the README: train the seed lesson's XOR network on
//! the device with autograd-nn and report success through the exit code only (no formatting
//! code is linked, so the size reported by `cargo xtask firmware` is the library's footprint).
#![no_std]
#![no_main]

use core::ops::ControlFlow;

use autograd_core::Tape;
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
    // 256 slots of 12 bytes (3 KiB), placed in .bss instead of on the stack.
    let Some(tape) = cortex_m::singleton!(: Tape<f32, 256> = Tape::new()) else {
        fail()
    };
    let mut params = [0.0_f32; XOR.param_count()];
    let objective = Objective::new(XOR, SquaredError).with_reduction(Reduction::Sum);
    let mut sgd = Sgd::new(LearningRate::Constant(0.05));
    let config = TrainConfig {
        target_accuracy: Some(1.0), // stop once every sign is right
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
