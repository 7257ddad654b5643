//! The root of the search: iterative deepening (one iteration per depth,
//! each reported as a [`SearchInfo`]), the driver of each iteration
//! (aspiration windows around the previous score, MTD(f), or minimax),
//! the time checks between iterations and the principal variation read
//! back from the transposition table.

use std::sync::atomic::Ordering;

use cozy_chess::{Board, Move};

use super::searcher::{SearchInfo, SearchResult};
use super::types::{Limits, Score, INF, MATE, MAX_DEPTH, MAX_PLY, ONE_PLY};
use super::worker::{drawn_by_rule, is_mate_score, root_node_index, Worker};
use crate::board::position::{legal_moves, move_to_uci, parse_uci_move, repetition_key};
use crate::params::SearchAlgorithm;

/// Whether helper thread `id` (from 1) leaves out iteration `depth`: the
/// depths come in blocks of `size` searched and `size` skipped, the block
/// size growing and the phase shifting with `id`, so that helpers 1, 2, 3
/// and 4 take depths 2 4 6 8 ..., 3 5 7 9 ..., 4 5 8 9 ... and 3 4 7 8 ...
/// (and depth 1, which every thread searches first).
pub(super) fn helper_skips(id: usize, depth: i32) -> bool {
    let i = (id.max(1) - 1) % 20;
    // Block sizes 1, 1, 2, 2, 2, 2, 3 (six times), 4 (eight times).
    let (size, phase) = match i {
        0..=1 => (1, i),
        2..=5 => (2, i - 2),
        6..=11 => (3, i - 6),
        _ => (4, i - 12),
    };
    ((depth as usize + phase) / size) % 2 == 1
}

/// How settled the best move is, for the time manager.
#[derive(Default)]
struct Stability {
    /// Completed iterations in a row that kept the same best move.
    stable: u32,
    last_best: Option<Move>,
    /// The scores of the completed iterations, newest last.
    scores: Vec<i32>,
}

impl Stability {
    /// How far `score` (the iteration just completed) fell below the score
    /// three iterations earlier, in cp; 0 until there is one. Scores are
    /// capped at 10 pawns, so a mate counts as a large swing, not a huge one.
    fn score_drop(&mut self, score: i32) -> i32 {
        let cap = |v: i32| v.clamp(-1000, 1000);
        self.scores.push(score);
        let n = self.scores.len();
        if n < 4 {
            return 0;
        }
        cap(self.scores[n - 4]) - cap(score)
    }
}

impl Worker<'_> {
    /// Iterative deepening: depth 1, 2, ... until a limit, each iteration
    /// reported to `info`; the result is the last completed iteration's (or
    /// the unfinished one's best root move, when it was searched fully).
    pub(super) fn iterate(
        &mut self,
        board: &Board,
        limits: &Limits,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.root_nodes = vec![0; 64 * 64];
        self.pv_lines = vec![Vec::new(); MAX_PLY + 4];
        let root_moves = self.root_moves(board, limits);
        let mut result = SearchResult {
            best_move: None,
            ponder: None,
            score: Score::Cp(0),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            time_ms: 0,
            pv: Vec::new(),
        };
        if root_moves.is_empty() {
            result.score = if board.checkers().is_empty() {
                Score::Cp(0)
            } else {
                Score::Mate(0)
            };
            return result;
        }
        // Replaced by depth 1's best move, which always completes.
        let mut best = (root_moves[0], 0);
        result.best_move = Some(move_to_uci(board, best.0, self.chess960));
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let timed = self.budget.soft_ms.is_some();
        let mut stability = Stability::default();
        for depth in 1..=max_depth {
            self.root_best = None;
            self.root_depth = depth;
            self.seldepth = 0;
            let score = self.search_root(board, depth, best.1);
            if self.aborted {
                self.unfinished_iteration(board, depth, &mut best, &mut result, info);
                break;
            }
            if let Some((mv, _)) = self.root_best {
                best.0 = mv;
            }
            best.1 = score;
            self.finished_iteration(board, depth, best, &mut result, info);
            if self.time_to_stop(
                best.0,
                best.1,
                &mut stability,
                timed && root_moves.len() == 1,
            ) {
                break;
            }
            // `go mate N`: done once a mate in N moves or fewer is proven.
            if let (Some(n), Score::Mate(m)) = (limits.mate, result.score) {
                if m > 0 && m <= n {
                    break;
                }
            }
        }
        result.nodes = self.total_nodes();
        result.time_ms = self.elapsed_ms();
        result
    }

    /// A helper thread of a parallel search (Lazy SMP): the main thread's
    /// root and root moves, its own iterative deepening without reports,
    /// until `stop` (raised by the main thread when it is done) or the node
    /// limit of all threads together.
    /// It helps through what it leaves in the shared table; helper `id`
    /// (from 1) skips some depths (see [`helper_skips`]) so that the threads
    /// are spread over several depths at once rather than racing through
    /// the same tree.
    pub(super) fn iterate_helper(&mut self, board: &Board, limits: &Limits, id: usize) {
        self.root_nodes = vec![0; 64 * 64];
        if !self.root_moves(board, limits).is_empty() {
            self.armed = true;
            let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
            let mut prev = 0;
            for depth in 1..=max_depth {
                if depth > 1 && helper_skips(id, depth) {
                    continue;
                }
                self.root_best = None;
                self.root_depth = depth;
                let score = self.search_root(board, depth, prev);
                if self.aborted {
                    break;
                }
                self.prev_best = self.root_best.map(|(mv, _)| mv).or(self.prev_best);
                prev = score;
            }
        }
        self.publish_nodes();
    }

    /// The legal root moves, only those of `go searchmoves` when it names
    /// any (and then only they are searched).
    fn root_moves(&mut self, board: &Board, limits: &Limits) -> Vec<Move> {
        let mut root_moves = legal_moves(board);
        let wanted: Vec<Move> = root_moves
            .iter()
            .copied()
            .filter(|m| limits.searchmoves.contains(m))
            .collect();
        if !wanted.is_empty() {
            root_moves.clone_from(&wanted);
            self.root_filter = wanted;
        }
        // In the tables: only the moves that keep the best result (which
        // makes progress in a won ending, see `tablebase`).
        if let Some(kept) = self.tb.and_then(|tb| tb.filter_root(board, &root_moves)) {
            self.tbhits += root_moves.len() as u64;
            if kept.len() < root_moves.len() {
                root_moves.clone_from(&kept);
                self.root_filter = kept;
            }
        }
        root_moves
    }

    /// One iteration at `depth` by the chosen algorithm, `prev` the
    /// previous iteration's score.
    fn search_root(&mut self, board: &Board, depth: i32, prev: i32) -> i32 {
        match self.sp.search_algorithm {
            SearchAlgorithm::Minimax => self.minimax(board, depth, 0),
            SearchAlgorithm::Mtdf => self.mtdf(board, depth, prev),
            SearchAlgorithm::AlphaBeta | SearchAlgorithm::Pvs => {
                self.aspiration(board, depth, prev)
            }
        }
    }

    /// An aborted iteration: a root move searched completely in it and
    /// better than the alternatives so far is still usable. The move played
    /// and its score then come from the unfinished iteration, so they are
    /// reported: the last `info` a tester reads before `bestmove` holds the
    /// move and score the engine went by (a referee adjudicating on scores
    /// sees what the in-process engine's caller sees).
    fn unfinished_iteration(
        &mut self,
        board: &Board,
        depth: i32,
        best: &mut (Move, i32),
        result: &mut SearchResult,
        info: &mut dyn FnMut(&SearchInfo),
    ) {
        if let Some(b) = self.root_best {
            *best = b;
        }
        let best_uci = move_to_uci(board, best.0, self.chess960);
        let score = Score::from_internal(best.1);
        let moved = result.pv.first() != Some(&best_uci);
        if !moved && result.score == score {
            return;
        }
        let pv = self.extract_pv(board, best.0, depth - 1, best.1);
        // The same move with a new mate score needs the mate's PV (testers
        // check mate PVs); without it the completed iteration's score
        // stands, so the result is always what was reported last.
        if !moved && !pv_proves(board, &pv, score, self.chess960) {
            return;
        }
        self.report(best_uci, score, depth, pv, result, info);
    }

    /// A completed iteration: its best move and score become the result,
    /// reported to `info`; the limits apply from now on.
    fn finished_iteration(
        &mut self,
        board: &Board,
        depth: i32,
        (best, score): (Move, i32),
        result: &mut SearchResult,
        info: &mut dyn FnMut(&SearchInfo),
    ) {
        self.armed = true;
        self.prev_best = Some(best);
        let pv = self.extract_pv(board, best, depth, score);
        let best_uci = move_to_uci(board, best, self.chess960);
        self.report(
            best_uci,
            Score::from_internal(score),
            depth,
            pv,
            result,
            info,
        );
    }

    /// The best move, its score and PV at `depth` become the result and
    /// are reported to `info`.
    fn report(
        &self,
        best_uci: String,
        score: Score,
        depth: i32,
        pv: Vec<String>,
        result: &mut SearchResult,
        info: &mut dyn FnMut(&SearchInfo),
    ) {
        result.best_move = Some(best_uci);
        result.ponder = pv.get(1).cloned();
        result.score = score;
        result.depth = depth;
        result.seldepth = self.seldepth as i32;
        result.pv = pv;
        info(&SearchInfo {
            depth,
            seldepth: self.seldepth as i32,
            score,
            nodes: self.total_nodes(),
            time_ms: self.elapsed_ms(),
            hashfull: self.tt.hashfull(),
            tbhits: self.tbhits,
            pv: result.pv.clone(),
        });
    }

    /// Time management between iterations: no new iteration once the soft
    /// limit has passed (an iteration that overruns is cut by the hard
    /// limit instead). A best move that keeps changing or takes a small
    /// share of the nodes earns more time, a settled one less; never past
    /// the hard limit. A timed search with one legal move (`only_move`),
    /// the stop flag and the node limit stop as well.
    fn time_to_stop(&self, best: Move, score: i32, s: &mut Stability, only_move: bool) -> bool {
        s.stable = if s.last_best == Some(best) {
            s.stable + 1
        } else {
            0
        };
        s.last_best = Some(best);
        let best_permille = (self.root_nodes[root_node_index(best)] as u128 * 1000
            / self.nodes.max(1) as u128) as u32;
        if let Some(soft) =
            self.budget
                .scaled_soft_ms(s.stable, best_permille, s.score_drop(score), self.sp)
        {
            if self.elapsed_ms() >= soft {
                return true;
            }
        }
        only_move || self.stop.load(Ordering::Relaxed) || self.total_nodes() >= self.node_limit
    }

    /// The principal variation for `score`: the searched line when it
    /// starts with `first` (see [`Worker::pv_lines`]), then TT moves. A
    /// mate's line is cut at the mate's length, which it reaches unless
    /// the search was cut short. It ends at a draw by rule (a repetition
    /// of the game or of the line so far, the 50-move rule, insufficient
    /// material): the search scored that position as a draw without
    /// searching on, and a line past it would run past the end of the game
    /// (fastchess warns about such PVs). Entries of the table are keyed
    /// without the halfmove clock and the game's history, so they would
    /// happily continue it; a mate or stalemate has no legal move to
    /// continue with.
    pub(super) fn extract_pv(
        &self,
        board: &Board,
        first: Move,
        depth: i32,
        score: i32,
    ) -> Vec<String> {
        let max_len = if is_mate_score(score) {
            (MATE - score.abs()).max(1) as usize
        } else {
            depth.max(1) as usize + 8
        };
        let searched = match self.pv_lines.first() {
            Some(line) if line.first() == Some(&first) => &line[1..],
            _ => &[],
        };
        let mut earlier = self.hashes[..self.game_len].to_vec();
        let mut pv = Vec::new();
        let mut b = board.clone();
        let mut mv = first;
        loop {
            pv.push(move_to_uci(&b, mv, self.chess960));
            earlier.push(repetition_key(&b));
            b.play_unchecked(mv);
            if pv.len() >= max_len || drawn_by_rule(&b, &earlier) {
                break;
            }
            let next = searched
                .get(pv.len() - 1)
                .copied()
                .or_else(|| self.tt_probe(b.hash(), 0).and_then(|hit| hit.mv));
            match next {
                Some(next) if b.is_legal(next) => mv = next,
                _ => break,
            }
        }
        pv
    }

    /// Aspiration windows around the previous iteration's score, widened
    /// on each fail low or high until the score falls inside.
    pub(super) fn aspiration(&mut self, board: &Board, depth: i32, prev: i32) -> i32 {
        let sp = self.sp;
        if !sp.aspiration || depth < sp.aspiration_min_depth || is_mate_score(prev) {
            return self.negamax(board, -INF, INF, depth * ONE_PLY, 0, false);
        }
        let mut delta = sp.aspiration_width_cp;
        let mut alpha = (prev - delta).max(-INF);
        let mut beta = (prev + delta).min(INF);
        let mut fail_highs = 0;
        loop {
            let d = if sp.aspiration_fail_high_reduce {
                (depth - fail_highs).max(1)
            } else {
                depth
            };
            let score = self.negamax(board, alpha, beta, d * ONE_PLY, 0, false);
            if self.aborted {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INF);
                fail_highs = 0;
            } else if score >= beta {
                beta = (score + delta).min(INF);
                fail_highs += 1;
                // The move that failed high is searched first next time, so
                // the wider re-search does not redo the old best move first.
                if let Some((mv, _)) = self.root_best {
                    self.prev_best = Some(mv);
                }
            } else {
                return score;
            }
            delta = delta.saturating_mul(sp.aspiration_widen) / 100;
            if delta > sp.aspiration_max_width_cp {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    /// MTD(f): null-window searches converging on the value; the TT keeps
    /// the bounds between the passes.
    fn mtdf(&mut self, board: &Board, depth: i32, guess: i32) -> i32 {
        let mut g = if is_mate_score(guess) { 0 } else { guess };
        let mut lower = -INF;
        let mut upper = INF;
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            g = self.negamax(board, beta - 1, beta, depth * ONE_PLY, 0, false);
            if self.aborted {
                return g;
            }
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
        }
        g
    }
}

/// Whether `pv` from `board` is what `score` claims: any line for a
/// centipawn score, the mate itself (2N-1 plies for a mate in N, 2N when
/// mated in N, ending in checkmate) for a mate score.
fn pv_proves(board: &Board, pv: &[String], score: Score, chess960: bool) -> bool {
    let Score::Mate(m) = score else {
        return true;
    };
    let plies = if m > 0 { 2 * m - 1 } else { -2 * m };
    if pv.len() as i32 != plies {
        return false;
    }
    let mut b = board.clone();
    for text in pv {
        match parse_uci_move(&b, text, chess960) {
            Ok(mv) => b.play_unchecked(mv),
            Err(_) => return false,
        }
    }
    b.status() == cozy_chess::GameStatus::Won
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::{Params, Position, Searcher};

    #[test]
    fn root_nodes_account_for_every_node_below_the_root() {
        let pos = Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        )
        .unwrap();
        let board = pos.board();
        let mut s = Searcher::new(Params::default());
        let sp = s.params.search.clone();
        let stop = AtomicBool::new(false);
        let mut worker = s.unlimited_worker(&sp, &stop, board.side_to_move());
        worker.root_nodes = vec![0; 64 * 64];
        let mut score = 0;
        let mut root_visits = 0;
        for depth in 1..=7 {
            worker.root_depth = depth;
            let before = worker.nodes;
            score = worker.aspiration(board, depth, score);
            // The root's own node: one per visit (aspiration re-searches
            // visit it again), so the children hold all but a few.
            root_visits += 1;
            assert!(worker.nodes > before);
        }
        let below: u64 = worker.root_nodes.iter().sum();
        assert!(below < worker.nodes && below + 20 * root_visits >= worker.nodes);
        let legal = legal_moves(board);
        let counted = (0..64 * 64).filter(|&i| worker.root_nodes[i] > 0).count();
        assert_eq!(counted, legal.len(), "every root move searched and counted");
        for mv in legal {
            assert!(worker.root_nodes[root_node_index(mv)] > 0, "{mv}");
        }
    }

    #[test]
    fn helpers_spread_over_the_depths() {
        let pattern = |id| -> Vec<bool> { (2..=17).map(|d| helper_skips(id, d)).collect() };
        assert_eq!(
            (2..=9).filter(|&d| !helper_skips(1, d)).collect::<Vec<_>>(),
            [2, 4, 6, 8]
        );
        assert_eq!(
            (2..=9).filter(|&d| !helper_skips(3, d)).collect::<Vec<_>>(),
            [4, 5, 8, 9]
        );
        for a in 1..=20 {
            let p = pattern(a);
            // Each helper searches half the depths, none skips more than
            // four in a row, and no two of the first twenty agree.
            let searched = p.iter().filter(|s| !**s).count();
            assert!((6..=10).contains(&searched), "helper {a}: {p:?}");
            assert!(!p.windows(5).any(|w| w.iter().all(|s| *s)), "helper {a}");
            for b in 1..a {
                assert_ne!(p, pattern(b), "helpers {a} and {b}");
            }
        }
        // Past twenty helpers the patterns repeat.
        assert_eq!(pattern(21), pattern(1));
    }
}
