//! Material: the piece values, the bishop pair, and the material imbalance
//! (Kaufman; Stockfish's classical `imbalance`), products of piece counts.
//! The imbalance depends on the counts alone, so the sink may answer it
//! from a cache ([`EvalSink::material`]).

use super::context::{cnt, sign, Context};
use crate::eval::sink::EvalSink;
use crate::eval::weights::{EvalWeights, IDX};

/// Piece counts indexed bishop pair (0 or 1), pawn, knight, bishop, rook,
/// queen. `IMBALANCE_OURS[k] = (i, j)`: weight `imbalance_ours[k]` counts
/// own pieces of kinds `i` and `j` together (the product of their counts);
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

/// The imbalance terms, White's products minus Black's.
#[inline(always)]
pub(super) fn imbalance<K: EvalSink>(ctx: &Context, w: &EvalWeights, sink: &mut K) {
    let counts = ctx.sides.each_ref().map(|s| {
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
}

/// Side `c`'s piece values and bishop pair.
#[inline(always)]
pub(super) fn material<K: EvalSink>(ctx: &Context, w: &EvalWeights, c: usize, sink: &mut K) {
    let us = &ctx.sides[c];
    let sign = sign(c);
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
}
