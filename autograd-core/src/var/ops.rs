//! `Var`'s operators (each pair of operand kinds forwards to one rule; a macro writes the
//! scalar-operand and assigning forms) and its `Number` impl.
//!
//! Every operation is inlined into the function that records it (`inline(always)`: the handle's
//! fields stay in registers and constants fold), unless the tape's scalar is
//! [`OUTLINED`](crate::Scalar::OUTLINED) (a tape of [`Outlined`](crate::Outlined), or any tape
//! with the cargo feature `outlined-ops`): then each operation between handles is a call, and
//! each one-input operation computes its value and derivative inline and calls for the rest
//! (`outlined.rs`). A straight-line function of thousands of operations then compiles in about
//! a second instead of minutes (the inlined operations' branches make LLVM's optimisation of
//! one long function superlinear), and records at a higher cost per operation; PERFORMANCE.md
//! has both, measured.

use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::op::Op;
use crate::outlined::outlined_binary;
use crate::{Number, Scalar};

use super::Var;

impl<'t, S: Scalar> Add for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        outlined_binary!(S, self, rhs, Add, Shift, Shift);
        self.binary_labelled(Op::Add, rhs, [Op::Shift, Op::Shift])
    }
}

impl<'t, S: Scalar> Sub for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        outlined_binary!(S, self, rhs, Sub, Shift, Shift);
        self.binary_labelled(Op::Sub, rhs, [Op::Shift, Op::Shift])
    }
}

impl<'t, S: Scalar> Mul for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        outlined_binary!(S, self, rhs, Mul, Scale, Scale);
        self.binary_labelled(Op::Mul, rhs, [Op::Scale, Op::Scale])
    }
}

impl<'t, S: Scalar> Div for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn div(self, rhs: Self) -> Self {
        outlined_binary!(S, self, rhs, Div, Scale, Div);
        self.binary_labelled(Op::Div, rhs, [Op::Scale, Op::Div])
    }
}

impl<'t, S: Scalar> Neg for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.negate()
    }
}

/// `Var op S`, `S op Var` (for `f32` and `f64`) and the assigning forms, all forwarding to the
/// `Var op Var` rules above.
macro_rules! scalar_operand_ops {
    ($($Trait:ident $method:ident $Assign:ident $assign:ident),*) => {$(
        impl<'t, S: Scalar> $Trait<S> for Var<'t, S> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, rhs: S) -> Self {
                $Trait::$method(self, Var::constant(rhs))
            }
        }
        impl<'t> $Trait<Var<'t, f64>> for f64 {
            type Output = Var<'t, f64>;
            #[inline(always)]
            fn $method(self, rhs: Var<'t, f64>) -> Var<'t, f64> {
                $Trait::$method(Var::constant(self), rhs)
            }
        }
        impl<'t> $Trait<Var<'t, f32>> for f32 {
            type Output = Var<'t, f32>;
            #[inline(always)]
            fn $method(self, rhs: Var<'t, f32>) -> Var<'t, f32> {
                $Trait::$method(Var::constant(self), rhs)
            }
        }
        impl<'t, S: Scalar> $Assign for Var<'t, S> {
            #[inline(always)]
            fn $assign(&mut self, rhs: Self) {
                *self = $Trait::$method(*self, rhs);
            }
        }
        impl<'t, S: Scalar> $Assign<S> for Var<'t, S> {
            #[inline(always)]
            fn $assign(&mut self, rhs: S) {
                *self = $Trait::$method(*self, Var::constant(rhs));
            }
        }
    )*};
}

scalar_operand_ops!(
    Add add AddAssign add_assign,
    Sub sub SubAssign sub_assign,
    Mul mul MulAssign mul_assign,
    Div div DivAssign div_assign
);

/// Handles compare their values (as dual numbers compare their real parts): `x < y` chooses a
/// branch, and the branch taken is what gets differentiated.
impl<S: Scalar> PartialEq for Var<'_, S> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<S: Scalar> PartialOrd for Var<'_, S> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

/// `xs.iter().sum()`: a fold of `+` from the constant 0 (for one statement over many terms use
/// [`Var::sum`]).
impl<'t, S: Scalar> core::iter::Sum for Var<'t, S> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Var::constant(S::ZERO), |a, b| a + b)
    }
}

impl<'a, 't, S: Scalar> core::iter::Sum<&'a Var<'t, S>> for Var<'t, S> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Var::constant(S::ZERO), |a, b| a + *b)
    }
}

/// `xs.iter().product()`: a fold of `*` from the constant 1.
impl<'t, S: Scalar> core::iter::Product for Var<'t, S> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Var::constant(S::ONE), |a, b| a * b)
    }
}

impl<'a, 't, S: Scalar> core::iter::Product<&'a Var<'t, S>> for Var<'t, S> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Var::constant(S::ONE), |a, b| a * *b)
    }
}

impl<'t, S: Scalar> Number for Var<'t, S> {
    #[inline(always)]
    fn statement<E: crate::Statement<L>, const L: usize>(e: &E, leaves: [&Self; L]) -> Self {
        Var::of_statement(e, leaves)
    }
    #[inline(always)]
    fn from_f64(c: f64) -> Self {
        Var::constant(S::from_f64(c))
    }
    #[inline(always)]
    fn to_f64(&self) -> f64 {
        self.value.to_f64()
    }
    #[inline(always)]
    fn exp(self) -> Self {
        Var::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        Var::ln(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Var::sqrt(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        Var::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        Var::cos(self)
    }
    #[inline(always)]
    fn sin_cos(self) -> (Self, Self) {
        Var::sin_cos(self)
    }
    #[inline(always)]
    fn tan(self) -> Self {
        Var::tan(self)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        Var::tanh(self)
    }
    #[inline(always)]
    fn sigmoid(self) -> Self {
        Var::sigmoid(self)
    }
    #[inline(always)]
    fn relu(self) -> Self {
        Var::relu(self)
    }
    #[inline(always)]
    fn leaky_relu(self, slope: f64) -> Self {
        Var::leaky_relu(self, S::from_f64(slope))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Var::abs(self)
    }
    #[inline(always)]
    fn softplus(self) -> Self {
        Var::softplus(self)
    }
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        Var::powi(self, n)
    }
    #[inline(always)]
    fn powf(self, c: f64) -> Self {
        Var::powf(self, S::from_f64(c))
    }
    #[inline(always)]
    fn pow(self, y: Self) -> Self {
        Var::pow(self, y)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        Var::max(self, other)
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Var::min(self, other)
    }
    #[inline(always)]
    fn atan(self) -> Self {
        Var::atan(self)
    }
    #[inline(always)]
    fn asin(self) -> Self {
        Var::asin(self)
    }
    #[inline(always)]
    fn acos(self) -> Self {
        Var::acos(self)
    }
    #[inline(always)]
    fn sinh(self) -> Self {
        Var::sinh(self)
    }
    #[inline(always)]
    fn cosh(self) -> Self {
        Var::cosh(self)
    }
    #[inline(always)]
    fn log2(self) -> Self {
        Var::log2(self)
    }
    #[inline(always)]
    fn log10(self) -> Self {
        Var::log10(self)
    }
    #[inline(always)]
    fn exp2(self) -> Self {
        Var::exp2(self)
    }
    #[inline(always)]
    fn cbrt(self) -> Self {
        Var::cbrt(self)
    }
    #[inline(always)]
    fn atan2(self, x: Self) -> Self {
        Var::atan2(self, x)
    }
    #[inline(always)]
    fn hypot(self, other: Self) -> Self {
        Var::hypot(self, other)
    }
    #[inline(always)]
    fn square(self) -> Self {
        Var::square(self)
    }
    #[inline(always)]
    fn mul_f64(self, c: f64) -> Self {
        Var::scale(self, S::from_f64(c))
    }
    #[inline(always)]
    fn add_f64(self, c: f64) -> Self {
        Var::shift(self, S::from_f64(c))
    }
    #[inline(always)]
    fn rsub_f64(self, c: f64) -> Self {
        self.negate().shift(S::from_f64(c))
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Var::mul_add(self, a, b)
    }
    #[inline]
    fn sum(xs: &[Self]) -> Self {
        Var::sum(xs)
    }
    #[inline]
    fn dot(a: &[Self], b: &[Self]) -> Self {
        let n = a.len().min(b.len());
        Var::dot(&a[..n], &b[..n]).unwrap_or(Var::constant(S::ZERO))
    }
    #[inline]
    fn affine(w: &[Self], x: &[Self], b: Self) -> Self {
        let n = w.len().min(x.len());
        Var::affine(&w[..n], &x[..n], b).unwrap_or(Var::constant(S::ZERO))
    }
    #[inline]
    fn affine_layer(params: &[Self], x: &[Self], y: &mut [Self]) {
        let m = y.len().min(params.len() / (x.len() + 1));
        let (params, y) = (&params[..m * (x.len() + 1)], &mut y[..m]);
        if Var::affine_layer(params, x, y).is_err() {
            // Unreachable: the lengths were just matched.
            y.fill(Var::constant(S::ZERO));
        }
    }
}
