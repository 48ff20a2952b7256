//! A measurement prototype for issue 12's redesign, not part of the library: a handle of fixed
//! shape carrying ONE pending `(index, partial)` pair, where `autograd-core`'s `Var` carries up to
//! two. Every operation on two recorded values writes a statement of two operands; one-input
//! operations and operations with a constant only multiply the pending partial. The slot layout
//! (value or partial, adjoint, link), the sweep (a run of leaves passed over at once, then
//! `adj[operand] += adj[header] * partial`, here without a loop for the one or two operands),
//! the capacity test and the non-finite write (a result whose value or partial is not finite
//! becomes its own statement) are the core's; the tape is a sized struct, so the handle holds a
//! thin pointer (32 bytes in all, 56 for the core's `Var`). Numbers from `libm`, as the core's.
//! What it leaves out: operation labels, the sticky error's kind, tapes told apart, n-ary and
//! layer statements.
//!
//! ```text
//! cargo build --release -p autograd-bench --example one_pair_handle
//! valgrind --tool=callgrind target/release/examples/one_pair_handle rosenbrock 1000 10
//! valgrind --tool=callgrind target/release/examples/one_pair_handle rosenbrock 1000 20
//! ```
//!
//! (and `dense`): the difference of the two counts over 10 gradients, over n - 1 terms, is the
//! cost per term, to set beside `examples/profile`'s for the core. Each run checks its last
//! gradient against the hand-written one (`autograd_bench::analytic`) and exits 1 if they differ.

use autograd_bench::args::{refuse_misfits, Arg};
use std::cell::Cell;
use std::ops::{Add, Mul, Sub};
use std::process::ExitCode;

use autograd_bench::analytic;
use autograd_bench::functions::point;

const HEADER: u32 = 1 << 31;
/// The index of a constant (it depends on nothing recorded).
const NONE: u32 = u32::MAX;

struct Slot {
    x: Cell<f64>,
    adj: Cell<f64>,
    link: Cell<u32>,
}

struct Tape {
    slots: Vec<Slot>,
    len: Cell<u32>,
    failed: Cell<bool>,
}

/// The handle: a value and its partial with respect to statement `idx` (`NONE`: a constant).
#[derive(Clone, Copy)]
struct V<'t> {
    t: &'t Tape,
    value: f64,
    idx: u32,
    p: f64,
}

impl Tape {
    fn new(n: usize) -> Self {
        let slot = || Slot {
            x: Cell::new(0.0),
            adj: Cell::new(0.0),
            link: Cell::new(0),
        };
        Tape {
            slots: (0..n).map(|_| slot()).collect(),
            len: Cell::new(0),
            failed: Cell::new(false),
        }
    }

    fn leaf(&self, v: f64) -> V<'_> {
        let len = self.len.get();
        match self.slots.get(len as usize) {
            Some(s) => {
                s.x.set(v);
                s.adj.set(0.0);
                s.link.set(HEADER);
                self.len.set(len + 1);
                V {
                    t: self,
                    value: v,
                    idx: len,
                    p: 1.0,
                }
            }
            None => V {
                t: self,
                value: v,
                idx: full(self),
                p: 0.0,
            },
        }
    }

    /// A statement of `N` operands (1 or 2) and its header; the header's index.
    #[inline(always)]
    fn push<const N: usize>(&self, value: f64, operands: [(u32, f64); N]) -> u32 {
        let len = self.len.get() as usize;
        match self.slots.get(len..len + N + 1) {
            Some(w) => {
                for (s, (i, p)) in w.iter().zip(operands) {
                    s.x.set(p);
                    s.link.set(i);
                }
                w[N].x.set(value);
                w[N].adj.set(0.0);
                w[N].link.set(HEADER | N as u32);
                self.len.set((len + N + 1) as u32);
                (len + N) as u32
            }
            None => full(self),
        }
    }

    /// The core's sweep over this layout, from `y` down (adjoints start at 0: every header's
    /// is cleared when it is written, and each run sweeps a fresh recording).
    fn backward(&self, y: V<'_>) {
        let slots = &self.slots[..self.len.get() as usize];
        let Some(root) = slots.get(y.idx as usize) else {
            return;
        };
        root.adj.set(y.p);
        let mut p = y.idx as usize + 1;
        while p > 0 {
            let head = &slots[p - 1];
            let count = (head.link.get() & !HEADER) as usize;
            if count == 0 {
                p -= slots[..p]
                    .iter()
                    .rev()
                    .take_while(|s| s.link.get() == HEADER)
                    .count();
                continue;
            }
            let base = p - 1 - count.min(p - 1);
            let a = head.adj.get();
            if a != 0.0 {
                // One or two operands: read without a loop.
                let send = |o: &Slot| {
                    if let Some(t) = slots.get(o.link.get() as usize) {
                        t.adj.set(t.adj.get() + a * o.x.get());
                    }
                };
                send(&slots[base]);
                if count == 2 {
                    send(&slots[base + 1]);
                }
            }
            p = base;
        }
    }
}

#[cold]
#[inline(never)]
fn full(t: &Tape) -> u32 {
    t.failed.set(true);
    NONE
}

/// A result whose value or partial is not finite, written at once as its own statement.
#[cold]
#[inline(never)]
fn non_finite<'t>(t: &'t Tape, value: f64, idx: u32, p: f64) -> V<'t> {
    let idx = t.push(value, [(idx, p)]);
    V {
        t,
        value,
        idx,
        p: 1.0,
    }
}

impl<'t> V<'t> {
    fn constant(t: &'t Tape, value: f64) -> Self {
        V {
            t,
            value,
            idx: NONE,
            p: 0.0,
        }
    }

    #[inline(always)]
    fn settled(self) -> Self {
        if !(self.value * self.p).is_finite() {
            return non_finite(self.t, self.value, self.idx, self.p);
        }
        self
    }

    #[inline(always)]
    fn chain(self, value: f64, d: f64) -> Self {
        V {
            value,
            p: self.p * d,
            ..self
        }
        .settled()
    }

    #[inline(always)]
    fn combine(self, value: f64, dx: f64, y: Self, dy: f64) -> Self {
        let (a, b) = (self.p * dx, y.p * dy);
        if self.idx == y.idx {
            return V {
                value,
                p: a + b,
                ..self
            }
            .settled();
        }
        if y.idx == NONE {
            return V {
                value,
                p: a,
                ..self
            }
            .settled();
        }
        if self.idx == NONE {
            return V { value, p: b, ..y }.settled();
        }
        let idx = self.t.push(value, [(self.idx, a), (y.idx, b)]);
        V {
            t: self.t,
            value,
            idx,
            p: 1.0,
        }
        .settled()
    }

    #[inline(always)]
    fn square(self) -> Self {
        self.chain(self.value * self.value, self.value + self.value)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        let (s, c) = libm::sincos(self.value);
        self.chain(s, c)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        let (s, c) = libm::sincos(self.value);
        self.chain(c, -s)
    }
    #[inline(always)]
    fn exp(self) -> Self {
        let e = libm::exp(self.value);
        self.chain(e, e)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        let y = libm::tanh(self.value);
        self.chain(y, 1.0 - y * y)
    }
}

impl Add for V<'_> {
    type Output = Self;
    #[inline(always)]
    fn add(self, y: Self) -> Self {
        self.combine(self.value + y.value, 1.0, y, 1.0)
    }
}
impl Sub for V<'_> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, y: Self) -> Self {
        self.combine(self.value - y.value, 1.0, y, -1.0)
    }
}
impl Mul for V<'_> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, y: Self) -> Self {
        self.combine(self.value * y.value, y.value, y, self.value)
    }
}

/// `autograd-bench`'s Rosenbrock, written the same way (constants as constant handles).
#[inline(never)]
fn rosenbrock<'t>(t: &'t Tape, x: &[V<'t>]) -> V<'t> {
    let mut sum = V::constant(t, 0.0);
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum =
            sum + V::constant(t, 100.0) * (b - a * a).square() + (V::constant(t, 1.0) - a).square();
    }
    sum
}

/// `autograd-bench`'s `dense`, written the same way.
#[inline(never)]
fn dense<'t>(t: &'t Tape, x: &[V<'t>]) -> V<'t> {
    let mut sum = V::constant(t, 0.0);
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        sum = sum + a.sin() * b.cos().exp() + (a * b).tanh();
    }
    sum
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // (Out of line, before main reads them as it did: `autograd_bench::args`.)
    refuse_misfits(
        &args,
        &[Arg::Any, Arg::Count, Arg::Count],
        "usage: one_pair_handle [rosenbrock|dense] [N] [REPS]",
    );
    let number =
        |i: usize, default: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    let (name, n, reps) = (
        args.first().map_or("rosenbrock", String::as_str),
        number(1, 1000),
        number(2, 10),
    );
    let f: for<'t> fn(&'t Tape, &[V<'t>]) -> V<'t> = match name {
        "rosenbrock" => rosenbrock,
        "dense" => dense,
        other => {
            eprintln!("error: unknown function `{other}` (rosenbrock or dense)");
            return ExitCode::from(2);
        }
    };
    if n < 2 {
        eprintln!("error: n must be at least 2");
        return ExitCode::from(2);
    }
    let tape = Tape::new(16 * n);
    let x = point(n);
    let (mut g, mut vars) = (vec![0.0; n], Vec::with_capacity(n));
    for _ in 0..reps {
        tape.len.set(0);
        vars.clear();
        vars.extend(x.iter().map(|&v| tape.leaf(std::hint::black_box(v))));
        let y = f(&tape, &vars);
        tape.backward(y);
        for (gi, v) in g.iter_mut().zip(&vars) {
            *gi = tape.slots[v.idx as usize].adj.get();
        }
    }
    let mut want = vec![0.0; n];
    match name {
        "rosenbrock" => analytic::rosenbrock_gradient(&x, &mut want),
        _ => analytic::dense_gradient(&x, &mut want),
    };
    let err = g
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
        .fold(0.0, f64::max);
    println!(
        "{name} n = {n}: {} slots, largest relative error {err:e}",
        tape.len.get()
    );
    if tape.failed.get() || err.is_nan() || err > 1e-12 {
        eprintln!(
            "error: the gradient disagrees with the hand-written one (or the tape overflowed)"
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
