//! Which instructions exercise which of the core's operations ([`exercised_by`]): matched on
//! [`Op`] exhaustively, so an operation added to the core and forgotten here fails to compile.

use autograd_core::Op;

use crate::{Binary, Kind, Unary, WithConst};

/// The instructions whose recording may write a statement labelled `op` (a statement is labelled
/// with the last operation applied to the handle it holds): the program generator's tie to the
/// core's table of operations. The `match` is exhaustive, without a wildcard, so an operation
/// added to the core and forgotten here fails to compile; the differential target checks, for
/// every statement a program writes, that the instruction that wrote it is listed here for the
/// statement's operation, so a wrong entry is found by fuzzing.
///
/// An operand without pending pairs (a constant: an empty `sum` or `dot` upstream; or a value a
/// cut left depending on nothing) turns `x + c`, `c - x`, `x * c` and `x / c` into the folded
/// `Shift`, `Neg` then `Shift`, and `Scale`; `mul_add` over at most two recorded values is
/// `x * a + b`.
pub fn exercised_by(op: Op) -> &'static [Kind] {
    use Binary as B;
    use Kind as K;
    use Unary as U;
    use WithConst as C;
    match op {
        // Only program inputs are leaves; no instruction makes one.
        Op::Leaf => &[],
        Op::Sum => &[K::Sum],
        Op::Dot => &[K::Dot, K::Affine, K::Layer],
        Op::MulAdd => &[K::MulAdd],
        Op::Add => &[K::Binary(B::Add), K::MulAdd],
        Op::Sub => &[K::Binary(B::Sub)],
        Op::Mul => &[K::Binary(B::Mul), K::MulAdd],
        Op::Div => &[K::Binary(B::Div), K::Const(C::CDiv)],
        Op::Pow => &[K::Binary(B::Pow)],
        Op::Max => &[K::Binary(B::Max)],
        Op::Min => &[K::Binary(B::Min)],
        Op::Atan2 => &[K::Binary(B::Atan2)],
        Op::Hypot => &[K::Binary(B::Hypot)],
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
        // `sin` and `cos` whose operand byte is odd go through `sin_cos` (`program::step`), which
        // writes both statements where the values are not finite, the unused one too.
        Op::Sin => &[K::Unary(U::Sin), K::Unary(U::Cos)],
        Op::Cos => &[K::Unary(U::Cos), K::Unary(U::Sin)],
        Op::Tan => &[K::Unary(U::Tan)],
        Op::Tanh => &[K::Unary(U::Tanh)],
        Op::Sigmoid => &[K::Unary(U::Sigmoid)],
        Op::Relu => &[K::Unary(U::Relu)],
        Op::LeakyRelu => &[K::Const(C::LeakyRelu)],
        Op::Abs => &[K::Unary(U::Abs)],
        Op::Softplus => &[K::Unary(U::Softplus)],
        Op::Atan => &[K::Unary(U::Atan)],
        Op::Asin => &[K::Unary(U::Asin)],
        Op::Acos => &[K::Unary(U::Acos)],
        Op::Sinh => &[K::Unary(U::Sinh)],
        Op::Cosh => &[K::Unary(U::Cosh)],
        Op::Log2 => &[K::Unary(U::Log2)],
        Op::Log10 => &[K::Unary(U::Log10)],
        Op::Exp2 => &[K::Unary(U::Exp2)],
        Op::Cbrt => &[K::Unary(U::Cbrt)],
    }
}

/// Whether instruction `kind` may write a statement labelled `op` of `operands` operands: where
/// it exercises `op`'s rule (see [`exercised_by`]), and a layer wherever it writes an input of
/// two pending pairs as a statement of those two (labelled with the operation that made that
/// input, whichever it was) before the layer statement.
pub fn may_record(kind: Kind, op: Op, operands: usize) -> bool {
    exercised_by(op).contains(&kind) || (kind == Kind::Layer && operands == 2 && op != Op::Leaf)
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
            .chain([
                Kind::Powi,
                Kind::Sum,
                Kind::Dot,
                Kind::Affine,
                Kind::MulAdd,
                Kind::Layer,
            ]);
        for kind in kinds {
            assert!(
                Op::ALL.iter().any(|&op| may_record(kind, op, 1)),
                "{kind:?} records no operation"
            );
        }
    }

    #[test]
    fn a_layer_may_write_its_inputs_of_two_pairs_whatever_made_them() {
        assert!(may_record(Kind::Layer, Op::Dot, 7));
        assert!(may_record(Kind::Layer, Op::Tanh, 2));
        assert!(may_record(Kind::Layer, Op::MulAdd, 2));
        assert!(!may_record(Kind::Layer, Op::Tanh, 1));
        assert!(!may_record(Kind::Layer, Op::Leaf, 2));
        assert!(!may_record(Kind::Binary(Binary::Add), Op::Tanh, 2));
        assert!(may_record(Kind::Binary(Binary::Add), Op::Add, 2));
    }
}
