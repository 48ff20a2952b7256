//! The worked examples and exercises of `../shared/seeds/`, and micrograd's README expression,
//! checked against the numbers those documents print (hand-derived, independent of this engine).

use autograd_core::{Number, Tape, TapeError};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn lesson_relu_of_product_plus_one() -> Result<(), TapeError> {
    // Lesson step 7: y = relu(x1*x2 + 1) at (2, 3) = 7, dy/dx1 = 3, dy/dx2 = 2.
    let tape = Tape::<f64, 16>::new();
    let (x1, x2) = (tape.var(2.0), tape.var(3.0));
    let y = (x1 * x2 + 1.0).relu();
    let g = tape.backward(y)?;
    assert_eq!((y.value(), g.wrt(x1), g.wrt(x2)), (7.0, 3.0, 2.0));
    Ok(())
}

#[test]
fn lesson_relu_of_a_times_b_plus_c() -> Result<(), TapeError> {
    // relu(2*(-3) + 10) = 4; df/da = -3, df/db = 2, df/dc = 1.
    let tape = Tape::<f32, 16>::new();
    let (a, b, c) = (tape.var(2.0), tape.var(-3.0), tape.var(10.0));
    let f = (a * b + c).relu();
    let g = tape.backward(f)?;
    assert_eq!(f.value(), 4.0);
    assert_eq!((g.wrt(a), g.wrt(b), g.wrt(c)), (-3.0, 2.0, 1.0));
    Ok(())
}

#[test]
fn article_linear_example() -> Result<(), TapeError> {
    // L = x*w + b at x = 1, w = 0.5, b = 0.1: dL/dx = 0.5, dL/dw = 1, dL/db = 1.
    let tape = Tape::<f64, 8>::new();
    let (x, w, b) = (tape.var(1.0), tape.var(0.5), tape.var(0.1));
    let l = x * w + b;
    let g = tape.backward(l)?;
    assert!(close(l.value(), 0.6, 1e-15));
    assert_eq!((g.wrt(x), g.wrt(w), g.wrt(b)), (0.5, 1.0, 1.0));
    Ok(())
}

#[test]
fn lesson_sin_of_square_reverse_mode() -> Result<(), TapeError> {
    // dy/dx = cos(4) * 4 = -2.615 (lesson's worked reverse-mode example).
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(2.0);
    let y = x.powi(2).sin();
    let d = tape.backward(y)?.wrt(x);
    assert!(close(d, -2.615, 5e-4), "{d}");
    assert!(close(d, 4.0 * libm::cos(4.0), 1e-15));
    Ok(())
}

#[test]
fn exercise_1_cube_at_two_is_twelve() -> Result<(), TapeError> {
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(2.0);
    assert_eq!(tape.backward(x.powi(3))?.wrt(x), 12.0);
    let tape = Tape::<f32, 8>::new();
    let x = tape.var(2.0);
    assert_eq!(tape.backward(x.powf(3.0))?.wrt(x), 12.0);
    Ok(())
}

#[test]
fn exercise_2_tanh_derivatives() -> Result<(), TapeError> {
    let tape = Tape::<f64, 8>::new();
    let x0 = tape.var(0.0);
    let x2 = tape.var(2.0);
    assert_eq!(tape.backward(x0.tanh())?.wrt(x0), 1.0);
    let d = tape.backward(x2.tanh())?.wrt(x2);
    assert!(close(d, 0.0707, 5e-5), "{d}");
    Ok(())
}

#[test]
fn exercise_3_single_neuron_five_gradients() -> Result<(), TapeError> {
    // y = relu(w1*x1 + w2*x2 + b): active neuron, gradients are (x1, x2, 1, w1, w2).
    let tape = Tape::<f64, 16>::new();
    let (w1, w2, b) = (tape.var(0.5), tape.var(-1.5), tape.var(2.0));
    let (x1, x2) = (tape.var(3.0), tape.var(0.5));
    let y = (w1 * x1 + w2 * x2 + b).relu();
    let g = tape.backward(y)?;
    assert_eq!(y.value(), 2.75);
    assert_eq!(
        [g.wrt(w1), g.wrt(w2), g.wrt(b), g.wrt(x1), g.wrt(x2)],
        [3.0, 0.5, 1.0, 0.5, -1.5]
    );
    // Inactive neuron: every gradient is 0.
    let tape = Tape::<f64, 16>::new();
    let (w1, x1, b) = (tape.var(-1.0), tape.var(3.0), tape.var(0.5));
    let y = (w1 * x1 + b).relu();
    let g = tape.backward(y)?;
    assert_eq!([g.wrt(w1), g.wrt(x1), g.wrt(b)], [0.0; 3]);
    Ok(())
}

fn central_difference(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5; // the article's step
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn cubic<T: Number>(x: T) -> T {
    x.powi(3) - x * T::from_f64(2.0) + T::from_f64(1.0)
}

#[test]
fn article_gradient_check_of_cubic() -> Result<(), TapeError> {
    for &xv in &[-2.0, -0.5, 0.0, 1.0, 3.0] {
        let tape = Tape::<f64, 16>::new();
        let x = tape.var(xv);
        let d = tape.backward(cubic(x))?.wrt(x);
        let numeric = central_difference(cubic::<f64>, xv);
        assert!(close(d, numeric, 1e-4), "x = {xv}: {d} vs {numeric}");
        assert!(close(d, 3.0 * xv * xv - 2.0, 1e-12)); // analytic
    }
    Ok(())
}

#[test]
fn lesson_gradient_check_of_tanh_expression() -> Result<(), TapeError> {
    fn expr<T: Number>(x: T) -> T {
        (x.powi(3) + x * T::from_f64(2.0) + T::from_f64(1.0)).tanh()
    }
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(0.5);
    let d = tape.backward(expr(x))?.wrt(x);
    let numeric = central_difference(expr::<f64>, 0.5);
    assert!((d - numeric).abs() < 1e-5, "{d} vs {numeric}");
    let t = libm::tanh(0.125 + 1.0 + 1.0);
    assert!(close(d, (1.0 - t * t) * (3.0 * 0.25 + 2.0), 1e-15));
    Ok(())
}

// Transcribes micrograd's README line by line, `c += c + 1` included.
#[allow(clippy::misrefactored_assign_op)]
#[test]
fn micrograd_readme_expression() -> Result<(), TapeError> {
    let tape = Tape::<f64, 128>::new();
    let a = tape.var(-4.0);
    let b = tape.var(2.0);
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
    assert!(close(g.value(), 24.7041, 5e-5), "{}", g.value());
    assert!(close(grads.wrt(a), 138.8338, 5e-5), "{}", grads.wrt(a));
    assert!(close(grads.wrt(b), 645.5773, 5e-5), "{}", grads.wrt(b));
    Ok(())
}
