//! Playing SPSA iterations on [`play_pairs`]. Every iteration is
//! `pairs_per_iteration` game pairs between the plus side (engine 0, White
//! in each pair's first game) and the minus side (engine 1); pair number
//! `p` belongs to iteration `p / pairs_per_iteration + 1` and plays opening
//! `order[p % len]`.
//!
//! Several iterations are in flight at once, in a deterministic order: with
//! window W, iteration k is drawn around theta_{k-W} (theta after the first
//! k-W updates; the start for k <= W), and updates are applied strictly in
//! k order, results that finish early waiting for their turn. So the
//! parameters depend on the seed and W, not on timing or the number of
//! workers; W = 1 is plain sequential SPSA. The state after each update
//! holds theta and the thetas the next W iterations start from, so a run
//! resumes exactly (iterations in flight are replayed).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::schedule::{perturb, update, ParamDef, Perturbation, Schedule};
use super::setup::SpsaSetup;
use crate::openings::Opening;
use crate::play::game::{GameResult, GameSettings, Termination};
use crate::play::pairs::{
    play_pairs, Ended, FinishedPair, Flow, PairJob, PairOptions, PlayOptions, RunnerError,
};
use crate::players::PlayerSpec;
use crate::run::ledger::PairEntry;

/// Version of [`SpsaState`]'s format.
pub const STATE_VERSION: u32 = 1;

/// Game counts of the plus side, with the games that did not end on the
/// board: time losses (clock or stall) and engine faults (crash, illegal
/// move, protocol error). Those are scored like any result and reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Games played.
    pub games: u64,
    /// Games the plus side won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games the plus side lost.
    pub losses: u64,
    /// Of those, games lost on time (the clock, or a stalled search) by either side.
    pub time_losses: u64,
    /// Games ended by an engine fault (crash, illegal move, protocol error).
    pub faults: u64,
}

impl Counts {
    /// Add `o`'s counts to these.
    pub fn add(&mut self, o: &Counts) {
        self.games += o.games;
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.time_losses += o.time_losses;
        self.faults += o.faults;
    }

    /// The plus side's view of a finished pair.
    fn of_pair(p: &FinishedPair) -> Counts {
        Counts::of_entry(&p.entry(0, None))
    }

    /// The plus side's (engine 0's) view of a pair's ledger entry.
    pub fn of_entry(e: &PairEntry) -> Counts {
        let mut c = Counts::default();
        for game in &e.games {
            let plus_white = game.white == 0;
            c.games += 1;
            match (game.result, plus_white) {
                (GameResult::Draw, _) => c.draws += 1,
                (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => c.wins += 1,
                _ => c.losses += 1,
            }
            match game.termination {
                Termination::TimeForfeit | Termination::Stall => c.time_losses += 1,
                Termination::Crash | Termination::IllegalMove | Termination::ProtocolError => {
                    c.faults += 1
                }
                _ => {}
            }
        }
        c
    }
}

/// Everything a run needs to continue: written after every update.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaState {
    /// Format version of the file ([`STATE_VERSION`]).
    pub version: u32,
    /// Planned iterations (raised to extend a run).
    pub iterations: u64,
    /// Game pairs each iteration plays (`spsa.pairs_per_iteration`).
    pub pairs_per_iteration: u32,
    /// Seed of the perturbations.
    pub seed: u64,
    /// Iterations in flight at once: iteration k is drawn around theta after `k - window` updates.
    pub window: u64,
    /// Updates applied so far.
    pub applied: u64,
    /// Current values (readable; `exact` holds the bits).
    pub theta: Vec<f64>,
    /// `(j, theta_j as f64 bits)` for the thetas the next iterations are
    /// drawn around: j from `applied + 1 - window` (at least 0) to `applied`.
    pub exact: Vec<(u64, Vec<u64>)>,
    /// Games of all applied iterations.
    pub counts: Counts,
    /// Seconds spent playing, over all sessions.
    pub elapsed_secs: f64,
}

impl SpsaState {
    /// A new run of `setup` from the parameters' start values.
    pub fn new(setup: &SpsaSetup, seed: u64, window: u64) -> SpsaState {
        let theta: Vec<f64> = setup.params.iter().map(|p| p.start).collect();
        SpsaState {
            version: STATE_VERSION,
            iterations: setup.iterations,
            pairs_per_iteration: setup.pairs_per_iteration,
            seed,
            window: window.max(1),
            applied: 0,
            exact: vec![(0, bits(&theta))],
            theta,
            counts: Counts::default(),
            elapsed_secs: 0.0,
        }
    }

    /// Whether every planned iteration has been applied.
    pub fn finished(&self) -> bool {
        self.applied >= self.iterations
    }

    /// Restore `theta` from the exact bits (after reading the JSON).
    pub fn restore_exact(&mut self) {
        if let Some(t) = self.thetas().remove(&self.applied) {
            self.theta = t;
        }
    }

    fn thetas(&self) -> BTreeMap<u64, Vec<f64>> {
        self.exact
            .iter()
            .map(|(j, b)| (*j, b.iter().map(|&x| f64::from_bits(x)).collect()))
            .collect()
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// What one applied iteration did.
#[derive(Clone, Debug)]
pub struct IterationReport {
    /// The iteration (1-based).
    pub k: u64,
    /// What it played: the flips, gains and the two sides' values.
    pub perturbation: Perturbation,
    /// Its games, from the plus side.
    pub counts: Counts,
}

/// The option values of one side: integers as integers.
pub fn side_options(params: &[ParamDef], values: &[f64]) -> Vec<(String, String)> {
    params
        .iter()
        .zip(values)
        .map(|(p, v)| {
            let text = if p.integer {
                format!("{}", v.round() as i64)
            } else {
                format!("{v}")
            };
            (p.name.clone(), text)
        })
        .collect()
}

/// The theta iteration `k` is drawn around with window `window`: theta
/// after the first `k - window` updates (the start for `k <= window`).
pub fn drawn_around(k: u64, window: u64) -> u64 {
    k.saturating_sub(window.max(1))
}

/// Both sides' options of iteration `k` drawn around `theta`.
pub fn sides(
    params: &[ParamDef],
    schedule: &Schedule,
    theta: &[f64],
    seed: u64,
    k: u64,
) -> PairOptions {
    let p = perturb(params, schedule, theta, seed, k);
    Arc::new([side_options(params, &p.dev), side_options(params, &p.base)])
}

/// Update `k`: theta_k from theta_{k-1} (`previous`) and the result of
/// iteration `k`, which was drawn around `around` (see [`drawn_around`]).
pub fn apply(
    params: &[ParamDef],
    schedule: &Schedule,
    seed: u64,
    k: u64,
    around: &[f64],
    previous: &[f64],
    counts: &Counts,
) -> (Perturbation, Vec<f64>) {
    let p = perturb(params, schedule, around, seed, k);
    let mut theta = previous.to_vec();
    update(params, &mut theta, &p, counts.wins, counts.losses);
    (p, theta)
}

/// Pair number `pair` of a run: opening `order[pair % len]`, the plus side
/// (engine 0) White in the first game.
pub fn pair_job(
    pair: u64,
    options: PairOptions,
    openings: &[Arc<Opening>],
    order: &[usize],
) -> PairJob {
    let n = order.len() as u64;
    PairJob {
        options: Some(options),
        ..PairJob::swapped(
            pair,
            0,
            1,
            Arc::clone(&openings[order[(pair % n) as usize]]),
        )
    }
}

/// The games: the two sides (same engine, different names), the settings,
/// the openings and their order, how to play.
pub struct Arena<'a> {
    /// The plus and minus sides (the same engine under two names).
    pub engines: &'a [PlayerSpec],
    /// The rules of each game.
    pub settings: &'a GameSettings,
    /// The opening suite (the standard position alone when none is configured).
    pub openings: Vec<Arc<Opening>>,
    /// Indices into `openings` in play order: pair `p` plays `order[p % len]`.
    pub order: Vec<usize>,
    /// Concurrency, stop flags, the player factory.
    pub play: PlayOptions,
}

/// Shared between the job iterator (workers) and the callback.
struct Progress {
    applied: u64,
    thetas: BTreeMap<u64, Vec<f64>>,
}

struct Shared {
    progress: Mutex<Progress>,
    updated: Condvar,
}

struct Jobs<'a> {
    shared: Arc<Shared>,
    params: &'a [ParamDef],
    schedule: &'a Schedule,
    seed: u64,
    window: u64,
    per: u64,
    next_pair: u64,
    end_pair: u64,
    current: Option<PairOptions>,
    openings: &'a [Arc<Opening>],
    order: &'a [usize],
    /// Any of these raised: stop handing out jobs.
    give_up: Vec<Arc<AtomicBool>>,
}

impl Iterator for Jobs<'_> {
    type Item = PairJob;

    fn next(&mut self) -> Option<PairJob> {
        if self.next_pair >= self.end_pair {
            return None;
        }
        let k = self.next_pair / self.per + 1;
        if self.next_pair.is_multiple_of(self.per) || self.current.is_none() {
            let from = drawn_around(k, self.window);
            let mut progress = self
                .shared
                .progress
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            while progress.applied < from {
                if self.give_up.iter().any(|f| f.load(Ordering::SeqCst)) {
                    return None;
                }
                progress = self
                    .shared
                    .updated
                    .wait_timeout(progress, Duration::from_millis(50))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            let theta = progress.thetas.get(&from)?.clone();
            drop(progress);
            self.current = Some(sides(self.params, self.schedule, &theta, self.seed, k));
        }
        let options = self.current.clone()?;
        let job = pair_job(self.next_pair, options, self.openings, self.order);
        self.next_pair += 1;
        Some(job)
    }
}

/// Play iterations `state.applied + 1 ..= state.iterations`, updating
/// `state` after each and calling `on_iteration` (which writes it out) in
/// iteration order. Returns how the games ended; `state` is consistent in
/// every case (an interrupted run continues from it).
pub fn run<E>(
    setup: &SpsaSetup,
    state: &mut SpsaState,
    arena: &Arena<'_>,
    mut on_iteration: impl FnMut(&IterationReport, &SpsaState) -> Result<(), E>,
) -> Result<Ended, RunnerError<E>> {
    let schedule = Schedule::new(&setup.params, setup.gains(state.iterations));
    let params = &setup.params;
    let per = u64::from(state.pairs_per_iteration.max(1));
    let window = state.window.max(1);
    let shared = Arc::new(Shared {
        progress: Mutex::new(Progress {
            applied: state.applied,
            thetas: state.thetas(),
        }),
        updated: Condvar::new(),
    });
    let aborted = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let mut play = arena.play.clone();
    play.aborted = Some(Arc::clone(&aborted));
    let mut give_up = play.stop.clone();
    give_up.push(Arc::clone(&aborted));
    give_up.push(Arc::clone(&done));
    let jobs = Jobs {
        shared: Arc::clone(&shared),
        params,
        schedule: &schedule,
        seed: state.seed,
        window,
        per,
        next_pair: state.applied * per,
        end_pair: state.iterations * per,
        current: None,
        openings: &arena.openings,
        order: &arena.order,
        give_up,
    };
    // Results of iterations not yet applied.
    let mut pending: BTreeMap<u64, (u64, Counts)> = BTreeMap::new();
    let started = std::time::Instant::now();
    let elapsed_before = state.elapsed_secs;
    let result = play_pairs(arena.engines, arena.settings, jobs, &play, |pair| {
        let k = pair.job.pair / per + 1;
        let entry = pending.entry(k).or_default();
        entry.0 += 1;
        entry.1.add(&Counts::of_pair(&pair));
        // Apply every complete iteration that is next in line.
        while let Some((_, counts)) = pending
            .get(&(state.applied + 1))
            .filter(|(n, _)| *n == per)
            .copied()
        {
            let k = state.applied + 1;
            pending.remove(&k);
            let thetas = {
                let progress = shared.progress.lock().unwrap_or_else(|e| e.into_inner());
                progress.thetas.clone()
            };
            let from = drawn_around(k, window);
            let Some(around) = thetas.get(&from) else {
                unreachable!("theta_{from} is kept until iteration {k} is applied")
            };
            // From the exact bits: `state.theta` went through JSON on a resume.
            let Some(previous) = thetas.get(&(k - 1)) else {
                unreachable!("theta_{} is kept until iteration {k} is applied", k - 1)
            };
            let (p, theta) = apply(params, &schedule, state.seed, k, around, previous, &counts);
            {
                let mut progress = shared.progress.lock().unwrap_or_else(|e| e.into_inner());
                progress.applied = k;
                progress.thetas.insert(k, theta.clone());
                let keep = (k + 1).saturating_sub(window);
                progress.thetas.retain(|j, _| *j >= keep);
                state.exact = progress.thetas.iter().map(|(j, t)| (*j, bits(t))).collect();
            }
            shared.updated.notify_all();
            state.applied = k;
            state.theta = theta;
            state.counts.add(&counts);
            state.elapsed_secs = elapsed_before + started.elapsed().as_secs_f64();
            let report = IterationReport {
                k,
                perturbation: p,
                counts,
            };
            on_iteration(&report, state)?;
        }
        if state.finished() {
            done.store(true, Ordering::SeqCst);
        }
        Ok(Flow::Continue)
    });
    done.store(true, Ordering::SeqCst);
    result
}
