//! `Tape::boxed` in an unoptimized build, which is where `Box::new(Tape::new())` fails: the
//! value is built on the stack and then moved. This test lives here because autograd-bench is
//! the workspace package whose tests `cargo test` builds without optimization (the core's and
//! autograd-nn's are optimized by `profile.dev.package`), as a user's debug build is; generic
//! `Tape::boxed::<_, N>` is compiled with the crate that calls it.

use autograd_core::{Tape, TapeError};

/// 24 MB of tape built and filled on a thread of 64 KiB of stack. Had the tape passed through
/// the stack, the thread would overflow it and abort this test process.
#[test]
fn a_million_slot_tape_never_touches_the_stack() {
    std::thread::Builder::new()
        .stack_size(64 << 10)
        .spawn(|| {
            const N: usize = 1_000_000;
            let tape = Tape::<f64, N>::boxed();
            assert_eq!((tape.len(), tape.capacity()), (0, N));
            // Fill every slot with a leaf, then ask for ten more.
            for i in 0..N + 10 {
                tape.var(i as f64);
            }
            assert_eq!(tape.len(), N);
            assert_eq!(
                tape.check(),
                Err(TapeError::CapacityExceeded {
                    capacity: N,
                    needed: N + 10
                })
            );
        })
        .unwrap()
        .join()
        .expect("the boxed tape was built and filled within 64 KiB of stack");
}
