//! One game between two [`Player`]s. The harness is the arbiter: shakmaty
//! checks every move and decides how the game ends (mate, stalemate,
//! threefold repetition, 50-move rule, insufficient material); the harness
//! keeps the clocks ([`GameClock`]) and turns every engine failure into a
//! result with a [`Termination`], never into an error of the match.
//! Adjudication (tablebases, draw, resign, maximum length) is off unless
//! configured.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Position};
use thiserror::Error;

use crate::play::clock::{ClockVerdict, GameClock, TimeControl};
use crate::play::tablebase::Tablebases;
use crate::players::pv_check::{check_pv, PvWarning};
use crate::players::{EngineError, EngineScore, MoveRequest, Player, SearchDetail};
use crate::variant::{parse_position, Variant};

/// Final result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// 1-0.
    #[serde(rename = "1-0")]
    WhiteWins,
    /// 0-1.
    #[serde(rename = "0-1")]
    BlackWins,
    /// ½-½.
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameResult {
    /// PGN result token.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The result when `c` wins.
    fn win_for(c: Color) -> GameResult {
        match c {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

/// How a game ended, finer than the PGN `Termination` tag; the keys of the
/// termination breakdown in `summary.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The side to move is checkmated.
    Mate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// The same position for the third time.
    Repetition,
    /// Fifty moves by each side without a capture or pawn move.
    FiftyMoves,
    /// Neither side can mate.
    InsufficientMaterial,
    /// [`DrawAdjudication`]: both engines' scores stayed near 0.
    AdjudicationDraw,
    /// [`ResignAdjudication`]: the scores stayed past the resign threshold.
    AdjudicationResign,
    /// The engine resigned (xboard `resign`).
    Resignation,
    /// `adjudication.max_moves` reached: a draw.
    MaxMoves,
    /// The Syzygy tables knew the result.
    Tablebase,
    /// A move overran its clock (or movetime) by more than the margin.
    TimeForfeit,
    /// No answer in time under a node or depth limit (caught by the watchdog).
    Stall,
    /// The engine crashed or failed to start.
    Crash,
    /// The engine played an illegal or unreadable move.
    IllegalMove,
    /// Malformed output.
    ProtocolError,
}

impl Termination {
    /// Every kind, in a fixed order (for stable summaries).
    pub const ALL: [Termination; 15] = [
        Termination::Mate,
        Termination::Stalemate,
        Termination::Repetition,
        Termination::FiftyMoves,
        Termination::InsufficientMaterial,
        Termination::AdjudicationDraw,
        Termination::AdjudicationResign,
        Termination::Resignation,
        Termination::MaxMoves,
        Termination::Tablebase,
        Termination::TimeForfeit,
        Termination::Stall,
        Termination::Crash,
        Termination::IllegalMove,
        Termination::ProtocolError,
    ];

    /// snake_case name used in JSON.
    pub fn key(self) -> &'static str {
        match self {
            Termination::Mate => "mate",
            Termination::Stalemate => "stalemate",
            Termination::Repetition => "repetition",
            Termination::FiftyMoves => "fifty_moves",
            Termination::InsufficientMaterial => "insufficient_material",
            Termination::AdjudicationDraw => "adjudication_draw",
            Termination::AdjudicationResign => "adjudication_resign",
            Termination::Resignation => "resignation",
            Termination::MaxMoves => "max_moves",
            Termination::Tablebase => "tablebase",
            Termination::TimeForfeit => "time_forfeit",
            Termination::Stall => "stall",
            Termination::Crash => "crash",
            Termination::IllegalMove => "illegal_move",
            Termination::ProtocolError => "protocol_error",
        }
    }

    /// Value of the PGN `Termination` tag (the PGN standard's words, plus
    /// cutechess-cli's `illegal move` and `stalled connection`).
    pub fn pgn_tag(self) -> &'static str {
        match self {
            Termination::Mate
            | Termination::Stalemate
            | Termination::Repetition
            | Termination::FiftyMoves
            | Termination::InsufficientMaterial
            | Termination::Resignation => "normal",
            Termination::AdjudicationDraw
            | Termination::AdjudicationResign
            | Termination::MaxMoves
            | Termination::Tablebase => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::Stall => "stalled connection",
            Termination::Crash | Termination::ProtocolError => "abandoned",
            Termination::IllegalMove => "illegal move",
        }
    }
}

/// One ply of a game as the PGN shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRecord {
    /// Standard UCI notation (`e1g1` for castling).
    pub uci: String,
    /// SAN with check/mate suffix.
    pub san: String,
    /// Part of the opening, not chosen by an engine.
    pub book: bool,
    /// The score the engine reported with the move, from its (the mover's) view.
    pub score: Option<EngineScore>,
    /// The depth the engine reported with the move, in plies.
    pub depth: Option<u32>,
    /// Thinking time as the harness measured it.
    pub time: Duration,
    /// Nodes the engine reported for the move.
    pub nodes: Option<u64>,
    /// The mover's clock after the move (increment added), under a clock.
    pub clock: Option<Duration>,
    /// Selective depth the engine reported.
    pub seldepth: Option<u32>,
    /// The rest of the engine's report (nps, hashfull, tbhits, time, PV).
    pub detail: SearchDetail,
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// White's engine name.
    pub white: String,
    /// Black's engine name.
    pub black: String,
    /// Starting FEN when the opening is given as a FEN (`None` = standard start).
    pub start_fen: Option<String>,
    /// Every ply, opening moves first.
    pub moves: Vec<MoveRecord>,
    /// The result, from White's view.
    pub result: GameResult,
    /// How the game ended.
    pub termination: Termination,
    /// Human-readable reason (`Black mates`, `White loses on time`).
    pub reason: String,
    /// White's and black's limits (different in a game at odds).
    pub time_controls: [TimeControl; 2],
    /// What the referee found wrong in the engines' PVs, in move order.
    pub warnings: Vec<PvReport>,
}

/// A PV the referee found wrong ([`crate::players::pv_check`]): whose, at
/// which ply, what, and the engine's line.
#[derive(Clone, Debug, PartialEq)]
pub struct PvReport {
    /// The side whose engine sent the line.
    pub side: Color,
    /// Plies played before the search (opening moves included): the
    /// searched position is the game's after `moves[..ply]`.
    pub ply: usize,
    /// What is wrong.
    pub warning: PvWarning,
    /// The `info` line as the engine sent it.
    pub line: String,
}

impl GameRecord {
    /// Warnings of White's engine and of Black's.
    pub fn warning_counts(&self) -> [u32; 2] {
        let mut n = [0u32; 2];
        for w in &self.warnings {
            n[idx(w.side)] += 1;
        }
        n
    }

    /// `w` as fastchess logs it: `Warning; WHAT - from ENGINE`, then the
    /// `Info;`, `Position;` and `Moves;` lines, each on its own line.
    pub fn warning_text(&self, w: &PvReport) -> String {
        let engine = match w.side {
            Color::White => &self.white,
            Color::Black => &self.black,
        };
        let position = match &self.start_fen {
            Some(f) => format!("fen {f}"),
            None => "startpos".to_string(),
        };
        let moves: Vec<&str> = self.moves[..w.ply.min(self.moves.len())]
            .iter()
            .map(|m| m.uci.as_str())
            .collect();
        // fastchess: `... - move M from E`, or `... - from E` without a move.
        let dash = if w.warning.is_mate_check() { " -" } else { "" };
        format!(
            "Warning; {}{dash} from {engine}\nInfo; {}\nPosition; {position}\nMoves; {}",
            w.warning,
            w.line,
            moves.join(" ")
        )
    }
}

impl GameRecord {
    /// The position the game ended in (`None` if its start or a move does
    /// not replay, which a game played by [`play_game`] never has).
    pub fn final_position(&self, variant: Variant) -> Option<Chess> {
        let mut pos: Chess = match &self.start_fen {
            None => variant.start_position(),
            Some(f) => parse_position(f, variant).ok()?,
        };
        for m in &self.moves {
            let mv = UciMove::from_ascii(m.uci.as_bytes())
                .ok()?
                .to_move(&pos)
                .ok()?;
            pos.play_unchecked(mv);
        }
        Some(pos)
    }
}

/// Draw adjudication: a draw once both engines have reported
/// `|score| <= score_cp` for `move_count` consecutive moves each, from move
/// `move_number` on; how the moves are counted is `rule`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawAdjudication {
    /// The fullmove number from which scores count (fastchess `-draw movenumber=`).
    pub move_number: u32,
    /// The largest absolute score, in centipawns, that counts as drawish.
    pub score_cp: i32,
    /// Consecutive moves of each engine within `score_cp` that draw the game.
    pub move_count: u32,
    /// `fastchess` (default) or `karsinta` (the rule before it).
    #[serde(default)]
    pub rule: DrawRule,
}

/// How [`DrawAdjudication`] counts its consecutive moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawRule {
    /// fastchess's `DrawTracker`: every engine move with a centipawn score
    /// within `score_cp` counts, any other score (a mate, none) restarts
    /// the count, and a capture or pawn move restarts it before its own
    /// score counts; the game is drawn once the count reaches
    /// `2 * move_count` after a move that leaves the board's fullmove
    /// number above `move_number` (fastchess's `fullMoveNumber() - 1 >=
    /// move_number`).
    #[default]
    Fastchess,
    /// Karsinta's rule before fastchess's: moves count only from fullmove
    /// `move_number` on and captures and pawn moves do not restart the
    /// count. Kept so that run folders recorded with it resume and replay.
    Karsinta,
}

/// Resign adjudication: a side whose score is `<= -score_cp` for
/// `move_count` consecutive moves loses, if its opponent's score agrees
/// (`>= score_cp` for as many moves). With `two_sided: false` the losing
/// side's own score decides alone, as fastchess's and cutechess-cli's
/// `-resign` do by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignAdjudication {
    /// The score, in centipawns, past which a side counts as lost.
    pub score_cp: i32,
    /// Consecutive moves past `score_cp` that end the game.
    pub move_count: u32,
    /// Default `true`: both engines must agree.
    #[serde(default = "two_sided_default", skip_serializing_if = "is_true")]
    pub two_sided: bool,
}

fn two_sided_default() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// All adjudication rules; `Default` is everything off.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjudication {
    /// Syzygy tables, opened once per match and shared by its games.
    pub tablebases: Option<Arc<Tablebases>>,
    /// Draw adjudication (`adjudication.draw`); `None` = off.
    pub draw: Option<DrawAdjudication>,
    /// Resign adjudication (`adjudication.resign`); `None` = off.
    pub resign: Option<ResignAdjudication>,
    /// Draw once each side has made this many moves after the opening.
    pub max_moves: Option<u32>,
}

/// How games are played.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSettings {
    /// Every engine's limit but those in `engine_tc`.
    pub tc: TimeControl,
    /// Engines (by name) with a limit of their own: time or node odds.
    pub engine_tc: BTreeMap<String, TimeControl>,
    /// A move that overruns its time by more than this loses on time.
    pub margin: Duration,
    /// How long a node- or depth-limited search may take before the engine
    /// is declared hung.
    pub watchdog: Duration,
    /// The draw, resign, tablebase and move-cap rules.
    pub adjudication: Adjudication,
    /// Standard chess or Chess960: how castling is read and written.
    pub variant: Variant,
    /// The pause before each game (`game_wait_ms`, fastchess's `-wait`).
    pub wait: Duration,
    /// Also check that a mate score's PV is the mate (`checks.mate_pvs`,
    /// fastchess's `-check-mate-pvs`); PVs are checked for legality always.
    pub mate_pvs: bool,
}

impl GameSettings {
    /// The limit of the engine named `name`.
    pub fn tc_of(&self, name: &str) -> TimeControl {
        self.engine_tc.get(name).copied().unwrap_or(self.tc)
    }

    /// Every limit some engine plays under: the match's and each engine's own.
    pub fn all_tcs(&self) -> impl Iterator<Item = &TimeControl> {
        std::iter::once(&self.tc).chain(self.engine_tc.values())
    }
}

/// Why no game record was produced.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum GameError {
    #[error("bad opening: {0}")]
    BadOpening(String),
    /// An engine cannot play this game as configured
    /// ([`EngineError::Unsupported`]): a setup error, not a result.
    #[error("{0}")]
    Unsupported(String),
    #[error("game aborted")]
    Aborted,
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Board state during a game: position, UCI history and the repetition table.
struct Board {
    pos: Chess,
    /// How castling moves are written (`e1g1`, or `e1h1` in Chess960).
    mode: CastlingMode,
    uci: Vec<String>,
    /// Zobrist keys since the last irreversible move, current one included.
    keys: Vec<u64>,
    moves: Vec<MoveRecord>,
}

impl Board {
    fn new(
        start_fen: Option<&str>,
        opening: &[String],
        variant: Variant,
    ) -> Result<Board, GameError> {
        let pos: Chess = match start_fen {
            None => variant.start_position(),
            Some(f) => parse_position(f, variant).map_err(GameError::BadOpening)?,
        };
        let mut b = Board {
            keys: vec![Self::key(&pos)],
            mode: variant.castling_mode(),
            pos,
            uci: Vec::new(),
            moves: Vec::new(),
        };
        for m in opening {
            let Some(mv) = b.parse(m) else {
                return Err(GameError::BadOpening(format!(
                    "move '{m}' is illegal after {}",
                    if b.uci.is_empty() {
                        "the start".to_string()
                    } else {
                        b.uci.join(" ")
                    }
                )));
            };
            b.play(mv, true, None, None, Duration::ZERO);
        }
        Ok(b)
    }

    fn key(pos: &Chess) -> u64 {
        pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
    }

    /// A legal move from its UCI text (either castling notation), or `None`.
    fn parse(&self, text: &str) -> Option<shakmaty::Move> {
        UciMove::from_ascii(text.trim().as_bytes())
            .ok()?
            .to_move(&self.pos)
            .ok()
    }

    fn play(
        &mut self,
        mv: shakmaty::Move,
        book: bool,
        score: Option<EngineScore>,
        depth: Option<u32>,
        time: Duration,
    ) -> &mut MoveRecord {
        let irreversible = self.pos.is_irreversible(mv);
        let uci = UciMove::from_move(mv, self.mode).to_string();
        let san = SanPlus::from_move_and_play_unchecked(&mut self.pos, mv).to_string();
        if irreversible {
            self.keys.clear();
        }
        self.keys.push(Self::key(&self.pos));
        self.uci.push(uci.clone());
        self.moves.push(MoveRecord {
            uci,
            san,
            book,
            score,
            depth,
            time,
            nodes: None,
            clock: None,
            seldepth: None,
            detail: SearchDetail::default(),
        });
        self.moves.last_mut().expect("just pushed")
    }

    /// The game's end by the rules, if reached.
    fn rules_outcome(&self) -> Option<(GameResult, Termination, String)> {
        let pos = &self.pos;
        if pos.is_checkmate() {
            let winner = !pos.turn();
            return Some(worded(GameResult::win_for(winner), Termination::Mate));
        }
        if pos.is_stalemate() {
            return Some(worded(GameResult::Draw, Termination::Stalemate));
        }
        if pos.is_insufficient_material() {
            return Some(worded(GameResult::Draw, Termination::InsufficientMaterial));
        }
        if pos.halfmoves() >= 100 {
            return Some(worded(GameResult::Draw, Termination::FiftyMoves));
        }
        let current = *self.keys.last().expect("current key");
        if self.keys.iter().filter(|&&k| k == current).count() >= 3 {
            return Some(worded(GameResult::Draw, Termination::Repetition));
        }
        None
    }
}

/// Centipawn value of a score for adjudication (mate scores are huge).
fn score_cp(s: EngineScore) -> i32 {
    match s {
        EngineScore::Cp(cp) => cp,
        EngineScore::Mate(n) if n > 0 => 100_000,
        EngineScore::Mate(_) => -100_000,
    }
}

/// Consecutive-move counters behind draw and resign adjudication.
#[derive(Default)]
struct AdjudicationState {
    draw_plies: u32,
    /// Per side: consecutive moves with score `<= -X` / `>= X`.
    losing: [u32; 2],
    winning: [u32; 2],
}

impl AdjudicationState {
    /// Update after `side` moved with `score` from position `fullmove`; returns
    /// an adjudicated end if one applies.
    fn update(
        &mut self,
        rules: &Adjudication,
        side: Color,
        fullmove: u32,
        after: &Chess,
        score: Option<EngineScore>,
    ) -> Option<(GameResult, Termination, String)> {
        let s = idx(side);
        let cp = score.map(score_cp);
        if let Some(r) = rules.resign {
            match cp {
                Some(v) => {
                    self.losing[s] = if v <= -r.score_cp {
                        self.losing[s] + 1
                    } else {
                        0
                    };
                    self.winning[s] = if v >= r.score_cp {
                        self.winning[s] + 1
                    } else {
                        0
                    };
                }
                None => {
                    self.losing[s] = 0;
                    self.winning[s] = 0;
                }
            }
            for loser in [side, !side] {
                let (l, w) = (idx(loser), idx(!loser));
                let agreed = !r.two_sided || self.winning[w] >= r.move_count;
                if self.losing[l] >= r.move_count && agreed {
                    return Some((
                        GameResult::win_for(!loser),
                        Termination::AdjudicationResign,
                        format!("{} resigns (adjudication)", side_name(loser)),
                    ));
                }
            }
        }
        if let Some(d) = rules.draw {
            let drawn = match d.rule {
                DrawRule::Fastchess => {
                    if after.halfmoves() == 0 {
                        self.draw_plies = 0;
                    }
                    match score {
                        None => self.draw_plies = 0,
                        Some(EngineScore::Cp(v)) if v.abs() <= d.score_cp => {
                            // fastchess counts nothing with movecount=0.
                            if d.move_count > 0 {
                                self.draw_plies += 1;
                            }
                        }
                        Some(_) if d.move_count > 0 => self.draw_plies = 0,
                        Some(_) => {}
                    }
                    // fastchess: `fullMoveNumber() - 1 >= move_number`.
                    after.fullmoves().get() > d.move_number
                }
                DrawRule::Karsinta => {
                    match cp {
                        Some(v) if fullmove >= d.move_number && v.abs() <= d.score_cp => {
                            self.draw_plies += 1
                        }
                        _ => self.draw_plies = 0,
                    }
                    true
                }
            };
            if drawn && self.draw_plies >= 2 * d.move_count {
                return Some(worded(GameResult::Draw, Termination::AdjudicationDraw));
            }
        }
        None
    }
}

/// The game's end by the tables, worded as fastchess words it.
fn tablebase_end(tables: &Tablebases, pos: &Chess) -> Option<(GameResult, Termination, String)> {
    let result = match tables.adjudicate(pos)? {
        KnownOutcome::Decisive { winner } => GameResult::win_for(winner),
        KnownOutcome::Draw => GameResult::Draw,
    };
    Some(worded(result, Termination::Tablebase))
}

/// An end whose reason is [`fastchess_reason`]'s words.
fn worded(result: GameResult, termination: Termination) -> (GameResult, Termination, String) {
    (result, termination, fastchess_reason(termination, result))
}

/// A game's end as fastchess words it (`match.hpp`'s messages), from its
/// termination and result alone: the reason of the ends the rules, the
/// tables and the draw rule decide, and the whole annotation of the
/// per-game `Finished game` lines, which leave out the details Karsinta's
/// own reasons add to the other ends (a time loss's overrun, the move).
pub fn fastchess_reason(termination: Termination, result: GameResult) -> String {
    let (winner, loser) = match result {
        GameResult::WhiteWins => (Some("White"), "Black"),
        GameResult::BlackWins => (Some("Black"), "White"),
        GameResult::Draw => (None, "White"),
    };
    let text = match (termination, winner) {
        (Termination::Mate, Some(w)) => return format!("{w} mates"),
        (Termination::Stalemate, _) => "Draw by stalemate",
        (Termination::Repetition, _) => "Draw by 3-fold repetition",
        (Termination::FiftyMoves, _) => "Draw by fifty moves rule",
        (Termination::InsufficientMaterial, _) => "Draw by insufficient mating material",
        (Termination::Tablebase, Some(w)) => return format!("{w} wins by adjudication: SyzygyTB"),
        (Termination::Tablebase, None) => "Draw by adjudication: SyzygyTB",
        (Termination::AdjudicationResign, Some(w)) => return format!("{w} wins by adjudication"),
        (Termination::Resignation, Some(_)) => return format!("{loser} resigns"),
        (Termination::TimeForfeit, Some(_)) => return format!("{loser} loses on time"),
        (Termination::TimeForfeit, None) => "Draw by timeout vs insufficient material",
        (Termination::Stall, Some(_)) => return format!("{loser}'s connection stalls"),
        (Termination::Crash, Some(_)) => return format!("{loser} disconnects"),
        (Termination::IllegalMove | Termination::ProtocolError, Some(_)) => {
            return format!("{loser} makes an illegal move")
        }
        // Draws by adjudication or the move limit; a decisive result
        // under a drawing termination cannot occur.
        _ => "Draw by adjudication",
    };
    text.to_string()
}

/// The result of a player failing (`loser` is the failing side).
fn failure(
    board: &Board,
    loser: Color,
    err: &EngineError,
    tc: &TimeControl,
) -> (GameResult, Termination, String) {
    let who = side_name(loser);
    match err {
        EngineError::Timeout(msg) if tc.timed().is_some() => time_loss(board, loser, msg),
        EngineError::Timeout(msg) => (
            GameResult::win_for(!loser),
            Termination::Stall,
            format!("{who}'s engine stalls: {msg}"),
        ),
        EngineError::Start(msg) | EngineError::Crashed(msg) => (
            GameResult::win_for(!loser),
            Termination::Crash,
            format!("{who}'s engine crashed: {msg}"),
        ),
        EngineError::Protocol(msg) => (
            GameResult::win_for(!loser),
            Termination::ProtocolError,
            format!("{who}'s engine sent malformed output: {msg}"),
        ),
        EngineError::Resigned(msg) => (
            GameResult::win_for(!loser),
            Termination::Resignation,
            format!("{who} resigns: {msg}"),
        ),
        // `play_game` turns this into `GameError::Unsupported` before it
        // gets here; only a player that cannot even be built can reach it.
        EngineError::Unsupported(msg) => (
            GameResult::win_for(!loser),
            Termination::ProtocolError,
            format!("{who}'s engine cannot play this game: {msg}"),
        ),
    }
}

/// Loss on time, or a draw when the opponent cannot mate (FIDE 6.9).
fn time_loss(board: &Board, loser: Color, detail: &str) -> (GameResult, Termination, String) {
    let who = side_name(loser);
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!(" ({detail})")
    };
    if board.pos.has_insufficient_material(!loser) {
        (
            GameResult::Draw,
            Termination::TimeForfeit,
            format!(
                "{who} loses on time{detail}, but {} has no mating material: draw",
                side_name(!loser)
            ),
        )
    } else {
        (
            GameResult::win_for(!loser),
            Termination::TimeForfeit,
            format!("{who} loses on time{detail}"),
        )
    }
}

/// Check an opening without playing it: the position after it, or why not.
pub fn check_opening(
    start_fen: Option<&str>,
    moves: &[String],
    variant: Variant,
) -> Result<(), GameError> {
    Board::new(start_fen, moves, variant).map(|_| ())
}

/// A game that ends before it starts because one side could not be prepared
/// (its engine failed to start or to become ready): that side loses.
pub fn forfeit(
    white: &str,
    black: &str,
    start_fen: Option<&str>,
    opening: &[String],
    loser_is_white: bool,
    err: &EngineError,
    settings: &GameSettings,
) -> Result<GameRecord, GameError> {
    let tcs = [settings.tc_of(white), settings.tc_of(black)];
    let board = Board::new(start_fen, opening, settings.variant)?;
    let loser = if loser_is_white {
        Color::White
    } else {
        Color::Black
    };
    let (result, termination, reason) = failure(&board, loser, err, &tcs[idx(loser)]);
    Ok(GameRecord {
        white: white.to_string(),
        black: black.to_string(),
        start_fen: start_fen.map(str::to_string),
        moves: board.moves,
        result,
        termination,
        reason,
        time_controls: tcs,
        warnings: Vec::new(),
    })
}

/// Play one game from `start_fen` (standard start if `None`) after the
/// opening `moves`. Returns [`GameError::Aborted`] if `abort` is set
/// between moves.
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    start_fen: Option<&str>,
    opening: &[String],
    settings: &GameSettings,
    abort: &AtomicBool,
) -> Result<GameRecord, GameError> {
    let mut board = Board::new(start_fen, opening, settings.variant)?;
    let names = [white.name().to_string(), black.name().to_string()];
    let tcs = [settings.tc_of(&names[0]), settings.tc_of(&names[1])];
    let mut warnings = Vec::new();
    let finish = |board: Board,
                  (result, termination, reason): (GameResult, Termination, String),
                  warnings: Vec<PvReport>| GameRecord {
        white: names[0].clone(),
        black: names[1].clone(),
        start_fen: start_fen.map(str::to_string),
        moves: board.moves,
        result,
        termination,
        reason,
        time_controls: tcs,
        warnings,
    };
    let mut players: [&mut dyn Player; 2] = [white, black];
    // Checked before `new_game` too: after an interrupt no engine may be
    // (re)started for a game that will not be counted.
    if abort.load(Ordering::Relaxed) {
        return Err(GameError::Aborted);
    }
    for (i, c) in [Color::White, Color::Black].into_iter().enumerate() {
        if let Err(e) = players[i].new_game() {
            // Not ready for the game (slow `isready`): a stalled engine, not
            // a time loss, whatever the time control.
            let end = match e {
                EngineError::Unsupported(msg) => return Err(GameError::Unsupported(msg)),
                EngineError::Timeout(msg) => (
                    GameResult::win_for(!c),
                    Termination::Stall,
                    format!("{}'s engine stalls before the game: {msg}", side_name(c)),
                ),
                e => failure(&board, c, &e, &tcs[i]),
            };
            return Ok(finish(board, end, warnings));
        }
    }
    let mut clock = GameClock::per_side(tcs);
    let mut adj = AdjudicationState::default();
    let mut engine_plies = 0u32;
    // How the last ply ended the game, if it did: one rules check per ply.
    let mut ended = board.rules_outcome();
    let end = loop {
        if abort.load(Ordering::Relaxed) {
            for p in players.iter_mut() {
                p.game_over();
            }
            return Err(GameError::Aborted);
        }
        if let Some(end) = ended {
            break end;
        }
        if let Some(m) = settings.adjudication.max_moves {
            if engine_plies >= 2 * m {
                break (
                    GameResult::Draw,
                    Termination::MaxMoves,
                    format!("Draw: game reached {m} moves (adjudication)"),
                );
            }
        }
        let side = board.pos.turn();
        let s = idx(side);
        let deadline = match clock.allowed(s) {
            Some(t) => t + settings.margin,
            None => settings.watchdog,
        };
        let req = MoveRequest {
            start_fen,
            moves: &board.uci,
            variant: settings.variant,
            limit: clock.limit(s),
            deadline,
        };
        let reply = match players[s].go(&req) {
            Ok(r) => r,
            Err(EngineError::Unsupported(msg)) => {
                for p in players.iter_mut() {
                    p.game_over();
                }
                return Err(GameError::Unsupported(msg));
            }
            Err(e) => break failure(&board, side, &e, &tcs[s]),
        };
        // As fastchess, before the move itself is judged.
        for line in &reply.pv_lines {
            if let Some(warning) = check_pv(&board.pos, &board.keys, line, settings.mate_pvs) {
                warnings.push(PvReport {
                    side,
                    ply: board.moves.len(),
                    warning,
                    line: line.line.clone(),
                });
            }
        }
        if clock.charge(s, reply.elapsed, settings.margin) == ClockVerdict::Flagged {
            let detail = format!("{:.3}s used", reply.elapsed.as_secs_f64());
            break time_loss(&board, side, &detail);
        }
        let Some(mv) = board.parse(&reply.uci) else {
            break (
                GameResult::win_for(!side),
                Termination::IllegalMove,
                format!(
                    "{} makes an illegal move: {}",
                    side_name(side),
                    reply.uci.trim()
                ),
            );
        };
        let fullmove = board.pos.fullmoves().get();
        let record = board.play(mv, false, reply.score, reply.depth, reply.elapsed);
        record.nodes = reply.nodes;
        record.clock = clock.shown(s);
        record.seldepth = reply.seldepth;
        record.detail = reply.detail;
        engine_plies += 1;
        // The rules come first: a move that mates, stalemates or completes a
        // draw by rule is never adjudicated into another result or reason.
        // Then the tables, exact where the score rules only guess.
        ended = board
            .rules_outcome()
            .or_else(|| tablebase_end(settings.adjudication.tablebases.as_deref()?, &board.pos))
            .or_else(|| {
                adj.update(
                    &settings.adjudication,
                    side,
                    fullmove,
                    &board.pos,
                    reply.score,
                )
            });
    };
    for p in players.iter_mut() {
        p.game_over();
    }
    Ok(finish(board, end, warnings))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::players::EngineMove;

    /// A scripted player: plays its listed moves in order, then the first
    /// legal move; or fails as told.
    pub(crate) struct Scripted {
        pub name: String,
        pub script: Vec<Result<String, EngineError>>,
        pub score: Option<EngineScore>,
        pub elapsed: Duration,
        pub new_game_error: Option<EngineError>,
        pub at: usize,
    }

    impl Scripted {
        pub(crate) fn new(name: &str) -> Self {
            Scripted {
                name: name.into(),
                script: Vec::new(),
                score: None,
                elapsed: Duration::from_millis(1),
                new_game_error: None,
                at: 0,
            }
        }
        fn moves(mut self, ms: &[&str]) -> Self {
            self.script = ms.iter().map(|m| Ok(m.to_string())).collect();
            self
        }
    }

    impl Player for Scripted {
        fn name(&self) -> &str {
            &self.name
        }
        fn new_game(&mut self) -> Result<(), EngineError> {
            self.at = 0;
            match &self.new_game_error {
                Some(e) => Err(e.clone()),
                None => Ok(()),
            }
        }
        fn go(&mut self, req: &MoveRequest<'_>) -> Result<EngineMove, EngineError> {
            let step = self.script.get(self.at).cloned();
            self.at += 1;
            let uci = match step {
                Some(Ok(m)) => m,
                Some(Err(e)) => return Err(e),
                None => {
                    let b = Board::new(req.start_fen, req.moves, req.variant).unwrap();
                    let m = b.pos.legal_moves()[0];
                    UciMove::from_move(m, b.mode).to_string()
                }
            };
            Ok(EngineMove {
                uci,
                score: self.score,
                depth: Some(1),
                seldepth: None,
                nodes: None,
                elapsed: self.elapsed,
                detail: SearchDetail::default(),
                pv_lines: Vec::new(),
            })
        }
        fn quit(&mut self) {}
    }

    fn settings(tc: &str) -> GameSettings {
        GameSettings {
            tc: tc.parse().unwrap(),
            engine_tc: BTreeMap::new(),
            margin: Duration::from_millis(10),
            watchdog: Duration::from_secs(1),
            adjudication: Adjudication::default(),
            variant: Variant::Standard,
            wait: Duration::ZERO,
            mate_pvs: false,
        }
    }

    fn play(w: &mut Scripted, b: &mut Scripted, fen: Option<&str>, s: &GameSettings) -> GameRecord {
        play_game(w, b, fen, &[], s, &AtomicBool::new(false)).unwrap()
    }

    #[test]
    fn fools_mate() {
        let mut w = Scripted::new("w").moves(&["f2f3", "g2g4"]);
        let mut b = Scripted::new("b").moves(&["e7e5", "d8h4"]);
        let g = play(&mut w, &mut b, None, &settings("nodes=1"));
        assert_eq!(
            (g.result, g.termination),
            (GameResult::BlackWins, Termination::Mate)
        );
        assert_eq!(g.moves.last().unwrap().san, "Qh4#");
        assert_eq!(g.reason, "Black mates");
    }

    #[test]
    fn chess960_castles_king_takes_rook() {
        // Short with the inner e1 rook, long with a8: recorded as the
        // engines sent them, SAN O-O / O-O-O.
        let fen = "rk2r2r/ppppppp1/8/8/8/8/PPPPPPP1/RK2R2R w EQeq - 0 1";
        let s = GameSettings {
            variant: Variant::Chess960,
            ..settings("nodes=1")
        };
        let mut w = Scripted::new("w").moves(&["b1e1", "b1g1"]);
        let mut b = Scripted::new("b").moves(&["b8a8"]);
        let g = play(&mut w, &mut b, Some(fen), &s);
        let plies: Vec<(&str, &str)> = g
            .moves
            .iter()
            .map(|m| (m.uci.as_str(), m.san.as_str()))
            .collect();
        assert_eq!(plies, [("b1e1", "O-O"), ("b8a8", "O-O-O")]);
        // The king's destination is not castling in Chess960 (the king has
        // left b1 anyway): an illegal move.
        assert_eq!(g.termination, Termination::IllegalMove);
        // The same position is refused as standard chess, naming the fix.
        let e = check_opening(Some(fen), &[], Variant::Standard).unwrap_err();
        assert!(e.to_string().contains("variant: chess960"), "{e}");
        check_opening(None, &["e1h1".into()], Variant::Chess960).unwrap_err();
    }

    #[test]
    fn illegal_move_loses_and_castling_is_normalised() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let mut w = Scripted::new("w").moves(&["e1h1", "a1a8"]);
        let mut b = Scripted::new("b").moves(&["e8e7", "e7e5"]);
        let g = play(&mut w, &mut b, Some(fen), &settings("nodes=1"));
        assert_eq!(g.moves[0].uci, "e1g1");
        assert_eq!(g.moves[0].san, "O-O");
        assert_eq!(
            (g.result, g.termination),
            (GameResult::WhiteWins, Termination::IllegalMove)
        );
        assert!(g.reason.contains("e7e5"), "{}", g.reason);
    }

    #[test]
    fn threefold_repetition() {
        let mut w = Scripted::new("w").moves(&["g1f3", "f3g1", "g1f3", "f3g1"]);
        let mut b = Scripted::new("b").moves(&["g8f6", "f6g8", "g8f6", "f6g8"]);
        let g = play(&mut w, &mut b, None, &settings("nodes=1"));
        assert_eq!(
            (g.result, g.termination),
            (GameResult::Draw, Termination::Repetition)
        );
        assert_eq!(g.moves.len(), 8);
    }

    #[test]
    fn fifty_moves_stalemate_and_insufficient() {
        let fen = "7k/8/8/8/8/8/R7/K7 w - - 99 80";
        let mut w = Scripted::new("w").moves(&["a2b2"]);
        let mut b = Scripted::new("b");
        let g = play(&mut w, &mut b, Some(fen), &settings("nodes=1"));
        assert_eq!(g.termination, Termination::FiftyMoves);
        // Qg6 stalemates the black king on h8.
        let fen = "7k/8/8/8/8/8/6Q1/K7 w - - 0 1";
        let mut w = Scripted::new("w").moves(&["g2g6"]);
        let g = play(&mut w, &mut b, Some(fen), &settings("nodes=1"));
        assert_eq!(
            (g.result, g.termination),
            (GameResult::Draw, Termination::Stalemate)
        );
        let fen = "7k/8/8/8/8/8/6n1/K7 w - - 0 1";
        let g = play(
            &mut Scripted::new("w"),
            &mut b,
            Some(fen),
            &settings("nodes=1"),
        );
        assert_eq!(g.termination, Termination::InsufficientMaterial);
        assert!(g.moves.is_empty());
    }

    #[test]
    fn engine_errors_become_results() {
        let cases = [
            (
                EngineError::Crashed("eof".into()),
                "nodes=1",
                GameResult::BlackWins,
                Termination::Crash,
            ),
            (
                EngineError::Timeout("x".into()),
                "nodes=1",
                GameResult::BlackWins,
                Termination::Stall,
            ),
            (
                EngineError::Timeout("x".into()),
                "1+0",
                GameResult::BlackWins,
                Termination::TimeForfeit,
            ),
            (
                EngineError::Protocol("junk".into()),
                "depth=1",
                GameResult::BlackWins,
                Termination::ProtocolError,
            ),
            (
                EngineError::Resigned("resign".into()),
                "depth=1",
                GameResult::BlackWins,
                Termination::Resignation,
            ),
        ];
        for (err, tc, result, term) in cases {
            let mut w = Scripted::new("w");
            w.script = vec![Err(err.clone())];
            let g = play(&mut w, &mut Scripted::new("b"), None, &settings(tc));
            assert_eq!((g.result, g.termination), (result, term), "{err:?}");
        }
        let mut b = Scripted::new("b");
        b.new_game_error = Some(EngineError::Start("no such file".into()));
        let g = play(&mut Scripted::new("w"), &mut b, None, &settings("nodes=1"));
        assert_eq!(
            (g.result, g.termination),
            (GameResult::WhiteWins, Termination::Crash)
        );
        // A setup the engine cannot play is no result at all.
        let mut w = Scripted::new("w");
        w.script = vec![Err(EngineError::Unsupported("no nps".into()))];
        let r = play_game(
            &mut w,
            &mut Scripted::new("b"),
            None,
            &[],
            &settings("nodes=1"),
            &AtomicBool::new(false),
        );
        assert_eq!(r, Err(GameError::Unsupported("no nps".into())));
    }

    #[test]
    fn slow_move_flags_but_not_against_bare_king() {
        let mut w = Scripted::new("w");
        w.elapsed = Duration::from_millis(1100);
        let g = play(&mut w, &mut Scripted::new("b"), None, &settings("1+0"));
        assert_eq!(
            (g.result, g.termination),
            (GameResult::BlackWins, Termination::TimeForfeit)
        );
        // Black has only a king: white's time loss is a draw.
        let fen = "7k/8/8/8/8/8/R7/K7 w - - 0 1";
        let g = play(&mut w, &mut Scripted::new("b"), Some(fen), &settings("1+0"));
        assert_eq!(
            (g.result, g.termination),
            (GameResult::Draw, Termination::TimeForfeit)
        );
        // Within the margin it is fine.
        w.elapsed = Duration::from_millis(1005);
        let mut s = settings("1+0");
        s.adjudication.max_moves = Some(1);
        let g = play(&mut w, &mut Scripted::new("b"), None, &s);
        assert_eq!(g.termination, Termination::MaxMoves);
    }

    #[test]
    fn adjudications() {
        let mut s = settings("nodes=1");
        s.adjudication.draw = Some(DrawAdjudication {
            move_number: 3,
            score_cp: 5,
            move_count: 2,
            rule: DrawRule::Karsinta,
        });
        let mut w = Scripted::new("w").moves(&["g1f3", "b1c3", "a2a3", "h2h3", "b2b3"]);
        let mut b = Scripted::new("b").moves(&["g8f6", "b8c6", "a7a6", "h7h6", "b7b6"]);
        w.score = Some(EngineScore::Cp(3));
        b.score = Some(EngineScore::Cp(-5));
        let g = play(&mut w, &mut b, None, &s);
        assert_eq!(
            (g.result, g.termination),
            (GameResult::Draw, Termination::AdjudicationDraw)
        );
        // Karsinta's old rule counts from move 3: moves 3 and 4 of both sides.
        assert_eq!(g.moves.len(), 8);
        // fastchess's rule restarts at the pawn moves 3. a3 to 5. b3: the
        // count never reaches 4 there.
        s.adjudication.draw = Some(DrawAdjudication {
            rule: DrawRule::Fastchess,
            ..s.adjudication.draw.unwrap()
        });
        s.adjudication.max_moves = Some(6);
        let g = play(&mut w, &mut b, None, &s);
        assert_eq!(g.termination, Termination::MaxMoves, "{}", g.reason);
        // Nf3 Nf6 (2), e4 restarts (1), Nc6 Nc3 Rb8 (4): drawn after 3... Rb8,
        // where the old rule, without the restart, drew after 2... Nc6.
        let draw = |rule| DrawAdjudication {
            move_number: 1,
            score_cp: 5,
            move_count: 2,
            rule,
        };
        for (rule, plies) in [(DrawRule::Fastchess, 6), (DrawRule::Karsinta, 4)] {
            let mut s = settings("nodes=1");
            s.adjudication.draw = Some(draw(rule));
            let mut w = Scripted::new("w").moves(&["g1f3", "e2e4", "b1c3", "f1e2"]);
            let mut b = Scripted::new("b").moves(&["g8f6", "b8c6", "a8b8", "b8a8"]);
            w.score = Some(EngineScore::Cp(3));
            b.score = Some(EngineScore::Cp(-5));
            let g = play(&mut w, &mut b, None, &s);
            assert_eq!(g.termination, Termination::AdjudicationDraw, "{rule:?}");
            assert_eq!(g.moves.len(), plies, "{rule:?}");
        }
        // A mate score restarts the count; fastchess's move number is the
        // board's fullmove number after the move, less one.
        let mut s = settings("nodes=1");
        s.adjudication.draw = Some(DrawAdjudication {
            move_number: 3,
            ..draw(DrawRule::Fastchess)
        });
        let mut w = Scripted::new("w").moves(&["g1f3", "b1c3", "a1b1", "b1a1"]);
        let mut b = Scripted::new("b").moves(&["g8f6", "b8c6", "a8b8", "b8a8"]);
        w.score = Some(EngineScore::Cp(0));
        b.score = Some(EngineScore::Cp(0));
        let g = play(&mut w, &mut b, None, &s);
        // After 3. Nc3 the board says move 3: 3 - 1 < 3; after 3... Nc6, 4 - 1.
        assert_eq!(g.moves.len(), 6, "{}", g.reason);
        b.score = Some(EngineScore::Mate(9));
        s.adjudication.max_moves = Some(3);
        let g = play(&mut w, &mut b, None, &s);
        assert_eq!(g.termination, Termination::MaxMoves, "{}", g.reason);

        let mut s = settings("nodes=1");
        s.adjudication.resign = Some(ResignAdjudication {
            two_sided: true,
            score_cp: 500,
            move_count: 2,
        });
        w.score = Some(EngineScore::Mate(3));
        b.score = Some(EngineScore::Cp(-600));
        let g = play(&mut w, &mut b, None, &s);
        assert_eq!(
            (g.result, g.termination),
            (GameResult::WhiteWins, Termination::AdjudicationResign)
        );
        assert_eq!(g.moves.len(), 4);
        // No agreement from the opponent: no resignation.
        w.score = Some(EngineScore::Cp(100));
        s.adjudication.max_moves = Some(4);
        let g = play(&mut w, &mut b, None, &s);
        assert_eq!(g.termination, Termination::MaxMoves);
        assert_eq!(g.moves.len(), 8);
        // One-sided (fastchess's default): the loser's own score decides.
        s.adjudication.resign = Some(ResignAdjudication {
            two_sided: false,
            score_cp: 500,
            move_count: 2,
        });
        let g = play(&mut w, &mut b, None, &s);
        assert_eq!(
            (g.result, g.termination),
            (GameResult::WhiteWins, Termination::AdjudicationResign)
        );
        assert_eq!(g.moves.len(), 4);
    }

    #[test]
    fn rules_decide_before_adjudication() {
        // Black's king move makes 99 plies without capture or pawn move; White's
        // reply makes 100. Both sides' scores would adjudicate on that ply.
        let fen = "7k/8/8/8/8/8/R7/K7 b - - 98 80";
        let game = |s: &GameSettings| {
            let mut w = Scripted::new("w").moves(&["a2b2"]);
            let mut b = Scripted::new("b").moves(&["h8g8"]);
            w.score = Some(EngineScore::Cp(600));
            b.score = Some(EngineScore::Cp(-600));
            play(&mut w, &mut b, Some(fen), s)
        };
        let mut s = settings("nodes=1");
        s.adjudication.resign = Some(ResignAdjudication {
            two_sided: true,
            score_cp: 500,
            move_count: 1,
        });
        let g = game(&s);
        assert_eq!(
            (g.result, g.termination),
            (GameResult::Draw, Termination::FiftyMoves),
            "{}",
            g.reason
        );
        let mut s = settings("nodes=1");
        s.adjudication.draw = Some(DrawAdjudication {
            move_number: 1,
            score_cp: 1000,
            move_count: 1,
            rule: DrawRule::Fastchess,
        });
        let g = game(&s);
        assert_eq!(g.termination, Termination::FiftyMoves, "{}", g.reason);
        // Without the rule the same scores do adjudicate (the test is live).
        let fen = "7k/8/8/8/8/8/R7/K7 b - - 0 80";
        let mut w = Scripted::new("w").moves(&["a2b2"]);
        let mut b = Scripted::new("b").moves(&["h8g8"]);
        w.score = Some(EngineScore::Cp(600));
        b.score = Some(EngineScore::Cp(-600));
        let mut s = settings("nodes=1");
        s.adjudication.resign = Some(ResignAdjudication {
            two_sided: true,
            score_cp: 500,
            move_count: 1,
        });
        let g = play(&mut w, &mut b, Some(fen), &s);
        assert_eq!(
            (g.result, g.termination),
            (GameResult::WhiteWins, Termination::AdjudicationResign)
        );
    }

    #[test]
    fn opening_is_played_as_book_and_checked() {
        let open: Vec<String> = ["e2e4", "e7e5"].iter().map(|s| s.to_string()).collect();
        let mut s = settings("nodes=1");
        s.adjudication.max_moves = Some(1);
        let g = play_game(
            &mut Scripted::new("w"),
            &mut Scripted::new("b"),
            None,
            &open,
            &s,
            &AtomicBool::new(false),
        )
        .unwrap();
        assert!(g.moves[0].book && g.moves[1].book && !g.moves[2].book);
        let bad = vec!["e2e5".to_string()];
        assert!(
            matches!(check_opening(None, &bad, Variant::Standard), Err(GameError::BadOpening(m)) if m.contains("e2e5"))
        );
        assert!(check_opening(Some("not a fen"), &[], Variant::Standard).is_err());
        let r = play_game(
            &mut Scripted::new("w"),
            &mut Scripted::new("b"),
            None,
            &[],
            &s,
            &AtomicBool::new(true),
        );
        assert_eq!(r, Err(GameError::Aborted));
    }
}
