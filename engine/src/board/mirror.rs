//! The colour-flipped mirror of a position, for symmetry checks: a correct
//! evaluation (or search) gives a position and its mirror the same score
//! from the side to move's view.

use cozy_chess::{Board, BoardBuilder, Color, Rank, Square};

/// The colour-flipped mirror of `board`: ranks flipped, colours swapped, the
/// other side to move, castling rights and en passant carried over. A correct
/// evaluation gives both the same score from the side to move's view.
pub fn colour_flipped(board: &Board) -> Board {
    let mut b = BoardBuilder::empty();
    for s in Square::ALL {
        b.board[s.flip_rank() as usize] = board
            .piece_on(s)
            .zip(board.color_on(s))
            .map(|(p, c)| (p, !c));
    }
    b.side_to_move = !board.side_to_move();
    for c in Color::ALL {
        b.castle_rights[(!c) as usize] = *board.castle_rights(c);
    }
    b.en_passant = board.en_passant().map(|f| {
        // The en passant target square is behind the pawn that just moved.
        let rank = if board.side_to_move() == Color::White {
            Rank::Third
        } else {
            Rank::Sixth
        };
        Square::new(f, rank)
    });
    b.halfmove_clock = board.halfmove_clock();
    b.fullmove_number = board.fullmove_number();
    b.build().expect("the mirror of a valid position is valid")
}
