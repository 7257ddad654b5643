//! Player-level tests: the UCI player against the scriptable fake engine
//! (every fault returns the right error and the player recovers with the
//! next `new_game`), the xboard player against the fake engine's xboard
//! mode and Debian's Fairy-Max and Phalanx, and the in-process player
//! against `karsinta-engine` over UCI.
//!
//! Timeouts here are short but generous compared with the fake engine's
//! instant answers; no test asserts how fast anything is.

use std::path::{Path, PathBuf};
use std::time::Duration;

use karsinta_harness::players::{
    check_player_limit, start_player, EngineError, EngineMove, EngineScore, MoveLimit, MoveRequest,
    Player, PlayerKind, PlayerSpec, UciPlayer, XboardPlayer,
};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

use crate::common::{process_gone, FAKE};

fn spec(cmd: impl Into<PathBuf>, args: &[&str]) -> PlayerSpec {
    PlayerSpec {
        name: "fake".into(),
        kind: PlayerKind::Uci,
        cmd: cmd.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        dir: None,
        options: vec![("Hash".into(), "1".into())],
        init_timeout: Duration::from_secs(5),
        variant: karsinta_harness::variant::Variant::Standard,
        stderr_log: None,
        restart: false,
    }
}

fn fake(args: &[&str]) -> UciPlayer {
    UciPlayer::new(spec(FAKE, args))
}

fn nodes() -> MoveLimit {
    MoveLimit::Nodes(1000)
}

fn ask(
    p: &mut dyn Player,
    moves: &[String],
    limit: MoveLimit,
    deadline_ms: u64,
) -> Result<EngineMove, EngineError> {
    p.go(&MoveRequest {
        start_fen: None,
        moves,
        variant: karsinta_harness::variant::Variant::Standard,
        limit,
        deadline: Duration::from_millis(deadline_ms),
    })
}

fn position(start_fen: Option<&str>, moves: &[String]) -> Chess {
    let mut pos: Chess = match start_fen {
        Some(fen) => Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap(),
        None => Chess::default(),
    };
    for m in moves {
        let mv = UciMove::from_ascii(m.as_bytes())
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(mv);
    }
    pos
}

fn is_legal(start_fen: Option<&str>, moves: &[String], mv: &str) -> bool {
    let pos = position(start_fen, moves);
    UciMove::from_ascii(mv.as_bytes())
        .ok()
        .is_some_and(|u| u.to_move(&pos).is_ok())
}

/// Play `plies` legal moves with `p`, extending `moves`.
fn play(p: &mut dyn Player, moves: &mut Vec<String>, plies: usize) {
    for _ in 0..plies {
        let m = ask(p, moves, nodes(), 5000).expect("a move");
        assert!(
            is_legal(None, moves, &m.uci),
            "illegal {} after {moves:?}",
            m.uci
        );
        moves.push(m.uci);
    }
}

#[test]
fn uci_player_plays_legal_moves_and_reports_info() {
    let mut p = fake(&[]);
    p.new_game().unwrap();
    assert_eq!(p.id_name(), Some("Karsinta Fake Engine"));
    let mut moves = Vec::new();
    play(&mut p, &mut moves, 6);
    let m = ask(&mut p, &moves, nodes(), 5000).unwrap();
    assert_eq!(m.score, Some(EngineScore::Cp(12)));
    assert_eq!((m.depth, m.seldepth, m.nodes), (Some(1), Some(2), Some(1)));
    // From a FEN, under every kind of limit.
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    for limit in [
        MoveLimit::Depth(3),
        MoveLimit::MoveTime(Duration::from_millis(10)),
        MoveLimit::Clock {
            wtime: Duration::from_secs(1),
            btime: Duration::from_secs(1),
            winc: Duration::ZERO,
            binc: Duration::ZERO,
            movestogo: Some(5),
        },
    ] {
        let m = p
            .go(&MoveRequest {
                start_fen: Some(fen),
                moves: &[],
                variant: karsinta_harness::variant::Variant::Standard,
                limit,
                deadline: Duration::from_secs(5),
            })
            .unwrap();
        assert!(is_legal(Some(fen), &[], &m.uci), "{}", m.uci);
    }
    p.quit();
}

#[test]
fn process_is_reused_across_games() {
    // The fake engine counts moves per process: the 4th `go` crashes only
    // if games 1 and 2 ran in the same process.
    let mut p = fake(&["--crash-after", "3"]);
    p.new_game().unwrap();
    let pid = p.pid();
    let mut moves = Vec::new();
    play(&mut p, &mut moves, 2);
    p.game_over();
    p.new_game().unwrap();
    assert_eq!(p.pid(), pid);
    let mut moves = Vec::new();
    play(&mut p, &mut moves, 1);
    let err = ask(&mut p, &moves, nodes(), 5000).unwrap_err();
    assert!(matches!(err, EngineError::Crashed(_)), "{err:?}");
}

#[test]
fn crash_at_start_is_a_start_error() {
    let mut p = fake(&["--crash-at-start"]);
    let err = p.new_game().unwrap_err();
    assert!(
        matches!(err, EngineError::Start(ref m) if m.contains("exit status: 3")),
        "{err:?}"
    );
    // Still failing (and still an error, not a panic) on the next game.
    assert!(matches!(p.new_game(), Err(EngineError::Start(_))));
}

#[test]
fn missing_program_is_a_start_error() {
    let mut p = UciPlayer::new(spec("/nonexistent/engine", &[]));
    let err = p.new_game().unwrap_err();
    assert!(
        matches!(err, EngineError::Start(ref m) if m.contains("/nonexistent/engine")),
        "{err:?}"
    );
}

#[test]
fn no_uciok_times_out() {
    let mut p = UciPlayer::new(PlayerSpec {
        init_timeout: Duration::from_millis(300),
        ..spec(FAKE, &["--no-uciok"])
    });
    let err = p.new_game().unwrap_err();
    assert!(
        matches!(err, EngineError::Timeout(ref m) if m.contains("uciok")),
        "{err:?}"
    );
    assert_eq!(p.pid(), None);
}

#[test]
fn go_without_a_running_engine_is_an_error() {
    let mut p = fake(&[]);
    let err = ask(&mut p, &[], nodes(), 1000).unwrap_err();
    assert!(matches!(err, EngineError::Crashed(_)), "{err:?}");
}

#[test]
fn crash_mid_game_then_restart() {
    let mut p = fake(&["--crash-after", "2"]);
    p.new_game().unwrap();
    let first = p.pid().unwrap();
    let mut moves = Vec::new();
    play(&mut p, &mut moves, 2);
    let err = ask(&mut p, &moves, nodes(), 5000).unwrap_err();
    assert!(
        matches!(err, EngineError::Crashed(ref m) if m.contains("exit status: 3")),
        "{err:?}"
    );
    assert!(process_gone(first));
    p.new_game().unwrap();
    assert_ne!(p.pid(), Some(first));
    play(&mut p, &mut Vec::new(), 2);
}

#[test]
fn hang_is_caught_under_every_limit() {
    for limit in [
        MoveLimit::Nodes(1000),
        MoveLimit::Depth(5),
        MoveLimit::MoveTime(Duration::from_millis(50)),
        MoveLimit::Clock {
            wtime: Duration::from_millis(100),
            btime: Duration::from_millis(100),
            winc: Duration::ZERO,
            binc: Duration::ZERO,
            movestogo: None,
        },
    ] {
        let mut p = fake(&["--hang-after", "1"]);
        p.new_game().unwrap();
        let mut moves = Vec::new();
        play(&mut p, &mut moves, 1);
        let hung = p.pid().unwrap();
        let err = ask(&mut p, &moves, limit.clone(), 200).unwrap_err();
        assert!(matches!(err, EngineError::Timeout(_)), "{limit:?}: {err:?}");
        // The hung process was killed and reaped; the next game restarts it.
        assert!(process_gone(hung), "{limit:?}");
        assert_eq!(p.pid(), None);
        p.new_game().unwrap();
        play(&mut p, &mut Vec::new(), 1);
    }
}

#[test]
fn slow_isready_is_a_timeout() {
    let mut p = UciPlayer::new(PlayerSpec {
        init_timeout: Duration::from_millis(200),
        ..spec(FAKE, &["--slow-isready", "3000"])
    });
    let err = p.new_game().unwrap_err();
    assert!(
        matches!(err, EngineError::Timeout(ref m) if m.contains("readyok")),
        "{err:?}"
    );
    // A slow but in-time isready is fine.
    let mut p = fake(&["--slow-isready", "20"]);
    p.new_game().unwrap();
    p.new_game().unwrap();
}

#[test]
fn illegal_move_is_passed_on_for_the_game_loop_to_judge() {
    let mut p = fake(&["--illegal-after", "1"]);
    p.new_game().unwrap();
    let mut moves = Vec::new();
    play(&mut p, &mut moves, 1);
    let m = ask(&mut p, &moves, nodes(), 5000).unwrap();
    assert!(!is_legal(None, &moves, &m.uci), "{} is legal", m.uci);
    assert_eq!(m.uci.len(), 4);
}

#[test]
fn malformed_output_is_a_protocol_error_then_restart() {
    let mut p = fake(&["--malformed-after", "1"]);
    p.new_game().unwrap();
    let mut moves = Vec::new();
    play(&mut p, &mut moves, 1);
    let err = ask(&mut p, &moves, nodes(), 5000).unwrap_err();
    assert!(
        matches!(err, EngineError::Protocol(ref m) if m.contains("e2e9x")),
        "{err:?}"
    );
    assert_eq!(p.pid(), None);
    p.new_game().unwrap();
    play(&mut p, &mut Vec::new(), 1);
}

#[test]
fn exit_on_ucinewgame_is_a_crash_then_restart() {
    let mut p = fake(&["--exit-on-ucinewgame", "2"]);
    p.new_game().unwrap();
    play(&mut p, &mut Vec::new(), 2);
    let err = p.new_game().unwrap_err();
    assert!(
        matches!(err, EngineError::Crashed(ref m) if m.contains("ucinewgame")),
        "{err:?}"
    );
    p.new_game().unwrap();
    play(&mut p, &mut Vec::new(), 2);
}

#[test]
fn an_engine_that_stops_reading_cannot_block_the_harness() {
    let mut p = fake(&["--deaf-after", "1"]);
    p.new_game().unwrap();
    play(&mut p, &mut Vec::new(), 1);
    // More than a pipe's buffer: the write fails instead of blocking.
    let moves = vec!["e2e4".to_string(); 40_000];
    let err = ask(&mut p, &moves, nodes(), 600_000).unwrap_err();
    assert!(
        matches!(err, EngineError::Protocol(ref m) if m.contains("pipe full")),
        "{err:?}"
    );
    assert_eq!(p.pid(), None);
}

#[test]
fn slow_bestmove_past_the_deadline_is_a_timeout() {
    let mut p = fake(&["--slow-bestmove", "2000"]);
    p.new_game().unwrap();
    let err = ask(&mut p, &[], nodes(), 100).unwrap_err();
    assert!(matches!(err, EngineError::Timeout(_)), "{err:?}");
    let mut p = fake(&["--slow-bestmove", "30"]);
    p.new_game().unwrap();
    let m = ask(&mut p, &[], nodes(), 5000).unwrap();
    // Measured by the harness from `go` to `bestmove`.
    assert!(m.elapsed >= Duration::from_millis(30), "{:?}", m.elapsed);
}

#[test]
fn quit_and_drop_end_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = fake(&[]);
    p.new_game().unwrap();
    let pid = p.pid().unwrap();
    p.quit();
    assert!(process_gone(pid));
    assert_eq!(p.pid(), None);
    // Quit, then use again: starts a new process.
    p.new_game().unwrap();
    let pid = p.pid().unwrap();
    drop(p);
    assert!(process_gone(pid));
    // Through the trait object `start_player` returns, with a pid file
    // written in the working directory.
    let mut s = spec(FAKE, &["--pid-file", "engine.pid"]);
    s.dir = Some(dir.path().to_path_buf());
    let mut boxed = start_player(&s).unwrap();
    boxed.new_game().unwrap();
    let pid: u32 = std::fs::read_to_string(dir.path().join("engine.pid"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(!process_gone(pid));
    drop(boxed);
    assert!(process_gone(pid));
}

#[test]
fn stderr_goes_to_the_log_file() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fake.stderr.log");
    let mut p = UciPlayer::new(PlayerSpec {
        stderr_log: Some(log.clone()),
        restart: false,
        ..spec(FAKE, &["--crash-after", "0"])
    });
    p.new_game().unwrap();
    let _ = ask(&mut p, &[], nodes(), 5000);
    p.new_game().unwrap();
    p.quit();
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        text.matches("[karsinta] starting fake").count(),
        2,
        "{text}"
    );
    assert_eq!(text.matches("fake engine").count(), 2, "{text}");
}

#[test]
fn stderr_lines_of_concurrent_instances_are_attributed() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tagged.stderr.log");
    // A name no other test uses, so the instances are #1 and #2.
    let s = PlayerSpec {
        name: "tagged".into(),
        stderr_log: Some(log.clone()),
        restart: false,
        ..spec(FAKE, &[])
    };
    let (mut a, mut b) = (UciPlayer::new(s.clone()), UciPlayer::new(s));
    a.new_game().unwrap();
    b.new_game().unwrap();
    let pids = [a.pid().unwrap(), b.pid().unwrap()];
    a.quit();
    b.quit();
    // Every engine line follows a `[karsinta]` line naming its writer.
    let text = std::fs::read_to_string(&log).unwrap();
    let mut writer = None;
    let mut seen = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("[karsinta] ") {
            let rest = rest.strip_prefix("starting ").unwrap_or(rest);
            writer = Some(rest.trim_end_matches(':').to_string());
        } else if let Some(rest) = line.strip_prefix("fake engine ") {
            let pid: u32 = rest.split_whitespace().next().unwrap().parse().unwrap();
            let i = pids.iter().position(|&p| p == pid).unwrap();
            let expected = format!("tagged#{} (pid {pid})", i + 1);
            assert_eq!(writer.as_deref(), Some(&*expected), "{text}");
            seen.push(pid);
        }
    }
    seen.sort_unstable();
    let mut all = pids.to_vec();
    all.sort_unstable();
    assert_eq!(seen, all, "{text}");
}

#[test]
fn a_reply_followed_by_progress_lines_is_not_held_back() {
    // `bestmove` then `info string` in one write: the reader must deliver
    // the move, not wait for a line after the `info`.
    let mut p = fake(&["--trailing-info"]);
    p.new_game().unwrap();
    let mut moves = Vec::new();
    play(&mut p, &mut moves, 3);
}

#[test]
fn bestmove_none_is_named_as_no_move() {
    let mut p = fake(&["--none-after", "1"]);
    p.new_game().unwrap();
    let mut moves = Vec::new();
    play(&mut p, &mut moves, 1);
    let err = ask(&mut p, &moves, nodes(), 5000).unwrap_err();
    assert!(
        matches!(err, EngineError::Protocol(ref m) if m.contains("`bestmove (none)` (no move)")),
        "{err:?}"
    );
}

/// The fake engine in xboard mode announcing `features`, logging what it
/// receives to `dir/input.log`.
fn fake_xboard(dir: &Path, features: &str, extra: &[&str]) -> (PlayerSpec, PathBuf) {
    let log = dir.join("input.log");
    let mut args = vec![
        "--xboard".to_string(),
        "--features".to_string(),
        features.to_string(),
        "--input-log".to_string(),
        log.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let s = PlayerSpec {
        kind: PlayerKind::Xboard,
        args,
        options: vec![],
        ..spec(FAKE, &[])
    };
    (s, log)
}

fn received(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn xboard_features_are_answered_and_only_announced_options_sent() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, log) = fake_xboard(
        dir.path(),
        r#"ping=1 setboard=1 memory=1 analyze=1 sigint=1 exclude=1 sigterm=0 option="Foo Bar -spin 1 0 9""#,
        &[],
    );
    s.options = vec![
        ("memory".into(), "16".into()),
        ("Foo Bar".into(), "3".into()),
    ];
    let mut p = XboardPlayer::new(s.clone());
    p.new_game().unwrap();
    p.quit();
    let got = received(&log);
    for line in [
        "accepted ping",
        "accepted setboard",
        "accepted memory",
        "rejected analyze",
        "rejected sigint",
        "rejected exclude",
        "accepted sigterm",
        "accepted option",
        "accepted done",
        "memory 16",
        "option Foo Bar=3",
    ] {
        assert!(got.iter().any(|l| l == line), "no {line:?} in {got:?}");
    }
    // Not announced: an error naming the engine and the option; not sent.
    let dir = tempfile::tempdir().unwrap();
    let (s, log) = fake_xboard(
        dir.path(),
        r#"ping=1 memory=0 option="Foo Bar -spin 1 0 9""#,
        &[],
    );
    for (name, why) in [
        ("cores", "smp=1"),
        ("memory", "memory=1"),
        ("Hash", "no option `Hash` (it has: Foo Bar)"),
    ] {
        let mut s = s.clone();
        s.options = vec![(name.into(), "1".into())];
        let err = XboardPlayer::new(s).new_game().unwrap_err();
        assert!(
            matches!(&err, EngineError::Unsupported(m) if m.starts_with("fake") && m.contains(why)),
            "{err:?}"
        );
    }
    let got = received(&log);
    assert!(
        !got.iter().any(|l| ["cores", "memory", "option"]
            .iter()
            .any(|c| l.starts_with(c))),
        "{got:?}"
    );
}

#[test]
fn xboard_fixed_nodes_need_the_nps_feature() {
    let dir = tempfile::tempdir().unwrap();
    let (s, log) = fake_xboard(dir.path(), "ping=1", &[]);
    let err = check_player_limit(&s, &nodes()).unwrap_err();
    assert!(
        matches!(&err, EngineError::Unsupported(m) if m.starts_with("fake") && m.contains("nps=1")),
        "{err:?}"
    );
    let mut p = XboardPlayer::new(s);
    p.new_game().unwrap();
    let err = ask(&mut p, &[], nodes(), 5000).unwrap_err();
    assert!(matches!(err, EngineError::Unsupported(_)), "{err:?}");
    assert!(!received(&log).iter().any(|l| l.starts_with("nps")));
    // Announced: `nps N` and one second per move.
    let dir = tempfile::tempdir().unwrap();
    let (s, log) = fake_xboard(dir.path(), "ping=1 nps=1", &[]);
    check_player_limit(&s, &nodes()).unwrap();
    let mut p = XboardPlayer::new(s);
    p.new_game().unwrap();
    play(&mut p, &mut Vec::new(), 2);
    let got = received(&log);
    assert!(got.windows(2).any(|w| w == ["nps 1000", "st 1"]), "{got:?}");
}

#[test]
fn xboard_depth_falls_back_to_the_depth_command() {
    let dir = tempfile::tempdir().unwrap();
    let (s, log) = fake_xboard(dir.path(), "ping=1", &["--unknown", "sd"]);
    let mut p = XboardPlayer::new(s);
    for _ in 0..2 {
        p.new_game().unwrap();
        let mut moves = Vec::new();
        for _ in 0..2 {
            let m = ask(&mut p, &moves, MoveLimit::Depth(3), 5000).unwrap();
            assert!(is_legal(None, &moves, &m.uci), "{}", m.uci);
            moves.push(m.uci);
        }
    }
    let got = received(&log);
    // `sd` is tried once per process, then `depth` is used for every game.
    assert_eq!(got.iter().filter(|l| *l == "sd 3").count(), 1, "{got:?}");
    assert!(
        got.iter().filter(|l| *l == "depth 3").count() >= 2,
        "{got:?}"
    );
    // Knowing neither: unsupported, naming both.
    let dir = tempfile::tempdir().unwrap();
    let (s, _) = fake_xboard(
        dir.path(),
        "ping=1",
        &["--unknown", "sd", "--unknown", "depth"],
    );
    let mut p = XboardPlayer::new(s);
    p.new_game().unwrap();
    let err = ask(&mut p, &[], MoveLimit::Depth(3), 5000).unwrap_err();
    assert!(
        matches!(&err, EngineError::Unsupported(m) if m.contains("`sd`") && m.contains("`depth`")),
        "{err:?}"
    );
}

#[test]
fn xboard_resignation_is_reported_as_such() {
    for extra in [
        &["--resign-after", "1"][..],
        &["--resign-after", "1", "--resign-with-move"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (s, _) = fake_xboard(dir.path(), "ping=1", extra);
        let mut p = XboardPlayer::new(s);
        p.new_game().unwrap();
        let m = ask(&mut p, &[], nodes_or_depth(), 5000).unwrap();
        let err = ask(&mut p, &[m.uci], nodes_or_depth(), 5000).unwrap_err();
        assert!(
            matches!(&err, EngineError::Resigned(m) if m.contains("resign")),
            "{extra:?}: {err:?}"
        );
        // Not a fault: the same process plays the next game.
        let pid = p.pid();
        assert!(pid.is_some());
        p.new_game().unwrap();
        assert_eq!(p.pid(), pid);
    }
}

/// A limit every xboard engine supports.
fn nodes_or_depth() -> MoveLimit {
    MoveLimit::Depth(2)
}

#[test]
fn xboard_edit_mode_keeps_en_passant_and_refuses_invented_castling() {
    let dir = tempfile::tempdir().unwrap();
    // No `setboard`: positions go in edit mode.
    let (s, log) = fake_xboard(dir.path(), "ping=1", &[]);
    let mut p = XboardPlayer::new(s);
    p.new_game().unwrap();
    // King and rook at home without the right: the engine would castle.
    let fen = "4rkr1/4p1p1/8/8/2B5/8/8/4K2R w - - 0 1";
    let err = p
        .go(&MoveRequest {
            start_fen: Some(fen),
            moves: &[],
            variant: karsinta_harness::variant::Variant::Standard,
            limit: nodes_or_depth(),
            deadline: Duration::from_secs(5),
        })
        .unwrap_err();
    assert!(
        matches!(&err, EngineError::Unsupported(m) if m.contains("castling") && m.contains("h1")),
        "{err:?}"
    );
    // En passant possible: set up a ply earlier and the double step played.
    p.new_game().unwrap();
    let fen = "1RB5/8/8/k7/1Pp5/K7/8/8 b - b3 0 1";
    let m = p
        .go(&MoveRequest {
            start_fen: Some(fen),
            moves: &[],
            variant: karsinta_harness::variant::Variant::Standard,
            limit: nodes_or_depth(),
            deadline: Duration::from_secs(5),
        })
        .unwrap();
    // The only legal move, and one the fake engine only knows of from the step.
    assert_eq!(m.uci, "c4b3");
    let got = received(&log);
    let setup = [
        "edit", "#", "Pb2", "Ka3", "Rb8", "Bc8", "c", "Pc4", "Ka5", ".", "b2b4",
    ];
    assert!(got.windows(setup.len()).any(|w| w == setup), "{got:?}");
}

/// Debian installs xboard engines under /usr/games.
fn debian_engine(name: &str) -> Option<PathBuf> {
    let path = Path::new("/usr/games").join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipped: {} is not installed", path.display());
        None
    }
}

/// A short game against itself (the same process plays both sides, as the
/// engine sees every move) under several limits. Neither Debian xboard
/// engine has `feature nps=1`: fixed nodes are unsupported, clearly.
fn xboard_smoke(cmd: PathBuf) -> XboardPlayer {
    let mut p = XboardPlayer::new(debian_xboard(cmd.clone()));
    p.new_game().unwrap();
    let err = p.check_limit(&MoveLimit::Nodes(2000)).unwrap_err();
    assert!(
        matches!(&err, EngineError::Unsupported(m) if m.contains("nps=1")),
        "{err:?}"
    );
    assert!(check_player_limit(&debian_xboard(cmd), &MoveLimit::Nodes(2000)).is_err());
    for (game, limit) in [
        MoveLimit::Depth(2),
        MoveLimit::MoveTime(Duration::from_millis(50)),
        MoveLimit::Clock {
            wtime: Duration::from_secs(2),
            btime: Duration::from_secs(2),
            winc: Duration::from_millis(20),
            binc: Duration::from_millis(20),
            movestogo: None,
        },
    ]
    .into_iter()
    .enumerate()
    {
        p.new_game().unwrap();
        let mut moves = Vec::new();
        for _ in 0..8 {
            let m = ask(&mut p, &moves, limit.clone(), 10_000).unwrap();
            assert!(
                is_legal(None, &moves, &m.uci),
                "game {game}: {} after {moves:?}",
                m.uci
            );
            moves.push(m.uci);
        }
    }
    p
}

/// A Debian xboard engine, named after its program, without options.
fn debian_xboard(cmd: PathBuf) -> PlayerSpec {
    PlayerSpec {
        name: cmd.file_name().unwrap().to_string_lossy().into_owned(),
        kind: PlayerKind::Xboard,
        options: vec![],
        ..spec(cmd, &[])
    }
}

/// `p` to move from `fen` at `depth`.
fn from_fen(p: &mut XboardPlayer, fen: &str, depth: u32) -> Result<EngineMove, EngineError> {
    p.new_game().unwrap();
    p.go(&MoveRequest {
        start_fen: Some(fen),
        moves: &[],
        variant: karsinta_harness::variant::Variant::Standard,
        limit: MoveLimit::Depth(depth),
        deadline: Duration::from_secs(10),
    })
}

#[test]
#[ignore = "needs Debian's fairymax"]
fn xboard_fairymax() {
    let Some(cmd) = debian_engine("fairymax") else {
        return;
    };
    let mut p = xboard_smoke(cmd.clone());
    // From a FEN: Fairy-Max 5.0b has no setboard, so this goes in edit
    // mode; its thinking output is read.
    let m = from_fen(&mut p, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 4).unwrap();
    assert_eq!(m.uci, "a1a8", "back-rank mate");
    assert!(m.depth.is_some() && m.score.is_some(), "{m:?}");
    // Edit mode would let it castle (e1g1) without the right.
    let err = from_fen(&mut p, "4rkr1/4p1p1/8/8/2B5/8/8/4K2R w - - 0 1", 3).unwrap_err();
    assert!(
        matches!(&err, EngineError::Unsupported(m) if m.contains("castling")),
        "{err:?}"
    );
    // En passant is the only legal move; Fairy-Max knows of it only from
    // the double step the harness plays after the edit.
    let m = from_fen(&mut p, "1RB5/8/8/k7/1Pp5/K7/8/8 b - b3 0 1", 3).unwrap();
    assert_eq!(m.uci, "c4b3");
    p.quit();
    // Told to resign below -200 cp, it moves and resigns in a lost position.
    let mut p = XboardPlayer::new(PlayerSpec {
        options: vec![
            ("Resign".into(), "1".into()),
            ("Resign Threshold".into(), "200".into()),
        ],
        ..debian_xboard(cmd)
    });
    let fen = "7k/8/8/8/8/8/QQ6/K7 b - - 0 1";
    let err = match from_fen(&mut p, fen, 3) {
        Err(e) => e,
        // The `resign` came after the move in a write of its own: it is
        // found when the engine is asked again.
        Ok(m) => {
            let moves = vec![m.uci, "a2a3".to_string()];
            p.go(&MoveRequest {
                start_fen: Some(fen),
                moves: &moves,
                variant: karsinta_harness::variant::Variant::Standard,
                limit: MoveLimit::Depth(3),
                deadline: Duration::from_secs(10),
            })
            .unwrap_err()
        }
    };
    assert!(matches!(err, EngineError::Resigned(_)), "{err:?}");
}

#[test]
#[ignore = "needs Debian's phalanx"]
fn xboard_phalanx() {
    let Some(cmd) = debian_engine("phalanx") else {
        return;
    };
    let mut p = xboard_smoke(cmd);
    // Phalanx answers `sd 3` with "Illegal move: sd 3" and searches on
    // without a limit; `depth 3` is what it understands.
    let m = from_fen(&mut p, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 3).unwrap();
    assert_eq!(m.uci, "a1a8", "back-rank mate");
    assert!(m.depth.is_some_and(|d| d <= 3), "{m:?}");
}

/// `karsinta-engine` over UCI: `$KARSINTA_ENGINE` if set, otherwise the fake
/// engine's `--karsinta-uci` mode, which is the engine library's UCI front
/// end (`karsinta_engine::uci::run`, all `karsinta-engine` does without a
/// subcommand). Cargo builds the latter for this package's tests, so it is
/// never missing or stale; a separately built engine binary could be both.
fn karsinta_over_uci() -> PlayerSpec {
    match std::env::var_os("KARSINTA_ENGINE") {
        Some(cmd) => spec(PathBuf::from(cmd), &[]),
        None => spec(FAKE, &["--karsinta-uci"]),
    }
}

#[test]
fn in_process_player_matches_the_uci_engine_at_fixed_nodes() {
    let uci_spec = PlayerSpec {
        options: vec![("Hash".into(), "4".into())],
        ..karsinta_over_uci()
    };
    let inproc_spec = PlayerSpec {
        kind: PlayerKind::InProcess(Box::default()),
        ..uci_spec.clone()
    };
    let mut uci = start_player(&uci_spec).unwrap();
    let mut inproc = start_player(&inproc_spec).unwrap();
    let fens = [
        None,
        Some("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
    ];
    let mut compared = 0;
    for (game, start_fen) in fens.into_iter().enumerate() {
        uci.new_game().unwrap();
        inproc.new_game().unwrap();
        // Each player plays both sides, so both see the same requests and
        // keep the same transposition table and history.
        let mut moves: Vec<String> = Vec::new();
        for ply in 0..24 {
            let pos = position(start_fen, &moves);
            if pos.is_game_over() {
                break;
            }
            let req = MoveRequest {
                start_fen,
                moves: &moves,
                variant: karsinta_harness::variant::Variant::Standard,
                limit: MoveLimit::Nodes(3000 + 500 * ply),
                deadline: Duration::from_secs(60),
            };
            let a = inproc.go(&req).unwrap();
            let b = uci.go(&req).unwrap();
            let at = format!("game {game} ply {ply}");
            assert_eq!(a.uci, b.uci, "{at}");
            assert_eq!(a.score, b.score, "{at}");
            assert_eq!((a.depth, a.seldepth), (b.depth, b.seldepth), "{at}");
            assert_eq!(a.nodes, b.nodes, "{at}");
            assert!(is_legal(start_fen, &moves, &a.uci), "{at}: {}", a.uci);
            moves.push(a.uci);
            compared += 1;
        }
    }
    assert!(compared >= 30, "only {compared} moves compared");
}

#[test]
fn in_process_player_obeys_the_deadline_and_every_limit() {
    let mut p = start_player(&PlayerSpec {
        kind: PlayerKind::InProcess(Box::default()),
        ..spec("", &[])
    })
    .unwrap();
    p.new_game().unwrap();
    let m = ask(p.as_mut(), &[], MoveLimit::Depth(3), 60_000).unwrap();
    assert_eq!(m.depth, Some(3));
    let m = ask(p.as_mut(), &[], MoveLimit::Nodes(2000), 60_000).unwrap();
    assert!(m.nodes.is_some_and(|n| n <= 2000), "{m:?}");
    for limit in [
        MoveLimit::MoveTime(Duration::from_millis(20)),
        MoveLimit::Clock {
            wtime: Duration::from_millis(500),
            btime: Duration::from_millis(500),
            winc: Duration::ZERO,
            binc: Duration::ZERO,
            movestogo: None,
        },
    ] {
        let m = ask(p.as_mut(), &[], limit, 60_000).unwrap();
        assert!(is_legal(None, &[], &m.uci));
    }
    // A search that cannot finish in time is stopped by the watchdog and
    // reported as a timeout; the player keeps working.
    let err = ask(p.as_mut(), &[], MoveLimit::Depth(60), 50).unwrap_err();
    assert!(matches!(err, EngineError::Timeout(_)), "{err:?}");
    p.new_game().unwrap();
    let mut moves = Vec::new();
    play(p.as_mut(), &mut moves, 4);
}

/// Self-play `white` against `black` from varied first moves (game `first`
/// onwards) until at least `plies` moves were played; every move is
/// checked. Returns (games, plies).
fn self_play<'a>(
    white: &'a mut dyn Player,
    black: &'a mut dyn Player,
    first: u64,
    plies: u64,
    nodes: u64,
) -> (u64, u64) {
    let first_moves: Vec<String> = Chess::default()
        .legal_moves()
        .iter()
        .map(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string())
        .collect();
    let (mut games, mut played) = (0, 0);
    while played < plies {
        white.new_game().unwrap();
        black.new_game().unwrap();
        let opening = &first_moves[(first + games) as usize % first_moves.len()];
        let mut moves = vec![opening.clone()];
        let mut pos = position(None, &moves);
        while !pos.is_game_over() && pos.halfmoves() < 100 && moves.len() < 200 {
            let player = if pos.turn().is_white() {
                &mut *white
            } else {
                &mut *black
            };
            let m = ask(player, &moves, MoveLimit::Nodes(nodes), 30_000).unwrap();
            let mv = UciMove::from_ascii(m.uci.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .unwrap_or_else(|| panic!("illegal {} after {moves:?}", m.uci));
            pos.play_unchecked(mv);
            moves.push(m.uci);
            played += 1;
        }
        games += 1;
    }
    (games, played)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Harness CPU per ply over UCI, and in-process against UCI speed. Not a
/// timed test: it prints figures (run in release, alone:
/// `cargo test --release -p karsinta-harness --test players bench_ -- --ignored --nocapture`).
/// `KARSINTA_BENCH_PLIES`, `KARSINTA_BENCH_NODES` and `KARSINTA_BENCH_GAMES`
/// change the workload. The in-process/UCI comparison alternates one game
/// each way (the same game: fixed nodes), so a changing machine load hits
/// both alike.
#[test]
#[ignore = "benchmark; prints figures"]
fn bench_players() {
    use karsinta_harness::players::cpu_usage;
    use std::time::Instant;
    let plies = env_u64("KARSINTA_BENCH_PLIES", 400);
    let nodes = env_u64("KARSINTA_BENCH_NODES", 5000);
    let games = env_u64("KARSINTA_BENCH_GAMES", 4);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let hash = |s: PlayerSpec| PlayerSpec {
        options: vec![("Hash".into(), "16".into())],
        ..s
    };
    let mut engines = vec![("karsinta-engine", karsinta_over_uci())];
    if let Some(sf) = debian_engine("stockfish") {
        engines.push(("stockfish", spec(sf, &[])));
    }
    for (label, s) in engines {
        let s = hash(s);
        let (mut white, mut black) = (UciPlayer::new(s.clone()), UciPlayer::new(s));
        let before = cpu_usage();
        let started = Instant::now();
        let (games, played) = self_play(&mut white, &mut black, 0, plies, nodes);
        let wall = started.elapsed();
        white.quit();
        black.quit();
        let after = cpu_usage();
        let harness = after.harness - before.harness;
        let engine = after.reaped_children - before.reaped_children;
        let per_ply = |d: Duration| ms(d) / played as f64;
        println!(
            "uci {label} {nodes} nodes: {games} games {played} plies in {:.1} s; \
             harness CPU {:.3} ms/ply, engines {:.3} ms/ply, harness share {:.2}%",
            wall.as_secs_f64(),
            per_ply(harness),
            per_ply(engine),
            100.0 * ms(harness) / (ms(harness) + ms(engine))
        );
    }
    // The same games over UCI and in process, alternating.
    let uci_spec = hash(karsinta_over_uci());
    let (mut uw, mut ub) = (UciPlayer::new(uci_spec.clone()), UciPlayer::new(uci_spec));
    let ip_spec = hash(PlayerSpec {
        kind: PlayerKind::InProcess(Box::default()),
        ..spec("", &[])
    });
    let (mut iw, mut ib) = (
        start_player(&ip_spec).unwrap(),
        start_player(&ip_spec).unwrap(),
    );
    let (mut uci_wall, mut ip_wall, mut ip_cpu) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut uci_harness = Duration::ZERO;
    let before_children = cpu_usage().reaped_children;
    let mut plies_each = 0;
    for g in 0..games {
        let c0 = cpu_usage().harness;
        let t0 = Instant::now();
        let a = self_play(&mut uw, &mut ub, g, 1, nodes);
        uci_wall += t0.elapsed();
        let c1 = cpu_usage().harness;
        uci_harness += c1 - c0;
        let t1 = Instant::now();
        let b = self_play(iw.as_mut(), ib.as_mut(), g, 1, nodes);
        ip_wall += t1.elapsed();
        ip_cpu += cpu_usage().harness - c1;
        assert_eq!(a, b, "same game either way");
        plies_each += a.1;
    }
    uw.quit();
    ub.quit();
    let uci_cpu = uci_harness + (cpu_usage().reaped_children - before_children);
    println!(
        "karsinta {nodes} nodes, {games} games ({plies_each} plies) each way: \
         uci {:.2} s wall, {:.3} ms CPU/ply; in-process {:.2} s wall, {:.3} ms CPU/ply; \
         games/min in-process / uci = {:.2}x (wall), {:.2}x (CPU)",
        uci_wall.as_secs_f64(),
        ms(uci_cpu) / plies_each as f64,
        ip_wall.as_secs_f64(),
        ms(ip_cpu) / plies_each as f64,
        uci_wall.as_secs_f64() / ip_wall.as_secs_f64(),
        uci_cpu.as_secs_f64() / ip_cpu.as_secs_f64()
    );
}

/// `restart=on` (YAML `restart: true`): the engine is a fresh process in
/// every game; the other keeps one process for the whole run.
#[test]
fn restart_on_starts_a_process_per_game() {
    use crate::common::{EPD, FAKE, KARSINTA};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("open.epd"), EPD).unwrap();
    let fake = FAKE.to_string();
    let engine = |name: &str, extra: &str| {
        format!("-engine cmd={fake} name={name} arg=--starts-allowed arg=1000 arg={name}.starts {extra}")
    };
    let line = format!(
        "match {} {} -each tc=inf nodes=100 -rounds 3 -games 2 -concurrency 1 \
         -openings file=open.epd -maxmoves 30 -srand 1 --out run --quiet",
        engine("fresh", "restart=on"),
        engine("kept", "restart=off"),
    );
    let out = std::process::Command::new(KARSINTA)
        .args(line.split_whitespace())
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let starts = |name: &str| {
        std::fs::read_to_string(d.join(format!("{name}.starts")))
            .unwrap()
            .lines()
            .count()
    };
    // Both are started once more at setup (the start check); then `kept`
    // plays all six games in one process and `fresh` starts one per game.
    let setup = starts("kept") - 1;
    assert_eq!(starts("fresh"), setup + 6);
    let config = std::fs::read_to_string(d.join("run/config.yaml")).unwrap();
    assert_eq!(config.matches("restart: true").count(), 1, "{config}");
}
