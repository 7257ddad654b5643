//! King safety: the king's square table and its distance to its pawns, a
//! pawnless flank, the pawn shelter and storm on its three files, and the
//! non-linear king danger (attackers by kind, attacked zone squares, weak
//! squares, safe and unsafe checks, flank attacks, pinned blockers,
//! mobility), which counts only once enough pieces join the attack.

use cozy_chess::{
    get_between_rays, get_bishop_moves, get_knight_moves, get_rook_moves, BitBoard, Color,
};

use super::context::{bits, cnt, sign, sq, Attacks, Context};
use crate::eval::masks::{distance, file_bb, CAMP, KING_FLANK, RANKS_AHEAD};
use crate::eval::sink::EvalSink;
use crate::eval::taper::king_danger_penalty;
use crate::eval::weights::{EvalWeights, IDX, S};

/// Side `c`'s king placement and pawn shelter (on its file and the two
/// beside it, shifted inward on the edge, so always three files).
#[inline(always)]
pub(super) fn shelter<K: EvalSink>(ctx: &Context, w: &EvalWeights, c: usize, sink: &mut K) {
    let (us, them) = (&ctx.sides[c], &ctx.sides[1 - c]);
    let (white, sign) = (c == 0, sign(c));
    let k = us.king;
    let i = if white { k } else { k ^ 56 };
    sink.add(IDX.psqt_king + i, w.psqt_king[i], sign);
    // The endgame king belongs near its pawns, and a wing without pawns
    // is open to the enemy's pieces.
    if let Some(d) = bits(us.pawns).map(|p| distance(k, p)).min() {
        sink.add(
            IDX.king_pawn_distance,
            w.king_pawn_distance,
            sign * d as i32,
        );
    }
    if (us.pawns | them.pawns) & KING_FLANK[k % 8] == 0 {
        sink.add(IDX.king_pawnless_flank, w.king_pawnless_flank, sign);
    }
    let centre = (k % 8).clamp(1, 6);
    let ahead = RANKS_AHEAD[c][k / 8];
    for f in centre - 1..=centre + 1 {
        let span = ahead & file_bb(f);
        let nearest = |b: u64| {
            let s = if white {
                b.trailing_zeros() as usize
            } else {
                63 - b.leading_zeros() as usize
            };
            (s / 8).abs_diff(k / 8)
        };
        let own = us.pawns & span;
        let shield = if own == 0 { 3 } else { nearest(own).min(3) - 1 };
        sink.add(IDX.king_shield + shield, w.king_shield[shield], sign);
        let enemy = them.pawns & span;
        if enemy != 0 {
            let storm = nearest(enemy).min(4) - 1;
            sink.add(IDX.pawn_storm + storm, w.pawn_storm[storm], sign);
        }
    }
}

/// The danger to king `k` (0 White's, 1 Black's) from the attacks `att`
/// of both sides: its inner linear parts go to the sink, the penalty of
/// their sum as a non-linear term. Nothing while at most one piece (none
/// without a queen) attacks the zone.
#[inline(always)]
pub(super) fn danger<K: EvalSink>(
    ctx: &Context,
    w: &EvalWeights,
    k: usize,
    att: &[Attacks; 2],
    sink: &mut K,
) {
    let atk = &ctx.sides[1 - k];
    let aa = &att[1 - k];
    let attackers: i32 = aa.king_attackers.iter().sum();
    let has_queen = atk.queens != 0;
    if attackers <= 1 - has_queen as i32 {
        return;
    }
    let king = if k == 0 { Color::White } else { Color::Black };
    let mut d = S(0, 0);
    let mut danger = |idx: usize, weight: S, coef: i32| {
        if coef != 0 {
            d += weight * coef;
            sink.add_danger(king, idx, coef);
        }
    };
    danger_terms(ctx, w, k, att, &mut danger);
    danger(
        IDX.king_danger_no_queen,
        w.king_danger_no_queen,
        !has_queen as i32,
    );
    danger(IDX.king_danger_base, w.king_danger_base, 1);
    let penalty = king_danger_penalty(d);
    sink.add_nonlinear(if k == 0 { penalty } else { -penalty });
}

/// The linear parts of king `k`'s danger, each reported to `danger` as
/// (flat index, weight, coefficient).
#[inline(always)]
fn danger_terms(
    ctx: &Context,
    w: &EvalWeights,
    k: usize,
    att: &[Attacks; 2],
    danger: &mut impl FnMut(usize, S, i32),
) {
    let (def, atk) = (&ctx.sides[k], &ctx.sides[1 - k]);
    let (da, aa) = (&att[k], &att[1 - k]);
    let occ = ctx.occ;
    for i in 0..4 {
        danger(
            IDX.king_attacker + i,
            w.king_attacker[i],
            aa.king_attackers[i],
        );
    }
    danger(
        IDX.king_zone_attacks,
        w.king_zone_attacks,
        aa.king_zone_attacks,
    );
    let solid = ctx.pawn_att[k] | da.by[0] | da.by[1] | da.by[2];
    let weak = ctx.king_zone[k] & aa.all & !solid;
    danger(IDX.king_weak_squares, w.king_weak_squares, cnt(weak));
    let safe = !atk.all & !da.all;
    let ksq = sq(def.king);
    let bishop_rays = get_bishop_moves(ksq, BitBoard(occ)).0;
    let rook_rays = get_rook_moves(ksq, BitBoard(occ)).0;
    let checks = [
        get_knight_moves(ksq).0 & aa.by[0],
        bishop_rays & aa.by[1],
        rook_rays & aa.by[2],
        (bishop_rays | rook_rays) & aa.by[3],
    ];
    for (i, ch) in checks.into_iter().enumerate() {
        danger(
            IDX.king_safe_check + i,
            w.king_safe_check[i],
            cnt(ch & safe),
        );
    }
    // Checks onto defended squares cost the checking piece, but they
    // still tie the defence down. Queens are left out: giving up the
    // queen for a check rarely pays.
    let unsafe_checks = (checks[0] | checks[1] | checks[2]) & !atk.all & da.all;
    danger(
        IDX.king_unsafe_checks,
        w.king_unsafe_checks,
        cnt(unsafe_checks),
    );
    // The king's wing in its own half and two ranks beyond: where an
    // attack gathers before it reaches the king zone.
    let flank = KING_FLANK[def.king % 8] & CAMP[k];
    danger(
        IDX.king_flank_attacks,
        w.king_flank_attacks,
        cnt(flank & aa.all),
    );
    danger(
        IDX.king_flank_defense,
        w.king_flank_defense,
        cnt(flank & da.all),
    );
    // Stockfish's kingFlankAttack: squares attacked once count once,
    // twice count twice; the square lets a crowded flank weigh more.
    let flank_twice = cnt(flank & aa.twice);
    danger(
        IDX.king_flank_attacks_twice,
        w.king_flank_attacks_twice,
        flank_twice,
    );
    let flank_total = cnt(flank & aa.all) + flank_twice;
    danger(
        IDX.king_flank_attacks_sq,
        w.king_flank_attacks_sq,
        flank_total * flank_total / 8,
    );
    // Pieces of either colour that alone stand between the king and an
    // enemy slider: pinned defenders, or attackers ready to uncover.
    let snipers = (get_bishop_moves(ksq, BitBoard::EMPTY).0 & (atk.bishops | atk.queens))
        | (get_rook_moves(ksq, BitBoard::EMPTY).0 & (atk.rooks | atk.queens));
    let blockers = bits(snipers)
        .filter(|&s| cnt(get_between_rays(ksq, sq(s)).0 & occ) == 1)
        .count() as i32;
    danger(IDX.king_blockers, w.king_blockers, blockers);
    danger(
        IDX.king_mobility_diff,
        w.king_mobility_diff,
        aa.mobility - da.mobility,
    );
    danger(
        IDX.king_knight_defender,
        w.king_knight_defender,
        (da.by[0] & ctx.king_att[k] != 0) as i32,
    );
}
