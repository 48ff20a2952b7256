//! The instruction set: one-input, two-input and constant-operand operations, powers and the
//! n-ary statements, each an [`Instr`] with its operands' slots, and its [`Kind`] without them.

use arbitrary::Arbitrary;

use crate::{Value, MAX_OPERANDS};

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
    /// `Number::affine_layer` over the first `n` operands `x` and `m = 1 + rows % MAX_ROWS`
    /// rows of `x.len() + 1` parameters, the results from `start` on (consecutive leaves when
    /// `start` is 0 and the program has enough inputs, which makes it one layer statement on a
    /// tape); its result is row `pick % m`, the others written and left unused.
    Layer([u8; MAX_OPERANDS], u8, u8, u8, u8),
}

/// The most rows of a [`Instr::Layer`].
pub const MAX_ROWS: usize = 3;

/// A layer's rows: `m` and, for each, its weights' and bias's slots (indices into `len` results).
pub(crate) fn layer_rows(len: usize, n: u8, start: u8, rows: u8) -> (usize, Vec<usize>) {
    let k = n as usize % (MAX_OPERANDS + 1);
    let m = 1 + rows as usize % MAX_ROWS;
    let params = (0..m * (k + 1))
        .map(|q| (start as usize + q) % len)
        .collect();
    (m, params)
}

/// The slots of the row an [`Instr::Layer`] returns: its `k` weights, then its bias.
pub(crate) fn picked_row(len: usize, n: u8, start: u8, rows: u8, pick: u8) -> Vec<usize> {
    let k = n as usize % (MAX_OPERANDS + 1);
    let (m, params) = layer_rows(len, n, start, rows);
    params[(pick as usize % m) * (k + 1)..][..k + 1].to_vec()
}

/// An instruction without its operands: what [`exercised_by`](crate::exercised_by) maps the core's operations to.
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
    Layer,
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
            Instr::Layer(..) => Kind::Layer,
        }
    }
}

/// The operands an n-ary instruction names: the first `n % (MAX_OPERANDS + 1)` of `idx`, each
/// wrapped into `slots`.
pub(crate) fn operands<T: Copy>(slots: &[T], idx: &[u8; MAX_OPERANDS], n: u8) -> Vec<T> {
    let len = n as usize % (MAX_OPERANDS + 1);
    idx[..len]
        .iter()
        .map(|&i| slots[i as usize % slots.len()])
        .collect()
}
