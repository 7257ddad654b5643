//! Tests of git revisions built on the workers (`create --repo URL --base
//! REV --dev REV`), against a real PostgreSQL: a tiny repository made in
//! the test, given by a file:// URL, whose "build" (a shell script) writes
//! an engine wrapper that runs karsinta-engine with that commit's
//! parameters, so that the two commits bench differently. Two workers in
//! separate folders and caches build and play it, and the exported run
//! equals `karsinta ab` on the same repository, revisions and seed at fixed
//! nodes; a worker whose build benches differently (the build script reads
//! `KARSINTA_TEST_MISBUILD`, as a machine with another compiler would
//! differ) refuses, with the reason in `status` and the live view.
//!
//! The variant that builds this repository's own two newest commits with
//! cargo is `#[ignore]`d (minutes of cold builds).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use karsinta_harness::config::Overrides;
use karsinta_harness::players::build::parse_bench;
use karsinta_harness::run::ab::{run_ab, AbRequest, Side};
use karsinta_harness::run::ledger::{Ledger, PairEntry};

use crate::pg::TempPg;
use crate::support::{assumed_worker, cli, same_summary, wait};

/// The bench the build config runs: quick, and still a signature.
pub(crate) const BENCH: &str = "bench 4";

pub(crate) fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=Test", "-c", "user.email=t@example.invalid"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// karsinta-engine's bench with a parameter file, as the wrapper runs it.
fn bench_of(engine: &Path, params: &Path) -> u64 {
    let o = Command::new(engine)
        .arg("--params")
        .arg(params)
        .args(BENCH.split(' '))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    parse_bench(&String::from_utf8_lossy(&o.stdout))
        .expect("a bench line")
        .nodes
}

/// The test repository: base (default parameters, no `Bench:` line) and
/// dev (no SEE pruning, its bench in the commit message).
pub(crate) struct Repo {
    pub(crate) dir: PathBuf,
    pub(crate) base: String,
    pub(crate) dev: String,
    pub(crate) base_bench: u64,
    pub(crate) dev_bench: u64,
}

pub(crate) fn engine_repo(dir: &Path, engine: &Path) -> Repo {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    // Each build appends its commit to <cache>/builds.log (the cache holds
    // <cache>/<commit>/), so the tests can count builds per cache.
    let build = format!(
        "#!/bin/sh\n# Builds bin/engine: karsinta-engine with this commit's parameters.\nset -e\n\
         params=\"$PWD/params.yaml\"\n\
         if [ -n \"$KARSINTA_TEST_MISBUILD\" ]; then params=\"$PWD/misbuilt.yaml\"; fi\n\
         mkdir -p bin\n\
         printf '#!/bin/sh\\nexec \"%s\" --params \"%s\" \"$@\"\\n' '{}' \"$params\" > bin/engine\n\
         chmod +x bin/engine\n\
         echo \"$KARSINTA_COMMIT\" >> ../builds.log\n",
        engine.display()
    );
    std::fs::write(dir.join("build.sh"), build).unwrap();
    std::fs::write(dir.join("misbuilt.yaml"), "null_move: false\n").unwrap();
    std::fs::write(dir.join("params.yaml"), "see_prune: true\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base: default parameters"]);
    let base = git(dir, &["rev-parse", "HEAD"]);
    let base_bench = bench_of(engine, &dir.join("params.yaml"));
    std::fs::write(dir.join("params.yaml"), "see_prune: false\n").unwrap();
    let dev_bench = bench_of(engine, &dir.join("params.yaml"));
    assert_ne!(base_bench, dev_bench, "the two commits must bench apart");
    let message = format!("dev: no SEE pruning\n\nBench: {dev_bench}\n");
    git(dir, &["commit", "-q", "-am", &message]);
    let dev = git(dir, &["rev-parse", "HEAD"]);
    Repo {
        dir: dir.to_path_buf(),
        base,
        dev,
        base_bench,
        dev_bench,
    }
}

/// An `ab` config at fixed nodes whose build: block builds the repository
/// above (its cache_dir is `karsinta ab`'s; workers use their own).
fn write_config(dir: &Path, name: &str, bench: &str) -> PathBuf {
    let openings = karsinta_test_support::workspace().join("openings/karsinta-8ply.epd");
    let text = format!(
        "name: {name}\nengines:\n  - name: dev\n    type: inprocess\n  - name: base\n    type: inprocess\n\
         time_control: nodes=300\nopenings:\n  file: {}\n  order: random\nseed: 11\ngames: 16\n\
         concurrency: 1\nsprt: {{ elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 }}\n\
         adjudication:\n  max_moves: 80\n\
         build:\n  command: sh build.sh\n  binary: bin/engine\n  bench: '{bench}'\n  cache_dir: ab-cache\n\
         dist:\n  batch_pairs: 2\n  lease_seconds: 20\n",
        openings.display()
    );
    let p = dir.join(format!("{name}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

pub(crate) fn file_url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

/// `create --config CFG --repo URL --base REV --dev REV --build-cache DIR`.
pub(crate) fn create(
    pg: &TempPg,
    cfg: &Path,
    url: &str,
    base: &str,
    dev: &str,
    cache: &Path,
) -> Output {
    cli(
        pg,
        &[
            "create",
            "--config",
            cfg.to_str().unwrap(),
            "--repo",
            url,
            "--base",
            base,
            "--dev",
            dev,
            "--build-cache",
            cache.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap()
}

/// A worker run from its own folder `home` with its own cache
/// `home/cache`, as on a machine of its own; `extra` flags and env.
pub(crate) fn worker_in(pg: &TempPg, home: &Path, extra: &[&str], env: &[(&str, &str)]) -> Child {
    std::fs::create_dir_all(home).unwrap();
    let cache = home.join("cache");
    let mut args = vec!["--build-cache", cache.to_str().unwrap()];
    args.extend(extra);
    assumed_worker(pg, &args)
        .current_dir(home)
        .envs(env.iter().copied())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

pub(crate) fn builds_logged(cache: &Path) -> Vec<String> {
    std::fs::read_to_string(cache.join("builds.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

pub(crate) fn ledger(path: &Path) -> Vec<PairEntry> {
    let (_, mut entries) = Ledger::open(path).unwrap();
    entries.sort_by_key(|e| e.pair);
    entries
}

/// The games' tags (engine names included) and moves, without the day
/// they were played and the move comments (which hold each move's time).
pub(crate) fn games(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.lines()
        .filter(|l| !l.starts_with("[Date "))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

fn have_tools() -> bool {
    karsinta_test_support::git().is_some()
}

#[test]
fn two_workers_build_the_revisions_and_play_the_games_of_karsinta_ab() {
    if !have_tools() {
        return;
    }
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let engine = karsinta_test_support::bin("karsinta-engine");
    let tmp = tempfile::tempdir().unwrap();
    let repo = engine_repo(&tmp.path().join("repo"), &engine);
    let cfg = write_config(tmp.path(), "revs", BENCH);
    let url = file_url(&repo.dir);

    // The creator resolves `main` and `HEAD~1`, reads dev's bench from its
    // message and builds base (no `Bench:` line) to bench it.
    let creator_cache = tmp.path().join("creator-cache");
    let o = create(&pg, &cfg, &url, "HEAD~1", "main", &creator_cache);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(builds_logged(&creator_cache), vec![repo.base.clone()]);
    let mut c = pg.client();
    let row = c
        .query_one(
            "SELECT revisions, signatures FROM dist_tests WHERE name = 'revs'",
            &[],
        )
        .unwrap();
    let rec: serde_json::Value = serde_json::from_str(row.get::<_, &str>(0)).unwrap();
    assert_eq!(rec["repo"], url);
    let (dev, base) = (&rec["sides"][0], &rec["sides"][1]);
    assert_eq!(
        (dev["role"].as_str(), dev["rev"].as_str()),
        (Some("dev"), Some("main"))
    );
    assert_eq!(dev["commit"], repo.dev.as_str());
    assert_eq!(dev["bench"], repo.dev_bench);
    assert_eq!(dev["bench_from"], "commit_message");
    assert_eq!(base["commit"], repo.base.as_str());
    assert_eq!(base["bench"], repo.base_bench);
    assert_eq!(base["bench_from"], "creator_build");
    let sigs: &str = row.get(1);
    assert!(
        sigs.contains(&format!("\"bench {}\"", repo.dev_bench)),
        "{sigs}"
    );
    assert!(sigs.contains(&format!("dev-{}", &repo.dev[..7])), "{sigs}");

    // Two workers, each in its own folder with its own cache, as on two
    // machines: each fetches and builds both commits once.
    let homes = [tmp.path().join("w1"), tmp.path().join("w2")];
    let ws: Vec<Child> = homes
        .iter()
        .map(|h| worker_in(&pg, h, &["--test", "revs"], &[]))
        .collect();
    for w in ws {
        let o = wait(w, Duration::from_secs(300));
        assert!(o.status.success(), "{}", text(&o));
        let said = text(&o);
        assert!(said.contains("built and benched in"), "{said}");
    }
    for h in &homes {
        let mut built = builds_logged(&h.join("cache"));
        built.sort();
        let mut want = vec![repo.dev.clone(), repo.base.clone()];
        want.sort();
        assert_eq!(built, want, "{}: each commit built once", h.display());
        assert!(h.join("cache/repos").is_dir());
    }
    let built: Vec<Option<f64>> = c
        .query("SELECT build_seconds FROM dist_workers ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(built.len(), 2, "two workers registered");
    assert!(
        built.iter().all(|s| s.is_some_and(|s| s >= 0.0)),
        "{built:?}"
    );
    // Each worker keeps each build's speed as its own bench printed it.
    let names = [
        format!("dev-{}", &repo.dev[..7]),
        format!("base-{}", &repo.base[..7]),
    ];
    for r in c
        .query("SELECT revision_nps FROM dist_workers ORDER BY id", &[])
        .unwrap()
    {
        let v: serde_json::Value = serde_json::from_str(r.get::<_, &str>(0)).unwrap();
        let sides = v.as_array().unwrap();
        let engines: Vec<&str> = sides.iter().filter_map(|s| s["engine"].as_str()).collect();
        assert_eq!(engines, names, "{v}");
        assert!(sides.iter().all(|s| s["nps"].as_u64().is_some()), "{v}");
    }

    let exported = tmp.path().join("exported");
    let o = cli(
        &pg,
        &["export", "revs", "--out", exported.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));

    // `karsinta ab` on one machine: the same repository (its own checkout),
    // revisions, config and seed.
    let ab_out = tmp.path().join("ab-run");
    let req = AbRequest {
        config: cfg.clone(),
        overrides: Overrides::default(),
        repo: repo.dir.clone(),
        base: Side::Rev("HEAD~1".into()),
        dev: Side::Rev("main".into()),
        out_dir: Some(ab_out.clone()),
        quiet: true,
        bench_only: false,
        bench_depth: None,
    };
    let outcome = run_ab(&req, None, &mut |_| {}).unwrap();
    assert_eq!(outcome.dev.engine.name, format!("dev-{}", &repo.dev[..7]));
    let a = ledger(&ab_out.join("ledger.jsonl"));
    assert_eq!(a.len(), 8);
    assert_eq!(
        a,
        ledger(&exported.join("ledger.jsonl")),
        "the same pairs and games"
    );
    same_summary(&ab_out.join("summary.json"), &exported.join("summary.json"));
    assert_eq!(
        games(&ab_out.join("games.pgn")),
        games(&exported.join("games.pgn")),
        "the same PGN, engine names included"
    );

    let o = cli(&pg, &["status", "revs"]).output().unwrap();
    let status = String::from_utf8_lossy(&o.stdout).to_string();
    for part in [
        format!("revisions of {url}, built by each worker"),
        format!(
            "dev  main   = {}  bench {} (from the commit message)",
            repo.dev, repo.dev_bench
        ),
        format!(
            "base HEAD~1 = {}  bench {} (from the creator's build)",
            repo.base, repo.base_bench
        ),
        "built in".to_string(),
        format!(", bench {} ", names[0]),
    ] {
        assert!(status.contains(&part), "{part:?} in\n{status}");
    }
    assert!(!status.contains("refused"), "{status}");
}

#[test]
fn a_worker_whose_build_benches_differently_refuses_and_says_why() {
    if !have_tools() {
        return;
    }
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let engine = karsinta_test_support::bin("karsinta-engine");
    let tmp = tempfile::tempdir().unwrap();
    let repo = engine_repo(&tmp.path().join("repo"), &engine);
    let cfg = write_config(tmp.path(), "mis", BENCH);
    let o = create(
        &pg,
        &cfg,
        &file_url(&repo.dir),
        "HEAD~1",
        "main",
        &tmp.path().join("cc"),
    );
    assert!(o.status.success(), "{}", text(&o));

    // With --test: it refuses (exit 2) and records why.
    let bad = [("KARSINTA_TEST_MISBUILD", "1")];
    let w = worker_in(&pg, &tmp.path().join("bad"), &["--test", "mis"], &bad);
    let o = wait(w, Duration::from_secs(120));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("refusing to play"), "{said}");
    // Without --test (the queue's choice): it refuses, records it again and
    // passes the test over; with --fleet and nothing else open, it ends.
    let w = worker_in(&pg, &tmp.path().join("bad2"), &[], &bad);
    let o = wait(w, Duration::from_secs(120));
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("trying other tests"), "{}", text(&o));

    let mut c = pg.client();
    let (played, workers): (i64, i64) = {
        let r = c
            .query_one(
                "SELECT (SELECT count(*) FROM dist_pairs), (SELECT count(*) FROM dist_workers)",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(
        (played, workers),
        (0, 0),
        "a refusing worker neither plays nor registers"
    );

    let want = [
        format!("dev (commit {})", &repo.dev[..10]),
        "this machine's build benches".to_string(),
        format!(
            "the test recorded {} (from the commit message)",
            repo.dev_bench
        ),
        format!(
            "the test recorded {} (from the creator's build)",
            repo.base_bench
        ),
    ];
    let o = cli(&pg, &["status", "mis"]).output().unwrap();
    let status = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(status.matches("refused by ").count(), 2, "{status}");
    for part in &want {
        assert!(status.contains(part.as_str()), "{part:?} in\n{status}");
    }
    // The live view's JSON and page show the same reasons.
    let api = karsinta_dist::web::api::test(&mut c, "mis")
        .unwrap()
        .unwrap();
    let refusals = api["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 2, "{api}");
    let reason = refusals[0]["reason"].as_str().unwrap();
    for part in &want {
        assert!(reason.contains(part.as_str()), "{part:?} in {reason}");
    }
    assert_eq!(api["revisions"]["sides"][0]["commit"], repo.dev.as_str());
    let page = karsinta_dist::web::pages::test_page("mis");
    assert!(page.contains("id=\"refusals\"") && page.contains("j.refusals"));

    // A machine that builds correctly plays the test.
    let w = worker_in(&pg, &tmp.path().join("good"), &["--test", "mis"], &[]);
    let o = wait(w, Duration::from_secs(300));
    assert!(o.status.success(), "{}", text(&o));
    let n: i64 = c
        .query_one("SELECT count(*) FROM dist_pairs", &[])
        .unwrap()
        .get(0);
    assert!(n > 0);
}

#[test]
fn bad_revision_requests_are_refused_before_anything_is_created() {
    if !have_tools() {
        return;
    }
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let engine = karsinta_test_support::bin("karsinta-engine");
    let tmp = tempfile::tempdir().unwrap();
    let repo = engine_repo(&tmp.path().join("repo"), &engine);
    let cfg = write_config(tmp.path(), "bad", BENCH);
    let url = file_url(&repo.dir);
    let cache = tmp.path().join("cache");

    let o = create(&pg, &cfg, &url, "HEAD~1", "no-such-branch", &cache);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = text(&o);
    assert!(
        said.contains(&url) && said.contains("unknown revision 'no-such-branch'"),
        "{said}"
    );
    let o = create(
        &pg,
        &cfg,
        &file_url(&tmp.path().join("nowhere")),
        "a",
        "b",
        &cache,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("git fetch"), "{}", text(&o));
    let o = create(&pg, &cfg, "no/such/folder", "a", "b", &cache);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--repo no/such/folder"), "{}", text(&o));
    let no_bench = write_config(tmp.path(), "nobench", "");
    let o = create(&pg, &no_bench, &url, "HEAD~1", "main", &cache);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("build.bench"), "{}", text(&o));
    let o = cli(
        &pg,
        &[
            "create",
            "--config",
            cfg.to_str().unwrap(),
            "--repo",
            &url,
            "--dev",
            "main",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--base"), "{}", text(&o));

    let mut c = pg.client();
    let tests: i64 = match c.query_one("SELECT count(*) FROM dist_tests", &[]) {
        Ok(r) => r.get(0),
        // Never migrated: nothing was created either.
        Err(_) => 0,
    };
    assert_eq!(tests, 0);
    assert!(
        builds_logged(&cache).is_empty(),
        "nothing built for a request that fails"
    );
}

/// The "done when" on this repository: its two newest commits,
/// built with cargo by two workers with cold caches, then a third worker
/// on the first one's warm cache; prints each worker's build time.
#[test]
#[ignore = "slow: cargo builds of this repository's two newest commits"]
fn this_repository_built_by_workers_with_cold_and_warm_caches() {
    if !have_tools() {
        return;
    }
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = karsinta_test_support::workspace();
    let openings = root.join("openings/karsinta-8ply.epd");
    let cfg = tmp.path().join("self.yaml");
    std::fs::write(
        &cfg,
        format!(
            "name: self\nengines:\n  - name: dev\n    type: inprocess\n  - name: base\n    type: inprocess\n\
             time_control: nodes=1000\nopenings:\n  file: {}\n  order: random\nseed: 3\ngames: 8\n\
             concurrency: 1\nadjudication:\n  max_moves: 80\n\
             build:\n  command: cargo build --release -p karsinta-engine\n  binary: target/release/karsinta-engine\n  bench: bench\n\
             dist:\n  batch_pairs: 1\n",
            openings.display()
        ),
    )
    .unwrap();
    let url = file_url(&root);
    let o = create(
        &pg,
        &cfg,
        &url,
        "HEAD~1",
        "HEAD",
        &tmp.path().join("creator"),
    );
    assert!(o.status.success(), "{}", text(&o));
    let timed = |home: &Path| {
        let start = Instant::now();
        let o = wait(
            worker_in(&pg, home, &["--test", "self"], &[]),
            Duration::from_secs(3600),
        );
        assert!(o.status.success(), "{}", text(&o));
        start.elapsed().as_secs_f64()
    };
    let (a, b) = (tmp.path().join("w1"), tmp.path().join("w2"));
    let (ta, tb) = (timed(&a), timed(&b));
    let mut c = pg.client();
    let secs: Vec<f64> = c
        .query("SELECT build_seconds FROM dist_workers ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get::<_, Option<f64>>(0).unwrap())
        .collect();
    eprintln!("cold caches: worker 1 built in {:.1} s (ran {ta:.1} s), worker 2 in {:.1} s (ran {tb:.1} s)", secs[0], secs[1]);
    // A warm cache: the test is finished, so a new one of the same commits.
    let o = cli(
        &pg,
        &[
            "create",
            "--config",
            cfg.to_str().unwrap(),
            "--name",
            "self2",
            "--repo",
            &url,
            "--base",
            "HEAD~1",
            "--dev",
            "HEAD",
            "--build-cache",
            tmp.path().join("creator").to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let o = wait(
        worker_in(&pg, &a, &["--test", "self2"], &[]),
        Duration::from_secs(600),
    );
    assert!(o.status.success(), "{}", text(&o));
    let warm: f64 = c
        .query_one(
            "SELECT build_seconds FROM dist_workers ORDER BY id DESC LIMIT 1",
            &[],
        )
        .unwrap()
        .get::<_, Option<f64>>(0)
        .unwrap();
    eprintln!("warm cache: worker 1 built in {warm:.2} s");
    assert!(warm < secs[0]);
    let o = cli(&pg, &["status", "self"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("built in"));
}
