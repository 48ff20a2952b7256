//! The code `stmt!` writes for a tree: the expression again over any `Number` (`eval`), its
//! straight-line value and partials (`jacobian`), and the statement's call.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::Ident;

use crate::tree::{Node, Tree, Written};

impl Tree {
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
                written,
                ..
            } => {
                let (l, r) = (self.eval(*left), self.eval(*right));
                match written {
                    Written::Method(m) => quote!((#l).#m(#r)),
                    Written::Operator(op) => quote!(((#l) #op (#r))),
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
    pub(crate) fn expand(&self, root: usize) -> Tokens {
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
