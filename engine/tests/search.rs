//! Search behaviour: mates under every setting, equivalence of the root
//! drivers, every parameter changing the search, determinism, the stop flag
//! and time management.

use std::sync::atomic::AtomicBool;

use cozy_chess::Board;
use karsinta_engine::ablate::PURE_ALPHA_BETA;
use karsinta_engine::params::{ParamKind, SearchParams};
use karsinta_engine::search::{Limits, Score, SearchResult, Searcher};
use karsinta_engine::timeman::budget;
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

/// Parameters whose effect is not on fixed-depth node counts; each has its
/// own targeted test.
const NOT_NODE_COUNT: &[&str] = &[
    "time_soft_pct",
    "time_hard_pct",
    "move_overhead_ms",
    "contempt_cp",
];

/// Parameters that leave the node count at depth 9 unchanged, as `name=value`.
fn unchanged_parameters(ints: bool) -> Vec<String> {
    let d = 9;
    let reference = total_nodes(&Params::default(), d);
    let mut unchanged = Vec::new();
    for s in SearchParams::specs() {
        if NOT_NODE_COUNT.contains(&s.name.as_str()) {
            continue;
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
                let mut p = Params::default();
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

#[test]
fn stopped_search_still_returns_a_legal_move() {
    let p = Params::default();
    let pos = Position::from_fen(POSITIONS[1]).unwrap();
    let mut s = Searcher::new(p);
    let stop = AtomicBool::new(true);
    let r = s.search(
        &pos,
        &Limits {
            infinite: true,
            ..Limits::default()
        },
        &stop,
        &mut |_| {},
    );
    let mv = pos.parse_uci(r.best_move.as_deref().unwrap()).unwrap();
    assert!(pos.board().is_legal(mv));
    assert!(r.nodes < 1000, "{}", r.nodes);
    // One node of budget: still a move.
    let r = s.search(
        &pos,
        &Limits {
            nodes: Some(1),
            ..Limits::default()
        },
        &AtomicBool::new(false),
        &mut |_| {},
    );
    assert!(r.best_move.is_some());
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
        assert!(
            r.time_ms <= hard,
            "{fen}: {} ms > hard limit {hard} ms",
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

#[test]
fn incremental_hash_matches_recompute() {
    // The TT key is cozy-chess's incremental hash; check it against a hash
    // recomputed from the FEN along pseudo-random games.
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for fen in POSITIONS {
        let mut b: Board = fen.parse().unwrap();
        for _ in 0..80 {
            let mut moves = Vec::new();
            b.generate_moves(|pm| {
                moves.extend(pm);
                false
            });
            if moves.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            b.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
            let fresh: Board = b.to_string().parse().unwrap();
            assert_eq!(b.hash(), fresh.hash(), "{b}");
        }
    }
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
