//! Running a match or tournament into a run folder: the schedule's game
//! pairs, played by [`crate::play::pairs::play_pairs`], and the record of
//! each finished pair (PGN, then ledger, then counts, summary and progress),
//! which stops an SPRT once a bound is crossed. Only the runner's callback
//! counts: after a stop or an interrupt whatever still arrives is dropped,
//! so `games.pgn`, the ledger and `summary.json` always agree.

use std::collections::HashSet;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};

use super::error::{io_err, MatchError};
use super::fingerprint::{check_resumed_config, config_fingerprint, ResumeWrites};
use super::folder::{check_new_run_dir, rewrite_pgn, stderr_log_name, write_new, write_replace};
use super::schedule::{build_schedule, match_openings, round_tag, total_pairs};
use crate::config::MatchConfig;
use crate::formats::pgn_write::{self, MatchTags, UtcTime};
use crate::play::pairs::PlayerFactory;
use crate::play::pairs::{
    check_concurrency, play_pairs, Ended, Flow, PairJob, PlayOptions, RunnerError,
};
use crate::players::{PlayerKind, PlayerSpec};
use crate::report::summary::Summary;
use crate::run::ledger::{Ledger, PairEntry};
use crate::run::tally::{RunStatus, Tally};
use crate::stats::SprtDecision;

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

    let (openings, with_openings, recorded) = match_openings(cfg)?;
    // Recorded in the run's config.yaml: `--resume` checks them.
    let resolved = match recorded {
        Some((checksum, entries)) => cfg.with_recorded_openings(checksum, entries),
        None => cfg.clone(),
    };
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
            pgn_write::write_game(&mut text, g, &round_tag(finished.job.pair, i), &tags);
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
