//! The text training format bullet's converter reads (`bulletformat`'s
//! `ChessBoard::from_str`): one position a line, `FEN | score | result`,
//! the score in centipawns and the result (`1.0`, `0.5`, `0.0`) both from
//! White's view. Blank lines are skipped; anything else that does not parse
//! refuses the file at the line's byte offset.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode};

use super::records::{DecodeError, Record, Wdl};

/// The line of `rec` (without the newline).
pub fn encode(rec: &Record) -> String {
    let fen = Fen::from_position(&rec.pos, EnPassantMode::Legal);
    let result = match rec.result {
        Wdl::WhiteWins => "1.0",
        Wdl::Draw => "0.5",
        Wdl::BlackWins => "0.0",
    };
    format!("{fen} | {} | {result}", rec.score_white)
}

/// One line to a record.
pub fn decode_line(line: &str) -> Result<Record, String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields[..] else {
        return Err(format!(
            "{} '|'-separated fields, expected 3 (FEN | score | result)",
            fields.len()
        ));
    };
    let parsed: Fen = fen.parse().map_err(|e| format!("bad FEN '{fen}': {e}"))?;
    let pos: Chess = parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("'{fen}': {e}"))?;
    let score_white: i16 = score
        .parse()
        .map_err(|_| format!("score '{score}' is not an integer within ±32767"))?;
    let result = match result {
        "1.0" | "[1.0]" | "1" => Wdl::WhiteWins,
        "0.5" | "[0.5]" | "1/2" => Wdl::Draw,
        "0.0" | "[0.0]" | "0" => Wdl::BlackWins,
        other => return Err(format!("result '{other}' (expected 1.0, 0.5 or 0.0)")),
    };
    Ok(Record {
        pos,
        score_white,
        result,
    })
}

/// Decode a whole file's bytes, in order.
pub fn decode_all(data: &[u8], each: &mut dyn FnMut(Record)) -> Result<(), DecodeError> {
    let mut offset = 0u64;
    for raw in data.split_inclusive(|&b| b == b'\n') {
        let at = offset;
        offset += raw.len() as u64;
        let line = std::str::from_utf8(raw).map_err(|_| DecodeError::new(at, "not UTF-8 text"))?;
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        each(decode_line(line).map_err(|r| DecodeError::new(at, r))?);
    }
    Ok(())
}
