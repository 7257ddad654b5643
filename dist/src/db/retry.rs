//! One process's connection, reopened with backoff when it fails (server
//! restarted, network gone), for as long as its patience lasts. Each call
//! of [`Db::run`] is a whole transaction, so a retry never applies half of
//! one.

use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

use crate::db::error::DbError;
use crate::db::schema::migrate;

/// Whether an error is worth a retry on a new connection: the connection
/// broke, the server is shutting down or refused us for now, or a
/// serialisation conflict.
fn transient(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.as_db_error() {
        // Class 08 connection, 57P shutdown/admin, 53 resources, 40 rollback.
        Some(db) => {
            let c = db.code().code();
            c.starts_with("08")
                || c.starts_with("57P")
                || c.starts_with("53")
                || c.starts_with("40")
        }
        // No server answer: I/O or protocol failure.
        None => true,
    }
}

/// One process's connection, reopened on failure.
pub struct Db {
    url: String,
    client: Option<Client>,
    /// How long [`Db::run`] keeps retrying before it gives up.
    pub patience: Duration,
    /// Statements run (round trips, for the scale figures).
    pub round_trips: u64,
}

impl Db {
    /// Connect (with retries) and make sure the schema is current.
    pub fn open(url: &str, patience: Duration) -> Result<Db, DbError> {
        let mut db = Db {
            url: url.to_string(),
            client: None,
            patience,
            round_trips: 0,
        };
        db.run(|c| migrate(c).map(|_| ()))?;
        Ok(db)
    }

    /// Run `f` on a live connection; on a transient failure reconnect with
    /// exponential backoff (0.1 s doubling to 5 s) and run it again, until
    /// [`Db::patience`] is spent. `f` must be a whole transaction, so that
    /// a retry never applies half of one.
    pub fn run<T>(
        &mut self,
        mut f: impl FnMut(&mut Client) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        let start = Instant::now();
        let mut wait = Duration::from_millis(100);
        loop {
            let last = match self.client.as_mut().filter(|c| !c.is_closed()) {
                Some(c) => match f(c) {
                    Ok(v) => {
                        self.round_trips += 1;
                        return Ok(v);
                    }
                    Err(DbError::Sql(e)) if transient(&e) => {
                        self.client = None;
                        e.to_string()
                    }
                    Err(e) => return Err(e),
                },
                None => match Client::connect(&self.url, NoTls) {
                    Ok(c) => {
                        self.client = Some(c);
                        continue;
                    }
                    Err(e) if transient(&e) => e.to_string(),
                    Err(e) => return Err(DbError::Sql(e)),
                },
            };
            if start.elapsed() >= self.patience {
                return Err(DbError::Unreachable {
                    seconds: start.elapsed().as_secs(),
                    last,
                });
            }
            std::thread::sleep(wait);
            wait = (wait * 2).min(Duration::from_secs(5));
        }
    }
}
