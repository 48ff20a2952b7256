//! The figures at one point: the value and the gradient in three modes (and in `f32`), the
//! Hessian two ways, and the finite-difference error over a sweep of step sizes.

use autograd_core::{
    central_step, gradient_central, gradient_forward, gradient_reverse, hessian, hessian_forward,
    Dual, Tape, TapeError,
};
use autograd_expr::{Expr, MAX_OPS};

/// Tape capacity: room for the inputs and every operation of the longest expression, twice
/// over (an operation with a constant operand can record the constant as a node too).
const CAPACITY: usize = 2 * MAX_OPS + 64;

/// Everything computed at one point.
pub struct PointResult {
    /// The point (one value per input).
    pub x: Vec<f64>,
    /// `f(x)`
    pub value: f64,
    /// The gradient by reverse mode (the core's tape).
    pub reverse: Vec<f64>,
    /// The gradient by forward mode (`Dual<f64>`, one pass per input).
    pub forward: Vec<f64>,
    /// The gradient by central differences with the project's step.
    pub central: Vec<f64>,
    /// That step, per input (`central_step`).
    pub step: Vec<f64>,
    /// `f(x)` and the gradient in `f32` (what firmware computes), if asked for.
    pub f32: Option<Single>,
    /// The Hessian by forward over reverse and by forward over forward (row-major), if asked.
    pub hessian: Option<(Vec<f64>, Vec<f64>)>,
    /// The step-size sweep for each input, if asked.
    pub sweeps: Option<Vec<Sweep>>,
    /// Operations at a kink that the result depends on, each written out with the convention
    /// the modes take there (`autograd_expr::Backprop::kinks`).
    pub kinks: Vec<(String, String)>,
}

/// The figures in single precision.
pub struct Single {
    /// `f(x)`
    pub value: f32,
    /// The gradient by reverse mode on a `Tape<f32, _>`.
    pub reverse: Vec<f32>,
    /// The gradient by central differences in `f32` (step `cbrt(eps_f32) max(1, |x|)`, ~4.9e-3).
    pub central: Vec<f32>,
}

/// The central-difference error against the step size for one input.
pub struct Sweep {
    /// Steps, from 1e-1 down to 1e-15, four per decade.
    pub h: Vec<f64>,
    /// `|central difference(h) - reverse mode|` at each step.
    pub error: Vec<f64>,
    /// The step with the smallest error, and that error.
    pub best: (f64, f64),
    /// The project's step (`central_step`), and its error.
    pub default: (f64, f64),
    /// `|f'''(x)| / 6`: truncation error is about this times `h^2`.
    pub truncation: f64,
    /// `eps |f(x)|`: round-off error is about this divided by `h`.
    pub roundoff: f64,
}

/// Computes every figure asked for at point `x`.
pub fn at_point(
    f: &Expr,
    x: &[f64],
    want_f32: bool,
    want_hessian: bool,
    want_sweep: bool,
) -> Result<PointResult, String> {
    let n = x.len();
    let mut tape = Box::new(Tape::<f64, CAPACITY>::new());
    let (mut reverse, mut forward, mut central) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let value = gradient_reverse(f, &mut tape, x, &mut reverse).map_err(explain)?;
    gradient_forward(f, x, &mut forward).map_err(explain)?;
    gradient_central(f, x, &mut central).map_err(explain)?;
    let step = x.iter().map(|&xi| central_step(xi)).collect();

    let f32 = if want_f32 {
        let mut tape = Box::new(Tape::<f32, CAPACITY>::new());
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (mut reverse, mut central) = (vec![0.0_f32; n], vec![0.0_f32; n]);
        let value = gradient_reverse(f, &mut tape, &x32, &mut reverse).map_err(explain)?;
        gradient_central(f, &x32, &mut central).map_err(explain)?;
        Some(Single {
            value,
            reverse,
            central,
        })
    } else {
        None
    };

    let hessian = if want_hessian {
        let mut tape = Box::new(Tape::<Dual<f64>, CAPACITY>::new());
        let (mut g, mut h, mut hf) = (vec![0.0; n], vec![0.0; n * n], vec![0.0; n * n]);
        hessian(f, &mut tape, x, &mut g, &mut h).map_err(explain)?;
        hessian_forward(f, x, &mut g, &mut hf).map_err(explain)?;
        Some((h, hf))
    } else {
        None
    };

    let sweeps = want_sweep.then(|| (0..n).map(|i| sweep(f, x, i, value, reverse[i])).collect());
    let kinks = autograd_expr::backprop(f, x)
        .kinks(f)
        .into_iter()
        .map(|k| (f.op_text(k.op).unwrap_or_default(), k.convention))
        .collect();
    Ok(PointResult {
        x: x.to_vec(),
        value,
        reverse,
        forward,
        central,
        step,
        f32,
        hessian,
        sweeps,
        kinks,
    })
}

fn explain(e: TapeError) -> String {
    format!("could not differentiate: {e}")
}

/// `(f(x + h e_i) - f(x - h e_i)) / ((x_i + h) - (x_i - h))`, the core's formula.
fn central_difference(f: &Expr, x: &[f64], i: usize, h: f64) -> f64 {
    let mut xs = x.to_vec();
    let (xp, xm) = (x[i] + h, x[i] - h);
    xs[i] = xp;
    let fp: f64 = f.eval(&xs);
    xs[i] = xm;
    let fm: f64 = f.eval(&xs);
    (fp - fm) / (xp - xm)
}

fn sweep(f: &Expr, x: &[f64], i: usize, value: f64, exact: f64) -> Sweep {
    let h: Vec<f64> = (0..=56)
        .map(|k| 10f64.powf(-1.0 - k as f64 / 4.0))
        .collect();
    let error: Vec<f64> = h
        .iter()
        .map(|&h| (central_difference(f, x, i, h) - exact).abs())
        .collect();
    let best = h
        .iter()
        .zip(&error)
        .filter(|(_, e)| e.is_finite())
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map_or((f64::NAN, f64::NAN), |(h, e)| (*h, *e));
    let default_h = central_step(x[i]);
    let default = (
        default_h,
        (central_difference(f, x, i, default_h) - exact).abs(),
    );
    Sweep {
        h,
        error,
        best,
        default,
        truncation: third_derivative(f, x, i).abs() / 6.0,
        roundoff: f64::EPSILON * value.abs(),
    }
}

/// `d^3 f / dx_i^3` by forward mode three deep: `f(x + e1 + e2 + e3)` with three nested dual
/// units; the coefficient of `e1 e2 e3` is the third derivative.
fn third_derivative(f: &Expr, x: &[f64], i: usize) -> f64 {
    type D3 = Dual<Dual<Dual<f64>>>;
    let one = Dual::constant(1.0);
    let xs: Vec<D3> = x
        .iter()
        .enumerate()
        .map(|(j, &v)| {
            if j == i {
                Dual::new(
                    Dual::new(Dual::new(v, 1.0), one),
                    Dual::new(one, Dual::constant(0.0)),
                )
            } else {
                Dual::constant(Dual::constant(Dual::constant(v)))
            }
        })
        .collect();
    f.eval(&xs).eps.eps.eps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn third_derivative_of_the_cubic_is_six() {
        let f = autograd_expr::parse("x^3 - 2*x + 1").unwrap();
        assert_eq!(third_derivative(&f, &[0.7], 0), 6.0);
        let f = autograd_expr::parse("sin(x) * y").unwrap();
        let d = third_derivative(&f, &[0.5, 2.0], 0); // -cos(x) y
        assert!((d + 0.5_f64.cos() * 2.0).abs() < 1e-15);
    }

    #[test]
    fn the_sweep_finds_the_v_of_truncation_and_round_off() {
        let f = autograd_expr::parse("x^3 - 2*x + 1").unwrap();
        let r = at_point(&f, &[3.0], false, false, true).unwrap();
        let s = &r.sweeps.as_ref().unwrap()[0];
        // At h = 0.1 the error is truncation: h^2 f'''/6 = 0.01 exactly (up to rounding).
        assert!((s.error[0] - 0.01).abs() < 1e-12, "{}", s.error[0]);
        assert_eq!(s.truncation, 1.0);
        // Past the best step, round-off grows again: at 1e-15 the error is far larger.
        assert!(
            s.best.1 < 1e-8 && s.error[56] > 1e-3,
            "{:?} {}",
            s.best,
            s.error[56]
        );
        assert!(s.best.0 > 1e-9 && s.best.0 < 1e-3, "{:?}", s.best);
    }
}
