//! Capacity fuzzing: an arbitrary program on a tape too small for it.
//!
//! The same program runs on a tape with room to spare (the reference) and on a small tape with a
//! mark taken part-way. Checks: nothing panics; if the program fits, the small tape's values and
//! gradients are bit-identical to the reference; if it does not, every value is still right, the
//! tape is full, and `check`, `backward`, `recorded` and `try_var` all report
//! `CapacityExceeded { capacity: N }` (never a gradient); after rewinding to the mark the
//! program can be continued with the same outcome, and after `clear` the longest prefix that
//! fits differentiates exactly like the reference.

#![no_main]

use arbitrary::Arbitrary;
use autograd_core::{NodeId, Scalar, Tape, TapeError, TapeView, Var};
use autograd_fuzz::{run_prefix, same, step, Program};
use libfuzzer_sys::fuzz_target;

const BIG: usize = 512;

#[derive(Arbitrary, Debug)]
struct Input {
    program: Program,
    capacity: u8,
    /// Number of instructions before the mark.
    mark_after: u8,
    f32: bool,
}

fuzz_target!(|input: Input| {
    let p = &input.program;
    let k = input.mark_after as usize % (p.instrs().len() + 1);
    match (input.f32, input.capacity % 8) {
        (false, 0) => check::<f64, 1>(p, k),
        (false, 1) => check::<f64, 2>(p, k),
        (false, 2) => check::<f64, 3>(p, k),
        (false, 3) => check::<f64, 5>(p, k),
        (false, 4) => check::<f64, 8>(p, k),
        (false, 5) => check::<f64, 17>(p, k),
        (false, 6) => check::<f64, 64>(p, k),
        (false, _) => check::<f64, 200>(p, k),
        (true, 0) => check::<f32, 1>(p, k),
        (true, 1) => check::<f32, 4>(p, k),
        (true, 2) => check::<f32, 9>(p, k),
        (true, _) => check::<f32, 33>(p, k),
    }
});

/// Values, gradients with respect to the inputs, and node count after each instruction of the
/// first `n` instructions, on a tape with room to spare.
struct Reference<S> {
    values: Vec<S>,
    grads: Vec<u64>,
    lens: Vec<usize>,
}

fn reference<S: Scalar>(p: &Program, n: usize) -> Reference<S> {
    let tape = Tape::<S, BIG>::new();
    let xs: Vec<Var<'_, S>> = p.input_values::<S>().iter().map(|&v| tape.var(v)).collect();
    let mut slots = xs.clone();
    let mut lens = vec![tape.len()];
    for instr in p.instrs().iter().take(n) {
        slots.push(step(&slots, instr));
        lens.push(tape.len());
    }
    tape.check().expect("the reference tape has room");
    let y = slots[p.output_slot(slots.len())];
    let grads = tape.backward(y).expect("recorded");
    Reference {
        values: slots.iter().map(|s| s.value()).collect(),
        grads: xs
            .iter()
            .map(|x| grads.wrt(*x).to_f64().to_bits())
            .collect(),
        lens,
    }
}

fn grads_of<S: Scalar>(tape: &TapeView<S>, y: Var<'_, S>, xs: &[Var<'_, S>]) -> Vec<u64> {
    let grads = tape.backward(y).expect("fits, so recorded");
    xs.iter()
        .map(|x| grads.wrt(*x).to_f64().to_bits())
        .collect()
}

fn check<S: Scalar, const N: usize>(p: &Program, k: usize) {
    let full = reference::<S>(p, usize::MAX);
    let needed = *full.lens.last().expect("at least the inputs");
    let fits = needed <= N;
    let overflow = TapeError::CapacityExceeded { capacity: N };

    let mut tape = Tape::<S, N>::new();
    let (mark, prefix_ids, input_ids) = {
        let xs: Vec<Var<'_, S>> = p.input_values::<S>().iter().map(|&v| tape.var(v)).collect();
        let mut slots = xs.clone();
        let mut mark = None;
        let mut prefix_ids = Vec::new();
        for (i, instr) in p.instrs().iter().enumerate() {
            if i == k {
                mark = Some(tape.mark());
                prefix_ids = slots.iter().map(|s| s.id()).collect();
            }
            slots.push(step(&slots, instr));
        }
        let mark = mark.unwrap_or_else(|| {
            prefix_ids = slots.iter().map(|s| s.id()).collect();
            tape.mark()
        });
        assert!(mark.len() <= N);
        let input_ids: Vec<Option<NodeId>> = xs.iter().map(|x| x.id()).collect();

        // Values stay right whether or not they were recorded.
        for (i, (s, &v)) in slots.iter().zip(&full.values).enumerate() {
            assert!(same(s.value(), v), "value of result {i}: {s:?} vs {v:?}");
            if let Some(id) = s.id() {
                let node = tape.node(id).expect("a recorded id exists");
                assert!(
                    same(node.value(), v),
                    "node {} holds a wrong value",
                    id.index()
                );
            }
        }
        let y = slots[p.output_slot(slots.len())];
        if fits {
            assert_eq!(tape.len(), needed);
            tape.check().expect("fits");
            assert_eq!(
                grads_of(&tape, y, &xs),
                full.grads,
                "gradients differ from the reference"
            );
        } else {
            assert_eq!(tape.len(), N, "an overflowing tape is full");
            assert_eq!(tape.check(), Err(overflow));
            assert_eq!(
                tape.backward(y).err(),
                Some(overflow),
                "backward after an overflow"
            );
            // `recorded` speaks for the value itself: Ok if it got a node before the tape filled.
            match y.id() {
                Some(_) => assert!(y.recorded().is_ok()),
                None => assert_eq!(y.recorded().err(), Some(overflow)),
            }
            assert_eq!(tape.try_var(S::ONE).err(), Some(overflow));
            assert_eq!(tape.len(), N);
        }
        (mark, prefix_ids, input_ids)
    };

    // Rewind to the mark and continue: the same outcome as the first run.
    tape.rewind(mark);
    assert_eq!(tape.len(), mark.len());
    assert_eq!(tape.check(), Ok(()), "a rewind clears the error");
    {
        let mut slots: Vec<Var<'_, S>> = prefix_ids
            .iter()
            .zip(&full.values)
            .map(|(id, &v)| match id {
                Some(id) => tape.get(*id).expect("below the mark"),
                // Not recorded before the mark: the tape was already full; the value is known.
                None => tape.var(v),
            })
            .collect();
        let xs: Vec<Var<'_, S>> = slots[..input_ids.len()].to_vec();
        for instr in p.instrs().iter().skip(k) {
            slots.push(step(&slots, instr));
        }
        for (i, (s, &v)) in slots.iter().zip(&full.values).enumerate() {
            assert!(same(s.value(), v), "value of result {i} after rewind");
        }
        let y = slots[p.output_slot(slots.len())];
        if fits {
            assert_eq!(tape.len(), needed);
            assert_eq!(
                grads_of(&tape, y, &xs),
                full.grads,
                "gradients after a rewind"
            );
        } else {
            assert_eq!(
                tape.backward(y).err(),
                Some(overflow),
                "backward after a rewind"
            );
        }
    }

    // Clear and run the longest prefix that fits: exactly the reference's gradients.
    tape.clear();
    assert_eq!((tape.len(), tape.check()), (0, Ok(())));
    let n_fit = full.lens.iter().take_while(|&&l| l <= N).count();
    if n_fit == 0 {
        return; // not even the inputs fit
    }
    let prefix = n_fit - 1;
    let expected = reference::<S>(p, prefix);
    let xs: Vec<Var<'_, S>> = p.input_values::<S>().iter().map(|&v| tape.var(v)).collect();
    let slots = run_prefix::<S, _>(p, &xs, prefix);
    tape.check().expect("the prefix fits");
    let y = slots[p.output_slot(slots.len())];
    assert_eq!(
        grads_of(&tape, y, &xs),
        expected.grads,
        "prefix gradients after clear"
    );
}
