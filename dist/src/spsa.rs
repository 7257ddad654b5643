//! Distributed SPSA: `karsinta tune spsa` with PostgreSQL as the ledger.
//!
//! Iteration `k` (1-based) is batch `k - 1`: its `pairs_per_iteration`
//! pairs. The test's `window_batches` is the SPSA window W, so the queue's
//! claim rule (batches below prefix + W) is exactly "iteration k is
//! claimable once update k - W is applied". A worker plays iteration k
//! around theta_{k-W} read from `dist_spsa_history`; the completion that
//! extends the contiguous prefix of done iterations applies their updates
//! in k order, in its transaction, and records each theta_k. The math is
//! the harness's ([`driver::sides`], [`driver::apply`]), so the parameters
//! equal those of `karsinta tune spsa` with the same config, seed and
//! window, whatever the number of workers and the order results arrive.
//! Thetas are stored as JSON numbers, which round-trip f64 bit-exactly
//! (serde_json's `float_roundtrip`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use karsinta_harness::config::{MatchConfig, RawConfig};
use karsinta_harness::ledger::PairEntry;
use karsinta_harness::openings::Opening;
use karsinta_harness::runner::PairJob;
use karsinta_harness::tune::spsa::driver::{self, Counts, SpsaState};
use karsinta_harness::tune::spsa::output;
use karsinta_harness::tune::spsa::schedule::Schedule;
use karsinta_harness::tune::spsa::session::{self, Session};
use karsinta_harness::tune::spsa::setup::SpsaSetup;
use postgres::Client;
use serde::{Deserialize, Serialize};

use crate::db::{Db, DbError};
use crate::queue::{self, Completed, DistSection, NewTest, PairResult, TestRow};
use crate::signature;

/// `dist_tests.kind` of an SPSA test.
pub const KIND: &str = "spsa";

/// Whether config text has an `spsa:` block (so `create` makes an SPSA
/// test). Unparsable text is not: the match loader then reports it.
pub fn is_spsa_config(text: &str) -> bool {
    serde_yaml::from_str::<serde_yaml::Value>(text)
        .ok()
        .and_then(|v| v.get("spsa").cloned())
        .is_some_and(|v| !v.is_null())
}

/// An SPSA test's config, resolved as `karsinta tune spsa` does.
pub struct SpsaRun {
    /// The two sides (`NAME-plus`, `NAME-minus`) as a match config.
    pub cfg: MatchConfig,
    pub setup: SpsaSetup,
    /// The config with its one engine (what the test stores).
    pub own: RawConfig,
    pub schedule: Schedule,
    pub seed: u64,
    pub window: u64,
    pub openings: Vec<Arc<Opening>>,
    pub order: Vec<usize>,
}

fn invalid(e: impl std::fmt::Display) -> DbError {
    DbError::Invalid(e.to_string())
}

impl SpsaRun {
    /// From config text; `window` is the test's (None: the block's, else
    /// the single-machine default for the config's concurrency).
    pub fn load(
        text: &str,
        path: &Path,
        concurrency: Option<usize>,
        window: Option<u64>,
    ) -> Result<SpsaRun, DbError> {
        let (cfg, setup, own) =
            session::load_config_text(text, path, concurrency).map_err(invalid)?;
        let seed = setup.seed.unwrap_or(cfg.seed);
        let window = window.unwrap_or_else(|| setup.window_for(cfg.concurrency));
        let schedule = Schedule::new(&setup.params, setup.gains(setup.iterations));
        let (openings, order) = session::run_openings(&cfg).map_err(invalid)?;
        Ok(SpsaRun {
            cfg,
            setup,
            own,
            schedule,
            seed,
            window,
            openings,
            order,
        })
    }

    /// The run of a stored test (`concurrency`: this worker's games at once).
    pub fn of(test: &TestRow, concurrency: Option<usize>) -> Result<SpsaRun, DbError> {
        if !test.is_spsa() {
            return Err(DbError::Invalid(format!(
                "test {} is a match, not an SPSA test",
                test.name
            )));
        }
        let path = format!("{}.yaml", test.name);
        let run = SpsaRun::load(
            &test.config_yaml,
            Path::new(&path),
            concurrency,
            Some(test.window_batches as u64),
        )
        .map_err(|e| DbError::Invalid(format!("test {}: stored config: {e}", test.name)))?;
        if run.setup.iterations != test.batches as u64
            || u64::from(run.setup.pairs_per_iteration) != test.batch_pairs as u64
        {
            return Err(DbError::Invalid(format!(
                "test {}: stored config does not match its batches",
                test.name
            )));
        }
        Ok(run)
    }

    /// The jobs of batch `idx` (iteration idx + 1) drawn around `theta`.
    pub fn jobs(&self, test: &TestRow, idx: i32, theta: &[f64]) -> Vec<PairJob> {
        let k = idx as u64 + 1;
        let options = driver::sides(&self.setup.params, &self.schedule, theta, self.seed, k);
        test.pairs_of(idx)
            .map(|p| driver::pair_job(p, options.clone(), &self.openings, &self.order))
            .collect()
    }
}

/// What a history row keeps besides theta: the iteration's result and what
/// it played.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IterationResult {
    pub counts: Counts,
    pub flip: Vec<i8>,
    pub plus: Vec<f64>,
    pub minus: Vec<f64>,
}

/// Create SPSA test `name` from the config at `path` loaded as `run` (by
/// [`SpsaRun::load`], which checks it as `karsinta tune spsa` does): with
/// the engines' signatures,
/// every iteration queued and theta_0 recorded.
pub fn create(db: &mut Db, name: &str, path: &Path, run: &SpsaRun) -> Result<TestRow, DbError> {
    let dist = DistSection::of(&run.cfg)?;
    // The unit of work is an iteration and the window is the SPSA one (it
    // changes the result); the match keys would be silently ignored.
    if let Some(serde_yaml::Value::Mapping(m)) = run.cfg.resolved.section("dist") {
        for key in ["batch_pairs", "window_batches"] {
            if m.contains_key(key) {
                return Err(DbError::Invalid(format!(
                    "{}: dist.{key}: not used by SPSA tests (a work unit is one iteration of \
                     spsa.pairs_per_iteration pairs; the window is spsa.window)",
                    path.display()
                )));
            }
        }
    }
    let batches = i32::try_from(run.setup.iterations).map_err(|_| {
        DbError::Invalid(format!(
            "{}: spsa.iterations: {} is too many (at most {})",
            path.display(),
            run.setup.iterations,
            i32::MAX
        ))
    })?;
    let window = u32::try_from(run.window).map_err(|_| {
        DbError::Invalid(format!(
            "{}: spsa.window: {} is too large",
            path.display(),
            run.window
        ))
    })?;
    let (sigs, _) = signature::signatures(&run.cfg.engines, dist.bench_depth).map_err(invalid)?;
    let yaml = serde_yaml::to_string(&run.own).map_err(invalid)?;
    let yaml = format!(
        "# Resolved by karsinta-dist create from {}\n{yaml}",
        path.display()
    );
    let start: Vec<f64> = run.setup.params.iter().map(|p| p.start).collect();
    let start = theta_text(&start)?;
    let per = run.setup.pairs_per_iteration;
    db.run(|c| {
        let mut tx = c.transaction()?;
        let t = queue::insert_test(
            &mut tx,
            &NewTest {
                name,
                config_yaml: &yaml,
                kind: KIND,
                batch_pairs: per,
                total_pairs: run.setup.iterations * u64::from(per),
                batches,
                window_batches: window,
                lease_seconds: dist.lease_seconds,
                signatures: &sigs,
            },
        )?;
        tx.execute(
            "INSERT INTO dist_spsa_history (test_id, k, theta) VALUES ($1, 0, $2)",
            &[&t.id, &start],
        )?;
        tx.commit()?;
        Ok(t)
    })
}

fn theta_text(theta: &[f64]) -> Result<String, DbError> {
    serde_json::to_string(theta).map_err(invalid)
}

fn parse_theta(text: &str, k: i32) -> Result<Vec<f64>, DbError> {
    serde_json::from_str(text).map_err(|e| DbError::Invalid(format!("stored theta_{k}: {e}")))
}

/// theta_k of a test (recorded once update k is applied).
pub fn theta(c: &mut Client, test: i64, k: u64) -> Result<Vec<f64>, DbError> {
    let k = k as i32;
    let row = c
        .query_opt(
            "SELECT theta FROM dist_spsa_history WHERE test_id = $1 AND k = $2",
            &[&test, &k],
        )?
        .ok_or_else(|| DbError::Invalid(format!("theta_{k} is not recorded yet")))?;
    parse_theta(row.get(0), k)
}

/// Complete batch `idx` (iteration idx + 1) with its pairs; if that extends
/// the contiguous prefix of done iterations, apply their updates in k
/// order and record each theta. One transaction: all of it or none.
pub fn complete(
    c: &mut Client,
    test: &TestRow,
    run: &SpsaRun,
    idx: i32,
    token: i64,
    worker: i64,
    seconds: f64,
    pairs: &[PairResult],
) -> Result<Completed, DbError> {
    let mut tx = c.transaction()?;
    if !queue::record_batch(&mut tx, test, idx, token, worker, seconds, pairs)? {
        return Ok(Completed::Rejected);
    }
    let prefix: i32 = queue::lock_test(&mut tx, test.id, "prefix_batches")?.get(0);
    let end = queue::contiguous(&mut tx, test.id, prefix)?;
    if end > prefix {
        // The thetas the new updates read: theta_{k-W} and theta_{k-1}.
        let first = driver::drawn_around(prefix as u64 + 1, run.window) as i32;
        let mut thetas: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
        for r in tx.query(
            "SELECT k, theta FROM dist_spsa_history WHERE test_id = $1 AND k >= $2 AND k <= $3",
            &[&test.id, &first, &prefix],
        )? {
            let k: i32 = r.get(0);
            thetas.insert(k as u64, parse_theta(r.get(1), k)?);
        }
        let mut counts: BTreeMap<i32, Counts> = BTreeMap::new();
        for r in tx.query(
            "SELECT batch, entry FROM dist_pairs WHERE test_id = $1 AND batch >= $2 AND batch < $3",
            &[&test.id, &prefix, &end],
        )? {
            let e: PairEntry = serde_json::from_str(r.get::<_, &str>(1))
                .map_err(|e| DbError::Invalid(format!("stored pair: {e}")))?;
            counts
                .entry(r.get(0))
                .or_default()
                .add(&Counts::of_entry(&e));
        }
        let insert = tx.prepare(
            "INSERT INTO dist_spsa_history (test_id, k, theta, result) VALUES ($1, $2, $3, $4)",
        )?;
        for idx in prefix..end {
            let k = idx as u64 + 1;
            let missing =
                |j: u64| DbError::Invalid(format!("test {}: theta_{j} missing", test.name));
            let around = thetas
                .get(&driver::drawn_around(k, run.window))
                .ok_or_else(|| missing(driver::drawn_around(k, run.window)))?;
            let previous = thetas.get(&(k - 1)).ok_or_else(|| missing(k - 1))?;
            let n = counts.get(&idx).copied().unwrap_or_default();
            let (p, theta) = driver::apply(
                &run.setup.params,
                &run.schedule,
                run.seed,
                k,
                around,
                previous,
                &n,
            );
            let result = IterationResult {
                counts: n,
                flip: p.flip,
                plus: p.dev,
                minus: p.base,
            };
            let result = serde_json::to_string(&result).map_err(invalid)?;
            tx.execute(
                &insert,
                &[&test.id, &(k as i32), &theta_text(&theta)?, &result],
            )?;
            thetas.insert(k, theta);
        }
        tx.execute(
            "UPDATE dist_tests SET prefix_batches = $2 WHERE id = $1",
            &[&test.id, &end],
        )?;
    }
    tx.commit()?;
    Ok(Completed::Counted { decision: None })
}

/// One row of `dist_spsa_history`.
#[derive(Clone, Debug)]
pub struct HistoryRow {
    pub k: u64,
    pub theta: Vec<f64>,
    /// None for k = 0.
    pub result: Option<IterationResult>,
}

/// The recorded history up to the applied prefix, in k order.
pub fn history(c: &mut Client, test: &TestRow) -> Result<Vec<HistoryRow>, DbError> {
    c.query(
        "SELECT k, theta, result FROM dist_spsa_history WHERE test_id = $1 AND k <= $2 \
         ORDER BY k",
        &[&test.id, &test.prefix_batches],
    )?
    .iter()
    .map(|r| {
        let k: i32 = r.get(0);
        let result = match r.get::<_, Option<&str>>(2) {
            Some(t) => Some(
                serde_json::from_str(t)
                    .map_err(|e| DbError::Invalid(format!("stored result {k}: {e}")))?,
            ),
            None => None,
        };
        Ok(HistoryRow {
            k: k as u64,
            theta: parse_theta(r.get(1), k)?,
            result,
        })
    })
    .collect()
}

/// The run's state as `karsinta tune spsa` keeps it in `state.json`.
pub fn state(c: &mut Client, test: &TestRow, run: &SpsaRun) -> Result<SpsaState, DbError> {
    let hist = history(c, test)?;
    let mut state = SpsaState::new(&run.setup, run.seed, run.window);
    let keep = (test.prefix_batches as u64 + 1).saturating_sub(run.window);
    state.exact.clear();
    for h in &hist {
        if let Some(r) = &h.result {
            state.counts.add(&r.counts);
        }
        if h.k >= keep {
            state
                .exact
                .push((h.k, h.theta.iter().map(|x| x.to_bits()).collect()));
        }
        state.applied = h.k;
        state.theta = h.theta.clone();
    }
    let secs: f64 = c
        .query_one(
            "SELECT coalesce(sum(seconds), 0) FROM dist_batches WHERE test_id = $1 AND idx < $2 \
             AND state = 'done'",
            &[&test.id, &test.prefix_batches],
        )?
        .get(0);
    state.elapsed_secs = secs;
    Ok(state)
}

/// The `status` text of an SPSA test.
pub fn status_text(c: &mut Client, test: &TestRow) -> Result<String, DbError> {
    let run = SpsaRun::of(test, None)?;
    let st = state(c, test, &run)?;
    let (done, leased) = queue::batch_counts(c, test.id)?;
    let phase = if st.finished() {
        "finished"
    } else if test.stopped {
        "stopped"
    } else {
        "running"
    };
    let mut out = format!(
        "test {} (spsa, {phase}): iteration {} of {} applied; {done} done, {leased} leased; \
         window {}, {} pairs per iteration, seed {}\n",
        test.name, st.applied, st.iterations, st.window, st.pairs_per_iteration, st.seed
    );
    if let Some(r) = &test.stop_reason {
        out.push_str(&format!("stopped: {r}\n"));
    }
    let n = st.counts;
    out.push_str(&format!(
        "plus side: {} games +{} ={} -{}, time losses {}, faults {}\n",
        n.games, n.wins, n.draws, n.losses, n.time_losses, n.faults
    ));
    out.push_str(&format!("theta after {} updates:\n", st.applied));
    for (p, v) in run.setup.params.iter().zip(&st.theta) {
        out.push_str(&format!(
            "  {:<28} {:>12.4}  (start {}, [{}, {}])\n",
            p.name, v, p.start, p.min, p.max
        ));
    }
    Ok(out)
}

/// Write an SPSA test as a `karsinta tune spsa` run folder at `out`
/// (missing or empty): config.yaml, state.json, params.csv,
/// trajectories.svg, params.yaml, openbench.txt. `karsinta tune spsa
/// --resume` can continue it on one machine.
pub fn export(c: &mut Client, test: &TestRow, out: &Path) -> Result<SpsaState, DbError> {
    let io = |e: std::io::Error| DbError::Invalid(e.to_string());
    crate::report::check_empty(out)?;
    let run = SpsaRun::of(test, None)?;
    let state = state(c, test, &run)?;
    let hist = history(c, test)?;
    std::fs::create_dir_all(out)
        .map_err(|e| DbError::Invalid(format!("{}: {e}", out.display())))?;
    output::write_atomic(&out.join(session::CONFIG_FILE), &test.config_yaml).map_err(io)?;
    // Header and row 0 as a new run writes them, then one row per update.
    output::prepare_csv(
        out,
        &run.setup.params,
        &SpsaState::new(&run.setup, run.seed, run.window),
    )
    .map_err(io)?;
    for h in hist.iter().skip(1) {
        output::append_csv(out, h.k, &h.theta).map_err(io)?;
    }
    output::save_state(out, &state).map_err(io)?;
    let session = Session {
        cfg: run.cfg,
        setup: run.setup,
        dir: out.to_path_buf(),
        state,
    };
    session.write_outputs().map_err(io)?;
    Ok(session.state)
}
