//! The creator's side of a test of revisions: fetch the repository into
//! the creator's cache, resolve each revision to its commit, take each
//! commit's bench signature from its message's `Bench: N` line or, where
//! there is none (or `--own-bench`), from a build here, and derive the
//! config the test plays: the match config with its first two engines
//! replaced by the builds, exactly as `karsinta ab` replaces them (dev
//! first; for a gate-style test, as `karsinta gate` does, candidate first,
//! with its default SPRT). The engines' paths in that config are where this machine's
//! cache holds (or would hold) the builds; every worker plays its own.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use karsinta_harness::config::{ConfigError, MatchConfig, RawEngine};
use karsinta_harness::players::build::{Build, BuildCache, BuildError, BuildSettings, RawBuild};
use karsinta_harness::run::ab::{revision_engine, Side, SidePreparer, SECTION};
use karsinta_harness::run::gate::{self, RawGate};

use super::mirror::{bench_from_message, normalize_url, Mirror};
use super::{display_url, BenchSource, Gate, Revision, RevisionError, Revisions};

/// What `create --repo URL --base REV --dev REV` (or `--rev REV`, an
/// SPSA test of one revision) asks for.
#[derive(Clone, Debug)]
pub struct RevisionRequest {
    /// `--repo` as given (a URL or a local folder).
    pub repo: String,
    /// (role, revision) in engine order: `dev` (the first engine), then
    /// `base`; for an SPSA test the one side `tuned`.
    pub sides: Vec<(String, String)>,
    /// The creator's build cache (fetched repositories in `repos/`, builds
    /// by commit, as `karsinta ab` keeps them).
    pub cache: PathBuf,
    /// Build and bench both revisions here even where a commit message
    /// states its bench (when the config's `build.bench` is not the bench
    /// those lines quote).
    pub own_bench: bool,
    /// A gate-style test (sides `candidate` and `baseline`): the config's
    /// `gate:` block and `karsinta gate`'s default SPRT apply.
    pub gate: bool,
}

/// A gate-style test's config as `karsinta gate` plays it (its default
/// non-regression SPRT where the config has none) and its policy. The
/// gate's `max_minutes` is one machine's wall-clock budget: the fleet ends
/// the test at its game cap instead, and says so.
fn gate_config(
    played: MatchConfig,
    log: &mut dyn FnMut(&str),
) -> Result<(MatchConfig, Gate), RevisionError> {
    let invalid = |e: ConfigError| RevisionError::Invalid(e.to_string());
    let raw: RawGate = played
        .section(gate::SECTION)
        .map_err(invalid)?
        .unwrap_or_default();
    if let Some(m) = raw.max_minutes {
        log(&format!(
            "gate.max_minutes ({m}) is not applied on the fleet: the test ends at its SPRT or \
             its game cap"
        ));
    }
    let policy = Gate {
        inconclusive: raw.inconclusive.unwrap_or_default(),
    };
    Ok((gate::with_default_sprt(played).map_err(invalid)?, policy))
}

/// The build settings of `cfg`'s `build:` block (the one `karsinta ab`
/// reads) with `cache` as the cache folder.
pub fn build_settings(cfg: &MatchConfig, cache: &Path) -> Result<BuildSettings, RevisionError> {
    let raw: Option<RawBuild> = cfg
        .section(SECTION)
        .map_err(|e| RevisionError::Invalid(e.to_string()))?;
    settings_of(raw, &cfg.path, cache)
}

/// The build settings of the `build:` block `raw` of the config at `path`
/// (relative paths from its folder) with `cache` as the cache folder. A
/// test of revisions needs a bench: it is what every worker's build is
/// checked against.
pub fn settings_of(
    raw: Option<RawBuild>,
    path: &Path,
    cache: &Path,
) -> Result<BuildSettings, RevisionError> {
    let base = path.parent().unwrap_or(Path::new("."));
    let mut s = BuildSettings::from_raw(&raw.unwrap_or_default(), base)
        .map_err(|e| RevisionError::Invalid(format!("{}: {SECTION}: {e}", path.display())))?;
    if s.bench_args.is_empty() {
        return Err(RevisionError::Invalid(format!(
            "{}: build.bench: a fleet test of revisions needs a bench (every worker's build \
             is checked against it)",
            path.display()
        )));
    }
    s.cache_dir = Some(cache.to_path_buf());
    Ok(s)
}

/// The build settings every worker uses for test of revisions `rec`: its
/// recorded `build:` block, else `section`, the one of its config at
/// `path`, with `cache` as the cache folder.
pub fn recorded_settings(
    rec: &Revisions,
    section: Option<RawBuild>,
    path: &Path,
    cache: &Path,
) -> Result<BuildSettings, RevisionError> {
    settings_of(rec.build.clone().or(section), path, cache)
}

/// A revision error that names the repository rather than the mirror.
fn named(url: &str, e: BuildError) -> RevisionError {
    match e {
        BuildError::UnknownRevision { rev, message, .. } => RevisionError::Repo {
            url: display_url(url),
            message: format!("unknown revision '{rev}' ({message})"),
        },
        other => other.into(),
    }
}

/// Resolve, bench and derive the played config (see the module doc).
/// `log` gets one line per step.
pub fn resolve(
    cfg: &MatchConfig,
    req: &RevisionRequest,
    interrupt: Option<&AtomicBool>,
    log: &mut dyn FnMut(&str),
) -> Result<(MatchConfig, Revisions), RevisionError> {
    let settings = build_settings(cfg, &req.cache)?;
    let templates = &cfg.resolved().engines;
    if req.sides.len() != 2 || templates.len() < 2 {
        return Err(RevisionError::Invalid(
            "a test of revisions has two sides, dev and base".into(),
        ));
    }
    let (engines, rec) = resolve_sides(&settings, req, templates, interrupt, log)?;
    let played = cfg
        .with_engines(engines)
        .map_err(|e| RevisionError::Invalid(e.to_string()))?;
    let (played, gate) = if req.gate {
        let (played, g) = gate_config(played, log)?;
        (played, Some(g))
    } else {
        (played, None)
    };
    Ok((played, Revisions { gate, ..rec }))
}

/// Fetch the repository, resolve every side of `req` to its commit and
/// take its bench (the commit message's, else a build's here), each side
/// played by the engine entry of its build made from its template (as
/// `karsinta ab` makes them). The record has no gate and no `build:` block.
pub fn resolve_sides(
    settings: &BuildSettings,
    req: &RevisionRequest,
    templates: &[RawEngine],
    interrupt: Option<&AtomicBool>,
    log: &mut dyn FnMut(&str),
) -> Result<(Vec<RawEngine>, Revisions), RevisionError> {
    let url = normalize_url(&req.repo)?;
    log(&format!("fetching {}", display_url(&url)));
    let mirror = Mirror::open(&url, &req.cache)?;
    mirror.fetch()?;
    let cache = BuildCache::open(mirror.dir(), settings.clone())?;
    let mut preparer = SidePreparer::new(mirror.dir(), settings.clone()).with_interrupt(interrupt);
    // Every revision resolved before anything is built: a typo in one must
    // not cost the other's build first.
    let mut commits = Vec::new();
    for (_, rev) in &req.sides {
        commits.push(cache.resolve(rev).map_err(|e| named(&url, e))?);
    }
    let mut sides = Vec::new();
    let mut engines = Vec::new();
    for (((role, rev), commit), template) in req.sides.iter().zip(commits).zip(templates) {
        let stated = if req.own_bench {
            None
        } else {
            bench_from_message(&mirror.message(&commit)?)
        };
        let (build, bench, bench_from) = match stated {
            Some(n) => {
                let dir = cache.commit_dir(&commit);
                let build = Build {
                    binary: dir.join(&settings.binary),
                    commit: commit.clone(),
                    dir,
                    reused: false,
                };
                (build, n, BenchSource::CommitMessage)
            }
            None => {
                let (build, bench) =
                    bench_here(&mut preparer, (role, rev), &commit, template, log)?;
                (build, bench, BenchSource::CreatorBuild)
            }
        };
        log(&format!(
            "{role}: {rev} = commit {commit}, bench {bench} ({})",
            bench_from.text()
        ));
        engines.push(revision_engine(role, &build, template));
        sides.push(Revision {
            role: role.clone(),
            rev: rev.clone(),
            commit,
            bench,
            bench_from,
        });
    }
    Ok((
        engines,
        Revisions {
            repo: url,
            sides,
            gate: None,
            build: None,
        },
    ))
}

/// Build `commit` (side `role`, given as `rev`) here and run its bench:
/// the build and its node count.
fn bench_here(
    preparer: &mut SidePreparer<'_>,
    (role, rev): (&str, &str),
    commit: &str,
    template: &RawEngine,
    log: &mut dyn FnMut(&str),
) -> Result<(Build, u64), RevisionError> {
    let p = preparer
        .prepare(role, &Side::Rev(commit.to_string()), template, log)
        .map_err(|e| RevisionError::Invalid(format!("{role}: {e}")))?;
    let bench = match p.bench {
        Some(Ok(b)) => b.nodes,
        Some(Err(e)) => {
            return Err(RevisionError::Invalid(format!(
                "{role} ({rev} = {commit}): bench: {e}"
            )))
        }
        None => {
            return Err(RevisionError::Invalid(format!(
                "{role} ({rev} = {commit}): the bench was skipped"
            )))
        }
    };
    let build = p
        .build
        .ok_or_else(|| RevisionError::Invalid(format!("{role}: a revision without a build")))?;
    Ok((build, bench))
}
