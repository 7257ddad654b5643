//! Training records, the unit every training-data format holds: a position,
//! its search score and the game's result, both from White's view
//! ([`Record`]); and the games viriformat keeps whole ([`DataGame`]). The
//! formats themselves are [`super::bullet`], [`super::text`],
//! [`super::viri`] and [`super::marlin`]; [`RecordFormat`] names them for configs and flags, and
//! [`super::training`] reads any of them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move};
use thiserror::Error;

/// A game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// Black won (0 for White).
    BlackWins,
    /// Drawn (½).
    Draw,
    /// White won (1 for White).
    WhiteWins,
}

impl Wdl {
    /// 0 for a Black win, 1 for a draw, 2 for a White win (as both crates store it).
    pub fn packed(self) -> u8 {
        match self {
            Wdl::BlackWins => 0,
            Wdl::Draw => 1,
            Wdl::WhiteWins => 2,
        }
    }

    /// The inverse of [`Self::packed`]; `None` for any other byte.
    pub fn from_packed(b: u8) -> Option<Wdl> {
        match b {
            0 => Some(Wdl::BlackWins),
            1 => Some(Wdl::Draw),
            2 => Some(Wdl::WhiteWins),
            _ => None,
        }
    }

    /// The result seen from the other side.
    pub fn flipped(self) -> Wdl {
        match self {
            Wdl::BlackWins => Wdl::WhiteWins,
            Wdl::Draw => Wdl::Draw,
            Wdl::WhiteWins => Wdl::BlackWins,
        }
    }

    /// White's score: 1, 0.5 or 0.
    pub fn white_score(self) -> f32 {
        f32::from(self.packed()) / 2.0
    }

    /// The win of `winner`.
    pub fn win(winner: Color) -> Wdl {
        match winner {
            Color::White => Wdl::WhiteWins,
            Color::Black => Wdl::BlackWins,
        }
    }
}

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position (the side to move is the one that searched it).
    pub pos: Chess,
    /// The search score in centipawns from White's view (mates saturate at
    /// [`MATE_SCORE`]).
    pub score_white: i16,
    /// The result of the game it came from.
    pub result: Wdl,
}

/// The stored score of a mate (either sign).
pub const MATE_SCORE: i16 = 32000;

/// One ply of a [`DataGame`]: the move played and the score of the
/// position it was played in, White's view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataPly {
    /// The move played.
    pub mv: Move,
    /// The search score of the position before the move, centipawns, White's view.
    pub score_white: i16,
}

/// A game as viriformat keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataGame {
    /// The position the game's scored plies start from.
    pub start: Chess,
    /// The plies played from `start`, in order.
    pub plies: Vec<DataPly>,
    /// The game's result.
    pub result: Wdl,
}

impl DataGame {
    /// The game's positions as records (the position before each move).
    pub fn records(&self) -> Vec<Record> {
        let mut pos = self.start.clone();
        let mut out = Vec::with_capacity(self.plies.len());
        for ply in &self.plies {
            out.push(Record {
                pos: pos.clone(),
                score_white: ply.score_white,
                result: self.result,
            });
            shakmaty::Position::play_unchecked(&mut pos, ply.mv);
        }
        out
    }
}

/// A training-data file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordFormat {
    /// bulletformat's 32-byte `ChessBoard` records (side-to-move view).
    Bullet,
    /// `FEN | score | result` lines, White's view: what bullet's text
    /// converter reads.
    Text,
    /// viriformat games (a packed start position, then moves and scores).
    Viriformat,
    /// Marlinflow's 32-byte packed boards (White's view, whole position).
    Marlinformat,
}

impl RecordFormat {
    /// Every format, in the order help texts list them.
    pub const ALL: [RecordFormat; 4] = [
        RecordFormat::Bullet,
        RecordFormat::Text,
        RecordFormat::Viriformat,
        RecordFormat::Marlinformat,
    ];

    /// The format's name in flags and configs (`bullet`, `text`, ...).
    pub fn name(self) -> &'static str {
        match self {
            RecordFormat::Bullet => "bullet",
            RecordFormat::Text => "text",
            RecordFormat::Viriformat => "viriformat",
            RecordFormat::Marlinformat => "marlinformat",
        }
    }

    /// What a file of this format is, for error messages.
    pub fn description(self) -> &'static str {
        match self {
            RecordFormat::Bullet => "bulletformat (32-byte ChessBoard records)",
            RecordFormat::Text => "text (`FEN | score | result` lines)",
            RecordFormat::Viriformat => {
                "viriformat (32-byte packed board, 4-byte move/score pairs, 4 zero bytes)"
            }
            RecordFormat::Marlinformat => "marlinformat (32-byte packed boards)",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            RecordFormat::Bullet => "bin",
            RecordFormat::Text => "txt",
            RecordFormat::Viriformat => "vf",
            RecordFormat::Marlinformat => "marlin",
        }
    }

    /// Whether the format keeps the moves (and so whole games).
    pub fn holds_games(self) -> bool {
        self == RecordFormat::Viriformat
    }
}

impl fmt::Display for RecordFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RecordFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        RecordFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!("unknown format '{s}' (expected bullet, text, viriformat or marlinformat)")
            })
    }
}

/// A training-data file that cannot be read.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum RecordError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: at byte {offset}: expected {}: {reason}", format.description())]
    Bad {
        path: PathBuf,
        offset: u64,
        format: RecordFormat,
        reason: String,
    },
}

/// Where in a file a decoder stopped, before the path is known.
#[derive(Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset in the file where decoding failed.
    pub offset: u64,
    /// What was wrong there.
    pub reason: String,
}

impl DecodeError {
    /// An error at byte `offset`.
    pub fn new(offset: u64, reason: impl Into<String>) -> DecodeError {
        DecodeError {
            offset,
            reason: reason.into(),
        }
    }

    /// The [`RecordError`] of this error in the file `path` of `format`.
    pub fn at(self, path: &Path, format: RecordFormat) -> RecordError {
        RecordError::Bad {
            path: path.to_path_buf(),
            offset: self.offset,
            format,
            reason: self.reason,
        }
    }
}

/// Decode a file of fixed-size `N`-byte records in order, each by
/// `decode`; a bad record or a cut last one is refused at its offset.
pub fn decode_fixed<const N: usize>(
    data: &[u8],
    decode: impl Fn(&[u8; N]) -> Result<Record, String>,
    each: &mut dyn FnMut(Record),
) -> Result<(), DecodeError> {
    let whole = data.len() / N * N;
    for (i, chunk) in data[..whole].chunks_exact(N).enumerate() {
        let offset = (i * N) as u64;
        let bytes: &[u8; N] = chunk.try_into().unwrap_or(&[0; N]);
        each(decode(bytes).map_err(|r| DecodeError::new(offset, r))?);
    }
    if whole != data.len() {
        return Err(DecodeError::new(
            whole as u64,
            format!(
                "truncated: {} trailing bytes of a {N}-byte record",
                data.len() - whole
            ),
        ));
    }
    Ok(())
}

/// The format a file name suggests (by extension), if any.
pub fn format_of_path(path: &Path) -> Option<RecordFormat> {
    let ext = path.extension()?.to_str()?;
    match ext {
        "bin" | "bullet" => Some(RecordFormat::Bullet),
        "txt" | "text" => Some(RecordFormat::Text),
        "vf" | "viri" | "viriformat" => Some(RecordFormat::Viriformat),
        "marlin" | "mf" | "marlinformat" => Some(RecordFormat::Marlinformat),
        _ => None,
    }
}
