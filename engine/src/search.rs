//! STUB: replaced by the engine-core work. Public API must stay.
use std::sync::atomic::AtomicBool;

use crate::{Params, Position};

/// Limits of one search, as the UCI `go` command gives them. All optional;
/// none set means infinite (until stopped).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub movetime_ms: Option<u64>,
    pub wtime_ms: Option<u64>,
    pub btime_ms: Option<u64>,
    pub winc_ms: Option<u64>,
    pub binc_ms: Option<u64>,
    pub movestogo: Option<u32>,
    pub infinite: bool,
}

/// A search score from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in N moves (not plies); negative when the side to move is mated.
    Mate(i32),
}

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

/// A single-threaded searcher that owns its transposition table and
/// move-ordering state between searches (cleared by [`Searcher::new_game`]).
pub struct Searcher {
    params: Params,
}

impl Searcher {
    pub fn new(params: Params) -> Self {
        Searcher { params }
    }
    pub fn params(&self) -> &Params {
        &self.params
    }
    pub fn set_params(&mut self, params: Params) {
        self.params = params;
    }
    /// Resize the transposition table (clears it).
    pub fn set_hash_mb(&mut self, mb: usize) {
        let _ = mb;
    }
    /// Forget everything learned (TT, history, killers): `ucinewgame`.
    pub fn new_game(&mut self) {}
    /// Search `pos` within `limits`; `stop` aborts early (the best move found so
    /// far is returned); `info` receives one call per finished iteration.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let _ = (pos, limits, stop, info);
        unimplemented!("stub")
    }
}
