//! Reading PGN with `pgn-reader`: games streamed from any reader (memory
//! grows with one game, never with the file), each replayed with shakmaty
//! into its start position, its main-line moves with the first comment
//! after each, and its result. Variations are skipped.
//!
//! A bad game (no result, illegal move, bad FEN, bad tag, unsupported
//! variant, or a syntax error pgn-reader gives up on) is reported as its
//! 1-based game number, a [`SkipKind`] and a reason, and reading goes on
//! with the next game; only an unreadable file is an I/O error. Malformed
//! input never panics.

use std::cell::Cell;
use std::io::Read;
use std::ops::ControlFlow::{self, Break, Continue};
use std::rc::Rc;

use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};
use serde::Serialize;
use shakmaty::{Chess, Color, KnownOutcome, Move, Outcome, Position};

use super::fen::parse_position;

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

/// A main-line move and the first comment after it.
#[derive(Clone, Debug)]
pub struct PgnMove {
    /// Legal in the position before it.
    pub mv: Move,
    pub comment: Option<String>,
}

/// A replayed game with a known result.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// The FEN tag's position, or the standard start.
    pub start: Chess,
    pub moves: Vec<PgnMove>,
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

/// The games of a PGN stream, in order.
pub struct PgnGames<R> {
    reader: Reader<Counting<R>>,
    read: Rc<Cell<u64>>,
    games: u64,
}

impl<R: Read> PgnGames<R> {
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
        if !self.reader.has_more()? {
            return Ok(None);
        }
        let game = match self.reader.read_game(&mut GameVisitor) {
            Ok(Some(game)) => game,
            // `has_more` takes a byte-order mark after the last game for
            // the start of another one; it is not a game.
            Ok(None) => return Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                // pgn-reader's syntax errors: a comment that never closes
                // before the end of the file, or a tag line that does not
                // end within its buffer (16 KiB) or the file.
                let skipped = if e.to_string().contains("tag") {
                    (
                        SkipKind::BadTag,
                        format!("{e} (or a tag line too long to read)"),
                    )
                } else {
                    (SkipKind::Truncated, e.to_string())
                };
                self.skip_rest_of_game()?;
                Err(skipped)
            }
            Err(e) => return Err(e),
        };
        self.games += 1;
        Ok(Some((self.games, game)))
    }

    /// Skip what is left of a game pgn-reader gave up on. It resumes on the
    /// line after a tag line it cannot read, so the game's remaining tags
    /// and moves would otherwise be read as a game of their own (without
    /// the tags before, a FEN say).
    fn skip_rest_of_game(&mut self) -> std::io::Result<()> {
        loop {
            match self.reader.skip_game() {
                // Another unreadable tag line of the same game.
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => continue,
                r => return r.map(drop),
            }
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

#[derive(Default)]
struct Tags {
    fen: Option<String>,
    variant: Option<String>,
    result: Option<String>,
    bad: Option<String>,
}

struct Moves {
    start: Chess,
    pos: Chess,
    moves: Vec<PgnMove>,
    outcome: Option<Outcome>,
    result_tag: Option<String>,
}

struct GameVisitor;

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
        let start = match &tags.fen {
            Some(fen) => match parse_position(fen) {
                Ok(p) => p,
                Err(e) => return Break(Err((SkipKind::BadFen, e))),
            },
            None => Chess::default(),
        };
        Continue(Moves {
            pos: start.clone(),
            start,
            moves: Vec::new(),
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
                    format!("move '{san_plus}' at ply {}: {e}", m.moves.len() + 1),
                )))
            }
        };
        m.pos.play_unchecked(mv);
        m.moves.push(PgnMove { mv, comment: None });
        Continue(())
    }

    fn comment(&mut self, m: &mut Moves, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        if let Some(last) = m.moves.last_mut() {
            last.comment
                .get_or_insert_with(|| String::from_utf8_lossy(comment.as_bytes()).into_owned());
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
        Ok(PgnGame {
            start: m.start,
            moves: m.moves,
            result: known,
        })
    }
}
