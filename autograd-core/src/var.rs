//! [`Var`]: the `Copy` handle through which expressions are recorded.

use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::op::{self, Op};
use crate::tape::{NodeId, TapeView, INDEX_MASK, MAX_INLINE_EXPONENT, POISON};
use crate::{Number, Scalar, TapeError};

/// A value recorded on a tape (or a constant), used like a number: `(x1 * x2 + 1.0).relu()`.
///
/// A `Var` is `Copy` and carries its own value, so reading it never touches the tape. A `Var`
/// made by [`Number::from_f64`] / [`Var::constant`] is a constant that is not on any tape; it is
/// recorded only if it meets a recorded value in an operation that needs it.
///
/// ```
/// use autograd_core::Tape;
///
/// let tape = Tape::<f64, 64>::new();
/// let x = tape.var(0.5);
/// let y = 2.0 * x.sin() / (1.0 - x) + x.powi(3);
/// let dy = tape.backward(y)?.wrt(x);
/// let expected = 2.0 * (0.5f64.cos() * 0.5 + 0.5f64.sin()) / 0.25 + 3.0 * 0.25;
/// assert!((dy - expected).abs() < 1e-14);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Var<'t, S: Scalar> {
    tape: Option<&'t TapeView<S>>,
    index: u32,
    value: S,
}

impl<'t, S: Scalar> Var<'t, S> {
    #[inline(always)]
    pub(crate) fn on(tape: &'t TapeView<S>, index: u32, value: S) -> Self {
        Var {
            tape: Some(tape),
            index,
            value,
        }
    }

    /// A constant that belongs to no tape (derivative 0 with respect to everything).
    #[inline(always)]
    pub const fn constant(value: S) -> Self {
        Var {
            tape: None,
            index: POISON,
            value,
        }
    }

    /// The value.
    #[inline(always)]
    pub fn value(self) -> S {
        self.value
    }

    /// The node index, or `None` for a constant or a result that could not be recorded.
    pub fn id(self) -> Option<NodeId> {
        match self.tape {
            Some(_) if self.index != POISON => Some(NodeId(self.index)),
            _ => None,
        }
    }

    /// The tape this value is recorded on (`None` for a constant).
    pub fn tape(self) -> Option<&'t TapeView<S>> {
        self.tape
    }

    /// `true` if this value is a constant (on no tape).
    pub fn is_constant(self) -> bool {
        self.tape.is_none()
    }

    /// The fallible path: `Ok(self)` if this value is recorded, else the tape's error, so a
    /// computation can stop at the first failure with `?`.
    ///
    /// ```
    /// use autograd_core::{Tape, TapeError};
    /// let tape = Tape::<f32, 3>::new();
    /// let x = tape.try_var(2.0)?;
    /// let y = (x * x).recorded()?; // 2 nodes: x and x*x
    /// assert_eq!((x.exp() + y).recorded().unwrap_err(), TapeError::CapacityExceeded { capacity: 3 });
    /// # Ok::<(), TapeError>(())
    /// ```
    pub fn recorded(self) -> Result<Self, TapeError> {
        match self.tape {
            None => Err(TapeError::NotRecorded),
            Some(t) => t.index_of(self).map(|_| self),
        }
    }

    #[inline(always)]
    pub(crate) fn tape_ref(self) -> Option<&'t TapeView<S>> {
        self.tape
    }

    #[inline(always)]
    pub(crate) fn raw_index(self) -> u32 {
        self.index
    }

    /// This value's index on `tape`, recording it as a constant node if it is a constant.
    #[inline(always)]
    fn index_on(self, tape: &TapeView<S>) -> u32 {
        match self.tape {
            Some(_) => self.index,
            None => tape.push(self.value, Op::Const, 0, 0),
        }
    }

    /// The tape two operands share, or the failure to record on.
    #[inline(always)]
    fn common_tape(self, rhs: Self) -> Result<Option<&'t TapeView<S>>, &'t TapeView<S>> {
        match (self.tape, rhs.tape) {
            (Some(t), Some(u)) if !core::ptr::eq(t, u) => {
                t.fail(TapeError::ForeignVar);
                u.fail(TapeError::ForeignVar);
                Err(t)
            }
            (Some(t), _) | (None, Some(t)) => Ok(Some(t)),
            (None, None) => Ok(None),
        }
    }

    #[inline(always)]
    fn binary(self, rhs: Self, op: Op) -> Self {
        let value = op::binary_forward(op, self.value, rhs.value);
        match self.common_tape(rhs) {
            Ok(Some(t)) => {
                let (a, b) = (self.index_on(t), rhs.index_on(t));
                Var::on(t, t.push(value, op, a, b), value)
            }
            Ok(None) => Var::constant(value),
            Err(t) => Var::on(t, POISON, value),
        }
    }

    /// A one-input operation; `c` is the constant of `Offset`/`NegOffset`, `n` the `Powi` exponent.
    #[inline(always)]
    fn unary(self, op: Op, c: S, n: i32) -> Self {
        let value = op::unary_forward(op, self.value, c, n);
        match self.tape {
            Some(t) => Var::on(
                t,
                t.push(value, op, self.index, n as u32 & INDEX_MASK),
                value,
            ),
            None => Var::constant(value),
        }
    }

    /// `e^self`
    #[inline]
    pub fn exp(self) -> Self {
        self.unary(Op::Exp, S::ZERO, 0)
    }
    /// Natural logarithm.
    #[inline]
    pub fn ln(self) -> Self {
        self.unary(Op::Ln, S::ZERO, 0)
    }
    /// Square root.
    #[inline]
    pub fn sqrt(self) -> Self {
        self.unary(Op::Sqrt, S::ZERO, 0)
    }
    /// Sine.
    #[inline]
    pub fn sin(self) -> Self {
        self.unary(Op::Sin, S::ZERO, 0)
    }
    /// Cosine.
    #[inline]
    pub fn cos(self) -> Self {
        self.unary(Op::Cos, S::ZERO, 0)
    }
    /// Tangent.
    #[inline]
    pub fn tan(self) -> Self {
        self.unary(Op::Tan, S::ZERO, 0)
    }
    /// Hyperbolic tangent (derivative `1 - tanh^2`, exactly 0 where `tanh` saturates).
    #[inline]
    pub fn tanh(self) -> Self {
        self.unary(Op::Tanh, S::ZERO, 0)
    }
    /// Logistic sigmoid.
    #[inline]
    pub fn sigmoid(self) -> Self {
        self.unary(Op::Sigmoid, S::ZERO, 0)
    }
    /// `max(self, 0)`; derivative 0 at 0.
    #[inline]
    pub fn relu(self) -> Self {
        self.unary(Op::Relu, S::ZERO, 0)
    }
    /// `|self|`; derivative 0 at 0.
    #[inline]
    pub fn abs(self) -> Self {
        self.unary(Op::Abs, S::ZERO, 0)
    }
    /// `ln(1 + e^self)`, stable for large `|self|`.
    #[inline]
    pub fn softplus(self) -> Self {
        self.unary(Op::Softplus, S::ZERO, 0)
    }
    /// `self^n` for an integer `n`.
    #[inline]
    pub fn powi(self, n: i32) -> Self {
        if n.unsigned_abs() > MAX_INLINE_EXPONENT as u32 {
            // Too large to store in the node: recorded as `powf` with the exponent in a constant
            // node, but with `powi`'s value, so the value is the same as in every other mode (in
            // f32, `x.pow(n as f32)` could even flip the sign: `n as f32` may lose its parity).
            let value = self.value.powi(n);
            return match self.tape {
                Some(t) => {
                    let c = Var::constant(S::from_f64(n as f64)).index_on(t);
                    Var::on(t, t.push(value, Op::Powf, self.index, c), value)
                }
                None => Var::constant(value),
            };
        }
        self.unary(Op::Powi, S::ZERO, n)
    }
    /// `self^c` for a constant `c`.
    #[inline]
    pub fn powf(self, c: S) -> Self {
        self.binary(Var::constant(c), Op::Powf)
    }
    /// `self^y`, differentiable in both; `d/dy` at `self = 0, y >= 0` is taken as 0.
    #[inline]
    pub fn pow(self, y: Self) -> Self {
        self.binary(y, Op::Pow)
    }
    /// Leaky ReLU: `self` if positive, else `slope * self`; derivative `slope` at 0.
    #[inline]
    pub fn leaky_relu(self, slope: S) -> Self {
        self.binary(Var::constant(slope), Op::LeakyRelu)
    }
    /// The larger of two; equal values split the gradient 0.5/0.5.
    #[inline]
    pub fn max(self, other: Self) -> Self {
        self.binary(other, Op::Max)
    }
    /// The smaller of two; equal values split the gradient 0.5/0.5.
    #[inline]
    pub fn min(self, other: Self) -> Self {
        self.binary(other, Op::Min)
    }

    /// Sum of a slice (`len - 1` additions; the constant 0 for an empty slice).
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 8>::new();
    /// let xs = [tape.var(1.0), tape.var(2.0), tape.var(3.0)];
    /// let s = Var::sum(&xs);
    /// assert_eq!(s.value(), 6.0);
    /// assert_eq!(tape.backward(s)?.wrt(xs[1]), 1.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn sum(xs: &[Self]) -> Self {
        match xs.split_first() {
            Some((first, rest)) => rest.iter().fold(*first, |acc, x| acc + *x),
            None => Var::constant(S::ZERO),
        }
    }

    /// Dot product `sum_i a[i] * b[i]`.
    ///
    /// # Errors
    /// [`TapeError::LengthMismatch`] if the slices differ in length.
    ///
    /// ```
    /// use autograd_core::{Tape, Var};
    /// let tape = Tape::<f64, 16>::new();
    /// let w = [tape.var(0.5), tape.var(-1.0)];
    /// let x = [tape.var(4.0), tape.var(3.0)];
    /// let y = Var::dot(&w, &x)?;
    /// assert_eq!(y.value(), -1.0);
    /// assert_eq!(tape.backward(y)?.wrt(w[0]), 4.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn dot(a: &[Self], b: &[Self]) -> Result<Self, TapeError> {
        if a.len() != b.len() {
            return Err(TapeError::LengthMismatch {
                left: a.len(),
                right: b.len(),
            });
        }
        let mut terms = a.iter().zip(b).map(|(x, y)| *x * *y);
        Ok(match terms.next() {
            Some(first) => terms.fold(first, |acc, t| acc + t),
            None => Var::constant(S::ZERO),
        })
    }
}

impl<S: Scalar> fmt::Debug for Var<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.id() {
            Some(id) => write!(f, "Var(#{}: {:?})", id.index(), self.value),
            None if self.tape.is_none() => write!(f, "Var(const {:?})", self.value),
            None => write!(f, "Var(unrecorded {:?})", self.value),
        }
    }
}

impl<S: Scalar> fmt::Display for Var<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

// ---- Operators. Each pair of operand kinds forwards to one rule. ----

impl<'t, S: Scalar> Add for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        if rhs.tape.is_none() {
            return self.unary(Op::Offset, rhs.value, 0);
        }
        if self.tape.is_none() {
            return rhs.unary(Op::Offset, self.value, 0);
        }
        self.binary(rhs, Op::Add)
    }
}

impl<'t, S: Scalar> Sub for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        if rhs.tape.is_none() {
            return self.unary(Op::Offset, -rhs.value, 0);
        }
        if self.tape.is_none() {
            return rhs.unary(Op::NegOffset, self.value, 0);
        }
        self.binary(rhs, Op::Sub)
    }
}

impl<'t, S: Scalar> Mul for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        self.binary(rhs, Op::Mul)
    }
}

impl<'t, S: Scalar> Div for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn div(self, rhs: Self) -> Self {
        self.binary(rhs, Op::Div)
    }
}

impl<'t, S: Scalar> Neg for Var<'t, S> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.unary(Op::Neg, S::ZERO, 0)
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

impl<'t, S: Scalar> Number for Var<'t, S> {
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
}
