//! The `karsinta` command line: one submodule per subcommand, each a clap
//! `Args` struct plus a `run` function that translates flags into calls on
//! the harness library. Error policy (exit codes) lives in `main.rs`.

pub mod ab;
pub mod gate;
pub mod match_cmd;
pub mod openings;
pub mod stats;

use std::fmt;

/// A mistake in the user's input (bad flag value, inconsistent options).
/// `main` prints it as one line and exits with status 2, the same status clap
/// uses for its own parse errors; any other error exits with 1.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Shorthand for returning a [`UsageError`] from a `run` function.
pub fn usage<T>(message: impl Into<String>) -> anyhow::Result<T> {
    Err(UsageError(message.into()).into())
}
