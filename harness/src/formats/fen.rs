//! FEN positions for the harness: parsed and checked with `shakmaty` as
//! standard chess (Chess960: [`crate::variant::parse_position`]), and
//! written back in one canonical form, so every reader (EPD, PGN, the
//! generator) stores equal positions as equal strings; Chess960 castling
//! rights are written in X-FEN (`KQkq`), or as Shredder-FEN rook files by
//! [`shredder_fen`].

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position, Rank};

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

/// [`position_fen`] with Shredder-FEN castling rights: the castling rooks'
/// files (`HAha`, White's first, each side's from the h-file down) instead
/// of X-FEN's `KQkq`. Both name the same rights; some Chess960 tools read
/// only one of them.
pub fn shredder_fen(pos: &Chess) -> String {
    let fen = position_fen(pos);
    let rooks = pos.castles().castling_rights();
    let mut rights = String::new();
    for (rank, upper) in [(Rank::First, true), (Rank::Eighth, false)] {
        for sq in rooks.into_iter().rev().filter(|sq| sq.rank() == rank) {
            let file = sq.file().char();
            rights.push(if upper {
                file.to_ascii_uppercase()
            } else {
                file
            });
        }
    }
    if rights.is_empty() {
        rights.push('-');
    }
    let mut fields: Vec<&str> = fen.split(' ').collect();
    fields[2] = &rights;
    fields.join(" ")
}
