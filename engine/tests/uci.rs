//! The UCI loop driven in-process: handshake, options, malformed input,
//! searches with stop/quit, and the `bestmove` guarantees.

use std::io::{BufReader, Read, Write};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use karsinta_engine::uci::{SharedWriter, UciEngine};
use karsinta_engine::{Params, Position};

/// Blocking input fed line by line from the test; end of input when dropped.
struct Feed {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for Feed {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.buf.len() {
            match self.rx.recv() {
                Ok(b) => {
                    self.buf = b;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub(crate) struct Session {
    tx: Option<Sender<Vec<u8>>>,
    sink: Sink,
    handle: Option<JoinHandle<()>>,
    /// Lines already consumed by `expect`.
    seen: usize,
}

impl Session {
    pub(crate) fn new() -> Self {
        let (tx, rx) = channel();
        let sink = Sink::default();
        let out = SharedWriter::new(sink.clone());
        let handle = std::thread::spawn(move || {
            let input = BufReader::new(Feed {
                rx,
                buf: Vec::new(),
                pos: 0,
            });
            karsinta_engine::uci::run(input, out, Params::default());
        });
        Session {
            tx: Some(tx),
            sink,
            handle: Some(handle),
            seen: 0,
        }
    }

    pub(crate) fn send(&self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    fn send_bytes(&self, b: &[u8]) {
        self.tx.as_ref().unwrap().send(b.to_vec()).unwrap();
    }

    fn lines(&self) -> Vec<String> {
        String::from_utf8(self.sink.0.lock().unwrap().clone())
            .expect("output is UTF-8")
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Wait for the next line satisfying `pred`, returning it and the lines
    /// before it. The timeout only guards against hangs.
    pub(crate) fn expect(&mut self, pred: impl Fn(&str) -> bool) -> (String, Vec<String>) {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let lines = self.lines();
            if let Some(i) = lines[self.seen..].iter().position(|l| pred(l)) {
                let before = lines[self.seen..self.seen + i].to_vec();
                self.seen += i + 1;
                return (lines[self.seen - 1].clone(), before);
            }
            assert!(
                Instant::now() < deadline,
                "timed out; output so far:\n{}",
                lines.join("\n")
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// `isready` round trip; returns the lines printed before `readyok`.
    pub(crate) fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.expect(|l| l == "readyok").1
    }

    /// The search of the last `go` is still running: `isready` is answered
    /// and no `bestmove` comes until `stop`, whose move is returned.
    pub(crate) fn stop_running_search(&mut self) -> String {
        let before = self.sync();
        assert!(
            before.iter().all(|l| !l.starts_with("bestmove")),
            "{before:?}"
        );
        self.send("stop");
        self.bestmove()
    }

    pub(crate) fn bestmove(&mut self) -> String {
        let (line, _) = self.expect(|l| l.starts_with("bestmove"));
        line.split_whitespace().nth(1).unwrap().to_string()
    }

    /// Close the input and wait for the loop to end.
    pub(crate) fn finish(mut self) -> Vec<String> {
        self.tx.take();
        self.handle
            .take()
            .unwrap()
            .join()
            .expect("uci loop panicked");
        self.lines()
    }
}

fn assert_legal(fen_or_startpos: &str, mv: &str) {
    let pos = if fen_or_startpos == "startpos" {
        Position::startpos()
    } else {
        Position::from_fen(fen_or_startpos).unwrap()
    };
    assert!(
        pos.parse_uci(mv).is_ok(),
        "bestmove {mv} is illegal in {fen_or_startpos}"
    );
}

#[test]
fn handshake_lists_every_table_option() {
    let mut s = Session::new();
    s.send("uci");
    let (_, before) = s.expect(|l| l == "uciok");
    assert!(before[0].starts_with("id name Karsinta"), "{before:?}");
    assert!(before[1].starts_with("id author "));
    assert!(before.contains(&"option name Hash type spin default 16 min 1 max 4096".to_string()));
    assert!(before.contains(&"option name Clear Hash type button".to_string()));
    assert!(before.contains(&"option name Threads type spin default 1 min 1 max 64".to_string()));
    for opt in Params::default().uci_options() {
        assert!(before.contains(&opt), "missing {opt}");
    }
    assert_eq!(s.sync(), Vec::<String>::new());
    s.finish();
}

#[test]
fn setoption_changes_only_valid_values() {
    let out = SharedWriter::new(Sink::default());
    let mut e = UciEngine::new(out, Params::default());
    let before = e.params().clone();
    for bad in [
        "setoption name null_move_r value 99",
        "setoption name null_move_r value -1",
        "setoption name null_move_r value abc",
        "setoption name null_move_r",
        "setoption name null_move value maybe",
        "setoption name search_algorithm value bogus",
        "setoption name no_such_param value 1",
        "setoption name Hash value 0",
        "setoption name Hash value 99999",
        "setoption name Hash value lots",
        "setoption value 3",
        "setoption",
    ] {
        assert!(e.handle_line(bad));
        assert_eq!(e.params(), &before, "{bad} changed the parameters");
        assert_eq!(e.hash_mb(), 16, "{bad} changed Hash");
    }
    e.handle_line("setoption name null_move_r value 2");
    e.handle_line("setoption name null_move value false");
    e.handle_line("setoption name search_algorithm value mtdf");
    e.handle_line("setoption name Hash value 1");
    assert_eq!(e.params().search.null_move_r, 2);
    assert!(!e.params().search.null_move);
    assert_eq!(e.params().get_by_name("search_algorithm"), Some(3));
    assert_eq!(e.hash_mb(), 1);
    // Option names ignore case, as UCI says; values of switches and combos too.
    e.handle_line("setoption name NULL_Move_R value 5");
    e.handle_line("setoption name Search_Algorithm value PVS");
    e.handle_line("setoption name hash value 3");
    assert_eq!(e.params().search.null_move_r, 5);
    assert_eq!(e.params().get_by_name("search_algorithm"), Some(2));
    assert_eq!(e.hash_mb(), 3);
}

/// `Threads` takes 1 to 64 (any case, as every option name) and refuses
/// anything else with an error that changes nothing.
#[test]
fn threads_is_a_standard_option() {
    let out = SharedWriter::new(Sink::default());
    let mut e = UciEngine::new(out, Params::default());
    assert_eq!(e.threads(), 1);
    e.handle_line("setoption name Threads value 4");
    assert_eq!(e.threads(), 4);
    e.handle_line("setoption name threads value 64");
    assert_eq!(e.threads(), 64);
    e.handle_line("setoption name THREADS value 1");
    assert_eq!(e.threads(), 1);
    let mut s = Session::new();
    for bad in ["0", "65", "-2", "two", ""] {
        s.send(&format!("setoption name Threads value {bad}"));
        let lines = s.sync();
        assert!(
            lines.len() == 1 && lines[0].starts_with("info string error: option Threads"),
            "{bad}: {lines:?}"
        );
        assert!(lines[0].contains("1..=64"), "{lines:?}");
    }
    s.finish();
}

/// The last `info depth` line among `before`.
pub(crate) fn last_info(before: &[String]) -> Option<&String> {
    before.iter().rev().find(|l| l.starts_with("info depth"))
}

/// The `nodes` field of an `info` line.
pub(crate) fn nodes_of(info: &str) -> Option<&str> {
    info.split_whitespace().skip_while(|t| *t != "nodes").nth(1)
}

/// The `nodes` of the last `info depth` line before `bestmove`.
fn last_nodes(before: &[String]) -> u64 {
    let info = last_info(before).expect("an info line");
    nodes_of(info).unwrap().parse().unwrap()
}

#[test]
fn clear_hash_forgets_what_was_learned() {
    let mut s = Session::new();
    s.send("position startpos moves e2e4 e7e5");
    let search = |s: &mut Session| {
        s.send("go depth 8");
        last_nodes(&s.expect(|l| l.starts_with("bestmove")).1)
    };
    let fresh = search(&mut s);
    // The table of the first search shortens the second (at depth 7 the
    // tree is small enough that the first search's histories, which reorder
    // it, can outweigh the table).
    let warm = search(&mut s);
    assert!(warm < fresh, "{warm} vs {fresh}");
    s.send("setoption name Clear Hash");
    assert_eq!(search(&mut s), fresh);
    s.finish();
}

#[test]
fn go_searchmoves_and_mate() {
    let mut s = Session::new();
    s.send("position startpos");
    s.send("go depth 4 searchmoves a2a3 h2h4");
    let (line, before) = s.expect(|l| l.starts_with("bestmove"));
    let best = line.split_whitespace().nth(1).unwrap().to_string();
    assert!(best == "a2a3" || best == "h2h4", "{line}");
    assert!(before.iter().all(|l| !l.starts_with("info string error")));
    // Illegal entries are reported and skipped.
    s.send("go depth 3 searchmoves e2e5 g1f3");
    let (line, before) = s.expect(|l| l.starts_with("bestmove"));
    assert!(line.starts_with("bestmove g1f3"), "{line}");
    assert!(before.iter().any(|l| l.contains("e2e5")), "{before:?}");
    // go mate 2 ends once the mate is found, without any other limit.
    s.send("position fen 7k/8/8/8/8/8/R7/1R4K1 w - - 0 1");
    s.send("go mate 2");
    let (_, before) = s.expect(|l| l.starts_with("bestmove"));
    let last = last_info(&before).unwrap();
    assert!(last.contains(" score mate 2 "), "{last}");
    s.finish();
}

#[test]
fn tiny_time_budgets_still_search() {
    let mut s = Session::new();
    for go in [
        "go movetime 30",
        "go movetime 1",
        "go wtime 40 btime 40 winc 10 binc 10",
        "go wtime 0 btime 0",
    ] {
        s.send("position startpos moves e2e4");
        s.send(go);
        let (_, before) = s.expect(|l| l.starts_with("bestmove"));
        assert!(
            before.iter().any(|l| l.starts_with("info depth 1 ")),
            "{go}: {before:?}"
        );
    }
    // Only the other side's clock: a bounded search, not one until stop.
    s.send("go wtime 1000 movestogo 1");
    s.bestmove();
    s.finish();
}

#[test]
fn malformed_input_gets_errors_and_keeps_the_loop_in_sync() {
    let mut s = Session::new();
    let bad_lines: &[&[u8]] = &[
        b"\xff\xfe\xfd garbage\n",
        b"\x00\x01\x02\n",
        b"flibbertigibbet\n",
        b"position\n",
        b"position fen\n",
        b"position fen not a fen at all\n",
        b"position fen 8/8/8/8/8/8/8/8 w - - 0 1\n",
        b"position startpos moves e2e5\n",
        b"position startpos moves e2e4 zz99\n",
        b"position sideways\n",
        b"setoption name null_move_r value 99\n",
        b"setoption name nonexistent value 1\n",
        b"setoption name Hash value 0\n",
    ];
    for bad in bad_lines {
        s.send_bytes(bad);
        let before = s.sync();
        assert!(
            before.iter().any(|l| l.starts_with("info string error: ")),
            "no error for {:?}: {before:?}",
            String::from_utf8_lossy(bad)
        );
        assert!(
            before.iter().all(|l| l.starts_with("info string error: ")),
            "{before:?}"
        );
    }
    // Blank and whitespace-only lines are ignored silently, and a line
    // without a newline at the end of input is still read.
    s.send("");
    s.send("   \t ");
    assert!(s.sync().is_empty());
    // The engine still works, with the value unchanged.
    s.send("uci");
    let (_, before) = s.expect(|l| l == "uciok");
    assert!(before.contains(&"option name null_move_r type spin default 3 min 1 max 6".to_string()));
    s.send("setoption name null_move_r value 4");
    s.send("uci");
    let (_, before) = s.expect(|l| l == "uciok");
    assert!(before.contains(&"option name null_move_r type spin default 4 min 1 max 6".to_string()));
    s.send_bytes(b"isready");
    s.finish();
}

#[test]
fn bad_position_keeps_the_previous_one() {
    let mut s = Session::new();
    s.send("position startpos moves e2e4");
    s.send("position startpos moves e2e4 e7e5 e1e3");
    s.send("position fen 4k3/8/8/8/8/8/8/4K3 w Q - 0 1");
    s.send("d");
    let (fen, _) = s.expect(|l| l.starts_with("Fen: "));
    assert_eq!(
        fen,
        "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    s.finish();
}

#[test]
fn no_legal_move_answers_bestmove_0000() {
    let mut s = Session::new();
    // Checkmated, then stalemated.
    s.send("position fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    s.send("go depth 4");
    assert_eq!(s.bestmove(), "0000");
    s.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    s.send("go wtime 1000 btime 1000");
    assert_eq!(s.bestmove(), "0000");
    s.finish();
}

#[test]
fn single_legal_move_is_played() {
    let mut s = Session::new();
    // Black king in check by the rook with only Kb8 ... a7 is covered: one reply.
    let fen = "k7/8/1K6/8/8/8/8/R7 b - - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    assert_eq!(pos.legal_moves().len(), 1);
    let only = pos.move_to_uci(pos.legal_moves()[0]);
    s.send(&format!("position fen {fen}"));
    s.send("go depth 6");
    assert_eq!(s.bestmove(), only);
    s.finish();
}

#[test]
fn stop_and_isready_during_infinite_search() {
    let mut s = Session::new();
    s.send("position startpos moves e2e4");
    s.send("go infinite");
    let mv = s.stop_running_search();
    assert_legal(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        &mv,
    );
    // A second stop is harmless.
    s.send("stop");
    s.sync();
    s.finish();
}

#[test]
fn go_while_searching_and_quit_during_search() {
    let mut s = Session::new();
    s.send("go infinite");
    s.send("go depth 1");
    let first = s.bestmove();
    let second = s.bestmove();
    assert_legal("startpos", &first);
    assert_legal("startpos", &second);
    s.send("go infinite");
    s.send("quit");
    let lines = s.finish();
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove")).count(),
        3,
        "{lines:?}"
    );
}

#[test]
fn end_of_input_stops_the_search_with_a_bestmove() {
    let s = Session::new();
    s.send("ucinewgame");
    s.send("position startpos");
    s.send("go infinite");
    let lines = s.finish();
    let best: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), 1, "{lines:?}");
}

#[test]
fn go_perft_prints_divide_and_total() {
    let mut s = Session::new();
    s.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    s.send("go perft 2");
    let (total, before) = s.expect(|l| l.starts_with("Nodes searched:"));
    assert_eq!(total, "Nodes searched: 568");
    assert!(before.contains(&"e1g1: 23".to_string()), "{before:?}");
    assert_eq!(before.iter().filter(|l| l.contains(": ")).count(), 26);
    // Searching still works after a perft.
    s.send("go depth 2");
    let mv = s.bestmove();
    assert_legal("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", &mv);
    s.finish();
}

#[test]
fn bad_go_arguments_still_answer_bestmove() {
    let mut s = Session::new();
    // The good limit still applies.
    s.send("go depth banana nodes 2000 sideways");
    let (_, before) = s.expect(|l| l.starts_with("bestmove"));
    let errors = before
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .count();
    assert_eq!(errors, 3, "{before:?}");
    // Nothing usable left: an infinite search, answered after stop.
    s.send("go depth banana");
    let mv = s.stop_running_search();
    assert_legal("startpos", &mv);
    s.finish();
}

#[test]
fn eval_and_display_helpers() {
    let mut s = Session::new();
    s.send("eval");
    let (line, _) = s.expect(|l| l.starts_with("info string eval "));
    assert!(line.ends_with("cp (side to move)"), "{line}");
    s.send("d");
    s.expect(|l| l == "Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    s.finish();
}

fn cp_of(line: &str, key: &str) -> i32 {
    line.strip_prefix(&format!("info string {key} "))
        .and_then(|r| r.strip_suffix(" cp (side to move)"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not a {key} line: {line}"))
}

#[test]
fn qeval_resolves_captures_and_follows_setoption() {
    let mut s = Session::new();
    // White's rook takes the undefended queen: the static eval is a queen
    // for a rook down, the quiescence score a rook up. (Pawns on the board:
    // without them the winnability sum halves a queen-for-rook edge.)
    s.send("position fen 4k3/pp6/8/3q4/8/8/PP6/3RK3 w - - 0 1");
    s.send("eval");
    let (line, _) = s.expect(|l| l.starts_with("info string eval "));
    let eval = cp_of(&line, "eval");
    s.send("qeval");
    let (line, _) = s.expect(|l| l.starts_with("info string qeval "));
    let qeval = cp_of(&line, "qeval");
    assert!(eval < -300, "eval {eval}");
    assert!(qeval > 300, "qeval {qeval}");
    s.send("setoption name material_rook_eg value 1000");
    s.send("qeval");
    let (line, _) = s.expect(|l| l.starts_with("info string qeval "));
    let tuned = cp_of(&line, "qeval");
    assert!(tuned > qeval + 300, "{qeval} -> {tuned}");
    s.finish();
}

/// Same position, parameters and `ucinewgame` state: same move and the same
/// node count, at a fixed depth and at a fixed node budget.
#[test]
fn fixed_depth_and_node_searches_are_repeatable() {
    let run = |go: &str| {
        let mut s = Session::new();
        s.send("ucinewgame");
        s.send("position startpos moves e2e4 c7c5 g1f3");
        s.send(go);
        let (best, before) = s.expect(|l| l.starts_with("bestmove"));
        s.finish();
        let nodes = last_info(&before)
            .and_then(|l| nodes_of(l))
            .map(str::to_string);
        (best, nodes)
    };
    for go in ["go depth 4", "go nodes 3000"] {
        let a = run(go);
        assert!(a.1.is_some(), "{go}: no info line with nodes");
        assert_eq!(a, run(go), "{go}");
    }
}

/// The last `info ... pv` before `bestmove` starts with the move played,
/// also when the move comes from an iteration cut short by the node limit
/// (fastchess warns "Bestmove does not match beginning of last PV"). Each
/// case below played a move from an unfinished iteration without a `pv`
/// line for it before the fix.
#[test]
fn last_pv_starts_with_the_move_played() {
    let mut s = Session::new();
    let cases = [
        ("8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1", 17500),
        (
            "rnbqkb1r/pppp1ppp/8/4P3/6n1/7P/PPPNPPP1/R1BQKBNR b KQkq - 0 1",
            7300,
        ),
        (
            "3q1rk1/p4pp1/2pb3p/3p4/6Pr/1PNQ4/P1PB1PP1/4RRK1 b - - 0 1",
            500,
        ),
        ("startpos", 3000),
    ];
    for (fen, nodes) in cases {
        s.send("ucinewgame");
        if fen == "startpos" {
            s.send("position startpos");
        } else {
            s.send(&format!("position fen {fen}"));
        }
        s.send(&format!("go nodes {nodes}"));
        let (line, before) = s.expect(|l| l.starts_with("bestmove"));
        let best = line.split_whitespace().nth(1).unwrap();
        let pv_line = before
            .iter()
            .rev()
            .find(|l| l.starts_with("info") && l.contains(" pv "))
            .unwrap_or_else(|| panic!("{fen} nodes {nodes}: no pv line in {before:?}"));
        let first = pv_line
            .split(" pv ")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next();
        assert_eq!(first, Some(best), "{fen} nodes {nodes}: {pv_line}");
    }
    s.finish();
}

#[test]
fn uci_chess960_reads_x_fen_and_writes_king_takes_rook() {
    let mut s = Session::new();
    s.send("uci");
    let (_, before) = s.expect(|l| l == "uciok");
    assert!(before.contains(&"option name UCI_Chess960 type check default false".to_string()));
    // Off (the default): a Chess960 castling field is refused.
    let inner = "rk2r2r/pppppppp/8/8/8/8/PPPPPPPP/RK2R2R w EQeq - 0 1";
    s.send(&format!("position fen {inner}"));
    let errors = s.sync();
    assert!(
        errors.len() == 1 && errors[0].contains("castling rights"),
        "{errors:?}"
    );
    s.send("setoption name UCI_Chess960 value maybe");
    assert!(s.sync()[0].contains("option UCI_Chess960: invalid value 'maybe'"));
    s.send("setoption name uci_chess960 value true");
    s.send(&format!("position fen {inner}"));
    assert_eq!(s.sync(), Vec::<String>::new());
    s.send("go perft 1");
    let (total, divide) = s.expect(|l| l.starts_with("Nodes searched:"));
    assert_eq!(total, "Nodes searched: 25");
    // Short castling with the inner e1 rook, long with a1: king takes rook.
    assert!(divide.contains(&"b1e1: 1".to_string()), "{divide:?}");
    assert!(divide.contains(&"b1a1: 1".to_string()), "{divide:?}");
    // Moves in and out in the same notation: searchmoves, bestmove, pv.
    s.send("go searchmoves b1e1 depth 3");
    let (best, infos) = s.expect(|l| l.starts_with("bestmove"));
    assert!(best.starts_with("bestmove b1e1"), "{best}");
    assert!(infos.iter().any(|l| l.contains(" pv b1e1")), "{infos:?}");
    s.send("go searchmoves b1g1 depth 1");
    let (_, before) = s.expect(|l| l.starts_with("bestmove"));
    assert!(
        before
            .iter()
            .any(|l| l.contains("searchmoves: illegal move 'b1g1'")),
        "{before:?}"
    );
    s.send(&format!("position fen {inner} moves b1e1 e8f8"));
    s.send("d");
    let (fen, _) = s.expect(|l| l.starts_with("Fen: "));
    assert_eq!(fen, "Fen: rk3r1r/pppppppp/8/8/8/8/PPPPPPPP/R4RKR w q - 2 2");
    // The standard start in Chess960 mode: castling is still king-takes-rook.
    s.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    s.send("go perft 1");
    let (_, divide) = s.expect(|l| l.starts_with("Nodes searched:"));
    assert!(divide.contains(&"e1h1: 1".to_string()), "{divide:?}");
    s.send("setoption name UCI_Chess960 value false");
    s.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    s.send("go perft 1");
    let (_, divide) = s.expect(|l| l.starts_with("Nodes searched:"));
    assert!(divide.contains(&"e1g1: 1".to_string()), "{divide:?}");
    s.finish();
}
