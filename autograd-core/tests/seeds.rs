//! The worked examples and exercises of `../shared/seeds/`, and micrograd's README expression,
//! checked against the numbers those documents print or that follow from them by hand (the
//! core's `testkit`: literals, independent of this engine).

use autograd_core::testkit::{Example, Seed, EXAMPLES, MICROGRAD};
use autograd_core::{
    gradient_forward, gradient_reverse, Function, Scalar, Tape, TapeError, Tolerance,
};

/// Reverse and forward mode in `S` at the example's point, against its numbers (with `S`'s
/// rounding, `Tolerance::between_modes`, on top of the example's own tolerance).
fn check<S: Scalar>(example: &Example) {
    let rtol = Tolerance::between_modes::<S>().rtol;
    let x: Vec<S> = example.x.iter().map(|&v| S::from_f64(v)).collect();
    let n = x.len();
    let mut tape = Tape::<S, 128>::new();
    let (mut rev, mut fwd) = (vec![S::ZERO; n], vec![S::ZERO; n]);
    let y = gradient_reverse(&example.function, &mut tape, &x, &mut rev).unwrap();
    let y_fwd = gradient_forward(&example.function, &x, &mut fwd).unwrap();
    for (mode, y, g) in [("reverse", y, &rev), ("forward", y_fwd, &fwd)] {
        let g: Vec<f64> = g.iter().map(|v| v.to_f64()).collect();
        assert!(
            example.agrees(y.to_f64(), &g, rtol),
            "{} ({mode} mode, {}): value {y:?}, gradient {g:?}; expected {:?}, {:?}",
            example.name,
            core::any::type_name::<S>(),
            example.value,
            example.gradient,
        );
    }
}

#[test]
fn every_worked_example_in_f64_and_f32() {
    for example in &EXAMPLES {
        check::<f64>(example);
        check::<f32>(example);
    }
    check::<f64>(&MICROGRAD);
}

/// Exercise 1 once more through `powf(3.0)`, the other spelling of `x^3`.
#[test]
fn exercise_1_cube_through_powf_too() -> Result<(), TapeError> {
    let cube = EXAMPLES.iter().find(|e| e.function == Seed::Cube).unwrap();
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(cube.x[0]);
    assert_eq!(tape.backward(x.powf(3.0))?.wrt(x), cube.gradient[0]);
    let tape = Tape::<f32, 8>::new();
    let x = tape.var(cube.x[0] as f32);
    assert_eq!(
        f64::from(tape.backward(x.powf(3.0))?.wrt(x)),
        cube.gradient[0]
    );
    Ok(())
}

fn central_difference(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5; // the article's step
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// The seeds' own gradient checks: autograd against central differences with `h = 1e-5`, within
/// 1e-4 (the article, `x^3 - 2x + 1`) and 1e-5 (the lesson, `tanh(x^3 + 2x + 1)`).
#[test]
fn the_seeds_gradient_checks_against_central_differences() {
    let mut checked = 0;
    for example in &EXAMPLES {
        let tol = match example.function {
            Seed::Cubic => 1e-4,
            Seed::TanhPoly => 1e-5,
            _ => continue,
        };
        let mut tape = Tape::<f64, 16>::new();
        let mut g = [0.0];
        gradient_reverse(&example.function, &mut tape, example.x, &mut g).unwrap();
        let numeric = central_difference(|v| example.function.eval(&[v]), example.x[0]);
        assert!(
            (g[0] - numeric).abs() < tol,
            "{}: {g:?} vs {numeric}",
            example.name
        );
        checked += 1;
    }
    assert_eq!(checked, 6); // five points of the article, one of the lesson
}

// Transcribes micrograd's README line by line on the tape, `c += c + 1` included: the scalar
// operand forms of the operators (`1.0 + c`, `3.0 * d`, `10.0 / f`) that `Seed::Micrograd`,
// written against `Number`, does not reach.
#[allow(clippy::misrefactored_assign_op)]
#[test]
fn micrograd_readme_expression() -> Result<(), TapeError> {
    let tape = Tape::<f64, 128>::new();
    let a = tape.var(MICROGRAD.x[0]);
    let b = tape.var(MICROGRAD.x[1]);
    let mut c = a + b;
    let mut d = a * b + b.powi(3);
    c += c + 1.0;
    c += 1.0 + c + (-a);
    d += d * 2.0 + (b + a).relu();
    d += 3.0 * d + (b - a).relu();
    let e = c - d;
    let f = e.powi(2);
    let mut g = f / 2.0;
    g += 10.0 / f;
    let grads = tape.backward(g)?;
    let gradient = [grads.wrt(a), grads.wrt(b)];
    assert!(
        MICROGRAD.agrees(g.value(), &gradient, 0.0),
        "{} {gradient:?}",
        g.value()
    );
    Ok(())
}
