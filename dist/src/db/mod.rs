//! The connection to PostgreSQL and the schema: the only state the fleet
//! shares. Every process (the `create` / `status` / `export` commands and
//! each worker) opens its own synchronous connection; the coordination is
//! in the transactions of [`crate::queue`], not in a server of ours.
//!
//! - [`error`]: why a database operation failed.
//! - [`schema`]: the tables, as ordered migrations.
//! - [`url`]: where the database is (flag or environment).
//! - [`retry`]: a connection reopened with backoff, so a database that goes
//!   away costs at most the batches whose leases expire meanwhile.
//!
//! TLS is not compiled in (`NoTls`): use a unix socket, a private network
//! or an ssh/stunnel tunnel; passwords work as libpq's `password=` or a
//! `postgresql://user:pass@host/db` URL.

pub mod error;
pub mod retry;
pub mod schema;
pub mod url;

pub use error::DbError;
pub use retry::Db;
pub use schema::{migrate, SCHEMA_VERSION};
pub use url::{database_url, DATABASE_URL_ENV};

use postgres::Client;

/// Run `f` in one read-only REPEATABLE READ transaction, so that every
/// query it makes sees the same snapshot: figures read by several queries
/// (counted games, batches done) then agree even while workers complete
/// batches. `f` must not open a transaction of its own.
pub fn snapshot<T>(
    c: &mut Client,
    f: impl FnOnce(&mut Client) -> Result<T, DbError>,
) -> Result<T, DbError> {
    c.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
    match f(c) {
        Ok(v) => {
            c.batch_execute("COMMIT")?;
            Ok(v)
        }
        Err(e) => {
            // The error is `f`'s; a failed rollback leaves the connection
            // broken, which its next use reports.
            let _ = c.batch_execute("ROLLBACK");
            Err(e)
        }
    }
}
