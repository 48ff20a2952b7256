//! [`Program`]: a straight-line program decoded from fuzz input, and running it on any
//! [`Number`] (plain scalars, tape handles, duals).

use arbitrary::Arbitrary;
use autograd_core::{Number, Scalar};

use crate::instr::{layer_rows, operands};
use crate::{Instr, Unary, Value, WithConst, MAX_INPUTS, MAX_INSTRS};

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
        // `sin` and `cos` whose operand byte is odd go through `Number::sin_cos`, which must give
        // the same result bit for bit: every mode, the reference and the Q16 checks check it too.
        Instr::Unary(Unary::Sin, a) if a % 2 == 1 => at(a).sin_cos().0,
        Instr::Unary(Unary::Cos, a) if a % 2 == 1 => at(a).sin_cos().1,
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
        Instr::Layer(ix, n, start, rows, pick) => {
            let (m, params) = layer_rows(slots.len(), n, start, rows);
            let params: Vec<T> = params.iter().map(|&i| slots[i]).collect();
            let mut y = vec![T::zero(); m];
            T::affine_layer(&params, &operands(slots, &ix, n), &mut y);
            y[pick as usize % m]
        }
    }
}
