//! `karsinta datagen convert`: training data from one format to another.
//! Positions convert freely between bulletformat and text; viriformat games
//! convert to either (every position of the game) and to viriformat; a
//! position format cannot become viriformat, which needs the moves. PGN
//! games convert to all of them ([`convert_pgn`]).

use std::io::Write;
use std::path::Path;

use shakmaty::{Color, KnownOutcome, Position};

use super::run::DatagenError;
use crate::formats::pgn_read::{comment_eval_cp, PgnGame, PgnGames};
use crate::formats::records::{DataGame, DataPly, RecordError, RecordFormat, Wdl, MATE_SCORE};
use crate::formats::training::decode_records;
use crate::formats::training::encode_record;
use crate::formats::viri;

/// What a conversion did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Converted {
    /// Positions converted (every position of a viriformat game).
    pub records: u64,
    /// Size of the output file in bytes.
    pub bytes: u64,
}

/// A conversion that cannot be done.
#[derive(Debug, thiserror::Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum ConvertError {
    /// The input cannot be read or decoded.
    #[error(transparent)]
    Read(#[from] RecordError),
    /// The output cannot be written.
    #[error(transparent)]
    Write(#[from] DatagenError),
    #[error("{from} holds positions without their moves; {to} needs whole games")]
    CannotHold {
        from: RecordFormat,
        to: RecordFormat,
    },
}

/// The bytes of `data` (in `from`) re-encoded in `to`; the record count.
pub fn convert_bytes(
    data: &[u8],
    from: RecordFormat,
    to: RecordFormat,
) -> Result<(Vec<u8>, u64), (Option<crate::formats::records::DecodeError>, String)> {
    let mut out = Vec::new();
    let mut records = 0u64;
    let mut encode_error = None;
    let decoded = if to == RecordFormat::Viriformat {
        if from != RecordFormat::Viriformat {
            return Err((None, String::new()));
        }
        viri::decode_all(data, &mut |game| match viri::encode(&game) {
            Ok(bytes) => {
                records += game.plies.len() as u64;
                out.extend_from_slice(&bytes);
            }
            Err(e) => encode_error = encode_error.take().or(Some(e)),
        })
    } else {
        decode_records(data, from, &mut |r| {
            records += 1;
            if let Err(e) = encode_record(to, &r, &mut out) {
                encode_error = encode_error.take().or(Some(e));
            }
        })
    };
    decoded.map_err(|e| (Some(e), String::new()))?;
    if let Some(e) = encode_error {
        return Err((None, e));
    }
    Ok((out, records))
}

/// Convert the file `input` (`from`) into a new file `output` (`to`).
pub fn convert(
    input: &Path,
    from: RecordFormat,
    output: &Path,
    to: RecordFormat,
) -> Result<Converted, ConvertError> {
    let data = std::fs::read(input).map_err(|source| RecordError::Io {
        path: input.to_path_buf(),
        source,
    })?;
    let (bytes, records) = match convert_bytes(&data, from, to) {
        Ok(x) => x,
        Err((Some(e), _)) => return Err(e.at(input, from).into()),
        Err((None, msg)) if msg.is_empty() => return Err(ConvertError::CannotHold { from, to }),
        Err((None, msg)) => {
            return Err(DatagenError::Folder {
                path: output.to_path_buf(),
                message: msg,
            }
            .into())
        }
    };
    let io = |source| DatagenError::Io {
        path: output.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::create(output).map_err(io)?;
    f.write_all(&bytes).map_err(io)?;
    Ok(Converted {
        records,
        bytes: bytes.len() as u64,
    })
}

/// What a conversion from PGN did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertedPgn {
    /// Games read from the PGN.
    pub games: u64,
    /// Positions written.
    pub records: u64,
    /// Size of the output file in bytes.
    pub bytes: u64,
    /// Positions whose move comment had no evaluation (stored as score 0).
    pub unscored: u64,
    /// Games skipped: (1-based game number, reason), the first hundred kept.
    pub skipped: Vec<(u64, String)>,
    /// Games skipped, all of them (`skipped` keeps the first hundred).
    pub skipped_total: u64,
}

/// A PGN game as a training game: every position before a main-line move,
/// scored by that move's comment (`[%eval]`, TCEC `wv=`, cutechess
/// `+0.31/12`; mates saturate, none is 0), labelled with the game's result.
pub fn pgn_game(game: &PgnGame, unscored: &mut u64) -> DataGame {
    let mut pos = game.start.clone();
    let mut plies = Vec::with_capacity(game.moves.len());
    for m in &game.moves {
        let eval = m
            .comment
            .as_deref()
            .and_then(|c| comment_eval_cp(c, pos.turn()));
        let mate = m
            .comment
            .as_deref()
            .and_then(|c| comment_mate_white(c, pos.turn()));
        let score_white = match (eval, mate) {
            (Some(cp), _) => cp.clamp(-f64::from(MATE_SCORE - 1), f64::from(MATE_SCORE - 1)) as i16,
            (None, Some(white_mates)) => {
                if white_mates {
                    MATE_SCORE
                } else {
                    -MATE_SCORE
                }
            }
            (None, None) => {
                *unscored += 1;
                0
            }
        };
        plies.push(DataPly {
            mv: m.mv,
            score_white,
        });
        pos.play_unchecked(m.mv);
    }
    let result = match game.result {
        KnownOutcome::Decisive { winner } => Wdl::win(winner),
        KnownOutcome::Draw => Wdl::Draw,
    };
    DataGame {
        start: game.start.clone(),
        plies,
        result,
    }
}

/// A mate score in a move comment (`[%eval #3]`, cutechess `+M5/12`):
/// whether White is the side that mates.
fn comment_mate_white(comment: &str, mover: Color) -> Option<bool> {
    let c = comment.trim();
    if let Some(i) = c.find("[%eval #") {
        return Some(!c[i + 8..].starts_with('-'));
    }
    let first = c.split_whitespace().next()?.split('/').next()?;
    let mover_mates = match first {
        s if s.starts_with("+M") || s.starts_with('M') => true,
        s if s.starts_with("-M") => false,
        _ => return None,
    };
    Some(mover_mates == (mover == Color::White))
}

/// Convert the PGN file `input` into a new file `output` (`to`): each
/// replayed game whole (viriformat) or position by position. A game that
/// does not replay is skipped and reported, never a reason to stop.
pub fn convert_pgn(
    input: &Path,
    output: &Path,
    to: RecordFormat,
) -> Result<ConvertedPgn, ConvertError> {
    let read_error = |source| RecordError::Io {
        path: input.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(input).map_err(read_error)?;
    let mut games = PgnGames::new(std::io::BufReader::new(file));
    let io = |source| DatagenError::Io {
        path: output.to_path_buf(),
        source,
    };
    // Streamed: memory stays that of one game whatever the file's size.
    let mut writer = std::io::BufWriter::new(std::fs::File::create(output).map_err(io)?);
    let mut done = ConvertedPgn::default();
    let mut out = Vec::new();
    while let Some((number, game)) = games.next_game().map_err(read_error)? {
        let game = match game {
            Ok(g) => g,
            Err((_, reason)) => {
                done.skipped_total += 1;
                if done.skipped.len() < 100 {
                    done.skipped.push((number, reason));
                }
                continue;
            }
        };
        let data = pgn_game(&game, &mut done.unscored);
        done.games += 1;
        out.clear();
        if to == RecordFormat::Viriformat {
            let bytes = viri::encode(&data).map_err(|message| DatagenError::Folder {
                path: input.to_path_buf(),
                message: format!("game {number}: {message}"),
            })?;
            out.extend_from_slice(&bytes);
            done.records += data.plies.len() as u64;
        } else {
            for r in data.records() {
                // Only viriformat refuses a lone position.
                let _ = encode_record(to, &r, &mut out);
                done.records += 1;
            }
        }
        writer.write_all(&out).map_err(io)?;
        done.bytes += out.len() as u64;
    }
    writer.flush().map_err(io)?;
    Ok(done)
}

/// What `convert` reads: PGN games or a training-data format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// PGN games with evaluation comments.
    Pgn,
    /// Training data in this format.
    Records(RecordFormat),
}

impl std::str::FromStr for Source {
    type Err = String;

    fn from_str(s: &str) -> Result<Source, String> {
        if s == "pgn" {
            return Ok(Source::Pgn);
        }
        s.parse().map(Source::Records).map_err(|_| {
            format!("unknown format '{s}' (expected pgn, bullet, text, viriformat or marlinformat)")
        })
    }
}

impl Source {
    /// The source a file name suggests (by extension), if any.
    pub fn of_path(path: &Path) -> Option<Source> {
        if path.extension().is_some_and(|e| e == "pgn") {
            return Some(Source::Pgn);
        }
        crate::formats::records::format_of_path(path).map(Source::Records)
    }
}
