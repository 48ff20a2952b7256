//! The counting binaries' command lines (`examples/profile*.rs`, `one_pair_handle`,
//! `stmt_leaves`): an argument that is not what its place takes is an error, not a default
//! counted instead.
//!
//! The check is a call of its own, out of line, made before a binary's `main` reads its
//! arguments as it did before there was one: the loops `main` inlines are what the binaries
//! count, and a change in how `main` reads its arguments moved those counts by up to 1 %
//! (PERFORMANCE.md, fortieth session).

/// What one argument's place takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Anything (a name `main` matches itself).
    Any,
    /// A count (`usize`).
    Count,
    /// One of these words.
    Word(&'static [&'static str]),
}

/// The first argument of `args` that its place in `places` does not take (one past the last
/// place takes nothing), as `(index, argument)`; `None` if every one fits.
///
/// ```
/// use autograd_bench::args::{misfit, Arg};
/// let places = [Arg::Any, Arg::Count, Arg::Word(&["driver"])];
/// let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(misfit(&args(&["dense", "10", "driver"]), &places), None);
/// assert_eq!(misfit(&args(&["dense", "x"]), &places), Some((1, "x")));
/// assert_eq!(misfit(&args(&["dense", "1", "drive"]), &places), Some((2, "drive")));
/// assert_eq!(misfit(&args(&["dense", "1", "driver", "2"]), &places), Some((3, "2")));
/// ```
pub fn misfit<'a>(args: &'a [String], places: &[Arg]) -> Option<(usize, &'a str)> {
    args.iter().enumerate().find_map(|(i, a)| {
        let fits = match places.get(i) {
            None => false,
            Some(Arg::Any) => true,
            Some(Arg::Count) => a.parse::<usize>().is_ok(),
            Some(Arg::Word(words)) => words.contains(&a.as_str()),
        };
        (!fits).then_some((i, a.as_str()))
    })
}

/// Exits with code 2 and `usage` on standard error where [`misfit`] finds an argument out of
/// place. Never inlined: see the module's documentation.
#[inline(never)]
pub fn refuse_misfits(args: &[String], places: &[Arg], usage: &str) {
    if let Some((i, a)) = misfit(args, places) {
        eprintln!("error: argument {}: `{a}` ({usage})", i + 1);
        std::process::exit(2);
    }
}
