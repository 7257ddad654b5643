//! A worker's steps in order: pick a test, check that this machine plays
//! it as recorded (signatures, concurrency), register, start the
//! heartbeat, play the batches, then give back what is still held.

use std::sync::atomic::Ordering;

use karsinta_harness::pgn::UtcTime;
use karsinta_harness::runner::{check_concurrency, play_pairs, Ended, PlayOptions, RunnerError};

use crate::db::{Db, DbError};
use crate::kinds::TestKind;
use crate::queue::catalog::{next_open_test, test_by_name, TestRow};
use crate::queue::lease::{register_worker, release};
use crate::settings::DistSettings;
use crate::signature;
use crate::worker::claims::Claimer;
use crate::worker::collect::Collector;
use crate::worker::heartbeat::Heartbeat;
use crate::worker::held::{Flags, Held};
use crate::worker::options::{WorkerError, WorkerOptions, WorkerReport};

/// Run until the chosen tests have no work left (or forever without
/// `fleet` and without a named test).
pub fn run_worker(opts: &WorkerOptions) -> Result<WorkerReport, WorkerError> {
    let mut db = Db::open(&opts.url, opts.patience)?;
    let mut report = WorkerReport::default();
    let signalled = || opts.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst));
    while !signalled() {
        let test = match &opts.test {
            Some(name) => db.run(|c| test_by_name(c, name))?,
            None => match db.run(next_open_test)? {
                Some(t) => t,
                None if opts.fleet => break,
                None => {
                    std::thread::sleep(opts.poll);
                    continue;
                }
            },
        };
        if !test.stopped {
            work_on(&mut db, &test, opts, &mut report)?;
        }
        if opts.test.is_some() {
            break;
        }
    }
    report.round_trips += db.round_trips;
    Ok(report)
}

/// What this machine brings to a test, checked before it registers.
struct Machine {
    /// Its engines' signatures (JSON), equal to the test's.
    signatures: String,
    /// Their summed bench speed.
    nps: u64,
    /// Games at once.
    concurrency: usize,
}

/// Refuse a test this machine would play differently (other engines) or
/// cannot play (more games at once than it can run).
fn check_machine(test: &TestRow, kind: &TestKind, opts: &WorkerOptions) -> Result<Machine, String> {
    let cfg = kind.config();
    let dist = DistSettings::of(cfg).map_err(|e| e.to_string())?;
    let (signatures, nps) = signature::signatures(&cfg.engines, dist.bench_depth)?;
    if let Some(diff) = signature::mismatch(&test.signatures, &signatures) {
        return Err(format!(
            "this machine's engines differ from the test's ({diff}): refusing to play"
        ));
    }
    let concurrency = opts.concurrency.unwrap_or(cfg.concurrency).max(1);
    check_concurrency(&cfg.engines, &cfg.settings.tc, concurrency).map_err(|e| e.to_string())?;
    Ok(Machine {
        signatures,
        nps,
        concurrency,
    })
}

fn work_on(
    db: &mut Db,
    test: &TestRow,
    opts: &WorkerOptions,
    report: &mut WorkerReport,
) -> Result<(), WorkerError> {
    let setup = |message: String| WorkerError::Setup {
        test: test.name.clone(),
        message,
    };
    let kind = TestKind::of(test, opts.concurrency).map_err(|e| setup(e.to_string()))?;
    let machine = check_machine(test, &kind, opts).map_err(setup)?;
    let host = signature::host_name();
    let worker =
        db.run(|c| register_worker(c, test.id, &host, &machine.signatures, machine.nps))?;
    let claims = Db::open(&opts.url, opts.patience)?;
    let (held, flags) = (Held::default(), Flags::new(opts.stop.clone()));
    let heartbeat = Heartbeat::start(
        &opts.url,
        opts.patience,
        test.id,
        test.lease_seconds,
        held.clone(),
        flags.clone(),
    );
    let claimer = Claimer::new(
        claims,
        test,
        worker,
        &kind,
        held.clone(),
        flags.clone(),
        opts.poll,
    );
    let mut collector = Collector {
        db,
        test,
        kind: &kind,
        worker,
        held: held.clone(),
        flags: flags.clone(),
        date: UtcTime::now().pgn_date(),
        report,
    };
    let played = play(
        &kind,
        machine.concurrency,
        opts,
        &flags,
        claimer,
        &mut collector,
    );
    heartbeat.stop();
    // Batches still held (a stop or a signal): back to the pool now rather
    // than when their leases expire.
    for (idx, token) in held.all_leases() {
        let _ = collector.db.run(|c| release(c, test.id, idx, token));
    }
    if let Some(e) = flags.take_failure() {
        return Err(e.into());
    }
    match played {
        Ok(_) => Ok(()),
        Err(RunnerError::Callback(e)) => Err(e.into()),
        Err(RunnerError::Concurrency(e)) => Err(setup(e.to_string())),
        Err(e) => Err(WorkerError::Runner {
            test: test.name.clone(),
            message: e.to_string(),
        }),
    }
}

/// Play the claimed batches with the harness's pair runner.
fn play(
    kind: &TestKind,
    concurrency: usize,
    opts: &WorkerOptions,
    flags: &Flags,
    claimer: Claimer<'_>,
    collector: &mut Collector<'_>,
) -> Result<Ended, RunnerError<DbError>> {
    let cfg = kind.config();
    let play = PlayOptions {
        concurrency,
        stop: flags.runner_stops(),
        factory: opts.factory.clone(),
        max_start_failures: cfg.max_start_failures,
        aborted: Some(flags.aborted.clone()),
    };
    play_pairs(&cfg.engines, &cfg.settings, claimer, &play, |fp| {
        collector.on_pair(fp)
    })
}
