//! Plain minimax: no cutoffs, no pruning, no transposition table, over the
//! full-width part of the tree (`search_algorithm = minimax`). A baseline
//! for the ablation's alpha-beta saving, not a way to play.

use cozy_chess::Board;

use super::types::{INF, MATE, MAX_PLY};
use super::worker::Worker;
use crate::board::position::{legal_moves, repetition_key};

impl Worker<'_> {
    /// The minimax value of `board` to `depth` plies, `ply` from the root.
    pub(super) fn minimax(&mut self, board: &Board, depth: i32, ply: usize) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.check_abort() {
            return 0;
        }
        // The leaves are resolved by the normal quiescence search: a
        // capture tree without cutoffs explodes, and the comparison is
        // about the full-width part of the tree.
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.qsearch(board, -INF, INF, ply, self.sp.qs_checks);
        }
        if ply > 0 {
            if let Some(v) = self.draw_score(board) {
                return v;
            }
        }
        let moves = legal_moves(board);
        if moves.is_empty() {
            return if board.checkers().is_empty() {
                self.draw_value(board)
            } else {
                -MATE + ply as i32
            };
        }
        let mut best = -INF;
        self.hashes.push(repetition_key(board));
        for mv in moves {
            if ply == 0 && !self.root_allows(mv) {
                continue;
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            let v = -self.minimax(&child, depth - 1, ply + 1);
            if self.aborted {
                break;
            }
            if v > best {
                best = v;
                if ply == 0 {
                    self.root_best = Some((mv, v));
                }
            }
        }
        self.hashes.pop();
        best
    }
}
