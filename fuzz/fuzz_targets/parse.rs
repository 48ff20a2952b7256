//! Parser fuzzing: any bytes given to `autograd_expr::parse` (as text) must give an expression
//! or an error, never a panic, a hang or a stack overflow.
//!
//! On an error: its position lies within the input (plus one, for "the end of the input") and
//! rendering it with its caret works. On success: every operand precedes its user, the result
//! and the inputs are in range, and evaluating in `f64` and `f32` and running the hand-written
//! chain rule (`backprop`) at a point derived from the input all complete, with values that
//! agree between `eval` and `backprop`.

#![no_main]

use autograd_expr::{backprop, parse, Op, MAX_OPS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    match parse(&source) {
        Err(e) => {
            let chars = source.chars().count();
            assert!(
                e.start <= chars && e.end > e.start,
                "{e:?} in {chars} chars"
            );
            let rendered = e.render(&source);
            assert!(rendered.contains('^'));
        }
        Ok(f) => {
            let ops = f.ops();
            assert!(!ops.is_empty() && ops.len() <= MAX_OPS);
            assert!(f.root() < ops.len());
            for (i, op) in ops.iter().enumerate() {
                let (args, n) = op.args();
                assert!(
                    args[..n].iter().all(|&a| a < i),
                    "operand after its user at {i}"
                );
                if let Op::Input(k) = op {
                    assert!(*k < f.inputs().len());
                }
            }
            // A point from the input's bytes: small values, some exactly 0 (kinks).
            let x: Vec<f64> = (0..f.inputs().len())
                .map(|i| f64::from(data.get(i).copied().unwrap_or(3) % 9) / 4.0 - 1.0)
                .collect();
            let y: f64 = f.eval(&x);
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let _: f32 = f.eval(&x32);
            let b = backprop(&f, &x);
            assert_eq!(b.values[f.root()].to_bits(), y.to_bits());
            assert_eq!(b.input_grads.len(), x.len());
            let _ = f.read_as();
        }
    }
});
