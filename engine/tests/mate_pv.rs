// Mate PVs are the mate: every `info` with `score mate N` has a PV of
// 2N-1 plies (N > 0) or 2N plies (N < 0) that ends in checkmate, as
// fastchess's `-check-mate-pvs` checks, and no PV runs past the end of
// the game.

use std::sync::atomic::AtomicBool;

use karsinta_engine::board::position::GameState;
use karsinta_engine::{Limits, Params, Position, Score, SearchInfo, Searcher};

/// The wrong PVs among `infos` of a search from `pos`, described.
fn wrong_pvs(pos: &Position, infos: &[SearchInfo]) -> Vec<String> {
    let mut wrong = Vec::new();
    for info in infos {
        let mut p = pos.clone();
        let mut past_end = false;
        for mv in &info.pv {
            if p.state() != GameState::Ongoing || p.play_uci(mv).is_err() {
                past_end = true;
                break;
            }
        }
        let ok = match info.score {
            _ if past_end => false,
            Score::Mate(m) => {
                let plies = if m > 0 { 2 * m - 1 } else { -2 * m };
                info.pv.len() as i32 == plies && p.state() == GameState::Checkmate
            }
            Score::Cp(_) => true,
        };
        if !ok {
            let fen = pos.to_fen();
            wrong.push(format!(
                "{fen}: depth {} {:?} pv {:?}",
                info.depth, info.score, info.pv
            ));
        }
    }
    wrong
}

fn search(s: &mut Searcher, pos: &Position, limits: &Limits) -> (Option<String>, Vec<SearchInfo>) {
    let mut infos = Vec::new();
    let r = s.search(pos, limits, &AtomicBool::new(false), &mut |i| {
        infos.push(i.clone())
    });
    (r.best_move, infos)
}

/// Mates in 1 to 5 for either side (the side to move mating or mated),
/// at fixed depths.
#[test]
fn mate_pvs_at_fixed_depth_are_the_mate() {
    let fens = [
        "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1",
        "7k/R7/8/8/8/8/8/1R4K1 b - - 1 1",
        "8/6k1/8/8/8/8/R7/1R4K1 w - - 0 1",
        "8/6k1/8/8/8/8/R7/6K1 w - - 0 1",
        "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1",
        "8/8/8/8/8/2k5/8/K1q5 w - - 0 1",
        "8/8/8/8/3k4/8/1q6/K7 w - - 0 1",
        "k7/8/1K6/8/8/8/8/6Q1 w - - 0 1",
        "k7/8/2K5/8/8/8/8/7R w - - 0 1",
        "8/8/8/3k4/8/8/8/3QK3 b - - 0 1",
    ];
    let mut wrong = Vec::new();
    for fen in fens {
        let pos = Position::from_fen(fen).unwrap();
        for depth in [4, 7, 10, 13] {
            let mut s = Searcher::new(Params::default());
            s.new_game();
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            let (_, infos) = search(&mut s, &pos, &limits);
            wrong.extend(wrong_pvs(&pos, &infos));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The harness's mating games (KQvK, KRvK, a back-rank mate): the engine
/// plays both sides at 4000 nodes a move with one table, as the in-process
/// player does, and every iteration of every move is checked.
#[test]
fn mate_pvs_in_mating_games_are_the_mate() {
    let fens = [
        "8/8/8/4k3/8/8/8/3QK3 w - - 0 1",
        "8/8/3k4/8/8/8/8/R3K3 w - - 0 1",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    ];
    let mut wrong = Vec::new();
    let mut mates = 0;
    for fen in fens {
        let mut s = Searcher::new(Params::default());
        s.new_game();
        let mut pos = Position::from_fen(fen).unwrap();
        for _ in 0..160 {
            if pos.state() != GameState::Ongoing {
                break;
            }
            let limits = Limits {
                nodes: Some(4000),
                ..Limits::default()
            };
            let (best, infos) = search(&mut s, &pos, &limits);
            mates += infos
                .iter()
                .filter(|i| matches!(i.score, Score::Mate(_)))
                .count();
            wrong.extend(wrong_pvs(&pos, &infos));
            pos.play_uci(&best.unwrap()).unwrap();
        }
    }
    assert!(mates > 20, "mates were found and checked: {mates}");
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
