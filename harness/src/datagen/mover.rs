//! The engine that plays a datagen game against itself: the in-process
//! engine ([`InProcess`], a `Searcher` with the config's parameters) or any
//! UCI engine ([`Uci`], the match runner's UCI player). Both answer the same
//! question, the best move of a position and its score from the side to
//! move; the game loop checks every move against its own rules, so an
//! external engine is never trusted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use karsinta_engine::{Limits, Position, Score, Searcher};

use super::config::{DatagenConfig, SearchLimit};
use crate::players::start_player;
use crate::players::{EngineScore, MoveLimit, MoveRequest, Player, PlayerSpec};

/// A position to search: the game's start and the moves since, and the
/// same position as the engine library's board.
pub struct Reached<'a> {
    /// The game's start position as FEN.
    pub start_fen: &'a str,
    /// The moves played from it, UCI notation.
    pub moves: &'a [String],
    /// The position after them (the engine library's board).
    pub pos: &'a Position,
}

/// A search's answer: the best move (UCI, unchecked) and its score.
pub struct Answer {
    /// The best move in UCI notation, not checked for legality.
    pub best: String,
    /// Its score, from the mover's view.
    pub score: Score,
}

/// The engine of a datagen worker thread.
pub trait Mover {
    /// Forget the previous game (hash, histories).
    fn new_game(&mut self) -> Result<(), String>;
    /// Search `at` under `limit`.
    fn search(&mut self, at: &Reached<'_>, limit: &SearchLimit) -> Result<Answer, String>;
    /// Rebuild after a panic inside [`Mover::search`], whose state is suspect.
    fn reset(&mut self);
}

/// The in-process engine.
pub struct InProcess {
    searcher: Searcher,
    params: karsinta_engine::Params,
    hash_mb: usize,
}

impl InProcess {
    /// An in-process searcher with `cfg`'s parameters and hash.
    pub fn new(cfg: &DatagenConfig) -> InProcess {
        InProcess {
            searcher: Searcher::with_hash_mb(cfg.params.clone(), cfg.hash_mb),
            params: cfg.params.clone(),
            hash_mb: cfg.hash_mb,
        }
    }
}

impl Mover for InProcess {
    fn new_game(&mut self) -> Result<(), String> {
        self.searcher.new_game();
        Ok(())
    }

    fn search(&mut self, at: &Reached<'_>, limit: &SearchLimit) -> Result<Answer, String> {
        let limits = Limits {
            nodes: limit.nodes,
            depth: limit.depth.map(|d| i32::try_from(d).unwrap_or(i32::MAX)),
            ..Limits::default()
        };
        let stop = AtomicBool::new(false);
        let soft = limit.soft_nodes;
        let r = self.searcher.search(at.pos, &limits, &stop, &mut |i| {
            // Called between iterations, so where it stops depends on nodes only.
            if soft.is_some_and(|s| i.nodes >= s) {
                stop.store(true, Ordering::Relaxed);
            }
        });
        let best = r
            .best_move
            .ok_or("no move from the search of a live position")?;
        Ok(Answer {
            best,
            score: r.score,
        })
    }

    fn reset(&mut self) {
        self.searcher = Searcher::with_hash_mb(self.params.clone(), self.hash_mb);
    }
}

/// How long a UCI engine may take over a node or depth search before it
/// counts as hung (the game is then a failure, not a record).
const WATCHDOG: Duration = Duration::from_secs(60);

/// A UCI engine, one process per worker thread.
pub struct Uci {
    player: Box<dyn Player>,
}

impl Uci {
    /// Start the UCI engine `spec` (the error names it).
    pub fn new(spec: &PlayerSpec) -> Result<Uci, String> {
        let player = start_player(spec).map_err(|e| format!("{}: {e}", spec.name))?;
        Ok(Uci { player })
    }
}

/// The UCI limit of `limit`: hard nodes or depth (a config with both, or
/// with soft nodes, is refused when resolved).
pub fn uci_limit(limit: &SearchLimit) -> Option<MoveLimit> {
    match (limit.nodes, limit.depth) {
        (Some(n), None) => Some(MoveLimit::Nodes(n)),
        (None, Some(d)) => Some(MoveLimit::Depth(d)),
        _ => None,
    }
}

impl Mover for Uci {
    fn new_game(&mut self) -> Result<(), String> {
        self.player.new_game().map_err(|e| e.to_string())
    }

    fn search(&mut self, at: &Reached<'_>, limit: &SearchLimit) -> Result<Answer, String> {
        let limit = uci_limit(limit).ok_or("a UCI engine takes nodes or depth, one of them")?;
        let req = MoveRequest {
            start_fen: Some(at.start_fen),
            moves: at.moves,
            variant: crate::variant::Variant::Standard,
            limit,
            deadline: WATCHDOG,
        };
        let reply = self.player.go(&req).map_err(|e| e.to_string())?;
        let score = match reply.score {
            Some(EngineScore::Cp(cp)) => Score::Cp(cp),
            Some(EngineScore::Mate(n)) => Score::Mate(n),
            None => return Err(format!("{}: no score before bestmove", self.player.name())),
        };
        Ok(Answer {
            best: reply.uci,
            score,
        })
    }

    fn reset(&mut self) {}
}

impl Drop for Uci {
    fn drop(&mut self) {
        self.player.quit();
    }
}
