//! Statements past what a header can count. A header counts the slots below it that belong to
//! its statement in a field of 23 bits (`tape/slot.rs`). A layer statement of more slots is written
//! row by row (`var/layer.rs`), and a statement of more operands (`Var::sum`, `Var::dot`,
//! `Var::affine`, a row) as a chain of statements, each after the first taking the one before
//! as an operand (`tape/write.rs`). Millions of leaves: about 200 MB of tape in `f32`
//! (`Tape::boxed`, feature `alloc`) and 340 MB of handles.

use autograd_core::{Leaves, Tape, TapeError, TapeView, Var};

/// The largest count a header holds (`COUNT_MASK` in `tape/slot.rs`).
const MAX: usize = (1 << 23) - 1;

type Big = Tape<f32, { 2 * MAX + 64 }>;

/// `n` leaves of value 0.5, one after another.
fn leaves(tape: &TapeView<f32>, n: usize) -> Vec<Var<'_, f32>> {
    (0..n).map(|_| tape.var(0.5)).collect()
}

/// One test, one tape: the two checks in turn keep the peak near 600 MB (the test harness runs
/// tests in parallel).
#[test]
fn statements_past_the_headers_count() -> Result<(), TapeError> {
    let mut tape = Big::boxed();
    a_layer_past_the_headers_count_is_written_row_by_row(&mut tape)?;
    tape.clear();
    a_network_past_the_headers_count_is_not_written_in_one_call(&mut tape)?;
    tape.clear();
    a_sum_past_the_headers_count_is_a_chain_of_statements(&mut tape)
}

/// The parameters of one row over `k` inputs (`k + 1` leaves of value 0.5, as `Leaves`), then a
/// leaf `u = 1` to give as its inputs.
fn one_row(tape: &TapeView<f32>, k: usize) -> Result<(Leaves<'_, f32>, Var<'_, f32>), TapeError> {
    let first = tape.var(0.5);
    for _ in 0..k {
        tape.var(0.5);
    }
    let leaves = tape.leaves(first.id().expect("a leaf"), k + 1)?;
    Ok((leaves, tape.var(1.0)))
}

fn a_layer_past_the_headers_count_is_written_row_by_row(tape: &mut Big) -> Result<(), TapeError> {
    // One row over k inputs takes k + 2 slots as a layer statement: the largest layer, over one
    // recorded input u = 1 given k times (as a layer statement its row has the operands of each
    // input, each weight and the bias; written as a plain statement it would take one slot per
    // operand), then one slot past it, over constant inputs 1 (its row would count k + 1 = MAX +
    // 1 slots below it).
    for (size, layer) in [(MAX, true), (MAX + 2, false)] {
        tape.clear();
        let tape = &*tape;
        let k = size - 2;
        let (leaves, u) = one_row(tape, k)?;
        let x = vec![if layer { u } else { Var::constant(1.0) }; k];
        let mut y = [Var::constant(0.0f32)];
        let before = tape.len();
        Var::affine_layer_of(leaves, &x, &mut y)?;
        let row = tape.node(y[0].id().expect("a statement"))?;
        if layer {
            assert_eq!(tape.len() - before, size, "one layer statement");
            assert_eq!(row.operands, 2 * k + 1);
        } else {
            // The row's k + 1 = MAX + 1 weights and bias as a chain: MAX operands and a
            // header, then the link to it, the bias and the last header.
            assert_eq!(tape.len() - before, k + 1 + 3);
            assert_eq!(row.operands, 2);
        }
        // y = 0.5 (k + 1), dy/dw_i = x_i = 1, dy/db = 1, dy/du = 0.5 k: every partial sum a
        // multiple of 0.5 below 2^22, exact in f32.
        assert_eq!(y[0].value(), 0.5 * (k + 1) as f32);
        let g = tape.backward(y[0])?;
        let mut dp = vec![0.0f32; k + 1];
        g.write_leaves(leaves, &mut dp)?;
        assert!(dp.iter().all(|&d| d == 1.0), "size {size}");
        if layer {
            assert_eq!(g.wrt(u), 0.5 * k as f32);
        }
    }
    Ok(())
}

fn a_network_past_the_headers_count_is_not_written_in_one_call(
    tape: &mut Big,
) -> Result<(), TapeError> {
    // `Var::affine_layers_of` writes each layer as one statement or declines: the largest layer
    // (one row over k inputs, k + 2 = MAX slots) in one call, and one slot past it not at all
    // (its row would count MAX + 1 slots below it), the tape then as it was.
    for (size, one_call) in [(MAX, true), (MAX + 1, false)] {
        tape.clear();
        let tape = &*tape;
        let k = size - 2;
        let (leaves, u) = one_row(tape, k)?;
        let x = vec![u; k];
        let mut y = [Var::constant(0.0f32)];
        let identity: fn(Var<'_, f32>) -> Var<'_, f32> = |v| v;
        let before = tape.len();
        let written = Var::affine_layers_of(leaves, &mut [(1, identity)], &x, &mut y)?;
        assert_eq!(written, one_call, "size {size}");
        if !one_call {
            assert_eq!(tape.len(), before, "nothing recorded");
            assert_eq!(tape.check(), Ok(()));
            continue;
        }
        assert_eq!(tape.len() - before, size, "one layer statement");
        assert_eq!(tape.node(y[0].id().expect("a row"))?.operands, 2 * k + 1);
        // y = 0.5 (k + 1), dy/dw_i = u = 1, dy/db = 1, dy/du = 0.5 k (exact in f32, as above).
        assert_eq!(y[0].value(), 0.5 * (k + 1) as f32);
        let g = tape.backward(y[0])?;
        let mut dp = vec![0.0f32; k + 1];
        g.write_leaves(leaves, &mut dp)?;
        assert!(dp.iter().all(|&d| d == 1.0));
        assert_eq!(g.wrt(u), 0.5 * k as f32);
    }
    Ok(())
}

fn a_sum_past_the_headers_count_is_a_chain_of_statements(tape: &mut Big) -> Result<(), TapeError> {
    // MAX + 1 terms: a first part of MAX under its own header, then a part of the link to it and
    // the last term.
    let n = MAX + 1;
    let xs = leaves(tape, n);
    let y = Var::sum(&xs);
    // The leaves, the terms' operands, two headers and the link.
    assert_eq!(tape.len(), n + n + 2 + 1);
    assert_eq!(y.value(), 0.5 * n as f32);
    let mut last = Vec::new();
    tape.for_each_operand(y.id().expect("a statement"), |i, d| last.push((i, d)))?;
    assert_eq!(last, [(n + MAX, 1.0), (n - 1, 1.0)]);
    let g = tape.backward(y * 2.0)?;
    assert!(xs.iter().all(|x| g.wrt(*x) == 2.0));
    drop(xs);
    // A chain that does not fit is the overflow every write reports, with the slots it needed:
    // MAX + 40 leaves, then their operands, two headers and the link.
    tape.clear();
    let n = MAX + 40;
    let xs = leaves(tape, n);
    let _ = Var::sum(&xs);
    let needed = n + n + 2 + 1;
    let capacity = tape.capacity();
    assert!(needed > capacity);
    assert_eq!(
        tape.check(),
        Err(TapeError::CapacityExceeded { capacity, needed })
    );
    Ok(())
}
