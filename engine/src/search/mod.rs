//! The search: iterative deepening over a negamax alpha-beta (or PVS, MTD(f),
//! plain minimax) with every classic heuristic switchable and every constant
//! a field of [`SearchParams`]. The stages of a node are numbered as in the
//! project's issue 3 (`// Step N: ...`). Within a node they run in the
//! issue's order, with two exceptions forced by what each step needs: the
//! draw and mate-distance checks (12) come first, since they end the node
//! before anything else is worth doing, and inside the move loop the
//! extensions (9) are computed before the reduction (8) they offset; the
//! singular-extension test (9) runs once before the loop.
//!
//! Depth is kept in sixteenths of a ply ([`ONE_PLY`]) so extensions and
//! reductions can be fractional. The searcher owns the transposition table
//! ([`crate::search::tt`]) and the quiet-move heuristics ([`crate::search::movepick`]); they
//! persist between searches until [`Searcher::new_game`]. Only the time
//! limits read the clock: a search at fixed depth or nodes from a fresh state
//! is deterministic.

pub mod correction;
pub mod movepick;
pub mod timeman;
pub mod tt;
pub mod types;

use std::collections::TryReserveError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use cozy_chess::{Board, Color, Move, Piece, Rank, Square};

use crate::board::position::{
    insufficient_material, legal_moves, move_to_uci, repetition_key, repetitions,
};
use crate::board::see::{captured_piece, see_ge, PieceValues};
use crate::eval::{evaluate_cached, EvalCache};
use crate::lowlevel::ArrayList;
use crate::params::{EvalWeights, SearchAlgorithm, SearchParams};
use crate::search::movepick::{
    gives_check, ContKey, Heuristics, MovePicker, OrderCtx, PickMode, MAX_MOVES,
};
use crate::search::timeman::{budget, TimeBudget};
use crate::search::tt::{pack_move, Bound, TransTable, TtHit, HASH_DEFAULT_MB};
use crate::search::types::{Limits, Score, INF, MATE, MATE_BOUND, MAX_DEPTH, MAX_PLY, ONE_PLY};
use crate::{Params, Position};

/// One `info` line's worth of progress.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: i32,
    pub score: Score,
    pub nodes: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    /// Principal variation in UCI notation.
    pub pv: Vec<String>,
}

/// The outcome of a finished search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Best move in UCI notation; `None` only when there is no legal move.
    pub best_move: Option<String>,
    pub ponder: Option<String>,
    pub score: Score,
    pub depth: i32,
    pub seldepth: i32,
    pub nodes: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
}

/// Late-move reduction table in sixteenths of a ply, indexed by
/// [depth in plies][move number], built from `lmr_base` and `lmr_divisor`.
struct LmrTable(Box<[[i32; 64]; 64]>);

impl LmrTable {
    fn new(p: &SearchParams) -> Self {
        let mut table = Box::new([[0; 64]; 64]);
        let base = p.lmr_base as f64 / 100.0;
        let div = p.lmr_divisor.max(1) as f64 / 100.0;
        for d in 1..64 {
            for m in 1..64 {
                let r = base + (d as f64).ln() * (m as f64).ln() / div;
                table[d][m] = (r * ONE_PLY as f64).max(0.0) as i32;
            }
        }
        LmrTable(table)
    }

    fn get(&self, depth_plies: i32, move_number: usize) -> i32 {
        self.0[depth_plies.clamp(0, 63) as usize][move_number.min(63)]
    }
}

/// A single-threaded searcher that owns its transposition table and
/// move-ordering state between searches (cleared by [`Searcher::new_game`]).
pub struct Searcher {
    params: Params,
    tt: TransTable,
    heur: Box<Heuristics>,
    lmr: LmrTable,
    /// Pawn-structure terms of the current evaluation weights.
    eval_cache: EvalCache,
}

impl Searcher {
    /// A searcher with a table of [`HASH_DEFAULT_MB`].
    pub fn new(params: Params) -> Self {
        Self::with_hash_mb(params, HASH_DEFAULT_MB)
    }

    /// A searcher with a table of `mb` MiB (at least [`crate::search::tt::HASH_MIN_MB`]).
    /// Tools that only call [`Self::quiet_leaf`] need no more than the minimum.
    pub fn with_hash_mb(params: Params, mb: usize) -> Self {
        let lmr = LmrTable::new(&params.search);
        Searcher {
            params,
            tt: TransTable::new(mb.max(crate::search::tt::HASH_MIN_MB)),
            heur: Box::new(Heuristics::new()),
            lmr,
            eval_cache: EvalCache::new(),
        }
    }

    /// The current parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Replace the parameters (tables derived from them are rebuilt). New
    /// evaluation weights clear the transposition table, whose entries cache
    /// static evaluations made with the old ones.
    pub fn set_params(&mut self, params: Params) {
        if params.eval != self.params.eval {
            self.tt.clear();
            self.eval_cache.clear();
        }
        self.lmr = LmrTable::new(&params.search);
        self.params = params;
    }

    /// Resize the transposition table (clears it). If the memory is not
    /// available the old table is kept; [`Searcher::try_set_hash_mb`] says so.
    pub fn set_hash_mb(&mut self, mb: usize) {
        let _ = self.try_set_hash_mb(mb);
    }

    /// Resize the transposition table (clears it), or keep the old one and
    /// return the error when the memory is not available.
    pub fn try_set_hash_mb(&mut self, mb: usize) -> Result<(), TryReserveError> {
        // The old table is freed only once the new one exists.
        self.tt = TransTable::try_new(mb)?;
        Ok(())
    }

    /// Current transposition-table size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    /// The transposition-table entry of `board`, for tests and tools.
    pub fn tt_entry(&self, board: &Board) -> Option<TtHit> {
        self.tt.probe(board.hash(), 0)
    }

    /// Forget everything learned (TT, history, killers): `ucinewgame`.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.heur.clear();
    }

    /// Search `pos` within `limits`; `stop` aborts early (the best move found so
    /// far is returned); `info` receives one call per finished iteration.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.tt.new_search();
        let start = limits.start.unwrap_or_else(Instant::now);
        let board = pos.board().clone();
        let mut hashes = Vec::with_capacity(pos.history().len() + MAX_PLY + 8);
        hashes.extend_from_slice(pos.history());
        let mut worker = Worker::new(
            &self.params.search,
            &self.params.eval,
            &mut self.tt,
            &mut self.heur,
            &self.lmr,
            &mut self.eval_cache,
            stop,
            start,
            budget(limits, board.side_to_move(), &self.params.search),
            limits.nodes.unwrap_or(u64::MAX),
            hashes,
            board.side_to_move(),
        );
        worker.iterate(&board, limits, info)
    }

    /// A worker on this searcher's tables with no node or time limit, for
    /// searches outside `search` (quiet leaves, tests).
    fn unlimited_worker<'a>(
        &'a mut self,
        sp: &'a SearchParams,
        stop: &'a AtomicBool,
        root_side: Color,
    ) -> Worker<'a> {
        Worker::new(
            sp,
            &self.params.eval,
            &mut self.tt,
            &mut self.heur,
            &self.lmr,
            &mut self.eval_cache,
            stop,
            Instant::now(),
            TimeBudget::default(),
            u64::MAX,
            Vec::new(),
            root_side,
        )
    }

    /// The quiescence-resolved ("quiet") position of `board`: the engine's
    /// own quiescence search (Step 11) from `board` with a full window, its
    /// principal variation played out to the leaf. Texel tuning scores such
    /// leaves, where the static evaluation is meaningful.
    ///
    /// Deterministic: the transposition table is left out of this search
    /// (neither probed nor written) and the quiescence search does not touch
    /// the move-ordering heuristics, so the answer depends only on `board`
    /// and the parameters, not on earlier calls. No node or time limit.
    pub fn quiet_leaf(&mut self, board: &Board) -> QuietLeaf {
        let sp = SearchParams {
            tt: false,
            ..self.params.search.clone()
        };
        let stop = AtomicBool::new(false);
        let mut worker = self.unlimited_worker(&sp, &stop, board.side_to_move());
        worker.qs_pv = vec![Vec::new(); MAX_PLY + 4];
        let score = worker.qsearch(board, -INF, INF, 0, sp.qs_checks);
        let pv = std::mem::take(&mut worker.qs_pv[0]);
        let mut leaf = board.clone();
        for &mv in &pv {
            leaf.play_unchecked(mv);
        }
        QuietLeaf {
            board: leaf,
            pv,
            score,
            nodes: worker.nodes,
        }
    }
}

/// What [`Searcher::quiet_leaf`] returns.
#[derive(Clone, Debug)]
pub struct QuietLeaf {
    /// The position at the end of the quiescence principal variation.
    pub board: Board,
    /// The moves from the searched position to [`Self::board`].
    pub pv: Vec<Move>,
    /// The quiescence score of the searched position, side to move's view,
    /// in internal units (mates as `MATE - plies`, see [`Score::from_internal`]).
    pub score: i32,
    /// Quiescence nodes searched.
    pub nodes: u64,
}

/// See [`Worker::order_keys`].
#[derive(Clone, Copy)]
struct OrderKeys {
    prev: Option<(Piece, Square)>,
    cont: [Option<ContKey>; 3],
}

/// Per-ply search state.
#[derive(Clone, Copy, Default)]
struct Frame {
    /// Move played from this ply (None for a null move).
    mv: Option<Move>,
    /// Piece that made it.
    piece: Option<Piece>,
    /// Whether it captured.
    capture: bool,
    /// The move as continuation history keys it (None for a null move).
    cont_key: Option<ContKey>,
    /// Static evaluation of this node; `-INF` in check or not computed.
    static_eval: i32,
    /// Move excluded from this node (singular-extension search).
    excluded: Option<Move>,
    /// Null move forbidden in this subtree (null-move verification).
    no_null: bool,
}

impl Frame {
    /// Record the move played from this ply, as the children read it
    /// (countermove, continuation history, recapture extension).
    fn play(&mut self, us: Color, mv: Move, piece: Option<Piece>, capture: bool) {
        self.mv = Some(mv);
        self.piece = piece;
        self.capture = capture;
        self.cont_key = piece.map(|p| (us, p, mv.to));
    }

    /// Record a null move: the children see no previous move.
    fn play_null(&mut self) {
        self.mv = None;
        self.piece = None;
        self.capture = false;
        self.cont_key = None;
    }
}

struct Worker<'a> {
    sp: &'a SearchParams,
    ew: &'a EvalWeights,
    tt: &'a mut TransTable,
    heur: &'a mut Heuristics,
    lmr: &'a LmrTable,
    eval_cache: &'a mut EvalCache,
    values: PieceValues,
    stop: &'a AtomicBool,
    start: Instant,
    budget: TimeBudget,
    node_limit: u64,
    nodes: u64,
    seldepth: usize,
    /// Limits apply only once depth 1 has completed.
    armed: bool,
    aborted: bool,
    /// Repetition keys ([`repetition_key`]) of the positions before the
    /// current one: game, then path.
    hashes: Vec<u64>,
    /// Index in `hashes` of the first position after the last null move on
    /// the path: a repetition must not pass through a null move.
    null_floor: usize,
    stack: Vec<Frame>,
    /// Root moves to search (`go searchmoves`); empty means all.
    root_filter: Vec<Move>,
    /// Best root move of the current iteration and its score.
    root_best: Option<(Move, i32)>,
    /// Best move of the previous iteration, searched first at the root.
    prev_best: Option<Move>,
    /// Nodes searched below each root move so far, by `from * 64 + to`
    /// (time management's node fraction). Sized by `iterate` alone, so the
    /// quiet leaves Texel extraction asks for by the million do not pay.
    root_nodes: Vec<u64>,
    /// Nominal depth of the current iteration (plies).
    root_depth: i32,
    root_stm: Color,
    /// Triangular principal variation of the quiescence search, one line per
    /// ply; empty (not collected) except in [`Searcher::quiet_leaf`].
    qs_pv: Vec<Vec<Move>>,
}

/// Index of a root move in [`Worker::root_nodes`] (under-promotions share
/// their queen promotion's slot, which the node fraction can afford).
fn root_node_index(mv: Move) -> usize {
    mv.from as usize * 64 + mv.to as usize
}

fn is_mate_score(v: i32) -> bool {
    v.abs() >= MATE_BOUND
}

/// The history bonus (and malus) of a cutoff at `depth` (sixteenths of a
/// ply): quadratic in plies, as deeper cutoffs say more.
fn history_bonus(sp: &SearchParams, depth: i32) -> i32 {
    let d = depth / ONE_PLY;
    sp.history_bonus * d * d
}

impl<'a> Worker<'a> {
    fn new(
        sp: &'a SearchParams,
        ew: &'a EvalWeights,
        tt: &'a mut TransTable,
        heur: &'a mut Heuristics,
        lmr: &'a LmrTable,
        eval_cache: &'a mut EvalCache,
        stop: &'a AtomicBool,
        start: Instant,
        budget: TimeBudget,
        node_limit: u64,
        hashes: Vec<u64>,
        root_stm: Color,
    ) -> Self {
        let values: PieceValues = [
            ew.material_pawn.0,
            ew.material_knight.0,
            ew.material_bishop.0,
            ew.material_rook.0,
            ew.material_queen.0,
            20_000,
        ];
        Worker {
            sp,
            ew,
            tt,
            heur,
            lmr,
            eval_cache,
            values,
            stop,
            start,
            budget,
            node_limit,
            nodes: 0,
            seldepth: 0,
            armed: false,
            aborted: false,
            hashes,
            null_floor: 0,
            stack: vec![Frame::default(); MAX_PLY + 4],
            root_filter: Vec::new(),
            root_best: None,
            prev_best: None,
            root_nodes: Vec::new(),
            root_depth: 0,
            root_stm,
            qs_pv: Vec::new(),
        }
    }

    fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Step 13 (part): abort on the node limit, the stop flag or the hard
    /// time limit. The clock is read only every 64 nodes. Nothing aborts
    /// depth 1: however short the budget, the move returned was searched.
    fn check_abort(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if !self.armed {
            return false;
        }
        if self.nodes >= self.node_limit {
            self.aborted = true;
        } else if self.nodes & 63 == 1 {
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            } else if let Some(hard) = self.budget.hard_ms {
                // One millisecond early, so that unwinding still returns
                // within the hard limit.
                if self.elapsed_ms() + 1 >= hard {
                    self.aborted = true;
                }
            }
        }
        self.aborted
    }

    // Step 1: root driver: iterative deepening around the chosen algorithm.
    fn iterate(
        &mut self,
        board: &Board,
        limits: &Limits,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.root_nodes = vec![0; 64 * 64];
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
        let mut best = root_moves[0];
        let mut best_score = 0;
        result.best_move = Some(move_to_uci(board, best));
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let timed = self.budget.soft_ms.is_some();
        // Completed iterations in a row that kept the same best move.
        let mut stable: u32 = 0;
        let mut last_best = None;
        for depth in 1..=max_depth {
            self.root_best = None;
            self.root_depth = depth;
            self.seldepth = 0;
            let score = match self.sp.search_algorithm {
                SearchAlgorithm::Minimax => self.minimax(board, depth, 0),
                SearchAlgorithm::Mtdf => self.mtdf(board, depth, best_score),
                SearchAlgorithm::AlphaBeta | SearchAlgorithm::Pvs => {
                    self.aspiration(board, depth, best_score)
                }
            };
            if self.aborted {
                // A root move searched completely in the unfinished iteration
                // and better than the alternatives so far is still usable.
                if let Some((mv, s)) = self.root_best {
                    best = mv;
                    best_score = s;
                }
                let best_uci = move_to_uci(board, best);
                result.best_move = Some(best_uci.clone());
                result.score = Score::from_internal(best_score);
                if result.pv.first() != Some(&best_uci) {
                    result.pv = self.extract_pv(board, best, depth - 1);
                    result.ponder = result.pv.get(1).cloned();
                    // The move played comes from the unfinished iteration:
                    // report it, so the last `info ... pv` a tester reads
                    // before `bestmove` starts with the move played.
                    result.depth = depth;
                    info(&SearchInfo {
                        depth,
                        seldepth: self.seldepth as i32,
                        score: result.score,
                        nodes: self.nodes,
                        time_ms: self.elapsed_ms(),
                        hashfull: self.tt.hashfull(),
                        pv: result.pv.clone(),
                    });
                }
                break;
            }
            if let Some((mv, _)) = self.root_best {
                best = mv;
            }
            self.armed = true;
            self.prev_best = Some(best);
            best_score = score;
            let pv = self.extract_pv(board, best, depth);
            result.best_move = Some(move_to_uci(board, best));
            result.ponder = pv.get(1).cloned();
            result.score = Score::from_internal(score);
            result.depth = depth;
            result.seldepth = self.seldepth as i32;
            result.pv = pv.clone();
            info(&SearchInfo {
                depth,
                seldepth: self.seldepth as i32,
                score: result.score,
                nodes: self.nodes,
                time_ms: self.elapsed_ms(),
                hashfull: self.tt.hashfull(),
                pv,
            });
            // Step 13: no new iteration once the soft limit has passed (an
            // iteration that overruns is cut by the hard limit instead). A
            // best move that keeps changing or takes a small share of the
            // nodes earns more time, a settled one less; never past the
            // hard limit.
            stable = if last_best == Some(best) {
                stable + 1
            } else {
                0
            };
            last_best = Some(best);
            let best_permille = (self.root_nodes[root_node_index(best)] as u128 * 1000
                / self.nodes.max(1) as u128) as u32;
            if let Some(soft) = self.budget.scaled_soft_ms(stable, best_permille, self.sp) {
                if self.elapsed_ms() >= soft {
                    break;
                }
            }
            if timed && root_moves.len() == 1 {
                break;
            }
            if self.stop.load(Ordering::Relaxed) || self.nodes >= self.node_limit {
                break;
            }
            // `go mate N`: done once a mate in N moves or fewer is proven.
            if let (Some(n), Score::Mate(m)) = (limits.mate, result.score) {
                if m > 0 && m <= n {
                    break;
                }
            }
        }
        result.nodes = self.nodes;
        result.time_ms = self.elapsed_ms();
        result
    }

    /// The principal variation: the root's best move, then TT moves.
    fn extract_pv(&self, board: &Board, first: Move, depth: i32) -> Vec<String> {
        let mut pv = vec![move_to_uci(board, first)];
        let mut b = board.clone();
        b.play_unchecked(first);
        let mut seen = vec![board.hash(), b.hash()];
        while pv.len() < depth.max(1) as usize + 8 {
            let Some(hit) = self.tt_probe(b.hash(), 0) else {
                break;
            };
            let Some(mv) = hit.mv else { break };
            if !b.is_legal(mv) {
                break;
            }
            pv.push(move_to_uci(&b, mv));
            b.play_unchecked(mv);
            if seen.contains(&b.hash()) {
                break;
            }
            seen.push(b.hash());
        }
        pv
    }

    // Step 2: aspiration windows around the previous iteration's score.
    fn aspiration(&mut self, board: &Board, depth: i32, prev: i32) -> i32 {
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

    /// Plain minimax (no cutoffs, no pruning, no TT) over the full-width
    /// part of the tree: a baseline only.
    fn minimax(&mut self, board: &Board, depth: i32, ply: usize) -> i32 {
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

    /// The earlier moves the ordering at `ply` reads: the opponent's last
    /// move and the continuation keys. They stay fixed while the node's
    /// moves are searched, so the move loops look them up once.
    fn order_keys(&self, ply: usize) -> OrderKeys {
        let prev = if ply > 0 {
            let f = &self.stack[ply - 1];
            match (f.piece, f.mv) {
                (Some(p), Some(m)) => Some((p, m.to)),
                _ => None,
            }
        } else {
            None
        };
        let key = |back: usize| {
            if ply >= back {
                self.stack[ply - back].cont_key
            } else {
                None
            }
        };
        OrderKeys {
            prev,
            cont: [key(1), key(2), key(4).filter(|_| self.sp.cont_history_ply4)],
        }
    }

    fn order_ctx(&self, ply: usize, keys: OrderKeys) -> OrderCtx<'_> {
        OrderCtx {
            params: self.sp,
            heur: self.heur,
            values: &self.values,
            ply,
            prev: keys.prev,
            cont: keys.cont,
        }
    }

    /// Score of a draw for the side to move at this node: the engine (root
    /// side) counts a draw as `-contempt_cp`.
    fn draw_value(&self, board: &Board) -> i32 {
        if board.side_to_move() == self.root_stm {
            -self.sp.contempt_cp
        } else {
            self.sp.contempt_cp
        }
    }

    /// Whether `mv` may be searched at the root (`go searchmoves`).
    fn root_allows(&self, mv: Move) -> bool {
        self.root_filter.is_empty() || self.root_filter.contains(&mv)
    }

    /// Static eval of a node: none in check (`-INF`, no standing pat), else
    /// the one cached in the TT entry, computed only without an entry. The
    /// TT keeps this raw eval; `corrected` adjusts it.
    fn static_eval(&mut self, board: &Board, in_check: bool, hit: Option<TtHit>) -> i32 {
        if in_check {
            -INF
        } else {
            hit.map_or_else(|| self.evaluate(board), |h| h.eval)
        }
    }

    /// `raw` (a static eval, `-INF` in check) plus the correction history's
    /// average error for this pawn structure, kept clear of mate scores.
    fn corrected(&self, board: &Board, raw: i32) -> i32 {
        if !self.sp.corr_history || raw == -INF {
            raw
        } else {
            (raw + self.heur.correction.get(board)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
        }
    }

    fn evaluate(&mut self, board: &Board) -> i32 {
        evaluate_cached(board, self.ew, self.eval_cache)
    }

    /// Start loading `key`'s table line for a probe soon (nothing with the
    /// table switched off: no probe follows).
    fn tt_prefetch(&self, key: u64) {
        if self.sp.tt {
            self.tt.prefetch(key);
        }
    }

    fn tt_probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        if self.sp.tt {
            self.tt.probe(key, ply)
        } else {
            None
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn tt_store(
        &mut self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        pv: bool,
        ply: usize,
    ) {
        if self.sp.tt {
            self.tt.store(key, mv, score, eval, depth, bound, pv, ply);
        }
    }

    // Step 12: draws by repetition, the 50-move rule and insufficient material.
    fn draw_score(&self, board: &Board) -> Option<i32> {
        if fifty_move_draw(board) || insufficient_material(board) || self.repeats(board) {
            Some(self.draw_value(board))
        } else {
            None
        }
    }

    /// Whether `board` repeats a position of the game or the search path
    /// since the last null move (once is enough inside the search).
    fn repeats(&self, board: &Board) -> bool {
        repetitions(&self.hashes[self.null_floor..], board) > 0
    }

    /// The negamax alpha-beta node (also PVS and the MTD(f) probes).
    /// Fail-soft; `depth` in sixteenths of a ply. `cut_node`: a non-PV node
    /// expected to fail high (Knuth and Moore's type 2), as the PVS
    /// null-window searches of later moves and their alternating children are.
    fn negamax(
        &mut self,
        board: &Board,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        if depth < ONE_PLY {
            return self.qsearch(board, alpha, beta, ply, self.sp.qs_checks);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.check_abort() {
            return 0;
        }
        let sp = self.sp;
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        let in_check = !board.checkers().is_empty();
        let excluded = self.stack[ply].excluded;
        let us = board.side_to_move();
        let mut d_plies = depth / ONE_PLY;

        if !root {
            // Step 12: draws, and mate distance pruning: no score here can
            // beat a mate already found closer to the root.
            if let Some(v) = self.draw_score(board) {
                return v;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check { 0 } else { self.evaluate(board) };
            }
            if sp.mate_distance_pruning {
                alpha = alpha.max(-MATE + ply as i32);
                beta = beta.min(MATE - ply as i32 - 1);
                if alpha >= beta {
                    return alpha;
                }
            }
        }

        // Step 3: transposition table probe; cutoffs by bound type. A
        // singular-extension search (excluded move) uses its own key.
        let key = match excluded {
            Some(m) => board.hash() ^ (pack_move(m) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            None => board.hash(),
        };
        let hit = self.tt_probe(key, ply);
        // On a principal variation now or when last searched (Stockfish's
        // ttPv): such nodes are where a re-search is likeliest to matter.
        let tt_pv = pv_node || hit.is_some_and(|h| h.pv);
        let mut tt_move = if root {
            self.prev_best.or(hit.and_then(|h| h.mv))
        } else {
            hit.and_then(|h| h.mv)
        };
        if let Some(h) = hit {
            if sp.tt_cutoffs
                && !pv_node
                && !root
                && h.depth >= depth
                && bound_cuts(h.bound, h.score, alpha, beta)
            {
                return h.score;
            }
        }

        let raw_eval = self.static_eval(board, in_check, hit);
        let static_eval = self.corrected(board, raw_eval);
        // A TT score with a fitting bound is a better estimate than the eval.
        let eval = match hit {
            Some(h) if !in_check && !is_mate_score(h.score) => match h.bound {
                Bound::Exact => h.score,
                Bound::Lower if h.score > static_eval => h.score,
                Bound::Upper if h.score < static_eval => h.score,
                _ => static_eval,
            },
            _ => static_eval,
        };
        // Improving: the static eval is above its value two plies earlier
        // (four when that node was in check; unknown counts as improving).
        self.stack[ply].static_eval = if in_check { -INF } else { static_eval };
        let improving = !in_check && {
            let back = |n: usize| {
                if ply >= n {
                    self.stack[ply - n].static_eval
                } else {
                    -INF
                }
            };
            let earlier = if back(2) == -INF { back(4) } else { back(2) };
            earlier == -INF || static_eval > earlier
        };
        // Node-level forward pruning (null move, reverse futility, razoring)
        // only where a wrong guess is cheap: not on the PV, not in check, not
        // inside a singular-extension search. The move-loop pruning of step 7
        // drops single late moves and also runs at PV nodes.
        let prunable = !pv_node && !in_check && excluded.is_none() && !root;

        self.stack[ply + 1].excluded = None;
        self.stack[ply + 1].no_null = self.stack[ply].no_null;
        self.heur.killers[ply + 2] = [None; 4];

        // Step 4: enhanced transposition cutoff: a child whose stored upper
        // bound already refutes it from our side proves a cutoff here. A
        // child that is a draw by rule (a repetition of this path, say) is
        // worth the draw, not its stored score, so it proves nothing.
        if sp.etc
            && sp.tt
            && !pv_node
            && !root
            && excluded.is_none()
            && depth >= sp.etc_min_depth * ONE_PLY
        {
            let mut cut = None;
            let child_depth = depth - ONE_PLY;
            // Every child's key first, each cluster prefetched, then the
            // probes: the table reads overlap instead of waiting one by one.
            let mut children = ArrayList::<(Move, u64), MAX_MOVES>::new();
            board.generate_moves(|pm| {
                for mv in pm {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    let child_key = child.hash();
                    self.tt.prefetch(child_key);
                    children.push((mv, child_key));
                }
                false
            });
            self.hashes.push(repetition_key(board));
            for &(mv, child_key) in children.as_slice() {
                let Some(h) = self.tt.probe(child_key, ply + 1) else {
                    continue;
                };
                if h.depth >= child_depth
                    && matches!(h.bound, Bound::Upper | Bound::Exact)
                    && -h.score >= beta
                {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    if (child.halfmove_clock() as i32) < sp.etc_max_halfmove
                        && self.draw_score(&child).is_none()
                    {
                        cut = Some((mv, -h.score));
                        break;
                    }
                }
            }
            self.hashes.pop();
            if let Some((mv, v)) = cut {
                self.tt_store(key, Some(mv), v, raw_eval, depth, Bound::Lower, tt_pv, ply);
                return v;
            }
        }

        // Step 5: internal iterative deepening: without a TT move, a reduced
        // search finds one to order first.
        if sp.iid && tt_move.is_none() && excluded.is_none() && depth >= sp.iid_min_depth * ONE_PLY
        {
            self.negamax(
                board,
                alpha,
                beta,
                depth - sp.iid_reduction * ONE_PLY,
                ply,
                cut_node,
            );
            if self.aborted {
                return 0;
            }
            tt_move = self.tt_probe(key, ply).and_then(|h| h.mv);
        }
        // Step 5 (alternative): internal iterative reduction: a node the
        // table knows nothing about is likely not worth its full depth.
        if sp.iir
            && tt_move.is_none()
            && excluded.is_none()
            && !root
            && depth >= sp.iir_min_depth * ONE_PLY
        {
            depth -= ONE_PLY;
            d_plies = depth / ONE_PLY;
        }

        // Step 7 (part): reverse futility pruning (static null move). Tried
        // before the null move with `rfp_before_null`.
        let rfp = sp.rfp && prunable && depth <= sp.rfp_max_depth * ONE_PLY && !is_mate_score(beta);
        let rfp_depth = if sp.improving && improving {
            depth - ONE_PLY
        } else {
            depth
        };
        let rfp_margin = sp.rfp_margin_cp * rfp_depth / ONE_PLY;
        if rfp && sp.rfp_before_null && eval - rfp_margin >= beta {
            return eval;
        }

        let mut mate_threat = false;
        // Step 6: null move: give the opponent a free move; if a reduced
        // search still fails high, so would the full one. Adaptive R grows
        // with depth and with the eval margin; zugzwang-prone positions (only
        // pawns) are skipped and deep cutoffs are verified. With
        // `null_move_static_margin` a shallow node only a little above beta
        // is searched, not cut by a null move.
        if sp.null_move
            && prunable
            && !self.stack[ply].no_null
            && depth >= sp.null_move_min_depth * ONE_PLY
            && eval >= beta
            && (!sp.null_move_static_margin
                || static_eval
                    >= beta + sp.null_move_margin_cp - sp.null_move_margin_per_ply_cp * d_plies)
            && !is_mate_score(beta)
            && self.stack[ply - 1].mv.is_some()
            && has_non_pawn_material(board, us)
        {
            let r = sp.null_move_r
                + d_plies / sp.null_move_depth_divisor.max(1)
                + ((eval - beta) / sp.null_move_eval_divisor.max(1)).min(sp.null_move_max_eval_r);
            if let Some(nb) = board.null_move() {
                self.stack[ply].play_null();
                self.hashes.push(repetition_key(board));
                let saved_floor = self.null_floor;
                self.null_floor = self.hashes.len();
                let null_depth = depth - ONE_PLY - r * ONE_PLY;
                let v = if sp.null_move_qs_checks && null_depth < ONE_PLY {
                    // The opponent's free move lands in quiescence, which
                    // sees no quiet threat; quiet checks show the mates we
                    // would walk into.
                    -self.qsearch(&nb, -beta, -beta + 1, ply + 1, true)
                } else {
                    -self.negamax(&nb, -beta, -beta + 1, null_depth, ply + 1, !cut_node)
                };
                self.null_floor = saved_floor;
                self.hashes.pop();
                if self.aborted {
                    return 0;
                }
                if v >= beta {
                    let v = if is_mate_score(v) { beta } else { v };
                    if d_plies < sp.null_move_verify_depth {
                        return v;
                    }
                    let saved = self.stack[ply].no_null;
                    self.stack[ply].no_null = true;
                    let verified =
                        self.negamax(board, beta - 1, beta, depth - r * ONE_PLY, ply, false);
                    self.stack[ply].no_null = saved;
                    self.stack[ply + 1].no_null = saved;
                    if self.aborted {
                        return 0;
                    }
                    if verified >= beta {
                        return v;
                    }
                } else if v <= -MATE_BOUND {
                    // The free move mates us: whatever we play must meet
                    // the threat, so every move may be searched deeper.
                    mate_threat = true;
                }
            }
        }

        // Step 7: pruning by static eval before the moves: reverse futility
        // (static null move) and razoring.
        if rfp && !sp.rfp_before_null && eval - rfp_margin >= beta {
            return eval;
        }
        if sp.razoring && prunable && depth <= sp.razor_max_depth * ONE_PLY {
            let margin = sp.razor_margin_cp * depth / ONE_PLY;
            if eval + margin <= alpha {
                let checks = sp.qs_checks || sp.razor_qs_checks;
                let v = self.qsearch(board, alpha, alpha + 1, ply, checks);
                if self.aborted {
                    return 0;
                }
                if v <= alpha {
                    return v;
                }
            }
        }

        // Step 6 (part): ProbCut (Buro 1995, as Stockfish does it): at a
        // node where some capture wins enough to beat beta by a margin in a
        // reduced search, the full-depth search would most likely fail high
        // as well. Captures that cannot gain the margin by static exchange
        // are not tried; a cheap quiescence probe screens the rest.
        if sp.probcut && prunable && depth >= sp.probcut_min_depth * ONE_PLY && !is_mate_score(beta)
        {
            let pbeta = beta + sp.probcut_margin_cp;
            let pc_depth = depth - sp.probcut_reduction * ONE_PLY;
            // A table entry at least as deep already says it will not reach.
            let hopeless = hit.is_some_and(|h| h.depth >= pc_depth && h.score < pbeta);
            if !hopeless {
                let mut picker = MovePicker::new(tt_move, PickMode::Tactical { checks: false });
                let keys = self.order_keys(ply);
                self.hashes.push(repetition_key(board));
                let mut cut = None;
                while let Some(mv) = {
                    let ctx = self.order_ctx(ply, keys);
                    picker.next(board, &ctx)
                } {
                    if !see_ge(board, mv, pbeta - static_eval, &self.values) {
                        continue;
                    }
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    let capture = captured_piece(board, mv).is_some();
                    self.stack[ply].play(us, mv, board.piece_on(mv.from), capture);
                    let mut v = -self.qsearch(&child, -pbeta, -pbeta + 1, ply + 1, false);
                    if v >= pbeta && !self.aborted {
                        let d = pc_depth - ONE_PLY;
                        v = -self.negamax(&child, -pbeta, -pbeta + 1, d, ply + 1, !cut_node);
                    }
                    if self.aborted || v >= pbeta {
                        cut = Some((mv, v));
                        break;
                    }
                }
                self.hashes.pop();
                if self.aborted {
                    return 0;
                }
                if let Some((mv, v)) = cut {
                    self.tt_store(
                        key,
                        Some(mv),
                        v,
                        raw_eval,
                        pc_depth,
                        Bound::Lower,
                        tt_pv,
                        ply,
                    );
                    return v;
                }
            }
        }

        // Step 9 (part): singular extension of the TT move, decided before
        // the move loop: if every other move fails well below the TT score,
        // the TT move is singular and gets `ext_singular` more.
        let mut singular_move = None;
        let mut singular_ext = 0;
        if sp.singular
            && sp.ext_singular > 0
            && !root
            && excluded.is_none()
            && depth >= sp.singular_min_depth * ONE_PLY
        {
            if let (Some(h), Some(mv)) = (hit, tt_move) {
                if matches!(h.bound, Bound::Lower | Bound::Exact)
                    && h.depth >= depth - sp.singular_tt_depth_slack * ONE_PLY
                    && !is_mate_score(h.score)
                    && h.mv == Some(mv)
                {
                    let sbeta = h.score - sp.singular_margin_cp * d_plies;
                    let verify_depth = (depth - ONE_PLY) / sp.singular_depth_divisor.max(1);
                    self.stack[ply].excluded = Some(mv);
                    let v = self.negamax(board, sbeta - 1, sbeta, verify_depth, ply, cut_node);
                    self.stack[ply].excluded = None;
                    self.stack[ply + 1].excluded = None;
                    self.stack[ply + 1].no_null = self.stack[ply].no_null;
                    if self.aborted {
                        return 0;
                    }
                    if v < sbeta {
                        singular_move = Some(mv);
                        // Far below the bound at a non-PV node: the TT move
                        // carries the node alone, extend it twice.
                        if !pv_node && v < sbeta - sp.singular_double_margin_cp {
                            singular_ext = sp.ext_singular + sp.ext_singular_double;
                        } else {
                            singular_ext = sp.ext_singular;
                        }
                    } else if sp.singular_multicut && sbeta >= beta {
                        // Multi-cut: the TT move and another move both beat
                        // beta; one of them will.
                        return sbeta;
                    } else if h.score >= beta {
                        // Not singular, and the table expects a fail high
                        // anyway: other moves will likely do, so the TT move
                        // gets less depth.
                        singular_move = Some(mv);
                        singular_ext = -sp.singular_negative16;
                    }
                }
            }
        }
        let one_reply = in_check && sp.ext_one_reply > 0 && count_legal(board) == 1;

        // Step 10: move loop over ordered moves (see `movepick`).
        self.hashes.push(repetition_key(board));
        let mut picker = MovePicker::new(tt_move, PickMode::All);
        let mut best = -INF;
        let mut best_move = None;
        let mut move_count = 0usize;
        let mut searched = 0usize;
        let mut skip_quiets = false;
        let mut quiets_tried: [Option<Move>; 64] = [None; 64];
        let mut n_quiets = 0;
        let mut captures_tried: [Option<Move>; 32] = [None; 32];
        let mut n_captures = 0;
        // A worsening node gets half the late-move pruning count.
        let lmp_count = {
            let n = sp.lmp_base + sp.lmp_factor * d_plies * d_plies;
            if sp.improving && !improving {
                n / 2
            } else {
                n
            }
        };
        let algo = sp.search_algorithm;
        let prev = if ply > 0 {
            self.stack[ply - 1]
        } else {
            Frame::default()
        };
        let keys = self.order_keys(ply);
        // With a capture as the TT move, the quiet moves matter even less
        // (looked up only when `lmr_tt_capture16` acts).
        let tt_capture =
            sp.lmr_tt_capture16 != 0 && tt_move.is_some_and(|m| captured_piece(board, m).is_some());
        while let Some(mv) = {
            let ctx = self.order_ctx(ply, keys);
            picker.next(board, &ctx)
        } {
            if Some(mv) == excluded || (root && !self.root_allows(mv)) {
                continue;
            }
            let capture = captured_piece(board, mv).is_some();
            let quiet = !capture && mv.promotion.is_none();
            // The board is copied and the move played only once it survives
            // the pruning below.
            let gives_check = gives_check(board, mv);
            // Late-move and futility pruning drop the remaining quiet moves
            // at once, but never a checking move.
            if quiet && skip_quiets && !gives_check {
                continue;
            }
            move_count += 1;
            let piece = board.piece_on(mv.from);
            // The LMR table's reduction for this move, which both the
            // reduced-depth pruning rules and LMR itself start from.
            let base_r = self.lmr.get(d_plies, move_count);
            // This quiet move's history, looked up at most once for history
            // pruning, futility and LMR.
            let mut hist = None;
            let mut quiet_hist = |p: Piece| {
                *hist.get_or_insert_with(|| self.order_ctx(ply, keys).quiet_history(us, p, mv))
            };

            // Step 7 (in the loop): late-move pruning, futility pruning and
            // SEE pruning, once a move has secured a non-losing score.
            if !root && best > -MATE_BOUND {
                // The depth this move would be searched to after its base
                // late-move reduction, which the futility rules judge by.
                let lmr_d = (d_plies - 1 - base_r / ONE_PLY).max(0);
                if quiet && !gives_check && !in_check {
                    if sp.lmp && move_count as i32 > lmp_count {
                        skip_quiets = true;
                        continue;
                    }
                    // Reduced-depth futility: a late move at depth 7 is
                    // judged as the depth-3 search it would get.
                    if sp.futility && sp.futility_lmr {
                        if lmr_d <= sp.futility_lmr_max_depth {
                            let h = match piece {
                                Some(p) if sp.futility_lmr_history_div > 0 => {
                                    quiet_hist(p) / sp.futility_lmr_history_div
                                }
                                _ => 0,
                            };
                            let margin =
                                sp.futility_lmr_base_cp + sp.futility_lmr_per_ply_cp * lmr_d + h;
                            if static_eval + margin <= alpha {
                                continue;
                            }
                        }
                    } else if sp.futility && d_plies <= 3 {
                        let margin = match d_plies {
                            1 => sp.futility_margin_cp_d1,
                            2 => sp.futility_margin_cp_d2,
                            _ => sp.futility_margin_cp_d3,
                        };
                        if static_eval + margin <= alpha {
                            skip_quiets = true;
                            continue;
                        }
                    }
                    // History pruning: a quiet move that has kept failing
                    // here and after these last moves is not worth a look.
                    if sp.history_prune && d_plies <= sp.history_prune_max_depth && move_count > 1 {
                        if let Some(p) = piece {
                            if quiet_hist(p) < -sp.history_prune_margin * d_plies {
                                continue;
                            }
                        }
                    }
                }
                // Capture futility: even winning the piece outright would
                // leave this node far below alpha.
                if sp.capture_futility
                    && capture
                    && mv.promotion.is_none()
                    && !gives_check
                    && !in_check
                    && lmr_d <= sp.capture_futility_max_depth
                {
                    let victim = captured_piece(board, mv).map_or(0, |v| self.values[v as usize]);
                    let margin =
                        sp.capture_futility_base_cp + sp.capture_futility_per_ply_cp * lmr_d;
                    if static_eval + victim + margin <= alpha {
                        continue;
                    }
                }
                if sp.see_prune && d_plies <= sp.see_prune_max_depth && !(quiet && gives_check) {
                    let margin = if quiet && sp.see_quiet_lmr {
                        // A late quiet move is judged by the shallow search
                        // it would get: at reduced depth 0 any loss prunes.
                        (sp.see_quiet_lmr_quad_cp * lmr_d + sp.see_quiet_lmr_lin_cp) * lmr_d
                    } else if quiet {
                        sp.see_quiet_margin_cp * d_plies
                    } else if gives_check {
                        // A checking sacrifice loses by exchange yet is how
                        // most mating attacks begin.
                        sp.see_check_margin_cp * d_plies
                    } else {
                        sp.see_capture_margin_cp * d_plies
                    };
                    if !see_ge(board, mv, -margin, &self.values) {
                        continue;
                    }
                }
            }

            let mut child = board.clone();
            child.play_unchecked(mv);
            self.tt_prefetch(child.hash());

            // Step 9: extensions in sixteenths of a ply, capped per node.
            let mut ext = 0;
            if gives_check && (!sp.ext_check_see || see_ge(board, mv, 0, &self.values)) {
                ext += sp.ext_check;
            }
            if one_reply {
                ext += sp.ext_one_reply;
            }
            if mate_threat {
                ext += sp.ext_mate_threat;
            }
            if piece == Some(Piece::Pawn) && mv.to.rank() == Rank::Seventh.relative_to(us) {
                ext += sp.ext_pawn_seventh;
            }
            if capture && prev.capture && prev.mv.map(|m| m.to) == Some(mv.to) {
                ext += sp.ext_recapture;
            }
            // The cap tames the cheap extensions that fire on move features
            // alone. A singular move was proven by a search: it may always
            // have its own `ext_singular`, so `ext_max_per_ply = 0` does not
            // switch it off.
            let mut cap = sp.ext_max_per_ply;
            if singular_move == Some(mv) {
                ext += singular_ext;
                cap = cap.max(singular_ext);
            }
            ext = ext.min(cap);
            // Guard against extension chains: beyond a multiple of the
            // nominal depth nothing is extended any more.
            if ply as i32 >= sp.ext_max_ply_factor * self.root_depth {
                ext = 0;
            }
            let new_depth = depth - ONE_PLY + ext;

            // Step 8: late move reductions for late quiet moves and, with
            // `lmr_bad_captures`, for captures that lose by exchange: those
            // come after the quiets in order and are as rarely best. The
            // history term scores quiet moves only.
            let mut r = 0;
            if sp.lmr
                && depth >= sp.lmr_min_depth * ONE_PLY
                && move_count >= sp.lmr_min_move as usize
                && !in_check
                && !gives_check
                && (quiet
                    || (sp.lmr_bad_captures && capture && !see_ge(board, mv, 0, &self.values)))
            {
                r = base_r;
                if pv_node {
                    r -= sp.lmr_pv_less16;
                }
                if tt_pv {
                    r -= sp.lmr_ttpv_less16;
                }
                if !improving {
                    r += sp.lmr_not_improving16;
                }
                // An expected cut node needs only one move to fail high:
                // late moves there are unlikely to matter.
                if cut_node {
                    r += sp.lmr_cut_node16;
                }
                if quiet && tt_capture {
                    r += sp.lmr_tt_capture16;
                }
                if sp.lmr_killer_less16 != 0 && self.is_killer_or_counter(ply, us, mv) {
                    r -= sp.lmr_killer_less16;
                }
                if quiet && sp.lmr_history_divisor > 0 {
                    if let Some(p) = piece {
                        r -= quiet_hist(p) * ONE_PLY / sp.lmr_history_divisor;
                    }
                }
                r = r.min(new_depth - ONE_PLY).max(0);
            }

            self.stack[ply].play(us, mv, piece, capture);
            searched += 1;
            let nodes_before = self.nodes;
            let score = if searched == 1 {
                -self.negamax(
                    &child,
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    !pv_node && !cut_node,
                )
            } else if algo == SearchAlgorithm::AlphaBeta {
                // Plain alpha-beta: full windows; a reduced move that beats
                // alpha is searched again at full depth.
                let mut s = -self.negamax(&child, -beta, -alpha, new_depth - r, ply + 1, false);
                if r > 0 && s > alpha && !self.aborted {
                    let d = new_depth + self.deeper(s, alpha);
                    s = -self.negamax(&child, -beta, -alpha, d, ply + 1, false);
                }
                s
            } else {
                // PVS: prove later moves worse with a null window; re-search
                // unreduced, then with the full window when they are not.
                let mut s = -self.negamax(&child, -alpha - 1, -alpha, new_depth - r, ply + 1, true);
                let mut full_depth = new_depth;
                if r > 0 && s > alpha && !self.aborted {
                    full_depth += self.deeper(s, alpha);
                    s = -self.negamax(&child, -alpha - 1, -alpha, full_depth, ply + 1, !cut_node);
                }
                if pv_node && s > alpha && s < beta && !self.aborted {
                    s = -self.negamax(&child, -beta, -alpha, full_depth, ply + 1, false);
                }
                s
            };
            if root {
                self.root_nodes[root_node_index(mv)] += self.nodes - nodes_before;
            }
            if self.aborted {
                self.hashes.pop();
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    if root {
                        self.root_best = Some((mv, score));
                    }
                    if score >= beta {
                        if quiet {
                            self.update_quiet_stats(
                                board,
                                ply,
                                mv,
                                depth,
                                &quiets_tried[..n_quiets],
                            );
                        }
                        let cut_capture = capture.then_some(mv);
                        self.update_capture_stats(
                            board,
                            cut_capture,
                            depth,
                            &captures_tried[..n_captures],
                        );
                        break;
                    }
                    alpha = score;
                }
            }
            if quiet && n_quiets < quiets_tried.len() {
                quiets_tried[n_quiets] = Some(mv);
                n_quiets += 1;
            }
            if capture && sp.capture_history && n_captures < captures_tried.len() {
                captures_tried[n_captures] = Some(mv);
                n_captures += 1;
            }
        }
        self.hashes.pop();

        if move_count == 0 {
            return if excluded.is_some() {
                alpha
            } else if in_check {
                -MATE + ply as i32
            } else {
                self.draw_value(board)
            };
        }
        if searched == 0 {
            // Every pruning rule needs a searched move first, so this is
            // unreachable; if a future rule prunes everything, fail low.
            return alpha;
        }
        let bound = result_bound(best, beta, best_move.is_some() && pv_node);
        // Correction history learns from searches whose score says how far
        // off the static eval was: not in check (no eval), not a singular
        // verification (a partial search), not settled by a capture (the
        // eval does not try to see tactics), and only where the bound does
        // not contradict the direction of the error.
        if sp.corr_history
            && !in_check
            && excluded.is_none()
            && !is_mate_score(best)
            && best_move.is_none_or(|m| captured_piece(board, m).is_none())
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.heur
                .correction
                .update(board, best - raw_eval, d_plies, sp.corr_history_max_cp);
        }
        // Shallow fail lows say little (Stockfish credits from 3 plies, or
        // on the PV); an expected cut node that failed low, or a PV node,
        // refuted more than expected and counts twice.
        if sp.prior_quiet_bonus > 0
            && bound == Bound::Upper
            && !root
            && excluded.is_none()
            && (d_plies >= 3 || pv_node)
        {
            let weight = sp.prior_quiet_bonus * (1 + i32::from(pv_node || cut_node));
            self.reward_prior_quiet(ply, depth, weight);
        }
        self.tt_store(key, best_move, best, raw_eval, depth, bound, tt_pv, ply);
        best
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

    /// The extra depth of the re-search of a reduced move whose reduced
    /// search scored `s` above `alpha`: a ply with `lmr_deeper` when it
    /// beat alpha by a wide margin (a surprise worth a closer look), else
    /// none.
    fn deeper(&self, s: i32, alpha: i32) -> i32 {
        let sp = self.sp;
        if sp.lmr_deeper && !is_mate_score(s) && s > alpha + sp.lmr_deeper_margin_cp {
            ONE_PLY
        } else {
            0
        }
    }

    /// Capture history after a cutoff at `ply`: the capture that cut (if
    /// `best` is one) gains, the captures tried before it lose.
    fn update_capture_stats(
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

    fn update_quiet_stats(
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

    /// Whether quiet `mv` is a killer of this ply or the countermove.
    fn is_killer_or_counter(&self, ply: usize, us: Color, mv: Move) -> bool {
        let sp = self.sp;
        let count = sp.killer_count.clamp(0, 4) as usize;
        if self.heur.killers[ply][..count].contains(&Some(mv)) {
            return true;
        }
        if sp.countermove && ply > 0 {
            let f = self.stack[ply - 1];
            if let (Some(p), Some(m)) = (f.piece, f.mv) {
                return self.heur.countermove(us, p, m.to) == Some(mv);
            }
        }
        false
    }

    // Step 11: quiescence search.
    fn qsearch(
        &mut self,
        board: &Board,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        checks: bool,
    ) -> i32 {
        if let Some(line) = self.qs_pv.get_mut(ply) {
            line.clear();
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.check_abort() {
            return 0;
        }
        let sp = self.sp;
        let in_check = !board.checkers().is_empty();
        // Step 12 (part): the 50-move rule as in `draw_score`, so a mate
        // delivered on the 100th ply is still a mate. Repetitions are only
        // detected in the main search.
        if fifty_move_draw(board) || insufficient_material(board) {
            return self.draw_value(board);
        }
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.evaluate(board) };
        }
        let pv_node = beta - alpha > 1;
        let key = board.hash();
        let hit = self.tt_probe(key, ply);
        let tt_pv = pv_node || hit.is_some_and(|h| h.pv);
        if let Some(h) = hit {
            if sp.tt_cutoffs && !pv_node && bound_cuts(h.bound, h.score, alpha, beta) {
                return h.score;
            }
        }
        let raw_eval = self.static_eval(board, in_check, hit);
        let stand_pat = self.corrected(board, raw_eval);
        let mut best = stand_pat;
        if !in_check {
            // Stand pat: the side to move may decline every capture.
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
        }
        let mode = if in_check {
            PickMode::All
        } else {
            PickMode::Tactical { checks }
        };
        let tt_move = hit.and_then(|h| h.mv);
        let mut picker = MovePicker::new(tt_move, mode);
        let mut best_move = None;
        let mut any = false;
        let keys = self.order_keys(ply);
        while let Some(mv) = {
            let ctx = self.order_ctx(ply, keys);
            picker.next(board, &ctx)
        } {
            any = true;
            let victim = captured_piece(board, mv);
            if !in_check && (victim.is_some() || mv.promotion.is_some()) {
                // Delta pruning: even winning the victim cannot reach alpha.
                // A check may win far more than its victim (the mate behind
                // a pawn capture on h7), so checks are exempt.
                if sp.delta_pruning && mv.promotion.is_none() {
                    let gain = victim.map_or(0, |v| self.values[v as usize]);
                    if stand_pat + gain + sp.delta_margin_cp <= alpha && !gives_check(board, mv) {
                        continue;
                    }
                }
                // SEE filter: skip captures that lose material.
                if sp.qs_see_filter && !see_ge(board, mv, 0, &self.values) {
                    continue;
                }
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
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1, false);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                    if !self.qs_pv.is_empty() {
                        let (line, rest) = self.qs_pv[ply..].split_at_mut(1);
                        line[0].clear();
                        line[0].push(mv);
                        line[0].extend_from_slice(&rest[0]);
                    }
                }
            }
        }
        if in_check && !any {
            return -MATE + ply as i32;
        }
        let bound = result_bound(best, beta, best_move.is_some() && pv_node);
        self.tt_store(
            key,
            best_move,
            best,
            if in_check { 0 } else { raw_eval },
            0,
            bound,
            tt_pv,
            ply,
        );
        best
    }
}

/// The 50-move rule: 100 plies without capture or pawn move draw, unless
/// the side to move is checkmated (a mate on the 100th ply still counts).
fn fifty_move_draw(board: &Board) -> bool {
    board.halfmove_clock() >= 100 && (board.checkers().is_empty() || board.generate_moves(|_| true))
}

/// What a fail-soft result `best` proves for the stored bound: a fail high
/// is a lower bound; otherwise exact when a move raised alpha at a PV node
/// (`raised_pv`), else an upper bound.
fn result_bound(best: i32, beta: i32, raised_pv: bool) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if raised_pv {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// Whether a stored bound decides the node for the window.
fn bound_cuts(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
        Bound::None => false,
    }
}

/// Whether `side` has a piece other than pawns and the king (null move is
/// unsafe in pawn endings: zugzwang).
fn has_non_pawn_material(board: &Board, side: Color) -> bool {
    let pk = board.pieces(Piece::Pawn) | board.pieces(Piece::King);
    !(board.colors(side) & !pk).is_empty()
}

/// Number of legal moves.
fn count_legal(board: &Board) -> usize {
    let mut n = 0;
    board.generate_moves(|pm| {
        n += pm.len();
        false
    });
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_convert_to_uci_units() {
        assert_eq!(Score::from_internal(37), Score::Cp(37));
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-(MATE - 2)), Score::Mate(-1));
        assert_eq!(Score::from_internal(-MATE), Score::Mate(0));
    }

    /// Quiescence score of `fen` for the side to move, null window at `alpha`.
    fn qsearch_at(fen: &str, alpha: i32) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        let mut s = Searcher::new(Params::default());
        let sp = s.params.search.clone();
        let stop = AtomicBool::new(false);
        let mut worker = s.unlimited_worker(&sp, &stop, pos.board().side_to_move());
        worker.qsearch(pos.board(), alpha, alpha + 1, 0, sp.qs_checks)
    }

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

    #[test]
    fn new_eval_weights_start_a_new_eval_cache() {
        // The evaluation cache must not keep scores of the old weights: after
        // set_params the search is the one a fresh searcher makes.
        let pos = Position::from_fen("4k3/pp3ppp/2p5/3p4/3P4/2P5/PP3PPP/4K3 w - - 0 1").unwrap();
        let limits = Limits {
            depth: Some(7),
            ..Limits::default()
        };
        let stop = AtomicBool::new(false);
        let mut p = Params::default();
        let mut s = Searcher::new(p.clone());
        s.search(&pos, &limits, &stop, &mut |_| {});
        p.eval.pawn_isolated = crate::eval::weights::S(-90, -150);
        p.eval.pawn_phalanx[1] = crate::eval::weights::S(60, 80);
        s.set_params(p.clone());
        s.new_game();
        let again = s.search(&pos, &limits, &stop, &mut |_| {});
        let fresh = Searcher::new(p).search(&pos, &limits, &stop, &mut |_| {});
        assert_eq!(
            (again.nodes, again.score, again.best_move),
            (fresh.nodes, fresh.score, fresh.best_move)
        );
    }

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
        let legal = crate::board::position::legal_moves(board);
        let counted = (0..64 * 64).filter(|&i| worker.root_nodes[i] > 0).count();
        assert_eq!(counted, legal.len(), "every root move searched and counted");
        for mv in legal {
            assert!(worker.root_nodes[root_node_index(mv)] > 0, "{mv}");
        }
    }

    #[test]
    fn lmr_table_follows_the_parameters() {
        let mut p = Params::default();
        let mut s = Searcher::new(p.clone());
        let before = s.lmr.get(10, 20);
        assert!(
            before > s.lmr.get(3, 4),
            "reductions grow with depth and move number"
        );
        p.search.lmr_base += 100;
        s.set_params(p.clone());
        assert_eq!(s.lmr.get(10, 20), before + ONE_PLY);
        p.search.lmr_divisor *= 2;
        s.set_params(p);
        assert!(s.lmr.get(10, 20) < before + ONE_PLY);
    }

    #[test]
    fn insufficient_material_cases() {
        for (fen, draw) in [
            ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", true),
            ("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", true),
            ("8/8/4kb2/8/8/3K4/8/8 w - - 0 1", true),
            ("8/8/4kb2/8/8/3KN3/8/8 w - - 0 1", false),
            ("8/8/4k3/8/8/3KP3/8/8 w - - 0 1", false),
            // Bishops all on dark squares cannot mate either.
            ("8/8/4kb2/8/8/3KB3/8/8 w - - 0 1", true),
            ("8/8/4kb2/8/8/3K1B2/8/8 w - - 0 1", false),
        ] {
            let b: Board = fen.parse().unwrap();
            assert_eq!(insufficient_material(&b), draw, "{fen}");
        }
    }
}
