//! The machines workers run on: one row per worker process, written when
//! it starts, with what the queue's rule asks of a machine (cores, memory,
//! Syzygy tables) and its measured speed (median bench nodes per second,
//! the spread of the runs, noisy or not). Its worker rows, one per test it
//! plays, point to it.

use postgres::Client;

use crate::db::DbError;

/// A machine as a worker measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineRow {
    /// The row's key (0 before it is stored).
    pub id: i64,
    /// Its name.
    pub host: String,
    /// The worker process.
    pub pid: i32,
    /// Cores it may use.
    pub cores: u32,
    /// Memory, MiB.
    pub memory_mb: u64,
    /// It has Syzygy tables.
    pub syzygy: bool,
    /// Median bench nodes per second.
    pub nps: u64,
    /// (max - min) / median of the bench runs.
    pub spread: f64,
    /// The spread was over the worker's threshold: fixed-node or
    /// fixed-depth tests only.
    pub noisy: bool,
}

/// Store `m`; returns its id.
pub fn register_machine(c: &mut Client, m: &MachineRow) -> Result<i64, DbError> {
    Ok(c.query_one(
        "INSERT INTO dist_machines (host, pid, cores, memory_mb, syzygy, nps, spread, noisy) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        &[
            &m.host,
            &m.pid,
            &(m.cores.min(i32::MAX as u32) as i32),
            &(m.memory_mb.min(i64::MAX as u64) as i64),
            &m.syzygy,
            &(m.nps.min(i64::MAX as u64) as i64),
            &m.spread,
            &m.noisy,
        ],
    )?
    .get(0))
}
