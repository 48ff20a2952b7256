//! One function, three modes: Rosenbrock's gradient in every mode against its formula, at the
//! benchmarks' sizes in every tier; Jacobians; the gradient-check API and its reports; errors.
//! (`tests/op_modes.rs`: every operation in every mode.)

use autograd_core::{
    central_step, compare, gradcheck, gradcheck_with, gradient_central, gradient_forward,
    gradient_forward_vec, gradient_reverse, jacobian_central, jacobian_forward,
    jacobian_forward_vec, jacobian_reverse, Function, Number, Tape, TapeError, Tolerance,
    VectorFunction, MAX_DIMENSION,
};

use autograd_core::testkit::{rosenbrock, rosenbrock_gradient, Rosenbrock};
use core::cell::Cell;

/// The minimum (gradient 0), the classic start, the benchmark point and a scattered point;
/// entries past `n` are 0.
fn points(n: usize) -> [[f64; 8]; 4] {
    let point = |f: fn(f64) -> f64| core::array::from_fn(|i| if i < n { f(i as f64) } else { 0.0 });
    [
        point(|_| 1.0),
        point(|i| if i % 2.0 == 0.0 { -1.2 } else { 1.0 }),
        point(|i| 0.5 + 0.01 * i),
        point(|i| (i * 1.7).sin() * 2.0),
    ]
}

#[test]
fn rosenbrock_gradient_in_every_mode_matches_the_formula() {
    let mut tape = Tape::<f64, 256>::new();
    for n in [2, 3, 5, 8] {
        for p in points(n) {
            let x = &p[..n];
            let mut exact = [0.0; 8];
            rosenbrock_gradient(x, &mut exact[..n]);
            let (mut rev, mut fwd, mut vec, mut fd) = ([0.0; 8], [0.0; 8], [0.0; 8], [0.0; 8]);
            let y = gradient_reverse(&Rosenbrock, &mut tape, x, &mut rev[..n]).unwrap();
            gradient_forward(&Rosenbrock, x, &mut fwd[..n]).unwrap();
            gradient_forward_vec::<4, _, _>(&Rosenbrock, x, &mut vec[..n]).unwrap();
            gradient_central(&Rosenbrock, x, &mut fd[..n]).unwrap();
            assert_eq!(y, rosenbrock(x));
            let tight = Tolerance::new(1e-12, 1e-13);
            for (name, g, tol) in [
                ("reverse", &rev, tight),
                ("forward", &fwd, tight),
                ("forward, 4 lanes", &vec, tight),
                ("central", &fd, Tolerance::finite_differences::<f64>()),
            ] {
                let c = compare(&g[..n], &exact[..n], tol).unwrap();
                assert!(c.passed, "n = {n}, x = {x:?}, {name}: {c}");
            }
            if p[0] == 1.0 && p[1] == 1.0 {
                assert_eq!(
                    &rev[..n],
                    &[0.0; 8][..n],
                    "gradient vanishes at the minimum"
                );
            }
        }
    }
}

#[test]
fn gradient_at_benchmark_sizes_in_every_tier() {
    // A debug build copies the 400 KB tape through the stack while boxing it, so run where a large
    // stack is guaranteed.
    std::thread::Builder::new()
        .stack_size(32 << 20)
        .spawn(benchmark_sizes)
        .unwrap()
        .join()
        .unwrap();
}

/// `Some` result of a driver, or `None` where its scratch does not fit the stack and the `alloc`
/// feature is off (the only case in which that may be an error).
fn unless_scratch_too_large<T>(result: Result<T, TapeError>) -> Option<T> {
    match result {
        Err(TapeError::ScratchTooLarge { bytes, max, .. }) if !cfg!(feature = "alloc") => {
            assert!(bytes > max);
            None
        }
        result => Some(result.unwrap()),
    }
}

fn benchmark_sizes() {
    // n = 10, 100, 1000 exercise scratch tiers of 16, 256 and 1024 elements (the last beyond the
    // stack budget for `Var<f64>` and `DualVec<f64, 8>`, so on the heap with `alloc`).
    let mut tape = Box::new(Tape::<f64, 16384>::new());
    for n in [10, 100, 1000] {
        let x: Vec<f64> = (0..n).map(|i| 0.5 + 0.01 * i as f64).collect();
        let mut exact = vec![0.0; n];
        rosenbrock_gradient(&x, &mut exact);
        let (mut rev, mut vec) = (vec![0.0; n], vec![0.0; n]);
        let tight = Tolerance::new(1e-12, 1e-13);
        if unless_scratch_too_large(gradient_reverse(&Rosenbrock, &mut tape, &x, &mut rev))
            .is_some()
        {
            assert!(compare(&rev, &exact, tight).unwrap().passed, "n = {n}");
        }
        if unless_scratch_too_large(gradient_forward_vec::<8, _, _>(&Rosenbrock, &x, &mut vec))
            .is_some()
        {
            assert!(compare(&vec, &exact, tight).unwrap().passed, "n = {n}");
        }
        assert!(
            n > 256 || !rev.contains(&0.0) && !vec.contains(&0.0),
            "n = {n}: on the stack"
        );
    }
}

/// The first input, untouched: its reverse gradient records nothing beyond the inputs.
struct First;
impl Function for First {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        x[0]
    }
}

/// R^n -> R^2: (x0, x_{n-1}), recording nothing beyond the inputs.
struct Pick;
impl VectorFunction for Pick {
    fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
        out[0] = x[0];
        out[1] = x[x.len() - 1];
    }
}

#[test]
fn inputs_that_do_not_fit_the_tape_are_counted_and_rewound() {
    // Six inputs on four slots: the error says six were needed (the two that did not fit
    // counted), and the driver rewinds the tape to where it was.
    let mut tape = Tape::<f64, 4>::new();
    let overflow = TapeError::CapacityExceeded {
        capacity: 4,
        needed: 6,
    };
    let mut g = [0.0; 6];
    assert_eq!(
        gradient_reverse(&First, &mut tape, &[1.0; 6], &mut g),
        Err(overflow)
    );
    assert!(tape.check().is_ok() && tape.is_empty());
    let (mut y, mut j) = ([0.0; 2], [0.0; 12]);
    let mut small = Tape::<f64, 5>::new();
    assert_eq!(
        jacobian_reverse(&Pick, &mut small, &[1.0; 6], &mut y, &mut j),
        Err(TapeError::CapacityExceeded {
            capacity: 5,
            needed: 6
        })
    );
    assert!(small.check().is_ok() && small.is_empty());
    // Four fit exactly: the gradient is the first unit vector.
    assert_eq!(
        gradient_reverse(&First, &mut tape, &[2.0; 4], &mut g[..4]),
        Ok(2.0)
    );
    assert_eq!(g[..4], [1.0, 0.0, 0.0, 0.0]);
}

/// R^3 -> R^2: (x0 x1 sin x2, exp(x0) - x1 / x2).
struct Field;
impl VectorFunction for Field {
    fn eval<T: Number>(&self, x: &[T], out: &mut [T]) {
        out[0] = x[0] * x[1] * x[2].sin();
        out[1] = x[0].exp() - x[1] / x[2];
    }
}

/// A reference to a function is one (`Function for &F`, `VectorFunction for &F`): generic code
/// that holds `&F` passes it on as a function of its own and gets the same values and derivatives.
#[test]
fn a_reference_to_a_function_is_a_function() {
    let x = [0.7_f64, -1.3, 2.1];
    let (mut y, mut j, mut y_ref, mut j_ref) = ([0.0; 2], [0.0; 6], [0.0; 2], [0.0; 6]);
    jacobian_forward(&Field, &x, &mut y, &mut j).unwrap();
    jacobian_forward(&&Field, &x, &mut y_ref, &mut j_ref).unwrap();
    assert_eq!((y_ref, j_ref), (y, j));
    assert_eq!(y[1], x[0].exp() - x[1] / x[2]);
    let (mut g, mut g_ref) = ([0.0; 3], [0.0; 3]);
    let f = gradient_forward(&Rosenbrock, &x, &mut g).unwrap();
    let f_ref = gradient_forward(&&Rosenbrock, &x, &mut g_ref).unwrap();
    assert_eq!((f_ref, g_ref), (f, g));
    assert_eq!(f, rosenbrock(&x));
}

#[test]
fn jacobians_in_three_modes_match_the_formula() {
    let x = [0.7_f64, -1.3, 2.1];
    let (s, c, e) = (x[2].sin(), x[2].cos(), x[0].exp());
    let exact = [
        x[1] * s,
        x[0] * s,
        x[0] * x[1] * c,
        e,
        -1.0 / x[2],
        x[1] / (x[2] * x[2]),
    ];
    let mut tape = Tape::<f64, 32>::new();
    let (mut y1, mut y2, mut y3) = ([0.0; 2], [0.0; 2], [0.0; 2]);
    let (mut j1, mut j2, mut j3) = ([0.0; 6], [0.0; 6], [0.0; 6]);
    jacobian_reverse(&Field, &mut tape, &x, &mut y1, &mut j1).unwrap();
    jacobian_forward(&Field, &x, &mut y2, &mut j2).unwrap();
    jacobian_central(&Field, &x, &mut y3, &mut j3).unwrap();
    let (mut y4, mut j4) = ([0.0; 2], [0.0; 6]);
    jacobian_forward_vec::<2, _, _>(&Field, &x, &mut y4, &mut j4).unwrap();
    assert_eq!(
        (y4, j4),
        (y2, j2),
        "lanes run the same arithmetic as separate passes"
    );
    assert_eq!(y1, y2);
    assert_eq!(y1, y3);
    assert_eq!(y1, [x[0] * x[1] * s, e - x[1] / x[2]]);
    let tight = Tolerance::new(1e-15, 1e-15);
    assert!(compare(&j1, &exact, tight).unwrap().passed);
    assert!(compare(&j2, &exact, tight).unwrap().passed);
    let c = compare(&j3, &exact, Tolerance::finite_differences::<f64>()).unwrap();
    assert!(c.passed, "{c}");
    assert!(tape.is_empty(), "the tape is rewound");
}

/// R^0 -> R^2: two constants.
struct Constants;
impl VectorFunction for Constants {
    fn eval<T: Number>(&self, _: &[T], out: &mut [T]) {
        out[0] = T::from_f64(1.5);
        out[1] = T::from_f64(-2.0);
    }
}

#[test]
fn a_jacobian_of_no_inputs_still_gives_the_values() {
    let mut tape = Tape::<f64, 8>::new();
    let want = [1.5, -2.0];
    let mut y = [0.0; 2];
    jacobian_reverse(&Constants, &mut tape, &[], &mut y, &mut []).unwrap();
    assert_eq!(y, want, "reverse");
    let mut y = [0.0; 2];
    jacobian_forward(&Constants, &[], &mut y, &mut []).unwrap();
    assert_eq!(y, want, "forward");
    let mut y = [0.0; 2];
    jacobian_forward_vec::<4, _, _>(&Constants, &[], &mut y, &mut []).unwrap();
    assert_eq!(y, want, "forward, four lanes");
    let mut y = [0.0; 2];
    jacobian_central(&Constants, &[], &mut y, &mut []).unwrap();
    assert_eq!(y, want, "central differences");
}

#[test]
fn drivers_leave_earlier_nodes_alone() {
    // A tape holding parameters: the driver records after them and rewinds to them.
    let mut tape = Tape::<f64, 64>::new();
    let w = tape.var(3.0).id().unwrap();
    let mut g = [0.0; 2];
    gradient_reverse(&Rosenbrock, &mut tape, &[0.5, 0.5], &mut g).unwrap();
    assert_eq!(tape.len(), 1);
    assert_eq!(tape.get(w).unwrap().value(), 3.0);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let mut tape = Tape::<f64, 8>::new();
    let x = [1.0, 2.0];
    let err = gradient_reverse(&Rosenbrock, &mut tape, &x, &mut [0.0; 1]).unwrap_err();
    assert_eq!(
        err,
        TapeError::LengthMismatch {
            what: "gradient",
            expected: 2,
            found: 1
        }
    );
    // Rosenbrock on 5 inputs needs more than 8 slots (away from its minimum, where every
    // derivative is 0 and nothing depends on the inputs).
    let err = gradient_reverse(&Rosenbrock, &mut tape, &[0.5; 5], &mut [0.0; 5]).unwrap_err();
    assert_eq!(
        err,
        TapeError::CapacityExceeded {
            capacity: 8,
            needed: 18
        }
    );
    assert!(err.to_string().contains("capacity of 8"));
    assert!(
        tape.check().is_ok() && tape.is_empty(),
        "the failure is rewound away"
    );

    let (mut y, mut j) = ([0.0; 2], [0.0; 5]);
    let err = jacobian_forward(&Field, &[1.0; 3], &mut y, &mut j).unwrap_err();
    assert_eq!(err.to_string(), "Jacobian slice has length 5, expected 6");

    let big = vec![0.5; MAX_DIMENSION + 1];
    let mut g = vec![0.0; MAX_DIMENSION + 1];
    let result = gradient_central(&Rosenbrock, &big, &mut g);
    if cfg!(feature = "alloc") {
        assert!(result.is_ok(), "the heap holds any dimension");
    } else {
        assert_eq!(
            result.unwrap_err().to_string(),
            "dimension 4097 exceeds the supported maximum of 4096 (MAX_DIMENSION)"
        );
    }
    assert!(compare(&[1.0, 2.0], &[1.0], Tolerance::between_modes::<f64>()).is_err());
}

#[test]
fn compare_reports_the_worst_element() {
    let expected = [1.0, -2.0, 0.0, 1e6];
    let actual = [1.0 + 1e-13, -2.0 - 4e-9, 0.0, 1e6 * (1.0 + 1e-9)];
    let c = compare(&actual, &expected, Tolerance::new(1e-10, 1e-10)).unwrap();
    assert!(!c.passed);
    assert_eq!(c.failures, 2);
    let w = c.worst.unwrap();
    // Element 1 is 4e-9 / (1e-10 + 2e-10) = 13x past its bound; element 3 is 1e-3 / 1e-4 = 10x.
    assert_eq!(w.index, 1);
    assert_eq!((w.actual, w.expected), (-2.0 - 4e-9, -2.0));
    assert!((w.abs_error - 4e-9).abs() < 1e-15);
    assert!((w.rel_error - 2e-9).abs() < 1e-15);
    let text = c.to_string();
    assert!(text.starts_with("FAIL (2 of 4 outside"), "{text}");
    assert!(text.contains("worst [1]"), "{text}");

    let ok = compare(&actual, &expected, Tolerance::new(1e-8, 1e-8)).unwrap();
    assert!(ok.passed && ok.failures == 0);
    // Of equally bad elements, the first: two errors of 0.5 past a bound of 0 (both infinitely
    // far past it), and where every element is exact, element 0.
    let zero = Tolerance::new(0.0, 0.0);
    let tie = compare(&[1.0, 2.5, 3.0, 4.5], &[1.0, 2.0, 3.0, 4.0], zero).unwrap();
    assert_eq!((tie.failures, tie.worst.unwrap().index), (2, 1));
    let exact = compare(&[1.0, 2.0], &[1.0, 2.0], zero)
        .unwrap()
        .worst
        .unwrap();
    assert_eq!(
        (exact.index, exact.abs_error, exact.rel_error),
        (0, 0.0, 0.0)
    );
    // NaN never passes; equal infinities do.
    assert!(
        !compare(&[f64::NAN], &[f64::NAN], Tolerance::new(1.0, 1.0))
            .unwrap()
            .passed
    );
    assert!(
        compare(&[f64::INFINITY], &[f64::INFINITY], Tolerance::new(0.0, 0.0))
            .unwrap()
            .passed
    );
}

#[test]
fn gradcheck_passes_on_correct_functions_in_both_precisions() {
    let mut tape = Tape::<f64, 256>::new();
    for p in points(6) {
        let r = gradcheck(&Rosenbrock, &mut tape, &p[..6]).unwrap();
        assert!(r.passed(), "{r}");
    }
    let mut tape = Tape::<f32, 256>::new();
    let r = gradcheck(&Rosenbrock, &mut tape, &[0.5_f32, 0.7, -0.3]).unwrap();
    assert!(r.passed(), "{r}");
    let text = r.to_string();
    assert!(text.starts_with("gradcheck passed"), "{text}");
    assert!(text.contains("backward twice identical: yes"), "{text}");
}

/// A "function" whose derivative is wrong in forward mode only: it branches on the number type
/// (a dual's tangent is dropped through `from_f64(to_f64())`), which is what a buggy rule looks like.
struct DropsTangent;
impl Function for DropsTangent {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        let frozen = T::from_f64(x[0].to_f64()); // constant: derivative lost in every mode
        x[0] * x[1] + frozen.sin()
    }
}

#[test]
fn gradcheck_catches_a_wrong_derivative() {
    // d/dx0 should include cos(x0); every AD mode drops it, central differences see it.
    let mut tape = Tape::<f64, 32>::new();
    let r = gradcheck(&DropsTangent, &mut tape, &[0.3, 2.0]).unwrap();
    assert!(
        r.reverse_vs_forward.passed,
        "both AD modes agree on the same wrong thing"
    );
    assert!(!r.reverse_vs_central.passed);
    assert!(!r.passed());
    let w = r.reverse_vs_central.worst.unwrap();
    assert_eq!(w.index, 0);
    assert!((w.abs_error - libm::cos(0.3)).abs() < 1e-8, "{w}");
    assert!(r.to_string().starts_with("gradcheck FAILED"));

    // Loose tolerances make it pass: the tolerance is really applied.
    let r = gradcheck_with(
        &DropsTangent,
        &mut tape,
        &[0.3, 2.0],
        Tolerance::between_modes::<f64>(),
        Tolerance::new(1.0, 0.0),
    )
    .unwrap();
    assert!(r.passed(), "{r}");
}

/// `x0 x1`, plus `off` on evaluation number `bad` (counting from 0) only: a value that one
/// mode's evaluation computes differently, which no derivative rule can show.
struct OneEvaluationOff {
    calls: Cell<usize>,
    bad: usize,
    off: f64,
}
impl Function for OneEvaluationOff {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        let call = self.calls.get();
        self.calls.set(call + 1);
        let off = if call == self.bad { self.off } else { 0.0 };
        x[0] * x[1] + T::from_f64(off)
    }
}

#[test]
fn gradcheck_catches_a_value_one_mode_computes_differently() {
    let mut tape = Tape::<f64, 32>::new();
    let f = |bad, off| OneEvaluationOff {
        calls: Cell::new(0),
        bad,
        off,
    };
    // Counted once with no evaluation off: the last is the directional derivative's.
    let all = f(usize::MAX, 1.0);
    assert!(gradcheck(&all, &mut tape, &[0.3, 2.0]).unwrap().passed());
    // The first evaluation is reverse mode's, the last the directional derivative's; a value off
    // by 1, or NaN where the others are not.
    let cases = [0, all.calls.get() - 1].map(|bad| [(bad, 1.0), (bad, f64::NAN)]);
    for (bad, off) in cases.into_iter().flatten() {
        let r = gradcheck(&f(bad, off), &mut tape, &[0.3, 2.0]).unwrap();
        assert!(!r.values_agree, "evaluation {bad}, {off}: {r}");
        assert!(!r.passed(), "evaluation {bad}, {off}");
        assert!(
            r.reverse_vs_forward.passed && r.reverse_vs_central.passed,
            "{r}"
        );
        assert!(r.backward_twice_identical && r.zero_seed_gives_zero, "{r}");
        let text = r.to_string();
        assert!(text.contains("values agree across modes: NO"), "{text}");
    }
}

#[test]
fn the_central_step_scales_with_inputs_past_one() {
    // cbrt(ε) max(1, |x|): the same step up to |x| = 1, |x| times it past.
    let h = central_step(1.0_f64);
    assert!((h - 6.055454e-6).abs() < 1e-11);
    assert_eq!((central_step(0.5_f64), central_step(-1.0_f64)), (h, h));
    assert_eq!(central_step(-100.0_f64), h * 100.0);
    assert_eq!(central_step(3e8_f32), central_step(1.0_f32) * 3e8);
}
