//! Players: anything that can be asked for a move. External UCI and xboard
//! engines run as child processes; the in-process player calls the
//! `karsinta-engine` library directly. The game loop ([`crate::game`]) only
//! sees the [`Player`] trait and never trusts what a player says: it checks
//! every move with shakmaty and keeps the clocks itself.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use thiserror::Error;

/// What limits one move's search. The clock fields are the harness's own
/// clock readings at the moment the move is requested.
#[derive(Clone, Debug, PartialEq)]
pub enum MoveLimit {
    Nodes(u64),
    Depth(u32),
    MoveTime(Duration),
    Clock {
        wtime: Duration,
        btime: Duration,
        winc: Duration,
        binc: Duration,
        movestogo: Option<u32>,
    },
}

/// A request for one move.
#[derive(Clone, Debug)]
pub struct MoveRequest<'a> {
    /// FEN of the game's starting position (after the opening, if the opening
    /// is given as a FEN) or `None` for the standard start position.
    pub start_fen: Option<&'a str>,
    /// Moves played since `start_fen`, in UCI notation (standard castling
    /// notation `e1g1`).
    pub moves: &'a [String],
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
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub nodes: Option<u64>,
    /// Wall time from sending `go` to receiving `bestmove`, measured by the harness.
    pub elapsed: Duration,
}

/// Why a player failed. Each one ends the game (loss for that player) and
/// the player is restarted before its next game.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
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
    Uci,
    Xboard,
    /// The `karsinta-engine` library in this process with this parameter set.
    InProcess(Box<karsinta_engine::Params>),
}

/// Everything needed to start a player, already validated (absolute paths).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSpec {
    pub name: String,
    pub kind: PlayerKind,
    /// Program to run (ignored for in-process players).
    pub cmd: std::path::PathBuf,
    pub args: Vec<String>,
    pub dir: Option<std::path::PathBuf>,
    /// UCI `setoption` (or xboard `option`) pairs, sent after the handshake.
    pub options: Vec<(String, String)>,
    /// How long the handshake (`uci`/`uciok`, `isready`/`readyok`) may take.
    pub init_timeout: Duration,
    /// Where to append the engine's stderr (one file per player in the run
    /// folder, shared by its concurrent instances: a `[karsinta] name#N
    /// (pid P):` line names the writer whenever it changes), if anywhere.
    pub stderr_log: Option<std::path::PathBuf>,
}

mod inprocess;
mod process;
mod uci;
mod xboard;

pub use inprocess::{param_error_text, InProcessPlayer};
pub use process::{cpu_usage, kill_all_children, live_children, CpuUsage};
pub use uci::UciPlayer;
pub use xboard::XboardPlayer;

/// Build the player `spec` describes. External engines are started lazily
/// by the first [`Player::new_game`] (so a crash at start is a game result,
/// like any other crash); here only the spec is checked: the in-process
/// player's options must name known parameters.
pub fn start_player(spec: &PlayerSpec) -> Result<Box<dyn Player>, EngineError> {
    Ok(match &spec.kind {
        PlayerKind::Uci => Box::new(UciPlayer::new(spec.clone())),
        PlayerKind::Xboard => Box::new(XboardPlayer::new(spec.clone())),
        PlayerKind::InProcess(params) => Box::new(InProcessPlayer::new(
            spec.name.clone(),
            (**params).clone(),
            &spec.options,
        )?),
    })
}

/// Start the player `spec` describes, run its handshake and one
/// `new_game`, and stop it again: a check for the CLI before a match
/// (wrong path, engine that does not speak the protocol, bad option).
pub fn check_player(spec: &PlayerSpec) -> Result<(), EngineError> {
    let mut player = start_player(spec)?;
    let result = player.new_game();
    player.quit();
    result
}

/// [`check_player`], and also that the engine can search under `limit`
/// ([`Player::check_limit`]): a node limit for an xboard engine without
/// `feature nps=1` fails here, before a match starts.
pub fn check_player_limit(spec: &PlayerSpec, limit: &MoveLimit) -> Result<(), EngineError> {
    check_player_setup(spec, limit, std::iter::empty()).map(|_| ())
}

/// [`check_player_limit`], then [`Player::check_start`] on each of
/// `start_fens`: the positions the engine cannot start from, as (index in
/// `start_fens`, reason) pairs.
pub fn check_player_setup<'a>(
    spec: &PlayerSpec,
    limit: &MoveLimit,
    start_fens: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<(usize, String)>, EngineError> {
    let mut player = start_player(spec)?;
    let result = player
        .new_game()
        .and_then(|()| player.check_limit(limit))
        .map(|()| {
            let mut unsupported = Vec::new();
            for (i, fen) in start_fens.into_iter().enumerate() {
                match player.check_start(fen) {
                    Ok(()) => {}
                    Err(EngineError::Unsupported(why)) => unsupported.push((i, why)),
                    // Not a property of the position: the games will tell.
                    Err(_) => break,
                }
            }
            unsupported
        });
    player.quit();
    result
}

/// The name in `candidates` closest to `name` (case-insensitive edit
/// distance), if one is close enough to be a likely typo: at most a third
/// of the longer name's letters differ.
pub fn closest_name<'a>(name: &str, candidates: &'a [String]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d * 3 <= lower.chars().count().max(c.chars().count()))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.as_str())
}

/// Levenshtein distance between two strings, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// A name for a new instance of the engine `name` (`name#1`, `name#2`, ...
/// per name, in creation order): the concurrent game slots each create one
/// instance, so the tag tells their stderr lines apart in the shared log.
fn instance_tag(name: &str) -> String {
    static INSTANCES: Mutex<BTreeMap<String, u32>> = Mutex::new(BTreeMap::new());
    let mut instances = INSTANCES.lock().unwrap_or_else(|e| e.into_inner());
    let n = instances.entry(name.to_string()).or_insert(0);
    *n += 1;
    format!("{name}#{n}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_name_finds_typos_only() {
        let names: Vec<String> = ["Hash", "Threads", "Clear Hash", "UCI_Elo"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(closest_name("Hsh", &names), Some("Hash"));
        assert_eq!(closest_name("threads", &names), Some("Threads"));
        assert_eq!(closest_name("UCI_ELO", &names), Some("UCI_Elo"));
        assert_eq!(closest_name("SyzygyPath", &names), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
