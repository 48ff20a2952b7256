//! `stmt!`: an expression over [`Number`](https://docs.rs/autograd-core) values recorded on a
//! tape as **one statement**, its partial derivatives derived when the program is compiled.
//!
//! The tape's handles already fold a few operations into one statement at run time (each handle
//! carries up to two pending partials); every operation still pays for that bookkeeping. Inside
//! `stmt!(...)` the expression's shape is known when compiling, so the chain rule is applied
//! then, as Adept's expression templates do in C++: on a tape, the values of the leaves go
//! through straight-line code that computes the value and each leaf's partial, and one statement
//! is written, with one test of the tapes and one of finiteness for the whole expression. On
//! every other number type (`f64`, dual numbers) the expression is evaluated as written.
//!
//! ```
//! use autograd_core::{Number, Tape};
//! use autograd_macros::stmt;
//!
//! fn rosenbrock<T: Number>(x: &[T]) -> T {
//!     let mut sum = T::zero();
//!     for w in x.windows(2) {
//!         let (a, b) = (w[0], w[1]);
//!         sum = stmt!(sum + 100.0 * (b - a * a).square() + (1.0 - a).square());
//!     }
//!     sum
//! }
//!
//! assert_eq!(rosenbrock(&[0.0_f64, 1.0]), 101.0);
//! let tape = Tape::<f64, 64>::new();
//! let x = [tape.var(0.0), tape.var(1.0), tape.var(2.0)];
//! let g = tape.backward(rosenbrock(&x))?;
//! assert_eq!([g.wrt(x[0]), g.wrt(x[1]), g.wrt(x[2])], [-2.0, -200.0, 200.0]);
//! # Ok::<(), autograd_core::Error>(())
//! ```
//!
//! What the expression may hold, differentiated inside the statement: `+ - * /`, unary `-`,
//! parentheses, the one-input methods of the core's table of operations (`sin`, `exp`,
//! `square`, `tanh`, `relu`, ...: every [`Op`](https://docs.rs/autograd-core) of one input whose
//! name is its method's), `powi(n)` with an integer literal, `powf(c)` and `leaky_relu(c)` with
//! a number literal, and the two-input methods `pow`, `max`, `min`, `atan2`, `hypot`. Constants:
//! number literals and `T::from_f64(literal)`, `T::one()`, `T::zero()` for any type path `T`.
//! Anything else (a variable, `w[0]`, a function call, a method with other arguments) is a
//! leaf: evaluated once, in order, before the statement, as a value of the expression's type.
//! A variable or index named twice (`a * a`) is one leaf. Number literals are `f64` constants
//! (`T::from_f64`).
//!
//! What it changes on a tape, besides the cost: in an expression that holds an operation flat
//! over intervals (`relu`, `tanh`, ...), a leaf whose partial is exactly zero is not an operand
//! (it sends nothing back, not even to an infinite adjoint), as that operation's zero derivative
//! cuts the dependence operation by operation, but here also where the zero came from elsewhere
//! in the expression (`x * y` at `y = 0`, which operation by operation keeps `x`); partials are
//! computed with the table's rules in another order, so a gradient may differ from the
//! operation-by-operation one in the last bits. Where a value or a partial is
//! not finite, or the leaves belong to two tapes, the operations are recorded one by one as
//! without `stmt!`, so NaN provenance and the errors are the same.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod generate;
mod tree;

use proc_macro::TokenStream;
use quote::quote;
use syn::{parse_macro_input, Expr};

use tree::Tree;

/// One expression recorded as one statement; see the [crate documentation](crate).
///
/// ```
/// use autograd_core::{Number, Tape};
/// use autograd_macros::stmt;
///
/// fn f<T: Number>(x: T, y: T, z: T) -> T {
///     stmt!(x * y + z.sin())
/// }
///
/// let tape = Tape::<f64, 16>::new();
/// let (x, y, z) = (tape.var(2.0), tape.var(3.0), tape.var(0.5));
/// let w = f(x, y, z);
/// // Three leaves and one statement of three operands (4 slots): none for `x * y` or `sin`.
/// assert_eq!(tape.len(), 7);
/// let g = tape.backward(w)?;
/// assert_eq!([g.wrt(x), g.wrt(y), g.wrt(z)], [3.0, 2.0, 0.5_f64.cos()]); // y, x, cos z
/// assert_eq!(f(2.0_f64, 3.0, 0.5), 6.0 + 0.5_f64.sin()); // plain numbers: as written
/// # Ok::<(), autograd_core::Error>(())
/// ```
#[proc_macro]
pub fn stmt(input: TokenStream) -> TokenStream {
    let expr = parse_macro_input!(input as Expr);
    let mut tree = Tree::default();
    let root = tree.node(&expr);
    if tree.leaves.is_empty() {
        // Constants only: nothing to differentiate.
        return quote!((#expr)).into();
    }
    tree.expand(root).into()
}
