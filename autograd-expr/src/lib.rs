//! The notation of the chain-rule lessons, parsed into an expression that evaluates over any
//! [`autograd_core::Number`], so one string can be evaluated, differentiated in every mode and
//! drawn (it is what `cargo xtask grad` reads).
//!
//! What it reads: `+ - * /`, powers `^` and `**` (right-associative, binding tighter than a
//! leading minus: `-x^2 = -(x^2)`, `2^3^2 = 2^9`), parentheses, numbers with exponents (`1e-3`),
//! any names (inputs), `pi`, every function of the core (`exp ln log sqrt sin cos tan tanh
//! sigmoid relu abs softplus leaky_relu square pow powi powf max min`), micrograd's method form
//! (`(a*b + c).relu()`), Python's `math.`/`np.`/`torch.` prefixes, and statements separated by
//! `;` or line breaks (`c = a + b; c += 1; c^2`, Python's meaning of `+=`).
//!
//! The power rule: an exponent that does not depend on the inputs is computed when parsing; an
//! integer gives `powi`, any other number `powf`, and an exponent with inputs gives `pow`.
//!
//! An [`Expr`] is a list of operations in evaluation order (operands first), so evaluating it is
//! one loop; [`backprop`] runs the chain rule over the same list by hand (local partials, one
//! reverse loop), independently of the core's tape, to show every intermediate gradient.
//!
//! ```
//! use autograd_core::{gradient_reverse, Tape};
//!
//! let f = autograd_expr::parse("tanh(w1*x1 + w2*x2 + b)")?;
//! assert_eq!(f.inputs(), ["w1", "x1", "w2", "x2", "b"]);
//! let x = [-3.0, 2.0, 1.0, 0.0, 6.8813735870195432];
//! let mut tape = Tape::<f64, 64>::new();
//! let mut g = [0.0; 5];
//! let y = gradient_reverse(&f, &mut tape, &x, &mut g).unwrap();
//! assert!((y - 0.7071).abs() < 1e-4);
//! assert!((g[1] + 1.5).abs() < 1e-9); // d/dx1 = w1 (1 - y^2)
//! # Ok::<(), autograd_expr::ParseError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod backprop;
mod error;
mod expr;
mod lexer;
mod parser;

pub use backprop::{backprop, Backprop, Kink};
pub use error::ParseError;
pub use expr::{Expr, Func, Op};
pub use parser::{parse, FUNCTIONS, MAX_DEPTH, MAX_OPS};
