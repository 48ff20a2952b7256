//! The expression as a tree: leaves (what is not differentiated inside the statement),
//! constants and the table's operations, in post-order.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{BinOp, Expr, Ident, Lit, UnOp};

/// A node of the expression: its operands are earlier nodes (post-order).
pub(crate) enum Node {
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
    /// A two-input operation: its `Op` variant, its operands, and how it is written.
    Binary {
        variant: Ident,
        left: usize,
        right: usize,
        written: Written,
    },
}

/// How a two-input operation is written: `a + b` or `a.max(b)`.
pub(crate) enum Written {
    Operator(BinOp),
    Method(Ident),
}

#[derive(Default)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
    /// The leaves' expressions, in the order they are first met, and the text that makes a
    /// simple one (a path, a field, an index) the same leaf where it is named again.
    pub(crate) leaves: Vec<(Expr, Option<String>)>,
}

/// The one-input operations of the table that `stmt!` differentiates, by method name, with
/// their `Op` variant; `powi`, `powf` and `leaky_relu` (with a literal parameter) are handled
/// apart. Checked against the core's table by the test below.
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
    pub(crate) fn node(&mut self, e: &Expr) -> usize {
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
                    written: Written::Operator(b.op),
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
                        written: Written::Method(m.method.clone()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use autograd_core::Op;

    /// `UNARY` and `BINARY` are the core's table: every one-input operation whose name is its
    /// `Number` method (all but the negation, the two constant folds and the three with a
    /// parameter, which `node` handles apart), and every two-input one but the four operators,
    /// each with its variant. An operation added to the table and not here fails this test (it
    /// would otherwise be a leaf inside `stmt!`: right, and slower).
    #[test]
    fn the_lists_are_the_tables_operations() {
        let apart = [
            "neg",
            "*c",
            "+c",
            "powi",
            "powf",
            "leaky_relu",
            "sum",
            "dot",
        ];
        let operators = ["+", "-", "*", "/"];
        let listed = |arity: usize, skip: &[&str]| -> Vec<(String, String)> {
            Op::ALL
                .iter()
                .filter(|op| op.arity() == arity && !skip.contains(&op.name()))
                .map(|op| (op.name().to_string(), format!("{op:?}")))
                .collect()
        };
        let ours = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(m, v)| (m.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(ours(UNARY), listed(1, &apart));
        assert_eq!(ours(BINARY), listed(2, &operators));
    }
}
