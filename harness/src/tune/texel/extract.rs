//! `karsinta tune texel-data`: PGN games to a Texel dataset. Files are
//! streamed through [`crate::formats::pgn_read`] (memory grows with the
//! positions kept, never with the file size); from each replayed game,
//! sampled
//! positions are resolved to their quiet leaf by the engine's own
//! quiescence search ([`Searcher::quiet_leaf`]) in parallel batches, traced
//! ([`karsinta_engine::eval::trace`]), de-duplicated and written in input
//! order, so the output depends only on the inputs and the options.
//!
//! A bad game (no result, illegal move, bad FEN, bad tag, unsupported
//! variant; see [`SkipKind`]) is skipped and reported as (file, game number,
//! reason); a file that ends inside a game ends cleanly with that game
//! reported as truncated. Only an unreadable file is an error.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use karsinta_engine::eval::trace;
use karsinta_engine::search::types::MATE_BOUND;
use karsinta_engine::search::Searcher;
use karsinta_engine::Params;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use shakmaty::{Chess, Color, KnownOutcome, Position};
use thiserror::Error;

use super::dataset::{DatasetError, DatasetWriter};
use crate::formats::fen::position_fen;
pub use crate::formats::pgn_read::{comment_eval_cp, SkipKind};
use crate::formats::pgn_read::{PgnGame, PgnGames};
use crate::play::tablebase::Tablebases;

/// How positions are chosen and labelled.
#[derive(Clone, Debug)]
pub struct ExtractOptions {
    /// Plies of each game skipped before sampling (opening book moves).
    pub skip_plies: usize,
    /// Most positions sampled per game (chosen at random by `seed`).
    pub max_per_game: Option<usize>,
    /// Weight of the move comment's evaluation in the label:
    /// `label = (1 - lambda) * result + lambda * sigmoid(eval)`; positions
    /// without an evaluation comment keep the plain result.
    pub lambda: f64,
    /// Drop a position whose quiet leaf was already kept.
    pub dedup: bool,
    /// Seed of the positions sampled from each game (`max_per_game`).
    pub seed: u64,
    /// Parameters of the quiescence search that resolves positions.
    pub params: Params,
    /// Stop after this many positions.
    pub max_positions: Option<u64>,
    /// Syzygy tables: a position they know is labelled with its true
    /// result (under the 50-move rule) instead of the game's.
    pub tablebases: Option<Arc<Tablebases>>,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            skip_plies: 8,
            max_per_game: None,
            lambda: 0.0,
            dedup: true,
            seed: 1,
            params: Params::default(),
            max_positions: None,
            tablebases: None,
        }
    }
}

/// One skipped game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkippedGame {
    /// The PGN file it is in.
    pub file: PathBuf,
    /// 1-based game number in the file.
    pub game: u64,
    /// Which kind of problem made it unusable.
    pub kind: SkipKind,
    /// The problem, for people.
    pub reason: String,
}

/// Skipped games kept for the report (all are counted).
pub const SKIPPED_KEPT: usize = 1000;

/// What a dataset run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExtractReport {
    /// Games in the input files.
    pub games_read: u64,
    /// Games that gave positions.
    pub games_used: u64,
    /// Skipped games by kind of problem.
    pub skipped_by_kind: BTreeMap<SkipKind, u64>,
    /// The first [`SKIPPED_KEPT`] skipped games.
    pub skipped: Vec<SkippedGame>,
    /// Positions sampled (after the ply and in-check filters).
    pub positions_sampled: u64,
    /// Sampled positions whose quiescence search ends in mate.
    pub mates: u64,
    /// Sampled positions dropped as repeats of a kept quiet leaf (`dedup`).
    pub duplicates: u64,
    /// Sampled positions labelled by the tables (`--syzygy`).
    pub tablebase_labels: u64,
    /// Positions written to the dataset.
    pub positions_kept: u64,
    /// The dataset's size in bytes.
    pub file_bytes: u64,
    /// `file_bytes` over `positions_kept`.
    pub bytes_per_position: f64,
}

impl ExtractReport {
    /// Games skipped, all kinds.
    pub fn games_skipped(&self) -> u64 {
        self.skipped_by_kind.values().sum()
    }

    fn skip(&mut self, s: SkippedGame) {
        *self.skipped_by_kind.entry(s.kind).or_default() += 1;
        if self.skipped.len() < SKIPPED_KEPT {
            self.skipped.push(s);
        }
    }

    /// The terminal report.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "games     | {} read, {} used, {} skipped",
            self.games_read,
            self.games_used,
            self.games_skipped()
        );
        for (k, n) in &self.skipped_by_kind {
            let _ = writeln!(s, "  skipped | {n} {}", k.as_str());
        }
        for g in self.skipped.iter().take(20) {
            let _ = writeln!(
                s,
                "  skipped | {} game {}: {}: {}",
                g.file.display(),
                g.game,
                g.kind.as_str(),
                g.reason
            );
        }
        if self.games_skipped() > 20 {
            let _ = writeln!(s, "  skipped | ... {} more", self.games_skipped() - 20);
        }
        let _ = writeln!(
            s,
            "positions | {} sampled, {} mates dropped, {} duplicates dropped, {} kept",
            self.positions_sampled, self.mates, self.duplicates, self.positions_kept
        );
        if self.tablebase_labels > 0 {
            let _ = writeln!(
                s,
                "tables    | {} sampled positions labelled by the tablebases",
                self.tablebase_labels
            );
        }
        let _ = writeln!(
            s,
            "file      | {} bytes, {:.1} bytes per position",
            self.file_bytes, self.bytes_per_position
        );
        s
    }
}

/// A dataset run that could not go on.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum ExtractError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The dataset cannot be written.
    #[error(transparent)]
    Write(#[from] DatasetError),
    #[error("no positions were kept (games read: {0}); nothing written")]
    Empty(u64),
}

/// Progress: bytes of input read, of all input, and positions kept.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Input bytes read so far.
    pub bytes_read: u64,
    /// Bytes of all input files.
    pub bytes_total: u64,
    /// Positions written so far.
    pub positions_kept: u64,
}

/// A position sampled from a game, before resolution.
struct Candidate {
    pos: Chess,
    /// The mover's evaluation from its move comment, White's view, in cp.
    eval_white_cp: Option<f64>,
}

/// The positions of a game worth sampling: past the first `skip_plies`
/// plies and not in check, each with the evaluation of its move's comment.
fn candidates(game: PgnGame, skip_plies: usize) -> Vec<Candidate> {
    let mut pos = game.start;
    let mut out = Vec::new();
    for (ply, m) in game.moves.into_iter().enumerate() {
        if ply >= skip_plies && !pos.is_check() {
            let eval_white_cp = m
                .comment
                .as_deref()
                .and_then(|c| comment_eval_cp(c, pos.turn()));
            out.push(Candidate {
                pos: pos.clone(),
                eval_white_cp,
            });
        }
        pos.play_unchecked(m.mv);
    }
    out
}

/// A labelled position ready to resolve.
struct Sample {
    pos: Chess,
    label: f32,
}

/// Games resolved together (one parallel batch).
const BATCH_GAMES: usize = 512;

/// The label of a position: the result, blended with the comment's eval.
fn label(result: f32, eval_white_cp: Option<f64>, lambda: f64) -> f32 {
    match eval_white_cp {
        Some(cp) if lambda > 0.0 => {
            let p = 1.0 / (1.0 + 10f64.powf(-cp / 400.0));
            ((1.0 - lambda) * f64::from(result) + lambda * p) as f32
        }
        _ => result,
    }
}

/// 1, 0.5 or 0: White's score in `outcome`.
pub(super) fn white_score(outcome: KnownOutcome) -> f32 {
    match outcome {
        KnownOutcome::Decisive {
            winner: Color::White,
        } => 1.0,
        KnownOutcome::Decisive { .. } => 0.0,
        KnownOutcome::Draw => 0.5,
    }
}

/// Read `files`, write the dataset to `out`, and report.
pub fn extract(
    files: &[PathBuf],
    out: &Path,
    opts: &ExtractOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<ExtractReport, ExtractError> {
    let mut bytes_total = 0;
    for f in files {
        let meta = std::fs::metadata(f).map_err(|source| ExtractError::Read {
            path: f.clone(),
            source,
        })?;
        bytes_total += meta.len();
    }
    let mut report = ExtractReport::default();
    let mut writer = DatasetWriter::create(out)?;
    let mut seen = HashSet::new();
    let mut batch: Vec<Sample> = Vec::new();
    let mut bytes_done = 0u64;
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let mut full = false;
    for path in files {
        let file = File::open(path).map_err(|source| ExtractError::Read {
            path: path.clone(),
            source,
        })?;
        let mut games = PgnGames::new(BufReader::with_capacity(1 << 20, file));
        let mut batch_games = 0;
        loop {
            if full {
                break;
            }
            let read_error = |source| ExtractError::Read {
                path: path.clone(),
                source,
            };
            let Some((game_no, game)) = games.next_game().map_err(read_error)? else {
                break;
            };
            report.games_read += 1;
            match game {
                Ok(game) => {
                    report.games_used += 1;
                    let result = game.white_score();
                    let mut cands = candidates(game, opts.skip_plies);
                    if let Some(cap) = opts.max_per_game {
                        if cands.len() > cap {
                            let mut keep =
                                rand::seq::index::sample(&mut rng, cands.len(), cap).into_vec();
                            keep.sort_unstable();
                            let mut all: Vec<Option<Candidate>> =
                                cands.into_iter().map(Some).collect();
                            cands = keep.iter().filter_map(|&i| all[i].take()).collect();
                        }
                    }
                    for c in cands {
                        let known = opts.tablebases.as_ref().and_then(|t| t.result(&c.pos));
                        let label = match known {
                            Some(outcome) => {
                                report.tablebase_labels += 1;
                                white_score(outcome)
                            }
                            None => label(result, c.eval_white_cp, opts.lambda),
                        };
                        batch.push(Sample { label, pos: c.pos });
                    }
                }
                Err((kind, reason)) => report.skip(SkippedGame {
                    file: path.clone(),
                    game: game_no,
                    kind,
                    reason,
                }),
            }
            batch_games += 1;
            if batch_games >= BATCH_GAMES {
                batch_games = 0;
                full = flush(&mut batch, opts, &mut seen, &mut writer, &mut report)?;
                progress(Progress {
                    bytes_read: bytes_done + games.bytes_read(),
                    bytes_total,
                    positions_kept: report.positions_kept,
                });
            }
        }
        full = flush(&mut batch, opts, &mut seen, &mut writer, &mut report)? || full;
        bytes_done += games.bytes_read();
        progress(Progress {
            bytes_read: bytes_done,
            bytes_total,
            positions_kept: report.positions_kept,
        });
        if full {
            break;
        }
    }
    if report.positions_kept == 0 {
        drop(writer);
        let mut part = out.as_os_str().to_owned();
        part.push(".part");
        let _ = std::fs::remove_file(PathBuf::from(part));
        return Err(ExtractError::Empty(report.games_read));
    }
    report.file_bytes = writer.finish()?;
    report.bytes_per_position = report.file_bytes as f64 / report.positions_kept as f64;
    Ok(report)
}

/// Resolve, trace and write a batch; returns whether the position cap is hit.
fn flush(
    batch: &mut Vec<Sample>,
    opts: &ExtractOptions,
    seen: &mut HashSet<u64>,
    writer: &mut DatasetWriter,
    report: &mut ExtractReport,
) -> Result<bool, ExtractError> {
    report.positions_sampled += batch.len() as u64;
    let resolved: Vec<Option<(u64, karsinta_engine::eval::Trace, f32)>> = batch
        .par_iter()
        .map_init(
            || Searcher::with_hash_mb(opts.params.clone(), 1),
            |searcher, s| resolve_leaf(searcher, &s.pos, s.label, opts),
        )
        .collect();
    batch.clear();
    keep(resolved, opts, seen, writer, report)
}

/// The traced quiet leaf of `pos` with its hash and `label`; `None` for a
/// mate score, a check at the leaf or a position the engine cannot hold.
pub(super) fn resolve_leaf(
    searcher: &mut Searcher,
    pos: &Chess,
    label: f32,
    opts: &ExtractOptions,
) -> Option<(u64, karsinta_engine::eval::Trace, f32)> {
    let board: cozy_chess::Board = position_fen(pos).parse().ok()?;
    let leaf = searcher.quiet_leaf(&board);
    if leaf.score.abs() >= MATE_BOUND || !leaf.board.checkers().is_empty() {
        return None;
    }
    let t = trace(&leaf.board, &opts.params.eval);
    Some((leaf.board.hash(), t, label))
}

/// Write resolved positions, counting mates and dropped duplicates; returns
/// whether the position cap is hit.
pub(super) fn keep(
    resolved: Vec<Option<(u64, karsinta_engine::eval::Trace, f32)>>,
    opts: &ExtractOptions,
    seen: &mut HashSet<u64>,
    writer: &mut DatasetWriter,
    report: &mut ExtractReport,
) -> Result<bool, ExtractError> {
    for r in resolved {
        let Some((hash, t, label)) = r else {
            report.mates += 1;
            continue;
        };
        if opts.dedup && !seen.insert(hash) {
            report.duplicates += 1;
            continue;
        }
        writer.push(&t.view(), t.white_to_move, label)?;
        report.positions_kept += 1;
        if opts
            .max_positions
            .is_some_and(|m| report.positions_kept >= m)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_evals_in_each_style() {
        let w = Color::White;
        let b = Color::Black;
        assert_eq!(comment_eval_cp("+0.31/12 0.052s", w), Some(31.0));
        assert_eq!(comment_eval_cp("+0.31/12 0.052s", b), Some(-31.0));
        assert_eq!(comment_eval_cp("-1.50/20 1.2s", b), Some(150.0));
        assert_eq!(comment_eval_cp("+M5/12 0.1s", w), None);
        assert_eq!(comment_eval_cp("book", w), None);
        assert_eq!(
            comment_eval_cp("[%eval -0.42] [%clk 0:01:00]", b),
            Some(-42.0)
        );
        assert_eq!(comment_eval_cp("[%eval #-3]", w), None);
        assert_eq!(
            comment_eval_cp("d=34, sd=34, wv=1.38, R50=48", b),
            Some(138.0)
        );
        // Rust parses these; as labels they were NaN (a dataset that does
        // not load) or a certain result.
        for c in [
            "wv=nan",
            "wv=inf",
            "NaN/3 1s",
            "-inf/1",
            "[%eval 1e400]",
            "[%eval -infinity]",
        ] {
            assert_eq!(comment_eval_cp(c, w), None, "{c}");
        }
        assert_eq!(label(1.0, Some(0.0), 0.5), 0.75);
        assert_eq!(label(0.5, Some(400.0), 0.0), 0.5);
        assert!((label(0.0, Some(400.0), 1.0) - 10.0 / 11.0).abs() < 1e-6);
    }
}
