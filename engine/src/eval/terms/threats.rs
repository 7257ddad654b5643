//! Threats, from the attacker's side: pawn and minor attacks on pieces,
//! rook on queen, hanging pieces, pawn pushes that would attack a piece,
//! king attacks on loose pieces, restricted squares, weak pieces under
//! attack, and the squares from which a piece would attack the lone enemy
//! queen.

use cozy_chess::{get_bishop_moves, get_knight_moves, get_rook_moves, BitBoard};

use super::context::{cnt, sign, sq, Attacks, Context};
use crate::eval::masks::{forward, pawn_attacks};
use crate::eval::sink::EvalSink;
use crate::eval::weights::{EvalWeights, IDX};

/// The enemy's strongholds for side `c`: squares the enemy holds by a pawn
/// or by more attackers than `c` has there.
#[inline(always)]
fn strong(ctx: &Context, c: usize, att: &[Attacks; 2]) -> u64 {
    ctx.pawn_att[1 - c] | (att[1 - c].twice & !att[c].twice)
}

/// Side `c`'s threats on the enemy, from both sides' attacks `att`.
#[inline(always)]
pub(super) fn threats<K: EvalSink>(
    ctx: &Context,
    w: &EvalWeights,
    c: usize,
    att: &[Attacks; 2],
    sink: &mut K,
) {
    let (us, them, a, d) = (&ctx.sides[c], &ctx.sides[1 - c], &att[c], &att[1 - c]);
    let (white, sign, occ) = (c == 0, sign(c), ctx.occ);
    let pawn_att = &ctx.pawn_att;
    let victims = [them.knights, them.bishops, them.rooks, them.queens];
    for (i, v) in victims.into_iter().enumerate() {
        let n = cnt(pawn_att[c] & v);
        if n != 0 {
            sink.add(IDX.threat_by_pawn + i, w.threat_by_pawn[i], sign * n);
        }
    }
    let minor = a.by[0] | a.by[1];
    for (i, v) in [them.rooks, them.queens].into_iter().enumerate() {
        let n = cnt(minor & v);
        if n != 0 {
            sink.add(IDX.threat_by_minor + i, w.threat_by_minor[i], sign * n);
        }
    }
    let n = cnt(a.by[2] & them.queens);
    if n != 0 {
        sink.add(IDX.threat_rook_on_queen, w.threat_rook_on_queen, sign * n);
    }
    let pieces = them.knights | them.bishops | them.rooks | them.queens;
    let n = cnt(a.all & pieces & !d.all);
    if n != 0 {
        sink.add(IDX.threat_hanging, w.threat_hanging, sign * n);
    }
    // Pawn pushes (single, or double from the start) to a square no enemy
    // pawn attacks and the enemy does not hold alone, from which the pawn
    // would attack a piece: a threat one move away.
    let third: u64 = if white { 0xFF << 16 } else { 0xFF << 40 };
    let single = forward(us.pawns, white) & !occ;
    let double = forward(single & third, white) & !occ;
    let pushes = (single | double) & !pawn_att[1 - c] & (a.all | !d.all);
    let n = cnt(pawn_attacks(pushes, white) & pieces);
    if n != 0 {
        sink.add(IDX.threat_pawn_push, w.threat_pawn_push, sign * n);
    }
    let loose = them.all & !(1 << them.king) & !d.all;
    if ctx.king_att[c] & loose != 0 {
        sink.add(IDX.threat_by_king, w.threat_by_king, sign);
    }
    let strong = strong(ctx, c, att);
    let n = cnt(a.all & d.all & !strong);
    if n != 0 {
        sink.add(IDX.threat_restricted, w.threat_restricted, sign * n);
    }
    let weak = them.all & !(1 << them.king) & a.all & !strong;
    let minor_victims = [weak & them.pawns, them.knights, them.bishops];
    for (i, v) in minor_victims.into_iter().enumerate() {
        let n = cnt(v & minor);
        if n != 0 {
            sink.add(
                IDX.threat_minor_on_minor + i,
                w.threat_minor_on_minor[i],
                sign * n,
            );
        }
    }
    let rook_victims = [them.pawns, them.knights, them.bishops, them.rooks];
    for (i, v) in rook_victims.into_iter().enumerate() {
        let n = cnt(v & weak & a.by[2]);
        if n != 0 {
            sink.add(IDX.threat_by_rook + i, w.threat_by_rook[i], sign * n);
        }
    }
    let n = cnt(weak & d.by[3]);
    if n != 0 {
        sink.add(
            IDX.threat_weak_queen_protection,
            w.threat_weak_queen_protection,
            sign * n,
        );
    }
    queen_threats(ctx, w, c, a, strong, sink);
}

/// Squares from which side `c`'s pieces would attack the lone enemy queen,
/// safe from pawns and enemy strongholds (`strong`); twice as much without
/// a queen of `c`'s own.
#[inline(always)]
fn queen_threats<K: EvalSink>(
    ctx: &Context,
    w: &EvalWeights,
    c: usize,
    a: &Attacks,
    strong: u64,
    sink: &mut K,
) {
    let (us, them, sign, occ) = (&ctx.sides[c], &ctx.sides[1 - c], sign(c), ctx.occ);
    if cnt(them.queens) != 1 {
        return;
    }
    let q = sq(them.queens.trailing_zeros() as usize);
    let safe = !(us.pawns | 1 << us.king) & !strong;
    let imbalance = 1 + (us.queens == 0) as i32;
    let n = cnt(get_knight_moves(q).0 & a.by[0] & safe);
    if n != 0 {
        sink.add(
            IDX.threat_knight_on_queen,
            w.threat_knight_on_queen,
            sign * n * imbalance,
        );
    }
    let sliders = (get_bishop_moves(q, BitBoard(occ)).0 & a.by[1])
        | (get_rook_moves(q, BitBoard(occ)).0 & a.by[2]);
    let n = cnt(sliders & safe & a.twice);
    if n != 0 {
        sink.add(
            IDX.threat_slider_on_queen,
            w.threat_slider_on_queen,
            sign * n * imbalance,
        );
    }
}
