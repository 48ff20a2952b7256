//! Function calls: `name(args)` and the method form `receiver.name(args)`, with each
//! function's arity and the arguments that must be numbers known when parsing.

use super::Parser;
use crate::expr::{Func, Op};
use crate::lexer::Tok;
use crate::ParseError;

impl Parser<'_> {
    /// `name(args)` (the name already read; the current token is `(`), or the method form
    /// `receiver.name(args)`, where the receiver is the first argument.
    pub(super) fn call(
        &mut self,
        name: &str,
        start: usize,
        receiver: Option<usize>,
    ) -> Result<usize, ParseError> {
        let open = self.expect(Tok::LParen, "`(`")?;
        let mut args: Vec<usize> = receiver.into_iter().collect();
        let mut first = self.ops.len();
        if *self.peek() != Tok::RParen {
            loop {
                first = self.ops.len();
                args.push(self.sum()?);
                if *self.peek() != Tok::Comma {
                    break;
                }
                self.bump();
            }
        }
        if *self.peek() != Tok::RParen {
            let mut e = self.expected("an operator, `,` or `)`");
            let note = format!(" (the `(` at column {} is not closed)", open.start + 1);
            e.message.push_str(&note);
            return Err(e);
        }
        let close = self.bump();
        let err = |msg: String| ParseError::new(start, close.end, msg);
        let arity = |n: usize| -> Result<(), ParseError> {
            if args.len() == n {
                Ok(())
            } else {
                let s = if n == 1 { "" } else { "s" };
                Err(err(format!(
                    "`{name}` takes {n} argument{s}, got {}",
                    args.len()
                )))
            }
        };
        let op =
            match name {
                "log" => {
                    arity(1)?;
                    Op::Call(Func::Ln, args[0])
                }
                "square" => {
                    arity(1)?;
                    Op::Powi(args[0], 2)
                }
                "max" | "min" => {
                    arity(2)?;
                    if name == "max" {
                        Op::Max(args[0], args[1])
                    } else {
                        Op::Min(args[0], args[1])
                    }
                }
                "pow" => {
                    arity(2)?;
                    self.power_op(args[0], args[1], first)
                }
                "powi" | "powf" => {
                    arity(2)?;
                    match (name, self.take_const(args[1], first)) {
                        ("powi", Some(n)) if n.fract() == 0.0 && n.abs() <= i32::MAX as f64 => {
                            Op::Powi(args[0], n as i32)
                        }
                        ("powf", Some(c)) => Op::Powf(args[0], c),
                        ("powi", Some(n)) if n.fract() == 0.0 => {
                            return Err(err(format!(
                                "the exponent of `powi` is an `i32`: at most {} in magnitude, \
                                 got {n:e} (`powf(x, {n:e})` or `x^{n:e}` take any)",
                                i32::MAX
                            )));
                        }
                        _ => {
                            let kind = if name == "powi" { "an integer" } else { "a" };
                            return Err(err(format!(
                                "the exponent of `{name}` must be {kind} number that does not \
                             depend on the inputs (use `pow(x, y)` or `x^y` for a variable one)"
                            )));
                        }
                    }
                }
                "leaky_relu" => {
                    if args.len() == 1 {
                        // PyTorch's default negative slope.
                        Op::LeakyRelu(args[0], 0.01)
                    } else {
                        arity(2)?;
                        match self.take_const(args[1], first) {
                            Some(s) => Op::LeakyRelu(args[0], s),
                            None => return Err(err(
                                "the slope of `leaky_relu` must be a number that does not depend \
                                 on the inputs"
                                    .into(),
                            )),
                        }
                    }
                }
                _ => match Func::ALL.iter().find(|(n, _)| *n == name) {
                    Some((_, f)) => {
                        arity(1)?;
                        Op::Call(*f, args[0])
                    }
                    None => {
                        return Err(ParseError::new(
                            start,
                            start + name.chars().count(),
                            format!(
                                "unknown function `{name}`; known: {} (for a product write \
                             `{name}*(...)`)",
                                FUNCTIONS.join(", ")
                            ),
                        ))
                    }
                },
            };
        self.push(op)
    }
}

/// Every function name the parser knows (besides the operators).
///
/// ```
/// use autograd_expr::{parse, FUNCTIONS};
/// // Each name is a function of one argument or more: `name(x)` or `name(x, y)` parses.
/// for name in FUNCTIONS {
///     assert!(parse(&format!("{name}(x)")).is_ok() || parse(&format!("{name}(x, 2)")).is_ok(), "{name}");
/// }
/// ```
pub const FUNCTIONS: [&str; 19] = [
    "exp",
    "ln",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "abs",
    "softplus",
    "leaky_relu",
    "square",
    "pow",
    "powi",
    "powf",
    "max",
    "min",
];

pub(super) fn is_function(name: &str) -> bool {
    FUNCTIONS.contains(&name)
}
