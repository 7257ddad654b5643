//! What a searched node teaches the history tables ([`super::history`]):
//! after a cutoff, the quiet and capture histories, killers and the
//! countermove (step 17); after the node, the correction history and the
//! prior countermove bonus (step 19).

use cozy_chess::{Board, Move};

use super::node::{Node, Outcome};
use super::tt::Bound;
use super::types::ONE_PLY;
use super::worker::{is_mate_score, Worker};
use crate::board::see::captured_piece;
use crate::params::SearchParams;

/// The history bonus (and malus) of a cutoff at `depth` (sixteenths of a
/// ply): quadratic in plies, as deeper cutoffs say more.
fn history_bonus(sp: &SearchParams, depth: i32) -> i32 {
    let d = depth / ONE_PLY;
    sp.history_bonus * d * d
}

impl Worker<'_> {
    /// Step 19. Update histories from the node's result. Correction history
    /// learns from searches whose score says how far off the static eval
    /// was: not in check (no eval), not a singular verification (a partial
    /// search), not settled by a capture (the eval does not try to see
    /// tactics), and only where the bound does not contradict the direction
    /// of the error. A fail low credits the opponent's quiet move into the
    /// node (Stockfish's prior countermove bonus).
    #[inline(always)]
    pub(super) fn update_node_stats(&mut self, n: &Node, out: &Outcome, bound: Bound) {
        let sp = self.sp;
        let board = n.board;
        let best = out.best;
        if sp.corr_history
            && !n.in_check
            && n.excluded.is_none()
            && !is_mate_score(best)
            && out
                .best_move
                .is_none_or(|m| captured_piece(board, m).is_none())
            && !(bound == Bound::Lower && best <= n.static_eval)
            && !(bound == Bound::Upper && best >= n.static_eval)
        {
            self.heur.correction.update(
                board,
                best - n.raw_eval,
                n.d_plies,
                sp.corr_history_max_cp,
            );
        }
        // Shallow fail lows say little (Stockfish credits from 3 plies, or
        // on the PV); an expected cut node that failed low, or a PV node,
        // refuted more than expected and counts twice.
        if sp.prior_quiet_bonus > 0
            && bound == Bound::Upper
            && !n.root
            && n.excluded.is_none()
            && (n.d_plies >= 3 || n.pv_node)
        {
            let weight = sp.prior_quiet_bonus * (1 + i32::from(n.pv_node || n.cut_node));
            self.reward_prior_quiet(n.ply, n.depth, weight);
        }
    }

    /// Credit the opponent's quiet move into the node at `ply`, which just
    /// failed low: nothing we tried beat it, so it is a good move there.
    fn reward_prior_quiet(&mut self, ply: usize, depth: i32, weight: i32) {
        let sp = self.sp;
        let f = self.stack[ply - 1];
        // No key after a null move.
        let (Some(mv), Some((them, piece, _))) = (f.mv, f.cont_key) else {
            return;
        };
        if f.capture || mv.promotion.is_some() {
            return;
        }
        let bonus = history_bonus(sp, depth) * weight;
        if sp.history {
            self.heur.update_history(them, mv, bonus, sp.history_max);
        }
        if sp.cont_history {
            for key in self.order_keys(ply - 1).cont.into_iter().flatten() {
                self.heur
                    .update_cont_history(key, piece, mv.to, bonus, sp.history_max);
            }
        }
    }

    /// Capture history after a cutoff at `ply`: the capture that cut (if
    /// `best` is one) gains, the captures tried before it lose.
    pub(super) fn update_capture_stats(
        &mut self,
        board: &Board,
        best: Option<Move>,
        depth: i32,
        tried: &[Option<Move>],
    ) {
        let sp = self.sp;
        if !sp.capture_history {
            return;
        }
        let us = board.side_to_move();
        let bonus = history_bonus(sp, depth);
        let mut update = |mv: Move, b: i32| {
            if let (Some(p), Some(v)) = (board.piece_on(mv.from), captured_piece(board, mv)) {
                self.heur
                    .update_capture_history(us, p, mv.to, v, b, sp.history_max);
            }
        };
        if let Some(mv) = best {
            update(mv, bonus);
        }
        for &m in tried.iter().flatten() {
            update(m, -bonus);
        }
    }

    /// Quiet histories after quiet `mv` cut off at `ply`: it becomes a
    /// killer and the countermove, its butterfly and continuation histories
    /// gain, and the quiet moves tried before it lose.
    pub(super) fn update_quiet_stats(
        &mut self,
        board: &Board,
        ply: usize,
        mv: Move,
        depth: i32,
        tried: &[Option<Move>],
    ) {
        let sp = self.sp;
        let us = board.side_to_move();
        self.heur
            .add_killer(ply, mv, sp.killer_count.clamp(0, 4) as usize);
        let bonus = history_bonus(sp, depth);
        if sp.history {
            for m in tried.iter().flatten() {
                self.heur.update_history(us, *m, -bonus, sp.history_max);
            }
            self.heur.update_history(us, mv, bonus, sp.history_max);
        }
        if sp.countermove && ply > 0 {
            let f = self.stack[ply - 1];
            if let (Some(p), Some(m)) = (f.piece, f.mv) {
                self.heur.set_countermove(us, p, m.to, mv);
            }
        }
        if sp.cont_history {
            // The same tables the move ordering read at this node.
            for key in self.order_keys(ply).cont.into_iter().flatten() {
                for m in tried.iter().flatten() {
                    if let Some(p) = board.piece_on(m.from) {
                        self.heur
                            .update_cont_history(key, p, m.to, -bonus, sp.history_max);
                    }
                }
                if let Some(p) = board.piece_on(mv.from) {
                    self.heur
                        .update_cont_history(key, p, mv.to, bonus, sp.history_max);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use cozy_chess::{Color, Piece};

    use super::*;
    use crate::{Params, Searcher};

    /// White's butterfly history of 1.Nf3 after a search of the position
    /// it leads to with a window Black cannot reach, so Black's node fails
    /// low, with `prior_quiet_bonus` set to `bonus`.
    fn history_of_move_into_fail_low(bonus: i32) -> i32 {
        let board = Board::default();
        let mv: Move = "g1f3".parse().unwrap();
        let mut params = Params::default();
        params.search.prior_quiet_bonus = bonus;
        let mut s = Searcher::new(params);
        let sp = s.params.search.clone();
        let stop = AtomicBool::new(false);
        let mut worker = s.unlimited_worker(&sp, &stop, Color::White);
        worker.stack[0].play(Color::White, mv, Some(Piece::Knight), false);
        let mut child = board.clone();
        child.play(mv);
        let v = worker.negamax(&child, 900, 901, 4 * ONE_PLY, 1, false);
        assert!(v <= 900, "Black cannot reach +900 after 1.Nf3: {v}");
        s.heur.history(Color::White, mv)
    }

    #[test]
    fn a_fail_low_credits_the_quiet_move_into_it() {
        // Below the node White's knight stands on f3, so nothing else
        // touches the history of g1f3.
        assert_eq!(history_of_move_into_fail_low(0), 0);
        let once = history_of_move_into_fail_low(1);
        assert!(once > 0, "{once}");
        assert!(history_of_move_into_fail_low(2) > once);
    }
}
