//! The quiescence search: below depth 0, only captures and queen
//! promotions (all evasions in check, and quiet checks at its first ply
//! with `qs_checks`) until the position is quiet, so the static eval is
//! only ever read where no exchange is pending. Its steps, in order:
//!
//! 1. Initialize the node: count it, stop on a limit.
//! 2. Draws by the 50-move rule and insufficient material, and the ply
//!    limit. Repetitions are only detected in the main search.
//! 3. Transposition table lookup, and a cutoff by the stored bound at a
//!    non-PV node.
//! 4. Stand pat: the side to move may decline every capture, so the static
//!    eval is a lower bound (not in check).
//! 5. Loop over the tactical moves: delta pruning, the SEE filter, the
//!    search of the child.
//! 6. Mate when in check without a move; store the result in the table.

use cozy_chess::{Board, Move};

use super::movepick::{MovePicker, PickMode};
use super::types::{MATE, MAX_PLY};
use super::worker::{bound_cuts, fifty_move_draw, result_bound, Worker};
use crate::board::check::gives_check;
use crate::board::position::insufficient_material;
use crate::board::see::{captured_piece, see_ge};

/// The state of one quiescence node.
struct QNode<'b> {
    board: &'b Board,
    alpha: i32,
    beta: i32,
    ply: usize,
    in_check: bool,
    /// The static eval (corrected), the score of declining every capture.
    stand_pat: i32,
}

/// What the move loop of step 5 found.
struct QOutcome {
    best: i32,
    best_move: Option<Move>,
    /// Whether any move was generated (in check: not mated).
    any: bool,
}

impl Worker<'_> {
    /// The quiescence value of `board` for the window `alpha..beta` at
    /// `ply` from the root; `checks`: also search quiet checking moves.
    pub(super) fn qsearch(
        &mut self,
        board: &Board,
        alpha: i32,
        beta: i32,
        ply: usize,
        checks: bool,
    ) -> i32 {
        // Step 1. Initialize the node.
        self.clear_pv(ply);
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.check_abort() {
            return 0;
        }
        let sp = self.sp;
        let in_check = !board.checkers().is_empty();
        // Step 2. Draws by rule: the 50-move rule as in `draw_score`, so a
        // mate delivered on the 100th ply is still a mate.
        if fifty_move_draw(board) || insufficient_material(board) {
            return self.draw_value(board);
        }
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.evaluate(board) };
        }
        // Step 3. Transposition table lookup.
        let pv_node = beta - alpha > 1;
        let key = board.hash();
        let hit = self.tt_probe(key, ply);
        let tt_pv = pv_node || hit.is_some_and(|h| h.pv);
        if let Some(h) = hit {
            if sp.tt_cutoffs && !pv_node && bound_cuts(h.bound, h.score, alpha, beta) {
                return h.score;
            }
        }
        // Step 4. Stand pat.
        let raw_eval = self.static_eval(board, in_check, hit);
        let stand_pat = self.corrected(board, raw_eval);
        let mut q = QNode {
            board,
            alpha,
            beta,
            ply,
            in_check,
            stand_pat,
        };
        if !in_check {
            if stand_pat >= beta {
                return stand_pat;
            }
            q.alpha = q.alpha.max(stand_pat);
        }
        // Step 5. Loop over the tactical moves.
        let mode = if in_check {
            PickMode::All
        } else {
            PickMode::Tactical { checks }
        };
        let Some(out) = self.qsearch_moves(&mut q, hit.and_then(|h| h.mv), mode) else {
            return 0;
        };
        // Step 6. Mate, and the table store.
        if in_check && !out.any {
            return -MATE + ply as i32;
        }
        let bound = result_bound(out.best, beta, out.best_move.is_some() && pv_node);
        self.tt_store(
            key,
            out.best_move,
            out.best,
            if in_check { 0 } else { raw_eval },
            0,
            bound,
            tt_pv,
            ply,
        );
        out.best
    }

    /// Step 5: the moves of `mode`, best first, each searched unless
    /// pruned, until one fails high. `None` when the search aborted.
    #[inline(always)]
    fn qsearch_moves(
        &mut self,
        q: &mut QNode,
        tt_move: Option<Move>,
        mode: PickMode,
    ) -> Option<QOutcome> {
        let (board, ply) = (q.board, q.ply);
        let mut picker = MovePicker::new(tt_move, mode);
        let mut out = QOutcome {
            best: q.stand_pat,
            best_move: None,
            any: false,
        };
        let keys = self.order_keys(ply);
        while let Some(mv) = {
            let ctx = self.order_ctx(ply, keys);
            picker.next(board, &ctx)
        } {
            out.any = true;
            let victim = captured_piece(board, mv);
            if self.qsearch_prunes(q, mv, victim) {
                continue;
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            self.tt_prefetch(child.hash());
            self.stack[ply].play(
                board.side_to_move(),
                mv,
                board.piece_on(mv.from),
                victim.is_some(),
            );
            let score = -self.qsearch(&child, -q.beta, -q.alpha, ply + 1, false);
            if self.aborted {
                return None;
            }
            if score > out.best {
                out.best = score;
                if score > q.alpha {
                    out.best_move = Some(mv);
                    if score >= q.beta {
                        break;
                    }
                    q.alpha = score;
                    self.raise_pv(ply, mv);
                }
            }
        }
        Some(out)
    }

    /// Step 5's pruning of a capture or promotion `mv` (never of an
    /// evasion): delta pruning, then the SEE filter.
    #[inline(always)]
    fn qsearch_prunes(&self, q: &QNode, mv: Move, victim: Option<cozy_chess::Piece>) -> bool {
        let sp = self.sp;
        let board = q.board;
        if q.in_check || (victim.is_none() && mv.promotion.is_none()) {
            return false;
        }
        // Delta pruning: even winning the victim cannot reach alpha. A
        // check may win far more than its victim (the mate behind a pawn
        // capture on h7), so checks are exempt.
        if sp.delta_pruning && mv.promotion.is_none() {
            let gain = victim.map_or(0, |v| self.values[v as usize]);
            if q.stand_pat + gain + sp.delta_margin_cp <= q.alpha && !gives_check(board, mv) {
                return true;
            }
        }
        // SEE filter: skip captures that lose material.
        if sp.qs_see_filter && !see_ge(board, mv, 0, &self.values) {
            return true;
        }
        // The exchange must also gain enough to bring the stand pat near
        // alpha; checks are exempt for the reason delta pruning gives.
        if sp.qs_see_alpha {
            let need = sp
                .qs_see_min_cp
                .max(q.alpha - q.stand_pat - sp.qs_see_margin_cp);
            return need > 0 && !see_ge(board, mv, need, &self.values) && !gives_check(board, mv);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use crate::search::types::MATE;
    use crate::{Params, Position, Searcher};

    /// Score and nodes of a quiescence search of `fen` for the side to
    /// move under the parameter changes `yaml`, null window at the alpha
    /// `alpha_of` gives for the static eval.
    fn qsearch_with(fen: &str, yaml: &str, alpha_of: impl Fn(i32) -> i32) -> (i32, u64) {
        let pos = Position::from_fen(fen).unwrap();
        let mut s = Searcher::new(Params::from_yaml_str(yaml, "test").unwrap());
        let sp = s.params.search.clone();
        let stop = AtomicBool::new(false);
        let mut worker = s.unlimited_worker(&sp, &stop, pos.board().side_to_move());
        let alpha = alpha_of(worker.evaluate(pos.board()));
        let score = worker.qsearch(pos.board(), alpha, alpha + 1, 0, sp.qs_checks);
        (score, worker.nodes)
    }

    /// Quiescence score of `fen` with the defaults, null window at `alpha`.
    fn qsearch_at(fen: &str, alpha: i32) -> i32 {
        qsearch_with(fen, "{}", |_| alpha).0
    }

    /// As [`qsearch_with`], null window `above` cp over the static eval.
    fn qsearch_above_eval(fen: &str, yaml: &str, above: i32) -> (i32, u64) {
        qsearch_with(fen, yaml, |eval| eval + above)
    }

    #[test]
    fn qs_see_alpha_skips_an_exchange_that_cannot_reach_alpha() {
        // Nxd5 wins a rook for the knight (exd5): a gain of about a minor
        // piece's difference, which delta pruning (the whole rook) keeps.
        let fen = "6k1/8/4p3/3r4/8/2N5/8/6K1 w - - 0 1";
        let (_, searched) = qsearch_above_eval(fen, "{}", 400);
        assert!(searched > 1, "without the switch the capture is searched");
        let on = "qs_see_alpha: true";
        assert_eq!(
            qsearch_above_eval(fen, on, 400).1,
            1,
            "400 cp short: pruned"
        );
        // Near alpha the same capture is searched.
        assert!(qsearch_above_eval(fen, on, 50).1 > 1);
        // An even trade (knight for knight) near alpha: qs_see_min_cp 1
        // skips it, 0 keeps it.
        let trade = "6k1/8/4p3/3n4/8/2N5/8/6K1 w - - 0 1";
        assert_eq!(qsearch_above_eval(trade, on, 10).1, 1);
        let keep = "qs_see_alpha: true\nqs_see_min_cp: 0";
        assert!(qsearch_above_eval(trade, keep, 10).1 > 1);
    }

    #[test]
    fn qs_see_alpha_spares_a_capture_that_mates() {
        // As below: Qxh7 wins a pawn, far less than the 400 cp to alpha,
        // but mates; checks are exempt from the threshold.
        let fen = "rr3rk1/5p1p/6pQ/q7/8/7R/5PPP/6K1 w - - 0 1";
        assert_eq!(
            qsearch_above_eval(fen, "qs_see_alpha: true", 400).0,
            MATE - 1
        );
    }

    #[test]
    fn delta_pruning_spares_a_capture_that_mates() {
        // White is a queen and two rooks down; Qxh7 wins only a pawn but
        // mates. Far below alpha, delta pruning must still try it.
        let fen = "rr3rk1/5p1p/6pQ/q7/8/7R/5PPP/6K1 w - - 0 1";
        assert_eq!(qsearch_at(fen, 0), MATE - 1);
        // Without the supporting rook the capture loses the queen: no mate.
        let no_rook = "rr3rk1/5p1p/6pQ/q7/8/8/5PPP/6K1 w - - 0 1";
        assert!(qsearch_at(no_rook, 0) < -1000);
    }
}
