//! The bench `ab` and `gate` run before any game: bounded (a depth flag and
//! the bench timeout, for in-process parameter sets too), with progress, and
//! stopped by the first Ctrl-C; and a bad revision fails before the other
//! side is built.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{EPD, FAKE, KARSINTA};
use karsinta_test_support::skip;

/// `configs/params/simple.yaml`: a weak set whose depth-10 bench takes hours.
fn simple_params() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/params/simple.yaml")
}

/// A folder with openings, a default parameter set and an ab config whose
/// `build:` block is `build`.
fn fixture(build: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("open.epd"), EPD).unwrap();
    std::fs::write(p.join("default.yaml"), "{}\n").unwrap();
    std::fs::write(
        p.join("ab.yaml"),
        format!(
            "name: ab-test\nengines:\n  - {{ name: dev, cmd: {FAKE} }}\n  - {{ name: base, cmd: {FAKE} }}\n\
             time_control: nodes=300\nopenings: {{ file: open.epd }}\ngames: 2\nbuild: {build}\n"
        ),
    )
    .unwrap();
    dir
}

fn ab(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(KARSINTA);
    cmd.arg("ab")
        .arg("--config")
        .arg(dir.join("ab.yaml"))
        .arg("--out")
        .arg(dir.join("run"))
        .args(args)
        .env_remove("XDG_CACHE_HOME");
    cmd
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn bench_depth_flag_bounds_the_in_process_bench_and_shows_progress() {
    let f = fixture("{ bench: 'bench' }");
    let o = ab(
        f.path(),
        &["--bench-only", "--bench-depth", "2", "--dev-params"],
    )
    .arg(simple_params())
    .arg("--base-params")
    .arg(f.path().join("default.yaml"))
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("Bench: ").count(), 2, "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("in-process bench, depth 2"), "{err}");
    let n = karsinta_engine::bench::BENCH_FENS.len();
    assert!(
        err.contains(&format!("dev: bench | position {n}/{n}: ")),
        "{err}"
    );
}

#[test]
fn bench_timeout_bounds_the_in_process_bench() {
    // Depth 60 would never finish; the bench gives up after a second and
    // the side is reported without a signature.
    let f = fixture("{ bench: 'bench 60', bench_timeout_s: 1 }");
    let o = ab(f.path(), &["--bench-only", "--quiet", "--dev-params"])
        .arg(simple_params())
        .arg("--base-params")
        .arg(f.path().join("default.yaml"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        out.matches("bench unavailable (no result after 1 s at depth 60")
            .count(),
        2,
        "{}",
        text(&o)
    );
}

#[test]
fn first_ctrl_c_stops_the_bench() {
    let f = fixture("{ bench: 'bench 60' }");
    let mut child = ab(f.path(), &["--bench-only", "--dev-params"])
        .arg(simple_params())
        .arg("--base-params")
        .arg(f.path().join("default.yaml"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // Wait until the bench is running.
    for line in lines.by_ref() {
        if line.unwrap().contains("in-process bench") {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(200));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    #[allow(unsafe_code)]
    // SAFETY: sends a signal to our own child process; no memory is touched.
    let r = unsafe { libc::kill(pid, libc::SIGINT) };
    assert_eq!(r, 0);
    // Only a guard against a hang: one signal must be enough.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("one Ctrl-C did not stop the bench");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l == "interrupted"), "{rest:?}");
}

fn git(repo: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn bad_revision_fails_before_the_other_side_is_built() {
    let f = fixture(
        "{ command: 'echo built >> ../../builds.log && mkdir -p bin && cp engine.sh bin/engine', \
         binary: bin/engine, bench: '', cache_dir: cache }",
    );
    let repo = f.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    if !git(&repo, &["init", "-q"]) {
        return skip("git", "`git` does not run", "install git");
    }
    std::fs::write(repo.join("engine.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    assert!(git(&repo, &["add", "engine.sh"]) && git(&repo, &["commit", "-q", "-m", "one"]));
    let o = ab(
        f.path(),
        &[
            "--bench-only",
            "--dev",
            "HEAD",
            "--base",
            "nosuchrev",
            "--repo",
        ],
    )
    .arg(&repo)
    .output()
    .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("nosuchrev"),
        "{}",
        text(&o)
    );
    assert!(
        !f.path().join("builds.log").exists()
            && !f.path().join("cache").join("builds.log").exists(),
        "dev was built first: {}",
        text(&o)
    );
}

/// Ctrl-C during the games: the result line says the SPRT was interrupted
/// (and `--resume` goes on), not that the game cap ran out.
#[cfg(unix)]
#[test]
fn ctrl_c_during_the_games_reports_an_interrupted_sprt() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("open.epd"), EPD).unwrap();
    std::fs::write(
        p.join("ab.yaml"),
        format!(
            "name: ab-int\nengines:\n  \
             - {{ name: dev, cmd: {FAKE}, args: ['--seed', '1', '--slow-bestmove', '5'] }}\n  \
             - {{ name: base, cmd: {FAKE}, args: ['--seed', '2', '--slow-bestmove', '5'] }}\n\
             time_control: nodes=300\nopenings: {{ file: open.epd }}\ngames: 4000\n\
             concurrency: 2\nsprt: {{ elo0: 0, elo1: 5 }}\nbuild: {{ bench: '' }}\n"
        ),
    )
    .unwrap();
    let run = p.join("run");
    let child = ab(
        p,
        &[
            "--quiet",
            "--dev-cmd",
            FAKE.path(),
            "--base-cmd",
            FAKE.path(),
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let ledger = run.join("ledger.jsonl");
    let start = Instant::now();
    while std::fs::read_to_string(&ledger).map_or(0, |t| t.lines().count()) < 1 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no game pair finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    #[allow(unsafe_code)]
    // SAFETY: sends a signal to our own child process; no memory is touched.
    let r = unsafe { libc::kill(pid, libc::SIGINT) };
    assert_eq!(r, 0);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Result: undecided: interrupted before the SPRT decided"),
        "{}",
        text(&o)
    );
    assert!(!out.contains("game cap"), "{}", text(&o));
}
