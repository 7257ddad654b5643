//! viriformat games (the `viriformat` crate, 3.0.0): a 32-byte packed start
//! position (marlinformat: occupancy, 4-bit pieces with unmoved rooks for
//! castling rights, side to move and en passant, counters, the result),
//! then one 4-byte (move u16, White-relative score i16) pair per ply, then
//! four zero bytes. Games are written through the crate ([`encode`]); the
//! reader ([`decode_all`]) follows the same layout but checks every field
//! and replays every move with shakmaty, so a foreign or cut file is
//! refused at the byte where it goes wrong instead of reaching the crate's
//! panics.

use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Piece, Position,
    Role, Setup, Square,
};
use viriformat::chess::board::{Board as ViriBoard, DrawType, GameOutcome, WinType};
use viriformat::chess::chessmove::Move as ViriMove;
use viriformat::dataformat::Game;

use super::records::{DataGame, DataPly, DecodeError, Wdl};

/// Bytes of the packed start position.
pub const HEADER_BYTES: usize = 32;
/// Bytes per ply, and of the terminator.
pub const PLY_BYTES: usize = 4;

const UNMOVED_ROOK: u8 = 6;
const FLAG_EP: u16 = 1;
const FLAG_CASTLE: u16 = 2;
const FLAG_PROMO: u16 = 3;

/// The 16-bit move code: from (6 bits), to (6), promotion (2: knight..queen),
/// kind (2: 1 en passant, 2 castling as king-takes-rook, 3 promotion).
pub fn move_code(mv: Move) -> u16 {
    let sq = |s: Square| u32::from(s) as u16;
    match mv {
        Move::Normal {
            from,
            to,
            promotion: Some(role),
            ..
        } => {
            let promo = match role {
                Role::Knight => 0,
                Role::Bishop => 1,
                Role::Rook => 2,
                _ => 3,
            };
            sq(from) | sq(to) << 6 | promo << 12 | FLAG_PROMO << 14
        }
        Move::Normal { from, to, .. } => sq(from) | sq(to) << 6,
        Move::EnPassant { from, to } => sq(from) | sq(to) << 6 | FLAG_EP << 14,
        Move::Castle { king, rook } => sq(king) | sq(rook) << 6 | FLAG_CASTLE << 14,
        Move::Put { to, .. } => sq(to) | sq(to) << 6,
    }
}

/// The bytes of `game`, serialised by the crate.
pub fn encode(game: &DataGame) -> Result<Vec<u8>, String> {
    if game.start.fullmoves().get() > u32::from(u16::MAX) {
        return Err("fullmove number above 65535".to_string());
    }
    let fen = Fen::from_position(&game.start, EnPassantMode::Legal).to_string();
    let mut board = ViriBoard::new();
    board
        .set_from_fen(&fen, false)
        .map_err(|e| format!("'{fen}': {e}"))?;
    let mut out = Game::new(&board);
    for ply in &game.plies {
        let mv = ViriMove::from_raw(move_code(ply.mv)).ok_or("the null move")?;
        out.add_move(mv, ply.score_white);
    }
    out.set_outcome(match game.result {
        Wdl::WhiteWins => GameOutcome::WhiteWin(WinType::Adjudication),
        Wdl::BlackWins => GameOutcome::BlackWin(WinType::Adjudication),
        Wdl::Draw => GameOutcome::Draw(DrawType::Adjudication),
    });
    let mut bytes = Vec::with_capacity(HEADER_BYTES + PLY_BYTES * (game.plies.len() + 1));
    out.serialise_into(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// The start position and result of a packed header.
fn decode_header(h: &[u8]) -> Result<(Chess, Wdl), String> {
    let occ = u64::from_le_bytes(h[0..8].try_into().unwrap_or_default());
    let result =
        Wdl::from_packed(h[30]).ok_or_else(|| format!("result byte {} (expected 0-2)", h[30]))?;
    if occ.count_ones() > 32 {
        return Err(format!(
            "{} occupied squares (at most 32)",
            occ.count_ones()
        ));
    }
    let mut board = Board::empty();
    let mut castling = Bitboard::EMPTY;
    for (i, sq) in Bitboard(occ).into_iter().enumerate() {
        let code = (h[8 + i / 2] >> ((i % 2) * 4)) & 0xF;
        let color = if code & 8 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let role = match code & 7 {
            UNMOVED_ROOK => {
                castling.add(sq);
                Role::Rook
            }
            k => *Role::ALL
                .get(usize::from(k))
                .ok_or_else(|| format!("piece code {code} on {sq}"))?,
        };
        board.set_piece_at(sq, Piece { color, role });
    }
    let ep = match h[24] & 0x7f {
        64 => None,
        s if s < 64 => Some(Square::new(u32::from(s))),
        s => return Err(format!("en-passant square {s}")),
    };
    let setup = Setup {
        board,
        turn: if h[24] & 0x80 == 0 {
            Color::White
        } else {
            Color::Black
        },
        castling_rights: castling,
        ep_square: ep,
        halfmoves: u32::from(h[25]),
        fullmoves: std::num::NonZeroU32::new(u32::from(u16::from_le_bytes([h[26], h[27]])))
            .unwrap_or(std::num::NonZeroU32::MIN),
        ..Setup::empty()
    };
    let pos = Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
        .map_err(|e| format!("not a legal start position: {e}"))?;
    Ok((pos, result))
}

/// The legal move of `pos` that `code` names.
fn decode_move(pos: &Chess, code: u16) -> Result<Move, String> {
    let from = Square::new(u32::from(code & 63));
    let to = Square::new(u32::from((code >> 6) & 63));
    let kind = code >> 14;
    let promo = Role::ALL[1 + usize::from((code >> 12) & 3)];
    pos.legal_moves()
        .into_iter()
        .find(|m| {
            m.from() == Some(from)
                && m.to() == to
                && match (kind, m) {
                    (FLAG_CASTLE, Move::Castle { .. }) => true,
                    (FLAG_EP, Move::EnPassant { .. }) => true,
                    (FLAG_PROMO, Move::Normal { promotion, .. }) => *promotion == Some(promo),
                    (0, Move::Normal { promotion, .. }) => promotion.is_none(),
                    _ => false,
                }
        })
        .ok_or_else(|| format!("move code {code:#06x} ({from}{to}) is not legal here"))
}

/// Decode one game starting at `data[start..]`; returns it and its length.
fn decode_game(data: &[u8], start: usize) -> Result<(DataGame, usize), DecodeError> {
    let header = data.get(start..start + HEADER_BYTES).ok_or_else(|| {
        DecodeError::new(
            start as u64,
            format!("truncated: a game header needs {HEADER_BYTES} bytes"),
        )
    })?;
    let (pos0, result) = decode_header(header).map_err(|r| DecodeError::new(start as u64, r))?;
    let mut pos = pos0.clone();
    let mut plies = Vec::new();
    let mut at = start + HEADER_BYTES;
    loop {
        let Some(entry) = data.get(at..at + PLY_BYTES) else {
            return Err(DecodeError::new(
                at as u64,
                format!("truncated: the game from byte {start} has no terminator"),
            ));
        };
        at += PLY_BYTES;
        if entry == [0; PLY_BYTES] {
            break;
        }
        let code = u16::from_le_bytes([entry[0], entry[1]]);
        let mv =
            decode_move(&pos, code).map_err(|r| DecodeError::new((at - PLY_BYTES) as u64, r))?;
        pos.play_unchecked(mv);
        plies.push(DataPly {
            mv,
            score_white: i16::from_le_bytes([entry[2], entry[3]]),
        });
    }
    let game = DataGame {
        start: pos0,
        plies,
        result,
    };
    Ok((game, at - start))
}

/// Decode a whole file's bytes, game by game.
pub fn decode_all(data: &[u8], each: &mut dyn FnMut(DataGame)) -> Result<(), DecodeError> {
    let mut at = 0;
    while at < data.len() {
        let (game, len) = decode_game(data, at)?;
        at += len;
        each(game);
    }
    Ok(())
}
