//! The leaves a recording begins with (a function's inputs, a network's parameters) send
//! nothing, so the sweep ends above them (`TapeView::leaf_run`, `tape/backward.rs`). Leaves
//! recorded after a statement are not part of that run, and a rewind into it ends it there:
//! each test here gives wrong gradients (zeros) if the run reached a statement.

use autograd_core::{Dual, Number, Tape, TapeError, TapeView, Var};
use proptest::prelude::*;

/// `s = a b c` (a statement of three operands) at `(2, 3, 5)`, then a leaf `d = 7` recorded after
/// it by `leaf`, `y = s d`: the gradient of `y` with respect to `a, b, c, d`.
fn product_then_leaf<'t>(
    tape: &'t TapeView<f64>,
    leaf: impl FnOnce(f64) -> Var<'t, f64>,
) -> Result<[f64; 4], TapeError> {
    let [a, b, c] = [2.0, 3.0, 5.0].map(|v| tape.var(v));
    let s = (a * b * c).recorded()?;
    let d = leaf(7.0);
    let g = tape.backward(s * d)?;
    Ok([g.wrt(a), g.wrt(b), g.wrt(c), g.wrt(d)])
}

/// `(b c d, a c d, a b d, a b c)`.
const PRODUCT_THEN_LEAF: [f64; 4] = [105.0, 70.0, 42.0, 30.0];

#[test]
fn a_leaf_recorded_after_a_statement_does_not_extend_the_first_leaves() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    assert_eq!(
        product_then_leaf(&tape, |v| tape.var(v))?,
        PRODUCT_THEN_LEAF
    );
    Ok(())
}

#[test]
fn leaves_recorded_at_once_after_a_statement_do_not_extend_them_either() -> Result<(), TapeError> {
    let tape = Tape::<f64, 32>::new();
    let leaf = |v| tape.vars(&[v]).next().unwrap();
    assert_eq!(product_then_leaf(&tape, leaf)?, PRODUCT_THEN_LEAF);
    Ok(())
}

#[test]
fn leaves_recorded_at_once_extend_the_first_leaves_by_their_count() -> Result<(), TapeError> {
    // Four leaves one by one and four at once: a run of eight, then a statement whose header
    // (slot 10) lies below 4 x 4, where a run extended by a product of the two would reach.
    let tape = Tape::<f64, 32>::new();
    let first: Vec<_> = [1.0, 2.0, 3.0, 4.0].map(|v| tape.var(v)).to_vec();
    let more: Vec<_> = tape.vars(&[5.0, 6.0, 7.0, 8.0]).collect();
    let s = (first[1] * more[2]).recorded()?;
    assert_eq!(s.id().map(|id| id.index()), Some(10));
    let g = tape.backward(s.sin())?;
    let cos = 14.0_f64.cos();
    assert_eq!([g.wrt(first[1]), g.wrt(more[2])], [7.0 * cos, 2.0 * cos]);
    Ok(())
}

#[test]
fn a_rewind_into_the_first_leaves_ends_their_run_there() -> Result<(), TapeError> {
    let mut tape = Tape::<f64, 32>::new();
    let (ia, ib) = {
        let x: Vec<Var<'_, f64>> = tape.vars(&[2.0, 3.0]).collect();
        (x[0].id().unwrap(), x[1].id().unwrap())
    };
    let mark = tape.mark();
    for v in 0..8 {
        tape.var(f64::from(v));
    }
    tape.rewind(mark);
    // Slots 2.. are a leaf and then a statement now, where leaves were.
    let (a, b) = (tape.get(ia)?, tape.get(ib)?);
    let c = tape.var(5.0);
    let s = (a * b * c).recorded()?;
    let g = tape.backward(s.sin())?;
    let cos = 30.0_f64.cos();
    assert_eq!(
        [g.wrt(a), g.wrt(b), g.wrt(c)],
        [15.0 * cos, 10.0 * cos, 6.0 * cos]
    );
    Ok(())
}

/// One step of a recording that interleaves leaves and statements; indices pick earlier values
/// (modulo how many there are).
#[derive(Clone, Debug)]
enum Step {
    /// A new leaf, by `var` (even values) or `vars` (odd).
    Leaf(u8),
    /// `a b c`, recorded as a statement.
    Product(usize, usize, usize),
    /// `sin(a) + b`, recorded as a statement.
    SinPlus(usize, usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<u8>().prop_map(Step::Leaf),
        (0usize..32, 0usize..32, 0usize..32).prop_map(|(a, b, c)| Step::Product(a, b, c)),
        (0usize..32, 0usize..32).prop_map(|(a, b)| Step::SinPlus(a, b)),
    ]
}

fn leaf_value(v: u8) -> f64 {
    f64::from(v) / 128.0 - 1.0
}

/// The steps on any number type: `leaf(k, v)` makes the `k`-th leaf, `keep` what a step
/// computed (on a tape: records it). Returns the sum of every value.
fn run<T: Number>(
    first: f64,
    steps: &[Step],
    mut leaf: impl FnMut(usize, f64) -> T,
    keep: impl Fn(T) -> T,
) -> T {
    let mut v = vec![leaf(0, first)];
    let mut leaves = 1;
    for s in steps {
        let pick = |i: usize| v[i % v.len()];
        let y = match *s {
            Step::Leaf(x) => {
                leaves += 1;
                leaf(leaves - 1, leaf_value(x))
            }
            Step::Product(a, b, c) => keep(pick(a) * pick(b) * pick(c)),
            Step::SinPlus(a, b) => keep(pick(a).sin() + pick(b)),
        };
        v.push(y);
    }
    <T as Number>::sum(&v)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Reverse mode over a recording where leaves come between statements, against forward mode
    /// (dual numbers, one pass per leaf): the sweep must not end at a leaf above a statement.
    #[test]
    fn interleaved_leaves_get_their_forward_mode_gradients(
        first in any::<u8>(),
        steps in prop::collection::vec(step(), 1..24),
    ) {
        let tape = Box::new(Tape::<f64, 4096>::new());
        let mut leaves = Vec::new();
        let y = run(
            leaf_value(first),
            &steps,
            |k, x| {
                let h = if k % 2 == 0 { tape.var(x) } else { tape.vars(&[x]).next().unwrap() };
                leaves.push(h);
                h
            },
            |y: Var<'_, f64>| y.recorded().unwrap(),
        );
        let g = tape.backward(y).unwrap();
        for (k, &h) in leaves.iter().enumerate() {
            let dual = run(
                leaf_value(first),
                &steps,
                |j, x| if j == k { Dual::variable(x) } else { Dual::constant(x) },
                |y| y,
            );
            let (want, got) = (dual.eps, g.wrt(h));
            prop_assert!(
                (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
                "leaf {}: reverse {} forward {}", k, got, want
            );
        }
    }
}
