//! A tape of `Outlined<f64>` (every operation a call) records what a tape of `f64` records, bit
//! for bit: the same statements, operations, values, operand counts and gradients, for every
//! operation of the table, the operators with constants, the n-ary statements, `stmt!`'s
//! statements (and their fallback) and a long function; and its errors are the same.

use autograd_core::testkit::{rosenbrock, Binary, Unary};
use autograd_core::{Number, Op, Outlined, Scalar, Tape, TapeError, Var};
use autograd_macros::stmt;

/// Everything a recording leaves: the tape's statements after a sweep from `y` (operation,
/// value and adjoint as `f64` bits, operand count), or the sweep's error.
type Record = Result<Vec<(Op, u64, u64, usize)>, TapeError>;

/// Records `f` on a fresh tape of `S` at `xs` and sweeps back from its result.
macro_rules! recorded {
    ($S:ty, $xs:expr, |$tape:ident, $x:ident| $body:expr) => {{
        let $tape = Tape::<$S, 4096>::new();
        let $x: Vec<Var<'_, $S>> = $xs.iter().map(|&v| $tape.var(<$S>::from_f64(v))).collect();
        let y: Var<'_, $S> = $body;
        // Written as a statement of its own, so its label is on the tape too.
        let y = y.recorded().unwrap_or(y);
        let swept: Record = $tape.backward(y).map(|_| {
            let mut nodes = Vec::new();
            $tape.for_each_node(|_, n| {
                nodes.push((
                    n.op,
                    n.value.to_f64().to_bits(),
                    n.grad.to_f64().to_bits(),
                    n.operands,
                ))
            });
            nodes
        });
        (y.value().to_f64().to_bits(), swept)
    }};
}

/// The same recording on both tapes: equal bit for bit.
macro_rules! same {
    ($what:expr, $xs:expr, |$tape:ident, $x:ident| $body:expr) => {{
        let inline = recorded!(f64, $xs, |$tape, $x| $body);
        let outlined = recorded!(Outlined<f64>, $xs, |$tape, $x| $body);
        assert_eq!(inline, outlined, "{} at {:?}", $what, $xs);
    }};
}

const POINTS: [f64; 9] = [-2.5, -1.0, -0.3, 0.0, 0.2, 0.5, 1.0, 1.7, 40.0];

#[test]
fn every_one_input_operation_records_the_same() {
    for u in Unary::ALL {
        for &a in &POINTS {
            // Through a pending pair (a product of two inputs), so the handle carries two.
            same!(u.name(), [a, 0.75], |t, x| u.apply(x[0] * x[1] + x[0]));
            same!(u.name(), [a], |t, x| u.apply(x[0]));
        }
    }
    for &a in &POINTS {
        same!("powi", [a, 0.5], |t, x| (x[0] * x[1]).powi(3));
        same!("powi", [a], |t, x| x[0].powi(-2));
        same!("powf", [a], |t, x| Number::powf(x[0], 1.5));
        same!("leaky_relu", [a, 2.0], |t, x| Number::leaky_relu(
            x[0] * x[1],
            0.01
        ));
        same!("scalar operands", [a, 2.0], |t, x| {
            x[0].mul_f64(3.0).add_f64(-1.0).rsub_f64(2.0) * x[1]
        });
    }
}

#[test]
fn every_operator_between_handles_records_the_same() {
    for b in Binary::ALL {
        for &a in &POINTS {
            for &c in &[-1.5, 0.0, 0.5, 3.0] {
                // Shapes: two leaves; a handle of two pairs with one of one pair (a statement
                // written apart); pairs with an index in common (a merge); a constant operand.
                same!(b.name(), [a, c], |t, x| b.apply(x[0], x[1]));
                same!(b.name(), [a, c, 0.25], |t, x| b
                    .apply(x[0] * x[1], x[2].sin()));
                same!(b.name(), [a, c], |t, x| b.apply(x[0] * x[1], x[0].exp()));
                same!(b.name(), [a, c], |t, x| b
                    .apply(x[0] * x[1], Number::from_f64(c)));
                same!(b.name(), [a, c], |t, x| b
                    .apply(Number::from_f64(a), x[1].cos()));
            }
        }
    }
}

#[test]
fn statements_of_many_operands_and_long_functions_record_the_same() {
    let xs: Vec<f64> = (0..64).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
    same!("rosenbrock", &xs, |t, x| rosenbrock(&x));
    same!("sum", &xs, |t, x| Number::tanh(Number::sum(&x[..])));
    same!("dot", &xs, |t, x| Number::dot(&x[..32], &x[32..]));
    same!("affine", &xs, |t, x| Number::relu(Number::affine(
        &x[1..5],
        &x[5..9],
        x[0]
    )));
    same!("mul_add", &xs, |t, x| Number::mul_add(
        x[0],
        x[1],
        x[2].sqrt()
    ));
    // One statement an expression (`stmt!`), and its fallback, the operations one by one, where
    // a value is not finite (`ln` of a negative).
    same!("stmt!", &xs, |t, x| {
        let (a, b, c) = (x[0], x[1], x[2]);
        stmt!(a * b.sin() + (1.0 - c).square() * 100.0 + (a * c).tanh())
    });
    same!("stmt! falling back", [-1.0, 2.0], |t, x| {
        let (a, b) = (x[0], x[1]);
        stmt!((a * b).ln() + b.exp())
    });
    same!("affine_layer", &xs, |t, x| {
        let mut y = [Number::from_f64(0.0); 4];
        Number::affine_layer(&x[..12], &x[12..14], &mut y);
        Number::sum(&y[..])
    });
}

#[test]
fn a_non_finite_result_and_an_overflow_report_the_same() {
    // NaN provenance names the same statement and operation.
    same!("ln of a negative", [-1.0, 2.0], |t, x| (x[0] * x[1]).ln()
        + x[1]);
    let (_, nodes) = recorded!(Outlined<f64>, [-1.0, 2.0], |t, x| (x[0] * x[1]).ln() + x[1]);
    let ln = nodes
        .unwrap()
        .into_iter()
        .find(|n| n.0 == Op::Ln)
        .expect("a statement of ln");
    assert!(f64::from_bits(ln.1).is_nan());
    // A tape too small: the same error, with the same count of slots asked for.
    let small = |xs: &[f64]| {
        let tape = Tape::<Outlined<f64>, 8>::new();
        let x: Vec<_> = xs.iter().map(|&v| tape.var(Outlined(v))).collect();
        tape.backward(rosenbrock(&x)).map(|_| ())
    };
    let inline = {
        let tape = Tape::<f64, 8>::new();
        let x: Vec<_> = [1.0, 2.0, 3.0, 4.0].iter().map(|&v| tape.var(v)).collect();
        tape.backward(rosenbrock(&x)).map(|_| ())
    };
    assert_eq!(small(&[1.0, 2.0, 3.0, 4.0]), inline);
    assert!(inline.is_err());
}

#[test]
fn as_a_plain_number_it_is_its_scalar() {
    for &a in &POINTS {
        for u in Unary::ALL {
            assert_eq!(
                u.apply(Outlined(a)).0.to_bits(),
                u.apply(a).to_bits(),
                "{}",
                u.name()
            );
        }
        for b in Binary::ALL {
            let (x, y) = (b.apply(Outlined(a), Outlined(0.7)), b.apply(a, 0.7));
            assert_eq!(x.0.to_bits(), y.to_bits(), "{}", b.name());
        }
        assert_eq!(Outlined(a).ln_1p().0.to_bits(), Scalar::ln_1p(a).to_bits());
        let (s, c) = Number::sin_cos(a);
        assert_eq!(Outlined(a).sin_cos(), (Outlined(s), Outlined(c)));
    }
    // Printed as its scalar, with `{}` and with `{:?}` (as a handle's `Debug` shows its value).
    assert_eq!(Outlined(2.5_f32).to_string(), "2.5");
    assert_eq!(format!("{:?}", Outlined(-0.125_f64)), "-0.125");
    assert_eq!(format!("{:?}", [Outlined(1.0_f32)]), "[1.0]");
    const { assert!(<Outlined<f64> as Scalar>::OUTLINED) };
}
