//! What this machine brings to a test, checked before a worker registers:
//! for a test of revisions its own builds of them ([`crate::revisions`]),
//! its engines' signatures (a datagen test's one engine), which must equal
//! those the test recorded (the same games), their bench speed, and how
//! many games at once it runs.

use std::sync::atomic::AtomicBool;

use karsinta_harness::play::pairs::check_concurrency;

use crate::kinds::{MatchTest, TestKind};
use crate::queue::catalog::TestRow;
use crate::revisions::build::{build_here, Built};
use crate::revisions::create::recorded_settings;
use crate::settings::DistSettings;
use crate::signature;
use crate::worker::options::WorkerOptions;

/// What this machine brings to a test, checked before it registers.
pub(super) struct Machine {
    /// What it plays: the test's kind, with this machine's builds as the
    /// engines of a test of revisions.
    pub kind: TestKind,
    /// Its engines' signatures (JSON), equal to the test's.
    pub signatures: String,
    /// Their summed bench speed.
    pub nps: u64,
    /// Games at once.
    pub concurrency: usize,
    /// Seconds it took to fetch, build and bench, for a test of revisions.
    pub build_seconds: Option<f64>,
    /// For a test of revisions: each build's bench speed here (JSON, as
    /// `dist_workers.revision_nps` keeps it).
    pub revision_nps: Option<String>,
}

/// Build a test's revisions here, if it has any: the kind with this
/// machine's builds, and the builds (signatures, speed, time taken).
fn with_builds(kind: TestKind, opts: &WorkerOptions) -> Result<(TestKind, Option<Built>), String> {
    let interrupt: Option<&AtomicBool> = opts.stop.as_deref();
    let cache = opts.build_cache_dir();
    let mut log = |line: &str| opts.say(line);
    match &kind {
        TestKind::Match(m) => {
            let Some(rec) = &m.revisions else {
                return Ok((kind, None));
            };
            let section = m
                .cfg
                .section(karsinta_harness::run::ab::SECTION)
                .map_err(|e| e.to_string())?;
            let settings =
                recorded_settings(rec, section, &m.cfg.path, &cache).map_err(|e| e.to_string())?;
            let templates = &m.cfg.resolved().engines;
            let built = build_here(settings, rec, templates, &cache, interrupt, &mut log)?;
            let cfg = m
                .cfg
                .with_engines(built.engines.clone())
                .map_err(|e| e.to_string())?;
            let played = MatchTest::new(&cfg)
                .map_err(|e| e.to_string())?
                .with_revisions(rec.clone());
            Ok((TestKind::Match(Box::new(played)), Some(built)))
        }
        TestKind::Spsa(s) => match s.built_here(&cache, interrupt, &mut log) {
            None => Ok((kind, None)),
            Some(r) => {
                let (run, built) = r?;
                Ok((TestKind::Spsa(Box::new(run)), Some(built)))
            }
        },
        TestKind::Datagen(_) => Ok((kind, None)),
    }
}

/// Refuse a test this machine would play differently (other engines or
/// builds) or cannot play (more games at once than it can run): the error
/// is the reason the refusal records.
pub(super) fn check_machine(
    test: &TestRow,
    kind: TestKind,
    opts: &WorkerOptions,
) -> Result<Machine, String> {
    let (kind, built) = with_builds(kind, opts)?;
    let revision_nps = built.as_ref().map(|b| {
        let sides: Vec<_> = b
            .per_side
            .iter()
            .map(|(engine, nps)| serde_json::json!({ "engine": engine, "nps": nps }))
            .collect();
        serde_json::Value::Array(sides).to_string()
    });
    let (signatures, nps, build_seconds) = match (built, &kind) {
        (Some(b), _) => (b.signatures, b.nps, Some(b.seconds)),
        (None, TestKind::Datagen(d)) => {
            let (s, n) = d.signatures()?;
            (s, n, None)
        }
        (None, _) => {
            let cfg = kind.config().ok_or("a test without engines")?;
            let dist = DistSettings::of(cfg).map_err(|e| e.to_string())?;
            let (s, n) = signature::signatures(&cfg.engines, dist.bench_depth)?;
            (s, n, None)
        }
    };
    if let Some(diff) = signature::mismatch(&test.signatures, &signatures) {
        return Err(format!(
            "this machine's engines differ from the test's ({diff}): refusing to play"
        ));
    }
    let concurrency = match (&kind, kind.config()) {
        (TestKind::Datagen(d), _) => opts.concurrency.unwrap_or(d.cfg.threads).max(1),
        (_, Some(cfg)) => {
            let n = opts.concurrency.unwrap_or(cfg.concurrency).max(1);
            check_concurrency(&cfg.engines, &cfg.settings, n).map_err(|e| e.to_string())?;
            n
        }
        (_, None) => opts.concurrency.unwrap_or(1).max(1),
    };
    Ok(Machine {
        kind,
        signatures,
        nps,
        concurrency,
        build_seconds,
        revision_nps,
    })
}
