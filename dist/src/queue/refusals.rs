//! Workers that refused a test: a machine whose engines would not play the
//! games as recorded (another bench signature, a build that failed, a
//! repository it cannot fetch) says why, once per worker process and
//! test, so that `status` and the live view show it rather than only the
//! worker's own terminal.

use postgres::Client;

use crate::db::DbError;

/// One refusal as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// The machine's name.
    pub host: String,
    /// The worker process.
    pub pid: i32,
    /// Why it refused.
    pub reason: String,
    /// When, as PostgreSQL prints a UTC timestamp (`2026-12-03 14:05:09`).
    pub at: String,
}

/// Record that the worker process `pid` on `host` (machine row `machine`)
/// refused test `test`, and why.
pub fn record_refusal(
    c: &mut Client,
    test: i64,
    machine: Option<i64>,
    host: &str,
    pid: i32,
    reason: &str,
) -> Result<(), DbError> {
    c.execute(
        "INSERT INTO dist_refusals (test_id, machine_id, host, pid, reason) \
         VALUES ($1, $2, $3, $4, $5)",
        &[&test, &machine, &host, &pid, &reason],
    )?;
    Ok(())
}

/// The refusals of test `test`, oldest first.
pub fn refusals(c: &mut Client, test: i64) -> Result<Vec<Refusal>, DbError> {
    Ok(c.query(
        "SELECT host, pid, reason, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') \
             FROM dist_refusals WHERE test_id = $1 ORDER BY id",
        &[&test],
    )?
    .iter()
    .map(|r| Refusal {
        host: r.get(0),
        pid: r.get(1),
        reason: r.get(2),
        at: r.get(3),
    })
    .collect())
}

/// The lines `status` prints for `refusals` (none: nothing).
pub fn refusals_text(refusals: &[Refusal]) -> String {
    let mut out = String::new();
    for r in refusals {
        out.push_str(&format!(
            "refused by {} (pid {}) at {} UTC: {}\n",
            r.host, r.pid, r.at, r.reason
        ));
    }
    out
}
