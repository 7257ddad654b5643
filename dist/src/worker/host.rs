//! This machine as the queue sees it, found once when a worker starts:
//! cores, memory, whether it has Syzygy tables, and its speed (the bench
//! runs, or the speed a test assumes), stored as its `dist_machines` row.

use std::path::Path;

use crate::queue::machines::MachineRow;
use crate::signature;
use crate::speed::{self, Speed};
use crate::worker::options::WorkerOptions;

/// Total memory in MiB (`/proc/meminfo`; 0 where unknown).
fn memory_mb() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

/// Whether a folder holds Syzygy WDL tables.
fn has_tables(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "rtbw"))
    })
}

/// This machine: measured (or assumed, for tests), not yet stored.
pub(super) fn this_machine(opts: &WorkerOptions) -> MachineRow {
    let speed = match opts.assume_nps {
        Some(nps) => Speed {
            nps,
            spread: opts.assume_spread.unwrap_or(0.0),
        },
        None => {
            let mut s = speed::measure(opts.bench_runs);
            if let Some(x) = opts.assume_spread {
                s.spread = x;
            }
            s
        }
    };
    MachineRow {
        id: 0,
        host: signature::host_name(),
        pid: std::process::id() as i32,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        memory_mb: memory_mb(),
        syzygy: opts.syzygy.iter().any(|d| has_tables(d)),
        nps: speed.nps,
        spread: speed.spread,
        noisy: speed.noisy(opts.noisy_spread),
    }
}
