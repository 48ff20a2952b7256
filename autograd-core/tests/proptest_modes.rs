//! Properties over random programs (compositions of every operation) at random points: reverse
//! and forward mode agree, on first and second derivatives; linearity, the product rule and the
//! chain rule hold for the reverse-mode gradient.

use autograd_core::{
    central_step, gradient_central, gradient_forward, gradient_forward_vec, gradient_reverse,
    hessian, hessian_forward, hessian_vec, Dual, DualVec, Function, Number, Scalar, Tape,
    Tolerance,
};
use proptest::prelude::*;

const INPUTS: usize = 3;

/// One step of a program: `op(v[a], v[b])` appended to the values `v` (inputs first).
#[derive(Clone, Copy, Debug)]
struct Instr {
    op: u8,
    a: u8,
    b: u8,
}

/// Number of distinct operations; those from `SMOOTH` on have kinks.
const OPS: u8 = 19;
const SMOOTH: u8 = 14;

#[derive(Clone, Debug)]
struct Program(Vec<Instr>);

impl Program {
    fn run<T: Number>(&self, x: &[T]) -> T {
        let mut v: Vec<T> = x.to_vec();
        for ins in &self.0 {
            let a = v[ins.a as usize % v.len()];
            let b = v[ins.b as usize % v.len()];
            let one = T::one();
            // Operations are shaped to stay in their domain and keep values moderate, so that
            // rounding (not conditioning) is what the tolerances measure.
            let r = match ins.op {
                0 => a + b,
                1 => a - b,
                2 => a * b,
                3 => a / (one + b.square()),
                4 => (a.square() + T::from_f64(0.5)).pow(b.tanh()),
                5 => a.sin(),
                6 => a.cos() * b,
                7 => a.tanh(),
                8 => a.sigmoid() - b,
                9 => a.softplus(),
                10 => a.tanh().exp(),
                11 => (one + a.square()).ln(),
                12 => (one + a.square()).sqrt() * T::from_f64(0.5),
                13 => a.powi(3) * T::from_f64(0.1) + a.powf(2.0).tanh(),
                14 => a.max(b),
                15 => a.min(b),
                16 => a.abs(),
                17 => a.relu() + b,
                _ => a.leaky_relu(0.01),
            };
            v.push(r);
        }
        let n = v.len();
        v[n - 1] + v[n - 2] * T::from_f64(0.5)
    }
}

impl Function for Program {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        self.run(x)
    }
}

fn program(max_op: u8) -> impl Strategy<Value = Program> {
    prop::collection::vec(
        (0..max_op, any::<u8>(), any::<u8>()).prop_map(|(op, a, b)| Instr { op, a, b }),
        1..8,
    )
    .prop_map(Program)
}

fn point() -> impl Strategy<Value = [f64; INPUTS]> {
    [-2.0..2.0_f64, -2.0..2.0_f64, -2.0..2.0_f64]
}

fn grads<S: Scalar, F: Function>(f: &F, x: &[S]) -> ([S; INPUTS], [S; INPUTS], [S; INPUTS]) {
    let mut tape = Tape::<S, 512>::new();
    let (mut rev, mut fwd, mut vec) = ([S::ZERO; INPUTS], [S::ZERO; INPUTS], [S::ZERO; INPUTS]);
    let y = gradient_reverse(f, &mut tape, x, &mut rev).unwrap();
    assert!(y == gradient_forward(f, x, &mut fwd).unwrap());
    assert!(y == gradient_forward_vec::<2, _, _>(f, x, &mut vec).unwrap());
    (rev, fwd, vec)
}

/// Central differences of `p` at `x` with twice the step `gradient_central` takes.
fn central_twice_the_step(p: &Program, x: &[f64; INPUTS]) -> [f64; INPUTS] {
    let mut g = [0.0; INPUTS];
    for (i, gi) in g.iter_mut().enumerate() {
        let h = 2.0 * central_step(x[i]);
        let (mut xp, mut xm) = (*x, *x);
        xp[i] += h;
        xm[i] -= h;
        *gi = (p.run(&xp) - p.run(&xm)) / (xp[i] - xm[i]);
    }
    g
}

/// `|a - b| <= tol · (1 + max(|a|, |b|))` element-wise.
fn agree(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter()
        .zip(b)
        .all(|(a, b)| a == b || (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs())))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn reverse_and_forward_agree_on_random_programs(p in program(OPS), x in point()) {
        let (rev, fwd, vec) = grads(&p, &x);
        prop_assert!(agree(&rev, &fwd, 1e-12), "{rev:?} vs {fwd:?}");
        prop_assert_eq!(fwd, vec, "Dual and DualVec run the same arithmetic per lane");
    }

    #[test]
    fn reverse_and_forward_agree_in_f32(p in program(OPS), x in point()) {
        let x32 = x.map(|v| v as f32);
        let (rev, fwd, _) = grads(&p, &x32);
        let (rev, fwd) = (rev.map(f64::from), fwd.map(f64::from));
        prop_assert!(agree(&rev, &fwd, 1e-4), "{rev:?} vs {fwd:?}");
    }

    #[test]
    fn central_differences_agree_on_smooth_programs(p in program(SMOOTH), x in point()) {
        let (rev, _, _) = grads(&p, &x);
        let mut fd = [0.0; INPUTS];
        gradient_central(&p, &x, &mut fd).unwrap();
        let tol = Tolerance::finite_differences::<f64>().rtol;
        // Central differences are only a reference where they have converged: their truncation
        // error grows with the third derivative (a `sin` of a value in the hundreds, which
        // `powi(3)` of a composed value can reach, has one in the millions). A difference with
        // twice the step errs four times as much, so where the two differ by more than the
        // tolerance the point says nothing about the tape and is rejected.
        let wide = central_twice_the_step(&p, &x);
        prop_assume!(agree(&fd, &wide, tol), "central differences not converged");
        prop_assert!(agree(&rev, &fd, tol), "{rev:?} vs {fd:?}");
    }

    #[test]
    fn second_order_modes_agree_on_random_programs(p in program(OPS), x in point()) {
        let mut tape = Tape::<Dual<f64>, 512>::new();
        let mut lanes = Tape::<DualVec<f64, 2>, 512>::new();
        let (mut g1, mut h1, mut g2, mut h2) = ([0.0; 3], [0.0; 9], [0.0; 3], [0.0; 9]);
        let (mut g3, mut h3) = ([0.0; 3], [0.0; 9]);
        hessian(&p, &mut tape, &x, &mut g1, &mut h1).unwrap();
        hessian_forward(&p, &x, &mut g2, &mut h2).unwrap();
        hessian_vec(&p, &mut lanes, &x, &mut g3, &mut h3).unwrap();
        prop_assert!(agree(&h1, &h2, 1e-11), "{h1:?} vs {h2:?}");
        prop_assert!(agree(&g1, &g2, 1e-12), "{g1:?} vs {g2:?}");
        prop_assert_eq!((g1, h1), (g3, h3), "lanes run the same arithmetic as single sweeps");
        let (rev, _, _) = grads(&p, &x);
        prop_assert!(agree(&g1, &rev, 1e-12));
    }

    #[test]
    fn linearity(p in program(OPS), q in program(OPS), a in -3.0..3.0_f64, b in -3.0..3.0_f64, x in point()) {
        let combo = Combo { p: p.clone(), q: q.clone(), kind: Kind::Linear(a, b) };
        let (gp, gq, gc) = (grads(&p, &x).0, grads(&q, &x).0, grads(&combo, &x).0);
        let expected: Vec<f64> = (0..INPUTS).map(|i| a * gp[i] + b * gq[i]).collect();
        prop_assert!(agree(&gc, &expected, 1e-12), "{gc:?} vs {expected:?}");
    }

    #[test]
    fn product_rule(p in program(OPS), q in program(OPS), x in point()) {
        let combo = Combo { p: p.clone(), q: q.clone(), kind: Kind::Product };
        let (gp, gq, gc) = (grads(&p, &x).0, grads(&q, &x).0, grads(&combo, &x).0);
        let (fp, fq) = (p.run(&x), q.run(&x));
        let expected: Vec<f64> = (0..INPUTS).map(|i| fp * gq[i] + fq * gp[i]).collect();
        prop_assert!(agree(&gc, &expected, 1e-12), "{gc:?} vs {expected:?}");
    }

    #[test]
    fn chain_rule(p in program(OPS), x in point()) {
        let combo = Combo { p: p.clone(), q: p.clone(), kind: Kind::SinOf };
        let (gp, gc) = (grads(&p, &x).0, grads(&combo, &x).0);
        let outer = p.run(&x).cos();
        let expected: Vec<f64> = gp.iter().map(|g| outer * g).collect();
        prop_assert!(agree(&gc, &expected, 1e-12), "{gc:?} vs {expected:?}");
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Linear(f64, f64),
    Product,
    SinOf,
}

/// `a p + b q`, `p q` or `sin(p)`, written once like any user function.
struct Combo {
    p: Program,
    q: Program,
    kind: Kind,
}

impl Function for Combo {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        match self.kind {
            Kind::Linear(a, b) => T::from_f64(a) * self.p.run(x) + T::from_f64(b) * self.q.run(x),
            Kind::Product => self.p.run(x) * self.q.run(x),
            Kind::SinOf => self.p.run(x).sin(),
        }
    }
}
