//! Pawn structure: the pawn square table, doubled, isolated, backward,
//! weak unopposed, blocked, phalanx and supported pawns, and the passed
//! pawns by rank. A function of the two sides' pawns alone, so the sink
//! may answer it from a cache ([`EvalSink::pawn_structure`]); the passed
//! pawns it finds feed the passed-pawn terms that depend on more.

use super::context::{bits, Context};
use crate::eval::masks::{ADJACENT_FILES, FRONT, PASSED_SPAN, RANKS_AHEAD};
use crate::eval::sink::EvalSink;
use crate::eval::weights::{EvalWeights, IDX};

/// Report the pawn-structure terms to `sink`; returns the passed pawns
/// (White's, Black's).
#[inline(always)]
pub(super) fn structure<K: EvalSink>(ctx: &Context, w: &EvalWeights, sink: &mut K) -> [u64; 2] {
    let pawn_att = ctx.pawn_att;
    let pawns = [ctx.sides[0].pawns, ctx.sides[1].pawns];
    sink.pawn_structure(pawns, |sink| {
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
    })
}
