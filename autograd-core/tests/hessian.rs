//! Second order: Rosenbrock's Hessian at several points against its formula, by forward over
//! reverse and by forward over forward; Hessian-vector products equal `H · v`; every operation's
//! second derivative against the hand-derived one.

use autograd_core::testkit::{rosenbrock, rosenbrock_gradient, rosenbrock_hessian, Rosenbrock};
use autograd_core::{
    compare, hessian, hessian_forward, hessian_vec, hessian_vector_product, Dual, DualVec,
    Function, Number, Tape, TapeError, Tolerance,
};

const POINTS: [[f64; 5]; 4] = [
    [1.0, 1.0, 1.0, 1.0, 1.0],
    [-1.2, 1.0, -1.2, 1.0, -1.2],
    [0.5, 0.51, 0.52, 0.53, 0.54],
    [2.0, -0.3, 0.7, -1.9, 0.05],
];

#[test]
fn rosenbrock_hessian_matches_the_formula_in_both_second_order_modes() {
    let mut tape = Tape::<Dual<f64>, 256>::new();
    let tight = Tolerance::new(1e-12, 1e-14);
    for n in [2, 3, 5] {
        for p in POINTS {
            let x = &p[..n];
            let (mut exact_h, mut exact_g) = ([0.0; 25], [0.0; 5]);
            rosenbrock_hessian(x, &mut exact_h[..n * n]);
            rosenbrock_gradient(x, &mut exact_g[..n]);

            let (mut g1, mut h1) = ([0.0; 5], [0.0; 25]);
            let y1 = hessian(&Rosenbrock, &mut tape, x, &mut g1[..n], &mut h1[..n * n]).unwrap();
            let (mut g2, mut h2) = ([0.0; 5], [0.0; 25]);
            let y2 = hessian_forward(&Rosenbrock, x, &mut g2[..n], &mut h2[..n * n]).unwrap();
            assert_eq!(y1, rosenbrock(x));
            assert_eq!(y2, rosenbrock(x));
            for (name, h, g) in [("fwd-over-rev", &h1, &g1), ("fwd-over-fwd", &h2, &g2)] {
                let c = compare(&h[..n * n], &exact_h[..n * n], tight).unwrap();
                assert!(c.passed, "{name} Hessian, n = {n}, x = {x:?}: {c}");
                let c = compare(&g[..n], &exact_g[..n], tight).unwrap();
                assert!(c.passed, "{name} gradient, n = {n}, x = {x:?}: {c}");
            }
            assert!(tape.is_empty());
        }
    }
    // The classic point by hand: x = (-1.2, 1): H = [[1330, 480], [480, 200]].
    let (mut g, mut h) = ([0.0; 2], [0.0; 4]);
    hessian(&Rosenbrock, &mut tape, &[-1.2, 1.0], &mut g, &mut h).unwrap();
    let c = compare(&h, &[1330.0, 480.0, 480.0, 200.0], tight).unwrap();
    assert!(c.passed, "{c}");
    let c = compare(&g, &[-215.6, -88.0], tight).unwrap();
    assert!(c.passed, "{c}");
}

#[test]
fn hessian_vector_product_equals_h_times_v() {
    let mut tape = Tape::<Dual<f64>, 256>::new();
    let n = 5;
    let vs = [
        [1.0, 0.0, 0.0, 0.0, 0.0],
        [0.3, -1.0, 2.0, 0.5, -0.25],
        [0.0; 5],
    ];
    for p in POINTS {
        let mut h = [0.0; 25];
        rosenbrock_hessian(&p, &mut h);
        for v in vs {
            let mut hv_exact = [0.0; 5];
            for i in 0..n {
                hv_exact[i] = (0..n).map(|j| h[i * n + j] * v[j]).sum();
            }
            let (mut g, mut hv) = ([0.0; 5], [0.0; 5]);
            hessian_vector_product(&Rosenbrock, &mut tape, &p, &v, &mut g, &mut hv).unwrap();
            let c = compare(&hv, &hv_exact, Tolerance::new(1e-12, 1e-14)).unwrap();
            assert!(c.passed, "x = {p:?}, v = {v:?}: {c}");
        }
    }
}

/// One operation at a time, second derivatives by hand.
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
    Scale,
    Shift,
    Square,
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
    Powi3,
    Powf,
    Recip,
    PowXY,
    Atan,
    AsinHalf,
    AcosHalf,
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
        let a = x[0];
        let b = x.get(1).copied().unwrap_or(T::zero());
        let c = T::from_f64(1.75);
        match self {
            Op::Sum => Number::sum(&[a, b, c]),
            Op::Dot => T::dot(&[a, c], &[b, a]),
            Op::MulAdd => a.mul_add(b, c),
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
            Op::Neg => -a,
            Op::Scale => a.mul_f64(1.75),
            Op::Shift => c - a,
            Op::Square => a.square(),
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
            Op::Powi3 => a.powi(3),
            Op::Powf => a.powf(2.5),
            Op::Recip => T::one() / a,
            Op::PowXY => a.pow(b),
            Op::Atan => a.atan(),
            Op::AsinHalf => a.mul_f64(0.5).asin(),
            Op::AcosHalf => a.mul_f64(0.5).acos(),
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
    /// How many inputs the case takes.
    fn arity(self) -> usize {
        match self {
            Op::Sum
            | Op::Dot
            | Op::MulAdd
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Max
            | Op::Min
            | Op::PowXY
            | Op::Atan2
            | Op::Hypot => 2,
            _ => 1,
        }
    }

    /// The Hessian worked out by hand at `(x, y)` (`y` unused by a one-input case, whose second
    /// derivative is the first entry), row-major.
    fn by_hand(self, x: f64, y: f64) -> [f64; 4] {
        let one = |h: f64| [h, 0.0, 0.0, 0.0];
        let s = 1.0 / (1.0 + (-x).exp());
        let t = x.tanh();
        let sec2 = 1.0 / (x.cos() * x.cos());
        let r2 = x * x + y * y;
        match self {
            // Linear in each input, or piecewise linear away from its kink (every point below
            // is away from 0 and from x = y): no curvature.
            Op::Sum
            | Op::Add
            | Op::Sub
            | Op::Max
            | Op::Min
            | Op::Neg
            | Op::Scale
            | Op::Shift
            | Op::Relu
            | Op::LeakyRelu
            | Op::Abs => [0.0; 4],
            // x y (+ 1.75 x, + 1.75): the mixed derivative 1.
            Op::Dot | Op::MulAdd | Op::Mul => [0.0, 1.0, 1.0, 0.0],
            // x / y: d/dy = -x / y^2, so d2/dxdy = -1 / y^2 and d2/dy2 = 2 x / y^3.
            Op::Div => [0.0, -1.0 / (y * y), -1.0 / (y * y), 2.0 * x / (y * y * y)],
            Op::Square => one(2.0),
            Op::Exp => one(x.exp()),
            Op::Ln => one(-1.0 / (x * x)),
            Op::Sqrt => one(-0.25 * x.powf(-1.5)),
            Op::Sin => one(-x.sin()),
            Op::Cos => one(-x.cos()),
            Op::Tan => one(2.0 * sec2 * x.tan()),
            Op::Tanh => one(-2.0 * t * (1.0 - t * t)),
            Op::Sigmoid => one(s * (1.0 - s) * (1.0 - 2.0 * s)),
            Op::Softplus => one(s * (1.0 - s)),
            Op::Powi3 => one(6.0 * x),
            Op::Powf => one(2.5 * 1.5 * x.powf(0.5)),
            Op::Recip => one(2.0 / (x * x * x)),
            Op::PowXY => {
                let z = x.powf(y);
                let mixed = x.powf(y - 1.0) * (1.0 + y * x.ln());
                [
                    y * (y - 1.0) * x.powf(y - 2.0),
                    mixed,
                    mixed,
                    x.ln() * x.ln() * z,
                ]
            }
            // atan'' = d/dx (1 + x^2)^-1 = -2x / (1 + x^2)^2.
            Op::Atan => one(-2.0 * x / ((1.0 + x * x) * (1.0 + x * x))),
            // asin(u), u = x/2: d/dx = (1/2) (1 - u^2)^-1/2, d2/dx2 = (1/4) u (1 - u^2)^-3/2.
            Op::AsinHalf => one(0.25 * (x / 2.0) * (1.0 - x * x / 4.0).powf(-1.5)),
            Op::AcosHalf => one(-0.25 * (x / 2.0) * (1.0 - x * x / 4.0).powf(-1.5)),
            Op::Sinh => one(x.sinh()),
            Op::Cosh => one(x.cosh()),
            // log_b'' = -1 / (x^2 ln b).
            Op::Log2 => one(-1.0 / (x * x * std::f64::consts::LN_2)),
            Op::Log10 => one(-1.0 / (x * x * std::f64::consts::LN_10)),
            // (2^x)'' = ln(2)^2 2^x.
            Op::Exp2 => one(std::f64::consts::LN_2.powi(2) * x.exp2()),
            // (x^(1/3))'' = (1/3)(-2/3) x^(-5/3).
            Op::Cbrt => one(-2.0 / 9.0 * x.powf(-5.0 / 3.0)),
            // atan2(x, y) (x the ordinate): gradient (y, -x) / r^2, so the Hessian is
            // (-2xy, x^2 - y^2; x^2 - y^2, 2xy) / r^4.
            Op::Atan2 => {
                let r4 = r2 * r2;
                let mixed = (x * x - y * y) / r4;
                [-2.0 * x * y / r4, mixed, mixed, 2.0 * x * y / r4]
            }
            // hypot = h: gradient (x, y) / h, Hessian (y^2, -xy; -xy, x^2) / h^3.
            Op::Hypot => {
                let h3 = r2.powf(1.5);
                [y * y / h3, -x * y / h3, -x * y / h3, x * x / h3]
            }
        }
    }
}

/// The cases that check the second derivatives of each operation of the core's table
/// (`autograd_core::Op`). The match has no wildcard: an operation added to the table fails to
/// compile here until its second derivative is checked. `Leaf` is not an operation.
fn checked_by(op: autograd_core::Op) -> &'static [Op] {
    use autograd_core::Op as Table;
    match op {
        Table::Leaf => &[],
        Table::Sum => &[Op::Sum],
        Table::Dot => &[Op::Dot],
        Table::MulAdd => &[Op::MulAdd],
        Table::Add => &[Op::Add],
        Table::Sub => &[Op::Sub],
        Table::Mul => &[Op::Mul],
        // `1 / x` is a division by a constant dividend.
        Table::Div => &[Op::Div, Op::Recip],
        Table::Pow => &[Op::PowXY],
        Table::Max => &[Op::Max],
        Table::Min => &[Op::Min],
        Table::Atan2 => &[Op::Atan2],
        Table::Hypot => &[Op::Hypot],
        Table::Neg => &[Op::Neg],
        Table::Scale => &[Op::Scale, Op::AsinHalf, Op::AcosHalf],
        Table::Shift => &[Op::Shift],
        Table::Square => &[Op::Square],
        Table::Powi => &[Op::Powi3],
        Table::Powf => &[Op::Powf],
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
        Table::Asin => &[Op::AsinHalf],
        Table::Acos => &[Op::AcosHalf],
        Table::Sinh => &[Op::Sinh],
        Table::Cosh => &[Op::Cosh],
        Table::Log2 => &[Op::Log2],
        Table::Log10 => &[Op::Log10],
        Table::Exp2 => &[Op::Exp2],
        Table::Cbrt => &[Op::Cbrt],
    }
}

#[test]
fn second_derivatives_of_every_operation_of_the_table() {
    let mut tape = Tape::<Dual<f64>, 32>::new();
    let tol = Tolerance::new(1e-13, 1e-13);
    for &op in autograd_core::Op::ALL.iter().flat_map(|&t| checked_by(t)) {
        let n = op.arity();
        for a in [0.3_f64, 0.9, 1.4] {
            let p = [a, 1.7];
            let exact = op.by_hand(a, 1.7);
            // A one-input case's Hessian is its first entry.
            let exact = &exact[..n * n];
            let (mut g, mut h1, mut h2) = ([0.0; 2], [0.0; 4], [0.0; 4]);
            hessian(&op, &mut tape, &p[..n], &mut g[..n], &mut h1[..n * n]).unwrap();
            hessian_forward(&op, &p[..n], &mut g[..n], &mut h2[..n * n]).unwrap();
            for (mode, h) in [("forward over reverse", &h1), ("forward over forward", &h2)] {
                let c = compare(&h[..n * n], exact, tol).unwrap();
                assert!(
                    c.passed,
                    "{op:?} at {:?}, {mode}: {h:?} vs {exact:?}: {c}",
                    &p[..n]
                );
            }
        }
    }
}

#[test]
fn forward_over_reverse_needs_room_on_the_tape() {
    let mut tape = Tape::<Dual<f64>, 4>::new();
    let (mut g, mut h) = ([0.0; 3], [0.0; 9]);
    let err = hessian(&Rosenbrock, &mut tape, &[1.0; 3], &mut g, &mut h).unwrap_err();
    assert!(matches!(err, TapeError::CapacityExceeded { .. }), "{err}");
    assert!(tape.is_empty() && tape.check().is_ok());
    let err = hessian_forward(&Rosenbrock, &[1.0; 3], &mut g, &mut h[..8]).unwrap_err();
    assert_eq!(err.to_string(), "Hessian slice has length 8, expected 9");
}

#[test]
fn hessian_in_f32() {
    let mut tape = Tape::<Dual<f32>, 64>::new();
    let x = [-1.2_f32, 1.0];
    let (mut g, mut h) = ([0.0_f32; 2], [0.0_f32; 4]);
    hessian(&Rosenbrock, &mut tape, &x, &mut g, &mut h).unwrap();
    let c = compare(
        &h,
        &[1330.0, 480.0, 480.0, 200.0],
        Tolerance::between_modes::<f32>(),
    )
    .unwrap();
    assert!(c.passed, "{c}");
}

#[test]
fn hessian_with_lanes_matches_one_column_per_sweep() {
    // 3 lanes over 5 inputs: sweeps of 3 and 2 columns. Each lane runs the same arithmetic as a
    // separate `Dual` sweep, so the results are identical, not merely close.
    let mut tape = Tape::<Dual<f64>, 256>::new();
    let mut lanes = Box::new(Tape::<DualVec<f64, 3>, 256>::new());
    for p in POINTS {
        let (mut g1, mut h1, mut g2, mut h2) = ([0.0; 5], [0.0; 25], [0.0; 5], [0.0; 25]);
        let y1 = hessian(&Rosenbrock, &mut tape, &p, &mut g1, &mut h1).unwrap();
        let y2 = hessian_vec(&Rosenbrock, &mut lanes, &p, &mut g2, &mut h2).unwrap();
        assert_eq!((y1, g1, h1), (y2, g2, h2), "x = {p:?}");
        let mut exact = [0.0; 25];
        rosenbrock_hessian(&p, &mut exact);
        assert!(
            compare(&h2, &exact, Tolerance::new(1e-12, 1e-14))
                .unwrap()
                .passed
        );
        assert!(lanes.is_empty());
    }
    let mut small = Tape::<DualVec<f64, 3>, 8>::new();
    let (mut g, mut h) = ([0.0; 5], [0.0; 25]);
    let err = hessian_vec(&Rosenbrock, &mut small, &POINTS[1], &mut g, &mut h).unwrap_err();
    assert!(matches!(err, TapeError::CapacityExceeded { .. }), "{err}");
}

#[test]
fn second_order_at_zero_where_a_value_formula_branches() {
    // softplus is smooth at 0 (f' = 1/2, f'' = 1/4) although its stable evaluation branches
    // there; sigmoid likewise (f' = 1/4, f'' = 0). Both second-order modes must see that.
    let mut tape = Tape::<Dual<f64>, 16>::new();
    for (op, d1, d2) in [(Op::Softplus, 0.5, 0.25), (Op::Sigmoid, 0.25, 0.0)] {
        let (mut g1, mut h1, mut g2, mut h2) = ([0.0], [0.0], [0.0], [0.0]);
        hessian(&op, &mut tape, &[0.0], &mut g1, &mut h1).unwrap();
        hessian_forward(&op, &[0.0], &mut g2, &mut h2).unwrap();
        assert_eq!((g1[0], h1[0]), (d1, d2), "{op:?}, forward over reverse");
        assert_eq!((g2[0], h2[0]), (d1, d2), "{op:?}, forward over forward");
    }
}

struct MaxOf2;
impl Function for MaxOf2 {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        x[0].max(x[1])
    }
}

struct MinOf2;
impl Function for MinOf2 {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        x[0].min(x[1])
    }
}

/// At a tie, `max`/`min` split the gradient 0.5/0.5 (the first-order convention); the second-order
/// modes must keep it: forward over forward evaluates the tie on nested duals, where the inner
/// tangents are split by the mean of the two arguments. Both pieces are linear: H = 0.
#[test]
fn ties_of_max_and_min_keep_the_half_split_in_both_second_order_modes() {
    fn check<F: Function>(f: &F) {
        for x in [[1.5, 1.5], [-2.0, -2.0], [0.0, 0.0]] {
            let (mut g, mut h) = ([9.0; 2], [9.0; 4]);
            hessian_forward(f, &x, &mut g, &mut h).unwrap();
            assert_eq!(
                (g, h),
                ([0.5, 0.5], [0.0; 4]),
                "forward over forward at {x:?}"
            );
            let mut tape = Tape::<Dual<f64>, 16>::new();
            let (mut g, mut h) = ([9.0; 2], [9.0; 4]);
            hessian(f, &mut tape, &x, &mut g, &mut h).unwrap();
            assert_eq!(
                (g, h),
                ([0.5, 0.5], [0.0; 4]),
                "forward over reverse at {x:?}"
            );
        }
    }
    check(&MaxOf2);
    check(&MinOf2);
}

/// `k(x0, x2) * x1` for a kinked `k`, evaluated at its kink.
struct KinkTimesY(&'static str);
impl Function for KinkTimesY {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        let k = match self.0 {
            "relu" => x[0].relu(),
            "leaky_relu" => x[0].leaky_relu(0.25),
            "abs" => x[0].abs(),
            "max" => x[0].max(x[2]),
            _ => x[0].min(x[2]),
        };
        k * x[1]
    }
}

/// At a kink, the mixed second derivative `d/dx1 d/dx0 (k(x0, x2) x1)` is the kink's first-order
/// convention `k'` (relu'(0) = abs'(0) = 0, leaky_relu'(0) = slope, max/min ties 0.5 per argument),
/// in both second-order modes and in both orders (the Hessian is symmetric). Forward over reverse
/// records `k` with dual values, so its recorded value's tangent must follow the convention too.
#[test]
fn mixed_second_derivatives_at_kinks_follow_the_first_order_conventions() {
    for (name, slope) in [
        ("relu", 0.0),
        ("leaky_relu", 0.25),
        ("abs", 0.0),
        ("max", 0.5),
        ("min", 0.5),
    ] {
        let f = KinkTimesY(name);
        let x = [0.0, 1.5, 0.0];
        // Entries (0, 1) and (1, 0); for max/min also (2, 1) and (1, 2) (x2 is the other argument).
        let other = if matches!(name, "max" | "min") {
            slope
        } else {
            0.0
        };
        let expected = [0.0, slope, 0.0, slope, 0.0, other, 0.0, other, 0.0];
        let (mut g, mut h) = ([0.0; 3], [9.0; 9]);
        hessian_forward(&f, &x, &mut g, &mut h).unwrap();
        assert_eq!(h, expected, "{name}: forward over forward");
        let mut tape = Tape::<Dual<f64>, 16>::new();
        let (mut g, mut h) = ([0.0; 3], [9.0; 9]);
        hessian(&f, &mut tape, &x, &mut g, &mut h).unwrap();
        assert_eq!(h, expected, "{name}: forward over reverse");
    }
}
