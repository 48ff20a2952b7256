//! `stmt!` against independent references: the hand-derived gradient and Hessian of
//! Rosenbrock, micrograd's printed gradients, and the tape's operation-by-operation recording of
//! the same expression (every operation of the table, by an exhaustive match); the statements it
//! writes counted slot by slot; and every fallback (a non-finite value, two tapes, a full tape,
//! constants) giving what the operations give.

use autograd_core::testkit::{rosenbrock, rosenbrock_gradient, rosenbrock_hessian, MICROGRAD};
use autograd_core::{
    gradient_reverse, hessian, Dual, Error, Function, Number, Op, Scalar, Tape, TapeError, Var, Q16,
};
use autograd_macros::stmt;
use proptest::prelude::*;

/// Rosenbrock, each term one statement.
fn rosenbrock_statements<T: Number>(x: &[T]) -> T {
    let mut sum = T::zero();
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum = stmt!(sum + T::from_f64(100.0) * (b - a * a).square() + (T::one() - a).square());
    }
    sum
}

struct Statements;
impl Function for Statements {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        rosenbrock_statements(x)
    }
}

#[test]
fn rosenbrock_in_statements_has_the_hand_derived_gradient() {
    let x: Vec<f64> = (0..12)
        .map(|i| 0.5 + 0.13 * i as f64 - 0.02 * (i * i) as f64)
        .collect();
    // On f64 it is the function itself, bit for bit.
    assert_eq!(rosenbrock_statements(&x), rosenbrock(&x));
    let mut tape = Tape::<f64, 256>::new();
    let mut g = vec![0.0; x.len()];
    let y = gradient_reverse(&Statements, &mut tape, &x, &mut g).unwrap();
    assert_eq!(y, rosenbrock(&x));
    let mut want = vec![0.0; x.len()];
    rosenbrock_gradient(&x, &mut want);
    for (got, want) in g.iter().zip(&want) {
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "{got} vs {want}"
        );
    }
}

#[test]
fn a_term_is_one_statement_of_its_three_values() {
    // Leaves x0, x1, x2 in slots 0-2. Term 1: sum is the constant 0, so the term depends on
    // x0 and x1 only: two pending pairs, nothing written. Term 2: sum (two pairs) + x1, x2:
    // one statement of the four pairs {x0, x1 (from sum), x1, x2}, slots 3-7.
    let tape = Tape::<f64, 16>::new();
    let x = [tape.var(0.0), tape.var(1.0), tape.var(2.0)];
    let first = rosenbrock_statements(&x[..2]);
    assert_eq!((tape.len(), first.id()), (3, None));
    let y = rosenbrock_statements(&x);
    assert_eq!(tape.len(), 8);
    let node = tape.node(y.id().expect("a statement")).unwrap();
    assert_eq!((node.op, node.value), (Op::Add, 201.0));
    let g = tape.backward(y).unwrap();
    // By hand (rosenbrock_gradient's formula): t0 = 1, t1 = 1.
    assert_eq!(
        [g.wrt(x[0]), g.wrt(x[1]), g.wrt(x[2])],
        [-2.0, -200.0, 200.0]
    );
}

#[test]
fn rosenbrock_in_statements_has_the_hand_derived_hessian() {
    // Forward over reverse: the statement's partials computed on dual numbers.
    let x = [0.3, -1.2, 0.8, 2.0];
    let mut tape = Tape::<Dual<f64>, 128>::new();
    let (mut g, mut h) = ([0.0; 4], [0.0; 16]);
    hessian(&Statements, &mut tape, &x, &mut g, &mut h).unwrap();
    let mut want = [0.0; 16];
    rosenbrock_hessian(&x, &mut want);
    for (got, want) in h.iter().zip(&want) {
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "{got} vs {want}"
        );
    }
}

/// micrograd's README function, each of its lines one `stmt!`.
fn micrograd<T: Number>(a: T, b: T) -> T {
    let mut c = stmt!(a + b);
    let mut d = stmt!(a * b + b.powi(3));
    c = stmt!(c + (c + 1.0));
    c = stmt!(c + (1.0 + c + (-a)));
    d = stmt!(d + (d * 2.0 + (b + a).relu()));
    d = stmt!(d + (3.0 * d + (b - a).relu()));
    let e = stmt!(c - d);
    let f = stmt!(e.powi(2));
    let g = stmt!(f / 2.0);
    stmt!(g + 10.0 / f)
}

#[test]
fn micrograd_in_statements_prints_its_readme_gradients() {
    let tape = Tape::<f64, 64>::new();
    let (a, b) = (tape.var(MICROGRAD.x[0]), tape.var(MICROGRAD.x[1]));
    let g = micrograd(a, b);
    let grads = tape.backward(g).unwrap();
    assert!(MICROGRAD.agrees(g.value(), &[grads.wrt(a), grads.wrt(b)], 1e-12));
    assert_eq!(g.value(), micrograd(MICROGRAD.x[0], MICROGRAD.x[1]));
}

/// `op` applied to `x` inside one statement with `y` and `z`, and the same expression operation
/// by operation: `None` for the operations `stmt!` does not name (leaves, n-ary statements, the
/// constant folds, which `stmt!` makes of constants itself). Exhaustive, so an operation added to
/// the table fails to compile here until `stmt!` is tested with it.
#[allow(clippy::type_complexity)]
fn both<'t>(
    op: Op,
    x: Var<'t, f64>,
    y: Var<'t, f64>,
    z: Var<'t, f64>,
) -> Option<[Var<'t, f64>; 2]> {
    macro_rules! pair {
        ($($e:tt)*) => {
            [stmt!($($e)*), $($e)*]
        };
    }
    Some(match op {
        Op::Leaf | Op::Sum | Op::Dot | Op::MulAdd | Op::Scale | Op::Shift => return None,
        Op::Add => pair!(x + y * z),
        Op::Sub => pair!(x - y * z),
        Op::Mul => pair!(x * y + z),
        Op::Div => pair!(x / y + z),
        Op::Pow => pair!(x.abs().pow(y) * z),
        Op::Max => pair!(x.max(y) * z),
        Op::Min => pair!(x.min(y) * z),
        Op::Atan2 => pair!(x.atan2(y) * z),
        Op::Hypot => pair!(x.hypot(y) * z),
        Op::Neg => pair!(-x * y + z),
        Op::Square => pair!(x.square() * y + z),
        Op::Powi => pair!(x.powi(3) * y + z),
        Op::Powf => pair!(x.abs().powf(1.5) * y + z),
        Op::Exp => pair!(x.exp() * y + z),
        Op::Ln => pair!(x.abs().ln() * y + z),
        Op::Sqrt => pair!(x.abs().sqrt() * y + z),
        Op::Sin => pair!(x.sin() * y + z),
        Op::Cos => pair!(x.cos() * y + z),
        Op::Tan => pair!(x.tan() * y + z),
        Op::Tanh => pair!(x.tanh() * y + z),
        Op::Sigmoid => pair!(x.sigmoid() * y + z),
        Op::Relu => pair!(x.relu() * y + z),
        Op::LeakyRelu => pair!(x.leaky_relu(0.1) * y + z),
        Op::Abs => pair!(x.abs() * y + z),
        Op::Softplus => pair!(x.softplus() * y + z),
        Op::Atan => pair!(x.atan() * y + z),
        Op::Asin => pair!((x * 0.3).asin() * y + z),
        Op::Acos => pair!((x * 0.3).acos() * y + z),
        Op::Sinh => pair!(x.sinh() * y + z),
        Op::Cosh => pair!(x.cosh() * y + z),
        Op::Log2 => pair!(x.abs().log2() * y + z),
        Op::Log10 => pair!(x.abs().log10() * y + z),
        Op::Exp2 => pair!(x.exp2() * y + z),
        Op::Cbrt => pair!(x.cbrt() * y + z),
    })
}

proptest! {
    #[test]
    fn every_operation_in_a_statement_differentiates_as_the_operations_do(
        x in -3.0f64..3.0,
        y in 0.2f64..2.5,
        z in -2.0f64..2.0,
    ) {
        for &op in Op::ALL {
            let tape = Tape::<f64, 64>::new();
            let (vx, vy, vz) = (tape.var(x), tape.var(y), tape.var(z));
            let Some([s, o]) = both(op, vx, vy, vz) else { continue };
            // Both are finite at these points (the statement is not falling back).
            prop_assert!(s.value().is_finite(), "{op}");
            prop_assert_eq!(s.value(), o.value(), "{}", op);
            let gs = tape.backward(s).unwrap();
            let gs = [gs.wrt(vx), gs.wrt(vy), gs.wrt(vz)];
            let go = tape.backward(o).unwrap();
            let go = [go.wrt(vx), go.wrt(vy), go.wrt(vz)];
            for (a, b) in gs.iter().zip(&go) {
                prop_assert!((a - b).abs() <= 1e-13 * b.abs().max(1.0), "{}: {:?} vs {:?}", op, gs, go);
            }
        }
    }
}

#[test]
fn every_operation_makes_one_statement() {
    // Three leaves (slots 0-2), then one statement of three operands, its header in slot 6,
    // labelled with the operation at the expression's root, for every operation `stmt!` names,
    // at a point where no partial is 0 but `max`'s and `min`'s (kept: nothing in their
    // expressions is flat, so a zero partial does not cut).
    for &op in Op::ALL {
        let tape = Tape::<f64, 64>::new();
        let (x, y, z) = (tape.var(0.7), tape.var(1.3), tape.var(-0.4));
        let Some([s, _]) = both(op, x, y, z) else {
            continue;
        };
        let id = s.id().unwrap_or_else(|| panic!("{op}: written"));
        let node = tape.node(id).unwrap();
        let root = match op {
            Op::Sub => Op::Sub,
            Op::Pow | Op::Max | Op::Min | Op::Atan2 | Op::Hypot => Op::Mul,
            _ => Op::Add,
        };
        assert_eq!((id.index(), node.op, node.operands), (6, root, 3), "{op}");
    }
}

#[test]
fn a_non_finite_value_is_recorded_operation_by_operation() {
    // ln(0) = -inf: the statement falls back to the operations, so NaN provenance names `ln`
    // (slots: 0 x, 1 y, 2 z, 3-4 ln x written as its own statement), as without `stmt!`.
    let tape = Tape::<f64, 32>::new();
    let (x, y, z) = (tape.var(0.0), tape.var(2.0), tape.var(1.0));
    let s = stmt!(x.ln() * y + z);
    assert_eq!(s.value(), f64::NEG_INFINITY);
    let a = tape.non_finite_origin(s).unwrap();
    assert_eq!((a.index, a.op), (4, Op::Ln));
    assert_eq!(
        tape.backward_checked(s).unwrap_err(),
        Error::NonFinite {
            statement: 4,
            op: Op::Ln,
            in_gradient: false
        }
    );
}

/// `sqrt(x) y + z` at x = 0, y = 2, z = 1 on a fresh tape, with `stmt!` or operation by
/// operation: the value, the tape's length and the checked sweep's error.
fn sqrt_at_zero<S: Scalar>(statement: bool) -> (S, usize, Error) {
    let tape = Tape::<S, 32>::new();
    let [x, y, z] = [0.0, 2.0, 1.0].map(|v| tape.var(S::from_f64(v)));
    let s = if statement {
        stmt!(x.sqrt() * y + z)
    } else {
        x.sqrt() * y + z
    };
    (s.value(), tape.len(), tape.backward_checked(s).unwrap_err())
}

#[test]
fn a_partial_that_is_not_finite_is_recorded_operation_by_operation() {
    // sqrt at 0: the value 0 is finite, its derivative is not (infinite in f64, poison in Q16,
    // whose products are costly and tested one by one: `Scalar::COSTLY_PRODUCT`). The statement
    // falls back to the operations, which write sqrt's result as a statement of its own (slots:
    // 0 x, 1 y, 2 z, 3-4 sqrt x with its partial, 5-8 the product and sum's statement of three
    // operands), so the tape and a checked sweep's error are what they are without `stmt!`.
    // (One statement would hold that partial as an operand of the sum's statement, slots 3-6.)
    let error = Error::NonFinite {
        statement: 4,
        op: Op::Sqrt,
        in_gradient: true,
    };
    assert_eq!(sqrt_at_zero::<f64>(true), sqrt_at_zero::<f64>(false));
    assert_eq!(sqrt_at_zero::<f64>(true), (1.0, 9, error));
    assert_eq!(sqrt_at_zero::<Q16>(true), sqrt_at_zero::<Q16>(false));
    assert_eq!(sqrt_at_zero::<Q16>(true), (Q16::from_f64(1.0), 9, error));
}

#[test]
fn leaves_of_two_tapes_are_the_operations_error() {
    let (t1, t2) = (Tape::<f64, 16>::new(), Tape::<f64, 16>::new());
    let (a, b, c) = (t1.var(1.0), t2.var(2.0), t1.var(3.0));
    let y = stmt!(a * b + c);
    assert_eq!(y.value(), 5.0);
    assert_eq!(t1.backward(y).unwrap_err(), TapeError::ForeignVar);
    assert_eq!(t1.check(), Err(TapeError::ForeignVar));
    assert_eq!(t2.check(), Err(TapeError::ForeignVar));
}

#[test]
fn a_full_tape_is_the_sticky_error_and_values_stay_right() {
    // Three leaves fill the tape: the statement does not fit (its value is still right), and
    // the error says so.
    let tape = Tape::<f64, 3>::new();
    let (x, y, z) = (tape.var(1.0), tape.var(2.0), tape.var(3.0));
    let s = stmt!(x * y + z.sin());
    assert_eq!(s.value(), 2.0 + 3.0_f64.sin());
    assert!(matches!(
        tape.backward(s),
        Err(TapeError::CapacityExceeded { capacity: 3, .. })
    ));
    // Room for the largest statement three leaves make (seven slots) is not needed when the
    // statement is smaller: four slots for three operands and a header.
    let tape = Tape::<f64, 7>::new();
    let (x, y, z) = (tape.var(1.0), tape.var(2.0), tape.var(3.0));
    let s = stmt!(x * y + z.sin());
    assert_eq!(tape.len(), 7);
    let g = tape.backward(s).unwrap();
    assert_eq!([g.wrt(x), g.wrt(y), g.wrt(z)], [2.0, 1.0, 3.0_f64.cos()]);
}

#[test]
fn leaves_of_one_pair_need_room_for_one_operand_each_and_a_header() {
    // Three inputs and `sin(x) sin(y) sin(z) + x y`: one statement of three operands and a
    // header (slots 3-6) where four slots are free; operation by operation it would take eight
    // (a statement of the three sines, then one of it, x and y).
    let tape = Tape::<f64, 7>::new();
    let (x, y, z) = (tape.var(0.5), tape.var(1.5), tape.var(2.5));
    let s = stmt!(x.sin() * y.sin() * z.sin() + x * y);
    assert_eq!((s.id().unwrap().index(), tape.len()), (6, 7));
    let g = tape.backward(s).unwrap();
    // By hand, with the platform's `sin` and `cos` (the tape's are `libm`'s: a few ulps apart
    // at most).
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-14 * b.abs().max(1.0);
    let (sx, sy, sz) = (0.5_f64.sin(), 1.5_f64.sin(), 2.5_f64.sin());
    let want = [
        0.5_f64.cos() * sy * sz + 1.5,
        sx * 1.5_f64.cos() * sz + 0.5,
        sx * sy * 2.5_f64.cos(),
    ];
    let got = [g.wrt(x), g.wrt(y), g.wrt(z)];
    assert!(
        got.iter().zip(want).all(|(&a, b)| close(a, b)),
        "{got:?} vs {want:?}"
    );
    // One slot fewer: the operations, which overflow; the value is still right.
    let tape = Tape::<f64, 6>::new();
    let (x, y, z) = (tape.var(0.5), tape.var(1.5), tape.var(2.5));
    let s = stmt!(x.sin() * y.sin() * z.sin() + x * y);
    assert!(close(s.value(), sx * sy * sz + 0.75));
    assert!(matches!(
        tape.backward(s),
        Err(TapeError::CapacityExceeded { capacity: 6, .. })
    ));
}

#[test]
fn constants_make_a_constant_and_a_zero_partial_sends_nothing() {
    let tape = Tape::<f64, 16>::new();
    let c = Var::constant(2.0);
    assert!(stmt!(c * c + 1.0).is_constant());
    // relu below 0 is flat: x sends nothing, and neither does y (its partial relu(x) is 0), so
    // the result depends on z alone and nothing is written.
    let (x, y, z) = (tape.var(-1.0), tape.var(5.0), tape.var(3.0));
    let s = stmt!(x.relu() * y + z);
    assert_eq!((s.value(), tape.len()), (3.0, 3));
    let g = tape.backward(s).unwrap();
    assert_eq!([g.wrt(x), g.wrt(y), g.wrt(z)], [0.0, 0.0, 1.0]);
}

#[test]
fn a_zero_partial_cuts_only_where_the_expression_holds_a_flat_operation() {
    // x * y at y = 0: nothing flat, x stays an operand with partial 0 (three operands, slots
    // 3-6), as operation by operation.
    let tape = Tape::<f64, 32>::new();
    let (x, y, z) = (tape.var(2.0), tape.var(0.0), tape.var(3.0));
    let s = stmt!(x * y + z * z);
    let node = tape.node(s.id().unwrap()).unwrap();
    assert_eq!((s.id().unwrap().index(), node.operands), (6, 3));
    // The same with relu in the expression: x's zero partial is not an operand, two pairs
    // remain, kept in the handle: nothing written.
    let r = stmt!(x * y + z.relu() * z);
    assert_eq!((r.id(), tape.len()), (None, 7));
    let g = tape.backward(r).unwrap();
    assert_eq!([g.wrt(x), g.wrt(y), g.wrt(z)], [0.0, 2.0, 6.0]);
}

#[test]
fn the_largest_statement_three_leaves_make_has_six_operands() {
    // Each leaf pending on two values: a statement of six operands and a header, slots 6-12,
    // the room the statement asks for before it writes.
    let tape = Tape::<f64, 13>::new();
    let x: Vec<Var<'_, f64>> = (1..=6).map(|k| tape.var(k as f64)).collect();
    let (u, v, w) = (x[0] * x[1], x[2] * x[3], x[4] * x[5]);
    let s = stmt!(u * v + w);
    assert_eq!((s.id().unwrap().index(), tape.len()), (12, 13));
    let g = tape.backward(s).unwrap();
    // d/dx_k of x1 x2 x3 x4 + x5 x6, by hand.
    let got: Vec<f64> = x.iter().map(|&xk| g.wrt(xk)).collect();
    assert_eq!(got, [24.0, 12.0, 8.0, 6.0, 6.0, 5.0]);
}

#[test]
fn two_pairs_on_one_value_are_one_pending_pair() {
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(2.0);
    let (u, v) = (x * 2.0, x * 3.0);
    // u v = 6 x^2: two pairs on x, added into one (12 x), nothing written.
    let s = stmt!(u * v);
    assert_eq!((s.value(), s.id(), tape.len()), (24.0, None, 1));
    assert_eq!(tape.backward(s).unwrap().wrt(x), 24.0);
    // Two finite partials whose sum overflows (on a value small enough that neither product
    // by it overflows): the operations record it, as without `stmt!` (the merge's statement,
    // labelled `+`, slots 2-3, named by the checked sweep).
    let z = tape.var(1e-309);
    let (big, huge) = (z * 1e308, z * 1e308);
    assert_eq!((big.id(), tape.len()), (None, 2));
    let t = stmt!(big + huge);
    assert_eq!(t.value(), big.value() + huge.value());
    assert_eq!((t.id().map(|id| id.index()), tape.len()), (Some(3), 4));
    let node = tape.node(t.id().unwrap()).unwrap();
    assert_eq!((node.op, node.operands), (Op::Add, 1));
    assert_eq!(
        tape.backward_checked(t).unwrap_err(),
        Error::NonFinite {
            statement: 3,
            op: Op::Add,
            in_gradient: true
        }
    );
}

#[test]
fn two_pairs_whose_sum_overflows_fall_back_where_nothing_else_does() {
    // u - w = 0 exactly, u = z 2^1023 and w = 2^-6 - z 2^1023 at z = 2^-1030 (both 2^-7), so
    // the value is 0 and the running product of the value and the partials (2^1023 and, through
    // the minus, 2^1023 again) is 0, finite: only the merge of the two pairs on z overflows
    // (2^1024). The statement falls back to the operations, which write the difference as a
    // statement of its own with that infinite partial (slots 1-2), as without `stmt!`.
    let run = |statement: bool| {
        let tape = Tape::<f64, 16>::new();
        let big = 2f64.powi(1023);
        let z = tape.var(f64::MIN_POSITIVE / 2f64.powi(8));
        let (u, w) = (z * big, 2f64.powi(-6) - z * big);
        let s = if statement { stmt!(u - w) } else { u - w };
        (s.value(), tape.len(), tape.backward_checked(s).unwrap_err())
    };
    let with = run(true);
    assert_eq!(with, run(false));
    let error = Error::NonFinite {
        statement: 2,
        op: Op::Sub,
        in_gradient: true,
    };
    assert_eq!(with, (0.0, 3, error));
}

#[test]
fn a_constant_as_the_first_leaf_still_makes_one_statement() {
    // The first leaf is a constant (as a running sum starts): the leaves' tape is found past it,
    // and `c sin(x y z)` is one statement of three operands (slots 3-5, header 6) labelled with
    // its root, `*`. The operations would write `x y z` and keep `c sin(.)` in a handle.
    let tape = Tape::<f64, 16>::new();
    let (x, y, z) = (tape.var(0.5), tape.var(1.5), tape.var(-2.0));
    let c = Var::constant(3.0);
    let s = stmt!(c * (x * y * z).sin());
    let id = s.id().expect("one statement");
    let node = tape.node(id).unwrap();
    assert_eq!((id.index(), node.op, node.operands), (6, Op::Mul, 3));
    // d/dx = 3 cos(xyz) yz, at xyz = -1.5.
    let g = tape.backward(s).unwrap();
    let expected = 3.0 * (-1.5f64).cos() * (1.5 * -2.0);
    assert!((g.wrt(x) - expected).abs() <= 1e-15 * expected.abs());
}

#[test]
fn no_partial_left_is_a_value_that_depends_on_nothing() {
    // relu below 0 in the expression: both leaves' partials are 0 (x's by relu', y's by
    // relu(x) = 0), nothing is written and the result depends on nothing.
    let tape = Tape::<f64, 16>::new();
    let (x, y) = (tape.var(-1.0), tape.var(4.0));
    let s = stmt!(x.relu() * y);
    assert_eq!((s.value(), s.id(), tape.len()), (0.0, None, 2));
    assert!(!s.is_constant());
    let g = tape.backward(s).unwrap();
    assert_eq!([g.wrt(x), g.wrt(y)], [0.0, 0.0]);
}

#[test]
fn a_leaf_is_evaluated_once_in_order() {
    let mut calls = Vec::new();
    let mut leaf = |name: &'static str, v: f64| {
        calls.push(name);
        v
    };
    // `a` named twice is one leaf; a call is a leaf of its own, evaluated once.
    let a = 3.0_f64;
    let y = stmt!(a * leaf("first", 2.0) + a * leaf("second", 5.0));
    assert_eq!(y, 21.0);
    assert_eq!(calls, ["first", "second"]);
}

#[test]
fn other_number_types_evaluate_the_expression_as_written() {
    let (a, b) = (Dual::new(0.5, 1.0), Dual::constant(2.0));
    assert_eq!(stmt!(a.sin() * b + a), a.sin() * b + a);
    let (p, q) = (Q16::from_f64(0.5), Q16::from_f64(2.0));
    assert_eq!(stmt!(p * q + 1.0), p * q + Q16::from_f64(1.0));
    let (u, v) = (0.25_f32, 4.0_f32);
    assert_eq!(stmt!(u.exp() * v - u), Number::exp(u) * v - u);
}

#[test]
fn a_tape_of_fixed_point_records_statements() {
    let tape = Tape::<Q16, 16>::new();
    let (x, y, z) = (
        tape.var(Q16::from_f64(1.5)),
        tape.var(Q16::from_f64(2.0)),
        tape.var(Q16::from_f64(0.25)),
    );
    let s = stmt!(x * y + z * x);
    let g = tape.backward(s).unwrap();
    assert_eq!(g.wrt(x), Q16::from_f64(2.25));
    assert_eq!(g.wrt(y), Q16::from_f64(1.5));
    assert_eq!(g.wrt(z), Q16::from_f64(1.5));
}
