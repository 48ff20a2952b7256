//! [`Expr`]: a parsed expression as a list of operations in evaluation order, evaluated over any
//! [`Number`] by one forward loop (no recursion, however long the expression).

use autograd_core::{Function, Number};

/// A one-argument function of the core ([`Number`]'s methods).
///
/// ```
/// use autograd_expr::{parse, Func, Op};
/// let f = parse("sigmoid(x)")?;
/// assert_eq!(f.ops()[f.root()], Op::Call(Func::Sigmoid, 0));
/// # Ok::<(), autograd_expr::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `exp(x)`
    Exp,
    /// `ln(x)`, also spelled `log(x)` (natural logarithm, as Python's `math.log`).
    Ln,
    /// `sqrt(x)`
    Sqrt,
    /// `sin(x)`
    Sin,
    /// `cos(x)`
    Cos,
    /// `tan(x)`
    Tan,
    /// `tanh(x)`
    Tanh,
    /// `sigmoid(x)` = 1 / (1 + e^-x)
    Sigmoid,
    /// `relu(x)` = max(x, 0)
    Relu,
    /// `abs(x)`
    Abs,
    /// `softplus(x)` = ln(1 + e^x)
    Softplus,
}

impl Func {
    /// Every function with its name.
    ///
    /// ```
    /// use autograd_expr::Func;
    /// assert!(Func::ALL.iter().any(|&(name, f)| name == "tanh" && f == Func::Tanh));
    /// ```
    pub const ALL: [(&'static str, Func); 11] = [
        ("exp", Func::Exp),
        ("ln", Func::Ln),
        ("sqrt", Func::Sqrt),
        ("sin", Func::Sin),
        ("cos", Func::Cos),
        ("tan", Func::Tan),
        ("tanh", Func::Tanh),
        ("sigmoid", Func::Sigmoid),
        ("relu", Func::Relu),
        ("abs", Func::Abs),
        ("softplus", Func::Softplus),
    ];

    /// Its name, as written.
    ///
    /// ```
    /// use autograd_expr::Func;
    /// assert_eq!(Func::Softplus.name(), "softplus");
    /// assert_eq!(Func::Ln.name(), "ln"); // the name it prints, though `log(x)` parses to it too
    /// assert_eq!(autograd_expr::parse("log(x)")?.read_as(), "ln(x)");
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn name(self) -> &'static str {
        Func::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("?", |(n, _)| n)
    }

    /// `self(x)` over any [`Number`].
    ///
    /// ```
    /// use autograd_core::Dual;
    /// use autograd_expr::Func;
    /// assert_eq!(Func::Relu.apply(-2.0_f64), 0.0);
    /// let y = Func::Exp.apply(Dual::variable(0.0_f64)); // e^0, derivative e^0
    /// assert_eq!((y.re, y.eps), (1.0, 1.0));
    /// ```
    pub fn apply<T: Number>(self, x: T) -> T {
        match self {
            Func::Exp => x.exp(),
            Func::Ln => x.ln(),
            Func::Sqrt => x.sqrt(),
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Tan => x.tan(),
            Func::Tanh => x.tanh(),
            Func::Sigmoid => x.sigmoid(),
            Func::Relu => x.relu(),
            Func::Abs => x.abs(),
            Func::Softplus => x.softplus(),
        }
    }
}

/// One operation; operands are indices of earlier operations of the same [`Expr`].
///
/// ```
/// use autograd_expr::{parse, Op};
/// // A power with a constant integer exponent is `powi`; one with an input, `pow`.
/// let f = parse("x^2 + x^y")?;
/// assert!(f.ops().contains(&Op::Powi(0, 2)));
/// assert!(f.ops().iter().any(|op| matches!(op, Op::Pow(..))));
/// # Ok::<(), autograd_expr::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A number.
    Const(f64),
    /// Input number `i` (see [`Expr::inputs`]).
    Input(usize),
    /// `-a`
    Neg(usize),
    /// `a + b`
    Add(usize, usize),
    /// `a - b`
    Sub(usize, usize),
    /// `a * b`
    Mul(usize, usize),
    /// `a / b`
    Div(usize, usize),
    /// `a^n`, `n` an integer known when parsing (`Number::powi`).
    Powi(usize, i32),
    /// `a^c`, `c` a non-integer known when parsing (`Number::powf`).
    Powf(usize, f64),
    /// `a^b` with an exponent that depends on the inputs (`Number::pow`).
    Pow(usize, usize),
    /// `f(a)`
    Call(Func, usize),
    /// `leaky_relu(a, slope)`
    LeakyRelu(usize, f64),
    /// `max(a, b)`
    Max(usize, usize),
    /// `min(a, b)`
    Min(usize, usize),
}

impl Op {
    /// The operands as an array and a count (`([a, b], 2)`).
    ///
    /// ```
    /// use autograd_expr::{Func, Op};
    /// assert_eq!(Op::Mul(0, 2).args(), ([0, 2], 2));
    /// assert_eq!(Op::Call(Func::Sin, 1).args(), ([1, 0], 1));
    /// assert_eq!(Op::Const(2.5).args().1, 0);
    /// ```
    pub fn args(&self) -> ([usize; 2], usize) {
        match *self {
            Op::Const(_) | Op::Input(_) => ([0, 0], 0),
            Op::Neg(a) | Op::Powi(a, _) | Op::Powf(a, _) | Op::Call(_, a) | Op::LeakyRelu(a, _) => {
                ([a, 0], 1)
            }
            Op::Add(a, b)
            | Op::Sub(a, b)
            | Op::Mul(a, b)
            | Op::Div(a, b)
            | Op::Pow(a, b)
            | Op::Max(a, b)
            | Op::Min(a, b) => ([a, b], 2),
        }
    }

    /// The operation applied to already computed operand values `v` (inputs from `x`).
    ///
    /// ```
    /// use autograd_expr::Op;
    /// let x = [3.0_f64];
    /// let v = [3.0, 2.0]; // the values of operations 0 and 1
    /// assert_eq!(Op::Input(0).apply(&v, &x), 3.0);
    /// assert_eq!(Op::Powi(0, 2).apply(&v, &x), 9.0);
    /// assert_eq!(Op::Sub(1, 0).apply(&v, &x), -1.0);
    /// ```
    pub fn apply<T: Number>(&self, v: &[T], x: &[T]) -> T {
        match *self {
            Op::Const(c) => T::from_f64(c),
            Op::Input(i) => x[i],
            Op::Neg(a) => -v[a],
            Op::Add(a, b) => v[a] + v[b],
            Op::Sub(a, b) => v[a] - v[b],
            Op::Mul(a, b) => v[a] * v[b],
            Op::Div(a, b) => v[a] / v[b],
            Op::Powi(a, n) => v[a].powi(n),
            Op::Powf(a, c) => v[a].powf(c),
            Op::Pow(a, b) => v[a].pow(v[b]),
            Op::Call(f, a) => f.apply(v[a]),
            Op::LeakyRelu(a, s) => v[a].leaky_relu(s),
            Op::Max(a, b) => v[a].max(v[b]),
            Op::Min(a, b) => v[a].min(v[b]),
        }
    }

    /// A short label for a graph node: `+`, `*`, `^3`, `tanh`, `x1`, `2.5`.
    ///
    /// ```
    /// use autograd_expr::{Func, Op};
    /// let inputs = ["x1".to_string()];
    /// assert_eq!(Op::Input(0).label(&inputs), "x1");
    /// assert_eq!(Op::Powi(0, 3).label(&inputs), "^3");
    /// assert_eq!(Op::Call(Func::Tanh, 0).label(&inputs), "tanh");
    /// ```
    pub fn label(&self, inputs: &[String]) -> String {
        match self {
            Op::Const(c) => format!("{c}"),
            Op::Input(i) => inputs[*i].clone(),
            Op::Neg(_) => "neg".into(),
            Op::Add(..) => "+".into(),
            Op::Sub(..) => "-".into(),
            Op::Mul(..) => "*".into(),
            Op::Div(..) => "/".into(),
            Op::Powi(_, n) => format!("^{n}"),
            Op::Powf(_, c) => format!("^{c}"),
            Op::Pow(..) => "^".into(),
            Op::Call(f, _) => f.name().into(),
            Op::LeakyRelu(_, s) => format!("leaky_relu({s})"),
            Op::Max(..) => "max".into(),
            Op::Min(..) => "min".into(),
        }
    }
}

/// A parsed expression: operations in evaluation order (every operand precedes its user), the
/// input names in order of first use, and which operation is the result.
///
/// Evaluating is one loop over the operations, as a tape's backward sweep is one loop: no
/// recursion, whatever the length. The same `Expr` evaluates on `f64`, `f32`, the tape's `Var`
/// and the dual numbers, since it implements [`Function`]:
///
/// ```
/// use autograd_core::{gradient_forward, Number};
/// let f = autograd_expr::parse("x^3 - 2*x + 1")?;
/// assert_eq!(f.eval(&[3.0_f64]), 22.0);
/// let mut g = [0.0];
/// gradient_forward(&f, &[3.0], &mut g).unwrap();
/// assert_eq!(g, [25.0]); // 3x^2 - 2
/// # Ok::<(), autograd_expr::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub(crate) ops: Vec<Op>,
    /// A name given to an operation by an assignment (`c = a + b`), for graph labels.
    pub(crate) names: Vec<Option<String>>,
    pub(crate) inputs: Vec<String>,
    pub(crate) root: usize,
}

impl Expr {
    /// The operations, in evaluation order.
    ///
    /// ```
    /// use autograd_expr::{parse, Op};
    /// let f = parse("2 * x")?;
    /// assert_eq!(f.ops(), [Op::Const(2.0), Op::Input(0), Op::Mul(0, 1)]);
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// The index of the operation whose value is the result.
    ///
    /// ```
    /// use autograd_expr::{parse, Op};
    /// let f = parse("a = x + 1; a * a")?;
    /// assert!(matches!(f.ops()[f.root()], Op::Mul(..)));
    /// assert_eq!(f.root(), f.ops().len() - 1);
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn root(&self) -> usize {
        self.root
    }

    /// The input names, in order of first use (the order [`Expr::eval`] takes them in).
    ///
    /// ```
    /// let f = autograd_expr::parse("y * x + y")?;
    /// assert_eq!(f.inputs(), ["y", "x"]); // the order of first use
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    /// The name an assignment gave operation `i` (`c` in `c = a + b`), if any.
    ///
    /// ```
    /// let f = autograd_expr::parse("c = a + b; c * 2")?;
    /// let sum = f.ops().iter().position(|op| matches!(op, autograd_expr::Op::Add(..))).unwrap();
    /// assert_eq!(f.name(sum), Some("c"));
    /// assert_eq!(f.name(f.root()), None);
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn name(&self, i: usize) -> Option<&str> {
        self.names[i].as_deref()
    }

    /// The index of the operation reading input `k`, if the expression has one.
    ///
    /// ```
    /// use autograd_expr::Op;
    /// let f = autograd_expr::parse("3 * x")?;
    /// let i = f.input_op(0).unwrap();
    /// assert_eq!(f.ops()[i], Op::Input(0));
    /// assert_eq!(f.input_op(1), None);
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn input_op(&self, k: usize) -> Option<usize> {
        self.ops.iter().position(|op| *op == Op::Input(k))
    }

    /// The same expression taking its inputs in the order of `names` (each input exactly once;
    /// names may include inputs the expression does not use, whose derivative is then 0).
    ///
    /// # Errors
    /// A message naming the input missing from `names`, or a name given twice.
    ///
    /// ```
    /// let f = autograd_expr::parse("x - y")?;
    /// let g = f.with_input_order(&["y", "x", "z"]).unwrap();
    /// assert_eq!(g.eval(&[1.0_f64, 10.0, 0.0]), 9.0); // x = 10, y = 1
    /// assert_eq!(f.with_input_order(&["x"]).unwrap_err(), "no value for `y`");
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn with_input_order(&self, names: &[&str]) -> Result<Expr, String> {
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return Err(format!("`{n}` is given twice"));
            }
        }
        let mut map = Vec::with_capacity(self.inputs.len());
        for input in &self.inputs {
            match names.iter().position(|n| n == input) {
                Some(k) => map.push(k),
                None => return Err(format!("no value for `{input}`")),
            }
        }
        let mut out = self.clone();
        for op in &mut out.ops {
            if let Op::Input(k) = op {
                *k = map[*k];
            }
        }
        out.inputs = names.iter().map(|n| n.to_string()).collect();
        Ok(out)
    }

    /// The value of every operation at `x` (`x[i]` the value of input `i`).
    ///
    /// # Panics
    /// If `x.len()` differs from the number of inputs.
    ///
    /// ```
    /// let f = autograd_expr::parse("(x + 1)^2")?;
    /// let v = f.eval_all(&[2.0_f64]);
    /// assert_eq!(v[f.root()], 9.0);
    /// assert!(v.contains(&3.0)); // x + 1 on the way
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn eval_all<T: Number>(&self, x: &[T]) -> Vec<T> {
        assert_eq!(x.len(), self.inputs.len(), "one value per input");
        let mut v: Vec<T> = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            let y = op.apply(&v, x);
            v.push(y);
        }
        v
    }

    /// The value of the expression at `x` (`x[i]` the value of input `i`).
    ///
    /// # Panics
    /// If `x.len()` differs from the number of inputs.
    ///
    /// ```
    /// use autograd_core::Dual;
    /// let f = autograd_expr::parse("x * sin(x)")?;
    /// assert_eq!(f.eval(&[0.0_f64]), 0.0);
    /// let d = f.eval(&[Dual::variable(0.0_f64)]); // sin x + x cos x at 0
    /// assert_eq!((d.re, d.eps), (0.0, 0.0));
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn eval<T: Number>(&self, x: &[T]) -> T {
        self.eval_all(x)[self.root]
    }

    /// The expression with every operation in parentheses, as the parser read it:
    /// `-x^2` reads `-(x^2)`, `2^3^2` reads `2^9` (a constant exponent is computed when
    /// parsing). Named operations appear by name.
    ///
    /// ```
    /// let f = autograd_expr::parse("-x^2 + 2^3^2")?;
    /// assert_eq!(f.read_as(), "(-(x^2)) + (2^9)"); // the exponent 3^2 computed when parsing
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn read_as(&self) -> String {
        self.text(self.root, true)
    }

    /// Operation `i` written out as [`read_as`](Self::read_as) writes the whole expression
    /// (a named intermediate value by its definition). `None` if there is no operation `i`.
    ///
    /// ```
    /// let f = autograd_expr::parse("c = a*b; relu(c + 1) * 2")?;
    /// let relu = f.ops().iter().position(|op| matches!(op, autograd_expr::Op::Call(..)));
    /// assert_eq!(f.op_text(relu.unwrap()).as_deref(), Some("relu(c + 1)"));
    /// assert_eq!(f.op_text(f.ops().len()), None);
    /// # Ok::<(), autograd_expr::ParseError>(())
    /// ```
    pub fn op_text(&self, i: usize) -> Option<String> {
        (i < self.ops.len()).then(|| self.text(i, true))
    }

    fn text(&self, i: usize, top: bool) -> String {
        if !top {
            if let Some(name) = &self.names[i] {
                return name.clone();
            }
        }
        let t = |j: usize| self.text(j, false);
        let s = match &self.ops[i] {
            Op::Const(c) if *c < 0.0 => return format!("({c})"),
            Op::Const(c) => return format!("{c}"),
            Op::Input(k) => return self.inputs[*k].clone(),
            Op::Neg(a) => format!("-{}", t(*a)),
            Op::Add(a, b) => format!("{} + {}", t(*a), t(*b)),
            Op::Sub(a, b) => format!("{} - {}", t(*a), t(*b)),
            Op::Mul(a, b) => format!("{} * {}", t(*a), t(*b)),
            Op::Div(a, b) => format!("{} / {}", t(*a), t(*b)),
            Op::Powi(a, n) if *n < 0 => format!("{}^({n})", t(*a)),
            Op::Powi(a, n) => format!("{}^{n}", t(*a)),
            Op::Powf(a, c) => format!("{}^{c}", t(*a)),
            Op::Pow(a, b) => format!("{}^{}", t(*a), t(*b)),
            Op::Call(f, a) => return format!("{}({})", f.name(), self.text(*a, true)),
            Op::LeakyRelu(a, s) => return format!("leaky_relu({}, {s})", self.text(*a, true)),
            Op::Max(a, b) => {
                return format!("max({}, {})", self.text(*a, true), self.text(*b, true))
            }
            Op::Min(a, b) => {
                return format!("min({}, {})", self.text(*a, true), self.text(*b, true))
            }
        };
        if top {
            s
        } else {
            format!("({s})")
        }
    }
}

impl Function for Expr {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        Expr::eval(self, x)
    }
}
