//! A finished command's output, for assertion messages.

use std::process::Output;

/// Stdout and stderr of a finished command, for assertion messages.
pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
