//! No engine process outlives the harness: [`kill_all_children`] (what the
//! CLI's Ctrl-C handler calls) and a SIGKILLed harness (`PR_SET_PDEATHSIG`).
//!
//! `kill_all_children` kills every engine of the process and refuses new
//! ones afterwards, so that test runs alone in a process of its own
//! ([`in_own_process`]). The SIGKILL test re-runs this test binary as the
//! "harness" to be killed.

use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use karsinta_harness::players::{
    kill_all_children, live_children, EngineError, MoveLimit, MoveRequest, Player, PlayerKind,
    PlayerSpec, UciPlayer,
};

use karsinta_test_support::in_own_process;

use crate::common::{process_gone, FAKE};
const HELPER_ENV: &str = "KARSINTA_TEST_PDEATHSIG_DIR";

fn spec(args: &[&str]) -> PlayerSpec {
    PlayerSpec {
        name: "fake".into(),
        kind: PlayerKind::Uci,
        cmd: FAKE.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        dir: None,
        options: vec![],
        init_timeout: Duration::from_secs(5),
        variant: karsinta_harness::variant::Variant::Standard,
        stderr_log: None,
        restart: false,
    }
}

/// Poll (bounded) until `cond` holds.
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < until, "timed out waiting: {what}");
        thread::sleep(Duration::from_millis(20));
    }
}

fn read_pid(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[test]
fn kill_all_children_kills_every_engine_and_blocks_new_ones() {
    if !in_own_process("kill_children::kill_all_children_kills_every_engine_and_blocks_new_ones") {
        return;
    }
    // One idle engine, one hung in the middle of a move on another thread.
    let mut idle = UciPlayer::new(spec(&[]));
    idle.new_game().unwrap();
    let idle_pid = idle.pid().unwrap();
    let mut hung = UciPlayer::new(spec(&["--hang-after", "0"]));
    hung.new_game().unwrap();
    let hung_pid = hung.pid().unwrap();
    assert_eq!(live_children(), 2);
    let thinking = thread::spawn(move || {
        hung.go(&MoveRequest {
            start_fen: None,
            moves: &[],
            variant: karsinta_harness::variant::Variant::Standard,
            limit: MoveLimit::Nodes(1),
            deadline: Duration::from_secs(600),
        })
    });
    thread::sleep(Duration::from_millis(100));
    kill_all_children();
    // The waiting player sees its engine die at once, not after 600 s.
    let err = thinking.join().unwrap().unwrap_err();
    assert!(matches!(err, EngineError::Crashed(_)), "{err:?}");
    assert!(process_gone(hung_pid));
    eventually("idle engine killed", || {
        // Not reaped until its player looks: a zombie counts as gone.
        process_gone(idle_pid)
    });
    assert!(matches!(idle.new_game(), Err(EngineError::Start(_))));
    drop(idle);
    assert_eq!(live_children(), 0);
}

/// Run only as a child of [`engines_die_with_a_sigkilled_harness`]: start an
/// engine, say so, and wait to be killed.
#[test]
fn pdeathsig_helper() {
    let Some(dir) = std::env::var_os(HELPER_ENV) else {
        return;
    };
    let dir = Path::new(&dir);
    let pid_file = dir.join("engine.pid");
    let mut p = UciPlayer::new(spec(&["--pid-file", pid_file.to_str().unwrap()]));
    // Started from a short-lived thread: the engine must survive it (it is
    // forked by the long-lived spawner thread) and die only with the process.
    thread::scope(|s| {
        s.spawn(|| p.new_game().unwrap());
    });
    std::fs::write(dir.join("ready"), "").unwrap();
    thread::sleep(Duration::from_secs(60));
    panic!("not killed");
}

#[test]
fn engines_die_with_a_sigkilled_harness() {
    if !cfg!(target_os = "linux") {
        return karsinta_test_support::skip(
            "Linux",
            "PR_SET_PDEATHSIG is Linux-only",
            "run on Linux",
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let mut harness = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "kill_children::pdeathsig_helper",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(HELPER_ENV, dir.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    eventually("helper started its engine", || {
        dir.path().join("ready").exists()
    });
    let engine = read_pid(&dir.path().join("engine.pid")).unwrap();
    thread::sleep(Duration::from_millis(200));
    assert!(
        !process_gone(engine),
        "engine died with its starting thread"
    );
    harness.kill().unwrap();
    harness.wait().unwrap();
    eventually("engine killed with the harness", || process_gone(engine));
}
