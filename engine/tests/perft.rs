//! Perft suite from `tests/data/perft.epd` (`FEN ;D1 n ;D2 n ...`). The
//! default run checks every position up to a small leaf budget; the ignored
//! test checks every depth in the file (run in release). The Chess960 suite
//! `tests/data/perft960.epd` (counts from python-chess) runs in full.

use karsinta_engine::board::perft::{perft, perft_divide};
use karsinta_engine::Position;

struct Case {
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn suite() -> Vec<Case> {
    parse_suite("perft.epd", include_str!("data/perft.epd"))
}

fn parse_suite(name: &str, text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim().to_string();
        let counts = parts
            .map(|p| {
                let mut f = p.split_whitespace();
                let d = f
                    .next()
                    .and_then(|d| d.strip_prefix('D'))
                    .and_then(|d| d.parse().ok());
                let n = f.next().and_then(|n| n.parse().ok());
                match (d, n) {
                    (Some(d), Some(n)) => (d, n),
                    _ => panic!("{name} line {}: bad field '{p}'", lineno + 1),
                }
            })
            .collect::<Vec<_>>();
        assert!(!counts.is_empty(), "{name} line {}: no counts", lineno + 1);
        cases.push(Case { fen, counts });
    }
    cases
}

fn check(max_leaves: u64) -> usize {
    let mut checked = 0;
    for case in suite() {
        let pos = Position::from_fen(&case.fen).unwrap_or_else(|e| panic!("{e}"));
        for &(depth, expected) in &case.counts {
            if expected > max_leaves {
                continue;
            }
            assert_eq!(
                perft(pos.board(), depth),
                expected,
                "{} depth {depth}",
                case.fen
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn perft_suite_quick() {
    let cases = suite();
    assert!(cases.len() >= 30, "suite has {} positions", cases.len());
    let checked = check(60_000);
    assert!(checked >= 100, "only {checked} checks ran");
    // Every position gets at least one check, even those listed only deep.
    for case in &cases {
        let pos = Position::from_fen(&case.fen).unwrap();
        let &(depth, expected) = case.counts.iter().min_by_key(|(_, n)| *n).unwrap();
        if expected <= 2_000_000 {
            assert_eq!(perft(pos.board(), depth), expected, "{}", case.fen);
        }
    }
}

#[test]
#[ignore = "deep perft: run in release"]
fn perft_suite_deep() {
    check(u64::MAX);
}

#[test]
fn divide_matches_total_and_uses_standard_castling() {
    let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let d = perft_divide(pos.board(), 3);
    assert_eq!(d.iter().map(|(_, n)| n).sum::<u64>(), 13744);
    let names: Vec<String> = d.iter().map(|(m, _)| pos.move_to_uci(*m)).collect();
    assert!(names.contains(&"e1g1".to_string()) && names.contains(&"e1c1".to_string()));
    assert!(!names.contains(&"e1h1".to_string()));
}

#[test]
fn chess960_perft_agrees_with_python_chess() {
    let cases = parse_suite("perft960.epd", include_str!("data/perft960.epd"));
    assert_eq!(cases.len(), 14);
    for case in cases {
        let pos = Position::from_fen_chess960(&case.fen).unwrap_or_else(|e| panic!("{e}"));
        for (depth, expected) in case.counts {
            assert_eq!(
                perft(pos.board(), depth),
                expected,
                "{} depth {depth}",
                case.fen
            );
        }
    }
}

#[test]
fn chess960_divide_writes_castling_king_takes_rook() {
    let pos = Position::from_fen_chess960("rk2r2r/pppppppp/8/8/8/8/PPPPPPPP/RK2R2R w EQeq - 0 1")
        .unwrap();
    let names: Vec<String> = perft_divide(pos.board(), 1)
        .iter()
        .map(|(m, _)| pos.move_to_uci(*m))
        .collect();
    // Short with the inner e1 rook (the h1 rook has no right), long with a1.
    assert!(names.contains(&"b1e1".to_string()) && names.contains(&"b1a1".to_string()));
    assert!(
        !names.iter().any(|n| n == "b1g1" || n == "b1h1"),
        "{names:?}"
    );
}
