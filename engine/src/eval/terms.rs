//! The evaluation terms, written once. Each term calls the sink with its
//! weight, the weight's flat index and a coefficient (+ for White, - for
//! Black), so [`super::evaluate`] and [`super::trace`] share this code.
//! Relies on cozy-chess for piece attacks and on [`super::masks`].

use cozy_chess::{
    get_between_rays, get_bishop_moves, get_king_moves, get_knight_moves, get_rook_moves, BitBoard,
    Board, Color, Piece, Square,
};

use super::masks::{
    distance, file_bb, forward, pawn_attacks, pawn_double_attacks, ADJACENT_FILES, ATTACK_SPAN,
    CAMP, CENTRE, FRONT, KING_FLANK, PASSED_SPAN, QUEEN_SIDE, RANKS_AHEAD, SPACE_MASK,
};
use super::weights::{EvalWeights, IDX, S};
use super::{king_danger_penalty, EvalSink, MAX_PHASE, SCALE_ONE};

/// What the final tapering step needs besides the summed terms.
pub(crate) struct Shape {
    pub phase: i32,
    /// Endgame scale (out of [`SCALE_ONE`]) if White, resp. Black, is ahead.
    pub eg_scale: [i32; 2],
}

/// One side's pieces as raw bitboards.
struct Side {
    pawns: u64,
    knights: u64,
    bishops: u64,
    rooks: u64,
    queens: u64,
    all: u64,
    king: usize,
}

impl Side {
    fn new(board: &Board, c: Color) -> Side {
        let p = |piece| board.colored_pieces(c, piece).0;
        Side {
            pawns: p(Piece::Pawn),
            knights: p(Piece::Knight),
            bishops: p(Piece::Bishop),
            rooks: p(Piece::Rook),
            queens: p(Piece::Queen),
            all: board.colors(c).0,
            king: board.king(c) as usize,
        }
    }

    /// Non-pawn material in pawn units (N = B = 3, R = 5, Q = 9).
    fn minor_major_units(&self) -> i32 {
        3 * cnt(self.knights | self.bishops) + 5 * cnt(self.rooks) + 9 * cnt(self.queens)
    }
}

#[inline(always)]
fn cnt(b: u64) -> i32 {
    b.count_ones() as i32
}

#[inline(always)]
fn bits(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let sq = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(sq)
        }
    })
}

#[inline(always)]
fn sq(i: usize) -> Square {
    Square::index(i)
}

const DARK_SQUARES: u64 = BitBoard::DARK_SQUARES.0;

/// Non-pawn material of both sides, in pawn units, from which space counts
/// (of 62 at the start: about the queens or two rooks off).
const SPACE_UNITS: i32 = 46;

/// Attack sets by piece kind gathered while scoring the pieces; the threat
/// and king-danger terms need both sides' complete sets.
#[derive(Default)]
struct Attacks {
    /// Knight, bishop, rook, queen attacks.
    by: [u64; 4],
    all: u64,
    /// Squares attacked at least twice (pawns and king included).
    twice: u64,
    /// Pieces per kind (N, B, R, Q) attacking the enemy king zone.
    king_attackers: [i32; 4],
    /// Sum over those pieces of the king-zone squares they attack.
    king_zone_attacks: i32,
    /// Safe squares summed over the pieces (what the mobility terms count).
    mobility: i32,
}

/// Material imbalance (Kaufman; Stockfish's classical `imbalance`): piece
/// counts indexed bishop pair (0 or 1), pawn, knight, bishop, rook, queen.
/// `IMBALANCE_OURS[k] = (i, j)`: weight `imbalance_ours[k]` counts own
/// pieces of kinds `i` and `j` together (the product of their counts);
/// the squared pawn and pair counts are left out (a pawn's worth and
/// `bishop_pair` already are them).
const IMBALANCE_OURS: [(usize, usize); 19] = [
    (1, 0),
    (2, 0),
    (2, 1),
    (2, 2),
    (3, 0),
    (3, 1),
    (3, 2),
    (3, 3),
    (4, 0),
    (4, 1),
    (4, 2),
    (4, 3),
    (4, 4),
    (5, 0),
    (5, 1),
    (5, 2),
    (5, 3),
    (5, 4),
    (5, 5),
];

/// `IMBALANCE_THEIRS[k] = (i, j)`: own pieces of kind `i` against enemy
/// pieces of the lesser kind `j`.
const IMBALANCE_THEIRS: [(usize, usize); 15] = [
    (1, 0),
    (2, 0),
    (2, 1),
    (3, 0),
    (3, 1),
    (3, 2),
    (4, 0),
    (4, 1),
    (4, 2),
    (4, 3),
    (5, 0),
    (5, 1),
    (5, 2),
    (5, 3),
    (5, 4),
];

/// Both sides' counts of pawns, knights, bishops, rooks and queens, six
/// bits each (the bishop pair follows from the bishops): the imbalance
/// cache's key. Six bits hold any count up to 63, so keys of set-up
/// positions (15 queens, say) never collide either.
fn material_key(counts: &[[i32; 6]; 2]) -> u64 {
    counts
        .iter()
        .flat_map(|c| &c[1..])
        .fold(0, |key, &n| key << 6 | n as u64)
}

/// Evaluate all terms of `board` into `sink`. Always inlined, so that
/// [`super::evaluate_white`] compiles it with `popcnt`.
#[inline(always)]
pub(crate) fn evaluate_terms<K: EvalSink>(board: &Board, w: &EvalWeights, sink: &mut K) -> Shape {
    let sides = [
        Side::new(board, Color::White),
        Side::new(board, Color::Black),
    ];
    let occ = board.occupied().0;
    // Both sides' pieces in pawn units: the space term's phase and the
    // winnability sum's pawn ending.
    let non_pawn_units = sides[0].minor_major_units() + sides[1].minor_major_units();
    let pawn_att = [
        pawn_attacks(sides[0].pawns, true),
        pawn_attacks(sides[1].pawns, false),
    ];
    let king_att = [
        get_king_moves(sq(sides[0].king)).0,
        get_king_moves(sq(sides[1].king)).0,
    ];
    let king_zone = [
        king_att[0] | 1 << sides[0].king,
        king_att[1] | 1 << sides[1].king,
    ];
    let mut att = [Attacks::default(), Attacks::default()];

    // Pawns: square table and structure, a function of the pawns alone
    // (so the sink may answer it from a cache). Returns the passed pawns.
    let pawns = [sides[0].pawns, sides[1].pawns];
    let passed = sink.pawn_structure(pawns, |sink| {
        let mut passed = [0; 2];
        for c in 0..2 {
            let (us, them) = (pawns[c], pawns[1 - c]);
            let white = c == 0;
            let sign = if white { 1 } else { -1 };
            for s in bits(us) {
                let i = if white { s } else { s ^ 56 } - 8;
                sink.add(IDX.psqt_pawn + i, w.psqt_pawn[i], sign);
                let (file, rank) = (s % 8, s / 8);
                let rr = if white { rank } else { 7 - rank };
                let front = FRONT[c][s];
                let adjacent = ADJACENT_FILES[file] & us;
                let stop = if white { s + 8 } else { s - 8 };
                if us & front != 0 {
                    sink.add(IDX.pawn_doubled, w.pawn_doubled, sign);
                }
                // A weak pawn on a half-open file is a target for rooks.
                let unopposed = them & front == 0;
                if adjacent == 0 {
                    sink.add(IDX.pawn_isolated, w.pawn_isolated, sign);
                    if unopposed {
                        sink.add(IDX.pawn_weak_unopposed, w.pawn_weak_unopposed, sign);
                    }
                } else {
                    let behind_or_level = adjacent & !RANKS_AHEAD[c][rank];
                    if behind_or_level == 0 && pawn_att[1 - c] & (1 << stop) != 0 {
                        sink.add(IDX.pawn_backward, w.pawn_backward, sign);
                        if unopposed {
                            sink.add(IDX.pawn_weak_unopposed, w.pawn_weak_unopposed, sign);
                        }
                    }
                }
                if rr >= 4 && them & (1 << stop) != 0 {
                    let i = rr - 4;
                    sink.add(IDX.pawn_blocked + i, w.pawn_blocked[i], sign);
                }
                if adjacent & (0xFF << (8 * rank)) != 0 {
                    let i = rr - 1;
                    sink.add(IDX.pawn_phalanx + i, w.pawn_phalanx[i], sign);
                }
                if pawn_att[c] & (1 << s) != 0 {
                    let i = rr - 2;
                    sink.add(IDX.pawn_supported + i, w.pawn_supported[i], sign);
                }
                if them & PASSED_SPAN[c][s] == 0 && us & front == 0 {
                    passed[c] |= 1 << s;
                    let i = rr - 1;
                    sink.add(IDX.passed_pawn + i, w.passed_pawn[i], sign);
                }
            }
        }
        passed
    });

    // Material imbalance: products of piece counts, White's minus Black's.
    let counts = sides.each_ref().map(|s| {
        [
            (cnt(s.bishops) >= 2) as i32,
            cnt(s.pawns),
            cnt(s.knights),
            cnt(s.bishops),
            cnt(s.rooks),
            cnt(s.queens),
        ]
    });
    sink.material(material_key(&counts), |sink| {
        let [wc, bc] = &counts;
        for (k, &(i, j)) in IMBALANCE_OURS.iter().enumerate() {
            let coef = wc[i] * wc[j] - bc[i] * bc[j];
            if coef != 0 {
                sink.add(IDX.imbalance_ours + k, w.imbalance_ours[k], coef);
            }
        }
        for (k, &(i, j)) in IMBALANCE_THEIRS.iter().enumerate() {
            let coef = wc[i] * bc[j] - bc[i] * wc[j];
            if coef != 0 {
                sink.add(IDX.imbalance_theirs + k, w.imbalance_theirs[k], coef);
            }
        }
    });

    for c in 0..2 {
        let (us, them) = (&sides[c], &sides[1 - c]);
        let white = c == 0;
        let sign = if white { 1 } else { -1 };
        // Square index as seen from White (Black's board flipped by ranks).
        let rel = |s: usize| if white { s } else { s ^ 56 };
        let rel_rank = |s: usize| if white { s / 8 } else { 7 - s / 8 };

        // Material.
        sink.add(IDX.material_pawn, w.material_pawn, sign * cnt(us.pawns));
        sink.add(
            IDX.material_knight,
            w.material_knight,
            sign * cnt(us.knights),
        );
        sink.add(
            IDX.material_bishop,
            w.material_bishop,
            sign * cnt(us.bishops),
        );
        sink.add(IDX.material_rook, w.material_rook, sign * cnt(us.rooks));
        sink.add(IDX.material_queen, w.material_queen, sign * cnt(us.queens));
        if cnt(us.bishops) >= 2 {
            sink.add(IDX.bishop_pair, w.bishop_pair, sign);
        }

        // Passed pawns: the terms that depend on more than the pawns.
        for s in bits(passed[c]) {
            let i = rel_rank(s) - 1;
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

        // Pieces: square tables, mobility, files, outposts, king attacks.
        let area = !(us.pawns | 1 << us.king | pawn_att[1 - c]);
        let outpost_ranks = if white {
            0x0000_FFFF_FF00_0000
        } else {
            0x0000_00FF_FFFF_0000
        };
        // A square on ranks 4-6 an own pawn defends and no enemy pawn can
        // ever attack.
        let outpost = |t: usize| {
            1u64 << t & outpost_ranks & pawn_att[c] != 0 && them.pawns & ATTACK_SPAN[c][t] == 0
        };
        let a = &mut att[c];
        a.all = pawn_att[c] | king_att[c];
        a.twice = pawn_double_attacks(us.pawns, white) | (pawn_att[c] & king_att[c]);
        let zone = king_zone[1 - c];
        let all_pawns = us.pawns | them.pawns;
        // Terms shared by knights and bishops: a pawn in front shields a
        // minor from frontal attacks and blocks the file for the enemy's
        // rooks; a minor far from its king does not defend it.
        let minor_terms = |sink: &mut K, s: usize| {
            if forward(1 << s, white) & all_pawns != 0 {
                sink.add(IDX.minor_behind_pawn, w.minor_behind_pawn, sign);
            }
            let d = distance(s, us.king) as i32;
            sink.add(IDX.king_protector, w.king_protector, sign * d);
        };
        let note_attacks = |a: &mut Attacks, kind: usize, attacks: u64| {
            a.twice |= a.all & attacks;
            a.all |= attacks;
            a.by[kind] |= attacks;
            if attacks & zone != 0 {
                a.king_attackers[kind] += 1;
                a.king_zone_attacks += cnt(attacks & zone);
            }
        };
        for s in bits(us.knights) {
            let i = rel(s);
            sink.add(IDX.psqt_knight + i, w.psqt_knight[i], sign);
            let attacks = get_knight_moves(sq(s)).0;
            let m = cnt(attacks & area) as usize;
            sink.add(IDX.mobility_knight + m, w.mobility_knight[m], sign);
            a.mobility += m as i32;
            if outpost(s) {
                sink.add(IDX.knight_outpost, w.knight_outpost, sign);
            } else if bits(attacks & outpost_ranks & pawn_att[c] & !us.all).any(outpost) {
                sink.add(
                    IDX.knight_reachable_outpost,
                    w.knight_reachable_outpost,
                    sign,
                );
            }
            minor_terms(sink, s);
            note_attacks(a, 0, attacks);
        }
        for s in bits(us.bishops) {
            let i = rel(s);
            sink.add(IDX.psqt_bishop + i, w.psqt_bishop[i], sign);
            let attacks = get_bishop_moves(sq(s), BitBoard(occ)).0;
            let m = cnt(attacks & area) as usize;
            sink.add(IDX.mobility_bishop + m, w.mobility_bishop[m], sign);
            a.mobility += m as i32;
            if outpost(s) {
                sink.add(IDX.bishop_outpost, w.bishop_outpost, sign);
            }
            minor_terms(sink, s);
            // Own pawns on the bishop's colour restrict it.
            let colour = if DARK_SQUARES & 1 << s != 0 {
                DARK_SQUARES
            } else {
                !DARK_SQUARES
            };
            let n = cnt(us.pawns & colour);
            if n != 0 {
                sink.add(IDX.bishop_pawns, w.bishop_pawns, sign * n);
            }
            let through_pawns = get_bishop_moves(sq(s), BitBoard(all_pawns)).0;
            if cnt(through_pawns & CENTRE) > 1 {
                sink.add(IDX.bishop_long_diagonal, w.bishop_long_diagonal, sign);
            }
            if attacks & zone == 0 && through_pawns & zone != 0 {
                sink.add(IDX.slider_on_king_ring, w.slider_on_king_ring[0], sign);
            }
            let n = cnt(get_bishop_moves(sq(s), BitBoard::EMPTY).0 & them.pawns);
            if n != 0 {
                sink.add(IDX.bishop_xray_pawns, w.bishop_xray_pawns, sign * n);
            }
            note_attacks(a, 1, attacks);
        }
        let (seventh, eighth) = if white { (6, 7) } else { (1, 0) };
        let seventh_matters = them.king / 8 == eighth || them.pawns & (0xFF << (8 * seventh)) != 0;
        for s in bits(us.rooks) {
            let i = rel(s);
            sink.add(IDX.psqt_rook + i, w.psqt_rook[i], sign);
            let attacks = get_rook_moves(sq(s), BitBoard(occ)).0;
            let m = cnt(attacks & area) as usize;
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
                        board.castle_rights(if white { Color::White } else { Color::Black });
                    let stuck = rights.short.is_none() && rights.long.is_none();
                    sink.add(IDX.rook_trapped, w.rook_trapped, sign * (1 + stuck as i32));
                }
            }
            if file & (us.queens | them.queens) != 0 {
                sink.add(IDX.rook_on_queen_file, w.rook_on_queen_file, sign);
            }
            if attacks & zone == 0 && file & zone != 0 {
                sink.add(IDX.slider_on_king_ring + 1, w.slider_on_king_ring[1], sign);
            }
            if s / 8 == seventh && seventh_matters {
                sink.add(IDX.rook_on_seventh, w.rook_on_seventh, sign);
            }
            note_attacks(a, 2, attacks);
        }
        for s in bits(us.queens) {
            let i = rel(s);
            sink.add(IDX.psqt_queen + i, w.psqt_queen[i], sign);
            let attacks =
                get_rook_moves(sq(s), BitBoard(occ)).0 | get_bishop_moves(sq(s), BitBoard(occ)).0;
            let m = cnt(attacks & area) as usize;
            sink.add(IDX.mobility_queen + m, w.mobility_queen[m], sign);
            a.mobility += m as i32;
            let file = file_bb(s % 8);
            if (us.pawns | them.pawns) & file == 0 {
                sink.add(IDX.queen_open_file, w.queen_open_file, sign);
            } else if us.pawns & file == 0 {
                sink.add(IDX.queen_half_open_file, w.queen_half_open_file, sign);
            }
            if rel_rank(s) >= 4 && them.pawns & ATTACK_SPAN[c][s] == 0 {
                sink.add(IDX.queen_infiltration, w.queen_infiltration, sign);
            }
            note_attacks(a, 3, attacks);
        }

        // King: square table and pawn shelter on its file and the two beside
        // it (shifted inward on the edge, so always three files).
        let k = us.king;
        let i = rel(k);
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
        if all_pawns & KING_FLANK[k % 8] == 0 {
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

    // Threats, from the attacker's side.
    let space_phase = non_pawn_units >= SPACE_UNITS;
    let blocked = 2 * cnt(forward(sides[0].pawns, true) & sides[1].pawns);
    for c in 0..2 {
        let (us, them, a, d) = (&sides[c], &sides[1 - c], &att[c], &att[1 - c]);
        let white = c == 0;
        let sign = if white { 1 } else { -1 };
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
        // Pawn pushes (single, or double from the start) to a square no
        // enemy pawn attacks and the enemy does not hold alone, from which
        // the pawn would attack a piece: a threat one move away.
        let third: u64 = if white { 0xFF << 16 } else { 0xFF << 40 };
        let single = forward(us.pawns, white) & !occ;
        let double = forward(single & third, white) & !occ;
        let pushes = (single | double) & !pawn_att[1 - c] & (a.all | !d.all);
        let n = cnt(pawn_attacks(pushes, white) & pieces);
        if n != 0 {
            sink.add(IDX.threat_pawn_push, w.threat_pawn_push, sign * n);
        }
        let loose = them.all & !(1 << them.king) & !d.all;
        if king_att[c] & loose != 0 {
            sink.add(IDX.threat_by_king, w.threat_by_king, sign);
        }
        // Squares the enemy holds by a pawn or by more attackers than ours.
        let strong = pawn_att[1 - c] | (d.twice & !a.twice);
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
        // Squares from which a piece would attack the lone enemy queen.
        if cnt(them.queens) == 1 {
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
        // Space while enough pieces remain to use it: safe centre squares
        // on the own side, twice if behind the pawns, weighted by the piece
        // count and the blocked pawns.
        if space_phase {
            let safe = SPACE_MASK[c] & !us.pawns & !pawn_att[1 - c];
            let behind = forward(us.pawns, !white);
            let behind =
                behind | forward(behind, !white) | forward(forward(behind, !white), !white);
            let bonus = cnt(safe) + cnt(behind & safe & !d.all);
            let weight = (cnt(us.all) - 3 + blocked.min(9)).max(0);
            let n = bonus * weight * weight / 64;
            if n != 0 {
                sink.add(IDX.space, w.space, sign * n);
            }
        }
    }

    // Passed pawns against the enemy's attacks, which needs both sides'
    // complete maps: a pawn whose path nothing covers walks in; one whose
    // stop square alone is safe still makes its next step. An enemy rook or
    // queen behind the pawn on its file covers the whole path (x-ray).
    for c in 0..2 {
        let white = c == 0;
        let sign = if white { 1 } else { -1 };
        let them = &sides[1 - c];
        for s in bits(passed[c]) {
            let stop = if white { s + 8 } else { s - 8 };
            if occ & 1 << stop != 0 {
                continue;
            }
            let path = FRONT[c][s];
            let behind = FRONT[1 - c][s] & (them.rooks | them.queens);
            let x_ray = behind != 0 && get_rook_moves(sq(s), BitBoard(occ)).0 & behind != 0;
            let covered = if x_ray { path } else { path & att[1 - c].all };
            let i = if white { s / 8 } else { 7 - s / 8 } - 1;
            if covered == 0 {
                sink.add(IDX.passed_safe_path + i, w.passed_safe_path[i], sign);
            } else if covered & 1 << stop == 0 {
                // Never on the seventh rank, whose path is the stop square.
                sink.add(IDX.passed_safe_stop + i, w.passed_safe_stop[i], sign);
            }
        }
    }

    // King danger (non-linear): only once enough pieces join the attack.
    for k in 0..2 {
        let (def, atk) = (&sides[k], &sides[1 - k]);
        let (da, aa) = (&att[k], &att[1 - k]);
        let attackers: i32 = aa.king_attackers.iter().sum();
        let has_queen = atk.queens != 0;
        if attackers <= 1 - has_queen as i32 {
            continue;
        }
        let king = if k == 0 { Color::White } else { Color::Black };
        let mut d = S(0, 0);
        let mut danger = |idx: usize, weight: S, coef: i32| {
            if coef != 0 {
                d += weight * coef;
                sink.add_danger(king, idx, coef);
            }
        };
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
        let solid = pawn_att[k] | da.by[0] | da.by[1] | da.by[2];
        let weak = king_zone[k] & aa.all & !solid;
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
            (da.by[0] & king_att[k] != 0) as i32,
        );
        danger(
            IDX.king_danger_no_queen,
            w.king_danger_no_queen,
            !has_queen as i32,
        );
        danger(IDX.king_danger_base, w.king_danger_base, 1);
        let penalty = king_danger_penalty(d);
        sink.add_nonlinear(if k == 0 { penalty } else { -penalty });
    }

    // Winnability (Stockfish's `Evaluation::winnable`): what makes an
    // advantage convertible; one sum for both sides, applied to the total.
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
        (non_pawn_units == 0) as i32,
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

    let stm = if board.side_to_move() == Color::White {
        1
    } else {
        -1
    };
    sink.add(IDX.tempo, w.tempo, stm);

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
