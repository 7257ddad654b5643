//! The [`Player`] trait and what passes through it: a [`MoveRequest`] under
//! a [`MoveLimit`], the [`EngineMove`] answer with its [`EngineScore`], the
//! [`EngineError`] that ends a game, and the [`PlayerSpec`] a player is
//! started from.

use std::time::Duration;

use thiserror::Error;

use crate::variant::Variant;

/// What limits one move's search. The clock fields are the harness's own
/// clock readings at the moment the move is requested.
#[derive(Clone, Debug, PartialEq)]
pub enum MoveLimit {
    /// Search this many nodes (UCI `go nodes`).
    Nodes(u64),
    /// Search to this depth in plies (UCI `go depth`).
    Depth(u32),
    /// Search this long (UCI `go movetime`).
    MoveTime(Duration),
    /// Play on a clock: both sides' remaining time and increments.
    Clock {
        /// Time left on White's clock.
        wtime: Duration,
        /// Time left on Black's clock.
        btime: Duration,
        /// White's increment per move.
        winc: Duration,
        /// Black's increment per move.
        binc: Duration,
        /// Moves until the next time control; `None` = the rest of the game.
        movestogo: Option<u32>,
    },
    /// A node and/or depth limit with, where given, a time limit beside it
    /// (`Nodes`, `Depth`, `MoveTime` or `Clock`): the search stops at the
    /// first reached (UCI `go nodes N wtime ...`, as fastchess sends it).
    Capped {
        /// Most nodes; `None` = no node cap.
        nodes: Option<u64>,
        /// Most plies of depth; `None` = no depth cap.
        depth: Option<u32>,
        /// The time limit beside the caps (`MoveTime` or `Clock`); `None` = none.
        time: Option<Box<MoveLimit>>,
    },
}

/// `d` in seconds, the shortest form that round-trips (`8`, `0.08`, `0.1`):
/// for the text form and for xboard's `level` increment.
pub fn fmt_secs(d: Duration) -> String {
    let ms = d.as_millis();
    if d.as_nanos().is_multiple_of(1_000_000) {
        if ms.is_multiple_of(1000) {
            format!("{}", ms / 1000)
        } else {
            let s = format!("{}.{:03}", ms / 1000, ms % 1000);
            s.trim_end_matches('0').to_string()
        }
    } else {
        format!("{}", d.as_secs_f64())
    }
}

/// A request for one move.
#[derive(Clone, Debug)]
pub struct MoveRequest<'a> {
    /// FEN of the game's starting position (after the opening, if the opening
    /// is given as a FEN) or `None` for the standard start position.
    pub start_fen: Option<&'a str>,
    /// Moves played since `start_fen`, in UCI notation (standard castling
    /// notation `e1g1`; king-takes-rook `e1h1` in Chess960).
    pub moves: &'a [String],
    /// The game's variant: how `start_fen` and castling moves are read.
    pub variant: Variant,
    /// What limits this move's search.
    pub limit: MoveLimit,
    /// How long the harness will wait for the answer before it declares the
    /// engine hung (time loss, or a watchdog for node/depth limits).
    pub deadline: Duration,
}

/// Score as the engine reported it, from the mover's view; in JSON
/// `{"cp": 35}` or `{"mate": -2}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineScore {
    /// Centipawns, from the mover's view.
    Cp(i32),
    /// Mate in N moves; negative when the mover is being mated.
    Mate(i32),
}

/// An engine's answer.
#[derive(Clone, Debug)]
pub struct EngineMove {
    /// The move in UCI notation, unchecked (the game loop checks it).
    pub uci: String,
    /// Last reported score, depth, nodes (from `info` lines, if any).
    pub score: Option<EngineScore>,
    /// Depth reached, in plies.
    pub depth: Option<u32>,
    /// Selective depth reached, in plies.
    pub seldepth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Wall time from sending `go` to receiving `bestmove`, measured by the harness.
    pub elapsed: Duration,
    /// The rest of the last `info` (what fastchess's PGN fields show).
    pub detail: SearchDetail,
    /// Every `info` line of the search that had a PV, in order: what the
    /// referee checks ([`super::pv_check`]). Empty for xboard engines.
    pub pv_lines: Vec<PvLine>,
}

/// What an engine's `info` lines said beyond score, depth and nodes: the
/// per-move fields fastchess's `-pgnout` can show (`nps=`, `hashfull=`,
/// `tbhits=`, `pv=`, and the engine's own `time`, from which `latency=` is
/// the harness's measured time minus it). `None` where the engine said nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchDetail {
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Hash table use, per mille.
    pub hashfull: Option<u32>,
    /// Tablebase hits.
    pub tbhits: Option<u64>,
    /// The search time the engine reported, in milliseconds.
    pub time_ms: Option<u64>,
    /// The principal variation of the last line with a score, in UCI notation.
    pub pv: Vec<String>,
}

/// One `info` line that carries a PV, as the engine sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvLine {
    /// The line as sent (or, in-process, as the UCI front end would print it).
    pub line: String,
    /// Its score, from the mover's view, if it has one.
    pub score: Option<EngineScore>,
    /// The score is a `lowerbound` or `upperbound` (not checked as a mate).
    pub bound: bool,
    /// The moves after `pv`, in UCI notation.
    pub pv: Vec<String>,
}

impl PvLine {
    /// The PV of a UCI `info` line (`info` itself may be left off); `None`
    /// when it has no `pv` or an empty one.
    pub fn parse(line: &str) -> Option<PvLine> {
        let mut tokens = line.split_ascii_whitespace().peekable();
        if tokens.peek() == Some(&"info") {
            tokens.next();
        }
        let (mut score, mut bound, mut pv) = (None, false, Vec::new());
        while let Some(key) = tokens.next() {
            match key {
                "score" => {
                    score = match (tokens.next(), tokens.next().and_then(|v| v.parse().ok())) {
                        (Some("cp"), Some(v)) => Some(EngineScore::Cp(v)),
                        (Some("mate"), Some(v)) => Some(EngineScore::Mate(v)),
                        _ => None,
                    }
                }
                "lowerbound" | "upperbound" => bound = true,
                "pv" => {
                    pv = tokens.by_ref().map(str::to_string).collect();
                    break;
                }
                // The rest of the line is free text or other moves.
                "string" | "refutation" | "currline" => break,
                _ => {}
            }
        }
        (!pv.is_empty()).then(|| PvLine {
            line: line.trim().to_string(),
            score,
            bound,
            pv,
        })
    }
}

/// Why a player failed. Each one ends the game (loss for that player) and
/// the player is restarted before its next game.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum EngineError {
    #[error("engine failed to start: {0}")]
    Start(String),
    #[error("engine crashed: {0}")]
    Crashed(String),
    #[error("engine did not answer in time: {0}")]
    Timeout(String),
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The engine gave up (xboard `resign`): a loss, but not a fault.
    #[error("engine resigned: {0}")]
    Resigned(String),
    /// The engine cannot play the game as configured: a limit it has no
    /// command for, an option it did not announce, a start position its
    /// protocol cannot express. A setup problem, not the engine's fault in
    /// this game; the message names the engine.
    #[error("not supported: {0}")]
    Unsupported(String),
}

/// A chess player the game loop can drive.
pub trait Player: Send {
    /// Display name (PGN `White`/`Black`).
    fn name(&self) -> &str;
    /// Prepare for a new game (UCI: `ucinewgame` + `isready`). Restarts the
    /// process first if it died.
    fn new_game(&mut self) -> Result<(), EngineError>;
    /// Ask for a move.
    fn go(&mut self, req: &MoveRequest<'_>) -> Result<EngineMove, EngineError>;
    /// Check, after [`Player::new_game`], that the engine can search under
    /// limits like `limit` ([`EngineError::Unsupported`] if not), so that a
    /// match fails at setup instead of in every game. `go` makes the same
    /// check.
    fn check_limit(&mut self, _limit: &MoveLimit) -> Result<(), EngineError> {
        Ok(())
    }
    /// Check, after [`Player::new_game`], that the engine can start a game
    /// from `fen` ([`EngineError::Unsupported`] when its protocol cannot
    /// express the position, as xboard's edit mode cannot express some
    /// castling rights). `go` makes the same check.
    fn check_start(&mut self, _fen: &str) -> Result<(), EngineError> {
        Ok(())
    }
    /// Start the engine if it is not running (its handshake included), so
    /// that a runner can tell an engine that cannot start (a setup problem)
    /// from one that fails during a game (a result). In-process players
    /// have nothing to start.
    fn ensure_started(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
    /// Set options (UCI `setoption` pairs, in-process parameters) for the
    /// games from now on, on top of the spec's, kept across restarts: how a
    /// tuner plays each game pair with other parameter values without
    /// starting new processes.
    fn configure(&mut self, options: &[(String, String)]) -> Result<(), EngineError> {
        if options.is_empty() {
            return Ok(());
        }
        Err(EngineError::Unsupported(format!(
            "{}: options cannot be changed between games",
            self.name()
        )))
    }
    /// Tell the engine the game is over (optional), keep the process for reuse.
    fn game_over(&mut self) {}
    /// Stop the engine for good; must also happen on drop.
    fn quit(&mut self);
}

/// Which protocol an external engine speaks, or an in-process engine.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerKind {
    /// A UCI engine process.
    Uci,
    /// An xboard/CECP (protocol 2) engine process.
    Xboard,
    /// The `karsinta-engine` library in this process with this parameter set.
    InProcess(Box<karsinta_engine::Params>),
}

/// Everything needed to start a player, already validated (absolute paths).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSpec {
    /// Unique name: the PGN player name and the key of results and per-engine limits.
    pub name: String,
    /// The protocol it speaks, or the in-process engine's parameters.
    pub kind: PlayerKind,
    /// Program to run (ignored for in-process players).
    pub cmd: std::path::PathBuf,
    /// Arguments passed to `cmd`.
    pub args: Vec<String>,
    /// Working directory of the process; `None` = the harness's.
    pub dir: Option<std::path::PathBuf>,
    /// UCI `setoption` (or xboard `option`) pairs, sent after the handshake.
    pub options: Vec<(String, String)>,
    /// How long the handshake (`uci`/`uciok`, `isready`/`readyok`) may take.
    pub init_timeout: Duration,
    /// The match's variant: a Chess960 match sets `UCI_Chess960` (xboard:
    /// `variant fischerandom`) and refuses an engine that does not offer it.
    pub variant: Variant,
    /// Where to append the engine's stderr (one file per player in the run
    /// folder, shared by its concurrent instances: a `[karsinta] name#N
    /// (pid P):` line names the writer whenever it changes), if anywhere.
    pub stderr_log: Option<std::path::PathBuf>,
    /// Quit the engine after every game, so each game starts a fresh
    /// process (`restart: true`, fastchess's `restart=on`).
    pub restart: bool,
}
