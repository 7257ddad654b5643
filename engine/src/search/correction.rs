//! Static-evaluation correction history: how far the searches of positions
//! with the same pawn structure and side to move have landed from their
//! static eval, kept as a running average and added to the next static eval
//! of that structure. A hand-written evaluation misjudges some structures
//! the same way every time (a blocked chain, a pawn storm); the search finds
//! out, and the pruning that compares static evals with bounds (reverse
//! futility, null move, razoring, futility) then starts from a better guess.
//! Introduced by Ethereal and Stockfish (2023); keyed here by pawns alone.

use cozy_chess::{Board, Color, Piece};

use crate::eval::pawn_hash;

/// Entries per side; a power of two so the index is a shift.
const ENTRIES: usize = 1 << 14;
/// Entries hold centipawns times this, so small updates are not lost.
const GRAIN: i32 = 256;
/// The weights of one update are out of this many.
const WEIGHT_SCALE: i32 = 256;
/// Deep searches say more: weight `depth + 1` plies, at most this.
const MAX_WEIGHT: i32 = 16;

/// Running averages of (search score - static eval) by pawn structure and
/// side to move, in centipawns times `GRAIN` (256).
pub struct CorrectionHistory {
    table: Vec<i32>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl CorrectionHistory {
    /// Every correction zero.
    pub fn new() -> Self {
        CorrectionHistory {
            table: vec![0; 2 * ENTRIES],
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.table.fill(0);
    }

    fn index(board: &Board) -> usize {
        let pawns = board.pieces(Piece::Pawn);
        let h = pawn_hash([
            (pawns & board.colors(Color::White)).0,
            (pawns & board.colors(Color::Black)).0,
        ]);
        let slot = (h >> (64 - ENTRIES.trailing_zeros())) as usize;
        board.side_to_move() as usize * ENTRIES + slot
    }

    /// The correction (centipawns, side to move's view) for `board`.
    pub fn get(&self, board: &Board) -> i32 {
        self.table[Self::index(board)] / GRAIN
    }

    /// Move `board`'s entry towards `error` (search score minus the raw
    /// static eval, cp), more for deeper searches (`depth` in plies);
    /// entries stay within `max_cp`.
    pub fn update(&mut self, board: &Board, error: i32, depth: i32, max_cp: i32) {
        let weight = (depth + 1).clamp(1, MAX_WEIGHT);
        let e = &mut self.table[Self::index(board)];
        let target = error.clamp(-max_cp, max_cp) * GRAIN;
        let blended = (*e as i64 * (WEIGHT_SCALE - weight) as i64 + target as i64 * weight as i64)
            / WEIGHT_SCALE as i64;
        *e = (blended as i32).clamp(-max_cp * GRAIN, max_cp * GRAIN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_error_is_learned_and_bounded() {
        let mut ch = CorrectionHistory::new();
        let b = Board::default();
        assert_eq!(ch.get(&b), 0);
        // The search keeps finding the position 40 cp better than the
        // corrected eval says: the correction grows towards it.
        for _ in 0..200 {
            ch.update(&b, 40, 10, 64);
        }
        assert!((38..=40).contains(&ch.get(&b)), "{}", ch.get(&b));
        // A shallow search moves it less than a deep one.
        let mut shallow = CorrectionHistory::new();
        let mut deep = CorrectionHistory::new();
        shallow.update(&b, 40, 1, 64);
        deep.update(&b, 40, 12, 64);
        assert!(0 < shallow.table[CorrectionHistory::index(&b)]);
        assert!(
            shallow.table[CorrectionHistory::index(&b)] < deep.table[CorrectionHistory::index(&b)]
        );
        // Huge differences are clamped to the bound: the entry approaches
        // it and never passes it.
        for _ in 0..200 {
            ch.update(&b, 10_000, 20, 64);
            assert!(ch.get(&b) <= 64);
        }
        assert!(ch.get(&b) >= 63, "{}", ch.get(&b));
        for _ in 0..200 {
            ch.update(&b, -10_000, 20, 64);
            assert!(ch.get(&b) >= -64);
        }
        assert!(ch.get(&b) <= -63, "{}", ch.get(&b));
    }

    #[test]
    fn entries_are_per_side_and_per_pawn_structure() {
        let mut ch = CorrectionHistory::new();
        let start = Board::default();
        ch.update(&start, 100, 15, 64);
        assert!(ch.get(&start) > 0);
        // Same pawns, other side to move.
        let black: Board = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
            .parse()
            .unwrap();
        assert_eq!(ch.get(&black), 0);
        // Same side to move, a pawn moved.
        let moved: Board = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
            .parse()
            .unwrap();
        assert_eq!(ch.get(&moved), 0);
        // Same side and pawns, pieces elsewhere: the same entry.
        let knights: Board = "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2"
            .parse()
            .unwrap();
        assert_eq!(ch.get(&knights), ch.get(&start));
        ch.clear();
        assert_eq!(ch.get(&start), 0);
    }
}
