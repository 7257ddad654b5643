//! Passed pawns beyond their rank (which the pawn structure scores): a free
//! path, the kings' distances to the stop square, the distance from the
//! edge, a rook behind the passer, and, once both sides' attacks are known,
//! a path (or stop square) the enemy does not cover.

use cozy_chess::{get_rook_moves, BitBoard};

use super::context::{bits, sign, sq, Attacks, Context};
use crate::eval::masks::{distance, FRONT};
use crate::eval::sink::EvalSink;
use crate::eval::weights::{EvalWeights, IDX};

/// Side `c`'s passed pawns `passed`: the terms that need the other pieces
/// but not the attack maps.
#[inline(always)]
pub(super) fn placement<K: EvalSink>(
    ctx: &Context,
    w: &EvalWeights,
    c: usize,
    passed: u64,
    sink: &mut K,
) {
    let (us, them) = (&ctx.sides[c], &ctx.sides[1 - c]);
    let (white, sign, occ) = (c == 0, sign(c), ctx.occ);
    for s in bits(passed) {
        let i = if white { s / 8 } else { 7 - s / 8 } - 1;
        if occ & FRONT[c][s] == 0 {
            sink.add(IDX.passed_free_path + i, w.passed_free_path[i], sign);
        }
        let stop = if white { s + 8 } else { s - 8 };
        let own = distance(us.king, stop);
        sink.add(
            IDX.passed_own_king_dist + own,
            w.passed_own_king_dist[own],
            sign,
        );
        let edge = (s % 8).min(7 - s % 8) as i32;
        if edge != 0 {
            sink.add(IDX.passed_file, w.passed_file, sign * edge);
        }
        let enemy = distance(them.king, stop);
        sink.add(
            IDX.passed_enemy_king_dist + enemy,
            w.passed_enemy_king_dist[enemy],
            sign,
        );
        // A rook behind the passer guards every square it advances to.
        let behind = FRONT[1 - c][s] & us.rooks;
        if behind != 0 && get_rook_moves(sq(s), BitBoard(occ)).0 & behind != 0 {
            sink.add(IDX.rook_behind_passer, w.rook_behind_passer, sign);
        }
    }
}

/// Side `c`'s passed pawns against the enemy's attacks `enemy`, which
/// needs both sides' complete maps: a pawn whose path nothing covers walks
/// in; one whose stop square alone is safe still makes its next step. An
/// enemy rook or queen behind the pawn on its file covers the whole path
/// (x-ray).
#[inline(always)]
pub(super) fn safe_path<K: EvalSink>(
    ctx: &Context,
    w: &EvalWeights,
    c: usize,
    passed: u64,
    enemy: &Attacks,
    sink: &mut K,
) {
    let (white, sign, occ) = (c == 0, sign(c), ctx.occ);
    let them = &ctx.sides[1 - c];
    for s in bits(passed) {
        let stop = if white { s + 8 } else { s - 8 };
        if occ & 1 << stop != 0 {
            continue;
        }
        let path = FRONT[c][s];
        let behind = FRONT[1 - c][s] & (them.rooks | them.queens);
        let x_ray = behind != 0 && get_rook_moves(sq(s), BitBoard(occ)).0 & behind != 0;
        let covered = if x_ray { path } else { path & enemy.all };
        let i = if white { s / 8 } else { 7 - s / 8 } - 1;
        if covered == 0 {
            sink.add(IDX.passed_safe_path + i, w.passed_safe_path[i], sign);
        } else if covered & 1 << stop == 0 {
            // Never on the seventh rank, whose path is the stop square.
            sink.add(IDX.passed_safe_stop + i, w.passed_safe_stop[i], sign);
        }
    }
}
