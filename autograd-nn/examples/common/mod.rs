//! What the examples share: the command line `NAME [SEED]`.

use std::process::ExitCode;

/// Runs `train(seed, true)` with the seed from the command line (`default_seed` without one):
/// exit code 0 on success, 1 on a training error, 2 on a bad argument.
pub fn main_with_seed<T>(
    name: &str,
    default_seed: u64,
    train: impl FnOnce(u64, bool) -> Result<T, autograd_nn::NnError>,
) -> ExitCode {
    let seed = match std::env::args().nth(1).map(|s| s.parse::<u64>()) {
        None => default_seed,
        Some(Ok(seed)) => seed,
        Some(Err(e)) => {
            eprintln!("usage: {name} [SEED]  (SEED: an unsigned integer; {e})");
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
