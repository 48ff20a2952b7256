//! The table of operations: each operation's forward rule and, beside it, its local derivative,
//! written once. Everything else is generated from this table: the [`Op`] enum and its names,
//! the `Var` methods of the one-input operations, and [`Op::ALL`]. The harnesses match on [`Op`]
//! exhaustively (`xtask check`'s `check/ops.rs::checked_by`, `fuzz`'s `exercised_by`, the
//! firmware's `checks.rs::exercised_by`), so an operation added here and forgotten there fails
//! to compile.
//!
//! The tape stores local derivatives, not operations (Jacobian taping): a rule runs once, while
//! recording, and the backward sweep only multiplies and adds. The dual numbers keep their own
//! rules (`dual.rs`), written independently, so that the modes check one another.

use crate::{math, Scalar};

/// Declares the table. Each one-input row is
/// `Variant "name" fn method(x [, parameter: Type]) [let pattern = shared;] = value, derivative;`
/// where `derivative` may use `x`, the parameter and the output `y`, and both may use what the
/// optional `let` binds: one computation for both (`sin` and `cos` from one `sin_cos` call, which
/// shares the argument reduction).
macro_rules! operations {
    (
        special { $( $(#[$sdoc:meta])* $S:ident $sname:literal $sarity:literal; )* }
        binary { $( $(#[$bdoc:meta])* $B:ident $bname:literal; )* }
        unary { $(
            $(#[$udoc:meta])*
            $U:ident $uname:literal $vis:vis fn $method:ident($x:ident $(, $p:ident: $P:ty)?)
                $(let $shared:pat = $both:expr;)? = $value:expr, |$y:ident| $deriv:expr;
        )* }
    ) => {
        /// An operation, as recorded on a tape (the label of a statement) and as listed by the
        /// harnesses that check every operation.
        ///
        /// ```
        /// use autograd_core::Op;
        /// assert_eq!(Op::ALL[0], Op::Leaf);
        /// assert!(Op::ALL.contains(&Op::Softplus));
        /// assert_eq!(format!("{}", Op::Ln), "ln");
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Op {
            $( $(#[$sdoc])* $S, )*
            $( $(#[$bdoc])* $B, )*
            $( $(#[$udoc])* $U, )*
        }

        impl Op {
            /// Every operation, in declaration order.
            ///
            /// ```
            /// use autograd_core::Op;
            /// // Every operation has a name of its own.
            /// for (i, a) in Op::ALL.iter().enumerate() {
            ///     assert!(Op::ALL[..i].iter().all(|b| b.name() != a.name()));
            /// }
            /// ```
            pub const ALL: &'static [Op] = &[$(Op::$S,)* $(Op::$B,)* $(Op::$U,)*];

            /// Short name used in graph exports and error messages.
            ///
            /// ```
            /// use autograd_core::Op;
            /// assert_eq!(Op::Tanh.name(), "tanh");
            /// assert_eq!(Op::Mul.to_string(), "*");
            /// ```
            pub const fn name(self) -> &'static str {
                match self {
                    $( Op::$S => $sname, )*
                    $( Op::$B => $bname, )*
                    $( Op::$U => $uname, )*
                }
            }

            /// Number of operands of the operation as a user writes it: 0 for leaves, 2 for the
            /// binary operations and `mul_add`'s products, 1 for the others (`sum` and `dot`
            /// take slices).
            ///
            /// ```
            /// use autograd_core::Op;
            /// assert_eq!((Op::Leaf.arity(), Op::Sin.arity(), Op::Pow.arity()), (0, 1, 2));
            /// ```
            pub const fn arity(self) -> usize {
                match self {
                    $( Op::$S => $sarity, )*
                    $( Op::$B => 2, )*
                    $( Op::$U => 1, )*
                }
            }

            /// The operation with code `code` (as stored on the tape); `Leaf` for an unknown code.
            pub(crate) const fn from_code(code: u8) -> Op {
                let mut i = 0;
                while i < Op::ALL.len() {
                    if Op::ALL[i] as u8 == code {
                        return Op::ALL[i];
                    }
                    i += 1;
                }
                Op::Leaf
            }
        }

        impl<'t, S: Scalar> crate::Var<'t, S> {
            $(
                $(#[$udoc])*
                // (A call on a tape of `Outlined` scalars: `outlined.rs`.)
                #[inline(always)]
                $vis fn $method(self $(, $p: $P)?) -> Self {
                    // (The row written out here as in `rules`, not a call of it: by callgrind
                    // on `examples/profile`, the call moved LLVM's code for the moons loss from
                    // 949,539 to 975,661 instructions a gradient, and the `Trainer`'s step from
                    // 479,476 to 500,670.)
                    if S::OUTLINED {
                        // The same row, through `rules`, in a function of its own
                        // (`outlined.rs`).
                        #[inline(never)]
                        fn outlined<'t, S: Scalar>(
                            v: crate::Var<'t, S> $(, $p: $P)?
                        ) -> crate::Var<'t, S> {
                            let (y, d) = rules::$method(v.value() $(, $p)?);
                            v.chain(Op::$U, y, d)
                        }
                        return outlined(self $(, $p)?);
                    }
                    let $x = self.value();
                    $(let $shared = $both;)?
                    let $y: S = $value;
                    let d: S = $deriv;
                    self.chain(Op::$U, $y, d)
                }
            )*
        }

        /// Each one-input operation's rule on plain scalars, `(value, local derivative)`: its
        /// row of the table, as [`Var`](crate::Var)'s method records it, for the statements of
        /// `stmt!` (crate `autograd-macros`) to differentiate by; [`binary`] is the two-input
        /// operations' rule.
        ///
        /// ```
        /// use autograd_core::rules;
        /// assert_eq!(rules::square(3.0_f64), (9.0, 6.0));
        /// assert_eq!(rules::tanh(0.0_f64), (0.0, 1.0));
        /// ```
        pub mod rules {
            #[allow(unused_imports)]
            use super::*;
            pub use super::binary;
            $(
                $(#[$udoc])*
                #[inline(always)]
                pub fn $method<S: Scalar>($x: S $(, $p: $P)?) -> (S, S) {
                    $(let $shared = $both;)?
                    let $y: S = $value;
                    let d: S = $deriv;
                    ($y, d)
                }
            )*
        }
    };
}

operations! {
    special {
        /// An independent variable (an input or a parameter).
        Leaf "leaf" 0;
        /// `a_1 + a_2 + ...`, one statement for a whole slice.
        Sum "sum" 1;
        /// `a_1 b_1 + a_2 b_2 + ...`, one statement for a whole dot product.
        Dot "dot" 1;
        /// `a b + c`, one statement.
        MulAdd "mul_add" 3;
    }
    binary {
        /// `x + y`
        Add "+";
        /// `x - y`
        Sub "-";
        /// `x * y`
        Mul "*";
        /// `x / y`
        Div "/";
        /// `x ^ y`, both differentiable.
        Pow "pow";
        /// `max(x, y)`; equal arguments split the gradient 0.5/0.5.
        Max "max";
        /// `min(x, y)`; equal arguments split the gradient 0.5/0.5.
        Min "min";
        /// `atan2(y, x)`, the angle of the point `(x, y)` (the receiver is `y`, as in `f64::atan2`);
        /// both partials 0 at the origin.
        Atan2 "atan2";
        /// `sqrt(x^2 + y^2)` without overflow; both partials 0 at the origin.
        Hypot "hypot";
    }
    unary {
        /// `-x`
        Neg "neg" pub(crate) fn negate(x) = -x, |y| -S::ONE;
        /// `c x` for a constant `c` (folded into the operand's partials: it never costs a slot).
        Scale "*c" pub fn scale(x, c: S) = x * c, |y| c;
        /// `x + c` for a constant `c` (folded: it never costs a slot).
        Shift "+c" pub fn shift(x, c: S) = x + c, |y| S::ONE;
        /// `x^2`
        Square "square" pub fn square(x) = x * x, |y| x + x;
        /// `x^n` for an integer `n`; `n x^(n-1)`, with `n = 0` the constant 1 (no `0 * inf`).
        Powi "powi" pub fn powi(x, n: i32) = x.powi(n), |y| match (n, n.checked_sub(1)) {
            (0, _) => S::ZERO,
            (1, _) => S::ONE,
            (_, Some(m)) => S::from_f64(n as f64) * x.powi(m),
            (_, None) => S::from_f64(n as f64) * y / x,
        };
        /// `x^c` for a constant `c`; derivative `c x^(c-1)` (0 for `c = 0`), at a negative base
        /// `c y / x` so its sign comes from the value.
        Powf "powf" pub fn powf(x, c: S) = x.pow(c), |y| powf_derivative(x, c, y);
        /// `e^x`
        Exp "exp" pub fn exp(x) = x.exp(), |y| y;
        /// Natural logarithm.
        Ln "ln" pub fn ln(x) = x.ln(), |y| S::ONE / x;
        /// Square root.
        Sqrt "sqrt" pub fn sqrt(x) = x.sqrt(), |y| S::from_f64(0.5) / y;
        /// Sine.
        Sin "sin" pub fn sin(x) let (s, c) = x.sin_cos(); = s, |y| c;
        /// Cosine.
        Cos "cos" pub fn cos(x) let (s, c) = x.sin_cos(); = c, |y| -s;
        /// Tangent.
        Tan "tan" pub fn tan(x) = x.tan(), |y| S::ONE + y * y;
        /// Hyperbolic tangent (derivative `1 - tanh^2`, exactly 0 where `tanh` saturates).
        Tanh "tanh" pub fn tanh(x) = x.tanh(), |y| S::ONE - y * y;
        /// Logistic sigmoid (derivative `s (1 - s)` from the output: 0, not NaN, where it saturates).
        Sigmoid "sigmoid" pub fn sigmoid(x) = math::sigmoid(x), |y| y * (S::ONE - y);
        /// `max(x, 0)`; derivative 0 at 0.
        Relu "relu" pub fn relu(x) = math::relu(x), |y| if x > S::ZERO { S::ONE } else { S::ZERO };
        /// Leaky ReLU: `x` if positive, else `slope x`; derivative `slope` at 0.
        LeakyRelu "leaky_relu" pub fn leaky_relu(x, slope: S) = math::leaky_relu(x, slope),
            |y| if x > S::ZERO { S::ONE } else { slope };
        /// `|x|`; derivative 0 at 0.
        Abs "abs" pub fn abs(x) = x.abs(), |y| if x > S::ZERO {
            S::ONE
        } else if x < S::ZERO {
            -S::ONE
        } else {
            S::ZERO
        };
        /// `ln(1 + e^x)`, stable for large `|x|`; derivative `sigmoid(x)`.
        Softplus "softplus" pub fn softplus(x) = math::softplus(x), |y| math::sigmoid(x);
        /// Arctangent (derivative `1 / (1 + x^2)`, 0 in the limit where `x^2` overflows).
        Atan "atan" pub fn atan(x) = x.atan(), |y| S::ONE / (S::ONE + x * x);
        /// Arcsine, on `[-1, 1]`; derivative `1 / sqrt((1 - x)(1 + x))`, factored so that it
        /// keeps its precision near `±1`, and `+inf` at `±1` (written as a statement, as `sqrt`
        /// at 0).
        Asin "asin" pub fn asin(x) = x.asin(), |y| S::ONE / ((S::ONE - x) * (S::ONE + x)).sqrt();
        /// Arccosine, on `[-1, 1]`; derivative `-1 / sqrt((1 - x)(1 + x))`, `-inf` at `±1`.
        Acos "acos" pub fn acos(x) = x.acos(), |y| -S::ONE / ((S::ONE - x) * (S::ONE + x)).sqrt();
        /// Hyperbolic sine (derivative `cosh`).
        Sinh "sinh" pub fn sinh(x) = x.sinh(), |y| x.cosh();
        /// Hyperbolic cosine (derivative `sinh`).
        Cosh "cosh" pub fn cosh(x) = x.cosh(), |y| x.sinh();
        /// Base-2 logarithm (derivative `log2(e) / x`, `+inf` at 0 as for `ln`).
        Log2 "log2" pub fn log2(x) = x.log2(), |y| S::from_f64(core::f64::consts::LOG2_E) / x;
        /// Base-10 logarithm (derivative `log10(e) / x`).
        Log10 "log10" pub fn log10(x) = x.log10(), |y| S::from_f64(core::f64::consts::LOG10_E) / x;
        /// `2^x` (derivative `ln(2) 2^x`, from the output).
        Exp2 "exp2" pub fn exp2(x) = x.exp2(), |y| S::from_f64(core::f64::consts::LN_2) * y;
        /// Cube root, real for negative `x`; derivative `1 / (3 y^2)` from the output `y`, `+inf`
        /// at 0 (written as a statement, as `sqrt` at 0; `y / 3x` would be NaN there).
        Cbrt "cbrt" pub fn cbrt(x) = x.cbrt(), |y| S::from_f64(1.0 / 3.0) / (y * y);
    }
}

impl Op {
    /// `true` for a one-input operation whose local derivative, as its row computes it, is at
    /// most 1 in magnitude wherever its value is finite: `sin`, `cos`, `tanh` (`1 - y^2`, `y` in
    /// `[-1, 1]`), `sigmoid` and `softplus` (a sigmoid, in `[0, 1]`), `atan` (`1 / (1 + x^2)`),
    /// `relu` and `abs` (0 or 1 in magnitude), the negation and the shift. Where a product by such a
    /// derivative cannot overflow ([`Scalar::SHRINKING_PRODUCT`](crate::Scalar::SHRINKING_PRODUCT)),
    /// the result's partials are as finite as the pending ones, and only its value is tested.
    /// (`leaky_relu`'s slope is the caller's, unbounded.)
    pub(crate) const fn derivative_within_one(self) -> bool {
        self.derivative() & WITHIN_ONE != 0
    }

    /// `true` for a one-input operation whose derivative is exactly 0 over whole intervals of
    /// finite inputs: a dead `relu` (and `leaky_relu` of slope 0), a saturated `tanh`, `sigmoid`
    /// or `softplus`, an `exp` or `exp2` that underflowed, `atan` far out, a zero exponent or
    /// factor (`powi(0)`, `powf(0)`, `scale(0)`). There a zero local derivative cuts the
    /// dependence: the result depends on nothing recorded, so a dead unit of a network writes no
    /// operand and sends nothing back, even to an infinite adjoint (as PyTorch's `relu` masks;
    /// its `tanh`, `sigmoid` and `exp` multiply, and would send NaN there).
    ///
    /// Elsewhere a zero derivative is an isolated point (`square` and `cos` at 0, `abs` at its
    /// kink) or never happens, and the result keeps its dependence with a partial of 0: no test
    /// of the derivative in the recording (a Rosenbrock term's two squares), and an infinite
    /// adjoint times that 0 is NaN, as in PyTorch (`d/dx ln(x^2)` at 0). The operations between
    /// two values never cut (`x * y` at `y = 0` keeps `x` with a partial of 0).
    ///
    /// ```
    /// use autograd_core::Op;
    /// assert!(Op::Relu.has_flat_regions() && Op::Tanh.has_flat_regions());
    /// assert!(!Op::Square.has_flat_regions() && !Op::Mul.has_flat_regions());
    /// ```
    pub const fn has_flat_regions(self) -> bool {
        self.derivative() & FLAT != 0
    }

    /// What is known of a one-input operation's local derivative ([`FLAT`], [`WITHIN_ONE`]), each
    /// operation classed once: the match is exhaustive, so a new operation must be.
    const fn derivative(self) -> u8 {
        match self {
            Op::Tanh | Op::Sigmoid | Op::Relu | Op::Softplus | Op::Atan => FLAT | WITHIN_ONE,
            Op::Scale | Op::Powi | Op::Powf | Op::Exp | Op::Exp2 | Op::LeakyRelu => FLAT,
            Op::Neg | Op::Shift | Op::Sin | Op::Cos | Op::Abs => WITHIN_ONE,
            Op::Square
            | Op::Ln
            | Op::Sqrt
            | Op::Tan
            | Op::Asin
            | Op::Acos
            | Op::Sinh
            | Op::Cosh
            | Op::Log2
            | Op::Log10
            | Op::Cbrt => 0,
            // Not one-input operations: their partials are merged (and tested there), never cut.
            Op::Leaf
            | Op::Sum
            | Op::Dot
            | Op::MulAdd
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Pow
            | Op::Max
            | Op::Min
            | Op::Atan2
            | Op::Hypot => 0,
        }
    }
}

/// [`Op::has_flat_regions`]: a zero derivative over whole intervals of finite inputs.
const FLAT: u8 = 1;
/// [`Op::derivative_within_one`]: a derivative at most 1 in magnitude.
const WITHIN_ONE: u8 = 2;

impl core::fmt::Display for Op {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Forward rule and partial derivatives `(z, dz/dx, dz/dy)` of the two-input operations (`op`
/// one of [`Op::Add`], [`Op::Sub`], [`Op::Mul`], [`Op::Div`], [`Op::Pow`], [`Op::Max`],
/// [`Op::Min`], [`Op::Atan2`], [`Op::Hypot`]; any other is the identity on `x`).
///
/// ```
/// use autograd_core::{rules, Op};
/// assert_eq!(rules::binary(Op::Div, 1.0_f64, 2.0), (0.5, 0.5, -0.25));
/// ```
#[inline(always)]
pub fn binary<S: Scalar>(op: Op, x: S, y: S) -> (S, S, S) {
    let half = S::from_f64(0.5);
    match op {
        Op::Add => (x + y, S::ONE, S::ONE),
        Op::Sub => (x - y, S::ONE, -S::ONE),
        Op::Mul => (x * y, y, x),
        Op::Div => {
            let z = x / y;
            // d/dy = -z / y: finite where x / y^2 would overflow to inf * 0.
            (z, S::ONE / y, -z / y)
        }
        // d/dx = y x^(y-1); d/dy = ln(x) x^y, taken as 0 where x = 0 and y >= 0 (PyTorch), so 0^2
        // does not produce 0 * -inf = NaN.
        Op::Pow => {
            let z = x.pow(y);
            let dy = if x == S::ZERO && y >= S::ZERO {
                S::ZERO
            } else {
                x.ln() * z
            };
            (z, powf_derivative(x, y, z), dy)
        }
        Op::Max if x > y => (x, S::ONE, S::ZERO),
        Op::Max if y > x => (y, S::ZERO, S::ONE),
        Op::Min if x < y => (x, S::ONE, S::ZERO),
        Op::Min if y < x => (y, S::ZERO, S::ONE),
        Op::Max | Op::Min => (crate::math::mean(x, y), half, half),
        // Here `x` is the receiver, the ordinate: d/dx atan2(x, y) = y / r^2, d/dy = -x / r^2,
        // as (y / r) / r with r = hypot(x, y), which neither overflows nor underflows where r^2
        // would. At the origin the angle has no derivative (it jumps across the negative axis
        // and is unbounded nearby); the convention is 0 for both, as for relu and abs at kinks.
        Op::Atan2 => {
            let (z, r) = (x.atan2(y), x.hypot(y));
            if r == S::ZERO {
                (z, S::ZERO, S::ZERO)
            } else if r.is_finite() || !(x.is_finite() && y.is_finite()) {
                (z, y / r / r, -(x / r) / r)
            } else {
                // r overflowed though x and y did not (both near the largest value): the same
                // on halves, y / r^2 = (y/2) / (r/2)^2 / 2, whose r/2 is finite.
                let (xh, yh) = (x * half, y * half);
                let rh = xh.hypot(yh);
                (z, yh / rh / rh * half, -(xh / rh) / rh * half)
            }
        }
        // x / h, y / h (no overflow where x^2 would); at the origin hypot is |.| of a vector, a
        // cone's tip, and the partials are 0 by the convention of abs'(0) = 0 (hypot(x, 0) = |x|).
        Op::Hypot => {
            let h = x.hypot(y);
            if h == S::ZERO {
                (h, S::ZERO, S::ZERO)
            } else {
                (h, x / h, y / h)
            }
        }
        _ => (x, S::ONE, S::ZERO),
    }
}

/// `c x^(c-1)`, 0 for `c = 0` (the function is constant); at a negative base `c z / x` with
/// `z = x^c`, whose sign is right even where `c - 1` loses the parity of an integer `c`.
#[inline]
fn powf_derivative<S: Scalar>(x: S, c: S, z: S) -> S {
    if c == S::ZERO {
        S::ZERO
    } else if x < S::ZERO && c - S::ONE + S::ONE != c {
        // `c - 1` rounded (an integer `c` of 2^53 or more): its parity may be lost, so the sign
        // comes from the value. Elsewhere `x^(c-1)`: `z / x` loses the precision `z` lacks where
        // it is subnormal (`x^3` at `x = -5.5e-108`: 1 % off, `fuzz/corpus/differential/
        // powf-negative-base-subnormal-value`).
        c * z / x
    } else {
        c * x.pow(c - S::ONE)
    }
}

#[cfg(test)]
mod tests;
