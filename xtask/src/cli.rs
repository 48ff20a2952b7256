//! The command-line conventions every task shares, written once: options are `--name`,
//! `--name VALUE` or `--name=VALUE` (and `-h`/`--help`); everything else is a positional
//! argument, including a lone `-2` or `-x^2` (an expression for `grad`). Every mistake is an
//! `Err(message)`, which `main` prints as `error: message` with exit code 2; a message about an
//! unknown option or a missing value ends with the task's help.
//!
//! A task's parser is a loop over [`Args::next`] matching option names; the value of the option
//! just read comes from [`Args::value`] (or the typed [`Args::number`], [`Args::positive`]).

use std::str::FromStr;

/// One command-line argument, as [`Args::next`] classifies it.
#[derive(Debug, PartialEq, Eq)]
pub enum Arg<'a> {
    /// `-h` or `--help`: the task prints its help and exits with 0.
    Help,
    /// `--name` or `-n`, without an `=VALUE` part (read it with [`Args::value`]).
    Option(&'a str),
    /// Anything else.
    Positional(&'a str),
}

/// The arguments of one task, read left to right.
pub struct Args<'a> {
    help: &'static str,
    rest: std::slice::Iter<'a, String>,
    /// The option last returned by `next`, and the value written after its `=`, if any.
    option: &'a str,
    inline: Option<&'a str>,
}

impl<'a> Args<'a> {
    /// The arguments after the task's name; `help` is appended to usage errors.
    pub fn new(args: &'a [String], help: &'static str) -> Self {
        Args {
            help,
            rest: args.iter(),
            option: "",
            inline: None,
        }
    }

    /// The next argument, or `None` at the end. An `=VALUE` given to an option that did not
    /// read it (`--json=1`) is an error here.
    pub fn next(&mut self) -> Result<Option<Arg<'a>>, String> {
        if self.inline.take().is_some() {
            return Err(format!("`{}` takes no value", self.option));
        }
        let Some(arg) = self.rest.next() else {
            return Ok(None);
        };
        let arg = arg.as_str();
        if arg == "-h" || arg == "--help" {
            return Ok(Some(Arg::Help));
        }
        if !is_option(arg) {
            return Ok(Some(Arg::Positional(arg)));
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if arg.starts_with("--") => (name, Some(value)),
            _ => (arg, None),
        };
        self.option = name;
        self.inline = inline;
        Ok(Some(Arg::Option(name)))
    }

    /// The value of the option just read: after its `=`, else the next argument.
    pub fn value(&mut self) -> Result<&'a str, String> {
        if let Some(v) = self.inline.take() {
            return Ok(v);
        }
        match self.rest.next() {
            Some(v) => Ok(v),
            None => Err(format!("`{}` needs a value\n\n{}", self.option, self.help)),
        }
    }

    /// The value of the option just read as a number (an integer type: `expects a non-negative
    /// integer` for `u64`).
    pub fn number<T: FromStr>(&mut self) -> Result<T, String> {
        let v = self.value()?;
        v.parse().map_err(|_| {
            format!(
                "`{}` expects a non-negative integer, got `{v}`",
                self.option
            )
        })
    }

    /// The value of the option just read as an integer of at least 1.
    pub fn positive(&mut self) -> Result<u64, String> {
        let v = self.value()?;
        match v.parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "`{}` expects a positive integer, got `{v}`",
                self.option
            )),
        }
    }

    /// For a task that takes no arguments: `Ok(true)` if the first is `-h`/`--help` (the task
    /// prints its help, as every task's parser does on meeting it), `Ok(false)` if there are
    /// none, an error naming any other.
    pub fn help_only(args: &'a [String], help: &'static str) -> Result<bool, String> {
        let mut args = Args::new(args, help);
        match args.next()? {
            None => Ok(false),
            Some(Arg::Help) => Ok(true),
            Some(Arg::Option(name)) => Err(args.unknown(name)),
            Some(Arg::Positional(name)) => Err(args.usage(&format!(
                "unexpected argument `{name}`: this task takes none"
            ))),
        }
    }

    /// The error for an option the task does not know.
    pub fn unknown(&self, arg: &str) -> String {
        format!("unknown option `{arg}`\n\n{}", self.help)
    }

    /// An error about the arguments, with the task's help after it.
    pub fn usage(&self, message: &str) -> String {
        format!("{message}\n\n{}", self.help)
    }
}

/// `--x`, or `-x` with one character that does not start a number: `-2`, `-.5` and `-x^2` are
/// positional (negative numbers, expressions), `-` alone too (stdin by convention).
fn is_option(arg: &str) -> bool {
    if arg.starts_with("--") {
        return arg.len() > 2;
    }
    let mut chars = arg.chars();
    matches!(
        (chars.next(), chars.next(), chars.next()),
        (Some('-'), Some(c), None) if !c.is_ascii_digit() && c != '.'
    )
}

/// `K/N` with `K < N`: shard K of N (`--shard`).
pub fn shard(s: &str) -> Result<(u32, u32), String> {
    s.split_once('/')
        .and_then(|(k, n)| Some((k.parse::<u32>().ok()?, n.parse::<u32>().ok()?)))
        .filter(|(k, n)| k < n)
        .ok_or_else(|| format!("`--shard` expects K/N with K < N, got `{s}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELP: &str = "usage: t [--n N] [--flag] [NAME]";

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Every argument, with the value of `--n` and `--name` read as the task would.
    fn read(v: &[&str]) -> Result<Vec<String>, String> {
        let args = strings(v);
        let mut a = Args::new(&args, HELP);
        let mut out = Vec::new();
        while let Some(arg) = a.next()? {
            out.push(match arg {
                Arg::Help => "help".to_string(),
                Arg::Option("--n") => format!("n={}", a.positive()?),
                Arg::Option("--name") => format!("name={}", a.value()?),
                Arg::Option("--seed") => format!("seed={}", a.number::<u64>()?),
                Arg::Option("--flag") => "flag".to_string(),
                Arg::Option(o) => return Err(a.unknown(o)),
                Arg::Positional(p) => format!("pos {p}"),
            });
        }
        Ok(out)
    }

    #[test]
    fn a_task_without_arguments_takes_only_help() {
        let only = |v: &[&str]| Args::help_only(&strings(v), HELP);
        assert_eq!(only(&[]), Ok(false));
        assert_eq!(only(&["--help"]), Ok(true));
        assert_eq!(only(&["-h"]), Ok(true));
        for bad in [&["--quick"][..], &["x"], &["--quick", "--help"]] {
            let e = only(bad).unwrap_err();
            assert!(
                e.contains(&format!("`{}`", bad[0])) && e.ends_with(HELP),
                "{e}"
            );
        }
    }

    #[test]
    fn options_values_and_positionals() {
        assert_eq!(
            read(&["--n", "3", "--name=a=b", "--flag", "x", "-h", "--seed=0"]).unwrap(),
            ["n=3", "name=a=b", "flag", "pos x", "help", "seed=0"]
        );
        // Numbers and expressions that start with a minus are positional.
        assert_eq!(
            read(&["-2", "-.5", "-x^2", "-"]).unwrap(),
            ["pos -2", "pos -.5", "pos -x^2", "pos -"]
        );
        // A value may itself start with a minus.
        assert_eq!(read(&["--name", "--flag"]).unwrap(), ["name=--flag"]);
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        let err = |v: &[&str]| read(v).unwrap_err();
        assert_eq!(err(&["--n"]), format!("`--n` needs a value\n\n{HELP}"));
        assert_eq!(
            err(&["--n", "0"]),
            "`--n` expects a positive integer, got `0`"
        );
        assert_eq!(err(&["--n=x"]), "`--n` expects a positive integer, got `x`");
        assert_eq!(
            err(&["--seed", "-1"]),
            "`--seed` expects a non-negative integer, got `-1`"
        );
        assert_eq!(err(&["--flag=1"]), "`--flag` takes no value");
        assert_eq!(err(&["-x"]), format!("unknown option `-x`\n\n{HELP}"));
        assert_eq!(
            err(&["--bogus=3"]),
            format!("unknown option `--bogus`\n\n{HELP}")
        );
    }

    #[test]
    fn shards() {
        assert_eq!(shard("0/4"), Ok((0, 4)));
        assert_eq!(shard("3/4"), Ok((3, 4)));
        for bad in ["4/4", "1", "a/2", "1/", "-1/2"] {
            assert!(shard(bad).is_err(), "{bad}");
        }
    }
}
