//! Graphviz export of a recorded graph, in the manner of micrograd's `draw_dot`.

use core::fmt::{self, Write};

use crate::{Scalar, TapeView};

impl<S: Scalar> TapeView<S> {
    /// Writes the recorded graph as Graphviz DOT: one record per node with its index, operation,
    /// value and adjoint (from the last backward sweep), and an edge from each input to its user.
    /// Streams through any `fmt::Write`, so it needs no allocation (a `heapless::String` works on
    /// a microcontroller). Render with `dot -Tsvg graph.dot > graph.svg`.
    ///
    /// ```
    /// use autograd_core::Tape;
    /// let tape = Tape::<f64, 8>::new();
    /// let (x1, x2) = (tape.var(2.0), tape.var(3.0));
    /// let y = (x1 * x2 + 1.0).relu();
    /// tape.backward(y)?;
    /// let mut dot = heapless::String::<1024>::new();
    /// tape.write_dot(&mut dot).unwrap();
    /// assert!(dot.starts_with("digraph tape {"));
    /// assert!(dot.contains("n4 [label=\"{ #4 | relu | data 7 | grad 1 }\"]"));
    /// assert!(dot.contains("n2 -> n3"));
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn write_dot<W: Write>(&self, w: &mut W) -> fmt::Result {
        w.write_str("digraph tape {\n  rankdir=LR;\n  node [shape=record];\n")?;
        let mut result = Ok(());
        let walked = self.for_each_node(|i, node| {
            if result.is_err() {
                return;
            }
            result = (|| {
                writeln!(
                    w,
                    "  n{i} [label=\"{{ #{i} | {} | data {} | grad {} }}\"];",
                    node.op(),
                    node.value(),
                    node.grad()
                )?;
                let [a, b] = node.inputs();
                match node.op().arity() {
                    2 => writeln!(w, "  n{a} -> n{i};\n  n{b} -> n{i};"),
                    1 => writeln!(w, "  n{a} -> n{i};"),
                    _ => Ok(()),
                }
            })();
        });
        result?;
        walked.map_err(|_| fmt::Error)?;
        w.write_str("}\n")
    }
}
