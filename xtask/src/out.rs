//! Standard output for every task (`out!`, `outln!`): where the reader stops reading (`cargo
//! xtask grad ... | head`), the rest of the output is dropped and the task goes on to its end
//! (its files written, its exit code as it would be), instead of the panic `println!` gives
//! ("failed printing to stdout: Broken pipe").

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once standard output's reader has gone: nothing more is written to it.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to standard output and flushes; after a broken pipe, nothing. Another error
/// (a full disk behind a redirection) is reported on standard error once, and the output
/// dropped likewise.
pub fn write(args: fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write to standard output: {e}");
        }
    }
}

/// `print!` through [`write()`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*))
    };
}

/// `println!` through [`write()`].
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
