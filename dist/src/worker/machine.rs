//! What this machine brings to a test, checked before a worker registers:
//! its engines' signatures, which must equal those the test recorded (the
//! same games), their bench speed, and how many games at once it runs.

use karsinta_harness::play::pairs::check_concurrency;

use crate::kinds::TestKind;
use crate::queue::catalog::TestRow;
use crate::settings::DistSettings;
use crate::signature;
use crate::worker::options::WorkerOptions;

/// What this machine brings to a test, checked before it registers.
pub(super) struct Machine {
    /// Its engines' signatures (JSON), equal to the test's.
    pub signatures: String,
    /// Their summed bench speed.
    pub nps: u64,
    /// Games at once.
    pub concurrency: usize,
}

/// Refuse a test this machine would play differently (other engines) or
/// cannot play (more games at once than it can run).
pub(super) fn check_machine(
    test: &TestRow,
    kind: &TestKind,
    opts: &WorkerOptions,
) -> Result<Machine, String> {
    let cfg = kind.config();
    let dist = DistSettings::of(cfg).map_err(|e| e.to_string())?;
    let (signatures, nps) = signature::signatures(&cfg.engines, dist.bench_depth)?;
    if let Some(diff) = signature::mismatch(&test.signatures, &signatures) {
        return Err(format!(
            "this machine's engines differ from the test's ({diff}): refusing to play"
        ));
    }
    let concurrency = opts.concurrency.unwrap_or(cfg.concurrency).max(1);
    check_concurrency(&cfg.engines, &cfg.settings, concurrency).map_err(|e| e.to_string())?;
    Ok(Machine {
        signatures,
        nps,
        concurrency,
    })
}
