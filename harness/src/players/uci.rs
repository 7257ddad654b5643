//! External UCI engines: the handshake, `ucinewgame`/`isready` between
//! games, one `position` + `go` per move (no per-move `isready` round trip),
//! `info` parsing for score/depth/nodes, and restarts after failures.
//!
//! Relies on [`super::process`] for the child process and timed reads.
//! After a timeout the process is killed (a hung engine cannot be trusted to
//! obey `stop`), so the next [`Player::new_game`] starts a fresh one.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::process::{EngineProcess, ReadError};
use super::{
    EngineError, EngineMove, EngineScore, MoveLimit, MoveRequest, Player, PlayerSpec, PvLine,
    SearchDetail,
};
use crate::variant::Variant;

/// How long `quit` waits for the engine to exit by itself before killing it.
const QUIT_GRACE: Duration = Duration::from_millis(250);

/// A UCI engine run as a child process, started lazily and restarted after
/// it dies or hangs.
pub struct UciPlayer {
    spec: PlayerSpec,
    /// This instance's name in the stderr log.
    tag: String,
    process: Option<EngineProcess>,
    /// Engine's `id name`, once known.
    id_name: Option<String>,
    /// Reused buffer for outgoing commands.
    out: String,
    /// Options from [`Player::configure`], sent after the spec's on every
    /// start.
    extra: Vec<(String, String)>,
    /// Option names from the last handshake's `option name` lines.
    advertised: Vec<String>,
}

impl UciPlayer {
    /// A player for `spec`; nothing is started until [`Player::new_game`].
    pub fn new(spec: PlayerSpec) -> Self {
        UciPlayer {
            tag: super::names::instance_tag(&spec.name),
            spec,
            process: None,
            id_name: None,
            out: String::with_capacity(1024),
            extra: Vec::new(),
            advertised: Vec::new(),
        }
    }

    /// The engine's `id name` from its last handshake, if any.
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    /// Process id of the running engine, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(EngineProcess::pid)
    }

    /// Start the process and complete `uci`/`uciok`, the options and
    /// `isready`/`readyok`, each wait bounded by the init timeout.
    fn start(&mut self) -> Result<(), EngineError> {
        self.kill();
        let mut process = EngineProcess::spawn(&self.spec, &self.tag)?;
        let timeout = self.spec.init_timeout;
        if process.send("uci\n").is_err() {
            return Err(EngineError::Start(format!(
                "{} before the uci handshake",
                process.describe_exit()
            )));
        }
        let deadline = Instant::now() + timeout;
        let mut advertised = Vec::new();
        loop {
            match process.read_line(deadline) {
                Ok(line) => {
                    let mut tokens = line.split_ascii_whitespace();
                    match tokens.next() {
                        Some("uciok") => break,
                        Some("id") if tokens.next() == Some("name") => {
                            let rest: Vec<&str> = tokens.collect();
                            self.id_name = Some(rest.join(" "));
                        }
                        Some("option") => advertised.extend(option_name(line)),
                        _ => {}
                    }
                }
                Err(ReadError::Timeout) => {
                    return Err(EngineError::Timeout(format!(
                        "no uciok within {} ms",
                        timeout.as_millis()
                    )))
                }
                Err(ReadError::Eof) => {
                    return Err(EngineError::Start(format!(
                        "{} during the uci handshake",
                        process.describe_exit()
                    )))
                }
            }
        }
        // An option the engine does not know would be ignored (or answered
        // with a line nobody reads): refuse the setup instead.
        self.advertised = advertised;
        let mut options: Vec<(String, String)> = self
            .spec
            .options
            .iter()
            .chain(&self.extra)
            .cloned()
            .collect();
        if self.spec.variant == Variant::Chess960 {
            if let Err(e) = self.check_chess960() {
                process.kill();
                return Err(e);
            }
            options.push(("UCI_Chess960".into(), "true".into()));
        }
        if let Err(e) = self.check_options(&options) {
            process.kill();
            return Err(e);
        }
        self.out.clear();
        for (name, value) in &options {
            let _ = writeln!(self.out, "setoption name {name} value {value}");
        }
        self.out.push_str("isready\n");
        process.send(&self.out)?;
        wait_ready(&mut process, timeout, "after the options")?;
        self.process = Some(process);
        Ok(())
    }

    /// A Chess960 match needs the engine's `UCI_Chess960` option.
    fn check_chess960(&self) -> Result<(), EngineError> {
        if self
            .advertised
            .iter()
            .any(|a| a.eq_ignore_ascii_case("UCI_Chess960"))
        {
            return Ok(());
        }
        let who = match self.id_name.as_deref() {
            Some(id) if id != self.spec.name => format!("engine '{}' ({id})", self.spec.name),
            _ => format!("engine '{}'", self.spec.name),
        };
        Err(EngineError::Unsupported(format!(
            "{who} cannot play Chess960: it does not advertise the UCI_Chess960 option"
        )))
    }

    /// Every option in `options` must be one the engine advertised in its
    /// last handshake.
    fn check_options(&self, options: &[(String, String)]) -> Result<(), EngineError> {
        for (name, _) in options {
            if !self.advertised.iter().any(|a| a.eq_ignore_ascii_case(name)) {
                return Err(EngineError::Unsupported(unknown_option_message(
                    &self.spec.name,
                    self.id_name.as_deref(),
                    name,
                    &self.advertised,
                )));
            }
        }
        Ok(())
    }

    /// Kill the engine (if running); the next game restarts it.
    fn kill(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.kill();
        }
    }
}

/// The name in an `option name <id> type <t> ...` line (names may hold
/// spaces; `type` ends them).
fn option_name(line: &str) -> Option<String> {
    let mut tokens = line.split_ascii_whitespace();
    if tokens.next() != Some("option") || tokens.next() != Some("name") {
        return None;
    }
    let name: Vec<&str> = tokens.take_while(|&t| t != "type").collect();
    (!name.is_empty()).then(|| name.join(" "))
}

/// Why an option cannot be set: names the engine, the option and the
/// closest advertised name.
fn unknown_option_message(
    engine: &str,
    id_name: Option<&str>,
    option: &str,
    advertised: &[String],
) -> String {
    let who = match id_name {
        Some(id) if id != engine => format!("engine '{engine}' ({id})"),
        _ => format!("engine '{engine}'"),
    };
    let hint = match super::names::closest_name(option, advertised) {
        Some(close) => format!("; did you mean '{close}'?"),
        None if advertised.is_empty() => "; it advertises no options".to_string(),
        None => format!("; it has: {}", advertised.join(", ")),
    };
    format!("{who} does not advertise the option '{option}'{hint}")
}

/// Wait for `readyok`, skipping other lines.
fn wait_ready(
    process: &mut EngineProcess,
    timeout: Duration,
    when: &str,
) -> Result<(), EngineError> {
    let deadline = Instant::now() + timeout;
    loop {
        match process.read_line(deadline) {
            Ok(line) if line.trim() == "readyok" => return Ok(()),
            Ok(_) => {}
            Err(ReadError::Timeout) => {
                return Err(EngineError::Timeout(format!(
                    "no readyok {when} within {} ms",
                    timeout.as_millis()
                )))
            }
            Err(ReadError::Eof) => {
                return Err(EngineError::Crashed(format!(
                    "{} {when}",
                    process.describe_exit()
                )))
            }
        }
    }
}

impl Player for UciPlayer {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn ensure_started(&mut self) -> Result<(), EngineError> {
        let alive = self.process.as_mut().is_some_and(EngineProcess::is_alive);
        if !alive {
            if let Err(e) = self.start() {
                self.kill();
                return Err(e);
            }
        }
        Ok(())
    }

    fn configure(&mut self, options: &[(String, String)]) -> Result<(), EngineError> {
        self.extra = options.to_vec();
        // A running engine takes them now; a stopped one at its next start.
        let alive = self.process.as_mut().is_some_and(EngineProcess::is_alive);
        if !alive || options.is_empty() {
            return Ok(());
        }
        self.check_options(options)?;
        self.out.clear();
        for (name, value) in options {
            let _ = writeln!(self.out, "setoption name {name} value {value}");
        }
        self.out.push_str("isready\n");
        let timeout = self.spec.init_timeout;
        let Some(process) = self.process.as_mut() else {
            return Ok(());
        };
        let result = process
            .send(&self.out)
            .and_then(|()| wait_ready(process, timeout, "after setoption"));
        if result.is_err() {
            self.kill();
        }
        result
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        let alive = self.process.as_mut().is_some_and(EngineProcess::is_alive);
        if !alive {
            if let Err(e) = self.start() {
                self.kill();
                return Err(e);
            }
        }
        let timeout = self.spec.init_timeout;
        let Some(process) = self.process.as_mut() else {
            unreachable!("started above")
        };
        process.drain();
        let result = process
            .send("ucinewgame\nisready\n")
            .and_then(|()| wait_ready(process, timeout, "after ucinewgame"));
        if result.is_err() {
            self.kill();
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
    }
}

impl UciPlayer {
    fn go_inner(&mut self, req: &MoveRequest<'_>) -> Result<EngineMove, EngineError> {
        let Some(process) = self.process.as_mut() else {
            return Err(EngineError::Crashed("engine is not running".into()));
        };
        process.drain();
        write_position_and_go(&mut self.out, req);
        process.send(&self.out)?;
        let started = Instant::now();
        let deadline = started + req.deadline;
        let mut info = InfoSummary::default();
        loop {
            let line = match process.read_line(deadline) {
                Ok(line) => line,
                Err(ReadError::Timeout) => {
                    let go = self.out.lines().last().unwrap_or("go");
                    return Err(EngineError::Timeout(format!(
                        "no bestmove {} ms after `{go}`",
                        started.elapsed().as_millis()
                    )));
                }
                Err(ReadError::Eof) => {
                    return Err(EngineError::Crashed(format!(
                        "{} while thinking",
                        process.describe_exit()
                    )))
                }
            };
            let mut tokens = line.split_ascii_whitespace();
            match tokens.next() {
                Some("info") => {
                    info.update(tokens);
                    info.keep_pv_line(line);
                }
                Some("bestmove") => {
                    let token = tokens.next().unwrap_or("");
                    if is_null_move(token) {
                        return Err(no_move(&format!("bestmove {token}")));
                    }
                    let uci = match normalize_move(token) {
                        Some(uci) => uci,
                        None => {
                            return Err(EngineError::Protocol(format!(
                                "malformed bestmove line: {:?}",
                                truncate(line, 80)
                            )))
                        }
                    };
                    // Measured to when the line arrived, not to when this
                    // thread got round to reading it.
                    let arrived = process.line_received_at();
                    let elapsed = arrived.saturating_duration_since(started);
                    return Ok(info.into_move(uci, elapsed));
                }
                _ => {}
            }
        }
    }
}

impl Drop for UciPlayer {
    fn drop(&mut self) {
        self.quit();
    }
}

/// `position ...` and `go ...` for `req`, into `out` (cleared first).
pub(crate) fn write_position_and_go(out: &mut String, req: &MoveRequest<'_>) {
    out.clear();
    match req.start_fen {
        Some(fen) => {
            out.push_str("position fen ");
            out.push_str(fen);
        }
        None => out.push_str("position startpos"),
    }
    if !req.moves.is_empty() {
        out.push_str(" moves");
        for m in req.moves {
            out.push(' ');
            out.push_str(m);
        }
    }
    out.push_str("\ngo");
    write_limit(out, &req.limit);
    out.push('\n');
}

/// The `go` arguments of `limit`.
fn write_limit(out: &mut String, limit: &MoveLimit) {
    let _ = match limit {
        MoveLimit::Nodes(n) => write!(out, " nodes {n}"),
        MoveLimit::Depth(d) => write!(out, " depth {d}"),
        MoveLimit::MoveTime(t) => write!(out, " movetime {}", t.as_millis()),
        MoveLimit::Clock {
            wtime,
            btime,
            winc,
            binc,
            movestogo,
        } => {
            let _ = write!(
                out,
                " wtime {} btime {} winc {} binc {}",
                wtime.as_millis(),
                btime.as_millis(),
                winc.as_millis(),
                binc.as_millis()
            );
            match movestogo {
                Some(n) => write!(out, " movestogo {n}"),
                None => Ok(()),
            }
        }
        MoveLimit::Capped { nodes, depth, time } => {
            if let Some(n) = nodes {
                let _ = write!(out, " nodes {n}");
            }
            if let Some(d) = depth {
                let _ = write!(out, " depth {d}");
            }
            if let Some(t) = time {
                write_limit(out, t);
            }
            Ok(())
        }
    };
}

/// The search progress of one move, from `info` lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct InfoSummary {
    pub score: Option<EngineScore>,
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub nodes: Option<u64>,
    pub detail: SearchDetail,
    /// The lines with a PV, for the referee (at most [`MAX_PV_LINES`]).
    pub pv_lines: Vec<PvLine>,
}

/// Most `info` lines with a PV kept of one search (the first ones): an
/// engine that floods its output cannot fill the memory with them.
pub(crate) const MAX_PV_LINES: usize = 1024;

impl InfoSummary {
    /// Keep `line` (a whole `info` line) for the referee if it has a PV.
    pub(crate) fn keep_pv_line(&mut self, line: &str) {
        if self.pv_lines.len() < MAX_PV_LINES {
            self.pv_lines.extend(PvLine::parse(line));
        }
    }

    /// Fold one `info` line (tokens after `info`) in. Depth, seldepth and
    /// the PV are taken only from lines with a score (finished iterations,
    /// not `currmove` reports); nodes, nps, hashfull, tbhits and time from
    /// any line; malformed numbers are ignored.
    pub(crate) fn update<'a>(&mut self, mut tokens: impl Iterator<Item = &'a str>) {
        let (mut depth, mut seldepth, mut score) = (None, None, None);
        let mut pv: Option<Vec<String>> = None;
        fn number<'a, T: std::str::FromStr>(
            tokens: &mut impl Iterator<Item = &'a str>,
            slot: &mut Option<T>,
        ) {
            if let Some(v) = tokens.next().and_then(|v| v.parse().ok()) {
                *slot = Some(v);
            }
        }
        while let Some(key) = tokens.next() {
            match key {
                "nps" => number(&mut tokens, &mut self.detail.nps),
                "hashfull" => number(&mut tokens, &mut self.detail.hashfull),
                "tbhits" => number(&mut tokens, &mut self.detail.tbhits),
                "time" => number(&mut tokens, &mut self.detail.time_ms),
                "pv" => {
                    // The rest of the line is the PV.
                    pv = Some(tokens.by_ref().map(str::to_string).collect());
                    break;
                }
                "depth" => depth = tokens.next().and_then(|v| v.parse().ok()),
                "seldepth" => seldepth = tokens.next().and_then(|v| v.parse().ok()),
                "nodes" => {
                    if let Some(n) = tokens.next().and_then(|v| v.parse().ok()) {
                        self.nodes = Some(n);
                    }
                }
                "score" => {
                    score = match (tokens.next(), tokens.next().and_then(|v| v.parse().ok())) {
                        (Some("cp"), Some(v)) => Some(EngineScore::Cp(v)),
                        (Some("mate"), Some(v)) => Some(EngineScore::Mate(v)),
                        _ => None,
                    }
                }
                // The rest of the line is moves or free text.
                "string" | "refutation" | "currline" => break,
                _ => {}
            }
        }
        if score.is_some() {
            self.score = score;
            self.depth = depth.or(self.depth);
            self.seldepth = seldepth.or(self.seldepth);
            if let Some(pv) = pv {
                self.detail.pv = pv;
            }
        }
    }

    pub(crate) fn into_move(self, uci: String, elapsed: Duration) -> EngineMove {
        EngineMove {
            uci,
            score: self.score,
            depth: self.depth,
            seldepth: self.seldepth,
            nodes: self.nodes,
            elapsed,
            detail: self.detail,
            pv_lines: self.pv_lines,
        }
    }
}

/// Whether `text` is how engines say "no move" (`0000`, `(none)`).
pub(crate) fn is_null_move(text: &str) -> bool {
    matches!(text, "0000" | "(none)" | "@@@@")
}

/// The error for an engine that answered `answer` (a null move). The game
/// loop asks only in positions with a legal move, so this is an engine
/// failure; it is named as such rather than passed on as an illegal move.
pub(crate) fn no_move(answer: &str) -> EngineError {
    EngineError::Protocol(format!(
        "engine answered `{}` (no move) in a position with legal moves",
        truncate(answer, 40)
    ))
}

/// A move in UCI coordinate notation (promotion piece lowercased), or
/// `None` if `text` is not shaped like one (null moves included).
pub(crate) fn normalize_move(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    let ok = match b.len() {
        4 => square(b[0], b[1]) && square(b[2], b[3]),
        5 => square(b[0], b[1]) && square(b[2], b[3]) && b"qrbnQRBN".contains(&b[4]),
        _ => false,
    };
    ok.then(|| text.to_ascii_lowercase())
}

/// At most `max` bytes of `s`, for error messages.
pub(crate) fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_fold_into_the_last_score() {
        let mut info = InfoSummary::default();
        for line in [
            "depth 1 seldepth 2 score cp 17 nodes 20 pv e2e4",
            "depth 2 currmove e2e4 currmovenumber 1",
            "depth 2 seldepth 5 score mate -3 upperbound nodes 400 nps 1 pv e2e4 e7e5",
            "nodes 450 string depth 9 score cp 1",
            "depth x score cp",
        ] {
            info.update(line.split_ascii_whitespace());
        }
        assert_eq!(info.score, Some(EngineScore::Mate(-3)));
        assert_eq!(info.depth, Some(2));
        assert_eq!(info.seldepth, Some(5));
        assert_eq!(info.nodes, Some(450));
        assert_eq!(info.detail.nps, Some(1));
        assert_eq!(info.detail.pv, ["e2e4", "e7e5"]);
        // A PV without a score (a currline-like report) does not replace it;
        // nps, hashfull, tbhits and time come from any line.
        info.update(
            "nodes 500 nps 9 hashfull 12 tbhits 3 time 40 pv d2d4".split_ascii_whitespace(),
        );
        assert_eq!(info.detail.pv, ["e2e4", "e7e5"]);
        assert_eq!(
            (
                info.detail.nps,
                info.detail.hashfull,
                info.detail.tbhits,
                info.detail.time_ms
            ),
            (Some(9), Some(12), Some(3), Some(40))
        );
    }

    #[test]
    fn moves_are_shape_checked() {
        assert_eq!(normalize_move("e2e4").as_deref(), Some("e2e4"));
        assert_eq!(normalize_move("a7a8Q").as_deref(), Some("a7a8q"));
        assert!(is_null_move("(none)") && is_null_move("0000"));
        for bad in [
            "", "e2", "e2e9", "i2e4", "e2e4k", "e2e4qq", "Nf3", "e2-e4", "0000",
        ] {
            assert_eq!(normalize_move(bad), None, "{bad}");
        }
    }

    #[test]
    fn position_and_go_commands() {
        let moves = vec!["e2e4".to_string(), "c7c5".to_string()];
        let mut req = MoveRequest {
            start_fen: None,
            moves: &moves,
            variant: crate::variant::Variant::Standard,
            limit: MoveLimit::Nodes(5000),
            deadline: Duration::from_secs(1),
        };
        let mut out = String::new();
        write_position_and_go(&mut out, &req);
        assert_eq!(out, "position startpos moves e2e4 c7c5\ngo nodes 5000\n");
        req.start_fen = Some("8/8/8/8/8/8/8/K6k w - - 0 1");
        req.moves = &[];
        req.limit = MoveLimit::Clock {
            wtime: Duration::from_millis(8000),
            btime: Duration::from_millis(7950),
            winc: Duration::from_millis(80),
            binc: Duration::from_millis(80),
            movestogo: Some(12),
        };
        write_position_and_go(&mut out, &req);
        assert_eq!(
            out,
            "position fen 8/8/8/8/8/8/8/K6k w - - 0 1\n\
             go wtime 8000 btime 7950 winc 80 binc 80 movestogo 12\n"
        );
        req.limit = MoveLimit::Depth(7);
        write_position_and_go(&mut out, &req);
        assert!(out.ends_with("\ngo depth 7\n"));
        req.limit = MoveLimit::MoveTime(Duration::from_millis(250));
        write_position_and_go(&mut out, &req);
        assert!(out.ends_with("\ngo movetime 250\n"));
        // fastchess's nodes with a clock: one go with both.
        req.limit = MoveLimit::Capped {
            nodes: Some(5000),
            depth: Some(9),
            time: Some(Box::new(MoveLimit::Clock {
                wtime: Duration::from_millis(10000),
                btime: Duration::from_millis(5000),
                winc: Duration::from_millis(100),
                binc: Duration::from_millis(50),
                movestogo: None,
            })),
        };
        write_position_and_go(&mut out, &req);
        assert!(
            out.ends_with("\ngo nodes 5000 depth 9 wtime 10000 btime 5000 winc 100 binc 50\n"),
            "{out}"
        );
    }
}
