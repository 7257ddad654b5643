//! Values every layer of the engine shares: depth units, score bounds and
//! the search limits. They live here, below the search, the transposition
//! table, the time manager and the move picker, so that none of those has to
//! import another to name them (Stockfish's `types.h` plays the same role).

use std::time::Instant;

use cozy_chess::Move;

/// Scores at or beyond this magnitude are mates (mates as `MATE - plies`).
pub const MATE: i32 = 31_000;
/// Longest search path; scores within this many plies of `MATE` are mates.
pub const MAX_PLY: usize = 128;
/// Lowest magnitude of a mate score.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// One ply in depth units: depths are in sixteenths of a ply.
pub const ONE_PLY: i32 = 16;
/// Larger than any score.
pub const INF: i32 = 32_000;
/// Deepest iteration.
pub const MAX_DEPTH: i32 = 100;

/// Limits of one search, as the UCI `go` command gives them. All optional;
/// none set means infinite (until stopped). Whatever the limits, depth 1 is
/// always completed, so the move returned has been searched.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Deepest iteration (plies).
    pub depth: Option<i32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Time for this move.
    pub movetime_ms: Option<u64>,
    /// White's clock.
    pub wtime_ms: Option<u64>,
    /// Black's clock.
    pub btime_ms: Option<u64>,
    /// White's increment per move.
    pub winc_ms: Option<u64>,
    /// Black's increment per move.
    pub binc_ms: Option<u64>,
    /// Moves until the next time control.
    pub movestogo: Option<u32>,
    /// Search until stopped (`go infinite`).
    pub infinite: bool,
    /// Stop once a mate in at most this many moves is found (`go mate N`).
    pub mate: Option<i32>,
    /// Search only these root moves (`go searchmoves`); empty means all.
    /// Moves that are not legal are ignored; if none is, all are searched.
    pub searchmoves: Vec<Move>,
    /// When the request arrived (the UCI `go`): the time limits count from
    /// here, so work done before the search starts is charged to it. `None`
    /// counts from the call to [`crate::search::Searcher::search`].
    pub start: Option<Instant>,
}

/// A search score from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in N moves (not plies); negative when the side to move is mated.
    Mate(i32),
}

impl Score {
    /// Convert an internal score (mates as `MATE - plies`).
    pub fn from_internal(v: i32) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Cp(v)
        }
    }
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
}
