//! Differential fuzzing of the engine: one arbitrary program, evaluated
//!
//! - plainly (values only),
//! - on the tape in reverse mode (`Tape<S, _>`, statement-level: handles carry pending
//!   partials, statements are written only where needed),
//! - in forward mode with `Dual<S>`, one pass per input,
//! - by the independent reference interpreter of `autograd_fuzz` (forward mode by hand),
//! - on a tape over duals (forward-over-reverse),
//! - on a tape of `Outlined` scalars (every operation a call: the same tape, bit for bit),
//!
//! in `f64` and in `f32`, and in Q16.16 fixed point against `f64` instruction by instruction
//! (`autograd_fuzz::check_q16_against_f64`: within the Q16 tolerance, poison for every
//! overflow) and on a Q16 tape (`check_q16_tape`: its values are the plain run's, its gradient
//! the `f64` sweep of its own statements within a propagated rounding bound), with inputs and constants that include NaN, ±inf, subnormals and huge
//! values. Checks: nothing panics; values are bit-identical in every mode; every statement is
//! labelled with an operation its instruction may record (`autograd_fuzz::exercised_by`), and
//! only the inputs are leaves; backward twice gives bit-identical adjoints, and so does a sweep
//! from the output written as a statement of its own (`Var::recorded`); where every value and
//! local derivative is finite and no product of them leaves the range (kinks included: every
//! mode follows the same conventions), reverse, forward and the reference agree within a
//! rounding bound; and the NaN-provenance reports describe the tape's statements truthfully.

#![no_main]

use std::collections::HashMap;

use autograd_core::{
    Anomaly, AnomalyKind, Dual, Op, Outlined, Scalar, Tape, TapeError, TapeView, Var,
};
use autograd_fuzz::{
    may_record, run, same, statement_id, statements, step, Program, Reference, Statement,
    MAX_OPERANDS, MAX_ROWS,
};
use libfuzzer_sys::fuzz_target;

/// Enough for the longest program: 48 instructions, each writing at most `MAX_ROWS` statements
/// of at most `2 (2 MAX_OPERANDS + 1)` operands (an `affine` of handles with two pending pairs
/// each, a layer's rows written one by one) and a header each, plus the inputs and the output
/// written by `recorded`.
const CAP: usize = 4096;
const _: () =
    assert!(autograd_fuzz::MAX_INPUTS + 49 * MAX_ROWS * (2 * (2 * MAX_OPERANDS + 1) + 1) <= CAP);

fuzz_target!(|p: Program| {
    check::<f64>(&p);
    check::<f32>(&p);
    autograd_fuzz::check_q16_against_f64(&p);
    autograd_fuzz::check_q16_tape(&p);
});

fn bits<S: Scalar>(x: S) -> u64 {
    x.to_f64().to_bits()
}

/// The tape's shape: each statement's position, operation and operand indices.
fn shape<S: Scalar>(stmts: &[Statement<S>]) -> Vec<(usize, Op, Vec<usize>)> {
    stmts
        .iter()
        .map(|s| {
            let ops = s.operands.iter().map(|o| o.0).collect();
            (s.id.index(), s.node.op, ops)
        })
        .collect()
}

fn check<S: Scalar>(p: &Program) {
    let inputs = p.input_values::<S>();
    let n_in = inputs.len();
    let reference = Reference::new(p, &inputs);
    let n = reference.values.len();
    let out = p.output_slot(n);

    // Plain evaluation.
    let plain = run::<S>(p, &inputs);
    for (i, (&a, &b)) in plain.iter().zip(&reference.values).enumerate() {
        assert!(
            same(a, b),
            "plain value of result {i}: {a:?} vs reference {b:?}"
        );
    }

    // Reverse mode, one instruction at a time to know which instruction wrote which statement.
    let tape = Tape::<S, CAP>::new();
    let xs: Vec<Var<'_, S>> = inputs.iter().map(|&v| tape.var(v)).collect();
    let mut slots = xs.clone();
    let mut written_by = Vec::new(); // (first slot after the instruction, instruction)
    for instr in p.instrs() {
        slots.push(step(&slots, instr));
        written_by.push((tape.len(), instr.kind()));
    }
    tape.check().expect("the program fits the tape");
    for (i, (a, &b)) in slots.iter().zip(&reference.values).enumerate() {
        assert!(
            same(a.value(), b),
            "tape value of result {i}: {a:?} vs reference {b:?}"
        );
        if let Some(id) = statement_id(a) {
            let node = tape.node(id).expect("an id names a statement");
            assert!(
                same(node.value, b),
                "statement {} of result {i}",
                id.index()
            );
        }
    }
    let stmts = statements(&tape);
    for (k, s) in stmts.iter().enumerate() {
        let index = s.id.index();
        if k < n_in {
            assert_eq!(
                (index, s.node.op, s.node.operands),
                (k, Op::Leaf, 0),
                "input {k}"
            );
            assert!(same(s.node.value, inputs[k]), "input {k}");
            continue;
        }
        let instr = written_by
            .iter()
            .position(|&(end, _)| index < end)
            .expect("every statement after the inputs is written by an instruction");
        let kind = written_by[instr].1;
        assert!(
            may_record(kind, s.node.op, s.node.operands),
            "instruction {instr} ({kind:?}) wrote statement {index} labelled {:?}: \
             autograd_fuzz::exercised_by is out of date",
            s.node.op
        );
    }

    let y = slots[out];
    let first = gradients(&tape, y, &xs);
    let adjoints_first = statements(&tape);
    check_outlined(p, &inputs, &first, &adjoints_first);
    let second = gradients(&tape, y, &xs);
    let adjoints_second = statements(&tape);
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(bits(*a), bits(*b), "backward twice: {a:?} vs {b:?}");
    }
    for (a, b) in adjoints_first.iter().zip(&adjoints_second) {
        assert_eq!(
            bits(a.node.grad),
            bits(b.node.grad),
            "adjoint of statement {} differs between sweeps",
            a.id.index()
        );
    }

    check_anomaly(&tape, y, &first, &xs);

    // The output written as a statement of its own: a sweep seeded at its header sends the same
    // partials down as a sweep seeded with the handle's pending pairs.
    match y.recorded() {
        Err(e) => {
            assert!(y.is_constant(), "recorded failed: {e}");
            assert_eq!(e, TapeError::NotRecorded);
        }
        Ok(r) => {
            assert!(!y.is_constant());
            assert!(same(r.value(), y.value()));
            let id = r.id().expect("a recorded value is a statement");
            if let Some(own) = y.id() {
                assert_eq!(own, id, "recording a statement writes nothing");
            }
            assert!(same(tape.node(id).expect("recorded").value, y.value()));
            let again = gradients(&tape, r, &xs);
            for (j, (a, b)) in first.iter().zip(&again).enumerate() {
                assert_eq!(
                    bits(*a),
                    bits(*b),
                    "d/dx{j} from the recorded output {b:?} vs from its handle {a:?}"
                );
            }
        }
    }

    let expected = reference.expected(out);
    if let Some(expected) = &expected {
        for (j, (&(e, tol), &g)) in expected.iter().zip(&first).enumerate() {
            let err = (g.to_f64() - e.to_f64()).abs();
            assert!(
                err <= tol,
                "reverse d/dx{j} = {g:?}, reference {e:?} (error {err:e} > tolerance {tol:e})"
            );
        }
    }

    // Forward mode, one pass per input.
    for j in 0..n_in {
        let ds: Vec<Dual<S>> = inputs
            .iter()
            .enumerate()
            .map(|(k, &v)| {
                if k == j {
                    Dual::variable(v)
                } else {
                    Dual::constant(v)
                }
            })
            .collect();
        let r = run::<Dual<S>>(p, &ds);
        for (i, (a, &b)) in r.iter().zip(&reference.values).enumerate() {
            assert!(
                same(a.re, b),
                "dual value of result {i}: {a:?} vs reference {b:?}"
            );
        }
        if let Some(expected) = &expected {
            let (e, tol) = expected[j];
            let err = (r[out].eps.to_f64() - e.to_f64()).abs();
            assert!(
                err <= tol,
                "forward d/dx{j} = {:?}, reference {e:?} (error {err:e} > tolerance {tol:e})",
                r[out].eps
            );
        }
    }

    // Forward over reverse: the real parts are the plain values and gradients. The tape of duals
    // writes a statement also where only a tangent is not finite, and keeps a dependence whose
    // real partial is 0 but whose tangent is not; where it ends up with the same statements, its
    // real parts are the same sums of the same products, up to added zeros (so compared with
    // `==`); elsewhere they regroup, and are compared within the rounding bound. "Added zeros"
    // needs every stored partial finite, not only every local derivative: a stored partial is a
    // product of local ones and can overflow (10.625 * -3.9e307), and where the real adjoint
    // reaching it is 0, the `f64` sweep skips it while the dual sweep, whose adjoint's tangent
    // is not 0, adds `0 * inf = NaN` to the real part.
    let all_local_finite = reference.edges[..=out]
        .iter()
        .flatten()
        .all(|&(_, d)| d.is_finite())
        && stmts
            .iter()
            .all(|s| s.operands.iter().all(|&(_, d)| d.is_finite()));
    let dtape = Tape::<Dual<S>, CAP>::new();
    let dxs: Vec<Var<'_, Dual<S>>> = inputs
        .iter()
        .map(|&v| dtape.var(Dual::new(v, S::ONE)))
        .collect();
    let dslots = run::<Var<'_, Dual<S>>>(p, &dxs);
    dtape.check().expect("the program fits the dual tape");
    for (i, (a, &b)) in dslots.iter().zip(&reference.values).enumerate() {
        assert!(
            same(a.value().re, b),
            "dual-tape value of result {i}: {a:?} vs {b:?}"
        );
    }
    let dy = dslots[out];
    let dgrads: Vec<S> = match dtape.backward(dy) {
        Ok(g) => dxs.iter().map(|x| g.wrt(*x).re).collect(),
        Err(e) => {
            assert_eq!(e, TapeError::NotRecorded);
            assert!(y.is_constant(), "only a constant output is not recorded");
            vec![S::ZERO; n_in]
        }
    };
    // (The real tape as the program left it, before `recorded` wrote the output.)
    let same_shape = shape(&stmts) == shape(&statements(&dtape));
    if all_local_finite && same_shape {
        for (j, (&h, &g)) in dgrads.iter().zip(&first).enumerate() {
            assert!(
                h == g || same(h, g),
                "dual-tape gradient real part d/dx{j} = {h:?}, plain {g:?}"
            );
        }
    } else if let Some(expected) = &expected {
        for (j, (&(e, tol), &h)) in expected.iter().zip(&dgrads).enumerate() {
            let err = (h.to_f64() - e.to_f64()).abs();
            assert!(
                err <= tol,
                "dual-tape d/dx{j} = {h:?}, reference {e:?} (error {err:e} > tolerance {tol:e})"
            );
        }
    }
}

/// The same program on a tape of `Outlined<S>` (every operation a call): the same statements,
/// operations, operands, values, partials, adjoints and gradients as `S`'s tape after its first
/// sweep (`swept`, `gradient`).
fn check_outlined<S: Scalar>(p: &Program, inputs: &[S], gradient: &[S], swept: &[Statement<S>]) {
    let tape = Tape::<Outlined<S>, CAP>::new();
    let xs: Vec<Var<'_, Outlined<S>>> = inputs.iter().map(|&v| tape.var(Outlined(v))).collect();
    let mut slots = xs.clone();
    for instr in p.instrs() {
        slots.push(step(&slots, instr));
    }
    let y = slots[p.output_slot(slots.len())];
    let outlined = gradients(&tape, y, &xs);
    for (k, (a, b)) in outlined.iter().zip(gradient).enumerate() {
        assert!(same(a.0, *b), "outlined gradient {k}: {a:?} vs {b:?}");
    }
    let stmts = statements(&tape);
    assert_eq!(stmts.len(), swept.len(), "outlined tape's statements");
    for (a, b) in stmts.iter().zip(swept) {
        let at = b.id.index();
        assert_eq!(
            (a.id.index(), a.node.op),
            (at, b.node.op),
            "outlined statement {at}"
        );
        assert!(same(a.node.value.0, b.node.value), "outlined value {at}");
        assert!(same(a.node.grad.0, b.node.grad), "outlined adjoint {at}");
        assert_eq!(
            a.operands.len(),
            b.operands.len(),
            "outlined operands of {at}"
        );
        for (o, q) in a.operands.iter().zip(&b.operands) {
            assert!(o.0 == q.0 && same(o.1 .0, q.1), "outlined operand of {at}");
        }
    }
}

/// Gradients of `y` with respect to `xs`: 0 for a constant `y` (which `backward` refuses).
fn gradients<'t, S: Scalar>(tape: &'t TapeView<S>, y: Var<'t, S>, xs: &[Var<'t, S>]) -> Vec<S> {
    let mut out = vec![S::ZERO; xs.len()];
    match tape.backward(y) {
        Ok(grads) => grads.write_to(xs, &mut out).expect("equal lengths"),
        Err(e) => {
            assert!(y.is_constant(), "backward failed: {e}");
            assert_eq!(e, TapeError::NotRecorded);
        }
    }
    out
}

/// The NaN-provenance reports agree with the statements the tape holds.
fn check_anomaly<'t, S: Scalar>(
    tape: &'t TapeView<S>,
    y: Var<'t, S>,
    grads: &[S],
    xs: &[Var<'t, S>],
) {
    let stmts = statements(tape);
    let at: HashMap<usize, &Statement<S>> = stmts.iter().map(|s| (s.id.index(), s)).collect();
    let operands_finite = |s: &Statement<S>| {
        s.operands
            .iter()
            .all(|&(i, _)| at[&i].node.value.is_finite())
    };
    // A statement whose backward step adds a non-finite term to an operand's adjoint.
    let sends_non_finite = |s: &Statement<S>| {
        let g = s.node.grad;
        g.is_finite() && !g.is_zero() && s.operands.iter().any(|&(_, d)| !(g * d).is_finite())
    };
    let first_bad_value = stmts.iter().find(|s| !s.node.value.is_finite());
    let any_bad_grad = stmts.iter().any(|s| !s.node.grad.is_finite());
    let top = tape.len().saturating_sub(1);

    let check_report = |a: &Anomaly<S>, limit: usize| {
        assert!(a.index <= limit, "report past the output: {a}");
        let s = at.get(&a.index).expect("a report names a statement");
        assert_eq!(a.op, s.node.op, "{a}");
        assert!(same(a.value, s.node.value), "{a}");
        assert_eq!(a.inputs().len(), s.operands.len().min(4), "{a}");
        for (x, &(i, d)) in a.inputs().iter().zip(&s.operands) {
            assert_eq!(x.index, i, "{a}");
            assert_eq!(x.op, at[&i].node.op, "{a}");
            assert!(same(x.value, at[&i].node.value), "{a}");
            assert!(same(x.partial, d), "{a}");
        }
        // The report renders (Display must not panic) and names the statement.
        let text = a.to_string();
        assert!(text.contains(&format!("statement {} ", a.index)), "{text}");
        match a.kind {
            AnomalyKind::Value => {
                assert!(!s.node.value.is_finite(), "{a}");
                assert!(
                    operands_finite(s),
                    "a value report whose operands are not finite: {a}"
                );
            }
            AnomalyKind::Gradient {
                input,
                adjoint,
                local,
                contribution,
                sum,
            } => {
                assert!(
                    s.operands
                        .iter()
                        .any(|&(i, d)| i == input && same(d, local)),
                    "the reported operand and partial are not the statement's: {a}"
                );
                assert!(adjoint.is_finite() && !adjoint.is_zero(), "{a}");
                assert!(same(adjoint, s.node.grad), "{a}");
                assert!(same(contribution, adjoint * local), "{a}");
                assert!(!sum.is_finite(), "{a}");
                assert!(!at[&input].node.grad.is_finite(), "{a}");
                assert!(s.node.value.is_finite() && operands_finite(s), "{a}");
            }
            _ => panic!("unknown anomaly kind: {a:?}"),
        }
    };

    match tape.first_non_finite() {
        None => assert!(
            first_bad_value.is_none() && !any_bad_grad,
            "first_non_finite missed a NaN/inf"
        ),
        Some(a) => {
            check_report(&a, top);
            match a.kind {
                AnomalyKind::Value => {
                    let first = first_bad_value.expect("a value report");
                    assert_eq!(a.index, first.id.index(), "not the first: {a}");
                }
                AnomalyKind::Gradient { contribution, .. } => {
                    assert!(first_bad_value.is_none() && any_bad_grad, "{a}");
                    // The sweep reaches statements from the top down: the report names the
                    // first it reaches that sends a non-finite term, else (an overflowing sum of
                    // finite terms) no statement sends one.
                    let highest = stmts.iter().rev().find(|s| sends_non_finite(s));
                    if contribution.is_finite() {
                        assert!(highest.is_none(), "{a}");
                    } else {
                        let h = highest.expect("a statement sends a non-finite term");
                        assert_eq!(h.id.index(), a.index, "not the first reached: {a}");
                    }
                }
                _ => unreachable!(),
            }
        }
    }

    match tape.non_finite_origin(y) {
        None => assert!(y.value().is_finite() || y.is_constant()),
        Some(a) => {
            assert!(!y.value().is_finite());
            assert!(matches!(a.kind, AnomalyKind::Value));
            let root = y.id().expect("a non-finite value is a statement").index();
            check_report(&a, root);
        }
    }

    let healthy = y.value().is_finite() && stmts.iter().all(|s| s.node.grad.is_finite());
    match tape.backward_checked(y) {
        Ok(checked) => {
            assert!(healthy, "backward_checked accepted a non-finite result");
            for (x, g) in xs.iter().zip(grads) {
                assert_eq!(
                    bits(checked.wrt(*x)),
                    bits(*g),
                    "backward_checked changed a gradient"
                );
            }
        }
        Err(
            e @ TapeError::NonFinite {
                statement,
                op,
                in_gradient,
            },
        ) => {
            assert!(!healthy, "backward_checked rejected a finite result: {e}");
            let a = tape.anomaly(y).expect("the error's statement has a report");
            assert_eq!((a.index, a.op), (statement, op), "{e} vs {a}");
            assert_eq!(in_gradient, !matches!(a.kind, AnomalyKind::Value), "{a}");
            if !y.value().is_finite() {
                assert!(matches!(a.kind, AnomalyKind::Value), "{a}");
            }
            check_report(&a, top);
        }
        Err(TapeError::NotRecorded) if y.is_constant() => {}
        Err(e) => panic!("backward_checked failed: {e}"),
    }
}
