//! bulletformat's `ChessBoard`: 32 bytes per position, built and laid out
//! by the `bulletformat` crate (1.8.0). The record is from the side to
//! move's view: a position with Black to move is stored mirrored, with the
//! score and result negated, so reading one back gives the mirrored
//! position with White to move; castling rights, the en-passant square and
//! the move counters are not kept.
//!
//! Layout (little-endian): occupancy u64, 32 four-bit pieces (colour bit 3,
//! 0 = the side to move; type 0-5 = pawn..king), score i16, result u8 (0
//! loss, 1 draw, 2 win), own king square u8, the other king's square
//! (mirrored) u8, three spare bytes.

use bulletformat::{BulletFormat, ChessBoard};
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, FromSetup, Piece, Position, Role, Setup, Square,
};

use super::records::{decode_fixed, DecodeError, Record, Wdl};

/// Bytes per record.
pub const RECORD_BYTES: usize = 32;

/// The crate's record of `rec`.
pub fn to_chessboard(rec: &Record) -> ChessBoard {
    let board = rec.pos.board();
    let mut bbs = [0u64; 8];
    bbs[0] = board.by_color(Color::White).0;
    bbs[1] = board.by_color(Color::Black).0;
    for (i, role) in Role::ALL.iter().enumerate() {
        bbs[2 + i] = board.by_role(*role).0;
    }
    let stm = usize::from(rec.pos.turn() == Color::Black);
    // Every occupied square has a role, the only failure `from_raw` knows.
    ChessBoard::from_raw(bbs, stm, rec.score_white, rec.result.white_score()).unwrap_or_default()
}

/// The 32 bytes of `rec`, as the crate writes them.
pub fn encode(rec: &Record) -> [u8; RECORD_BYTES] {
    let cb = to_chessboard(rec);
    let mut out = [0u8; RECORD_BYTES];
    out.copy_from_slice(<ChessBoard as BulletFormat>::as_bytes_slice(&[cb]));
    out
}

/// The crate's record from its 32 bytes.
pub fn from_bytes(b: &[u8; RECORD_BYTES]) -> ChessBoard {
    let mut pcs = [0u8; 16];
    pcs.copy_from_slice(&b[8..24]);
    ChessBoard {
        occ: u64::from_le_bytes(b[0..8].try_into().unwrap_or_default()),
        pcs,
        score: i16::from_le_bytes([b[24], b[25]]),
        result: b[26],
        ksq: b[27],
        opp_ksq: b[28],
        extra: [b[29], b[30], b[31]],
    }
}

/// A checked record: the position from the side to move's view (White to
/// move), its score and result.
pub fn decode(cb: &ChessBoard) -> Result<Record, String> {
    let result = Wdl::from_packed(cb.result)
        .ok_or_else(|| format!("result byte {} (expected 0, 1 or 2)", cb.result))?;
    let count = cb.occ.count_ones();
    if count > 32 {
        return Err(format!("{count} occupied squares (at most 32)"));
    }
    let mut board = Board::empty();
    for (piece, square) in *cb {
        let kind = piece & 0b111;
        let role = *Role::ALL
            .get(usize::from(kind))
            .ok_or_else(|| format!("piece code {piece} on square {square}"))?;
        let color = if piece & 0b1000 == 0 {
            Color::White
        } else {
            Color::Black
        };
        board.set_piece_at(Square::new(u32::from(square)), Piece { color, role });
    }
    let king = |c: Color| board.king_of(c).map(|s| u32::from(s) as u8);
    if king(Color::White) != Some(cb.ksq) || king(Color::Black).map(|s| s ^ 56) != Some(cb.opp_ksq)
    {
        return Err("king squares disagree with the pieces".to_string());
    }
    let setup = Setup {
        board,
        turn: Color::White,
        castling_rights: Bitboard::EMPTY,
        ..Setup::empty()
    };
    let pos = Chess::from_setup(setup, CastlingMode::Standard)
        .map_err(|e| format!("not a legal position: {e}"))?;
    Ok(Record {
        pos,
        score_white: cb.score,
        result,
    })
}

/// Decode a whole file's bytes, in order.
pub fn decode_all(data: &[u8], each: &mut dyn FnMut(Record)) -> Result<(), DecodeError> {
    decode_fixed::<RECORD_BYTES>(data, |b| decode(&from_bytes(b)), each)
}
