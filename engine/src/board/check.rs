//! Whether a move gives check, direct or discovered, found from the
//! bitboards without playing it: the search asks for every move it may
//! prune, and the move picker for the quiet checks of the quiescence
//! search.

use cozy_chess::{
    get_bishop_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, Board, Move, Piece,
    Square,
};

use super::see::is_en_passant;

/// Whether playing the legal move `mv` gives check, direct or discovered,
/// found without playing it: the search asks before it prunes, and copying
/// and playing every pruned move cost more than the pruning saves.
pub fn gives_check(board: &Board, mv: Move) -> bool {
    let us = board.side_to_move();
    let Some(piece) = board.piece_on(mv.from) else {
        return false;
    };
    // Castling (the king takes its own rook here) moves two pieces.
    if piece == Piece::King && board.colors(us).has(mv.to) {
        return gives_check_by_playing(board, mv);
    }
    let from = mv.from.bitboard();
    let to = mv.to.bitboard();
    let mut occ = (board.occupied() & !from) | to;
    if is_en_passant(board, mv) {
        // The captured pawn leaves a square off the move's path.
        occ &= !Square::new(mv.to.file(), mv.from.rank()).bitboard();
    }
    let moved = mv.promotion.unwrap_or(piece);
    let after = |p: Piece| {
        let b = board.colored_pieces(us, p) & !from;
        if p == moved {
            b | to
        } else {
            b
        }
    };
    let king = board.king(!us);
    let queens = after(Piece::Queen);
    let checkers = (get_bishop_moves(king, occ) & (after(Piece::Bishop) | queens))
        | (get_rook_moves(king, occ) & (after(Piece::Rook) | queens))
        | (get_knight_moves(king) & after(Piece::Knight))
        | (get_pawn_attacks(king, !us) & after(Piece::Pawn));
    !checkers.is_empty()
}

/// [`gives_check`] by playing the move on a copy of the board.
fn gives_check_by_playing(board: &Board, mv: Move) -> bool {
    let mut b = board.clone();
    b.play_unchecked(mv);
    !b.checkers().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::legal_moves;

    const FENS: [&str; 4] = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];

    /// The bitboard test agrees with playing the move, for every legal move
    /// of a few thousand positions from random walks and of the special
    /// cases: discovered checks by en passant and castling, promotions to
    /// every piece, a king stepping off a slider's line.
    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let special = [
            "8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "r3k3/8/8/8/8/8/8/3K4 b q - 0 1",
            "3k4/1P6/8/8/8/8/8/K7 w - - 0 1",
            "8/1P1k4/8/8/8/8/8/K7 w - - 0 1",
            "7k/8/8/8/8/8/1K6/B7 w - - 0 1",
            "4k3/8/8/8/8/8/4K3/4R3 w - - 0 1",
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut checked = 0;
        let mut checks = 0;
        let starts = FENS
            .iter()
            .chain(special.iter())
            .map(|f| f.parse().unwrap());
        for start in starts.chain([Board::default()]) {
            for _walk in 0..20 {
                let mut board: Board = start.clone();
                for _ply in 0..40 {
                    let legal = legal_moves(&board);
                    if legal.is_empty() {
                        break;
                    }
                    for &mv in &legal {
                        let want = gives_check_by_playing(&board, mv);
                        assert_eq!(gives_check(&board, mv), want, "{board} {mv}");
                        checked += 1;
                        checks += want as usize;
                    }
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    board.play_unchecked(legal[(seed >> 33) as usize % legal.len()]);
                }
            }
        }
        // The walks reach checks of every kind, not only quiet positions.
        assert!(
            checked > 50_000 && checks > 2_000,
            "{checked} moves, {checks} checks"
        );
    }
}
