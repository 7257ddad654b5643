//! A worker's steps in order: measure this machine, pick a test (the
//! queue's rule), check that this machine plays it as recorded (builds
//! of a test's revisions, signatures, concurrency; a refusal is recorded
//! with its reason, and a worker without `--test` goes on to the other
//! tests), scale its clock, register, start the
//! heartbeat, play the batches (until the test ends or the rule sends the
//! worker elsewhere at a batch boundary), then give back what is still
//! held and leave the test.

use std::sync::atomic::Ordering;

use karsinta_harness::config::MatchConfig;
use karsinta_harness::play::game::GameSettings;
use karsinta_harness::play::pairs::{play_pairs, Ended, PlayOptions, RunnerError};

use crate::db::{Db, DbError};
use crate::kinds::TestKind;
use crate::queue::catalog::{test_by_name, TestRow};
use crate::queue::choose::{next_open_test, Asker};
use crate::queue::lease::{leave, register, NewWorker};
use crate::queue::machines::{register_machine, MachineRow};
use crate::queue::refusals::record_refusal;
use crate::speed;
use crate::worker::claims::Claimer;
use crate::worker::collect::Collector;
use crate::worker::datagen::{self, Games};
use crate::worker::heartbeat::Heartbeat;
use crate::worker::held::{Flags, Shared};
use crate::worker::host::this_machine;
use crate::worker::machine::check_machine;
use crate::worker::options::{WorkerError, WorkerOptions, WorkerTotals};

/// Run until the chosen tests have no work left (or forever without
/// `fleet` and without a named test).
pub fn run_worker(opts: &WorkerOptions) -> Result<WorkerTotals, WorkerError> {
    let mut db = Db::open(&opts.url, opts.patience)?;
    let mut totals = WorkerTotals::default();
    let mut machine = this_machine(opts);
    machine.id = db.run(|c| register_machine(c, &machine))?;
    let signalled = || opts.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst));
    // Tests this worker refused: the queue's rule passes them over.
    let mut refused = Vec::new();
    while !signalled() {
        let test = match &opts.test {
            Some(name) => db.run(|c| test_by_name(c, name))?,
            None => {
                let ask = asker(&machine, opts, None, &refused);
                match db.run(|c| next_open_test(c, &ask))? {
                    Some(t) => t,
                    None if opts.fleet => break,
                    None => {
                        std::thread::sleep(opts.poll);
                        continue;
                    }
                }
            }
        };
        if !test.stopped {
            match work_on(&mut db, &test, &machine, opts, &mut totals, &refused) {
                Err(e @ WorkerError::Setup { .. }) if opts.test.is_none() => {
                    opts.say(&format!("{e}; trying other tests"));
                    refused.push(test.id);
                }
                r => r?,
            }
        }
        if opts.test.is_some() {
            break;
        }
    }
    totals.round_trips += db.round_trips;
    Ok(totals)
}

/// What the queue's rule needs of this machine, on `current` (test,
/// worker row) if any. Game slots: the worker's `--concurrency`, else one
/// per core (a test's own may differ; the next batch boundary corrects).
fn asker(
    machine: &MachineRow,
    opts: &WorkerOptions,
    current: Option<(i64, i64)>,
    refused: &[i64],
) -> Asker {
    Asker {
        cores: machine.cores,
        memory_mb: machine.memory_mb,
        syzygy: machine.syzygy,
        noisy: machine.noisy,
        concurrency: opts.concurrency.unwrap_or(1).max(1) as u32,
        current,
        skip: refused.to_vec(),
    }
}

/// Play `test` until it is finished, stopped or decided, the queue sends
/// this worker elsewhere, or the user's signal: its steps in order.
fn work_on(
    db: &mut Db,
    test: &TestRow,
    host: &MachineRow,
    opts: &WorkerOptions,
    totals: &mut WorkerTotals,
    refused: &[i64],
) -> Result<(), WorkerError> {
    let setup = |message: String| WorkerError::Setup {
        test: test.name.clone(),
        message,
    };
    // 1. What the test plays, and whether this machine plays it as
    //    recorded (building a test's revisions first); a refusal is kept
    //    with its reason.
    let kind = TestKind::of(test, opts.concurrency).map_err(|e| setup(e.to_string()))?;
    let machine = match check_machine(test, kind, opts) {
        Ok(m) => m,
        Err(reason) => {
            let pid = std::process::id() as i32;
            db.run(|c| record_refusal(c, test.id, Some(host.id), &host.host, pid, &reason))?;
            return Err(setup(reason));
        }
    };
    let kind = &machine.kind;
    // 2. The clock scaled to this machine's speed (node and depth limits
    //    are not; datagen has none); register; a connection for claims;
    //    the heartbeat.
    let settings = kind.config().map(|cfg| {
        let mut s = cfg.settings.clone();
        let reference = test.reference_nps.map(|n| n.max(0) as u64);
        s.tc = speed::scaled(&s.tc, reference, host.nps);
        s
    });
    let clock = settings
        .as_ref()
        .filter(|_| !test.fixed_limit)
        .map(|s| s.tc.to_string());
    let new = NewWorker {
        test: test.id,
        host: &host.host,
        signatures: &machine.signatures,
        bench_nps: machine.nps,
        machine: Some(host.id),
        concurrency: machine.concurrency as u32,
        clock: clock.as_deref(),
        build_seconds: machine.build_seconds,
        revision_nps: machine.revision_nps.as_deref(),
    };
    let worker = db.run(|c| register(c, &new))?;
    let shared = Shared::new(opts.stop.clone());
    let claims = Db::open(&opts.url, opts.patience)?;
    let mut claimer = Claimer::new(claims, test, kind, worker, &shared, opts.poll);
    if opts.test.is_none() {
        let mut ask = asker(host, opts, Some((test.id, worker)), refused);
        ask.concurrency = machine.concurrency as u32;
        claimer = claimer.rechoosing(ask);
    }
    let heartbeat = Heartbeat::start(opts, test, &shared);
    // 3. Play; every batch's last pair (or game) completes it; what is
    //    still held at the end is given back.
    let played = match (kind, kind.config(), &settings) {
        (TestKind::Datagen(d), _, _) => {
            let mut games = Games::new(db, test, kind, worker, &shared, totals);
            datagen::play(d, machine.concurrency, claimer, &mut games)
        }
        (_, Some(cfg), Some(settings)) => {
            let mut collector = Collector::new(db, test, kind, worker, &shared, totals);
            let played = play(
                cfg,
                settings,
                machine.concurrency,
                opts,
                &shared.flags,
                claimer,
                &mut collector,
            );
            collector.release_held();
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
        _ => Err(setup("a test without games to play".into())),
    };
    // 4. Stop beating, leave the test's share, say how it ended.
    heartbeat.stop();
    let _ = db.run(|c| leave(c, worker));
    if let Some(e) = shared.flags.take_failure() {
        return Err(e.into());
    }
    played
}

/// Play the claimed batches with the harness's pair runner.
fn play(
    cfg: &MatchConfig,
    settings: &GameSettings,
    concurrency: usize,
    opts: &WorkerOptions,
    flags: &Flags,
    claimer: Claimer<'_>,
    collector: &mut Collector<'_>,
) -> Result<Ended, RunnerError<DbError>> {
    let play = PlayOptions {
        concurrency,
        stop: flags.runner_stops(),
        factory: opts.factory.clone(),
        max_start_failures: cfg.max_start_failures,
        aborted: Some(flags.aborted.clone()),
    };
    play_pairs(&cfg.engines, settings, claimer, &play, |fp| {
        collector.on_pair(fp)
    })
}
