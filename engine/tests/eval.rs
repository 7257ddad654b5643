//! Evaluation properties on many positions: colour-flip symmetry, trace
//! reconstruction, and that every weight of the table can fire. Positions
//! come from a hand-made list and from seeded random playouts.

use cozy_chess::{Board, GameStatus, Move};
use karsinta_engine::board::mirror::colour_flipped;
use karsinta_engine::eval::weights::{EvalWeights, NUM_WEIGHTS};
use karsinta_engine::eval::{evaluate, evaluate_white, trace};

/// Small deterministic generator (xorshift64*), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "2r2rk1/1bqnbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 0 13",
];

/// Positions reached by random legal playouts from [`STARTS`], every ply kept.
fn playout_positions(seed: u64, games_per_start: usize, max_plies: usize) -> Vec<Board> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for fen in STARTS {
        for _ in 0..games_per_start {
            let mut b: Board = fen.parse().unwrap();
            for _ in 0..max_plies {
                if b.status() != GameStatus::Ongoing {
                    break;
                }
                let mut moves: Vec<Move> = Vec::new();
                b.generate_moves(|ms| {
                    moves.extend(ms);
                    false
                });
                // Prefer captures half the time so material comes off and
                // endgames appear.
                let captures: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|m| b.color_on(m.to).is_some())
                    .collect();
                let pool = if !captures.is_empty() && rng.below(2) == 0 {
                    &captures
                } else {
                    &moves
                };
                b.play(pool[rng.below(pool.len())]);
                out.push(b.clone());
            }
        }
    }
    out
}

/// Hand-made positions for terms random play rarely reaches (extreme
/// mobility, far kings from passed pawns).
const SPECIAL: &[&str] = &[
    "1k6/8/8/8/3Q4/8/7K/8 w - - 0 1",
    "1k6/8/8/8/3B4/8/7K/8 w - - 0 1",
    "1k6/8/8/8/3R4/8/7K/8 w - - 0 1",
    "1k6/8/8/8/3N4/8/7K/8 w - - 0 1",
    "8/7P/8/8/8/8/8/K6k w - - 0 1",
    "7k/P7/8/8/8/8/8/7K w - - 0 1",
    "k6K/8/8/8/8/8/7p/8 b - - 0 1",
    "4k3/8/8/8/8/8/PP6/QK6 w - - 0 1",
];

#[test]
fn symmetric_and_traceable_on_random_playouts() {
    let w = EvalWeights::default();
    let positions = playout_positions(0x9E37_79B9_7F4A_7C15, 8, 160);
    assert!(positions.len() > 3000, "{}", positions.len());
    for b in &positions {
        let m = colour_flipped(b);
        assert_eq!(evaluate(b, &w), evaluate(&m, &w), "{b} vs mirror {m}");
        let t = trace(b, &w);
        assert_eq!(t.score(&w), evaluate(b, &w), "trace of {b}");
        assert_eq!(t.score_white(&w), evaluate_white(b, &w), "trace of {b}");
    }
}

#[test]
fn every_weight_is_reachable() {
    let w = EvalWeights::default();
    let mut boards = playout_positions(7, 8, 160);
    boards.extend(SPECIAL.iter().map(|f| f.parse::<Board>().unwrap()));
    let mut seen = vec![false; NUM_WEIGHTS];
    for b in &boards {
        let t = trace(b, &w);
        let linear_and_danger = t.coefs.iter().chain(&t.danger[0]).chain(&t.danger[1]);
        for &(i, _) in linear_and_danger.chain(&t.winnable) {
            seen[i as usize] = true;
        }
    }
    let missing: Vec<String> = (0..NUM_WEIGHTS)
        .filter(|&i| !seen[i])
        .map(EvalWeights::pair_name)
        .collect();
    assert!(missing.is_empty(), "never used: {missing:?}");
}

#[test]
fn weight_names_are_unique_and_round_trip() {
    let w = EvalWeights::default();
    let mut names = std::collections::HashSet::new();
    for i in 0..NUM_WEIGHTS {
        assert!(
            names.insert(EvalWeights::pair_name(i)),
            "duplicate {}",
            EvalWeights::pair_name(i)
        );
    }
    let flat = w.to_flat();
    assert_eq!(flat.len(), NUM_WEIGHTS);
    assert_eq!(EvalWeights::from_flat(&flat), Some(w.clone()));
    assert_eq!(EvalWeights::from_flat(&flat[1..]), None);
    for (i, &p) in flat.iter().enumerate() {
        assert_eq!(w.pair(i), p);
    }
}
