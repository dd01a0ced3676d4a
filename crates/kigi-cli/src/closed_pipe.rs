//! Writing to stdout and stderr as Unix tools do. When the reader of stdout has gone
//! (`kigi sessions list | head -1`), kigi ends at once and quietly with status 141 (128 +
//! SIGPIPE), after ending the process groups it started, where `println!` would panic. A
//! closed stderr is ignored: progress nobody reads is no failure.
//!
//! The rule: the binary prints through [`outln!`], [`out!`], [`errln!`] and [`err!`], never
//! `println!` or `eprintln!` (clippy's `print_stdout` and `print_stderr` hold it to that).

use std::io::Write;

/// The status of a process ended by SIGPIPE, as a shell reports it.
pub const CLOSED_PIPE_STATUS: i32 = 141;

/// Writes `args` to stdout and flushes; a closed or failing stdout ends the process.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_fmt(args).and_then(|()| out.flush()) {
        drop(out);
        stdout_failed(&error);
    }
}

/// Writes `args` to stderr; a closed stderr is ignored.
pub fn write_stderr(args: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.flush());
}

/// Ends the process after stdout failed: quietly with 141 when its reader is gone, with the
/// error and status 1 otherwise (a full disk).
pub fn stdout_failed(error: &std::io::Error) -> ! {
    kigi_tools::process_group::kill_all();
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_PIPE_STATUS);
    }
    write_stderr(format_args!("kigi: cannot write to stdout: {error}\n"));
    std::process::exit(1);
}

/// `println!` that ends kigi quietly when stdout's reader has gone.
macro_rules! outln {
    () => {
        $crate::closed_pipe::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::closed_pipe::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that ends kigi quietly when stdout's reader has gone.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::closed_pipe::write_stdout(format_args!($($arg)*))
    };
}

/// `eprintln!` that ignores a closed stderr.
macro_rules! errln {
    () => {
        $crate::closed_pipe::write_stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::closed_pipe::write_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that ignores a closed stderr.
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::closed_pipe::write_stderr(format_args!($($arg)*))
    };
}
