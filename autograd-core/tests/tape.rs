//! The tape's stated semantics: repeated backward, reuse of a value, capacity overflow, rewinding,
//! leaves, graph export and very long chains.
//!
//! Slot counts below follow the layout in `tape.rs`: a leaf is one slot, a statement with `k`
//! operands `k + 1`; intermediate results that depend on at most two recorded values take none.

use autograd_core::{Node, NodeId, Op, Tape, TapeError, TapeView, Var};

#[test]
fn backward_twice_gives_identical_gradients() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let (x, y) = (tape.var(0.7), tape.var(-1.3));
    let z = (x * y).sin() + x.exp() * y;
    let first = {
        let g = tape.backward(z)?;
        (g.wrt(x), g.wrt(y))
    };
    let g = tape.backward(z)?;
    assert_eq!(first, (g.wrt(x), g.wrt(y)));
    // d/dx = y cos(xy) + e^x y, d/dy = x cos(xy) + e^x
    let (xv, yv) = (0.7_f64, -1.3_f64);
    assert!((first.0 - (yv * (xv * yv).cos() + xv.exp() * yv)).abs() < 1e-15);
    assert!((first.1 - (xv * (xv * yv).cos() + xv.exp())).abs() < 1e-15);
    Ok(())
}

#[test]
fn backward_from_different_roots_does_not_mix() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let x = tape.var(2.0);
    let a = x * x; // da/dx = 4
    let b = x * 3.0; // db/dx = 3
    assert_eq!(tape.backward(a)?.wrt(x), 4.0);
    assert_eq!(tape.backward(b)?.wrt(x), 3.0);
    let g = tape.backward(a)?;
    assert_eq!(g.wrt(x), 4.0);
    // b was recorded after a's inputs but does not feed a.
    assert_eq!(g.wrt(b), 0.0);
    Ok(())
}

#[test]
fn reused_nodes_accumulate() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(3.0);
    assert_eq!(tape.backward(x * x)?.wrt(x), 6.0);
    let a = tape.var(-2.0);
    let b = (a + a).recorded()?; // a statement of its own, so dc/db can be read
    let c = b + b; // c = 4a
    let g = tape.backward(c)?;
    assert_eq!((c.value(), g.wrt(a), g.wrt(b)), (-8.0, 4.0, 2.0));
    Ok(())
}

#[test]
fn overflow_is_reported_not_a_panic() {
    const N: usize = 9;
    let tape = Tape::<f32, N>::new();
    let x = tape.var(0.5);
    let mut y = x;
    for _ in 0..4 {
        y = y.sin().recorded().unwrap(); // 2 slots each: the tape is exactly full
    }
    assert_eq!(tape.len(), N);
    assert!(tape.check().is_ok());
    // Results that depend on at most two recorded values need no slot: still fine.
    let z = (y * x).exp();
    assert_eq!(tape.backward(z).unwrap().wrt(y), z.value() * x.value());
    // Writing z as a statement needs 3 more slots: 12 in all.
    let err = TapeError::CapacityExceeded {
        capacity: N,
        needed: 12,
    };
    assert_eq!(z.recorded().unwrap_err(), err);
    assert_eq!(tape.len(), N);
    assert_eq!(tape.check(), Err(err));
    assert_eq!(tape.backward(z).unwrap_err(), err);
    assert_eq!(
        err.to_string(),
        "tape capacity of 9 slots exceeded: needed at least 12; build a larger `Tape` or rewind it"
    );
    // Values stay exact after the overflow; every write that does not fit adds to `needed`.
    assert_eq!(z.value(), libm::expf(y.value() * x.value()));
    assert_eq!((z.exp() + 1.0).recorded().unwrap_err(), err);
    let v = tape.var(1.0); // one more slot that does not fit
    assert!(v.id().is_none());
    let err = TapeError::CapacityExceeded {
        capacity: N,
        needed: 13,
    };
    assert_eq!(tape.check(), Err(err));
    // `try_var` and `recorded` check first: a tape that failed writes nothing more for them.
    assert_eq!(tape.try_var(2.0).unwrap_err(), err);
    assert_eq!((z.exp() + 1.0).recorded().unwrap_err(), err);
}

#[test]
fn exactly_full_is_fine_and_one_more_overflows() {
    let tape = Tape::<f64, 3>::new();
    let x = tape.var(2.0);
    let y = x.exp().recorded().unwrap(); // slots 1 and 2: tape full
    let z = y.sin();
    assert!(tape.check().is_ok());
    assert!((tape.backward(z).unwrap().wrt(x) - 2f64.exp().cos() * 2f64.exp()).abs() < 1e-13);
    let w = y.cos().recorded(); // does not fit
    assert_eq!(
        w.unwrap_err(),
        TapeError::CapacityExceeded {
            capacity: 3,
            needed: 5
        }
    );
    // The failure is sticky: earlier, complete results also report it now.
    assert!(tape.backward(z).is_err());
}

#[test]
fn three_recorded_values_write_one_statement() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let (a, b, c) = (tape.var(2.0), tape.var(3.0), tape.var(5.0));
    let ab = a * b; // depends on two recorded values: no slot
    assert_eq!(tape.len(), 3);
    let y = ab * c; // three: one statement, 3 operands + header
    assert_eq!(tape.len(), 7);
    assert_eq!(y.id().map(NodeId::index), Some(6));
    let g = tape.backward(y)?;
    assert_eq!((g.wrt(a), g.wrt(b), g.wrt(c)), (15.0, 10.0, 6.0));
    let mut operands = Vec::new();
    tape.for_each_operand(y.id().unwrap(), |i, d| operands.push((i, d)))?;
    assert_eq!(operands, [(0, 15.0), (1, 10.0), (2, 6.0)]);
    Ok(())
}

#[test]
fn rewind_reuses_the_tape_and_keeps_the_parameters() -> Result<(), TapeError> {
    let mut tape = Tape::<f64, 8>::new();
    let w = tape.var(0.5).id().unwrap();
    let b = tape.var(-1.0).id().unwrap();
    let params = tape.mark();
    assert_eq!(params.len(), 2);
    for step in 0..100 {
        tape.rewind(params);
        let (wv, bv) = (tape.get(w)?, tape.get(b)?);
        let x = 2.0;
        let loss = (wv * x + bv - 3.0).powi(2); // minimum at 2w + b = 3
        let g = tape.backward(loss)?;
        let (gw, gb) = (g.wrt(wv), g.wrt(bv));
        let e = 2.0 * (2.0 * wv.value() + bv.value() - 3.0);
        assert_eq!((gw, gb), (e * 2.0, e), "step {step}");
        let (nw, nb) = (wv.value() - 0.05 * gw, bv.value() - 0.05 * gb);
        tape.set_value(w, nw)?;
        tape.set_value(b, nb)?;
        assert!(tape.len() <= 8);
    }
    let (wv, bv) = (tape.get(w)?.value(), tape.get(b)?.value());
    assert!((2.0 * wv + bv - 3.0).abs() < 1e-9);
    Ok(())
}

#[test]
fn rewind_clears_an_overflow() -> Result<(), TapeError> {
    let mut tape = Tape::<f64, 4>::new();
    let x = tape.var(1.0).id().unwrap();
    let start = tape.mark();
    {
        let v = tape.get(x)?;
        let mut y = v;
        for _ in 0..10 {
            match y.sin().recorded() {
                Ok(next) => y = next,
                Err(_) => break,
            }
        }
        assert!(tape.backward(y).is_err());
    }
    tape.rewind(start);
    let v = tape.get(x)?;
    assert_eq!(tape.backward(v.sin())?.wrt(v), 1f64.cos());
    Ok(())
}

#[test]
fn leaves_and_nodes_are_checked() {
    let mut tape = Tape::<f64, 8>::new();
    let x = tape.var(1.0);
    let y = x.exp().recorded().unwrap();
    assert_eq!(x.exp().id(), None); // an intermediate result has no statement of its own
    let (xi, yi) = (x.id().unwrap(), y.id().unwrap());
    assert_eq!(
        tape.set_value(yi, 3.0),
        Err(TapeError::NotALeaf { index: 2 })
    );
    assert_eq!(
        tape.set_value(NodeId::from_index(7), 3.0),
        Err(TapeError::UnknownNode { index: 7, len: 3 })
    );
    // Slot 1 is y's operand, not a statement: neither read nor set as one.
    assert_eq!(
        tape.node(NodeId::from_index(1)),
        Err(TapeError::UnknownNode { index: 1, len: 3 })
    );
    assert_eq!(
        tape.set_value(NodeId::from_index(1), 3.0),
        Err(TapeError::UnknownNode { index: 1, len: 3 })
    );
    assert!(tape.set_value(xi, 3.0).is_ok());
    let node: Node<f64> = tape.node(yi).unwrap();
    assert_eq!(
        (node.op, node.operands, node.value),
        (Op::Exp, 1, libm::exp(1.0))
    );
}

#[test]
fn constants_and_foreign_values_are_errors_not_garbage() {
    let t1 = Tape::<f64, 8>::new();
    let t2 = Tape::<f64, 8>::new();
    let c = Var::<f64>::constant(2.0);
    assert_eq!(t1.backward(c).unwrap_err(), TapeError::NotRecorded);
    let a = t1.var(1.0);
    let b = t2.var(2.0);
    assert_eq!(t2.backward(a).unwrap_err(), TapeError::ForeignVar);
    let mixed = a + b;
    assert_eq!(mixed.value(), 3.0);
    // Unrecorded: no pending pair of either tape's indices (both are slot 0 here).
    assert_eq!(format!("{mixed:?}"), "Var(3.0)");
    assert_eq!(mixed.id(), None);
    assert_eq!(t1.backward(mixed).unwrap_err(), TapeError::ForeignVar);
    assert_eq!(t2.check(), Err(TapeError::ForeignVar));
}

#[test]
fn gradient_of_a_constant_is_zero() -> Result<(), TapeError> {
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(2.0);
    let c = Var::constant(5.0);
    let y = x * c;
    let g = tape.backward(y)?;
    assert_eq!((g.wrt(x), g.wrt(c)), (5.0, 0.0));
    Ok(())
}

#[test]
fn a_tape_reads_no_adjoint_for_another_tapes_handle() -> Result<(), TapeError> {
    // Two tapes, each with a leaf at slot 0: `grad` answers only for its own tape's handles.
    let (a, b) = (Tape::<f64, 8>::new(), Tape::<f64, 8>::new());
    let (x, u) = (a.var(3.0), b.var(-1.0));
    a.backward(x * x)?;
    b.backward(u * 4.0)?;
    assert_eq!((a.grad(x), b.grad(u)), (6.0, 4.0));
    assert_eq!((a.grad(u), b.grad(x)), (0.0, 0.0));
    Ok(())
}

#[test]
fn off_path_infinities_do_not_poison_gradients() -> Result<(), TapeError> {
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(0.0);
    let _unused = x.ln(); // -inf, local derivative +inf
    let y = x * 2.0;
    assert_eq!(tape.backward(y)?.wrt(x), 2.0);
    Ok(())
}

#[test]
fn graph_exports_as_dot() -> Result<(), TapeError> {
    let tape = Tape::<f64, 8>::new();
    let (x, w, b) = (tape.var(1.0), tape.var(0.5), tape.var(0.1));
    let l = x * w + b;
    tape.backward(l)?;
    let mut out = String::new();
    tape.write_dot(&mut out).unwrap();
    let expected = "\
digraph tape {
  rankdir=LR;
  node [shape=record];
  n0 [label=\"{ #0 | leaf | data 1 | grad 0.5 }\"];
  n1 [label=\"{ #1 | leaf | data 0.5 | grad 1 }\"];
  n2 [label=\"{ #2 | leaf | data 0.1 | grad 1 }\"];
  n6 [label=\"{ #6 | + | data 0.6 | grad 1 }\"];
  n0 -> n6 [label=\"1: 0.5\"];
  n1 -> n6 [label=\"2: 1\"];
  n2 -> n6 [label=\"3: 1\"];
}
";
    assert_eq!(out, expected);
    Ok(())
}

/// A chain of 500,000 statements x = sin(x), each written (1,000,001 slots): backward is a loop,
/// so no stack overflow. The tape (24 MB) is boxed on a thread whose stack can hold it while
/// `Tape::new` builds it.
#[test]
fn million_slot_chain_differentiates_without_recursion() {
    const STEPS: usize = 500_000;
    const N: usize = 2 * STEPS + 1;
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let tape: Box<Tape<f64, N>> = Box::new(Tape::new());
            let x0 = tape.var(1.0);
            let mut x = x0;
            let mut reference = 1.0_f64;
            let mut slope = 1.0_f64; // product of cos along the chain, computed independently
            for _ in 0..STEPS {
                slope *= libm::cos(reference);
                reference = libm::sin(reference);
                x = x.sin().recorded().unwrap();
            }
            assert_eq!(tape.len(), N);
            let d = tape.backward(x).unwrap().wrt(x0);
            assert_eq!(x.value(), reference);
            // Same factors multiplied in the opposite order: rounding differs by at most ~N ulps.
            assert!((d - slope).abs() <= 1e-9 * slope.abs(), "{d} vs {slope}");
            // The same chain left in the handle (no statements) gives the same derivative.
            let mut y = x0;
            for _ in 0..STEPS {
                y = y.sin();
            }
            let d2 = tape.backward(y).unwrap().wrt(x0);
            assert!((d2 - slope).abs() <= 1e-9 * slope.abs(), "{d2} vs {slope}");
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn backward_above_a_mark_sweeps_only_the_new_nodes() -> Result<(), TapeError> {
    let tape = Tape::<f64, 64>::new();
    let p = tape.var(3.0);
    let below = (p * p).sin(); // depends on p, below the mark
    let mark = tape.mark();
    let x = tape.var(2.0);
    // dy/dx = 2xp = 12. A full sweep first: every adjoint below the mark is written.
    let y = x * x * p + below;
    let full = tape.backward(y)?;
    assert_eq!(full.wrt(x), 12.0);
    assert_eq!(full.wrt(p), 4.0 + 6.0 * 9f64.cos());
    // Above the mark: x's gradient is the same, statements below read 0 (not stale values).
    let g = tape.backward_above(y, mark)?;
    assert_eq!(g.wrt(x), 12.0);
    assert_eq!((g.wrt(p), g.wrt(below)), (0.0, 0.0));
    // And a full sweep afterwards is unaffected by the partial one.
    let again = tape.backward(y)?;
    assert_eq!((again.wrt(x), again.wrt(p)), (12.0, 4.0 + 6.0 * 9f64.cos()));
    Ok(())
}

#[test]
fn a_sweep_above_a_mark_sends_nothing_below_it() -> Result<(), TapeError> {
    // A statement above the mark whose operands lie on both sides of it: z = e^(x p q) with x
    // above and p, q below. (x p carries two pending pairs; times q it is one statement.)
    let tape = Tape::<f64, 64>::new();
    let (p, q) = (tape.var(3.0), tape.var(0.5));
    let mark = tape.mark();
    let x = tape.var(2.0);
    let y = x * p * q;
    assert!(y.id().is_some(), "a statement of three operands");
    let z = y.exp();
    let e = 3f64.exp();
    let g = tape.backward_above(z, mark)?;
    assert_eq!((g.wrt(x), g.wrt(y)), (e * 1.5, e));
    assert_eq!(
        (g.wrt(p), g.wrt(q)),
        (0.0, 0.0),
        "below the mark: nothing sent"
    );
    // A full sweep afterwards starts from zero adjoints below the mark too.
    let full = tape.backward(z)?;
    assert_eq!(
        (full.wrt(x), full.wrt(p), full.wrt(q)),
        (e * 1.5, e * 1.0, e * 6.0)
    );
    Ok(())
}

#[test]
fn a_result_with_partial_one_is_not_mistaken_for_its_operand() -> Result<(), TapeError> {
    // y = x + 3 depends on x with partial 1, but it is not x: it has no statement of its own
    // until written, and writing it makes a new one with y's value.
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(2.0);
    let y = x + 3.0;
    assert_eq!((y.id(), (x * 1.0).id(), (x - 0.0).id()), (None, None, None));
    let y = y.recorded()?;
    assert_ne!(y.id(), x.id());
    assert_eq!(tape.get(y.id().unwrap())?.value(), 5.0);
    // z = y^2 + x: dz/dy = 2y = 10 and dz/dx = 2y + 1 = 11 (through y and directly).
    let z = y * y + x;
    let g = tape.backward(z)?;
    assert_eq!((g.wrt(y), g.wrt(x)), (10.0, 11.0));
    Ok(())
}

/// Records wide sums (more operands than a re-sweep's clearing tests one by one), a layer
/// statement whose rows count more slots than that, and small statements between them; returns
/// two results that depend on all of them, and the inputs.
fn wide_and_small(tape: &Tape<f64, 256>) -> ([Var<'_, f64>; 2], [Var<'_, f64>; 20]) {
    let x: [Var<'_, f64>; 20] = core::array::from_fn(|i| tape.var(0.05 * (i as f64 + 1.0)));
    let params: [Var<'_, f64>; 32] = core::array::from_fn(|i| tape.var(0.01 * i as f64 - 0.1));
    let mut rows = [Var::constant(0.0); 2];
    // Two rows over 15 inputs: the upper row's header counts 17 slots below it.
    Var::affine_layer(&params, &x[..15], &mut rows).unwrap();
    let wide = Var::sum(&x); // 20 operands
    let small = x[0] * x[1] * x[2]; // three pairs: a statement of 3 operands
    let wider = Var::sum(&x[2..]) * rows[1]; // 18 operands
    let node = |v: Var<'_, f64>| tape.node(v.id().unwrap()).unwrap();
    assert_eq!(node(rows[1]).operands, 31); // a layer's row: 15 inputs, 15 weights and a bias
    assert_eq!(
        (tape.len(), node(wide).operands),
        (52 + 18 + 21 + 4 + 19, 20)
    );
    let y1 = (wide * small + wider).recorded().unwrap() + rows[0];
    let y2 = (wider * wide).sin() + small * rows[0].exp() + rows[1];
    ([y1, y2], x)
}

#[test]
fn a_re_sweep_clears_what_the_last_one_wrote_around_wide_statements() -> Result<(), TapeError> {
    let fresh = |k: usize| -> Result<[f64; 20], TapeError> {
        let tape = Tape::<f64, 256>::new();
        let (y, x) = wide_and_small(&tape);
        let g = tape.backward(y[k])?;
        Ok(x.map(|v| g.wrt(v)))
    };
    let expected = [fresh(0)?, fresh(1)?];
    let tape = Tape::<f64, 256>::new();
    let (y, x) = wide_and_small(&tape);
    // Each sweep after the first clears the adjoints the one before wrote: from `y1`, `y2`, `y1`
    // again, each as on a tape swept once.
    for k in [0, 1, 0, 1, 1] {
        let g = tape.backward(y[k])?;
        assert_eq!(x.map(|v| g.wrt(v)), expected[k], "sweep from y{}", k + 1);
    }
    Ok(())
}

/// After a wide statement `a = sum(x)`: a product of it with another wide sum.
fn wide_after<'t>(x: &[Var<'t, f64>; 20], a: Var<'t, f64>) -> Var<'t, f64> {
    (a * Var::sum(&x[3..])).sin()
}

/// After a wide statement `a = sum(x)`: statements of three operands, a chain of them.
fn small_after<'t>(x: &[Var<'t, f64>; 20], a: Var<'t, f64>) -> Var<'t, f64> {
    x.windows(3).fold(a * x[0], |s, w| s + w[0] * w[1] * w[2])
}

#[test]
fn a_re_sweep_after_a_rewind_is_as_on_a_fresh_tape() -> Result<(), TapeError> {
    type Record = for<'t> fn(&[Var<'t, f64>; 20], Var<'t, f64>) -> Var<'t, f64>;
    let values: [f64; 20] = core::array::from_fn(|i| 0.1 + 0.03 * i as f64);
    let fresh = |f: Record| -> Result<[f64; 20], TapeError> {
        let tape = Tape::<f64, 256>::new();
        let x = values.map(|v| tape.var(v));
        let g = tape.backward(f(&x, Var::sum(&x)))?;
        Ok(x.map(|v| g.wrt(v)))
    };
    let mut tape = Tape::<f64, 256>::new();
    let ids = values.map(|v| tape.var(v).id().unwrap());
    let a = {
        let x = ids.map(|id| tape.get(id).unwrap());
        Var::sum(&x).id().unwrap()
    };
    let mark = tape.mark();
    // Each phase sweeps twice over what the last phase left below the mark (the wide `a`) and
    // what it records above it, then rewinds to the mark.
    let phases: [Record; 5] = [wide_after, small_after, wide_after, wide_after, small_after];
    for (k, f) in phases.into_iter().enumerate() {
        let expected = fresh(f)?;
        {
            let x = ids.map(|id| tape.get(id).unwrap());
            let y = f(&x, tape.get(a)?);
            for sweep in 0..2 {
                let g = tape.backward(y)?;
                assert_eq!(x.map(|v| g.wrt(v)), expected, "phase {k}, sweep {sweep}");
            }
        }
        tape.rewind(mark);
    }
    Ok(())
}

#[test]
fn a_tape_debugs_as_its_length_capacity_and_error_and_knows_when_it_is_empty() {
    let tape = Tape::<f64, 3>::new();
    assert!(tape.is_empty());
    let x = tape.var(1.0);
    assert!(!tape.is_empty());
    assert_eq!(
        format!("{tape:?}"),
        "Tape { len: 1, capacity: 3, error: None }"
    );
    // Three recorded values need a statement of four slots: it does not fit. The error is the
    // one `check` reports, its `needed` counted (3 slots written, 4 more asked for).
    let _ = x * tape.var(2.0) + tape.var(3.0);
    let view: &TapeView<f64> = &tape;
    assert_eq!(
        tape.check(),
        Err(TapeError::CapacityExceeded {
            capacity: 3,
            needed: 7
        })
    );
    assert_eq!(
        format!("{view:?}"),
        "Tape { len: 3, capacity: 3, error: Some(CapacityExceeded { capacity: 3, needed: 7 }) }"
    );
}
