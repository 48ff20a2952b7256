//! The expression's graph as the lessons draw it (micrograd's `draw_dot`): one box per
//! operation with its value and its gradient `d(result)/d(node)`, an arrow from each operand to
//! its user labelled with the local partial derivative. Values and gradients come from
//! `autograd_expr::backprop`, the chain rule run over the expression itself (not from the
//! tape's internals). Written as Graphviz DOT, or laid out here and written as SVG, so no
//! Graphviz is needed.
//!
//! Layout: results on the right, inputs on the left (as micrograd's `rankdir=LR`). A node's
//! column is its longest path to the result; rows come from a depth-first walk from the result
//! (a leaf takes the next free row, an operation sits at the mean of its operands), then each
//! column is spread so no two boxes overlap. For a tree this draws no crossing edges; when
//! operations are shared (statements), a few barycentre sweeps shorten the crossing edges.

use std::fmt::Write as _;

use autograd_expr::{backprop, Backprop, Expr, Op};

use super::report::num;
use crate::svg::{escape, Svg};

/// The operations the result depends on, in evaluation order.
fn reachable(f: &Expr) -> Vec<bool> {
    let mut used = vec![false; f.ops().len()];
    used[f.root()] = true;
    for i in (0..=f.root()).rev() {
        if used[i] {
            let (args, n) = f.ops()[i].args();
            for &a in &args[..n] {
                used[a] = true;
            }
        }
    }
    used
}

/// The title of a node: `tanh`, `+`, `x1`, `2`, with the name it was given (`c = +`).
fn title(f: &Expr, i: usize) -> String {
    let op = f.ops()[i].label(f.inputs());
    match (f.name(i), &f.ops()[i]) {
        (Some(name), op_kind) if !matches!(op_kind, Op::Input(_)) => format!("{name} = {op}"),
        _ => op,
    }
}

/// A compact number for a box: 4 decimals like micrograd, exponent form when that hides it.
fn short(v: f64) -> String {
    let v = v + 0.0; // -0 reads as 0
    if v == 0.0 || !v.is_finite() || (1e-3..1e6).contains(&v.abs()) {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.3e}")
    }
}

fn edges(f: &Expr, used: &[bool]) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for (i, op) in f.ops().iter().enumerate() {
        if used[i] {
            let (args, n) = op.args();
            for (k, &a) in args[..n].iter().enumerate() {
                out.push((a, i, k));
            }
        }
    }
    out
}

/// Graphviz DOT (render with `dot -Tsvg`).
pub fn dot(f: &Expr, x: &[f64]) -> String {
    let b = backprop(f, x);
    let used = reachable(f);
    let mut out = String::from(
        "digraph expression {\n  rankdir=LR;\n  node [shape=record, fontname=\"Helvetica\"];\n  \
         edge [fontname=\"Helvetica\", fontsize=10];\n",
    );
    for i in (0..used.len()).filter(|&i| used[i]) {
        // Characters that structure a record label are escaped.
        let label: String = title(f, i)
            .chars()
            .flat_map(|c| {
                let special = matches!(c, '{' | '}' | '|' | '<' | '>' | '"' | '\\');
                special.then_some('\\').into_iter().chain([c])
            })
            .collect();
        let _ = writeln!(
            out,
            "  n{i} [label=\"{{ {} | data {} | grad {} }}\"];",
            label,
            short(b.values[i]),
            short(b.grads[i])
        );
    }
    for (a, i, k) in edges(f, &used) {
        let _ = writeln!(
            out,
            "  n{a} -> n{i} [label=\"∂ {}\"];",
            short(b.partials[i][k])
        );
    }
    out.push_str("}\n");
    out
}

const BOX_W: f64 = 150.0;
const BOX_H: f64 = 58.0;
const COL_W: f64 = 230.0;
const ROW_H: f64 = 84.0;
const MARGIN: f64 = 30.0;
const TOP: f64 = 70.0;

/// Columns (0 = the result) and rows (fractional) of the operations the result uses.
fn layout(f: &Expr, used: &[bool]) -> (Vec<usize>, Vec<f64>) {
    let n = f.ops().len();
    let mut col = vec![0usize; n];
    for i in (0..=f.root()).rev() {
        if used[i] {
            let (args, k) = f.ops()[i].args();
            for &a in &args[..k] {
                col[a] = col[a].max(col[i] + 1);
            }
        }
    }
    // Depth-first from the result, operands in order; without recursion.
    let mut row = vec![f64::NAN; n];
    let mut next_leaf = 0.0;
    let mut stack = vec![(f.root(), false)];
    while let Some((i, expanded)) = stack.pop() {
        if !row[i].is_nan() {
            continue;
        }
        let (args, k) = f.ops()[i].args();
        if k == 0 {
            row[i] = next_leaf;
            next_leaf += 1.0;
        } else if expanded {
            row[i] = args[..k].iter().map(|&a| row[a]).sum::<f64>() / k as f64;
        } else {
            stack.push((i, true));
            for &a in args[..k].iter().rev() {
                stack.push((a, false));
            }
        }
    }
    let max_col = col
        .iter()
        .zip(used)
        .filter(|(_, u)| **u)
        .map(|(c, _)| *c)
        .max();
    let max_col = max_col.unwrap_or(0);
    let spread = |row: &mut Vec<f64>| {
        for c in 0..=max_col {
            let mut members: Vec<usize> = (0..n).filter(|&i| used[i] && col[i] == c).collect();
            members.sort_by(|a, b| row[*a].total_cmp(&row[*b]));
            for w in 1..members.len() {
                let (prev, cur) = (members[w - 1], members[w]);
                if row[cur] < row[prev] + 1.0 {
                    row[cur] = row[prev] + 1.0;
                }
            }
        }
    };
    spread(&mut row);
    // A shared operation (a binding used twice, `c += c + 1`) makes a DAG: pull each node
    // towards the mean row of its users, then each user towards its operands, a few times
    // (barycentre sweeps), to shorten the crossing edges. A tree is already laid out.
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in (0..n).filter(|&i| used[i]) {
        let (args, k) = f.ops()[i].args();
        for &a in &args[..k] {
            users[a].push(i);
        }
    }
    if users.iter().any(|u| u.len() > 1) {
        let mean = |ids: &[usize], row: &[f64]| {
            ids.iter().map(|&j| row[j]).sum::<f64>() / ids.len() as f64
        };
        for _ in 0..4 {
            for i in (0..n).filter(|&i| used[i] && !users[i].is_empty()) {
                row[i] = mean(&users[i], &row);
            }
            spread(&mut row);
            for i in (0..n).filter(|&i| used[i]) {
                let (args, k) = f.ops()[i].args();
                if k > 0 {
                    row[i] = mean(&args[..k], &row);
                }
            }
            spread(&mut row);
        }
        // Rows start at 0.
        let top = (0..n)
            .filter(|&i| used[i])
            .map(|i| row[i])
            .fold(f64::INFINITY, f64::min);
        for r in row.iter_mut() {
            *r -= top;
        }
    }
    (col, row)
}

/// The graph as a standalone SVG.
pub fn svg(f: &Expr, x: &[f64], source: &str) -> String {
    let b: Backprop = backprop(f, x);
    let used = reachable(f);
    let (col, row) = layout(f, &used);
    let max_col = (0..used.len())
        .filter(|&i| used[i])
        .map(|i| col[i])
        .max()
        .unwrap_or(0);
    let max_row = (0..used.len())
        .filter(|&i| used[i])
        .map(|i| row[i])
        .fold(0.0, f64::max);
    let pos = |i: usize| {
        (
            MARGIN + (max_col - col[i]) as f64 * COL_W,
            TOP + row[i] * ROW_H,
        )
    };
    let width = (MARGIN * 2.0 + max_col as f64 * COL_W + BOX_W).max(560.0);
    let height = TOP + max_row * ROW_H + BOX_H + 40.0;
    let point: Vec<String> = f
        .inputs()
        .iter()
        .zip(x)
        .map(|(n, v)| format!("{n} = {}", num(*v)))
        .collect();

    let mut svg = Svg::new(
        width,
        height,
        "font-family=\"Helvetica, Arial, sans-serif\"",
    );
    svg.raw(
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" \
         fill=\"#555\"/></marker></defs>",
    );
    svg.text(
        MARGIN,
        24.0,
        "font-size=\"15\" font-weight=\"bold\"",
        &source.trim().replace('\n', "; "),
    );
    svg.text(
        MARGIN,
        44.0,
        "font-size=\"12\" fill=\"#444\"",
        &format!(
            "at {}; grad = d(result)/d(node); edge labels: local partial d(user)/d(operand)",
            point.join(", ")
        ),
    );
    // Edges first, so boxes sit on top of them.
    for (a, i, k) in edges(f, &used) {
        let (ax, ay) = pos(a);
        let (ix, iy) = pos(i);
        let (x1, y1) = (ax + BOX_W, ay + BOX_H / 2.0);
        // Two operands: enter the user's box above and below its middle.
        let (_, nargs) = f.ops()[i].args();
        let dy = if nargs == 2 {
            (k as f64 - 0.5) * 18.0
        } else {
            0.0
        };
        let (x2, y2) = (ix, iy + BOX_H / 2.0 + dy);
        let mx = (x1 + x2) / 2.0;
        svg.raw(&format!(
            "<path d=\"M{x1:.1},{y1:.1} C{mx:.1},{y1:.1} {mx:.1},{y2:.1} {x2:.1},{y2:.1}\" \
             fill=\"none\" stroke=\"#555\" stroke-width=\"1.3\" marker-end=\"url(#arrow)\"/>"
        ));
        let label = format!("∂ {}", short(b.partials[i][k]));
        // At the middle of the curve (where a cubic with these controls is at t = 1/2).
        let (lx, ly) = (mx, (y1 + y2) / 2.0 - 4.0);
        svg.text(
            lx,
            ly,
            "font-size=\"11\" fill=\"#1a5fb4\" text-anchor=\"middle\" stroke=\"white\" \
             stroke-width=\"3\" paint-order=\"stroke\"",
            &label,
        );
    }
    for i in (0..used.len()).filter(|&i| used[i]) {
        let (bx, by) = pos(i);
        let fill = match f.ops()[i] {
            Op::Input(_) => "#e8f1fb",
            Op::Const(_) => "#f4f4f4",
            _ if i == f.root() => "#fdf0d5",
            _ => "#ffffff",
        };
        svg.raw(&format!(
            "<g><rect x=\"{bx:.1}\" y=\"{by:.1}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"6\" \
             fill=\"{fill}\" stroke=\"#333\"/>\
             <line x1=\"{bx:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#bbb\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" font-weight=\"bold\" \
             text-anchor=\"middle\">{}</text>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">data {}</text>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" fill=\"#a51d2d\">grad {}</text></g>",
            by + 20.0,
            bx + BOX_W,
            by + 20.0,
            bx + BOX_W / 2.0,
            by + 15.0,
            escape(&title(f, i)),
            bx + 8.0,
            by + 35.0,
            short(b.values[i]),
            bx + 8.0,
            by + 51.0,
            short(b.grads[i]),
        ));
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lesson_graph_has_every_value_gradient_and_partial() {
        // y = relu(x1*x2 + 1) at (2, 3): the lesson's backward-pass diagram.
        let f = autograd_expr::parse("relu(x1*x2 + 1)").unwrap();
        let d = dot(&f, &[2.0, 3.0]);
        assert!(d.contains("[label=\"{ x1 | data 2 | grad 3 }\"]"), "{d}");
        assert!(d.contains("[label=\"{ * | data 6 | grad 1 }\"]"), "{d}");
        assert!(d.contains("[label=\"{ relu | data 7 | grad 1 }\"]"), "{d}");
        // da/dx1 = x2 = 3, da/dx2 = x1 = 2.
        assert!(d.contains("n0 -> n2 [label=\"∂ 3\"]"), "{d}");
        assert!(d.contains("n1 -> n2 [label=\"∂ 2\"]"), "{d}");
        let s = svg(&f, &[2.0, 3.0], "relu(x1*x2 + 1)");
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<rect x=").count(), 6); // x1, x2, *, 1, +, relu
        assert!(s.contains(">grad 3</text>"));
    }

    #[test]
    fn a_tree_gets_no_overlapping_boxes() {
        let f = autograd_expr::parse(include_str!("../../../autograd-expr/tests/micrograd.txt"))
            .unwrap();
        let used = reachable(&f);
        let (col, row) = layout(&f, &used);
        let live: Vec<usize> = (0..used.len()).filter(|&i| used[i]).collect();
        for &a in &live {
            for &b in &live {
                if a < b && col[a] == col[b] {
                    assert!((row[a] - row[b]).abs() >= 1.0, "{a} {b}");
                }
            }
        }
    }
}
