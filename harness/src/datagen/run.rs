//! A datagen run into a folder: `config.yaml` (the resolved config),
//! `data.{bin,txt,vf}` (the records), `keys.bin` (the dedup key of every
//! record written, u64 each), `ledger.jsonl` (one line per game, appended
//! and fsync'ed after the game's records and keys) and `report.{json,txt}`.
//!
//! Games are played by `threads` workers, each game `i` from its own seeded
//! stream (`seed`, stream `i`) with a fresh transposition table, and are
//! written strictly in index order, so the files depend only on the config.
//! A run killed at any point resumes from its ledger: the data and key
//! files are cut back to the sizes the last complete ledger line records,
//! so a game's records appear once whether or not it was cut.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use karsinta_engine::Position;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::config::DatagenConfig;
use super::filter::{self, Counts};
use super::mover::{uci_limit, InProcess, Mover, Uci};
use super::selfplay::{play_game, Played};
use super::start::{opening_position, start_position};
use crate::config::ConfigError;
use crate::formats::records::RecordFormat;
use crate::formats::training::encode_record;
use crate::formats::viri;
use crate::players::check_player_limit;
use crate::players::MoveLimit;

/// A run that cannot go on; each names the file.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum DatagenError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The config is unreadable or invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{path}: {message}")]
    Folder { path: PathBuf, message: String },
    /// The config's engine cannot start or cannot search at the limit.
    #[error("engine {name}: {message}")]
    Engine { name: String, message: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DatagenError + '_ {
    move |source| DatagenError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One ledger line: a game and the file sizes after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct GameLine {
    game: u64,
    data_bytes: u64,
    keys_bytes: u64,
    ending: String,
    counts: Counts,
}

/// What a game worker hands the writer.
enum Outcome {
    Played(Played),
    NoStart,
    Failed(String),
}

/// Progress after each written game.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Games written so far, all sessions.
    pub games_done: u64,
    /// Games the run plays (`games`).
    pub games_total: u64,
    /// The counts so far, all sessions.
    pub counts: Counts,
    /// Games and positions of this session (not before a resume).
    pub games_now: u64,
    /// Positions searched in this session.
    pub positions_now: u64,
    /// Seconds since this session started.
    pub elapsed_s: f64,
}

/// What a run did: its counts (all sessions) and this session's speed.
#[derive(Clone, Debug, Serialize)]
pub struct DatagenReport {
    /// The data file's format.
    pub format: RecordFormat,
    /// The counts of the whole run, all sessions.
    pub counts: Counts,
    /// Size of the data file in bytes.
    pub data_bytes: u64,
    /// `data_bytes` over the positions written.
    pub bytes_per_position: f64,
    /// Seconds this session took.
    pub elapsed_s: f64,
    /// Positions searched per second in this session.
    pub positions_per_s: f64,
    /// Games played per second in this session.
    pub games_per_s: f64,
}

impl DatagenReport {
    /// The report for a person.
    pub fn text(&self) -> String {
        let c = &self.counts;
        format!(
            "games {} (white {} / draw {} / black {}; ended by tablebases {}; no playable start {}, \
             engine failures {})\n\
             positions searched {}, written {} ({} format, {} bytes, {:.1} bytes/position)\n\
             dropped: ply range {}, in check {}, tactical best move {}, mate score {}, duplicate {}\n\
             speed this session: {:.1} games/s, {:.0} positions/s over {:.1} s\n",
            c.games,
            c.white_wins,
            c.draws,
            c.black_wins,
            c.tablebase_games,
            c.starts_failed,
            c.failed,
            c.positions,
            c.written,
            self.format,
            self.data_bytes,
            self.bytes_per_position,
            c.ply_range,
            c.in_check,
            c.tactical,
            c.mate,
            c.duplicates,
            self.games_per_s,
            self.positions_per_s,
            self.elapsed_s
        )
    }
}

/// The data file's name for `format`.
pub fn data_file_name(format: RecordFormat) -> String {
    format!("data.{}", format.extension())
}

/// Create the run folder `dir` for `cfg` (it must not hold a run yet).
pub fn create_run(cfg: &DatagenConfig, dir: &Path) -> Result<(), DatagenError> {
    if dir.join("ledger.jsonl").exists() || dir.join("config.yaml").exists() {
        return Err(DatagenError::Folder {
            path: dir.to_path_buf(),
            message: "holds a datagen run already; use --resume".to_string(),
        });
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join("config.yaml");
    std::fs::write(&path, cfg.resolved_yaml()).map_err(io(&path))
}

/// The config of the run in `dir`.
pub fn resume_config(dir: &Path) -> Result<DatagenConfig, DatagenError> {
    Ok(DatagenConfig::load(&dir.join("config.yaml"))?)
}

/// The run's open files, and where the last counted game left them.
struct Output {
    dir: PathBuf,
    format: RecordFormat,
    data: File,
    keys: File,
    ledger: File,
    data_bytes: u64,
    keys_bytes: u64,
    seen: HashSet<u64>,
    counts: Counts,
    next: u64,
}

/// The complete lines of a ledger and the bytes they take.
fn read_ledger(path: &Path) -> Result<(Vec<GameLine>, u64), DatagenError> {
    let mut text = String::new();
    if path.exists() {
        File::open(path)
            .and_then(|mut f| f.read_to_string(&mut text))
            .map_err(io(path))?;
    }
    let mut lines = Vec::new();
    let mut valid = 0u64;
    for raw in text.split_inclusive('\n') {
        // A line cut by a kill has no newline or does not parse: it and
        // anything after it were never counted.
        let Some(line) = raw.strip_suffix('\n') else {
            break;
        };
        let Ok(entry) = serde_json::from_str::<GameLine>(line) else {
            break;
        };
        if entry.game != lines.len() as u64 {
            return Err(DatagenError::Folder {
                path: path.to_path_buf(),
                message: format!("game {} where {} was due", entry.game, lines.len()),
            });
        }
        valid += raw.len() as u64;
        lines.push(entry);
    }
    Ok((lines, valid))
}

/// Open `path` for appending after cutting it to `len` bytes.
fn open_cut(path: &Path, len: u64) -> Result<File, DatagenError> {
    let f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io(path))?;
    let size = f.metadata().map_err(io(path))?.len();
    if size < len {
        return Err(DatagenError::Folder {
            path: path.to_path_buf(),
            message: format!("{size} bytes, the ledger counts {len}"),
        });
    }
    f.set_len(len).map_err(io(path))?;
    Ok(f)
}

impl Output {
    /// Open the run folder's files, cut back to the ledger.
    fn open(dir: &Path, format: RecordFormat) -> Result<Output, DatagenError> {
        let ledger_path = dir.join("ledger.jsonl");
        let (lines, ledger_len) = read_ledger(&ledger_path)?;
        let last = lines.last();
        let data_bytes = last.map_or(0, |l| l.data_bytes);
        let keys_bytes = last.map_or(0, |l| l.keys_bytes);
        let data = open_cut(&dir.join(data_file_name(format)), data_bytes)?;
        let keys_path = dir.join("keys.bin");
        let keys = open_cut(&keys_path, keys_bytes)?;
        let ledger = open_cut(&ledger_path, ledger_len)?;
        let raw = std::fs::read(&keys_path).map_err(io(&keys_path))?;
        let seen = raw
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        let mut counts = Counts::default();
        for l in &lines {
            counts.add(&l.counts);
        }
        Ok(Output {
            dir: dir.to_path_buf(),
            format,
            data,
            keys,
            ledger,
            data_bytes,
            keys_bytes,
            seen,
            counts,
            next: lines.len() as u64,
        })
    }

    /// The bytes and dedup keys of a played game, and its counts.
    fn encode(
        &mut self,
        cfg: &DatagenConfig,
        played: &Played,
    ) -> Result<(Vec<u8>, Vec<u8>, Counts), String> {
        if self.format == RecordFormat::Viriformat {
            return Ok((
                viri::encode(&played.game)?,
                Vec::new(),
                filter::whole_game(played),
            ));
        }
        let (records, counts) = filter::select(played, &cfg.filter, &mut self.seen);
        let mut data = Vec::new();
        let mut keys = Vec::with_capacity(records.len() * 8);
        for r in &records {
            encode_record(self.format, r, &mut data)?;
            keys.extend_from_slice(&filter::key(r).to_le_bytes());
        }
        Ok((data, keys, counts))
    }

    /// Write game `self.next`: records, keys, then its ledger line.
    fn write(&mut self, cfg: &DatagenConfig, outcome: Outcome) -> Result<(), DatagenError> {
        let (data, keys, counts, ending) = match outcome {
            Outcome::Played(p) => match self.encode(cfg, &p) {
                Ok((d, k, c)) => (d, k, c, p.ending.to_string()),
                Err(e) => failed(format!("cannot encode: {e}")),
            },
            Outcome::NoStart => {
                let c = Counts {
                    starts_failed: 1,
                    ..Counts::default()
                };
                (Vec::new(), Vec::new(), c, "no playable start".to_string())
            }
            Outcome::Failed(e) => failed(e),
        };
        let data_path = self.dir.join(data_file_name(self.format));
        self.data.write_all(&data).map_err(io(&data_path))?;
        self.data.sync_data().map_err(io(&data_path))?;
        let keys_path = self.dir.join("keys.bin");
        self.keys.write_all(&keys).map_err(io(&keys_path))?;
        self.keys.sync_data().map_err(io(&keys_path))?;
        self.data_bytes += data.len() as u64;
        self.keys_bytes += keys.len() as u64;
        let line = GameLine {
            game: self.next,
            data_bytes: self.data_bytes,
            keys_bytes: self.keys_bytes,
            ending,
            counts,
        };
        let ledger_path = self.dir.join("ledger.jsonl");
        let mut text = serde_json::to_string(&line).unwrap_or_default();
        text.push('\n');
        self.ledger
            .write_all(text.as_bytes())
            .and_then(|()| self.ledger.sync_data())
            .map_err(io(&ledger_path))?;
        self.counts.add(&counts);
        self.next += 1;
        Ok(())
    }
}

fn failed(e: String) -> (Vec<u8>, Vec<u8>, Counts, String) {
    let c = Counts {
        failed: 1,
        ..Counts::default()
    };
    (Vec::new(), Vec::new(), c, format!("failed: {e}"))
}

/// Game `index`: its start from its own stream, then the game.
fn one_game(cfg: &DatagenConfig, book: &[Position], index: u64, mover: &mut dyn Mover) -> Outcome {
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    rng.set_stream(index);
    let played = panic::catch_unwind(AssertUnwindSafe(|| {
        match start_position(cfg, book, &mut rng, mover)? {
            (Some(start), _) => play_game(cfg, start, mover).map(Some),
            (None, _) => Ok(None),
        }
    }));
    match played {
        Ok(Ok(Some(p))) => Outcome::Played(p),
        Ok(Ok(None)) => Outcome::NoStart,
        Ok(Err(e)) => Outcome::Failed(e),
        Err(_) => {
            // The engine's state is suspect after a panic.
            mover.reset();
            Outcome::Failed(format!("the engine panicked in game {index}"))
        }
    }
}

/// The engine of one worker thread: the config's UCI engine, or the
/// in-process engine.
fn start_mover(cfg: &DatagenConfig) -> Result<Box<dyn Mover>, String> {
    Ok(match &cfg.engine {
        Some(spec) => Box::new(Uci::new(spec)?),
        None => Box::new(InProcess::new(cfg)),
    })
}

/// The book's positions (empty without a book).
fn load_book(cfg: &DatagenConfig) -> Result<Vec<Position>, DatagenError> {
    let Some(path) = &cfg.book else {
        return Ok(Vec::new());
    };
    let openings =
        crate::openings::load_openings(path, None, None).map_err(|e| DatagenError::Folder {
            path: path.clone(),
            message: e.to_string(),
        })?;
    openings
        .iter()
        .map(|o| {
            opening_position(o).map_err(|message| DatagenError::Folder {
                path: path.clone(),
                message: format!("opening {}: {message}", o.id + 1),
            })
        })
        .collect()
}

/// Play the games of the run in `dir` not yet in its ledger.
pub fn run(
    cfg: &DatagenConfig,
    dir: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<DatagenReport, DatagenError> {
    let book = load_book(cfg)?;
    // An engine that cannot start is a setup error, before any game.
    if let Some(spec) = &cfg.engine {
        let limit = uci_limit(&cfg.limit).unwrap_or(MoveLimit::Nodes(1));
        check_player_limit(spec, &limit).map_err(|e| DatagenError::Engine {
            name: spec.name.clone(),
            message: e.to_string(),
        })?;
    }
    let mut out = Output::open(dir, cfg.format)?;
    let started = Instant::now();
    let positions_before = out.counts.positions;
    let games_before = out.next;
    let next = AtomicU64::new(out.next);
    let abort = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(u64, Outcome)>();
    let written = std::thread::scope(|s| {
        for _ in 0..cfg.threads {
            let tx = tx.clone();
            let (next, abort, book) = (&next, &abort, &book);
            s.spawn(move || {
                let mut mover = start_mover(cfg);
                while !abort.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cfg.games {
                        break;
                    }
                    let outcome = match mover.as_mut() {
                        Ok(m) => one_game(cfg, book, i, m.as_mut()),
                        Err(e) => Outcome::Failed(e.clone()),
                    };
                    if tx.send((i, outcome)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        for (i, outcome) in rx {
            pending.insert(i, outcome);
            while let Some(o) = pending.remove(&out.next) {
                if let Err(e) = out.write(cfg, o) {
                    abort.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                progress(&Progress {
                    games_done: out.next,
                    games_total: cfg.games,
                    counts: out.counts,
                    games_now: out.next - games_before,
                    positions_now: out.counts.positions - positions_before,
                    elapsed_s: started.elapsed().as_secs_f64(),
                });
            }
        }
        Ok(())
    });
    written?;
    let elapsed_s = started.elapsed().as_secs_f64().max(1e-9);
    let c = out.counts;
    let report = DatagenReport {
        format: cfg.format,
        counts: c,
        data_bytes: out.data_bytes,
        bytes_per_position: out.data_bytes as f64 / c.written.max(1) as f64,
        elapsed_s,
        positions_per_s: (c.positions - positions_before) as f64 / elapsed_s,
        games_per_s: (out.next - games_before) as f64 / elapsed_s,
    };
    write_report(dir, &report)?;
    Ok(report)
}

/// `report.json` and `report.txt`.
fn write_report(dir: &Path, report: &DatagenReport) -> Result<(), DatagenError> {
    let json = dir.join("report.json");
    let text = serde_json::to_string_pretty(report).unwrap_or_default();
    std::fs::write(&json, text + "\n").map_err(io(&json))?;
    let txt = dir.join("report.txt");
    std::fs::write(&txt, report.text()).map_err(io(&txt))
}
