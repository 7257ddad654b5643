//! `-draw` with fastchess's counter: the games karsinta-engine plays at
//! fixed nodes end by draw adjudication exactly at the ply where
//! fastchess's `DrawTracker`, recomputed here from the PGN's moves and
//! score comments, first allows it.

use std::path::Path;
use std::process::Command;

use karsinta_harness::formats::pgn_write::{split_games, tag_value};
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Position};

use crate::common::{EPD, KARSINTA};

/// fastchess's `-draw movenumber= movecount= score=`.
struct Draw {
    move_number: u32,
    move_count: u32,
    score: i32,
}

/// A game's moves with the score of each (`None`: no score, `Some(None)`
/// in the inner option: a mate score).
fn moves_and_scores(game: &str) -> Vec<(String, Option<Option<i32>>)> {
    let text: String = game
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out: Vec<(String, Option<Option<i32>>)> = Vec::new();
    let mut rest = text.as_str();
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[1..];
        } else if c == '{' {
            let end = rest.find('}').unwrap();
            let comment = &rest[1..end];
            rest = &rest[end + 1..];
            // A move's comment (`+0.31/12 0.052s`); the last one is the reason.
            let first = comment.split_whitespace().next().unwrap_or("");
            let score = first.split('/').next().unwrap_or("");
            let parsed = if score.contains('M') {
                Some(None)
            } else if score.contains('.') && score.len() > 1 {
                score.replace('.', "").parse::<i32>().ok().map(Some)
            } else {
                None
            };
            if let Some(last) = out.last_mut() {
                if last.1.is_none() {
                    last.1 = parsed;
                }
            }
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let word = &rest[..end];
            rest = &rest[end..];
            let is_number = word
                .trim_end_matches('.')
                .chars()
                .all(|c| c.is_ascii_digit());
            let is_result = matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*");
            if !is_number && !is_result {
                out.push((word.to_string(), None));
            }
        }
    }
    out
}

/// The first ply (1-based) after which fastchess's rule draws the game
/// (`reset`: restart the count at captures and pawn moves, as fastchess).
fn fastchess_draw_ply(game: &str, d: &Draw, reset: bool) -> Option<usize> {
    let fen = tag_value(game, "FEN").unwrap();
    let mut pos: Chess = fen
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let mut count = 0;
    for (i, (san, score)) in moves_and_scores(game).into_iter().enumerate() {
        let m = san
            .trim_end_matches(['+', '#'])
            .parse::<San>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
        if reset && pos.halfmoves() == 0 {
            count = 0;
        }
        match score {
            Some(Some(cp)) if cp.abs() <= d.score => count += 1,
            _ => count = 0,
        }
        // fastchess: `fullMoveNumber() - 1 >= move_number`.
        if pos.fullmoves().get() > d.move_number && count >= 2 * d.move_count {
            return Some(i + 1);
        }
    }
    None
}

#[test]
fn draw_adjudication_stops_where_fastchess_would() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("open.epd"), EPD).unwrap();
    let engine = karsinta_test_support::bin("karsinta-engine");
    let rule = Draw {
        move_number: 10,
        move_count: 2,
        score: 60,
    };
    let line = format!(
        "match -engine cmd={} name=one -engine proto=inprocess name=two option.see_prune=false \
         -each tc=inf nodes=400 -openings file=open.epd order=sequential -srand 3 -rounds 4 \
         -concurrency 2 -maxmoves 120 -draw movenumber={} movecount={} score={} --out run --quiet",
        engine.display(),
        rule.move_number,
        rule.move_count,
        rule.score
    );
    let out = Command::new(KARSINTA)
        .args(line.split(' '))
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("-draw"), "no note on -draw now: {stderr}");
    let text = std::fs::read_to_string(Path::new(d).join("run/games.pgn")).unwrap();
    let (mut adjudicated, mut reset_mattered) = (0, 0);
    for game in split_games(&text) {
        let plies: usize = tag_value(game, "PlyCount").unwrap().parse().unwrap();
        let by_draw = game.contains("{Draw by adjudication}");
        let ply = fastchess_draw_ply(game, &rule, true);
        if by_draw {
            adjudicated += 1;
            assert_eq!(ply, Some(plies), "{game}");
        } else {
            // Another end came first, or on that ply (the rules, resignation).
            assert!(ply.is_none_or(|p| p >= plies), "{ply:?} {game}");
        }
        if fastchess_draw_ply(game, &rule, false) != ply {
            reset_mattered += 1;
        }
    }
    assert!(adjudicated > 0, "no game was adjudicated:\n{text}");
    assert!(reset_mattered > 0, "the restarts never mattered:\n{text}");
}
