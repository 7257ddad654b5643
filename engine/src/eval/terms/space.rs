//! Space, while enough pieces remain to use it: safe centre squares on the
//! own side, twice if behind the own pawns, weighted by the piece count and
//! the blocked pawns.

use super::context::{cnt, sign, Attacks, Context};
use crate::eval::masks::{forward, SPACE_MASK};
use crate::eval::sink::EvalSink;
use crate::eval::weights::{EvalWeights, IDX};

/// Non-pawn material of both sides, in pawn units, from which space counts
/// (of 62 at the start: about the queens or two rooks off).
const SPACE_UNITS: i32 = 46;

/// Whether the space term counts at all in this position.
#[inline(always)]
pub(super) fn counts(ctx: &Context) -> bool {
    ctx.non_pawn_units >= SPACE_UNITS
}

/// Pawns of either side blocked by an enemy pawn, twice White's blocked
/// pawns (each blocked pair blocks two).
#[inline(always)]
pub(super) fn blocked_pawns(ctx: &Context) -> i32 {
    2 * cnt(forward(ctx.sides[0].pawns, true) & ctx.sides[1].pawns)
}

/// Side `c`'s space; `enemy` the enemy's attacks, `blocked` from
/// [`blocked_pawns`].
#[inline(always)]
pub(super) fn space<K: EvalSink>(
    ctx: &Context,
    w: &EvalWeights,
    c: usize,
    enemy: &Attacks,
    blocked: i32,
    sink: &mut K,
) {
    let (us, white) = (&ctx.sides[c], c == 0);
    let safe = SPACE_MASK[c] & !us.pawns & !ctx.pawn_att[1 - c];
    let behind = forward(us.pawns, !white);
    let behind = behind | forward(behind, !white) | forward(forward(behind, !white), !white);
    let bonus = cnt(safe) + cnt(behind & safe & !enemy.all);
    let weight = (cnt(us.all) - 3 + blocked.min(9)).max(0);
    let n = bonus * weight * weight / 64;
    if n != 0 {
        sink.add(IDX.space, w.space, sign(c) * n);
    }
}
