//! Loading opening suites from files: EPD and PGN parsing, UCI conversion of
//! special moves, errors that name file and line, and opening order.

use std::io::Write;
use std::path::{Path, PathBuf};

use karsinta_harness::openings::{
    load_openings, load_openings_with, order_openings, LoadOptions, Opening, OpeningError,
    OpeningFormat, OpeningOrder,
};

/// Write `text` to a file called `name` in a fresh temporary directory.
fn fixture(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    (dir, path)
}

fn moves(opening: &Opening) -> Vec<&str> {
    opening.moves.iter().map(String::as_str).collect()
}

const EPD: &str = "\
# A comment, then a blank line.

rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - bm Nc6; id \"sicilian\"; c0 \"x; y\";
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -
";

#[test]
fn epd_suite_loads_with_ids_and_full_fens() {
    let (_dir, path) = fixture("suite.epd", EPD);
    let openings = load_openings(&path, None, None).unwrap();
    assert_eq!(openings.len(), 3);
    for (i, o) in openings.iter().enumerate() {
        assert_eq!(o.id, i);
        assert!(o.moves.is_empty());
        assert_eq!(o.fen.as_ref().unwrap().split(' ').count(), 6);
    }
    assert_eq!(
        openings[1].fen.as_deref(),
        Some("rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 0 1")
    );
}

#[test]
fn epd_errors_name_file_and_line() {
    let cases = [
        // Not a FEN at all.
        ("hello world\n", 1),
        // Two white kings.
        ("4k3/8/8/8/8/8/8/4K2K w - - 0 1\n", 1),
        // Pawn on the first rank, after a good line and a comment.
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1\n# ok\n4k3/8/8/8/8/8/8/P3K3 w - - 0 1\n",
            3,
        ),
        // Castling rights without a rook.
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1\n", 1),
        // Too few fields.
        ("4k3/8/8/8/8/8/8/4K3 w\n", 1),
    ];
    for (text, line) in cases {
        let (_dir, path) = fixture("bad.epd", text);
        let err = load_openings(&path, None, None).unwrap_err();
        assert!(
            matches!(&err, OpeningError::BadEpd { line: l, .. } if *l == line),
            "{text:?}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&format!("bad.epd:{line}: ")),
            "{text:?}: {message}"
        );
    }
}

#[test]
fn skip_bad_keeps_good_entries_and_reports_bad_ones() {
    let text = "4k3/8/8/8/8/8/8/4K2K w - - 0 1\n4k3/8/8/8/8/8/8/4K3 w - - 0 1\nnonsense\n";
    let (_dir, path) = fixture("mixed.epd", text);
    let options = LoadOptions {
        skip_bad: true,
        ..LoadOptions::default()
    };
    let loaded = load_openings_with(&path, &options).unwrap();
    assert_eq!(loaded.openings.len(), 1);
    assert_eq!(loaded.openings[0].id, 0);
    let lines: Vec<_> = loaded.skipped.iter().map(|e| e.line()).collect();
    assert_eq!(lines, vec![Some(1), Some(3)]);
    // Without skip_bad the first bad line aborts.
    assert_eq!(
        load_openings(&path, None, None).unwrap_err().line(),
        Some(1)
    );
}

#[test]
fn empty_files_and_unknown_formats_are_errors() {
    let (_dir, path) = fixture("empty.epd", "# nothing here\n\n");
    assert!(matches!(
        load_openings(&path, None, None),
        Err(OpeningError::Empty { skipped: 0, .. })
    ));
    let (_dir, path) = fixture("empty.pgn", "");
    assert!(matches!(
        load_openings(&path, None, None),
        Err(OpeningError::Empty { .. })
    ));
    let (_dir, path) = fixture("suite.txt", EPD);
    assert!(matches!(
        load_openings(&path, None, None),
        Err(OpeningError::UnknownFormat { .. })
    ));
    // An explicit format overrides the extension.
    assert_eq!(
        load_openings(&path, Some(OpeningFormat::Epd), None)
            .unwrap()
            .len(),
        3
    );
    let missing = Path::new("/nonexistent/karsinta/suite.epd");
    let err = load_openings(missing, None, None).unwrap_err();
    assert!(matches!(err, OpeningError::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/karsinta/suite.epd"));
}

const PGN: &str = r#"[Event "castling"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 *

[Event "queenside castling, comments, NAGs and a variation"]

1. d4 d5 2. Nc3 {a comment} Nc6 $1 3. Bf4 (3. Bg5 h6) Bf5!? 4. Qd2 Qd7
5. O-O-O O-O-O 1/2-1/2

[Event "en passant"]

1. e4 a6 2. e5 d5 3. exd6 cxd6 *

[Event "promotion with capture, and check"]

1. e4 d5 2. exd5 c6 3. dxc6 Nf6 4. cxb7 Nbd7 5. bxa8=Q Qc7 6. Qxc8+ Qxc8 *

[Event "from a FEN, black to move"]
[SetUp "1"]
[FEN "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"]

1... O-O 2. O-O-O Rab8 *
"#;

#[test]
fn pgn_moves_become_standard_uci() {
    let (_dir, path) = fixture("suite.pgn", PGN);
    let openings = load_openings(&path, None, None).unwrap();
    assert_eq!(openings.len(), 5);
    assert_eq!(
        moves(&openings[0]),
        ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1", "g8f6"]
    );
    assert_eq!(
        moves(&openings[1])[8..],
        ["e1c1", "e8c8"],
        "{:?}",
        openings[1]
    );
    assert_eq!(openings[1].moves.len(), 10, "variation moves are skipped");
    assert_eq!(
        moves(&openings[2]),
        ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6", "c7d6"]
    );
    assert_eq!(moves(&openings[3])[8..], ["b7a8q", "d8c7", "a8c8", "c7c8"]);
    assert_eq!(
        openings[4].fen.as_deref(),
        Some("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    );
    assert_eq!(moves(&openings[4]), ["e8g8", "e1c1", "a8b8"]);
    for (i, o) in openings.iter().enumerate() {
        assert_eq!(o.id, i);
        assert!(o.end_position().is_ok());
    }
    assert!(openings[..4].iter().all(|o| o.fen.is_none()));
}

#[test]
fn pgn_plies_truncate_each_game() {
    let (_dir, path) = fixture("suite.pgn", PGN);
    let openings = load_openings(&path, Some(OpeningFormat::Pgn), Some(3)).unwrap();
    assert_eq!(moves(&openings[0]), ["e2e4", "e7e5", "g1f3"]);
    assert_eq!(moves(&openings[4]), ["e8g8", "e1c1", "a8b8"]);
    let openings = load_openings(&path, None, Some(0)).unwrap();
    assert!(openings.iter().all(|o| o.moves.is_empty()));
    assert_eq!(openings.len(), 5);
    // Fewer plies than the limit: the whole game.
    let openings = load_openings(&path, None, Some(100)).unwrap();
    assert_eq!(openings[0].moves.len(), 8);
}

#[test]
fn pgn_truncation_ignores_bad_moves_past_the_limit() {
    let text = "1. e4 e5 2. Ke3 *\n";
    let (_dir, path) = fixture("late.pgn", text);
    assert_eq!(
        load_openings(&path, None, Some(2)).unwrap()[0].moves.len(),
        2
    );
    assert!(load_openings(&path, None, None).is_err());
}

#[test]
fn pgn_bad_move_names_game_and_line() {
    let text = "\
[Event \"good\"]

1. e4 e5 *

[Event \"bad\"]
[Site \"?\"]

1. d4 d5 2. c4 e6
3. Nc3 Nf6 4. Bg5 Be7 5. Qxh7 Nbd7 *
";
    let (_dir, path) = fixture("bad.pgn", text);
    let err = load_openings(&path, None, None).unwrap_err();
    match &err {
        OpeningError::BadPgn { game, line, .. } => {
            assert_eq!((*game, *line), (2, 9), "{err}");
        }
        other => panic!("unexpected error {other:?}"),
    }
    let message = err.to_string();
    assert!(message.contains("bad.pgn:9: game 2"), "{message}");
    assert!(message.contains("Qxh7"), "{message}");
}

#[test]
fn pgn_bad_fen_tag_and_empty_game_are_errors() {
    let text = "[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n";
    let (_dir, path) = fixture("fen.pgn", text);
    let err = load_openings(&path, None, None).unwrap_err();
    assert_eq!(err.line(), Some(1), "{err}");
    assert!(err.to_string().contains("FEN"), "{err}");

    let text = "1. e4 *\n\n[Event \"no moves\"]\n\n*\n";
    let (_dir, path) = fixture("nomoves.pgn", text);
    let err = load_openings(&path, None, None).unwrap_err();
    assert!(
        matches!(
            err,
            OpeningError::BadPgn {
                game: 2,
                line: 3,
                ..
            }
        ),
        "{err}"
    );

    let text = "[Variant \"Atomic\"]\n\n1. e4 *\n";
    let (_dir, path) = fixture("variant.pgn", text);
    assert!(load_openings(&path, None, None).is_err());
}

/// Suffixes python-chess reads (`e6++` as `e6`, `!?`, `+`, `#`, castling
/// with zeros, move numbers glued to moves) are read as it reads them.
#[test]
fn pgn_suffixes_and_annotations_are_read_as_python_chess_reads_them() {
    let text = "1. e4 e6++ 2. e5 d5!? 3.exd6+? Bxd6 $5 4. Nf3 Nf6 5. Be2 0-0 6. O-O!! *\n\
                \n1. f3 e5 2. g4 Qh4# 0-1\n";
    let (_dir, path) = fixture("suffixes.pgn", text);
    let openings = load_openings(&path, None, None).unwrap();
    assert_eq!(
        moves(&openings[0]),
        ["e2e4", "e7e6", "e4e5", "d7d5", "e5d6", "f8d6", "g1f3", "g8f6", "f1e2", "e8g8", "e1g1"]
    );
    assert_eq!(moves(&openings[1]), ["f2f3", "e7e5", "g2g4", "d8h4"]);
}

/// Tokens pgn-reader cannot read are skipped, as python-chess skips them;
/// a skipped move shifts the moves after it to the other side, and the
/// first of them that no longer replays refuses the game with file, line,
/// game and that move. A null move is refused itself.
#[test]
fn pgn_unreadable_tokens_are_skipped_and_shifted_moves_refused() {
    for (refused_at, game_text) in [
        (Some("Nc6"), "1. e4 e5 2. ♘f3 Nc6 *"),
        (Some("Nc6"), "1. e4 e5\n2. xyz Nc6 *"),
        (Some("e5"), "1. e4/ e5 *"),
        (Some("--"), "1. e4 -- 2. d4 *"),
        (None, "1. e4 + e5 *"),
        (None, "1. e4 } e5 *"),
    ] {
        let text = format!("[Event \"ok\"]\n\n1. d4 *\n\n[Event \"bad\"]\n\n{game_text}\n");
        let (_dir, path) = fixture("tokens.pgn", &text);
        let Some(token) = refused_at else {
            // Nothing shifted: the game is e4 e5.
            let openings = load_openings(&path, None, None).unwrap();
            assert_eq!(moves(&openings[1]), ["e2e4", "e7e5"], "{game_text}");
            continue;
        };
        let err = load_openings(&path, None, None).unwrap_err();
        let line = 7 + game_text[..game_text.find(token).unwrap()]
            .matches('\n')
            .count();
        match &err {
            OpeningError::BadPgn {
                game,
                line: l,
                reason,
                ..
            } => {
                assert_eq!((*game, *l), (2, line), "{err}");
                assert!(reason.contains(&format!("'{token}'")), "{err}");
            }
            other => panic!("{token}: unexpected {other:?}"),
        }
        assert!(err
            .to_string()
            .starts_with(&format!("{}:{line}: game 2: ", path.display())));
        // Skipping bad games keeps the good one and loses no moves of it.
        let options = LoadOptions {
            skip_bad: true,
            ..LoadOptions::default()
        };
        let loaded = load_openings_with(&path, &options).unwrap();
        assert_eq!(loaded.openings.len(), 1);
        assert_eq!(moves(&loaded.openings[0]), ["d2d4"]);
        assert_eq!(loaded.skipped.len(), 1);
    }
}

/// Broken structure is refused too, with the line it starts on.
#[test]
fn pgn_broken_structure_is_refused_with_its_line() {
    for (text, line, what) in [
        ("1. e4 {never closed\n e5 *\n", 1, "comment"),
        ("1. e4 (1. d4\n e5 *\n", 2, "variation"),
        ("1. e4 ) e5 *\n", 1, "')'"),
        ("[Event \"x\"]\n[Ev ent \"x\"]\n\n1. e4 *\n", 2, "tag"),
        ("1. e4 e5 * 2. Nf3 *\n", 1, "after the result"),
    ] {
        let (_dir, path) = fixture("broken.pgn", text);
        let err = load_openings(&path, None, None).unwrap_err();
        assert_eq!(err.line(), Some(line), "{text}: {err}");
        assert!(err.to_string().contains(what), "{text}: {err}");
    }
}

#[test]
fn malformed_pgn_never_panics() {
    let samples = [
        "[Event \"unterminated",
        "{ unterminated comment 1. e4",
        "1. e4 ( ( ( e5",
        "]]]] [[[[ \"\" 1... 0-0-0 O-O-O-O",
        "1. e4 e5 2. Qxf7# Kxf7 *",
        "\u{feff}[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n1. e8=Q *",
        "%escape\n1. Nf3 $999999999999 Nf6 *",
        "1. e4 \u{00bd}-\u{00bd} e5",
    ];
    for text in samples {
        let (_dir, path) = fixture("weird.pgn", text);
        let options = LoadOptions {
            skip_bad: true,
            ..LoadOptions::default()
        };
        // Any outcome but a panic is fine; errors must carry a line.
        if let Err(e) = load_openings(&path, None, None) {
            assert!(
                e.line().is_some() || matches!(e, OpeningError::Empty { .. }),
                "{e:?}"
            );
        }
        let _ = load_openings_with(&path, &options);
    }
}

#[test]
fn random_order_is_seeded_and_uses_each_opening_once_per_cycle() {
    let n = 37;
    let a = order_openings(n, OpeningOrder::Random, 42, 0);
    assert_eq!(a, order_openings(n, OpeningOrder::Random, 42, 0));
    assert_ne!(a, order_openings(n, OpeningOrder::Random, 43, 0));
    assert_ne!(a, order_openings(n, OpeningOrder::Sequential, 42, 0));
    for start in [0, 5, n, 3 * n + 1] {
        let order = order_openings(n, OpeningOrder::Random, 42, start);
        let mut seen = vec![0; n];
        for &i in &order {
            seen[i] += 1;
        }
        assert!(seen.iter().all(|&c| c == 1), "start {start}: {seen:?}");
        assert_eq!(order[0], a[start % n]);
    }
    assert_eq!(
        order_openings(4, OpeningOrder::Sequential, 9, 1),
        vec![1, 2, 3, 0]
    );
}

#[test]
fn formats_and_orders_deserialize_lowercase() {
    let f: OpeningFormat = serde_yaml::from_str("pgn").unwrap();
    assert_eq!(f, OpeningFormat::Pgn);
    let o: OpeningOrder = serde_yaml::from_str("random").unwrap();
    assert_eq!(o, OpeningOrder::Random);
    assert!(serde_yaml::from_str::<OpeningOrder>("Shuffled").is_err());
    assert_eq!("EPD".parse::<OpeningFormat>().unwrap(), OpeningFormat::Epd);
}

mod generate {
    use karsinta_harness::openings::generate::{generate, write_epd, GenerateConfig};
    use karsinta_harness::openings::{load_openings, Opening};

    fn small_config() -> GenerateConfig {
        GenerateConfig {
            plies: 2,
            max_cp: 60,
            count: 12,
            seed: 5,
            nodes: Some(300),
            ..GenerateConfig::default()
        }
    }

    fn run_with_threads(config: &GenerateConfig, threads: usize) -> Vec<(String, i32)> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let report = pool.install(|| generate(config, &|_| {})).unwrap();
        report
            .positions
            .into_iter()
            .map(|p| (p.fen, p.score_cp))
            .collect()
    }

    #[test]
    fn output_depends_on_seed_not_on_threads() {
        let config = small_config();
        let one = run_with_threads(&config, 1);
        assert_eq!(one.len(), 12);
        assert!(one.iter().all(|(_, cp)| cp.abs() <= 60), "{one:?}");
        assert_eq!(one, run_with_threads(&config, 2));
        let other = GenerateConfig {
            seed: 6,
            ..small_config()
        };
        assert_ne!(one, run_with_threads(&other, 1));
    }

    #[test]
    fn written_suite_loads_back_without_duplicates() {
        let report = generate(&small_config(), &|_| {}).unwrap();
        let mut text = Vec::new();
        write_epd(&report.positions, &mut text).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gen.epd");
        std::fs::write(&path, &text).unwrap();
        let loaded = load_openings(&path, None, None).unwrap();
        assert_eq!(loaded.len(), 12);
        let mut fens: Vec<_> = loaded.iter().map(|o| o.fen.clone().unwrap()).collect();
        fens.sort();
        fens.dedup();
        assert_eq!(fens.len(), 12);
        // 2 plies from the start: White to move again, at move 2.
        for fen in &fens {
            let fields: Vec<&str> = fen.split(' ').collect();
            assert_eq!((fields[1], fields[5]), ("w", "2"), "{fen}");
        }
    }

    #[test]
    fn scores_are_from_whites_view() {
        // Black has no queen: every position after 1 or 2 plies is clearly
        // better for White whichever side is to move.
        let root = Opening {
            fen: Some("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into()),
            moves: vec![],
            id: 0,
        };
        for plies in [1, 2] {
            let config = GenerateConfig {
                plies,
                max_cp: 5000,
                count: 8,
                roots: vec![root.clone()],
                ..small_config()
            };
            let report = generate(&config, &|_| {}).unwrap();
            assert_eq!(report.positions.len(), 8);
            assert!(
                report.positions.iter().all(|p| p.score_cp > 300),
                "plies {plies}: {:?}",
                report.positions
            );
            // And none of them is balanced.
            let balanced = GenerateConfig {
                max_cp: 100,
                ..config
            };
            assert!(generate(&balanced, &|_| {}).unwrap().positions.is_empty());
        }
    }
}

/// `openings generate --variant chess960|dfrc`: Chess960 start positions,
/// scored like the standard ones, as X-FEN (or Shredder-FEN).
mod generate_chess960 {
    use std::collections::HashSet;

    use karsinta_harness::formats::fen::{position_fen, shredder_fen};
    use karsinta_harness::openings::generate::{generate, GenerateConfig, StartSet};
    use karsinta_harness::variant::{chess960_start, parse_position, Variant};

    fn config(starts: StartSet, seed: u64) -> GenerateConfig {
        GenerateConfig {
            plies: 0,
            max_cp: 400,
            count: 16,
            seed,
            nodes: Some(200),
            starts,
            ..GenerateConfig::default()
        }
    }

    fn fens(config: &GenerateConfig) -> Vec<String> {
        let report = generate(config, &|_| {}).unwrap();
        report.positions.into_iter().map(|p| p.fen).collect()
    }

    /// The back ranks (White's, Black's) of a start position's FEN, both
    /// written as White's.
    fn ranks(fen: &str) -> (String, String) {
        let board: Vec<&str> = fen.split(' ').next().unwrap().split('/').collect();
        (board[7].to_string(), board[0].to_ascii_uppercase())
    }

    #[test]
    fn chess960_starts_are_legal_deterministic_and_seeded() {
        let arrays: HashSet<String> = (0..960)
            .map(|id| ranks(&position_fen(&chess960_start(id, id))).0)
            .collect();
        for starts in [StartSet::Chess960, StartSet::Dfrc] {
            let a = fens(&config(starts, 1));
            assert_eq!(a.len(), 16, "{starts:?}");
            assert_eq!(
                a,
                fens(&config(starts, 1)),
                "{starts:?}: same seed, same file"
            );
            assert_ne!(a, fens(&config(starts, 2)), "{starts:?}");
            let mut differ = 0;
            for fen in &a {
                let pos = parse_position(fen, Variant::Chess960).unwrap();
                assert_eq!(position_fen(&pos), *fen, "stored as X-FEN");
                assert!(fen.contains("/pppppppp/8/8/8/8/PPPPPPPP/"), "{fen}");
                assert!(fen.ends_with(" w KQkq - 0 1"), "{fen}");
                let (white, black) = ranks(fen);
                assert!(arrays.contains(&white) && arrays.contains(&black), "{fen}");
                differ += usize::from(white != black);
                // Shredder-FEN names the same position.
                let shredder = shredder_fen(&pos);
                assert!(!shredder.contains("KQkq"), "{shredder}");
                assert_eq!(parse_position(&shredder, Variant::Chess960).unwrap(), pos);
            }
            match starts {
                StartSet::Chess960 => assert_eq!(differ, 0),
                _ => assert!(differ > 8, "double Chess960 draws each side: {a:?}"),
            }
        }
        // Plies from the starts: moves are written king-takes-rook.
        let deeper = GenerateConfig {
            plies: 2,
            method: karsinta_harness::openings::generate::CandidateMethod::Playout,
            ..config(StartSet::Chess960, 3)
        };
        let report = generate(&deeper, &|_| {}).unwrap();
        assert_eq!(report.positions.len(), 16);
        for p in &report.positions {
            assert_eq!(p.moves.len(), 2);
            assert!(
                parse_position(&p.fen, Variant::Chess960).is_ok(),
                "{}",
                p.fen
            );
        }
    }

    #[test]
    fn cli_writes_a_chess960_suite_that_checks_as_chess960() {
        let dir = tempfile::tempdir().unwrap();
        for (variant, extra) in [("dfrc", None), ("chess960", Some("--shredder-fen"))] {
            let out = dir.path().join(format!("{variant}.epd"));
            let status = std::process::Command::new(env!("CARGO_BIN_EXE_karsinta"))
                .args(["openings", "generate", "--variant", variant, "--plies", "0"])
                .args([
                    "--count", "4", "--nodes", "100", "--max-cp", "500", "--quiet",
                ])
                .args(extra)
                .arg("--out")
                .arg(&out)
                .status()
                .unwrap();
            assert!(status.success(), "{variant}");
            let text = std::fs::read_to_string(&out).unwrap();
            assert_eq!(text.lines().count(), 4, "{text}");
            assert_eq!(text.contains("KQkq"), extra.is_none(), "{text}");
            let check = |variant: &str| {
                std::process::Command::new(env!("CARGO_BIN_EXE_karsinta"))
                    .args(["openings", "check", "--variant", variant])
                    .arg(&out)
                    .output()
                    .unwrap()
            };
            let ok = check("chess960");
            assert!(String::from_utf8_lossy(&ok.stdout).contains(": 4 openings"));
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_karsinta"))
            .args([
                "openings",
                "generate",
                "--shredder-fen",
                "--count",
                "1",
                "--quiet",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--shredder-fen"));
    }
}

#[test]
fn cli_generates_and_checks_a_suite() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen.epd");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_karsinta"))
        .args(["openings", "generate", "--plies", "2", "--count", "5"])
        .args(["--nodes", "200", "--max-cp", "80", "--quiet", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(load_openings(&out, None, None).unwrap().len(), 5);

    let check = std::process::Command::new(env!("CARGO_BIN_EXE_karsinta"))
        .args(["openings", "check"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(check.status.success());
    assert!(String::from_utf8_lossy(&check.stdout).contains(": 5 openings"));

    // A bad suite: exit status 1 and the file and line on stderr.
    let (_bad_dir, bad) = fixture("bad.epd", "4k3/8/8/8/8/8/8/4K3 w - - 0 1\nnonsense\n");
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_karsinta"))
        .args(["openings", "check"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stderr).contains("bad.epd:2: "));
}

#[test]
fn generate_refuses_zero_limits_and_counts_within_after_an_early_stop() {
    for bad in [["--nodes", "0"], ["--depth", "0"], ["--hash-mb", "0"]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_karsinta"))
            .args([
                "openings", "generate", "--plies", "1", "--count", "1", "--quiet",
            ])
            .args(bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(bad[0]),
            "{bad:?}"
        );
    }
    // Every position is within +-30000 cp, so the figure is 100% although
    // the run stops after 2 of the first batch.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_karsinta"))
        .args(["openings", "generate", "--plies", "2", "--count", "2"])
        .args(["--nodes", "50", "--max-cp", "30000", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("100.0% within +-30000 cp"), "{err}");
}

/// Opening files as shipped: gzip and zip (one member), told apart by
/// their bytes, read as the plain file would be; errors name the file and
/// the member.
mod packed {

    use karsinta_harness::config::{MatchConfig, Overrides};
    use karsinta_harness::openings::{fingerprint, load_openings, load_openings_with, LoadOptions};
    use karsinta_harness::run::{run_match, RunOptions};
    use karsinta_harness::variant::Variant;
    use karsinta_test_support::packed::{gzip, zip_of};
    use karsinta_test_support::workspace;

    use super::{moves, PGN};
    use crate::common::{fake_config, run, EPD};

    #[test]
    fn gzip_and_zip_books_load_as_the_plain_files() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let plain = load_openings(&write("s.pgn", PGN.as_bytes()), None, None).unwrap();
        for path in [
            write("s.pgn.gz", &gzip(PGN.as_bytes())),
            write("s.pgn.zip", &zip_of(&[("s.pgn", PGN.as_bytes())])),
            // The member's name tells the format; the archive's does not.
            write(
                "book.zip",
                &zip_of(&[("dir/", b""), ("dir/s.pgn", PGN.as_bytes())]),
            ),
            // Bytes, not names, tell the packing.
            write("renamed.pgn", &gzip(PGN.as_bytes())),
        ] {
            let got = load_openings(&path, None, None).unwrap();
            assert_eq!(got, plain, "{}", path.display());
        }
        assert_eq!(moves(&plain[0])[..2], ["e2e4", "e7e5"]);
        let epd = load_openings(&write("e.epd.gz", &gzip(EPD.as_bytes())), None, None).unwrap();
        assert_eq!(epd.len(), 4);
        // A Chess960 book zipped as the shared suites are (Shredder-FEN).
        let frc = std::fs::read(workspace().join("tests/data/chess960/dfrc.epd")).unwrap();
        let options = LoadOptions {
            variant: Variant::Chess960,
            ..LoadOptions::default()
        };
        let zipped = write("DFRC.epd.zip", &zip_of(&[("DFRC.epd", &frc)]));
        assert_eq!(
            load_openings_with(&zipped, &options)
                .unwrap()
                .openings
                .len(),
            8
        );
    }

    #[test]
    fn packed_errors_name_the_file_and_the_member() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let bad = b"4k3/8/8/8/8/8/8/4K3 w - - 0 1\nnonsense\n";
        let path = write("b.zip", &zip_of(&[("inner.epd", bad)]));
        let e = load_openings(&path, None, None).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}/inner.epd:2: ", path.display())),
            "{e}"
        );
        let path = write("b.epd.gz", &gzip(bad));
        let e = load_openings(&path, None, None).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:2: ", path.display())), "{e}");
        let path = write("two.zip", &zip_of(&[("a.epd", bad), ("b.epd", bad)]));
        let e = load_openings(&path, None, None).unwrap_err().to_string();
        assert!(e.contains("two.zip") && e.contains("a.epd, b.epd"), "{e}");
        let path = write("what.zip", &zip_of(&[("notes.txt", bad)]));
        let e = load_openings(&path, None, None).unwrap_err().to_string();
        assert!(
            e.contains("what.zip/notes.txt: unknown opening file extension"),
            "{e}"
        );
        let mut cut = gzip(bad);
        cut.truncate(cut.len() / 2);
        let path = write("cut.epd.gz", &cut);
        let e = load_openings(&path, None, None).unwrap_err().to_string();
        assert!(e.contains("cut.epd.gz: not a readable gzip file"), "{e}");
    }

    /// A match plays from a zipped book; the run records the archive's
    /// checksum, resumes while it is unchanged and refuses it once changed.
    #[test]
    fn a_zipped_book_plays_and_resumes_with_its_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = fake_config(dir.path(), &["--seed", "3"], "");
        let text = std::fs::read_to_string(&cfg).unwrap();
        std::fs::write(&cfg, text.replace("file: open.epd", "file: book.zip")).unwrap();
        let zip = zip_of(&[("open.epd", EPD.as_bytes())]);
        let book = dir.path().join("book.zip");
        std::fs::write(&book, &zip).unwrap();
        let out = dir.path().join("run");
        assert_eq!(run(&cfg, &out, &Overrides::default()).games, 4);
        let recorded = std::fs::read_to_string(out.join("config.yaml")).unwrap();
        assert!(recorded.contains(&fingerprint(&zip)), "{recorded}");
        assert!(recorded.contains("format: epd"), "{recorded}");
        let resume = || {
            let cfg = MatchConfig::load(&out.join("config.yaml"), &Overrides::default()).unwrap();
            let opts = RunOptions {
                out_dir: out.clone(),
                resume: true,
                quiet: true,
                ..RunOptions::default()
            };
            run_match(&cfg, &opts)
        };
        assert_eq!(resume().unwrap().games, 4, "an unchanged archive resumes");
        let other = format!("{EPD}8/8/8/4k3/8/8/8/4K2R w K - 0 1\n");
        std::fs::write(&book, zip_of(&[("open.epd", other.as_bytes())])).unwrap();
        let e = resume().unwrap_err().to_string();
        assert!(e.contains("book.zip") && e.contains("4 openings"), "{e}");
    }
}
