//! What the fuzz targets share: a small program of operations decoded from fuzz input, a runner
//! that evaluates it with any implementor of [`Number`] (plain scalars, tape handles, duals), and
//! an independent reference interpreter that computes values and forward-mode derivatives by hand.
//!
//! The reference keeps its own derivative rules (written from the math, with the documented
//! conventions at kinks), so a wrong rule, a mis-wired edge or a missed accumulation in the engine
//! shows up as a disagreement. Where a derivative can be computed in more than one numerically
//! sensible way, it uses the same expression as the engine (`tanh' = 1 - tanh^2` from the value),
//! because the target compares evaluation orders, not the conditioning of formulas.

use arbitrary::Arbitrary;
use autograd_core::{math, Dual, Number, Scalar, Var};

/// Number of program inputs at most.
pub const MAX_INPUTS: usize = 3;
/// Number of instructions at most (longer inputs are truncated).
pub const MAX_INSTRS: usize = 48;
/// Operands of a `sum` or a `dot` at most.
pub const MAX_OPERANDS: usize = 4;

/// A number from the fuzz input: a small exact value, an edge case, or any bit pattern.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Value {
    /// `n / 8`: exact, hits kinks (0) and ties (`max(x, x)`) often.
    Small(i8),
    /// An edge case.
    Special(Special),
    /// Any `f64` bit pattern.
    Bits(u64),
}

/// Edge cases of floating point and of the operations.
#[derive(Arbitrary, Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum Special {
    Zero,
    NegZero,
    Nan,
    Inf,
    NegInf,
    MinPositive,
    MinSubnormal,
    Subnormal,
    Max,
    NegMax,
    Huge,
    NegHuge,
    Tiny,
    F32Max,
    F32MinPositive,
    F32Subnormal,
    ExpEdge,
    ExpOverflow,
    HalfPi,
    Pi,
    Big,
    Epsilon,
    OneMinusEps,
}

impl Value {
    /// The value as `f64` (rounded to the scalar type where it is used).
    pub fn get(self) -> f64 {
        match self {
            Value::Small(n) => f64::from(n) / 8.0,
            Value::Bits(b) => f64::from_bits(b),
            Value::Special(s) => match s {
                Special::Zero => 0.0,
                Special::NegZero => -0.0,
                Special::Nan => f64::NAN,
                Special::Inf => f64::INFINITY,
                Special::NegInf => f64::NEG_INFINITY,
                Special::MinPositive => f64::MIN_POSITIVE,
                Special::MinSubnormal => f64::from_bits(1),
                Special::Subnormal => 1e-310,
                Special::Max => f64::MAX,
                Special::NegMax => f64::MIN,
                Special::Huge => 1e300,
                Special::NegHuge => -1e300,
                Special::Tiny => 1e-300,
                Special::F32Max => f64::from(f32::MAX),
                Special::F32MinPositive => f64::from(f32::MIN_POSITIVE),
                Special::F32Subnormal => 1e-42,
                Special::ExpEdge => 709.0,
                Special::ExpOverflow => 710.0,
                Special::HalfPi => core::f64::consts::FRAC_PI_2,
                Special::Pi => core::f64::consts::PI,
                Special::Big => 1e16,
                Special::Epsilon => f64::EPSILON,
                Special::OneMinusEps => 1.0 - f64::EPSILON,
            },
        }
    }
}

/// One-input operations.
#[derive(Arbitrary, Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum Unary {
    Neg,
    Exp,
    Ln,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Relu,
    Abs,
    Softplus,
    Square,
}

/// Two-input operations.
#[derive(Arbitrary, Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Max,
    Min,
}

/// Operations with a constant operand (`AddC` is `x + c`, `CAdd` is `c + x`, ...).
#[derive(Arbitrary, Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum WithConst {
    AddC,
    CAdd,
    SubC,
    CSub,
    MulC,
    CMul,
    DivC,
    CDiv,
    Powf,
    LeakyRelu,
}

/// A `powi` exponent: usually small, sometimes anything.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Exponent {
    /// -128..=127
    Small(i8),
    /// Any `i32`, including `i32::MIN` and exponents too large to store inline.
    Any(i32),
}

impl Exponent {
    /// The exponent.
    pub fn get(self) -> i32 {
        match self {
            Exponent::Small(n) => i32::from(n),
            Exponent::Any(n) => n,
        }
    }
}

/// One instruction; operands index earlier results (modulo their number). Each instruction
/// appends one result.
#[derive(Arbitrary, Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum Instr {
    Unary(Unary, u8),
    Binary(Binary, u8, u8),
    Const(WithConst, u8, Value),
    Powi(u8, Exponent),
    /// `Var::sum` of `1 + n % MAX_OPERANDS` operands.
    Sum([u8; MAX_OPERANDS], u8),
    /// `Var::dot` of `1 + n % MAX_OPERANDS` pairs.
    Dot([u8; MAX_OPERANDS], [u8; MAX_OPERANDS], u8),
}

/// A straight-line program over a few inputs.
#[derive(Arbitrary, Debug, Clone)]
pub struct Program {
    /// Input values (the first [`Program::n_inputs`] are used).
    pub inputs: [Value; MAX_INPUTS],
    /// Selects the number of inputs.
    pub n_inputs: u8,
    /// The instructions (the first [`MAX_INSTRS`] are used).
    pub instrs: Vec<Instr>,
    /// Selects the output among all results.
    pub output: u8,
}

impl Program {
    /// Number of inputs, 1 to [`MAX_INPUTS`].
    pub fn n_inputs(&self) -> usize {
        1 + self.n_inputs as usize % MAX_INPUTS
    }
    /// The instructions that run.
    pub fn instrs(&self) -> &[Instr] {
        &self.instrs[..self.instrs.len().min(MAX_INSTRS)]
    }
    /// Input values as the scalar `S`.
    pub fn input_values<S: Scalar>(&self) -> Vec<S> {
        self.inputs[..self.n_inputs()]
            .iter()
            .map(|v| S::from_f64(v.get()))
            .collect()
    }
    /// Index of the output among `len` results: the last one half of the time (the whole
    /// program), else any.
    pub fn output_slot(&self, len: usize) -> usize {
        if self.output < 128 {
            len - 1
        } else {
            self.output as usize % len
        }
    }
}

/// `Number` plus the ways the program builds constants, sums and dot products for each kind of
/// value (the tape has its own `Var::sum` and `Var::dot`).
pub trait Eval<S: Scalar>: Number {
    /// The constant `c`.
    fn konst(c: S) -> Self;
    /// Left-to-right sum of a non-empty slice.
    fn sum(xs: &[Self]) -> Self {
        let (first, rest) = xs.split_first().expect("sums are never empty");
        rest.iter().fold(*first, |acc, x| acc + *x)
    }
    /// Left-to-right dot product of non-empty slices of equal length.
    fn dot(a: &[Self], b: &[Self]) -> Self {
        let mut terms = a.iter().zip(b).map(|(x, y)| *x * *y);
        let first = terms.next().expect("dot products are never empty");
        terms.fold(first, |acc, t| acc + t)
    }
}

impl Eval<f64> for f64 {
    fn konst(c: f64) -> Self {
        c
    }
}

impl Eval<f32> for f32 {
    fn konst(c: f32) -> Self {
        c
    }
}

impl<S: Scalar> Eval<S> for Dual<S> {
    fn konst(c: S) -> Self {
        Dual::constant(c)
    }
}

impl<'t, S: Scalar> Eval<S> for Var<'t, S> {
    fn konst(c: S) -> Self {
        Var::constant(c)
    }
    fn sum(xs: &[Self]) -> Self {
        Var::sum(xs)
    }
    fn dot(a: &[Self], b: &[Self]) -> Self {
        Var::dot(a, b).expect("equal lengths")
    }
}

fn operands<T: Copy>(slots: &[T], idx: &[u8; MAX_OPERANDS], n: u8) -> Vec<T> {
    let len = 1 + n as usize % MAX_OPERANDS;
    idx[..len]
        .iter()
        .map(|&i| slots[i as usize % slots.len()])
        .collect()
}

/// Runs the program on `inputs` (one per program input) and returns every result, inputs first.
pub fn run<S: Scalar, T: Eval<S>>(p: &Program, inputs: &[T]) -> Vec<T> {
    let mut slots: Vec<T> = inputs.to_vec();
    for instr in p.instrs() {
        slots.push(step(&slots, instr));
    }
    slots
}

/// Runs only the first `n` instructions.
pub fn run_prefix<S: Scalar, T: Eval<S>>(p: &Program, inputs: &[T], n: usize) -> Vec<T> {
    let mut slots: Vec<T> = inputs.to_vec();
    for instr in p.instrs().iter().take(n) {
        slots.push(step(&slots, instr));
    }
    slots
}

/// One instruction's result.
pub fn step<S: Scalar, T: Eval<S>>(slots: &[T], instr: &Instr) -> T {
    let at = |i: u8| slots[i as usize % slots.len()];
    match *instr {
        Instr::Unary(op, a) => {
            let x = at(a);
            match op {
                Unary::Neg => -x,
                Unary::Exp => x.exp(),
                Unary::Ln => x.ln(),
                Unary::Sqrt => x.sqrt(),
                Unary::Sin => x.sin(),
                Unary::Cos => x.cos(),
                Unary::Tan => x.tan(),
                Unary::Tanh => x.tanh(),
                Unary::Sigmoid => x.sigmoid(),
                Unary::Relu => x.relu(),
                Unary::Abs => x.abs(),
                Unary::Softplus => x.softplus(),
                Unary::Square => x.square(),
            }
        }
        Instr::Binary(op, a, b) => {
            let (x, y) = (at(a), at(b));
            match op {
                Binary::Add => x + y,
                Binary::Sub => x - y,
                Binary::Mul => x * y,
                Binary::Div => x / y,
                Binary::Pow => x.pow(y),
                Binary::Max => x.max(y),
                Binary::Min => x.min(y),
            }
        }
        Instr::Const(op, a, c) => {
            let x = at(a);
            let cf = c.get();
            let k = T::konst(S::from_f64(cf));
            match op {
                WithConst::AddC => x + k,
                WithConst::CAdd => k + x,
                WithConst::SubC => x - k,
                WithConst::CSub => k - x,
                WithConst::MulC => x * k,
                WithConst::CMul => k * x,
                WithConst::DivC => x / k,
                WithConst::CDiv => k / x,
                WithConst::Powf => x.powf(cf),
                WithConst::LeakyRelu => x.leaky_relu(cf),
            }
        }
        Instr::Powi(a, n) => at(a).powi(n.get()),
        Instr::Sum(idx, n) => T::sum(&operands(slots, &idx, n)),
        Instr::Dot(ia, ib, n) => {
            let len = n;
            T::dot(&operands(slots, &ia, len), &operands(slots, &ib, len))
        }
    }
}

/// The reference interpreter's record of a run: values, and for every result its local
/// derivatives and its derivatives with respect to each input (forward mode, by hand).
#[derive(Debug)]
pub struct Reference<S> {
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
                };
                (v, vec![(idx(a), d)])
            }
            Instr::Powi(a, n) => {
                let (x, n) = (val(a), n.get());
                // Beyond the node's 28-bit exponent the tape records `powf` with `n` rounded to
                // S, whose derivative rule differs in rounding (and, in f32, at x = -1 even in
                // sign): values are compared, derivatives are not.
                if n.unsigned_abs() >= 1 << 27 {
                    self.unsupported = true;
                }
                let d = match n {
                    0 => S::ZERO,
                    1 => S::ONE,
                    _ => match n.checked_sub(1) {
                        Some(m) => S::from_f64(f64::from(n)) * x.powi(m),
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
                let xs: Vec<S> = ops.iter().map(|&i| self.values[i]).collect();
                let (first, rest) = xs.split_first().expect("non-empty");
                let v = rest.iter().fold(*first, |acc, x| acc + *x);
                (v, ops.iter().map(|&i| (i, S::ONE)).collect())
            }
            Instr::Dot(ia, ib, n) => {
                let all: Vec<usize> = (0..len).collect();
                let (oa, ob) = (operands(&all, &ia, n), operands(&all, &ib, n));
                let mut v = None;
                let mut edges = Vec::new();
                for (&i, &j) in oa.iter().zip(&ob) {
                    let (x, y) = (self.values[i], self.values[j]);
                    v = Some(match v {
                        None => x * y,
                        Some(acc) => acc + x * y,
                    });
                    edges.push((i, y));
                    edges.push((j, x));
                }
                (v.expect("non-empty"), edges)
            }
        }
    }

    /// Whether reverse and forward derivatives of result `out` must agree, and if so, the
    /// reference derivative and the tolerance for each input.
    ///
    /// They must where every value and every local derivative is finite and no intermediate
    /// derivative can overflow: then both modes compute the same sums of products of the same
    /// local derivatives, in different orders. The tolerance bounds that reordering: a few ulps
    /// per operation relative to the sum of the absolute values of the products (so cancellation
    /// cannot cause a false alarm), plus the absolute error of subnormal intermediates.
    pub fn expected(&self, out: usize) -> Option<Vec<(S, f64)>> {
        if self.unsupported {
            return None;
        }
        let n_in = self
            .edges
            .iter()
            .take_while(|e| e.is_empty())
            .count()
            .min(MAX_INPUTS);
        let finite = |x: S| x.is_finite();
        if !self.values[..=out].iter().all(|&v| finite(v))
            || !self.edges[..=out].iter().flatten().all(|&(_, d)| finite(d))
        {
            return None;
        }
        // Absolute-value bounds, in f64 so the bounds themselves do not overflow in f32.
        let n = out + 1;
        let mut abs_tan = vec![[0.0f64; MAX_INPUTS]; n];
        for (j, t) in abs_tan.iter_mut().enumerate().take(n_in) {
            t[j] = 1.0;
        }
        for i in n_in..n {
            let mut t = [0.0; MAX_INPUTS];
            for &(u, d) in &self.edges[i] {
                for j in 0..n_in {
                    t[j] += d.to_f64().abs() * abs_tan[u][j];
                }
            }
            abs_tan[i] = t;
        }
        let mut abs_adj = vec![0.0f64; n];
        abs_adj[out] = 1.0;
        for i in (0..n).rev() {
            for &(u, d) in &self.edges[i] {
                abs_adj[u] += d.to_f64().abs() * abs_adj[i];
            }
        }
        // Intermediates stay well inside the range of S.
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
        if !abs_adj.iter().all(|&a| within(a)) || !abs_tan[..n].iter().flatten().all(|&a| within(a))
        {
            return None;
        }
        let ops: usize = self.edges[..n].iter().map(|e| e.len() + 1).sum();
        let rel = 16.0 * (ops as f64 + 8.0) * S::EPSILON;
        Some(
            (0..n_in)
                .map(|j| {
                    let underflow: f64 = (0..n)
                        .map(|u| (self.edges[u].len() as f64 + 1.0) * (abs_adj[u] + abs_tan[u][j]))
                        .sum::<f64>()
                        * 4.0
                        * tiny;
                    (self.tangents[out][j], rel * abs_tan[out][j] + underflow)
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

/// Same value or both NaN (NaN payloads may legitimately differ).
pub fn same<S: Scalar>(a: S, b: S) -> bool {
    let (x, y) = (a.to_f64(), b.to_f64());
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}
