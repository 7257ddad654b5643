//! EPD test suites (Win-At-Chess, Bratko-Kopec, ...): read the positions
//! with their `bm` (best move) and `am` (avoid move) operations, let an
//! engine search each one under a fixed limit and count the solved ones.
//!
//! Reading is strict and happens before any search: a malformed FEN, a
//! `bm`/`am` move that is not SAN or not legal in its position, a line with
//! neither `bm` nor `am`, an unterminated string or a repeated operation
//! refuses the whole file, with every bad line listed as `FILE:LINE:
//! reason` (a suite that silently shrinks would give scores that cannot be
//! compared). Lines are read by the one EPD reader,
//! [`crate::formats::epd`]; this module gives `bm`, `am` and `id` their
//! meaning.
//!
//! Solving uses the [`Player`] machinery of the match runner. Every
//! position starts with [`Player::new_game`] (UCI `ucinewgame`, a cleared
//! in-process searcher), so a result does not depend on which positions the
//! engine saw before: at fixed nodes or depth a run is reproducible whatever
//! `jobs` is. An engine that cannot start is a setup error before any
//! search; a crash, hang or illegal answer on one position is that
//! position's failure (with the reason), and the player restarts its engine
//! for the next one.
//!
//! Not recorded: the depth at which the engine first found the solution.
//! [`crate::players::EngineMove`] carries only the last iteration's score,
//! depth and nodes, not the principal variations of the `info` lines.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess};
use thiserror::Error;

use crate::config::{engine, ConfigError, RawKind};
use crate::formats::epd::{read_epd, EpdEntry};
use crate::formats::fen::parse_position;
use crate::players::{
    start_player, EngineError, EngineScore, MoveLimit, MoveRequest, Player, PlayerSpec,
};

/// A move of a `bm` or `am` operation, checked against its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteMove {
    /// Canonical SAN with check suffix (`Qg6`, `Qd1+`), as shakmaty writes it.
    pub san: String,
    /// UCI notation with standard castling (`e1g1`).
    pub uci: String,
}

/// One position of a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdRecord {
    /// 1-based line in the file.
    pub line: usize,
    /// The `id` operand, or `FILE:LINE` when the line has none.
    pub id: String,
    /// Full 6-field FEN (counters from the line, `hmvc`/`fmvn`, or `0 1`).
    pub fen: String,
    /// Best moves: any one of them solves the position.
    pub bm: Vec<SuiteMove>,
    /// Moves to avoid: playing one of them fails the position.
    pub am: Vec<SuiteMove>,
}

impl EpdRecord {
    /// Whether playing `uci` (standard castling) solves the position: one
    /// of the best moves if there are any, and none of the moves to avoid.
    pub fn is_solution(&self, uci: &str) -> bool {
        (self.bm.is_empty() || self.bm.iter().any(|m| m.uci == uci))
            && !self.am.iter().any(|m| m.uci == uci)
    }

    /// `bm Qg6 Qh5`, `am Nxe5` or both, for display.
    pub fn expected(&self) -> String {
        let mut parts = Vec::new();
        for (op, moves) in [("bm", &self.bm), ("am", &self.am)] {
            if !moves.is_empty() {
                let sans: Vec<&str> = moves.iter().map(|m| m.san.as_str()).collect();
                parts.push(format!("{op} {}", sans.join(" ")));
            }
        }
        parts.join(" ")
    }
}

/// A line of a suite that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line in the file.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Why a suite could not be run.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum SuiteError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Every bad line of the file, one `FILE:LINE: reason` per line.
    #[error("{}", bad_lines_text(path, lines))]
    BadLines { path: PathBuf, lines: Vec<BadLine> },
    #[error("{}: no positions (every line is empty or a # comment)", path.display())]
    Empty { path: PathBuf },
    /// The engine could not start or cannot search under the limit.
    #[error("engine '{engine}': {source}")]
    Setup {
        engine: String,
        #[source]
        source: EngineError,
    },
}

fn bad_lines_text(path: &Path, lines: &[BadLine]) -> String {
    let mut text = format!(
        "{}: {} bad line{} (nothing was searched):",
        path.display(),
        lines.len(),
        if lines.len() == 1 { "" } else { "s" }
    );
    for l in lines {
        text.push_str(&format!("\n  {}:{}: {}", path.display(), l.line, l.reason));
    }
    text
}

/// Read a suite file; see [`parse_suite`].
pub fn load_suite(path: &Path) -> Result<Vec<EpdRecord>, SuiteError> {
    let data = std::fs::read(path).map_err(|source| SuiteError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_suite(&String::from_utf8_lossy(&data), path)
}

/// Parse suite text; `path` names the file in errors and default ids.
/// Empty lines and lines starting with `#` are skipped. Every other line
/// must be a position with a `bm` or `am` operation; the error lists all
/// lines that are not.
pub fn parse_suite(text: &str, path: &Path) -> Result<Vec<EpdRecord>, SuiteError> {
    let file_name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let mut records = Vec::new();
    let mut bad = Vec::new();
    for entry in read_epd(text.as_bytes(), path) {
        let record = entry.map_err(|e| (e.line, e.reason)).and_then(|e| {
            let line = e.line;
            suite_record(e, &file_name).map_err(|reason| (line, reason))
        });
        match record {
            Ok(r) => records.push(r),
            Err((line, reason)) => bad.push(BadLine { line, reason }),
        }
    }
    if !bad.is_empty() {
        return Err(SuiteError::BadLines {
            path: path.to_path_buf(),
            lines: bad,
        });
    }
    if records.is_empty() {
        return Err(SuiteError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(records)
}

/// A checked EPD line to a suite record: its `bm`/`am` moves legal SAN in
/// the position, at least one of them, and an `id` (default `FILE:LINE`).
fn suite_record(entry: EpdEntry, file_name: &str) -> Result<EpdRecord, String> {
    let pos = &entry.position;
    let op = |name: &str| entry.operation(name);
    let moves = |name: &str| -> Result<Vec<SuiteMove>, String> {
        let Some(o) = op(name) else {
            return Ok(Vec::new());
        };
        if o.operands.is_empty() {
            return Err(format!("{name}: no moves"));
        }
        o.operands
            .iter()
            .map(|text| san_move(pos, text).map_err(|why| format!("{name} '{text}': {why}")))
            .collect()
    };
    let bm = moves("bm")?;
    let am = moves("am")?;
    if bm.is_empty() && am.is_empty() {
        return Err("no bm or am operation: nothing to solve".to_string());
    }
    if let Some(m) = bm.iter().find(|m| am.contains(m)) {
        return Err(format!("{} is both a bm and an am move", m.san));
    }
    let id = match op("id") {
        None => format!("{file_name}:{}", entry.line),
        Some(o) => match o.operands.as_slice() {
            [id] if !id.trim().is_empty() => id.clone(),
            _ => return Err("id: expected one non-empty operand".to_string()),
        },
    };
    Ok(EpdRecord {
        line: entry.line,
        id,
        fen: entry.fen,
        bm,
        am,
    })
}

/// A SAN move (check suffixes allowed) that must be legal in `pos`.
fn san_move(pos: &Chess, text: &str) -> Result<SuiteMove, String> {
    let san = SanPlus::from_ascii(text.as_bytes()).map_err(|_| "not a SAN move".to_string())?;
    let m = san.san.to_move(pos).map_err(|e| match e {
        shakmaty::san::SanError::AmbiguousSan => "ambiguous in this position".to_string(),
        _ => "not a legal move in this position".to_string(),
    })?;
    Ok(SuiteMove {
        san: SanPlus::from_move(pos.clone(), m).to_string(),
        uci: m.to_uci(CastlingMode::Standard).to_string(),
    })
}

/// A score for the suite's table: `+0.35`, `-1.20`, `#2`, `#-3`.
fn score_text(s: EngineScore) -> String {
    match s {
        EngineScore::Cp(cp) => {
            let sign = if cp < 0 { "-" } else { "+" };
            let a = cp.unsigned_abs();
            format!("{sign}{}.{:02}", a / 100, a % 100)
        }
        EngineScore::Mate(n) => format!("#{n}"),
    }
}

/// What happened on one position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionResult {
    /// 1-based line in the suite file.
    pub line: usize,
    /// The `id` operand, or `FILE:LINE` when the line has none.
    pub id: String,
    /// The position searched (full 6-field FEN).
    pub fen: String,
    /// SAN of the best moves and of the moves to avoid.
    pub bm: Vec<String>,
    /// SAN of the moves to avoid.
    pub am: Vec<String>,
    /// The engine's move (`None` after an error).
    pub move_san: Option<String>,
    /// The engine's move in UCI notation (`None` after an error).
    pub move_uci: Option<String>,
    /// Whether the move is a best move and not a move to avoid.
    pub solved: bool,
    /// Last reported score, depth, seldepth and nodes, if the engine said.
    pub score: Option<EngineScore>,
    /// Depth reached, in plies.
    pub depth: Option<u32>,
    /// Selective depth reached, in plies.
    pub seldepth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Search time measured by the harness (to the failure, after an error).
    pub time_ms: u64,
    /// Why the position has no move: crash, timeout, illegal answer.
    pub error: Option<String>,
}

/// How positions are searched.
#[derive(Clone, Debug)]
pub struct SuiteSettings {
    /// Nodes, depth or move time per position.
    pub limit: MoveLimit,
    /// How long an answer may take before the engine is declared hung.
    pub timeout: Duration,
    /// Positions searched at once, each by its own engine instance.
    pub jobs: usize,
}

impl SuiteSettings {
    /// The default timeout for `limit`: a minute for nodes and depth (a
    /// watchdog, not a rule), the move time plus 5 s otherwise.
    pub fn default_timeout(limit: &MoveLimit) -> Duration {
        match limit {
            MoveLimit::MoveTime(t) => *t + Duration::from_secs(5),
            _ => Duration::from_secs(60),
        }
    }
}

/// The results of a run, in file order.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    /// The engine's name.
    pub engine: String,
    /// `nodes=N`, `depth=N` or `movetime=MS`.
    pub limit: String,
    /// Positions searched at once.
    pub jobs: usize,
    /// Positions in the suite.
    pub positions: usize,
    /// Positions solved.
    pub solved: usize,
    /// Solved share in percent, one decimal.
    pub percent: f64,
    /// Positions without an answer (crash, timeout, illegal move).
    pub errors: usize,
    /// Ids of the positions not solved, errors included, in file order.
    pub unsolved: Vec<String>,
    /// Wall time of the whole run.
    pub time_ms: u64,
    /// One result per position, in file order.
    pub results: Vec<PositionResult>,
}

impl SuiteReport {
    /// `Solved 271/300 (90.3%) ...`, the unsolved ids and the errors.
    pub fn summary_text(&self) -> String {
        let mut text = format!(
            "Solved {}/{} ({:.1}%)  [{}, {}, {} job{}, {:.1}s]\n",
            self.solved,
            self.positions,
            self.percent,
            self.engine,
            self.limit,
            self.jobs,
            if self.jobs == 1 { "" } else { "s" },
            self.time_ms as f64 / 1000.0
        );
        if !self.unsolved.is_empty() {
            text.push_str(&format!(
                "Not solved ({}): {}\n",
                self.unsolved.len(),
                self.unsolved.join(" ")
            ));
        }
        if self.errors > 0 {
            text.push_str(&format!("Errors ({}):\n", self.errors));
            for r in &self.results {
                if let Some(e) = &r.error {
                    text.push_str(&format!("  {}: {e}\n", r.id));
                }
            }
        }
        text
    }
}

/// `nodes=N`, `depth=N`, `movetime=MS` (as the flags are named).
pub fn limit_text(limit: &MoveLimit) -> String {
    match limit {
        MoveLimit::Nodes(n) => format!("nodes={n}"),
        MoveLimit::Depth(d) => format!("depth={d}"),
        MoveLimit::MoveTime(t) => format!("movetime={}", t.as_millis()),
        MoveLimit::Clock { .. } => "clock".to_string(),
        MoveLimit::Capped { nodes, depth, time } => {
            let mut parts: Vec<String> = time.iter().map(|t| limit_text(t)).collect();
            parts.extend(nodes.map(|n| format!("nodes={n}")));
            parts.extend(depth.map(|d| format!("depth={d}")));
            parts.join(",")
        }
    }
}

/// Column widths for [`result_line`], so the lines of one run align.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineLayout {
    id: usize,
    expected: usize,
}

impl LineLayout {
    /// Widths that fit the ids and expected moves of `records`.
    pub fn for_records(records: &[EpdRecord]) -> Self {
        LineLayout {
            id: records.iter().map(|r| r.id.len()).max().unwrap_or(0),
            expected: records
                .iter()
                .map(|r| r.expected().len())
                .max()
                .unwrap_or(0),
        }
    }
}

/// One line per position:
/// `WAC.001  bm Qg6  got Qg6   ok    #2     depth 9  nodes 100000  0.12s`.
pub fn result_line(r: &PositionResult, layout: LineLayout) -> String {
    let mut expected = Vec::new();
    if !r.bm.is_empty() {
        expected.push(format!("bm {}", r.bm.join(" ")));
    }
    if !r.am.is_empty() {
        expected.push(format!("am {}", r.am.join(" ")));
    }
    let head = format!(
        "{:<iw$}  {:<ew$}  got {:<7}",
        r.id,
        expected.join(" "),
        r.move_san.as_deref().unwrap_or("-"),
        iw = layout.id,
        ew = layout.expected,
    );
    if let Some(e) = &r.error {
        return format!("{head}  ERROR {e}");
    }
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    format!(
        "{head}  {:<4}  {:>6}  depth {:>3}  nodes {:>9}  {:.2}s",
        if r.solved { "ok" } else { "FAIL" },
        opt(r.score.map(score_text)),
        opt(r.depth.map(|d| d.to_string())),
        opt(r.nodes.map(|n| n.to_string())),
        r.time_ms as f64 / 1000.0
    )
}

/// Search one position with `player`: a new game (fresh engine state, a
/// restart if the engine died), the position, one search under `limit`.
/// Engine failures become the result's `error`; this never fails.
pub fn solve_position(
    player: &mut dyn Player,
    record: &EpdRecord,
    limit: &MoveLimit,
    timeout: Duration,
) -> PositionResult {
    let mut result = PositionResult {
        line: record.line,
        id: record.id.clone(),
        fen: record.fen.clone(),
        bm: record.bm.iter().map(|m| m.san.clone()).collect(),
        am: record.am.iter().map(|m| m.san.clone()).collect(),
        move_san: None,
        move_uci: None,
        solved: false,
        score: None,
        depth: None,
        seldepth: None,
        nodes: None,
        time_ms: 0,
        error: None,
    };
    let started = Instant::now();
    let request = MoveRequest {
        start_fen: Some(&record.fen),
        moves: &[],
        variant: crate::variant::Variant::Standard,
        limit: limit.clone(),
        deadline: timeout,
    };
    let answer = player.new_game().and_then(|()| player.go(&request));
    let answer = match answer {
        Ok(a) => a,
        Err(e) => {
            result.time_ms = millis(started.elapsed());
            result.error = Some(e.to_string());
            return result;
        }
    };
    result.score = answer.score;
    result.depth = answer.depth;
    result.seldepth = answer.seldepth;
    result.nodes = answer.nodes;
    result.time_ms = millis(answer.elapsed);
    // The position parsed when the suite was read; only the answer can fail.
    let legal = parse_position(&record.fen).ok().and_then(|pos| {
        let m = UciMove::from_ascii(answer.uci.trim().as_bytes())
            .ok()?
            .to_move(&pos)
            .ok()?;
        Some((pos, m))
    });
    match legal {
        Some((pos, m)) => {
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            result.solved = record.is_solution(&uci);
            result.move_san = Some(SanPlus::from_move(pos, m).to_string());
            result.move_uci = Some(uci);
        }
        None => {
            result.error = Some(format!(
                "engine answered '{}', not a legal move",
                answer.uci.trim()
            ));
        }
    }
    result
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Run every record through engines built from `spec`, `settings.jobs` at
/// once (each worker with its own instance). Before any search every
/// instance is started and checked against the limit; a failure there is
/// [`SuiteError::Setup`]. `on_result` sees each result in file order as
/// soon as it and all earlier ones are done.
pub fn run_suite(
    spec: &PlayerSpec,
    records: &[EpdRecord],
    settings: &SuiteSettings,
    on_result: &mut dyn FnMut(&PositionResult),
) -> Result<SuiteReport, SuiteError> {
    let started = Instant::now();
    let jobs = settings.jobs.clamp(1, records.len().max(1));
    let mut players: Vec<Box<dyn Player>> = Vec::with_capacity(jobs);
    for _ in 0..jobs {
        let setup = start_player(spec).and_then(|mut p| {
            let checked = p
                .new_game()
                .and_then(|()| p.check_limit(&settings.limit))
                .inspect_err(|_| p.quit());
            checked.map(|()| p)
        });
        match setup {
            Ok(p) => players.push(p),
            Err(source) => {
                for p in &mut players {
                    p.quit();
                }
                return Err(SuiteError::Setup {
                    engine: spec.name.clone(),
                    source,
                });
            }
        }
    }

    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<PositionResult>> = vec![None; records.len()];
    let mut printed = 0;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, PositionResult)>();
        for mut player in players {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(record) = records.get(i) else {
                        break;
                    };
                    let r =
                        solve_position(player.as_mut(), record, &settings.limit, settings.timeout);
                    if tx.send((i, r)).is_err() {
                        break;
                    }
                }
                player.quit();
            });
        }
        drop(tx);
        for (i, r) in rx {
            slots[i] = Some(r);
            while let Some(Some(r)) = slots.get(printed) {
                on_result(r);
                printed += 1;
            }
        }
    });

    // Every index was handed out once and sent (the loop above ends when
    // all workers have finished).
    let results: Vec<PositionResult> = slots.into_iter().flatten().collect();
    let solved = results.iter().filter(|r| r.solved).count();
    let positions = results.len();
    let percent = if positions == 0 {
        0.0
    } else {
        (solved as f64 * 1000.0 / positions as f64).round() / 10.0
    };
    Ok(SuiteReport {
        engine: spec.name.clone(),
        limit: limit_text(&settings.limit),
        jobs,
        positions,
        solved,
        percent,
        errors: results.iter().filter(|r| r.error.is_some()).count(),
        unsolved: results
            .iter()
            .filter(|r| !r.solved)
            .map(|r| r.id.clone())
            .collect(),
        time_ms: millis(started.elapsed()),
        results,
    })
}

/// The engine a `--engine` value names, with `--params` and `--option`s.
///
/// `inprocess` is the bundled engine run in this process (`--params FILE`
/// gives its parameter set); otherwise comma-separated `key=value` pairs:
/// `cmd=PATH` (a bare name is looked up in `PATH`), `name=NAME`,
/// `proto=uci|xboard|inprocess`, `arg=ARG` (repeatable), `args="A B"`,
/// `dir=DIR` and `option.NAME=VALUE`: the engine description of
/// [`crate::config::engine`], resolved as a config's engine (relative
/// paths from the current folder, in-process options checked). A value
/// without `=` is the command. The options go to the engine as `setoption`
/// (in-process: `Hash`, `Threads` and parameter names); an `--option`
/// replaces the spec's of the same name.
pub fn engine_spec(
    text: &str,
    params_file: Option<&Path>,
    options: &[(String, String)],
) -> Result<PlayerSpec, String> {
    let mut engine = engine::blank();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            if part == "inprocess" {
                engine.kind = Some(RawKind::Inprocess);
            } else if engine.cmd.is_none() {
                engine.cmd = Some(part.to_string());
            } else {
                return Err(format!("--engine: '{part}' is not KEY=VALUE"));
            }
            continue;
        };
        if !engine::apply_key(&mut engine, key, value).map_err(|e| format!("--engine: {e}"))? {
            return Err(format!(
                "--engine: unknown key '{key}' ({})",
                engine::DESCRIPTION_KEYS.join(", ")
            ));
        }
    }
    for (k, v) in options {
        let value = serde_yaml::Value::String(v.clone());
        engine.options.insert(k.clone(), value);
    }
    if engine.kind != Some(RawKind::Inprocess) && engine.cmd.is_none() {
        return Err("--engine: give cmd=PATH or inprocess".to_string());
    }
    engine.params_file = params_file.map(|p| p.display().to_string());
    if engine.name.is_empty() {
        engine.name = engine::default_name(&engine);
    }
    // Resolved as a config's engine, relative paths from here.
    let key = |k: &str| match k {
        "params_file" => "--params".to_string(),
        "params" => "--params".to_string(),
        _ => format!("--engine {k}"),
    };
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    crate::config::resolve_engine_description(engine, &here, &key).map_err(|e| match e {
        ConfigError::Invalid { key, message, .. } => format!("{key}: {message}"),
        other => other.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::PlayerKind;

    #[test]
    fn scores_print_as_pawns_or_mates() {
        assert_eq!(score_text(EngineScore::Cp(35)), "+0.35");
        assert_eq!(score_text(EngineScore::Cp(-120)), "-1.20");
        assert_eq!(score_text(EngineScore::Cp(0)), "+0.00");
        assert_eq!(score_text(EngineScore::Mate(-3)), "#-3");
    }

    #[test]
    fn engine_values() {
        let s = engine_spec("inprocess", None, &[("Hash".into(), "8".into())]).unwrap();
        assert!(matches!(s.kind, PlayerKind::InProcess(_)));
        assert_eq!(s.options, vec![("Hash".to_string(), "8".to_string())]);
        let s = engine_spec("cmd=/bin/true,option.Hash=64,name=t,arg=-x", None, &[]).unwrap();
        assert_eq!(s.kind, PlayerKind::Uci);
        assert_eq!(s.name, "t");
        assert_eq!(s.args, vec!["-x"]);
        assert_eq!(s.options, vec![("Hash".to_string(), "64".to_string())]);
        for bad in [
            "cmd=/bin/true,speed=3",
            "proto=cecp,cmd=x",
            "inprocess,cmd=x",
            "",
        ] {
            assert!(engine_spec(bad, None, &[]).is_err(), "{bad}");
        }
        assert!(engine_spec("cmd=/bin/true", Some(Path::new("p.yaml")), &[]).is_err());
    }
}
