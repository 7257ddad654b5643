//! The referee's PV checks in matches (fastchess's `-check-mate-pvs` and
//! `-strict`, YAML `checks:`): the fake engine's wrong PVs are warned
//! about, logged with their game and ply, counted per engine, and turn
//! into exit status 1 under `-strict`; the in-process engine's PVs raise
//! none.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use karsinta_harness::players::pv_check::{check_pv, position_key};
use karsinta_harness::players::{EngineScore, InProcessPlayer, MoveLimit, MoveRequest, Player};
use karsinta_harness::variant::Variant;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use crate::common::{summary_json, FAKE, KARSINTA};

fn karsinta(dir: &Path, args: &[String]) -> Output {
    Command::new(KARSINTA)
        .arg("match")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run karsinta")
}

fn words(s: &str) -> Vec<String> {
    s.split_ascii_whitespace().map(str::to_string).collect()
}

/// Moves each engine (by index) played, from the ledger: games from the
/// start position, so White makes the odd plies.
fn moves_per_engine(run: &Path) -> [u64; 2] {
    let mut n = [0u64; 2];
    for line in std::fs::read_to_string(run.join("ledger.jsonl"))
        .unwrap()
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for g in v["games"].as_array().unwrap() {
            let plies = g["plies"].as_u64().unwrap();
            n[g["white"].as_u64().unwrap() as usize] += plies.div_ceil(2);
            n[g["black"].as_u64().unwrap() as usize] += plies / 2;
        }
    }
    n
}

fn fake_line(liar_arg: &str, extra: &str, out: &str) -> Vec<String> {
    words(&format!(
        "-engine cmd={FAKE} name=good arg=--seed=3 -engine cmd={FAKE} name=liar arg={liar_arg} \
         -each tc=inf nodes=100 -rounds 1 -repeat -concurrency 1 -srand 5 -maxmoves 12 \
         {extra} --out {out} --quiet"
    ))
}

#[test]
fn wrong_mate_pvs_are_warned_counted_and_strict_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = karsinta(
        dir.path(),
        &fake_line("--mate-pv-after=2", "-check-mate-pvs -strict", "run"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let run = dir.path().join("run");
    // Every liar move after its second reports `score mate 3` with one
    // move: fastchess's incomplete mating PV, once per move; good has none.
    let liar_moves = moves_per_engine(&run)[1];
    assert!(liar_moves > 4, "{liar_moves}");
    let summary = summary_json(&run);
    assert_eq!(summary["warnings"]["liar"], liar_moves - 2, "{summary}");
    assert!(summary["warnings"].get("good").is_none(), "{summary}");
    let log = std::fs::read_to_string(run.join("warnings.log")).unwrap();
    let warned = "Warning; Incomplete mating PV - from liar";
    assert_eq!(log.matches(warned).count() as u64, liar_moves - 2, "{log}");
    assert!(!log.contains("from good"), "{log}");
    // Each names its game and ply, the line and the position.
    assert!(log.contains("game 1.1 (good vs liar), ply "), "{log}");
    assert!(
        log.contains("game 1.2 (liar vs good), ply 1 (White to move)"),
        "{log}"
    );
    assert!(
        log.contains("Info; info depth 1 seldepth 2 score mate 3"),
        "{log}"
    );
    assert!(log.contains("Position; startpos\nMoves; "), "{log}");
    assert!(stderr.contains(warned), "{stderr}");
    // The result block (on stdout with --quiet) counts them per engine.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("Warns | liar {} (PV warnings", liar_moves - 2)),
        "{stdout}"
    );
    assert!(stderr.contains("strict: "), "{stderr}");
    // The match went on: every game was played to its end.
    assert_eq!(summary["games"], 2);
}

#[test]
fn without_check_mate_pvs_the_mate_length_is_not_checked() {
    let dir = tempfile::tempdir().unwrap();
    let out = karsinta(
        dir.path(),
        &fake_line("--mate-pv-after=0", "-strict", "run"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = dir.path().join("run");
    assert!(!run.join("warnings.log").exists());
    assert!(summary_json(&run).get("warnings").is_none());
}

#[test]
fn illegal_pvs_are_warned_always_and_yaml_strict_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "engines:
  - {{ name: good, cmd: {FAKE} }}
  - {{ name: liar, cmd: {FAKE}, args: [--illegal-pv-after, '0'] }}
games: 2
concurrency: 1
seed: 5
time_control: nodes=100
adjudication: {{ max_moves: 8 }}
checks: {{ strict: true }}
"
    );
    std::fs::write(dir.path().join("m.yaml"), yaml).unwrap();
    let out = karsinta(dir.path(), &words("m.yaml --out run --quiet"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let run = dir.path().join("run");
    let liar_moves = moves_per_engine(&run)[1];
    let log = std::fs::read_to_string(run.join("warnings.log")).unwrap();
    let warned = "Warning; Illegal PV move - move a1a1 from liar";
    assert_eq!(log.matches(warned).count() as u64, liar_moves, "{log}");
    assert_eq!(summary_json(&run)["warnings"]["liar"], liar_moves);
}

/// Mating material on the board: the in-process engine finds mates and
/// reports them with their PVs.
const MATING: &str = "\
8/8/8/4k3/8/8/8/3QK3 w - - 0 1
8/8/3k4/8/8/8/8/R3K3 w - - 0 1
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1
";

/// The PVs are legal, stop where the game would, and a mate score's PV is
/// the mate (`mate_pvs`, fastchess's `-check-mate-pvs`).
#[test]
fn the_in_process_engine_raises_no_warning_in_mating_games() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mating.epd"), MATING).unwrap();
    let yaml = "
engines:
  - { name: a, type: inprocess }
  - { name: b, type: inprocess, options: { see_prune: false } }
games: 6
concurrency: 1
seed: 1
time_control: nodes=4000
openings: { file: mating.epd }
adjudication: { max_moves: 80 }
checks: { strict: true, mate_pvs: true }
";
    std::fs::write(dir.path().join("m.yaml"), yaml).unwrap();
    let out = karsinta(dir.path(), &words("m.yaml --out run --quiet"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = dir.path().join("run");
    assert!(!run.join("warnings.log").exists());
    assert!(summary_json(&run).get("warnings").is_none());
    // Mate scores were reported, so the mate check had lines to check.
    let pgn = std::fs::read_to_string(run.join("games.pgn")).unwrap();
    assert!(pgn.contains("{+M"), "{pgn}");
}

#[test]
fn the_in_process_player_hands_every_iteration_s_pv_to_the_referee() {
    // White mates in two: each iteration's line is the mate, as checked.
    let fen = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1";
    let mut p = InProcessPlayer::new("a".into(), karsinta_engine::Params::default(), &[]).unwrap();
    p.new_game().unwrap();
    let reply = p
        .go(&MoveRequest {
            start_fen: Some(fen),
            moves: &[],
            variant: Variant::Standard,
            limit: MoveLimit::Depth(6),
            deadline: Duration::from_secs(60),
        })
        .unwrap();
    assert!(reply.pv_lines.len() >= 3, "{:?}", reply.pv_lines);
    let root: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    for line in &reply.pv_lines {
        assert!(line.line.starts_with("info depth "), "{}", line.line);
        assert_eq!(check_pv(&root, &[position_key(&root)], line, true), None);
    }
    let last = reply.pv_lines.last().unwrap();
    assert_eq!(last.score, Some(EngineScore::Mate(2)));
    assert_eq!(last.pv.len(), 3);
    // A truncated copy of the same line is caught.
    let mut short = last.clone();
    short.pv.pop();
    assert!(check_pv(&root, &[position_key(&root)], &short, true).is_some());
}
