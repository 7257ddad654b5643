//! External xboard (CECP v2) engines such as Fairy-Max and Phalanx.
//!
//! Handshake: `xboard`, `protover 2`, then `feature` lines until `done=1`
//! (or 2 s of silence: a protocol-1 engine). Each game starts with `new`,
//! `force`, `post` and `easy`; each move sends `force`, the moves the engine
//! has not seen yet (coordinate or SAN, with `usermove` if asked for), the
//! time control and clocks, then `go`, and waits for `move X`. The engine's
//! own board is followed with shakmaty so SAN replies can be turned into
//! coordinates and SAN can be sent to engines that want it.
//!
//! Limits: fixed nodes become `nps N` + `st 1` (one second at N nodes per
//! second: engines that ignore `nps` fall back to one second per move);
//! fixed depth is `sd D`; fixed time is `st S` for whole seconds, otherwise
//! `level 1` with `time` set to the move time; clocks are `level MPS BASE
//! INC` once per game and `time`/`otim` (centiseconds) before every move.
//! A start position other than the standard one is sent with `setboard`, or
//! with protocol-1 `edit` mode to engines without it (Fairy-Max).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position as _};

use super::process::{EngineProcess, ReadError};
use super::uci::{normalize_move, truncate, InfoSummary};
use super::{EngineError, EngineMove, EngineScore, MoveLimit, MoveRequest, Player, PlayerSpec};

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
    myname: Option<String>,
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
            myname: None,
        }
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
    process: Option<EngineProcess>,
    features: Features,
    synced: Option<Synced>,
    tc: Option<TcKey>,
    ping_id: u32,
    out: String,
}

impl XboardPlayer {
    /// A player for `spec`; nothing is started until [`Player::new_game`].
    pub fn new(spec: PlayerSpec) -> Self {
        XboardPlayer {
            spec,
            process: None,
            features: Features::default(),
            synced: None,
            tc: None,
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
    }

    /// Start the process and read its features.
    fn start(&mut self) -> Result<(), EngineError> {
        self.kill();
        let mut process = EngineProcess::spawn(&self.spec)?;
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
                let on = value == "1";
                match key {
                    "setboard" => features.setboard = on,
                    "usermove" => features.usermove = on,
                    "san" => features.san = on,
                    "time" => features.time = on,
                    "ping" => features.ping = on,
                    "reuse" => features.reuse = on,
                    "myname" => features.myname = Some(value.to_string()),
                    "done" => done = Some(on),
                    _ => {}
                }
                let _ = writeln!(reply, "accepted {key}");
            }
            process.send(&reply)?;
            match done {
                Some(true) => break,
                // done=0: the engine needs longer; wait up to the init timeout.
                Some(false) => deadline = started + self.spec.init_timeout,
                None => {}
            }
        }
        self.out.clear();
        for (name, value) in &self.spec.options {
            // `memory` (MB) and `cores` are commands of their own in CECP.
            let _ = if name == "memory" || name == "cores" {
                writeln!(self.out, "{name} {value}")
            } else {
                writeln!(self.out, "option {name}={value}")
            };
        }
        if !self.out.is_empty() {
            process.send(&self.out)?;
        }
        self.features = features;
        self.process = Some(process);
        Ok(())
    }

    /// `ping N` / `pong N`, if the engine supports it: it has processed
    /// everything sent before.
    fn sync(&mut self, what: &str) -> Result<(), EngineError> {
        if !self.features.ping {
            return Ok(());
        }
        let Some(process) = self.process.as_mut() else {
            return Err(EngineError::Crashed("engine is not running".into()));
        };
        self.ping_id += 1;
        let id = self.ping_id;
        process.send(&format!("ping {id}\n"))?;
        let timeout = self.spec.init_timeout;
        let deadline = Instant::now() + timeout;
        loop {
            match process.read_line(deadline) {
                Ok(line) => {
                    let mut t = line.split_ascii_whitespace();
                    if t.next() == Some("pong") && t.next().and_then(|v| v.parse().ok()) == Some(id)
                    {
                        return Ok(());
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
                Some(fen) => fen_position(fen)?,
                None => Chess::default(),
            };
            self.out.push_str("new\nforce\npost\neasy\n");
            self.tc = None;
            if let Some(fen) = req.start_fen {
                if self.features.setboard {
                    let _ = writeln!(self.out, "setboard {fen}");
                } else {
                    write_edit(&mut self.out, &pos, &self.features);
                }
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
            if self.features.usermove {
                self.out.push_str("usermove ");
            }
            if self.features.san {
                let _ = writeln!(self.out, "{}", San::from_move(&synced.pos, mv));
            } else {
                let _ = writeln!(self.out, "{text}");
            }
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
        };
        let out = &mut self.out;
        if self.tc != Some(key) {
            let _ = match limit {
                MoveLimit::Nodes(n) => writeln!(out, "nps {n}\nst 1"),
                MoveLimit::Depth(d) => writeln!(out, "sd {d}"),
                MoveLimit::MoveTime(t) if whole_seconds(t) => {
                    writeln!(out, "st {}", t.as_secs())
                }
                MoveLimit::MoveTime(_) => writeln!(out, "level 1 0:01 0"),
                MoveLimit::Clock {
                    wtime,
                    btime,
                    winc,
                    binc,
                    movestogo,
                } => {
                    let (base, inc) = if white { (wtime, winc) } else { (btime, binc) };
                    let secs = base.as_secs().max(1);
                    let _ = write!(
                        out,
                        "level {} {}:{:02} ",
                        movestogo.unwrap_or(0),
                        secs / 60,
                        secs % 60
                    );
                    write_seconds(out, *inc);
                    writeln!(out)
                }
            };
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
                    let uci = UciMove::from_move(mv, CastlingMode::Standard).to_string();
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
        let result = match self.process.as_mut() {
            Some(p) => {
                p.drain();
                p.send("new\nforce\npost\neasy\n")
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
                pos: Chess::default(),
            });
        }
        result
    }

    fn go(&mut self, req: &MoveRequest<'_>) -> Result<EngineMove, EngineError> {
        let result = self.go_inner(req);
        if result.is_err() {
            // Whatever went wrong, the next game starts a fresh process.
            self.kill();
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
    fn go_inner(&mut self, req: &MoveRequest<'_>) -> Result<EngineMove, EngineError> {
        if self.process.is_none() {
            return Err(EngineError::Crashed("engine is not running".into()));
        }
        self.out.clear();
        self.write_position(req)?;
        self.write_limits(&req.limit);
        self.out.push_str("go\n");
        let Some(process) = self.process.as_mut() else {
            unreachable!("checked above")
        };
        process.drain();
        process.send(&self.out)?;
        let started = Instant::now();
        let deadline = started + req.deadline;
        let mut info = InfoSummary::default();
        loop {
            let Some(process) = self.process.as_mut() else {
                unreachable!("checked above")
            };
            let line = match process.read_line(deadline) {
                Ok(line) => line,
                Err(ReadError::Timeout) => {
                    return Err(EngineError::Timeout(format!(
                        "no move after {} ms",
                        started.elapsed().as_millis()
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
                "resign" => return Err(EngineError::Protocol("engine resigned".into())),
                // Some engines (Phalanx) answer unknown commands with
                // "Illegal move: nps 1000" too: only a rejected move counts.
                "Illegal" if rejects_a_move(line) => {
                    let msg = format!("engine rejected a move: {}", truncate(line, 80));
                    self.synced = None;
                    return Err(EngineError::Protocol(msg));
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
            let elapsed = process
                .line_received_at()
                .saturating_duration_since(started);
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

/// Protocol-1 `edit` mode for engines without `setboard` (Fairy-Max). A
/// dummy `a2a3` first makes Black the side to move when needed, as the
/// protocol prescribes. Castling rights follow from where kings and rooks
/// stand; an en-passant square and the 50-move counter are lost.
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

fn fen_position(fen: &str) -> Result<Chess, EngineError> {
    shakmaty::fen::Fen::from_ascii(fen.as_bytes())
        .ok()
        .and_then(|f| f.into_position(CastlingMode::Standard).ok())
        .ok_or_else(|| EngineError::Protocol(format!("bad FEN in request: {fen:?}")))
}

/// Whether an `Illegal move...` line names a move (rather than a command
/// the engine did not know).
fn rejects_a_move(line: &str) -> bool {
    let text = line.rsplit(':').next().unwrap_or(line).trim();
    let last = text.split_ascii_whitespace().last().unwrap_or("");
    line.starts_with("Illegal move")
        && (normalize_move(last).is_some() || San::from_ascii(last.as_bytes()).is_ok())
}

/// Whether a move time can be sent as `st` (whole, nonzero seconds).
fn whole_seconds(t: &Duration) -> bool {
    !t.is_zero() && t.as_millis().is_multiple_of(1000)
}

/// `d` in seconds, as few digits as needed (`0`, `2`, `0.08`).
fn write_seconds(out: &mut String, d: Duration) {
    let ms = d.as_millis();
    let _ = if ms.is_multiple_of(1000) {
        write!(out, "{}", ms / 1000)
    } else {
        let text = format!("{}.{:03}", ms / 1000, ms % 1000);
        write!(out, "{}", text.trim_end_matches('0'))
    };
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
    fn seconds_are_short() {
        let mut s = String::new();
        for ms in [0, 2000, 80, 1500] {
            write_seconds(&mut s, Duration::from_millis(ms));
            s.push(' ');
        }
        assert_eq!(s, "0 2 0.08 1.5 ");
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
            stderr_log: None,
        });
        p.features = features;
        p
    }

    #[test]
    fn moves_are_sent_incrementally_in_the_engine_notation() {
        let mut p = player(Features {
            usermove: true,
            san: true,
            ..Features::default()
        });
        let moves: Vec<String> = ["e2e4", "e7e5", "g1f3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut req = MoveRequest {
            start_fen: None,
            moves: &moves[..2],
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
