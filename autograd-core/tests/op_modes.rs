//! Every operation, three modes: each operation of the table differentiated in reverse mode, in
//! forward mode (`Dual` and `DualVec`) and by central differences, in `f32` and `f64`, against
//! each other and against the derivative worked out by hand; the kink conventions and the
//! saturating functions' derivatives in every mode. (`tests/modes.rs`: the drivers on whole
//! functions.)

use autograd_core::{
    compare, gradient_central, gradient_forward, gradient_forward_vec, gradient_reverse, Function,
    Number, Scalar, Tape, Tolerance,
};

/// Every operation of the tape, applied to `x[0]` (and `x[1]` for two-input ones), as the
/// cases of [`tested_by`] call it.
#[derive(Clone, Copy, Debug)]
enum Op {
    Sum,
    Dot,
    MulAdd,
    Add,
    Sub,
    Mul,
    Div,
    Neg,
    AddConst,
    ConstSub,
    ConstMul,
    ConstDiv,
    DivConst,
    Powi(i32),
    Powf(f64),
    Pow,
    Exp,
    Ln,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Relu,
    LeakyRelu,
    Abs,
    Softplus,
    Max,
    Min,
    Square,
    Atan,
    Asin,
    Acos,
    Sinh,
    Cosh,
    Log2,
    Log10,
    Exp2,
    Cbrt,
    Atan2,
    Hypot,
}

impl Function for Op {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        let c = T::from_f64(1.75);
        let (a, b) = (x[0], x.get(1).copied().unwrap_or(T::zero()));
        match *self {
            Op::Sum => Number::sum(&[a, b, c]),
            Op::Dot => T::dot(&[a, c], &[b, a]),
            Op::MulAdd => a.mul_add(b, c),
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
            Op::Neg => -a,
            Op::AddConst => a + c,
            Op::ConstSub => c - a,
            Op::ConstMul => c * a,
            Op::ConstDiv => c / a,
            Op::DivConst => a / c,
            Op::Powi(n) => a.powi(n),
            Op::Powf(e) => a.powf(e),
            Op::Pow => a.pow(b),
            Op::Exp => a.exp(),
            Op::Ln => a.ln(),
            Op::Sqrt => a.sqrt(),
            Op::Sin => a.sin(),
            Op::Cos => a.cos(),
            Op::Tan => a.tan(),
            Op::Tanh => a.tanh(),
            Op::Sigmoid => a.sigmoid(),
            Op::Relu => a.relu(),
            Op::LeakyRelu => a.leaky_relu(0.1),
            Op::Abs => a.abs(),
            Op::Softplus => a.softplus(),
            Op::Max => a.max(b),
            Op::Min => a.min(b),
            Op::Square => a.square(),
            Op::Atan => a.atan(),
            Op::Asin => a.asin(),
            Op::Acos => a.acos(),
            Op::Sinh => a.sinh(),
            Op::Cosh => a.cosh(),
            Op::Log2 => a.log2(),
            Op::Log10 => a.log10(),
            Op::Exp2 => a.exp2(),
            Op::Cbrt => a.cbrt(),
            Op::Atan2 => a.atan2(b),
            Op::Hypot => a.hypot(b),
        }
    }
}

impl Op {
    fn arity(self) -> usize {
        match self {
            Op::Sum
            | Op::Dot
            | Op::MulAdd
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Pow
            | Op::Max
            | Op::Min
            | Op::Atan2
            | Op::Hypot => 2,
            _ => 1,
        }
    }

    /// The derivative worked out by hand (in f64).
    fn by_hand(self, x: &[f64]) -> [f64; 2] {
        let (a, b) = (x[0], x.get(1).copied().unwrap_or(0.0));
        let s = 1.0 / (1.0 + (-a).exp());
        let step = |v: f64| if v > 0.0 { 1.0 } else { 0.0 };
        match self {
            Op::Sum => [1.0, 1.0],
            // a b + 1.75 a
            Op::Dot => [b + 1.75, a],
            Op::MulAdd => [b, a],
            Op::Add => [1.0, 1.0],
            Op::Sub => [1.0, -1.0],
            Op::Mul => [b, a],
            Op::Div => [1.0 / b, -a / (b * b)],
            Op::Neg => [-1.0, 0.0],
            Op::AddConst | Op::DivConst => [
                if matches!(self, Op::AddConst) {
                    1.0
                } else {
                    1.0 / 1.75
                },
                0.0,
            ],
            Op::ConstSub => [-1.0, 0.0],
            Op::ConstMul => [1.75, 0.0],
            Op::ConstDiv => [-1.75 / (a * a), 0.0],
            Op::Powi(n) => [n as f64 * a.powi(n - 1), 0.0],
            Op::Powf(e) => [e * a.powf(e - 1.0), 0.0],
            Op::Pow => [b * a.powf(b - 1.0), a.ln() * a.powf(b)],
            Op::Exp => [a.exp(), 0.0],
            Op::Ln => [1.0 / a, 0.0],
            Op::Sqrt => [0.5 / a.sqrt(), 0.0],
            Op::Sin => [a.cos(), 0.0],
            Op::Cos => [-a.sin(), 0.0],
            Op::Tan => [1.0 / (a.cos() * a.cos()), 0.0],
            Op::Tanh => [1.0 / (a.cosh() * a.cosh()), 0.0],
            Op::Sigmoid => [s * (1.0 - s), 0.0],
            Op::Relu => [step(a), 0.0],
            Op::LeakyRelu => [if a > 0.0 { 1.0 } else { 0.1 }, 0.0],
            Op::Abs => [a.signum(), 0.0],
            Op::Softplus => [s, 0.0],
            Op::Max => [step(a - b), step(b - a)],
            Op::Min => [step(b - a), step(a - b)],
            Op::Square => [2.0 * a, 0.0],
            Op::Atan => [1.0 / (1.0 + a * a), 0.0],
            Op::Asin => [1.0 / (1.0 - a * a).sqrt(), 0.0],
            Op::Acos => [-1.0 / (1.0 - a * a).sqrt(), 0.0],
            Op::Sinh => [a.cosh(), 0.0],
            Op::Cosh => [a.sinh(), 0.0],
            Op::Log2 => [1.0 / (a * std::f64::consts::LN_2), 0.0],
            Op::Log10 => [1.0 / (a * std::f64::consts::LN_10), 0.0],
            Op::Exp2 => [std::f64::consts::LN_2 * a.exp2(), 0.0],
            // x = c^3: dc/dx = 1 / (3 c^2).
            Op::Cbrt => [1.0 / (3.0 * a.cbrt() * a.cbrt()), 0.0],
            // atan2(a, b), a the ordinate: (b, -a) / (a^2 + b^2).
            Op::Atan2 => [b / (a * a + b * b), -a / (a * a + b * b)],
            Op::Hypot => [a / a.hypot(b), b / a.hypot(b)],
        }
    }

    /// Points away from kinks and poles, inside the domain.
    fn points(self) -> &'static [[f64; 2]] {
        match self {
            Op::Asin | Op::Acos => &[[-0.95, 0.0], [-0.6, 0.0], [0.3, 0.0], [0.8, 0.0]],
            Op::Ln | Op::Sqrt | Op::Powf(_) | Op::Pow | Op::Log2 | Op::Log10 => {
                &[[0.3, 1.7], [1.1, -0.6], [2.5, 2.2], [7.0, 0.5]]
            }
            Op::Tan => &[[-1.2, 0.0], [-0.6, 0.0], [0.3, 0.0], [1.1, 0.0]],
            Op::Div | Op::ConstDiv | Op::Powi(-2) => {
                &[[-1.7, 0.8], [-0.6, -2.5], [0.3, 1.3], [2.5, -0.45]]
            }
            _ => &[
                [-1.7, 0.8],
                [-0.6, -2.5],
                [0.3, 1.3],
                [1.1, 0.4],
                [2.5, -0.45],
                [6.0, 6.5],
            ],
        }
    }
}

/// The cases that differentiate each operation of the core's table (`autograd_core::Op`) in the
/// three modes. The match has no wildcard: an operation added to the table fails to compile here
/// until a case tests it. `Leaf` is not an operation: every case records its inputs as leaves.
fn tested_by(op: autograd_core::Op) -> &'static [Op] {
    use autograd_core::Op as Table;
    match op {
        Table::Leaf => &[],
        Table::Sum => &[Op::Sum],
        Table::Dot => &[Op::Dot],
        Table::MulAdd => &[Op::MulAdd],
        Table::Add => &[Op::Add],
        Table::Sub => &[Op::Sub],
        Table::Mul => &[Op::Mul],
        // `c / x` is a division (its constant rule; `x / c` is a scale).
        Table::Div => &[Op::Div, Op::ConstDiv],
        Table::Pow => &[Op::Pow],
        Table::Max => &[Op::Max],
        Table::Min => &[Op::Min],
        Table::Atan2 => &[Op::Atan2],
        Table::Hypot => &[Op::Hypot],
        Table::Neg => &[Op::Neg],
        Table::Scale => &[Op::ConstMul, Op::DivConst],
        // `c - x`: the negation shifted.
        Table::Shift => &[Op::AddConst, Op::ConstSub],
        Table::Square => &[Op::Square],
        Table::Powi => &[
            Op::Powi(0),
            Op::Powi(1),
            Op::Powi(2),
            Op::Powi(3),
            Op::Powi(-2),
        ],
        Table::Powf => &[Op::Powf(0.5), Op::Powf(2.5), Op::Powf(-1.3)],
        Table::Exp => &[Op::Exp],
        Table::Ln => &[Op::Ln],
        Table::Sqrt => &[Op::Sqrt],
        Table::Sin => &[Op::Sin],
        Table::Cos => &[Op::Cos],
        Table::Tan => &[Op::Tan],
        Table::Tanh => &[Op::Tanh],
        Table::Sigmoid => &[Op::Sigmoid],
        Table::Relu => &[Op::Relu],
        Table::LeakyRelu => &[Op::LeakyRelu],
        Table::Abs => &[Op::Abs],
        Table::Softplus => &[Op::Softplus],
        Table::Atan => &[Op::Atan],
        Table::Asin => &[Op::Asin],
        Table::Acos => &[Op::Acos],
        Table::Sinh => &[Op::Sinh],
        Table::Cosh => &[Op::Cosh],
        Table::Log2 => &[Op::Log2],
        Table::Log10 => &[Op::Log10],
        Table::Exp2 => &[Op::Exp2],
        Table::Cbrt => &[Op::Cbrt],
    }
}

/// Worst relative-to-bound figures per precision, printed by the test (`--nocapture`).
fn every_operation_three_modes<S: Scalar>(by_hand_tol: f64) -> (f64, f64) {
    let mut tape = Tape::<S, 64>::new();
    let (mut worst_modes, mut worst_fd) = (0.0_f64, 0.0_f64);
    // Every operation of the table, through the cases that test it.
    for &op in autograd_core::Op::ALL.iter().flat_map(|&t| tested_by(t)) {
        let n = op.arity();
        for p in op.points() {
            let x = [S::from_f64(p[0]), S::from_f64(p[1])];
            let x = &x[..n];
            let (mut rev, mut fwd, mut vec, mut fd) =
                ([S::ZERO; 2], [S::ZERO; 2], [S::ZERO; 2], [S::ZERO; 2]);
            let y = gradient_reverse(&op, &mut tape, x, &mut rev[..n]).unwrap();
            assert_eq!(
                y,
                gradient_forward(&op, x, &mut fwd[..n]).unwrap(),
                "{op:?}"
            );
            gradient_forward_vec::<3, _, _>(&op, x, &mut vec[..n]).unwrap();
            gradient_central(&op, x, &mut fd[..n]).unwrap();

            let modes = compare(&rev[..n], &fwd[..n], Tolerance::between_modes::<S>()).unwrap();
            assert!(modes.passed, "{op:?} at {p:?}: reverse vs forward {modes}");
            assert_eq!(
                fwd, vec,
                "{op:?} at {p:?}: Dual and DualVec lanes are the same arithmetic"
            );
            let fdc = compare(&rev[..n], &fd[..n], Tolerance::finite_differences::<S>()).unwrap();
            assert!(fdc.passed, "{op:?} at {p:?}: reverse vs central {fdc}");
            if let Some(w) = modes.worst {
                worst_modes = worst_modes.max(w.rel_error.min(w.abs_error));
            }
            if let Some(w) = fdc.worst {
                worst_fd = worst_fd.max(w.rel_error.min(w.abs_error));
            }

            let xs = [p[0], p[1]];
            let hand = op.by_hand(&xs[..n]);
            for k in 0..n {
                let (r, h) = (rev[k].to_f64(), hand[k]);
                assert!(
                    (r - h).abs() <= by_hand_tol * (1.0 + h.abs()),
                    "{op:?} at {p:?}: d/dx{k} = {r}, by hand {h}"
                );
            }
        }
    }
    (worst_modes, worst_fd)
}

#[test]
fn every_operation_reverse_forward_and_central_agree_f64() {
    let (m, fd) = every_operation_three_modes::<f64>(1e-14);
    println!("f64: worst reverse-vs-forward error {m:.2e}, worst reverse-vs-central {fd:.2e}");
    assert!(
        fd < 1e-8,
        "central differences in f64 should reach ~1e-10: {fd:e}"
    );
}

#[test]
fn every_operation_reverse_forward_and_central_agree_f32() {
    let (m, fd) = every_operation_three_modes::<f32>(1e-6);
    println!("f32: worst reverse-vs-forward error {m:.2e}, worst reverse-vs-central {fd:.2e}");
}

#[test]
fn kinks_follow_the_same_convention_in_both_modes() {
    // At a kink central differences see the mean slope; the modes must agree on the convention.
    let cases: &[(Op, [f64; 2], [f64; 2])] = &[
        (Op::Relu, [0.0, 0.0], [0.0, 0.0]),
        (Op::Abs, [0.0, 0.0], [0.0, 0.0]),
        (Op::LeakyRelu, [0.0, 0.0], [0.1, 0.0]),
        (Op::Max, [1.5, 1.5], [0.5, 0.5]),
        (Op::Min, [-2.0, -2.0], [0.5, 0.5]),
        (Op::Pow, [0.0, 2.0], [0.0, 0.0]),
        (Op::Powi(2), [0.0, 0.0], [0.0, 0.0]),
        // The origin: the angle has no derivative there, the cone's tip takes abs'(0) = 0.
        (Op::Atan2, [0.0, 0.0], [0.0, 0.0]),
        (Op::Hypot, [0.0, 0.0], [0.0, 0.0]),
        (Op::Hypot, [-0.0, 0.0], [0.0, 0.0]),
    ];
    let mut tape = Tape::<f64, 16>::new();
    for (op, x, expected) in cases {
        let n = op.arity();
        let (mut rev, mut fwd) = ([0.0; 2], [0.0; 2]);
        gradient_reverse(op, &mut tape, &x[..n], &mut rev[..n]).unwrap();
        gradient_forward(op, &x[..n], &mut fwd[..n]).unwrap();
        assert_eq!(&rev[..n], &expected[..n], "{op:?} reverse");
        assert_eq!(&fwd[..n], &expected[..n], "{op:?} forward");
    }
}

#[test]
fn saturating_functions_have_finite_derivatives_in_every_mode() {
    let mut tape = Tape::<f64, 16>::new();
    for op in [Op::Tanh, Op::Sigmoid, Op::Softplus] {
        for x in [-1000.0, -40.0, 40.0, 1000.0] {
            let (mut rev, mut fwd, mut fd) = ([0.0], [0.0], [0.0]);
            gradient_reverse(&op, &mut tape, &[x], &mut rev).unwrap();
            gradient_forward(&op, &[x], &mut fwd).unwrap();
            gradient_central(&op, &[x], &mut fd).unwrap();
            assert!(
                rev[0].is_finite() && rev[0] == fwd[0],
                "{op:?}({x}): {rev:?} {fwd:?}"
            );
            assert!(
                (rev[0] - fd[0]).abs() < 1e-9,
                "{op:?}({x}): {rev:?} vs {fd:?}"
            );
        }
    }
}
