//! Graphviz export of a recorded tape, in the manner of micrograd's `draw_dot`.

use core::fmt::{self, Write};

use crate::{Scalar, TapeView};

impl<S: Scalar> TapeView<S> {
    /// Writes the recorded statements as Graphviz DOT: one record per statement (leaves
    /// included) with its index, operation, value and adjoint (from the last backward sweep), and
    /// an edge from each operand to its statement labelled `k: partial`, `k` being the operand's
    /// position (1, 2, ...) and `partial` the recorded local derivative. Numbers are printed
    /// compactly (`0.3`, `1e300`, `-2.5e-7`: at most 5 significant digits; for a tape of dual
    /// numbers, the real part). Streams through any `fmt::Write`, so it needs no allocation (a
    /// `heapless::String` works on a microcontroller). Render with `dot -Tsvg tape.dot`.
    ///
    /// Intermediate results that never needed a statement of their own (see [`crate::Var`]) do
    /// not appear, and neither do constants and exponents: they are folded into the partials on
    /// the edges (`x * 100` shows as an edge labelled `100`, `x.powi(3)` as `3x^2`'s value). The
    /// operation shown is the last one applied.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (x1, x2) = (tape.var(2.0), tape.var(3.0));
    /// let y = (x1 * x2 + 1.0).relu().recorded()?;
    /// tape.backward(y)?;
    /// let mut dot = heapless::String::<1024>::new();
    /// tape.write_dot(&mut dot).unwrap();
    /// assert!(dot.starts_with("digraph tape {"));
    /// assert!(dot.contains("n4 [label=\"{ #4 | relu | data 7 | grad 1 }\"]"));
    /// assert!(dot.contains("n0 -> n4 [label=\"1: 3\"]"), "{dot}");
    /// assert!(dot.contains("n1 -> n4 [label=\"2: 2\"]"), "{dot}");
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn write_dot<W: Write>(&self, w: &mut W) -> fmt::Result {
        w.write_str("digraph tape {\n  rankdir=LR;\n  node [shape=record];\n")?;
        for (i, (h, v)) in self.slots().iter().zip(self.values()).enumerate() {
            if !h.is_header() {
                continue;
            }
            writeln!(
                w,
                "  n{i} [label=\"{{ #{i} | {} | data {} | grad {} }}\"];",
                h.op(),
                Compact(v.value().to_f64()),
                Compact(h.adj().to_f64())
            )?;
            for (k, (link, partial)) in self.operands(i).enumerate() {
                writeln!(
                    w,
                    "  n{link} -> n{i} [label=\"{}: {}\"];",
                    k + 1,
                    Compact(partial.to_f64())
                )?;
            }
        }
        w.write_str("}\n")
    }
}

/// A number in at most 5 significant digits: fixed notation from 1e-3 to 1e6, scientific
/// outside, trailing zeros dropped (`7`, `0.3`, `2.615`, `1e300`, `-2.5e-7`).
struct Compact(f64);

impl fmt::Display for Compact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let mut buf = heapless::String::<48>::new();
        if !x.is_finite() || x == 0.0 {
            return write!(f, "{}", if x == 0.0 { 0.0 } else { x }); // no "-0"
        }
        let magnitude = libm::floor(libm::log10(libm::fabs(x)));
        if (-3.0..6.0).contains(&magnitude) {
            // 5 significant digits in fixed notation.
            let decimals = (4.0 - magnitude).max(0.0) as usize;
            write!(buf, "{x:.decimals$}")?;
            f.write_str(trim_fraction(&buf))
        } else {
            write!(buf, "{x:.4e}")?;
            let (mantissa, exponent) = buf.split_once('e').unwrap_or((&buf, "0"));
            write!(f, "{}e{exponent}", trim_fraction(mantissa))
        }
    }
}

/// `2.5000` -> `2.5`, `7.000` -> `7`, `300` -> `300`.
fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::Compact;

    #[test]
    fn numbers_are_compact() {
        let cases = [
            (7.0, "7"),
            (0.1 + 0.2, "0.3"),
            (2.615, "2.615"),
            (-2.6145987, "-2.6146"),
            (1e300, "1e300"),
            (-2.5e-7, "-2.5e-7"),
            (123456.0, "123456"),
            (1234567.0, "1.2346e6"),
            (0.001, "0.001"),
            (0.000123, "1.23e-4"),
            (-0.0, "0"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "NaN"),
        ];
        for (x, want) in cases {
            let mut s = heapless::String::<64>::new();
            core::fmt::write(&mut s, format_args!("{}", Compact(x))).unwrap();
            assert_eq!(s.as_str(), want, "{x}");
        }
    }
}
