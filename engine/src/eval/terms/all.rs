//! [`evaluate_terms`]: every term family of a position in turn, into one
//! sink. The families that need both sides' attack maps (threats, space,
//! passed pawns against the attacks, king danger) run after the pieces of
//! both sides have gathered them.

use cozy_chess::{Board, Color};

use super::context::{Attacks, Context};
use super::{king, material, passed, pawns, pieces, space, threats, winnable};
use crate::eval::sink::EvalSink;
use crate::eval::taper::Shape;
use crate::eval::weights::{EvalWeights, IDX};

/// Evaluate all terms of `board` into `sink`. Always inlined, so that
/// [`crate::eval::evaluate_white`] compiles it with `popcnt`.
#[inline(always)]
pub(crate) fn evaluate_terms<K: EvalSink>(board: &Board, w: &EvalWeights, sink: &mut K) -> Shape {
    let ctx = Context::new(board);
    let mut att = [Attacks::default(), Attacks::default()];
    let passed = pawns::structure(&ctx, w, sink);
    material::imbalance(&ctx, w, sink);
    for c in 0..2 {
        material::material(&ctx, w, c, sink);
        passed::placement(&ctx, w, c, passed[c], sink);
        pieces::pieces(&ctx, w, c, &mut att[c], sink);
        king::shelter(&ctx, w, c, sink);
    }
    let space_counts = space::counts(&ctx);
    let blocked = space::blocked_pawns(&ctx);
    for c in 0..2 {
        threats::threats(&ctx, w, c, &att, sink);
        if space_counts {
            space::space(&ctx, w, c, &att[1 - c], blocked, sink);
        }
    }
    for c in 0..2 {
        passed::safe_path(&ctx, w, c, passed[c], &att[1 - c], sink);
    }
    for k in 0..2 {
        king::danger(&ctx, w, k, &att, sink);
    }
    winnable::winnability(&ctx, w, passed, sink);
    let stm = if board.side_to_move() == Color::White {
        1
    } else {
        -1
    };
    sink.add(IDX.tempo, w.tempo, stm);
    winnable::shape(&ctx)
}
