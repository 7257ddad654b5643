//! A complete game of the built binary against itself over pipes, as a GUI
//! or match runner would drive it: every `bestmove` must be legal, and the
//! game must end by the rules or reach 200 plies without protocol errors.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use karsinta_engine::board::position::GameState;
use karsinta_engine::Position;

struct Engine {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_karsinta-engine"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("engine starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, cmd: &str) {
        writeln!(self.stdin, "{cmd}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first one starting with `prefix`. The
    /// timeout only guards against a hang.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no '{prefix}' from the engine; got {seen:?}"));
            assert!(
                !line.starts_with("info string error"),
                "engine reported: {line}"
            );
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }
}

#[test]
fn engine_plays_a_full_game_against_itself() {
    let mut e = Engine::start();
    e.send("uci");
    e.until("uciok");
    e.send("setoption name Hash value 8");
    e.send("ucinewgame");
    e.send("isready");
    e.until("readyok");

    let mut pos = Position::startpos();
    let mut moves: Vec<String> = Vec::new();
    let (mut wtime, mut btime) = (1000i64, 1000i64);
    while pos.state() == GameState::Ongoing && moves.len() < 200 {
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        // Alternate the limit kinds a match runner uses.
        let go = match moves.len() % 3 {
            0 => "go depth 3".to_string(),
            1 => "go nodes 3000".to_string(),
            _ => format!("go wtime {wtime} btime {btime} winc 20 binc 20"),
        };
        e.send(&go);
        let out = e.until("bestmove");
        for info in out.iter().filter(|l| l.starts_with("info depth")) {
            assert!(
                info.contains(" score ") && info.contains(" nodes "),
                "{info}"
            );
        }
        let best = out
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string();
        if let Err(err) = pos.play_uci(&best) {
            panic!("illegal bestmove after {}: {err}", moves.join(" "));
        }
        moves.push(best);
        // Keep the clocks plausible without timing anything.
        if moves.len() % 2 == 1 {
            wtime = (wtime - 10).max(300);
        } else {
            btime = (btime - 10).max(300);
        }
    }
    // A finished game gets `bestmove 0000` when there is no move left.
    if matches!(pos.state(), GameState::Checkmate | GameState::Stalemate) {
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        e.send("go depth 2");
        let out = e.until("bestmove");
        assert_eq!(out.last().unwrap(), "bestmove 0000");
    }
    e.send("quit");
    let status = e.child.wait().unwrap();
    assert!(status.success());
    assert!(
        moves.len() >= 10,
        "game too short to mean anything: {moves:?}"
    );
    eprintln!(
        "self-play: {} plies, {:?}: {}",
        moves.len(),
        pos.state(),
        moves.join(" ")
    );
}
