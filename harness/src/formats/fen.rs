//! FEN positions for the harness: parsed and checked with `shakmaty` as
//! standard chess, and written back in one canonical form, so every reader
//! (EPD, PGN, the generator) stores equal positions as equal strings.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode};

/// Parse a FEN with shakmaty as a legal standard-chess position; the error
/// quotes the FEN and says what is wrong with it.
pub fn parse_position(fen: &str) -> Result<Chess, String> {
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
