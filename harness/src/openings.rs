//! Opening suites: loading EPD and PGN files into [`Opening`]s and choosing
//! which opening each game pair plays.
//!
//! Every position is checked with `shakmaty` (a legal standard-chess position,
//! legal moves only) so that a match never starts from a broken opening. PGN is
//! read with `pgn-reader`'s visitor; SAN moves are replayed and stored as UCI
//! moves with standard castling notation (`e1g1`). Errors name the file and the
//! line of the bad entry; malformed input never panics.
//!
//! Bad entries abort the load by default. [`LoadOptions::skip_bad`] instead
//! drops them and reports each one in [`LoadedOpenings::skipped`]; a file with
//! no usable opening left is always an error ([`OpeningError::Empty`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use thiserror::Error;

/// One opening: a start position plus moves to play from it before the
/// engines take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Start position as a full 6-field FEN; `None` = standard start position.
    pub fen: Option<String>,
    /// Moves to play from the start position, in UCI notation with standard
    /// castling (`e1g1`).
    pub moves: Vec<String>,
    /// 0-based index of this opening in the loaded list (equal to its index in
    /// the file unless bad entries were skipped).
    pub id: usize,
}

impl Opening {
    /// The position after the opening's moves.
    pub fn end_position(&self) -> Result<Chess, OpeningError> {
        let invalid = |reason: String| OpeningError::Invalid {
            id: self.id,
            reason,
        };
        let mut pos = match &self.fen {
            Some(fen) => parse_position(fen).map_err(invalid)?,
            None => Chess::default(),
        };
        for mv in &self.moves {
            let uci: shakmaty::uci::UciMove = mv
                .parse()
                .map_err(|e| invalid(format!("bad move '{mv}': {e}")))?;
            let m = uci
                .to_move(&pos)
                .map_err(|e| invalid(format!("move '{mv}': {e}")))?;
            pos.play_unchecked(m);
        }
        Ok(pos)
    }
}

/// File format of an opening suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpeningFormat {
    /// One position per line: FEN (4 or 6 fields) and optional EPD operations.
    Epd,
    /// Games whose moves (optionally only the first N plies) form the opening.
    Pgn,
}

impl OpeningFormat {
    /// Format implied by a file name's extension (`.epd`, `.fen`, `.pgn`).
    pub fn from_path(path: &Path) -> Option<OpeningFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "epd" | "fen" => Some(OpeningFormat::Epd),
            "pgn" => Some(OpeningFormat::Pgn),
            _ => None,
        }
    }
}

impl FromStr for OpeningFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "epd" => Ok(OpeningFormat::Epd),
            "pgn" => Ok(OpeningFormat::Pgn),
            _ => Err(format!(
                "unknown opening format '{s}' (expected epd or pgn)"
            )),
        }
    }
}

impl fmt::Display for OpeningFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OpeningFormat::Epd => "epd",
            OpeningFormat::Pgn => "pgn",
        })
    }
}

/// In which order game pairs take the openings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpeningOrder {
    /// File order.
    #[default]
    Sequential,
    /// A permutation of the file fixed by the seed.
    Random,
}

impl FromStr for OpeningOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "sequential" => Ok(OpeningOrder::Sequential),
            "random" => Ok(OpeningOrder::Random),
            _ => Err(format!(
                "unknown opening order '{s}' (expected sequential or random)"
            )),
        }
    }
}

impl fmt::Display for OpeningOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OpeningOrder::Sequential => "sequential",
            OpeningOrder::Random => "random",
        })
    }
}

/// Why an opening file could not be used. Every variant names the file; bad
/// entries also name the 1-based line (and, in PGN, the 1-based game number).
#[derive(Debug, Error)]
pub enum OpeningError {
    #[error("cannot read opening file {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(
        "{}: unknown opening file extension (expected .epd or .pgn; set the format explicitly)",
        path.display()
    )]
    UnknownFormat { path: PathBuf },
    /// A bad EPD line.
    #[error("{}:{line}: {reason}", path.display())]
    BadEpd {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    /// A bad PGN game (bad tag, illegal or ambiguous move, unreadable text).
    #[error("{}:{line}: game {game}: {reason}", path.display())]
    BadPgn {
        path: PathBuf,
        game: usize,
        line: usize,
        reason: String,
    },
    #[error("{}: no usable openings ({skipped} bad entries skipped)", path.display())]
    Empty { path: PathBuf, skipped: usize },
    /// An [`Opening`] built by hand that does not replay.
    #[error("opening {id}: {reason}")]
    Invalid { id: usize, reason: String },
}

impl OpeningError {
    /// The 1-based line of a bad entry, if the error is about one.
    pub fn line(&self) -> Option<usize> {
        match self {
            OpeningError::BadEpd { line, .. } | OpeningError::BadPgn { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// How to read an opening file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// `None` = from the file extension.
    pub format: Option<OpeningFormat>,
    /// PGN only: keep only the first N plies of each game.
    pub plies: Option<usize>,
    /// Drop bad entries (each reported in [`LoadedOpenings::skipped`])
    /// instead of failing on the first one.
    pub skip_bad: bool,
}

/// The result of [`load_openings_with`].
#[derive(Debug)]
pub struct LoadedOpenings {
    pub openings: Vec<Opening>,
    /// The bad entries that were skipped (empty unless `skip_bad`).
    pub skipped: Vec<OpeningError>,
}

/// Load an opening suite, failing on the first bad entry.
///
/// `format: None` picks the format from the extension; `plies` keeps only the
/// first N plies of each PGN game (ignored for EPD).
pub fn load_openings(
    path: &Path,
    format: Option<OpeningFormat>,
    plies: Option<usize>,
) -> Result<Vec<Opening>, OpeningError> {
    let options = LoadOptions {
        format,
        plies,
        skip_bad: false,
    };
    load_openings_with(path, &options).map(|loaded| loaded.openings)
}

/// Load an opening suite with full control over bad entries.
pub fn load_openings_with(
    path: &Path,
    options: &LoadOptions,
) -> Result<LoadedOpenings, OpeningError> {
    let format = match options.format.or_else(|| OpeningFormat::from_path(path)) {
        Some(format) => format,
        None => {
            return Err(OpeningError::UnknownFormat {
                path: path.to_path_buf(),
            })
        }
    };
    let data = std::fs::read(path).map_err(|error| OpeningError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    parse_openings(&data, path, format, options)
}

/// Parse an opening suite held in memory; `path` is only used in errors.
pub fn parse_openings(
    data: &[u8],
    path: &Path,
    format: OpeningFormat,
    options: &LoadOptions,
) -> Result<LoadedOpenings, OpeningError> {
    let mut openings = Vec::new();
    let mut skipped = Vec::new();
    let mut accept = |entry: Result<Entry, OpeningError>| match entry {
        Ok((fen, moves)) => {
            let id = openings.len();
            openings.push(Opening { fen, moves, id });
            Ok(())
        }
        Err(e) if options.skip_bad => {
            skipped.push(e);
            Ok(())
        }
        Err(e) => Err(e),
    };
    match format {
        OpeningFormat::Epd => {
            for (index, line) in data.split(|&b| b == b'\n').enumerate() {
                let line_no = index + 1;
                let text = String::from_utf8_lossy(line);
                let text = text.trim_start_matches('\u{feff}').trim();
                if text.is_empty() || text.starts_with('#') {
                    continue;
                }
                let entry = parse_epd_line(text)
                    .map(|fen| (Some(fen), Vec::new()))
                    .map_err(|reason| OpeningError::BadEpd {
                        path: path.to_path_buf(),
                        line: line_no,
                        reason,
                    });
                accept(entry)?;
            }
        }
        OpeningFormat::Pgn => read_pgn(data, path, options.plies, &mut accept)?,
    }
    if openings.is_empty() {
        return Err(OpeningError::Empty {
            path: path.to_path_buf(),
            skipped: skipped.len(),
        });
    }
    Ok(LoadedOpenings { openings, skipped })
}

/// Which opening each game pair plays: element `k` is the opening index for
/// pair `k`, and pair `k >= n` uses element `k % n`.
///
/// The result is a permutation of `0..n` (each opening exactly once per cycle
/// of `n` pairs): file order for [`OpeningOrder::Sequential`], a shuffle fixed
/// by `seed` for [`OpeningOrder::Random`], in both cases rotated so that it
/// begins at position `start % n` of that order (to continue a suite where an
/// earlier run stopped).
pub fn order_openings(n: usize, order: OpeningOrder, seed: u64, start: usize) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..n).collect();
    if n == 0 {
        return indices;
    }
    if order == OpeningOrder::Random {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        indices.shuffle(&mut rng);
    }
    indices.rotate_left(start % n);
    indices
}

/// Checksum of an opening file's bytes: 64-bit FNV-1a, written
/// `fnv1a64:<16 hex digits>`. Not cryptographic; it only has to notice a
/// suite that was edited or replaced while a run was paused.
pub fn fingerprint(data: &[u8]) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = data
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME));
    format!("fnv1a64:{hash:016x}")
}

/// Whether `s` has the form [`fingerprint`] writes.
pub fn is_fingerprint(s: &str) -> bool {
    s.strip_prefix("fnv1a64:")
        .is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Parse a FEN with shakmaty as a standard-chess position.
pub(crate) fn parse_position(fen: &str) -> Result<Chess, String> {
    let parsed: Fen = fen
        .parse()
        .map_err(|e| format!("invalid FEN '{fen}': {e}"))?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("'{fen}': {e}"))
}

/// Full 6-field FEN of a position, with the en-passant square only when a
/// capture is legal (so equal positions have equal FENs).
pub fn position_fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// One EPD line (already trimmed, not a comment) to a checked 6-field FEN.
///
/// The first four fields are the position; two integers after them are the
/// move counters (6-field FEN). Otherwise the rest are EPD operations, of
/// which only `hmvc` and `fmvn` (the counters) are used.
fn parse_epd_line(text: &str) -> Result<String, String> {
    let fields: Vec<&str> = text.split_whitespace().take(6).collect();
    if fields.len() < 4 {
        return Err(format!(
            "expected a FEN with at least 4 fields, found '{text}'"
        ));
    }
    let is_counter = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (halfmoves, fullmoves) =
        if fields.len() == 6 && is_counter(fields[4]) && is_counter(fields[5]) {
            (fields[4].to_string(), fields[5].to_string())
        } else {
            let ops = epd_operations(text, &fields[..4]);
            let op = |name: &str| {
                ops.iter()
                    .find(|(op, _)| *op == name)
                    .map(|(_, arg)| arg.trim().to_string())
                    .filter(|arg| is_counter(arg))
            };
            (
                op("hmvc").unwrap_or_else(|| "0".into()),
                op("fmvn").unwrap_or_else(|| "1".into()),
            )
        };
    let fen = format!("{} {halfmoves} {fullmoves}", fields[..4].join(" "));
    let pos = parse_position(&fen)?;
    Ok(position_fen(&pos))
}

/// The `opcode operand;` pairs after the four position fields of an EPD line.
fn epd_operations<'a>(text: &'a str, position_fields: &[&str]) -> Vec<(&'a str, &'a str)> {
    // Skip the position fields by position in the text, not by re-joining.
    let mut rest = text;
    for field in position_fields {
        rest = rest.trim_start();
        rest = rest.strip_prefix(field).unwrap_or(rest);
    }
    rest.split(';')
        .filter_map(|op| {
            let op = op.trim();
            if op.is_empty() {
                return None;
            }
            Some(match op.split_once(char::is_whitespace) {
                Some((name, arg)) => (name, arg),
                None => (op, ""),
            })
        })
        .collect()
}

/// What went wrong in one PGN game, before it is tied to a line.
enum GameFault {
    /// Something about the game as a whole (a bad FEN tag, no moves).
    Game(String),
    /// Ply `ply` (0-based) did not replay.
    Move { ply: usize, reason: String },
}

/// A start FEN (`None` = standard start) and UCI moves: an opening before it
/// gets its id.
type Entry = (Option<String>, Vec<String>);

type GameOutput = Result<Entry, GameFault>;

/// Replays the main line of each game; variations are skipped.
struct OpeningVisitor {
    plies: Option<usize>,
}

#[derive(Default)]
struct GameTags {
    fen: Option<String>,
    variant: Option<String>,
}

struct GameMoves {
    fen: Option<String>,
    pos: Chess,
    moves: Vec<String>,
    seen: usize,
}

impl GameMoves {
    fn finish(self) -> GameOutput {
        if self.seen == 0 && self.fen.is_none() {
            return Err(GameFault::Game(
                "no moves and no FEN tag (not an opening)".into(),
            ));
        }
        Ok((self.fen, self.moves))
    }
}

impl Visitor for OpeningVisitor {
    type Tags = GameTags;
    type Movetext = GameMoves;
    type Output = GameOutput;

    fn begin_tags(&mut self) -> std::ops::ControlFlow<Self::Output, Self::Tags> {
        std::ops::ControlFlow::Continue(GameTags::default())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> std::ops::ControlFlow<Self::Output> {
        if name.eq_ignore_ascii_case(b"FEN") {
            tags.fen = Some(value.decode_utf8_lossy().trim().to_string());
        } else if name.eq_ignore_ascii_case(b"Variant") {
            tags.variant = Some(value.decode_utf8_lossy().trim().to_string());
        }
        std::ops::ControlFlow::Continue(())
    }

    fn begin_movetext(
        &mut self,
        tags: Self::Tags,
    ) -> std::ops::ControlFlow<Self::Output, Self::Movetext> {
        use std::ops::ControlFlow::{Break, Continue};
        if let Some(variant) = &tags.variant {
            let v = variant.to_ascii_lowercase();
            if !matches!(v.as_str(), "" | "standard" | "chess" | "from position") {
                return Break(Err(GameFault::Game(format!(
                    "unsupported variant '{variant}' (standard chess only)"
                ))));
            }
        }
        let (fen, pos) = match tags.fen {
            Some(fen) => match parse_position(&fen) {
                Ok(pos) => (Some(position_fen(&pos)), pos),
                Err(reason) => return Break(Err(GameFault::Game(format!("FEN tag: {reason}")))),
            },
            None => (None, Chess::default()),
        };
        Continue(GameMoves {
            fen,
            pos,
            moves: Vec::new(),
            seen: 0,
        })
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> std::ops::ControlFlow<Self::Output> {
        use std::ops::ControlFlow::{Break, Continue};
        let ply = movetext.seen;
        movetext.seen += 1;
        if self.plies.is_some_and(|limit| ply >= limit) {
            // Enough plies: stop reading this game (the reader skips the rest).
            let done = GameMoves {
                fen: movetext.fen.take(),
                pos: Chess::default(),
                moves: std::mem::take(&mut movetext.moves),
                seen: movetext.seen,
            };
            return Break(done.finish());
        }
        match san_plus.san.to_move(&movetext.pos) {
            Ok(m) => {
                movetext
                    .moves
                    .push(m.to_uci(CastlingMode::Standard).to_string());
                movetext.pos.play_unchecked(m);
                Continue(())
            }
            Err(e) => Break(Err(GameFault::Move {
                ply,
                reason: format!("move '{san_plus}' (ply {}): {e}", ply + 1),
            })),
        }
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        movetext.finish()
    }
}

/// A reader over in-memory bytes that records how far the parser has read,
/// so that a game's start offset (and line) can be recovered.
struct TrackedBytes<'a> {
    data: &'a [u8],
    pos: &'a std::cell::Cell<usize>,
}

impl std::io::Read for TrackedBytes<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let start = self.pos.get();
        let n = buf.len().min(self.data.len() - start);
        buf[..n].copy_from_slice(&self.data[start..start + n]);
        self.pos.set(start + n);
        Ok(n)
    }
}

fn read_pgn(
    data: &[u8],
    path: &Path,
    plies: Option<usize>,
    accept: &mut dyn FnMut(Result<Entry, OpeningError>) -> Result<(), OpeningError>,
) -> Result<(), OpeningError> {
    let read_pos = std::cell::Cell::new(0usize);
    let mut reader = Reader::new(TrackedBytes {
        data,
        pos: &read_pos,
    });
    let mut visitor = OpeningVisitor { plies };
    let mut game = 0usize;
    loop {
        let bad = |game: usize, offset: usize, reason: String| OpeningError::BadPgn {
            path: path.to_path_buf(),
            game,
            line: line_at(data, offset),
            reason,
        };
        // After `has_more` the reader has skipped whitespace, so the buffered
        // bytes begin exactly at the next game.
        let more = reader.has_more().map_err(|e| {
            bad(
                game.max(1),
                read_pos.get() - reader.buffer().len(),
                e.to_string(),
            )
        });
        let game_start = read_pos.get() - reader.buffer().len();
        match more {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => return accept(Err(e)),
        }
        game += 1;
        let entry = match reader.read_game(&mut visitor) {
            Ok(Some(Ok(opening))) => Ok(opening),
            Ok(Some(Err(GameFault::Game(reason)))) => Err(bad(game, game_start, reason)),
            Ok(Some(Err(GameFault::Move { ply, reason }))) => {
                let offset = nth_san_offset(data, game_start, ply).unwrap_or(game_start);
                Err(bad(game, offset, reason))
            }
            Ok(None) => return Ok(()),
            Err(e) => {
                // The parser cannot resynchronise after an I/O-level error.
                return accept(Err(bad(game, game_start, format!("unreadable PGN: {e}"))));
            }
        };
        accept(entry)?;
    }
}

/// 1-based line number of byte `offset`.
fn line_at(data: &[u8], offset: usize) -> usize {
    let end = offset.min(data.len());
    1 + data[..end].iter().filter(|&&b| b == b'\n').count()
}

/// Byte offset of the `ply`-th (0-based) main-line move of the game that
/// starts at `start`, found with a small PGN tokenizer. Only used to point
/// errors at the right line; `None` if the tokenizer loses track.
fn nth_san_offset(data: &[u8], start: usize, ply: usize) -> Option<usize> {
    let mut i = start;
    let n = data.len();
    let mut seen = 0usize;
    let mut depth = 0usize;
    let mut in_tags = true;
    while i < n {
        let b = data[i];
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b'.' => i += 1,
            b'[' if in_tags => {
                // Tag pair: skip to the end of the line.
                while i < n && data[i] != b'\n' {
                    i += 1;
                }
            }
            b'{' => {
                while i < n && data[i] != b'}' {
                    i += 1;
                }
                i += 1;
            }
            b';' | b'%' => {
                while i < n && data[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'[' => return None,
            _ => {
                in_tags = false;
                let token_start = i;
                while i < n && !b" \t\r\n{}();[]".contains(&data[i]) {
                    i += 1;
                }
                if i == token_start {
                    // A stray delimiter such as ']'.
                    i += 1;
                    continue;
                }
                let token = &data[token_start..i];
                let is_result = matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*");
                if is_result && depth == 0 {
                    return None;
                }
                // Strip a move number glued to the move ("12.Nf3", "12...Nf3").
                let digits = token.iter().take_while(|c| c.is_ascii_digit()).count();
                let dots = token[digits..].iter().take_while(|&&c| c == b'.').count();
                let (san_start, san) = if digits > 0 && dots > 0 {
                    (token_start + digits + dots, &token[digits + dots..])
                } else {
                    (token_start, token)
                };
                let is_move = !san.is_empty()
                    && !san.iter().all(|c| c.is_ascii_digit())
                    && !matches!(san[0], b'$' | b'!' | b'?');
                if is_move && depth == 0 {
                    if seen == ply {
                        return Some(san_start);
                    }
                    seen += 1;
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(
        text: &str,
        format: OpeningFormat,
        plies: Option<usize>,
    ) -> Result<Vec<Opening>, OpeningError> {
        let options = LoadOptions {
            format: Some(format),
            plies,
            skip_bad: false,
        };
        parse_openings(text.as_bytes(), Path::new("test"), format, &options).map(|l| l.openings)
    }

    #[test]
    fn fingerprint_is_fnv1a_64() {
        // The published FNV-1a 64-bit test vectors.
        assert_eq!(fingerprint(b""), "fnv1a64:cbf29ce484222325");
        assert_eq!(fingerprint(b"a"), "fnv1a64:af63dc4c8601ec8c");
        assert_eq!(fingerprint(b"foobar"), "fnv1a64:85944171f73967e8");
        assert!(is_fingerprint(&fingerprint(b"x")));
        assert!(!is_fingerprint("fnv1a64:85944171f73967e"));
        assert!(!is_fingerprint("sha1:85944171f73967e8"));
        assert!(!is_fingerprint("fnv1a64:85944171f73967eg"));
    }

    #[test]
    fn epd_with_four_fields_and_operations() {
        let text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 bm e5; id \"x\";\n";
        let openings = parse(text, OpeningFormat::Epd, None).unwrap();
        // e3 is dropped: no black pawn can capture en passant.
        assert_eq!(
            openings[0].fen.as_deref(),
            Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        );
        assert!(openings[0].moves.is_empty());
    }

    #[test]
    fn epd_counters_from_fields_and_from_operations() {
        let six = "8/8/4k3/8/8/4K3/4P3/8 w - - 12 40";
        let ops = "8/8/4k3/8/8/4K3/4P3/8 w - - hmvc 7; fmvn 33;";
        let openings = parse(&format!("{six}\n{ops}\n"), OpeningFormat::Epd, None).unwrap();
        assert_eq!(openings[0].fen.as_deref(), Some(six));
        assert_eq!(
            openings[1].fen.as_deref(),
            Some("8/8/4k3/8/8/4K3/4P3/8 w - - 7 33")
        );
    }

    #[test]
    fn epd_tolerates_byte_order_mark_and_crlf() {
        let text =
            "\u{feff}8/8/4k3/8/8/4K3/4P3/8 w - - 0 1\r\n\r\n8/8/4k3/8/8/4K3/4P3/8 b - - 0 1\r\n";
        let openings = parse(text, OpeningFormat::Epd, None).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(
            openings[1].fen.as_deref(),
            Some("8/8/4k3/8/8/4K3/4P3/8 b - - 0 1")
        );
    }

    #[test]
    fn epd_keeps_legal_en_passant_square() {
        let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
        let openings = parse(fen, OpeningFormat::Epd, None).unwrap();
        assert_eq!(openings[0].fen.as_deref(), Some(fen));
    }

    #[test]
    fn epd_rejects_illegal_position_with_line() {
        // Line 3: the side not to move (black) is in check from the rook.
        let text = "# comment\n\n4k3/8/8/8/8/8/8/4R1K1 w - - 0 1\n";
        let err = parse(text, OpeningFormat::Epd, None).unwrap_err();
        assert_eq!(err.line(), Some(3), "{err}");
        assert!(err.to_string().starts_with("test:3: "), "{err}");
    }

    #[test]
    fn order_is_a_rotated_permutation() {
        let seq = order_openings(5, OpeningOrder::Sequential, 1, 2);
        assert_eq!(seq, vec![2, 3, 4, 0, 1]);
        let a = order_openings(100, OpeningOrder::Random, 7, 0);
        let b = order_openings(100, OpeningOrder::Random, 7, 0);
        let c = order_openings(100, OpeningOrder::Random, 8, 0);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        let rotated = order_openings(100, OpeningOrder::Random, 7, 130);
        assert_eq!(rotated[0], a[30]);
        assert!(order_openings(0, OpeningOrder::Random, 7, 3).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Arbitrary PGN-like text never panics or hangs, and every bad entry
        /// points at a line inside the text.
        #[test]
        fn malformed_input_never_panics(text in "[\\[\\]{}()\"; \n.0-9a-hxKQRBNO=+#$!?*/-]{0,200}") {
            let lines = text.split('\n').count();
            for format in [OpeningFormat::Pgn, OpeningFormat::Epd] {
                let options = LoadOptions { format: Some(format), plies: None, skip_bad: true };
                if let Ok(loaded) = parse_openings(text.as_bytes(), Path::new("p"), format, &options) {
                    for e in &loaded.skipped {
                        let line = e.line().unwrap();
                        proptest::prop_assert!(line >= 1 && line <= lines, "{}", e);
                    }
                }
            }
        }
    }

    #[test]
    fn san_offset_skips_comments_numbers_and_variations() {
        let pgn =
            b"[Event \"x\"]\n\n1. e4 {a comment} e5 (1... c5 2. Nf3) 2.Nf3 $1 Nc6!? 3. Bb5 *\n";
        let find = |ply| {
            nth_san_offset(pgn, 0, ply).map(|o| {
                let end = o + pgn[o..]
                    .iter()
                    .position(|c| c.is_ascii_whitespace())
                    .unwrap();
                std::str::from_utf8(&pgn[o..end]).unwrap().to_string()
            })
        };
        assert_eq!(find(0).as_deref(), Some("e4"));
        assert_eq!(find(1).as_deref(), Some("e5"));
        assert_eq!(find(2).as_deref(), Some("Nf3"));
        assert_eq!(find(3).as_deref(), Some("Nc6!?"));
        assert_eq!(find(4).as_deref(), Some("Bb5"));
        assert_eq!(find(5), None);
    }
}
