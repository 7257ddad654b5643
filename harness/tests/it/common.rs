//! Helpers shared by the match test files: configs with the fake engine,
//! running a match, replaying PGN output with shakmaty. Skips go through
//! `karsinta_test_support::skip`, the workspace's one rule.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::formats::pgn_write;
use karsinta_harness::run::{run_match, RunOptions};
use serde_json::Value;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Position};

/// Path of the fake engine (this package's example, see
/// `karsinta_test_support::fake_engine`): a constant that reads like a
/// `&str` wherever one is wanted (`{FAKE}`, `FAKE.into()`, `Command::new`).
pub const FAKE: FakeEngine = FakeEngine;

#[derive(Clone, Copy)]
pub struct FakeEngine;

impl FakeEngine {
    pub fn path(self) -> &'static str {
        static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        PATH.get_or_init(|| {
            karsinta_test_support::example("karsinta-fake-engine")
                .to_str()
                .expect("a UTF-8 target path")
                .to_string()
        })
    }
}

impl std::ops::Deref for FakeEngine {
    type Target = str;
    fn deref(&self) -> &str {
        self.path()
    }
}

impl std::fmt::Display for FakeEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.path())
    }
}

impl AsRef<std::ffi::OsStr> for FakeEngine {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path().as_ref()
    }
}

impl AsRef<Path> for FakeEngine {
    fn as_ref(&self) -> &Path {
        self.path().as_ref()
    }
}

impl From<FakeEngine> for String {
    fn from(f: FakeEngine) -> String {
        f.path().to_string()
    }
}

impl From<FakeEngine> for PathBuf {
    fn from(f: FakeEngine) -> PathBuf {
        PathBuf::from(f.path())
    }
}
pub const KARSINTA: &str = env!("CARGO_BIN_EXE_karsinta");

pub const EPD: &str = "\
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1
rnbqkb1r/pppppppp/5n2/8/2P5/8/PP1PPPPP/RNBQKBNR w KQkq - 1 2
";

/// A config in `dir` with two fake engines (the second with `bad_args`).
pub fn fake_config(dir: &Path, bad_args: &[&str], extra: &str) -> PathBuf {
    std::fs::write(dir.join("open.epd"), EPD).unwrap();
    let args: Vec<String> = bad_args.iter().map(|a| format!("\"{a}\"")).collect();
    let text = format!(
        "engines:
  - name: good
    cmd: {FAKE}
    args: [\"--seed\", \"3\"]
    init_timeout_ms: 2000
  - name: bad
    cmd: {FAKE}
    args: [{}]
    init_timeout_ms: 1000
games: 4
concurrency: 1
seed: 5
time_control: nodes=100
watchdog_ms: 600
openings: {{ file: open.epd }}
adjudication: {{ max_moves: 30 }}
{extra}",
        args.join(", ")
    );
    let path = dir.join("fake.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

pub fn run(
    cfg_path: &Path,
    out: &Path,
    overrides: &Overrides,
) -> karsinta_harness::report::summary::Summary {
    let cfg = MatchConfig::load(cfg_path, overrides).unwrap();
    let opts = RunOptions {
        out_dir: out.to_path_buf(),
        quiet: true,
        ..RunOptions::default()
    };
    run_match(&cfg, &opts).unwrap()
}

pub fn summary_json(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Replay every game of a PGN file with shakmaty; returns
/// (result, termination tag, reason comment) per game and checks that the
/// tags agree with the moves.
pub fn replay_pgn(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for game in pgn_write::split_games(text) {
        let mut pos: Chess = match pgn_write::tag_value(game, "FEN") {
            Some(f) => f
                .parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap(),
            None => Chess::default(),
        };
        let movetext: String = game
            .lines()
            .filter(|l| !l.starts_with('['))
            .collect::<Vec<_>>()
            .join(" ");
        // Comments out, the last one (the reason) kept.
        let mut plain = String::new();
        let mut last_comment = String::new();
        let mut in_comment = false;
        for c in movetext.chars() {
            match c {
                '{' => {
                    in_comment = true;
                    last_comment.clear();
                }
                '}' => in_comment = false,
                _ if in_comment => last_comment.push(c),
                _ => plain.push(c),
            }
        }
        let tokens: Vec<&str> = plain.split_whitespace().collect();
        let (result, moves) = tokens.split_last().unwrap();
        let mut plies = 0;
        for t in moves {
            if t.ends_with('.') {
                continue;
            }
            let san: San = t
                .trim_end_matches(['+', '#'])
                .parse()
                .unwrap_or_else(|_| panic!("bad SAN {t}"));
            let m = san
                .to_move(&pos)
                .unwrap_or_else(|_| panic!("illegal {t} in\n{game}"));
            pos.play_unchecked(m);
            plies += 1;
        }
        assert_eq!(pgn_write::tag_value(game, "Result"), Some(*result));
        assert_eq!(
            pgn_write::tag_value(game, "PlyCount"),
            Some(plies.to_string().as_str())
        );
        if pos.is_checkmate() {
            let expect = if pos.turn() == shakmaty::Color::White {
                "0-1"
            } else {
                "1-0"
            };
            assert_eq!(*result, expect, "{game}");
        }
        if pos.is_stalemate() || pos.is_insufficient_material() {
            assert_eq!(*result, "1/2-1/2", "{game}");
        }
        out.push((
            result.to_string(),
            pgn_write::tag_value(game, "Termination")
                .unwrap()
                .to_string(),
            last_comment,
        ));
    }
    out
}

/// Whether process `pid` is gone: reaped, or a zombie waiting for its
/// (dead) parent's reaper.
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_none_or(|state| state == "Z"),
    }
}

/// `games.pgn` without what differs between two runs of one match: the
/// Date and Event tags and the move times in the comments (the line breaks
/// follow the comments' lengths, so the text is compared word by word).
pub fn games(run: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(run.join("games.pgn")).unwrap();
    // Pairs are written as they finish, which concurrency varies: sorted.
    let mut games: Vec<String> = karsinta_harness::formats::pgn_write::split_games(&text)
        .into_iter()
        .map(normalized)
        .collect();
    games.sort();
    games
}

/// One PGN game as words, without Date, Event and move times.
pub fn normalized(game: &str) -> String {
    let mut words = Vec::new();
    for line in game.lines() {
        if line.starts_with("[Date ") || line.starts_with("[Event ") {
            continue;
        }
        for w in line.split_whitespace() {
            let core = w.trim_end_matches('}');
            let is_time = core
                .strip_suffix('s')
                .is_some_and(|n| n.parse::<f64>().is_ok());
            if !is_time {
                words.push(w.to_string());
            } else if core.len() < w.len() {
                words.push("}".to_string());
            }
        }
    }
    words.join(" ")
}
