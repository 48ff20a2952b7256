//! A layer row's operands read back through `TapeView::for_each_operand` when every input is
//! recorded (`tape/operands.rs`): for each input its pair `(index, p_i w_ji)`, then its weight's
//! `(index, x_i)`, and last the bias's `(index, 1)`, what a neuron statement of the row holds,
//! worked out by hand. The inputs sit high on the tape, so a row whose weights were read for
//! fewer inputs than it has would name some products 0.

use autograd_core::{Op, Tape, TapeError, Var};

#[test]
fn every_recorded_input_of_a_row_reads_back_with_its_weight() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    // u: leaves 0 to 2. Row 0: w = (0.5, -1, 2), b = 0.25; row 1: w = (1.5, 0.5, -0.5), b = -1
    // (leaves 3 to 10).
    let u = [1.0, 2.0, 3.0].map(|v| tape.var(v));
    let params = [0.5, -1.0, 2.0, 0.25, 1.5, 0.5, -0.5, -1.0].map(|p| tape.var(p));
    // x = (u0, 2 u1, u2) = (1, 4, 3), the partials p = (1, 2, 1).
    let x = [u[0], u[1] * 2.0, u[2]];
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &x, &mut y)?;
    // Input slots 11 to 13, the slot naming w0 at 14, rows 15 and 16.
    assert_eq!(tape.len(), 17);
    assert_eq!(y.map(|v| v.id().unwrap().index()), [15, 16]);
    // y0 = 0.5 - 4 + 6 + 0.25, y1 = 1.5 + 2 - 1.5 - 1.
    assert_eq!((y[0].value(), y[1].value()), (2.75, 1.0));
    let pairs = |v: Var<'_, f64>| -> Result<Vec<(usize, f64)>, TapeError> {
        let mut p = Vec::new();
        tape.for_each_operand(v.id().unwrap(), |i, d| p.push((i, d)))?;
        Ok(p)
    };
    let row0 = [
        (0, 0.5),
        (3, 1.0),
        (1, -2.0),
        (4, 4.0),
        (2, 2.0),
        (5, 3.0),
        (6, 1.0),
    ];
    let row1 = [
        (0, 1.5),
        (7, 1.0),
        (1, 1.0),
        (8, 4.0),
        (2, -0.5),
        (9, 3.0),
        (10, 1.0),
    ];
    assert_eq!(pairs(y[0])?, row0);
    assert_eq!(pairs(y[1])?, row1);
    for yj in y {
        let node = tape.node(yj.id().unwrap())?;
        assert_eq!((node.op, node.operands), (Op::Dot, 7));
    }
    Ok(())
}
