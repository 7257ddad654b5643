//! Unit tests of the evaluation: symmetry, trace reconstruction, sanity of
//! individual terms on hand-made positions.

use cozy_chess::Board;

use super::weights::{EvalWeights, IDX, S};
use super::*;
use crate::board::mirror::colour_flipped;

/// Varied positions: openings, middlegames, tactics, endgames, drawish
/// material, en passant and castling rights.
pub(super) const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 3",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "2r2rk1/1bqnbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 0 13",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPBN1PP1/R1BQR1K1 b - - 0 13",
    "6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1",
    "8/8/4k3/8/8/2B5/4K3/8 w - - 0 1",
    "8/8/4k3/8/2N1N3/8/4K3/8 b - - 0 1",
    "8/5k2/3b2p1/1p1P4/1P3P2/3B2K1/8/8 w - - 0 1",
    "8/5k2/4b1p1/1p1P4/1P3P2/3B2K1/8/8 w - - 0 1",
    "8/P7/8/8/8/8/6k1/K7 w - - 0 1",
    "8/8/8/8/8/8/P5k1/K7 w - - 0 1",
    "4k3/8/8/8/8/8/8/3QK3 b - - 0 1",
    "3rr1k1/pp3pp1/1qn2n1p/2p5/2P5/1PN2N1P/P3QPP1/3RR1K1 w - - 0 20",
    "r2q1rk1/ppp2ppp/2n1bn2/2bpp3/4P3/2PP1NP1/PP1NBPBP/R2Q1RK1 w - - 0 9",
    "6k1/pp3ppp/8/3R4/8/8/PP3PPP/6K1 b - - 0 30",
    "1k6/1pp5/p7/8/8/P7/1PP5/1K6 w - - 0 40",
    "r1bqk2r/pppp1Npp/2n2n2/2b1p3/2B1P3/8/PPPP1PPP/RNBQK2R b KQkq - 0 5",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "2kr3r/ppp2ppp/2n5/2b1q3/4P1b1/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 12",
    "8/1k6/8/8/3R4/8/8/3rK3 w - - 0 60",
    "8/8/2k5/5p2/5P2/2K5/8/8 b - - 0 50",
    "rnbqkb1r/pp1p1ppp/4pn2/2pP4/2P5/8/PP2PPPP/RNBQKBNR w KQkq c6 0 4",
    "4rrk1/1b3ppp/p7/1p2q3/3Nn3/1B2P3/PP3PPP/2RQ1RK1 b - - 3 22",
];

fn board(fen: &str) -> Board {
    fen.parse()
        .unwrap_or_else(|e| panic!("bad test FEN {fen}: {e:?}"))
}

/// Coefficient of weight `idx` in the default-weight trace of `fen` (0 if
/// the term does not occur).
fn coef(fen: &str, idx: usize) -> i16 {
    trace(&board(fen), &EvalWeights::default())
        .coefs
        .iter()
        .find(|&&(i, _)| i as usize == idx)
        .map_or(0, |&(_, c)| c)
}

/// Checks each (position, weight, expected coefficient) of a term table.
fn assert_coefs(cases: &[(&str, usize, i16)]) {
    for &(fen, idx, expected) in cases {
        assert_eq!(
            coef(fen, idx),
            expected,
            "{}: {fen}",
            EvalWeights::pair_name(idx)
        );
    }
}

fn eval(fen: &str) -> i32 {
    evaluate(&board(fen), &EvalWeights::default())
}

#[test]
fn colour_flip_gives_the_same_score() {
    let w = EvalWeights::default();
    for fen in FENS {
        let b = board(fen);
        let m = colour_flipped(&b);
        assert_ne!(b.side_to_move(), m.side_to_move());
        assert_eq!(evaluate(&b, &w), evaluate(&m, &w), "{fen} vs {m}");
        assert_eq!(evaluate_white(&b, &w), -evaluate_white(&m, &w), "{fen}");
    }
}

#[test]
fn colour_flip_is_an_involution() {
    for fen in FENS {
        let b = board(fen);
        assert_eq!(
            format!("{}", colour_flipped(&colour_flipped(&b))),
            format!("{b}")
        );
    }
}

#[test]
fn trace_reconstructs_the_score() {
    let w = EvalWeights::default();
    for fen in FENS {
        let b = board(fen);
        let t = trace(&b, &w);
        assert_eq!(t.score(&w), evaluate(&b, &w), "{fen}");
        assert_eq!(t.score_white(&w), evaluate_white(&b, &w), "{fen}");
        assert_eq!(t.king_safety(&w), t.nonlinear, "{fen}");
    }
}

#[test]
fn trace_follows_changed_weights() {
    // Re-scoring a trace under other weights must match evaluating with them.
    let mut w = EvalWeights {
        material_knight: S(400, 250),
        ..EvalWeights::default()
    };
    w.king_attacker[3] = S(60, 30);
    w.pawn_storm[1] = S(-40, -10);
    w.psqt_king[6] = S(50, -50);
    w.winnable = LIVE_WINNABLE;
    let base = EvalWeights::default();
    for fen in FENS {
        let b = board(fen);
        let t = trace(&b, &base);
        assert_eq!(t.score(&w), evaluate(&b, &w), "{fen}");
    }
}

#[test]
fn trace_is_sparse_and_counts_material() {
    let w = EvalWeights::default();
    let t = trace(&board("4k3/8/8/8/8/8/8/3QK3 b - - 0 1"), &w);
    let coef = |idx: usize| {
        t.coefs
            .iter()
            .find(|&&(i, _)| i as usize == idx)
            .map(|&(_, c)| c)
    };
    assert_eq!(coef(IDX.material_queen), Some(1));
    assert_eq!(
        coef(IDX.material_pawn),
        None,
        "zero coefficients are left out"
    );
    assert_eq!(coef(IDX.tempo), Some(-1), "Black to move");
    assert_eq!(t.phase, 4);
    assert!(
        t.coefs.windows(2).all(|p| p[0].0 < p[1].0),
        "sorted by index"
    );
}

#[test]
fn extra_material_is_good() {
    let start = eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert!(start.abs() < 40, "start position roughly equal: {start}");
    let no_black_queen = eval("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert!(no_black_queen > start + 700, "{no_black_queen}");
    let no_white_knight = eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1");
    assert!(no_white_knight < start - 200, "{no_white_knight}");
}

#[test]
fn advanced_passed_pawn_is_worth_more() {
    let seventh = eval("8/P7/8/8/8/8/6k1/K7 w - - 0 1");
    let second = eval("8/8/8/8/8/8/P5k1/K7 w - - 0 1");
    assert!(seventh > second + 100, "7th {seventh} vs 2nd {second}");
}

#[test]
fn doubled_and_isolated_pawns_are_penalised() {
    let healthy = eval("4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1");
    let doubled = eval("4k3/8/8/8/8/4P3/4P3/4K3 w - - 0 1");
    assert!(doubled < healthy - 20, "doubled {doubled} vs {healthy}");
    let isolated = eval("4k3/8/8/8/8/8/2P1P3/4K3 w - - 0 1");
    assert!(isolated < healthy, "isolated {isolated} vs {healthy}");
}

#[test]
fn drawish_material_is_scaled_down() {
    assert_eq!(eval("8/8/4k3/8/8/2B5/4K3/8 w - - 0 1"), 0, "lone bishop");
    assert_eq!(eval("8/8/4k3/8/2N1N3/8/4K3/8 b - - 0 1"), 0, "two knights");
    let w = EvalWeights::default();
    // Bishops d6 (dark) and d3 (light), then e6 (light) and d3.
    let ocb = board("8/5k2/3b2p1/1p1P4/1P3P2/3B2K1/8/8 w - - 0 1");
    let same = board("8/5k2/4b1p1/1p1P4/1P3P2/3B2K1/8/8 w - - 0 1");
    assert_eq!(trace(&ocb, &w).eg_scale, [64, 64]);
    assert_eq!(trace(&same, &w).eg_scale, [128, 128]);
    let t = trace(&ocb, &w);
    let unscaled = taper(t.linear(&w) + t.nonlinear, t.phase, [128, 128]);
    assert!(
        evaluate_white(&ocb, &w).abs() < unscaled.abs(),
        "{unscaled}"
    );
    // Not scaled: a lone queen or rook still wins, the queen by more. (The
    // imbalance and the winnability sum, both smaller without pawns, put a
    // queen at about 540 and a rook at about 310.)
    let queen = eval("8/8/4k3/8/8/8/3QK3/8 w - - 0 1");
    let rook = eval("8/8/4k3/8/8/8/3RK3/8 w - - 0 1");
    assert!(
        rook > 250 && queen > rook + 200,
        "queen {queen}, rook {rook}"
    );
}

#[test]
fn open_king_is_in_danger() {
    // White's king shelter destroyed, Black's pieces aiming at it.
    let safe = eval("r1b2rk1/pp3ppp/2n1pq2/3p4/3P4/2PBPN2/PP3PPP/R2Q1RK1 w - - 0 1");
    let exposed = eval("r1b2rk1/pp3ppp/2n1pq2/3p4/3P4/2PBPN2/PP3P2/R2Q1RK1 w - - 0 1");
    assert!(exposed < safe - 40, "exposed {exposed} vs safe {safe}");
    let t = trace(
        &board("r1b2rk1/pp3ppp/2n1p3/3p3q/3P2n1/2PBP3/PP3P2/R2Q1RK1 w - - 0 1"),
        &EvalWeights::default(),
    );
    assert!(
        !t.danger[0].is_empty(),
        "attack on the white king is traced"
    );
    assert!(t.nonlinear.0 < 0, "and costs White: {:?}", t.nonlinear);
}

#[test]
fn tempo_is_for_the_side_to_move() {
    // Without the winnability sum, which shrinks so small an edge to zero.
    let w = EvalWeights {
        winnable: [S(0, 0); 8],
        ..EvalWeights::default()
    };
    let white = board("4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1");
    let black = board("4k3/4p3/8/8/8/8/4P3/4K3 b - - 0 1");
    assert_eq!(evaluate(&white, &w), evaluate(&black, &w));
    assert_eq!(
        evaluate_white(&white, &w) - evaluate_white(&black, &w),
        w.tempo.1 * 2
    );
}

#[test]
fn taper_and_penalty_are_odd_symmetric() {
    for s in [S(7, -13), S(-100, 55), S(1, 1), S(0, -1)] {
        for phase in [0, 5, 24] {
            assert_eq!(taper(s, phase, [64, 128]), -taper(-s, phase, [128, 64]));
            assert_eq!(taper(s, phase, [0, 128]), -taper(-s, phase, [128, 0]));
        }
    }
    assert_eq!(king_danger_penalty(S(-50, -50)), S(0, 0));
    assert_eq!(king_danger_penalty(S(720, 200)), S(-720, -10));
}

#[test]
fn extreme_weights_stay_below_mate_scores() {
    // Every scalar at the table's bound: no overflow, bounded, still exact.
    let mut w = EvalWeights::default();
    for i in 0..super::weights::NUM_WEIGHTS {
        *w.pair_mut(i) = S(super::weights::WEIGHT_MAX, super::weights::WEIGHT_MAX);
    }
    for fen in FENS
        .iter()
        .chain(&["k7/8/8/8/8/8/1QQQQQ1Q/2QQQQQK w - - 0 1"])
    {
        let b = board(fen);
        let v = evaluate(&b, &w);
        assert!(v.abs() <= EVAL_LIMIT, "{fen}: {v}");
        assert_eq!(trace(&b, &w).score(&w), v, "{fen}");
    }
}

#[test]
fn the_eval_cache_changes_no_score() {
    // Every position one and two plies from the test positions, through one
    // cache: misses, hits and overwritten slots must all score exactly as
    // without it. Then other weights after a clear.
    let mut boards = Vec::new();
    for fen in FENS {
        let b = board(fen);
        boards.push(b.clone());
        for mv in crate::board::position::legal_moves(&b) {
            let mut c = b.clone();
            c.play_unchecked(mv);
            for mv2 in crate::board::position::legal_moves(&c).into_iter().take(6) {
                let mut d = c.clone();
                d.play_unchecked(mv2);
                boards.push(d);
            }
            boards.push(c);
        }
    }
    // Set-up positions with far more of a kind than a game reaches.
    for fen in [
        "7k/8/8/8/8/8/P7/K7 w - - 0 1",
        "NNNNNNNN/NNNNNNN1/8/8/8/8/8/K6k b - - 0 1",
        "1Q3Qbk/3Q2pp/Q5Q1/Q3Q3/2Q4Q/Q4Q1Q/3Q4/KQ4Q1 w - - 0 1",
    ] {
        boards.push(board(fen));
    }
    let mut cache = EvalCache::new();
    let w = EvalWeights::default();
    for _ in 0..2 {
        for b in &boards {
            assert_eq!(evaluate_cached(b, &w, &mut cache), evaluate(b, &w), "{b}");
        }
    }
    let mut other = EvalWeights {
        pawn_doubled: S(-77, 31),
        ..EvalWeights::default()
    };
    other.passed_pawn[3] = S(5, 400);
    other.imbalance_ours[2] = S(60, -45);
    other.imbalance_theirs[14] = S(-80, 120);
    cache.clear();
    for b in &boards {
        assert_eq!(
            evaluate_cached(b, &other, &mut cache),
            evaluate(b, &other),
            "{b}"
        );
    }
}

#[test]
fn passed_pawn_safety_follows_the_attacks_on_its_path() {
    // (position, relative-rank index of the passer, expected coefficients
    // of passed_safe_path and passed_safe_stop there).
    let cases = [
        // a6 pawn (rank 6, index 4); nothing of Black's reaches a7 or a8.
        ("7k/8/P7/8/8/8/8/K7 w - - 0 1", 4, 1, 0),
        // A black rook on b8 covers a8 but not the stop square a7.
        ("1r5k/8/P7/8/8/8/8/K7 w - - 0 1", 4, 0, 1),
        // A black rook on b7 covers the stop square: neither term.
        ("7k/1r6/P7/8/8/8/8/K7 w - - 0 1", 4, 0, 0),
        // A black rook behind the pawn x-rays its whole path.
        ("7k/8/P7/8/8/8/r7/7K w - - 0 1", 4, 0, 0),
        // Black's passer on a3 (its rank 6) counts negative, mirrored.
        ("k7/8/8/8/8/p7/8/7K b - - 0 1", 4, -1, 0),
        // A passer blocked by its own knight gets neither.
        ("7k/8/N7/P7/8/8/8/K7 w - - 0 1", 3, 0, 0),
    ];
    for (fen, i, path, stop) in cases {
        assert_eq!(coef(fen, IDX.passed_safe_path + i), path, "path: {fen}");
        assert_eq!(coef(fen, IDX.passed_safe_stop + i), stop, "stop: {fen}");
    }
}

#[test]
fn piece_and_threat_terms_count_what_they_describe() {
    // (position, weight index, expected coefficient from White's view).
    let cases = [
        // Knight on d4 behind the d5 pawn; bishop on c1 has none in front.
        (
            "4k3/8/8/3P4/3N4/8/8/2B1K3 w - - 0 1",
            IDX.minor_behind_pawn,
            1,
        ),
        // Black's knight on e5 behind the white e4 pawn counts for Black.
        (
            "4k3/8/8/4n3/4P3/8/8/4K3 w - - 0 1",
            IDX.minor_behind_pawn,
            -1,
        ),
        // Light-squared f1 bishop; of the pawns on d2 to g2, e2 and g2 are
        // light: two on its colour.
        ("4k3/8/8/8/8/8/3PPPP1/4KB2 w - - 0 1", IDX.bishop_pawns, 2),
        // Knight on a8 is seven squares from the king on h1; bishop on g2 one.
        ("N3k3/8/8/8/8/8/6B1/7K w - - 0 1", IDX.king_protector, 8),
        // Rook on a1 behind the a5 passer; a rook blocked by a knight is not.
        ("4k3/8/8/P7/8/8/8/R3K3 w - - 0 1", IDX.rook_behind_passer, 1),
        (
            "4k3/8/8/P7/8/N7/8/R3K3 w - - 0 1",
            IDX.rook_behind_passer,
            0,
        ),
        // e2-e4 would attack the d5 knight and f5 rook; e4 is safe.
        (
            "7k/8/8/3n1r2/8/8/4P3/4K3 w - - 0 1",
            IDX.threat_pawn_push,
            2,
        ),
        // A black queen on e8 covers e3 and e4: neither push is safe.
        (
            "4q2k/8/8/3n1r2/8/8/4P3/4K3 w - - 0 1",
            IDX.threat_pawn_push,
            0,
        ),
        // White's king attacks the undefended knight on e2.
        ("4k3/8/8/8/8/8/4n3/4K3 w - - 0 1", IDX.threat_by_king, 1),
        // Defended by the black bishop on h5 it is not loose.
        ("4k3/8/8/7b/8/8/4n3/4K3 w - - 0 1", IDX.threat_by_king, 0),
    ];
    assert_coefs(&cases);
}

/// Coefficient of danger weight `idx` for the king of colour `king` (0 =
/// White) in the default-weight trace of `fen` (0 if it does not occur).
fn danger_coef(fen: &str, king: usize, idx: usize) -> i16 {
    trace(&board(fen), &EvalWeights::default()).danger[king]
        .iter()
        .find(|&&(i, _)| i as usize == idx)
        .map_or(0, |&(_, c)| c)
}

#[test]
fn king_flank_and_unsafe_check_terms_count_what_they_describe() {
    const QUEEN: &str = "6k1/8/8/8/7q/8/5PPP/6K1 w - - 0 1";
    const KNIGHT: &str = "6k1/8/8/8/7q/5N2/5PPP/6K1 w - - 0 1";
    const ROOK_KNIGHT: &str = "4r1k1/8/8/8/7q/5N2/5PPP/6K1 w - - 0 1";
    const ROOK: &str = "4r1k1/8/8/8/7q/8/5PPP/6K1 w - - 0 1";
    // (position, king (0 = White), danger weight, expected coefficient).
    let cases = [
        // White's flank is e1-h5. The h4 queen hits e4 f4 g4 g5 h5 h3 g3
        // h2 f2; the king and pawns cover f1 f2 g2 h1 h2 e3 f3 g3 h3.
        (QUEEN, 0, IDX.king_flank_attacks, 9),
        (QUEEN, 0, IDX.king_flank_defense, 9),
        (QUEEN, 0, IDX.king_knight_defender, 0),
        // A knight on f3 guards h2, next to the king, and adds e1 g1 h4 g5
        // e5 to the defended flank.
        (KNIGHT, 0, IDX.king_knight_defender, 1),
        (KNIGHT, 0, IDX.king_flank_defense, 14),
        // Re1+ is a check the f3 knight guards: unsafe; without it, safe.
        (ROOK_KNIGHT, 0, IDX.king_unsafe_checks, 1),
        (ROOK_KNIGHT, 0, IDX.king_safe_check + 2, 0),
        (ROOK, 0, IDX.king_unsafe_checks, 0),
        (ROOK, 0, IDX.king_safe_check + 2, 1),
        // The first position colour-flipped: Black's flank is e4-h8.
        (
            "6k1/5ppp/8/7Q/8/8/8/6K1 b - - 0 1",
            1,
            IDX.king_flank_attacks,
            9,
        ),
        // Nothing attacks a flank square twice: 9^2 / 8. The e8 rook adds
        // e1 e2 e3 e5 and a second attack on e4: (13 + 1)^2 / 8.
        (QUEEN, 0, IDX.king_flank_attacks_twice, 0),
        (QUEEN, 0, IDX.king_flank_attacks_sq, 10),
        (ROOK, 0, IDX.king_flank_attacks_twice, 1),
        (ROOK, 0, IDX.king_flank_attacks_sq, 24),
        // The a7 bishop's diagonal to g1 holds only f2; the h4 queen's
        // lines miss g1.
        (QUEEN, 0, IDX.king_blockers, 0),
        (
            "6k1/b7/8/8/7q/8/5PPP/6K1 w - - 0 1",
            0,
            IDX.king_blockers,
            1,
        ),
        (
            "6k1/b7/8/8/7q/4P3/5PPP/6K1 w - - 0 1",
            0,
            IDX.king_blockers,
            0,
        ),
        // The queen's safe squares: h5-h8, h2, a4-g4, d8-g5 and f2 (g3 and
        // h3 are pawn-guarded); White has no piece to move.
        (QUEEN, 0, IDX.king_mobility_diff, 17),
    ];
    for (fen, king, idx, expected) in cases {
        assert_eq!(
            danger_coef(fen, king, idx),
            expected,
            "{}: {fen}",
            EvalWeights::pair_name(idx)
        );
    }
}

#[test]
fn stockfish_classical_terms_count_what_they_describe() {
    // (position, weight, expected coefficient: White's count less Black's).
    let cases = [
        // a2 and a7 oppose each other; h7 is isolated on a half-open file.
        (
            "4k3/p6p/8/8/8/8/P7/4K3 w - - 0 1",
            IDX.pawn_weak_unopposed,
            -1,
        ),
        ("4k3/8/4p3/4P3/8/8/8/4K3 w - - 0 1", IDX.pawn_blocked, 1),
        ("4k3/4p3/4P3/8/8/8/8/4K3 w - - 0 1", IDX.pawn_blocked + 1, 1),
        ("3qk3/8/8/8/8/8/8/3RK3 w - - 0 1", IDX.rook_on_queen_file, 1),
        // h1 rook behind the f1 king with one square (g1): doubled once
        // castling rights are gone.
        ("4k3/8/8/8/8/8/6PP/5K1R w - - 0 1", IDX.rook_trapped, 2),
        ("4k3/8/8/8/8/8/6PP/4K2R w K - 0 1", IDX.rook_trapped, 1),
        (
            "4k3/8/8/8/8/8/6B1/4K3 w - - 0 1",
            IDX.bishop_long_diagonal,
            1,
        ),
        (
            "4k3/8/8/8/4p3/8/6B1/4K3 w - - 0 1",
            IDX.bishop_long_diagonal,
            0,
        ),
        // c1's diagonals hold f4 and h6, whatever stands between.
        (
            "4k3/8/7p/8/5p2/8/8/2B1K3 w - - 0 1",
            IDX.bishop_xray_pawns,
            2,
        ),
        // a3 aims at e7 behind its own c5 knight; d1 at d7 behind d4.
        (
            "4k3/8/8/2N5/8/B7/8/4K3 w - - 0 1",
            IDX.slider_on_king_ring,
            1,
        ),
        (
            "4k3/8/8/8/3P4/8/8/3RK3 w - - 0 1",
            IDX.slider_on_king_ring + 1,
            1,
        ),
        ("4k3/8/4Q3/8/8/8/8/4K3 b - - 0 1", IDX.queen_infiltration, 1),
        (
            "4k3/3p4/4Q3/8/8/8/8/4K3 b - - 0 1",
            IDX.queen_infiltration,
            0,
        ),
        // Both rooks hold d2-d7; e2 makes d3 White's strong square.
        (
            "3r3k/8/8/8/8/8/4P3/K2R4 w - - 0 1",
            IDX.threat_restricted,
            1,
        ),
        // The d5 knight, attacked by the d1 rook, has only its queen.
        (
            "3qk3/8/8/3n4/8/8/8/3RK3 w - - 0 1",
            IDX.threat_weak_queen_protection,
            1,
        ),
        // Nd1 reaches c3 and e3, each attacking d5; doubled for the queen
        // White lacks.
        (
            "7k/8/8/3q4/8/8/8/3NK3 w - - 0 1",
            IDX.threat_knight_on_queen,
            4,
        ),
        // g5, held by the e3 bishop and the g1 rook, is on d8's diagonal.
        (
            "3q3k/8/8/8/8/4B3/8/K5R1 w - - 0 1",
            IDX.threat_slider_on_queen,
            2,
        ),
        // d4 and e4: White has 8 safe squares and 4 behind its pawns,
        // 12 * 13^2 / 64 = 31; they take c5-f5 from Black, 4 * 13^2 / 64
        // = 10.
        (
            "rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 1",
            IDX.space,
            21,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            IDX.space,
            0,
        ),
        ("4k3/8/8/2P5/8/8/8/4K3 w - - 0 1", IDX.passed_file, 2),
        // Nc3 reaches d5, which e4 defends and no black pawn can attack;
        // then c7 can.
        (
            "4k3/8/8/8/4P3/2N5/8/4K3 w - - 0 1",
            IDX.knight_reachable_outpost,
            1,
        ),
        (
            "4k3/2p5/8/8/4P3/2N5/8/4K3 w - - 0 1",
            IDX.knight_reachable_outpost,
            0,
        ),
        (
            "4k3/8/8/3n4/8/8/6B1/4K3 w - - 0 1",
            IDX.threat_minor_on_minor + 1,
            1,
        ),
        // A pawn counts only when nothing protects it strongly.
        (
            "4k3/8/8/3p4/8/8/6B1/4K3 w - - 0 1",
            IDX.threat_minor_on_minor,
            1,
        ),
        (
            "4k3/8/4p3/3p4/8/8/6B1/4K3 w - - 0 1",
            IDX.threat_minor_on_minor,
            0,
        ),
        (
            "4k3/8/8/3b4/8/8/8/3RK3 w - - 0 1",
            IDX.threat_by_rook + 2,
            1,
        ),
        (
            "4k3/8/4p3/3b4/8/8/8/3RK3 w - - 0 1",
            IDX.threat_by_rook + 2,
            0,
        ),
        ("4k3/8/8/8/8/8/P7/4K3 w - - 0 1", IDX.king_pawn_distance, 4),
        // g1's flank (e-h) has no pawns; b8's (a-d) has a7 and a2.
        (
            "1k6/p7/8/8/8/8/P7/6K1 w - - 0 1",
            IDX.king_pawnless_flank,
            1,
        ),
        // Colour-flipped: the counts change sign.
        (
            "6k1/p7/8/8/8/8/P7/1K6 b - - 0 1",
            IDX.king_pawnless_flank,
            -1,
        ),
        (
            "4k3/6b1/8/8/8/8/8/4K3 b - - 0 1",
            IDX.bishop_long_diagonal,
            -1,
        ),
        (
            "k2r4/4p3/8/8/8/8/8/3R3K b - - 0 1",
            IDX.threat_restricted,
            -1,
        ),
    ];
    assert_coefs(&cases);
}

#[test]
fn imbalance_counts_products_of_piece_counts() {
    // Indices into IMBALANCE_OURS / IMBALANCE_THEIRS (terms/material.rs).
    const OURS_KNIGHT_PAWN: usize = 2;
    const OURS_KNIGHT_KNIGHT: usize = 3;
    const OURS_BISHOP_PAIR: usize = 4;
    const OURS_BISHOP_BISHOP: usize = 7;
    const OURS_ROOK_PAWN: usize = 9;
    const OURS_ROOK_KNIGHT: usize = 10;
    const THEIRS_KNIGHT_PAIR: usize = 1;
    const THEIRS_KNIGHT_PAWN: usize = 2;
    const THEIRS_BISHOP_KNIGHT: usize = 5;
    const PAWNS_RN: &str = "4k3/8/8/8/8/8/PPPP4/RN2K3 w - - 0 1";
    const PAIR: &str = "2b1kb2/8/8/8/8/8/8/1N2K3 w - - 0 1";
    let cases = [
        (PAWNS_RN, IDX.imbalance_ours + OURS_KNIGHT_PAWN, 4),
        (PAWNS_RN, IDX.imbalance_ours + OURS_KNIGHT_KNIGHT, 1),
        (PAWNS_RN, IDX.imbalance_ours + OURS_ROOK_PAWN, 4),
        (PAWNS_RN, IDX.imbalance_ours + OURS_ROOK_KNIGHT, 1),
        (PAWNS_RN, IDX.imbalance_theirs + THEIRS_KNIGHT_PAWN, 0),
        // Black's two bishops are a pair: the pair counts 1.
        (PAIR, IDX.imbalance_ours + OURS_BISHOP_PAIR, -2),
        (PAIR, IDX.imbalance_ours + OURS_BISHOP_BISHOP, -4),
        (PAIR, IDX.imbalance_theirs + THEIRS_KNIGHT_PAIR, 1),
        (PAIR, IDX.imbalance_theirs + THEIRS_BISHOP_KNIGHT, -2),
        // A knight against two pawns, and the same colour-flipped.
        (
            "4k3/pp6/8/8/8/8/8/1N2K3 w - - 0 1",
            IDX.imbalance_theirs + THEIRS_KNIGHT_PAWN,
            2,
        ),
        (
            "1n2k3/8/8/8/8/8/PP6/4K3 b - - 0 1",
            IDX.imbalance_theirs + THEIRS_KNIGHT_PAWN,
            -2,
        ),
    ];
    assert_coefs(&cases);
}

/// Winnability weights of Stockfish's proportions, to make the term live.
const LIVE_WINNABLE: [S; 8] = [
    S(-3, 9),
    S(-2, 12),
    S(0, 9),
    S(0, 21),
    S(0, 24),
    S(0, 51),
    S(0, -43),
    S(-60, -110),
];

/// The winnability coefficients of `fen` (index into `winnable`, coefficient).
fn winnable_coefs(fen: &str) -> [i16; 8] {
    let mut out = [0; 8];
    for &(i, c) in &trace(&board(fen), &EvalWeights::default()).winnable {
        out[i as usize - IDX.winnable] = c;
    }
    out
}

#[test]
fn winnability_counts_what_it_describes() {
    // passed, pawns, outflanking, both flanks, infiltration, pawn ending,
    // almost unwinnable, constant.
    assert_eq!(
        winnable_coefs("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        [0, 16, -7, 1, 0, 0, 0, 1]
    );
    // A pawn ending, no passed pawn, pawns on one flank, the kings facing
    // each other on a file (outflanking -2): almost unwinnable. Then two
    // passed pawns on both flanks against a knight, White's king in Black's
    // half.
    assert_eq!(
        winnable_coefs("8/6p1/4k3/8/4K3/8/5PP1/8 w - - 0 1"),
        [0, 3, -2, 0, 0, 1, 1, 1]
    );
    assert_eq!(
        winnable_coefs("8/8/4k3/4K3/8/8/P5P1/1n6 b - - 0 1"),
        [2, 2, -1, 1, 1, 0, 0, 1]
    );
}

#[test]
fn winnability_moves_toward_zero_but_never_past_it() {
    // Endgame: away from zero for a positive sum, toward it (and stopping
    // there) for a negative one; middlegame: only toward zero.
    assert_eq!(winnable(S(50, 80), S(30, 20)), S(50, 100));
    assert_eq!(winnable(S(50, -80), S(-30, -20)), S(20, -60));
    assert_eq!(winnable(S(-50, 80), S(-300, -200)), S(0, 0));
    assert_eq!(winnable(S(0, 0), S(40, 40)), S(0, 0));
    for (v, c) in [(80.0, 20.0), (-80.0, -20.0), (80.0, -200.0), (-30.0, 5.0)] {
        let (vi, ci) = (v as i32, c as i32);
        let S(mg, eg) = winnable(S(vi, vi), S(ci, ci));
        assert_eq!(f64::from(mg), winnable_f(v, c, true).0, "mg {v} {c}");
        assert_eq!(f64::from(eg), winnable_f(v, c, false).0, "eg {v} {c}");
    }
    // With weights that make it live, the colour flip still agrees.
    let w = EvalWeights {
        winnable: LIVE_WINNABLE,
        ..EvalWeights::default()
    };
    for fen in FENS {
        let b = board(fen);
        assert_eq!(evaluate(&b, &w), evaluate(&colour_flipped(&b), &w), "{fen}");
    }
    let drawish = board("8/6p1/4k3/8/4K3/8/5PP1/8 w - - 0 1");
    let plain = evaluate(&drawish, &EvalWeights::default());
    let adjusted = evaluate(&drawish, &w);
    assert!(
        plain > 0 && (0..plain).contains(&adjusted),
        "an extra pawn on one flank is harder to win: {plain} -> {adjusted}"
    );
}
