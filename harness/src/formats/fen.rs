//! FEN positions for the harness: parsed and checked with `shakmaty` as
//! standard chess (Chess960: [`crate::variant::parse_position`]), and
//! written back in one canonical form, so every reader (EPD, PGN, the
//! generator) stores equal positions as equal strings.

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use crate::variant::Variant;

/// Parse a FEN with shakmaty as a legal standard-chess position; the error
/// quotes the FEN and says what is wrong with it (and that it is a Chess960
/// position, when it is one).
pub fn parse_position(fen: &str) -> Result<Chess, String> {
    crate::variant::parse_position(fen, Variant::Standard)
}

/// Full 6-field FEN of a position, with the en-passant square only when a
/// capture is legal (so equal positions have equal FENs).
pub fn position_fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}
