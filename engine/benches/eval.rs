//! Criterion benchmarks of the static evaluation: the summing instantiation
//! (what the search calls) and the tracing one (what Texel tuning calls),
//! over a fixed set of middlegame and endgame positions.

use cozy_chess::Board;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use karsinta_engine::eval::weights::EvalWeights;
use karsinta_engine::eval::{evaluate, trace};

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "2r2rk1/1bqnbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 0 13",
    "r1b2rk1/pp3ppp/2n1p3/3p3q/3P2n1/2PBP3/PP3P2/R2Q1RK1 w - - 0 1",
    "6k1/pp3ppp/8/3R4/8/8/PP3PPP/6K1 b - - 0 30",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/5k2/3b2p1/1p1P4/1P3P2/3B2K1/8/8 w - - 0 1",
];

fn eval(c: &mut Criterion) {
    let w = EvalWeights::default();
    let boards: Vec<Board> = FENS.iter().map(|f| f.parse().expect("valid FEN")).collect();
    let mut group = c.benchmark_group("eval");
    group.throughput(Throughput::Elements(boards.len() as u64));
    group.bench_function("evaluate", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|bd| evaluate(black_box(bd), black_box(&w)))
                .sum::<i32>()
        })
    });
    group.bench_function("trace", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|bd| trace(black_box(bd), &w).coefs.len())
                .sum::<usize>()
        })
    });
    let traces: Vec<_> = boards.iter().map(|bd| trace(bd, &w)).collect();
    let flat = w.to_flat();
    group.bench_function("trace score_flat", |b| {
        b.iter(|| {
            traces
                .iter()
                .map(|t| t.score_flat(black_box(&flat)))
                .sum::<i32>()
        })
    });
    group.finish();
}

criterion_group!(benches, eval);
criterion_main!(benches);
