//! The API cannot silently mislead: each misuse a new user hit gives a clear error (or a
//! documented panic) instead of another tape's or another sweep's numbers.

use autograd_core::{Dual, NodeId, Number, Tape, TapeError, Var};

#[test]
fn gradients_of_an_earlier_sweep_refuse_to_read() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let x = tape.var(3.0);
    let (y1, y2) = (x * x, x * 10.0);
    let g1 = tape.backward(y1)?;
    assert_eq!(g1.wrt(x), 6.0);
    let g2 = tape.backward(y2)?;
    assert_eq!(g2.wrt(x), 10.0);
    // g1 would now read y2's adjoints: every way of reading it says so.
    assert_eq!(g1.try_wrt(x), Err(TapeError::StaleGradients));
    assert_eq!(g1.get(x.id().unwrap()), None);
    let mut out = [0.0];
    assert_eq!(g1.write_to(&[x], &mut out), Err(TapeError::StaleGradients));
    // The newest one still reads, and a copy of it is as fresh as it.
    let g2_copy = g2;
    assert_eq!(
        (g2.try_wrt(x), g2_copy.get(x.id().unwrap())),
        (Ok(10.0), Some(10.0))
    );
    // A failed sweep replaces nothing.
    let c = Var::<f64>::constant(1.0);
    assert_eq!(tape.backward(c).unwrap_err(), TapeError::NotRecorded);
    assert_eq!(g2.try_wrt(x), Ok(10.0));
    Ok(())
}

#[test]
#[should_panic(expected = "replaced by a later backward sweep")]
fn wrt_on_stale_gradients_panics_with_the_reason() {
    let tape = Tape::<f64, 32>::new();
    let x = tape.var(3.0);
    let g1 = tape.backward(x * x).unwrap();
    let _g2 = tape.backward(x.exp()).unwrap();
    let _ = g1.wrt(x);
}

#[test]
fn ids_and_marks_of_another_tape_are_refused() {
    let mut a = Tape::<f64, 16>::new();
    let mut b = Tape::<f64, 16>::new();
    let (xa, _) = (a.var(1.0), a.var(2.0));
    let (_, yb) = (b.var(10.0), b.var(20.0));
    let (id_a, id_b) = (xa.id().unwrap(), yb.id().unwrap());
    assert_eq!(b.get(id_a).unwrap_err(), TapeError::ForeignId);
    assert_eq!(b.node(id_a).unwrap_err(), TapeError::ForeignId);
    assert_eq!(
        b.for_each_operand(id_a, |_, _| {}).unwrap_err(),
        TapeError::ForeignId
    );
    assert_eq!(b.set_value(id_a, 5.0), Err(TapeError::ForeignId));
    assert_eq!(
        b.get(NodeIdOf::first(&b)).unwrap().value(),
        10.0,
        "b is untouched"
    );
    // Each tape still accepts its own.
    assert_eq!(a.get(id_a).unwrap().value(), 1.0);
    assert_eq!(b.get(id_b).unwrap().value(), 20.0);
    assert_eq!(a.set_value(id_a, 4.0), Ok(()));
    assert_eq!(a.get(id_a).unwrap().value(), 4.0);

    // A mark of another tape: no sweep, no rewind (and the error is sticky until a good one).
    let mark_a = a.mark();
    let y = b.var(1.0) * 2.0;
    assert_eq!(
        b.backward_above(y, mark_a).unwrap_err(),
        TapeError::ForeignId
    );
    let len = b.len();
    b.rewind(mark_a);
    assert_eq!(b.len(), len, "a foreign mark discards nothing");
    assert_eq!(b.check(), Err(TapeError::ForeignId));
    let own = b.mark();
    b.rewind(own);
    assert_eq!(b.check(), Ok(()));
    b.clear();
    assert!(b.is_empty());
}

/// The id of slot 0 on a tape, as a user would get it back: from the tape's own handle.
struct NodeIdOf;
impl NodeIdOf {
    fn first(t: &Tape<f64, 16>) -> autograd_core::NodeId {
        let mut first = None;
        t.for_each_node(|id, _| {
            first.get_or_insert(id);
        });
        first.unwrap()
    }
}

#[test]
fn relu_of_a_negative_is_plus_zero_in_every_mode() {
    fn inv_relu<T: Number>(x: T) -> T {
        T::one() / x.relu()
    }
    for x in [-2.0, -0.0, 0.0, f64::NEG_INFINITY] {
        let plain = x.relu();
        assert!(
            plain == 0.0 && plain.is_sign_positive(),
            "relu({x}) = {plain}"
        );
        assert_eq!(inv_relu(x), f64::INFINITY, "1 / relu({x})");
        assert_eq!(inv_relu(x as f32), f32::INFINITY);
        let d = Dual::variable(x);
        let r = d.relu();
        assert!(r.re == 0.0 && r.re.is_sign_positive() && r.eps == 0.0);
        let tape = Tape::<f64, 8>::new();
        let v = tape.var(x).relu();
        assert!(v.value() == 0.0 && v.value().is_sign_positive());
        assert_eq!(inv_relu(tape.var(x)).value(), f64::INFINITY);
    }
    assert!(f64::NAN.relu().is_nan());
    assert_eq!(3.5f64.relu(), 3.5);
}

#[test]
fn capacity_errors_say_how_many_slots_were_needed() {
    let tape = Tape::<f64, 4>::new();
    let x: Vec<_> = (0..10).map(|i| tape.var(1.0 + i as f64)).collect();
    let err = tape.check().unwrap_err();
    assert_eq!(
        err,
        TapeError::CapacityExceeded {
            capacity: 4,
            needed: 10
        }
    );
    assert!(err.to_string().contains("needed at least 10"), "{err}");
    // A statement that does not fit adds its operands and header.
    let y = x[0] * x[1] * x[2]; // three recorded values: 3 operands and a header
    assert_eq!(y.value(), 6.0);
    assert_eq!(
        tape.check(),
        Err(TapeError::CapacityExceeded {
            capacity: 4,
            needed: 14
        })
    );
}

#[test]
fn graphviz_shows_operations_operand_order_and_compact_numbers() -> Result<(), TapeError> {
    // The seeds' neuron, tanh(x1 w1 + x2 w2 + b), and a leaf whose value would print with
    // 301 digits.
    let tape = Tape::<f64, 32>::new();
    let (x1, x2, w1, w2) = (tape.var(2.0), tape.var(0.0), tape.var(-3.0), tape.var(1.0));
    let b = tape.var(6.881_373_587_019_543);
    let _big = tape.var(1e300);
    let n = (x1 * w1 + x2 * w2 + b).recorded()?;
    let o = n.tanh().recorded()?;
    tape.backward(o)?;
    let mut dot = String::new();
    tape.write_dot(&mut dot).unwrap();
    assert!(
        dot.contains("n5 [label=\"{ #5 | leaf | data 1e300 | grad 0 }\"]"),
        "{dot}"
    );
    assert!(dot.contains("| tanh | data 0.70711 | grad 1 }"), "{dot}");
    assert!(dot.contains("| + | data 0.88137 | grad 0.5 }"), "{dot}");
    // The seed's gradients: x1 -1.5, x2 0.5, w1 1, w2 0, b 0.5.
    for leaf in [
        "#0 | leaf | data 2 | grad -1.5 }",
        "#1 | leaf | data 0 | grad 0.5 }",
        "#2 | leaf | data -3 | grad 1 }",
        "#3 | leaf | data 1 | grad 0 }",
        "#4 | leaf | data 6.8814 | grad 0.5 }",
    ] {
        assert!(dot.contains(leaf), "{leaf}\n{dot}");
    }
    // The products' sum, one statement: its operands in order x1 (partial w1), w1 (partial
    // x1), x2 (w2), w2 (x2); then + b, then tanh.
    for (k, line) in [
        "n0 -> n10 [label=\"1: -3\"]",
        "n2 -> n10 [label=\"2: 2\"]",
        "n1 -> n10 [label=\"3: 1\"]",
        "n3 -> n10 [label=\"4: 0\"]",
        "n10 -> n13 [label=\"1: 1\"]",
        "n4 -> n13 [label=\"2: 1\"]",
        "n13 -> n15 [label=\"1: 0.5\"]",
    ]
    .iter()
    .enumerate()
    {
        assert!(dot.contains(line), "edge {k}: {line}\n{dot}");
    }
    assert!(dot.len() < 1200, "compact: {} bytes\n{dot}", dot.len());
    // Rendered by Graphviz when it is installed (CI installs it).
    match std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(mut child) => {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(dot.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "dot rejected:\n{dot}");
            assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
        }
        Err(_) => eprintln!("graphviz `dot` not installed: rendering not checked"),
    }
    Ok(())
}

/// Generic code written the way one writes it for `f64`: compound assignment, comparisons,
/// `Iterator::sum` and `product`, each over values and over references (`s` and `p` are the
/// means of the two forms: a wrong form moves them).
struct Idiomatic;
impl autograd_core::Function for Idiomatic {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        let mut acc = T::zero();
        for &v in x {
            if v > T::zero() {
                acc += v * v;
            } else {
                acc -= v;
            }
        }
        acc *= T::from_f64(0.5);
        acc /= T::from_f64(2.0);
        let (s_values, s_refs): (T, T) = (x.iter().copied().sum(), x.iter().sum());
        let (p_values, p_refs): (T, T) = (x.iter().copied().product(), x.iter().product());
        let s = (s_values + s_refs) * T::from_f64(0.5);
        let p = (p_values + p_refs) * T::from_f64(0.5);
        acc + s * p
    }
}

#[test]
fn generic_code_uses_assignments_comparisons_sum_and_product() {
    use autograd_core::{gradient_forward, gradient_reverse};
    // At (1.5, -2, 3): acc = (x0^2 - x1 + x2^2) / 4 = 3.3125, s = 2.5, p = -9, so
    // f = -19.1875 and df/dx_i = dacc/dx_i + p + s p / x_i:
    // (0.75 - 9 - 15, -0.25 - 9 + 11.25, 1.5 - 9 - 7.5) = (-23.25, 2, -15).
    let x = [1.5, -2.0, 3.0];
    let want = [-23.25, 2.0, -15.0];
    let mut tape = Tape::<f64, 64>::new();
    let (mut gr, mut gf) = ([0.0; 3], [0.0; 3]);
    let y = gradient_reverse(&Idiomatic, &mut tape, &x, &mut gr).unwrap();
    let yf = gradient_forward(&Idiomatic, &x, &mut gf).unwrap();
    assert_eq!((y, yf), (-19.1875, -19.1875));
    assert_eq!(gr, want);
    assert_eq!(gf, want);
    // Comparisons of handles compare values.
    let (a, b) = (tape.var(1.0), tape.var(2.0));
    assert!(a < b && a == a * 1.0 && a != b);
}

#[test]
fn a_closure_over_an_array_is_differentiated_in_one_call() {
    let mut tape = Tape::<f64, 16>::new();
    let kept = tape.var(7.0).id().unwrap();
    // The Portuguese lesson's sin(x^2) at x = 2: 2 x cos(x^2) = 4 cos 4 = -2.6146.
    let (y, [dy]) = tape.gradient([2.0], |[x]| (x * x).sin()).unwrap();
    assert_eq!(y, 4f64.sin());
    assert_eq!(dy, 4.0 * 4f64.cos());
    // Two inputs, constants mixed in; the tape is back where it was and keeps its leaf.
    let (y, g) = tape
        .gradient([3.0, 4.0], |[a, b]| (a * a + b * b).sqrt() * 2.0)
        .unwrap();
    assert_eq!(y, 10.0);
    assert!(
        (g[0] - 1.2).abs() < 1e-15 && (g[1] - 1.6).abs() < 1e-15,
        "{g:?}"
    );
    assert_eq!(tape.len(), 1);
    assert_eq!(tape.get(kept).unwrap().value(), 7.0);
    // A constant result: zero gradient.
    assert_eq!(
        tape.gradient([1.0, 2.0], |_| Var::constant(5.0)),
        Ok((5.0, [0.0; 2]))
    );
    // Too big for the tape: the error says how much it asked for, and the tape is usable after.
    let err = tape
        .gradient([1.0; 8], |x| x.iter().fold(x[0], |s, v| (s * *v).sin()))
        .unwrap_err();
    assert!(
        matches!(err, TapeError::CapacityExceeded { capacity: 16, needed } if needed > 16),
        "{err}"
    );
    assert_eq!(tape.check(), Ok(()));
    assert_eq!(tape.gradient([0.0], |[x]| x.exp()), Ok((1.0, [1.0])));
}

#[test]
fn handles_print_their_value_and_debug_shows_what_they_hold() {
    let tape = Tape::<f64, 8>::new();
    let (x, y) = (tape.var(2.0), tape.var(3.0));
    let p = x * y;
    assert_eq!(format!("{p}"), "6");
    assert_eq!(format!("{:.2}", x), "2.00");
    assert_eq!(format!("{:?}", Var::<f64>::constant(1.5)), "Var(const 1.5)");
    assert_eq!(format!("{x:?}"), "Var(#0: 2.0)");
    assert_eq!(format!("{p:?}"), "Var(6.0, d/d#0 = 3.0, d/d#1 = 2.0)");
}

#[test]
fn gradients_written_out_are_zero_for_another_tapes_handles() -> Result<(), TapeError> {
    // Both tapes have a leaf at slot 0: `write_to` reads this sweep's adjoint only for its own
    // tape's handles, as `wrt` does, and writes 0 for the other's (not the adjoint at its index).
    let (a, b) = (Tape::<f64, 8>::new(), Tape::<f64, 8>::new());
    let (x, other) = (a.var(3.0), b.var(5.0));
    let g = a.backward(x * x)?;
    let mut out = [1.0; 2];
    g.write_to(&[x, other], &mut out)?;
    assert_eq!(out, [6.0, 0.0]);
    assert_eq!(g.wrt(other), 0.0);
    Ok(())
}

#[test]
fn gradients_debug_as_the_tape_they_read() -> Result<(), TapeError> {
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(3.0);
    let g = tape.backward(x * x)?;
    assert_eq!(
        format!("{g:?}"),
        "Gradients { tape: Tape { len: 1, capacity: 8, error: None } }"
    );
    Ok(())
}

#[test]
fn a_mark_knows_whether_anything_is_before_it() {
    let tape = Tape::<f64, 8>::new();
    assert!(tape.mark().is_empty());
    let _ = tape.var(1.0);
    let mark = tape.mark();
    assert_eq!((mark.len(), mark.is_empty()), (1, false));
}

#[test]
#[cfg(target_pointer_width = "64")]
fn an_id_past_every_tape_is_refused() {
    // An index past `u32` saturates to 2^32 - 2 (`NodeId::from_index`'s documentation): past
    // any tape's slots, and not the all-ones index that marks a write that did not fit.
    let tape = Tape::<f64, 8>::new();
    let _ = tape.var(1.0);
    let refused = tape.get(NodeId::from_index(1 << 32)).unwrap_err();
    let index = (u32::MAX - 1) as usize;
    assert_eq!(refused, TapeError::UnknownNode { index, len: 1 });
}
