//! [`Reference`]: the independent interpreter, computing values and forward-mode derivatives
//! with its own derivative rules.

use autograd_core::{math, Scalar};

use crate::instr::{operands, picked_row};
use crate::{Binary, Instr, Program, Unary, WithConst, MAX_INPUTS};

/// The reference interpreter's record of a run: values, and for every result its local
/// derivatives and its derivatives with respect to each input (forward mode, by hand).
#[derive(Debug)]
pub struct Reference<S> {
    /// Number of program inputs (the first results).
    pub n_inputs: usize,
    /// Every result, inputs first.
    pub values: Vec<S>,
    /// `edges[i]`: `(operand, d result_i / d operand)`, one entry per use.
    pub edges: Vec<Vec<(usize, S)>>,
    /// `tangents[i][j] = d result_i / d input_j`.
    pub tangents: Vec<[S; MAX_INPUTS]>,
    /// Some local derivative could not be computed by the reference (e.g. `powi(i32::MIN)`).
    pub unsupported: bool,
}

/// Sigmoid written independently of the engine (for softplus').
fn sigmoid_ref<S: Scalar>(x: S) -> S {
    if x >= S::ZERO {
        S::ONE / (S::ONE + (-x).exp())
    } else {
        let e = x.exp();
        e / (S::ONE + e)
    }
}

impl<S: Scalar> Reference<S> {
    /// Interprets the program at `inputs`.
    pub fn new(p: &Program, inputs: &[S]) -> Self {
        let n_in = inputs.len();
        let mut r = Reference {
            n_inputs: n_in,
            values: inputs.to_vec(),
            edges: vec![Vec::new(); n_in],
            tangents: (0..n_in)
                .map(|j| {
                    let mut t = [S::ZERO; MAX_INPUTS];
                    t[j] = S::ONE;
                    t
                })
                .collect(),
            unsupported: false,
        };
        for instr in p.instrs() {
            let (v, edges) = r.local(instr);
            let mut t = [S::ZERO; MAX_INPUTS];
            for &(u, d) in &edges {
                for (tj, uj) in t.iter_mut().zip(&r.tangents[u]) {
                    *tj += d * *uj;
                }
            }
            r.values.push(v);
            r.edges.push(edges);
            r.tangents.push(t);
        }
        r
    }

    /// The value of one instruction and its local derivatives.
    fn local(&mut self, instr: &Instr) -> (S, Vec<(usize, S)>) {
        let len = self.values.len();
        let idx = |i: u8| i as usize % len;
        let val = |i: u8| self.values[i as usize % len];
        let two = S::from_f64(2.0);
        let half = S::from_f64(0.5);
        match *instr {
            Instr::Unary(op, a) => {
                let x = val(a);
                let (v, d) = match op {
                    Unary::Neg => (-x, -S::ONE),
                    Unary::Exp => {
                        let v = x.exp();
                        (v, v)
                    }
                    Unary::Ln => (x.ln(), S::ONE / x),
                    Unary::Sqrt => {
                        let v = x.sqrt();
                        (v, half / v)
                    }
                    Unary::Sin => (x.sin(), x.cos()),
                    Unary::Cos => (x.cos(), -x.sin()),
                    Unary::Tan => {
                        let v = x.tan();
                        (v, S::ONE + v * v)
                    }
                    Unary::Tanh => {
                        let v = x.tanh();
                        (v, S::ONE - v * v)
                    }
                    Unary::Sigmoid => {
                        let v = math::sigmoid(x);
                        (v, v * (S::ONE - v))
                    }
                    Unary::Relu => (math::relu(x), step_fn(x > S::ZERO)),
                    Unary::Abs => {
                        let d = if x > S::ZERO {
                            S::ONE
                        } else if x < S::ZERO {
                            -S::ONE
                        } else {
                            S::ZERO
                        };
                        (x.abs(), d)
                    }
                    Unary::Softplus => (math::softplus(x), sigmoid_ref(x)),
                    Unary::Square => (x * x, two * x),
                    Unary::Atan => (x.atan(), S::ONE / (S::ONE + x * x)),
                    // 1 - x^2 as (1 - x)(1 + x): no cancellation next to ±1.
                    Unary::Asin => (x.asin(), S::ONE / ((S::ONE - x) * (S::ONE + x)).sqrt()),
                    Unary::Acos => (x.acos(), -S::ONE / ((S::ONE - x) * (S::ONE + x)).sqrt()),
                    Unary::Sinh => (x.sinh(), x.cosh()),
                    Unary::Cosh => (x.cosh(), x.sinh()),
                    Unary::Log2 => (
                        x.log2(),
                        S::ONE / (x * S::from_f64(core::f64::consts::LN_2)),
                    ),
                    // (1 / x) / ln 10: x ln 10 overflows at f32::MAX.
                    Unary::Log10 => (
                        x.log10(),
                        S::ONE / x / S::from_f64(core::f64::consts::LN_10),
                    ),
                    Unary::Exp2 => {
                        let v = x.exp2();
                        (v, v * S::from_f64(core::f64::consts::LN_2))
                    }
                    // c = x^(1/3): c' = c / 3x, as (c / x) / 3 (3x overflows at f32::MAX);
                    // non-finite at 0, where no comparison is made.
                    Unary::Cbrt => {
                        let v = x.cbrt();
                        (v, v / x / S::from_f64(3.0))
                    }
                };
                (v, vec![(idx(a), d)])
            }
            Instr::Binary(op, a, b) => {
                let (x, y) = (val(a), val(b));
                let (v, dx, dy) = match op {
                    Binary::Add => (x + y, S::ONE, S::ONE),
                    Binary::Sub => (x - y, S::ONE, -S::ONE),
                    Binary::Mul => (x * y, y, x),
                    Binary::Div => {
                        let v = x / y;
                        (v, S::ONE / y, -v / y)
                    }
                    Binary::Pow => {
                        let v = x.pow(y);
                        // y x^(y-1) (0 for y = 0: a constant), ln(x) x^y (0 at x = 0, y >= 0).
                        let dx = if y == S::ZERO {
                            S::ZERO
                        } else {
                            y * x.pow(y - S::ONE)
                        };
                        let dy = if x == S::ZERO && y >= S::ZERO {
                            S::ZERO
                        } else {
                            x.ln() * v
                        };
                        (v, dx, dy)
                    }
                    Binary::Max | Binary::Min => {
                        let first = match op {
                            Binary::Max => x > y,
                            _ => x < y,
                        };
                        let v = if matches!(op, Binary::Max) {
                            math::max(x, y)
                        } else {
                            math::min(x, y)
                        };
                        if first {
                            (v, S::ONE, S::ZERO)
                        } else if x == y {
                            (v, half, half)
                        } else {
                            (v, S::ZERO, S::ONE)
                        }
                    }
                    // atan2(x, y), x the ordinate: (y, -x) / (x^2 + y^2), both scaled by the
                    // larger magnitude m first so the squares neither overflow nor underflow;
                    // 0 at the origin (the core's convention).
                    Binary::Atan2 => {
                        let v = x.atan2(y);
                        let m = math::max(x.abs(), y.abs());
                        if m == S::ZERO {
                            (v, S::ZERO, S::ZERO)
                        } else {
                            let (p, q) = (x / m, y / m);
                            let r2 = p * p + q * q;
                            (v, q / r2 / m, -p / r2 / m)
                        }
                    }
                    Binary::Hypot => {
                        let v = x.hypot(y);
                        if v == S::ZERO {
                            (v, S::ZERO, S::ZERO)
                        } else {
                            (v, x / v, y / v)
                        }
                    }
                };
                (v, vec![(idx(a), dx), (idx(b), dy)])
            }
            Instr::Const(op, a, c) => {
                let x = val(a);
                let k = S::from_f64(c.get());
                let (v, d) = match op {
                    WithConst::AddC => (x + k, S::ONE),
                    WithConst::CAdd => (k + x, S::ONE),
                    WithConst::SubC => (x - k, S::ONE),
                    WithConst::CSub => (k - x, -S::ONE),
                    WithConst::MulC => (x * k, k),
                    WithConst::CMul => (k * x, k),
                    WithConst::DivC => (x / k, S::ONE / k),
                    WithConst::CDiv => {
                        let v = k / x;
                        (v, -v / x)
                    }
                    WithConst::Powf => {
                        let d = if k == S::ZERO {
                            S::ZERO
                        } else {
                            k * x.pow(k - S::ONE)
                        };
                        (x.pow(k), d)
                    }
                    WithConst::LeakyRelu => {
                        let d = if x > S::ZERO { S::ONE } else { k };
                        (math::leaky_relu(x, k), d)
                    }
                    WithConst::MulF64 => (x * k, k),
                    WithConst::AddF64 => (x + k, S::ONE),
                    WithConst::RsubF64 => (k - x, -S::ONE),
                };
                (v, vec![(idx(a), d)])
            }
            Instr::Powi(a, n) => {
                let (x, n) = (val(a), n.get());
                let d = match n {
                    0 => S::ZERO,
                    1 => S::ONE,
                    _ => match n.checked_sub(1) {
                        Some(m) => S::from_f64(f64::from(n)) * x.powi(m),
                        // n = i32::MIN: x^(n-1) has no i32 exponent.
                        None => {
                            self.unsupported = true;
                            S::ZERO
                        }
                    },
                };
                (x.powi(n), vec![(idx(a), d)])
            }
            Instr::Sum(ids, n) => {
                let ops: Vec<usize> = operands(&(0..len).collect::<Vec<_>>(), &ids, n);
                // `Number::sum`: from the constant 0, left to right.
                let v = ops.iter().fold(S::ZERO, |acc, &i| acc + self.values[i]);
                (v, ops.iter().map(|&i| (i, S::ONE)).collect())
            }
            Instr::Dot(ia, ib, n) => {
                let all: Vec<usize> = (0..len).collect();
                let (oa, ob) = (operands(&all, &ia, n), operands(&all, &ib, n));
                self.products(S::ZERO, &oa, &ob)
            }
            Instr::Affine(iw, ix, b, n) => {
                let all: Vec<usize> = (0..len).collect();
                let (ow, ox) = (operands(&all, &iw, n), operands(&all, &ix, n));
                let (v, mut edges) = self.products(val(b), &ow, &ox);
                edges.push((idx(b), S::ONE));
                (v, edges)
            }
            Instr::Layer(ix, n, start, rows, pick) => {
                // Row `pick % m` alone: `affine` of its weights and bias.
                let all: Vec<usize> = (0..len).collect();
                let ox = operands(&all, &ix, n);
                let row = picked_row(len, n, start, rows, pick);
                let k = ox.len();
                let (v, mut edges) = self.products(self.values[row[k]], &row[..k], &ox);
                edges.push((row[k], S::ONE));
                (v, edges)
            }
            Instr::MulAdd(x, a, b) => {
                let (xv, av) = (val(x), val(a));
                (
                    xv * av + val(b),
                    vec![(idx(x), av), (idx(a), xv), (idx(b), S::ONE)],
                )
            }
        }
    }

    /// `init + a_0 b_0 + a_1 b_1 + ...`, left to right, and its local derivatives.
    fn products(&self, init: S, a: &[usize], b: &[usize]) -> (S, Vec<(usize, S)>) {
        let mut v = init;
        let mut edges = Vec::new();
        for (&i, &j) in a.iter().zip(b) {
            let (x, y) = (self.values[i], self.values[j]);
            v += x * y;
            edges.push((i, y));
            edges.push((j, x));
        }
        (v, edges)
    }

    /// Whether reverse and forward derivatives of result `out` must agree, and if so, the
    /// reference derivative and the tolerance for each input.
    ///
    /// They must where every value and every local derivative is finite and no product of local
    /// derivatives can overflow: then every mode computes sums of products of the same local
    /// derivatives, grouped differently. Forward mode multiplies from the inputs, the backward
    /// sweep from the output, and the tape's handles in between: each pending partial is the
    /// derivative of one result with respect to an earlier one, summed over the paths between
    /// them. So every sum of absolute path products between two results (`reach`) must stay
    /// well inside the range of `S`, not only those from the inputs and to the output.
    ///
    /// The tolerance bounds the regrouping: a few ulps per operation relative to the sum of the
    /// absolute values of the path products (so cancellation cannot cause a false alarm), plus
    /// the absolute error of intermediates that underflow: a product rounded to a subnormal
    /// anywhere between results `u` and `v` is off by at most the smallest subnormal, and that
    /// error reaches the derivative scaled by at most `reach[u][input] * reach[out][v]`.
    pub fn expected(&self, out: usize) -> Option<Vec<(S, f64)>> {
        if self.unsupported {
            return None;
        }
        let n_in = self.n_inputs;
        let finite = |x: S| x.is_finite();
        if !self.values[..=out].iter().all(|&v| finite(v))
            || !self.edges[..=out].iter().flatten().all(|&(_, d)| finite(d))
        {
            return None;
        }
        // reach[v][u]: the sum over paths from u to v of |products of local derivatives|, in f64
        // so the bounds themselves do not overflow in f32; linked[v][u]: some path exists. (Every
        // input is included: the output may be an earlier input.)
        let n = (out + 1).max(n_in);
        let mut reach = vec![vec![0.0f64; n]; n];
        let mut linked = vec![vec![false; n]; n];
        for v in 0..n {
            reach[v][v] = 1.0;
            linked[v][v] = true;
            for &(w, d) in &self.edges[v] {
                let d = d.to_f64().abs();
                for u in 0..=w {
                    reach[v][u] += d * reach[w][u];
                    linked[v][u] |= linked[w][u];
                }
            }
        }
        // Every partial any mode forms stays well inside the range of S.
        let is_f32 = S::EPSILON > 1e-10;
        let limit = if is_f32 {
            f64::from(f32::MAX)
        } else {
            f64::MAX
        } * 1e-6;
        // The smallest subnormal of S: the absolute error of one operation that underflows.
        let tiny = if is_f32 {
            f64::from(f32::from_bits(1))
        } else {
            f64::from_bits(1)
        };
        let within = |a: f64| a <= limit; // false for NaN
        if !reach.iter().flatten().all(|&a| within(a)) {
            return None;
        }
        let ops: usize = self.edges[..n].iter().map(|e| e.len() + 1).sum();
        let rel = 16.0 * (ops as f64 + 8.0) * S::EPSILON;
        Some(
            (0..n_in)
                .map(|j| {
                    let mut underflow = 0.0;
                    for v in 0..n {
                        for u in 0..=v {
                            if linked[v][u] {
                                // Scaled by `tiny` first: the product of two bounds may overflow.
                                underflow += (self.edges[v].len() as f64 + 1.0)
                                    * (tiny * reach[u][j])
                                    * reach[out][v];
                            }
                        }
                    }
                    (self.tangents[out][j], rel * reach[out][j] + 4.0 * underflow)
                })
                .collect(),
        )
    }
}

fn step_fn<S: Scalar>(on: bool) -> S {
    if on {
        S::ONE
    } else {
        S::ZERO
    }
}
