//! A/B tests between two versions of an engine (`karsinta ab`), and the
//! pieces `karsinta gate` shares with it.
//!
//! A version ("side") is a git revision built through [`crate::players::build`], a
//! ready binary, or a parameter file for the in-process engine. Each side
//! replaces one engine of a match config (the first engine is dev or
//! candidate, the second base or baseline, so every figure is from dev's
//! point of view) and keeps that engine's `options` and `init_timeout_ms`.
//! Both engines are started once before the first game, so an engine that
//! cannot start is a setup error rather than a run of forfeits. The match
//! itself is [`crate::run::run_match`]; this module adds the bench
//! signatures and the result block that belongs in a commit message.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::config::{ConfigError, MatchConfig, Overrides, RawEngine, RawKind};
use crate::play::clock::TimeControl;
use crate::players::build::{
    self as build, BenchSignature, Build, BuildCache, BuildError, BuildSettings,
};
use crate::players::{check_player, EngineError};
use crate::report::summary::Summary;
use crate::run::tally::SprtSummary;
use crate::run::{claim_new_run_dir, remove_if_empty, run_match, MatchError, RunOptions};
use crate::stats::fmt_opt;
use crate::stats::two_decimals;
use crate::stats::{Pentanomial, Trinomial};

/// The config block `ab` and `gate` read: how to build a revision
/// ([`crate::players::build::RawBuild`]).
pub const SECTION: &str = "build";

/// Why an A/B test or gate could not run. All of these are setup errors:
/// engine failures during games are game results.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum AbError {
    /// A revision cannot be checked out, built or benched.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The match config is unreadable or invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{role}: {message}")]
    Side { role: String, message: String },
    #[error("{role} engine '{name}' cannot start: {source}")]
    EngineStart {
        role: String,
        name: String,
        #[source]
        source: EngineError,
    },
    /// The match itself failed (run folder, openings, engines).
    #[error(transparent)]
    Match(#[from] MatchError),
    /// A signal arrived before the match began.
    #[error("interrupted before the match began")]
    Interrupted,
}

/// One version under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Side {
    /// A git revision of the repository, built into the cache.
    Rev(String),
    /// A UCI engine binary.
    Cmd(PathBuf),
    /// A parameter file for the in-process engine.
    Params(PathBuf),
}

impl Side {
    /// The side given by exactly one of three flags (`--dev`, `--dev-cmd`,
    /// `--dev-params`); `role` names it in the error.
    pub fn from_flags(
        role: &str,
        rev: Option<String>,
        cmd: Option<PathBuf>,
        params: Option<PathBuf>,
    ) -> Result<Side, AbError> {
        match (rev, cmd, params) {
            (Some(r), None, None) => Ok(Side::Rev(r)),
            (None, Some(c), None) => Ok(Side::Cmd(c)),
            (None, None, Some(p)) => Ok(Side::Params(p)),
            (None, None, None) => Err(AbError::Side {
                role: role.into(),
                message: format!(
                    "give one of --{role} REV, --{role}-cmd PATH or --{role}-params FILE"
                ),
            }),
            _ => Err(AbError::Side {
                role: role.into(),
                message: format!("--{role}, --{role}-cmd and --{role}-params exclude each other"),
            }),
        }
    }
}

/// A side made ready to play.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// `dev`, `base`, `candidate` or `baseline`.
    pub role: String,
    /// The engine entry that replaces the config's template.
    pub engine: RawEngine,
    /// Where it came from, for people: `commit 1a2b3c4d5e (reused build)`.
    pub origin: String,
    /// The build, for revisions.
    pub build: Option<Build>,
    /// `None`: bench disabled; `Some(Err)`: the bench failed (a warning).
    pub bench: Option<Result<BenchSignature, String>>,
}

impl Prepared {
    /// The bench column: `Bench: 4939216 (1650000 nps)` or why there is none.
    pub fn bench_text(&self) -> String {
        match &self.bench {
            None => "bench skipped".into(),
            Some(Ok(b)) => format!("Bench: {} ({} nps)", b.nodes, b.nps),
            Some(Err(e)) => format!("bench unavailable ({e})"),
        }
    }
}

/// How `ab` and `gate` prepare the two sides beyond the config.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrepareOptions<'a> {
    /// Bench depth from the command line (`--bench-depth`), replacing the
    /// config's: see [`build::bench_args_with_depth`].
    pub bench_depth: Option<u32>,
    /// Raised by Ctrl-C: a bench in progress stops at once.
    pub interrupt: Option<&'a AtomicBool>,
}

/// Builds (or reuses) and benches the sides. The build cache is opened only
/// when a side is a revision.
pub struct SidePreparer<'a> {
    repo: PathBuf,
    settings: BuildSettings,
    cache: Option<BuildCache>,
    interrupt: Option<&'a AtomicBool>,
}

impl<'a> SidePreparer<'a> {
    /// A preparer building revisions of the git checkout `repo` with `settings`.
    pub fn new(repo: &Path, settings: BuildSettings) -> SidePreparer<'a> {
        SidePreparer {
            repo: repo.to_path_buf(),
            settings,
            cache: None,
            interrupt: None,
        }
    }

    /// Stop benches when `interrupt` is raised.
    pub fn with_interrupt(mut self, interrupt: Option<&'a AtomicBool>) -> Self {
        self.interrupt = interrupt;
        self
    }

    fn interrupted(&self) -> bool {
        self.interrupt.is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// The cheap checks of `side` (the revision exists, the binary or the
    /// parameter file can be read), so that a mistake in one side is
    /// reported before the other side is built.
    pub fn check(&mut self, role: &str, side: &Side) -> Result<(), AbError> {
        let side_err = |message: String| AbError::Side {
            role: role.to_string(),
            message,
        };
        match side {
            Side::Rev(rev) => {
                self.cache()?.resolve(rev)?;
            }
            Side::Cmd(path) => {
                let abs = std::fs::canonicalize(path)
                    .map_err(|e| side_err(format!("engine {}: {e}", path.display())))?;
                if !abs.is_file() {
                    return Err(side_err(format!("engine {} is not a file", abs.display())));
                }
            }
            Side::Params(path) => {
                karsinta_engine::Params::load_yaml(path).map_err(|e| side_err(e.to_string()))?;
            }
        }
        Ok(())
    }

    /// The build cache, opened on first use.
    pub fn cache(&mut self) -> Result<&BuildCache, BuildError> {
        if self.cache.is_none() {
            self.cache = Some(BuildCache::open(&self.repo, self.settings.clone())?);
        }
        Ok(self.cache.as_ref().expect("just opened"))
    }

    /// Turns `side` into an engine entry based on `template` (whose options
    /// and init timeout are kept), then benches it.
    pub fn prepare(
        &mut self,
        role: &str,
        side: &Side,
        template: &RawEngine,
        log: &mut dyn FnMut(&str),
    ) -> Result<Prepared, AbError> {
        let side_err = |message: String| AbError::Side {
            role: role.to_string(),
            message,
        };
        let mut engine = side_engine(role, template);
        let bench_args = self.settings.bench_args.clone();
        let timeout = self.settings.bench_timeout;
        let pattern = self.settings.bench_pattern.clone();
        let interrupt = self.interrupt;
        let bench_binary = |binary: &Path,
                            dir: Option<&Path>,
                            log: &mut dyn FnMut(&str)|
         -> Option<Result<BenchSignature, String>> {
            if bench_args.is_empty() {
                return None;
            }
            log(&format!(
                "{role}: running {} {} (at most {} s)",
                binary.display(),
                bench_args.join(" "),
                timeout.as_secs()
            ));
            let mut progress = |line: &str| log(&format!("{role}: bench | {line}"));
            Some(
                build::run_bench_with(
                    binary,
                    &bench_args,
                    dir,
                    timeout,
                    &pattern,
                    interrupt,
                    &mut progress,
                )
                .map_err(|e| e.to_string()),
            )
        };
        let prepared = match side {
            Side::Rev(rev) => {
                let b = self.cache()?.build(rev, log)?;
                engine = revision_engine(role, &b, template);
                let origin = format!(
                    "{rev} = commit {} ({})",
                    build::short(&b.commit),
                    if b.reused { "reused build" } else { "built" }
                );
                let bench = bench_binary(&b.binary, Some(&b.dir), log);
                Prepared {
                    role: role.into(),
                    engine,
                    origin,
                    build: Some(b),
                    bench,
                }
            }
            Side::Cmd(path) => {
                let abs = std::fs::canonicalize(path)
                    .map_err(|e| side_err(format!("engine {}: {e}", path.display())))?;
                if !abs.is_file() {
                    return Err(side_err(format!("engine {} is not a file", abs.display())));
                }
                engine.cmd = Some(abs.display().to_string());
                let bench = bench_binary(&abs, None, log);
                Prepared {
                    role: role.into(),
                    engine,
                    origin: format!("binary {}", abs.display()),
                    build: None,
                    bench,
                }
            }
            Side::Params(path) => {
                let abs = std::fs::canonicalize(path)
                    .map_err(|e| side_err(format!("parameter file {}: {e}", path.display())))?;
                let params = karsinta_engine::Params::load_yaml(&abs)
                    .map_err(|e| side_err(e.to_string()))?;
                engine.kind = Some(RawKind::Inprocess);
                engine.params_file = Some(abs.display().to_string());
                let bench = (!bench_args.is_empty()).then(|| {
                    // `bench 6` sets the depth, as on karsinta-engine's command line.
                    let depth = bench_args
                        .iter()
                        .find_map(|a| a.parse::<i32>().ok())
                        .filter(|d| *d > 0)
                        .unwrap_or(karsinta_engine::bench::DEFAULT_BENCH_DEPTH);
                    log(&format!(
                        "{role}: in-process bench, depth {depth} (at most {} s)",
                        timeout.as_secs()
                    ));
                    in_process_bench(&params, depth, timeout, interrupt, &mut |line| {
                        log(&format!("{role}: bench | {line}"))
                    })
                });
                if self.interrupted() {
                    return Err(AbError::Interrupted);
                }
                Prepared {
                    role: role.into(),
                    engine,
                    origin: format!("parameters {} (in-process)", abs.display()),
                    build: None,
                    bench,
                }
            }
        };
        if self.interrupted() {
            return Err(AbError::Interrupted);
        }
        Ok(prepared)
    }
}

/// The engine entry of a side before it is made ready: a UCI engine named
/// `role` with `template`'s options, init timeout and limits.
fn side_engine(role: &str, template: &RawEngine) -> RawEngine {
    RawEngine {
        name: role.to_string(),
        kind: Some(RawKind::Uci),
        cmd: None,
        args: Vec::new(),
        dir: None,
        options: template.options.clone(),
        init_timeout_ms: template.init_timeout_ms,
        params_file: None,
        params: None,
        time_control: template.time_control.clone(),
        restart: template.restart,
    }
}

/// The engine entry `ab` plays for a built revision: `ROLE-<7 hex digits
/// of the commit>`, the built binary run in the commit's tree, with
/// `template`'s options. A fleet worker (karsinta-dist) plays the same
/// entry for its own build, so its games carry the same names.
pub fn revision_engine(role: &str, build: &Build, template: &RawEngine) -> RawEngine {
    let mut engine = side_engine(role, template);
    engine.name = format!("{role}-{}", &build.commit[..build.commit.len().min(7)]);
    engine.cmd = Some(build.binary.display().to_string());
    // Engines look for their data files (nets, books) next to themselves
    // or in the working folder: use the source tree.
    engine.dir = Some(build.dir.display().to_string());
    engine
}

/// The in-process bench, bounded like an external one: it gives up after
/// `timeout` or at `interrupt`, reporting each position as it finishes.
fn in_process_bench(
    params: &karsinta_engine::Params,
    depth: i32,
    timeout: Duration,
    interrupt: Option<&AtomicBool>,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchSignature, String> {
    let stop = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        // The search polls one flag; this raises it for either reason.
        scope.spawn(|| {
            let deadline = Instant::now() + timeout;
            while !done.load(Ordering::SeqCst) {
                if Instant::now() >= deadline || interrupt.is_some_and(|f| f.load(Ordering::SeqCst))
                {
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let n = karsinta_engine::bench::BENCH_FENS.len();
        let r = karsinta_engine::bench::run_bench_until(params, depth, &stop, |i, _, nodes| {
            progress(&format!("position {}/{n}: {nodes} nodes", i + 1))
        });
        done.store(true, Ordering::SeqCst);
        r
    });
    match result {
        Some(r) => Ok(BenchSignature {
            nodes: r.nodes,
            nps: r.nps,
        }),
        None if interrupt.is_some_and(|f| f.load(Ordering::SeqCst)) => Err("interrupted".into()),
        None => Err(format!(
            "no result after {} s at depth {depth}; a smaller --bench-depth finishes sooner",
            timeout.as_secs()
        )),
    }
}

/// The match config with its first two engines replaced by `first` (dev /
/// candidate) and `second` (base / baseline). Everything else (time
/// control, openings, SPRT, budget) stays as configured.
pub fn replace_engines(
    cfg: &MatchConfig,
    first: &RawEngine,
    second: &RawEngine,
) -> Result<MatchConfig, ConfigError> {
    cfg.with_engines(vec![first.clone(), second.clone()])
}

/// Starts each engine of `cfg` once (handshake and a new game) and stops it,
/// so that an engine that cannot start fails before any game. `roles` name
/// the engines in errors.
pub fn check_engines(cfg: &MatchConfig, roles: &[&str]) -> Result<(), AbError> {
    for (i, spec) in cfg.engines.iter().enumerate() {
        check_player(spec).map_err(|source| AbError::EngineStart {
            role: roles.get(i).copied().unwrap_or("engine").to_string(),
            name: spec.name.clone(),
            source,
        })?;
    }
    Ok(())
}

/// The commit-message block:
/// ```text
/// Elo   | 4.21 +- 3.10 (95%)
/// SPRT  | 8+0.08s Threads=1 Hash=16MB
/// LLR   | 2.96 (-2.94, 2.94) [0.00, 5.00]
/// Games | N: 9876 W: 2500 L: 2380 D: 4996
/// Penta | [120, 1100, 2300, 1250, 168]
/// ```
/// Elo is logistic with its symmetric 95% half-width, from the pentanomial
/// counts (from the trinomial ones if no pair finished, or without
/// `penta`: games that are not colour-swapped pairs, whose block then has
/// no `Penta` line); `options` are the
/// first engine's. Without an SPRT the second line starts with `TC` and the
/// LLR line is left out.
pub fn result_block(
    tc: &TimeControl,
    options: &[(String, String)],
    wdl: &Trinomial,
    penta: Option<&Pentanomial>,
    sprt: Option<&SprtSummary>,
) -> String {
    let est = match penta.filter(|p| p.pairs() > 0) {
        Some(p) => p.estimate(),
        None => wdl.estimate(),
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Elo   | {} +- {} (95%)",
        fmt_opt(est.elo, 2),
        fmt_opt(est.elo_error, 2)
    );
    let label = if sprt.is_some() { "SPRT " } else { "TC   " };
    let _ = writeln!(s, "{label} | {}", conditions(tc, options));
    if let Some(sp) = sprt {
        let _ = writeln!(
            s,
            "LLR   | {} ({}, {}) [{}, {}]",
            two_decimals(sp.llr),
            two_decimals(sp.lower),
            two_decimals(sp.upper),
            two_decimals(sp.elo0),
            two_decimals(sp.elo1)
        );
    }
    let _ = writeln!(
        s,
        "Games | N: {} W: {} L: {} D: {}",
        wdl.games(),
        wdl.wins,
        wdl.losses,
        wdl.draws
    );
    if let Some(p) = penta {
        let p = p.0;
        let _ = writeln!(
            s,
            "Penta | [{}, {}, {}, {}, {}]",
            p[0], p[1], p[2], p[3], p[4]
        );
    }
    s
}

/// `8+0.08s Threads=1 Hash=16MB`: the time control (seconds marked) and the
/// engine options, Threads and Hash first.
fn conditions(tc: &TimeControl, options: &[(String, String)]) -> String {
    let mut s = tc.to_string();
    if matches!(tc, TimeControl::Clock { .. } | TimeControl::MoveTime(_)) {
        s.push('s');
    }
    let rank = |k: &str| match k.to_ascii_lowercase().as_str() {
        "threads" => 0,
        "hash" => 1,
        _ => 2,
    };
    let mut opts: Vec<&(String, String)> = options.iter().collect();
    opts.sort_by_key(|(k, _)| rank(k));
    for (k, v) in opts {
        let unit = if k.eq_ignore_ascii_case("hash") {
            "MB"
        } else {
            ""
        };
        let _ = write!(s, " {k}={v}{unit}");
    }
    s
}

/// [`result_block`] for a finished run.
pub fn summary_block(cfg: &MatchConfig, summary: &Summary) -> String {
    let wdl = Trinomial::new(summary.wins, summary.draws, summary.losses);
    let options = cfg
        .engines
        .first()
        .map(|e| e.options.as_slice())
        .unwrap_or(&[]);
    result_block(
        &cfg.settings.tc,
        options,
        &wdl,
        summary.pentanomial.map(Pentanomial).as_ref(),
        summary.sprt.as_ref(),
    )
}

/// What `karsinta ab` is asked to do.
#[derive(Clone, Debug)]
pub struct AbRequest {
    /// Match config; its first engine is the template for dev, its second
    /// for base.
    pub config: PathBuf,
    /// Command-line values that replace the config's keys.
    pub overrides: Overrides,
    /// The git checkout revisions are built from.
    pub repo: PathBuf,
    /// The reference version (`--base`, `--base-cmd` or `--base-params`).
    pub base: Side,
    /// The version under test (`--dev`, `--dev-cmd` or `--dev-params`).
    pub dev: Side,
    /// Default: [`MatchConfig::default_out_dir`].
    pub out_dir: Option<PathBuf>,
    /// No progress bar or pair lines.
    pub quiet: bool,
    /// Build and bench only, no games.
    pub bench_only: bool,
    /// See [`PrepareOptions::bench_depth`].
    pub bench_depth: Option<u32>,
}

/// What `karsinta ab` did.
#[derive(Debug)]
pub struct AbOutcome {
    /// The dev side as built and benched.
    pub dev: Prepared,
    /// The base side as built and benched.
    pub base: Prepared,
    /// The config actually played (engines replaced).
    pub config: MatchConfig,
    /// The run folder.
    pub out_dir: PathBuf,
    /// `None` with `bench_only`.
    pub summary: Option<Summary>,
}

impl AbOutcome {
    /// The commit-message block (empty without a match).
    pub fn block(&self) -> String {
        self.summary
            .as_ref()
            .map(|s| summary_block(&self.config, s))
            .unwrap_or_default()
    }
}

/// Prepares both sides as the config's `build:` block says and returns the
/// config with its engines replaced by them.
pub fn prepare_pair(
    cfg: &MatchConfig,
    repo: &Path,
    first: (&str, &Side),
    second: (&str, &Side),
    options: &PrepareOptions<'_>,
    log: &mut dyn FnMut(&str),
) -> Result<(MatchConfig, Prepared, Prepared), AbError> {
    let base_dir = cfg.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let build: Option<crate::players::build::RawBuild> = cfg.section(SECTION)?;
    let mut settings = match &build {
        Some(raw) => BuildSettings::from_raw(raw, &base_dir).map_err(|e| ConfigError::Invalid {
            path: cfg.path.clone(),
            key: SECTION.into(),
            message: e.to_string(),
        })?,
        None => BuildSettings::default(),
    };
    if let Some(depth) = options.bench_depth {
        settings.bench_args = build::bench_args_with_depth(&settings.bench_args, depth);
    }
    let mut preparer = SidePreparer::new(repo, settings).with_interrupt(options.interrupt);
    // Both sides are checked before either is built: a typo in one must not
    // cost the other's build first.
    preparer.check(first.0, first.1)?;
    preparer.check(second.0, second.1)?;
    let t = &cfg.resolved().engines;
    let a = preparer.prepare(first.0, first.1, &t[0], log)?;
    let b = preparer.prepare(second.0, second.1, &t[1], log)?;
    let played = replace_engines(cfg, &a.engine, &b.engine)?;
    Ok((played, a, b))
}

/// The blocks an `ab` or `gate` config may hold: those of the commands
/// built on a match ([`super::SECTIONS`]) and karsinta-dist's
/// ([`super::FLEET_SECTION`]): a fleet test of two revisions is an `ab`
/// config, which `karsinta ab` then plays on one machine.
pub fn accepted_sections() -> Vec<&'static str> {
    let mut v = super::SECTIONS.to_vec();
    v.push(super::FLEET_SECTION);
    v
}

/// Runs `karsinta ab`: build and bench both sides, check they start, play
/// the config's match (SPRT or fixed games) with dev as the first engine.
/// `interrupt` is [`RunOptions::interrupt`]: raised before the match, the
/// run does not start; during it, the summary ends `interrupted`.
pub fn run_ab(
    req: &AbRequest,
    interrupt: Option<Arc<AtomicBool>>,
    log: &mut dyn FnMut(&str),
) -> Result<AbOutcome, AbError> {
    let cfg = MatchConfig::load_with(&req.config, &req.overrides, &accepted_sections())?;
    let options = PrepareOptions {
        bench_depth: req.bench_depth,
        interrupt: interrupt.as_deref(),
    };
    let (config, dev, base) = prepare_pair(
        &cfg,
        &req.repo,
        ("dev", &req.dev),
        ("base", &req.base),
        &options,
        log,
    )?;
    if req.bench_only {
        let out_dir = req
            .out_dir
            .clone()
            .unwrap_or_else(|| config.default_out_dir());
        return Ok(AbOutcome {
            dev,
            base,
            config,
            out_dir,
            summary: None,
        });
    }
    check_engines(&config, &["dev", "base"])?;
    if interrupt.as_ref().is_some_and(|f| f.load(Ordering::SeqCst)) {
        return Err(AbError::Interrupted);
    }
    let out_dir = match req.out_dir.clone() {
        Some(d) => d,
        None => claim_new_run_dir(&config.default_out_dir())?,
    };
    let opts = RunOptions {
        out_dir: out_dir.clone(),
        resume: false,
        quiet: req.quiet,
        factory: None,
        stop: None,
        interrupt,

        ..RunOptions::default()
    };
    let summary = run_match(&config, &opts).inspect_err(|_| remove_if_empty(&out_dir))?;
    Ok(AbOutcome {
        dev,
        base,
        config,
        out_dir,
        summary: Some(summary),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::EloModel;

    fn opts() -> Vec<(String, String)> {
        vec![("Hash".into(), "16".into()), ("Threads".into(), "1".into())]
    }

    #[test]
    fn block_has_the_commit_message_shape() {
        let penta = Pentanomial([120, 1100, 2300, 1250, 168]);
        let wdl = Trinomial::new(2500, 4996, 2380);
        let sprt = SprtSummary {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
            llr: 2.961,
            lower: -2.944,
            upper: 2.944,
            decision: crate::run::tally::SprtVerdict::H1,
            pairs: penta.pairs(),
            counting: crate::stats::Counting::Pentanomial,
            games: penta.games(),
            unbiased: None,
        };
        let tc: TimeControl = "8+0.08".parse().unwrap();
        let block = result_block(&tc, &opts(), &wdl, Some(&penta), Some(&sprt));
        // The pentanomial Elo 8.6560 +- 4.0759 of these counts (fishtest's
        // formulas, the reference table in stats/tests.rs); the trinomial
        // counts would give 4.22 +- 4.82 (trinomial formulas).
        let expected = "Elo   | 8.66 +- 4.08 (95%)\n\
                        SPRT  | 8+0.08s Threads=1 Hash=16MB\n\
                        LLR   | 2.96 (-2.94, 2.94) [0.00, 5.00]\n\
                        Games | N: 9876 W: 2500 L: 2380 D: 4996\n\
                        Penta | [120, 1100, 2300, 1250, 168]\n";
        assert_eq!(block, expected);
        // Without a finished pair the trinomial counts are used.
        let block = result_block(
            &tc,
            &opts(),
            &wdl,
            Some(&Pentanomial::default()),
            Some(&sprt),
        );
        assert!(block.starts_with("Elo   | 4.22 +- 4.82 (95%)\n"), "{block}");
        // Games that are not colour-swapped pairs: trinomial, no Penta line.
        let trinomial = result_block(&tc, &opts(), &wdl, None, Some(&sprt));
        assert!(
            trinomial.starts_with("Elo   | 4.22 +- 4.82 (95%)\n"),
            "{trinomial}"
        );
        assert!(!trinomial.contains("Penta"), "{trinomial}");
    }

    #[test]
    fn block_without_sprt_and_fixed_nodes() {
        let tc: TimeControl = "nodes=5000".parse().unwrap();
        let block = result_block(
            &tc,
            &[],
            &Trinomial::new(3, 4, 1),
            Some(&Pentanomial([0, 1, 1, 2, 0])),
            None,
        );
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), 4, "{block}");
        assert_eq!(lines[1], "TC    | nodes=5000");
        assert_eq!(lines[2], "Games | N: 8 W: 3 L: 1 D: 4");
        assert_eq!(lines[3], "Penta | [0, 1, 1, 2, 0]");
        assert_eq!(
            (
                two_decimals(-0.001),
                two_decimals(-0.006),
                two_decimals(2.0)
            ),
            ("0.00".into(), "-0.01".into(), "2.00".into())
        );
        let movetime: TimeControl = "movetime=0.1".parse().unwrap();
        assert_eq!(
            conditions(&movetime, &opts()),
            "movetime=0.1s Threads=1 Hash=16MB"
        );
    }

    #[test]
    fn sides_need_exactly_one_flag() {
        assert_eq!(
            Side::from_flags("dev", Some("HEAD".into()), None, None).unwrap(),
            Side::Rev("HEAD".into())
        );
        let e = Side::from_flags("dev", None, None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--dev-cmd"), "{e}");
        let e = Side::from_flags("base", Some("x".into()), Some("y".into()), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("exclude"), "{e}");
    }
}
