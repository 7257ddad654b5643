//! `karsinta check-engine`: a UCI compliance report, as fastchess's
//! `--compliance` gives one, and more of what a match would trip over: the
//! handshake, option declarations, `isready` while searching, `stop`,
//! `ucinewgame`, clock and node searches, illegal moves, mate scores, PVs
//! that are not legal, run past a 50-move-rule draw or a repetition or do
//! not match their mate score ([`super::pv_check`], the match referee's
//! checks), and `quit`.
//!
//! Every step drives the engine over its pipes with a deadline; every move
//! and PV is checked with shakmaty. A step either passes, passes with
//! warnings (the engine works in a match, but something is off), or fails
//! (a match with this engine would lose games to it); after a failure that
//! leaves the engine in an unknown state the remaining steps are skipped.

use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess};

use super::player::PlayerSpec;
use super::player::PvLine;
use super::process::{EngineProcess, ReadError};
use super::pv_check::{check_pv, position_key};

/// How one step went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The step went as UCI says.
    Pass,
    /// The engine would work in a match, but something is off (see the notes).
    Warn,
    /// A match with this engine would lose games to it.
    Fail,
}

/// One step of the report.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// What the step checks (`go nodes`, `quit`, ...), as the report lists it.
    pub name: String,
    /// How it went.
    pub verdict: Verdict,
    /// What went wrong (warnings and the failure).
    pub notes: Vec<String>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The engine's command, as run.
    pub engine: String,
    /// `id name`, when the engine sent one.
    pub id_name: Option<String>,
    /// The steps run, in order.
    pub steps: Vec<Step>,
    /// Steps not run after a failure.
    pub skipped: Vec<String>,
}

impl Report {
    /// Number of failed steps.
    pub fn failures(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.verdict == Verdict::Fail)
            .count()
    }

    /// Number of warning notes, over all steps.
    pub fn warnings(&self) -> usize {
        self.steps
            .iter()
            .map(|s| usize::from(s.verdict == Verdict::Warn) * s.notes.len())
            .sum()
    }

    /// The report for a person, one line per step and note.
    pub fn text(&self) -> String {
        let mut out = format!(
            "engine {}{}\n",
            self.engine,
            self.id_name
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        );
        for (i, s) in self.steps.iter().enumerate() {
            let mark = match s.verdict {
                Verdict::Pass => "ok",
                Verdict::Warn => "warning",
                Verdict::Fail => "FAILED",
            };
            out.push_str(&format!("step {:>2}: {:<44} {mark}\n", i + 1, s.name));
            for n in &s.notes {
                out.push_str(&format!("          - {n}\n"));
            }
        }
        for s in &self.skipped {
            out.push_str(&format!("skipped: {s}\n"));
        }
        out.push_str(&format!(
            "{} steps, {} failed, {} warnings\n",
            self.steps.len(),
            self.failures(),
            self.warnings()
        ));
        out
    }
}

/// How long a reply that should be immediate may take.
const PROMPT: Duration = Duration::from_secs(2);
/// How long a short search may take before the engine counts as hung.
const SEARCH: Duration = Duration::from_secs(10);

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// White mates in one (Ra8#).
const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
/// Black to move is mated in one (Kb8, Rh8#).
const MATED_IN_ONE: &str = "k7/8/1K6/8/8/8/8/7R b - - 0 1";
/// Black is checkmated: no move to give.
const CHECKMATED: &str = "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1";
/// The fifty-move counter at 98: two quiet plies end the game in a draw.
const FIFTY_EDGE: &str = "8/8/3k4/8/8/3K4/8/4R3 w - - 98 120";

/// The steps, in order.
const STEPS: &[&str] = &[
    "uci: id name and uciok",
    "option declarations",
    "isready: readyok",
    "ucinewgame, isready",
    "position startpos, go wtime/btime",
    "position fen, go with increments",
    "go nodes",
    "go depth",
    "go movetime on time",
    "isready while searching, stop",
    "mate in one: mate score",
    "mated in one: negative mate score",
    "checkmated at the root: no move",
    "PV at the fifty-move edge",
    "quit",
];

/// A process and what every step needs.
struct Session {
    process: EngineProcess,
    /// The `info` lines of the last search.
    infos: Vec<String>,
}

/// Why a step failed: the message, and whether the engine is still usable.
struct Failed {
    message: String,
    fatal: bool,
}

/// A failure after which the engine's state is unknown: the rest is skipped.
fn fail(message: impl Into<String>) -> Failed {
    Failed {
        message: message.into(),
        fatal: true,
    }
}

/// A failure the engine survives (an illegal move, a late answer).
fn bad(message: impl Into<String>) -> Failed {
    Failed {
        message: message.into(),
        fatal: false,
    }
}

impl Session {
    fn send(&mut self, text: &str) -> Result<(), Failed> {
        self.process.send(text).map_err(|e| fail(e.to_string()))
    }

    /// Lines until one whose first word is `word`; that line.
    fn wait_for(&mut self, word: &str, within: Duration, what: &str) -> Result<String, Failed> {
        let deadline = Instant::now() + within;
        loop {
            match self.process.read_line(deadline) {
                Ok(line) => {
                    if line.split_ascii_whitespace().next() == Some(word) {
                        return Ok(line.to_string());
                    }
                    if line.starts_with("info") {
                        self.infos.push(line.to_string());
                    }
                }
                Err(ReadError::Timeout) => {
                    return Err(fail(format!(
                        "no {word} within {} ms {what}",
                        within.as_millis()
                    )))
                }
                Err(ReadError::Eof) => {
                    return Err(fail(format!("{} {what}", self.process.describe_exit())))
                }
            }
        }
    }

    fn ready(&mut self, what: &str) -> Result<(), Failed> {
        self.send("isready\n")?;
        self.wait_for("readyok", PROMPT, what).map(|_| ())
    }

    /// `position` + `go ARGS`, the `bestmove` line's move and the time it took.
    fn search(
        &mut self,
        fen: Option<&str>,
        go: &str,
        within: Duration,
    ) -> Result<(String, Duration), Failed> {
        self.infos.clear();
        let position = match fen {
            Some(f) => format!("position fen {f}\n"),
            None => "position startpos\n".to_string(),
        };
        self.send(&format!("{position}go {go}\n"))?;
        let start = Instant::now();
        let line = match self.wait_for("bestmove", within, &format!("after go {go}")) {
            Ok(line) => line,
            // Still searching: an engine that answers `stop` can go on to
            // the next step, with this one failed.
            Err(f) if self.process.is_alive() => {
                self.send("stop\n")?;
                self.wait_for("bestmove", PROMPT, "after stop")?;
                return Err(Failed {
                    message: format!("{} (it answered stop)", f.message),
                    fatal: false,
                });
            }
            Err(f) => return Err(f),
        };
        let mv = line
            .split_ascii_whitespace()
            .nth(1)
            .unwrap_or("")
            .to_string();
        Ok((mv, start.elapsed()))
    }
}

fn parse(fen: Option<&str>) -> Chess {
    fen.and_then(|f| f.parse::<Fen>().ok())
        .and_then(|f| f.into_position(CastlingMode::Standard).ok())
        .unwrap_or_default()
}

/// The move `text` in `pos`, if legal.
fn legal(pos: &Chess, text: &str) -> Option<shakmaty::Move> {
    UciMove::from_ascii(text.as_bytes()).ok()?.to_move(pos).ok()
}

/// Warnings about the `info` lines of a search from `root`: unparsable
/// scores, and what [`check_pv`] finds in a PV (illegal moves, moves past
/// a mate, a stalemate, a fifty-move-rule draw or a repetition, mate
/// scores whose PV is not the mate), as a match's referee finds it.
fn pv_notes(root: &Chess, infos: &[String], notes: &mut Vec<String>) {
    let history = [position_key(root)];
    for line in infos {
        let tokens: Vec<&str> = line.split_ascii_whitespace().collect();
        if let Some(i) = tokens.iter().position(|&t| t == "score") {
            let ok = match (tokens.get(i + 1), tokens.get(i + 2)) {
                (Some(&"cp") | Some(&"mate"), Some(v)) => v.parse::<i64>().is_ok(),
                _ => false,
            };
            if !ok {
                push_once(notes, format!("malformed score in `{line}`"));
            }
        }
        let Some(pv) = PvLine::parse(line) else {
            continue;
        };
        if let Some(w) = check_pv(root, &history, &pv, true) {
            push_once(notes, format!("{w}: `{line}`"));
        }
    }
}

/// Keep the first of each kind of note (they repeat line after line).
fn push_once(notes: &mut Vec<String>, note: String) {
    let kind: String = note.chars().take(24).collect();
    if !notes.iter().any(|n| n.starts_with(&kind)) {
        notes.push(note);
    }
}

/// The last `score` of the search: ("cp" or "mate", value).
fn last_score(infos: &[String]) -> Option<(String, i64)> {
    infos.iter().rev().find_map(|line| {
        let tokens: Vec<&str> = line.split_ascii_whitespace().collect();
        let i = tokens.iter().position(|&t| t == "score")?;
        let kind = tokens.get(i + 1)?;
        let v = tokens.get(i + 2)?.parse().ok()?;
        Some((kind.to_string(), v))
    })
}

/// A search step: a legal best move, an info line, clean PVs.
fn search_step(
    s: &mut Session,
    fen: Option<&str>,
    go: &str,
    notes: &mut Vec<String>,
) -> Result<(), Failed> {
    let (mv, _) = s.search(fen, go, SEARCH)?;
    let root = parse(fen);
    if legal(&root, &mv).is_none() {
        return Err(bad(format!(
            "bestmove {mv} is not legal in {}",
            fen.unwrap_or("startpos")
        )));
    }
    if s.infos.is_empty() {
        notes.push("no info line before bestmove".to_string());
    }
    pv_notes(&root, &s.infos, notes);
    Ok(())
}

/// Check the options the engine declared during `uci`.
fn option_notes(lines: &[String], notes: &mut Vec<String>) {
    for line in lines {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        // A value runs from its keyword to the next keyword.
        let value_at = |i: usize| {
            let rest: Vec<&str> = words[i + 1..]
                .iter()
                .take_while(|w| !matches!(**w, "type" | "default" | "min" | "max" | "var"))
                .copied()
                .collect();
            rest.join(" ")
        };
        let field = |key: &str| words.iter().position(|&w| w == key).map(value_at);
        let name = field("name").unwrap_or_default();
        match field("type").as_deref() {
            Some("spin") => {
                let num = |k: &str| field(k).and_then(|v| v.parse::<i64>().ok());
                match (num("default"), num("min"), num("max")) {
                    (Some(d), Some(lo), Some(hi)) if lo <= d && d <= hi => {}
                    (Some(d), Some(lo), Some(hi)) => {
                        notes.push(format!("option {name}: default {d} outside [{lo}, {hi}]"))
                    }
                    _ => notes.push(format!(
                        "option {name}: spin without numeric default, min and max"
                    )),
                }
            }
            Some("check") => {
                if !matches!(field("default").as_deref(), Some("true" | "false")) {
                    notes.push(format!("option {name}: check default is not true or false"));
                }
            }
            Some("combo") => {
                let default = field("default").unwrap_or_default();
                let vars: Vec<String> = words
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| **w == "var")
                    .map(|(i, _)| value_at(i))
                    .collect();
                if !vars.contains(&default) {
                    notes.push(format!(
                        "option {name}: combo default {default} is not one of its vars"
                    ));
                }
            }
            Some("string" | "button") => {}
            other => notes.push(format!(
                "option {name}: unknown type {}",
                other.unwrap_or("(none)")
            )),
        }
    }
}

/// Run every step against the engine `spec` describes.
pub fn check_engine(spec: &PlayerSpec) -> Report {
    let mut report = Report {
        engine: spec.cmd.display().to_string(),
        id_name: None,
        steps: Vec::new(),
        skipped: Vec::new(),
    };
    let process = match EngineProcess::spawn(spec, &spec.name) {
        Ok(p) => p,
        Err(e) => {
            report.steps.push(Step {
                name: STEPS[0].to_string(),
                verdict: Verdict::Fail,
                notes: vec![e.to_string()],
            });
            report.skipped = STEPS[1..].iter().map(|s| s.to_string()).collect();
            return report;
        }
    };
    let mut s = Session {
        process,
        infos: Vec::new(),
    };
    let mut options = Vec::new();
    for (i, name) in STEPS.iter().enumerate() {
        let mut notes = Vec::new();
        let outcome = run_step(
            i,
            &mut s,
            spec,
            &mut options,
            &mut report.id_name,
            &mut notes,
        );
        let verdict = match &outcome {
            Err(f) => {
                notes.push(f.message.clone());
                Verdict::Fail
            }
            Ok(()) if notes.is_empty() => Verdict::Pass,
            Ok(()) => Verdict::Warn,
        };
        report.steps.push(Step {
            name: name.to_string(),
            verdict,
            notes,
        });
        if matches!(outcome, Err(Failed { fatal: true, .. })) {
            report.skipped = STEPS[i + 1..].iter().map(|s| s.to_string()).collect();
            break;
        }
    }
    s.process.kill();
    report
}

/// Step `i` (of [`STEPS`]).
fn run_step(
    i: usize,
    s: &mut Session,
    spec: &PlayerSpec,
    options: &mut Vec<String>,
    id_name: &mut Option<String>,
    notes: &mut Vec<String>,
) -> Result<(), Failed> {
    match i {
        0 => handshake(s, spec, options, id_name, notes),
        1 => {
            option_notes(options, notes);
            for (name, value) in &spec.options {
                s.send(&format!("setoption name {name} value {value}\n"))?;
            }
            Ok(())
        }
        2 => s.ready("after uci"),
        3 => {
            s.send("ucinewgame\n")?;
            s.ready("after ucinewgame")
        }
        4 => search_step(s, None, "wtime 1000 btime 1000", notes),
        5 => search_step(
            s,
            Some(KIWIPETE),
            "wtime 1000 winc 100 btime 1000 binc 100",
            notes,
        ),
        6 => search_step(s, Some(KIWIPETE), "nodes 5000", notes),
        7 => search_step(s, None, "depth 4", notes),
        8 => {
            let (mv, took) = s.search(Some(KIWIPETE), "movetime 200", SEARCH)?;
            if legal(&parse(Some(KIWIPETE)), &mv).is_none() {
                return Err(bad(format!("bestmove {mv} is not legal")));
            }
            if took > Duration::from_millis(200) + PROMPT / 4 {
                notes.push(format!(
                    "movetime 200 answered after {} ms",
                    took.as_millis()
                ));
            }
            Ok(())
        }
        9 => {
            s.infos.clear();
            s.send("position startpos\ngo infinite\n")?;
            std::thread::sleep(Duration::from_millis(200));
            s.send("isready\n")?;
            // readyok must come while the search runs, not after it.
            let readyok = s.wait_for("readyok", PROMPT, "while searching (go infinite)");
            s.send("stop\n")?;
            let line = s.wait_for("bestmove", PROMPT, "after stop")?;
            readyok?;
            let mv = line.split_ascii_whitespace().nth(1).unwrap_or("");
            if legal(&Chess::default(), mv).is_none() {
                return Err(bad(format!("bestmove {mv} after stop is not legal")));
            }
            s.ready("after stop")
        }
        10 | 11 => {
            let (fen, want_positive) = if i == 10 {
                (MATE_IN_ONE, true)
            } else {
                (MATED_IN_ONE, false)
            };
            search_step(s, Some(fen), "depth 6", notes)?;
            match last_score(&s.infos) {
                Some((kind, v)) if kind == "mate" && (v > 0) == want_positive && v.abs() == 1 => {}
                Some((kind, v)) => notes.push(format!(
                    "expected score mate {}, got {kind} {v}",
                    if want_positive { 1 } else { -1 }
                )),
                None => notes.push("no score".to_string()),
            }
            Ok(())
        }
        12 => {
            let (mv, _) = s.search(Some(CHECKMATED), "depth 3", SEARCH)?;
            if !matches!(mv.as_str(), "0000" | "(none)" | "a1a1" | "") {
                notes.push(format!(
                    "bestmove {mv} in a checkmated position (expected 0000 or (none))"
                ));
            }
            s.ready("after a search of a checkmated position")
        }
        13 => search_step(s, Some(FIFTY_EDGE), "depth 6", notes),
        _ => {
            s.send("quit\n")?;
            let deadline = Instant::now() + PROMPT;
            loop {
                match s.process.read_line(deadline) {
                    Ok(_) => {}
                    Err(ReadError::Eof) => return Ok(()),
                    Err(ReadError::Timeout) => {
                        return Err(Failed {
                            message: format!("still running {} ms after quit", PROMPT.as_millis()),
                            fatal: false,
                        })
                    }
                }
            }
        }
    }
}

/// Step 1: `uci`, the `id name` and `option` lines, `uciok`.
fn handshake(
    s: &mut Session,
    spec: &PlayerSpec,
    options: &mut Vec<String>,
    id_name: &mut Option<String>,
    notes: &mut Vec<String>,
) -> Result<(), Failed> {
    s.send("uci\n")?;
    let deadline = Instant::now() + spec.init_timeout;
    loop {
        let line = match s.process.read_line(deadline) {
            Ok(l) => l.to_string(),
            Err(ReadError::Timeout) => {
                return Err(fail(format!(
                    "no uciok within {} ms",
                    spec.init_timeout.as_millis()
                )))
            }
            Err(ReadError::Eof) => {
                return Err(fail(format!("{} before uciok", s.process.describe_exit())))
            }
        };
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("uciok") => break,
            Some("id") if words.next() == Some("name") => {
                *id_name = Some(words.collect::<Vec<_>>().join(" "));
            }
            Some("option") => options.push(line),
            _ => {}
        }
    }
    if id_name.is_none() {
        notes.push("no id name before uciok".to_string());
    }
    Ok(())
}
