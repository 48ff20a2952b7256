//! `Number::affine_layer` where the lengths do not match: rows past the end of the parameters
//! or of the outputs are left out, alike in `f64`, in dual numbers and on a tape (where `Var`'s
//! `Number` method trims the slices before the layer statement, which would refuse them).
//! Checked against values and derivatives by hand: for `y_j = b_j + sum_i w_ji x_i`,
//! `dy_j/dw_ji = x_i`, `dy_j/db_j = 1`, `dy_j/dx_i = w_ji`.

use autograd_core::{Dual, Number, Tape, TapeError, Var};

/// Two whole rows of two weights and a bias, then two parameters of a third row cut short.
const PARAMS: [f64; 8] = [
    1.0, 2.0, 0.5, /* row 1: */ -1.0, 0.0, 3.0, /* cut short: */ 7.0, 7.0,
];
const X: [f64; 2] = [10.0, 100.0];
/// The two whole rows' outputs: 0.5 + 10 + 200, 3 - 10.
const Y: [f64; 2] = [210.5, -7.0];
/// What an output left out keeps.
const UNTOUCHED: f64 = -99.0;

#[test]
fn rows_past_the_parameters_or_the_outputs_are_left_out_in_every_number_type(
) -> Result<(), TapeError> {
    // More outputs than whole rows: the third output is left as it was.
    let mut y = [UNTOUCHED; 3];
    f64::affine_layer(&PARAMS, &X, &mut y);
    assert_eq!(y, [Y[0], Y[1], UNTOUCHED]);
    // Fewer outputs than rows: only the first row is written.
    let mut y = [UNTOUCHED; 1];
    f64::affine_layer(&PARAMS, &X, &mut y);
    assert_eq!(y, [Y[0]]);

    // Dual numbers, seeded on x1: dy_j/dx1 = w_j1 (2 and 0).
    let params = PARAMS.map(Dual::constant);
    let x = [Dual::constant(X[0]), Dual::variable(X[1])];
    let mut y = [Dual::constant(UNTOUCHED); 3];
    Dual::affine_layer(&params, &x, &mut y);
    let (re, eps) = (y.map(|d| d.re), y.map(|d| d.eps));
    assert_eq!((re, eps), ([Y[0], Y[1], UNTOUCHED], [2.0, 0.0, 0.0]));

    // On a tape, through the generic method: the same values and, from y1, the hand-derived
    // gradient; the output left out is still the constant it was.
    let tape = Tape::<f64, 64>::new();
    let p = PARAMS.map(|v| tape.var(v));
    let x = X.map(|v| tape.var(v));
    let mut y = [Var::constant(UNTOUCHED); 3];
    <Var<f64> as Number>::affine_layer(&p, &x, &mut y);
    assert_eq!(y.map(|v| v.value()), [Y[0], Y[1], UNTOUCHED]);
    assert!(y[2].id().is_none(), "the output left out was recorded");
    let g = tape.backward(y[1])?;
    assert_eq!(
        p.map(|v| g.wrt(v)),
        [0.0, 0.0, 0.0, 10.0, 100.0, 1.0, 0.0, 0.0]
    );
    assert_eq!(x.map(|v| g.wrt(v)), [-1.0, 0.0]);

    let mut y = [Var::constant(UNTOUCHED); 1];
    <Var<f64> as Number>::affine_layer(&p, &x, &mut y);
    assert_eq!(y[0].value(), Y[0]);
    let g = tape.backward(y[0])?;
    assert_eq!(
        p.map(|v| g.wrt(v)),
        [10.0, 100.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    );
    assert_eq!(x.map(|v| g.wrt(v)), [1.0, 2.0]);
    Ok(())
}
