//! One search's state, [`Worker`]: the tables it borrows from the
//! [`super::Searcher`], the limits, the node counters, the path's
//! repetition keys and the per-ply stack of [`Frame`]s. The search
//! algorithms are `impl Worker` blocks in their own files (`deepening`,
//! `node`, `moves`, `qsearch`, `minimax`, `stats`); this file holds what
//! they all use: aborting, the draw rules, the static eval, the
//! transposition-table switches and the keys the move ordering reads.
//! In a parallel search each thread runs its own worker on the shared
//! table; the helpers publish their node counts for the main thread.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use cozy_chess::{Board, Color, Move, Piece, Square};

use super::history::{ContKey, Heuristics};
use super::lmr::LmrTable;
use super::movepick::OrderCtx;
use super::tablebase::Tablebases;
use super::timeman::TimeBudget;
use super::tt::{Bound, TransTable, TtHit};
use super::types::{INF, MATE_BOUND, MAX_PLY};
use crate::board::position::{insufficient_material, repetitions};
use crate::board::see::PieceValues;
use crate::eval::{evaluate_cached, EvalCache};
use crate::params::{EvalWeights, SearchParams};

/// The earlier moves the ordering at one ply reads (see
/// [`Worker::order_keys`]).
#[derive(Clone, Copy)]
pub(super) struct OrderKeys {
    /// The opponent's last move (piece, destination), for countermoves.
    pub(super) prev: Option<(Piece, Square)>,
    /// The moves one, two and four plies back, for continuation history.
    pub(super) cont: [Option<ContKey>; 3],
}

/// Per-ply search state.
#[derive(Clone, Copy, Default)]
pub(super) struct Frame {
    /// Move played from this ply (None for a null move).
    pub(super) mv: Option<Move>,
    /// Piece that made it.
    pub(super) piece: Option<Piece>,
    /// Whether it captured.
    pub(super) capture: bool,
    /// The move as continuation history keys it (None for a null move).
    pub(super) cont_key: Option<ContKey>,
    /// Static evaluation of this node; `-INF` in check or not computed.
    pub(super) static_eval: i32,
    /// Move excluded from this node (singular-extension search).
    pub(super) excluded: Option<Move>,
    /// Null move forbidden in this subtree (null-move verification).
    pub(super) no_null: bool,
}

impl Frame {
    /// Record the move played from this ply, as the children read it
    /// (countermove, continuation history, recapture extension).
    pub(super) fn play(&mut self, us: Color, mv: Move, piece: Option<Piece>, capture: bool) {
        self.mv = Some(mv);
        self.piece = piece;
        self.capture = capture;
        self.cont_key = piece.map(|p| (us, p, mv.to));
    }

    /// Record a null move: the children see no previous move.
    pub(super) fn play_null(&mut self) {
        self.mv = None;
        self.piece = None;
        self.capture = false;
        self.cont_key = None;
    }
}

/// A helper thread's node count as it publishes it, alone on its cache
/// line so that the helpers' writes do not slow each other.
#[derive(Default)]
#[repr(align(64))]
pub(super) struct NodeCount(pub(super) AtomicU64);

/// One search: the searcher's tables, borrowed, and the state of the
/// search in progress.
pub(super) struct Worker<'a> {
    pub(super) sp: &'a SearchParams,
    pub(super) ew: &'a EvalWeights,
    pub(super) tt: &'a TransTable,
    pub(super) heur: &'a mut Heuristics,
    pub(super) lmr: &'a LmrTable,
    pub(super) eval_cache: &'a mut EvalCache,
    pub(super) values: PieceValues,
    pub(super) stop: &'a AtomicBool,
    pub(super) start: Instant,
    pub(super) budget: TimeBudget,
    pub(super) node_limit: u64,
    pub(super) nodes: u64,
    pub(super) seldepth: usize,
    /// Limits apply only once depth 1 has completed.
    pub(super) armed: bool,
    pub(super) aborted: bool,
    /// Repetition keys ([`crate::board::position::repetition_key`]) of the
    /// positions before the current one: game, then path.
    pub(super) hashes: Vec<u64>,
    /// How many of `hashes` are the game's (the rest is the search path).
    pub(super) game_len: usize,
    /// Index in `hashes` of the first position after the last null move on
    /// the path: a repetition must not pass through a null move.
    pub(super) null_floor: usize,
    pub(super) stack: Vec<Frame>,
    /// Root moves to search (`go searchmoves`); empty means all.
    pub(super) root_filter: Vec<Move>,
    /// Best root move of the current iteration and its score.
    pub(super) root_best: Option<(Move, i32)>,
    /// Best move of the previous iteration, searched first at the root.
    pub(super) prev_best: Option<Move>,
    /// Nodes searched below each root move so far, by `from * 64 + to`
    /// (time management's node fraction). Sized by `iterate` alone, so the
    /// quiet leaves Texel extraction asks for by the million do not pay.
    pub(super) root_nodes: Vec<u64>,
    /// Nominal depth of the current iteration (plies).
    pub(super) root_depth: i32,
    pub(super) root_stm: Color,
    /// Triangular principal variation, one line per ply: a PV node's line
    /// is the move that raised alpha and its child's line, so the root's
    /// is the searched line down to the mate or leaf (the TT's moves may
    /// have been replaced by other lines' since). Empty (not collected)
    /// except in the main thread's search and
    /// [`super::Searcher::quiet_leaf`].
    pub(super) pv_lines: Vec<Vec<Move>>,
    /// A parallel search: every thread's published node count, which the
    /// node limit and the reports count. Empty with one thread.
    pub(super) thread_nodes: &'a [NodeCount],
    /// This thread's index in `thread_nodes` (0, the main thread, reports).
    pub(super) thread: usize,
    /// Chess960: moves in reports are written king-takes-rook.
    pub(super) chess960: bool,
    /// Syzygy tables (`SyzygyPath`), and the most pieces a probe takes
    /// (0 without tables: then no probe costs more than this test).
    pub(super) tb: Option<&'a Tablebases>,
    pub(super) tb_cardinality: u32,
    /// Successful tablebase probes of this thread.
    pub(super) tbhits: u64,
}

/// Index of a root move in [`Worker::root_nodes`] (under-promotions share
/// their queen promotion's slot, which the node fraction can afford).
pub(super) fn root_node_index(mv: Move) -> usize {
    mv.from as usize * 64 + mv.to as usize
}

/// Whether `v` is a mate score (either side).
pub(super) fn is_mate_score(v: i32) -> bool {
    v.abs() >= MATE_BOUND
}

/// The 50-move rule: 100 plies without capture or pawn move draw, unless
/// the side to move is checkmated (a mate on the 100th ply still counts).
pub(super) fn fifty_move_draw(board: &Board) -> bool {
    board.halfmove_clock() >= 100 && (board.checkers().is_empty() || board.generate_moves(|_| true))
}

/// What a fail-soft result `best` proves for the stored bound: a fail high
/// is a lower bound; otherwise exact when a move raised alpha at a PV node
/// (`raised_pv`), else an upper bound.
pub(super) fn result_bound(best: i32, beta: i32, raised_pv: bool) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if raised_pv {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// Whether a stored bound decides the node for the window.
pub(super) fn bound_cuts(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
        Bound::None => false,
    }
}

impl<'a> Worker<'a> {
    pub(super) fn new(
        sp: &'a SearchParams,
        ew: &'a EvalWeights,
        tt: &'a TransTable,
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
            game_len: hashes.len(),
            hashes,
            null_floor: 0,
            stack: vec![Frame::default(); MAX_PLY + 4],
            root_filter: Vec::new(),
            root_best: None,
            prev_best: None,
            root_nodes: Vec::new(),
            root_depth: 0,
            root_stm,
            pv_lines: Vec::new(),
            thread_nodes: &[],
            thread: 0,
            chess960: false,
            tb: None,
            tb_cardinality: 0,
            tbhits: 0,
        }
    }

    /// Nodes searched by this search: this thread's and the other threads'
    /// as last published.
    pub(super) fn total_nodes(&self) -> u64 {
        let others: u64 = (self.thread_nodes.iter().enumerate())
            .filter(|&(i, _)| i != self.thread)
            .map(|(_, c)| c.0.load(Ordering::Relaxed))
            .sum();
        self.nodes + others
    }

    /// Search with `tb` (none: no probes).
    pub(super) fn use_tablebases(&mut self, tb: Option<&'a Tablebases>) {
        self.tb = tb;
        self.tb_cardinality = tb.map_or(0, Tablebases::cardinality);
    }

    /// Make this thread's node count visible to the others.
    pub(super) fn publish_nodes(&self) {
        if let Some(c) = self.thread_nodes.get(self.thread) {
            c.0.store(self.nodes, Ordering::Relaxed);
        }
    }

    pub(super) fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Abort on the node limit, the stop flag or the hard time limit (the
    /// time manager's hard limit, see [`super::timeman`]). The clock is
    /// read only every 64 nodes; so are the other threads' node counts, for
    /// a node limit over all threads, when this one's is published. Nothing
    /// aborts the main thread's depth 1: however short the budget, the move
    /// returned was searched.
    pub(super) fn check_abort(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if !self.armed {
            return false;
        }
        if self.nodes >= self.node_limit {
            self.aborted = true;
        } else if self.nodes & 63 == 1 {
            self.publish_nodes();
            if self.stop.load(Ordering::Relaxed) || self.total_nodes() >= self.node_limit {
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

    /// The earlier moves the ordering at `ply` reads: the opponent's last
    /// move and the continuation keys. They stay fixed while the node's
    /// moves are searched, so the move loops look them up once.
    pub(super) fn order_keys(&self, ply: usize) -> OrderKeys {
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

    pub(super) fn order_ctx(&self, ply: usize, keys: OrderKeys) -> OrderCtx<'_> {
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
    pub(super) fn draw_value(&self, board: &Board) -> i32 {
        if board.side_to_move() == self.root_stm {
            -self.sp.contempt_cp
        } else {
            self.sp.contempt_cp
        }
    }

    /// Whether `mv` may be searched at the root (`go searchmoves`).
    pub(super) fn root_allows(&self, mv: Move) -> bool {
        self.root_filter.is_empty() || self.root_filter.contains(&mv)
    }

    /// Static eval of a node: none in check (`-INF`, no standing pat), else
    /// the one cached in the TT entry, computed only without an entry. The
    /// TT keeps this raw eval; `corrected` adjusts it.
    pub(super) fn static_eval(&mut self, board: &Board, in_check: bool, hit: Option<TtHit>) -> i32 {
        if in_check {
            -INF
        } else {
            hit.map_or_else(|| self.evaluate(board), |h| h.eval)
        }
    }

    /// `raw` (a static eval, `-INF` in check) plus the correction history's
    /// average error for this pawn structure, kept clear of mate scores.
    pub(super) fn corrected(&self, board: &Board, raw: i32) -> i32 {
        if !self.sp.corr_history || raw == -INF {
            raw
        } else {
            (raw + self.heur.correction.get(board)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
        }
    }

    pub(super) fn evaluate(&mut self, board: &Board) -> i32 {
        evaluate_cached(board, self.ew, self.eval_cache)
    }

    /// Start loading `key`'s table line for a probe soon (nothing with the
    /// table switched off: no probe follows).
    pub(super) fn tt_prefetch(&self, key: u64) {
        if self.sp.tt {
            self.tt.prefetch(key);
        }
    }

    /// A node at `ply` starts with no line of its own.
    #[inline(always)]
    pub(super) fn clear_pv(&mut self, ply: usize) {
        if let Some(line) = self.pv_lines.get_mut(ply) {
            line.clear();
        }
    }

    /// `mv` raised alpha at `ply`: its line is `mv`, then the child's.
    #[inline(always)]
    pub(super) fn raise_pv(&mut self, ply: usize, mv: Move) {
        if ply + 1 < self.pv_lines.len() {
            let (line, rest) = self.pv_lines[ply..].split_at_mut(1);
            line[0].clear();
            line[0].push(mv);
            line[0].extend_from_slice(&rest[0]);
        }
    }

    pub(super) fn tt_probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        if self.sp.tt {
            self.tt.probe(key, ply)
        } else {
            None
        }
    }

    pub(super) fn tt_store(
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

    /// Draws by rule: repetition, the 50-move rule, insufficient material.
    pub(super) fn draw_score(&self, board: &Board) -> Option<i32> {
        if drawn_by_rule(board, &self.hashes[self.null_floor..]) {
            Some(self.draw_value(board))
        } else {
            None
        }
    }
}

/// The search's draws by rule: the 50-move rule, insufficient material, or
/// `board` repeating one of the `earlier` positions' repetition keys (once
/// is enough: a line that repeats can be repeated again to a draw).
pub(super) fn drawn_by_rule(board: &Board, earlier: &[u64]) -> bool {
    fifty_move_draw(board) || insufficient_material(board) || repetitions(earlier, board) > 0
}
