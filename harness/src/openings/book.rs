//! Opening suites: loading EPD and PGN files into [`Opening`]s and choosing
//! which opening each game pair plays.
//!
//! Every position is checked with `shakmaty` (a legal position of the
//! match's [`Variant`], legal moves only) so that a match never starts from a
//! broken opening; a Chess960 position in a standard suite is refused with
//! the hint to play it as Chess960. Chess960 suites may be X-FEN or
//! Shredder-FEN; they are stored as X-FEN, castling moves king-takes-rook. EPD
//! is read by [`crate::formats::epd`] (strict, see there); only the position
//! is used, the operations are checked but not interpreted. PGN is read by
//! [`crate::formats::pgn_read`] (pgn-reader; see there what it refuses and
//! what it skips); each game's main line, or its first N plies, is replayed
//! and stored as UCI moves in the variant's castling notation (`e1g1` in
//! standard chess). Errors name the file, the line, the game and the token
//! of the bad entry; malformed input never panics.
//!
//! Bad entries abort the load by default. [`LoadOptions::skip_bad`] instead
//! drops them and reports each one in [`LoadedOpenings::skipped`]; a file with
//! no usable opening left is always an error ([`OpeningError::Empty`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Position};
use thiserror::Error;

use crate::formats::epd::read_epd_in;
use crate::formats::fen::position_fen;
use crate::formats::packed::{member_name, unpack, PackError};
use crate::formats::pgn_read::{PgnLines, PgnRules};
use crate::variant::{parse_position, Variant};

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
    /// The position after the opening's moves (standard chess).
    pub fn end_position(&self) -> Result<Chess, OpeningError> {
        self.end_position_in(Variant::Standard)
    }

    /// The position after the opening's moves in `variant`.
    pub fn end_position_in(&self, variant: Variant) -> Result<Chess, OpeningError> {
        let invalid = |reason: String| OpeningError::Invalid {
            id: self.id,
            reason,
        };
        let mut pos = match &self.fen {
            Some(fen) => parse_position(fen, variant).map_err(invalid)?,
            None => variant.start_position(),
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
    /// Format implied by a file name's extension (`.epd`, `.fen`, `.pgn`),
    /// looking through a `.gz` or `.zip` one (`book.epd.zip`).
    pub fn from_path(path: &Path) -> Option<OpeningFormat> {
        let packed =
            |e: &std::ffi::OsStr| e.eq_ignore_ascii_case("gz") || e.eq_ignore_ascii_case("zip");
        let path = match path.extension() {
            Some(e) if packed(e) => path.with_extension(""),
            _ => path.to_path_buf(),
        };
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
#[allow(missing_docs)] // each variant's message is its doc
pub enum OpeningError {
    #[error("cannot read opening file {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(
        "{}: unknown opening file extension (expected .epd or .pgn, possibly in a .gz or \
         .zip; set the format explicitly)",
        path.display()
    )]
    UnknownFormat { path: PathBuf },
    /// A `.gz` or `.zip` file that cannot be unpacked.
    #[error(transparent)]
    Packed(#[from] PackError),
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
    /// How castling rights and moves are read (default: standard chess).
    pub variant: Variant,
}

/// The result of [`load_openings_with`].
#[derive(Debug)]
pub struct LoadedOpenings {
    /// The usable openings, in file order.
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
        ..LoadOptions::default()
    };
    load_openings_with(path, &options).map(|loaded| loaded.openings)
}

/// Load an opening suite with full control over bad entries.
pub fn load_openings_with(
    path: &Path,
    options: &LoadOptions,
) -> Result<LoadedOpenings, OpeningError> {
    let data = std::fs::read(path).map_err(|error| OpeningError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    read_openings(&data, path, options)
}

/// Read an opening suite from the bytes of the file at `path` as stored:
/// plain, gzip or a zip of one file ([`crate::formats::packed`]). The
/// format is `options.format`, else the extension of the zip member or of
/// the name without `.gz`; errors name the member as `book.zip/member.epd`.
pub fn read_openings(
    data: &[u8],
    path: &Path,
    options: &LoadOptions,
) -> Result<LoadedOpenings, OpeningError> {
    let text = unpack(data, path)?;
    let format = options
        .format
        .or_else(|| OpeningFormat::from_path(&text.name))
        .ok_or_else(|| OpeningError::UnknownFormat {
            path: text.name.clone(),
        })?;
    parse_openings(&text.data, &text.name, format, options)
}

/// The format of the opening file at `path` as [`read_openings`] would
/// pick it without an explicit one, looking into a zip's directory for its
/// member's name (nothing is decompressed); `None` when the name does not
/// tell or the file cannot be read.
pub fn format_of_file(path: &Path) -> Option<OpeningFormat> {
    OpeningFormat::from_path(path).or_else(|| OpeningFormat::from_path(&member_name(path)?))
}

/// Parse an opening suite held in memory as plain text; `path` is only used
/// in errors.
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
            for entry in read_epd_in(data, path, options.variant) {
                let entry =
                    entry
                        .map(|e| (Some(e.fen), Vec::new()))
                        .map_err(|e| OpeningError::BadEpd {
                            path: e.path,
                            line: e.line,
                            reason: e.reason,
                        });
                accept(entry)?;
            }
        }
        OpeningFormat::Pgn => read_pgn(data, path, options, &mut accept)?,
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

/// A start FEN (`None` = standard start) and UCI moves: an opening before it
/// gets its id.
type Entry = (Option<String>, Vec<String>);

/// Read every game of a PGN opening suite through the one PGN reader
/// ([`crate::formats::pgn_read::PgnLines`]); moves are stored as UCI in the
/// variant's castling notation.
fn read_pgn(
    data: &[u8],
    path: &Path,
    options: &LoadOptions,
    accept: &mut dyn FnMut(Result<Entry, OpeningError>) -> Result<(), OpeningError>,
) -> Result<(), OpeningError> {
    let rules = PgnRules {
        variant: options.variant,
        max_plies: options.plies,
    };
    let mode = options.variant.castling_mode();
    for line in PgnLines::new(data, rules) {
        let entry = match line {
            Ok(line) => Ok((
                line.has_fen.then(|| position_fen(&line.start)),
                line.moves
                    .iter()
                    .map(|m| m.to_uci(mode).to_string())
                    .collect(),
            )),
            Err(fault) => Err(OpeningError::BadPgn {
                path: path.to_path_buf(),
                game: fault.game,
                line: fault.line,
                reason: fault.reason,
            }),
        };
        accept(entry)?;
    }
    Ok(())
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
            ..LoadOptions::default()
        };
        parse_openings(text.as_bytes(), Path::new("test"), format, &options).map(|l| l.openings)
    }

    #[test]
    fn chess960_suites_read_x_fen_and_shredder_fen() {
        let opts = |format, variant| LoadOptions {
            format: Some(format),
            variant,
            ..LoadOptions::default()
        };
        let epd = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\n\
                   qrbnnbkr/pppppppp/8/8/8/8/PPPPPPPP/BNQNRBKR w HEhb - 0 1\n";
        let path = Path::new("frc.epd");
        let got = parse_openings(
            epd.as_bytes(),
            path,
            OpeningFormat::Epd,
            &opts(OpeningFormat::Epd, Variant::Chess960),
        )
        .unwrap()
        .openings;
        // Shredder-FEN is stored as X-FEN: these rooks are the outermost.
        assert_eq!(
            got[1].fen.as_deref(),
            Some("qrbnnbkr/pppppppp/8/8/8/8/PPPPPPPP/BNQNRBKR w KQkq - 0 1")
        );
        let e = parse_openings(
            epd.as_bytes(),
            path,
            OpeningFormat::Epd,
            &opts(OpeningFormat::Epd, Variant::Standard),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("frc.epd:1:") && e.contains("`variant: chess960`"),
            "{e}"
        );
        let pgn = "[Variant \"Chess960\"]\n\
                   [FEN \"rk2r2r/ppppppp1/8/8/8/8/PPPPPPP1/RK2R2R w EQeq - 0 1\"]\n\n1. O-O O-O-O *\n";
        let got = parse_openings(
            pgn.as_bytes(),
            Path::new("frc.pgn"),
            OpeningFormat::Pgn,
            &opts(OpeningFormat::Pgn, Variant::Chess960),
        )
        .unwrap()
        .openings;
        assert_eq!(got[0].moves, ["b1e1", "b8a8"]);
        let e = parse_openings(
            pgn.as_bytes(),
            Path::new("frc.pgn"),
            OpeningFormat::Pgn,
            &opts(OpeningFormat::Pgn, Variant::Standard),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("frc.pgn:1: game 1: variant 'Chess960'"),
            "{e}"
        );
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
                let options = LoadOptions { format: Some(format), skip_bad: true, ..LoadOptions::default() };
                if let Ok(loaded) = parse_openings(text.as_bytes(), Path::new("p"), format, &options) {
                    for e in &loaded.skipped {
                        let line = e.line().unwrap();
                        proptest::prop_assert!(line >= 1 && line <= lines, "{}", e);
                    }
                }
            }
        }
    }
}
