//! marlinformat: Marlinflow's 32-byte packed board, the record bullet's
//! `MarlinFormat` loader reads and many engines' datagen writes. Unlike
//! bulletformat's `ChessBoard` it is from White's view and keeps the whole
//! position: castling rights, the en-passant square and both counters.
//!
//! The `bulletformat` crate reads these records but cannot build one (its
//! fields are private), so the encoder is written here to the layout, and
//! the tests read our files back with the crate's own loader.
//!
//! Layout (little-endian): occupancy u64; one nibble per occupied square in
//! square order (low nibble first), piece type 0-5 = pawn..king and 6 = a
//! rook that can still castle, bit 3 set for Black; a byte with bit 7 set
//! when Black is to move and the en-passant square (64 for none) below;
//! halfmove clock u8; fullmove number u16; score i16 (White's view); result
//! u8 (0 Black wins, 1 draw, 2 White wins); one spare byte.

use shakmaty::{
    Bitboard, Board, ByColor, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece,
    Position, Role, Setup, Square,
};

use super::records::{decode_fixed, DecodeError, Record, Wdl};

/// Bytes per record.
pub const RECORD_BYTES: usize = 32;

/// The nibble of a rook that still has a castling right.
const CASTLING_ROOK: u8 = 6;
const NO_EP: u8 = 64;

/// The 32 bytes of `rec`.
pub fn encode(rec: &Record) -> [u8; RECORD_BYTES] {
    let pos = &rec.pos;
    let board = pos.board();
    let castling_rooks = pos.castles().castling_rights();
    let mut out = [0u8; RECORD_BYTES];
    out[0..8].copy_from_slice(&board.occupied().0.to_le_bytes());
    for (i, sq) in board.occupied().into_iter().enumerate() {
        let Some(piece) = board.piece_at(sq) else {
            continue;
        };
        let mut code = piece.role as u8 - 1;
        if piece.role == Role::Rook && castling_rooks.contains(sq) {
            code = CASTLING_ROOK;
        }
        if piece.color == Color::Black {
            code |= 0b1000;
        }
        out[8 + i / 2] |= code << (4 * (i % 2));
    }
    let ep = pos
        .ep_square(EnPassantMode::Legal)
        .map_or(NO_EP, |s| u32::from(s) as u8);
    out[24] = ep | (u8::from(pos.turn() == Color::Black) << 7);
    out[25] = pos.halfmoves().min(255) as u8;
    let fullmoves = u16::try_from(pos.fullmoves().get()).unwrap_or(u16::MAX);
    out[26..28].copy_from_slice(&fullmoves.to_le_bytes());
    out[28..30].copy_from_slice(&rec.score_white.to_le_bytes());
    out[30] = rec.result.packed();
    out
}

/// A checked record from its 32 bytes.
pub fn decode(b: &[u8; RECORD_BYTES]) -> Result<Record, String> {
    let occ = Bitboard(u64::from_le_bytes(b[0..8].try_into().unwrap_or_default()));
    if occ.count() > 32 {
        return Err(format!("{} occupied squares (at most 32)", occ.count()));
    }
    let mut board = Board::empty();
    let mut castling_rights = Bitboard::EMPTY;
    for (i, sq) in occ.into_iter().enumerate() {
        let code = (b[8 + i / 2] >> (4 * (i % 2))) & 0b1111;
        let color = if code & 0b1000 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let role = match code & 0b111 {
            CASTLING_ROOK => {
                castling_rights.add(sq);
                Role::Rook
            }
            k => *Role::ALL
                .get(usize::from(k))
                .ok_or_else(|| format!("piece code {code} on square {sq}"))?,
        };
        board.set_piece_at(sq, Piece { color, role });
    }
    let turn = if b[24] >> 7 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let ep_square = match b[24] & 0x7f {
        NO_EP => None,
        s if s < 64 => Some(Square::new(u32::from(s))),
        s => return Err(format!("en-passant square {s} (expected 0-63 or 64)")),
    };
    let fullmoves = u16::from_le_bytes([b[26], b[27]]).max(1);
    let result = Wdl::from_packed(b[30])
        .ok_or_else(|| format!("result byte {} (expected 0, 1 or 2)", b[30]))?;
    let setup = Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights,
        ep_square,
        remaining_checks: None::<ByColor<_>>,
        halfmoves: u32::from(b[25]),
        fullmoves: std::num::NonZeroU32::new(u32::from(fullmoves))
            .unwrap_or(std::num::NonZeroU32::MIN),
    };
    let pos = Chess::from_setup(setup, CastlingMode::Standard)
        .map_err(|e| format!("not a legal position: {e}"))?;
    Ok(Record {
        pos,
        score_white: i16::from_le_bytes([b[28], b[29]]),
        result,
    })
}

/// Decode a whole file's bytes, in order.
pub fn decode_all(data: &[u8], each: &mut dyn FnMut(Record)) -> Result<(), DecodeError> {
    decode_fixed::<RECORD_BYTES>(data, decode, each)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn record(fen: &str, score_white: i16, result: Wdl) -> Record {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        Record {
            pos,
            score_white,
            result,
        }
    }

    #[test]
    fn every_field_survives_the_round_trip() {
        for (fen, score, result) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                17,
                Wdl::Draw,
            ),
            // Black to move, en passant, partial castling rights, counters.
            (
                "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b Kq e3 0 3",
                -250,
                Wdl::BlackWins,
            ),
            ("8/8/4k3/8/8/4K3/4P3/8 w - - 12 60", 31000, Wdl::WhiteWins),
        ] {
            let rec = record(fen, score, result);
            let bytes = encode(&rec);
            assert_eq!(decode(&bytes).unwrap(), rec, "{fen}");
        }
    }

    #[test]
    fn layout_matches_the_format() {
        let rec = record("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", -5, Wdl::WhiteWins);
        let b = encode(&rec);
        // a1, e1, e8 occupied.
        assert_eq!(
            u64::from_le_bytes(b[0..8].try_into().unwrap()),
            1 | 1 << 4 | 1 << 60
        );
        // a1 castling rook (6), e1 white king (5), e8 black king (13).
        assert_eq!(b[8], 6 | 5 << 4);
        assert_eq!(b[9], 13);
        assert_eq!(b[24], 64);
        assert_eq!(i16::from_le_bytes([b[28], b[29]]), -5);
        assert_eq!(b[30], 2);
    }

    #[test]
    fn bad_bytes_are_refused_with_their_offset() {
        let rec = record("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1", 0, Wdl::Draw);
        let mut data = encode(&rec).to_vec();
        let mut bad = encode(&rec);
        bad[30] = 7;
        data.extend_from_slice(&bad);
        let err = decode_all(&data, &mut |_| {}).unwrap_err();
        assert_eq!(err.offset, 32);
        assert!(err.reason.contains("result byte 7"), "{}", err.reason);
        let err = decode_all(&data[..40], &mut |_| {}).unwrap_err();
        assert_eq!(err.offset, 32);
        assert!(err.reason.contains("truncated"), "{}", err.reason);
    }
}
