//! What a new user's first hour broke (issue 13, the runner's part): engines
//! that never start, resumes of edited configs, shared or non-empty run
//! folders, self-contradicting and degenerate statistics, silent runs in CI,
//! absurd concurrency, and error text. Each test fails on the code before
//! the fix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::{fake_config, summary_json, FAKE, KARSINTA};
use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::openings::Opening;
use karsinta_harness::play::game::GameRecord;
use karsinta_harness::play::pairs::{
    play_pairs, ConcurrencyError, Ended, Flow, PairJob, PlayOptions, PlayerFactory, RunnerError,
};
use karsinta_harness::players::{PlayerKind, PlayerSpec};
use karsinta_harness::run::{claim_new_run_dir, run_match, RunOptions};

fn karsinta(args: &[&str], dir: &Path) -> Output {
    Command::new(KARSINTA)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A 4-game run of the fake engines played to the end into `dir/run`: the
/// config file and the run folder.
fn finished_fake_run(dir: &Path) -> (PathBuf, PathBuf) {
    let cfg = fake_config(dir, &["--seed", "4"], "");
    let o = karsinta(&["match", cfg.to_str().unwrap(), "--out", "run", "-q"], dir);
    assert!(o.status.success(), "{}", text(&o));
    (cfg, dir.join("run"))
}

/// A match config whose second engine is `cmd` (UCI) against an in-process one.
fn config_with(dir: &Path, cmd: &str, extra: &str) -> std::path::PathBuf {
    let path = dir.join("c.yaml");
    std::fs::write(
        &path,
        format!(
            "engines:
  - name: good
    type: inprocess
  - name: broken
    cmd: {cmd}
    init_timeout_ms: 500
time_control: nodes=200
games: 20
concurrency: 1
seed: 1
sprt: {{ elo0: 0, elo1: 5 }}
{extra}"
        ),
    )
    .unwrap();
    path
}

#[test]
fn an_engine_that_never_starts_is_a_setup_error_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let noexec = dir.path().join("noexec");
    std::fs::write(&noexec, "#!/bin/sh\n").unwrap();
    for cmd in ["/bin/true", "/bin/cat", noexec.to_str().unwrap()] {
        config_with(dir.path(), cmd, "");
        let o = karsinta(&["match", "c.yaml", "--out", "run"], dir.path());
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("engine broken"), "{cmd}: {err}");
        assert!(!dir.path().join("run").exists(), "{cmd}: no run folder");
    }
    // The default folder is not left behind either.
    config_with(dir.path(), "/bin/true", "");
    let o = karsinta(&["match", "c.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let results = dir.path().join("results");
    let left = std::fs::read_dir(&results).map_or(0, |d| d.count());
    assert_eq!(left, 0, "an empty run folder was left in results/");
}

#[test]
fn an_engine_that_can_no_longer_start_stops_the_run_and_keeps_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let starts = dir.path().join("starts.txt");
    // Start 1 is the setup check, start 2 the first game's; the engine
    // crashes after 12 moves and every later start fails.
    let cfg = fake_config(
        dir.path(),
        &[
            "--crash-after",
            "12",
            "--starts-allowed",
            "2",
            starts.to_str().unwrap(),
        ],
        "max_start_failures: 2\n",
    );
    let text_cfg = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("games: 4", "games: 40");
    std::fs::write(&cfg, text_cfg).unwrap();
    let o = karsinta(
        &["match", cfg.to_str().unwrap(), "--out", "run", "-q"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("engine bad could not be restarted (2 attempts in a row"),
        "{err}"
    );
    let s = summary_json(&dir.path().join("run"));
    assert_eq!(s["status"], "halted");
    // Not a string of forfeits: only pairs played to the end were counted.
    assert!(s["games"].as_u64().unwrap() < 6, "{s}");
    let ledger = std::fs::read_to_string(dir.path().join("run/ledger.jsonl")).unwrap();
    assert_eq!(
        ledger.lines().count() as u64 * 2,
        s["games"].as_u64().unwrap()
    );
}

#[test]
fn resume_refuses_a_config_changed_in_what_decides_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let (_, run) = finished_fake_run(dir.path());
    let original = std::fs::read_to_string(run.join("config.yaml")).unwrap();
    for (from, to, key) in [
        (
            "time_control: nodes=100",
            "time_control: nodes=101",
            "time_control",
        ),
        ("seed: 5", "seed: 6", "seed"),
        ("name: bad", "name: worse", "engines[1].name"),
        ("- '4'", "- '5'", "engines[1].args[1]"),
    ] {
        assert!(original.contains(from), "{from} in\n{original}");
        std::fs::write(run.join("config.yaml"), original.replace(from, to)).unwrap();
        let o = karsinta(&["match", "--resume", "run", "-q"], dir.path());
        assert_eq!(o.status.code(), Some(2), "{key}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(key) && err.contains("fingerprint"),
            "{key}: {err}"
        );
    }
    // What cannot change the games may change.
    std::fs::write(
        run.join("config.yaml"),
        original.replace("concurrency: 1", "concurrency: 2"),
    )
    .unwrap();
    let o = karsinta(&["match", "--resume", "run", "-q"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn an_sprt_stopped_at_its_cap_resumes_with_more_games() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(
        dir.path(),
        &["--seed", "4"],
        "sprt: { elo0: 0, elo1: 5, max_games: 4 }\n",
    );
    let o = karsinta(
        &["match", cfg.to_str().unwrap(), "--out", "run", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let run = dir.path().join("run");
    assert_eq!(summary_json(&run)["games"], 4);

    // `--games` raises the SPRT's cap with the games: both may rise.
    let o = karsinta(
        &["match", "--resume", "run", "--games", "8", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(summary_json(&run)["games"], 8);
    let config = std::fs::read_to_string(run.join("config.yaml")).unwrap();
    assert!(config.contains("max_games: 8"), "{config}");

    // Lowering the cap alone is still a changed config.
    let edited = config.replace("max_games: 8", "max_games: 2");
    std::fs::write(run.join("config.yaml"), edited).unwrap();
    let o = karsinta(&["match", "--resume", "run", "-q"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("sprt.max_games: 8 -> 2"), "{}", text(&o));
}

#[test]
fn resume_with_more_games_keeps_the_pairs_played_and_plays_on_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (cfg, run) = finished_fake_run(dir.path());
    let played = std::fs::read_to_string(run.join("ledger.jsonl")).unwrap();
    assert_eq!(played.lines().count(), 2);

    // Fewer games would drop pairs already counted: refused.
    let o = karsinta(
        &["match", "--resume", "run", "--games", "2", "-q"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("games: 4 -> 2"), "{}", text(&o));

    let o = karsinta(
        &["match", "--resume", "run", "--games", "8", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(summary_json(&run)["games"], 8);
    let ledger = std::fs::read_to_string(run.join("ledger.jsonl")).unwrap();
    assert!(ledger.starts_with(&played), "{ledger}");
    assert_eq!(ledger.lines().count(), 4);
    let config = std::fs::read_to_string(run.join("config.yaml")).unwrap();
    assert!(config.contains("games: 8"), "{config}");

    // Pair for pair the openings of a run started with 8 games.
    let o = karsinta(
        &[
            "match",
            cfg.to_str().unwrap(),
            "--games",
            "8",
            "--out",
            "fresh",
            "-q",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let openings = |run: &Path| {
        let mut v: Vec<(u64, u64)> = std::fs::read_to_string(run.join("ledger.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let e: serde_json::Value = serde_json::from_str(l).unwrap();
                (e["pair"].as_u64().unwrap(), e["opening"].as_u64().unwrap())
            })
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(openings(&run), openings(&dir.path().join("fresh")));
    assert_eq!(
        std::fs::read_to_string(run.join("fingerprint.json")).unwrap(),
        std::fs::read_to_string(dir.path().join("fresh/fingerprint.json")).unwrap()
    );

    // The raised folder resumes as it is now.
    let o = karsinta(&["match", "--resume", "run", "-q"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(summary_json(&run)["games"], 8);
}

#[test]
fn new_runs_never_share_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("results/x-20261124T101010Z");
    let a = claim_new_run_dir(&base).unwrap();
    let b = claim_new_run_dir(&base).unwrap();
    assert_ne!(a, b);
    assert!(a.is_dir() && b.is_dir());
    // Two runs into one given folder: the second finds it taken.
    let cfg = MatchConfig::load(
        &fake_config(dir.path(), &["--seed", "4"], ""),
        &Overrides::default(),
    )
    .unwrap();
    let opts = RunOptions {
        out_dir: a.clone(),
        quiet: true,
        ..RunOptions::default()
    };
    run_match(&cfg, &opts).unwrap();
    let again = run_match(&cfg, &opts).unwrap_err();
    assert!(again.to_string().contains("already holds a run"), "{again}");
}

/// `config.yaml` after `edit`, then `--resume`: its output.
fn resume_after(run: &Path, edit: impl Fn(&str) -> String) -> Output {
    let path = run.join("config.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, edit(&text)).unwrap();
    karsinta(
        &["match", "--resume", run.to_str().unwrap(), "-q"],
        run.parent().unwrap(),
    )
}

#[test]
fn a_kill_while_a_run_claims_its_folder_leaves_it_usable() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &["--seed", "4"], "");
    // A file size limit of 0 kills the harness (SIGXFSZ) at its first
    // write of a byte to a file, which is the claim of its run folder.
    let o = Command::new("sh")
        .args(["-c", "ulimit -f 0 && exec \"$@\"", "sh", KARSINTA])
        .args(["match", cfg.to_str().unwrap(), "--out", "run", "-q"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    let run = dir.path().join("run");
    assert!(run.is_dir(), "{}", text(&o));
    // A ledger means a run to resume; without one the folder is free.
    let o = if run.join("ledger.jsonl").exists() {
        karsinta(&["match", "--resume", "run", "-q"], dir.path())
    } else {
        karsinta(
            &["match", cfg.to_str().unwrap(), "--out", "run", "-q"],
            dir.path(),
        )
    };
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(summary_json(&run)["games"], 4);

    // The states a kill can leave after the claim: the config, the
    // fingerprint too, an empty ledger too. Each resumes from zero.
    let files: &[&[&str]] = &[
        &["config.yaml"],
        &["config.yaml", "fingerprint.json"],
        &["config.yaml", "fingerprint.json", "ledger.jsonl"],
    ];
    for (i, names) in files.iter().enumerate() {
        let left = dir.path().join(format!("left{i}"));
        std::fs::create_dir(&left).unwrap();
        for name in *names {
            if *name == "ledger.jsonl" {
                std::fs::write(left.join(name), "").unwrap();
            } else {
                std::fs::copy(run.join(name), left.join(name)).unwrap();
            }
        }
        let name = format!("left{i}");
        // Not free for a new run: it holds one to resume.
        if names.len() > 1 {
            let o = karsinta(
                &["match", cfg.to_str().unwrap(), "--out", &name, "-q"],
                dir.path(),
            );
            assert_eq!(o.status.code(), Some(2), "{names:?}: {}", text(&o));
            assert!(text(&o).contains("--resume"), "{names:?}: {}", text(&o));
        }
        let o = karsinta(&["match", "--resume", &name, "-q"], dir.path());
        assert!(o.status.success(), "{names:?}: {}", text(&o));
        let s = summary_json(&left);
        assert_eq!(
            (s["games"].as_u64(), &s["status"]),
            (Some(4), &"finished".into()),
            "{names:?}"
        );
        assert_eq!(
            std::fs::read_to_string(left.join("fingerprint.json")).unwrap(),
            std::fs::read_to_string(run.join("fingerprint.json")).unwrap(),
            "{names:?}"
        );
    }
}

#[test]
fn resume_without_the_fingerprint_it_wrote_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, run) = finished_fake_run(dir.path());
    std::fs::remove_file(run.join("fingerprint.json")).unwrap();
    let o = resume_after(&run, |t| t.replace("seed: 5", "seed: 6"));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("fingerprint.json is missing") && err.contains("max_start_failures"),
        "{err}"
    );
    // A folder of a version from before fingerprints: nothing to compare.
    let o = resume_after(&run, |t| {
        t.lines()
            .filter(|l| !l.starts_with("max_start_failures:"))
            .map(|l| format!("{l}\n"))
            .collect()
    });
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_parameter_put_back_to_its_default_shows_the_default() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.yaml"),
        "engines:
  - { name: a, type: inprocess }
  - { name: b, type: inprocess, params: { null_move_r: 4 } }
time_control: nodes=100
games: 2
seed: 1
",
    )
    .unwrap();
    let o = karsinta(&["match", "p.yaml", "--out", "run", "-q"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let run = dir.path().join("run");
    let o = resume_after(&run, |t| t.replace("null_move_r: 4", "null_move_r: 3"));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("engines[1].params.null_move_r: 4 -> 3 (default)"),
        "{err}"
    );
}

#[test]
fn out_naming_a_file_is_a_setup_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &["--seed", "4"], "");
    std::fs::write(dir.path().join("taken"), "precious\n").unwrap();
    for out in ["taken", "taken/run"] {
        let o = karsinta(
            &["match", cfg.to_str().unwrap(), "--out", out, "-q"],
            dir.path(),
        );
        assert_eq!(o.status.code(), Some(2), "{out}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("is not a folder"), "{out}: {err}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("taken")).unwrap(),
        "precious\n"
    );
}

#[test]
fn two_matches_started_at_once_without_out_get_their_own_folders() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("same.yaml"),
        "engines:
  - { name: a, type: inprocess }
  - { name: b, type: inprocess }
time_control: nodes=200
games: 8
concurrency: 1
seed: 3
",
    )
    .unwrap();
    // Both default to results/same-<UTC second> under the working directory.
    let start = || {
        Command::new(KARSINTA)
            .args(["match", "same.yaml", "-q"])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start(), start());
    let folders: Vec<std::path::PathBuf> = [a, b]
        .into_iter()
        .map(|child| {
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", text(&o));
            let out = String::from_utf8_lossy(&o.stdout);
            let line = out.lines().find_map(|l| l.strip_prefix("Run   | "));
            let folder = line.and_then(|l| l.split(" (").next()).unwrap_or_default();
            assert!(folder.starts_with("results/same-"), "{out}");
            dir.path().join(folder)
        })
        .collect();
    assert_ne!(folders[0], folders[1]);
    for f in &folders {
        // Exactly this run's four pairs, each once, and its games only.
        let ledger = std::fs::read_to_string(f.join("ledger.jsonl")).unwrap();
        let mut pairs: Vec<u64> = ledger
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["pair"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        pairs.sort_unstable();
        assert_eq!(pairs, [0, 1, 2, 3], "{}", f.display());
        let pgn = std::fs::read_to_string(f.join("games.pgn")).unwrap();
        assert_eq!(pgn.matches("[Round ").count(), 8, "{}", f.display());
        assert_eq!(summary_json(f)["games"], 8);
    }
    let runs = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .count();
    assert_eq!(runs, 2);
}

#[test]
fn a_non_empty_folder_without_a_run_is_refused_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &["--seed", "4"], "");
    let out = dir.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    for name in ["games.pgn", "config.yaml", "summary.json"] {
        std::fs::write(out.join(name), "precious\n").unwrap();
        let o = karsinta(
            &["match", cfg.to_str().unwrap(), "--out", "mine", "-q"],
            dir.path(),
        );
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(String::from_utf8_lossy(&o.stderr).contains("not empty"));
        assert_eq!(
            std::fs::read_to_string(out.join(name)).unwrap(),
            "precious\n"
        );
        std::fs::remove_file(out.join(name)).unwrap();
    }
}

#[test]
fn draw_ratio_has_one_definition_and_degenerate_figures_are_null() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &["--seed", "9"], "");
    let text_cfg = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("games: 4", "games: 40");
    std::fs::write(&cfg, text_cfg).unwrap();
    let s = crate::common::run(&cfg, &dir.path().join("run"), &Overrides::default());
    let draws = s.draws as f64 / s.first_engine_games as f64;
    assert_eq!(s.estimate.draw_ratio, Some(draws));
    assert_eq!(s.pairings[0].estimate.draw_ratio, Some(draws));

    // A sweep: the loser plays an illegal move every game.
    let cfg = fake_config(dir.path(), &["--illegal-after", "0"], "");
    let o = karsinta(
        &["match", cfg.to_str().unwrap(), "--out", "sweep", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let j = summary_json(&dir.path().join("sweep"));
    assert_eq!(j["estimate"]["score"], 1.0);
    for key in ["elo", "elo_error", "nelo", "nelo_error", "los"] {
        let e = &j["estimate"];
        assert!(e.get(key).is_some_and(|v| v.is_null()), "{key}: {j}");
    }
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Elo   | n/a +- n/a"), "{out}");
}

#[test]
fn a_run_without_a_terminal_prints_a_line_per_pair() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &["--seed", "4"], "sprt: { elo0: 0, elo1: 5 }\n");
    // stderr is a pipe here, as under CI, nohup or tee.
    let o = karsinta(
        &["match", cfg.to_str().unwrap(), "--out", "run"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("pair ")).collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[1].starts_with("pair 2/2 (4 games): W "), "{err}");
    assert!(lines[1].contains("Elo"), "{err}");
    // The score and, with an SPRT, the LLR and its bounds.
    assert!(lines[1].contains("%  Elo "), "{err}");
    assert!(
        lines[1].contains("  LLR ") && lines[1].contains("(-2.94, 2.94)"),
        "{err}"
    );
    assert!(!lines.iter().any(|l| l.contains("-0.00")), "{err}");
}

#[test]
fn concurrency_beyond_the_machine_is_refused_with_the_bound() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores * 8 >= 1000 {
        return karsinta_test_support::skip(
            "a machine with fewer than 125 cores",
            "this one could run 1000 games at once",
            "run on a smaller machine",
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &["--seed", "4"], "");
    let text_cfg = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("games: 4", "games: 4000");
    std::fs::write(&cfg, text_cfg).unwrap();
    let o = karsinta(
        &["match", cfg.to_str().unwrap(), "-j", "1000", "--out", "run"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("at most {} games at once", cores * 8)),
        "{err}"
    );
    assert!(!dir.path().join("run").exists());
}

#[test]
fn every_caller_of_the_runner_is_bounded_by_the_machine() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores * 8 >= 1000 {
        return karsinta_test_support::skip(
            "a machine with fewer than 125 cores",
            "this one could run 1000 games at once",
            "run on a smaller machine",
        );
    }
    let bound = format!("at most {} games at once", cores * 8);
    // The library itself, before any engine starts.
    let engines = vec![
        inprocess("a", karsinta_engine::Params::default()),
        inprocess("b", karsinta_engine::Params::default()),
    ];
    let cfg = MatchConfig::from_parts("lib", &engines, "nodes=100", 2, 1).unwrap();
    let started = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&started);
    let factory: PlayerFactory = Arc::new(move |spec: &PlayerSpec| {
        counter.fetch_add(1, Ordering::SeqCst);
        karsinta_harness::players::start_player(spec)
    });
    let opening = Arc::new(Opening {
        fen: None,
        moves: Vec::new(),
        id: 0,
    });
    let jobs = (0..5000u64).map(|pair| PairJob::swapped(pair, 0, 1, Arc::clone(&opening)));
    let err = play_pairs(
        &cfg.engines,
        &cfg.settings,
        jobs,
        &PlayOptions {
            concurrency: 1000,
            factory: Some(factory),
            ..PlayOptions::default()
        },
        |_| Ok::<_, std::convert::Infallible>(Flow::Continue),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            RunnerError::Concurrency(ConcurrencyError::Cores { workers: 1000, .. })
        ),
        "{err}"
    );
    assert!(err.to_string().contains(&bound), "{err}");
    assert_eq!(started.load(Ordering::SeqCst), 0, "no engine was started");

    // `tune spsa -j 1000`: a setup error before its run folder is written.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.yaml"),
        "name: t\nengines:\n  - name: k\n    type: inprocess\ntime_control: nodes=100\n\
         spsa:\n  iterations: 2\n  pairs_per_iteration: 2\n  params:\n    null_move_r: { start: 4 }\n",
    )
    .unwrap();
    let o = karsinta(
        &["tune", "spsa", "t.yaml", "-j", "1000", "--out", "run", "-q"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&bound), "{err}");
    assert!(!dir.path().join("run").exists());
}

#[test]
fn more_games_than_cores_on_a_clock_are_played_with_a_warning() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let j = cores + 1;
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &["--seed", "4"], "");
    let text_cfg = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("games: 4", &format!("games: {}", 2 * j))
        .replace("time_control: nodes=100", "time_control: 10+0.1");
    std::fs::write(&cfg, text_cfg).unwrap();
    let jobs = j.to_string();
    let o = karsinta(
        &[
            "match",
            cfg.to_str().unwrap(),
            "-j",
            &jobs,
            "--out",
            "run",
            "-q",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "warning: concurrency {j} is more than the {cores} cores of this machine: at 10+0.1"
        )) && err.contains("loses more games on time"),
        "{err}"
    );
    assert_eq!(err.matches("warning: concurrency").count(), 1, "{err}");
    // At fixed nodes the CPU time does not change the games: no warning.
    let cfg = fake_config(dir.path(), &["--seed", "4"], "");
    let text_cfg = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("games: 4", &format!("games: {}", 2 * j));
    std::fs::write(&cfg, text_cfg).unwrap();
    let o = karsinta(
        &[
            "match",
            cfg.to_str().unwrap(),
            "-j",
            &jobs,
            "--out",
            "nodes",
            "-q",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("warning"),
        "{}",
        text(&o)
    );
}

#[test]
fn errors_are_printed_once_and_flags_are_blamed_not_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("p.yaml");
    std::fs::write(
        &cfg,
        "engines:
  - { name: a, type: inprocess }
  - { name: b, type: inprocess, params: { null_move_r: 99 } }
time_control: nodes=100
games: 2
",
    )
    .unwrap();
    let o = karsinta(&["match", "p.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("out of range").count(), 1, "{err}");

    std::fs::write(
        &cfg,
        "engines:
  - { name: a, type: inprocess }
  - { name: b, type: inprocess }
time_control: nodes=100
games: 2
",
    )
    .unwrap();
    let o = karsinta(&["match", "p.yaml", "--tc", "abc"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--tc") && !err.contains("p.yaml"), "{err}");

    let o = karsinta(&["match"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("<CONFIG>"));
}

#[test]
fn an_opening_file_error_exits_2_and_leaves_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &["--seed", "4"], "");
    std::fs::write(dir.path().join("open.epd"), "not a fen at all\n").unwrap();
    let o = karsinta(
        &["match", cfg.to_str().unwrap(), "--out", "run"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!dir.path().join("run").exists());
}

fn inprocess(name: &str, params: karsinta_engine::Params) -> PlayerSpec {
    PlayerSpec {
        name: name.into(),
        kind: PlayerKind::InProcess(Box::new(params)),
        cmd: Default::default(),
        args: Vec::new(),
        dir: None,
        options: Vec::new(),
        init_timeout: std::time::Duration::from_secs(5),
        variant: karsinta_harness::variant::Variant::Standard,
        stderr_log: None,
        restart: false,
    }
}

fn moves(g: &GameRecord) -> Vec<String> {
    g.moves.iter().map(|m| m.uci.clone()).collect()
}

#[test]
fn the_runner_plays_pairs_from_values_and_matches_run_match() {
    let engines = vec![
        inprocess("a", karsinta_engine::Params::default()),
        inprocess("b", karsinta_engine::Params::default()),
    ];
    let cfg = MatchConfig::from_parts("lib", &engines, "nodes=300", 6, 7).unwrap();
    let openings: Vec<Arc<Opening>> = crate::common::EPD
        .lines()
        .enumerate()
        .map(|(id, fen)| {
            Arc::new(Opening {
                fen: Some(fen.to_string()),
                moves: Vec::new(),
                id,
            })
        })
        .collect();
    // b plays with other values in pair 1 only.
    let tweak = Arc::new([
        Vec::new(),
        vec![("null_move_r".to_string(), "5".to_string())],
    ]);
    let jobs = (0..3u64).map(|pair| PairJob {
        options: (pair == 1).then(|| Arc::clone(&tweak)),
        ..PairJob::swapped(pair, 0, 1, Arc::clone(&openings[pair as usize]))
    });
    let mut got = Vec::new();
    let ended = play_pairs(
        &cfg.engines,
        &cfg.settings,
        jobs,
        &PlayOptions {
            concurrency: 2,
            ..PlayOptions::default()
        },
        |p| {
            got.push(p);
            Ok::<_, std::convert::Infallible>(Flow::Continue)
        },
    )
    .unwrap();
    assert_eq!(ended, Ended::Exhausted);
    got.sort_by_key(|p| p.job.pair);
    assert_eq!(
        got.iter().map(|p| p.job.pair).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    for p in &got {
        assert_eq!(p.games[0].white, "a");
        assert_eq!(p.games[1].white, "b");
        let e = p.entry(0, Some(p.job.opening.id));
        assert_eq!(e.pair, p.job.pair);
    }

    // The same pairs through the run folder writer give the same moves
    // (its pair p plays opening p with sequential order and seed 7).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("o.epd"), crate::common::EPD).unwrap();
    let yaml = format!(
        "{}openings: {{ file: {} }}\n",
        cfg.resolved_yaml(),
        dir.path().join("o.epd").display()
    );
    let cfg2 =
        MatchConfig::from_yaml(&yaml, &dir.path().join("c.yaml"), &Overrides::default()).unwrap();
    let out = dir.path().join("run");
    run_match(
        &cfg2,
        &RunOptions {
            out_dir: out.clone(),
            quiet: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
    // Pairs 0 and 2 carry no options: the same games (result, length)
    // through both paths at fixed nodes.
    let ledger = std::fs::read_to_string(out.join("ledger.jsonl")).unwrap();
    let entries: Vec<serde_json::Value> = ledger
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for pair in [0usize, 2] {
        let e = entries.iter().find(|e| e["pair"] == pair).unwrap();
        for g in 0..2 {
            let mine = &got[pair].games[g];
            assert_eq!(
                e["games"][g]["plies"],
                mine.moves.len() as u64,
                "pair {pair}"
            );
            assert_eq!(e["games"][g]["result"], mine.result.pgn(), "pair {pair}");
        }
    }
    assert!(!moves(&got[0].games[0]).is_empty());

    // A callback that says stop ends the run early; a stop flag halts it.
    let stop = Arc::new(AtomicBool::new(false));
    let jobs = (0..50u64).map(|pair| PairJob::swapped(pair, 0, 1, Arc::clone(&openings[0])));
    let mut n = 0;
    let ended = play_pairs(
        &cfg.engines,
        &cfg.settings,
        jobs,
        &PlayOptions {
            concurrency: 2,
            stop: vec![Arc::clone(&stop)],
            ..PlayOptions::default()
        },
        |_| {
            n += 1;
            Ok::<_, std::convert::Infallible>(if n == 2 { Flow::Stop } else { Flow::Continue })
        },
    )
    .unwrap();
    assert_eq!((ended, n), (Ended::Stopped, 2));
    stop.store(true, Ordering::SeqCst);
    let jobs = (0..50u64).map(|pair| PairJob::swapped(pair, 0, 1, Arc::clone(&openings[0])));
    let ended = play_pairs(
        &cfg.engines,
        &cfg.settings,
        jobs,
        &PlayOptions {
            stop: vec![stop],
            ..PlayOptions::default()
        },
        |_| Ok::<_, std::convert::Infallible>(Flow::Continue),
    )
    .unwrap();
    assert_eq!(ended, Ended::Halted);
    let _ = FAKE;
}

/// An engine that never completes its handshake is a setup error before any
/// game, not a match of forfeits (it would "prove" anything to an SPRT).
#[test]
fn an_engine_that_never_gets_ready_is_a_setup_error() {
    for args in [
        &["--crash-at-start"][..],
        &["--no-uciok"][..],
        &["--slow-isready", "2000"][..],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let cfg = crate::common::fake_config(dir.path(), args, "");
        let cfg = karsinta_harness::config::MatchConfig::load(&cfg, &Overrides::default()).unwrap();
        let out = dir.path().join("run");
        let opts = karsinta_harness::run::RunOptions {
            out_dir: out.clone(),
            quiet: true,
            ..Default::default()
        };
        let err = karsinta_harness::run::run_match(&cfg, &opts).unwrap_err();
        assert!(
            matches!(err, karsinta_harness::run::MatchError::Setup { .. }),
            "{args:?}: {err}"
        );
        assert!(err.is_setup());
        assert!(!out.exists(), "{args:?}: nothing written");
    }
}

/// Issue 13 item 9: in-process engines must keep their clock on a loaded
/// machine as a UCI engine does. Two in-process engines play on a clock at
/// `-j 2` while three busy loops take the cores: no game may be lost on
/// time (the search runs on the game's thread and reads the wall clock, so
/// losing CPU share shortens its depth, never its deadline).
#[test]
#[ignore = "slow: clock games under load"]
fn in_process_engines_keep_their_clock_under_load() {
    let dir = tempfile::tempdir().unwrap();
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../openings/karsinta-8ply.epd");
    let cfg = dir.path().join("load.yaml");
    std::fs::write(
        &cfg,
        format!(
            "name: load\nengines:\n  - name: a\n    type: inprocess\n  - name: b\n    type: inprocess\n    \
             params: {{ lmr: false }}\ngames: 6\nconcurrency: 2\ntime_control: 3+0.03\nseed: 9\n\
             openings:\n  file: {}\n  order: random\nadjudication:\n  resign: {{ score_cp: 1000, move_count: 5 }}\n",
            openings.display()
        ),
    )
    .unwrap();
    let busy = Arc::new(AtomicBool::new(true));
    let loops: Vec<_> = (0..3)
        .map(|_| {
            let busy = Arc::clone(&busy);
            std::thread::spawn(move || {
                let mut x = 0u64;
                while busy.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    let o = karsinta(
        &["match", cfg.to_str().unwrap(), "--out", "run", "-q"],
        dir.path(),
    );
    busy.store(false, Ordering::Relaxed);
    for l in loops {
        l.join().unwrap();
    }
    assert!(o.status.success(), "{}", text(&o));
    let s = summary_json(&dir.path().join("run"));
    assert_eq!(s["games"], 6, "{s}");
    assert_eq!(s["terminations"]["time_forfeit"], 0, "{s}");
}
