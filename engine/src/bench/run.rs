//! The bench: a fixed set of positions, each searched to a fixed depth from a
//! cleared state. The total node count is the signature of the engine's
//! default behaviour (any change to what the search does changes it; commit
//! messages quote it as `Bench: N`), and nodes per second is its speed figure.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::search::types::Limits;
use crate::search::Searcher;
use crate::{Params, Position};

/// Default search depth of `karsinta-engine bench`.
pub const DEFAULT_BENCH_DEPTH: i32 = 10;

/// Bench positions: openings, middlegames (quiet and tactical) and endgames.
pub const BENCH_FENS: &[&str] = &[
    // Openings
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3",
    "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "rnbqk2r/ppp1ppbp/3p1np1/8/2PPP3/2N5/PP3PPP/R1BQKBNR w KQkq - 1 5",
    "rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "rn1qkbnr/pp2pppp/2p5/3pPb2/3P4/8/PPP2PPP/RNBQKBNR w KQkq - 1 4",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2P2N2/PP1P1PPP/RNBQK2R w KQkq - 1 5",
    "rnbqk2r/pppp1ppp/4pn2/8/1bPP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
    // Middlegames
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 2 8",
    "r2q1rk1/pp1bbppp/2nppn2/8/3NP3/2N1B3/PPPQBPPP/R4RK1 w - - 4 9",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 2 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3NP3/1BN1B3/PPP1QPPP/R4RK1 w - - 0 12",
    "r2qr1k1/1b1nbppp/p2p1n2/1pp1p3/4P3/1PPP1NN1/P1B2PPP/R1BQR1K1 w - - 2 13",
    "r1bqr1k1/pp3pbp/2np1np1/2p1p3/4P3/2PP1NP1/PP1N1PBP/R1BQR1K1 w - - 0 10",
    "3r1rk1/pp3ppp/2n1bq2/2bpp3/8/2PB1N2/PP1QNPPP/R4RK1 w - - 4 14",
    "r4rk1/pp1n1ppp/2p1pq2/3p4/2PP4/2N1PQ2/PP3PPP/R4RK1 w - - 0 13",
    "2kr3r/ppp2ppp/2n1bn2/2b1p3/4P3/2NP1N2/PPP1BPPP/R1B2RK1 w - - 4 9",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 7",
    "1r3rk1/5ppp/p1pb4/3p4/1q1P4/1P2BQ2/P4PPP/R4RK1 w - - 0 19",
    "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 6 8",
    // Tactical
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "r1b1k2r/ppp2ppp/2n5/3np3/1bB5/2N2q2/PPPP1P1P/R1BQK2R w KQkq - 0 9",
    "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1",
    "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - b3 0 23",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    // Endgames
    "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    "8/8/1p1k4/p2p1p2/P2P1P2/1P1K4/8/8 w - - 0 1",
    "8/5pk1/6p1/7p/7P/6P1/5PK1/8 w - - 0 1",
    "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1",
    "8/8/8/8/4k3/8/3KP3/8 w - - 0 1",
    "8/3k4/8/8/8/8/2R5/3K4 w - - 0 1",
    "8/8/8/2k5/8/8/1Q6/1K6 w - - 0 1",
    "8/8/4kp2/8/5P2/4K3/8/8 w - - 0 1",
    "5k2/8/8/8/8/8/1R6/4K2R w K - 0 1",
    "8/6k1/8/8/3r4/8/4RK2/8 w - - 0 1",
    "8/8/2b5/8/3k4/8/2PK4/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1",
    "8/8/8/3n4/3k4/8/8/2KBB3 w - - 0 1",
    "8/1p3pkp/p5p1/8/2PR4/1P4P1/P4PKP/5r2 b - - 0 30",
];

/// The outcome of a bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes searched over all positions: the bench signature.
    pub nodes: u64,
    /// Wall-clock time of the whole run.
    pub time: Duration,
    /// Nodes per second over the run.
    pub nps: u64,
}

/// Search every bench position to `depth` with `params`, each from a cleared
/// searcher (new game), and total the nodes. `progress` is called after each
/// position with (index, fen, nodes of that position).
pub fn run_bench_with(
    params: &Params,
    depth: i32,
    progress: impl FnMut(usize, &str, u64),
) -> BenchResult {
    run_bench_until(params, depth, &AtomicBool::new(false), progress)
        .expect("a bench without a stop flag finishes")
}

/// [`run_bench_with`] that gives up when `stop` is raised (a deadline, a
/// Ctrl-C): a weak parameter set can take hours at the bench depth, and a
/// partial node count is no signature, so the result is then `None`.
pub fn run_bench_until(
    params: &Params,
    depth: i32,
    stop: &AtomicBool,
    progress: impl FnMut(usize, &str, u64),
) -> Option<BenchResult> {
    run_bench_threads(params, depth, 1, stop, progress)
}

/// [`run_bench_until`] on `threads` search threads. Above one thread (Lazy
/// SMP) the node count varies from run to run and is no signature: the
/// figures are the speed (nodes per second over all threads) and the time
/// the main thread takes to reach the depth.
pub fn run_bench_threads(
    params: &Params,
    depth: i32,
    threads: usize,
    stop: &AtomicBool,
    mut progress: impl FnMut(usize, &str, u64),
) -> Option<BenchResult> {
    let mut searcher = Searcher::new(params.clone());
    searcher.set_threads(threads);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut nodes = 0;
    let start = Instant::now();
    for (i, fen) in BENCH_FENS.iter().enumerate() {
        let pos = Position::from_fen(fen).expect("bench FENs are valid");
        searcher.new_game();
        let r = searcher.search(&pos, &limits, stop, &mut |_| {});
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        nodes += r.nodes;
        progress(i, fen, r.nodes);
    }
    let time = start.elapsed();
    let ms = time.as_millis() as u64;
    Some(BenchResult {
        nodes,
        time,
        nps: crate::uci::nps(nodes, ms),
    })
}

/// [`run_bench_with`] without progress reports.
pub fn run_bench(params: &Params, depth: i32) -> BenchResult {
    run_bench_with(params, depth, |_, _, _| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_valid_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for fen in BENCH_FENS {
            let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{e}"));
            assert!(!pos.legal_moves().is_empty(), "{fen} has no legal move");
            assert!(seen.insert(pos.hash()), "duplicate {fen}");
        }
        assert!(BENCH_FENS.len() >= 45);
    }

    #[test]
    fn a_stopped_bench_has_no_signature() {
        let stop = AtomicBool::new(true);
        let params = Params::default();
        assert_eq!(run_bench_until(&params, 2, &stop, |_, _, _| {}), None);
        let mut seen = 0;
        let r = run_bench_until(&params, 1, &AtomicBool::new(false), |_, _, _| seen += 1);
        assert!(r.is_some_and(|r| r.nodes > 0));
        assert_eq!(seen, BENCH_FENS.len());
    }
}
