//! Forward mode against the seed lesson: its worked forward-mode example, its exercise 4 ("a Dual
//! class gives the same derivatives as your reverse-mode engine"), and micrograd's README
//! expression, whose values micrograd prints (independent of this crate).

use autograd_core::{
    gradient_forward, gradient_forward_vec, gradient_reverse, Dual, DualVec, Function, Number,
    Scalar, Tape,
};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn lesson_forward_mode_sin_of_square_at_two() {
    // x = 2 (dx/dx = 1); a = x^2 (da/dx = 4); y = sin(a) (dy/dx = cos(4) * 4 = -2.615).
    let x = Dual::variable(2.0_f64);
    let a = x.powi(2);
    assert_eq!((a.re, a.eps), (4.0, 4.0));
    let y = a.sin();
    assert!(close(y.eps, -2.615, 5e-4), "{}", y.eps);
    assert_eq!(y.eps, libm::cos(4.0) * 4.0);
    // Same in f32 and through x * x instead of powi.
    let x = Dual::variable(2.0_f32);
    assert!(((x * x).sin().eps - -2.615).abs() < 5e-4);
}

#[test]
fn lesson_pytorch_example_x_squared_plus_3x_plus_1() {
    // y = x^2 + 3x + 1 at 2: dy/dx = 2x + 3 = 7.
    let x = Dual::variable(2.0_f64);
    let y = x.powi(2) + 3.0 * x + 1.0;
    assert_eq!((y.re, y.eps), (11.0, 7.0));
}

#[test]
fn lesson_dual_arithmetic_rules() {
    // (a, a') + (b, b') = (a+b, a'+b'); (a, a')(b, b') = (ab, a'b + ab'); sin(a, a') = (sin a, cos(a) a').
    let (a, b) = (Dual::new(1.5_f64, 2.0), Dual::new(-0.5, 3.0));
    let s = a + b;
    let p = a * b;
    let q = a.sin();
    assert_eq!((s.re, s.eps), (1.0, 5.0));
    assert_eq!((p.re, p.eps), (-0.75, 2.0 * -0.5 + 1.5 * 3.0));
    assert_eq!((q.re, q.eps), (libm::sin(1.5), libm::cos(1.5) * 2.0));
}

/// The lesson's expressions, each written once.
struct ReluOfProductPlusOne; // relu(x1 x2 + 1)
impl Function for ReluOfProductPlusOne {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        (x[0] * x[1] + T::one()).relu()
    }
}
struct Neuron; // relu(w1 x1 + w2 x2 + b), inputs (w1, x1, w2, x2, b)
impl Function for Neuron {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        (x[0] * x[1] + x[2] * x[3] + x[4]).relu()
    }
}
struct Linear; // x w + b
impl Function for Linear {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        x[0] * x[1] + x[2]
    }
}
struct TanhCubic; // tanh(x^3 + 2x + 1)
impl Function for TanhCubic {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        (x[0].powi(3) + T::from_f64(2.0) * x[0] + T::one()).tanh()
    }
}

/// micrograd's README expression in generic form (its `+=` spelled out).
struct Micrograd;
impl Function for Micrograd {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        let (a, b) = (x[0], x[1]);
        let one = T::one();
        let mut c = a + b;
        let mut d = a * b + b.powi(3);
        c = c + c + one;
        c = c + one + c + (-a);
        d = d + d * T::from_f64(2.0) + (b + a).relu();
        d = d + T::from_f64(3.0) * d + (b - a).relu();
        let e = c - d;
        let f = e.powi(2);
        let mut g = f / T::from_f64(2.0);
        g += T::from_f64(10.0) / f;
        g
    }
}

/// Reverse (tape), forward with `Dual` (n passes) and with `DualVec<_, 2>`; returns all three.
fn three_ways<S: Scalar, F: Function>(f: &F, x: &[S]) -> ([S; 5], [S; 5], [S; 5], S) {
    let n = x.len();
    let mut tape = Tape::<S, 128>::new();
    let (mut rev, mut fwd, mut vec) = ([S::ZERO; 5], [S::ZERO; 5], [S::ZERO; 5]);
    let y = gradient_reverse(f, &mut tape, x, &mut rev[..n]).unwrap();
    let y2 = gradient_forward(f, x, &mut fwd[..n]).unwrap();
    let y3 = gradient_forward_vec::<2, _, _>(f, x, &mut vec[..n]).unwrap();
    assert_eq!(y, y2);
    assert_eq!(y, y3);
    assert_eq!(y, f.eval(x), "the plain evaluation gives the same value");
    (rev, fwd, vec, y)
}

#[test]
fn exercise_4_dual_gives_the_same_derivatives_as_reverse_mode() {
    // Step 7: relu(x1 x2 + 1) at (2, 3) -> (3, 2).
    let (rev, fwd, vec, y) = three_ways(&ReluOfProductPlusOne, &[2.0_f64, 3.0]);
    assert_eq!(y, 7.0);
    assert_eq!(&rev[..2], &[3.0, 2.0]);
    assert_eq!(rev, fwd);
    assert_eq!(rev, vec);

    // relu(a b + c) at (2, -3, 10) -> (-3, 2, 1), in f32.
    struct Abc;
    impl Function for Abc {
        fn eval<T: Number>(&self, x: &[T]) -> T {
            (x[0] * x[1] + x[2]).relu()
        }
    }
    let (rev, fwd, vec, y) = three_ways(&Abc, &[2.0_f32, -3.0, 10.0]);
    assert_eq!(y, 4.0);
    assert_eq!(&rev[..3], &[-3.0, 2.0, 1.0]);
    assert_eq!((rev, rev), (fwd, vec));

    // L = x w + b at (1, 0.5, 0.1) -> (0.5, 1, 1).
    let (rev, fwd, vec, _) = three_ways(&Linear, &[1.0_f64, 0.5, 0.1]);
    assert_eq!(&rev[..3], &[0.5, 1.0, 1.0]);
    assert_eq!((rev, rev), (fwd, vec));

    // Exercise 3's neuron: the five gradients, by hand: (x1, w1, x2, w2, 1) on the active side.
    let x = [0.5_f64, 2.0, -1.5, 0.25, 0.75];
    let (rev, fwd, vec, y) = three_ways(&Neuron, &x);
    assert_eq!(y, 0.5 * 2.0 - 1.5 * 0.25 + 0.75);
    assert_eq!(rev, [2.0, 0.5, 0.25, -1.5, 1.0]);
    assert_eq!((rev, rev), (fwd, vec));
    // ... and on the inactive side everything is 0 (relu'(negative) = 0).
    let (rev, fwd, _, _) = three_ways(&Neuron, &[0.5_f64, 2.0, -1.5, 0.25, -5.0]);
    assert_eq!((rev, fwd), ([0.0; 5], [0.0; 5]));

    // Exercise 1: d/dx x^3 at 2 = 12. Exercise 2: tanh'(0) = 1, tanh'(2) ≈ 0.0707.
    struct Cube;
    impl Function for Cube {
        fn eval<T: Number>(&self, x: &[T]) -> T {
            x[0].powi(3)
        }
    }
    struct Tanh;
    impl Function for Tanh {
        fn eval<T: Number>(&self, x: &[T]) -> T {
            x[0].tanh()
        }
    }
    let (rev, fwd, _, _) = three_ways(&Cube, &[2.0_f64]);
    assert_eq!((rev[0], fwd[0]), (12.0, 12.0));
    let (rev, fwd, _, _) = three_ways(&Tanh, &[0.0_f64]);
    assert_eq!((rev[0], fwd[0]), (1.0, 1.0));
    let (rev, fwd, _, _) = three_ways(&Tanh, &[2.0_f64]);
    assert!(close(fwd[0], 0.0707, 5e-5));
    assert_eq!(rev[0], fwd[0]);

    // The seed's finite-difference exercise, tanh(x^3 + 2x + 1) at 0.5, exact derivative by hand:
    // (1 - tanh^2(u)) (3x^2 + 2), u = 0.125 + 1 + 1.
    let (rev, fwd, _, _) = three_ways(&TanhCubic, &[0.5_f64]);
    let t = libm::tanh(2.125);
    let exact = (1.0 - t * t) * (3.0 * 0.25 + 2.0);
    assert!(close(rev[0], exact, 1e-15) && close(fwd[0], exact, 1e-15));
}

#[test]
fn micrograd_readme_expression_in_forward_mode() {
    // micrograd prints g = 24.7041, dg/da = 138.8338, dg/db = 645.5773 at a = -4, b = 2.
    let (rev, fwd, vec, g) = three_ways(&Micrograd, &[-4.0_f64, 2.0]);
    assert!(close(g, 24.7041, 5e-5), "{g}");
    assert!(close(fwd[0], 138.8338, 5e-5), "{}", fwd[0]);
    assert!(close(fwd[1], 645.5773, 5e-5), "{}", fwd[1]);
    for k in 0..2 {
        assert!(close(rev[k], fwd[k], 1e-12 * fwd[k].abs()));
        assert!(close(vec[k], fwd[k], 1e-12 * fwd[k].abs()));
    }
}

#[test]
fn nested_duals_give_second_and_mixed_derivatives() {
    // f(x) = x^3 at 2: f' = 12, f'' = 12.
    let x = Dual::new(Dual::variable(2.0_f64), Dual::constant(1.0));
    let y = x.powi(3);
    assert_eq!(
        (y.re.re, y.re.eps, y.eps.re, y.eps.eps),
        (8.0, 12.0, 12.0, 12.0)
    );

    // sin(x) exp(x) at 0.7: f'' = 2 cos(x) e^x.
    let x = Dual::new(Dual::variable(0.7_f64), Dual::constant(1.0));
    let y = x.sin() * x.exp();
    let exact = 2.0 * libm::cos(0.7) * libm::exp(0.7);
    assert!(close(y.eps.eps, exact, 1e-14));

    // Mixed partial of x^2 y at (3, 5): d2/dxdy = 2x = 6; third order: Dual<Dual<Dual>>.
    let x = Dual::new(Dual::variable(3.0_f64), Dual::constant(0.0));
    let y = Dual::new(Dual::constant(5.0), Dual::constant(1.0));
    let f = x.powi(2) * y;
    assert_eq!((f.re.eps, f.eps.re, f.eps.eps), (30.0, 9.0, 6.0));
    let x = Dual::new(
        Dual::new(Dual::variable(2.0_f64), Dual::constant(1.0)),
        Dual::constant(Dual::constant(1.0)),
    );
    assert_eq!(x.powi(4).eps.eps.eps, 24.0 * 2.0); // (x^4)''' = 24 x
}

#[test]
fn dual_vec_lanes_are_independent_directions() {
    // f(x, y, z) = x y sin(z): gradient (y sin z, x sin z, x y cos z) in one pass.
    let (x, y, z) = (1.5_f64, -2.0, 0.3);
    let f =
        DualVec::<f64, 3>::variable(x, 0) * DualVec::variable(y, 1) * DualVec::variable(z, 2).sin();
    let exact = [y * libm::sin(z), x * libm::sin(z), x * y * libm::cos(z)];
    for (k, (got, want)) in f.eps.iter().zip(exact).enumerate() {
        assert!(close(*got, want, 1e-15), "lane {k}");
    }
    // A lane past N seeds nothing.
    assert_eq!(DualVec::<f64, 2>::variable(1.0, 7).eps, [0.0, 0.0]);
}

#[test]
fn stable_for_large_arguments() {
    for x in [1000.0_f64, -1000.0] {
        let d = Dual::variable(x);
        let (t, s, p) = (d.tanh(), d.sigmoid(), d.softplus());
        assert_eq!((t.re.abs(), t.eps), (1.0, 0.0));
        assert!(s.is_finite() && s.eps == 0.0);
        assert!(p.is_finite());
        assert_eq!(p.eps, if x > 0.0 { 1.0 } else { 0.0 });
    }
    let d = Dual::variable(-100.0_f32);
    assert!(d.softplus().is_finite() && d.sigmoid().is_finite() && d.tanh().is_finite());
}

#[test]
fn kink_conventions_match_pytorch() {
    let z = Dual::variable(0.0_f64);
    assert_eq!(z.relu().eps, 0.0);
    assert_eq!(z.abs().eps, 0.0);
    assert_eq!(z.leaky_relu(0.1).eps, 0.1);
    let (a, b) = (Dual::new(2.0_f64, 1.0), Dual::new(2.0, 3.0));
    assert_eq!((a.max(b).re, a.max(b).eps), (2.0, 2.0)); // (1 + 3) / 2
    assert_eq!((a.min(b).re, a.min(b).eps), (2.0, 2.0));
    assert_eq!(Dual::new(3.0, 1.0).max(Dual::new(2.0, 5.0)).eps, 1.0);
    // d/dy x^y at x = 0, y >= 0 is 0; d/dx 0^2 = 0.
    let p = Dual::constant(0.0_f64).pow(Dual::variable(2.0));
    assert_eq!((p.re, p.eps), (0.0, 0.0));
    let p = Dual::variable(0.0_f64).pow(Dual::constant(2.0));
    assert_eq!((p.re, p.eps), (0.0, 0.0));
}

#[test]
fn mixed_scalar_operands() {
    let x = Dual::new(3.0_f64, 1.0);
    let forms = [
        x + 2.0,
        2.0 + x,
        x - 2.0,
        2.0 - x,
        x * 2.0,
        2.0 * x,
        x / 2.0,
        2.0 / x,
    ];
    let expected = [
        (5.0, 1.0),
        (5.0, 1.0),
        (1.0, 1.0),
        (-1.0, -1.0),
        (6.0, 2.0),
        (6.0, 2.0),
        (1.5, 0.5),
        (2.0 / 3.0, -2.0 / 9.0),
    ];
    for (k, (f, (re, eps))) in forms.iter().zip(expected).enumerate() {
        assert!(
            close(f.re, re, 1e-15) && close(f.eps, eps, 1e-15),
            "form {k}: {f}"
        );
    }
    let mut y = x;
    y += 1.0;
    y *= Dual::variable(2.0);
    assert_eq!((y.re, y.eps), (8.0, 2.0 + 4.0));
}

#[test]
fn is_finite_and_is_zero_look_at_every_part_of_a_dual() {
    let finite = DualVec::<f64, 3>::variable(2.0, 1);
    assert!(finite.is_finite());
    assert!(!finite.is_zero());
    let mut nan_lane = finite;
    nan_lane.eps[2] = f64::NAN;
    assert!(!nan_lane.is_finite());
    let mut zero = finite;
    zero.re = 0.0;
    assert!(!zero.is_zero()); // a lane is still 1
    zero.eps = [0.0; 3];
    assert!(zero.is_zero());

    let d = Dual::<f64>::variable(2.0);
    assert!(d.is_finite());
    assert!(!Dual::<f64>::new(2.0, f64::INFINITY).is_finite());
    assert!(!Dual::<f64>::new(f64::NAN, 1.0).is_finite());
}
