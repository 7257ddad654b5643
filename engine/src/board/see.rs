//! Static exchange evaluation: the material balance of the capture sequence
//! on one square when both sides always recapture with their least valuable
//! attacker and may stop when continuing would lose. Pins are ignored
//! (the usual approximation); x-ray attackers behind moved sliders count.
//!
//! Piece values come from the caller (the searcher takes them from the
//! evaluation's middlegame material weights, so there is one source of truth).

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, Color, Move, Piece, Square,
};

use crate::board::position::is_castling;

/// Values of pawn, knight, bishop, rook, queen, king (king only needs to be
/// larger than any exchange).
pub type PieceValues = [i32; 6];

/// Whether `mv` is an en-passant capture.
#[inline]
pub fn is_en_passant(board: &Board, mv: Move) -> bool {
    mv.from.file() != mv.to.file()
        && board.pieces(Piece::Pawn).has(mv.from)
        && !board.occupied().has(mv.to)
}

/// The piece `mv` captures, if any (a pawn for en passant).
#[inline]
pub fn captured_piece(board: &Board, mv: Move) -> Option<Piece> {
    if board.colors(!board.side_to_move()).has(mv.to) {
        board.piece_on(mv.to)
    } else if is_en_passant(board, mv) {
        Some(Piece::Pawn)
    } else {
        None
    }
}

/// The pieces of `board` attacking `sq` through the occupancy `occ`, with
/// the leapers (pawns, knights, kings), which no occupancy blocks, given.
fn attackers_to(board: &Board, sq: Square, occ: BitBoard, leapers: BitBoard) -> BitBoard {
    let diag = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
    let orth = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    (leapers | (get_bishop_moves(sq, occ) & diag) | (get_rook_moves(sq, occ) & orth)) & occ
}

/// The pawns, knights and kings of `board` attacking `sq`.
fn leapers_to(board: &Board, sq: Square) -> BitBoard {
    (get_pawn_attacks(sq, Color::White) & board.colored_pieces(Color::Black, Piece::Pawn))
        | (get_pawn_attacks(sq, Color::Black) & board.colored_pieces(Color::White, Piece::Pawn))
        | (get_knight_moves(sq) & board.pieces(Piece::Knight))
        | (get_king_moves(sq) & board.pieces(Piece::King))
}

/// Exchange value of `mv` for the side to move, in the units of `values`.
pub fn see(board: &Board, mv: Move, values: &PieceValues) -> i32 {
    match first_capture(board, mv, values) {
        Some((gain, on_square)) => exchange(board, mv, gain, on_square, values),
        None => 0,
    }
}

/// What `mv` itself wins and the value of the piece it leaves on the target
/// square (what a recapture wins back); `None` when [`see`] is 0 outright
/// (castling, or no piece to move).
#[inline]
fn first_capture(board: &Board, mv: Move, values: &PieceValues) -> Option<(i32, i32)> {
    if is_castling(board, mv) {
        return None;
    }
    let mover = board.piece_on(mv.from)?;
    let mut gain = match captured_piece(board, mv) {
        Some(p) => values[p as usize],
        None => 0,
    };
    let mut on_square = values[mover as usize];
    if let Some(p) = mv.promotion {
        gain += values[p as usize] - values[Piece::Pawn as usize];
        on_square = values[p as usize];
    }
    Some((gain, on_square))
}

/// The exchange after `mv` (which wins `gain0` and leaves a piece worth
/// `on_square` on the target square).
fn exchange(board: &Board, mv: Move, gain0: i32, on_square: i32, values: &PieceValues) -> i32 {
    let to = mv.to;
    let mut occ = board.occupied() ^ mv.from.bitboard();
    let mut gain = [0i32; 34];
    gain[0] = gain0;
    if is_en_passant(board, mv) {
        let victim = Square::new(mv.to.file(), mv.from.rank());
        occ ^= victim.bitboard();
    }
    // Value of the piece now standing on `to` (what the next capture wins).
    let mut on_square = on_square;
    let mut side = !board.side_to_move();
    // Only the sliders' attacks change as pieces leave the square's lines.
    let leapers = leapers_to(board, to);
    let mut attackers = attackers_to(board, to, occ, leapers);
    let mut d = 0;
    loop {
        let mine = attackers & board.colors(side) & occ;
        if mine.is_empty() {
            break;
        }
        let mut lva = None;
        for p in Piece::ALL {
            let bb = mine & board.pieces(p);
            if let Some(sq) = bb.next_square() {
                lva = Some((p, sq));
                break;
            }
        }
        let (piece, sq) = lva.expect("non-empty attacker set");
        // A king may only recapture when the other side has nothing left.
        if piece == Piece::King
            && !(attackers & board.colors(!side) & occ & !sq.bitboard()).is_empty()
        {
            break;
        }
        d += 1;
        if d >= gain.len() {
            break;
        }
        gain[d] = on_square - gain[d - 1];
        on_square = values[piece as usize];
        occ ^= sq.bitboard();
        // Recompute to pick up x-ray attackers behind the piece that moved.
        attackers = attackers_to(board, to, occ, leapers);
        side = !side;
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// Whether the exchange value of `mv` is at least `threshold`.
pub fn see_ge(board: &Board, mv: Move, threshold: i32, values: &PieceValues) -> bool {
    let Some((gain, on_square)) = first_capture(board, mv, values) else {
        return 0 >= threshold;
    };
    // The exchange is at most what `mv` wins (the opponent may stop), and
    // at least that minus the piece left on the square (we may stop after
    // one recapture): often enough to answer without playing it out.
    if gain < threshold {
        return false;
    }
    if gain.min(gain - on_square) >= threshold {
        return true;
    }
    exchange(board, mv, gain, on_square, values) >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: PieceValues = [100, 300, 300, 500, 900, 20_000];

    fn see_of(fen: &str, mv: &str) -> i32 {
        let board: Board = fen.parse().unwrap();
        let mv: Move = mv.parse().unwrap();
        assert!(board.is_legal(mv), "{mv} illegal in {fen}");
        see(&board, mv, &V)
    }

    #[test]
    fn simple_exchanges() {
        // Rook takes an undefended pawn.
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            100
        );
        // Knight takes a pawn defended by a pawn... and more: the classic
        // example wins a pawn then loses the knight.
        assert_eq!(
            see_of(
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5"
            ),
            -200
        );
        // Quiet move onto a square attacked by a pawn loses the piece.
        assert_eq!(see_of("4k3/8/3p4/8/8/8/8/2B1K3 w - - 0 1", "c1g5"), 0);
        assert_eq!(see_of("4k3/8/5p2/8/8/8/8/2B1K3 w - - 0 1", "c1g5"), -300);
    }

    #[test]
    fn xray_and_promotion_and_en_passant() {
        // Rook takes defended rook backed by a second rook (x-ray).
        assert_eq!(see_of("3r2k1/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7"), 500);
        // Promotion on an empty, unattacked square gains queen minus pawn.
        assert_eq!(see_of("7k/P7/8/8/8/8/8/K7 w - - 0 1", "a7a8q"), 800);
        // En passant, recaptured by a pawn: even.
        assert_eq!(see_of("4k3/2p5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), 0);
        assert!(see_ge(
            &"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1".parse().unwrap(),
            "e5d6".parse().unwrap(),
            100,
            &V
        ));
    }

    #[test]
    fn see_ge_agrees_with_see() {
        // The bounds see_ge answers from must never disagree with the full
        // exchange, for any piece values the parameters allow.
        let odd: PieceValues = [-50, 700, 10, 300, -200, 20_000];
        for fen in crate::bench::BENCH_FENS {
            let board: Board = fen.parse().unwrap();
            for mv in crate::board::position::legal_moves(&board) {
                for values in [&V, &odd] {
                    let s = see(&board, mv, values);
                    for t in (-1000..=1000).step_by(50) {
                        assert_eq!(see_ge(&board, mv, t, values), s >= t, "{fen} {mv} {t}");
                    }
                }
            }
        }
    }

    #[test]
    fn king_cannot_recapture_defended_piece() {
        // Queen takes a pawn next to the black king, defended by a rook: the
        // king must not be counted as taking back while the rook still guards.
        assert_eq!(see_of("4k3/4p3/8/8/8/8/4R3/K3R3 w - - 0 1", "e2e7"), 100);
        assert_eq!(see_of("4k3/4p3/8/8/8/8/4R3/K7 w - - 0 1", "e2e7"), -400);
        assert_eq!(see_of("4k3/4p3/8/8/8/8/4Q3/4K3 w - - 0 1", "e2e7"), -800);
    }
}
