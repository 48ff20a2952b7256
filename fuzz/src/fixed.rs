//! Q16.16 fixed point ([`Q16`]) against `f64`, instruction by instruction: a program runs in
//! Q16, and each instruction's result is compared with the same instruction computed in `f64`
//! on the Q16 run's own operands (and constants rounded to Q16, as Q16 uses them), so the
//! comparison measures that instruction's rounding only, never an error carried in.
//!
//! The rule, with the tolerance `cargo xtask check` states for Q16 (16 steps of 2^-16 plus
//! 2^-12 of the result, here also a step per term of an n-ary instruction):
//! - a poisoned operand gives poison wherever `f64` gives NaN for a NaN operand (elsewhere, as for
//!   `powi(x, 0)`, either: Q16 lets poison spread where IEEE lets NaN vanish);
//! - a NaN or an infinity in `f64` (a point outside the domain, an overflow) is poison in Q16;
//! - a result beyond Q16's range by more than the tolerance is poison: an overflow is never a
//!   number;
//! - a result inside the range by more than the tolerance is a number within the tolerance,
//!   unless an intermediate of the instruction (a partial sum, a product, a power) leaves the
//!   range, where poison is allowed too;
//! - a constant beyond Q16's range makes the instruction unjudged.
//!
//! And on a Q16 tape ([`check_tape`]): its values are the plain run's, bit for bit (poison where
//! it is poison), and its gradient is the `f64` sweep over its own statements (their Q16
//! partials read as `f64`) within the bound the Q16 sweep's roundings allow, half a step per
//! product carried along the same paths; where no adjoint can leave the range, no gradient is
//! poison.

use autograd_core::{Number, Scalar, Tape, Var, Q16};

use crate::instr::{operands as nary, picked_row};
use crate::{run, statements, step, Instr, Program, Value, MAX_OPERANDS};

/// One step of Q16, 2^-16.
const STEP: f64 = 1.0 / 65536.0;

/// Checks every instruction of `p` run in Q16 against `f64`; panics with the instruction, its
/// operands and both results on a violation.
pub fn check_against_f64(p: &Program) {
    let inputs = p.input_values::<Q16>();
    let n_in = inputs.len();
    let q = run::<Q16>(p, &inputs);
    let slots: Vec<f64> = q.iter().map(|v| v.to_f64()).collect();
    let max = Q16::MAX.to_f64();
    for (k, instr) in p.instrs().iter().enumerate() {
        let at = &slots[..n_in + k];
        let got = q[n_in + k];
        let Some(rounded) = with_q16_constant(instr) else {
            continue;
        };
        let exact = step::<f64>(at, &rounded);
        let tolerance = (16.0 + terms(instr)) * STEP + exact.abs() / 4096.0;
        let context = || {
            format!(
                "instruction {k} {instr:?} (constant as Q16: {rounded:?}) on {:?}: Q16 {got:?}, \
                 f64 {exact:e}",
                operands(at, instr)
            )
        };
        if operands(at, instr).iter().any(|v| v.is_nan()) {
            // A poisoned operand: poison spreads, even where an IEEE NaN would not (NaN^0 = 1):
            // an overflow upstream must not vanish. Poison is required where f64 gives NaN.
            assert!(
                exact.is_finite() || got.is_poison(),
                "{}: must be poison",
                context()
            );
        } else if !exact.is_finite() || exact.abs() > max + tolerance {
            assert!(got.is_poison(), "{}: must be poison", context());
        } else if exact.abs() < max - tolerance {
            if got.is_poison() {
                assert!(
                    intermediate(at, &rounded) > max,
                    "{}: poison, though the result and every intermediate are in range",
                    context()
                );
            } else {
                let error = (got.to_f64() - exact).abs();
                assert!(
                    error <= tolerance,
                    "{}: error {error:e} > tolerance {tolerance:e}",
                    context()
                );
            }
        }
    }
}

/// The instruction with its constant rounded to Q16 (`None` if the constant is beyond Q16's
/// range or not a number: nothing to compare with).
fn with_q16_constant(instr: &Instr) -> Option<Instr> {
    match *instr {
        Instr::Const(op, a, c) => {
            let q = Q16::from_f64(c.get());
            (!q.is_poison()).then(|| Instr::Const(op, a, Value::Bits(q.to_f64().to_bits())))
        }
        other => Some(other),
    }
}

/// The terms an instruction sums, each product rounded once (a step each, beyond the base).
fn terms(instr: &Instr) -> f64 {
    match *instr {
        Instr::Sum(_, n)
        | Instr::Dot(_, _, n)
        | Instr::Affine(_, _, _, n)
        | Instr::Layer(_, n, _, _, _) => (n as usize % (MAX_OPERANDS + 1)) as f64 + 1.0,
        // Repeated squaring for -1 <= n <= 4; beyond, e^(n ln |x|) rounds once.
        Instr::Powi(_, n) if (-1..=4).contains(&n.get()) => {
            f64::from(n.get().unsigned_abs()).log2().ceil().max(0.0) * 2.0
        }
        _ => 0.0,
    }
}

/// The operands an instruction reads, as `step` reads them.
fn operands(at: &[f64], instr: &Instr) -> Vec<f64> {
    let get = |i: u8| at[i as usize % at.len()];
    match *instr {
        Instr::Unary(_, a) | Instr::Const(_, a, _) | Instr::Powi(a, _) => vec![get(a)],
        Instr::Binary(_, a, b) => vec![get(a), get(b)],
        Instr::MulAdd(x, a, b) => vec![get(x), get(a), get(b)],
        Instr::Sum(i, n) => nary(at, &i, n),
        Instr::Dot(i, j, n) => [nary(at, &i, n), nary(at, &j, n)].concat(),
        Instr::Affine(i, j, b, n) => [nary(at, &i, n), nary(at, &j, n), vec![get(b)]].concat(),
        Instr::Layer(ix, n, start, rows, pick) => {
            let (w, b, x) = layer_row(at, ix, n, start, rows, pick);
            [w, x, vec![b]].concat()
        }
    }
}

/// The weights, bias and inputs of the row a [`Instr::Layer`] returns, read from `at`.
fn layer_row(
    at: &[f64],
    ix: [u8; MAX_OPERANDS],
    n: u8,
    start: u8,
    rows: u8,
    pick: u8,
) -> (Vec<f64>, f64, Vec<f64>) {
    let x = nary(at, &ix, n);
    let row = picked_row(at.len(), n, start, rows, pick);
    let k = x.len();
    let w = row[..k].iter().map(|&i| at[i]).collect();
    (w, at[row[k]], x)
}

/// The largest magnitude among the values an instruction forms in Q16 on the way to its result:
/// partial sums and products, the powers of `powi`'s repeated squaring (for `-1 <= n <= 4`),
/// `x a` of `mul_add`; the result itself for the others.
fn intermediate(at: &[f64], instr: &Instr) -> f64 {
    let get = |i: u8| at[i as usize % at.len()];
    let running = |terms: &mut dyn Iterator<Item = f64>, start: f64| {
        let (mut acc, mut largest) = (start, start.abs());
        for t in terms {
            acc += t;
            largest = largest.max(t.abs()).max(acc.abs());
        }
        largest
    };
    let result = step::<f64>(at, instr).abs();
    let products = |i: &[u8; MAX_OPERANDS], j: &[u8; MAX_OPERANDS], n: u8| {
        let (w, x) = (nary(at, i, n), nary(at, j, n));
        w.iter().zip(&x).map(|(a, b)| a * b).collect::<Vec<f64>>()
    };
    let inner = match *instr {
        Instr::Sum(i, n) => running(&mut nary(at, &i, n).into_iter(), 0.0),
        Instr::Dot(i, j, n) => running(&mut products(&i, &j, n).into_iter(), 0.0),
        Instr::Affine(i, j, b, n) => running(&mut products(&i, &j, n).into_iter(), get(b)),
        Instr::Layer(ix, n, start, rows, pick) => {
            // The picked row's partial sums (the other rows do not reach the result).
            let (w, b, x) = layer_row(at, ix, n, start, rows, pick);
            running(&mut w.iter().zip(&x).map(|(a, b)| a * b), b)
        }
        Instr::MulAdd(x, a, _) => (get(x) * get(a)).abs(),
        Instr::Powi(a, n) if (-1..=4).contains(&n.get()) => {
            // Repeated squaring of x (or of 1/x) forms powers up to the exponent's.
            let x = get(a).abs();
            let base = if n.get() < 0 { 1.0 / x } else { x };
            base.max(1.0).powi(n.get().unsigned_abs() as i32).max(base)
        }
        // Everything else forms its result only (the elementary functions, and powi beyond
        // -1..=4, work in 64-bit integers inside; a tie of max/min halves first where the sum
        // would overflow).
        _ => 0.0,
    };
    // NaN (an unjudgeable intermediate) counts as out of range.
    if inner.is_nan() || result.is_nan() {
        f64::INFINITY
    } else {
        inner.max(result)
    }
}

/// Capacity for the longest program (as the differential target's tape).
const CAP: usize = 4096;

/// The Q16 tape against the plain Q16 run (values) and against an `f64` sweep of its own
/// statements (gradient); see the module docs.
pub fn check_tape(p: &Program) {
    let inputs = p.input_values::<Q16>();
    let plain = run::<Q16>(p, &inputs);
    let tape = Tape::<Q16, CAP>::new();
    let xs: Vec<Var<'_, Q16>> = inputs.iter().map(|&v| tape.var(v)).collect();
    let mut slots = xs.clone();
    for instr in p.instrs() {
        slots.push(step(&slots, instr));
    }
    tape.check().expect("the program fits the tape");
    for (i, (v, q)) in slots.iter().zip(&plain).enumerate() {
        assert_eq!(
            v.value().to_bits(),
            q.to_bits(),
            "Q16 tape value of result {i}: {:?}, plain run {q:?}",
            v.value()
        );
    }
    let y = slots[p.output_slot(slots.len())];
    let Ok(y) = y.recorded() else {
        return; // a constant output: nothing to differentiate
    };
    let stmts = statements(&tape);
    let poisoned = |s: &crate::Statement<Q16>| {
        !s.node.value.is_finite() || s.operands.iter().any(|&(_, d)| !d.is_finite())
    };
    if stmts.iter().any(poisoned) {
        return; // NaN provenance's business (the differential target checks it)
    }
    // The f64 sweep and the bound on the Q16 sweep's error, per slot.
    let top = y.id().expect("a recorded value is a statement").index();
    let (mut adj, mut err) = (vec![0.0f64; top + 1], vec![0.0f64; top + 1]);
    adj[top] = 1.0;
    // Q16 poisons any term or running sum out of range, even one a later term brings back: the
    // sweep is in range only if every term and every partial sum of every adjoint is.
    let max = Q16::MAX.to_f64();
    let mut in_range = true;
    for s in stmts.iter().rev().filter(|s| s.id.index() <= top) {
        let (a, e) = (adj[s.id.index()], err[s.id.index()]);
        for &(i, d) in &s.operands {
            let d = d.to_f64();
            let term_err = d.abs() * e + 0.5 * STEP;
            adj[i] += a * d;
            err[i] += term_err;
            in_range &= (a * d).abs() + term_err < max && adj[i].abs() + err[i] < max;
        }
    }
    in_range &= adj.iter().zip(&err).all(|(a, e)| a.abs() + e < max);
    let mut q = vec![Q16::ZERO; xs.len()];
    tape.backward(y)
        .expect("a recorded output")
        .write_to(&xs, &mut q)
        .expect("equal lengths");
    for (j, (x, q)) in xs.iter().zip(&q).enumerate() {
        let i = x.id().expect("an input is a leaf").index();
        let (g, e) = adj
            .get(i)
            .zip(err.get(i))
            .map_or((0.0, 0.0), |(&g, &e)| (g, e));
        if q.is_poison() {
            assert!(
                !in_range,
                "d/dx{j} is poison, though every adjoint is in range ({g:e})"
            );
        } else {
            let error = (q.to_f64() - g).abs();
            assert!(
                error <= e + 1e-9,
                "d/dx{j} = {q:?} in Q16, {g:e} by the f64 sweep: error {error:e} > bound {e:e}"
            );
        }
    }
}
