//! Running a match or tournament into a run folder: the schedule of game
//! pairs, played by [`crate::runner::play_pairs`], and the record of each
//! finished pair (PGN, then ledger, then counts, summary and progress),
//! which stops an SPRT once a bound is crossed. Only the runner's callback
//! counts: after a stop or an interrupt whatever still arrives is dropped,
//! so `games.pgn`, the ledger and `summary.json` always agree.
//!
//! Pair `p` belongs to pairing `p % P` and round `p / P`; its opening is the
//! round's entry of the opening order, which depends only on the seed. Each
//! opening is played twice with colours swapped (the pairing's first engine
//! is white in game 1). With fixed nodes or depth the games do not depend on
//! the number of workers or on which worker plays a pair.
//!
//! A run folder belongs to one run: a new run needs a missing or empty
//! folder and claims it by creating `config.yaml` exclusively, whole (a
//! temporary file hard-linked into place), then writes `fingerprint.json`
//! and only then the ledger, which stays locked while the run writes: a
//! kill at any point leaves a folder that a new run may use (only temporary
//! files) or that `--resume` continues (a config). `fingerprint.json`
//! records every config value that decides the games, and `--resume`
//! refuses a folder whose config no longer matches it.

use std::collections::{BTreeMap, HashSet};
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use thiserror::Error;

use crate::config::{MatchConfig, OpeningsConfig};
use crate::game;
use crate::ledger::{Ledger, LedgerError, PairEntry};
use crate::openings::{
    fingerprint, order_openings, parse_openings, LoadOptions, Opening, OpeningError, OpeningFormat,
};
use crate::pgn::{self, MatchTags, UtcTime};
use crate::players::{EngineError, PlayerKind, PlayerSpec};
pub use crate::runner::PlayerFactory;
use crate::runner::{
    check_concurrency, play_pairs, ConcurrencyError, Ended, Flow, PairJob, PlayOptions, RunnerError,
};
use crate::stats::SprtDecision;
use crate::summary::{pairings, Pairing, RunStatus, Summary, Tally};

/// Called with each counted pair and the summary after it (`--json-lines`).
pub type PairObserver = Arc<dyn Fn(&PairEntry, &Summary) + Send + Sync>;

/// How to run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// The run folder (created if missing).
    pub out_dir: PathBuf,
    /// Continue the run in `out_dir` from its ledger.
    pub resume: bool,
    /// No progress bar.
    pub quiet: bool,
    /// `None`: [`crate::players::start_player`].
    pub factory: Option<PlayerFactory>,
    /// Set it to stop the run after the games in progress are abandoned
    /// (finished pairs stay recorded); the summary's status is `halted`.
    pub stop: Option<Arc<AtomicBool>>,
    /// Set it (from a signal handler) to end the run as `interrupted`: pairs
    /// that arrive after it are dropped even if they finished, because the
    /// handler may already have killed the engines that played them.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// One line per counted pair on stderr (score, Elo, LLR). `None`: when
    /// stderr is not a terminal (CI, `nohup`, `tee`) and not `quiet`.
    pub pair_lines: Option<bool>,
    /// Called with each counted pair.
    pub observer: Option<PairObserver>,
}

/// A run that could not go on (engine failures are results, not errors).
#[derive(Debug, Error)]
pub enum MatchError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Openings(#[from] OpeningError),
    #[error("opening {id}: {message}")]
    BadOpening { id: usize, message: String },
    /// An engine cannot play the match as configured (a limit or an
    /// opening its protocol cannot express); `opening` names the opening.
    #[error("{}{message}", opening.map(|id| format!("opening {id}: ")).unwrap_or_default())]
    Unsupported {
        opening: Option<usize>,
        message: String,
    },
    #[error("{0} already holds a run; use --resume to continue it or choose another --out")]
    Exists(PathBuf),
    #[error(
        "{0} is not empty and holds no run to resume: a new run needs a missing or empty folder"
    )]
    NotEmpty(PathBuf),
    #[error("{0} is in use by another karsinta run")]
    InUse(PathBuf),
    #[error("{0} is not a folder: a new run needs a missing or empty folder")]
    NotAFolder(PathBuf),
    #[error(
        "{path} is missing, but config.yaml was written by a version that records it \
         (it has max_start_failures): without it the resume cannot check that the config \
         still decides the games as before; restore fingerprint.json or start a new run"
    )]
    FingerprintMissing { path: PathBuf },
    /// An engine that does not start (or answer its handshake) before the
    /// first game: the match cannot be played as configured.
    #[error("engine {engine}: {message}")]
    Setup { engine: String, message: String },
    /// The machine cannot run this many games at once.
    #[error(transparent)]
    Concurrency(#[from] ConcurrencyError),
    #[error(
        "{path}: the config no longer matches the run's fingerprint.json in what decides \
         the games ({keys}); restore it or start a new run"
    )]
    ConfigChanged { path: PathBuf, keys: String },
    #[error("{0}")]
    Runner(String),
    #[error(
        "{path}: the opening suite is not the one this run was started with \
         (recorded {expected}; the file now has {found}): restore that file or start a new run"
    )]
    OpeningsChanged {
        path: PathBuf,
        expected: String,
        found: String,
    },
}

impl MatchError {
    /// A problem with the config, the engines or the folder found before any
    /// game (the CLI's exit status 2), as opposed to a failure during the run.
    pub fn is_setup(&self) -> bool {
        matches!(
            self,
            MatchError::Openings(_)
                | MatchError::BadOpening { .. }
                | MatchError::Unsupported { .. }
                | MatchError::Exists(_)
                | MatchError::NotEmpty(_)
                | MatchError::InUse(_)
                | MatchError::NotAFolder(_)
                | MatchError::FingerprintMissing { .. }
                | MatchError::Setup { .. }
                | MatchError::Concurrency(_)
                | MatchError::ConfigChanged { .. }
                | MatchError::OpeningsChanged { .. }
        )
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> MatchError + '_ {
    move |source| MatchError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Which pairing and opening each pair plays.
struct Schedule {
    pairings: Vec<Pairing>,
    openings: Vec<Arc<Opening>>,
    /// Per pairing, the order of the openings it plays: the suite's order
    /// without the openings one of its engines cannot start from.
    orders: Vec<Vec<usize>>,
}

impl Schedule {
    /// `order` is the suite's order; `unplayable[e]` the indices (into
    /// `openings`) engine `e` cannot start from.
    fn new(
        pairings: Vec<Pairing>,
        openings: Vec<Opening>,
        order: &[usize],
        unplayable: &[HashSet<usize>],
    ) -> Schedule {
        let orders = pairings
            .iter()
            .map(|p| {
                order
                    .iter()
                    .copied()
                    .filter(|i| {
                        !unplayable[p.first].contains(i) && !unplayable[p.second].contains(i)
                    })
                    .collect()
            })
            .collect();
        Schedule {
            pairings,
            openings: openings.into_iter().map(Arc::new).collect(),
            orders,
        }
    }

    fn of(&self, pair: u64) -> (usize, &Arc<Opening>) {
        let np = self.pairings.len() as u64;
        let round = (pair / np) as usize;
        let pairing = (pair % np) as usize;
        let order = &self.orders[pairing];
        (pairing, &self.openings[order[round % order.len()]])
    }
}

/// File name of an engine's stderr log in the run folder.
pub fn stderr_log_name(engine: &str) -> String {
    let clean: String = engine
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{clean}.stderr.log")
}

/// The match's openings (the standard position alone without a suite),
/// each checked, whether a suite is used, and the suite's checksum and
/// entry count.
#[allow(clippy::type_complexity)]
fn match_openings(
    cfg: &MatchConfig,
) -> Result<(Vec<Opening>, bool, Option<(String, usize)>), MatchError> {
    let (openings, recorded) = match &cfg.openings {
        Some(o) => {
            let (list, checksum) = load_checked_openings(o)?;
            let n = list.len();
            (list, Some((checksum, n)))
        }
        None => (
            vec![Opening {
                fen: None,
                moves: Vec::new(),
                id: 0,
            }],
            None,
        ),
    };
    for o in &openings {
        game::check_opening(o.fen.as_deref(), &o.moves).map_err(|e| MatchError::BadOpening {
            id: o.id,
            message: e.to_string(),
        })?;
    }
    let with_openings = recorded.is_some();
    Ok((openings, with_openings, recorded))
}

/// Pairs of the whole match (all pairings).
fn total_pairs(cfg: &MatchConfig) -> u64 {
    cfg.pairs_per_pairing() * pairings(cfg.tournament, cfg.engines.len()).len() as u64
}

/// The schedule of `cfg` over `openings`: the seed's opening order, minus
/// the openings an engine cannot start from (checked by starting each
/// external engine: a setup error if one cannot start).
fn build_schedule(cfg: &MatchConfig, openings: Vec<Opening>) -> Result<Schedule, MatchError> {
    let (order_kind, start) = cfg
        .openings
        .as_ref()
        .map_or((Default::default(), 0), |o| (o.order, o.start));
    let order = order_openings(openings.len(), order_kind, cfg.seed, start);
    let unplayable = check_setup(&cfg.engines, &cfg.settings.tc, &openings)?;
    let pairings_list = pairings(cfg.tournament, cfg.engines.len());
    let schedule = Schedule::new(pairings_list, openings, &order, &unplayable);
    if let Some(i) = schedule.orders.iter().position(Vec::is_empty) {
        let p = schedule.pairings[i];
        return Err(MatchError::Unsupported {
            opening: None,
            message: format!(
                "{} against {}: no opening of the suite can be set up for both engines",
                cfg.engines[p.first].name, cfg.engines[p.second].name
            ),
        });
    }
    Ok(schedule)
}

/// The pairs of a match as independent jobs: pair `p`'s pairing, opening
/// and players depend only on the config (seed included), so any process
/// that builds the plan from the same config plays the same pair `p` — the
/// distributed worker's unit of work. Built with the same checks as
/// [`run_match`] (openings, engines starting, what each engine can play).
pub struct MatchPlan {
    schedule: Schedule,
    with_openings: bool,
    /// Pairs of the whole match (all pairings).
    pub total_pairs: u64,
}

impl MatchPlan {
    pub fn new(cfg: &MatchConfig) -> Result<MatchPlan, MatchError> {
        let (openings, with_openings, _) = match_openings(cfg)?;
        let total_pairs = total_pairs(cfg);
        let schedule = build_schedule(cfg, openings)?;
        Ok(MatchPlan {
            schedule,
            with_openings,
            total_pairs,
        })
    }

    pub fn pairings(&self) -> &[Pairing] {
        &self.schedule.pairings
    }

    /// The job of pair `pair`.
    pub fn job(&self, pair: u64) -> PairJob {
        let (pairing, opening) = self.schedule.of(pair);
        let p = self.schedule.pairings[pairing];
        PairJob {
            pair,
            first: p.first,
            second: p.second,
            opening: Arc::clone(opening),
            options: None,
        }
    }

    /// The ledger entry of a finished pair, as [`run_match`] writes it.
    pub fn entry(&self, finished: &crate::runner::FinishedPair) -> PairEntry {
        let (pairing, opening) = self.schedule.of(finished.job.pair);
        finished.entry(pairing, self.with_openings.then_some(opening.id))
    }
}

/// The `Round` tag of game `game` (0 or 1) of pair `pair`.
pub fn round_tag(pair: u64, game: usize) -> String {
    format!("{}.{}", pair + 1, game + 1)
}

fn parse_round(game: &str) -> Option<(u64, u64)> {
    let (p, g) = pgn::tag_value(game, "Round")?.split_once('.')?;
    Some((p.parse::<u64>().ok()?.checked_sub(1)?, g.parse().ok()?))
}

/// Rewrite `games.pgn` atomically with only the complete games of `pairs`,
/// sorted by pair and game (the order a single worker would produce).
fn rewrite_pgn(path: &Path, pairs: &HashSet<u64>) -> Result<(), MatchError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io_err(path)(e)),
    };
    let mut games: Vec<((u64, u64), &str)> = pgn::split_games(&text)
        .into_iter()
        .filter(|g| pgn::is_complete(g))
        .filter_map(|g| parse_round(g).map(|r| (r, g)))
        .filter(|(r, _)| pairs.contains(&r.0))
        .collect();
    games.sort_by_key(|(r, _)| *r);
    games.dedup_by_key(|(r, _)| *r);
    let tmp = path.with_extension("pgn.tmp");
    let mut out = String::with_capacity(text.len());
    for (_, g) in games {
        out.push_str(g.trim_end());
        out.push_str("\n\n");
    }
    std::fs::write(&tmp, out).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// Read and parse the suite, check it against the checksum and entry count
/// the config records (a resumed run's), and return it with its checksum.
fn load_checked_openings(o: &OpeningsConfig) -> Result<(Vec<Opening>, String), MatchError> {
    let data = std::fs::read(&o.path).map_err(io_err(&o.path))?;
    let format = o
        .format
        .or_else(|| OpeningFormat::from_path(&o.path))
        .ok_or_else(|| OpeningError::UnknownFormat {
            path: o.path.clone(),
        })?;
    let options = LoadOptions {
        format: Some(format),
        plies: o.plies,
        skip_bad: false,
    };
    let list = parse_openings(&data, &o.path, format, &options)?.openings;
    let checksum = fingerprint(&data);
    let changed = o.checksum.as_ref().is_some_and(|c| *c != checksum)
        || o.entries.is_some_and(|n| n != list.len());
    if changed {
        let describe = |c: Option<&str>, n: Option<usize>| {
            format!(
                "{} with {} openings",
                c.unwrap_or("no checksum"),
                n.map_or_else(|| "?".to_string(), |n| n.to_string())
            )
        };
        return Err(MatchError::OpeningsChanged {
            path: o.path.clone(),
            expected: describe(o.checksum.as_deref(), o.entries),
            found: describe(Some(&checksum), Some(list.len())),
        });
    }
    Ok((list, checksum))
}

/// What the engines can play, found before the first game: an xboard
/// engine without a command for the limit fails the match here, and one
/// without `setboard` cannot start from positions whose castling rights
/// edit mode would get wrong. Returns, per engine, the indices of the
/// openings it cannot start from: its pairings skip them (a note on stderr
/// says how many), every engine's own figures stay comparable. Every
/// external engine must start and complete its handshake here: one that
/// cannot is a setup error, not a string of forfeits.
fn check_setup(
    specs: &[PlayerSpec],
    tc: &crate::timecontrol::TimeControl,
    openings: &[Opening],
) -> Result<Vec<HashSet<usize>>, MatchError> {
    let limit = crate::timecontrol::GameClock::new(*tc).limit(0);
    let with_fen: Vec<usize> = (0..openings.len())
        .filter(|&i| openings[i].fen.is_some())
        .collect();
    let mut unplayable = vec![HashSet::new(); specs.len()];
    for (e, spec) in specs.iter().enumerate() {
        if matches!(spec.kind, PlayerKind::InProcess(_)) {
            continue;
        }
        if matches!(spec.kind, PlayerKind::Uci) {
            // The handshake only (`uci`, options, `isready`): what happens
            // at `ucinewgame` is the games' business.
            let mut player =
                crate::players::start_player(spec).map_err(|err| setup_error(spec, err))?;
            let started = player.ensure_started();
            player.quit();
            started.map_err(|err| setup_error(spec, err))?;
            continue;
        }
        let fens = with_fen.iter().filter_map(|&i| openings[i].fen.as_deref());
        match crate::players::check_player_setup(spec, &limit, fens) {
            Ok(bad) => {
                if let Some((first, why)) = bad.first() {
                    let first = &openings[with_fen[*first]];
                    eprintln!(
                        "note: {}: {} of {} openings are skipped in its games (the first, \
                         opening {}: {})",
                        spec.name,
                        bad.len(),
                        openings.len(),
                        first.id,
                        why
                    );
                }
                unplayable[e] = bad.into_iter().map(|(i, _)| with_fen[i]).collect();
            }
            Err(err) => return Err(setup_error(spec, err)),
        }
    }
    Ok(unplayable)
}

fn setup_error(spec: &PlayerSpec, err: EngineError) -> MatchError {
    match err {
        EngineError::Unsupported(message) => MatchError::Unsupported {
            opening: None,
            message,
        },
        err => MatchError::Setup {
            engine: spec.name.clone(),
            message: format!("{err} ({})", spec.cmd.display()),
        },
    }
}

/// Keys of the resolved config that do not decide the games: they may
/// change when a run is resumed.
const RESUMABLE_KEYS: &[&str] = &[
    "concurrency",
    "max_start_failures",
    // Other commands' blocks (the match does not read them).
    "build",
    "gate",
    "spsa",
    "texel",
    "dist",
];

/// Every value of the resolved config that decides the games, by key path
/// (`engines[1].params.null_move_r`, `time_control`, `seed`, ...).
pub fn config_fingerprint(cfg: &MatchConfig) -> BTreeMap<String, String> {
    fn walk(prefix: &str, v: &serde_yaml::Value, out: &mut BTreeMap<String, String>) {
        match v {
            serde_yaml::Value::Mapping(m) => {
                for (k, v) in m {
                    let k = match k {
                        serde_yaml::Value::String(s) => s.clone(),
                        other => serde_yaml::to_string(other)
                            .unwrap_or_default()
                            .trim()
                            .to_string(),
                    };
                    let key = if prefix.is_empty() {
                        k
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            }
            serde_yaml::Value::Sequence(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(&format!("{prefix}[{i}]"), v, out);
                }
            }
            serde_yaml::Value::Null => {}
            other => {
                let text = serde_yaml::to_string(other).unwrap_or_default();
                out.insert(prefix.to_string(), text.trim().to_string());
            }
        }
    }
    let mut out = BTreeMap::new();
    if let Ok(v) = serde_yaml::to_value(&cfg.resolved) {
        walk("", &v, &mut out);
    }
    out.retain(|k, _| {
        !RESUMABLE_KEYS
            .iter()
            .any(|r| k == r || k.starts_with(&format!("{r}.")) || k.starts_with(&format!("{r}[")))
    });
    out
}

/// The keys whose values differ between two fingerprints, comma-separated.
fn changed_keys(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> String {
    let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    keys.into_iter()
        .filter(|k| old.get(*k) != new.get(*k))
        .map(|k| {
            let show = |v: Option<&String>| match v {
                Some(v) => v.clone(),
                None => default_value(k).map_or("(none)".to_string(), |d| format!("{d} (default)")),
            };
            format!("{k}: {} -> {}", show(old.get(k)), show(new.get(k)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The default of a fingerprint key that is left out at its default: an
/// in-process engine's parameter (`engines[1].params.null_move_r`), which
/// the resolved config lists only where it differs from the table.
fn default_value(key: &str) -> Option<String> {
    let (engine, name) = key.split_once("].params.")?;
    engine.strip_prefix("engines[")?.parse::<usize>().ok()?;
    let i = karsinta_engine::Params::index_of(name)?;
    let spec = &karsinta_engine::Params::specs()[i];
    let value = match spec.kind {
        karsinta_engine::params::ParamKind::Int => spec.default.to_string(),
        karsinta_engine::params::ParamKind::Bool => (spec.default != 0).to_string(),
        karsinta_engine::params::ParamKind::Choice(_) => spec.format_value(spec.default),
    };
    Some(value)
}

/// Create a new, empty run folder at `base`, or at `base-2`, `base-3`, ...
/// when that exists: `create_dir` is atomic, so two runs started at once
/// never share one.
pub fn claim_new_run_dir(base: &Path) -> Result<PathBuf, MatchError> {
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    let mut candidate = base.to_path_buf();
    for n in 2u32.. {
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 10_000 => {
                let mut name = base.as_os_str().to_owned();
                name.push(format!("-{n}"));
                candidate = PathBuf::from(name);
            }
            Err(e) => return Err(io_err(&candidate)(e)),
        }
    }
    unreachable!("the loop returns")
}

/// Remove `dir` if it is empty (a run folder claimed for a run that failed
/// its setup); anything else is left alone.
pub fn remove_if_empty(dir: &Path) {
    let _ = std::fs::remove_dir(dir);
}

/// Prefix of the temporary files a new run writes its folder's files
/// through; ending in `.tmp`.
const TEMP_PREFIX: &str = ".karsinta-";

/// Whether `name` is a temporary file of [`write_new`] (left by a run
/// killed before it claimed the folder: such a folder counts as empty).
fn is_claim_temp(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n.starts_with(TEMP_PREFIX) && n.ends_with(".tmp"))
}

/// A new run's folder must be missing or empty (but for the temporary
/// files of a run killed before it claimed it).
fn check_new_run_dir(out: &Path) -> Result<(), MatchError> {
    let entries = match std::fs::read_dir(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory || out.is_file() => {
            return Err(MatchError::NotAFolder(out.into()))
        }
        Err(e) => return Err(io_err(out)(e)),
        Ok(entries) => entries,
    };
    let mut entries = entries.filter(|e| !e.as_ref().is_ok_and(|e| is_claim_temp(&e.file_name())));
    match entries.next() {
        None => Ok(()),
        Some(_)
            if out.join("ledger.jsonl").exists()
                || (out.join("config.yaml").exists() && out.join("fingerprint.json").exists()) =>
        {
            Err(MatchError::Exists(out.into()))
        }
        Some(_) => Err(MatchError::NotEmpty(out.into())),
    }
}

/// Write `text` to a new temporary file beside `path` (synced), returning
/// its path; removed again if the write fails.
fn write_temp(path: &Path, text: &str) -> Result<PathBuf, MatchError> {
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    let tmp = path.with_file_name(format!("{TEMP_PREFIX}{name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_data()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_err(&tmp)(e));
    }
    Ok(tmp)
}

/// Create `path` with `text` whole and only if it does not exist: the
/// temporary file is hard-linked into place, which fails if another run
/// got there first (`false`). Where the file system has no hard links,
/// an exclusive create and a write (not whole after a kill).
fn write_new(path: &Path, text: &str) -> Result<bool, MatchError> {
    let tmp = write_temp(path, text)?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(_) => match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut f) => {
                f.write_all(text.as_bytes()).map_err(io_err(path))?;
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(io_err(path)(e)),
        },
    }
}

/// Replace `path` with `text` whole (temporary file, rename).
fn write_replace(path: &Path, text: &str) -> Result<(), MatchError> {
    let tmp = write_temp(path, text)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err(path)(e)
    })
}

/// Whether the run folder's `config.yaml` was written by a version that
/// always writes `fingerprint.json` (this one on): those write the default
/// of `max_start_failures` out, a key versions before fingerprints did not
/// know.
fn written_with_fingerprint(config: &Path) -> bool {
    std::fs::read_to_string(config)
        .ok()
        .and_then(|t| serde_yaml::from_str::<serde_yaml::Value>(&t).ok())
        .is_some_and(|v| v.get("max_start_failures").is_some())
}

/// What a resume writes back into the run folder before playing on.
#[derive(Default)]
struct ResumeWrites {
    fingerprint: bool,
    /// More games than the run was started with (`--resume --games N`).
    config: bool,
}

/// A resumed run's config must still decide the games as it did; only
/// `games` may rise (pair `p`'s pairing and opening do not depend on it, so
/// the pairs played stay and the new ones continue the seed's order).
/// Without `fingerprint.json` there is nothing to compare: fine for a
/// folder whose run played nothing yet (killed while claiming its folder:
/// the fingerprint is written on) or that an older version wrote, refused
/// for one this version wrote (`max_start_failures` in its config: the file
/// was deleted).
fn check_resumed_config(
    out: &Path,
    fingerprint: &BTreeMap<String, String>,
) -> Result<ResumeWrites, MatchError> {
    let path = out.join("fingerprint.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let old: BTreeMap<String, String> =
                serde_json::from_str(&text).map_err(|e| MatchError::Io {
                    path: path.clone(),
                    source: std::io::Error::other(e),
                })?;
            if old == *fingerprint {
                return Ok(ResumeWrites::default());
            }
            if raises_games_only(&old, fingerprint) {
                return Ok(ResumeWrites {
                    fingerprint: true,
                    config: true,
                });
            }
            Err(MatchError::ConfigChanged {
                path: out.join("config.yaml"),
                keys: changed_keys(&old, fingerprint),
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let ledger = out.join("ledger.jsonl");
            let played = std::fs::metadata(&ledger).is_ok_and(|m| m.len() > 0);
            if !played {
                Ok(ResumeWrites {
                    fingerprint: true,
                    config: false,
                })
            } else if written_with_fingerprint(&out.join("config.yaml")) {
                Err(MatchError::FingerprintMissing { path })
            } else {
                Ok(ResumeWrites::default())
            }
        }
        Err(e) => Err(io_err(&path)(e)),
    }
}

/// Whether `new` differs from `old` only in a larger `games` (and, for an
/// SPRT with a cap, the larger `sprt.max_games` that `--games` sets with it).
fn raises_games_only(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> bool {
    const CAPS: [&str; 2] = ["games", "sprt.max_games"];
    let cap = |m: &BTreeMap<String, String>, k: &str| m.get(k).and_then(|g| g.parse::<u64>().ok());
    let rest_equal = old
        .iter()
        .filter(|(k, _)| !CAPS.contains(&k.as_str()))
        .eq(new.iter().filter(|(k, _)| !CAPS.contains(&k.as_str())));
    let no_cap_falls = CAPS.iter().all(|k| match (cap(old, k), cap(new, k)) {
        (None, None) => true,
        (Some(a), Some(b)) => b >= a,
        _ => false,
    });
    let games_rise = matches!((cap(old, "games"), cap(new, "games")), (Some(a), Some(b)) if b > a);
    rest_equal && no_cap_falls && games_rise
}

/// Run (or resume) the match `cfg` into `opts.out_dir` and return the final
/// summary. Writes `config.yaml`, `fingerprint.json`, `games.pgn`,
/// `ledger.jsonl`, `summary.json` and one stderr log per external engine.
/// Everything that can be checked before the first game is (openings,
/// engines starting, the folder, the concurrency, a resumed run's config),
/// and a new run's folder stays untouched when a check fails.
pub fn run_match(cfg: &MatchConfig, opts: &RunOptions) -> Result<Summary, MatchError> {
    let out = &opts.out_dir;
    let ledger_path = out.join("ledger.jsonl");
    let pgn_path = out.join("games.pgn");
    let summary_path = out.join("summary.json");
    let fingerprint_path = out.join("fingerprint.json");
    if !opts.resume {
        check_new_run_dir(out)?;
    }

    let specs: Vec<PlayerSpec> = cfg
        .engines
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if !matches!(s.kind, PlayerKind::InProcess(_)) {
                s.stderr_log = Some(out.join(stderr_log_name(&s.name)));
            }
            s
        })
        .collect();

    let mut resolved = cfg.clone();
    let (openings, with_openings, recorded) = match_openings(cfg)?;
    // Recorded in the run's config.yaml: `--resume` checks them.
    if let (Some(r), Some((checksum, entries))) = (resolved.resolved.openings.as_mut(), recorded) {
        r.checksum = Some(checksum);
        r.entries = Some(entries);
    }
    let total_pairs = total_pairs(cfg);

    let fingerprint = config_fingerprint(&resolved);
    let fingerprint_text = serde_json::to_string_pretty(&fingerprint).unwrap_or_default() + "\n";
    let writes = if opts.resume {
        check_resumed_config(out, &fingerprint)?
    } else {
        ResumeWrites::default()
    };
    // Before the folder is written; the runner checks again and warns.
    let workers = cfg.concurrency.min(total_pairs.max(1) as usize);
    check_concurrency(&cfg.engines, &cfg.settings.tc, workers)?;
    // From `cfg.engines`, without stderr logs: the folder may not exist yet.
    let schedule = build_schedule(cfg, openings)?;

    // Claim the folder: a new run creates config.yaml exclusively (a second
    // run started into the same folder finds it taken), then the
    // fingerprint, each whole, and the ledger last, so that a folder with a
    // ledger always has what `--resume` needs. The ledger's lock keeps a
    // second process (a double resume) out while this one writes.
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    if !opts.resume {
        if !write_new(&out.join("config.yaml"), &resolved.resolved_yaml())? {
            return Err(MatchError::InUse(out.clone()));
        }
        write_replace(&fingerprint_path, &fingerprint_text)?;
        std::fs::write(&pgn_path, "").map_err(io_err(&pgn_path))?;
    }
    let lock = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&ledger_path)
        .map_err(io_err(&ledger_path))?;
    if lock.try_lock().is_err() {
        return Err(MatchError::InUse(out.clone()));
    }
    if writes.config {
        write_replace(&out.join("config.yaml"), &resolved.resolved_yaml())?;
    }
    if writes.fingerprint {
        write_replace(&fingerprint_path, &fingerprint_text)?;
    }

    // Replay the ledger: finished pairs are counted once, in finishing order.
    let (mut ledger, done) = Ledger::open(&ledger_path)?;
    let mut tally = Tally::new(schedule.pairings.clone(), cfg.sprt);
    let mut counted: HashSet<u64> = HashSet::new();
    for e in &done {
        if tally.decision().is_some() {
            break;
        }
        if e.pair < total_pairs && e.pairing < schedule.pairings.len() {
            tally.add(e);
            counted.insert(e.pair);
        }
    }
    if opts.resume {
        rewrite_pgn(&pgn_path, &counted)?;
    }
    let pending: Vec<u64> = if tally.decision().is_some() {
        Vec::new()
    } else {
        (0..total_pairs).filter(|p| !counted.contains(p)).collect()
    };

    let bar = if opts.quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(total_pairs * 2);
        if let Ok(style) =
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
        {
            b.set_style(style.progress_chars("=> "));
        }
        b
    };
    let pair_lines = opts
        .pair_lines
        .unwrap_or(!opts.quiet && !std::io::stderr().is_terminal());
    bar.set_position(tally.games());
    let write_summary = |tally: &Tally, status: RunStatus| -> Result<Summary, MatchError> {
        let s = Summary::build(cfg, tally, status);
        s.write_atomic(&summary_path)
            .map_err(io_err(&summary_path))?;
        Ok(s)
    };
    let s = write_summary(&tally, RunStatus::Running)?;
    bar.set_message(s.progress_line());

    let requested =
        |flag: &Option<Arc<AtomicBool>>| flag.as_ref().is_some_and(|f| f.load(Ordering::SeqCst));
    let interrupted = || requested(&opts.interrupt);
    let date = UtcTime::now().pgn_date();
    let tags = MatchTags {
        event: &cfg.name,
        date: &date,
        tc: &cfg.settings.tc,
    };
    let mut pgn_file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&pgn_path)
        .map_err(io_err(&pgn_path))?;

    let jobs = pending.into_iter().map(|pair| {
        let (pairing, opening) = schedule.of(pair);
        let p = schedule.pairings[pairing];
        PairJob {
            pair,
            first: p.first,
            second: p.second,
            opening: Arc::clone(opening),
            options: None,
        }
    });
    let play = PlayOptions {
        concurrency: cfg.concurrency,
        stop: opts.stop.iter().chain(&opts.interrupt).cloned().collect(),
        factory: opts.factory.clone(),
        max_start_failures: cfg.max_start_failures,
        aborted: None,
    };
    let played = play_pairs(&specs, &cfg.settings, jobs, &play, |finished| {
        // PGN first (on disk), then the ledger: a pair is counted only once
        // its games are durable, and resume drops PGN games of uncounted
        // pairs.
        let mut text = String::new();
        for (i, g) in finished.games.iter().enumerate() {
            pgn::write_game(&mut text, g, &round_tag(finished.job.pair, i), &tags);
        }
        pgn_file
            .write_all(text.as_bytes())
            .and_then(|()| pgn_file.flush())
            .and_then(|()| pgn_file.sync_data())
            .map_err(io_err(&pgn_path))?;
        let (pairing, opening) = schedule.of(finished.job.pair);
        let e = finished.entry(pairing, with_openings.then_some(opening.id));
        ledger.append(&e)?;
        counted.insert(e.pair);
        let decided = tally.add(&e).is_some();
        let s = write_summary(&tally, RunStatus::Running)?;
        bar.set_position(tally.games());
        bar.set_message(s.progress_line());
        if pair_lines {
            eprintln!(
                "pair {}/{} ({} games): {}",
                tally.pairs,
                total_pairs,
                tally.games(),
                s.progress_line()
            );
        }
        if let Some(observe) = &opts.observer {
            observe(&e, &s);
        }
        Ok(if decided { Flow::Stop } else { Flow::Continue })
    });
    drop(lock);
    match played {
        Ok(Ended::Exhausted | Ended::Stopped | Ended::Halted) => {}
        Err(RunnerError::Callback(e)) => return Err(e),
        Err(RunnerError::Unsupported { opening, message }) => {
            return Err(MatchError::Unsupported { opening, message })
        }
        Err(RunnerError::BadOpening { id, message }) => {
            return Err(MatchError::BadOpening { id, message })
        }
        Err(e @ RunnerError::EngineLost { .. }) => {
            // What was counted stays counted and resumable.
            let _ = write_summary(&tally, RunStatus::Halted);
            bar.finish_and_clear();
            return Err(MatchError::Runner(format!(
                "{e}; the {} finished games are kept: fix the engine and continue with --resume",
                tally.games()
            )));
        }
        Err(RunnerError::Thread(e)) => return Err(io_err(Path::new("worker thread"))(e)),
        Err(RunnerError::Concurrency(e)) => return Err(e.into()),
    }

    rewrite_pgn(&pgn_path, &counted)?;
    let status = match tally.decision() {
        Some(SprtDecision::H0 | SprtDecision::H1) => RunStatus::Stopped,
        _ if counted.len() as u64 >= total_pairs => RunStatus::Finished,
        _ if interrupted() => RunStatus::Interrupted,
        _ => RunStatus::Halted,
    };
    let summary = write_summary(&tally, status)?;
    bar.finish_and_clear();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameRecord;

    #[test]
    fn round_tags_parse_back() {
        let mut text = String::new();
        let tc = "nodes=1".parse().unwrap();
        let g = GameRecord {
            white: "a".into(),
            black: "b".into(),
            start_fen: None,
            moves: Vec::new(),
            result: crate::game::GameResult::Draw,
            termination: crate::game::Termination::MaxMoves,
            reason: "x".into(),
        };
        pgn::write_game(
            &mut text,
            &g,
            &round_tag(41, 1),
            &MatchTags {
                event: "e",
                date: "d",
                tc: &tc,
            },
        );
        assert_eq!(parse_round(&text), Some((41, 2)));
        assert_eq!(
            stderr_log_name("Stockfish 16/x"),
            "Stockfish_16_x.stderr.log"
        );
    }

    #[test]
    fn rewrite_keeps_counted_complete_games_in_order() {
        let tc = "nodes=1".parse().unwrap();
        let tags = MatchTags {
            event: "e",
            date: "d",
            tc: &tc,
        };
        let g = GameRecord {
            white: "a".into(),
            black: "b".into(),
            start_fen: None,
            moves: Vec::new(),
            result: crate::game::GameResult::WhiteWins,
            termination: crate::game::Termination::Crash,
            reason: "x".into(),
        };
        let mut text = String::new();
        for (p, i) in [(2, 0), (2, 1), (0, 0), (0, 1), (1, 0), (1, 1), (3, 0)] {
            pgn::write_game(&mut text, &g, &round_tag(p, i), &tags);
        }
        // Pair 3's second game was cut short by a kill.
        pgn::write_game(&mut text, &g, &round_tag(3, 1), &tags);
        text.truncate(text.len() - 5);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, &text).unwrap();
        rewrite_pgn(&path, &[0, 2].into_iter().collect()).unwrap();
        let out = std::fs::read_to_string(&path).unwrap();
        let rounds: Vec<_> = pgn::split_games(&out)
            .into_iter()
            .filter_map(parse_round)
            .collect();
        assert_eq!(rounds, vec![(0, 1), (0, 2), (2, 1), (2, 2)]);
    }
}
