//! [`Outlined`]: a scalar that records every operation through a call, for one tape.
//!
//! A `Var`'s operations are inlined into the function that records them: its handles stay in
//! registers and constants fold, but a straight-line function of thousands of operations then
//! takes LLVM far longer to build (PERFORMANCE.md, "Compile time"). A tape of `Outlined<S>`
//! records the same statements with the same values, and each one-input operation and each
//! operator between handles is a call instead: such a function builds many times faster. The
//! choice is the tape's type, so a generated model can take it while the rest of the program
//! keeps inlined operations (the cargo feature `outlined-ops` makes every tape do so).

use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::op::Op;
use crate::{Number, Scalar, Var};

/// A value of `S` on a tape whose operations are calls: `Tape::<Outlined<f64>, N>` records
/// what `Tape::<f64, N>` does, bit for bit, with every one-input operation and every operator
/// between handles out of line, so a generic function of thousands of operations builds many
/// times faster on it, and its gradients take more instructions (both measured by `cargo
/// xtask bench`, in PERFORMANCE.md and the README). As a plain number it is `S` in a wrapper:
/// every operation is `S`'s.
///
/// ```
/// use autograd_core::{gradient_reverse, Number, Outlined, Tape};
///
/// fn f<T: Number>(x: &[T]) -> T {
///     (x[0] * x[1]).sin() + x[1].exp() * x[2]
/// }
/// # struct F;
/// # impl autograd_core::Function for F {
/// #     fn eval<T: Number>(&self, x: &[T]) -> T { f(x) }
/// # }
/// let at = [0.5, 1.0, 1.5];
/// let mut g = [Outlined(0.0); 3];
/// let mut tape = Tape::<Outlined<f64>, 64>::new();
/// let y = gradient_reverse(&F, &mut tape, &at.map(Outlined), &mut g)?;
///
/// let mut expected = [0.0; 3];
/// let mut inlined = Tape::<f64, 64>::new();
/// assert_eq!(y.0, gradient_reverse(&F, &mut inlined, &at, &mut expected)?);
/// assert_eq!(g.map(|d| d.0), expected);
///
/// // Handles on the tape itself: values and gradients are `Outlined` too.
/// let x = tape.var(Outlined(2.0));
/// let grads = tape.backward(x.sin() * x)?;
/// assert_eq!(grads.wrt(x).0, Number::cos(2.0) * 2.0 + Number::sin(2.0));
/// # Ok::<(), autograd_core::Error>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, PartialOrd)]
#[repr(transparent)]
pub struct Outlined<S>(pub S);

impl<S: fmt::Debug> fmt::Debug for Outlined<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<S: fmt::Display> fmt::Display for Outlined<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

macro_rules! operators {
    ($($Trait:ident $method:ident $Assign:ident $assign:ident),*) => {$(
        impl<S: Scalar> $Trait for Outlined<S> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                Outlined($Trait::$method(self.0, rhs.0))
            }
        }
        impl<S: Scalar> $Assign for Outlined<S> {
            #[inline(always)]
            fn $assign(&mut self, rhs: Self) {
                $Assign::$assign(&mut self.0, rhs.0);
            }
        }
    )*};
}

operators!(
    Add add AddAssign add_assign,
    Sub sub SubAssign sub_assign,
    Mul mul MulAssign mul_assign,
    Div div DivAssign div_assign
);

impl<S: Scalar> Neg for Outlined<S> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Outlined(-self.0)
    }
}

/// A fold of `+` from 0, as `S`'s.
impl<S: Scalar> core::iter::Sum for Outlined<S> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        Outlined(iter.map(|x| x.0).sum())
    }
}

impl<'a, S: Scalar> core::iter::Sum<&'a Outlined<S>> for Outlined<S> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        Outlined(iter.map(|x| x.0).sum())
    }
}

/// A fold of `*` from 1, as `S`'s.
impl<S: Scalar> core::iter::Product for Outlined<S> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        Outlined(iter.map(|x| x.0).product())
    }
}

impl<'a, S: Scalar> core::iter::Product<&'a Outlined<S>> for Outlined<S> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        Outlined(iter.map(|x| x.0).product())
    }
}

/// `S`'s methods that take and return values only (the slice-taking ones keep `Number`'s
/// loops, which `f32`, `f64`, `Q16` and the dual numbers do not replace either).
macro_rules! delegate {
    ($($method:ident($($arg:ident: $T:tt),*)),* $(,)?) => {$(
        #[inline(always)]
        fn $method(self $(, $arg: $T)*) -> Self {
            Outlined(Number::$method(self.0 $(, delegate!(@arg $arg: $T))*))
        }
    )*};
    (@arg $arg:ident: Self) => { $arg.0 };
    (@arg $arg:ident: $T:tt) => { $arg };
}

impl<S: Scalar> Number for Outlined<S> {
    #[inline(always)]
    fn from_f64(c: f64) -> Self {
        Outlined(S::from_f64(c))
    }
    #[inline(always)]
    fn to_f64(&self) -> f64 {
        self.0.to_f64()
    }
    #[inline(always)]
    fn zero() -> Self {
        Outlined(S::zero())
    }
    #[inline(always)]
    fn one() -> Self {
        Outlined(S::one())
    }
    delegate!(
        exp(), ln(), sqrt(), sin(), cos(), tan(), tanh(), sigmoid(), relu(),
        leaky_relu(slope: f64), abs(), softplus(), powi(n: i32), powf(c: f64), pow(y: Self),
        max(other: Self), min(other: Self), atan(), asin(), acos(), sinh(), cosh(), log2(),
        log10(), exp2(), cbrt(), atan2(x: Self), hypot(other: Self), square(),
        mul_f64(c: f64), add_f64(c: f64), rsub_f64(c: f64), mul_add(a: Self, b: Self),
    );
    #[inline(always)]
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.0.sin_cos();
        (Outlined(s), Outlined(c))
    }
}

crate::tape::inline_layout!([S: Scalar] Outlined<S>);

impl<S: Scalar> Scalar for Outlined<S> {
    const ZERO: Self = Outlined(S::ZERO);
    const ONE: Self = Outlined(S::ONE);
    const EPSILON: f64 = S::EPSILON;
    const COSTLY_PRODUCT: bool = S::COSTLY_PRODUCT;
    const SHRINKING_PRODUCT: bool = S::SHRINKING_PRODUCT;
    const OUTLINED: bool = true;

    #[inline(always)]
    fn ln_1p(self) -> Self {
        Outlined(self.0.ln_1p())
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        self.0.is_finite()
    }
    #[inline(always)]
    fn is_zero(self) -> bool {
        self.0.is_zero()
    }
}

/// `x op y` between handles, out of line, for a tape whose scalar is
/// [`OUTLINED`](Scalar::OUTLINED): operation `OP`, labelled `C0` or `C1` where an operand is a
/// constant (see `Var::combine_labelled`). One copy per operator.
#[inline(never)]
pub(crate) fn binary<'t, S: Scalar, const OP: u8, const C0: u8, const C1: u8>(
    x: Var<'t, S>,
    y: Var<'t, S>,
) -> Var<'t, S> {
    x.binary_labelled(Op::from_code(OP), y, [Op::from_code(C0), Op::from_code(C1)])
}

/// `return x op y` through [`binary`] where the tape's scalar `S` is
/// [`OUTLINED`](Scalar::OUTLINED): `outlined_binary!(S, x, y, Op, Constant0, Constant1)`, the
/// operation and the labels of its constant forms by their names in [`Op`].
macro_rules! outlined_binary {
    ($S:ident, $x:expr, $y:expr, $op:ident, $c0:ident, $c1:ident) => {
        if <$S as $crate::Scalar>::OUTLINED {
            return $crate::outlined::binary::<
                $S,
                { $crate::Op::$op as u8 },
                { $crate::Op::$c0 as u8 },
                { $crate::Op::$c1 as u8 },
            >($x, $y);
        }
    };
}
pub(crate) use outlined_binary;
