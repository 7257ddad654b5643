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
//!
//! The pieces are public for karsinta-dist's datagen kind, which plays
//! the same games on many machines: [`play_one`] gives game `i`'s
//! [`GameOutput`] (a pure function of the config and `i`), [`admit`] is
//! the run-wide duplicate filter in game order, and [`RunWriter`] writes
//! games into a run folder, so a fleet's export is this run's files.

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

/// How a game ended before its records are encoded.
enum Outcome {
    Played(Played),
    NoStart,
    Failed(String),
}

/// One record of a game, encoded, and its dedup key (`None`: a viriformat
/// game, written whole and never deduplicated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedRecord {
    /// The position's Zobrist key ([`filter::key`]).
    pub key: Option<u64>,
    /// The record in the run's format.
    pub bytes: Vec<u8>,
}

/// What game `game` leaves before the run-wide duplicate filter: a pure
/// function of the config and the game's index at fixed nodes or depth.
#[derive(Clone, Debug, PartialEq)]
pub struct GameOutput {
    /// The game's index.
    pub game: u64,
    /// How it ended (its ledger line's `ending`).
    pub ending: String,
    /// Its counts, every candidate counted as written (no duplicates yet).
    pub counts: Counts,
    /// The records that passed the game's own filters, in ply order.
    pub records: Vec<EncodedRecord>,
}

impl GameOutput {
    /// A game that wrote nothing because `e` failed.
    pub fn failed(game: u64, e: String) -> GameOutput {
        GameOutput {
            game,
            ending: format!("failed: {e}"),
            counts: Counts {
                failed: 1,
                ..Counts::default()
            },
            records: Vec::new(),
        }
    }

    fn of(cfg: &DatagenConfig, game: u64, outcome: Outcome) -> GameOutput {
        match outcome {
            Outcome::Played(p) => match encode(cfg, &p) {
                Ok((records, counts)) => GameOutput {
                    game,
                    ending: p.ending.to_string(),
                    counts,
                    records,
                },
                Err(e) => GameOutput::failed(game, format!("cannot encode: {e}")),
            },
            Outcome::NoStart => GameOutput {
                game,
                ending: "no playable start".to_string(),
                counts: Counts {
                    starts_failed: 1,
                    ..Counts::default()
                },
                records: Vec::new(),
            },
            Outcome::Failed(e) => GameOutput::failed(game, e),
        }
    }
}

/// The records of a played game that pass its own filters, encoded.
fn encode(cfg: &DatagenConfig, played: &Played) -> Result<(Vec<EncodedRecord>, Counts), String> {
    if cfg.format == RecordFormat::Viriformat {
        let bytes = viri::encode(&played.game)?;
        let records = vec![EncodedRecord { key: None, bytes }];
        return Ok((records, filter::whole_game(played)));
    }
    let (records, counts) = filter::candidates(played, &cfg.filter);
    let mut out = Vec::with_capacity(records.len());
    for r in &records {
        let mut bytes = Vec::new();
        encode_record(cfg.format, r, &mut bytes)?;
        out.push(EncodedRecord {
            key: Some(filter::key(r)),
            bytes,
        });
    }
    Ok((out, counts))
}

/// A game's bytes once past the duplicate filter, and its final counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Admitted {
    /// What goes into the data file.
    pub data: Vec<u8>,
    /// What goes into `keys.bin` (u64 LE each).
    pub keys: Vec<u8>,
    /// The game's counts, duplicates counted.
    pub counts: Counts,
}

/// The run-wide duplicate filter over game `g`, applied in game order:
/// with `dedup`, a record whose key `is_new` has seen before (it records
/// each key it is asked about) is dropped and counted as a duplicate.
pub fn admit(g: &GameOutput, dedup: bool, is_new: &mut dyn FnMut(u64) -> bool) -> Admitted {
    let mut out = Admitted {
        counts: g.counts,
        ..Admitted::default()
    };
    for r in &g.records {
        if let Some(k) = r.key {
            if dedup && !is_new(k) {
                out.counts.written -= 1;
                out.counts.duplicates += 1;
                continue;
            }
            out.keys.extend_from_slice(&k.to_le_bytes());
        }
        out.data.extend_from_slice(&r.bytes);
    }
    out
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

/// A run folder's open files, and where the last counted game left them:
/// games are written through it one by one, in index order.
pub struct RunWriter {
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

impl RunWriter {
    /// Open the run folder's files, cut back to the ledger.
    pub fn open(dir: &Path, format: RecordFormat) -> Result<RunWriter, DatagenError> {
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
        Ok(RunWriter {
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

    /// The next game to write (the games before it are in the ledger).
    pub fn next_game(&self) -> u64 {
        self.next
    }

    /// The counts of the games written so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Write game `g` (the next one): its admitted records, their keys,
    /// then its ledger line, each fsync'ed.
    pub fn write(&mut self, cfg: &DatagenConfig, g: &GameOutput) -> Result<(), DatagenError> {
        let ledger_path = self.dir.join("ledger.jsonl");
        if g.game != self.next {
            return Err(DatagenError::Folder {
                path: ledger_path,
                message: format!("game {} where {} was due", g.game, self.next),
            });
        }
        let seen = &mut self.seen;
        let a = admit(g, cfg.filter.duplicates, &mut |k| seen.insert(k));
        let data_path = self.dir.join(data_file_name(self.format));
        self.data.write_all(&a.data).map_err(io(&data_path))?;
        self.data.sync_data().map_err(io(&data_path))?;
        let keys_path = self.dir.join("keys.bin");
        self.keys.write_all(&a.keys).map_err(io(&keys_path))?;
        self.keys.sync_data().map_err(io(&keys_path))?;
        self.data_bytes += a.data.len() as u64;
        self.keys_bytes += a.keys.len() as u64;
        let line = GameLine {
            game: self.next,
            data_bytes: self.data_bytes,
            keys_bytes: self.keys_bytes,
            ending: g.ending.clone(),
            counts: a.counts,
        };
        let mut text = serde_json::to_string(&line).unwrap_or_default();
        text.push('\n');
        self.ledger
            .write_all(text.as_bytes())
            .and_then(|()| self.ledger.sync_data())
            .map_err(io(&ledger_path))?;
        self.counts.add(&a.counts);
        self.next += 1;
        Ok(())
    }

    /// The report of the games written, over `elapsed_s` seconds in which
    /// the games from `games_before` (and the positions beyond
    /// `positions_before`) were played.
    pub fn report(
        &self,
        elapsed_s: f64,
        games_before: u64,
        positions_before: u64,
    ) -> DatagenReport {
        let elapsed_s = elapsed_s.max(1e-9);
        let c = self.counts;
        DatagenReport {
            format: self.format,
            counts: c,
            data_bytes: self.data_bytes,
            bytes_per_position: self.data_bytes as f64 / c.written.max(1) as f64,
            elapsed_s,
            positions_per_s: (c.positions - positions_before) as f64 / elapsed_s,
            games_per_s: (self.next - games_before) as f64 / elapsed_s,
        }
    }
}

/// Game `index` played by `mover` (`book`: [`load_book`]'s), as it
/// leaves the game before the duplicate filter.
pub fn play_one(
    cfg: &DatagenConfig,
    book: &[Position],
    index: u64,
    mover: &mut dyn Mover,
) -> GameOutput {
    GameOutput::of(cfg, index, one_game(cfg, book, index, mover))
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
pub fn start_mover(cfg: &DatagenConfig) -> Result<Box<dyn Mover>, String> {
    Ok(match &cfg.engine {
        Some(spec) => Box::new(Uci::new(spec)?),
        None => Box::new(InProcess::new(cfg)),
    })
}

/// The book's positions (empty without a book).
pub fn load_book(cfg: &DatagenConfig) -> Result<Vec<Position>, DatagenError> {
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

/// An engine that cannot start (or search at the limit) is a setup error,
/// found before any game.
pub fn check_engine(cfg: &DatagenConfig) -> Result<(), DatagenError> {
    if let Some(spec) = &cfg.engine {
        let limit = uci_limit(&cfg.limit).unwrap_or(MoveLimit::Nodes(1));
        check_player_limit(spec, &limit).map_err(|e| DatagenError::Engine {
            name: spec.name.clone(),
            message: e.to_string(),
        })?;
    }
    Ok(())
}

/// Play the games of the run in `dir` not yet in its ledger.
pub fn run(
    cfg: &DatagenConfig,
    dir: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<DatagenReport, DatagenError> {
    let book = load_book(cfg)?;
    check_engine(cfg)?;
    let mut out = RunWriter::open(dir, cfg.format)?;
    let started = Instant::now();
    let positions_before = out.counts.positions;
    let games_before = out.next;
    let next = AtomicU64::new(out.next);
    let abort = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<GameOutput>();
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
                    let output = match mover.as_mut() {
                        Ok(m) => play_one(cfg, book, i, m.as_mut()),
                        Err(e) => GameOutput::failed(i, e.clone()),
                    };
                    if tx.send(output).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        for output in rx {
            pending.insert(output.game, output);
            while let Some(o) = pending.remove(&out.next) {
                if let Err(e) = out.write(cfg, &o) {
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
    let report = out.report(
        started.elapsed().as_secs_f64(),
        games_before,
        positions_before,
    );
    write_report(dir, &report)?;
    Ok(report)
}

/// `report.json` and `report.txt`.
pub fn write_report(dir: &Path, report: &DatagenReport) -> Result<(), DatagenError> {
    let json = dir.join("report.json");
    let text = serde_json::to_string_pretty(report).unwrap_or_default();
    std::fs::write(&json, text + "\n").map_err(io(&json))?;
    let txt = dir.join("report.txt");
    std::fs::write(&txt, report.text()).map_err(io(&txt))
}
