//! Chess960 matches end to end: karsinta-engine in process and over UCI
//! plays X-FEN and Shredder-FEN books (the shared FRC and DFRC suites'
//! lines in `tests/data/chess960`), every game replays in python-chess with
//! `chess960=True`; engines that cannot play Chess960 and books of the
//! wrong variant are refused before any game, naming the engine or the
//! file and line, with nothing written to the run folder.

use std::path::{Path, PathBuf};

use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::formats::pgn_write;
use karsinta_harness::run::{run_match, RunOptions};
use karsinta_test_support::{debian_engine, python_chess, replay_with_python_chess, workspace};

use crate::common::*;

fn book(name: &str) -> PathBuf {
    workspace().join("tests/data/chess960").join(name)
}

/// A match config in `dir`: `engines` (YAML list items), the book, the variant.
fn config(dir: &Path, engines: &str, book: &Path, variant: &str, games: u32) -> PathBuf {
    let text = format!(
        "engines:
{engines}
games: {games}
concurrency: 2
seed: 9
time_control: nodes=400
{variant}
openings: {{ file: {} }}
adjudication: {{ max_moves: 60 }}
",
        book.display()
    );
    let path = dir.join("c960.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The error of a match that must not start, and that it wrote nothing.
fn refused(cfg: &Path, out: &Path) -> String {
    let cfg = MatchConfig::load(cfg, &Overrides::default()).unwrap();
    let opts = RunOptions {
        out_dir: out.to_path_buf(),
        quiet: true,
        ..RunOptions::default()
    };
    let e = run_match(&cfg, &opts).unwrap_err().to_string();
    let written = std::fs::read_dir(out).map_or(0, |d| d.count());
    assert_eq!(written, 0, "a refused match wrote to {}", out.display());
    e
}

/// Every game of `out`'s PGN is tagged Chess960 with its start FEN, and
/// python-chess replays them all as Chess960 games. Returns the PGN.
fn check_pgn(out: &Path, games: u64) -> String {
    let text = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let split = pgn_write::split_games(&text);
    assert_eq!(split.len() as u64, games);
    for g in &split {
        assert_eq!(pgn_write::tag_value(g, "Variant"), Some("Chess960"), "{g}");
        assert!(pgn_write::tag_value(g, "FEN").is_some(), "{g}");
        assert_eq!(pgn_write::tag_value(g, "SetUp"), Some("1"), "{g}");
    }
    if let Some(py) = python_chess() {
        let r = replay_with_python_chess(&py, &out.join("games.pgn"), "inproc");
        assert_eq!(r["games"].as_u64(), Some(games), "{r}");
        assert_eq!(r["chess960"].as_u64(), Some(games), "{r}");
        assert!(r["terminations"].get("illegal move").is_none(), "{r}");
    }
    text
}

const INPROC_AND_UCI: &str = "  - { name: inproc, type: inprocess }";

fn uci_karsinta() -> String {
    format!("  - {{ name: uci, cmd: {FAKE}, args: [\"--karsinta-uci\"] }}")
}

#[test]
fn in_process_and_uci_karsinta_play_x_fen_and_shredder_fen_books() {
    let engines = format!("{INPROC_AND_UCI}\n{}", uci_karsinta());
    let mut castles = 0;
    for name in ["frc.epd", "dfrc.epd", "frc_3moves.epd"] {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(dir.path(), &engines, &book(name), "variant: chess960", 4);
        let out = dir.path().join("run");
        let s = run(&cfg, &out, &Overrides::default());
        assert_eq!(s.games, 4, "{name}");
        let text = check_pgn(&out, 4);
        castles += text.matches(" O-O").count();
        // The FEN tag is the book's position as X-FEN (DFRC's Shredder-FEN
        // castling letters become KQkq where the rooks are the outermost).
        let first = pgn_write::tag_value(pgn_write::split_games(&text)[0], "FEN").unwrap();
        assert!(
            first.contains(" KQkq ") || name == "frc_3moves.epd",
            "{first}"
        );
    }
    // The engines do castle in these games (king takes rook over UCI).
    assert!(castles > 0, "no castling in 12 Chess960 games");
}

/// A suite of `openings generate --variant dfrc`, gzipped, plays as a
/// Chess960 book: every game replays in python-chess.
#[test]
fn a_generated_double_chess960_suite_plays() {
    use karsinta_harness::openings::generate::{generate, write_epd, GenerateConfig, StartSet};
    use std::io::Write;

    let suite = GenerateConfig {
        plies: 0,
        max_cp: 400,
        count: 2,
        seed: 4,
        nodes: Some(200),
        starts: StartSet::Dfrc,
        ..GenerateConfig::default()
    };
    let report = generate(&suite, &|_| {}).unwrap();
    let mut text = Vec::new();
    write_epd(&report.positions, &mut text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("dfrc.epd.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    std::fs::write(&book, gz.finish().unwrap()).unwrap();
    let engines = format!("{INPROC_AND_UCI}\n{}", uci_karsinta());
    let cfg = config(dir.path(), &engines, &book, "variant: chess960", 4);
    let out = dir.path().join("run");
    assert_eq!(run(&cfg, &out, &Overrides::default()).games, 4);
    let pgn = check_pgn(&out, 4);
    let first = String::from_utf8(text).unwrap();
    let first = first.lines().next().unwrap();
    assert!(pgn.contains(&format!("[FEN \"{first}\"]")), "{pgn}");
}

#[test]
fn an_engine_without_uci_chess960_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let engines = format!("{INPROC_AND_UCI}\n  - {{ name: plain, cmd: {FAKE} }}");
    let cfg = config(
        dir.path(),
        &engines,
        &book("frc.epd"),
        "variant: chess960",
        2,
    );
    let e = refused(&cfg, &dir.path().join("run"));
    assert!(e.contains("'plain'") && e.contains("UCI_Chess960"), "{e}");
}

#[test]
fn a_chess960_book_in_a_standard_match_is_refused_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let engines = format!("{INPROC_AND_UCI}\n  - {{ name: b, type: inprocess }}");
    for name in ["frc.epd", "dfrc.epd"] {
        let cfg = config(dir.path(), &engines, &book(name), "", 2);
        let e = refused(&cfg, &dir.path().join("run"));
        assert!(
            e.contains(&format!("{name}:2:")) && e.contains("variant: chess960"),
            "{e}"
        );
    }
}

/// Fairy-Max (Debian's 5.0b) lists no `fischerandom` in `feature variants`
/// and has no `setboard`: refused before the match, by name.
#[test]
fn fairymax_cannot_play_chess960() {
    let Some(fm) = debian_engine("fairymax") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engines = format!(
        "{INPROC_AND_UCI}\n  - {{ name: fairy, type: xboard, cmd: {} }}",
        fm.display()
    );
    let cfg = config(
        dir.path(),
        &engines,
        &book("frc.epd"),
        "variant: chess960",
        2,
    );
    let e = refused(&cfg, &dir.path().join("run"));
    assert!(e.contains("fairy") && e.contains("fischerandom"), "{e}");
}

/// Debian's Stockfish advertises `UCI_Chess960`: a short DFRC match
/// against it replays in python-chess.
#[test]
fn against_stockfish_in_chess960() {
    let Some(sf) = debian_engine("stockfish") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engines = format!(
        "{INPROC_AND_UCI}\n  - {{ name: stockfish, cmd: {}, options: {{ Threads: 1, Hash: 8 }} }}",
        sf.display()
    );
    let cfg = config(
        dir.path(),
        &engines,
        &book("dfrc.epd"),
        "variant: chess960",
        4,
    );
    let out = dir.path().join("run");
    let s = run(&cfg, &out, &Overrides::default());
    assert_eq!(s.games, 4);
    check_pgn(&out, 4);
}
