//! No engine process outlives the harness, even one started through a
//! wrapper script that does not `exec` and even when the harness is
//! SIGKILLed (no handler runs): the engine's group watcher kills the group.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{EPD, FAKE, KARSINTA};

/// Whether `pid` (a number read from a pid file) is gone.
fn dead(pid: &str) -> bool {
    let pid = pid
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a pid: {pid:?}"));
    crate::common::process_gone(pid)
}

#[test]
#[ignore = "starts and SIGKILLs a harness process (Linux)"]
fn sigkilled_harness_leaves_no_wrapped_engine_behind() {
    if !cfg!(target_os = "linux") {
        return karsinta_test_support::skip(
            "Linux",
            "parent-death signals are Linux only",
            "run on Linux",
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let script = dir.path().join("wrapper.sh");
    // A wrapper that does not exec: the engine and a stray helper are its
    // children, in the background (stdin passed on by hand, as sh gives
    // background jobs /dev/null).
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsleep 1000 &\necho $! >> '{p}'\nexec 3<&0\n'{FAKE}' --seed 3 <&3 3<&- &\n\
             echo $! >> '{p}'\nwait\n",
            p = pids.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(dir.path().join("open.epd"), EPD).unwrap();
    let config = dir.path().join("wrapped.yaml");
    std::fs::write(
        &config,
        format!(
            "engines:\n  - name: wrapped\n    cmd: {}\n  - name: plain\n    cmd: {FAKE}\n\
             games: 1000\nconcurrency: 1\ntime_control: 60+1\nopenings: {{ file: open.epd }}\n",
            script.display()
        ),
    )
    .unwrap();
    let mut harness = Command::new(KARSINTA)
        .args(["match", "--quiet", "--out"])
        .arg(dir.path().join("run"))
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let read_pids = || -> Vec<String> {
        let text = std::fs::read_to_string(&pids).unwrap_or_default();
        text.lines().map(str::to_string).collect()
    };
    let start = Instant::now();
    while read_pids().len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "wrapper never ran"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The harness starts each engine once for its setup handshake before
    // play, so the wrapper may run twice: once a game pair is in the ledger,
    // the last two pids are the processes of the engine that plays.
    let ledger = dir.path().join("run/ledger.jsonl");
    while std::fs::read_to_string(&ledger)
        .unwrap_or_default()
        .is_empty()
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no game pair finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let all = read_pids();
    let children = all[all.len() - 2..].to_vec();
    // Pids before those are the setup handshake's run of the wrapper: its
    // stray helper must not outlive the harness either.
    let setup = all[..all.len() - 2].to_vec();
    assert!(
        children.iter().all(|p| !dead(p)),
        "started and running: {all:?}"
    );
    harness.kill().unwrap(); // SIGKILL: no handler of the harness runs
    harness.wait().unwrap();
    let start = Instant::now();
    loop {
        let alive = |pids: &[String]| -> Vec<String> {
            pids.iter().filter(|p| !dead(p)).cloned().collect()
        };
        let (setup_alive, play_alive) = (alive(&setup), alive(&children));
        if setup_alive.is_empty() && play_alive.is_empty() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "processes of the wrapper survived the harness: setup handshake's {setup_alive:?} \
             (of {setup:?}), playing engine's {play_alive:?} (of {children:?})"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
