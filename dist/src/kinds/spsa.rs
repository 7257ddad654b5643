//! SPSA tests: `karsinta tune spsa` with PostgreSQL as the ledger.
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
//!
//! An SPSA test of a git revision ([`crate::kinds::spsa_revision`]) tunes
//! that commit's build, a UCI engine whose options are the parameters
//! (both sides are the build, each pair's parameters set by `setoption`
//! as `karsinta tune spsa` sets a UCI engine's).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use karsinta_harness::config::{MatchConfig, RawConfig};
use karsinta_harness::openings::Opening;
use karsinta_harness::play::pairs::{FinishedPair, PairJob};
use karsinta_harness::players::build::RawBuild;
use karsinta_harness::tune::spsa::driver::{self, Counts, SpsaState};
use karsinta_harness::tune::spsa::schedule::Schedule;
use karsinta_harness::tune::spsa::session;
use karsinta_harness::tune::spsa::setup::SpsaSetup;
use postgres::{Client, Transaction};
use serde::{Deserialize, Serialize};

use crate::db::{Db, DbError};
use crate::queue::catalog::{insert_test, Kind, NewTest, Queueing, TestRow};
use crate::queue::results::{batch_entries, PairResult};
use crate::revisions::Revisions;
use crate::settings::DistSettings;
use crate::signature;

/// An SPSA test's config, resolved as `karsinta tune spsa` does.
pub struct SpsaTest {
    /// The two sides (`NAME-plus`, `NAME-minus`) as a match config.
    pub cfg: MatchConfig,
    /// The tuned parameters and the run's length.
    pub setup: SpsaSetup,
    /// The config with its one engine (what the test stores).
    pub own: RawConfig,
    /// The gains of every iteration.
    pub schedule: Schedule,
    /// The perturbations' seed.
    pub seed: u64,
    /// The SPSA window W (iteration k is played around theta_{k-W}).
    pub window: u64,
    /// The openings of the pairs, and their order.
    pub openings: Vec<Arc<Opening>>,
    /// Pair `p` plays `openings[order[p % order.len()]]`.
    pub order: Vec<usize>,
    /// The config's `build:` block, which `karsinta tune spsa` does not
    /// read: only a test of a revision builds (and records it).
    pub build: Option<RawBuild>,
    /// For a test of a git revision, what each worker builds (the tuned
    /// engine in `own` and `cfg` is then the creator's build).
    pub revisions: Option<Revisions>,
}

fn invalid(e: impl std::fmt::Display) -> DbError {
    DbError::Invalid(e.to_string())
}

impl SpsaTest {
    /// From config text; `window` is the test's (None: the block's, else
    /// the single-machine default for the config's concurrency).
    pub fn load(
        text: &str,
        path: &Path,
        concurrency: Option<usize>,
        window: Option<u64>,
    ) -> Result<SpsaTest, DbError> {
        let (text, build) = split_build(text, path)?;
        let (cfg, setup, own) =
            session::load_config_text(&text, path, concurrency).map_err(invalid)?;
        let seed = setup.seed.unwrap_or(cfg.seed);
        let window = window.unwrap_or_else(|| setup.window_for(cfg.concurrency));
        let schedule = Schedule::new(&setup.params, setup.gains(setup.iterations));
        let (openings, order) = session::run_openings(&cfg).map_err(invalid)?;
        Ok(SpsaTest {
            cfg,
            setup,
            own,
            schedule,
            seed,
            window,
            openings,
            order,
            build,
            revisions: None,
        })
    }

    /// The run of a stored test (`concurrency`: this worker's games at once).
    pub fn of(test: &TestRow, concurrency: Option<usize>) -> Result<SpsaTest, DbError> {
        if !test.is_spsa() {
            return Err(DbError::Invalid(format!(
                "test {} is a match, not an SPSA test",
                test.name
            )));
        }
        let path = format!("{}.yaml", test.name);
        let run = SpsaTest::load(
            &test.config_yaml,
            Path::new(&path),
            concurrency,
            Some(test.window_batches as u64),
        )
        .map_err(|e| DbError::Invalid(format!("test {}: stored config: {e}", test.name)))?;
        let mut run = run;
        if let Some(text) = &test.revisions {
            run.revisions = Some(Revisions::parse(text, &test.name)?);
        }
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

    /// Create SPSA test `name` (loaded by [`SpsaTest::load`], which checks
    /// it as `karsinta tune spsa` does): with the engines' signatures,
    /// every iteration queued and theta_0 recorded.
    pub fn create(&self, db: &mut Db, name: &str) -> Result<TestRow, DbError> {
        self.create_queued(db, name, &Queueing::default())
    }

    /// [`SpsaTest::create`] with its share of the fleet and its clock's
    /// reference speed.
    pub fn create_queued(
        &self,
        db: &mut Db,
        name: &str,
        queue: &Queueing,
    ) -> Result<TestRow, DbError> {
        let dist = DistSettings::of_spsa(&self.cfg)?;
        let path = self.cfg.path.display();
        if i32::try_from(self.setup.iterations).is_err() {
            return Err(DbError::Invalid(format!(
                "{path}: spsa.iterations: {} is too many (at most {})",
                self.setup.iterations,
                i32::MAX
            )));
        }
        let window = u32::try_from(self.window).map_err(|_| {
            DbError::Invalid(format!("{path}: spsa.window: {} is too large", self.window))
        })?;
        // A revision carries its recorded bench; its build is made on the
        // workers (and need not run here).
        let sigs = match (&self.revisions, &self.build) {
            (Some(r), _) => r.signatures(),
            (None, Some(_)) => {
                return Err(DbError::Invalid(format!(
                    "{path}: build: only an SPSA test of a revision builds its engine \
                     (karsinta-dist create --repo URL --rev REV)"
                )))
            }
            (None, None) => {
                signature::signatures(&self.cfg.engines, dist.bench_depth)
                    .map_err(invalid)?
                    .0
            }
        };
        let revisions = self.revisions.as_ref().map(Revisions::to_json);
        let yaml = serde_yaml::to_string(&self.own).map_err(invalid)?;
        let yaml = format!("# Resolved by karsinta-dist create from {path}\n{yaml}");
        let start: Vec<f64> = self.setup.params.iter().map(|p| p.start).collect();
        let start = theta_text(&start)?;
        let per = self.setup.pairs_per_iteration;
        let new = NewTest {
            name,
            config_yaml: &yaml,
            kind: Kind::Spsa,
            batch_pairs: per,
            total_pairs: self.setup.iterations * u64::from(per),
            window_batches: window,
            lease_seconds: dist.lease_seconds,
            signatures: &sigs,
            fixed_limit: crate::speed::is_fixed_limit(&self.cfg.settings.tc),
            queue,
            revisions: revisions.as_deref(),
        };
        db.run(|c| {
            let mut tx = c.transaction()?;
            let t = insert_test(&mut tx, &new)?;
            tx.execute(
                "INSERT INTO dist_spsa_history (test_id, k, theta) VALUES ($1, 0, $2)",
                &[&t.id, &start],
            )?;
            tx.commit()?;
            Ok(t)
        })
    }

    /// The jobs of batch `idx` (iteration idx + 1) drawn around `theta`.
    pub fn jobs(&self, test: &TestRow, idx: i32, theta: &[f64]) -> Vec<PairJob> {
        let k = idx as u64 + 1;
        let options = driver::sides(&self.setup.params, &self.schedule, theta, self.seed, k);
        test.pairs_of(idx)
            .map(|p| driver::pair_job(p, options.clone(), &self.openings, &self.order))
            .collect()
    }

    /// The jobs of batch `idx`, reading the theta they are drawn around
    /// (recorded: the claim of iteration k waits for update k - W).
    pub fn claimed_jobs(
        &self,
        db: &mut Db,
        test: &TestRow,
        idx: i32,
    ) -> Result<Vec<PairJob>, DbError> {
        let from = driver::drawn_around(idx as u64 + 1, self.window);
        let theta = db.run(|c| theta(c, test.id, from))?;
        Ok(self.jobs(test, idx, &theta))
    }

    /// A finished pair. No PGN: `karsinta tune spsa` keeps none, and an SPSA
    /// run's hundreds of thousands of games would only fill the database.
    pub fn pair_result(&self, fp: &FinishedPair) -> PairResult {
        let opening = self.cfg.openings.is_some().then_some(fp.job.opening.id);
        PairResult {
            entry: fp.entry(0, opening),
            pgn: String::new(),
        }
    }

    /// Apply the updates of the iterations of `batches` (just joined the
    /// prefix) in k order and record each theta.
    pub(crate) fn advance(
        &self,
        tx: &mut Transaction<'_>,
        test: &TestRow,
        batches: Range<i32>,
    ) -> Result<(), DbError> {
        if batches.is_empty() {
            return Ok(());
        }
        let mut thetas = self.thetas_read_by(tx, test, batches.start)?;
        let mut counts: BTreeMap<i32, Counts> = BTreeMap::new();
        for (batch, e) in batch_entries(tx, test.id, batches.clone())? {
            counts.entry(batch).or_default().add(&Counts::of_entry(&e));
        }
        let insert = tx.prepare(
            "INSERT INTO dist_spsa_history (test_id, k, theta, result) VALUES ($1, $2, $3, $4)",
        )?;
        for idx in batches {
            let k = idx as u64 + 1;
            let missing =
                |j: u64| DbError::Invalid(format!("test {}: theta_{j} missing", test.name));
            let at = driver::drawn_around(k, self.window);
            let around = thetas.get(&at).ok_or_else(|| missing(at))?;
            let previous = thetas.get(&(k - 1)).ok_or_else(|| missing(k - 1))?;
            let n = counts.get(&idx).copied().unwrap_or_default();
            let (p, theta) = driver::apply(
                &self.setup.params,
                &self.schedule,
                self.seed,
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
        Ok(())
    }

    /// The thetas the updates from iteration `prefix + 1` on read:
    /// theta_{k-W} and theta_{k-1}, recorded up to theta_prefix.
    fn thetas_read_by(
        &self,
        tx: &mut Transaction<'_>,
        test: &TestRow,
        prefix: i32,
    ) -> Result<BTreeMap<u64, Vec<f64>>, DbError> {
        let first = driver::drawn_around(prefix as u64 + 1, self.window) as i32;
        let mut thetas = BTreeMap::new();
        for r in tx.query(
            "SELECT k, theta FROM dist_spsa_history WHERE test_id = $1 AND k >= $2 AND k <= $3",
            &[&test.id, &first, &prefix],
        )? {
            let k: i32 = r.get(0);
            thetas.insert(k as u64, parse_theta(r.get(1), k)?);
        }
        Ok(thetas)
    }
}

/// Config text without its `build:` block, and the block: `karsinta tune
/// spsa` reads none, a test of a revision does. Text without one is kept
/// as written (its errors keep their lines).
fn split_build(text: &str, path: &Path) -> Result<(String, Option<RawBuild>), DbError> {
    let Ok(serde_yaml::Value::Mapping(mut map)) = serde_yaml::from_str(text) else {
        return Ok((text.to_string(), None));
    };
    let Some(block) = map.remove(karsinta_harness::run::ab::SECTION) else {
        return Ok((text.to_string(), None));
    };
    let build = serde_yaml::from_value(block)
        .map_err(|e| DbError::Invalid(format!("{}: build: {e}", path.display())))?;
    let rest = serde_yaml::to_string(&map).map_err(invalid)?;
    Ok((rest, Some(build)))
}

/// What a history row keeps besides theta: the iteration's result and what
/// it played.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IterationResult {
    /// The plus side's games.
    pub counts: Counts,
    /// The perturbation's signs.
    pub flip: Vec<i8>,
    /// The plus side's parameters.
    pub plus: Vec<f64>,
    /// The minus side's parameters.
    pub minus: Vec<f64>,
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

/// One row of `dist_spsa_history`.
#[derive(Clone, Debug)]
pub struct HistoryRow {
    /// The update's number (0: the start).
    pub k: u64,
    /// theta_k.
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
pub fn state(c: &mut Client, test: &TestRow, run: &SpsaTest) -> Result<SpsaState, DbError> {
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
