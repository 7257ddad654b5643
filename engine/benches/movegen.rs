//! Criterion benchmarks of move generation: perft (bulk-counted) on the start
//! position and Kiwipete, and legal move listing, the hot paths under search.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use karsinta_engine::board::perft::perft;
use karsinta_engine::board::position::legal_moves;
use karsinta_engine::Position;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn movegen(c: &mut Criterion) {
    let start = Position::startpos();
    let kiwi = Position::from_fen(KIWIPETE).expect("valid FEN");
    c.bench_function("perft startpos 4", |b| {
        b.iter(|| perft(black_box(start.board()), 4))
    });
    c.bench_function("perft kiwipete 3", |b| {
        b.iter(|| perft(black_box(kiwi.board()), 3))
    });
    c.bench_function("legal_moves kiwipete", |b| {
        b.iter(|| legal_moves(black_box(kiwi.board())).len())
    });
    c.bench_function("play_uci + repetition check", |b| {
        b.iter(|| {
            let mut p = start.clone();
            for m in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3"] {
                p.play_uci(m).expect("legal");
            }
            black_box(p.repetition_count())
        })
    });
}

criterion_group!(benches, movegen);
criterion_main!(benches);
