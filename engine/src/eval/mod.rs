//! STUB: the evaluation; replaced by the evaluation work. API must stay.
pub mod weights;

use cozy_chess::{Board, Color, Piece};

use weights::EvalWeights;

/// Static evaluation of `board` in centipawns from the side to move's view.
pub fn evaluate(board: &Board, w: &EvalWeights) -> i32 {
    let vals = [
        w.material_pawn.0,
        w.material_knight.0,
        w.material_bishop.0,
        w.material_rook.0,
        w.material_queen.0,
        0,
    ];
    let mut s = 0;
    for p in Piece::ALL {
        let white = (board.pieces(p) & board.colors(Color::White)).len() as i32;
        let black = (board.pieces(p) & board.colors(Color::Black)).len() as i32;
        s += vals[p as usize] * (white - black);
    }
    if board.side_to_move() == Color::White {
        s
    } else {
        -s
    }
}
