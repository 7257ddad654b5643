//! [`MatchError`]: why a run could not start or go on. Engine failures are
//! game results, never errors; these are the config, the folder, the
//! openings or an engine that cannot start.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::openings::OpeningError;
use crate::play::pairs::ConcurrencyError;
use crate::run::ledger::LedgerError;

/// A run that could not go on (engine failures are results, not errors).
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum MatchError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The ledger cannot be read or written.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// The opening suite cannot be loaded.
    #[error(transparent)]
    Openings(#[from] OpeningError),
    #[error("opening {id}: {message}")]
    BadOpening { id: usize, message: String },
    /// An engine cannot play the match as configured (a limit or an
    /// opening its protocol cannot express); `opening` names the opening.
    #[error("{}{message}", opening.map(|id| format!("opening {id}: ")).unwrap_or_default())]
    Unsupported {
        opening: Option<usize>,
        message: String,
    },
    #[error("{0} already holds a run; use --resume to continue it or choose another --out")]
    Exists(PathBuf),
    #[error(
        "{0} is not empty and holds no run to resume: a new run needs a missing or empty folder"
    )]
    NotEmpty(PathBuf),
    #[error("{0} is in use by another karsinta run")]
    InUse(PathBuf),
    #[error("{0} is not a folder: a new run needs a missing or empty folder")]
    NotAFolder(PathBuf),
    #[error(
        "{path} is missing, but config.yaml was written by a version that records it \
         (it has max_start_failures): without it the resume cannot check that the config \
         still decides the games as before; restore fingerprint.json or start a new run"
    )]
    FingerprintMissing { path: PathBuf },
    /// An engine that does not start (or answer its handshake) before the
    /// first game: the match cannot be played as configured.
    #[error("engine {engine}: {message}")]
    Setup { engine: String, message: String },
    /// The machine cannot run this many games at once.
    #[error(transparent)]
    Concurrency(#[from] ConcurrencyError),
    #[error(
        "{path}: the config no longer matches the run's fingerprint.json in what decides \
         the games ({keys}); restore it or start a new run"
    )]
    ConfigChanged { path: PathBuf, keys: String },
    #[error("{0}")]
    Runner(String),
    #[error(
        "{path}: the opening suite is not the one this run was started with \
         (recorded {expected}; the file now has {found}): restore that file or start a new run"
    )]
    OpeningsChanged {
        path: PathBuf,
        expected: String,
        found: String,
    },
}

impl MatchError {
    /// A problem with the config, the engines or the folder found before any
    /// game (the CLI's exit status 2), as opposed to a failure during the run.
    pub fn is_setup(&self) -> bool {
        matches!(
            self,
            MatchError::Openings(_)
                | MatchError::BadOpening { .. }
                | MatchError::Unsupported { .. }
                | MatchError::Exists(_)
                | MatchError::NotEmpty(_)
                | MatchError::InUse(_)
                | MatchError::NotAFolder(_)
                | MatchError::FingerprintMissing { .. }
                | MatchError::Setup { .. }
                | MatchError::Concurrency(_)
                | MatchError::ConfigChanged { .. }
                | MatchError::OpeningsChanged { .. }
        )
    }
}

pub(super) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> MatchError + '_ {
    move |source| MatchError::Io {
        path: path.to_path_buf(),
        source,
    }
}
