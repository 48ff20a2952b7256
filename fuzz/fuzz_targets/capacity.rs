//! Capacity fuzzing: an arbitrary program on a tape that may be too small for it.
//!
//! The same program runs on a tape with room to spare (the reference) and on a small tape of `N`
//! slots with a mark taken part-way. Most operations need no slot (handles carry pending
//! partials), so whether the program fits is the small tape's own verdict: `check()`. Checks:
//! nothing panics; every value is right whether or not it was recorded, and every statement
//! holds its result's value; the tape fails exactly when the reference used more than `N` slots
//! (a statement takes its slots at once or not at all), and never holds more than `N`; if it
//! did not fail, its gradients are bit-identical to the reference's, also from the output
//! written with `recorded`; if it failed, `check`, `backward`, `recorded` and `try_var` all
//! report `CapacityExceeded { capacity: N, needed }` (never a gradient), with `needed` above `N`
//! (it counts the writes this recording attempted; after the first failure its results are not
//! recorded and take other paths, so it is not compared with the reference's count). After rewinding to the mark the
//! error is gone, the statements below the mark are intact, and continuing there gives what a
//! tape with room gives from the same state; after `clear` the longest prefix of the program
//! that fits differentiates exactly like the reference.

#![no_main]

use arbitrary::Arbitrary;
use autograd_core::{NodeId, Scalar, Tape, TapeError, TapeView, Var};
use autograd_fuzz::{run_prefix, same, statement_id, step, Program};
use libfuzzer_sys::fuzz_target;

/// Room to spare for any program (see the differential target's `CAP`).
const BIG: usize = 4096;

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

/// Gradients of `y` with respect to `xs` as bit patterns, or the sweep's error.
type Grads = Result<Vec<u64>, TapeError>;

/// Values, gradients with respect to the inputs, and slots in use after the inputs and after
/// each of the first `n` instructions, on a tape with room to spare.
struct Reference<S> {
    values: Vec<S>,
    grads: Grads,
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
    Reference {
        values: slots.iter().map(|s| s.value()).collect(),
        grads: grads_of(&tape, y, &xs),
        lens,
    }
}

fn grads_of<S: Scalar>(tape: &TapeView<S>, y: Var<'_, S>, xs: &[Var<'_, S>]) -> Grads {
    let grads = tape.backward(y)?;
    Ok(xs
        .iter()
        .map(|x| grads.wrt(*x).to_f64().to_bits())
        .collect())
}

/// How a result stood at the mark: a statement (to be fetched again with `get`), a constant off
/// the tape, or a value that lives only in its handle (re-entered as a new leaf).
#[derive(Clone, Copy, Debug, PartialEq)]
enum AtMark {
    /// The index of its statement (ids remember their tape; the index is what carries over to
    /// a tape with the same prefix).
    Statement(usize),
    Constant,
    Pending,
}

fn at_mark<S: Scalar>(v: &Var<'_, S>) -> AtMark {
    match statement_id(v) {
        Some(id) => AtMark::Statement(id.index()),
        None if v.is_constant() => AtMark::Constant,
        None => AtMark::Pending,
    }
}

/// Rebuilds the results before the mark from `prefix` and runs the instructions from `k` on:
/// the values of every result, and the gradients with respect to the rebuilt results.
fn continue_from<S: Scalar>(
    tape: &TapeView<S>,
    p: &Program,
    k: usize,
    prefix: &[AtMark],
    values: &[S],
) -> (Vec<S>, Grads) {
    let mut slots: Vec<Var<'_, S>> = prefix
        .iter()
        .zip(values)
        .map(|(at, &v)| match *at {
            AtMark::Statement(index) => {
                let h = tape
                    .get(NodeId::from_index(index))
                    .expect("a statement below the mark survives a rewind");
                assert!(same(h.value(), v), "statement {index} after a rewind");
                h
            }
            AtMark::Constant => Var::constant(v),
            AtMark::Pending => tape.var(v),
        })
        .collect();
    let rebuilt = slots.clone();
    for instr in p.instrs().iter().skip(k) {
        slots.push(step(&slots, instr));
    }
    let y = slots[p.output_slot(slots.len())];
    (
        slots.iter().map(|s| s.value()).collect(),
        grads_of(tape, y, &rebuilt),
    )
}

fn check<S: Scalar, const N: usize>(p: &Program, k: usize) {
    let full = reference::<S>(p, usize::MAX);
    let needed = *full.lens.last().expect("at least the inputs");
    // The error after an overflow: the capacity, and a need above it.
    let overflow = |e: Option<TapeError>| matches!(e, Some(TapeError::CapacityExceeded { capacity, needed: r }) if capacity == N && r > N);

    let mut tape = Tape::<S, N>::new();
    let (mark, prefix, prefix_fits) = {
        let xs: Vec<Var<'_, S>> = p.input_values::<S>().iter().map(|&v| tape.var(v)).collect();
        let mut slots = xs.clone();
        let mut at = None;
        for (i, instr) in p.instrs().iter().enumerate() {
            if i == k {
                let ids = slots.iter().map(at_mark).collect::<Vec<_>>();
                at = Some((tape.mark(), ids, tape.check().is_ok()));
            }
            slots.push(step(&slots, instr));
        }
        let (mark, prefix, prefix_fits) = at.unwrap_or_else(|| {
            let ids = slots.iter().map(at_mark).collect();
            (tape.mark(), ids, tape.check().is_ok())
        });
        assert!(mark.len() <= N);

        // Values stay right whether or not they were recorded.
        for (i, (s, &v)) in slots.iter().zip(&full.values).enumerate() {
            assert!(same(s.value(), v), "value of result {i}: {s:?} vs {v:?}");
            if let Some(id) = statement_id(s) {
                let node = tape.node(id).expect("an id names a statement");
                assert!(
                    same(node.value, v),
                    "statement {} holds a wrong value",
                    id.index()
                );
            }
        }
        assert!(tape.len() <= N, "a tape never holds more than its capacity");
        let y = slots[p.output_slot(slots.len())];
        let failed = tape.check().is_err();
        assert_eq!(
            failed,
            needed > N,
            "the tape's verdict (len {}) vs the slots the reference used ({needed}) for {N}",
            tape.len()
        );
        if !failed {
            assert_eq!(tape.len(), needed);
            let grads = grads_of(&tape, y, &xs);
            assert_eq!(grads, full.grads, "gradients differ from the reference");
            // The output written as a statement: the same gradients, or no room for it.
            match y.recorded() {
                Ok(r) => {
                    assert!(same(r.value(), y.value()));
                    assert_eq!(
                        grads_of(&tape, r, &xs),
                        full.grads,
                        "from the recorded output"
                    );
                }
                Err(TapeError::NotRecorded) => assert!(y.is_constant()),
                Err(e) => {
                    // The program fitted; the output's own statement did not.
                    assert!(overflow(Some(e)), "{e:?}");
                    assert_eq!(tape.check(), Err(e));
                    assert_eq!(y.id(), None, "a statement needs no room to be recorded");
                }
            }
        } else {
            let err = tape.check().err();
            assert!(overflow(err), "{err:?}, reference needed {needed}");
            assert_eq!(tape.backward(y).err(), err, "backward after an overflow");
            let expected = if y.is_constant() {
                Some(TapeError::NotRecorded)
            } else {
                err
            };
            assert_eq!(y.recorded().err(), expected, "recorded after an overflow");
            assert_eq!(tape.try_var(S::ONE).err(), err);
            assert_eq!(tape.check().err(), err, "the first error sticks");
            assert!(tape.len() <= N);
        }
        (mark, prefix, prefix_fits)
    };

    // Rewind to the mark and continue from the results there.
    tape.rewind(mark);
    assert_eq!(tape.len(), mark.len());
    assert_eq!(tape.check(), Ok(()), "a rewind clears the error");
    let (values, grads) = continue_from(&tape, p, k, &prefix, &full.values);
    for (i, (&s, &v)) in values.iter().zip(&full.values).enumerate() {
        assert!(
            same(s, v),
            "value of result {i} after rewind: {s:?} vs {v:?}"
        );
    }
    assert!(tape.len() <= N);
    match tape.check() {
        Err(e) => {
            assert!(overflow(Some(e)), "{e:?}");
            assert_eq!(grads, Err(e), "backward after a rewind and an overflow");
        }
        Ok(()) => assert!(
            !matches!(grads, Err(TapeError::CapacityExceeded { .. })),
            "no overflow, yet {grads:?}"
        ),
    }
    if prefix_fits {
        // Below the mark the tape holds what a tape with room holds after the same
        // instructions: continuing there must give the same outcome.
        let big = Tape::<S, BIG>::new();
        let xs: Vec<Var<'_, S>> = p.input_values::<S>().iter().map(|&v| big.var(v)).collect();
        let slots = run_prefix::<Var<'_, S>>(p, &xs, k);
        assert_eq!(
            big.len(),
            mark.len(),
            "the prefix fitted, so it used the same slots"
        );
        let ids: Vec<AtMark> = slots.iter().map(at_mark).collect();
        assert_eq!(ids, prefix);
        let (big_values, big_grads) = continue_from(&big, p, k, &prefix, &full.values);
        for (&a, &b) in values.iter().zip(&big_values) {
            assert!(same(a, b));
        }
        let big_len = big.len();
        assert_eq!(
            tape.check().is_err(),
            big_len > N,
            "continued: {big_len} slots for {N}"
        );
        if tape.check().is_ok() {
            assert_eq!(tape.len(), big_len);
            assert_eq!(grads, big_grads, "gradients after a rewind");
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
    let slots = run_prefix::<Var<'_, S>>(p, &xs, prefix);
    tape.check().expect("the prefix fits");
    let y = slots[p.output_slot(slots.len())];
    assert_eq!(
        grads_of(&tape, y, &xs),
        expected.grads,
        "prefix gradients after clear"
    );
}
