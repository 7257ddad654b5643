//! The hash of the position after a move, found without playing it.
//! Enhanced transposition cutoffs probe the table for every child of a
//! node, and copying the board and playing each move (which also finds
//! checkers and pins) cost more than the probes themselves. cozy-chess's
//! Zobrist keys are private, so the keys a move changes are read off once
//! from the hashes of boards that differ in one piece, the side to move or
//! the en passant file; a move that changes castling rights is played on a
//! copy, as before.

use std::sync::OnceLock;

use cozy_chess::{Board, BoardBuilder, Color, File, Move, Piece, Rank, Square};

use super::see::is_en_passant;

/// The Zobrist keys a move can change.
struct Keys {
    /// `[color][piece][square]`; kings' keys are each XORed with a fixed
    /// square's (only pairs are ever used), pawns' back ranks are zero.
    piece: [[[u64; Square::NUM]; Piece::NUM]; Color::NUM],
    side: u64,
    en_passant: [u64; File::NUM],
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(derive_keys)
}

/// The hash of `board` after the legal move `mv`: equal to playing it on a
/// copy and reading [`Board::hash`].
#[inline]
pub fn child_key(board: &Board, mv: Move) -> u64 {
    let us = board.side_to_move();
    let Some(piece) = board.piece_on(mv.from) else {
        return played_key(board, mv);
    };
    let victim = board
        .piece_on(mv.to)
        .filter(|_| board.colors(!us).has(mv.to));
    if changes_castling(board, piece, victim) {
        return played_key(board, mv);
    }
    let k = keys();
    let mine = &k.piece[us as usize];
    let mut h = board.hash() ^ k.side;
    if let Some(f) = board.en_passant() {
        h ^= k.en_passant[f as usize];
    }
    h ^= mine[piece as usize][mv.from as usize];
    h ^= mine[mv.promotion.unwrap_or(piece) as usize][mv.to as usize];
    if let Some(v) = victim {
        h ^= k.piece[!us as usize][v as usize][mv.to as usize];
    } else if piece == Piece::Pawn {
        if is_en_passant(board, mv) {
            let taken = Square::new(mv.to.file(), mv.from.rank());
            h ^= k.piece[!us as usize][Piece::Pawn as usize][taken as usize];
        } else if mv.from.rank() as i32 - mv.to.rank() as i32 == 2
            || mv.to.rank() as i32 - mv.from.rank() as i32 == 2
        {
            // cozy-chess records the file of every double step.
            h ^= k.en_passant[mv.to.file() as usize];
        }
    }
    h
}

/// Castling, a king or rook move while its side may castle, or a capture
/// on the back rank of a side that may castle: the rights change.
fn changes_castling(board: &Board, piece: Piece, victim: Option<Piece>) -> bool {
    let us = board.side_to_move();
    let may = |c: Color| {
        let r = board.castle_rights(c);
        r.short.is_some() || r.long.is_some()
    };
    (may(us) && matches!(piece, Piece::King | Piece::Rook))
        || (victim == Some(Piece::Rook) && may(!us))
}

fn played_key(board: &Board, mv: Move) -> u64 {
    let mut child = board.clone();
    child.play_unchecked(mv);
    child.hash()
}

/// Read the keys off boards built to differ in one thing.
fn derive_keys() -> Keys {
    let mut k = Keys {
        piece: [[[0; Square::NUM]; Piece::NUM]; Color::NUM],
        side: 0,
        en_passant: [0; File::NUM],
    };
    let kings = |w: Square, b: Square, stm: Color| {
        let mut bb = BoardBuilder::empty();
        *bb.square_mut(w) = Some((Piece::King, Color::White));
        *bb.square_mut(b) = Some((Piece::King, Color::Black));
        bb.side_to_move = stm;
        bb
    };
    let hash = |bb: &BoardBuilder| bb.build().ok().map(|b| b.hash());
    for color in Color::ALL {
        for piece in Piece::ALL {
            for sq in Square::ALL {
                let back = matches!(sq.rank(), Rank::First | Rank::Eighth);
                if piece == Piece::Pawn && back {
                    continue;
                }
                k.piece[color as usize][piece as usize][sq as usize] = if piece == Piece::King {
                    king_key(color, sq, &kings, &hash)
                } else {
                    piece_key(color, piece, sq, &kings, &hash)
                };
            }
        }
    }
    let w = kings(Square::A1, Square::H8, Color::White);
    let b = kings(Square::A1, Square::H8, Color::Black);
    k.side = hash(&w).zip(hash(&b)).map_or(0, |(x, y)| x ^ y);
    for file in File::ALL {
        // A white pawn that has just stepped two squares: Black to move.
        let mut bb = kings(Square::A1, Square::H8, Color::Black);
        if file == File::A {
            bb = kings(Square::H1, Square::A8, Color::Black);
        }
        *bb.square_mut(Square::new(file, Rank::Fourth)) = Some((Piece::Pawn, Color::White));
        bb.en_passant = Some(Square::new(file, Rank::Third));
        if let Ok(board) = bb.build() {
            k.en_passant[file as usize] = board.hash() ^ board.hash_without_ep();
        }
    }
    k
}

/// A non-king piece's key: two boards with the same kings, one with the
/// piece; the side to move is the piece's opponent, so a check it gives is
/// legal.
fn piece_key(
    color: Color,
    piece: Piece,
    sq: Square,
    kings: &impl Fn(Square, Square, Color) -> BoardBuilder,
    hash: &impl Fn(&BoardBuilder) -> Option<u64>,
) -> u64 {
    for w in Square::ALL {
        for b in Square::ALL {
            if w == sq || b == sq {
                continue;
            }
            let without = kings(w, b, !color);
            let mut with = without.clone();
            *with.square_mut(sq) = Some((piece, color));
            if let (Some(x), Some(y)) = (hash(&without), hash(&with)) {
                return x ^ y;
            }
        }
    }
    0
}

/// A king's key XORed with that of the king on its colour's home square:
/// two boards with the other king in the same place.
fn king_key(
    color: Color,
    sq: Square,
    kings: &impl Fn(Square, Square, Color) -> BoardBuilder,
    hash: &impl Fn(&BoardBuilder) -> Option<u64>,
) -> u64 {
    let home = Square::new(File::E, Rank::First.relative_to(color));
    for other in Square::ALL {
        let board = |own: Square| match color {
            Color::White => kings(own, other, Color::White),
            Color::Black => kings(other, own, Color::White),
        };
        if let (Some(x), Some(y)) = (hash(&board(sq)), hash(&board(home))) {
            return x ^ y;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::legal_moves;

    /// Every legal move of positions with castling both ways, en passant,
    /// promotions with and without capture, and checks; then two plies
    /// deeper from each.
    #[test]
    fn child_keys_equal_the_played_hashes() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "1k6/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "r3k2r/8/8/8/8/8/8/1K6 b kq - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let root: Board = fen.parse().unwrap();
            let mut frontier = vec![root];
            for _ in 0..3 {
                let mut next = Vec::new();
                for board in &frontier {
                    for &mv in legal_moves(board).as_slice() {
                        let mut child = board.clone();
                        child.play_unchecked(mv);
                        assert_eq!(child_key(board, mv), child.hash(), "{board} {mv}");
                        checked += 1;
                        if next.len() < 400 {
                            next.push(child);
                        }
                    }
                }
                frontier = next;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn every_key_used_was_found() {
        let k = keys();
        assert_ne!(k.side, 0);
        assert!(k.en_passant.iter().all(|&e| e != 0));
        for c in Color::ALL {
            for p in Piece::ALL {
                for s in Square::ALL {
                    let unused = (p == Piece::Pawn
                        && matches!(s.rank(), Rank::First | Rank::Eighth))
                        || (p == Piece::King
                            && s == Square::new(File::E, Rank::First.relative_to(c)));
                    assert_eq!(
                        k.piece[c as usize][p as usize][s as usize] == 0,
                        unused,
                        "{c:?} {p:?} {s}"
                    );
                }
            }
        }
    }
}
