//! A worker's play of a datagen test: batches claimed through the
//! [`Claimer`] (its backoff and the queue's rule), each batch's games
//! played on `concurrency` threads, each with its own engine for the whole
//! test, by the harness's [`play_one`], and the batch completed once its
//! last game is in. Nothing is stored before that: a worker killed
//! mid-batch leaves only its lease, which expires, and the next holder
//! plays the same games.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;

use karsinta_harness::datagen::run::{check_engine, load_book, start_mover};
use karsinta_harness::datagen::{play_one, DatagenError, GameOutput};

use crate::db::{Db, DbError};
use crate::kinds::datagen::{DatagenBatch, DatagenTest};
use crate::kinds::TestKind;
use crate::queue::catalog::TestRow;
use crate::queue::completion::{complete_games, Completed};
use crate::queue::lease::release;
use crate::worker::claims::Claimer;
use crate::worker::held::{Flags, Held, Shared};
use crate::worker::options::{WorkerError, WorkerTotals};

/// Completes one worker's datagen batches.
pub(super) struct Games<'a> {
    /// The completion connection.
    db: &'a mut Db,
    test: &'a TestRow,
    kind: &'a TestKind,
    worker: i64,
    held: Held,
    flags: Flags,
    totals: &'a mut WorkerTotals,
}

impl<'a> Games<'a> {
    /// Completions over `db` for worker `worker` of `test`.
    pub fn new(
        db: &'a mut Db,
        test: &'a TestRow,
        kind: &'a TestKind,
        worker: i64,
        shared: &Shared,
        totals: &'a mut WorkerTotals,
    ) -> Games<'a> {
        Games {
            db,
            test,
            kind,
            worker,
            held: shared.held.clone(),
            flags: shared.flags.clone(),
            totals,
        }
    }

    /// Give back every batch still held (a stop or a signal mid-batch).
    pub fn release_held(&mut self) {
        let test = self.test.id;
        for (idx, token) in self.held.all_leases() {
            self.held.take(idx);
            let _ = self.db.run(|c| release(c, test, idx, token));
        }
    }

    /// Complete batch `idx` with its games (in game order), unless a
    /// heartbeat found its lease taken over.
    fn complete(&mut self, idx: i32, games: &[GameOutput]) -> Result<(), DbError> {
        let Some(b) = self.held.take(idx) else {
            return Ok(());
        };
        if b.lost {
            self.totals.batches_rejected += 1;
            return Ok(());
        }
        let batch = DatagenBatch {
            idx,
            token: b.token,
            worker: self.worker,
            seconds: b.started.elapsed().as_secs_f64(),
            games,
        };
        let (test, kind) = (self.test, self.kind);
        match self.db.run(|c| complete_games(c, test, kind, &batch))? {
            Completed::Counted { .. } => self.totals.batches_completed += 1,
            Completed::Rejected => self.totals.batches_rejected += 1,
        }
        Ok(())
    }
}

/// Play the batches `claimer` claims until the claims end, then give back
/// what is still held.
pub(super) fn play(
    d: &DatagenTest,
    concurrency: usize,
    mut claimer: Claimer<'_>,
    games: &mut Games<'_>,
) -> Result<(), WorkerError> {
    let cfg = &d.cfg;
    let setup = |e: DatagenError| WorkerError::Setup {
        test: games.test.name.clone(),
        message: e.to_string(),
    };
    let book = load_book(cfg).map_err(setup)?;
    check_engine(cfg).map_err(setup)?;
    let (job_tx, job_rx) = mpsc::channel::<u64>();
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = mpsc::channel::<Option<GameOutput>>();
    let flags = games.flags.clone();
    let played = std::thread::scope(|s| {
        for _ in 0..concurrency.max(1) {
            let done_tx = done_tx.clone();
            let (job_rx, book, flags) = (&job_rx, &book, &flags);
            s.spawn(move || {
                let mut mover = start_mover(cfg);
                loop {
                    let next = job_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok(i) = next else {
                        break;
                    };
                    // A stop abandons the batch: games not begun are skipped.
                    let output = (!flags.halted()).then(|| match mover.as_mut() {
                        Ok(m) => play_one(cfg, book, i, m.as_mut()),
                        Err(e) => GameOutput::failed(i, e.clone()),
                    });
                    if done_tx.send(output).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let r = batches(&mut claimer, games, &job_tx, &done_rx);
        drop(job_tx);
        r
    });
    games.release_held();
    played
}

/// Claim, play and complete batches one after the other.
fn batches(
    claimer: &mut Claimer<'_>,
    games: &mut Games<'_>,
    jobs: &Sender<u64>,
    done: &Receiver<Option<GameOutput>>,
) -> Result<(), WorkerError> {
    let gone = |what: &str| WorkerError::Runner {
        test: games.test.name.clone(),
        message: format!("the game threads {what}"),
    };
    while let Some((idx, token)) = claimer.next_batch() {
        let range = games.test.pairs_of(idx);
        let n = range.clone().count();
        games.held.hold(idx, token, n);
        for i in range {
            jobs.send(i).map_err(|_| gone("ended"))?;
        }
        let mut played = Vec::with_capacity(n);
        for _ in 0..n {
            match done.recv() {
                Ok(Some(g)) => played.push(g),
                Ok(None) => {}
                Err(_) => return Err(gone("ended mid-batch")),
            }
        }
        if played.len() < n {
            // Stopped mid-batch: given back by the caller.
            break;
        }
        played.sort_by_key(|g| g.game);
        games.totals.games += n as u64;
        games.complete(idx, &played)?;
    }
    Ok(())
}
