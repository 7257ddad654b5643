//! The history tables the search learns from its cutoffs and fail lows,
//! kept between searches until `new_game` ([`Heuristics`]): butterfly
//! history, continuation history, capture history, killers, countermoves
//! and the static-eval correction history ([`super::correction`]). The move
//! picker ([`super::movepick`]) reads them to order moves; the search's
//! `stats` updates them.

use cozy_chess::{Color, Move, Piece, Square};

use super::correction::CorrectionHistory;
use super::types::MAX_PLY;

/// Quiet-move ordering state kept between searches until `new_game`.
pub struct Heuristics {
    /// Butterfly history, indexed by [`Heuristics::hist_index`].
    history: Vec<i32>,
    /// Killer moves per ply, most recent first.
    pub killers: [[Option<Move>; 4]; MAX_PLY + 2],
    /// Countermove per (side, piece, destination) of the previous move.
    counter: Vec<Option<Move>>,
    /// Continuation history: how well a quiet (piece, destination) did
    /// after an earlier move (mover, piece, destination), one and two plies
    /// back sharing the table. Indexed by [`Heuristics::cont_index`].
    cont: Vec<i32>,
    /// Capture history: how well a capture by (side, piece) to a square of
    /// a captured piece kind did. Indexed by [`Heuristics::capture_index`].
    captures: Vec<i32>,
    /// Static-eval corrections by pawn structure: learned by the search
    /// like the tables above and forgotten with them.
    pub correction: CorrectionHistory,
}

/// An earlier move of the search path as continuation history keys it: the
/// side that made it, the piece and its destination.
pub type ContKey = (Color, Piece, Square);

impl Heuristics {
    /// Empty tables.
    pub fn new() -> Self {
        Heuristics {
            history: vec![0; 2 * 64 * 64],
            killers: [[None; 4]; MAX_PLY + 2],
            counter: vec![None; 2 * 6 * 64],
            cont: vec![0; 2 * 6 * 64 * 6 * 64],
            captures: vec![0; 2 * 6 * 64 * 6],
            correction: CorrectionHistory::new(),
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.history.fill(0);
        self.killers = [[None; 4]; MAX_PLY + 2];
        self.counter.fill(None);
        self.cont.fill(0);
        self.captures.fill(0);
        self.correction.clear();
    }

    fn hist_index(side: Color, mv: Move) -> usize {
        side as usize * 4096 + mv.from as usize * 64 + mv.to as usize
    }

    /// History score of a quiet move.
    pub fn history(&self, side: Color, mv: Move) -> i32 {
        self.history[Self::hist_index(side, mv)]
    }

    /// Reward (`bonus > 0`) or punish a quiet move; values saturate towards
    /// `max` ("history gravity"), so old information fades.
    pub fn update_history(&mut self, side: Color, mv: Move, bonus: i32, max: i32) {
        gravity(&mut self.history[Self::hist_index(side, mv)], bonus, max);
    }

    fn cont_index(prev: ContKey, piece: Piece, to: Square) -> usize {
        let (c, p, s) = prev;
        ((c as usize * 6 + p as usize) * 64 + s as usize) * 384 + piece as usize * 64 + to as usize
    }

    /// The butterfly history of `side`'s moves, indexed by `from * 64 + to`.
    pub(super) fn history_table(&self, side: Color) -> &[i32] {
        &self.history[side as usize * 4096..][..4096]
    }

    /// The continuation history after `prev`, indexed by `piece * 64 + to`.
    pub(super) fn cont_table(&self, prev: ContKey) -> &[i32] {
        &self.cont[Self::cont_index(prev, Piece::Pawn, Square::A1)..][..384]
    }

    /// Continuation history of a quiet `piece` to `to` after `prev`.
    pub fn cont_history(&self, prev: ContKey, piece: Piece, to: Square) -> i32 {
        self.cont[Self::cont_index(prev, piece, to)]
    }

    /// Reward or punish a quiet `piece` to `to` after `prev`, as
    /// [`Self::update_history`] does.
    pub fn update_cont_history(
        &mut self,
        prev: ContKey,
        piece: Piece,
        to: Square,
        bonus: i32,
        max: i32,
    ) {
        gravity(
            &mut self.cont[Self::cont_index(prev, piece, to)],
            bonus,
            max,
        );
    }

    fn capture_index(side: Color, piece: Piece, to: Square, victim: Piece) -> usize {
        ((side as usize * 6 + piece as usize) * 64 + to as usize) * 6 + victim as usize
    }

    /// Capture history of `piece` taking a `victim` on `to`.
    pub fn capture_history(&self, side: Color, piece: Piece, to: Square, victim: Piece) -> i32 {
        self.captures[Self::capture_index(side, piece, to, victim)]
    }

    /// Reward or punish a capture, as [`Self::update_history`] does.
    pub fn update_capture_history(
        &mut self,
        side: Color,
        piece: Piece,
        to: Square,
        victim: Piece,
        bonus: i32,
        max: i32,
    ) {
        gravity(
            &mut self.captures[Self::capture_index(side, piece, to, victim)],
            bonus,
            max,
        );
    }

    /// Remember a quiet move that caused a cutoff at `ply`.
    pub fn add_killer(&mut self, ply: usize, mv: Move, count: usize) {
        if count == 0 {
            return;
        }
        let k = &mut self.killers[ply];
        if k[0] == Some(mv) {
            return;
        }
        let count = count.min(4);
        // Shift down, dropping a duplicate further down if present.
        let pos = k[..count]
            .iter()
            .position(|&m| m == Some(mv))
            .unwrap_or(count - 1);
        for i in (1..=pos).rev() {
            k[i] = k[i - 1];
        }
        k[0] = Some(mv);
    }

    fn counter_index(side: Color, piece: Piece, to: Square) -> usize {
        side as usize * 384 + piece as usize * 64 + to as usize
    }

    /// The stored reply to the opponent's `piece` arriving on `to`.
    pub fn countermove(&self, side: Color, piece: Piece, to: Square) -> Option<Move> {
        self.counter[Self::counter_index(side, piece, to)]
    }

    /// Store `mv` as the reply to the opponent's `piece` arriving on `to`.
    pub fn set_countermove(&mut self, side: Color, piece: Piece, to: Square, mv: Move) {
        self.counter[Self::counter_index(side, piece, to)] = Some(mv);
    }
}

/// Move `h` by `bonus` towards +-`max`: the step shrinks as `h` nears the
/// bound, so entries saturate instead of overflowing and old values fade.
fn gravity(h: &mut i32, bonus: i32, max: i32) {
    let max = max.max(1);
    let b = bonus.clamp(-max, max);
    // In i64: |h| * |b| reaches max^2, beyond i32 for max > 46340.
    let decay = *h as i64 * b.abs() as i64 / max as i64;
    *h += b - decay as i32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn killers_shift_and_dedupe() {
        let mut h = Heuristics::new();
        let m = |s: &str| s.parse::<Move>().unwrap();
        h.add_killer(0, m("a2a3"), 3);
        h.add_killer(0, m("b2b3"), 3);
        h.add_killer(0, m("c2c3"), 3);
        h.add_killer(0, m("a2a3"), 3);
        assert_eq!(
            h.killers[0][..3],
            [Some(m("a2a3")), Some(m("c2c3")), Some(m("b2b3"))]
        );
        h.add_killer(0, m("d2d3"), 3);
        assert_eq!(
            h.killers[0][..3],
            [Some(m("d2d3")), Some(m("a2a3")), Some(m("c2c3"))]
        );
        // History saturates at the bound.
        for _ in 0..100 {
            h.update_history(Color::Black, m("e7e5"), 4000, 16384);
        }
        let v = h.history(Color::Black, m("e7e5"));
        assert!(v > 15_000 && v <= 16_384, "{v}");
    }

    #[test]
    fn history_saturates_without_overflow_at_the_largest_bound() {
        let max = 65_536;
        let mut h = Heuristics::new();
        let mv: Move = "g1f3".parse().unwrap();
        for _ in 0..50 {
            h.update_history(Color::White, mv, max, max);
        }
        let v = h.history(Color::White, mv);
        assert!(v > max - 100 && v <= max, "{v}");
        for _ in 0..50 {
            h.update_history(Color::White, mv, -max, max);
        }
        let v = h.history(Color::White, mv);
        assert!((-max..-max + 100).contains(&v), "{v}");
    }
}
