//! A worker's steps in order: pick a test, check that this machine plays
//! it as recorded (signatures, concurrency), register, start the
//! heartbeat, play the batches, then give back what is still held.

use std::sync::atomic::Ordering;

use karsinta_harness::play::pairs::{play_pairs, Ended, PlayOptions, RunnerError};

use crate::db::{Db, DbError};
use crate::kinds::TestKind;
use crate::queue::catalog::{test_by_name, TestRow};
use crate::queue::choose::next_open_test;
use crate::queue::lease::register_worker;
use crate::signature;
use crate::worker::claims::Claimer;
use crate::worker::collect::Collector;
use crate::worker::heartbeat::Heartbeat;
use crate::worker::held::{Flags, Shared};
use crate::worker::machine::check_machine;
use crate::worker::options::{WorkerError, WorkerOptions, WorkerTotals};

/// Run until the chosen tests have no work left (or forever without
/// `fleet` and without a named test).
pub fn run_worker(opts: &WorkerOptions) -> Result<WorkerTotals, WorkerError> {
    let mut db = Db::open(&opts.url, opts.patience)?;
    let mut totals = WorkerTotals::default();
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
            work_on(&mut db, &test, opts, &mut totals)?;
        }
        if opts.test.is_some() {
            break;
        }
    }
    totals.round_trips += db.round_trips;
    Ok(totals)
}

/// Play `test` until it is finished, stopped or decided, or the user's
/// signal: its steps in order.
fn work_on(
    db: &mut Db,
    test: &TestRow,
    opts: &WorkerOptions,
    totals: &mut WorkerTotals,
) -> Result<(), WorkerError> {
    let setup = |message: String| WorkerError::Setup {
        test: test.name.clone(),
        message,
    };
    // 1. What the test plays, and whether this machine plays it as recorded.
    let kind = TestKind::of(test, opts.concurrency).map_err(|e| setup(e.to_string()))?;
    let machine = check_machine(test, &kind, opts).map_err(setup)?;
    // 2. Register; a connection for claims; the heartbeat thread.
    let host = signature::host_name();
    let worker =
        db.run(|c| register_worker(c, test.id, &host, &machine.signatures, machine.nps))?;
    let shared = Shared::new(opts.stop.clone());
    let claims = Db::open(&opts.url, opts.patience)?;
    let claimer = Claimer::new(claims, test, &kind, worker, &shared, opts.poll);
    let heartbeat = Heartbeat::start(opts, test, &shared);
    // 3. Play; every batch's last pair completes it.
    let mut collector = Collector::new(db, test, &kind, worker, &shared, totals);
    let played = play(
        &kind,
        machine.concurrency,
        opts,
        &shared.flags,
        claimer,
        &mut collector,
    );
    // 4. Stop beating, give back what is still held, say how it ended.
    heartbeat.stop();
    collector.release_held();
    if let Some(e) = shared.flags.take_failure() {
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
