//! Lazy SMP: searches on several threads play legal moves and report
//! through the main thread, under every kind of limit, and one thread is
//! still exactly the single-threaded search.

use std::sync::atomic::AtomicBool;

use karsinta_engine::bench::BENCH_FENS;
use karsinta_engine::uci::parse_position;
use karsinta_engine::{Limits, Params, Position, Score, Searcher};

use crate::uci::{last_info, nodes_of, Session};

fn limits(depth: Option<i32>, nodes: Option<u64>) -> Limits {
    Limits {
        depth,
        nodes,
        ..Limits::default()
    }
}

/// Every PV of `lines` is legal from `position` (a `position` command's
/// arguments) and the last one starts with `best`.
fn assert_reports_are_legal(position: &str, lines: &[String], best: &str) {
    let args: Vec<&str> = position.split_whitespace().collect();
    let root = parse_position(&args, false).unwrap();
    assert!(
        root.parse_uci(best).is_ok(),
        "bestmove {best} in {position}"
    );
    for info in lines.iter().filter(|l| l.starts_with("info depth")) {
        let mut pos = root.clone();
        for mv in info.split(" pv ").nth(1).unwrap_or("").split_whitespace() {
            pos.play_uci(mv).unwrap_or_else(|e| panic!("{e}: {info}"));
        }
    }
    let last = last_info(lines).unwrap();
    let first = last
        .split(" pv ")
        .nth(1)
        .and_then(|pv| pv.split_whitespace().next());
    assert_eq!(first, Some(best), "{last}");
}

/// Two threads at fixed depth and fixed nodes over a spread of the bench
/// positions: a legal move, a score, nodes counted.
#[test]
fn two_threads_find_legal_best_moves() {
    let mut s = Searcher::new(Params::default());
    s.set_threads(2);
    let stop = AtomicBool::new(false);
    for fen in BENCH_FENS.iter().step_by(5) {
        let pos = Position::from_fen(fen).unwrap();
        for l in [limits(Some(6), None), limits(None, Some(20_000))] {
            let r = s.search(&pos, &l, &stop, &mut |_| {});
            let mv = r.best_move.as_deref().expect("a move");
            assert!(pos.parse_uci(mv).is_ok(), "{fen}: {mv}");
            assert!(r.nodes > 0 && r.depth >= 1, "{fen}: {r:?}");
            // The node limit counts both threads' nodes (each publishes
            // and checks the total every 64 of its own): the helper's
            // nodes do not come on top of the main thread's 20000.
            if let Some(n) = l.nodes {
                assert!(r.nodes <= n + 512, "{fen}: {}", r.nodes);
            }
        }
    }
}

/// Mates are found and reported as mates with helpers running (not always
/// the shortest: the threads' shared entries can prove a longer one first).
#[test]
fn two_threads_find_the_mates() {
    let mut s = Searcher::new(Params::default());
    s.set_threads(2);
    let stop = AtomicBool::new(false);
    for (fen, mate) in [
        ("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 2),
        (
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            1,
        ),
        ("8/6k1/8/8/8/8/R7/1R4K1 w - - 0 1", 3),
    ] {
        s.new_game();
        let pos = Position::from_fen(fen).unwrap();
        let r = s.search(&pos, &limits(Some(12), None), &stop, &mut |_| {});
        let found = match r.score {
            Score::Mate(m) => m,
            Score::Cp(_) => 0,
        };
        assert!((mate..=mate + 2).contains(&found), "{fen}: {r:?}");
    }
}

/// With `Threads 1`, after any number of threads, a search is node for
/// node the single-threaded search of a fresh engine, at fixed depth and
/// at fixed nodes.
#[test]
fn one_thread_is_the_single_threaded_search() {
    let stop = AtomicBool::new(false);
    let mut s = Searcher::new(Params::default());
    for fen in BENCH_FENS.iter().step_by(7) {
        let pos = Position::from_fen(fen).unwrap();
        for l in [limits(Some(7), None), limits(None, Some(5_000))] {
            let fresh = Searcher::new(Params::default()).search(&pos, &l, &stop, &mut |_| {});
            s.set_threads(3);
            s.search(&pos, &l, &stop, &mut |_| {});
            s.set_threads(1);
            s.new_game();
            let r = s.search(&pos, &l, &stop, &mut |_| {});
            assert_eq!(
                (r.nodes, r.score, r.depth, &r.best_move, &r.pv),
                (
                    fresh.nodes,
                    fresh.score,
                    fresh.depth,
                    &fresh.best_move,
                    &fresh.pv
                ),
                "{fen} {l:?}"
            );
        }
    }
}

/// Through UCI: `Threads 2` under depth, nodes, time and `infinite` with
/// `stop`; every `go` gets one legal `bestmove` matching its last PV, and a
/// `Threads` change sent during a search applies to the next one.
#[test]
fn uci_searches_on_two_threads() {
    let mut s = Session::new();
    s.send("setoption name Threads value 2");
    let position = "startpos moves e2e4 c7c5 g1f3 d7d6";
    s.send(&format!("position {position}"));
    for go in [
        "go depth 7",
        "go nodes 30000",
        "go movetime 150",
        "go wtime 2000 btime 2000 winc 20 binc 20",
    ] {
        s.send(go);
        let (line, before) = s.expect(|l| l.starts_with("bestmove"));
        let best = line.split_whitespace().nth(1).unwrap();
        assert_reports_are_legal(position, &before, best);
    }
    s.send("go infinite");
    s.send("setoption name Threads value 1");
    let best = s.stop_running_search();
    let args: Vec<&str> = position.split_whitespace().collect();
    assert!(
        parse_position(&args, false)
            .unwrap()
            .parse_uci(&best)
            .is_ok(),
        "{best}"
    );
    // The change applied: the next fixed-node search is the one-thread one.
    let run = |s: &mut Session| {
        s.send("ucinewgame");
        s.send(&format!("position {position}"));
        s.send("go nodes 4000");
        let (best, before) = s.expect(|l| l.starts_with("bestmove"));
        (
            best,
            last_info(&before)
                .and_then(|l| nodes_of(l))
                .map(str::to_string),
        )
    };
    let after = run(&mut s);
    s.finish();
    let mut fresh = Session::new();
    assert_eq!(after, run(&mut fresh));
    fresh.finish();
}
