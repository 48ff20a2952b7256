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
use autograd_core::{math, NodeId, Number, Op, Scalar, Var};

/// Number of program inputs at most.
pub const MAX_INPUTS: usize = 3;
/// Number of instructions at most (longer inputs are truncated).
pub const MAX_INSTRS: usize = 48;
/// Operands of a `sum`, pairs of a `dot` or an `affine` at most.
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

/// One-input and two-input operations: the core's testkit, with `Arbitrary` (its `arbitrary`
/// feature) decoding as a derive here would.
pub use autograd_core::testkit::{Binary, Unary};

/// Operations with a constant operand (`AddC` is `x + c`, `CAdd` is `c + x`, ...; the last
/// three are `Number`'s `x.mul_f64(c)`, `x.add_f64(c)` and `x.rsub_f64(c) = c - x`).
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
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
    MulF64,
    AddF64,
    RsubF64,
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
///
/// The n-ary instructions take `n % (MAX_OPERANDS + 1)` operands (or pairs): an empty `sum` or
/// `dot` is the constant 0, which on a tape is a constant off the tape, so programs also
/// exercise operations between constants and recorded values.
#[derive(Arbitrary, Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum Instr {
    Unary(Unary, u8),
    Binary(Binary, u8, u8),
    Const(WithConst, u8, Value),
    Powi(u8, Exponent),
    /// `Number::sum` of the first `n` operands.
    Sum([u8; MAX_OPERANDS], u8),
    /// `Number::dot` of the first `n` pairs.
    Dot([u8; MAX_OPERANDS], [u8; MAX_OPERANDS], u8),
    /// `Number::affine(w, x, b)` over the first `n` pairs: `((b + w0 x0) + w1 x1) + ...`.
    Affine([u8; MAX_OPERANDS], [u8; MAX_OPERANDS], u8, u8),
    /// `x.mul_add(a, b)`: `x a + b`.
    MulAdd(u8, u8, u8),
}

/// An instruction without its operands: what [`exercised_by`] maps the core's operations to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Kind {
    Unary(Unary),
    Binary(Binary),
    Const(WithConst),
    Powi,
    Sum,
    Dot,
    Affine,
    MulAdd,
}

impl Instr {
    /// The instruction without its operands.
    pub fn kind(&self) -> Kind {
        match *self {
            Instr::Unary(op, _) => Kind::Unary(op),
            Instr::Binary(op, _, _) => Kind::Binary(op),
            Instr::Const(op, _, _) => Kind::Const(op),
            Instr::Powi(..) => Kind::Powi,
            Instr::Sum(..) => Kind::Sum,
            Instr::Dot(..) => Kind::Dot,
            Instr::Affine(..) => Kind::Affine,
            Instr::MulAdd(..) => Kind::MulAdd,
        }
    }
}

/// The instructions whose recording may write a statement labelled `op` (a statement is labelled
/// with the last operation applied to the handle it holds): the program generator's tie to the
/// core's table of operations. The `match` is exhaustive, without a wildcard, so an operation
/// added to the core and forgotten here fails to compile; the differential target checks, for
/// every statement a program writes, that the instruction that wrote it is listed here for the
/// statement's operation, so a wrong entry is found by fuzzing.
///
/// A constant operand (an empty `sum` or `dot` upstream) turns `x + c`, `c - x`, `x * c` and
/// `x / c` into the folded `Shift`, `Neg` then `Shift`, and `Scale`; `mul_add` over at most two
/// recorded values is `x * a + b`.
pub fn exercised_by(op: Op) -> &'static [Kind] {
    use Binary as B;
    use Kind as K;
    use Unary as U;
    use WithConst as C;
    match op {
        // Only program inputs are leaves; no instruction makes one.
        Op::Leaf => &[],
        Op::Sum => &[K::Sum],
        Op::Dot => &[K::Dot, K::Affine],
        Op::MulAdd => &[K::MulAdd],
        Op::Add => &[K::Binary(B::Add), K::MulAdd],
        Op::Sub => &[K::Binary(B::Sub)],
        Op::Mul => &[K::Binary(B::Mul), K::MulAdd],
        Op::Div => &[K::Binary(B::Div), K::Const(C::CDiv)],
        Op::Pow => &[K::Binary(B::Pow)],
        Op::Max => &[K::Binary(B::Max)],
        Op::Min => &[K::Binary(B::Min)],
        Op::Neg => &[
            K::Unary(U::Neg),
            K::Const(C::CSub),
            K::Const(C::RsubF64),
            K::Binary(B::Sub),
        ],
        Op::Scale => &[
            K::Const(C::MulC),
            K::Const(C::CMul),
            K::Const(C::DivC),
            K::Const(C::MulF64),
            K::Binary(B::Mul),
            K::Binary(B::Div),
            K::MulAdd,
        ],
        Op::Shift => &[
            K::Const(C::AddC),
            K::Const(C::CAdd),
            K::Const(C::SubC),
            K::Const(C::CSub),
            K::Const(C::AddF64),
            K::Const(C::RsubF64),
            K::Binary(B::Add),
            K::Binary(B::Sub),
            K::MulAdd,
        ],
        Op::Square => &[K::Unary(U::Square)],
        Op::Powi => &[K::Powi],
        Op::Powf => &[K::Const(C::Powf)],
        Op::Exp => &[K::Unary(U::Exp)],
        Op::Ln => &[K::Unary(U::Ln)],
        Op::Sqrt => &[K::Unary(U::Sqrt)],
        Op::Sin => &[K::Unary(U::Sin)],
        Op::Cos => &[K::Unary(U::Cos)],
        Op::Tan => &[K::Unary(U::Tan)],
        Op::Tanh => &[K::Unary(U::Tanh)],
        Op::Sigmoid => &[K::Unary(U::Sigmoid)],
        Op::Relu => &[K::Unary(U::Relu)],
        Op::LeakyRelu => &[K::Const(C::LeakyRelu)],
        Op::Abs => &[K::Unary(U::Abs)],
        Op::Softplus => &[K::Unary(U::Softplus)],
    }
}

/// Whether instruction `kind` may write a statement labelled `op` (see [`exercised_by`]).
pub fn may_record(kind: Kind, op: Op) -> bool {
    exercised_by(op).contains(&kind)
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

fn operands<T: Copy>(slots: &[T], idx: &[u8; MAX_OPERANDS], n: u8) -> Vec<T> {
    let len = n as usize % (MAX_OPERANDS + 1);
    idx[..len]
        .iter()
        .map(|&i| slots[i as usize % slots.len()])
        .collect()
}

/// Runs the program on `inputs` (one per program input) and returns every result, inputs first.
pub fn run<T: Number>(p: &Program, inputs: &[T]) -> Vec<T> {
    let mut slots: Vec<T> = inputs.to_vec();
    for instr in p.instrs() {
        slots.push(step(&slots, instr));
    }
    slots
}

/// Runs only the first `n` instructions.
pub fn run_prefix<T: Number>(p: &Program, inputs: &[T], n: usize) -> Vec<T> {
    let mut slots: Vec<T> = inputs.to_vec();
    for instr in p.instrs().iter().take(n) {
        slots.push(step(&slots, instr));
    }
    slots
}

/// One instruction's result.
pub fn step<T: Number>(slots: &[T], instr: &Instr) -> T {
    let at = |i: u8| slots[i as usize % slots.len()];
    match *instr {
        Instr::Unary(op, a) => op.apply(at(a)),
        Instr::Binary(op, a, b) => op.apply(at(a), at(b)),
        Instr::Const(op, a, c) => {
            let x = at(a);
            let cf = c.get();
            let k = T::from_f64(cf);
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
                WithConst::MulF64 => x.mul_f64(cf),
                WithConst::AddF64 => x.add_f64(cf),
                WithConst::RsubF64 => x.rsub_f64(cf),
            }
        }
        Instr::Powi(a, n) => at(a).powi(n.get()),
        Instr::Sum(idx, n) => <T as Number>::sum(&operands(slots, &idx, n)),
        Instr::Dot(ia, ib, n) => T::dot(&operands(slots, &ia, n), &operands(slots, &ib, n)),
        Instr::Affine(iw, ix, b, n) => {
            T::affine(&operands(slots, &iw, n), &operands(slots, &ix, n), at(b))
        }
        Instr::MulAdd(x, a, b) => at(x).mul_add(at(a), at(b)),
    }
}

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

/// `v.id()`, checked: an id always names a statement that holds `v`'s value (a pending handle
/// with one partial of exactly 1, `x + 1` or `tan(710)`, once claimed its operand's statement;
/// pinned by `a_pending_handle_with_partial_one_is_not_its_operands_statement` in
/// `autograd-core/tests/fuzz_regressions.rs`).
pub fn statement_id<S: Scalar>(v: &Var<'_, S>) -> Option<NodeId> {
    let id = v.id()?;
    let tape = v.tape().expect("a handle with an id is on a tape");
    let node = tape.node(id).expect("an id names a statement");
    assert!(
        same(node.value, v.value()),
        "id {} names a statement holding {:?}, the handle holds {:?}",
        id.index(),
        node.value,
        v.value()
    );
    Some(id)
}

/// Same value or both NaN (NaN payloads may legitimately differ).
pub fn same<S: Scalar>(a: S, b: S) -> bool {
    let (x, y) = (a.to_f64(), b.to_f64());
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_but_leaf_is_exercised_and_every_instruction_records_one() {
        for &op in Op::ALL {
            assert_eq!(exercised_by(op).is_empty(), op == Op::Leaf, "{op:?}");
        }
        let (unary, binary) = (Unary::ALL, Binary::ALL);
        let with_const = [
            WithConst::AddC,
            WithConst::CAdd,
            WithConst::SubC,
            WithConst::CSub,
            WithConst::MulC,
            WithConst::CMul,
            WithConst::DivC,
            WithConst::CDiv,
            WithConst::Powf,
            WithConst::LeakyRelu,
            WithConst::MulF64,
            WithConst::AddF64,
            WithConst::RsubF64,
        ];
        let kinds = unary
            .map(Kind::Unary)
            .into_iter()
            .chain(binary.map(Kind::Binary))
            .chain(with_const.map(Kind::Const))
            .chain([Kind::Powi, Kind::Sum, Kind::Dot, Kind::Affine, Kind::MulAdd]);
        for kind in kinds {
            assert!(
                Op::ALL.iter().any(|&op| may_record(kind, op)),
                "{kind:?} records no operation"
            );
        }
    }
}
