//! What decides whether an advantage converts: Stockfish's winnability sum
//! (passed pawns, pawn count, king outflanking, pawns on both flanks, king
//! infiltration, pawn endings), the endgame scale of drawish material
//! (opposite bishops, a lone minor) and the game phase the score is
//! tapered by.

use super::context::{cnt, Context, Side, DARK_SQUARES};
use crate::eval::masks::QUEEN_SIDE;
use crate::eval::sink::EvalSink;
use crate::eval::taper::{Shape, MAX_PHASE, SCALE_ONE};
use crate::eval::weights::{EvalWeights, IDX};

/// The winnability terms (Stockfish's `Evaluation::winnable`): one sum
/// for both sides, applied to the total ([`crate::eval::winnable`]).
/// `passed`: both sides' passed pawns.
#[inline(always)]
pub(super) fn winnability<K: EvalSink>(
    ctx: &Context,
    w: &EvalWeights,
    passed: [u64; 2],
    sink: &mut K,
) {
    let sides = &ctx.sides;
    let all_pawns = sides[0].pawns | sides[1].pawns;
    let (wk, bk) = (sides[0].king, sides[1].king);
    let outflanking = (wk % 8).abs_diff(bk % 8) as i32 - (wk / 8).abs_diff(bk / 8) as i32;
    let both_flanks = all_pawns & QUEEN_SIDE != 0 && all_pawns & !QUEEN_SIDE != 0;
    // In the order of the `winnable` weights.
    let winnable_terms = [
        cnt(passed[0] | passed[1]),
        cnt(all_pawns),
        outflanking,
        both_flanks as i32,
        // A king in the enemy half (infiltration).
        (wk / 8 >= 4 || bk / 8 <= 3) as i32,
        // A pawn ending.
        (ctx.non_pawn_units == 0) as i32,
        // Kings facing each other with the pawns on one flank (almost unwinnable).
        (outflanking < 0 && !both_flanks) as i32,
        // The constant.
        1,
    ];
    for (i, coef) in winnable_terms.into_iter().enumerate() {
        if coef != 0 {
            sink.add_winnable(IDX.winnable + i, w.winnable[i], coef);
        }
    }
}

/// The game phase and both sides' endgame scales.
#[inline(always)]
pub(super) fn shape(ctx: &Context) -> Shape {
    let sides = &ctx.sides;
    let minors = cnt(sides[0].knights | sides[0].bishops | sides[1].knights | sides[1].bishops);
    let rooks = cnt(sides[0].rooks | sides[1].rooks);
    let queens = cnt(sides[0].queens | sides[1].queens);
    Shape {
        phase: (minors + 2 * rooks + 4 * queens).min(MAX_PHASE),
        eg_scale: [
            eg_scale(&sides[0], &sides[1]),
            eg_scale(&sides[1], &sides[0]),
        ],
    }
}

/// Endgame scale (out of [`SCALE_ONE`]) when `strong` is ahead: material
/// configurations in which the extra material rarely wins.
fn eg_scale(strong: &Side, weak: &Side) -> i32 {
    let (s, w) = (strong.minor_major_units(), weak.minor_major_units());
    if strong.pawns == 0 {
        // A lone minor (or nothing) cannot mate; two knights cannot force it.
        if s <= 3 || (strong.knights.count_ones() == 2 && s == 6 && weak.pawns == 0) {
            return 0;
        }
        // Up at most a minor with no pawns left: usually a draw.
        if s - w <= 3 {
            return SCALE_ONE / 8;
        }
    }
    let opposite_bishops = strong.bishops.count_ones() == 1
        && weak.bishops.count_ones() == 1
        && ((strong.bishops & DARK_SQUARES) == 0) != ((weak.bishops & DARK_SQUARES) == 0);
    if opposite_bishops {
        return if s == 3 && w == 3 {
            SCALE_ONE / 2
        } else {
            SCALE_ONE * 7 / 8
        };
    }
    SCALE_ONE
}
