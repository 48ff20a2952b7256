//! Aligned text tables, written once for every task: plain (columns two spaces apart, as `grad`
//! and `fuzz` print) or Markdown (as `firmware` prints, pasteable into the READMEs). Widths
//! count characters, so `µs` and `–` align like any letter.

use std::fmt::Write as _;

/// A header and rows of cells; each column left-aligned (names) or right-aligned (numbers).
pub struct Table {
    header: Vec<String>,
    left: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Columns as (title, left-aligned).
    pub fn new(columns: &[(&str, bool)]) -> Self {
        Table {
            header: columns.iter().map(|(h, _)| h.to_string()).collect(),
            left: columns.iter().map(|(_, l)| *l).collect(),
            rows: Vec::new(),
        }
    }

    /// A row (as many cells as columns).
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len());
        self.rows.push(row);
    }

    fn widths(&self) -> Vec<usize> {
        (0..self.header.len())
            .map(|c| {
                self.rows
                    .iter()
                    .chain([&self.header])
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    fn cells(&self, row: &[String], widths: &[usize]) -> Vec<String> {
        row.iter()
            .zip(widths)
            .zip(&self.left)
            .map(|((s, &w), &left)| {
                if left {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            })
            .collect()
    }

    /// Columns two spaces apart, each line after `indent`, trailing blanks trimmed.
    pub fn plain(&self, indent: &str) -> String {
        let widths = self.widths();
        let mut out = String::new();
        for row in [&self.header].into_iter().chain(&self.rows) {
            let line = self.cells(row, &widths).join("  ");
            let _ = writeln!(out, "{indent}{}", line.trim_end());
        }
        out
    }

    /// A Markdown table, padded so it also reads as text.
    pub fn markdown(&self) -> String {
        let widths = self.widths();
        let mut out = String::new();
        for (i, row) in [&self.header].into_iter().chain(&self.rows).enumerate() {
            let _ = writeln!(out, "| {} |", self.cells(row, &widths).join(" | "));
            if i == 0 {
                let rule: Vec<String> = widths
                    .iter()
                    .zip(&self.left)
                    .map(|(w, &left)| {
                        if left {
                            "-".repeat(w + 2)
                        } else {
                            format!("{}:", "-".repeat(w + 1))
                        }
                    })
                    .collect();
                let _ = writeln!(out, "|{}|", rule.join("|"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let mut t = Table::new(&[("name", true), ("time", false)]);
        t.push(vec!["dense".into(), "1.5 µs".into()]);
        t.push(vec!["x".into(), "12".into()]);
        t
    }

    #[test]
    fn plain_columns_align_by_characters() {
        assert_eq!(
            table().plain("  "),
            "  name     time\n  dense  1.5 µs\n  x          12\n"
        );
    }

    #[test]
    fn markdown_marks_right_aligned_columns() {
        assert_eq!(
            table().markdown(),
            "| name  |   time |\n|-------|-------:|\n| dense | 1.5 µs |\n| x     |     12 |\n"
        );
    }
}
