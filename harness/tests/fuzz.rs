//! Fuzzing the harness's readers: opening suites (EPD and PGN) and the PGN
//! game reader used to resume runs get random and garbled text. Nothing may
//! panic, caught or not (a panic hook counts them), every refusal names a
//! line inside the text, and a PGN opening is either read move for move or
//! refused, never read with moves dropped. The `#[ignore]`d suites run many
//! cases (CI runs them with `--include-ignored`); the smoke versions a few.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

use karsinta_harness::openings::{parse_openings, LoadOptions, OpeningFormat};
use karsinta_harness::pgn;
use proptest::prelude::*;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Position};

static PANICS: AtomicUsize = AtomicUsize::new(0);
static HOOK: Once = Once::new();

/// Count the panics of the code under test, caught or not (failed
/// assertions of this file fail their own test and are not counted).
fn count_panics() {
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.location().is_none_or(|l| !l.file().ends_with(file!())) {
                PANICS.fetch_add(1, Ordering::SeqCst);
            }
            default(info);
        }));
    });
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Read `text` both ways; no panic, and each refusal points into the text.
fn read_all_ways(text: &[u8]) {
    let lines = text.split(|&b| b == b'\n').count();
    for format in [OpeningFormat::Pgn, OpeningFormat::Epd] {
        for skip_bad in [false, true] {
            let options = LoadOptions {
                format: Some(format),
                plies: if skip_bad { Some(6) } else { None },
                skip_bad,
            };
            match parse_openings(text, Path::new("f"), format, &options) {
                Ok(loaded) => {
                    for e in &loaded.skipped {
                        let line = e.line().expect("a skipped entry has a line");
                        assert!((1..=lines).contains(&line), "{e}");
                    }
                    for o in &loaded.openings {
                        o.end_position().expect("a loaded opening replays");
                    }
                }
                Err(e) => {
                    if let Some(line) = e.line() {
                        assert!((1..=lines).contains(&line), "{e}");
                    }
                }
            }
        }
    }
    let as_text = String::from_utf8_lossy(text);
    for game in pgn::split_games(&as_text) {
        let _ = pgn::tag_value(game, "Round");
        let _ = pgn::is_complete(game);
    }
}

/// PGN-ish text: tags, movetext symbols, comments, figurines, NAGs.
fn pgn_like() -> impl Strategy<Value = String> {
    "([\\[\\]{}()\"; \n.0-9a-hxKQRBNO=+#$!?*/-]|♘|½|Event|FEN|e4|Nf3|O-O|1-0|\u{feff}){0,120}"
}

/// A random legal game from the start position: (SAN, UCI) per ply.
fn random_game(picks: &[u16]) -> Vec<(String, String)> {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for &p in picks {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[p as usize % moves.len()];
        let san = San::from_move(&pos, m).to_string();
        out.push((san, m.to_uci(CastlingMode::Standard).to_string()));
        pos.play_unchecked(m);
    }
    out
}

/// The game as PGN movetext with the decorations readers meet: move numbers
/// (spaced or glued), check marks (doubled too), annotation glyphs, NAGs,
/// comments, variations and castling with zeros.
fn decorate(game: &[(String, String)], style: &[u8]) -> String {
    let mut text = String::from("[Event \"fuzz\"]\n\n");
    for (i, (san, _)) in game.iter().enumerate() {
        let s = style.get(i).copied().unwrap_or(0);
        if i % 2 == 0 {
            text.push_str(&format!("{}.", i / 2 + 1));
            if s % 3 != 0 {
                text.push(' ');
            }
        }
        let mut san = san.clone();
        if s % 5 == 1 {
            san = san.replace('O', "0");
        }
        if s % 7 == 2 && san.ends_with('+') {
            san.push('+');
        }
        text.push_str(&san);
        match s % 11 {
            1 => text.push_str("!?"),
            2 => text.push_str(" ?!"),
            3 => text.push_str(" $14"),
            4 => text.push_str(" {a comment; with (brackets)}"),
            5 => text.push_str(" (1. d4 d5 {side line})"),
            6 => text.push('\n'),
            _ => {}
        }
        text.push(' ');
    }
    text.push_str("*\n");
    text
}

fn fuzz_readers(cases: u32) {
    count_panics();
    proptest!(config(cases), |(text in pgn_like(), bytes in prop::collection::vec(any::<u8>(), 0..200))| {
        read_all_ways(text.as_bytes());
        read_all_ways(&bytes);
    });
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a panic happened");
}

fn fuzz_round_trip(cases: u32) {
    count_panics();
    proptest!(config(cases), |(
        picks in prop::collection::vec(any::<u16>(), 0..60),
        style in prop::collection::vec(any::<u8>(), 60),
    )| {
        let game = random_game(&picks);
        let text = decorate(&game, &style);
        let options = LoadOptions { format: Some(OpeningFormat::Pgn), plies: None, skip_bad: false };
        match parse_openings(text.as_bytes(), Path::new("g.pgn"), OpeningFormat::Pgn, &options) {
            Ok(loaded) => {
                prop_assert_eq!(loaded.openings.len(), 1);
                let uci: Vec<String> = game.iter().map(|(_, u)| u.clone()).collect();
                prop_assert_eq!(&loaded.openings[0].moves, &uci, "{}", text);
            }
            // Only a game without moves is refused.
            Err(e) => prop_assert!(game.is_empty(), "{}: {}", e, text),
        }
    });
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a panic happened");
}

#[test]
fn readers_smoke() {
    fuzz_readers(64);
}

#[test]
#[ignore = "fuzz suite: many cases"]
fn readers_fuzz() {
    fuzz_readers(20_000);
}

#[test]
fn pgn_round_trip_smoke() {
    fuzz_round_trip(32);
}

#[test]
#[ignore = "fuzz suite: many cases"]
fn pgn_round_trip_fuzz() {
    fuzz_round_trip(5_000);
}
