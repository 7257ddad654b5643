//! SPSA tests of a git revision (`karsinta-dist create --repo URL --rev REV
//! --config spsa.yaml`): the tuned engine is that commit's build, a UCI
//! engine whose options are the tuned parameters, as OpenBench's SPSA tunes
//! an engine's options. Both sides of every pair are the build, each with
//! its perturbed parameters set by `setoption`, exactly as `karsinta tune
//! spsa` plays a UCI engine.
//!
//! The creator resolves the revision to its commit and records its bench
//! (the commit message's `Bench: N`, else its own build's), and stores the
//! config with the engine entry of its build (named `tuned-<7 hex>`, its
//! options those of the config's engine), and the config's `build:` block
//! in the test's record, since a `karsinta tune spsa` config keeps none.
//! Each worker builds the commit once into its build cache, checks the
//! bench and plays with its own build in that entry's place.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use karsinta_harness::config::RawEngine;

use crate::db::DbError;
use crate::kinds::spsa::SpsaTest;
use crate::revisions::build::{build_here, Built};
use crate::revisions::create::{recorded_settings, resolve_sides, settings_of, RevisionRequest};

/// The role of an SPSA test's one revision: its engine is `tuned-<7 hex>`,
/// the sides `tuned-<7 hex>-plus` and `-minus`.
pub const TUNED: &str = "tuned";

impl SpsaTest {
    /// The same run tuning `engine` (an engine entry as a config writes
    /// it) instead of the config's engine: loaded again from the config
    /// with that entry, as `karsinta tune spsa` would load it (a UCI
    /// engine's parameters are options), with this run's window and
    /// concurrency.
    pub fn with_engine(&self, engine: RawEngine) -> Result<SpsaTest, DbError> {
        let mut own = self.own.clone();
        own.engines = vec![engine];
        let text = serde_yaml::to_string(&own).map_err(|e| DbError::Invalid(e.to_string()))?;
        let mut run = SpsaTest::load(
            &text,
            &self.cfg.path,
            Some(self.cfg.concurrency),
            Some(self.window),
        )?;
        run.build = self.build.clone();
        run.revisions = self.revisions.clone();
        Ok(run)
    }

    /// The test of revision `req` (one side, [`TUNED`]) built on the
    /// workers instead of the config's engine: fetched, resolved and
    /// benched here (`log` gets one line per step).
    pub fn of_revision(
        &self,
        req: &RevisionRequest,
        interrupt: Option<&AtomicBool>,
        log: &mut dyn FnMut(&str),
    ) -> Result<SpsaTest, DbError> {
        if req.sides.len() != 1 {
            return Err(DbError::Invalid(
                "--repo with an SPSA config: give --rev REV, the one revision tuned (not \
                 --base/--dev or --candidate/--baseline)"
                    .into(),
            ));
        }
        let settings = settings_of(self.build.clone(), &self.cfg.path, &req.cache)?;
        let (mut engines, mut rec) =
            resolve_sides(&settings, req, &self.own.engines, interrupt, log)?;
        rec.build = Some(self.build.clone().unwrap_or_default());
        let engine = engines.pop().ok_or_else(|| {
            DbError::Invalid(format!(
                "{}: engines: no engine to tune",
                self.cfg.path.display()
            ))
        })?;
        let mut run = self.with_engine(engine)?;
        run.revisions = Some(rec);
        Ok(run)
    }

    /// This machine's build of the test's revision, checked against its
    /// recorded bench (into the build cache `cache`): the run with the
    /// build as its tuned engine, and the build's figures; or the reason
    /// this machine refuses the test. `None` for a test of no revision.
    pub fn built_here(
        &self,
        cache: &Path,
        interrupt: Option<&AtomicBool>,
        log: &mut dyn FnMut(&str),
    ) -> Option<Result<(SpsaTest, Built), String>> {
        let rec = self.revisions.as_ref()?;
        Some((|| {
            let settings =
                recorded_settings(rec, None, &self.cfg.path, cache).map_err(|e| e.to_string())?;
            let mut built = build_here(settings, rec, &self.own.engines, cache, interrupt, log)?;
            let engine = built.engines.pop().ok_or("a revision without a build")?;
            let run = self.with_engine(engine).map_err(|e| e.to_string())?;
            Ok((run, built))
        })())
    }
}
