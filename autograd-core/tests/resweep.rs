//! Sweeping one recording again and again: each sweep first clears the adjoints the last one
//! wrote (slot by slot, and statement by statement above the lowest statement of many operands
//! it passed, `tape/backward.rs`), so each must give what a fresh tape swept once gives, bit for
//! bit. Recordings mix wide sums, layer statements (whose rows count other rows' slots), small
//! statements and leaves in the middle; the sweeps start from any recorded value, and some
//! sweep only above a mark (so the next one clears what a partial sweep wrote).

use autograd_core::{Mark, Tape, TapeView, Var};
use proptest::prelude::*;

/// One step of a recording; indices pick earlier values (modulo how many there are).
#[derive(Clone, Debug)]
enum Step {
    /// `sum` of `len` consecutive values ending `back` values before the last: a statement of
    /// up to `len` operands.
    Sum { back: usize, len: usize },
    /// `a b c`, written as a statement of three operands (`recorded`).
    Product { a: usize, b: usize, c: usize },
    /// A layer of `m` rows over `k` consecutive values from `from`, its parameters recorded
    /// just before it as leaves (`m (k + 1)` of them, values from `seed`).
    Layer {
        from: usize,
        k: usize,
        m: usize,
        seed: u8,
    },
    /// `sin` of a value times a new leaf: a value in a handle with two pending pairs.
    Scaled { a: usize, leaf: u8 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        // Wide sums (16 operands or more) more often than not, so that two are often adjacent.
        4 => (prop_oneof![0usize..2, 0usize..64], prop_oneof![1 => 1usize..16, 3 => 16usize..40])
            .prop_map(|(back, len)| Step::Sum { back, len }),
        2 => (0usize..64, 0usize..64, 0usize..64)
            .prop_map(|(a, b, c)| Step::Product { a, b, c }),
        2 => (0usize..64, 2usize..18, 1usize..4, any::<u8>())
            .prop_map(|(from, k, m, seed)| Step::Layer { from, k, m, seed }),
        1 => (0usize..64, any::<u8>()).prop_map(|(a, leaf)| Step::Scaled { a, leaf }),
    ]
}

/// Records `n` inputs and then `steps`; returns every value recorded (inputs first; each a
/// statement of its own, `recorded`, so that a sweep can start from it) and a mark taken after
/// each step.
fn record<'t>(tape: &'t TapeView<f64>, n: usize, steps: &[Step]) -> (Vec<Var<'t, f64>>, Vec<Mark>) {
    let mut marks = Vec::new();
    let mut v: Vec<Var<'t, f64>> = (0..n).map(|i| tape.var(0.25 + 0.0625 * i as f64)).collect();
    let pick = |v: &[Var<'t, f64>], i: usize| v[i % v.len()];
    for s in steps {
        match *s {
            Step::Sum { back, len } => {
                let to = v.len() - back % v.len();
                let y = Var::sum(&v[to.saturating_sub(len)..to]);
                v.push(y.recorded().unwrap());
            }
            Step::Product { a, b, c } => {
                let y = pick(&v, a) * pick(&v, b) * pick(&v, c);
                v.push(y.sin().recorded().unwrap());
            }
            Step::Layer { from, k, m, seed } => {
                let from = from % v.len();
                let x: Vec<_> = v[from..(from + k).min(v.len())].to_vec();
                if x.len() < 2 {
                    marks.push(tape.mark());
                    continue;
                }
                let params: Vec<_> = (0..m * (x.len() + 1))
                    .map(|j| tape.var(((seed as usize + 7 * j) % 17) as f64 / 16.0 - 0.5))
                    .collect();
                let mut y = vec![Var::constant(0.0); m];
                Var::affine_layer(&params, &x, &mut y).unwrap();
                for yj in y {
                    v.push(yj.tanh().recorded().unwrap());
                }
            }
            Step::Scaled { a, leaf } => {
                let w = tape.var(f64::from(leaf) / 64.0 - 2.0);
                v.push((pick(&v, a).sin() * w).recorded().unwrap());
            }
        }
        marks.push(tape.mark());
    }
    (v, marks)
}

/// A sweep of [`check`]: from which recorded value, counted back from the last, and whether
/// only above the mark taken after which step.
type Sweep = (usize, Option<usize>);

/// The gradients with respect to the inputs of a sweep from value `root`, on a fresh tape.
fn fresh(n: usize, steps: &[Step], root: usize) -> Vec<u64> {
    let tape = Box::new(Tape::<f64, 8192>::new());
    let (v, _) = record(&tape, n, steps);
    let g = tape.backward(v[v.len() - 1 - root % v.len()]).unwrap();
    v[..n].iter().map(|&x| g.wrt(x).to_bits()).collect()
}

/// Sweeps one recording as `sweeps` say, in order; each full sweep's gradients with respect to
/// the inputs are compared with a fresh tape's, bit for bit.
fn check(n: usize, steps: &[Step], sweeps: &[Sweep]) -> Result<(), TestCaseError> {
    let tape = Box::new(Tape::<f64, 8192>::new());
    let (v, marks) = record(&tape, n, steps);
    prop_assert!(tape.check().is_ok());
    for (k, &(root, above)) in sweeps.iter().enumerate() {
        let y = v[v.len() - 1 - root % v.len()];
        match above {
            None => {
                let g = tape.backward(y).unwrap();
                let got: Vec<u64> = v[..n].iter().map(|&x| g.wrt(x).to_bits()).collect();
                let want = fresh(n, steps, root);
                prop_assert_eq!(
                    got,
                    want,
                    "sweep {} from value {}",
                    k,
                    v.len() - 1 - root % v.len()
                );
            }
            // Part of the recording only: the next full sweep clears from another range.
            Some(at) => {
                let _ = tape.backward_above(y, marks[at % marks.len()]).unwrap();
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn re_sweeps_are_as_on_a_fresh_tape(
        n in 2usize..40,
        steps in prop::collection::vec(step(), 1..12),
        sweeps in prop::collection::vec(
            (
                prop_oneof![0usize..3, 0usize..512],
                prop_oneof![3 => Just(None), 1 => (0usize..512).prop_map(Some)],
            ),
            2..8,
        ),
    ) {
        check(n, &steps, &sweeps)?;
    }
}
