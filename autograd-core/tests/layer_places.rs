//! A layer statement of more rows than a row's link can hold the place of (`ROW_PLACES`, 127, in
//! `tape.rs`): the rows below find the first row from their place, the rows above by bisection,
//! and the sweep, `TapeView::node` and the anomaly report read every row's operands either way;
//! and a row whose count of slots is a multiple of 256 (its place read from its own bits, not
//! the count's).
//! Checked against derivatives by hand: for `y_j = b_j + sum_i w_ji x_i`, `dy_j/dw_ji = x_i`,
//! `dy_j/db_j = 1`, `dy_j/dx_i = w_ji`.

use autograd_core::{Op, Tape, TapeError, Var};

/// Rows of the layer: past the 127 places, with a group of four rows written together past them
/// (rows 128 to 131), and not a multiple of four (the last three written one at a time).
const M: usize = 135;
/// Inputs of the layer.
const K: usize = 3;

/// Weight `i` of row `j` (the bias is `i = K`), all distinct.
fn param(j: usize, i: usize) -> f64 {
    0.25 + 0.01 * j as f64 - 0.5 * i as f64
}

#[test]
fn every_row_of_a_layer_past_the_places_a_link_holds_has_its_gradients() -> Result<(), TapeError> {
    let tape = Tape::<f64, 1024>::new();
    let params: Vec<_> = (0..M * (K + 1))
        .map(|p| tape.var(param(p / (K + 1), p % (K + 1))))
        .collect();
    let u = tape.var(2.0);
    // x = (u, 3 u, 1.5): two inputs recorded (both through u), one constant.
    let x = [u, u * 3.0, Var::constant(1.5)];
    let xv = [2.0, 6.0, 1.5];
    let mut y = vec![Var::constant(0.0); M];
    let before = tape.len();
    Var::affine_layer(&params, &x, &mut y)?;
    assert_eq!(tape.len() - before, K + 1 + M, "one layer statement");
    for (j, yj) in y.iter().enumerate() {
        let want = param(j, K) + (0..K).map(|i| param(j, i) * xv[i]).sum::<f64>();
        assert!((yj.value() - want).abs() < 1e-12, "row {j}");
        let node = tape.node(yj.id().expect("a row's statement"))?;
        assert_eq!(
            (node.op, node.operands),
            (Op::Dot, 2 * 2 + 1 + 1),
            "row {j}"
        );
    }
    // From each of a few rows alone, below and above the places: its own weights only.
    for j in [0, 1, 125, 126, 127, 128, 131, 134] {
        let g = tape.backward(y[j])?;
        for (p, &w) in params.iter().enumerate() {
            let (r, i) = (p / (K + 1), p % (K + 1));
            let want = match (r == j, i) {
                (false, _) => 0.0,
                (true, K) => 1.0,
                (true, i) => xv[i],
            };
            assert_eq!(g.wrt(w), want, "row {j}: parameter {p}");
        }
        let du = param(j, 0) + 3.0 * param(j, 1);
        assert!((g.wrt(u) - du).abs() < 1e-12, "row {j}: du");
    }
    // From the sum of every row weighted by its place: all at once.
    let out = y
        .iter()
        .enumerate()
        .fold(Var::constant(0.0), |s, (j, &yj)| s + yj * (j + 1) as f64);
    let g = tape.backward(out)?;
    for (p, &w) in params.iter().enumerate() {
        let (c, i) = ((p / (K + 1) + 1) as f64, p % (K + 1));
        let want = if i == K { c } else { c * xv[i] };
        assert_eq!(g.wrt(w), want, "parameter {p}");
    }
    let du: f64 = (0..M)
        .map(|j| (j + 1) as f64 * (param(j, 0) + 3.0 * param(j, 1)))
        .sum();
    assert!((g.wrt(u) - du).abs() < 1e-9 * du.abs(), "du");
    Ok(())
}

#[test]
fn a_row_past_the_places_that_overflows_is_named() -> Result<(), TapeError> {
    // Row 129's bias and first weight are 1e308: its value 1e308 + 2e308 overflows, the first
    // value that is not finite, and the report names that row (found by bisection), a dot.
    let tape = Tape::<f64, 1024>::new();
    let params: Vec<_> = (0..M * (K + 1))
        .map(|p| {
            let (j, i) = (p / (K + 1), p % (K + 1));
            tape.var(if j == 129 && (i == 0 || i == K) {
                1e308
            } else {
                param(j, i)
            })
        })
        .collect();
    let u = tape.var(2.0);
    let x = [u, u * 3.0, Var::constant(1.5)];
    let mut y = vec![Var::constant(0.0); M];
    Var::affine_layer(&params, &x, &mut y)?;
    let row = y[129].id().expect("a row's statement");
    let report = tape
        .anomaly(y[3] + y[129])
        .expect("a value that is not finite");
    assert_eq!((report.index, report.op), (row.index(), Op::Dot));
    assert_eq!(report.value, f64::INFINITY);
    Ok(())
}

#[test]
fn a_row_whose_count_is_a_multiple_of_256_is_found_by_its_place() -> Result<(), TapeError> {
    // A row's link holds its place in the operation's bits and its count of slots down to the
    // statement's first in the low bits: with 250 inputs, row 5's count is 250 + 1 + 5 = 256,
    // whose low eight bits are 0, the place of the first row. Every row's gradients, swept from
    // that row alone, are its own: its inputs' values, and `dy_j/du = sum_i w_ji c_i`.
    const K: usize = 250;
    const M: usize = 8;
    let w = |j: usize, i: usize| 0.5 + 0.125 * j as f64 - 0.001 * i as f64;
    let c = |i: usize| 1.0 + 0.25 * i as f64;
    let tape = Tape::<f64, 4096>::new();
    let params: Vec<_> = (0..M * (K + 1))
        .map(|p| tape.var(w(p / (K + 1), p % (K + 1))))
        .collect();
    let u = tape.var(2.0);
    let x: Vec<_> = (0..K).map(|i| u * c(i)).collect();
    let mut y = vec![Var::constant(0.0); M];
    let before = tape.len();
    Var::affine_layer(&params, &x, &mut y)?;
    assert_eq!(tape.len() - before, K + 1 + M, "one layer statement");
    for (j, &yj) in y.iter().enumerate() {
        let g = tape.backward(yj)?;
        for (p, &wp) in params.iter().enumerate() {
            let (r, i) = (p / (K + 1), p % (K + 1));
            let want = match (r == j, i) {
                (false, _) => 0.0,
                (true, K) => 1.0,
                (true, i) => 2.0 * c(i),
            };
            assert_eq!(g.wrt(wp), want, "row {j}: parameter {p}");
        }
        let du: f64 = (0..K).map(|i| w(j, i) * c(i)).sum();
        assert!((g.wrt(u) - du).abs() < 1e-12 * du.abs(), "row {j}: du");
    }
    Ok(())
}
