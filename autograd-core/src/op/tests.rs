use super::*;

#[test]
fn codes_round_trip_and_names_are_unique() {
    for (i, op) in Op::ALL.iter().enumerate() {
        assert_eq!(*op as usize, i);
        assert_eq!(Op::from_code(i as u8), *op);
        for other in &Op::ALL[..i] {
            assert_ne!(other.name(), op.name());
        }
    }
}

#[test]
fn arity_groups() {
    assert_eq!(Op::Leaf.arity(), 0);
    assert_eq!(Op::MulAdd.arity(), 3);
    assert_eq!(Op::Add.arity(), 2);
    assert_eq!(Op::Min.arity(), 2);
    assert_eq!(Op::Neg.arity(), 1);
    assert_eq!(Op::Softplus.arity(), 1);
}

/// `x` through one-input operation `op` on a tape, with `dy/dx` read back by a sweep: `None`
/// for an operation this test does not apply, or where the value is not finite.
fn value_and_derivative<S: Scalar>(op: Op, x: S) -> Option<(S, S)> {
    let tape = crate::Tape::<S, 8>::new();
    let v = tape.var(x);
    let y = match op {
        Op::Neg => -v,
        Op::Shift => v.shift(S::from_f64(-3.5)),
        Op::Sin => v.sin(),
        Op::Cos => v.cos(),
        Op::Tanh => v.tanh(),
        Op::Sigmoid => v.sigmoid(),
        Op::Softplus => v.softplus(),
        Op::Atan => v.atan(),
        Op::Relu => v.relu(),
        Op::Abs => v.abs(),
        Op::Exp => v.exp(),
        _ => return None,
    };
    let g = tape.backward(y).ok()?.wrt(v);
    y.value().is_finite().then_some((y.value(), g))
}

/// The claim the recording's value-only finiteness test rests on (`var/combine.rs`'s
/// `finite_result`): every operation [`Op::derivative_within_one`] names has a local
/// derivative, as its row computes it in `f32` and `f64`, of at most 1 in magnitude wherever
/// its value is finite, from the subnormals to the largest finite inputs (near multiples of
/// pi/2 too).
#[test]
fn an_operation_claimed_within_one_has_a_derivative_within_one() {
    let mut inputs = vec![0.0, f64::MIN_POSITIVE, 5e-324, f64::MAX, f32::MAX as f64];
    for e in -40..=40 {
        for m in [1.0, 1.5, 2.0, 3.0, 5.0, 7.0] {
            inputs.push(m * 10f64.powi(e));
        }
    }
    for k in 1..2000 {
        inputs.push(k as f64 * core::f64::consts::FRAC_PI_2);
        inputs.push(k as f64 * 0.0173);
    }
    let negated: Vec<f64> = inputs.iter().map(|x| -x).collect();
    inputs.extend(negated);
    let mut claimed = Vec::new();
    for &op in Op::ALL.iter().filter(|op| op.derivative_within_one()) {
        assert!(
            value_and_derivative(op, 0.5_f64).is_some(),
            "{} is claimed and not applied here",
            op.name()
        );
        claimed.push(op.name());
        for &x in &inputs {
            if let Some((y, d)) = value_and_derivative(op, x) {
                assert!(
                    d.abs() <= 1.0,
                    "f64 {}({x:e}) = {y:e}: derivative {d:e}",
                    op.name()
                );
            }
            if let Some((y, d)) = value_and_derivative(op, x as f32) {
                assert!(
                    d.abs() <= 1.0,
                    "f32 {}({x:e}) = {y:e}: derivative {d:e}",
                    op.name()
                );
            }
        }
    }
    // Hand-listed: an operation claimed or dropped by mistake changes this list.
    assert_eq!(
        claimed,
        ["neg", "+c", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "softplus", "atan"]
    );
}

#[test]
fn binary_rules_match_hand_derived_partials() {
    assert_eq!(binary(Op::Mul, 3.0_f64, 4.0), (12.0, 4.0, 3.0));
    assert_eq!(binary(Op::Div, 1.0_f64, 2.0), (0.5, 0.5, -0.25));
    assert_eq!(binary(Op::Sub, 1.0_f64, 2.0), (-1.0, 1.0, -1.0));
    assert_eq!(binary(Op::Max, 1.0_f64, 1.0), (1.0, 0.5, 0.5));
    assert_eq!(binary(Op::Min, 1.0_f64, 2.0), (1.0, 1.0, 0.0));
    let (z, dx, dy) = binary(Op::Pow, 2.0_f64, 3.0);
    assert_eq!((z, dx), (8.0, 12.0));
    assert!((dy - 8.0 * 2.0_f64.ln()).abs() < 1e-15);
    assert_eq!(binary(Op::Pow, 0.0_f64, 2.0), (0.0, 0.0, 0.0));
}
