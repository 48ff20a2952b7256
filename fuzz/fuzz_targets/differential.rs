//! Differential fuzzing of the engine: one arbitrary program, evaluated
//!
//! - plainly (values only),
//! - on the tape in reverse mode (`Tape<S, _>`),
//! - in forward mode with `Dual<S>`, one pass per input,
//! - by the independent reference interpreter of `autograd_fuzz` (forward mode by hand),
//! - on a tape over duals (forward-over-reverse),
//!
//! in `f64` and in `f32`, with inputs and constants that include NaN, ±inf, subnormals and huge
//! values. Checks: nothing panics; values are bit-identical in every mode; backward twice gives
//! bit-identical gradients; where every value and local derivative is finite (kinks included:
//! every mode follows the same conventions), reverse, forward and the reference agree within a
//! rounding bound; and the NaN-provenance reports describe the tape truthfully.

#![no_main]

use autograd_core::{AnomalyKind, BackwardError, Dual, Node, Scalar, Tape, TapeView, Var};
use autograd_fuzz::{run, same, Eval, Program, Reference};
use libfuzzer_sys::fuzz_target;

/// Enough for the longest program (48 instructions of at most 7 nodes, plus inputs).
const CAP: usize = 512;

fuzz_target!(|p: Program| {
    check::<f64>(&p);
    check::<f32>(&p);
});

fn bits<S: Scalar>(x: S) -> u64 {
    x.to_f64().to_bits()
}

fn check<S: Scalar + Eval<S>>(p: &Program) {
    let inputs = p.input_values::<S>();
    let n_in = inputs.len();
    let reference = Reference::new(p, &inputs);
    let n = reference.values.len();
    let out = p.output_slot(n);

    // Plain evaluation.
    let plain = run::<S, S>(p, &inputs);
    for (i, (&a, &b)) in plain.iter().zip(&reference.values).enumerate() {
        assert!(
            same(a, b),
            "plain value of result {i}: {a:?} vs reference {b:?}"
        );
    }

    // Reverse mode.
    let tape = Tape::<S, CAP>::new();
    let xs: Vec<Var<'_, S>> = inputs.iter().map(|&v| tape.var(v)).collect();
    let slots = run::<S, _>(p, &xs);
    tape.check().expect("the program fits the tape");
    for (i, (a, &b)) in slots.iter().zip(&reference.values).enumerate() {
        assert!(
            same(a.value(), b),
            "tape value of result {i}: {a:?} vs reference {b:?}"
        );
    }
    let y = slots[out];
    let first = gradients(&tape, y, &xs);
    let nodes_first = snapshot(&tape);
    let second = gradients(&tape, y, &xs);
    let nodes_second = snapshot(&tape);
    assert_eq!(first.len(), second.len());
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(bits(*a), bits(*b), "backward twice: {a:?} vs {b:?}");
    }
    for (i, (a, b)) in nodes_first.iter().zip(&nodes_second).enumerate() {
        assert_eq!(
            bits(a.grad()),
            bits(b.grad()),
            "adjoint of node {i} differs between sweeps"
        );
    }

    check_anomaly(&tape, y, &first, &xs);

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
        let r = run::<S, Dual<S>>(p, &ds);
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

    // Forward over reverse: the real parts are the plain values and gradients.
    let all_local_finite = reference.edges[..=out]
        .iter()
        .flatten()
        .all(|&(_, d)| d.is_finite());
    let dtape = Tape::<Dual<S>, CAP>::new();
    let dxs: Vec<Var<'_, Dual<S>>> = inputs
        .iter()
        .map(|&v| dtape.var(Dual::new(v, S::ONE)))
        .collect();
    let dslots = run::<Dual<S>, _>(p, &dxs);
    dtape.check().expect("the program fits the dual tape");
    for (i, (a, &b)) in dslots.iter().zip(&reference.values).enumerate() {
        assert!(
            same(a.value().re, b),
            "dual-tape value of result {i}: {a:?} vs {b:?}"
        );
    }
    let grads = dtape.backward(dslots[out]).expect("recorded");
    if all_local_finite {
        for (j, (x, &g)) in dxs.iter().zip(&first).enumerate() {
            let h = grads.wrt(*x).re;
            assert!(
                same(h, g),
                "dual-tape gradient real part d/dx{j} = {h:?}, plain {g:?}"
            );
        }
    }
}

fn gradients<'t, S: Scalar>(tape: &'t TapeView<S>, y: Var<'t, S>, xs: &[Var<'t, S>]) -> Vec<S> {
    let grads = tape.backward(y).expect("output is recorded");
    let mut out = vec![S::ZERO; xs.len()];
    grads.write_to(xs, &mut out).expect("equal lengths");
    out
}

fn snapshot<S: Scalar>(tape: &TapeView<S>) -> Vec<Node<S>> {
    let mut nodes = Vec::new();
    tape.for_each_node(|_, n| nodes.push(*n)).expect("not busy");
    nodes
}

/// The NaN-provenance reports agree with what the tape holds.
fn check_anomaly<'t, S: Scalar>(
    tape: &'t TapeView<S>,
    y: Var<'t, S>,
    grads: &[S],
    xs: &[Var<'t, S>],
) {
    let nodes = snapshot(tape);
    let finite_inputs = |node: &Node<S>| {
        node.inputs()[..node.op().arity()]
            .iter()
            .all(|&k| nodes[k].value().is_finite())
    };
    let first_bad_value = nodes.iter().position(|n| !n.value().is_finite());
    let any_bad_grad = nodes.iter().any(|n| !n.grad().is_finite());
    let check_report = |a: &autograd_core::Anomaly<S>, limit: usize| {
        assert!(a.index <= limit, "report past the output: {a}");
        let node = &nodes[a.index];
        assert_eq!(a.op, node.op(), "{a}");
        assert!(same(a.value, node.value()), "{a}");
        assert_eq!(a.inputs().len(), node.op().arity(), "{a}");
        // The report renders (Display must not panic) and names the node.
        let text = a.to_string();
        assert!(text.contains(&format!("node {}", a.index)), "{text}");
        match a.kind {
            AnomalyKind::Value => {
                assert!(!node.value().is_finite(), "{a}");
                assert!(
                    finite_inputs(node),
                    "a value report whose inputs are not finite: {a}"
                );
            }
            AnomalyKind::Gradient {
                input,
                adjoint,
                sum,
                ..
            } => {
                assert!(node.inputs()[..node.op().arity()].contains(&input), "{a}");
                assert!(adjoint.is_finite() && same(adjoint, node.grad()), "{a}");
                assert!(!sum.is_finite(), "{a}");
                assert!(!nodes[input].grad().is_finite(), "{a}");
                assert!(finite_inputs(node) && node.value().is_finite(), "{a}");
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
            check_report(&a, nodes.len() - 1);
            if let AnomalyKind::Value = a.kind {
                assert_eq!(Some(a.index), first_bad_value, "{a}");
            } else {
                assert!(first_bad_value.is_none(), "{a}");
            }
        }
    }

    let root = y.id().expect("recorded").index();
    match tape.non_finite_origin(y) {
        None => assert!(y.value().is_finite()),
        Some(a) => {
            assert!(!y.value().is_finite());
            assert!(matches!(a.kind, AnomalyKind::Value));
            check_report(&a, root);
        }
    }

    let healthy = y.value().is_finite() && nodes[..=root].iter().all(|n| n.grad().is_finite());
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
        Err(BackwardError::NonFinite(a)) => {
            assert!(!healthy, "backward_checked rejected a finite result: {a}");
            check_report(&a, root);
        }
        Err(e) => panic!("backward_checked failed: {e}"),
    }
}
