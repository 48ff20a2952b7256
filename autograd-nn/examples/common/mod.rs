//! What the examples share: the command line `NAME [SEED]`.

use std::process::ExitCode;

/// Runs `train(seed, true)` with the seed from the command line (`default_seed` without one):
/// exit code 0 on success, 1 on a training error, 2 on a bad argument.
pub fn main_with_seed<T>(
    name: &str,
    default_seed: u64,
    train: impl FnOnce(u64, bool) -> Result<T, autograd_nn::NnError>,
) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed = match seed_from(&args, default_seed) {
        Ok(seed) => seed,
        Err(why) => {
            eprintln!("usage: {name} [SEED]  ({why})");
            return ExitCode::from(2);
        }
    };
    match train(seed, true) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The seed from the arguments after the program's name: `default` without one; one must be an
/// unsigned integer; a second is an error, not ignored.
fn seed_from(args: &[String], default: u64) -> Result<u64, String> {
    match args {
        [] => Ok(default),
        [seed] => seed
            .parse::<u64>()
            .map_err(|e| format!("SEED: an unsigned integer; `{seed}`: {e}")),
        [_, extra @ ..] => Err(format!(
            "one argument at most; also given: {}",
            extra.join(" ")
        )),
    }
}

// (Run by `tests/examples.rs`, which includes the examples.)
#[cfg(test)]
mod tests {
    use super::seed_from;

    #[test]
    fn a_seed_or_none_and_nothing_else() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(seed_from(&args(&[]), 42), Ok(42));
        assert_eq!(seed_from(&args(&["7"]), 42), Ok(7));
        assert_eq!(
            seed_from(&args(&["-1"]), 42),
            Err("SEED: an unsigned integer; `-1`: invalid digit found in string".into())
        );
        assert_eq!(
            seed_from(&args(&["1", "2", "3"]), 42),
            Err("one argument at most; also given: 2 3".into())
        );
    }
}
