//! The crate's error: a failed database operation, or input (a config, a
//! stored row, a flag) that the operation refused.

use thiserror::Error;

/// Why a database operation failed.
#[derive(Debug, Error)]
pub enum DbError {
    /// Neither `--database` nor the environment names a database (the
    /// variable is [`crate::db::DATABASE_URL_ENV`]).
    #[error(
        "no database: set KARSINTA_DATABASE_URL or pass --database (a libpq connection \
         string such as \"host=/run/postgresql dbname=karsinta\")"
    )]
    NoUrl,
    /// Retries ran out of patience.
    #[error("cannot reach the database after {seconds} s of retries: {last}")]
    Unreachable {
        /// How long the retries went on.
        seconds: u64,
        /// The last failure seen.
        last: String,
    },
    /// A statement failed for a reason a retry does not mend.
    #[error("database: {0}")]
    Sql(#[from] postgres::Error),
    /// The database was migrated by a newer karsinta-dist.
    #[error("the database schema is version {found}, newer than this tool ({known}): upgrade karsinta-dist")]
    NewerSchema {
        /// The version in the database.
        found: i32,
        /// The newest version this build knows.
        known: i32,
    },
    /// Bad input or a stored row that does not parse; the message names it.
    #[error("{0}")]
    Invalid(String),
}
