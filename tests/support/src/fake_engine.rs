//! A scriptable UCI engine for the harness's fault tests: it plays legal
//! moves (a seeded choice among shakmaty's legal moves, no search) and can
//! be told by flags to misbehave in each way a real engine can: crash at
//! start or mid-game, hang, answer `isready` slowly, play an illegal move,
//! print garbage, exit on `ucinewgame`, or think too long.
//!
//! With `--xboard` it speaks CECP v2 instead, announcing the features it is
//! given, rejecting the commands it is told not to know, logging what it
//! receives (`--input-log`) and resigning when told.
//!
//! With `--karsinta-uci` it is instead exactly `karsinta-engine`'s UCI
//! front end (the library's `uci::run` with default parameters), so tests
//! can reach the real engine over a pipe through a binary Cargo builds
//! for the package under test.
//!
//! It can also report wrong PVs (`--mate-pv-after`, `--illegal-pv-after`)
//! for the referee's PV checks.
//!
//! "After N" faults count the moves this process has answered: with
//! `--crash-after 2` the third `go` crashes. A restarted process counts
//! from zero again, which is how the tests see that a player restarted.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use clap::Parser;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, FromSetup, Position, Square};

/// Command-line flags: each fault is off unless given.
#[derive(Parser, Debug)]
#[command(
    name = "karsinta-fake-engine",
    version,
    about = "Misbehaving UCI engine for tests"
)]
struct Args {
    /// Exit with status 3 before answering anything.
    #[arg(long)]
    crash_at_start: bool,
    /// Count starts in FILE (one line per start) and exit with status 3 at
    /// start once it already holds N starts: an engine that stops being
    /// able to start, e.g. after its binary was deleted.
    #[arg(long, value_names = ["N", "FILE"], num_args = 2)]
    starts_allowed: Option<Vec<String>>,
    /// Never send `uciok`.
    #[arg(long)]
    no_uciok: bool,
    /// Exit with status 3 on the `go` after N answered moves.
    #[arg(long, value_name = "N")]
    crash_after: Option<u64>,
    /// Stop answering anything from the `go` after N answered moves.
    #[arg(long, value_name = "N")]
    hang_after: Option<u64>,
    /// Answer with a well-formed illegal move after N answered moves.
    #[arg(long, value_name = "N")]
    illegal_after: Option<u64>,
    /// Answer with garbage and a malformed `bestmove` after N answered moves.
    #[arg(long, value_name = "N")]
    malformed_after: Option<u64>,
    /// Stop reading input (and answering) once N moves are answered.
    #[arg(long, value_name = "N")]
    deaf_after: Option<u64>,
    /// Wait this long before each `readyok`.
    #[arg(long, value_name = "MS")]
    slow_isready: Option<u64>,
    /// Exit with status 0 on the N-th `ucinewgame` (1 = the first).
    #[arg(long, value_name = "N")]
    exit_on_ucinewgame: Option<u64>,
    /// Wait this long before each `bestmove`.
    #[arg(long, value_name = "MS")]
    slow_bestmove: Option<u64>,
    /// Answer `bestmove (none)` after N answered moves.
    #[arg(long, value_name = "N")]
    none_after: Option<u64>,
    /// Send `bestmove` followed by an `info string` line, in one write.
    #[arg(long)]
    trailing_info: bool,
    /// Speak xboard (CECP v2) instead of UCI.
    #[arg(long)]
    xboard: bool,
    /// xboard: what follows `feature` in the answer to `protover` (then
    /// `feature done=1` follows).
    #[arg(
        long,
        default_value = "myname=\"Karsinta Fake Engine\" ping=1 setboard=1"
    )]
    features: String,
    /// xboard: answer this command with `Error (unknown command)` (repeatable).
    #[arg(long, value_name = "COMMAND")]
    unknown: Vec<String>,
    /// xboard: resign instead of moving after N answered moves.
    #[arg(long, value_name = "N")]
    resign_after: Option<u64>,
    /// xboard: with `--resign-after`, send a move first and `resign` after
    /// it, in one write (as Fairy-Max does).
    #[arg(long)]
    resign_with_move: bool,
    /// xboard: append every line received to this file.
    #[arg(long, value_name = "PATH")]
    input_log: Option<PathBuf>,
    /// Score reported in the `info` line before each move.
    #[arg(long, default_value_t = 12)]
    score_cp: i32,
    /// Report `score mate 3` with a one-move PV (not the mate: an
    /// incomplete mating PV) after N answered moves.
    #[arg(long, value_name = "N")]
    mate_pv_after: Option<u64>,
    /// Report a PV whose second move is illegal (`a1a1`) after N answered moves.
    #[arg(long, value_name = "N")]
    illegal_pv_after: Option<u64>,
    /// Seed of the move choice (0: always the first legal move).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the process id to this file at start.
    #[arg(long, value_name = "PATH")]
    pid_file: Option<PathBuf>,
    /// Be the real engine: run `karsinta-engine`'s UCI loop (other flags
    /// are ignored).
    #[arg(long)]
    karsinta_uci: bool,
}

/// The fake engine's entry point: flags from the command line, protocol on
/// stdin and stdout. A fixture's `examples/karsinta-fake-engine.rs` calls it.
pub fn main() -> ExitCode {
    let args = Args::parse();
    if args.karsinta_uci {
        karsinta_engine::uci::run(
            io::stdin().lock(),
            karsinta_engine::uci::SharedWriter::stdout(),
            karsinta_engine::Params::default(),
        );
        return ExitCode::SUCCESS;
    }
    eprintln!("fake engine {} starting", std::process::id());
    if let Some(path) = &args.pid_file {
        if let Err(e) = std::fs::write(path, std::process::id().to_string()) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if args.crash_at_start {
        return ExitCode::from(3);
    }
    if let Some([n, file]) = args.starts_allowed.as_deref() {
        let allowed: usize = n.parse().unwrap_or(0);
        let seen = std::fs::read_to_string(file).map_or(0, |t| t.lines().count());
        if seen >= allowed {
            return ExitCode::from(3);
        }
        let line = format!("{}\n", std::process::id());
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if appended.is_err() {
            return ExitCode::from(2);
        }
    }
    let result = if args.xboard {
        run_xboard(&args)
    } else {
        run(&args)
    };
    match result {
        Ok(code) => code,
        // The harness closed the pipe: nothing more to do.
        Err(_) => ExitCode::SUCCESS,
    }
}

fn hang() -> ! {
    loop {
        thread::sleep(Duration::from_secs(3600));
    }
}

/// Whether an "after N" fault is due after `n` answered moves.
fn reached(limit: Option<u64>, n: u64) -> bool {
    limit.is_some_and(|l| n >= l)
}

fn run(args: &Args) -> io::Result<ExitCode> {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut pos = Chess::default();
    let mut answered: u64 = 0;
    let mut newgames: u64 = 0;
    for line in stdin.lock().lines() {
        let line = line?;
        let mut tokens = line.split_ascii_whitespace();
        match tokens.next() {
            Some("uci") => {
                writeln!(out, "id name Karsinta Fake Engine")?;
                writeln!(out, "id author the Karsinta developers")?;
                writeln!(out, "option name Hash type spin default 1 min 1 max 64")?;
                writeln!(out, "option name Threads type spin default 1 min 1 max 64")?;
                if args.no_uciok {
                    out.flush()?;
                    hang();
                }
                writeln!(out, "uciok")?;
            }
            Some("isready") => {
                if let Some(ms) = args.slow_isready {
                    thread::sleep(Duration::from_millis(ms));
                }
                writeln!(out, "readyok")?;
            }
            Some("ucinewgame") => {
                newgames += 1;
                if args.exit_on_ucinewgame == Some(newgames) {
                    return Ok(ExitCode::SUCCESS);
                }
            }
            Some("position") => match parse_position(tokens) {
                Some(p) => pos = p,
                None => writeln!(out, "info string bad position command")?,
            },
            Some("go") => {
                if reached(args.crash_after, answered) {
                    writeln!(out, "info depth 1 score cp 0")?;
                    out.flush()?;
                    return Ok(ExitCode::from(3));
                }
                if reached(args.hang_after, answered) {
                    out.flush()?;
                    hang();
                }
                if let Some(ms) = args.slow_bestmove {
                    thread::sleep(Duration::from_millis(ms));
                }
                if reached(args.none_after, answered) {
                    writeln!(out, "bestmove (none)")?;
                    out.flush()?;
                    continue;
                }
                let mv = if reached(args.malformed_after, answered) {
                    writeln!(out, "info depth banana score cp")?;
                    writeln!(out, "\u{1}\u{2} garbage \u{fffd}")?;
                    "e2e9x".to_string()
                } else if reached(args.illegal_after, answered) {
                    illegal_move(&pos)
                } else {
                    choose_move(&pos, args.seed)
                };
                let (score, pv) = if reached(args.mate_pv_after, answered) {
                    ("mate 3".to_string(), mv.clone())
                } else if reached(args.illegal_pv_after, answered) {
                    (format!("cp {}", args.score_cp), format!("{mv} a1a1"))
                } else {
                    (format!("cp {}", args.score_cp), mv.clone())
                };
                // One write: a reader must not wait for more after `bestmove`.
                let mut reply = format!(
                    "info depth 1 seldepth 2 score {score} nodes 1 time 0 pv {pv}\nbestmove {mv}\n"
                );
                if args.trailing_info {
                    reply.push_str("info string search done\n");
                }
                out.write_all(reply.as_bytes())?;
                answered += 1;
                if reached(args.deaf_after, answered) {
                    out.flush()?;
                    hang();
                }
            }
            Some("quit") => return Ok(ExitCode::SUCCESS),
            _ => {}
        }
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The xboard loop: just enough of CECP v2 to be driven by the harness.
fn run_xboard(args: &Args) -> io::Result<ExitCode> {
    let mut out = io::stdout().lock();
    let mut log = match &args.input_log {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?,
        ),
        None => None,
    };
    let mut pos = Chess::default();
    let mut answered: u64 = 0;
    let mut lines = io::stdin().lock().lines();
    while let Some(line) = lines.next() {
        let line = line?;
        if let Some(log) = &mut log {
            writeln!(log, "{line}")?;
        }
        let mut tokens = line.split_ascii_whitespace();
        let Some(command) = tokens.next() else {
            continue;
        };
        if args.unknown.iter().any(|u| u == command) {
            writeln!(out, "Error (unknown command): {command}")?;
            out.flush()?;
            continue;
        }
        match command {
            "xboard" | "accepted" | "rejected" | "force" | "post" | "nopost" | "easy" | "hard"
            | "level" | "st" | "sd" | "depth" | "nps" | "time" | "otim" | "memory" | "cores"
            | "option" | "result" => {}
            "protover" => write!(out, "feature {}\nfeature done=1\n", args.features)?,
            "ping" => writeln!(out, "pong {}", tokens.next().unwrap_or("0"))?,
            "new" => pos = Chess::default(),
            "setboard" => {
                let fen = line["setboard".len()..].trim();
                match Fen::from_ascii(fen.as_bytes())
                    .ok()
                    .and_then(|f| f.into_position(CastlingMode::Standard).ok())
                {
                    Some(p) => pos = p,
                    None => writeln!(out, "tellusererror Illegal position")?,
                }
            }
            "edit" => {
                let mut board = pos.board().clone();
                let mut color = shakmaty::Color::White;
                for line in lines.by_ref() {
                    let line = line?;
                    if let Some(log) = &mut log {
                        writeln!(log, "{line}")?;
                    }
                    match line.trim() {
                        "." => break,
                        "#" => board = shakmaty::Board::empty(),
                        "c" => color = !color,
                        piece => {
                            let role = piece
                                .chars()
                                .next()
                                .and_then(|c| shakmaty::Role::from_char(c.to_ascii_lowercase()));
                            let square = piece.get(1..).and_then(|s| s.parse::<Square>().ok());
                            if let (Some(role), Some(square)) = (role, square) {
                                board.set_piece_at(square, shakmaty::Piece { color, role });
                            }
                        }
                    }
                }
                // Like Fairy-Max: kings and rooks on their home squares may castle.
                let mut setup = shakmaty::Setup::empty();
                setup.castling_rights = board.rooks() & shakmaty::Bitboard::CORNERS;
                setup.board = board;
                setup.turn = pos.turn();
                let edited = match Chess::from_setup(setup, CastlingMode::Standard) {
                    Ok(p) => Some(p),
                    Err(e) => e.ignore_invalid_castling_rights().ok(),
                };
                match edited {
                    Some(p) => pos = p,
                    None => writeln!(out, "tellusererror Illegal position")?,
                }
            }
            "go" => {
                if reached(args.resign_after, answered) {
                    let mut reply = String::new();
                    if args.resign_with_move {
                        reply = format!("move {}\n", choose_move(&pos, args.seed));
                    }
                    reply.push_str("resign\n");
                    out.write_all(reply.as_bytes())?;
                } else {
                    let mv = choose_move(&pos, args.seed);
                    play(&mut pos, &mv);
                    write!(out, "1 {} 0 1 {mv}\nmove {mv}\n", args.score_cp)?;
                    answered += 1;
                }
            }
            "quit" => return Ok(ExitCode::SUCCESS),
            "usermove" => {
                let mv = tokens.next().unwrap_or("");
                if !play(&mut pos, mv) {
                    writeln!(out, "Illegal move: {mv}")?;
                }
            }
            other => {
                if !play(&mut pos, other) {
                    writeln!(out, "Error (unknown command): {other}")?;
                }
            }
        }
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Play `text` (UCI notation) if it is a legal move in `pos`.
fn play(pos: &mut Chess, text: &str) -> bool {
    match UciMove::from_ascii(text.as_bytes())
        .ok()
        .and_then(|u| u.to_move(pos).ok())
    {
        Some(mv) => {
            pos.play_unchecked(mv);
            true
        }
        None => false,
    }
}

/// `position startpos|fen F [moves ...]` -> the position, if valid.
fn parse_position<'a>(mut tokens: impl Iterator<Item = &'a str>) -> Option<Chess> {
    let mut pos: Chess = match tokens.next()? {
        "startpos" => {
            let next = tokens.next();
            if next.is_some_and(|t| t != "moves") {
                return None;
            }
            Chess::default()
        }
        "fen" => {
            let mut fen = String::new();
            for t in tokens.by_ref() {
                if t == "moves" {
                    break;
                }
                if !fen.is_empty() {
                    fen.push(' ');
                }
                fen.push_str(t);
            }
            Fen::from_ascii(fen.as_bytes())
                .ok()?
                .into_position(CastlingMode::Standard)
                .ok()?
        }
        _ => return None,
    };
    for t in tokens {
        let mv = UciMove::from_ascii(t.as_bytes()).ok()?.to_move(&pos).ok()?;
        pos.play_unchecked(mv);
    }
    Some(pos)
}

/// A legal move picked by a hash of the seed and the position's ply.
fn choose_move(pos: &Chess, seed: u64) -> String {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return "0000".to_string();
    }
    let index = if seed == 0 {
        0
    } else {
        let ply = u64::from(pos.fullmoves().get()) * 2 + u64::from(pos.turn().is_black());
        let h =
            (seed ^ ply.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        (h >> 33) as usize % moves.len()
    };
    UciMove::from_move(moves[index], CastlingMode::Standard).to_string()
}

/// A well-formed move that is not legal in `pos`.
fn illegal_move(pos: &Chess) -> String {
    let legal: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string())
        .collect();
    for from in Square::ALL {
        for to in Square::ALL {
            let text = format!("{from}{to}");
            if from != to && !legal.contains(&text) {
                return text;
            }
        }
    }
    "a1a2".to_string()
}
