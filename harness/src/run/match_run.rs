//! Running a match or tournament into a run folder, in steps: check and
//! claim the folder, replay its ledger (a resumed run's counted pairs), play
//! the schedule's remaining pairs with [`crate::play::pairs::play_pairs`],
//! make each finished pair durable ([`PairRecorder`]: PGN, the `-epdout`
//! file's final positions, then ledger),
//! count it, and hand it to the run's [`PairListener`]s (summary file,
//! progress, observer, SPRT stop). Only the runner's callback counts: after
//! a stop or an interrupt whatever still arrives is dropped, so `games.pgn`,
//! the ledger and `summary.json` always agree.

use std::collections::HashSet;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::error::{io_err, MatchError};
use super::fingerprint::{check_resumed_config, config_fingerprint, ResumeWrites};
use super::folder::{check_new_run_dir, rewrite_pgn, stderr_log_name, write_new, write_replace};
use super::listeners::{
    Observer, PairListener, PairObserver, ProgressPrinter, SprtStop, SummaryFile,
};
use super::schedule::{build_schedule, match_openings, round_tag, total_pairs, Schedule};
use crate::config::{EpdOut, MatchConfig};
use crate::formats::epd::epd_line;
use crate::formats::pgn_write::{self, MatchTags, PgnOptions, UtcTime};
use crate::play::pairs::PlayerFactory;
use crate::play::pairs::{
    check_concurrency, play_pairs, Ended, FinishedPair, Flow, PlayOptions, RunnerError,
};
use crate::players::{PlayerKind, PlayerSpec};
use crate::report::summary::Summary;
use crate::run::ledger::{Ledger, PairEntry};
use crate::run::tally::{RunStatus, Tally};
use crate::stats::SprtDecision;

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

/// Run (or resume) the match `cfg` into `opts.out_dir` and return the final
/// summary. Writes `config.yaml`, `fingerprint.json`, `games.pgn`,
/// `ledger.jsonl`, `summary.json` and one stderr log per external engine.
/// Everything that can be checked before the first game is (openings,
/// engines starting, the folder, the concurrency, a resumed run's config),
/// and a new run's folder stays untouched when a check fails.
pub fn run_match(cfg: &MatchConfig, opts: &RunOptions) -> Result<Summary, MatchError> {
    let out = &opts.out_dir;
    if !opts.resume {
        check_new_run_dir(out)?;
    }
    let (openings, with_openings, recorded) = match_openings(cfg)?;
    // Recorded in the run's config.yaml: `--resume` checks them.
    let resolved = match recorded {
        Some((checksum, entries)) => cfg.with_recorded_openings(checksum, entries),
        None => cfg.clone(),
    };
    let total_pairs = total_pairs(cfg);
    let fingerprint = config_fingerprint(&resolved);
    let writes = if opts.resume {
        check_resumed_config(out, &fingerprint)?
    } else {
        ResumeWrites::default()
    };
    // Before the folder is written; the runner checks again and warns.
    let workers = cfg.concurrency.min(total_pairs.max(1) as usize);
    check_concurrency(&cfg.engines, &cfg.settings, workers)?;
    // From `cfg.engines`, without stderr logs: the folder may not exist yet.
    let schedule = build_schedule(cfg, openings)?;

    let fingerprint_text = serde_json::to_string_pretty(&fingerprint).unwrap_or_default() + "\n";
    // Opened before the folder is claimed: a path that cannot be written
    // leaves the folder untouched.
    let epd = match &cfg.epd {
        Some(e) => Some(open_epd(e, opts.resume)?),
        None => None,
    };
    let lock = claim_folder(out, &resolved, &fingerprint_text, &writes, opts.resume)?;
    let replayed = replay_ledger(out, cfg, &schedule, total_pairs, opts.resume)?;
    let games_per_pair = u64::from(cfg.colours.games_per_opening);
    let mut listeners = listeners(out, total_pairs, games_per_pair, opts);
    let date = UtcTime::now().pgn_date();
    let recorder = PairRecorder::open(
        out,
        &schedule,
        with_openings,
        MatchTags {
            event: &cfg.name,
            date: &date,
            variant: cfg.settings.variant,
        },
        cfg.pgn,
        epd,
    )?;
    let result = play_and_count(cfg, opts, &schedule, recorder, replayed, &mut listeners);
    drop(lock);
    let (tally, counted) = result?;

    rewrite_pgn(&out.join("games.pgn"), &counted)?;
    let status = match tally.decision() {
        Some(SprtDecision::H0 | SprtDecision::H1) => RunStatus::Stopped,
        _ if counted.len() as u64 >= total_pairs => RunStatus::Finished,
        _ if requested(&opts.interrupt) => RunStatus::Interrupted,
        _ => RunStatus::Halted,
    };
    let summary = Summary::build(cfg, &tally, status);
    for l in &mut listeners {
        l.ended(&summary)?;
    }
    Ok(summary)
}

fn requested(flag: &Option<Arc<AtomicBool>>) -> bool {
    flag.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
}

/// The engines as the run plays them: each external engine's stderr goes to
/// its log in the run folder.
fn player_specs(cfg: &MatchConfig, out: &Path) -> Vec<PlayerSpec> {
    cfg.engines
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if !matches!(s.kind, PlayerKind::InProcess(_)) {
                s.stderr_log = Some(out.join(stderr_log_name(&s.name)));
            }
            s
        })
        .collect()
}

/// Claim the folder: a new run creates config.yaml exclusively (a second
/// run started into the same folder finds it taken), then the fingerprint,
/// each whole, and the ledger last, so that a folder with a ledger always
/// has what `--resume` needs. The returned lock on the ledger keeps a
/// second process (a double resume) out while this one writes.
fn claim_folder(
    out: &Path,
    resolved: &MatchConfig,
    fingerprint_text: &str,
    writes: &ResumeWrites,
    resume: bool,
) -> Result<File, MatchError> {
    let fingerprint_path = out.join("fingerprint.json");
    let pgn_path = out.join("games.pgn");
    let ledger_path = out.join("ledger.jsonl");
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    if !resume {
        if !write_new(&out.join("config.yaml"), &resolved.resolved_yaml())? {
            return Err(MatchError::InUse(out.to_path_buf()));
        }
        write_replace(&fingerprint_path, fingerprint_text)?;
        std::fs::write(&pgn_path, "").map_err(io_err(&pgn_path))?;
    }
    let lock = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&ledger_path)
        .map_err(io_err(&ledger_path))?;
    if lock.try_lock().is_err() {
        return Err(MatchError::InUse(out.to_path_buf()));
    }
    if writes.config {
        write_replace(&out.join("config.yaml"), &resolved.resolved_yaml())?;
    }
    if writes.fingerprint {
        write_replace(&fingerprint_path, fingerprint_text)?;
    }
    Ok(lock)
}

/// The run's state from its ledger: finished pairs counted once, in
/// finishing order, and the pairs still to play.
struct Replayed {
    ledger: Ledger,
    tally: Tally,
    counted: HashSet<u64>,
    pending: Vec<u64>,
}

fn replay_ledger(
    out: &Path,
    cfg: &MatchConfig,
    schedule: &Schedule,
    total_pairs: u64,
    resume: bool,
) -> Result<Replayed, MatchError> {
    let (ledger, done) = Ledger::open(&out.join("ledger.jsonl"))?;
    let mut tally =
        Tally::new(schedule.pairings.clone(), cfg.sprt).counting(cfg.colours.counting());
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
    if resume {
        rewrite_pgn(&out.join("games.pgn"), &counted)?;
    }
    let pending: Vec<u64> = if tally.decision().is_some() {
        Vec::new()
    } else {
        (0..total_pairs).filter(|p| !counted.contains(p)).collect()
    };
    Ok(Replayed {
        ledger,
        tally,
        counted,
        pending,
    })
}

/// The run's listeners, in the order they hear each pair.
fn listeners(
    out: &Path,
    total_pairs: u64,
    games_per_pair: u64,
    opts: &RunOptions,
) -> Vec<Box<dyn PairListener>> {
    let mut l: Vec<Box<dyn PairListener>> = vec![
        Box::new(SummaryFile::new(out.join("summary.json"))),
        Box::new(ProgressPrinter::new(
            total_pairs,
            games_per_pair,
            opts.quiet,
            opts.pair_lines,
        )),
    ];
    if let Some(observe) = &opts.observer {
        l.push(Box::new(Observer(Arc::clone(observe))));
    }
    l.push(Box::new(SprtStop));
    l
}

/// Makes a finished pair durable before it counts: its games appended to
/// `games.pgn` and synced, then its ledger line. Resume drops PGN games of
/// pairs without a ledger line.
struct PairRecorder<'a> {
    pgn_file: File,
    pgn_path: PathBuf,
    schedule: &'a Schedule,
    with_openings: bool,
    tags: MatchTags<'a>,
    pgn: PgnOptions,
    /// `-epdout`: each game's final position, added after its PGN.
    epd: Option<(File, PathBuf)>,
    /// `warnings.log`: the PV warnings of the counted games, as fastchess
    /// logs them; created with the first one.
    warnings_path: PathBuf,
}

/// The `-epdout` file, emptied first when a new run asks for it.
fn open_epd(e: &EpdOut, resume: bool) -> Result<(File, PathBuf), MatchError> {
    let append = e.append || resume;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(&e.path)
        .map_err(io_err(&e.path))?;
    Ok((file, e.path.clone()))
}

impl<'a> PairRecorder<'a> {
    fn open(
        out: &Path,
        schedule: &'a Schedule,
        with_openings: bool,
        tags: MatchTags<'a>,
        pgn: PgnOptions,
        epd: Option<(File, PathBuf)>,
    ) -> Result<PairRecorder<'a>, MatchError> {
        let pgn_path = out.join("games.pgn");
        let pgn_file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&pgn_path)
            .map_err(io_err(&pgn_path))?;
        Ok(PairRecorder {
            pgn_file,
            pgn_path,
            schedule,
            with_openings,
            tags,
            pgn,
            epd,
            warnings_path: out.join("warnings.log"),
        })
    }

    fn record(
        &mut self,
        finished: &FinishedPair,
        ledger: &mut Ledger,
    ) -> Result<PairEntry, MatchError> {
        let mut text = String::new();
        for (i, g) in finished.games.iter().enumerate() {
            let round = round_tag(finished.job.pair, i);
            pgn_write::write_game_with(&mut text, g, &round, &self.tags, &self.pgn);
        }
        self.pgn_file
            .write_all(text.as_bytes())
            .and_then(|()| self.pgn_file.flush())
            .and_then(|()| self.pgn_file.sync_data())
            .map_err(io_err(&self.pgn_path))?;
        if let Some((file, path)) = self.epd.as_mut() {
            let mut lines = String::new();
            for g in &finished.games {
                if let Some(pos) = g.final_position(self.tags.variant) {
                    lines.push_str(&epd_line(&pos));
                    lines.push('\n');
                }
            }
            file.write_all(lines.as_bytes())
                .and_then(|()| file.flush())
                .map_err(io_err(path))?;
        }
        let (pairing, opening) = self.schedule.of(finished.job.pair);
        let e = finished.entry(pairing, self.with_openings.then_some(opening.id));
        ledger.append(&e)?;
        self.log_warnings(finished)?;
        Ok(e)
    }

    /// The pair's PV warnings, each naming its game and move, appended to
    /// `warnings.log` and printed on stderr (the match goes on).
    fn log_warnings(&mut self, finished: &FinishedPair) -> Result<(), MatchError> {
        let mut text = String::new();
        for (i, g) in finished.games.iter().enumerate() {
            let round = round_tag(finished.job.pair, i);
            for w in &g.warnings {
                let side = if w.side.is_white() { "White" } else { "Black" };
                text.push_str(&format!(
                    "game {round} ({} vs {}), ply {} ({side} to move):\n{}\n",
                    g.white,
                    g.black,
                    w.ply + 1,
                    g.warning_text(w)
                ));
            }
        }
        if text.is_empty() {
            return Ok(());
        }
        eprint!("{text}");
        let path = &self.warnings_path;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(io_err(path))
    }
}

/// Play the pending pairs; record, count and announce each finished one.
/// Returns the final counts and the counted pairs.
fn play_and_count(
    cfg: &MatchConfig,
    opts: &RunOptions,
    schedule: &Schedule,
    mut recorder: PairRecorder<'_>,
    replayed: Replayed,
    listeners: &mut [Box<dyn PairListener>],
) -> Result<(Tally, HashSet<u64>), MatchError> {
    let Replayed {
        mut ledger,
        mut tally,
        mut counted,
        pending,
    } = replayed;
    let start = Summary::build(cfg, &tally, RunStatus::Running);
    for l in listeners.iter_mut() {
        l.started(&start)?;
    }
    let jobs = pending.into_iter().map(|pair| schedule.job(pair));
    let play = PlayOptions {
        concurrency: cfg.concurrency,
        stop: opts.stop.iter().chain(&opts.interrupt).cloned().collect(),
        factory: opts.factory.clone(),
        max_start_failures: cfg.max_start_failures,
        aborted: None,
    };
    let specs = player_specs(cfg, &opts.out_dir);
    let played = play_pairs(&specs, &cfg.settings, jobs, &play, |finished| {
        let e = recorder.record(&finished, &mut ledger)?;
        counted.insert(e.pair);
        tally.add(&e);
        let s = Summary::build(cfg, &tally, RunStatus::Running);
        let mut flow = Flow::Continue;
        for l in listeners.iter_mut() {
            if l.counted(&e, &s)? == Flow::Stop {
                flow = Flow::Stop;
            }
        }
        Ok(flow)
    });
    match played {
        Ok(Ended::Exhausted | Ended::Stopped | Ended::Halted) => Ok((tally, counted)),
        Err(RunnerError::Callback(e)) => Err(e),
        Err(RunnerError::Unsupported { opening, message }) => {
            Err(MatchError::Unsupported { opening, message })
        }
        Err(RunnerError::BadOpening { id, message }) => Err(MatchError::BadOpening { id, message }),
        Err(e @ RunnerError::EngineLost { .. }) => {
            // What was counted stays counted and resumable.
            let halted = Summary::build(cfg, &tally, RunStatus::Halted);
            for l in listeners.iter_mut() {
                let _ = l.ended(&halted);
            }
            Err(MatchError::Runner(format!(
                "{e}; the {} finished games are kept: fix the engine and continue with --resume",
                tally.games()
            )))
        }
        Err(RunnerError::Thread(e)) => Err(io_err(Path::new("worker thread"))(e)),
        Err(RunnerError::Concurrency(e)) => Err(e.into()),
    }
}
