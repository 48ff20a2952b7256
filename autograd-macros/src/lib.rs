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

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{parse_macro_input, BinOp, Expr, Ident, Lit, UnOp};

/// One expression recorded as one statement; see the [crate documentation](crate).
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

/// A node of the expression: its operands are earlier nodes (post-order).
enum Node {
    /// Leaf `k` (an occurrence of it: a leaf named twice is two nodes of one leaf).
    Leaf(usize),
    /// A constant, an `f64` expression.
    Const(Tokens),
    /// `-x`
    Neg(usize),
    /// A one-input operation of the table: its method and `Op` variant, its operand, and its
    /// literal parameter, as the number method takes it and as the rule takes it.
    Unary {
        method: Ident,
        variant: Ident,
        arg: usize,
        param: Option<(Tokens, Tokens)>,
    },
    /// A two-input operation: its `Op` variant, its operands, and its method (`None` for an
    /// operator).
    Binary {
        variant: Ident,
        left: usize,
        right: usize,
        method: Option<Ident>,
        operator: Option<BinOp>,
    },
}

#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
    /// The leaves' expressions, in the order they are first met, and the text that makes a
    /// simple one (a path, a field, an index) the same leaf where it is named again.
    leaves: Vec<(Expr, Option<String>)>,
}

/// The one-input operations of the table that `stmt!` differentiates, by method name, with
/// their `Op` variant; `powi`, `powf` and `leaky_relu` (with a literal parameter) are handled
/// apart. Checked against the core's table by this crate's tests (`table.rs`).
const UNARY: &[(&str, &str)] = &[
    ("square", "Square"),
    ("exp", "Exp"),
    ("ln", "Ln"),
    ("sqrt", "Sqrt"),
    ("sin", "Sin"),
    ("cos", "Cos"),
    ("tan", "Tan"),
    ("tanh", "Tanh"),
    ("sigmoid", "Sigmoid"),
    ("relu", "Relu"),
    ("abs", "Abs"),
    ("softplus", "Softplus"),
    ("atan", "Atan"),
    ("asin", "Asin"),
    ("acos", "Acos"),
    ("sinh", "Sinh"),
    ("cosh", "Cosh"),
    ("log2", "Log2"),
    ("log10", "Log10"),
    ("exp2", "Exp2"),
    ("cbrt", "Cbrt"),
];

/// The two-input methods, with their `Op` variant.
const BINARY: &[(&str, &str)] = &[
    ("pow", "Pow"),
    ("max", "Max"),
    ("min", "Min"),
    ("atan2", "Atan2"),
    ("hypot", "Hypot"),
];

impl Tree {
    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The node of `e`, its operands pushed first.
    fn node(&mut self, e: &Expr) -> usize {
        match e {
            Expr::Paren(p) => self.node(&p.expr),
            Expr::Group(g) => self.node(&g.expr),
            Expr::Lit(l) if matches!(l.lit, Lit::Float(_) | Lit::Int(_)) => {
                self.push(Node::Const(quote!(#l)))
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
                if let Expr::Lit(l) = &*u.expr {
                    if matches!(l.lit, Lit::Float(_) | Lit::Int(_)) {
                        return self.push(Node::Const(quote!(-#l)));
                    }
                }
                let arg = self.node(&u.expr);
                self.push(Node::Neg(arg))
            }
            Expr::Binary(b) => {
                let variant = match b.op {
                    BinOp::Add(_) => "Add",
                    BinOp::Sub(_) => "Sub",
                    BinOp::Mul(_) => "Mul",
                    BinOp::Div(_) => "Div",
                    _ => return self.leaf(e),
                };
                let left = self.node(&b.left);
                let right = self.node(&b.right);
                self.push(Node::Binary {
                    variant: Ident::new(variant, Span::call_site()),
                    left,
                    right,
                    method: None,
                    operator: Some(b.op),
                })
            }
            Expr::Call(c) => match constant(c) {
                Some(tokens) => self.push(Node::Const(tokens)),
                None => self.leaf(e),
            },
            Expr::MethodCall(m) if m.turbofish.is_none() => {
                let name = m.method.to_string();
                let args: Vec<&Expr> = m.args.iter().collect();
                if let (Some(&(_, variant)), []) = (UNARY.iter().find(|u| u.0 == name), &args[..]) {
                    let arg = self.node(&m.receiver);
                    return self.push(Node::Unary {
                        method: m.method.clone(),
                        variant: Ident::new(variant, Span::call_site()),
                        arg,
                        param: None,
                    });
                }
                if let (Some(&(_, variant)), [other]) =
                    (BINARY.iter().find(|b| b.0 == name), &args[..])
                {
                    let left = self.node(&m.receiver);
                    let right = self.node(other);
                    return self.push(Node::Binary {
                        variant: Ident::new(variant, Span::call_site()),
                        left,
                        right,
                        method: Some(m.method.clone()),
                        operator: None,
                    });
                }
                match (name.as_str(), &args[..]) {
                    ("powi", [Expr::Lit(l)]) if matches!(l.lit, Lit::Int(_)) => {
                        self.parameterized(m, "Powi", quote!(#l), quote!(#l))
                    }
                    ("powf" | "leaky_relu", [p]) if literal(p) => {
                        let variant = if name == "powf" { "Powf" } else { "LeakyRelu" };
                        self.parameterized(
                            m,
                            variant,
                            quote!((#p) as f64),
                            quote!(S::from_f64((#p) as f64)),
                        )
                    }
                    _ => self.leaf(e),
                }
            }
            _ => self.leaf(e),
        }
    }

    fn parameterized(
        &mut self,
        m: &syn::ExprMethodCall,
        variant: &str,
        number: Tokens,
        rule: Tokens,
    ) -> usize {
        let arg = self.node(&m.receiver);
        self.push(Node::Unary {
            method: m.method.clone(),
            variant: Ident::new(variant, Span::call_site()),
            arg,
            param: Some((number, rule)),
        })
    }

    /// A leaf: the same leaf as before where a simple expression is named again.
    fn leaf(&mut self, e: &Expr) -> usize {
        let key = simple(e).then(|| quote!(#e).to_string());
        let k = match self
            .leaves
            .iter()
            .position(|(_, k)| k.is_some() && *k == key)
        {
            Some(k) => k,
            None => {
                self.leaves.push((e.clone(), key));
                self.leaves.len() - 1
            }
        };
        self.push(Node::Leaf(k))
    }

    /// The expression over any `Number` `N`, from node `i`, the leaves named `x0, x1, ...`.
    fn eval(&self, i: usize) -> Tokens {
        match &self.nodes[i] {
            Node::Leaf(k) => {
                let x = format_ident!("x{}", k);
                quote!(#x)
            }
            Node::Const(c) => quote!(N::from_f64((#c) as f64)),
            Node::Neg(a) => {
                let a = self.eval(*a);
                quote!((-(#a)))
            }
            Node::Unary {
                method, arg, param, ..
            } => {
                let a = self.eval(*arg);
                match param {
                    Some((p, _)) => quote!((#a).#method(#p)),
                    None => quote!((#a).#method()),
                }
            }
            Node::Binary {
                left,
                right,
                method,
                operator,
                ..
            } => {
                let (l, r) = (self.eval(*left), self.eval(*right));
                match (method, operator) {
                    (Some(m), _) => quote!((#l).#m(#r)),
                    (None, Some(op)) => quote!(((#l) #op (#r))),
                    (None, None) => unreachable!("a two-input node is a method or an operator"),
                }
            }
        }
    }

    /// The straight-line value and partials: every node's value `v_i` and local partials in
    /// post-order, then every node's adjoint `a_i` from the root down, each leaf's partial the
    /// sum of its occurrences' adjoints.
    fn jacobian(&self, root: usize) -> Tokens {
        let rules = quote!(::autograd_core::rules);
        let op = quote!(::autograd_core::Op);
        let v = |i: usize| format_ident!("v{}", i);
        let d = |i: usize, side: &str| format_ident!("d{}{}", i, side);
        let adj = |i: usize| format_ident!("a{}", i);
        let mut forward = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            let vi = v(i);
            forward.push(match node {
                Node::Leaf(k) => {
                    let x = format_ident!("x{}", k);
                    quote!(let #vi = #x;)
                }
                Node::Const(c) => quote!(let #vi = S::from_f64((#c) as f64);),
                Node::Neg(a) => {
                    let (va, di) = (v(*a), d(i, ""));
                    quote!(let (#vi, #di) = #rules::negate(#va);)
                }
                Node::Unary {
                    method, arg, param, ..
                } => {
                    let (va, di) = (v(*arg), d(i, ""));
                    match param {
                        Some((_, p)) => quote!(let (#vi, #di) = #rules::#method(#va, #p);),
                        None => quote!(let (#vi, #di) = #rules::#method(#va);),
                    }
                }
                Node::Binary {
                    variant,
                    left,
                    right,
                    ..
                } => {
                    let (vl, vr, dl, dr) = (v(*left), v(*right), d(i, "l"), d(i, "r"));
                    quote!(let (#vi, #dl, #dr) = #rules::binary(#op::#variant, #vl, #vr);)
                }
            });
        }
        // Adjoints from the root down (the root is the last node, every other one is below
        // it); a constant needs none.
        let mut backward = vec![{
            let a = adj(root);
            quote!(let #a = S::ONE;)
        }];
        let mut occurrences: Vec<Vec<usize>> = vec![Vec::new(); self.leaves.len()];
        for i in (0..self.nodes.len()).rev() {
            let ai = adj(i);
            let mut send = |child: usize, partial: Tokens| {
                if !matches!(self.nodes[child], Node::Const(_)) {
                    let ac = adj(child);
                    backward.push(quote!(let #ac = #ai * #partial;));
                }
            };
            match &self.nodes[i] {
                Node::Leaf(k) => occurrences[*k].push(i),
                Node::Const(_) => {}
                Node::Neg(a) | Node::Unary { arg: a, .. } => {
                    let di = d(i, "");
                    send(*a, quote!(#di));
                }
                Node::Binary { left, right, .. } => {
                    let (dl, dr) = (d(i, "l"), d(i, "r"));
                    send(*left, quote!(#dl));
                    send(*right, quote!(#dr));
                }
            }
        }
        let partials = occurrences.iter().map(|uses| match &uses[..] {
            [] => quote!(S::ZERO),
            [first, rest @ ..] => {
                let first = adj(*first);
                let rest = rest.iter().map(|&u| adj(u));
                quote!(#first #(+ #rest)*)
            }
        });
        let value = v(root);
        quote! {
            #(#forward)*
            #(#backward)*
            (#value, [#(#partials),*])
        }
    }

    /// The statement: the leaves evaluated in order, then `Number::statement` on them.
    fn expand(&self, root: usize) -> Tokens {
        let l = self.leaves.len();
        let xs: Vec<Ident> = (0..l).map(|k| format_ident!("x{}", k)).collect();
        let leaves = self.leaves.iter().map(|(e, _)| e);
        let eval = self.eval(root);
        let jacobian = self.jacobian(root);
        let variant = match &self.nodes[root] {
            Node::Leaf(_) | Node::Const(_) => Ident::new("Leaf", Span::call_site()),
            Node::Neg(_) => Ident::new("Neg", Span::call_site()),
            Node::Unary { variant, .. } | Node::Binary { variant, .. } => variant.clone(),
        };
        // Whether a zero partial cuts (`Statement::CUTS`): where a one-input operation flat over
        // intervals is in the expression.
        let flat = self.nodes.iter().filter_map(|n| match n {
            Node::Unary { variant, .. } => {
                Some(quote!(|| ::autograd_core::Op::#variant.has_flat_regions()))
            }
            _ => None,
        });
        quote! {{
            struct __Statement;
            #[allow(clippy::all, unused, non_snake_case)]
            impl ::autograd_core::Statement<#l> for __Statement {
                const OP: ::autograd_core::Op = ::autograd_core::Op::#variant;
                const CUTS: bool = false #(#flat)*;
                #[inline(always)]
                fn eval<N: ::autograd_core::Number>(&self, [#(#xs),*]: [N; #l]) -> N {
                    #eval
                }
                #[inline(always)]
                fn jacobian<S: ::autograd_core::Scalar>(&self, [#(#xs),*]: [S; #l]) -> (S, [S; #l]) {
                    #jacobian
                }
            }
            ::autograd_core::Number::statement(&__Statement, [#(&(#leaves)),*])
        }}
    }
}

/// `T::from_f64(literal)`, `T::one()`, `T::zero()`: the constant, as an `f64` expression.
fn constant(c: &syn::ExprCall) -> Option<Tokens> {
    let Expr::Path(p) = &*c.func else {
        return None;
    };
    let name = p.path.segments.last()?.ident.to_string();
    let args: Vec<&Expr> = c.args.iter().collect();
    match (name.as_str(), &args[..]) {
        ("from_f64", [a]) if literal(a) => Some(quote!(#a)),
        ("one", []) if p.path.segments.len() > 1 => Some(quote!(1.0)),
        ("zero", []) if p.path.segments.len() > 1 => Some(quote!(0.0)),
        _ => None,
    }
}

/// A number literal, or one negated.
fn literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => matches!(l.lit, Lit::Float(_) | Lit::Int(_)),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => literal(&u.expr),
        Expr::Paren(p) => literal(&p.expr),
        _ => false,
    }
}

/// A leaf whose every mention is the same value: a path (a variable), a field of one, an index
/// of one by a literal or a path.
fn simple(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => true,
        Expr::Field(f) => simple(&f.base),
        Expr::Index(i) => simple(&i.expr) && matches!(&*i.index, Expr::Lit(_) | Expr::Path(_)),
        Expr::Paren(p) => simple(&p.expr),
        _ => false,
    }
}
