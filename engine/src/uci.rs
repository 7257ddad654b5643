//! The UCI front end: translates protocol text into calls on [`Position`],
//! [`Searcher`] and [`Params`] and their results back into text. It owns no
//! chess logic.
//!
//! The loop reads lines (as bytes, so invalid UTF-8 cannot stop it) from any
//! `BufRead` and writes whole lines to a shared writer. Searches run on their
//! own thread, which hands the [`Searcher`] back when it finishes, so `stop`,
//! `isready` and `quit` are answered while searching. Option changes made
//! during a search (`Hash`, `Threads`, the parameters) are applied when it
//! ends, before the next `go`. Every `go` gets exactly one
//! `bestmove`; bad input gets `info string error: ...` and changes nothing.
//!
//! Option names are case-insensitive, as the protocol says. The engine
//! advertises no `Ponder` option, so a conforming GUI never sends
//! `go ponder`; if one does, it is searched as a plain `go` with the given
//! limits, and `ponderhit` is ignored.

use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::board::perft::{divide_total, perft_divide_until};
use crate::board::position::{legal_moves, move_to_uci, parse_uci_move};
use crate::search::tablebase::{Tablebases, PROBE_LIMIT_DEFAULT};
pub use crate::search::tt::{HASH_DEFAULT_MB, HASH_MAX_MB, HASH_MIN_MB};
use crate::search::types::{Limits, Score};
use crate::search::{SearchInfo, SearchResult, Searcher, SEARCH_STACK_BYTES, THREADS_MAX};
use crate::{Params, Position};

/// Engine name as reported by `uci`.
pub const ENGINE_NAME: &str = concat!("Karsinta ", env!("CARGO_PKG_VERSION"));
/// Engine author as reported by `uci`.
pub const ENGINE_AUTHOR: &str = "the Karsinta authors";

/// A writer shared by the input loop and the search thread. Each protocol
/// line is written and flushed under the lock, so lines never interleave.
#[derive(Clone)]
pub struct SharedWriter(Arc<Mutex<Box<dyn Write + Send>>>);

impl SharedWriter {
    /// Share any writer (a test buffer, a pipe).
    pub fn new(w: impl Write + Send + 'static) -> Self {
        SharedWriter(Arc::new(Mutex::new(Box::new(w))))
    }

    /// Standard output.
    pub fn stdout() -> Self {
        Self::new(std::io::stdout())
    }

    /// Write one line (a newline is added) and flush. Output errors are
    /// ignored: a GUI that closed its end cannot be told anything anyway.
    pub fn line(&self, text: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(w, "{text}");
        let _ = w.flush();
    }
}

/// A search in flight: its thread returns the searcher when done.
struct Running {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Option<Searcher>>,
}

/// The protocol state between commands.
pub struct UciEngine {
    out: SharedWriter,
    params: Params,
    hash_mb: usize,
    threads: usize,
    position: Position,
    /// `None` while a search thread holds it.
    searcher: Option<Searcher>,
    running: Option<Running>,
    /// Changes to apply before the next search (made while one was running).
    pending_params: bool,
    pending_hash: bool,
    pending_threads: bool,
    pending_clear: bool,
    /// `SyzygyPath` (empty: none) and `SyzygyProbeLimit`, and the tables
    /// they open, handed to the searcher when `pending_tb` is set.
    syzygy_path: String,
    probe_limit: u32,
    tablebases: Option<Arc<Tablebases>>,
    pending_tb: bool,
    /// `UCI_Chess960`: the next `position` is read as Chess960.
    chess960: bool,
}

/// Run the UCI loop until `quit` or end of input, then stop any search and
/// return once its `bestmove` is written.
pub fn run<R: BufRead>(input: R, out: SharedWriter, params: Params) {
    let mut engine = UciEngine::new(out, params);
    engine.run(input);
}

impl UciEngine {
    /// A fresh engine at the start position with `params` and default Hash.
    pub fn new(out: SharedWriter, params: Params) -> Self {
        let searcher = Searcher::new(params.clone());
        UciEngine {
            out,
            params,
            hash_mb: HASH_DEFAULT_MB,
            threads: 1,
            position: Position::startpos(),
            searcher: Some(searcher),
            running: None,
            pending_params: false,
            // The searcher was built with the default size already.
            pending_hash: false,
            pending_threads: false,
            pending_clear: false,
            syzygy_path: String::new(),
            probe_limit: PROBE_LIMIT_DEFAULT,
            tablebases: None,
            pending_tb: false,
            chess960: false,
        }
    }

    /// The current parameter set (as changed by `setoption`).
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The `Hash` size in MiB: the table in use, or the size set while a
    /// search runs, which takes effect when it ends.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// The `Threads` setting, in use or to be used once a running search
    /// ends.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Read and handle lines until `quit` or end of input.
    pub fn run<R: BufRead>(&mut self, mut input: R) {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            let line = String::from_utf8_lossy(&buf);
            if !self.handle_line(&line) {
                break;
            }
        }
        self.stop_search();
    }

    /// Handle one input line; returns false on `quit`.
    pub fn handle_line(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = tokens.first() else {
            return true;
        };
        let args = &tokens[1..];
        self.reap_finished();
        match cmd {
            "uci" => self.cmd_uci(),
            "isready" => self.out.line("readyok"),
            "ucinewgame" => {
                self.pending_clear = true;
                self.apply_pending();
            }
            "position" => self.cmd_position(args),
            "go" => self.cmd_go(args),
            "stop" => {
                if let Some(r) = &self.running {
                    r.stop.store(true, Ordering::SeqCst);
                }
            }
            "quit" => return false,
            "setoption" => self.cmd_setoption(args),
            "d" => self.cmd_display(),
            "eval" => self.cmd_eval(),
            "qeval" => self.cmd_qeval(),
            // Accepted and ignored: no debug output, no registration, no pondering.
            "debug" | "register" | "ponderhit" => {}
            other => self.error(&format!("unknown command '{}'", sanitize(other))),
        }
        true
    }

    fn error(&self, msg: &str) {
        self.out.line(&format!("info string error: {msg}"));
    }

    fn cmd_uci(&self) {
        self.out.line(&format!("id name {ENGINE_NAME}"));
        self.out.line(&format!("id author {ENGINE_AUTHOR}"));
        self.out.line(&format!(
            "option name Hash type spin default {HASH_DEFAULT_MB} min {HASH_MIN_MB} max {HASH_MAX_MB}"
        ));
        self.out.line(&format!(
            "option name Threads type spin default 1 min 1 max {THREADS_MAX}"
        ));
        self.out.line("option name Clear Hash type button");
        self.out
            .line("option name SyzygyPath type string default <empty>");
        self.out.line(&format!(
            "option name SyzygyProbeLimit type spin default {PROBE_LIMIT_DEFAULT} min 0 max 7"
        ));
        self.out
            .line("option name UCI_Chess960 type check default false");
        for line in self.params.uci_options() {
            self.out.line(&line);
        }
        self.out.line("uciok");
    }

    fn cmd_position(&mut self, args: &[&str]) {
        match parse_position(args, self.chess960) {
            Ok(pos) => self.position = pos,
            Err(msg) => self.error(&format!("{msg} (position unchanged)")),
        }
    }

    fn cmd_setoption(&mut self, args: &[&str]) {
        // setoption name <id with spaces> [value <text with spaces>]
        if args.first() != Some(&"name") {
            return self.error("setoption needs 'name <id> [value <x>]'");
        }
        let value_at = args.iter().position(|&t| t == "value");
        let name = args[1..value_at.unwrap_or(args.len())].join(" ");
        let value = value_at.map(|i| args[i + 1..].join(" "));
        if name.is_empty() {
            return self.error("setoption without an option name");
        }
        if name.eq_ignore_ascii_case("Hash") {
            let parsed = value.as_deref().and_then(|v| v.parse::<usize>().ok());
            match parsed {
                Some(mb) if (HASH_MIN_MB..=HASH_MAX_MB).contains(&mb) => {
                    self.hash_mb = mb;
                    self.pending_hash = true;
                }
                _ => self.error(&format!(
                    "option Hash: invalid value '{}' (allowed: {HASH_MIN_MB}..={HASH_MAX_MB})",
                    sanitize(value.as_deref().unwrap_or(""))
                )),
            }
        } else if name.eq_ignore_ascii_case("Threads") {
            let parsed = value.as_deref().and_then(|v| v.parse::<usize>().ok());
            match parsed {
                Some(n) if (1..=THREADS_MAX).contains(&n) => {
                    self.threads = n;
                    self.pending_threads = true;
                }
                _ => self.error(&format!(
                    "option Threads: invalid value '{}' (allowed: 1..={THREADS_MAX})",
                    sanitize(value.as_deref().unwrap_or(""))
                )),
            }
        } else if name.eq_ignore_ascii_case("Clear Hash") {
            self.pending_clear = true;
        } else if name.eq_ignore_ascii_case("SyzygyPath") {
            let path = value.unwrap_or_default();
            self.syzygy_path = if path == "<empty>" {
                String::new()
            } else {
                path
            };
            self.open_tablebases();
        } else if name.eq_ignore_ascii_case("UCI_Chess960") {
            match value.as_deref().map(str::to_ascii_lowercase).as_deref() {
                Some("true") => self.chess960 = true,
                Some("false") => self.chess960 = false,
                _ => self.error(&format!(
                    "option UCI_Chess960: invalid value '{}' (allowed: true, false)",
                    sanitize(value.as_deref().unwrap_or(""))
                )),
            }
        } else if name.eq_ignore_ascii_case("SyzygyProbeLimit") {
            match value.as_deref().and_then(|v| v.parse::<u32>().ok()) {
                Some(n) if n <= 7 => {
                    self.probe_limit = n;
                    self.open_tablebases();
                }
                _ => self.error(&format!(
                    "option SyzygyProbeLimit: invalid value '{}' (allowed: 0..=7)",
                    sanitize(value.as_deref().unwrap_or(""))
                )),
            }
        } else {
            let Some(value) = value else {
                return self.error(&format!("option '{}' needs a value", sanitize(&name)));
            };
            // Table names are lowercase snake_case; UCI names ignore case.
            match self.params.set_by_name(&name.to_ascii_lowercase(), &value) {
                Ok(()) => self.pending_params = true,
                Err(e) => return self.error(&sanitize(&e.to_string())),
            }
        }
        self.apply_pending();
    }

    fn cmd_display(&self) {
        for line in self.position.pretty().lines() {
            self.out.line(line);
        }
        self.out.line(&format!("Fen: {}", self.position.to_fen()));
        self.out.line(&format!("Key: {:016x}", self.position.key()));
        self.out
            .line(&format!("State: {:?}", self.position.state()));
    }

    fn cmd_eval(&self) {
        let cp = crate::eval::evaluate(self.position.board(), &self.params.eval);
        self.out
            .line(&format!("info string eval {cp} cp (side to move)"));
    }

    /// The quiescence search's score of the current position (the searcher's
    /// parameters are the current options: `apply_pending` runs after every
    /// `setoption` while no search holds the searcher).
    fn cmd_qeval(&mut self) {
        self.reap_finished();
        let Some(s) = self.searcher.as_mut() else {
            return self.error("qeval: a search is running");
        };
        let leaf = s.quiet_leaf(self.position.board());
        let text = match crate::search::types::Score::from_internal(leaf.score) {
            crate::search::types::Score::Cp(cp) => format!("{cp} cp"),
            crate::search::types::Score::Mate(n) => format!("mate {n}"),
        };
        self.out
            .line(&format!("info string qeval {text} (side to move)"));
    }

    /// Open the tables `SyzygyPath` names, with the probe limit; a path
    /// that cannot be used is reported and leaves the engine without tables.
    fn open_tablebases(&mut self) {
        self.pending_tb = true;
        self.tablebases = None;
        if self.syzygy_path.is_empty() {
            return;
        }
        match Tablebases::open(&self.syzygy_path) {
            Ok(mut tb) => {
                tb.set_probe_limit(self.probe_limit);
                self.out.line(&format!(
                    "info string SyzygyPath: tables of up to {} pieces, probed up to {}",
                    tb.max_pieces(),
                    tb.cardinality()
                ));
                self.tablebases = Some(Arc::new(tb));
            }
            Err(e) => self.error(&sanitize(&format!(
                "option SyzygyPath: {e}; no tablebases in use"
            ))),
        }
    }

    /// Apply option changes to the searcher if no search holds it.
    fn apply_pending(&mut self) {
        let Some(s) = self.searcher.as_mut() else {
            return;
        };
        if self.pending_params {
            s.set_params(self.params.clone());
            self.pending_params = false;
        }
        if self.pending_hash {
            self.pending_hash = false;
            if let Err(e) = s.try_set_hash_mb(self.hash_mb) {
                let kept = s.hash_mb();
                let msg = format!(
                    "option Hash: cannot allocate {} MiB ({e}); keeping {kept} MiB",
                    self.hash_mb
                );
                self.hash_mb = kept;
                self.out.line(&format!("info string error: {msg}"));
            }
        }
        if self.pending_threads {
            s.set_threads(self.threads);
            self.pending_threads = false;
        }
        if self.pending_tb {
            s.set_tablebases(self.tablebases.clone());
            self.pending_tb = false;
        }
        if self.pending_clear {
            s.new_game();
            self.pending_clear = false;
        }
    }

    /// Take the searcher back from a search thread that has finished.
    fn reap_finished(&mut self) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.handle.is_finished())
        {
            self.join_search();
        }
    }

    /// Stop a running search (its `bestmove` is still written) and wait for it.
    pub fn stop_search(&mut self) {
        if let Some(r) = &self.running {
            r.stop.store(true, Ordering::SeqCst);
        }
        self.join_search();
    }

    fn join_search(&mut self) {
        if let Some(r) = self.running.take() {
            let returned = r.handle.join().ok().flatten();
            // A perft leaves the searcher here; a search hands it back, unless
            // it panicked, in which case start afresh.
            if self.searcher.is_none() {
                self.searcher = Some(returned.unwrap_or_else(|| {
                    self.pending_hash = true;
                    self.pending_threads = true;
                    Searcher::new(self.params.clone())
                }));
            }
            self.apply_pending();
        }
    }

    fn cmd_go(&mut self, args: &[&str]) {
        // The clock runs from here: stopping an old search and applying
        // option changes (a new Hash table, say) is spent on this move.
        let start = Instant::now();
        // A new `go` while searching: finish the old search first.
        self.stop_search();
        self.apply_pending();
        let GoCommand {
            mut limits,
            perft,
            searchmoves,
            errors,
        } = parse_go(args);
        for e in errors {
            self.error(&e);
        }
        limits.start = Some(start);
        for text in &searchmoves {
            match self.position.parse_uci(text) {
                Ok(mv) => limits.searchmoves.push(mv),
                Err(e) => self.error(&format!(
                    "go searchmoves: {} (skipped)",
                    sanitize(&e.to_string())
                )),
            }
        }
        if !searchmoves.is_empty() && limits.searchmoves.is_empty() {
            self.error("go searchmoves: no legal move given; searching all moves");
        }
        let stop = Arc::new(AtomicBool::new(false));
        let out = self.out.clone();
        let pos = self.position.clone();
        let thread_stop = Arc::clone(&stop);
        // The search recurses deeply; give it room beyond the 2 MiB default.
        let builder = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES);
        let spawned = if let Some(depth) = perft {
            builder.spawn(move || {
                run_perft(&pos, depth, &thread_stop, &out);
                None
            })
        } else {
            let mut searcher = self.searcher.take().expect("searcher present when idle");
            builder.spawn(move || {
                let ok = run_search(&mut searcher, &pos, &limits, &thread_stop, &out);
                ok.then_some(searcher)
            })
        };
        let handle = match spawned {
            Ok(h) => h,
            Err(e) => {
                // Without a thread there is no search; still answer the go.
                if self.searcher.is_none() {
                    self.searcher = Some(Searcher::new(self.params.clone()));
                    self.pending_hash = true;
                    self.pending_threads = true;
                }
                self.error(&format!("cannot start the search thread: {e}"));
                let legal = legal_moves(self.position.board());
                let best = legal
                    .first()
                    .map_or("0000".to_string(), |m| self.position.move_to_uci(*m));
                self.out.line(&format!("bestmove {best}"));
                return;
            }
        };
        self.running = Some(Running { stop, handle });
    }
}

/// The body of a search thread. Returns false if the search panicked (the
/// searcher may then be inconsistent); a legal `bestmove` is written anyway.
fn run_search(
    searcher: &mut Searcher,
    pos: &Position,
    limits: &Limits,
    stop: &AtomicBool,
    out: &SharedWriter,
) -> bool {
    let legal = legal_moves(pos.board());
    if legal.is_empty() {
        let score = if pos.board().checkers().is_empty() {
            "cp 0"
        } else {
            "mate 0"
        };
        out.line(&format!("info depth 0 score {score}"));
        wait_while_infinite(limits, stop);
        out.line("bestmove 0000");
        return true;
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut on_info = |info: &SearchInfo| out.line(&format_info(info));
        searcher.search(pos, limits, stop, &mut on_info)
    }));
    let (best, ponder, ok) = match result {
        Ok(r) => {
            let (best, ponder) = checked_best(pos, &r);
            if best.is_none() {
                out.line(&format!(
                    "info string error: search returned no legal move ({:?})",
                    r.best_move
                ));
            }
            (best, ponder, true)
        }
        Err(_) => {
            out.line("info string error: the search panicked; playing a legal move");
            (None, None, false)
        }
    };
    let best = best.unwrap_or_else(|| pos.move_to_uci(legal[0]));
    wait_while_infinite(limits, stop);
    match ponder {
        Some(p) => out.line(&format!("bestmove {best} ponder {p}")),
        None => out.line(&format!("bestmove {best}")),
    }
    ok
}

/// Under `go infinite` the protocol wants `bestmove` only after `stop`.
fn wait_while_infinite(limits: &Limits, stop: &AtomicBool) {
    while limits.infinite && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The search's best move and ponder move, both re-checked for legality and
/// normalised to the variant's UCI notation.
fn checked_best(pos: &Position, r: &SearchResult) -> (Option<String>, Option<String>) {
    let Some(text) = r.best_move.as_deref() else {
        return (None, None);
    };
    let Ok(mv) = pos.parse_uci(text) else {
        return (None, None);
    };
    let best = pos.move_to_uci(mv);
    let mut after = pos.board().clone();
    after.play_unchecked(mv);
    let chess960 = pos.chess960();
    let ponder = r
        .ponder
        .as_deref()
        .and_then(|p| parse_uci_move(&after, p, chess960).ok())
        .map(|p| move_to_uci(&after, p, chess960));
    (Some(best), ponder)
}

fn run_perft(pos: &Position, depth: u32, stop: &AtomicBool, out: &SharedWriter) {
    let start = Instant::now();
    let Some(divide) = perft_divide_until(pos.board(), depth, stop) else {
        out.line("info string perft stopped");
        return;
    };
    for (mv, n) in &divide {
        out.line(&format!("{}: {n}", pos.move_to_uci(*mv)));
    }
    let total = divide_total(&divide, depth);
    out.line("");
    out.line(&format!("Nodes searched: {total}"));
    let ms = start.elapsed().as_millis() as u64;
    out.line(&format!(
        "info string perft {depth} time {ms} ms nps {}",
        nps(total, ms)
    ));
}

/// Nodes per second from a node count and milliseconds.
pub fn nps(nodes: u64, ms: u64) -> u64 {
    (nodes as u128 * 1000 / ms.max(1) as u128) as u64
}

/// The `info ...` line of one finished iteration.
pub fn format_info(info: &SearchInfo) -> String {
    let score = match info.score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(m) => format!("mate {m}"),
    };
    let mut line = format!(
        "info depth {} seldepth {} score {score} nodes {} nps {} time {} hashfull {}",
        info.depth,
        info.seldepth,
        info.nodes,
        nps(info.nodes, info.time_ms),
        info.time_ms,
        info.hashfull
    );
    if info.tbhits > 0 {
        line.push_str(&format!(" tbhits {}", info.tbhits));
    }
    if !info.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&info.pv.join(" "));
    }
    line
}

/// Parse the arguments of `position`: `startpos | fen <fields> [moves m...]`,
/// as a Chess960 position when `chess960` (`UCI_Chess960`).
/// On error nothing is returned, so the caller keeps its old position.
pub fn parse_position(args: &[&str], chess960: bool) -> Result<Position, String> {
    let moves_at = args.iter().position(|&t| t == "moves");
    let setup = &args[..moves_at.unwrap_or(args.len())];
    let read = |fen: &str| {
        if chess960 {
            Position::from_fen_chess960(fen)
        } else {
            Position::from_fen(fen)
        }
        .map_err(|e| sanitize(&e.to_string()))
    };
    let mut pos = match setup.first() {
        Some(&"startpos") if setup.len() == 1 && !chess960 => Position::startpos(),
        Some(&"startpos") if setup.len() == 1 => read(&Position::startpos().to_fen())?,
        Some(&"startpos") => return Err("unexpected text after 'startpos'".into()),
        Some(&"fen") => read(&setup[1..].join(" "))?,
        Some(other) => {
            return Err(format!(
                "position needs 'startpos' or 'fen', got '{}'",
                sanitize(other)
            ))
        }
        None => return Err("position needs 'startpos' or 'fen'".into()),
    };
    if let Some(i) = moves_at {
        for (n, text) in args[i + 1..].iter().enumerate() {
            pos.play_uci(text)
                .map_err(|e| format!("move {} of the list: {}", n + 1, sanitize(&e.to_string())))?;
        }
    }
    Ok(pos)
}

/// A parsed `go` command.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoCommand {
    /// The search limits.
    pub limits: Limits,
    /// `go perft <depth>` instead of a search.
    pub perft: Option<u32>,
    /// `go searchmoves` as given; checked against the position by the caller.
    pub searchmoves: Vec<String>,
    /// Problems with arguments that were skipped; the rest still applies,
    /// because a GUI waits for a `bestmove` after every `go`.
    pub errors: Vec<String>,
}

/// Parse the arguments of `go`. Negative clock values (some GUIs send them
/// after a flag fall) count as zero.
pub fn parse_go(args: &[&str]) -> GoCommand {
    let mut go = GoCommand::default();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        let takes_number = matches!(
            key,
            "wtime"
                | "btime"
                | "winc"
                | "binc"
                | "movestogo"
                | "depth"
                | "nodes"
                | "movetime"
                | "perft"
                | "mate"
        );
        if !takes_number {
            match key {
                "infinite" => go.limits.infinite = true,
                // No Ponder option is advertised (see the module docs).
                "ponder" => {}
                "searchmoves" => {
                    while let Some(t) = args.get(i).filter(|t| looks_like_move(t)) {
                        go.searchmoves.push(t.to_string());
                        i += 1;
                    }
                    if go.searchmoves.is_empty() {
                        go.errors.push("go searchmoves: no moves given".into());
                    }
                }
                other => go
                    .errors
                    .push(format!("go: unknown argument '{}'", sanitize(other))),
            }
            continue;
        }
        let Some(v) = args.get(i).and_then(|t| t.parse::<i64>().ok()) else {
            go.errors
                .push(format!("go {key}: missing or invalid number"));
            continue;
        };
        i += 1;
        let ms = v.max(0) as u64;
        let l = &mut go.limits;
        match key {
            "wtime" => l.wtime_ms = Some(ms),
            "btime" => l.btime_ms = Some(ms),
            "winc" => l.winc_ms = Some(ms),
            "binc" => l.binc_ms = Some(ms),
            "movestogo" => l.movestogo = Some(v.clamp(0, u32::MAX as i64) as u32),
            "depth" => l.depth = Some(v.clamp(0, i32::MAX as i64) as i32),
            "nodes" => l.nodes = Some(ms),
            "movetime" => l.movetime_ms = Some(ms),
            "perft" => go.perft = Some(v.clamp(0, 64) as u32),
            "mate" if v >= 1 => l.mate = Some(v.min(i32::MAX as i64) as i32),
            "mate" => go
                .errors
                .push(format!("go mate {v}: needs 1 or more moves")),
            // `takes_number` lists exactly the keys above.
            _ => {}
        }
    }
    go
}

/// Whether a token has the shape of a UCI move (`e2e4`, `e7e8q`).
fn looks_like_move(t: &str) -> bool {
    let b = t.as_bytes();
    (4..=5).contains(&b.len())
        && (b'a'..=b'h').contains(&b[0])
        && (b'1'..=b'8').contains(&b[1])
        && (b'a'..=b'h').contains(&b[2])
        && (b'1'..=b'8').contains(&b[3])
}

/// Echo user text safely: no control characters, bounded length.
fn sanitize(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .take(200)
        .collect();
    if text.chars().count() > 200 {
        format!("{clean}...")
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_arguments() {
        let go = parse_go(&[
            "wtime",
            "1000",
            "btime",
            "-5",
            "winc",
            "10",
            "movestogo",
            "3",
        ]);
        assert_eq!(go.limits.wtime_ms, Some(1000));
        assert_eq!(go.limits.btime_ms, Some(0));
        assert_eq!(go.limits.winc_ms, Some(10));
        assert_eq!(go.limits.movestogo, Some(3));
        assert_eq!(go.perft, None);
        assert!(go.errors.is_empty());
        let go = parse_go(&["perft", "3"]);
        assert_eq!((go.limits, go.perft), (Limits::default(), Some(3)));
        assert_eq!(parse_go(&["depth"]).errors.len(), 1);
        let go = parse_go(&["depth", "x", "nodes", "500", "bogus", "infinite"]);
        assert_eq!(go.errors.len(), 3, "{:?}", go.errors);
        assert_eq!(go.limits.nodes, Some(500));
        assert_eq!(go.limits.depth, None);
        assert!(go.limits.infinite);
        let go = parse_go(&["searchmoves", "e2e4", "d2d4", "depth", "3"]);
        assert_eq!(go.limits.depth, Some(3));
        assert_eq!(go.searchmoves, ["e2e4", "d2d4"]);
        assert!(go.errors.is_empty(), "{:?}", go.errors);
        let go = parse_go(&["searchmoves", "infinite"]);
        assert!(go.limits.infinite && go.searchmoves.is_empty());
        assert_eq!(go.errors.len(), 1, "{:?}", go.errors);
        let go = parse_go(&["mate", "3", "nodes", "9"]);
        assert_eq!((go.limits.mate, go.limits.nodes), (Some(3), Some(9)));
        assert_eq!(parse_go(&["mate", "0"]).errors.len(), 1);
    }

    #[test]
    fn position_arguments() {
        let p = parse_position(&["startpos", "moves", "e2e4", "e7e5", "e1e2"], false).unwrap();
        assert_eq!(
            p.to_fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR b kq - 1 2"
        );
        assert_eq!(p.history().len(), 3);
        let e = parse_position(&["startpos", "moves", "e2e4", "e2e4"], false).unwrap_err();
        assert!(e.contains("move 2"), "{e}");
        assert!(parse_position(&["fen", "8/8/8/8/8/8/8/8", "w", "-", "-"], false).is_err());
        assert!(parse_position(&[], false).is_err());
        assert!(parse_position(&["startpos", "e2e4"], false).is_err());
        let p = parse_position(
            &[
                "fen",
                "4k3/8/8/8/8/8/8/4K2R",
                "w",
                "K",
                "-",
                "0",
                "1",
                "moves",
                "e1g1",
            ],
            false,
        )
        .unwrap();
        assert_eq!(p.to_fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    }

    #[test]
    fn sanitize_bounds_and_cleans() {
        assert_eq!(sanitize("a\u{7}b"), "a?b");
        assert_eq!(sanitize(&"x".repeat(500)).len(), 203);
    }
}
