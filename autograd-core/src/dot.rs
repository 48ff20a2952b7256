//! Graphviz export of a recorded tape, in the manner of micrograd's `draw_dot`.

use core::fmt::{self, Write};

use crate::{Scalar, TapeView};

impl<S: Scalar> TapeView<S> {
    /// Writes the recorded statements as Graphviz DOT: one record per statement (leaves
    /// included) with its index, operation, value and adjoint (from the last backward sweep), and
    /// an edge from each operand to its statement, labelled with the recorded partial derivative,
    /// in operand order. Streams through any `fmt::Write`, so it needs no allocation (a
    /// `heapless::String` works on a microcontroller). Render with `dot -Tsvg tape.dot`.
    ///
    /// Intermediate results that never needed a statement of their own (see [`crate::Var`]) do
    /// not appear: their partials are folded into the edges.
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
    /// assert!(dot.contains("n0 -> n4 [label=\"3\"]"), "{dot}");
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn write_dot<W: Write>(&self, w: &mut W) -> fmt::Result {
        w.write_str("digraph tape {\n  rankdir=LR;\n  node [shape=record];\n")?;
        let written = self.with_slots(|slots| -> fmt::Result {
            for (i, h) in slots.iter().enumerate() {
                if !h.is_header() {
                    continue;
                }
                writeln!(
                    w,
                    "  n{i} [label=\"{{ #{i} | {} | data {} | grad {} }}\"];",
                    h.op(),
                    h.x,
                    h.adj
                )?;
                for o in &slots[i - h.count()..i] {
                    writeln!(w, "  n{} -> n{i} [label=\"{}\"];", o.link, o.x)?;
                }
            }
            Ok(())
        });
        written.map_err(|_| fmt::Error)??;
        w.write_str("}\n")
    }
}
