//! Fuzzing the harness's readers: opening suites (EPD and PGN), the PGN
//! game reader used to resume runs, and the Texel dataset builder (`karsinta
//! tune texel-data`) get random and garbled text. Nothing may panic, caught
//! or not (a panic hook counts them), every refusal names a line inside the
//! text, a PGN opening is either read move for move or refused, never read
//! with moves dropped, and every game given to the dataset builder is used
//! or reported skipped under its own file and number. The `#[ignore]`d
//! suites run many cases (CI runs them with `--include-ignored`); the smoke
//! versions a few.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

use karsinta_test_support::in_own_process;

use karsinta_harness::formats::pgn_write;
use karsinta_harness::openings::{parse_openings, LoadOptions, OpeningFormat};
use karsinta_harness::tune::texel::extract::{ExtractReport, SkipKind};
use karsinta_harness::tune::texel::run::load_all;
use karsinta_harness::tune::texel::{extract, ExtractOptions};
use proptest::prelude::*;
use shakmaty::fen::Fen;
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
                variant: karsinta_harness::variant::Variant::Standard,
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
    for game in pgn_write::split_games(&as_text) {
        let _ = pgn_write::tag_value(game, "Round");
        let _ = pgn_write::is_complete(game);
    }
}

/// PGN-ish text: tags, movetext symbols, comments, figurines, NAGs.
fn pgn_like() -> impl Strategy<Value = String> {
    "([\\[\\]{}()\"; \n.0-9a-hxKQRBNO=+#$!?*/-]|♘|½|Event|FEN|e4|Nf3|O-O|1-0|\u{feff}){0,120}"
}

/// A random legal game from `start`: (SAN, UCI) per ply.
fn random_game(start: &Chess, picks: &[u16]) -> Vec<(String, String)> {
    let mut pos = start.clone();
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
        let game = random_game(&Chess::default(), &picks);
        let text = decorate(&game, &style);
        let options = LoadOptions { format: Some(OpeningFormat::Pgn), plies: None, skip_bad: false, variant: Default::default() };
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
    // Alone: the panic hook counts the whole process's panics.
    if in_own_process("fuzz::readers_smoke") {
        fuzz_readers(64);
    }
}

#[test]
#[ignore = "fuzz suite: many cases"]
fn readers_fuzz() {
    // Alone: the panic hook counts the whole process's panics.
    if in_own_process("fuzz::readers_fuzz") {
        fuzz_readers(20_000);
    }
}

#[test]
fn pgn_round_trip_smoke() {
    // Alone: the panic hook counts the whole process's panics.
    if in_own_process("fuzz::pgn_round_trip_smoke") {
        fuzz_round_trip(32);
    }
}

#[test]
#[ignore = "fuzz suite: many cases"]
fn pgn_round_trip_fuzz() {
    // Alone: the panic hook counts the whole process's panics.
    if in_own_process("fuzz::pgn_round_trip_fuzz") {
        fuzz_round_trip(5_000);
    }
}

// The Texel dataset builder (`karsinta tune texel-data`): files of
// generated games, valid and broken ones mixed, and files cut short or
// ending in garbage.

/// Starts of the generated games (`None`: no FEN tag).
const TEXEL_STARTS: [Option<&str>; 5] = [
    None,
    Some("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
    Some("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3"),
    Some("8/5k2/3b2p1/1p1P4/1P3P2/3B2K1/8/8 b - - 0 1"),
    Some("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"),
];

/// A valid game of 16 plies: every file holds one, so there are always
/// positions to keep.
const ANCHOR: &str = "[Event \"anchor\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 1-0\n";

/// What may follow a move of a valid game: evaluation comments, well and
/// badly formed, other comments, glyphs, variations and line breaks. None
/// may make the game unusable.
const DECORATIONS: &[&str] = &[
    "{+0.31/12 0.05s}",
    "{-1.50/20 1.2s}",
    "{[%eval 0.42] [%clk 0:01:00]}",
    "{[%eval #-3]}",
    "{d=34, sd=34, wv=1.38, R50=48}",
    "{book}",
    "{+M5/12 0.1s}",
    "{wv=nan}",
    "{wv=inf}",
    "{NaN/3 1s}",
    "{inf/3}",
    "{[%eval 1e400]}",
    "{[%eval -inf]}",
    "{wv=}",
    "{[%eval }",
    "{/}",
    "{}",
    "{+0.31/}",
    "{wv=0.5,}",
    "{a\n\n[Event \"inside\"]\n%b\n}",
    "{é ♘ \u{feff} ½}",
    "{1-0 *}",
    "$14",
    "!?",
    "??",
    "(1... d5 {side} 2. c4)",
    "(*)",
    "\n",
    "\n%an escaped line 1-0\n",
];

/// Odd tag lines a valid game may carry.
const ODD_TAGS: &[&[u8]] = &[
    b"[Event x]",
    b"[Event \"x]",
    b"[Annotator \"\xff\xfe\"]",
    b"[Event \"a\\\"b\"]",
    b"[SetUp \"1\"]",
    b"[Site \"\"]",
    b"[Site \"[x]\"]",
    b"[Variant \"Standard\"]",
    b"[Variant \"From Position\"]",
    b"[TimeControl \"40/7200:3600\"]",
];

/// Movetext tokens of a broken game (each after a space, see [`garbage`],
/// so none ends the game: no line starts with `[` or `%`, and no `{` stays
/// open).
const GARBAGE: &[&[u8]] = &[
    b"Zz9",
    b"e9",
    b"Nxx",
    b"O-O-O-O",
    b"$",
    b"$99999999999999999999",
    b"!!!",
    b"1.",
    b"99...",
    b"--",
    b"0-0-0",
    "½".as_bytes(),
    b"1/2",
    b"1-",
    b"0-",
    "½-".as_bytes(),
    b"(",
    b")",
    b")(",
    // Ended at once: the rest of the line could open a multi-line comment.
    b";junk\n",
    b"[",
    b"]",
    b"\"",
    b"}",
    b"e4e5",
    b"P@e4",
    b"@",
    b"#",
    b"+",
    b"=Q",
    b"Z0",
    "\u{feff}".as_bytes(),
    "♘f3".as_bytes(),
    "—".as_bytes(),
    b"%",
    b"*1",
    b"1-0",
    b"0-1",
    b"1/2-1/2",
    b"*",
    b"\xff\xfe",
    b"\x00",
    b"e4\xc3",
];

/// A garbage token after a space: at the start of a line, `%` would escape
/// the line and `[` start a tag. (Garbage never comes first in a movetext,
/// where pgn-reader skips spaces as it does between tags.)
fn garbage(token: &[u8]) -> Vec<u8> {
    [b" ", token].concat()
}

/// Moves that are illegal in most positions (a few are legal by chance).
const ODD_SANS: &[&str] = &[
    "Ke3", "Qxh7", "a5", "O-O", "Nf3", "exd6", "e8=Q", "Kxe1", "b1=K", "Bb5+", "Rxa8#", "h4",
];

const BAD_RESULT_TAGS: &[&str] = &["2-0", "", "1-0 1-0", "draw", "1/2", "½-½"];

const BAD_TAG_NAMES: &[&str] = &[
    "[Ev-ent \"x\"]",
    "[ \"x\"]",
    "[\"x\"]",
    "[Événement \"x\"]",
    "[A.B \"x\"]",
    "[Event\t\"x\"]",
];

/// FENs that are not positions.
const BAD_FENS: &[&str] = &[
    "",
    "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2K w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
    "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
    "4k2R/8/8/8/8/8/8/4K3 w - - 0 1",
    "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
    "7k/PPPPPPPP/PPPPPPPP/8/8/8/8/K7 w - - 0 1",
];

const VARIANTS: &[&str] = &["Chess960", "crazyhouse", "Three-check", "atomic"];

/// What must become of a generated game.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    Used,
    Skipped(SkipKind),
    /// Broken in a way that may still leave a usable game (a garbage token
    /// the reader passes over, a move that happens to be legal).
    Either,
}

/// One generated game: its start, moves, result, decorations, separator
/// and mutation (`mutation % 20 < 8`: none, the game is valid).
#[derive(Clone, Debug)]
struct GameSpec {
    start: u8,
    picks: Vec<u16>,
    result: u8,
    style: Vec<u8>,
    mutation: u8,
    at: u16,
    choice: u16,
}

fn game_spec() -> impl Strategy<Value = GameSpec> {
    (
        any::<u8>(),
        prop::collection::vec(any::<u16>(), 0..40),
        any::<u8>(),
        prop::collection::vec(any::<u8>(), 40),
        any::<u8>(),
        any::<u16>(),
        any::<u16>(),
    )
        .prop_map(
            |(start, picks, result, style, mutation, at, choice)| GameSpec {
                start,
                picks,
                result,
                style,
                mutation,
                at,
                choice,
            },
        )
}

fn pick<T: Copy>(list: &[T], i: impl Into<usize>) -> T {
    list[i.into() % list.len()]
}

/// The text of one game (without a final line break) and what must become
/// of it.
fn texel_game(g: &GameSpec) -> (Vec<u8>, Expect) {
    let fen = pick(&TEXEL_STARTS, g.start);
    let start: Chess = fen.map_or_else(Chess::default, |f| {
        f.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    });
    let game = random_game(&start, &g.picks);
    let result = pick(&["1-0", "0-1", "1/2-1/2"], g.result);
    let mut tags: Vec<Vec<u8>> = vec![b"[Event \"fuzz\"]".to_vec()];
    if let Some(f) = fen {
        tags.push(b"[SetUp \"1\"]".to_vec());
        tags.push(format!("[FEN \"{f}\"]").into_bytes());
    }
    tags.push(format!("[Result \"{result}\"]").into_bytes());
    if g.choice.is_multiple_of(4) {
        tags.insert(1, pick(ODD_TAGS, g.choice / 4).to_vec());
    }
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    let mut san_at = Vec::new();
    let black_first = start.turn() == shakmaty::Color::Black;
    for (i, (san, _)) in game.iter().enumerate() {
        let ply = i + usize::from(black_first);
        if ply % 2 == 0 {
            tokens.push(format!("{}.", ply / 2 + 1).into_bytes());
        } else if i == 0 {
            tokens.push(b"1...".to_vec());
        }
        san_at.push(tokens.len());
        tokens.push(san.clone().into_bytes());
        let s = g.style[i];
        if s.is_multiple_of(3) {
            tokens.push(pick(DECORATIONS, s / 3).as_bytes().to_vec());
        }
    }
    tokens.push(result.as_bytes().to_vec());
    let at = usize::from(g.at);
    let fen_line = |f: &str| format!("[FEN \"{f}\"]").into_bytes();
    let set_fen = |tags: &mut Vec<Vec<u8>>, line: Vec<u8>| match tags
        .iter()
        .position(|t| t.starts_with(b"[FEN "))
    {
        Some(i) => tags[i] = line,
        None => tags.insert(1, line),
    };
    let expect = match g.mutation % 20 {
        0..=7 => Expect::Used,
        8 => {
            tokens.pop();
            Expect::Skipped(SkipKind::NoResult)
        }
        9 => {
            *tokens.last_mut().unwrap() = b"*".to_vec();
            Expect::Skipped(SkipKind::NoResult)
        }
        10 => {
            // Cut after a move: no result.
            let ply = at % (game.len() + 1);
            tokens.truncate(san_at.get(ply).copied().unwrap_or(tokens.len() - 1));
            Expect::Skipped(SkipKind::NoResult)
        }
        11 => {
            let i = 1 + at % tokens.len();
            tokens.insert(i, garbage(pick(GARBAGE, g.choice)));
            Expect::Either
        }
        12 => {
            let san = pick(ODD_SANS, g.choice).as_bytes().to_vec();
            match san_at.get(at % (game.len() + 1)) {
                Some(&i) => tokens[i] = san,
                None => tokens.insert(tokens.len() - 1, san),
            }
            Expect::Either
        }
        13 => {
            let bad = format!("[Result \"{}\"]", pick(BAD_RESULT_TAGS, g.choice));
            let i = tags
                .iter()
                .position(|t| t.starts_with(b"[Result "))
                .unwrap();
            tags[i] = bad.into_bytes();
            Expect::Skipped(SkipKind::BadTag)
        }
        14 => {
            let i = at % (tags.len() + 1);
            tags.insert(i, pick(BAD_TAG_NAMES, g.choice).as_bytes().to_vec());
            Expect::Skipped(SkipKind::BadTag)
        }
        15 => {
            set_fen(&mut tags, fen_line(pick(BAD_FENS, g.choice)));
            Expect::Skipped(SkipKind::BadFen)
        }
        16 => {
            let mut f = fen
                .unwrap_or("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
                .as_bytes()
                .to_vec();
            let i = at % f.len();
            f[i] = pick(b"pnbrqkPNBRQK12345678/ wb-KQkq0x9", g.choice);
            set_fen(&mut tags, fen_line(&String::from_utf8(f).unwrap()));
            Expect::Either
        }
        17 => {
            // Last, so that an odd `Variant` tag does not override it.
            let line = format!("[Variant \"{}\"]", pick(VARIANTS, g.choice));
            tags.push(line.into_bytes());
            Expect::Skipped(SkipKind::Variant)
        }
        18 => {
            // Longer than pgn-reader's buffer (16 KiB) from 16400 bytes on.
            let len = 200 + at % 40_000;
            let mut line = b"[Annotator \"".to_vec();
            line.resize(line.len() + len, b'x');
            line.extend_from_slice(b"\"]");
            tags.insert(1, line);
            if len >= 16_400 {
                Expect::Skipped(SkipKind::BadTag)
            } else {
                Expect::Either
            }
        }
        _ => {
            let i = 1 + at % tokens.len();
            tokens.insert(i, garbage(pick(GARBAGE, g.choice)));
            let j = 1 + usize::from(g.choice) % tokens.len();
            tokens.insert(j, garbage(pick(GARBAGE, g.at)));
            Expect::Either
        }
    };
    // An empty movetext would join this game's tags to the next game's.
    if tokens.is_empty() {
        tokens.push(b"{no moves}".to_vec());
    }
    let mut text = tags.join(&b'\n');
    text.extend_from_slice(b"\n\n");
    for (i, t) in tokens.iter().enumerate() {
        if i > 0 {
            text.push(b' ');
        }
        text.extend_from_slice(t);
    }
    (text, expect)
}

/// The line breaks between games; all of them end a movetext before a tag.
const SEPARATORS: [&str; 4] = ["\n", "\n\n", "\r\n\r\n", "\n \n"];

/// Write `games` (with the anchor game among them, at `anchor`) to `path`;
/// what must become of each game, by game number.
fn write_games(path: &Path, games: &[GameSpec], anchor: Option<usize>) -> Vec<Expect> {
    let mut text = Vec::new();
    let mut expect = Vec::new();
    for i in 0..=games.len() {
        if anchor == Some(i) {
            text.extend_from_slice(ANCHOR.as_bytes());
            text.push(b'\n');
            expect.push(Expect::Used);
        }
        if let Some(g) = games.get(i) {
            let (t, e) = texel_game(g);
            text.extend_from_slice(&t);
            text.extend_from_slice(pick(&SEPARATORS, g.result / 3).as_bytes());
            expect.push(e);
        }
    }
    std::fs::write(path, text).unwrap();
    expect
}

/// Every game is used or reported skipped under its file and number, as
/// `files` (what must become of each file's games, by game number) say;
/// unless `exact`, more games of unknown fate may follow (a garbage tail).
/// The dataset written loads (labels in [0, 1]) and holds the kept
/// positions.
fn check_report(r: &ExtractReport, out: &Path, files: &[(PathBuf, Vec<Expect>)], exact: bool) {
    let total: usize = files.iter().map(|(_, e)| e.len()).sum();
    if exact {
        assert_eq!(r.games_read, total as u64, "{r:?}");
    } else {
        assert!(r.games_read >= total as u64, "{r:?}");
    }
    assert_eq!(r.games_used + r.games_skipped(), r.games_read, "{r:?}");
    assert_eq!(r.skipped.len() as u64, r.games_skipped(), "{r:?}");
    let mut seen = HashSet::new();
    for s in &r.skipped {
        assert!(seen.insert((s.file.clone(), s.game)), "twice: {s:?}");
        assert!(!s.reason.trim().is_empty(), "{s:?}");
        let (_, expect) = files
            .iter()
            .find(|(f, _)| *f == s.file)
            .unwrap_or_else(|| panic!("unknown file: {s:?}"));
        assert!(s.game >= 1, "game numbers start at 1: {s:?}");
        match expect.get(s.game as usize - 1) {
            Some(Expect::Used) => panic!("a valid game was skipped: {s:?}"),
            Some(Expect::Skipped(k)) => assert_eq!(s.kind, *k, "{s:?}"),
            Some(Expect::Either) => {}
            None => assert!(!exact, "no such game: {s:?}"),
        }
    }
    for (file, expect) in files {
        for (i, e) in expect.iter().enumerate() {
            if let Expect::Skipped(_) = e {
                let game = i as u64 + 1;
                assert!(
                    seen.contains(&(file.clone(), game)),
                    "{} game {game} should be skipped: {r:?}",
                    file.display()
                );
            }
        }
    }
    let ds = load_all(out).unwrap_or_else(|e| panic!("the dataset does not load: {e}"));
    assert_eq!(ds.len() as u64, r.positions_kept);
}

/// Sampling and labelling options, varied by `knobs`.
fn texel_options(knobs: u16) -> ExtractOptions {
    ExtractOptions {
        skip_plies: usize::from(knobs % 5),
        max_per_game: [None, Some(1), Some(3)][usize::from(knobs / 5 % 3)],
        lambda: [0.0, 0.5, 1.0][usize::from(knobs / 15 % 3)],
        dedup: (knobs / 45).is_multiple_of(2),
        ..ExtractOptions::default()
    }
}

fn fuzz_texel_data(cases: u32) {
    count_panics();
    let tail = (
        any::<u8>(),
        any::<u16>(),
        pgn_like(),
        prop::collection::vec(any::<u8>(), 0..200),
        game_spec(),
    );
    proptest!(config(cases), |(
        first in prop::collection::vec(game_spec(), 0..5),
        second in prop::collection::vec(game_spec(), 0..5),
        anchor in any::<u8>(),
        (tail_kind, cut, junk, bytes, cut_game) in tail,
        knobs in any::<u16>(),
    )| {
        let dir = tempfile::tempdir().unwrap();
        let opts = texel_options(knobs);
        // Valid and broken games in two files, the anchor in one of them.
        let a = dir.path().join("a.pgn");
        let b = dir.path().join("b.pgn");
        let anchor = usize::from(anchor) % (first.len() + second.len() + 1);
        let in_first = (anchor <= first.len()).then_some(anchor);
        let in_second = anchor.checked_sub(first.len() + 1);
        let files = [
            (a.clone(), write_games(&a, &first, in_first)),
            (b.clone(), write_games(&b, &second, in_second)),
        ];
        let out = dir.path().join("d.bin");
        let r = extract(&[a, b], &out, &opts, &|_| {}).expect("the anchor game has positions");
        check_report(&r, &out, &files, true);

        // A file ending in a cut game, random text or random bytes.
        let c = dir.path().join("c.pgn");
        let mut text = format!("{ANCHOR}\n").into_bytes();
        match tail_kind % 4 {
            0 => {}
            1 => {
                let (g, _) = texel_game(&cut_game);
                text.extend_from_slice(&g[..usize::from(cut) % (g.len() + 1)]);
            }
            2 => text.extend_from_slice(junk.as_bytes()),
            _ => text.extend_from_slice(&bytes),
        }
        std::fs::write(&c, &text).unwrap();
        let r = extract(std::slice::from_ref(&c), &out, &opts, &|_| {})
            .expect("the anchor game has positions");
        check_report(&r, &out, &[(c, vec![Expect::Used])], false);
    });
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a panic happened");
}

#[test]
fn texel_data_smoke() {
    // Alone: the panic hook counts the whole process's panics.
    if in_own_process("fuzz::texel_data_smoke") {
        fuzz_texel_data(64);
    }
}

#[test]
#[ignore = "fuzz suite: many cases"]
fn texel_data_fuzz() {
    // Alone: the panic hook counts the whole process's panics.
    if in_own_process("fuzz::texel_data_fuzz") {
        fuzz_texel_data(3_000);
    }
}
