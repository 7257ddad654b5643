//! External xboard (CECP v2) engines such as Fairy-Max and Phalanx.
//!
//! Handshake: `xboard`, `protover 2`, then `feature` lines until `done=1`
//! (or 2 s of silence: a protocol-1 engine). Each feature is answered
//! `accepted` if the harness honours it, else `rejected`. Options go out
//! only as the engine announced them (`memory` after `feature memory=1`,
//! `cores` after `smp=1`, `option NAME=V` after `feature option="NAME ..."`),
//! otherwise they are [`EngineError::Unsupported`]: some engines (Fairy-Max)
//! take an unknown command for a move and may crash on it, so the harness
//! never sends one knowingly.
//!
//! Each game starts with `new`, `force`, `post` and `easy`; each move sends
//! `force`, the moves the engine has not seen yet (coordinate or SAN, with
//! `usermove` if asked for), the time control and clocks, then `go`, and
//! waits for `move X` or `resign`. The engine's own board is followed with
//! shakmaty so SAN replies can be turned into coordinates and SAN can be
//! sent to engines that want it.
//!
//! Limits: fixed nodes are `nps N` + `st 1` (one second at N nodes per
//! second), for engines that announce `feature nps=1` only; for others they
//! are unsupported. Fixed depth is `sd D`, or `depth D` for engines that
//! reject `sd` (Phalanx; probed once per process with `ping`). Fixed time is
//! `st S` for whole seconds, otherwise `level 1` with `time` set to the move
//! time. Clocks are `level MPS BASE INC` once per game, BASE in whole
//! minutes or M:SS: the protocol has nothing finer, so it is rounded to the
//! nearest second (at least 1, so 0.5 s reads `0:01`) and the exact clock
//! goes in `time`/`otim` (centiseconds) before every move.
//!
//! A start position other than the standard one is sent with `setboard`,
//! or with protocol-1 `edit` mode to engines without it (Fairy-Max). Edit
//! mode carries no castling rights and no en-passant square: the engine
//! assumes a king and rook on their home squares may castle, so a position
//! where they stand without the right is unsupported; a position with a
//! legal en-passant capture is set up one ply earlier and the double step
//! sent as a move.
//!
//! Chess960 needs `fischerandom` in `feature variants` and `setboard`
//! (refused at start-up otherwise, naming the engine): each game starts
//! with `new` and `variant fischerandom`, castling is sent as `O-O`/`O-O-O`
//! and read as that or as king-takes-rook.

use std::fmt::Write as _;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use shakmaty::fen::Epd;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup as _, Move,
    Position as _, Square,
};

use super::player::fmt_secs;
use super::process::{EngineProcess, ReadError};
use super::uci::{is_null_move, no_move, normalize_move, truncate, InfoSummary};
use super::{EngineError, EngineMove, EngineScore, MoveLimit, MoveRequest, Player, PlayerSpec};
use crate::variant::Variant;

/// How long an engine may stay silent before we take it for protocol 1.
const FEATURE_TIMEOUT: Duration = Duration::from_secs(2);
const QUIT_GRACE: Duration = Duration::from_millis(250);

/// What the engine announced with `feature` (protocol-1 defaults otherwise).
#[derive(Clone, Debug)]
struct Features {
    setboard: bool,
    usermove: bool,
    san: bool,
    time: bool,
    ping: bool,
    reuse: bool,
    nps: bool,
    memory: bool,
    smp: bool,
    /// Names of the options announced as `feature option="NAME -TYPE ..."`.
    options: Vec<String>,
    myname: Option<String>,
    /// `feature variants="normal,fischerandom,..."`.
    variants: Vec<String>,
}

impl Default for Features {
    fn default() -> Self {
        Features {
            setboard: false,
            usermove: false,
            san: false,
            time: true,
            ping: false,
            reuse: true,
            nps: false,
            memory: false,
            smp: false,
            options: Vec::new(),
            myname: None,
            variants: Vec::new(),
        }
    }
}

impl Features {
    /// Record `key=value` and say whether the harness honours it (the reply
    /// is `accepted` or `rejected`). A feature the harness has no use for is
    /// accepted only when off: a request it would not meet (`sigint=1`,
    /// `colors=1`) or a command it never sends (`analyze=1`, `exclude=1`) is
    /// rejected.
    fn set(&mut self, key: &str, value: &str) -> bool {
        let on = value == "1";
        match key {
            "setboard" => self.setboard = on,
            "usermove" => self.usermove = on,
            "san" => self.san = on,
            "time" => self.time = on,
            "ping" => self.ping = on,
            "reuse" => self.reuse = on,
            "nps" => self.nps = on,
            "memory" => self.memory = on,
            "smp" => self.smp = on,
            "option" => self.options.push(option_name(value).to_string()),
            "myname" => self.myname = Some(value.to_string()),
            "variants" => self.variants = value.split(',').map(|v| v.trim().to_string()).collect(),
            // Lines the harness skips anyway (`debug`: `#` comments).
            "debug" | "done" => {}
            _ => return value == "0",
        }
        true
    }
}

/// The time control last set up in the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TcKey {
    Nodes(u64),
    Depth(u32),
    MoveTimeMs(u128),
    Clock,
}

/// What the engine's board holds in this game.
struct Synced {
    start_fen: Option<String>,
    /// Moves the engine has seen or played, in UCI notation.
    moves: Vec<String>,
    pos: Chess,
}

/// An xboard engine run as a child process, started lazily and restarted
/// after it dies or hangs (or before each game if it asks `reuse=0`).
pub struct XboardPlayer {
    spec: PlayerSpec,
    /// This instance's name in the stderr log.
    tag: String,
    process: Option<EngineProcess>,
    features: Features,
    synced: Option<Synced>,
    tc: Option<TcKey>,
    /// The fixed-depth command this process understands (`sd` or `depth`),
    /// once known.
    depth_cmd: Option<&'static str>,
    /// The limit command sent with the current `go`, if one was: an engine
    /// that rejects it searches without the limit.
    limit_cmd: Option<&'static str>,
    ping_id: u32,
    out: String,
}

impl XboardPlayer {
    /// A player for `spec`; nothing is started until [`Player::new_game`].
    pub fn new(spec: PlayerSpec) -> Self {
        XboardPlayer {
            tag: super::names::instance_tag(&spec.name),
            spec,
            process: None,
            features: Features::default(),
            synced: None,
            tc: None,
            depth_cmd: None,
            limit_cmd: None,
            ping_id: 0,
            out: String::with_capacity(1024),
        }
    }

    /// The engine's `myname` feature from its last handshake, if any.
    pub fn id_name(&self) -> Option<&str> {
        self.features.myname.as_deref()
    }

    /// Process id of the running engine, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(EngineProcess::pid)
    }

    fn kill(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.kill();
        }
        self.synced = None;
        self.tc = None;
        self.depth_cmd = None;
    }

    /// `name (myname)` for messages.
    fn who(&self) -> String {
        match &self.features.myname {
            Some(id) if *id != self.spec.name => format!("{} ({id})", self.spec.name),
            _ => self.spec.name.clone(),
        }
    }

    /// A Chess960 match needs `fischerandom` in `feature variants` and
    /// `setboard` (edit mode cannot give Chess960 castling rights).
    fn check_chess960(&self) -> Result<(), EngineError> {
        let missing = if !self.features.variants.iter().any(|v| v == "fischerandom") {
            "its `feature variants` does not list fischerandom"
        } else if !self.features.setboard {
            "it has no `setboard` (edit mode cannot set up Chess960 castling rights)"
        } else {
            return Ok(());
        };
        Err(EngineError::Unsupported(format!(
            "{} cannot play Chess960: {missing}",
            self.who()
        )))
    }

    /// `new` and the game set-up every game starts with.
    fn new_game_commands(&self) -> &'static str {
        match self.spec.variant {
            Variant::Standard => "new\nforce\npost\neasy\n",
            Variant::Chess960 => "new\nvariant fischerandom\nforce\npost\neasy\n",
        }
    }

    /// Start the process, answer its features and set its options.
    fn start(&mut self) -> Result<(), EngineError> {
        self.kill();
        let mut process = EngineProcess::spawn(&self.spec, &self.tag)?;
        if process.send("xboard\nprotover 2\n").is_err() {
            return Err(EngineError::Start(format!(
                "{} before the xboard handshake",
                process.describe_exit()
            )));
        }
        let mut features = Features::default();
        let started = Instant::now();
        let mut deadline = started + FEATURE_TIMEOUT.min(self.spec.init_timeout);
        let mut reply = String::new();
        loop {
            let line = match process.read_line(deadline) {
                Ok(line) => line,
                // Silence: a protocol-1 engine, go on with the defaults.
                Err(ReadError::Timeout) => break,
                Err(ReadError::Eof) => {
                    return Err(EngineError::Start(format!(
                        "{} during the xboard handshake",
                        process.describe_exit()
                    )))
                }
            };
            let Some(rest) = line.strip_prefix("feature ") else {
                continue;
            };
            reply.clear();
            let mut done = None;
            for (key, value) in parse_features(rest) {
                if key == "done" {
                    done = Some(value == "1");
                }
                let verdict = if features.set(key, value) {
                    "accepted"
                } else {
                    "rejected"
                };
                let _ = writeln!(reply, "{verdict} {key}");
            }
            process.send(&reply)?;
            match done {
                Some(true) => break,
                // done=0: the engine needs longer; wait up to the init timeout.
                Some(false) => deadline = started + self.spec.init_timeout,
                None => {}
            }
        }
        self.features = features;
        if self.spec.variant == Variant::Chess960 {
            self.check_chess960()?;
        }
        self.out.clear();
        for (name, value) in &self.spec.options {
            write_option(&mut self.out, &self.features, name, value)
                .map_err(|why| EngineError::Unsupported(format!("{}: {why}", self.who())))?;
        }
        if !self.out.is_empty() {
            process.send(&self.out)?;
        }
        self.process = Some(process);
        Ok(())
    }

    /// Send `text` and `ping N`, and wait for `pong N`: the engine has
    /// processed `text`. False if it said it does not know the command
    /// `text` starts with (`Error (unknown command): sd`, or Phalanx's
    /// `Illegal move: sd 3`). Only for engines with `feature ping=1`.
    fn ping(&mut self, text: &str, what: &str) -> Result<bool, EngineError> {
        let Some(process) = self.process.as_mut() else {
            return Err(EngineError::Crashed("engine is not running".into()));
        };
        self.ping_id += 1;
        let id = self.ping_id;
        process.send(&format!("{text}ping {id}\n"))?;
        let command = text.split_ascii_whitespace().next();
        let mut known = true;
        let timeout = self.spec.init_timeout;
        let deadline = Instant::now() + timeout;
        loop {
            match process.read_line(deadline) {
                Ok(line) => {
                    let mut t = line.split_ascii_whitespace();
                    if t.next() == Some("pong") && t.next().and_then(|v| v.parse().ok()) == Some(id)
                    {
                        return Ok(known);
                    }
                    if command.is_some() && rejected_command(line) == command {
                        known = false;
                    }
                }
                Err(ReadError::Timeout) => {
                    return Err(EngineError::Timeout(format!(
                        "no pong {what} within {} ms",
                        timeout.as_millis()
                    )))
                }
                Err(ReadError::Eof) => {
                    return Err(EngineError::Crashed(format!(
                        "{} {what}",
                        process.describe_exit()
                    )))
                }
            }
        }
    }

    /// Append to `self.out` what brings the engine's board to `req`.
    fn write_position(&mut self, req: &MoveRequest<'_>) -> Result<(), EngineError> {
        let continues = self.synced.as_ref().is_some_and(|s| {
            s.start_fen.as_deref() == req.start_fen && req.moves.starts_with(&s.moves)
        });
        self.out.push_str("force\n");
        if !continues {
            let pos = match req.start_fen {
                Some(fen) => fen_position(fen, self.spec.variant)?,
                None => self.spec.variant.start_position(),
            };
            let edit = match req.start_fen {
                Some(_) if !self.features.setboard => {
                    Some(edit_setup(&pos).map_err(|why| {
                        EngineError::Unsupported(format!("{}: {why}", self.who()))
                    })?)
                }
                _ => None,
            };
            let setup = self.new_game_commands();
            self.out.push_str(setup);
            self.tc = None;
            match (req.start_fen, edit) {
                (_, Some((before, step))) => {
                    write_edit(&mut self.out, &before, &self.features);
                    if let Some(mv) = step {
                        write_move(
                            &mut self.out,
                            &before,
                            mv,
                            &self.features,
                            self.spec.variant,
                        );
                    }
                }
                (Some(fen), None) => {
                    let _ = writeln!(self.out, "setboard {fen}");
                }
                (None, None) => {}
            }
            self.synced = Some(Synced {
                start_fen: req.start_fen.map(str::to_string),
                moves: Vec::with_capacity(256),
                pos,
            });
        }
        let Some(synced) = self.synced.as_mut() else {
            unreachable!("set above")
        };
        for text in &req.moves[synced.moves.len()..] {
            let mv = UciMove::from_ascii(text.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&synced.pos).ok())
                .ok_or_else(|| EngineError::Protocol(format!("illegal move in request: {text}")))?;
            write_move(
                &mut self.out,
                &synced.pos,
                mv,
                &self.features,
                self.spec.variant,
            );
            synced.pos.play_unchecked(mv);
            synced.moves.push(text.clone());
        }
        Ok(())
    }

    /// Append the time control (when it changed) and the clocks.
    fn write_limits(&mut self, limit: &MoveLimit) {
        let white = self
            .synced
            .as_ref()
            .is_none_or(|s| s.pos.turn() == Color::White);
        let key = match limit {
            MoveLimit::Nodes(n) => TcKey::Nodes(*n),
            MoveLimit::Depth(d) => TcKey::Depth(*d),
            MoveLimit::MoveTime(t) => TcKey::MoveTimeMs(t.as_millis()),
            MoveLimit::Clock { .. } => TcKey::Clock,
            // Refused by `check_limit` before any request is written.
            MoveLimit::Capped { .. } => return,
        };
        let out = &mut self.out;
        self.limit_cmd = None;
        if self.tc != Some(key) {
            let depth_cmd = self.depth_cmd.unwrap_or("sd");
            let (command, _) = match limit {
                MoveLimit::Nodes(n) => ("nps", writeln!(out, "nps {n}\nst 1")),
                MoveLimit::Depth(d) => (depth_cmd, writeln!(out, "{depth_cmd} {d}")),
                MoveLimit::MoveTime(t) if whole_seconds(t) => {
                    ("st", writeln!(out, "st {}", t.as_secs()))
                }
                MoveLimit::MoveTime(_) => ("level", writeln!(out, "level 1 0:01 0")),
                MoveLimit::Clock {
                    wtime,
                    btime,
                    winc,
                    binc,
                    movestogo,
                } => {
                    let (base, inc) = if white { (wtime, winc) } else { (btime, binc) };
                    write_level(out, *movestogo, *base, *inc);
                    ("level", Ok(()))
                }
                MoveLimit::Capped { .. } => return,
            };
            self.limit_cmd = Some(command);
            self.tc = Some(key);
        }
        if !self.features.time {
            return;
        }
        let cs = |d: &Duration| d.as_millis() / 10;
        let _ = match limit {
            MoveLimit::MoveTime(t) if !whole_seconds(t) => {
                writeln!(out, "time {}\notim {}", cs(t), cs(t))
            }
            MoveLimit::Clock { wtime, btime, .. } => {
                let (mine, theirs) = if white {
                    (wtime, btime)
                } else {
                    (btime, wtime)
                };
                writeln!(out, "time {}\notim {}", cs(mine), cs(theirs))
            }
            _ => Ok(()),
        };
    }
    /// The engine's move `text` (coordinate or SAN) in UCI notation, played
    /// on the followed board.
    fn accept_move(&mut self, text: &str) -> Result<String, EngineError> {
        let mode = self.spec.variant.castling_mode();
        let Some(synced) = self.synced.as_mut() else {
            unreachable!("go always syncs first")
        };
        let parsed = if let Some(uci) = normalize_move(text) {
            let mv = UciMove::from_ascii(uci.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&synced.pos).ok());
            Some((uci, mv))
        } else {
            San::from_ascii(text.trim_end_matches(['+', '#', '!', '?']).as_bytes())
                .ok()
                .and_then(|san| san.to_move(&synced.pos).ok())
                .map(|mv| {
                    let uci = UciMove::from_move(mv, mode).to_string();
                    (uci, Some(mv))
                })
        };
        match parsed {
            Some((uci, Some(mv))) => {
                synced.pos.play_unchecked(mv);
                synced.moves.push(uci.clone());
                Ok(uci)
            }
            // Well-formed but illegal here: the game loop rejects it.
            Some((uci, None)) => {
                self.synced = None;
                Ok(uci)
            }
            None => Err(EngineError::Protocol(format!(
                "unreadable move {:?}",
                truncate(text, 40)
            ))),
        }
    }
}

impl Player for XboardPlayer {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn ensure_started(&mut self) -> Result<(), EngineError> {
        let alive = self.process.as_mut().is_some_and(EngineProcess::is_alive);
        // An engine without `reuse` is restarted by every `new_game`; one
        // start here would be wasted, so its start failures show there.
        if !alive && self.features.reuse {
            if let Err(e) = self.start() {
                self.kill();
                return Err(e);
            }
        }
        Ok(())
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        let alive = self.process.as_mut().is_some_and(EngineProcess::is_alive);
        if !alive || !self.features.reuse {
            if let Err(e) = self.start() {
                self.kill();
                return Err(e);
            }
        }
        self.synced = None;
        self.tc = None;
        let setup = self.new_game_commands();
        let result = match self.process.as_mut() {
            Some(p) => {
                p.drain();
                p.send(setup)
            }
            None => unreachable!("started above"),
        }
        .and_then(|()| self.sync("after new"));
        if result.is_err() {
            self.kill();
        } else {
            self.synced = Some(Synced {
                start_fen: None,
                moves: Vec::with_capacity(256),
                pos: self.spec.variant.start_position(),
            });
        }
        result
    }

    fn check_limit(&mut self, limit: &MoveLimit) -> Result<(), EngineError> {
        match limit {
            MoveLimit::Capped { .. } => Err(EngineError::Unsupported(format!(
                "{}: xboard has no command for {} together: give an xboard engine one limit",
                self.who(),
                limit_text(limit)
            ))),
            MoveLimit::Nodes(_) if !self.features.nps => Err(EngineError::Unsupported(format!(
                "{}: fixed nodes need `feature nps=1`, which the engine does not announce \
                 (use depth, move time or a clock)",
                self.who()
            ))),
            MoveLimit::Depth(d) if self.depth_cmd.is_none() => {
                if self.process.is_none() {
                    return Err(EngineError::Crashed("engine is not running".into()));
                }
                if !self.features.ping {
                    // Cannot ask; a rejection during the search is caught.
                    self.depth_cmd = Some("sd");
                    return Ok(());
                }
                for command in ["sd", "depth"] {
                    if self.ping(&format!("{command} {d}\n"), &format!("after `{command}`"))? {
                        self.depth_cmd = Some(command);
                        return Ok(());
                    }
                }
                Err(EngineError::Unsupported(format!(
                    "{}: the engine knows neither `sd` nor `depth`, so no fixed depth",
                    self.who()
                )))
            }
            _ => Ok(()),
        }
    }

    fn check_start(&mut self, fen: &str) -> Result<(), EngineError> {
        if self.features.setboard {
            return Ok(());
        }
        edit_setup(&fen_position(fen, self.spec.variant)?)
            .map(|_| ())
            .map_err(|why| EngineError::Unsupported(format!("{}: {why}", self.who())))
    }

    fn go(&mut self, req: &MoveRequest<'_>) -> Result<EngineMove, EngineError> {
        let result = self.go_inner(req);
        match &result {
            Ok(_) => {}
            // The engine is idle and sound; its next game starts with `new`.
            Err(EngineError::Resigned(_)) => self.synced = None,
            // Whatever else went wrong, the next game starts a fresh process.
            Err(_) => self.kill(),
        }
        result
    }

    fn quit(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.shutdown("quit\n", QUIT_GRACE);
        }
        self.synced = None;
    }
}

impl XboardPlayer {
    /// `ping N` / `pong N`, if the engine supports it: it has processed
    /// everything sent before.
    fn sync(&mut self, what: &str) -> Result<(), EngineError> {
        if self.features.ping {
            self.ping("", what)?;
        }
        Ok(())
    }

    fn go_inner(&mut self, req: &MoveRequest<'_>) -> Result<EngineMove, EngineError> {
        let Some(process) = self.process.as_mut() else {
            return Err(EngineError::Crashed("engine is not running".into()));
        };
        // Output since the last move is stale, except a `resign` sent after
        // that move (Fairy-Max moves, then resigns).
        if let Some(line) = take_resign(process) {
            return Err(EngineError::Resigned(line));
        }
        self.check_limit(&req.limit)?;
        self.out.clear();
        self.write_position(req)?;
        self.write_limits(&req.limit);
        self.out.push_str("go\n");
        let Some(process) = self.process.as_mut() else {
            unreachable!("checked above")
        };
        process.send(&self.out)?;
        let started = Instant::now();
        let deadline = started + req.deadline;
        let mut info = InfoSummary::default();
        loop {
            let line = match process.read_line(deadline) {
                Ok(line) => line,
                Err(ReadError::Timeout) => {
                    return Err(EngineError::Timeout(format!(
                        "no move {} ms after `go` (limit: {})",
                        started.elapsed().as_millis(),
                        limit_text(&req.limit)
                    )))
                }
                Err(ReadError::Eof) => {
                    return Err(EngineError::Crashed(format!(
                        "{} while thinking",
                        process.describe_exit()
                    )))
                }
            };
            let mut tokens = line.split_ascii_whitespace();
            let Some(first) = tokens.next() else {
                continue;
            };
            let mv = match first {
                "move" => tokens.next(),
                "My" if line.starts_with("My move is") => line.rsplit(' ').next(),
                "resign" => return Err(EngineError::Resigned(format!("`{}`", truncate(line, 80)))),
                "Illegal" | "Error" => {
                    if let Some(command) = self
                        .limit_cmd
                        .filter(|&c| rejected_command(line) == Some(c))
                    {
                        // It searches without the limit now: no use waiting.
                        return Err(EngineError::Unsupported(format!(
                            "{}: the engine does not know `{command}` ({:?})",
                            self.spec.name,
                            truncate(line, 80)
                        )));
                    }
                    // Phalanx answers unknown commands with "Illegal move:
                    // ..." too: only a rejected move counts.
                    if first == "Illegal" && rejects_a_move(line) {
                        let msg = format!("engine rejected a move: {}", truncate(line, 80));
                        self.synced = None;
                        return Err(EngineError::Protocol(msg));
                    }
                    continue;
                }
                _ => {
                    if first.as_bytes()[0].is_ascii_digit() {
                        parse_thinking(line, &mut info);
                    }
                    continue;
                }
            };
            let Some(mv) = mv.map(str::to_string) else {
                return Err(EngineError::Protocol(format!(
                    "malformed move line: {:?}",
                    truncate(line, 80)
                )));
            };
            if is_null_move(&mv) {
                return Err(no_move(line));
            }
            let elapsed = process
                .line_received_at()
                .saturating_duration_since(started);
            // A move followed at once by `resign` (Fairy-Max below its
            // resign threshold): the resignation ends the game.
            if let Some(line) = take_resign(process) {
                return Err(EngineError::Resigned(line));
            }
            let uci = self.accept_move(&mv)?;
            return Ok(info.into_move(uci, elapsed));
        }
    }
}

impl Drop for XboardPlayer {
    fn drop(&mut self) {
        self.quit();
    }
}

/// Consume the output that has already arrived, without waiting, and
/// return a `resign` line among it, if any.
fn take_resign(process: &mut EngineProcess) -> Option<String> {
    let now = Instant::now();
    let mut resign = None;
    while let Ok(line) = process.read_line(now) {
        if resign.is_none() && line.split_ascii_whitespace().next() == Some("resign") {
            resign = Some(format!("`{}`", truncate(line, 80)));
        }
    }
    resign
}

/// A limit for messages.
fn limit_text(limit: &MoveLimit) -> String {
    match limit {
        MoveLimit::Nodes(n) => format!("nodes {n}"),
        MoveLimit::Depth(d) => format!("depth {d}"),
        MoveLimit::MoveTime(t) => format!("move time {} ms", t.as_millis()),
        MoveLimit::Clock { .. } => "clock".into(),
        MoveLimit::Capped { nodes, depth, time } => {
            let mut parts: Vec<String> = time.iter().map(|t| limit_text(t)).collect();
            parts.extend(nodes.map(|n| format!("nodes {n}")));
            parts.extend(depth.map(|d| format!("depth {d}")));
            parts.join(" and ")
        }
    }
}

/// Append the command setting option `name` to `value`, or say why the
/// engine would not understand it.
fn write_option(out: &mut String, f: &Features, name: &str, value: &str) -> Result<(), String> {
    // `memory` (MB) and `cores` are commands of their own in CECP.
    let (announced, command) = match name {
        "memory" => (f.memory, "memory"),
        "cores" => (f.smp, "cores"),
        _ => (f.options.iter().any(|o| o == name), "option"),
    };
    if !announced {
        return Err(match command {
            "memory" => "option `memory` needs `feature memory=1`, not announced".to_string(),
            "cores" => "option `cores` needs `feature smp=1`, not announced".to_string(),
            _ => match super::names::closest_name(name, &f.options) {
                Some(close) => {
                    format!("the engine announces no option `{name}`; did you mean `{close}`?")
                }
                None => format!(
                    "the engine announces no option `{name}` (it has: {})",
                    f.options.join(", ")
                ),
            },
        });
    }
    let _ = if command == "option" {
        writeln!(out, "option {name}={value}")
    } else {
        writeln!(out, "{command} {value}")
    };
    Ok(())
}

/// The name in an option feature's value, `NAME -TYPE ...`.
fn option_name(value: &str) -> &str {
    const TYPES: [&str; 10] = [
        "check", "spin", "combo", "button", "save", "reset", "string", "file", "path", "slider",
    ];
    let mut from = 0;
    while let Some(i) = value[from..].find(" -") {
        let at = from + i;
        let kind = value[at + 2..]
            .split_ascii_whitespace()
            .next()
            .unwrap_or("");
        if TYPES.contains(&kind) {
            return value[..at].trim();
        }
        from = at + 2;
    }
    value.trim()
}

/// Append move `mv` (legal in `pos`) in the engine's notation. Castling in
/// Chess960 is `O-O`/`O-O-O` in either notation, as WinBoard sends it: a
/// king's coordinate move cannot tell castling from a king step there.
fn write_move(out: &mut String, pos: &Chess, mv: Move, features: &Features, variant: Variant) {
    if features.usermove {
        out.push_str("usermove ");
    }
    let _ = if features.san || (variant == Variant::Chess960 && mv.is_castle()) {
        writeln!(out, "{}", San::from_move(pos, mv))
    } else {
        writeln!(out, "{}", UciMove::from_move(mv, CastlingMode::Standard))
    };
}

/// `level MPS BASE INC` with BASE in whole minutes or M:SS, rounded to the
/// nearest second and at least one (some engines read 0 as no clock).
fn write_level(out: &mut String, movestogo: Option<u32>, base: Duration, inc: Duration) {
    let secs = base.as_millis().saturating_add(500) / 1000;
    let secs = secs.max(1);
    let _ = if secs.is_multiple_of(60) {
        write!(out, "level {} {} ", movestogo.unwrap_or(0), secs / 60)
    } else {
        write!(
            out,
            "level {} {}:{:02} ",
            movestogo.unwrap_or(0),
            secs / 60,
            secs % 60
        )
    };
    out.push_str(&fmt_secs(inc));
    out.push('\n');
}

/// What edit mode sends for `pos`: the position to set up and, when `pos`
/// has a legal en-passant capture, the double step to play after it. An
/// error when the engine would infer castling rights `pos` lacks.
fn edit_setup(pos: &Chess) -> Result<(Chess, Option<Move>), String> {
    let (before, step) = match pos.ep_square(EnPassantMode::Legal) {
        None => (pos.clone(), None),
        Some(ep) => {
            let (before, mv) = before_double_step(pos, ep).ok_or_else(|| {
                format!(
                    "the engine has no `setboard`, and edit mode cannot give en passant on {ep}"
                )
            })?;
            (before, Some(mv))
        }
    };
    let extra = implied_castling(before.board()) & !before.castles().castling_rights();
    if extra.any() {
        let rooks: Vec<String> = extra.into_iter().map(|sq| sq.to_string()).collect();
        return Err(format!(
            "the engine has no `setboard`, and in edit mode it would assume castling rights \
             the position lacks (with the rook on {})",
            rooks.join(", ")
        ));
    }
    Ok((before, step))
}

/// The castling rooks an engine infers in edit mode: those on a corner of
/// their back rank while their king stands on its home square.
fn implied_castling(board: &Board) -> Bitboard {
    let mut rooks = Bitboard::EMPTY;
    for (color, king, corners) in [
        (Color::White, Square::E1, [Square::A1, Square::H1]),
        (Color::Black, Square::E8, [Square::A8, Square::H8]),
    ] {
        if board.piece_at(king) == Some(color.king()) {
            for corner in corners {
                if board.piece_at(corner) == Some(color.rook()) {
                    rooks.add(corner);
                }
            }
        }
    }
    rooks
}

/// The position before the double step that made `ep` an en-passant
/// square in `pos`, and that step.
fn before_double_step(pos: &Chess, ep: Square) -> Option<(Chess, Move)> {
    let mover = !pos.turn();
    let (from, to) = match mover {
        Color::White => (ep.offset(-8)?, ep.offset(8)?),
        Color::Black => (ep.offset(8)?, ep.offset(-8)?),
    };
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    let pawn = setup.board.remove_piece_at(to)?;
    setup.board.set_piece_at(from, pawn);
    setup.turn = mover;
    setup.ep_square = None;
    setup.halfmoves = 0;
    if mover == Color::Black {
        setup.fullmoves = NonZeroU32::new(setup.fullmoves.get() - 1).unwrap_or(NonZeroU32::MIN);
    }
    let before = Chess::from_setup(setup, CastlingMode::Standard).ok()?;
    let mv = UciMove::Normal {
        from,
        to,
        promotion: None,
    }
    .to_move(&before)
    .ok()?;
    let mut after = before.clone();
    after.play_unchecked(mv);
    let epd = |p: &Chess| Epd::from_position(p, EnPassantMode::Legal).to_string();
    (epd(&after) == epd(pos)).then_some((before, mv))
}

/// Protocol-1 `edit` mode for engines without `setboard` (Fairy-Max). A
/// dummy `a2a3` first makes Black the side to move when needed, as the
/// protocol prescribes. The 50-move counter is lost.
fn write_edit(out: &mut String, pos: &Chess, features: &Features) {
    if pos.turn() == Color::Black {
        if features.usermove {
            out.push_str("usermove ");
        }
        out.push_str(if features.san { "a3\n" } else { "a2a3\n" });
    }
    out.push_str("edit\n#\n");
    for color in [Color::White, Color::Black] {
        if color == Color::Black {
            out.push_str("c\n");
        }
        for (square, piece) in pos.board().iter() {
            if piece.color == color {
                let _ = writeln!(out, "{}{square}", piece.role.upper_char());
            }
        }
    }
    out.push_str(".\n");
}

fn fen_position(fen: &str, variant: Variant) -> Result<Chess, EngineError> {
    crate::variant::parse_position(fen, variant)
        .map_err(|e| EngineError::Protocol(format!("bad FEN in request: {e}")))
}

/// Whether an `Illegal move...` line names a move (rather than a command
/// the engine did not know).
fn rejects_a_move(line: &str) -> bool {
    let text = line.rsplit(':').next().unwrap_or(line).trim();
    let last = text.split_ascii_whitespace().last().unwrap_or("");
    line.starts_with("Illegal move")
        && (normalize_move(last).is_some() || San::from_ascii(last.as_bytes()).is_ok())
}

/// The command an engine says it does not know: the first word after the
/// colon of `Error (unknown command): sd` (the protocol's form) or of
/// `Illegal move: sd 3` (Phalanx's).
fn rejected_command(line: &str) -> Option<&str> {
    if !(line.starts_with("Error") || line.starts_with("Illegal move")) {
        return None;
    }
    line.split_once(':')?.1.split_ascii_whitespace().next()
}

/// Whether a move time can be sent as `st` (whole, nonzero seconds).
fn whole_seconds(t: &Duration) -> bool {
    !t.is_zero() && t.as_millis().is_multiple_of(1000)
}

/// `key=value` pairs of a `feature` line; values may be double-quoted.
fn parse_features(mut s: &str) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    loop {
        s = s.trim_start();
        let Some(eq) = s.find('=') else {
            return pairs;
        };
        let key = s[..eq].trim();
        let rest = &s[eq + 1..];
        let (value, next) = match rest.strip_prefix('"') {
            Some(quoted) => match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            },
            None => {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                (&rest[..end], &rest[end..])
            }
        };
        pairs.push((key, value));
        s = next;
    }
}

/// Fold a thinking line `ply score time nodes pv...` into `info`. Mate
/// scores follow the protocol's convention (100000 + N for mate in N).
fn parse_thinking(line: &str, info: &mut InfoSummary) {
    let mut t = line.split_ascii_whitespace();
    let ply = t
        .next()
        .map(|p| p.trim_end_matches(|c: char| !c.is_ascii_digit()))
        .and_then(|p| p.parse::<u32>().ok());
    let score = t.next().and_then(|s| s.parse::<i64>().ok());
    let _time_cs = t.next();
    let nodes = t.next().and_then(|n| n.parse::<u64>().ok());
    let (Some(ply), Some(score)) = (ply, score) else {
        return;
    };
    let score = if score.abs() >= 100_000 {
        let n = i32::try_from(score.abs() - 100_000).unwrap_or(i32::MAX);
        EngineScore::Mate(if score > 0 { n } else { -n })
    } else {
        EngineScore::Cp(i32::try_from(score).unwrap_or(0))
    };
    info.score = Some(score);
    info.depth = Some(ply);
    if nodes.is_some() {
        info.nodes = nodes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_lines_parse() {
        let pairs = parse_features(r#"ping=1 setboard=1 myname="Fairy-Max 5.0b" done=0"#);
        assert_eq!(
            pairs,
            vec![
                ("ping", "1"),
                ("setboard", "1"),
                ("myname", "Fairy-Max 5.0b"),
                ("done", "0")
            ]
        );
        assert!(parse_features("garbage").is_empty());
    }

    #[test]
    fn thinking_lines_parse() {
        let mut info = InfoSummary::default();
        parse_thinking("7 -35 120 45678 e7e5 g1f3", &mut info);
        assert_eq!(info.score, Some(EngineScore::Cp(-35)));
        assert_eq!((info.depth, info.nodes), (Some(7), Some(45678)));
        parse_thinking("9. 100003 50 900 a1a8", &mut info);
        assert_eq!(info.score, Some(EngineScore::Mate(3)));
        parse_thinking("10 nonsense", &mut info);
        assert_eq!(info.depth, Some(9));
    }

    #[test]
    fn features_are_accepted_only_when_honoured() {
        let mut f = Features::default();
        for (key, value) in [
            ("ping", "1"),
            ("setboard", "0"),
            ("nps", "1"),
            ("smp", "1"),
            ("option", "Resign Threshold -spin 800 200 1200"),
            ("variants", "normal"),
            ("sigint", "0"),
        ] {
            assert!(f.set(key, value), "{key}={value}");
        }
        for (key, value) in [
            ("sigint", "1"),
            ("analyze", "1"),
            ("exclude", "1"),
            ("xedit", "1"),
        ] {
            assert!(!f.set(key, value), "{key}={value}");
        }
        assert!(f.ping && f.nps && f.smp && !f.setboard && !f.memory);
        assert_eq!(f.options, ["Resign Threshold"]);
    }

    #[test]
    fn option_names_end_before_the_type() {
        assert_eq!(option_name("Resign -check 0"), "Resign");
        assert_eq!(
            option_name("Multi-PV Margin -spin 0 0 1000"),
            "Multi-PV Margin"
        );
        assert_eq!(
            option_name("Randomizer (0-50) -slider 0 0 50"),
            "Randomizer (0-50)"
        );
        assert_eq!(option_name("Clear Hash -button"), "Clear Hash");
        assert_eq!(option_name("Odd"), "Odd");
    }

    #[test]
    fn rejected_commands_are_named() {
        assert_eq!(rejected_command("Error (unknown command): sd"), Some("sd"));
        assert_eq!(rejected_command("Illegal move: sd 3"), Some("sd"));
        assert_eq!(
            rejected_command("Illegal move (in check): Nf3"),
            Some("Nf3")
        );
        assert_eq!(rejected_command("move e2e4"), None);
    }

    #[test]
    fn level_gives_minutes_or_minutes_and_seconds() {
        let mut s = String::new();
        for (mps, base_ms, inc_ms) in [
            (None, 500, 50),
            (None, 1_499, 0),
            (None, 1_500, 0),
            (Some(40), 90_000, 0),
            (None, 120_000, 1_000),
        ] {
            let ms = Duration::from_millis;
            write_level(&mut s, mps, ms(base_ms), ms(inc_ms));
        }
        assert_eq!(
            s,
            "level 0 0:01 0.05\nlevel 0 0:01 0\nlevel 0 0:02 0\nlevel 40 1:30 0\nlevel 0 2 1\n"
        );
    }

    fn chess(fen: &str) -> Chess {
        fen_position(fen, Variant::Standard).unwrap()
    }

    #[test]
    fn edit_mode_refuses_castling_rights_it_would_invent() {
        // King and rook at home without the right (Fairy-Max played e1g1).
        let err = edit_setup(&chess("4rkr1/4p1p1/8/8/2B5/8/8/4K2R w - - 0 1")).unwrap_err();
        assert!(err.contains("castling") && err.contains("h1"), "{err}");
        let err = edit_setup(&chess("r3k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1")).unwrap_err();
        assert!(err.contains("a8") && !err.contains("h8"), "{err}");
        // Rights as edit mode implies them, or no king at home: fine.
        for fen in [
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r4k1r/8/8/8/8/8/8/R4K1R b - - 0 1",
        ] {
            let (before, step) = edit_setup(&chess(fen)).unwrap();
            assert_eq!(before, chess(fen));
            assert!(step.is_none());
        }
    }

    #[test]
    fn edit_mode_plays_the_double_step_for_en_passant() {
        let pos = chess("1RB5/8/8/k7/1Pp5/K7/8/8 b - b3 0 1");
        let (before, step) = edit_setup(&pos).unwrap();
        assert_eq!(
            Epd::from_position(&before, EnPassantMode::Legal).to_string(),
            "1RB5/8/8/k7/2p5/K7/1P6/8 w - -"
        );
        let step = step.unwrap();
        assert_eq!(
            UciMove::from_move(step, CastlingMode::Standard).to_string(),
            "b2b4"
        );
        // Black's double step, White to move.
        let pos = chess("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        let (before, step) = edit_setup(&pos).unwrap();
        assert_eq!(before.turn(), Color::Black);
        let step = UciMove::from_move(step.unwrap(), CastlingMode::Standard).to_string();
        assert_eq!(step, "d7d5");
        // An en-passant square no pawn can use needs no step.
        let (_, step) = edit_setup(&chess("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 2")).unwrap();
        assert!(step.is_none());
    }

    fn player(features: Features) -> XboardPlayer {
        let mut p = XboardPlayer::new(PlayerSpec {
            name: "x".into(),
            kind: super::super::PlayerKind::Xboard,
            cmd: "x".into(),
            args: vec![],
            dir: None,
            options: vec![],
            init_timeout: Duration::from_secs(1),
            variant: crate::variant::Variant::Standard,
            stderr_log: None,
            restart: false,
        });
        p.features = features;
        p
    }

    #[test]
    fn moves_are_sent_incrementally_in_the_engine_notation() {
        let mut p = player(Features {
            usermove: true,
            san: true,
            nps: true,
            ..Features::default()
        });
        let moves: Vec<String> = ["e2e4", "e7e5", "g1f3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut req = MoveRequest {
            start_fen: None,
            moves: &moves[..2],
            variant: crate::variant::Variant::Standard,
            limit: MoveLimit::Nodes(1000),
            deadline: Duration::from_secs(1),
        };
        p.write_position(&req).unwrap();
        p.write_limits(&req.limit);
        assert_eq!(
            p.out,
            "force\nnew\nforce\npost\neasy\nusermove e4\nusermove e5\nnps 1000\nst 1\n"
        );
        // The engine answers in SAN; the next request continues the game.
        assert_eq!(p.accept_move("Nf3").unwrap(), "g1f3");
        let more: Vec<String> = moves.iter().cloned().chain(["b8c6".to_string()]).collect();
        req.moves = &more;
        p.out.clear();
        p.write_position(&req).unwrap();
        p.write_limits(&req.limit);
        assert_eq!(p.out, "force\nusermove Nc6\n");
    }

    #[test]
    fn clocks_are_in_centiseconds_from_the_movers_view() {
        let mut p = player(Features::default());
        let moves = vec!["e2e4".to_string()];
        let req = MoveRequest {
            start_fen: None,
            moves: &moves,
            variant: crate::variant::Variant::Standard,
            limit: MoveLimit::Clock {
                wtime: Duration::from_millis(7000),
                btime: Duration::from_millis(8000),
                winc: Duration::from_millis(80),
                binc: Duration::from_millis(100),
                movestogo: None,
            },
            deadline: Duration::from_secs(1),
        };
        p.write_position(&req).unwrap();
        p.out.clear();
        p.write_limits(&req.limit);
        assert_eq!(p.out, "level 0 0:08 0.1\ntime 800\notim 700\n");
        p.out.clear();
        p.write_limits(&req.limit);
        assert_eq!(p.out, "time 800\notim 700\n");
    }

    #[test]
    fn a_fen_is_sent_with_setboard_or_edit() {
        let mut p = player(Features::default());
        let req = MoveRequest {
            start_fen: Some("4k3/8/8/8/8/8/p7/4K2R b K - 0 1"),
            moves: &[],
            variant: crate::variant::Variant::Standard,
            limit: MoveLimit::Depth(3),
            deadline: Duration::from_secs(1),
        };
        p.write_position(&req).unwrap();
        assert!(
            p.out.ends_with("a2a3\nedit\n#\nKe1\nRh1\nc\nPa2\nKe8\n.\n"),
            "{}",
            p.out
        );
        p.features.setboard = true;
        p.synced = None;
        p.out.clear();
        p.write_position(&req).unwrap();
        assert!(p
            .out
            .ends_with("setboard 4k3/8/8/8/8/8/p7/4K2R b K - 0 1\n"));
    }

    #[test]
    fn only_rejected_moves_are_errors() {
        assert!(rejects_a_move("Illegal move: e2e4"));
        assert!(rejects_a_move("Illegal move (in check): Nf3"));
        assert!(!rejects_a_move("Illegal move: nps 2000"));
        assert!(!rejects_a_move("Illegal move (unknown command): easy"));
    }
}
