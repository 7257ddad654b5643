//! PGN, the one reader, on `pgn-reader`: games streamed from any reader
//! (memory grows with one game, never with the file), each replayed with
//! shakmaty in the caller's [`Variant`] from its start position (the `FEN`
//! tag, X-FEN or Shredder-FEN in Chess960, or the standard start). Two
//! callers with two demands: [`PgnGames`] gives scored games (Texel data,
//! datagen conversion: a known result, the first comment after each move),
//! [`PgnLines`] gives opening lines (books: the moves, at most N plies, no
//! result needed) with the 1-based line of every refusal.
//!
//! A bad game (illegal or null move, bad FEN, bad tag name, unsupported
//! variant, a `)` without its `(` or the other way round, moves after the
//! result, or a syntax error pgn-reader gives up on) is reported as its
//! 1-based game number, a [`SkipKind`] and a reason, and reading goes on
//! with the next game; only an unreadable file is an I/O error. Variations
//! and comments are skipped. Tokens that pgn-reader cannot read as a move,
//! move number, annotation, comment or result are skipped as python-chess
//! skips them; a doubled check mark (`e6++`), which pgn-reader would take for
//! such a token and so lose the move, is read as python-chess reads it.
//! Games are separated as pgn-reader separates them: by a blank line or a
//! line starting with `[`. Malformed input never panics.

use std::borrow::Cow;
use std::cell::Cell;
use std::io::{Cursor, Read, Seek};
use std::ops::ControlFlow::{self, Break, Continue};
use std::rc::Rc;

use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};
use serde::Serialize;
use shakmaty::san::San;
use shakmaty::{Chess, Color, KnownOutcome, Move, Outcome, Position};

use crate::variant::{parse_position, Variant};

/// Why a game was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipKind {
    /// No result token, or `*` (scored games only).
    NoResult,
    /// A move that is not legal (or ambiguous, or a null move) where it stands.
    IllegalMove,
    /// A `FEN` tag that is not a legal position of the variant.
    BadFen,
    /// A malformed tag name, a bad or contradicted `Result` tag, or a tag
    /// line pgn-reader cannot read.
    BadTag,
    /// A `Variant` tag naming another variant.
    Variant,
    /// The file ends inside a comment.
    Truncated,
    /// Unbalanced variation brackets, or moves after the result.
    Syntax,
}

impl SkipKind {
    /// The kind as the reports write it.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipKind::NoResult => "no result",
            SkipKind::IllegalMove => "illegal move",
            SkipKind::BadFen => "bad FEN",
            SkipKind::BadTag => "bad tag",
            SkipKind::Variant => "variant",
            SkipKind::Truncated => "truncated",
            SkipKind::Syntax => "syntax",
        }
    }
}

/// A main-line move and the first comment after it.
#[derive(Clone, Debug)]
pub struct PgnMove {
    /// Legal in the position before it.
    pub mv: Move,
    /// The first `{comment}` after the move, as written.
    pub comment: Option<String>,
}

/// A replayed game with a known result.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// The FEN tag's position, or the standard start.
    pub start: Chess,
    /// The main line.
    pub moves: Vec<PgnMove>,
    /// The movetext's result (the `Result` tag, if any, agrees).
    pub result: KnownOutcome,
}

impl PgnGame {
    /// 1, 0.5 or 0 from White's view.
    pub fn white_score(&self) -> f32 {
        match self.result {
            KnownOutcome::Decisive {
                winner: Color::White,
            } => 1.0,
            KnownOutcome::Decisive {
                winner: Color::Black,
            } => 0.0,
            KnownOutcome::Draw => 0.5,
        }
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

/// One game of a file: replayed, or skipped with its kind and reason.
pub type GameOutput = Result<PgnGame, (SkipKind, String)>;

/// What a reader takes from each game: the variant (castling, start FENs,
/// accepted `Variant` tags) and how many main-line plies are replayed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PgnRules {
    /// The variant games are replayed in.
    pub variant: Variant,
    /// Replay only the first N plies; later moves are neither checked nor kept.
    pub max_plies: Option<usize>,
}

/// The scored games of a PGN stream (standard chess), in order.
pub struct PgnGames<R> {
    reader: Reader<Counting<R>>,
    read: Rc<Cell<u64>>,
    games: u64,
}

impl<R: Read> PgnGames<R> {
    /// Read games from `inner` (buffered by pgn-reader itself).
    pub fn new(inner: R) -> Self {
        let read = Rc::new(Cell::new(0));
        PgnGames {
            reader: Reader::new(Counting {
                inner,
                read: Rc::clone(&read),
            }),
            read,
            games: 0,
        }
    }

    /// Bytes taken from the stream so far (for progress bars).
    pub fn bytes_read(&self) -> u64 {
        self.read.get()
    }

    /// The next game with its 1-based number, or `None` at the end.
    pub fn next_game(&mut self) -> std::io::Result<Option<(u64, GameOutput)>> {
        if !has_more(&mut self.reader)? {
            return Ok(None);
        }
        let mut visitor = GameVisitor {
            rules: PgnRules::default(),
        };
        let game = match self.reader.read_game(&mut visitor) {
            Ok(Some(game)) => game.and_then(scored),
            // `has_more` takes a byte-order mark after the last game for
            // the start of another one; it is not a game.
            Ok(None) => return Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                let skipped = syntax_error(&e);
                skip_rest_of_game(&mut self.reader)?;
                Err(skipped)
            }
            Err(e) => return Err(e),
        };
        self.games += 1;
        Ok(Some((self.games, game)))
    }
}

/// A game read as an opening line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnLine {
    /// The FEN tag's position, or the variant's standard start.
    pub start: Chess,
    /// Whether the start came from a `FEN` tag.
    pub has_fen: bool,
    /// The main line's first plies (all of them without a limit).
    pub moves: Vec<Move>,
}

/// A refused opening line: its 1-based game and line, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineFault {
    /// 1-based game number in the file.
    pub game: usize,
    /// 1-based line of the first problem.
    pub line: usize,
    /// What is wrong, quoting the token.
    pub reason: String,
}

/// The opening lines of PGN text held in memory (a book): each game's
/// main line, or where and why it is refused. A game needs moves or a `FEN`
/// tag; its result is not looked at.
pub struct PgnLines<'a> {
    reader: Reader<Cursor<Cow<'a, [u8]>>>,
    /// The text as given, for finding lines (same offsets as the reader's).
    data: &'a [u8],
    rules: PgnRules,
    games: usize,
    lines: LineCounter,
}

impl<'a> PgnLines<'a> {
    /// Read `data` with `rules`.
    pub fn new(data: &'a [u8], rules: PgnRules) -> Self {
        PgnLines {
            reader: Reader::new(Cursor::new(single_check_marks(data))),
            data,
            rules,
            games: 0,
            lines: LineCounter::default(),
        }
    }

    /// The reader's position in the text.
    fn position(&mut self) -> usize {
        // A cursor over memory: its position is always known.
        self.reader
            .stream_position()
            .map_or(self.data.len(), |p| p as usize)
            .min(self.data.len())
    }

    /// The line of the last byte that is not white space before `pos`:
    /// where the token or tag that was just read stands.
    fn line_before(&mut self, pos: usize) -> usize {
        let end = self.data[..pos]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .unwrap_or(0);
        self.lines.line_at(self.data, end)
    }

    /// The next game, with the start offset of the text it began at.
    fn next_game(&mut self) -> Option<Result<PgnLine, LineFault>> {
        if !has_more(&mut self.reader).unwrap_or(false) {
            return None;
        }
        let start = self.position();
        self.games += 1;
        let mut visitor = GameVisitor { rules: self.rules };
        let fault = |lines: &mut Self, line: usize, reason: String| LineFault {
            game: lines.games,
            line,
            reason,
        };
        let read = match self.reader.read_game(&mut visitor) {
            Ok(Some(read)) => read,
            Ok(None) => return None,
            Err(e) => {
                let (_, reason) = syntax_error(&e);
                let line = if e.to_string().contains("comment") {
                    // The comment that never closes: the first `{` after the
                    // last `}`.
                    let text = &self.data[start..];
                    let after = text.iter().rposition(|&b| b == b'}').map_or(0, |i| i + 1);
                    let open = text[after..].iter().position(|&b| b == b'{');
                    let at = start + after + open.unwrap_or(0);
                    self.lines.line_at(self.data, at)
                } else {
                    let pos = self.position();
                    self.line_before(pos)
                };
                let _ = skip_rest_of_game(&mut self.reader);
                return Some(Err(fault(self, line, reason)));
            }
        };
        let pos = self.position();
        Some(match read {
            Err((_, reason)) => {
                let line = self.line_before(pos);
                Err(fault(self, line, reason))
            }
            Ok(game) if game.moves.is_empty() && game.plies == 0 && !game.has_fen => {
                let line = self.lines.line_at(self.data, start);
                let reason = "no moves and no FEN tag (not an opening)".to_string();
                Err(fault(self, line, reason))
            }
            Ok(game) => Ok(PgnLine {
                start: game.start,
                has_fen: game.has_fen,
                moves: game.moves.into_iter().map(|m| m.mv).collect(),
            }),
        })
    }
}

impl Iterator for PgnLines<'_> {
    type Item = Result<PgnLine, LineFault>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_game()
    }
}

/// pgn-reader ends a move at its first check mark and skips what follows
/// (`e6++` loses the move); python-chess reads it as `e6`. A check or mate
/// mark after another becomes a space, so offsets and lines stay.
fn single_check_marks(data: &[u8]) -> Cow<'_, [u8]> {
    let marks = |w: &[u8]| matches!(w, [b'+' | b'#', b'+' | b'#']);
    if !data.windows(2).any(marks) {
        return Cow::Borrowed(data);
    }
    let mut out = data.to_vec();
    for i in 1..out.len() {
        if matches!(data[i], b'+' | b'#') && matches!(data[i - 1], b'+' | b'#') {
            out[i] = b' ';
        }
    }
    Cow::Owned(out)
}

/// 1-based line numbers of offsets, counted forward from the last offset
/// asked for (the reader moves forward, so counting is linear overall).
#[derive(Debug, Default)]
struct LineCounter {
    pos: usize,
    /// Newlines before `pos`.
    newlines: usize,
}

impl LineCounter {
    fn line_at(&mut self, data: &[u8], pos: usize) -> usize {
        let pos = pos.min(data.len());
        let count = |s: &[u8]| s.iter().filter(|&&b| b == b'\n').count();
        if pos >= self.pos {
            self.newlines += count(&data[self.pos..pos]);
        } else {
            self.newlines -= count(&data[pos..self.pos]);
        }
        self.pos = pos;
        self.newlines + 1
    }
}

/// A syntax error pgn-reader gives up on: a comment that never closes
/// before the end of the file, or a tag line that does not end within its
/// buffer (16 KiB) or the file.
fn syntax_error(e: &std::io::Error) -> (SkipKind, String) {
    if e.to_string().contains("tag") {
        (
            SkipKind::BadTag,
            format!("{e} (or a tag line too long to read)"),
        )
    } else if e.to_string().contains("comment") {
        (
            SkipKind::Truncated,
            format!("'{{' comment without its '}}' ({e})"),
        )
    } else {
        (SkipKind::Truncated, e.to_string())
    }
}

/// Whether another game follows. Skipping the tags left of a game refused
/// at one of them can meet an unreadable tag line: that is still the
/// refused game, so reading goes on after it.
fn has_more<R: Read>(reader: &mut Reader<R>) -> std::io::Result<bool> {
    loop {
        match reader.has_more() {
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => continue,
            r => return r,
        }
    }
}

/// Skip what is left of a game pgn-reader gave up on. It resumes on the
/// line after a tag line it cannot read, so the game's remaining tags and
/// moves would otherwise be read as a game of their own (without the tags
/// before, a FEN say).
fn skip_rest_of_game<R: Read>(reader: &mut Reader<R>) -> std::io::Result<()> {
    loop {
        match reader.skip_game() {
            // Another unreadable tag line of the same game.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => continue,
            r => return r.map(drop),
        }
    }
}

/// Counts the bytes the PGN reader has taken.
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

/// The result a `Result` tag or movetext token names: `Some(None)` for `*`,
/// `None` for anything else.
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

/// A scored game from a read one: a known result that the `Result` tag,
/// if any, agrees with.
fn scored(game: ReadGame) -> GameOutput {
    if let Some(tag) = &game.result_tag {
        if known_result(tag).is_none() {
            return Err((
                SkipKind::BadTag,
                format!("Result tag '{tag}' is not 1-0, 0-1, 1/2-1/2 or *"),
            ));
        }
    }
    let known = match game.outcome {
        None => {
            return Err((
                SkipKind::NoResult,
                "the movetext ends without a result (1-0, 0-1, 1/2-1/2)".into(),
            ))
        }
        Some(Outcome::Unknown) => return Err((SkipKind::NoResult, "result '*' (unknown)".into())),
        Some(Outcome::Known(k)) => k,
    };
    if let Some(tag) = &game.result_tag {
        if known_result(tag) != Some(Some(known)) {
            return Err((
                SkipKind::BadTag,
                format!("Result tag '{tag}' disagrees with the movetext's result"),
            ));
        }
    }
    Ok(PgnGame {
        start: game.start,
        moves: game.moves,
        result: known,
    })
}

/// A game as the visitor read it, before a caller's own demands.
struct ReadGame {
    start: Chess,
    has_fen: bool,
    moves: Vec<PgnMove>,
    /// Main-line plies met, kept or past the limit.
    plies: usize,
    outcome: Option<Outcome>,
    result_tag: Option<String>,
}

/// A game being read: its start, the position reached, and the tags that
/// matter.
struct Moves {
    game: ReadGame,
    pos: Chess,
    /// Open variations (skipped by pgn-reader up to their `)`).
    depth: usize,
}

#[derive(Default)]
struct Tags {
    fen: Option<Chess>,
    result: Option<String>,
}

/// The one visitor: replays the main line in the rules' variant.
struct GameVisitor {
    rules: PgnRules,
}

type Fault = (SkipKind, String);

impl GameVisitor {
    /// A `Variant` tag this reader cannot play.
    fn variant_fault(&self, tag: &str) -> Option<Fault> {
        // A standard game is also a Chess960 one (start position 518).
        if Variant::Standard.matches_pgn_tag(tag) || self.rules.variant.matches_pgn_tag(tag) {
            return None;
        }
        let reason = if Variant::Chess960.matches_pgn_tag(tag) {
            format!(
                "variant '{tag}': a Chess960 game in a standard match; play it with \
                 `variant: chess960` or `-variant fischerandom`"
            )
        } else {
            format!("variant '{tag}': unsupported (standard chess and Chess960 only)")
        };
        Some((SkipKind::Variant, reason))
    }
}

impl Visitor for GameVisitor {
    type Tags = Tags;
    type Movetext = Moves;
    type Output = Result<ReadGame, Fault>;

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
            let name = String::from_utf8_lossy(name);
            return Break(Err((
                SkipKind::BadTag,
                format!("malformed tag name '{name}' (expected [Name \"value\"])"),
            )));
        }
        if name.eq_ignore_ascii_case(b"FEN") {
            match parse_position(&text, self.rules.variant) {
                Ok(pos) => tags.fen = Some(pos),
                Err(e) => return Break(Err((SkipKind::BadFen, format!("FEN tag: {e}")))),
            }
        } else if name.eq_ignore_ascii_case(b"Variant") {
            if let Some(fault) = self.variant_fault(&text) {
                return Break(Err(fault));
            }
        } else if name.eq_ignore_ascii_case(b"Result") {
            tags.result = Some(text);
        }
        Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Self::Output, Moves> {
        let has_fen = tags.fen.is_some();
        let start = tags
            .fen
            .unwrap_or_else(|| self.rules.variant.start_position());
        Continue(Moves {
            pos: start.clone(),
            game: ReadGame {
                start,
                has_fen,
                moves: Vec::new(),
                plies: 0,
                outcome: None,
                result_tag: tags.result,
            },
            depth: 0,
        })
    }

    fn san(&mut self, m: &mut Moves, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if m.depth > 0 {
            return Continue(());
        }
        if let Some(outcome) = m.game.outcome {
            return Break(Err((
                SkipKind::Syntax,
                format!(
                    "move '{san_plus}' after the result '{outcome}' (games are separated \
                     by a blank line)"
                ),
            )));
        }
        m.game.plies += 1;
        let ply = m.game.plies;
        if self.rules.max_plies.is_some_and(|limit| ply > limit) {
            return Continue(());
        }
        let mv = match san_plus.san {
            San::Null | San::Put { .. } => Err("not a move of the game".to_string()),
            san => san.to_move(&m.pos).map_err(|e| e.to_string()),
        };
        match mv {
            Ok(mv) => {
                m.pos.play_unchecked(mv);
                m.game.moves.push(PgnMove { mv, comment: None });
                Continue(())
            }
            Err(e) => Break(Err((
                SkipKind::IllegalMove,
                format!("move '{san_plus}' (ply {ply}): {e}"),
            ))),
        }
    }

    fn comment(&mut self, m: &mut Moves, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        if let Some(last) = m.game.moves.last_mut() {
            last.comment
                .get_or_insert_with(|| String::from_utf8_lossy(comment.as_bytes()).into_owned());
        }
        Continue(())
    }

    fn begin_variation(&mut self, m: &mut Moves) -> ControlFlow<Self::Output, pgn_reader::Skip> {
        m.depth += 1;
        Continue(pgn_reader::Skip(true))
    }

    fn end_variation(&mut self, m: &mut Moves) -> ControlFlow<Self::Output> {
        if m.depth == 0 {
            return Break(Err((SkipKind::Syntax, "')' without '('".into())));
        }
        m.depth -= 1;
        Continue(())
    }

    fn outcome(&mut self, m: &mut Moves, outcome: Outcome) -> ControlFlow<Self::Output> {
        if m.depth == 0 {
            m.game.outcome.get_or_insert(outcome);
        }
        Continue(())
    }

    fn end_game(&mut self, m: Moves) -> Self::Output {
        if m.depth > 0 {
            return Err((SkipKind::Syntax, "'(' variation without its ')'".into()));
        }
        Ok(m.game)
    }
}
