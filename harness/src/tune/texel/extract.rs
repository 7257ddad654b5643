//! `karsinta tune texel-data`: PGN games to a Texel dataset. Files are
//! streamed with `pgn-reader` (memory grows with the positions kept, never
//! with the file size); each game is replayed with shakmaty, sampled
//! positions are resolved to their quiet leaf by the engine's own
//! quiescence search ([`Searcher::quiet_leaf`]) in parallel batches, traced
//! ([`karsinta_engine::eval::trace`]), de-duplicated and written in input
//! order, so the output depends only on the inputs and the options.
//!
//! A bad game (no result, illegal move, bad FEN, bad tag, unsupported
//! variant) is skipped and reported as (file, game number, reason); a file
//! that ends inside a game ends cleanly with that game reported as
//! truncated. Only an unreadable file is an error.

use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufReader, Read};
use std::ops::ControlFlow::{self, Break, Continue};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use karsinta_engine::eval::trace;
use karsinta_engine::search::types::MATE_BOUND;
use karsinta_engine::search::Searcher;
use karsinta_engine::Params;
use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use shakmaty::{Chess, Color, KnownOutcome, Outcome, Position};
use thiserror::Error;

use super::dataset::{DatasetError, DatasetWriter};
use crate::formats::fen::{parse_position, position_fen};

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
    pub seed: u64,
    /// Parameters of the quiescence search that resolves positions.
    pub params: Params,
    /// Stop after this many positions.
    pub max_positions: Option<u64>,
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
        }
    }
}

/// Why a game was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipKind {
    NoResult,
    IllegalMove,
    BadFen,
    BadTag,
    Variant,
    Truncated,
}

impl SkipKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipKind::NoResult => "no result",
            SkipKind::IllegalMove => "illegal move",
            SkipKind::BadFen => "bad FEN",
            SkipKind::BadTag => "bad tag",
            SkipKind::Variant => "variant",
            SkipKind::Truncated => "truncated",
        }
    }
}

/// One skipped game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkippedGame {
    pub file: PathBuf,
    /// 1-based game number in the file.
    pub game: u64,
    pub kind: SkipKind,
    pub reason: String,
}

/// Skipped games kept for the report (all are counted).
pub const SKIPPED_KEPT: usize = 1000;

/// What a dataset run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExtractReport {
    pub games_read: u64,
    pub games_used: u64,
    pub skipped_by_kind: BTreeMap<SkipKind, u64>,
    /// The first [`SKIPPED_KEPT`] skipped games.
    pub skipped: Vec<SkippedGame>,
    /// Positions sampled (after the ply and in-check filters).
    pub positions_sampled: u64,
    /// Sampled positions whose quiescence search ends in mate.
    pub mates: u64,
    pub duplicates: u64,
    pub positions_kept: u64,
    pub file_bytes: u64,
    pub bytes_per_position: f64,
}

impl ExtractReport {
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
pub enum ExtractError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] DatasetError),
    #[error("no positions were kept (games read: {0}); nothing written")]
    Empty(u64),
}

/// Progress: bytes of input read, of all input, and positions kept.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub bytes_read: u64,
    pub bytes_total: u64,
    pub positions_kept: u64,
}

/// A position sampled from a game, before resolution.
struct Candidate {
    pos: Chess,
    /// The mover's evaluation from its move comment, White's view, in cp.
    eval_white_cp: Option<f64>,
}

/// A replayed game.
struct Game {
    candidates: Vec<Candidate>,
    /// 1, 0.5 or 0 from White's view.
    result: f32,
}

type GameOutput = Result<Game, (SkipKind, String)>;

#[derive(Default)]
struct Tags {
    fen: Option<String>,
    variant: Option<String>,
    result: Option<String>,
    bad: Option<String>,
}

struct Moves {
    pos: Chess,
    ply: usize,
    candidates: Vec<Candidate>,
    /// Index of the candidate the next comment belongs to (the position
    /// before the move just read).
    commented: Option<usize>,
    outcome: Option<Outcome>,
    result_tag: Option<String>,
}

struct GameVisitor {
    skip_plies: usize,
}

fn known_result(text: &str) -> Option<Option<KnownOutcome>> {
    match text.trim() {
        "1-0" => Some(Some(KnownOutcome::Decisive {
            winner: Color::White,
        })),
        "0-1" => Some(Some(KnownOutcome::Decisive {
            winner: Color::Black,
        })),
        "1/2-1/2" => Some(Some(KnownOutcome::Draw)),
        "*" => Some(None),
        _ => None,
    }
}

/// The evaluation in a move comment, in centipawns, from White's view:
/// `[%eval 0.31]` (lichess, White's view), TCEC's `wv=0.31` (White's view)
/// or cutechess's `+0.31/12 0.05s` (the mover's view). Mate scores, book
/// comments and numbers that are not finite (`nan`, `inf`, `1e400`) give
/// `None`: Rust parses those, and a NaN label would corrupt the dataset.
pub fn comment_eval_cp(comment: &str, mover: Color) -> Option<f64> {
    parse_comment_eval_cp(comment, mover).filter(|cp| cp.is_finite())
}

fn parse_comment_eval_cp(comment: &str, mover: Color) -> Option<f64> {
    let c = comment.trim();
    if let Some(i) = c.find("wv=") {
        let v = c[i + 3..].split([',', ' ', '}']).next()?;
        return v.parse::<f64>().ok().map(|p| p * 100.0);
    }
    if let Some(i) = c.find("[%eval ") {
        let v = c[i + 7..].split([']', ' ']).next()?;
        if v.starts_with('#') {
            return None;
        }
        return v.parse::<f64>().ok().map(|p| p * 100.0);
    }
    let first = c.split_whitespace().next()?;
    let score = first.split('/').next()?;
    if !first.contains('/') || score.contains('M') {
        return None;
    }
    let p: f64 = score.parse().ok()?;
    Some(if mover == Color::White { p } else { -p } * 100.0)
}

impl Visitor for GameVisitor {
    type Tags = Tags;
    type Movetext = Moves;
    type Output = GameOutput;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        Continue(Tags::default())
    }

    fn tag(
        &mut self,
        tags: &mut Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let text = value.decode_utf8_lossy().trim().to_string();
        if name.is_empty() || !name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            tags.bad.get_or_insert_with(|| {
                format!("malformed tag name '{}'", String::from_utf8_lossy(name))
            });
        } else if name.eq_ignore_ascii_case(b"FEN") {
            tags.fen = Some(text);
        } else if name.eq_ignore_ascii_case(b"Variant") {
            tags.variant = Some(text);
        } else if name.eq_ignore_ascii_case(b"Result") {
            if known_result(&text).is_none() {
                tags.bad.get_or_insert_with(|| {
                    format!("Result tag '{text}' is not 1-0, 0-1, 1/2-1/2 or *")
                });
            }
            tags.result = Some(text);
        }
        Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Self::Output, Moves> {
        if let Some(bad) = tags.bad {
            return Break(Err((SkipKind::BadTag, bad)));
        }
        if let Some(v) = &tags.variant {
            let l = v.to_ascii_lowercase();
            if !matches!(
                l.as_str(),
                "" | "standard" | "normal" | "chess" | "from position"
            ) {
                return Break(Err((SkipKind::Variant, format!("variant '{v}'"))));
            }
        }
        let pos = match &tags.fen {
            Some(fen) => match parse_position(fen) {
                Ok(p) => p,
                Err(e) => return Break(Err((SkipKind::BadFen, e))),
            },
            None => Chess::default(),
        };
        Continue(Moves {
            pos,
            ply: 0,
            candidates: Vec::new(),
            commented: None,
            outcome: None,
            result_tag: tags.result,
        })
    }

    fn san(&mut self, m: &mut Moves, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        let mv = match san_plus.san.to_move(&m.pos) {
            Ok(mv) => mv,
            Err(e) => {
                return Break(Err((
                    SkipKind::IllegalMove,
                    format!("move '{san_plus}' at ply {}: {e}", m.ply + 1),
                )))
            }
        };
        m.commented = None;
        if m.ply >= self.skip_plies && !m.pos.is_check() {
            m.commented = Some(m.candidates.len());
            m.candidates.push(Candidate {
                pos: m.pos.clone(),
                eval_white_cp: None,
            });
        }
        m.pos.play_unchecked(mv);
        m.ply += 1;
        Continue(())
    }

    fn comment(&mut self, m: &mut Moves, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        if let Some(i) = m.commented.take() {
            let c = &mut m.candidates[i];
            let text = String::from_utf8_lossy(comment.as_bytes());
            c.eval_white_cp = comment_eval_cp(&text, c.pos.turn());
        }
        Continue(())
    }

    fn outcome(&mut self, m: &mut Moves, outcome: Outcome) -> ControlFlow<Self::Output> {
        m.outcome = Some(outcome);
        Continue(())
    }

    fn end_game(&mut self, m: Moves) -> GameOutput {
        let known = match m.outcome {
            None => {
                return Err((
                    SkipKind::NoResult,
                    "the movetext ends without a result (1-0, 0-1, 1/2-1/2)".into(),
                ))
            }
            Some(Outcome::Unknown) => {
                return Err((SkipKind::NoResult, "result '*' (unknown)".into()))
            }
            Some(Outcome::Known(k)) => k,
        };
        if let Some(tag) = &m.result_tag {
            if known_result(tag) != Some(Some(known)) {
                return Err((
                    SkipKind::BadTag,
                    format!("Result tag '{tag}' disagrees with the movetext's result"),
                ));
            }
        }
        let result = match known {
            KnownOutcome::Decisive {
                winner: Color::White,
            } => 1.0,
            KnownOutcome::Decisive {
                winner: Color::Black,
            } => 0.0,
            KnownOutcome::Draw => 0.5,
        };
        Ok(Game {
            candidates: m.candidates,
            result,
        })
    }
}

/// Skip what is left of a game pgn-reader gave up on. It resumes on the line
/// after a tag line it cannot read, so the game's remaining tags and moves
/// would otherwise be read as a game of their own (without the tags before,
/// a FEN say).
fn skip_rest_of_game<R: Read>(reader: &mut Reader<R>) -> std::io::Result<()> {
    loop {
        match reader.skip_game() {
            // Another unreadable tag line of the same game.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => continue,
            r => return r.map(drop),
        }
    }
}

/// Counts the bytes the PGN reader has taken, for the progress bar.
struct Counting<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
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
        let read = Rc::new(Cell::new(0));
        let mut reader = Reader::new(Counting {
            inner: BufReader::with_capacity(1 << 20, file),
            read: Rc::clone(&read),
        });
        let mut visitor = GameVisitor {
            skip_plies: opts.skip_plies,
        };
        let mut game_no = 0u64;
        let mut batch_games = 0;
        loop {
            let more = match reader.has_more() {
                Ok(m) => m,
                Err(source) => {
                    return Err(ExtractError::Read {
                        path: path.clone(),
                        source,
                    })
                }
            };
            if !more || full {
                break;
            }
            let game = match reader.read_game(&mut visitor) {
                Ok(Some(game)) => Ok(game),
                // `has_more` takes a byte-order mark after the last game
                // for the start of another one; it is not a game.
                Ok(None) => break,
                Err(e) => Err(e),
            };
            game_no += 1;
            report.games_read += 1;
            let skipped = |kind, reason| SkippedGame {
                file: path.clone(),
                game: game_no,
                kind,
                reason,
            };
            match game {
                Ok(Ok(game)) => {
                    report.games_used += 1;
                    let mut cands = game.candidates;
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
                        batch.push(Sample {
                            label: label(game.result, c.eval_white_cp, opts.lambda),
                            pos: c.pos,
                        });
                    }
                }
                Ok(Err((kind, reason))) => report.skip(skipped(kind, reason)),
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    // pgn-reader's syntax errors: a comment that never closes
                    // before the end of the file, or a tag line that does not
                    // end within its buffer (16 KiB) or the file.
                    let (kind, reason) = if e.to_string().contains("tag") {
                        (
                            SkipKind::BadTag,
                            format!("{e} (or a tag line too long to read)"),
                        )
                    } else {
                        (SkipKind::Truncated, e.to_string())
                    };
                    report.skip(skipped(kind, reason));
                    skip_rest_of_game(&mut reader).map_err(|source| ExtractError::Read {
                        path: path.clone(),
                        source,
                    })?;
                }
                Err(source) => {
                    return Err(ExtractError::Read {
                        path: path.clone(),
                        source,
                    })
                }
            }
            batch_games += 1;
            if batch_games >= BATCH_GAMES {
                batch_games = 0;
                full = flush(&mut batch, opts, &mut seen, &mut writer, &mut report)?;
                progress(Progress {
                    bytes_read: bytes_done + read.get(),
                    bytes_total,
                    positions_kept: report.positions_kept,
                });
            }
        }
        full = flush(&mut batch, opts, &mut seen, &mut writer, &mut report)? || full;
        bytes_done += read.get();
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
