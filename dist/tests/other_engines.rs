//! Tests of revisions of an engine other than Karsinta, against a real
//! PostgreSQL: a toy engine repository made in the test, built
//! OpenBench-style by `make EXE=toy` (a Makefile that installs a shell
//! script wrapping the harness's fake engine, with a move seed per commit)
//! and benched by `toy bench`, which prints its total in its own words
//! (`Total: N nodes searched`), found by the config's `build.bench_pattern`
//! (a regular expression, or OpenBench's convention). Our default reading
//! finds no signature there, so the pattern is what makes the test work.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use karsinta_harness::config::Overrides;
use karsinta_harness::run::ab::{run_ab, AbRequest, Side};

use crate::pg::TempPg;
use crate::revisions::{create, file_url, games, git, ledger, text, worker_in};
use crate::support::{cli, wait};

/// The toy engine's repository: base (seed 5, no `Bench:` line) and dev
/// (seed 9, its bench in the commit message, as OpenBench's authors write
/// it).
struct Toy {
    dir: PathBuf,
    base: String,
    dev: String,
}

const BASE_NODES: u64 = 4321;
const DEV_NODES: u64 = 8765;

/// The engine script of one commit: `bench` prints a made-up search and
/// its total; anything else is the fake engine with `seed`.
fn script(fake: &Path, seed: u64, nodes: u64) -> String {
    format!(
        "#!/bin/sh\n\
         if [ \"$1\" = bench ]; then\n  echo 'info string 3 positions'\n  \
         echo 'position 1: 17 nodes'\n  echo 'Total: {nodes} nodes searched'\n  exit 0\nfi\n\
         exec '{}' --seed {seed} \"$@\"\n",
        fake.display()
    )
}

fn toy_repo(dir: &Path) -> Toy {
    let fake = karsinta_test_support::example("karsinta-fake-engine");
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    // OpenBench's worker runs `make EXE=NAME` and plays ./NAME. Each build
    // appends its commit to <cache>/builds.log, so tests count builds.
    std::fs::write(
        dir.join("Makefile"),
        "EXE = engine\n$(EXE): engine.sh\n\tcp engine.sh $(EXE)\n\tchmod +x $(EXE)\n\
         \techo \"$$KARSINTA_COMMIT\" >> ../builds.log\n",
    )
    .unwrap();
    std::fs::write(dir.join("engine.sh"), script(&fake, 5, BASE_NODES)).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base: seed 5"]);
    let base = git(dir, &["rev-parse", "HEAD"]);
    std::fs::write(dir.join("engine.sh"), script(&fake, 9, DEV_NODES)).unwrap();
    let message = format!("dev: seed 9\n\nBench: {DEV_NODES}\n");
    git(dir, &["commit", "-q", "-am", &message]);
    let dev = git(dir, &["rev-parse", "HEAD"]);
    Toy {
        dir: dir.to_path_buf(),
        base,
        dev,
    }
}

/// A fixed-node `ab` config building the toy engine; `pattern` is the
/// `build.bench_pattern` line (or none).
fn toy_config(dir: &Path, name: &str, pattern: Option<&str>) -> PathBuf {
    let openings = karsinta_test_support::workspace().join("openings/karsinta-8ply.epd");
    let pattern = pattern.map_or(String::new(), |p| format!("  bench_pattern: '{p}'\n"));
    let text = format!(
        "name: {name}\nengines:\n  - name: dev\n    type: inprocess\n  - name: base\n    type: inprocess\n\
         time_control: nodes=100\nopenings:\n  file: {}\n  order: random\nseed: 4\ngames: 12\n\
         concurrency: 1\nsprt: {{ elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 }}\n\
         adjudication:\n  max_moves: 60\n\
         build:\n  command: make EXE=toy\n  binary: toy\n  bench: bench\n{pattern}  cache_dir: ab-cache\n\
         dist:\n  batch_pairs: 2\n  lease_seconds: 20\n",
        openings.display()
    );
    let p = dir.join(format!("{name}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

fn have_tools() -> bool {
    if karsinta_test_support::git().is_none() {
        return false;
    }
    let make = std::process::Command::new("make")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !make {
        karsinta_test_support::skip("make", "`make --version` fails", "apt-get install make");
    }
    make
}

/// The recorded (commit, bench, source) of each side, dev first.
fn recorded(pg: &TempPg, test: &str) -> Vec<(String, u64, String)> {
    let mut c = pg.client();
    let row = c
        .query_one("SELECT revisions FROM dist_tests WHERE name = $1", &[&test])
        .unwrap();
    let rec: serde_json::Value = serde_json::from_str(row.get::<_, &str>(0)).unwrap();
    rec["sides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["commit"].as_str().unwrap().to_string(),
                s["bench"].as_u64().unwrap(),
                s["bench_from"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", text(o));
}

#[test]
fn a_make_built_engine_is_benched_by_its_pattern_and_plays_the_games_of_karsinta_ab() {
    if !have_tools() {
        return;
    }
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let toy = toy_repo(&tmp.path().join("toy"));
    let url = file_url(&toy.dir);

    // Our default reading finds no `<N> nodes <M> nps` line: the creator
    // says so, naming what it looked for, and creates nothing.
    let plain = toy_config(tmp.path(), "plain", None);
    let o = create(&pg, &plain, &url, "HEAD~1", "main", &tmp.path().join("c0"));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("no `<N> nodes <M> nps` line in its output"),
        "{}",
        text(&o)
    );

    // OpenBench's convention reads `N nodes` from the lowest line that has
    // one: the total, not position 1's count above it.
    let ob = toy_config(tmp.path(), "ob", Some("openbench"));
    ok(&create(
        &pg,
        &ob,
        &url,
        "HEAD~1",
        "main",
        &tmp.path().join("c1"),
    ));
    assert_eq!(
        recorded(&pg, "ob"),
        vec![
            (toy.dev.clone(), DEV_NODES, "commit_message".into()),
            (toy.base.clone(), BASE_NODES, "creator_build".into()),
        ]
    );

    // A regular expression, and a whole test played by a worker with its
    // own cache: it builds both commits with make, benches them by the
    // pattern and plays.
    let cfg = toy_config(tmp.path(), "toy", Some(r"Total: (\d+) nodes"));
    let creator = tmp.path().join("c2");
    ok(&create(&pg, &cfg, &url, "HEAD~1", "main", &creator));
    assert_eq!(recorded(&pg, "toy")[1].1, BASE_NODES);
    let home = tmp.path().join("w");
    let o = wait(
        worker_in(&pg, &home, &["--test", "toy"], &[]),
        Duration::from_secs(300),
    );
    ok(&o);
    assert!(text(&o).contains("built and benched in"), "{}", text(&o));
    let mut built: Vec<String> = std::fs::read_to_string(home.join("cache/builds.log"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    built.sort();
    let mut want = vec![toy.dev.clone(), toy.base.clone()];
    want.sort();
    assert_eq!(built, want, "each commit built once, with make");

    let exported = tmp.path().join("exported");
    ok(
        &cli(&pg, &["export", "toy", "--out", exported.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    let ab_out = tmp.path().join("ab-run");
    let req = AbRequest {
        config: cfg.clone(),
        overrides: Overrides::default(),
        repo: toy.dir.clone(),
        base: Side::Rev("HEAD~1".into()),
        dev: Side::Rev("main".into()),
        out_dir: Some(ab_out.clone()),
        quiet: true,
        bench_only: false,
        bench_depth: None,
    };
    let outcome = run_ab(&req, None, &mut |_| {}).unwrap();
    let bench = |p: &karsinta_harness::run::ab::Prepared| p.bench.clone().unwrap().unwrap().nodes;
    assert_eq!(
        (bench(&outcome.dev), bench(&outcome.base)),
        (DEV_NODES, BASE_NODES),
        "karsinta ab reads the same pattern"
    );
    let a = ledger(&ab_out.join("ledger.jsonl"));
    assert_eq!(a.len(), 6);
    assert_eq!(a, ledger(&exported.join("ledger.jsonl")));
    assert_eq!(
        games(&ab_out.join("games.pgn")),
        games(&exported.join("games.pgn")),
        "the same PGN, engine names included"
    );
}

#[test]
fn a_bad_bench_pattern_is_refused_naming_the_key_and_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    for (pattern, says) in [
        (r"Total: \d+", "has no group for the node count"),
        (r"Total: (\d+", "unclosed group"),
    ] {
        let cfg = toy_config(tmp.path(), "badpat", Some(pattern));
        // Refused before any connection: the database named does not exist.
        let o = std::process::Command::new(crate::support::BIN)
            .args([
                "create",
                "--config",
                cfg.to_str().unwrap(),
                "--repo",
                "/nowhere",
            ])
            .args(["--base", "a", "--dev", "b"])
            .env("KARSINTA_DATABASE_URL", "postgresql://127.0.0.1:1/none")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let said = text(&o);
        for part in [
            cfg.display().to_string(),
            "build.bench_pattern".into(),
            says.into(),
        ] {
            assert!(said.contains(&part), "{part:?} in {said}");
        }
    }
}

#[test]
fn a_gate_style_test_plays_the_games_of_karsinta_gate_and_says_its_verdict() {
    if !have_tools() {
        return;
    }
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let toy = toy_repo(&tmp.path().join("toy"));
    let url = file_url(&toy.dir);
    // A gate config: no sprt: block (the gate's default [-5, 0] applies),
    // its policy and budget.
    let ab = std::fs::read_to_string(toy_config(tmp.path(), "g", Some("openbench"))).unwrap();
    let sprt = ab.lines().find(|l| l.starts_with("sprt:")).unwrap();
    let gate_yaml =
        ab.replace(&format!("{sprt}\n"), "") + "gate:\n  inconclusive: pass\n  max_minutes: 5\n";
    let cfg = tmp.path().join("gate.yaml");
    std::fs::write(&cfg, gate_yaml).unwrap();

    let half = cli(
        &pg,
        &[
            "create",
            "--config",
            cfg.to_str().unwrap(),
            "--repo",
            &url,
            "--candidate",
            "main",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(half.status.code(), Some(2), "{}", text(&half));
    assert!(text(&half).contains("--baseline"), "{}", text(&half));
    let mixed = cli(
        &pg,
        &[
            "create",
            "--config",
            cfg.to_str().unwrap(),
            "--repo",
            &url,
            "--candidate",
            "main",
            "--base",
            "HEAD~1",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(mixed.status.code(), Some(2), "{}", text(&mixed));

    let o = cli(
        &pg,
        &[
            "create",
            "--config",
            cfg.to_str().unwrap(),
            "--repo",
            &url,
            "--candidate",
            "main",
            "--baseline",
            "HEAD~1",
            "--build-cache",
            tmp.path().join("creator").to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    ok(&o);
    assert!(
        text(&o).contains("gate.max_minutes (5) is not applied on the fleet"),
        "{}",
        text(&o)
    );
    let o = wait(
        worker_in(&pg, &tmp.path().join("w"), &["--test", "g"], &[]),
        Duration::from_secs(300),
    );
    ok(&o);
    let exported = tmp.path().join("exported");
    ok(
        &cli(&pg, &["export", "g", "--out", exported.to_str().unwrap()])
            .output()
            .unwrap(),
    );

    let gate_out = tmp.path().join("gate-run");
    let req = karsinta_harness::run::gate::GateRequest {
        config: cfg.clone(),
        overrides: Overrides::default(),
        repo: toy.dir.clone(),
        baseline: Side::Rev("HEAD~1".into()),
        candidate: Side::Rev("main".into()),
        inconclusive: None,
        max_minutes: None,
        out_dir: Some(gate_out.clone()),
        quiet: true,
        interrupt: None,
        bench_depth: None,
    };
    let report = karsinta_harness::run::gate::run_gate(&req, &mut |_| {}).unwrap();
    assert_eq!(
        report.candidate.engine.name,
        format!("candidate-{}", &toy.dev[..7])
    );
    let g = ledger(&gate_out.join("ledger.jsonl"));
    assert_eq!(g.len(), 6);
    assert_eq!(g, ledger(&exported.join("ledger.jsonl")));
    assert_eq!(
        games(&gate_out.join("games.pgn")),
        games(&exported.join("games.pgn")),
        "the same PGN: candidate first, as karsinta gate names them"
    );
    let summary = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap()).unwrap()
    };
    let (a, b) = (summary(&gate_out), summary(&exported));
    assert_eq!(a["sprt"], b["sprt"], "the gate's default SPRT on both");
    assert_eq!(b["sprt"]["elo0"], -5.0);

    let o = cli(&pg, &["status", "g"]).output().unwrap();
    let status = String::from_utf8_lossy(&o.stdout).to_string();
    let line = format!(
        "gate: {}{}, exit status {} as karsinta gate gives it",
        report.verdict.word(),
        if report.verdict == karsinta_harness::run::gate::Verdict::Inconclusive {
            " (counted as a pass)"
        } else {
            ""
        },
        report.exit_code
    );
    assert!(status.contains(&line), "{line:?} in\n{status}");
    assert!(
        status.contains(&format!("candidate main   = {}", toy.dev)),
        "{status}"
    );
}
