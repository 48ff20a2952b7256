//! [`ParseError`]: what went wrong, and where (a column a caret can point at).

use core::fmt;

/// A syntax error: the character range it is about and a sentence saying what was expected.
///
/// `start`/`end` count characters (not bytes) from the start of the source, so a caret under
/// column `start + 1` points at the culprit whatever the script. [`ParseError::render`] draws it.
///
/// ```
/// let err = autograd_expr::parse("sin(x").unwrap_err();
/// assert_eq!((err.start, err.end), (5, 6)); // at the end of the input
/// assert!(err.message.ends_with("(the `(` at column 4 is not closed)"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseError {
    /// Index of the first character of the offending text.
    pub start: usize,
    /// One past its last character (`start + 1` at least, even at the end of the input).
    pub end: usize,
    /// What was expected and what was found, e.g. "expected `)`, found the end of the input".
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(start: usize, end: usize, message: impl Into<String>) -> Self {
        ParseError {
            start,
            end: end.max(start + 1),
            message: message.into(),
        }
    }

    /// The message, then the source line with carets under the offending text:
    ///
    /// ```
    /// let err = autograd_expr::parse("x^3 - * 2").unwrap_err();
    /// assert_eq!(
    ///     err.render("x^3 - * 2"),
    ///     "column 7: expected a number, a name or `(`, found `*`\n  x^3 - * 2\n        ^"
    /// );
    /// ```
    pub fn render(&self, source: &str) -> String {
        // Locate the line holding `start` (statements may be on separate lines).
        let mut line_start = 0;
        let mut line_no = 1;
        for (i, c) in source.chars().enumerate() {
            if i >= self.start {
                break;
            }
            if c == '\n' {
                line_start = i + 1;
                line_no += 1;
            }
        }
        let line: String = source
            .chars()
            .skip(line_start)
            .take_while(|&c| c != '\n')
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let line_len = line.chars().count();
        let col = self.start - line_start;
        let width = (self.end.min(line_start + line_len.max(col + 1)) - self.start).max(1);
        let place = if source.contains('\n') {
            format!("line {line_no}, column {}", col + 1)
        } else {
            format!("column {}", col + 1)
        };
        format!(
            "{place}: {}\n  {line}\n  {}{}",
            self.message,
            " ".repeat(col),
            "^".repeat(width)
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.start + 1, self.message)
    }
}

impl core::error::Error for ParseError {}
