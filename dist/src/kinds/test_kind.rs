//! [`TestKind`]: the one place that tells the kinds apart. Everything a
//! worker, the completion core, `status` and `export` need from a kind goes
//! through it, so a new kind is a new variant here and a module beside
//! [`crate::kinds::match_test`] (as [`crate::kinds::datagen`] is), not
//! another copy of the queue.

use std::ops::Range;
use std::path::Path;

use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::play::pairs::{FinishedPair, PairJob};
use karsinta_harness::stats::SprtDecision;
use postgres::Transaction;

use crate::db::{Db, DbError};
use crate::kinds::datagen::{is_datagen_config, DatagenTest};
use crate::kinds::match_test::MatchTest;
use crate::kinds::spsa::SpsaTest;
use crate::queue::catalog::{Kind, Queueing, TestRow};
use crate::queue::results::PairResult;
use crate::revisions::create::{resolve, RevisionRequest};
use crate::revisions::Revisions;

/// What a test plays and how its batches count.
pub enum TestKind {
    /// A match with an optional SPRT on the completed prefix.
    Match(Box<MatchTest>),
    /// An SPSA run: batch k - 1 is iteration k (see [`crate::kinds::spsa`]).
    Spsa(Box<SpsaTest>),
    /// Self-play training data: batch k is games `[kB, (k+1)B)` (see
    /// [`crate::kinds::datagen`]).
    Datagen(Box<DatagenTest>),
}

/// Whether config text has an `spsa:` block (so `create` makes an SPSA
/// test). Unparsable text is not: the match loader then reports it.
fn is_spsa_config(text: &str) -> bool {
    serde_yaml::from_str::<serde_yaml::Value>(text)
        .ok()
        .and_then(|v| v.get("spsa").cloned())
        .is_some_and(|v| !v.is_null())
}

impl TestKind {
    /// The test a config file describes: an SPSA test if it has an `spsa:`
    /// block (a `karsinta tune spsa` config), a datagen test if it has a
    /// `limit:` block and no engines (a `karsinta datagen` config), else a
    /// match. Checked as the single-machine command would check it, before
    /// any connection.
    pub fn load(text: &str, path: &Path) -> Result<TestKind, DbError> {
        if is_datagen_config(text) {
            return Ok(TestKind::Datagen(Box::new(DatagenTest::load(text, path)?)));
        }
        if is_spsa_config(text) {
            let run = SpsaTest::load(text, path, None, None)?;
            return Ok(TestKind::Spsa(Box::new(run)));
        }
        let sections = crate::settings::accepted_sections();
        let cfg = MatchConfig::from_yaml_with(text, path, &Overrides::default(), &sections)
            .map_err(|e| DbError::Invalid(e.to_string()))?;
        Ok(TestKind::Match(Box::new(MatchTest::new(&cfg)?)))
    }

    /// The kind of a stored test (`concurrency`: this worker's games at
    /// once, if it overrides the config's).
    pub fn of(test: &TestRow, concurrency: Option<usize>) -> Result<TestKind, DbError> {
        Ok(match test.kind {
            Kind::Match => TestKind::Match(Box::new(MatchTest::of(test)?)),
            Kind::Spsa => TestKind::Spsa(Box::new(SpsaTest::of(test, concurrency)?)),
            Kind::Datagen => TestKind::Datagen(Box::new(DatagenTest::of(test)?)),
        })
    }

    /// The test of git revisions built on the workers instead of the
    /// config's engines (see [`crate::revisions`]): fetched, resolved and
    /// benched here (`log` gets one line per step). A match config plays
    /// two revisions; an SPSA config tunes one.
    pub fn with_revisions(
        self,
        req: &RevisionRequest,
        interrupt: Option<&std::sync::atomic::AtomicBool>,
        log: &mut dyn FnMut(&str),
    ) -> Result<TestKind, DbError> {
        match self {
            TestKind::Datagen(_) => Err(DbError::Invalid(
                "--repo: a datagen test of a revision is not supported (give a match or an \
                 SPSA config)"
                    .into(),
            )),
            TestKind::Spsa(s) => Ok(TestKind::Spsa(Box::new(
                s.of_revision(req, interrupt, log)?,
            ))),
            TestKind::Match(_) if req.sides.len() != 2 => Err(DbError::Invalid(
                "--rev: a test of one revision is an SPSA test (give a karsinta tune spsa \
                 config); a match plays two: --base REV --dev REV"
                    .into(),
            )),
            TestKind::Match(m) => {
                let (cfg, rec) = resolve(&m.cfg, req, interrupt, log)?;
                Ok(TestKind::Match(Box::new(MatchTest::of_revisions(
                    &cfg, rec,
                )?)))
            }
        }
    }

    /// The revisions each worker builds, for a test of revisions.
    pub fn revisions(&self) -> Option<&Revisions> {
        match self {
            TestKind::Match(m) => m.revisions.as_ref(),
            TestKind::Spsa(s) => s.revisions.as_ref(),
            TestKind::Datagen(_) => None,
        }
    }

    /// The games' config: engines (for SPSA the two sides), clock, openings;
    /// `None` for datagen, whose games are one engine's self-play.
    pub fn config(&self) -> Option<&MatchConfig> {
        match self {
            TestKind::Match(m) => Some(&m.cfg),
            TestKind::Spsa(s) => Some(&s.cfg),
            TestKind::Datagen(_) => None,
        }
    }

    /// The config's name (a test's default name).
    pub fn name(&self) -> &str {
        match self {
            TestKind::Match(m) => &m.cfg.name,
            TestKind::Spsa(s) => &s.cfg.name,
            TestKind::Datagen(d) => &d.cfg.name,
        }
    }

    /// Played at fixed nodes or depth (no clock to scale).
    pub fn fixed_limit(&self) -> bool {
        match self.config() {
            Some(cfg) => crate::speed::is_fixed_limit(&cfg.settings.tc),
            None => true,
        }
    }

    /// Create test `name` in the database, every batch pending.
    pub fn create(&self, db: &mut Db, name: &str) -> Result<TestRow, DbError> {
        self.create_queued(db, name, &Queueing::default())
    }

    /// [`TestKind::create`] with its share of the fleet and its clock's
    /// reference speed.
    pub fn create_queued(
        &self,
        db: &mut Db,
        name: &str,
        queue: &Queueing,
    ) -> Result<TestRow, DbError> {
        match self {
            TestKind::Match(m) => m.create_queued(db, name, queue),
            TestKind::Spsa(s) => s.create_queued(db, name, queue),
            TestKind::Datagen(d) => d.create_queued(db, name, queue),
        }
    }

    /// One line saying what [`TestKind::create`] made of `t`.
    pub fn created_line(&self, t: &TestRow) -> String {
        match self {
            TestKind::Match(_) => format!(
                "created test {}: {} pairs in {} batches of {}",
                t.name, t.total_pairs, t.batches, t.batch_pairs
            ),
            TestKind::Spsa(_) => format!(
                "created SPSA test {}: {} iterations of {} pairs, window {}",
                t.name, t.batches, t.batch_pairs, t.window_batches
            ),
            TestKind::Datagen(d) => format!(
                "created datagen test {}: {} games in {} batches of {} ({} format)",
                t.name, t.total_pairs, t.batches, t.batch_pairs, d.cfg.format
            ),
        }
    }

    /// The jobs of claimed batch `idx` (SPSA reads the theta they are drawn
    /// around through `db`); a datagen batch's games are no pairs.
    pub fn jobs(&self, db: &mut Db, test: &TestRow, idx: i32) -> Result<Vec<PairJob>, DbError> {
        match self {
            TestKind::Match(m) => Ok(m.jobs(test, idx)),
            TestKind::Spsa(s) => s.claimed_jobs(db, test, idx),
            TestKind::Datagen(_) => Err(DbError::Invalid(format!(
                "test {}: a datagen batch is games, not pairs",
                test.name
            ))),
        }
    }

    /// A finished pair as the test stores it (`date`: the PGN `Date` tag).
    pub fn pair_result(&self, fp: &FinishedPair, date: &str) -> PairResult {
        match self {
            TestKind::Match(m) => m.pair_result(fp, date),
            TestKind::Spsa(s) => s.pair_result(fp),
            // Never asked (a datagen worker plays no pairs): the bare entry.
            TestKind::Datagen(_) => PairResult {
                entry: fp.entry(0, None),
                pgn: String::new(),
            },
        }
    }

    /// Count `batches`, which just joined the completed prefix (possibly
    /// none), inside the completion's transaction; the SPRT's decision if
    /// the test is decided.
    pub(crate) fn advance(
        &self,
        tx: &mut Transaction<'_>,
        test: &TestRow,
        batches: Range<i32>,
    ) -> Result<Option<SprtDecision>, DbError> {
        match self {
            TestKind::Match(m) => m.advance(tx, test, batches),
            TestKind::Spsa(s) => s.advance(tx, test, batches).map(|()| None),
            TestKind::Datagen(d) => d.advance(tx, test, batches).map(|()| None),
        }
    }
}
