//! Per-engine limits: time odds and node odds played through whole matches,
//! their PGN (each side's control, clock and nodes), and the refusal of a
//! limit an engine's protocol cannot send, before any game.

use std::path::Path;
use std::process::Command;

use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::formats::pgn_write;
use karsinta_harness::run::ledger::Ledger;

use crate::common::*;

/// The values of `key=` in the move comments of `side` (0 white, 1 black)
/// of one game's text, in move order.
fn comment_values(game: &str, side: usize, key: &str) -> Vec<f64> {
    let movetext: String = game
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let comments: Vec<&str> = movetext
        .split('{')
        .skip(1)
        .filter_map(|c| c.split_once('}').map(|(c, _)| c))
        .filter(|c| c.contains("s"))
        .collect();
    comments
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == side)
        .filter_map(|(_, c)| {
            c.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{key}=")))
                .map(|v| v.trim_end_matches('s').parse::<f64>().unwrap())
        })
        .collect()
}

/// fastchess's time-odds line, program name aside: each engine's own
/// `tc=` after its `-engine`. The games complete, each PGN names both
/// controls, and the handicapped side's clock is the one that shows less.
#[test]
fn time_odds_from_fastchess_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = Command::new(KARSINTA)
        .args([
            "match",
            "-engine",
            "proto=inprocess",
            "name=full",
            "tc=2+0.02",
            "-engine",
            "proto=inprocess",
            "name=half",
            "tc=1+0.01",
            "-each",
            "option.Hash=4",
            "-rounds",
            "1",
            "-maxmoves",
            "12",
            "-concurrency",
            "1",
            "-srand",
            "3",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", karsinta_test_support::text(&o));
    let text = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let games = pgn_write::split_games(&text);
    assert_eq!(games.len(), 2);
    assert_eq!(replay_pgn(&text).len(), 2);
    let (_, ledger) = Ledger::open(&out.join("ledger.jsonl")).unwrap();
    assert_eq!(ledger.len(), 1);
    for game in &games {
        let white = pgn_write::tag_value(game, "White").unwrap();
        let (full, half) = if white == "full" { (0, 1) } else { (1, 0) };
        let tag = |side: usize| {
            if side == 0 {
                "WhiteTimeControl"
            } else {
                "BlackTimeControl"
            }
        };
        assert_eq!(
            pgn_write::tag_value(game, tag(full)),
            Some("2+0.02"),
            "{game}"
        );
        assert_eq!(
            pgn_write::tag_value(game, tag(half)),
            Some("1+0.01"),
            "{game}"
        );
        assert_eq!(pgn_write::tag_value(game, "TimeControl"), None);
        let (f, h) = (
            comment_values(game, full, "tl"),
            comment_values(game, half, "tl"),
        );
        assert!(f.len() >= 10 && h.len() >= 10, "{game}");
        // The handicapped clock never shows more than its base and the
        // increments it earned, and less than the full clock after move 1.
        for (i, left) in h.iter().enumerate() {
            assert!(*left <= 1.0 + 0.01 * (i + 1) as f64 + 1e-9, "{game}");
        }
        assert!(h[0] < f[0], "{game}");
        assert!(f[0] > 1.05, "{game}");
    }
    // The run folder's config keeps the second engine's own control.
    let cfg = std::fs::read_to_string(out.join("config.yaml")).unwrap();
    assert!(cfg.contains("time_control: 1+0.01"), "{cfg}");
    assert!(cfg.contains("time_control: 2+0.02"), "{cfg}");
}

/// Node odds under one clock (`tc=` with `nodes=`, fastchess's meaning):
/// each engine searches its own node budget, and the clock is still kept.
#[test]
fn node_odds_under_a_clock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odds.yaml");
    std::fs::write(
        &path,
        "engines:
  - name: many
    type: inprocess
    time_control: 30+0.3,nodes=4000
  - name: few
    type: inprocess
    time_control: 30+0.3,nodes=300
games: 2
concurrency: 1
seed: 2
time_control: nodes=1
adjudication: { max_moves: 12 }
",
    )
    .unwrap();
    let out = dir.path().join("run");
    let s = run(&path, &out, &Overrides::default());
    assert_eq!((s.games, s.pairs), (2, 1));
    let text = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    for game in pgn_write::split_games(&text) {
        // One clock for both: one TimeControl tag, as fastchess writes it.
        assert_eq!(pgn_write::tag_value(game, "TimeControl"), Some("30+0.3"));
        let white = pgn_write::tag_value(game, "White").unwrap();
        let (many, few) = if white == "many" { (0, 1) } else { (1, 0) };
        let (m, f) = (
            comment_values(game, many, "n"),
            comment_values(game, few, "n"),
        );
        assert!(m.len() >= 10 && f.len() >= 10, "{game}");
        let most_few = f.iter().copied().fold(0.0, f64::max);
        let least_many = m.iter().copied().fold(f64::MAX, f64::min);
        assert!(most_few <= 300.0 * 1.5, "{game}");
        assert!(least_many > most_few, "{game}");
        // The clock ran: both sides show one.
        assert!(!comment_values(game, few, "tl").is_empty(), "{game}");
    }
}

/// An xboard engine cannot be sent a node limit beside a clock: refused at
/// load, naming the engine's key, before any game or run folder.
#[test]
fn limits_an_engine_cannot_honour_are_refused_before_play() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = |limit: &str| {
        format!(
            "engines:
  - name: k
    type: inprocess
  - name: xb
    type: xboard
    cmd: {FAKE}
    args: [--xboard]
    {limit}
games: 2
time_control: 1+0.01
"
        )
    };
    let path = dir.path().join("x.yaml");
    std::fs::write(&path, yaml("time_control: 1+0.01,nodes=100")).unwrap();
    let e = MatchConfig::load(&path, &Overrides::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("engines[1].time_control") && e.contains("'xb' speaks xboard"),
        "{e}"
    );
    // Fixed nodes alone need the engine's `feature nps=1`: found when the
    // engine is started for the setup check, before any game.
    std::fs::write(&path, yaml("time_control: nodes=100")).unwrap();
    let cfg = MatchConfig::load(&path, &Overrides::default()).unwrap();
    let out = dir.path().join("run");
    let e = karsinta_harness::run::run_match(
        &cfg,
        &karsinta_harness::run::RunOptions {
            out_dir: out.clone(),
            quiet: true,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("nps") && e.contains("engines[1].time_control"),
        "{e}"
    );
    assert!(!out.join("ledger.jsonl").exists() || no_games(&out));
}

fn no_games(out: &Path) -> bool {
    std::fs::read_to_string(out.join("games.pgn")).map_or(true, |t| t.is_empty())
}
