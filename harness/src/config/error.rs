//! [`ConfigError`]: a config, a config block or a flag that cannot be used,
//! naming the file and the key (or the flag).

use std::path::PathBuf;

use thiserror::Error;

/// A config that cannot be used. Each variant names the file; `Invalid`
/// also names the key (`engines[1].cmd`, `sprt.elo1`).
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum ConfigError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("{path}: {key}: {message}")]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
    /// A command-line flag's value (blamed on the flag, not the file).
    #[error("{flag}: {message}")]
    Flag { flag: String, message: String },
}

/// A bad value at `key` of the config file `path`.
pub(super) fn invalid(
    path: &std::path::Path,
    key: impl Into<String>,
    message: impl Into<String>,
) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        key: key.into(),
        message: message.into(),
    }
}
