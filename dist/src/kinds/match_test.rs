//! Match tests: a `karsinta match` config (two engines, a gauntlet or a
//! round robin) played batch by batch, with its SPRT run on the completed
//! prefix pair by pair in pair order, so that the decision and the pair it
//! falls on are those of one machine playing the pairs in order.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex};

use karsinta_harness::config::{engine, MatchConfig, RawEngine, RawKind};
use karsinta_harness::formats::pgn_write::{self, MatchTags};
use karsinta_harness::play::pairs::{FinishedPair, PairJob};
use karsinta_harness::run::{round_tag, MatchPlan};
use karsinta_harness::stats::{Pentanomial, SprtDecision};
use postgres::Transaction;

use crate::db::{Db, DbError};
use crate::queue::catalog::{self, insert_test, Kind, NewTest, Queueing, TestRow};
use crate::queue::results::{batch_entries, PairResult};
use crate::revisions::Revisions;
use crate::settings::DistSettings;
use crate::signature;

/// A match test: its resolved config and the schedule of its pairs.
pub struct MatchTest {
    /// The config as the creator resolved it.
    pub cfg: MatchConfig,
    /// Which engines and which opening each pair plays.
    pub plan: MatchPlan,
    /// For a test of git revisions, what each worker builds (its engines
    /// in `cfg` are then the creator's builds: see [`crate::revisions`]).
    pub revisions: Option<Revisions>,
}

/// A stored match test's config and revisions without its schedule: what
/// `status`, the live view and `export` need. Drawing the schedule loads
/// and checks the openings file, which was nine tenths of the live view's
/// test list (50 tests: 0.8 s a request), and needs that file on the
/// machine that serves the figures.
pub struct MatchSetup {
    /// The config as the creator resolved it.
    pub cfg: MatchConfig,
    /// For a test of git revisions, what each worker builds.
    pub revisions: Option<Revisions>,
}

impl MatchSetup {
    /// The setup of a stored row.
    pub fn of(test: &TestRow) -> Result<MatchSetup, DbError> {
        let path = format!("{}.yaml", test.name);
        let sections = crate::settings::accepted_sections();
        let cfg = MatchConfig::from_yaml_with(
            &test.config_yaml,
            Path::new(&path),
            &Default::default(),
            &sections,
        )
        .map_err(|e| DbError::Invalid(format!("test {}: stored config: {e}", test.name)))?;
        let revisions = match &test.revisions {
            Some(text) => Some(Revisions::parse(text, &test.name)?),
            None => None,
        };
        Ok(MatchSetup { cfg, revisions })
    }
}

/// Setups of stored match tests as parsed before, for a process that
/// reads them on every request (the live view): parsing a config with its
/// parameters inline was half the CPU of the test list. An entry is used
/// only while the row's name, config and revisions are the text it was
/// parsed from (a test's config is never updated; a row of a recreated
/// database is parsed again), so it cannot go stale.
pub struct Setups(Mutex<BTreeMap<i64, ParsedSetup>>);

struct ParsedSetup {
    name: String,
    config_yaml: String,
    revisions: Option<String>,
    setup: Arc<MatchSetup>,
}

impl ParsedSetup {
    fn parsed_from(&self, t: &TestRow) -> bool {
        self.name == t.name && self.config_yaml == t.config_yaml && self.revisions == t.revisions
    }
}

/// Entries kept at most; past it the cache starts again (deleted tests'
/// entries go with it).
const SETUPS_KEPT: usize = 4096;

impl Setups {
    /// An empty cache.
    pub const fn new() -> Setups {
        Setups(Mutex::new(BTreeMap::new()))
    }

    /// [`MatchSetup::of`] the row, parsed once for its stored text.
    pub fn of(&self, test: &TestRow) -> Result<Arc<MatchSetup>, DbError> {
        // A panic while the lock was held left nothing half-written.
        let lock = || self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = lock().get(&test.id).filter(|p| p.parsed_from(test)) {
            return Ok(p.setup.clone());
        }
        let setup = Arc::new(MatchSetup::of(test)?);
        let mut map = lock();
        if map.len() >= SETUPS_KEPT {
            map.clear();
        }
        map.insert(
            test.id,
            ParsedSetup {
                name: test.name.clone(),
                config_yaml: test.config_yaml.clone(),
                revisions: test.revisions.clone(),
                setup: setup.clone(),
            },
        );
        Ok(setup)
    }
}

impl Default for Setups {
    fn default() -> Setups {
        Setups::new()
    }
}

fn invalid(e: impl std::fmt::Display) -> DbError {
    DbError::Invalid(e.to_string())
}

impl MatchTest {
    /// The test of a resolved match config: checks its openings and
    /// schedule as `karsinta match` would.
    pub fn new(cfg: &MatchConfig) -> Result<MatchTest, DbError> {
        // The fleet's SPRT state is pentanomial (`sprt_penta`).
        if let (Some(why), Some(_)) = (cfg.colours.why_trinomial(), &cfg.sprt) {
            return Err(DbError::Invalid(format!(
                "{}: {why}: the games are not colour-swapped pairs, and the fleet's SPRT counts \
                 only those; run this SPRT with karsinta match, or keep the default colours",
                cfg.path.display()
            )));
        }
        if cfg.sprt.is_some_and(|s| s.model.counts_games()) {
            return Err(DbError::Invalid(format!(
                "{}: sprt.model: bayesian counts W/D/L, and the fleet's SPRT counts \
                 colour-swapped pairs; use normalized or logistic bounds, or karsinta match",
                cfg.path.display()
            )));
        }
        let plan = MatchPlan::new(cfg).map_err(invalid)?;
        Ok(MatchTest {
            cfg: cfg.clone(),
            plan,
            revisions: None,
        })
    }

    /// The same test played by revisions built on each worker.
    pub fn with_revisions(mut self, revisions: Revisions) -> MatchTest {
        self.revisions = Some(revisions);
        self
    }

    /// The test of revisions whose played config is `cfg` (its engines the
    /// creator's builds), on a machine that need not have built them:
    /// [`MatchPlan::new`] starts every external engine, so the schedule is
    /// drawn with in-process stand-ins of the same names and limits. That
    /// is the same schedule: built revisions are UCI engines, which start
    /// from every opening (only an xboard engine can skip some). A worker
    /// plays [`MatchTest::new`] of its own builds.
    pub fn of_revisions(cfg: &MatchConfig, revisions: Revisions) -> Result<MatchTest, DbError> {
        let stand_ins = cfg
            .resolved()
            .engines
            .iter()
            .map(|e| RawEngine {
                name: e.name.clone(),
                kind: Some(RawKind::Inprocess),
                time_control: e.time_control.clone(),
                ..engine::blank()
            })
            .collect();
        let plan =
            MatchPlan::new(&cfg.with_engines(stand_ins).map_err(invalid)?).map_err(invalid)?;
        Ok(MatchTest {
            cfg: cfg.clone(),
            plan,
            revisions: Some(revisions),
        })
    }

    /// The test of a stored row, its config loaded as the creator resolved
    /// it (engine paths are this machine's).
    pub fn of(test: &TestRow) -> Result<MatchTest, DbError> {
        let stored =
            |e: String| DbError::Invalid(format!("test {}: stored config: {e}", test.name));
        let MatchSetup { cfg, revisions } = MatchSetup::of(test)?;
        match revisions {
            Some(r) => MatchTest::of_revisions(&cfg, r).map_err(|e| stored(e.to_string())),
            None => MatchTest::new(&cfg).map_err(|e| stored(e.to_string())),
        }
    }

    /// Create test `name`: records the engines' signatures and queues
    /// every batch.
    pub fn create(&self, db: &mut Db, name: &str) -> Result<TestRow, DbError> {
        self.create_queued(db, name, &Queueing::default())
    }

    /// [`MatchTest::create`] with its share of the fleet and its clock's
    /// reference speed.
    pub fn create_queued(
        &self,
        db: &mut Db,
        name: &str,
        queue: &Queueing,
    ) -> Result<TestRow, DbError> {
        let dist = DistSettings::of(&self.cfg)?;
        // Revisions carry their recorded benches; their engines are built
        // on the workers (and need not exist here).
        let (sigs, revisions) = match &self.revisions {
            Some(r) => (r.signatures(), Some(r.to_json())),
            None => (
                signature::signatures(&self.cfg.engines, dist.bench_depth)
                    .map_err(invalid)?
                    .0,
                None,
            ),
        };
        let yaml = self.cfg.resolved_yaml();
        let new = NewTest {
            name,
            config_yaml: &yaml,
            kind: Kind::Match,
            batch_pairs: dist.batch_pairs,
            total_pairs: self.plan.total_pairs,
            window_batches: dist.window_batches,
            lease_seconds: dist.lease_seconds,
            signatures: &sigs,
            fixed_limit: crate::speed::is_fixed_limit(&self.cfg.settings.tc),
            queue,
            revisions: revisions.as_deref(),
        };
        db.run(|c| {
            let mut tx = c.transaction()?;
            let t = insert_test(&mut tx, &new)?;
            tx.commit()?;
            Ok(t)
        })
    }

    /// The jobs of batch `idx`.
    pub fn jobs(&self, test: &TestRow, idx: i32) -> Vec<PairJob> {
        test.pairs_of(idx).map(|p| self.plan.job(p)).collect()
    }

    /// A finished pair as the ledger and games.pgn of one machine would
    /// keep it (`date`: the PGN `Date` tag).
    pub fn pair_result(&self, fp: &FinishedPair, date: &str) -> PairResult {
        let tags = MatchTags {
            event: &self.cfg.name,
            date,
            variant: self.cfg.settings.variant,
        };
        let mut text = String::new();
        for (i, g) in fp.games.iter().enumerate() {
            pgn_write::write_game(&mut text, g, &round_tag(fp.job.pair, i), &tags);
        }
        PairResult {
            entry: self.plan.entry(fp),
            pgn: text,
        }
    }

    /// Run the SPRT over the pairs of `batches` (just joined the prefix),
    /// in pair order, until it decides; as the tally, the first pairing's
    /// pentanomial decides. Returns the decision, made now or before.
    pub(crate) fn advance(
        &self,
        tx: &mut Transaction<'_>,
        test: &TestRow,
        batches: Range<i32>,
    ) -> Result<Option<SprtDecision>, DbError> {
        let t = tx.query_one(
            "SELECT sprt_penta, sprt_pairs, decision FROM dist_tests WHERE id = $1",
            &[&test.id],
        )?;
        if let Some(d) = t.get::<_, Option<&str>>(2) {
            return catalog::parse_decision(d).map(Some);
        }
        let Some(sprt) = &self.cfg.sprt else {
            return Ok(None);
        };
        if batches.is_empty() {
            return Ok(None);
        }
        let mut penta = Pentanomial(
            serde_json::from_str(t.get::<_, &str>(0))
                .map_err(|e| DbError::Invalid(format!("test {}: sprt_penta: {e}", test.name)))?,
        );
        let mut sprt_pairs: i64 = t.get(1);
        let mut decision = None;
        for (_, e) in batch_entries(tx, test.id, batches)? {
            sprt_pairs += 1;
            if e.pairing == 0 {
                penta.add(e.first_points());
                let r = sprt.test_penta(&penta);
                if r.decision != SprtDecision::Continue {
                    decision = Some(r.decision);
                    break;
                }
            }
        }
        let penta_text = serde_json::to_string(&penta.0).map_err(invalid)?;
        tx.execute(
            "UPDATE dist_tests SET sprt_penta = $2, sprt_pairs = $3, decision = $4 WHERE id = $1",
            &[
                &test.id,
                &penta_text,
                &sprt_pairs,
                &decision.map(SprtDecision::as_str),
            ],
        )?;
        Ok(decision)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::kinds::test_kind::TestKind;

    fn refusal(extra: &str) -> String {
        let text = format!(
            "name: t\nengines:\n  - {{ name: a, type: inprocess }}\n  - {{ name: b, type: inprocess }}\n\
             time_control: nodes=300\ngames: 10\n{extra}"
        );
        match TestKind::load(&text, Path::new("t.yaml")) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    /// The fleet's SPRT state is pentanomial: an SPRT on single games is
    /// refused before the test exists, naming the file and the key.
    #[test]
    fn sprts_on_single_games_are_refused() {
        let sprt = "sprt: { elo0: 0, elo1: 5 }\n";
        assert_eq!(refusal(sprt), "");
        let e = refusal(&format!("{sprt}colours: {{ swap: false }}\n"));
        assert!(e.contains("t.yaml: colours.swap: false"), "{e}");
        let e = refusal("sprt: { elo0: 0, elo1: 5, model: bayesian }\n");
        assert!(
            e.contains("t.yaml: sprt.model: bayesian counts W/D/L"),
            "{e}"
        );
    }
}
