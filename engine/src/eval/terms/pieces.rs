//! The pieces (knights, bishops, rooks, queens): square tables, mobility by
//! safe squares, outposts, minor pieces behind pawns and far from their
//! king, bishop pawns and diagonals, rooks and queens on open files, the
//! seventh rank, sliders aimed at the king ring, queen infiltration. While
//! scoring them it gathers side's [`Attacks`] for the threat and
//! king-danger terms.

use cozy_chess::{get_bishop_moves, get_knight_moves, get_rook_moves, BitBoard, Color};

use super::context::{bits, cnt, sign, sq, Attacks, Context, Side, DARK_SQUARES};
use crate::eval::masks::{distance, file_bb, forward, pawn_double_attacks, ATTACK_SPAN, CENTRE};
use crate::eval::sink::EvalSink;
use crate::eval::weights::{EvalWeights, IDX};

/// What the terms of one side's pieces share.
struct PieceView<'c> {
    c: usize,
    white: bool,
    sign: i32,
    us: &'c Side,
    them: &'c Side,
    occ: u64,
    /// Mobility counts these squares: not own pawns or king, not attacked
    /// by enemy pawns.
    area: u64,
    /// Ranks 4 to 6 from this side.
    outpost_ranks: u64,
    own_pawn_att: u64,
    /// The enemy king zone.
    zone: u64,
    all_pawns: u64,
}

impl PieceView<'_> {
    /// Square index as seen from White (Black's board flipped by ranks).
    #[inline(always)]
    fn rel(&self, s: usize) -> usize {
        if self.white {
            s
        } else {
            s ^ 56
        }
    }

    /// A square on ranks 4-6 an own pawn defends and no enemy pawn can
    /// ever attack.
    #[inline(always)]
    fn outpost(&self, t: usize) -> bool {
        1u64 << t & self.outpost_ranks & self.own_pawn_att != 0
            && self.them.pawns & ATTACK_SPAN[self.c][t] == 0
    }

    /// Terms shared by knights and bishops: a pawn in front shields a
    /// minor from frontal attacks and blocks the file for the enemy's
    /// rooks; a minor far from its king does not defend it.
    #[inline(always)]
    fn minor_terms<K: EvalSink>(&self, w: &EvalWeights, sink: &mut K, s: usize) {
        if forward(1 << s, self.white) & self.all_pawns != 0 {
            sink.add(IDX.minor_behind_pawn, w.minor_behind_pawn, self.sign);
        }
        let d = distance(s, self.us.king) as i32;
        sink.add(IDX.king_protector, w.king_protector, self.sign * d);
    }

    /// Add one piece's `attacks` (of `kind`: N, B, R, Q) to `a`.
    #[inline(always)]
    fn note_attacks(&self, a: &mut Attacks, kind: usize, attacks: u64) {
        a.twice |= a.all & attacks;
        a.all |= attacks;
        a.by[kind] |= attacks;
        if attacks & self.zone != 0 {
            a.king_attackers[kind] += 1;
            a.king_zone_attacks += cnt(attacks & self.zone);
        }
    }
}

/// Side `c`'s piece terms; fills `a` with its attacks (pawns and king
/// included).
#[inline(always)]
pub(super) fn pieces<K: EvalSink>(
    ctx: &Context,
    w: &EvalWeights,
    c: usize,
    a: &mut Attacks,
    sink: &mut K,
) {
    let (us, them) = (&ctx.sides[c], &ctx.sides[1 - c]);
    let white = c == 0;
    let v = PieceView {
        c,
        white,
        sign: sign(c),
        us,
        them,
        occ: ctx.occ,
        area: !(us.pawns | 1 << us.king | ctx.pawn_att[1 - c]),
        outpost_ranks: if white {
            0x0000_FFFF_FF00_0000
        } else {
            0x0000_00FF_FFFF_0000
        },
        own_pawn_att: ctx.pawn_att[c],
        zone: ctx.king_zone[1 - c],
        all_pawns: us.pawns | them.pawns,
    };
    a.all = ctx.pawn_att[c] | ctx.king_att[c];
    a.twice = pawn_double_attacks(us.pawns, white) | (ctx.pawn_att[c] & ctx.king_att[c]);
    knights(&v, w, a, sink);
    bishops(&v, w, a, sink);
    rooks(ctx, &v, w, a, sink);
    queens(&v, w, a, sink);
}

#[inline(always)]
fn knights<K: EvalSink>(v: &PieceView, w: &EvalWeights, a: &mut Attacks, sink: &mut K) {
    let sign = v.sign;
    for s in bits(v.us.knights) {
        let i = v.rel(s);
        sink.add(IDX.psqt_knight + i, w.psqt_knight[i], sign);
        let attacks = get_knight_moves(sq(s)).0;
        let m = cnt(attacks & v.area) as usize;
        sink.add(IDX.mobility_knight + m, w.mobility_knight[m], sign);
        a.mobility += m as i32;
        if v.outpost(s) {
            sink.add(IDX.knight_outpost, w.knight_outpost, sign);
        } else if bits(attacks & v.outpost_ranks & v.own_pawn_att & !v.us.all).any(|t| v.outpost(t))
        {
            sink.add(
                IDX.knight_reachable_outpost,
                w.knight_reachable_outpost,
                sign,
            );
        }
        v.minor_terms(w, sink, s);
        v.note_attacks(a, 0, attacks);
    }
}

#[inline(always)]
fn bishops<K: EvalSink>(v: &PieceView, w: &EvalWeights, a: &mut Attacks, sink: &mut K) {
    let sign = v.sign;
    for s in bits(v.us.bishops) {
        let i = v.rel(s);
        sink.add(IDX.psqt_bishop + i, w.psqt_bishop[i], sign);
        let attacks = get_bishop_moves(sq(s), BitBoard(v.occ)).0;
        let m = cnt(attacks & v.area) as usize;
        sink.add(IDX.mobility_bishop + m, w.mobility_bishop[m], sign);
        a.mobility += m as i32;
        if v.outpost(s) {
            sink.add(IDX.bishop_outpost, w.bishop_outpost, sign);
        }
        v.minor_terms(w, sink, s);
        // Own pawns on the bishop's colour restrict it.
        let colour = if DARK_SQUARES & 1 << s != 0 {
            DARK_SQUARES
        } else {
            !DARK_SQUARES
        };
        let n = cnt(v.us.pawns & colour);
        if n != 0 {
            sink.add(IDX.bishop_pawns, w.bishop_pawns, sign * n);
        }
        let through_pawns = get_bishop_moves(sq(s), BitBoard(v.all_pawns)).0;
        if cnt(through_pawns & CENTRE) > 1 {
            sink.add(IDX.bishop_long_diagonal, w.bishop_long_diagonal, sign);
        }
        if attacks & v.zone == 0 && through_pawns & v.zone != 0 {
            sink.add(IDX.slider_on_king_ring, w.slider_on_king_ring[0], sign);
        }
        let n = cnt(get_bishop_moves(sq(s), BitBoard::EMPTY).0 & v.them.pawns);
        if n != 0 {
            sink.add(IDX.bishop_xray_pawns, w.bishop_xray_pawns, sign * n);
        }
        v.note_attacks(a, 1, attacks);
    }
}

#[inline(always)]
fn rooks<K: EvalSink>(
    ctx: &Context,
    v: &PieceView,
    w: &EvalWeights,
    a: &mut Attacks,
    sink: &mut K,
) {
    let (us, them, sign) = (v.us, v.them, v.sign);
    let (seventh, eighth) = if v.white { (6, 7) } else { (1, 0) };
    let seventh_matters = them.king / 8 == eighth || them.pawns & (0xFF << (8 * seventh)) != 0;
    for s in bits(us.rooks) {
        let i = v.rel(s);
        sink.add(IDX.psqt_rook + i, w.psqt_rook[i], sign);
        let attacks = get_rook_moves(sq(s), BitBoard(v.occ)).0;
        let m = cnt(attacks & v.area) as usize;
        sink.add(IDX.mobility_rook + m, w.mobility_rook[m], sign);
        a.mobility += m as i32;
        let file = file_bb(s % 8);
        if (us.pawns | them.pawns) & file == 0 {
            sink.add(IDX.rook_open_file, w.rook_open_file, sign);
        } else if us.pawns & file == 0 {
            sink.add(IDX.rook_half_open_file, w.rook_half_open_file, sign);
        } else if m <= 3 {
            // Shut in by its own king on the corner's side; worse when
            // castling can no longer free it.
            let kf = us.king % 8;
            if (kf < 4) == (s % 8 < kf) {
                let rights =
                    ctx.board
                        .castle_rights(if v.white { Color::White } else { Color::Black });
                let stuck = rights.short.is_none() && rights.long.is_none();
                sink.add(IDX.rook_trapped, w.rook_trapped, sign * (1 + stuck as i32));
            }
        }
        if file & (us.queens | them.queens) != 0 {
            sink.add(IDX.rook_on_queen_file, w.rook_on_queen_file, sign);
        }
        if attacks & v.zone == 0 && file & v.zone != 0 {
            sink.add(IDX.slider_on_king_ring + 1, w.slider_on_king_ring[1], sign);
        }
        if s / 8 == seventh && seventh_matters {
            sink.add(IDX.rook_on_seventh, w.rook_on_seventh, sign);
        }
        v.note_attacks(a, 2, attacks);
    }
}

#[inline(always)]
fn queens<K: EvalSink>(v: &PieceView, w: &EvalWeights, a: &mut Attacks, sink: &mut K) {
    let (us, them, sign) = (v.us, v.them, v.sign);
    for s in bits(us.queens) {
        let i = v.rel(s);
        sink.add(IDX.psqt_queen + i, w.psqt_queen[i], sign);
        let attacks =
            get_rook_moves(sq(s), BitBoard(v.occ)).0 | get_bishop_moves(sq(s), BitBoard(v.occ)).0;
        let m = cnt(attacks & v.area) as usize;
        sink.add(IDX.mobility_queen + m, w.mobility_queen[m], sign);
        a.mobility += m as i32;
        let file = file_bb(s % 8);
        if (us.pawns | them.pawns) & file == 0 {
            sink.add(IDX.queen_open_file, w.queen_open_file, sign);
        } else if us.pawns & file == 0 {
            sink.add(IDX.queen_half_open_file, w.queen_half_open_file, sign);
        }
        let rel_rank = if v.white { s / 8 } else { 7 - s / 8 };
        if rel_rank >= 4 && them.pawns & ATTACK_SPAN[v.c][s] == 0 {
            sink.add(IDX.queen_infiltration, w.queen_infiltration, sign);
        }
        v.note_attacks(a, 3, attacks);
    }
}
