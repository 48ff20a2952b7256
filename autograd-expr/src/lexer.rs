//! Characters to tokens. Positions are character indices, for the caret of a [`ParseError`].

use crate::ParseError;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A finite number literal: `2`, `0.5`, `.5`, `1e-3`, `6.02E+23`.
    Num(f64),
    /// A name: a letter or `_`, then letters, digits or `_` (`x1`, `w_2`, `θ`).
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    /// `^` or `**`.
    Caret,
    LParen,
    RParen,
    Comma,
    Dot,
    /// `=`, or a compound assignment `+=`, `-=`, `*=`, `/=` (with its operator).
    Assign(Option<char>),
    /// `;` or a line break: ends a statement.
    Sep,
    Eof,
}

/// A token and the characters it came from (`start..end`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Token {
    /// How the token reads in a message: "`*`", "the name `x`", "the end of the input".
    pub fn describe(&self, source: &[char]) -> String {
        match &self.tok {
            Tok::Eof => "the end of the input".into(),
            Tok::Sep if source.get(self.start) == Some(&'\n') => "the end of the line".into(),
            Tok::Ident(name) => format!("the name `{name}`"),
            Tok::Num(_) => format!("the number `{}`", text(source, self.start, self.end)),
            _ => format!("`{}`", text(source, self.start, self.end)),
        }
    }
}

fn text(source: &[char], start: usize, end: usize) -> String {
    source[start..end.min(source.len())].iter().collect()
}

/// Splits `source` into tokens, ending with [`Tok::Eof`].
pub(crate) fn tokenize(source: &[char]) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < source.len() {
        let c = source[i];
        let start = i;
        let next = source.get(i + 1).copied();
        let tok = match c {
            '\n' => {
                i += 1;
                Tok::Sep
            }
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '0'..='9' | '.' if c != '.' || next.is_some_and(|n| n.is_ascii_digit()) => {
                i = number_end(source, i);
                let literal = text(source, start, i);
                match literal.parse::<f64>() {
                    Ok(v) if v.is_finite() => Tok::Num(v),
                    _ => {
                        return Err(ParseError::new(
                            start,
                            i,
                            format!("the number `{literal}` is too large for f64"),
                        ))
                    }
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                while i < source.len() && (source[i].is_alphanumeric() || source[i] == '_') {
                    i += 1;
                }
                Tok::Ident(text(source, start, i))
            }
            _ => {
                let (tok, len) = match (c, next) {
                    ('*', Some('*')) => (Tok::Caret, 2),
                    ('+' | '-' | '*' | '/', Some('=')) => (Tok::Assign(Some(c)), 2),
                    ('+', _) => (Tok::Plus, 1),
                    // The Unicode minus sign and multiplication signs of copied formulas.
                    ('-' | '\u{2212}', _) => (Tok::Minus, 1),
                    ('*' | '\u{d7}' | '\u{b7}', _) => (Tok::Star, 1),
                    ('/' | '\u{f7}', _) => (Tok::Slash, 1),
                    ('^', _) => (Tok::Caret, 1),
                    ('(', _) => (Tok::LParen, 1),
                    (')', _) => (Tok::RParen, 1),
                    (',', _) => (Tok::Comma, 1),
                    ('.', _) => (Tok::Dot, 1),
                    ('=', _) => (Tok::Assign(None), 1),
                    (';', _) => (Tok::Sep, 1),
                    _ => {
                        return Err(ParseError::new(
                            start,
                            start + 1,
                            format!(
                                "unexpected character `{c}`; expected a number, a name, an \
                                 operator (+ - * / ^ **) or a parenthesis"
                            ),
                        ))
                    }
                };
                i += len;
                tok
            }
        };
        out.push(Token { tok, start, end: i });
    }
    out.push(Token {
        tok: Tok::Eof,
        start: source.len(),
        end: source.len() + 1,
    });
    Ok(out)
}

/// The end of the number literal starting at `i`: digits, a fraction, an exponent (taken only
/// when digits follow the `e`, so `2e` is the number 2 then the name `e`).
fn number_end(s: &[char], mut i: usize) -> usize {
    let digits = |mut i: usize| {
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    i = digits(i);
    if s.get(i) == Some(&'.') {
        i = digits(i + 1);
    }
    if matches!(s.get(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some('+' | '-')) {
            j += 1;
        }
        if s.get(j).is_some_and(|c| c.is_ascii_digit()) {
            i = digits(j);
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let chars: Vec<char> = s.chars().collect();
        tokenize(&chars)
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn numbers_with_exponents_and_power_spellings() {
        assert_eq!(
            toks("1.5e-3 .5 2E+2 x**2^3"),
            vec![
                Tok::Num(1.5e-3),
                Tok::Num(0.5),
                Tok::Num(200.0),
                Tok::Ident("x".into()),
                Tok::Caret,
                Tok::Num(2.0),
                Tok::Caret,
                Tok::Num(3.0),
                Tok::Eof
            ]
        );
        // `2e` is 2 then the name `e`; `1.` is 1.
        assert_eq!(
            toks("2e 1."),
            vec![
                Tok::Num(2.0),
                Tok::Ident("e".into()),
                Tok::Num(1.0),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn bad_characters_and_huge_numbers_point_at_themselves() {
        let chars: Vec<char> = "x + $".chars().collect();
        assert_eq!(tokenize(&chars).unwrap_err().start, 4);
        let chars: Vec<char> = "1e999".chars().collect();
        let err = tokenize(&chars).unwrap_err();
        assert_eq!((err.start, err.end), (0, 5));
    }
}
