//! The search: iterative deepening over a negamax alpha-beta (or PVS, MTD(f),
//! plain minimax) with every classic heuristic switchable and every constant
//! a field of [`SearchParams`](crate::params::SearchParams).
//!
//! With `Threads` above 1 the search is Lazy SMP (see `searcher`): helper
//! threads search the same root and share the transposition table, whose
//! entries are atomic words; one thread is the plain search.
//!
//! Depth is kept in sixteenths of a ply ([`types::ONE_PLY`]) so extensions
//! and reductions can be fractional. The [`Searcher`] owns the
//! transposition table ([`tt`]) and the history tables ([`history`]); they
//! persist between searches until [`Searcher::new_game`]. Only the time
//! limits ([`timeman`]) read the clock: a search at fixed depth or nodes
//! from a fresh state is deterministic (with one thread).
//!
//! # Files
//! - `searcher`: [`Searcher`], the public face, and what a search reports;
//! - `worker`: one search's state and what every algorithm shares (abort,
//!   draw rules, static eval, table switches);
//! - `deepening`: the root: iterative deepening, aspiration windows,
//!   MTD(f), time checks between iterations, the principal variation;
//! - `node`: a main-search node, steps 1 to 11 and 18 to 20 below;
//! - `moves`: its move loop, steps 12 to 17, and `lmr`, the reduction
//!   table;
//! - `stats`: what a node teaches the history tables;
//! - `qsearch`: the quiescence search (its own steps in its file);
//! - `minimax`: plain minimax, a baseline;
//! - [`tablebase`]: Syzygy probes in the tree and the root's DTZ filter;
//! - [`movepick`], [`history`], [`correction`], [`tt`], [`timeman`],
//!   [`types`]: move ordering, the tables the search learns, the
//!   transposition table, time management, shared units and limits.
//!
//! # A node, step by step
//! The steps of `negamax`, numbered in the order they run (`// Step N.`
//! or `/// Step N.` marks each in the code, as in Stockfish's `search()`):
//! 1. Initialize the node: below one ply the quiescence search takes
//!    over; count the node; stop on the node limit, the stop flag or the
//!    hard time limit.
//! 2. Draws and mate distance (not at the root): a draw by repetition, the
//!    50-move rule or insufficient material; the ply limit; mate distance
//!    pruning.
//! 3. Transposition table lookup: the entry (a singular search keys its
//!    own), ttPv, the move to try first; a cutoff by the stored bound at
//!    non-PV nodes.
//!    3b. Tablebases (`SyzygyPath`): after a capture or pawn move, a
//!    position in the tables is bounded by its WDL; a cut or a draw ends
//!    the node.
//! 4. Static evaluation: raw (cached in the entry), corrected by the
//!    correction history, refined by a fitting TT bound; improving; whether
//!    node-level pruning may act.
//! 5. Enhanced transposition cutoff: a child's stored bound proves a
//!    cutoff here.
//! 6. Internal iterative deepening (a reduced search finds a TT move) or
//!    internal iterative reduction (no TT move: one ply less).
//! 7. Reverse futility pruning (static null move); with
//!    `rfp_before_null = false` it runs right after step 8 instead.
//! 8. Null move pruning, with verification at depth; a mated null move
//!    marks a mate threat.
//! 9. Razoring: far below alpha, a quiescence search confirms the fail low.
//! 10. ProbCut: a capture that beats beta by a margin in a reduced search.
//! 11. Singular extension test of the TT move, with multi-cut and the
//!     negative extension.
//! 12. Loop over the moves, best first ([`movepick`]): skip the excluded
//!     move, root moves outside `go searchmoves` and pruned quiets.
//! 13. Pruning at shallow depth: late-move, futility and history pruning of
//!     quiet moves; capture futility; SEE pruning.
//! 14. Extensions: check, single reply, mate threat, pawn to the seventh,
//!     recapture, singular; capped per move and by the path length.
//! 15. Late move reductions.
//! 16. Search the move: the first with the full window, the rest by
//!     alpha-beta or PVS with their re-searches.
//! 17. A new best move raises alpha; a fail high updates the quiet and
//!     capture histories, killers and countermove, and ends the loop.
//! 18. Mate and stalemate: no legal move.
//! 19. Update histories from the result: correction history, the prior
//!     countermove bonus of a fail low.
//! 20. Store the result in the transposition table.
//!
//! Time management runs between iterations (`deepening`) and in step 1's
//! abort check (the hard limit).

pub mod correction;
mod deepening;
pub mod history;
mod lmr;
mod minimax;
pub mod movepick;
mod moves;
mod node;
mod qsearch;
mod searcher;
mod stats;
pub mod tablebase;
pub mod timeman;
pub mod tt;
pub mod types;
mod worker;

pub use searcher::{
    QuietLeaf, SearchInfo, SearchResult, Searcher, SEARCH_STACK_BYTES, THREADS_MAX,
};
