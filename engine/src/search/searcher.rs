//! The search's public face: [`Searcher`] owns the transposition table, the
//! history tables, the reduction table and the evaluation cache between
//! searches, and starts one [`Worker`] per search thread; [`SearchInfo`]
//! and [`SearchResult`] are what a search reports.
//!
//! With more than one thread the search is Lazy SMP: helper threads search
//! the same root on the shared table, each with its own history tables
//! and evaluation cache (kept between searches like the main thread's);
//! the main thread alone reports, decides the move and keeps time, and
//! stops the helpers when it is done. One thread is the plain search, with
//! no thread started.

use std::collections::TryReserveError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use cozy_chess::{Board, Color, Move};

use super::history::Heuristics;
use super::lmr::LmrTable;
use super::tablebase::Tablebases;
use super::timeman::{budget, TimeBudget};
use super::tt::{TransTable, TtHit, HASH_DEFAULT_MB, HASH_MIN_MB};
use super::types::{Limits, Score, INF, MAX_PLY};
use super::worker::{NodeCount, Worker};
use crate::eval::EvalCache;
use crate::params::SearchParams;
use crate::{Params, Position};

/// One `info` line's worth of progress.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    /// Nominal depth of the iteration (plies).
    pub depth: i32,
    /// Deepest ply (the root's children are ply 1) any node of this
    /// iteration reached, quiescence included; below `depth` when every
    /// line ends early, in a mate or a draw.
    pub seldepth: i32,
    /// Score from the side to move's view.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub time_ms: u64,
    /// Transposition-table use, per mille.
    pub hashfull: u32,
    /// Tablebase probes that found their position (the main thread's).
    pub tbhits: u64,
    /// Principal variation in UCI notation; it ends at a draw by rule.
    pub pv: Vec<String>,
}

/// The outcome of a finished search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Best move in UCI notation; `None` only when there is no legal move.
    pub best_move: Option<String>,
    /// The expected reply (the principal variation's second move).
    pub ponder: Option<String>,
    /// Score from the side to move's view.
    pub score: Score,
    /// Depth of the iteration the best move comes from (plies).
    pub depth: i32,
    /// Deepest ply reached in the last completed iteration.
    pub seldepth: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time the search took.
    pub time_ms: u64,
    /// Principal variation in UCI notation.
    pub pv: Vec<String>,
}

/// Most search threads (the UCI `Threads` option's maximum).
pub const THREADS_MAX: usize = 64;

/// Stack of every search thread: the search recurses deeply, well beyond
/// the 2 MiB a spawned thread gets by default.
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// A searcher that owns its transposition table and move-ordering state
/// between searches (cleared by [`Searcher::new_game`]), for one thread or
/// several ([`Searcher::set_threads`]).
pub struct Searcher {
    pub(super) params: Params,
    pub(super) tt: TransTable,
    pub(super) heur: Box<Heuristics>,
    pub(super) lmr: LmrTable,
    /// Pawn-structure terms of the current evaluation weights.
    pub(super) eval_cache: EvalCache,
    /// The helper threads' own tables, one per thread beyond the first.
    helpers: Vec<HelperTables>,
    /// Syzygy tables every thread probes (`SyzygyPath`).
    tablebases: Option<Arc<Tablebases>>,
}

/// Raises its flag when dropped.
struct RaiseOnDrop<'a>(&'a AtomicBool);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What a helper thread learns and keeps between searches.
struct HelperTables {
    heur: Box<Heuristics>,
    eval_cache: EvalCache,
}

impl HelperTables {
    fn new() -> Self {
        HelperTables {
            heur: Box::new(Heuristics::new()),
            eval_cache: EvalCache::new(),
        }
    }
}

impl Searcher {
    /// A searcher with a table of [`HASH_DEFAULT_MB`].
    pub fn new(params: Params) -> Self {
        Self::with_hash_mb(params, HASH_DEFAULT_MB)
    }

    /// A searcher with a table of `mb` MiB (at least [`HASH_MIN_MB`]).
    /// Tools that only call [`Self::quiet_leaf`] need no more than the minimum.
    pub fn with_hash_mb(params: Params, mb: usize) -> Self {
        let lmr = LmrTable::new(&params.search);
        Searcher {
            params,
            tt: TransTable::new(mb.max(HASH_MIN_MB)),
            heur: Box::new(Heuristics::new()),
            lmr,
            eval_cache: EvalCache::new(),
            helpers: Vec::new(),
            tablebases: None,
        }
    }

    /// Number of search threads (1 to [`THREADS_MAX`]).
    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Search with `n` threads from the next search on (clamped to 1 ..=
    /// [`THREADS_MAX`]). Helpers that stay keep what they learned.
    pub fn set_threads(&mut self, n: usize) {
        self.helpers
            .resize_with(n.clamp(1, THREADS_MAX) - 1, HelperTables::new);
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
            for h in &mut self.helpers {
                h.eval_cache.clear();
            }
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

    /// Probe `tb` from now on (`None`: no tables, no probes).
    pub fn set_tablebases(&mut self, tb: Option<Arc<Tablebases>>) {
        self.tablebases = tb;
    }

    /// The tables the search probes.
    pub fn tablebases(&self) -> Option<&Arc<Tablebases>> {
        self.tablebases.as_ref()
    }

    /// Forget everything learned (TT, history, killers): `ucinewgame`.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.heur.clear();
        for h in &mut self.helpers {
            h.heur.clear();
        }
    }

    /// Search `pos` within `limits`; `stop` aborts early (the best move found so
    /// far is returned); `info` receives one call per finished iteration.
    /// With more than one thread, the result and the reports are the main
    /// thread's, their node counts all threads'.
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
        // Each thread's repetition keys: the game's, then its path.
        let game_keys = || {
            let mut hashes = Vec::with_capacity(pos.history().len() + MAX_PLY + 8);
            hashes.extend_from_slice(pos.history());
            hashes
        };
        let Searcher {
            params,
            tt,
            heur,
            lmr,
            eval_cache,
            helpers,
            tablebases,
        } = self;
        let tb = tablebases.as_deref();
        let (params, tt, lmr) = (&*params, &*tt, &*lmr);
        let side = board.side_to_move();
        let mut main = |thread_nodes: &[NodeCount]| {
            let mut worker = Worker::new(
                &params.search,
                &params.eval,
                tt,
                heur,
                lmr,
                eval_cache,
                stop,
                start,
                budget(limits, side, &params.search),
                limits.nodes.unwrap_or(u64::MAX),
                game_keys(),
                side,
            );
            worker.thread_nodes = thread_nodes;
            worker.chess960 = pos.chess960();
            worker.use_tablebases(tb);
            worker.iterate(&board, limits, info)
        };
        if helpers.is_empty() {
            return main(&[]);
        }
        let counts: Vec<NodeCount> = (0..=helpers.len()).map(|_| NodeCount::default()).collect();
        let helpers_stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            // Raised when the main thread is done, even by a panic: the
            // scope waits for the helpers, which would otherwise search on.
            let _stop_helpers = RaiseOnDrop(&helpers_stop);
            for (i, h) in helpers.iter_mut().enumerate() {
                let (board, hashes, helpers_stop) = (&board, game_keys(), &helpers_stop);
                let counts = &counts;
                let helper = move || {
                    let mut worker = Worker::new(
                        &params.search,
                        &params.eval,
                        tt,
                        &mut h.heur,
                        lmr,
                        &mut h.eval_cache,
                        helpers_stop,
                        start,
                        TimeBudget::default(),
                        limits.nodes.unwrap_or(u64::MAX),
                        hashes,
                        side,
                    );
                    worker.thread_nodes = counts;
                    worker.thread = i + 1;
                    worker.use_tablebases(tb);
                    worker.iterate_helper(board, limits, i + 1);
                };
                // A helper the system cannot start leaves its share to the
                // others; the search goes on.
                let _ = std::thread::Builder::new()
                    .name(format!("search helper {}", i + 1))
                    .stack_size(SEARCH_STACK_BYTES)
                    .spawn_scoped(scope, helper);
            }
            main(&counts)
        })
    }

    /// A worker on this searcher's tables with no node or time limit, for
    /// searches outside `search` (quiet leaves, tests).
    pub(super) fn unlimited_worker<'a>(
        &'a mut self,
        sp: &'a SearchParams,
        stop: &'a AtomicBool,
        root_side: Color,
    ) -> Worker<'a> {
        Worker::new(
            sp,
            &self.params.eval,
            &self.tt,
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
    /// own quiescence search from `board` with a full window, its
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
        worker.pv_lines = vec![Vec::new(); MAX_PLY + 4];
        let score = worker.qsearch(board, -INF, INF, 0, sp.qs_checks);
        let pv = std::mem::take(&mut worker.pv_lines[0]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::weights::S;
    use crate::search::types::ONE_PLY;

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
        p.eval.pawn_isolated = S(-90, -150);
        p.eval.pawn_phalanx[1] = S(60, 80);
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

    /// Two threads: the helper searches too (its own history tables learn),
    /// the move is legal, and going back to one thread is the plain search
    /// again, node for node.
    #[test]
    fn helpers_search_and_one_thread_is_the_plain_search() {
        let pos = Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        )
        .unwrap();
        let limits = Limits {
            depth: Some(9),
            ..Limits::default()
        };
        let stop = AtomicBool::new(false);
        let plain = Searcher::new(Params::default()).search(&pos, &limits, &stop, &mut |_| {});
        let mut s = Searcher::new(Params::default());
        s.set_threads(2);
        assert_eq!(s.threads(), 2);
        let two = s.search(&pos, &limits, &stop, &mut |_| {});
        let mv = two.best_move.as_deref().unwrap();
        assert!(pos.parse_uci(mv).is_ok(), "{mv}");
        assert_eq!(two.depth, 9);
        let learned = s.helpers[0]
            .heur
            .history_table(Color::White)
            .iter()
            .any(|&h| h != 0);
        assert!(learned, "the helper thread searched nothing");
        s.set_threads(1);
        s.new_game();
        let again = s.search(&pos, &limits, &stop, &mut |_| {});
        assert_eq!(
            (again.nodes, again.score, again.best_move, again.pv),
            (plain.nodes, plain.score, plain.best_move, plain.pv)
        );
        s.set_threads(THREADS_MAX + 10);
        assert_eq!(s.threads(), THREADS_MAX);
        s.set_threads(0);
        assert_eq!(s.threads(), 1);
    }
}
