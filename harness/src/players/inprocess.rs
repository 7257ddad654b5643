//! The in-process player: `karsinta_engine::Searcher` called directly, with
//! no process, pipe or text protocol in between.
//!
//! It gets exactly what the UCI front end would give the same searcher
//! (`ucinewgame` -> `Searcher::new_game`, `position` -> a `Position` built
//! from the start FEN and moves, `go` -> the same `Limits`), so at fixed
//! nodes it plays the same moves as `karsinta-engine` over UCI. The
//! position is advanced incrementally while a game goes on. A watchdog
//! thread raises the search's stop flag when the request's deadline passes
//! (the answer is then a [`EngineError::Timeout`], as over UCI), and a
//! panic inside the engine becomes [`EngineError::Crashed`].

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use karsinta_engine::params::ParamError;
use karsinta_engine::search::tablebase::{Tablebases, PROBE_LIMIT_DEFAULT};
use karsinta_engine::search::THREADS_MAX;
use karsinta_engine::uci::HASH_DEFAULT_MB;
use karsinta_engine::{Limits, Params, Position, Score, SearchInfo, Searcher};

use super::uci::MAX_PV_LINES;
use super::{
    EngineError, EngineMove, EngineScore, MoveLimit, MoveRequest, Player, PvLine, SearchDetail,
};
use crate::variant::Variant;

/// `e` for people: an unknown name gets the closest known one, as an
/// option a UCI engine does not advertise does. `options`: the name was
/// given as an option, where `Hash` and `Threads` are known too.
pub fn param_error_text(e: &ParamError, options: bool) -> String {
    let ParamError::Unknown(name) = e else {
        return e.to_string();
    };
    let mut known: Vec<String> = Params::specs().iter().map(|s| s.name.clone()).collect();
    if options {
        known.extend(
            ["Hash", "Threads", "SyzygyPath", "SyzygyProbeLimit"]
                .into_iter()
                .map(str::to_string),
        );
    }
    match super::names::closest_name(name, &known) {
        Some(close) => format!("{e}; did you mean '{close}'?"),
        None => e.to_string(),
    }
}

/// A `karsinta-engine` searcher in this process.
pub struct InProcessPlayer {
    name: String,
    params: Params,
    /// The parameters from the spec, which [`Player::configure`] starts from.
    base: Params,
    hash_mb: Option<usize>,
    /// Search threads (`Threads`).
    threads: usize,
    /// The Syzygy tables of `SyzygyPath` (with `SyzygyProbeLimit`),
    /// opened once and shared by every searcher this player builds.
    tablebases: Option<Arc<Tablebases>>,
    /// `None` after a panic: rebuilt by the next `new_game`.
    searcher: Option<Searcher>,
    game: Option<GamePosition>,
    watchdog: Watchdog,
}

/// The position of the game in progress, as far as it was seen.
struct GamePosition {
    start_fen: Option<String>,
    moves: Vec<String>,
    pos: Position,
}

impl InProcessPlayer {
    /// A player searching with `params`. `options` are UCI-style
    /// `(name, value)` pairs: `Hash` (MB, default as over UCI), `Threads`
    /// (1 to [`THREADS_MAX`], Lazy SMP), `SyzygyPath` and `SyzygyProbeLimit`
    /// (as `karsinta-engine` reads them over UCI; a path that cannot be
    /// used is an error naming the player and the folder) or any parameter
    /// of the table, applied on top of `params`.
    pub fn new(
        name: String,
        mut params: Params,
        options: &[(String, String)],
    ) -> Result<Self, EngineError> {
        let mut hash_mb = None;
        let mut threads = 1;
        let mut syzygy: Option<&str> = None;
        let mut probe_limit = PROBE_LIMIT_DEFAULT;
        for (key, value) in options {
            let bad = |why: String| EngineError::Start(format!("option {key}={value}: {why}"));
            if key.eq_ignore_ascii_case("hash") {
                let mb: usize = value
                    .trim()
                    .parse()
                    .map_err(|_| bad("not a size in MB".into()))?;
                hash_mb = Some(mb);
            } else if key.eq_ignore_ascii_case("threads") {
                threads = match value.trim().parse::<usize>() {
                    Ok(n) if (1..=THREADS_MAX).contains(&n) => n,
                    _ => return Err(bad(format!("not a thread count from 1 to {THREADS_MAX}"))),
                };
            } else if key.eq_ignore_ascii_case("SyzygyPath") {
                // As over UCI: `<empty>` (the option's default) is none.
                syzygy = Some(value.as_str()).filter(|v| !v.is_empty() && *v != "<empty>");
            } else if key.eq_ignore_ascii_case("SyzygyProbeLimit") {
                probe_limit = match value.trim().parse::<u32>() {
                    Ok(n) if n <= 7 => n,
                    _ => return Err(bad("not a piece count from 0 to 7".into())),
                };
            } else {
                params
                    .set_by_name(key, value)
                    .map_err(|e| bad(param_error_text(&e, true)))?;
            }
        }
        let tablebases = match syzygy {
            None => None,
            Some(path) => {
                let mut tb = Tablebases::open(path).map_err(|e| {
                    EngineError::Start(format!("engine '{name}': option SyzygyPath={path}: {e}"))
                })?;
                tb.set_probe_limit(probe_limit);
                Some(Arc::new(tb))
            }
        };
        Ok(InProcessPlayer {
            name,
            base: params.clone(),
            params,
            hash_mb,
            threads,
            tablebases,
            searcher: None,
            game: None,
            watchdog: Watchdog::default(),
        })
    }

    fn make_searcher(&self) -> Searcher {
        let mut searcher = Searcher::new(self.params.clone());
        // The UCI front end's default, so both paths search alike.
        searcher.set_hash_mb(self.hash_mb.unwrap_or(HASH_DEFAULT_MB));
        // Lazy SMP: more than one thread is not deterministic at fixed nodes.
        searcher.set_threads(self.threads);
        searcher.set_tablebases(self.tablebases.clone());
        searcher
    }

    /// Bring the game position up to `req`, replaying only new moves when
    /// the request continues the game seen so far.
    fn sync_position(&mut self, req: &MoveRequest<'_>) -> Result<(), EngineError> {
        let chess960 = req.variant == Variant::Chess960;
        let continues = self.game.as_ref().is_some_and(|g| {
            g.start_fen.as_deref() == req.start_fen
                && g.pos.chess960() == chess960
                && req.moves.starts_with(&g.moves)
        });
        if !continues {
            let fen = match req.start_fen {
                Some(fen) => fen.to_string(),
                None => Position::startpos().to_fen(),
            };
            let pos = if chess960 {
                Position::from_fen_chess960(&fen)
            } else {
                Position::from_fen(&fen)
            }
            .map_err(|e| EngineError::Protocol(format!("bad FEN {fen:?}: {e}")))?;
            self.game = Some(GamePosition {
                start_fen: req.start_fen.map(str::to_string),
                moves: Vec::with_capacity(256),
                pos,
            });
        }
        let Some(game) = self.game.as_mut() else {
            unreachable!("set above")
        };
        for mv in &req.moves[game.moves.len()..] {
            if let Err(e) = game.pos.play_uci(mv) {
                self.game = None;
                return Err(EngineError::Protocol(format!("bad move {mv:?}: {e}")));
            }
            game.moves.push(mv.clone());
        }
        Ok(())
    }
}

/// The engine's `Limits` for one move, as the UCI front end builds them.
fn limits_for(limit: &MoveLimit) -> Limits {
    let ms = |d: &Duration| Some(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    match limit {
        MoveLimit::Nodes(n) => Limits {
            nodes: Some(*n),
            ..Limits::default()
        },
        MoveLimit::Depth(d) => Limits {
            depth: Some(i32::try_from(*d).unwrap_or(i32::MAX)),
            ..Limits::default()
        },
        MoveLimit::MoveTime(t) => Limits {
            movetime_ms: ms(t),
            ..Limits::default()
        },
        MoveLimit::Clock {
            wtime,
            btime,
            winc,
            binc,
            movestogo,
        } => Limits {
            wtime_ms: ms(wtime),
            btime_ms: ms(btime),
            winc_ms: ms(winc),
            binc_ms: ms(binc),
            movestogo: *movestogo,
            ..Limits::default()
        },
        MoveLimit::Capped { nodes, depth, time } => {
            let mut l = time.as_deref().map(limits_for).unwrap_or_default();
            l.nodes = nodes.or(l.nodes);
            if let Some(d) = depth {
                l.depth = Some(i32::try_from(*d).unwrap_or(i32::MAX));
            }
            l
        }
    }
}

fn engine_score(score: Score) -> EngineScore {
    match score {
        Score::Cp(cp) => EngineScore::Cp(cp),
        Score::Mate(n) => EngineScore::Mate(n),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

impl Player for InProcessPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn configure(&mut self, options: &[(String, String)]) -> Result<(), EngineError> {
        let mut params = self.base.clone();
        for (key, value) in options {
            params.set_by_name(key, value).map_err(|e| {
                EngineError::Unsupported(format!(
                    "{}: option {key}={value}: {}",
                    self.name,
                    param_error_text(&e, false)
                ))
            })?;
        }
        if let Some(s) = self.searcher.as_mut() {
            s.set_params(params.clone());
        }
        self.params = params;
        Ok(())
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        self.game = None;
        match self.searcher.as_mut() {
            Some(s) => s.new_game(),
            None => {
                let mut s = self.make_searcher();
                s.new_game();
                self.searcher = Some(s);
            }
        }
        Ok(())
    }

    fn go(&mut self, req: &MoveRequest<'_>) -> Result<EngineMove, EngineError> {
        if self.searcher.is_none() {
            self.searcher = Some(self.make_searcher());
        }
        self.sync_position(req)?;
        let (Some(searcher), Some(game)) = (self.searcher.as_mut(), self.game.as_ref()) else {
            unreachable!("both set above")
        };
        let limits = limits_for(&req.limit);
        let started = Instant::now();
        let stop = self.watchdog.arm(started + req.deadline);
        // Report what the UCI front end would print last: the last finished
        // iteration's `info`, so adjudication sees the same scores either way.
        let mut last: Option<(Score, i32, i32, u64)> = None;
        let mut detail = SearchDetail::default();
        // What the referee checks: each iteration's line as UCI prints it.
        let mut pv_lines = Vec::new();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            searcher.search(&game.pos, &limits, stop, &mut |i: &SearchInfo| {
                last = Some((i.score, i.depth, i.seldepth.max(i.depth), i.nodes));
                if !i.pv.is_empty() && pv_lines.len() < MAX_PV_LINES {
                    pv_lines.push(PvLine {
                        line: karsinta_engine::uci::format_info(i),
                        score: Some(engine_score(i.score)),
                        bound: false,
                        pv: i.pv.clone(),
                    });
                }
                detail = SearchDetail {
                    nps: Some(i.nodes * 1000 / i.time_ms.max(1)),
                    hashfull: Some(i.hashfull),
                    tbhits: Some(i.tbhits),
                    time_ms: Some(i.time_ms),
                    pv: i.pv.clone(),
                };
            })
        }));
        let elapsed = started.elapsed();
        let fired = self.watchdog.disarm();
        let result = match outcome {
            Ok(result) => result,
            Err(payload) => {
                // The searcher's state is suspect after a panic.
                self.searcher = None;
                self.game = None;
                return Err(EngineError::Crashed(format!(
                    "in-process engine panicked: {}",
                    panic_message(payload.as_ref())
                )));
            }
        };
        if fired {
            return Err(EngineError::Timeout(format!(
                "search not finished after {} ms",
                elapsed.as_millis()
            )));
        }
        let (score, depth, seldepth, nodes) =
            last.unwrap_or((result.score, result.depth, result.seldepth, result.nodes));
        Ok(EngineMove {
            uci: result.best_move.unwrap_or_else(|| "0000".to_string()),
            score: Some(engine_score(score)),
            depth: u32::try_from(depth).ok(),
            seldepth: u32::try_from(seldepth).ok(),
            nodes: Some(nodes),
            elapsed,
            detail,
            pv_lines,
        })
    }

    fn quit(&mut self) {
        self.searcher = None;
        self.game = None;
        self.watchdog.shutdown();
    }
}

/// Raises a stop flag when a deadline passes. One thread per player, started
/// on first use, asleep on a condition variable between searches.
#[derive(Default)]
struct Watchdog {
    shared: Arc<WatchShared>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct WatchShared {
    state: Mutex<WatchState>,
    wake: Condvar,
    stop: AtomicBool,
}

#[derive(Default)]
struct WatchState {
    deadline: Option<Instant>,
    fired: bool,
    quit: bool,
}

impl Watchdog {
    /// Start watching `deadline`; returns the stop flag for the search.
    fn arm(&mut self, deadline: Instant) -> &AtomicBool {
        if self.thread.is_none() {
            let shared = Arc::clone(&self.shared);
            self.thread = thread::Builder::new()
                .name("karsinta-watchdog".into())
                .spawn(move || watch(&shared))
                .ok();
        }
        self.shared.stop.store(false, Ordering::SeqCst);
        let mut state = self.lock();
        state.deadline = Some(deadline);
        state.fired = false;
        drop(state);
        self.shared.wake.notify_one();
        &self.shared.stop
    }

    /// Stop watching; whether the deadline passed during the search.
    fn disarm(&mut self) -> bool {
        let mut state = self.lock();
        state.deadline = None;
        // Without a watchdog thread (could not spawn) nobody else can tell.
        state.fired || (self.thread.is_none() && self.shared.stop.load(Ordering::SeqCst))
    }

    fn shutdown(&mut self) {
        if let Some(handle) = self.thread.take() {
            self.lock().quit = true;
            self.shared.wake.notify_one();
            let _ = handle.join();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WatchState> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Watchdog thread body. The stop flag is raised only while the state lock
/// is held and the deadline is still armed, so a late wake-up can never stop
/// the next search.
fn watch(shared: &WatchShared) {
    let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if state.quit {
            return;
        }
        state = match state.deadline {
            None => shared.wake.wait(state).unwrap_or_else(|e| e.into_inner()),
            Some(deadline) => {
                let now = Instant::now();
                if now >= deadline {
                    shared.stop.store(true, Ordering::SeqCst);
                    state.fired = true;
                    state.deadline = None;
                    continue;
                }
                shared
                    .wake
                    .wait_timeout(state, deadline - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_match_the_uci_go_fields() {
        assert_eq!(limits_for(&MoveLimit::Nodes(5000)).nodes, Some(5000));
        assert_eq!(limits_for(&MoveLimit::Depth(9)).depth, Some(9));
        assert_eq!(
            limits_for(&MoveLimit::MoveTime(Duration::from_millis(120))).movetime_ms,
            Some(120)
        );
        let clock = limits_for(&MoveLimit::Clock {
            wtime: Duration::from_millis(8000),
            btime: Duration::from_millis(7000),
            winc: Duration::from_millis(80),
            binc: Duration::from_millis(70),
            movestogo: Some(3),
        });
        assert_eq!(
            (
                clock.wtime_ms,
                clock.btime_ms,
                clock.winc_ms,
                clock.binc_ms,
                clock.movestogo
            ),
            (Some(8000), Some(7000), Some(80), Some(70), Some(3))
        );
        assert_eq!(clock.nodes, None);
    }

    #[test]
    fn options_are_checked() {
        for ok in [
            ("Hash", "8"),
            ("Threads", "1"),
            ("Threads", "2"),
            ("Threads", "64"),
        ] {
            let opts = [(ok.0.to_string(), ok.1.to_string())];
            let p = InProcessPlayer::new("a".into(), Params::default(), &opts);
            assert!(p.is_ok(), "{ok:?}");
            if ok.0 == "Threads" {
                let threads = p.unwrap().make_searcher().threads();
                assert_eq!(threads.to_string(), ok.1);
            }
        }
        for bad in [
            ("Hash", "lots"),
            ("Threads", "0"),
            ("Threads", "65"),
            ("Threads", "two"),
            ("no_such_param", "1"),
        ] {
            let opts = [(bad.0.to_string(), bad.1.to_string())];
            let err = InProcessPlayer::new("a".into(), Params::default(), &opts).err();
            assert!(matches!(err, Some(EngineError::Start(_))), "{bad:?}");
        }
    }

    #[test]
    fn unknown_parameters_get_the_nearest_name() {
        let opts = [("null_move_rr".to_string(), "2".to_string())];
        let err = InProcessPlayer::new("a".into(), Params::default(), &opts).err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("did you mean 'null_move_r'?"), "{text}");
        // Set between pairs (a tuner's): parameters only, no Hash.
        let mut p = InProcessPlayer::new("a".into(), Params::default(), &[]).unwrap();
        let err = p.configure(&[("nul_move_r".to_string(), "2".to_string())]);
        let text = err.map_err(|e| e.to_string()).unwrap_err();
        assert!(text.contains("did you mean 'null_move_r'?"), "{text}");
        let err = p.configure(&[("hsh".to_string(), "2".to_string())]);
        let text = err.map_err(|e| e.to_string()).unwrap_err();
        assert!(!text.contains("did you mean 'Hash'"), "{text}");
    }

    #[test]
    fn watchdog_fires_only_while_armed() {
        let mut w = Watchdog::default();
        let stop = w.arm(Instant::now());
        // The deadline has passed; wait until the thread has seen it.
        while !stop.load(Ordering::SeqCst) {
            thread::yield_now();
        }
        assert!(w.disarm());
        let stop = w.arm(Instant::now() + Duration::from_secs(3600));
        assert!(!stop.load(Ordering::SeqCst));
        assert!(!w.disarm());
        w.shutdown();
    }
}
