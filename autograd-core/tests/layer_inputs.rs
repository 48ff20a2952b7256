//! What a layer statement takes for inputs of each shape, and where the tape has no room: inputs
//! of two pending pairs (a residual `h + f(h)`, a product) written as statements of their own
//! first under two rows or more, one input under several rows, and a layer without room, which
//! reports the slots it would take with room whatever the general write would take. Checked
//! against derivatives worked out by hand and against the inputs recorded first.

use autograd_core::{AnomalyKind, Op, Tape, TapeError, Var};

#[test]
fn inputs_of_two_pending_pairs_are_statements_of_their_own_under_a_layer_of_two_rows(
) -> Result<(), TapeError> {
    // x0 = u + v and x1 = u v (a residual input, a product): two pending pairs each, which an
    // input slot cannot hold. Each is written as a statement of its own (two operands and a
    // header, labelled with its operation), then the layer over them: 2 x 3 + 5 slots where the
    // rows written one by one over the inputs as they are take a statement of 8 slots each (2
    // weights, the bias, the inputs' 4 pairs and a header).
    let tape = Tape::<f64, 64>::new();
    let params = [0.5, -1.0, 0.25, 2.0, 1.0, -3.0].map(|p| tape.var(p));
    let (u, v) = (tape.var(3.0), tape.var(2.0));
    let x = [u + v, u * v];
    let before = tape.len();
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &x, &mut y)?;
    assert_eq!(tape.len() - before, 2 * 3 + 5);
    let node = |at: usize| tape.node(autograd_core::NodeId::from_index(at));
    let (sum, product) = (node(before + 2)?, node(before + 5)?);
    assert_eq!((sum.op, sum.value, sum.operands), (Op::Add, 5.0, 2));
    assert_eq!(
        (product.op, product.value, product.operands),
        (Op::Mul, 6.0, 2)
    );
    // y0 = 0.5 * 5 - 6 + 0.25, y1 = 2 * 5 + 6 - 3.
    assert_eq!((y[0].value(), y[1].value()), (-3.25, 13.0));
    let g = tape.backward(y[0] * y[1])?;
    // By hand, with d/dy0 = y1 = 13 and d/dy1 = y0 = -3.25: d/du = 13 (0.5 - 1 * v) - 3.25 (2 + v),
    // d/dv = 13 (0.5 - 1 * u) - 3.25 (2 + u), d/dw01 = 13 x1, d/dw10 = -3.25 x0.
    assert_eq!((g.wrt(u), g.wrt(v)), (-32.5, -48.75));
    assert_eq!((g.wrt(params[1]), g.wrt(params[3])), (78.0, -16.25));
    // A layer of one row: an input of two pairs declines it (one statement of the row's pairs,
    // 2 weights + bias + 4 pairs + header, takes fewer slots than 3 + 3 + 4).
    let before = tape.len();
    let w = [params[0], params[1]];
    let one = Var::affine(&w, &x, params[2])?;
    assert_eq!(one.value(), -3.25);
    assert_eq!(tape.len() - before, 8);
    Ok(())
}

#[test]
fn a_layer_over_leaves_writes_its_inputs_of_two_pairs_first_then_its_activation(
) -> Result<(), TapeError> {
    // `affine_layer_of_then` over x = (u + v, u v): the same slots, values and gradients, bit
    // for bit, as over those inputs recorded first; tanh applied to each row. With an
    // activation that overflows (exp(100 y1), y1 = 13), its statement comes after the layer's.
    let run = |record_first: bool, exp: bool| -> Result<(usize, Vec<u64>), TapeError> {
        let tape = Tape::<f64, 64>::new();
        let p = [0.5, -1.0, 0.25, 2.0, 1.0, -3.0].map(|v| tape.var(v));
        let leaves = tape.leaves(p[0].id().unwrap(), 6)?;
        let (u, v) = (tape.var(3.0), tape.var(2.0));
        let mut x = [u + v, u * v];
        if record_first {
            x = [x[0].recorded()?, x[1].recorded()?];
        }
        let mut y = [Var::constant(0.0); 2];
        if exp {
            fn exp100(h: Var<'_, f64>) -> Var<'_, f64> {
                (h * 100.0).exp()
            }
            Var::affine_layer_of_then(leaves, &x, &mut y, exp100)?;
            let a = tape.anomaly(y[1]).unwrap();
            assert_eq!((a.op, a.kind), (Op::Exp, AnomalyKind::Value));
            // Its operand, then its header, right after the layer's slots.
            assert_eq!(a.index, 8 + 2 * 3 + 5 + 1, "after the layer");
            return Ok((tape.len(), vec![]));
        }
        Var::affine_layer_of_then(leaves, &x, &mut y, Var::tanh)?;
        let g = tape.backward(y[0] * y[1])?;
        let mut bits: Vec<u64> = y.iter().map(|v| v.value().to_bits()).collect();
        bits.extend(p.iter().chain(&[u, v]).map(|w| g.wrt(*w).to_bits()));
        Ok((tape.len(), bits))
    };
    let (flushed, recorded) = (run(false, false)?, run(true, false)?);
    assert_eq!(flushed.0, 8 + 2 * 3 + 5);
    assert_eq!(flushed, recorded);
    let y = [(-3.25f64).tanh(), 13.0f64.tanh()];
    assert_eq!(flushed.1[..2], y.map(f64::to_bits));
    // d(y0 y1)/du = y1 (1 - y0^2) (0.5 - v) + y0 (1 - y1^2) (2 + v), by hand.
    let du = y[1] * (1.0 - y[0] * y[0]) * (0.5 - 2.0) + y[0] * (1.0 - y[1] * y[1]) * (2.0 + 2.0);
    let got = f64::from_bits(flushed.1[2 + 6]);
    assert!((got - du).abs() <= 1e-15 * du.abs(), "{got} vs {du}");
    assert_eq!(run(false, true)?.0, 8 + 2 * 3 + 5 + 2);
    Ok(())
}

#[test]
fn one_input_under_several_rows_is_a_layer_statement_and_one_row_stays_in_its_handle(
) -> Result<(), TapeError> {
    // One row over one input, `w c + b` over a constant: two pairs, which its handle holds
    // without a slot (`Var::affine`).
    let tape = Tape::<f64, 32>::new();
    let params = [2.0, 0.5, -1.0, 3.0].map(|p| tape.var(p));
    let c = [Var::constant(4.0)];
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params[..2], &c, &mut y[..1])?;
    assert_eq!((y[0].value(), tape.len()), (8.5, 4), "no slot");
    // Two rows over it: one layer statement, the input slot, the slot naming w0 and a header
    // per row (4 slots), where the rows on their own would be two handles of two pairs each,
    // and a layer over such handles cannot be one statement.
    Var::affine_layer(&params, &c, &mut y)?;
    assert_eq!((y[0].value(), y[1].value()), (8.5, -1.0));
    assert_eq!(tape.len(), 4 + 1 + 1 + 2);
    let g = tape.backward(y[0] * y[1])?;
    // d(y0 y1)/dw0 = 4 y1, /db0 = y1, /dw1 = 4 y0, /db1 = y0.
    let dp: Vec<_> = params.iter().map(|p| g.wrt(*p)).collect();
    assert_eq!(dp, [-4.0, -1.0, 34.0, 8.5]);
    // Over a recorded input, the same four slots (the rows one by one: a plain statement of
    // three operands each, 8).
    let u = tape.var(4.0);
    let before = tape.len();
    Var::affine_layer(&params, &[u], &mut y)?;
    assert_eq!(tape.len() - before, 4);
    let g = tape.backward(y[0] * y[1])?;
    // d(y0 y1)/du = w0 y1 + w1 y0 = 2 * -1 + -1 * 8.5.
    assert_eq!(g.wrt(u), -10.5);
    // The next layer reads those rows as inputs of one pair each: one layer statement again.
    let more = [1.0, -2.0, 0.5].map(|p| tape.var(p));
    let before = tape.len();
    let mut z = [Var::constant(0.0)];
    Var::affine_layer(&more, &y, &mut z)?;
    assert_eq!(tape.len() - before, 2 + 1 + 1);
    assert_eq!(z[0].value(), 8.5 + 2.0 + 0.5);
    Ok(())
}

#[test]
fn a_layer_without_room_overflows_whatever_the_general_write_would_take() {
    // With constant zero inputs the general write of a row keeps only its bias (a handle, no
    // slot), but a layer over consecutive parameters is one statement of `k + 1 + m` slots on a
    // tape with room: a tape without that room must report the overflow, not record the rows
    // another way (the slots a computation takes do not depend on the capacity; found by the
    // capacity fuzz target).
    let x = [Var::constant(0.0), Var::constant(0.0)];
    let big = Tape::<f64, 32>::new();
    let params = [1.0, 2.0, 0.5, 3.0, 4.0, -0.5].map(|p| big.var(p));
    let mut y = [Var::constant(0.0); 2];
    Var::affine_layer(&params, &x, &mut y).unwrap();
    assert_eq!(big.len(), 6 + 5);

    let small = Tape::<f64, 8>::new();
    let params = [1.0, 2.0, 0.5, 3.0, 4.0, -0.5].map(|p| small.var(p));
    Var::affine_layer(&params, &x, &mut y).unwrap();
    assert_eq!(y.map(|v| v.value()), [0.5, -0.5], "the values stay right");
    assert_eq!(y.map(|v| v.id()), [None, None]);
    assert_eq!(
        small.check(),
        Err(TapeError::CapacityExceeded {
            capacity: 8,
            needed: 6 + 5
        })
    );
    // Nine rows (four, four and one, as the writer sums them) over x = (1, 2), row j's
    // parameters (j, 0.5, 1): each y_j = j + 2, and the overflow counts all 27 + 12 slots.
    let nine = Tape::<f64, 30>::new();
    let params: Vec<_> = (0..9)
        .flat_map(|j| [j as f64, 0.5, 1.0])
        .map(|p| nine.var(p))
        .collect();
    let x = [Var::constant(1.0), Var::constant(2.0)];
    let mut y = [Var::constant(0.0); 9];
    Var::affine_layer(&params, &x, &mut y).unwrap();
    let expected: Vec<f64> = (0..9).map(|j| j as f64 + 2.0).collect();
    assert_eq!(
        y.map(|v| v.value()).to_vec(),
        expected,
        "the values stay right"
    );
    assert_eq!(
        nine.check(),
        Err(TapeError::CapacityExceeded {
            capacity: 30,
            needed: 27 + 12
        })
    );
    let x = [Var::constant(0.0), Var::constant(0.0)];
    // One neuron likewise: 3 leaves and 4 slots on a tape of 5.
    let one = Tape::<f64, 5>::new();
    let p = [1.0, 2.0, 0.5].map(|p| one.var(p));
    let y = Var::affine(&p[..2], &x, p[2]).unwrap();
    assert_eq!(y.value(), 0.5);
    assert_eq!(
        one.check(),
        Err(TapeError::CapacityExceeded {
            capacity: 5,
            needed: 3 + 4
        })
    );
    // Inputs of two pending pairs: with room, 8 leaves, two statements of 3 slots and the
    // layer's 5. Without room for the second statement (12), or for the first (8), the same
    // count is reported and the values stay right.
    fn two_pairs<const N: usize>() {
        let tape = Tape::<f64, N>::new();
        let params = [0.5, -1.0, 0.25, 2.0, 1.0, -3.0].map(|p| tape.var(p));
        let (u, v) = (tape.var(3.0), tape.var(2.0));
        let mut y = [Var::constant(0.0); 2];
        Var::affine_layer(&params, &[u + v, u * v], &mut y).unwrap();
        assert_eq!(y.map(|v| v.value()), [-3.25, 13.0], "capacity {N}");
        let needed = 8 + 2 * 3 + 5;
        match N {
            19 => assert_eq!((tape.check(), tape.len()), (Ok(()), needed)),
            _ => assert_eq!(
                tape.check(),
                Err(TapeError::CapacityExceeded {
                    capacity: N,
                    needed
                })
            ),
        }
    }
    two_pairs::<19>();
    two_pairs::<12>();
    two_pairs::<8>();
}
