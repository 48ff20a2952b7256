//! Tokens to an [`Expr`]: precedence climbing by recursive descent, with the nesting depth and
//! the number of operations bounded so no input can exhaust the stack or the memory.
//!
//! ```text
//! program   := statement ((';' | newline) statement)*
//! statement := name ('=' | '+=' | '-=' | '*=' | '/=') sum  |  sum
//! sum       := product (('+' | '-') product)*           left-associative
//! product   := unary (('*' | '/') unary)*                left-associative
//! unary     := ('-' | '+') unary  |  power               so -x^2 = -(x^2)
//! power     := postfix (('^' | '**') unary)?             right-associative: 2^3^2 = 2^(3^2)
//! postfix   := primary ('.' name '(' args ')')*          micrograd's (a*b + c).relu()
//! primary   := number | name | name '(' args ')' | '(' sum ')'
//! ```

mod call;

pub use call::FUNCTIONS;

use crate::expr::{Expr, Op};
use call::is_function;

use crate::lexer::{tokenize, Tok, Token};
use crate::ParseError;

/// Deepest nesting of parentheses, unary signs, powers and calls accepted.
///
/// ```
/// use autograd_expr::{parse, MAX_DEPTH};
/// let deep = format!("{}x{}", "(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
/// assert!(parse(&deep).is_err()); // an error, never a stack overflow
/// let fine = format!("{}x{}", "(".repeat(8), ")".repeat(8));
/// assert!(parse(&fine).is_ok());
/// ```
pub const MAX_DEPTH: usize = 64;
/// Most operations an expression may have.
///
/// ```
/// use autograd_expr::{parse, MAX_OPS};
/// // `x` read once, then one operation a sum: MAX_OPS + 1 operations.
/// let long = vec!["x"; MAX_OPS + 1].join(" + ");
/// assert!(parse(&long).is_err());
/// assert!(parse(&vec!["x"; MAX_OPS].join(" + ")).is_ok());
/// assert!(parse(&vec!["x"; 100].join(" + ")).is_ok());
/// ```
pub const MAX_OPS: usize = 4096;

/// Prefixes of copied Python code that are skipped before a function name (`math.exp(x)`).
const MODULES: [&str; 6] = ["math", "np", "numpy", "torch", "F", "jnp"];

/// Parses the lessons' notation into an [`Expr`].
///
/// # Errors
/// A [`ParseError`] with the position of the first problem and what was expected there.
///
/// ```
/// let f = autograd_expr::parse("-x^2 + 2**3**2")?;
/// assert_eq!(f.read_as(), "(-(x^2)) + (2^9)"); // the exponent 3^2 is computed when parsing
/// assert_eq!(f.eval(&[3.0_f64]), -9.0 + 512.0);
/// # Ok::<(), autograd_expr::ParseError>(())
/// ```
pub fn parse(source: &str) -> Result<Expr, ParseError> {
    let src: Vec<char> = source.chars().collect();
    let toks = tokenize(&src)?;
    let mut p = Parser {
        src: &src,
        toks,
        pos: 0,
        depth: 0,
        ops: Vec::new(),
        names: Vec::new(),
        consts: Vec::new(),
        const_values: Vec::new(),
        inputs: Vec::new(),
        bindings: Vec::new(),
    };
    p.program()
}

struct Parser<'s> {
    src: &'s [char],
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    ops: Vec<Op>,
    names: Vec<Option<String>>,
    /// The value of each operation that does not depend on any input.
    consts: Vec<Option<f64>>,
    /// `consts` with 0 for the others, to apply an operation to.
    const_values: Vec<f64>,
    inputs: Vec<String>,
    /// Names assigned so far and the operation each names (the latest assignment last).
    bindings: Vec<(String, usize)>,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn token(&self) -> &Token {
        &self.toks[self.pos]
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    /// "expected {what}, found {the current token}", at the current token; when the current
    /// token could start an operand, a hint that products need `*`.
    fn expected(&self, what: &str) -> ParseError {
        let t = self.token();
        let mut msg = format!("expected {what}, found {}", t.describe(self.src));
        if matches!(t.tok, Tok::Num(_) | Tok::Ident(_) | Tok::LParen) {
            msg.push_str(" (write `2*x`, not `2x` or `2 x`, for a product)");
        }
        ParseError::new(t.start, t.end, msg)
    }

    fn expect(&mut self, tok: Tok, what: &str) -> Result<Token, ParseError> {
        if *self.peek() == tok {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    fn push(&mut self, op: Op) -> Result<usize, ParseError> {
        if self.ops.len() >= MAX_OPS {
            let t = self.token();
            return Err(ParseError::new(
                t.start,
                t.end,
                format!("the expression is too long (more than {MAX_OPS} operations)"),
            ));
        }
        let (args, n) = op.args();
        let value = match op {
            Op::Input(_) => None,
            _ if args[..n].iter().all(|&a| self.consts[a].is_some()) => {
                Some(op.apply(&self.const_values, &[]))
            }
            _ => None,
        };
        self.ops.push(op);
        self.names.push(None);
        self.consts.push(value);
        self.const_values.push(value.unwrap_or(0.0));
        Ok(self.ops.len() - 1)
    }

    /// The value of operation `i` if it does not depend on the inputs; the operations from
    /// `first` on (made while parsing it alone) are then dropped, as it becomes a number.
    fn take_const(&mut self, i: usize, first: usize) -> Option<f64> {
        let c = self.consts[i]?;
        if i >= first {
            self.ops.truncate(first);
            self.names.truncate(first);
            self.consts.truncate(first);
            self.const_values.truncate(first);
        }
        Some(c)
    }

    fn program(&mut self) -> Result<Expr, ParseError> {
        let mut root = None;
        // A statement before the last that only computes a value (no name): an error, since
        // its value could never be used.
        let mut bare: Option<(usize, usize)> = None;
        loop {
            while *self.peek() == Tok::Sep {
                self.bump();
            }
            if *self.peek() == Tok::Eof {
                break;
            }
            if let Some((start, end)) = bare {
                return Err(ParseError::new(
                    start,
                    end,
                    "only the last statement may be a bare expression; name this one \
                     (`y = ...`) or join the statements with an operator",
                ));
            }
            let start = self.token().start;
            let (i, is_bare) = self.statement()?;
            root = Some(i);
            let end = self.toks[self.pos.saturating_sub(1)].end;
            bare = is_bare.then_some((start, end));
            if !matches!(self.peek(), Tok::Sep | Tok::Eof) {
                return Err(self.expected("an operator (+ - * / ^) or the end of the input"));
            }
        }
        let Some(root) = root else {
            return Err(ParseError::new(
                0,
                1,
                "expected an expression such as `x^3 - 2*x + 1`, found nothing",
            ));
        };
        Ok(Expr {
            ops: std::mem::take(&mut self.ops),
            names: std::mem::take(&mut self.names),
            inputs: std::mem::take(&mut self.inputs),
            root,
        })
    }

    /// Returns the statement's operation and whether it was a bare expression.
    fn statement(&mut self) -> Result<(usize, bool), ParseError> {
        let (Tok::Ident(name), Tok::Assign(op)) = (self.peek().clone(), self.peek_at(1).clone())
        else {
            return Ok((self.sum()?, true));
        };
        let target = self.bump();
        if is_function(&name) {
            return Err(ParseError::new(
                target.start,
                target.end,
                format!("`{name}` is a function; choose another name to assign to"),
            ));
        }
        let assign = self.bump();
        let value = self.sum()?;
        let i = match op {
            None => value,
            Some(c) => {
                let Some(old) = self.lookup(&name) else {
                    return Err(ParseError::new(
                        target.start,
                        assign.end,
                        format!("`{name} {c}= ...` needs a value for `{name}` first"),
                    ));
                };
                self.push(binary(c, old, value))?
            }
        };
        if self.names[i].is_none() && !matches!(self.ops[i], Op::Input(_)) {
            self.names[i] = Some(name.clone());
        }
        self.bindings.push((name, i));
        Ok((i, false))
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.bindings
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, i)| *i)
    }

    fn sum(&mut self) -> Result<usize, ParseError> {
        let mut lhs = self.product()?;
        loop {
            let c = match self.peek() {
                Tok::Plus => '+',
                Tok::Minus => '-',
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.product()?;
            lhs = self.push(binary(c, lhs, rhs))?;
        }
    }

    fn product(&mut self) -> Result<usize, ParseError> {
        let mut lhs = self.unary()?;
        loop {
            let c = match self.peek() {
                Tok::Star => '*',
                Tok::Slash => '/',
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.unary()?;
            lhs = self.push(binary(c, lhs, rhs))?;
        }
    }

    /// Every recursion passes through here, so the depth is counted here.
    fn unary(&mut self) -> Result<usize, ParseError> {
        if self.depth >= MAX_DEPTH {
            let t = self.token();
            return Err(ParseError::new(
                t.start,
                t.end,
                format!("the expression is nested too deeply (more than {MAX_DEPTH} levels)"),
            ));
        }
        self.depth += 1;
        let result = self.unary_inner();
        self.depth -= 1;
        result
    }

    fn unary_inner(&mut self) -> Result<usize, ParseError> {
        match self.peek() {
            Tok::Minus => {
                self.bump();
                let first = self.ops.len();
                let a = self.unary()?;
                // A negative number stays one number: `-2` is a constant, not neg(2).
                if let (Op::Const(c), true) = (&self.ops[a], a >= first) {
                    let c = -*c;
                    self.ops[a] = Op::Const(c);
                    self.consts[a] = Some(c);
                    self.const_values[a] = c;
                    return Ok(a);
                }
                self.push(Op::Neg(a))
            }
            Tok::Plus => {
                self.bump();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<usize, ParseError> {
        let base = self.postfix()?;
        if *self.peek() != Tok::Caret {
            return Ok(base);
        }
        self.bump();
        let first = self.ops.len();
        let exponent = self.unary()?;
        let op = self.power_op(base, exponent, first);
        self.push(op)
    }

    /// The power rule: an exponent that does not depend on the inputs is a number `c`, giving
    /// `powi` if `c` is an integer (`x^2`, `x^-1`, `x^(6/3)`), else `powf` (`x^0.5`); an
    /// exponent that depends on the inputs gives `pow` (`x^y`, `2^x`).
    fn power_op(&mut self, base: usize, exponent: usize, first: usize) -> Op {
        match self.take_const(exponent, first) {
            Some(c) if c.fract() == 0.0 && c.abs() <= i32::MAX as f64 => Op::Powi(base, c as i32),
            Some(c) => Op::Powf(base, c),
            None => Op::Pow(base, exponent),
        }
    }

    fn postfix(&mut self) -> Result<usize, ParseError> {
        let mut value = self.primary()?;
        while *self.peek() == Tok::Dot {
            self.bump();
            let t = self.token().clone();
            match (self.peek().clone(), self.peek_at(1)) {
                (Tok::Ident(name), Tok::LParen) => {
                    self.bump();
                    value = self.call(&name, t.start, Some(value))?;
                }
                _ => return Err(self.expected("a method call such as `.tanh()` after `.`")),
            }
        }
        Ok(value)
    }

    fn primary(&mut self) -> Result<usize, ParseError> {
        let t = self.token().clone();
        match t.tok.clone() {
            Tok::Num(v) => {
                self.bump();
                self.push(Op::Const(v))
            }
            Tok::LParen => {
                self.bump();
                let inner = self.sum()?;
                if *self.peek() != Tok::RParen {
                    let mut e = self.expected("an operator (+ - * / ^) or `)`");
                    e.message.push_str(&format!(
                        " (the `(` at column {} is not closed)",
                        t.start + 1
                    ));
                    return Err(e);
                }
                self.bump();
                Ok(inner)
            }
            Tok::Ident(name) => {
                self.bump();
                if MODULES.contains(&name.as_str())
                    && *self.peek() == Tok::Dot
                    && matches!(self.peek_at(1), Tok::Ident(_))
                    && self.lookup(&name).is_none()
                {
                    // `math.exp(x)`: read as `exp(x)`.
                    self.bump();
                    return self.primary();
                }
                if let Some(i) = self.lookup(&name) {
                    return Ok(i);
                }
                if *self.peek() == Tok::LParen {
                    return self.call(&name, t.start, None);
                }
                if is_function(&name) {
                    return Err(ParseError::new(
                        t.start,
                        t.end,
                        format!("`{name}` is a function: write `{name}(...)`"),
                    ));
                }
                if name == "pi" || name == "π" {
                    return self.push(Op::Const(core::f64::consts::PI));
                }
                self.input(name)
            }
            _ => Err(self.expected("a number, a name or `(`")),
        }
    }

    fn input(&mut self, name: String) -> Result<usize, ParseError> {
        if let Some(k) = self.inputs.iter().position(|n| *n == name) {
            if let Some(i) = self.ops.iter().position(|op| *op == Op::Input(k)) {
                return Ok(i);
            }
        }
        let k = match self.inputs.iter().position(|n| *n == name) {
            Some(k) => k,
            None => {
                self.inputs.push(name);
                self.inputs.len() - 1
            }
        };
        self.push(Op::Input(k))
    }
}

fn binary(c: char, a: usize, b: usize) -> Op {
    match c {
        '+' => Op::Add(a, b),
        '-' => Op::Sub(a, b),
        '*' => Op::Mul(a, b),
        _ => Op::Div(a, b),
    }
}
