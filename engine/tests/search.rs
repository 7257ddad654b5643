//! Search behaviour: mates under every setting, equivalence of the root
//! drivers, every parameter changing the search, determinism, draws by rule,
//! the stop flag, `go` limits, time management and the cached static eval.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cozy_chess::Board;
use karsinta_engine::bench::ablate::PURE_ALPHA_BETA;
use karsinta_engine::bench::run_bench;
use karsinta_engine::eval::evaluate;
use karsinta_engine::params::{ParamKind, SearchParams};
use karsinta_engine::search::timeman::budget;
use karsinta_engine::search::{SearchResult, Searcher};
use karsinta_engine::{Limits, Score};
use karsinta_engine::{Params, Position};

fn search_with(params: &Params, fen: &str, limits: &Limits) -> SearchResult {
    let mut s = Searcher::new(params.clone());
    s.new_game();
    let pos = Position::from_fen(fen).unwrap();
    s.search(&pos, limits, &AtomicBool::new(false), &mut |_| {})
}

fn depth(d: i32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

fn with(changes: &[(&str, &str)]) -> Params {
    let mut p = Params::default();
    for (n, v) in changes {
        p.set_by_name(n, v).unwrap_or_else(|e| panic!("{e}"));
    }
    p
}

fn pure(algorithm: &str) -> Params {
    let mut p = with(PURE_ALPHA_BETA);
    p.set_by_name("search_algorithm", algorithm).unwrap();
    p
}

/// (FEN, mate in N moves for the side to move).
const MATES: &[(&str, i32)] = &[
    (
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
        2,
    ),
    ("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 2),
    ("6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", 2),
    (
        "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1",
        3,
    ),
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3),
    ("2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1", 3),
    (
        "r1bqr1k1/ppp2pp1/3p4/4n1NQ/2B1PN2/8/P4PPP/b4RK1 w - - 0 1",
        3,
    ),
];

/// A few ordinary positions: opening, sharp middlegame, endgame.
const POSITIONS: &[&str] = &[
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    MATES[6].0,
];

/// Every setting worth checking for mates: each switch flipped, each
/// algorithm, each capture order, no killers.
fn variants() -> Vec<(String, Params)> {
    let mut out = vec![("default".to_string(), Params::default())];
    for s in SearchParams::specs() {
        match s.kind {
            ParamKind::Bool => {
                let mut p = Params::default();
                let flipped = if s.default != 0 { "false" } else { "true" };
                p.set_by_name(&s.name, flipped).unwrap();
                out.push((format!("{}={flipped}", s.name), p));
            }
            ParamKind::Choice(names) => {
                for (i, n) in names.iter().enumerate() {
                    if i as i32 != s.default && *n != "minimax" {
                        let mut p = Params::default();
                        p.set_by_name(&s.name, n).unwrap();
                        out.push((format!("{}={n}", s.name), p));
                    }
                }
            }
            ParamKind::Int => {}
        }
    }
    for (name, value) in [
        ("killer_count", "0"),
        ("killer_count", "4"),
        ("ext_check", "0"),
    ] {
        out.push((format!("{name}={value}"), with(&[(name, value)])));
    }
    out.push(("pure alphabeta".into(), pure("alphabeta")));
    out
}

#[test]
fn every_setting_finds_the_mates() {
    for (label, p) in variants() {
        for &(fen, n) in MATES {
            // Null move and reductions hide quiet sacrifices at the minimal
            // depth (e.g. Morphy's Ra6); a few plies more must find them.
            let r = search_with(&p, fen, &depth(2 * n + 5));
            assert_eq!(r.score, Score::Mate(n), "{label}: {fen} {r:?}");
            let pos = Position::from_fen(fen).unwrap();
            let mv = pos.parse_uci(r.best_move.as_deref().unwrap()).unwrap();
            assert!(pos.board().is_legal(mv));
        }
    }
}

#[test]
fn minimax_finds_the_mates_in_two() {
    let p = with(&[("search_algorithm", "minimax")]);
    for &(fen, n) in MATES.iter().filter(|m| m.1 == 2) {
        let r = search_with(&p, fen, &depth(3));
        assert_eq!(r.score, Score::Mate(n), "{fen} {r:?}");
    }
}

#[test]
fn mated_and_stalemated_roots() {
    let p = Params::default();
    // Fool's mate: white is mated, no move.
    let r = search_with(
        &p,
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        &depth(3),
    );
    assert_eq!((r.best_move, r.score), (None, Score::Mate(0)));
    let r = search_with(&p, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", &depth(3));
    assert_eq!((r.best_move, r.score), (None, Score::Cp(0)));
    // Being mated in one is reported as a negative mate.
    let r = search_with(&p, "k7/8/2K5/8/8/8/8/1Q6 b - - 0 1", &depth(4));
    assert_eq!(
        (r.best_move.as_deref(), r.score),
        (Some("a8a7"), Score::Mate(-1)),
        "{r:?}"
    );
}

#[test]
fn root_drivers_agree_without_pruning() {
    // With every pruning, reduction and extension off (and no TT cutoffs),
    // alpha-beta, PVS and MTD(f) compute the minimax value exactly.
    for fen in POSITIONS.iter().chain(MATES.iter().map(|m| &m.0).take(3)) {
        let d = 4;
        let ab = search_with(&pure("alphabeta"), fen, &depth(d)).score;
        let pvs = search_with(&pure("pvs"), fen, &depth(d)).score;
        let mtdf = search_with(&pure("mtdf"), fen, &depth(d)).score;
        assert_eq!(ab, pvs, "{fen}");
        assert_eq!(ab, mtdf, "{fen}");
        let mm = search_with(&pure("minimax"), fen, &depth(2)).score;
        let ab2 = search_with(&pure("alphabeta"), fen, &depth(2)).score;
        assert_eq!(mm, ab2, "{fen}");
    }
}

#[test]
fn alpha_beta_searches_fewer_nodes_than_minimax() {
    let fen = POSITIONS[0];
    let mm = search_with(&pure("minimax"), fen, &depth(3)).nodes;
    let ab = search_with(&pure("alphabeta"), fen, &depth(3)).nodes;
    let pvs = search_with(&Params::default(), fen, &depth(3)).nodes;
    assert!(ab * 3 < mm, "alphabeta {ab} vs minimax {mm}");
    assert!(pvs < ab, "default {pvs} vs pure alphabeta {ab}");
}

fn total_nodes(p: &Params, d: i32) -> u64 {
    POSITIONS
        .iter()
        .map(|fen| search_with(p, fen, &depth(d)).nodes)
        .sum()
}

/// Parameters left out of the depth-9 node sweep, each with a targeted test
/// of its own: the time manager and contempt act elsewhere than on
/// fixed-depth node counts; the rest act where the four positions' fresh
/// searches do not reach.
const OWN_TEST: &[&str] = &[
    "time_soft_pct",
    "time_hard_pct",
    "time_inc_pct",
    "time_max_pct",
    "time_mtg_soft_min_pct",
    "time_mtg_soft_max_pct",
    "time_mtg_hard_pct",
    "time_movetime_min_pct",
    "time_missing_clock_ms",
    "move_overhead_ms",
    "time_stability",
    "time_unstable_pct",
    "time_stable_pct",
    "time_node_fraction",
    "time_node_base_pct",
    "time_node_scale_pct",
    "time_score_trend",
    "time_score_flat_pct",
    "time_score_per_cp",
    "time_score_max_pct",
    "contempt_cp",
    // Acts only where a null move runs into a mate, which the ordinary
    // positions do not reach at depth 9: mate_threat_extension_changes_the_search.
    "ext_mate_threat",
    // Read history that a fresh search has hardly filled:
    // history_pruning_changes_the_search.
    "history_prune",
    "history_prune_max_depth",
    "history_prune_margin",
];

/// Parameters measured against another setting: the constants of
/// techniques that are off by default, with the setting that switches them
/// on; the aspiration window's growth, which acts only once a search falls
/// outside the first window (narrowed to its minimum for them); and the
/// singular multi-cut, which needs nodes deep enough to be singular.
const NEEDS_SWITCH: &[(&str, &[(&str, &str)])] = &[
    ("aspiration_widen", &[("aspiration_width_cp", "5")]),
    (
        "aspiration_max_width_cp",
        &[("aspiration_width_cp", "5"), ("aspiration_widen", "400")],
    ),
    ("capture_history_divisor", &[("capture_history", "true")]),
    (
        "singular_double_margin_cp",
        &[("ext_singular_double", "16")],
    ),
    ("corr_history_max_cp", &[("corr_history", "true")]),
    ("lmr_deeper_margin_cp", &[("lmr_deeper", "true")]),
    ("probcut_min_depth", &[("probcut", "true")]),
    ("probcut_margin_cp", &[("probcut", "true")]),
    ("probcut_reduction", &[("probcut", "true")]),
    ("futility_margin_cp_d1", &[("futility_lmr", "false")]),
    ("futility_margin_cp_d2", &[("futility_lmr", "false")]),
    ("futility_margin_cp_d3", &[("futility_lmr", "false")]),
    (
        "capture_futility_max_depth",
        &[("capture_futility", "true")],
    ),
    ("capture_futility_base_cp", &[("capture_futility", "true")]),
    (
        "capture_futility_per_ply_cp",
        &[("capture_futility", "true")],
    ),
    ("see_quiet_margin_cp", &[("see_quiet_lmr", "false")]),
    ("qs_see_margin_cp", &[("qs_see_alpha", "true")]),
    ("qs_see_min_cp", &[("qs_see_alpha", "true")]),
    // Few depth-9 nodes reach the singular depth (none with the weights of
    // `Bench: 1088566`); a lower one gives the multi-cut candidates.
    ("singular_multicut", &[("singular_min_depth", "6")]),
    // Likewise the negative extension (none with the weights of
    // `Bench: 1069621`).
    ("singular_negative16", &[("singular_min_depth", "6")]),
    // Likewise the double extension's largest value (none at `Bench: 785092`).
    ("ext_singular_double", &[("singular_min_depth", "6")]),
];

/// Parameters that leave the node count at depth 9 unchanged, as `name=value`.
fn unchanged_parameters(ints: bool) -> Vec<String> {
    let d = 9;
    let default_reference = total_nodes(&Params::default(), d);
    let mut unchanged = Vec::new();
    for s in SearchParams::specs() {
        if OWN_TEST.contains(&s.name.as_str()) {
            continue;
        }
        let mut base = Params::default();
        let mut reference = default_reference;
        if let Some((_, settings)) = NEEDS_SWITCH.iter().find(|(n, _)| *n == s.name) {
            for (name, value) in *settings {
                base.set_by_name(name, value).unwrap();
            }
            reference = total_nodes(&base, d);
        }
        let values: Vec<i32> = match s.kind {
            ParamKind::Bool if !ints => vec![1 - s.default],
            ParamKind::Choice(names) if !ints => (0..names.len() as i32)
                .filter(|&v| v != s.default && names[v as usize] != "minimax")
                .collect(),
            // Either end of the range must change something.
            ParamKind::Int if ints => [s.min, s.max]
                .into_iter()
                .filter(|&v| v != s.default)
                .collect(),
            _ => vec![],
        };
        let same: Vec<i32> = values
            .iter()
            .copied()
            .filter(|&v| {
                let mut p = base.clone();
                p.set_by_name(&s.name, &s.format_value(v)).unwrap();
                total_nodes(&p, d) == reference
            })
            .collect();
        let changed = if ints {
            same.len() < values.len()
        } else {
            same.is_empty()
        };
        if !changed {
            unchanged.extend(
                same.iter()
                    .map(|&v| format!("{}={}", s.name, s.format_value(v))),
            );
        }
    }
    unchanged
}

#[test]
fn every_search_switch_changes_the_search() {
    let unchanged = unchanged_parameters(false);
    assert!(unchanged.is_empty(), "no effect on nodes: {unchanged:?}");
}

#[test]
#[ignore = "heavy: every integer constant at depth 9"]
fn every_search_constant_changes_the_search() {
    let unchanged = unchanged_parameters(true);
    assert!(unchanged.is_empty(), "no effect on nodes: {unchanged:?}");
}

#[test]
fn mate_threat_extension_changes_the_search() {
    // Black is a queen up, but White threatens Rd8#: below the root, Black
    // nodes whose null move walks into that mate extend every move.
    let fen = "6k1/5ppp/8/8/8/8/q4PPP/3R2K1 b - - 0 1";
    let plain = with(&[("null_move_qs_checks", "true")]);
    let extended = with(&[("null_move_qs_checks", "true"), ("ext_mate_threat", "16")]);
    // Depth 11: `null_move_static_margin` leaves fewer nodes a null move,
    // and here the first one to be mated comes at depth 10.
    let a = search_with(&plain, fen, &depth(11));
    let b = search_with(&extended, fen, &depth(11));
    // The tree differs.
    assert_ne!(a.nodes, b.nodes);
    // Either way Black keeps its winning material and does not get mated.
    for r in [a, b] {
        assert!(matches!(r.score, Score::Cp(cp) if cp > 300), "{r:?}");
    }
}

#[test]
fn history_pruning_changes_the_search() {
    // The pruning reads history that the four positions' fresh searches
    // hardly fill; the 50 bench positions at depth 8 fill enough.
    let nodes = |changes: &[(&str, &str)]| run_bench(&with(changes), 8).nodes;
    let on = nodes(&[("history_prune", "true")]);
    assert_ne!(on, nodes(&[]));
    // Either end of each constant's range changes something.
    for (name, ends) in [
        ("history_prune_max_depth", ["1", "8"]),
        ("history_prune_margin", ["0", "16384"]),
    ] {
        let changed = ends
            .iter()
            .any(|v| nodes(&[("history_prune", "true"), (name, v)]) != on);
        assert!(changed, "{name}");
    }
}

#[test]
fn contempt_changes_the_value_of_a_draw() {
    // White's only saving move is Kxe2, leaving bare kings: a draw, worth
    // -contempt_cp to the engine; every other move loses the rook ending.
    let fen = "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1";
    for (contempt, want) in [("0", 0), ("50", -50), ("-30", 30)] {
        let r = search_with(&with(&[("contempt_cp", contempt)]), fen, &depth(6));
        assert_eq!(
            (r.best_move.as_deref(), r.score),
            (Some("e1e2"), Score::Cp(want)),
            "{contempt}"
        );
    }
}

#[test]
fn fixed_depth_and_nodes_are_deterministic() {
    let p = Params::default();
    let fen = POSITIONS[1];
    let a = search_with(&p, fen, &depth(8));
    let b = search_with(&p, fen, &depth(8));
    assert_eq!(
        (&a.best_move, a.nodes, a.score),
        (&b.best_move, b.nodes, b.score)
    );
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let a = search_with(&p, fen, &limits);
    let b = search_with(&p, fen, &limits);
    assert_eq!((&a.best_move, a.nodes), (&b.best_move, b.nodes));
    assert!(a.nodes <= 20_000, "{}", a.nodes);
    // The same searcher after new_game repeats itself too.
    let mut s = Searcher::new(p.clone());
    let pos = Position::from_fen(fen).unwrap();
    let stop = AtomicBool::new(false);
    let x = s.search(&pos, &depth(7), &stop, &mut |_| {});
    s.new_game();
    let y = s.search(&pos, &depth(7), &stop, &mut |_| {});
    assert_eq!((x.best_move, x.nodes), (y.best_move, y.nodes));
}

/// The move depth 1 chooses, by a search that cannot be cut short.
fn depth_one_move(fen: &str) -> String {
    search_with(&Params::default(), fen, &depth(1))
        .best_move
        .unwrap()
}

#[test]
fn stopped_search_still_completes_depth_one() {
    let pos = Position::from_fen(POSITIONS[1]).unwrap();
    let mut s = Searcher::new(Params::default());
    let stop = AtomicBool::new(true);
    let mut infos = Vec::new();
    let r = s.search(
        &pos,
        &Limits {
            infinite: true,
            ..Limits::default()
        },
        &stop,
        &mut |i| infos.push(i.depth),
    );
    // Stopped at once, yet the move is depth 1's choice, reported as usual.
    assert_eq!(infos, [1]);
    assert_eq!(r.depth, 1);
    assert_eq!(r.best_move.unwrap(), depth_one_move(POSITIONS[1]));
}

#[test]
fn tiny_budgets_still_complete_depth_one() {
    // Each of these used to stop at the first node and return the first
    // generated move unsearched.
    let tiny = [
        Limits {
            nodes: Some(1),
            ..Limits::default()
        },
        Limits {
            movetime_ms: Some(1),
            ..Limits::default()
        },
        Limits {
            wtime_ms: Some(1),
            btime_ms: Some(1),
            ..Limits::default()
        },
        Limits {
            wtime_ms: Some(40),
            btime_ms: Some(40),
            winc_ms: Some(10),
            binc_ms: Some(10),
            ..Limits::default()
        },
    ];
    for fen in POSITIONS {
        let pos = Position::from_fen(fen).unwrap();
        for limits in &tiny {
            let mut s = Searcher::new(Params::default());
            let mut infos = Vec::new();
            let r = s.search(&pos, limits, &AtomicBool::new(false), &mut |i| {
                infos.push(i.depth)
            });
            assert!(
                r.depth >= 1 && infos.first() == Some(&1),
                "{fen} {limits:?}: {r:?}"
            );
            assert!(pos.parse_uci(r.best_move.as_deref().unwrap()).is_ok());
        }
    }
}

#[test]
fn the_clock_counts_from_the_given_start() {
    // The request arrived long ago: the budget is spent before the search
    // begins, so it stops after the guaranteed first iteration.
    let fen = POSITIONS[0];
    let limits = Limits {
        movetime_ms: Some(60_000),
        start: Some(Instant::now() - Duration::from_secs(120)),
        ..Limits::default()
    };
    let r = search_with(&Params::default(), fen, &limits);
    assert_eq!(r.depth, 1, "{r:?}");
    assert!(r.time_ms >= 120_000, "{r:?}");
}

#[test]
fn go_mate_stops_once_the_mate_is_found() {
    for &(fen, n) in MATES {
        let limits = Limits {
            mate: Some(n),
            ..Limits::default()
        };
        let r = search_with(&Params::default(), fen, &limits);
        assert_eq!(r.score, Score::Mate(n), "{fen}");
        // Stopped right at the iteration that proved it.
        let mut first = 0;
        for d in 1..=r.depth {
            if search_with(&Params::default(), fen, &depth(d)).score == Score::Mate(n) {
                first = d;
                break;
            }
        }
        assert_eq!(r.depth, first, "{fen}");
    }
    // A longer mate than asked for does not stop the search.
    let (fen, n) = MATES[4];
    let limits = Limits {
        mate: Some(n - 1),
        depth: Some(2 * n + 3),
        ..Limits::default()
    };
    assert_eq!(
        search_with(&Params::default(), fen, &limits).depth,
        2 * n + 3
    );
}

#[test]
fn searchmoves_restrict_the_root() {
    let fen = POSITIONS[0];
    let pos = Position::from_fen(fen).unwrap();
    let free = search_with(&Params::default(), fen, &depth(5));
    let others: Vec<_> = pos
        .legal_moves()
        .into_iter()
        .filter(|&m| Some(pos.move_to_uci(m)) != free.best_move)
        .collect();
    let allowed = vec![others[0], others[others.len() - 1]];
    let limits = Limits {
        depth: Some(5),
        searchmoves: allowed.clone(),
        ..Limits::default()
    };
    let r = search_with(&Params::default(), fen, &limits);
    let best = pos.parse_uci(r.best_move.as_deref().unwrap()).unwrap();
    assert!(allowed.contains(&best), "{r:?}");
    assert!(r.pv[0] == r.best_move.clone().unwrap());
    // Illegal moves are ignored; none legal means all moves.
    let limits = Limits {
        depth: Some(5),
        searchmoves: vec!["e2e5".parse().unwrap()],
        ..Limits::default()
    };
    let r = search_with(&Params::default(), fen, &limits);
    assert_eq!(r.best_move, free.best_move);
}

#[test]
fn repetition_in_the_game_history_is_a_draw() {
    // Knights out and back: after f6g8 the start position is on the board
    // for the second time, which the search scores as a draw.
    let mut pos = Position::startpos();
    for m in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
        pos.play_uci(m).unwrap();
    }
    let only = |pos: &Position| Limits {
        depth: Some(2),
        searchmoves: vec![pos.parse_uci("f6g8").unwrap()],
        ..Limits::default()
    };
    let mut s = Searcher::new(Params::default());
    let stop = AtomicBool::new(false);
    let r = s.search(&pos, &only(&pos), &stop, &mut |_| {});
    assert_eq!(r.score, Score::Cp(0));
    // The same board without the history is an ordinary position.
    let fresh = Position::from_fen(&pos.to_fen()).unwrap();
    s.new_game();
    let r = s.search(&fresh, &only(&fresh), &stop, &mut |_| {});
    assert_ne!(r.score, Score::Cp(0));
}

#[test]
fn repetition_through_a_double_push_position_is_found() {
    // White just played d2d4, so the board carries an en-passant square
    // nobody can use. Black's king can only
    // shuttle h8-g8 (the rest of black is locked in); black is a rook and a
    // bishop up, so white shuttles too and the root position comes back
    // four plies later, without the en-passant square: a draw. The search
    // must match it to the root, which is only a repetition by its
    // repetition key, not by its raw hash.
    let fen = "rb5k/p1p3p1/P1P3P1/2Bp4/3P4/8/8/7K b - d3 0 1";
    let r = search_with(&pure("alphabeta"), fen, &depth(5));
    assert_eq!(r.score, Score::Cp(0), "{r:?}");
    // Without the repetition black stays far ahead at this depth.
    let r = search_with(&pure("alphabeta"), fen, &depth(3));
    assert!(matches!(r.score, Score::Cp(cp) if cp > 100), "{r:?}");
}

#[test]
fn fifty_move_rule_does_not_hide_a_mate_in_quiescence() {
    // Qg7 mates on the 100th ply. Without the check extension the mated
    // node is a quiescence node, which must see the mate before the draw.
    let fen = "7k/5Q2/6K1/8/8/8/8/8 w - - 99 100";
    let r = search_with(&with(&[("ext_check", "0")]), fen, &depth(1));
    assert_eq!(r.score, Score::Mate(1), "{r:?}");
    // A quiet move on the 100th ply is a draw all the same.
    let fen = "7k/8/8/8/8/8/8/K4Q2 w - - 99 100";
    let r = search_with(&with(&[("ext_check", "0")]), fen, &depth(1));
    assert_eq!(r.score, Score::Cp(0), "{r:?}");
}

#[test]
fn tt_switch_turns_the_table_off() {
    let fen = POSITIONS[1];
    let pos = Position::from_fen(fen).unwrap();
    let stop = AtomicBool::new(false);
    for on in [true, false] {
        let p = with(&[("tt", if on { "true" } else { "false" })]);
        let mut s = Searcher::new(p);
        s.search(&pos, &depth(6), &stop, &mut |_| {});
        assert_eq!(s.tt_entry(pos.board()).is_some(), on);
    }
    // Off is more than no cutoffs: move ordering and ETC lose the table too.
    let off = search_with(&with(&[("tt", "false")]), fen, &depth(6)).nodes;
    let no_cutoffs = search_with(&with(&[("tt_cutoffs", "false")]), fen, &depth(6)).nodes;
    assert_ne!(off, no_cutoffs);
}

#[test]
fn clock_search_returns_within_the_hard_limit() {
    let p = Params::default();
    let limits = Limits {
        wtime_ms: Some(1000),
        winc_ms: Some(10),
        btime_ms: Some(1000),
        binc_ms: Some(10),
        ..Limits::default()
    };
    for fen in POSITIONS {
        let pos = Position::from_fen(fen).unwrap();
        let hard = budget(&limits, pos.board().side_to_move(), &p.search)
            .hard_ms
            .unwrap();
        let r = search_with(&p, fen, &limits);
        // The search stops itself at the hard limit; the slack only absorbs
        // a busy machine descheduling the thread (in games the move
        // overhead covers the same).
        let slack = 50;
        assert!(
            r.time_ms <= hard + slack,
            "{fen}: {} ms > hard limit {hard} ms + {slack}",
            r.time_ms
        );
        assert!(r.best_move.is_some() && r.depth >= 1);
    }
}

#[test]
fn info_lines_are_reported_per_iteration() {
    let p = Params::default();
    let pos = Position::from_fen(POSITIONS[0]).unwrap();
    let mut s = Searcher::new(p);
    let mut seen = Vec::new();
    let r = s.search(&pos, &depth(6), &AtomicBool::new(false), &mut |i| {
        seen.push((i.depth, i.nodes, i.pv.clone()))
    });
    assert_eq!(
        seen.iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert!(seen.windows(2).all(|w| w[0].1 <= w[1].1));
    assert_eq!(seen.last().unwrap().2, r.pv);
    assert_eq!(r.pv[0], r.best_move.clone().unwrap());
    // The PV is a legal line.
    let mut b = pos.board().clone();
    for m in &r.pv {
        let mv = cozy_chess::util::parse_uci_move(&b, m).unwrap();
        assert!(b.is_legal(mv), "{m} in {b}");
        b.play_unchecked(mv);
    }
}

/// Every position within `plies` of `board`, with duplicates.
fn tree(board: &Board, plies: u32, out: &mut Vec<Board>) {
    out.push(board.clone());
    if plies == 0 {
        return;
    }
    board.generate_moves(|pm| {
        for mv in pm {
            let mut child = board.clone();
            child.play_unchecked(mv);
            tree(&child, plies - 1, out);
        }
        false
    });
}

/// Check every cached static eval near the root against a fresh evaluation
/// under `p`; returns how many entries were checked.
fn check_cached_evals(s: &Searcher, p: &Params, root: &Board) -> usize {
    let mut boards = Vec::new();
    tree(root, 2, &mut boards);
    let mut checked = 0;
    for b in &boards {
        // In check there is no static eval; the entry holds a placeholder.
        if !b.checkers().is_empty() {
            continue;
        }
        if let Some(hit) = s.tt_entry(b) {
            assert_eq!(hit.eval, evaluate(b, &p.eval), "{b}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn cached_static_evals_match_a_fresh_evaluation() {
    // The TT's eval feeds stand pat and every eval-based pruning decision.
    let stop = AtomicBool::new(false);
    let mut total = 0;
    for fen in POSITIONS {
        let pos = Position::from_fen(fen).unwrap();
        let p = Params::default();
        let mut s = Searcher::new(p.clone());
        s.search(&pos, &depth(7), &stop, &mut |_| {});
        let checked = check_cached_evals(&s, &p, pos.board());
        // A forcing position's tree is small: few entries, but some.
        assert!(checked > 0, "{fen}: no entries");
        total += checked;
        // New weights: entries cached under the old ones must not survive.
        let mut q = p.clone();
        q.set_int("material_knight_mg", p.eval.material_knight.0 as i64 + 40)
            .unwrap();
        q.set_int("tempo_mg", 0).unwrap();
        s.set_params(q.clone());
        s.search(&pos, &depth(3), &stop, &mut |_| {});
        check_cached_evals(&s, &q, pos.board());
    }
    assert!(total > 100, "only {total} entries checked");
}

#[test]
fn a_failed_hash_resize_keeps_the_table() {
    let mut s = Searcher::new(Params::default());
    s.set_hash_mb(2);
    assert_eq!(s.hash_mb(), 2);
    assert!(s.try_set_hash_mb(usize::MAX >> 4).is_err());
    assert_eq!(s.hash_mb(), 2);
    let pos = Position::startpos();
    let r = s.search(&pos, &depth(4), &AtomicBool::new(false), &mut |_| {});
    assert_eq!(r.depth, 4);
}

#[test]
fn deep_search_fits_a_small_thread_stack() {
    // Long forcing lines (checks, IID and singular searches nested at one
    // ply) must not overflow a modest stack: here 1 MiB, half of Rust's
    // default for spawned threads.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let limits = Limits {
                nodes: Some(60_000),
                ..Limits::default()
            };
            for fen in [
                "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
                "6k1/5ppp/8/8/8/8/q4PPP/1Q4K1 w - - 0 1",
            ] {
                let r = search_with(&Params::default(), fen, &limits);
                assert!(r.best_move.is_some());
            }
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn quiet_leaf_plays_out_the_quiescence_pv() {
    let p = Params::default();
    let mut s = Searcher::with_hash_mb(p.clone(), 1);
    // The undefended queen is taken; the leaf is after the capture.
    let b: Board = "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1".parse().unwrap();
    let leaf = s.quiet_leaf(&b);
    assert_eq!(leaf.pv.len(), 1, "{:?}", leaf.pv);
    assert_eq!(format!("{}", leaf.board), "4k3/8/8/3R4/8/8/8/4K3 b - - 0 1");
    assert_eq!(leaf.score, -evaluate(&leaf.board, &p.eval));
    // A quiet position is its own leaf, scored by the static evaluation.
    let quiet: Board = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        .parse()
        .unwrap();
    let q = s.quiet_leaf(&quiet);
    assert!(q.pv.is_empty());
    assert_eq!(q.score, evaluate(&quiet, &p.eval));
}

#[test]
fn quiet_leaf_score_is_the_leaf_eval_and_does_not_depend_on_history() {
    let p = Params::default();
    let fens = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
        "2r2rk1/1bqnbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 0 13",
    ];
    let mut fresh = Searcher::with_hash_mb(p.clone(), 1);
    let mut used = Searcher::new(p.clone());
    let stop = AtomicBool::new(false);
    for fen in fens {
        let b: Board = fen.parse().unwrap();
        let a = fresh.quiet_leaf(&b);
        // A searcher with a full TT and history gives the same leaf.
        used.search(
            &Position::from_fen(fen).unwrap(),
            &depth(6),
            &stop,
            &mut |_| {},
        );
        let c = used.quiet_leaf(&b);
        assert_eq!((a.pv.clone(), a.score), (c.pv, c.score), "{fen}");
        if !a.board.checkers().is_empty() {
            // Only a mate ends the PV in check (no stand pat in check).
            assert!(
                matches!(Score::from_internal(a.score), Score::Mate(1)),
                "{fen}"
            );
            assert_eq!(a.board.status(), cozy_chess::GameStatus::Won, "{fen}");
            continue;
        }
        // The PV's leaf is where the score comes from.
        let sign = if a.pv.len().is_multiple_of(2) { 1 } else { -1 };
        assert_eq!(a.score, sign * evaluate(&a.board, &p.eval), "{fen}");
        // Resolving the leaf again changes nothing (it is quiet).
        let again = fresh.quiet_leaf(&a.board);
        assert!(again.pv.is_empty(), "{fen}: {:?}", again.pv);
    }
}
