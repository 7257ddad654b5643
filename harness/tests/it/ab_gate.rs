//! `karsinta ab` and `karsinta gate` end to end: the build cache on a tiny
//! temporary git repository whose "engine" is a shell script, the gate's
//! exit statuses with in-process parameter sets and the fake engine, and
//! (ignored, slow) an A/B test between two commits of this repository.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::players::build::{self, BuildCache, BuildError, BuildSettings, Checkout};
use karsinta_harness::run::gate::InconclusivePolicy;
use karsinta_harness::run::SECTIONS;

use crate::common::{summary_json, FAKE, KARSINTA};
use karsinta_test_support::skip;

fn have_git() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
        ])
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

/// A repository whose engine is `engine.sh`, "built" by copying it to
/// `bin/engine`; each build appends a line to `<cache>/builds.log` so the
/// tests can count builds. Two commits with different bench signatures.
fn engine_repo(dir: &Path) -> (String, String) {
    git(dir, &["init", "-q"]);
    let script = |nodes: u64| {
        format!("#!/bin/sh\nif [ \"$1\" = bench ]; then echo \"1 {nodes} fen\"; echo \"{nodes} nodes 777 nps\"; exit 0; fi\nexit 0\n")
    };
    std::fs::write(dir.join("engine.sh"), script(1000)).unwrap();
    git(dir, &["add", "engine.sh"]);
    git(dir, &["commit", "-q", "-m", "first"]);
    let first = git(dir, &["rev-parse", "HEAD"]);
    std::fs::write(dir.join("engine.sh"), script(2000)).unwrap();
    git(dir, &["commit", "-q", "-am", "second"]);
    let second = git(dir, &["rev-parse", "HEAD"]);
    (first, second)
}

fn script_settings(cache: &Path) -> BuildSettings {
    BuildSettings {
        command: "echo \"$KARSINTA_COMMIT\" >> ../builds.log && mkdir -p bin && cp engine.sh bin/engine && chmod +x bin/engine"
            .into(),
        binary: PathBuf::from("bin/engine"),
        cache_dir: Some(cache.to_path_buf()),
        ..BuildSettings::default()
    }
}

fn builds_logged(cache: &Path) -> usize {
    std::fs::read_to_string(cache.join("builds.log"))
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn builds_are_cached_by_commit_and_unfinished_ones_redone() {
    if !have_git() {
        return skip("git", "`git` does not run", "install git");
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&repo).unwrap();
    let (first, second) = engine_repo(&repo);
    let c = BuildCache::open(&repo, script_settings(&cache)).unwrap();
    let mut log = |_: &str| {};

    let b = c.build("HEAD", &mut log).unwrap();
    assert_eq!(b.commit, second);
    assert!(!b.reused);
    assert_eq!(b.dir, c.dir().join(&second));
    assert!(b.binary.is_file());
    assert_eq!(builds_logged(&cache), 1);

    // The same commit by any name is reused without building.
    for rev in ["HEAD", second.as_str(), "main", &second[..8]] {
        let again = c.build(rev, &mut log).unwrap();
        assert!(again.reused, "{rev}");
        assert_eq!(again.binary, b.binary);
    }
    assert_eq!(builds_logged(&cache), 1);

    // Another commit gets its own tree and its own bench signature.
    let old = c.build("HEAD~1", &mut log).unwrap();
    assert_eq!(old.commit, first);
    assert!(!old.reused);
    assert_eq!(builds_logged(&cache), 2);
    let s = c.settings();
    let sig_new =
        build::run_bench(&b.binary, &s.bench_args, Some(&b.dir), s.bench_timeout).unwrap();
    let sig_old =
        build::run_bench(&old.binary, &s.bench_args, Some(&old.dir), s.bench_timeout).unwrap();
    assert_eq!((sig_new.nodes, sig_new.nps), (2000, 777));
    assert_eq!(sig_old.nodes, 1000);

    // A build interrupted after the checkout (no build marker) is built again
    // in the same tree.
    std::fs::remove_file(b.dir.join(".karsinta-build.json")).unwrap();
    let redone = c.build("HEAD", &mut log).unwrap();
    assert!(!redone.reused);
    assert_eq!(builds_logged(&cache), 3);

    // An interrupted checkout (no checkout marker) is thrown away and redone.
    std::fs::remove_file(b.dir.join(".karsinta-build.json")).unwrap();
    std::fs::remove_file(b.dir.join(".karsinta-checkout")).unwrap();
    std::fs::write(b.dir.join("half-extracted"), "x").unwrap();
    let fresh = c.build("HEAD", &mut log).unwrap();
    assert!(!fresh.reused);
    assert!(!b.dir.join("half-extracted").exists());
    assert!(b.dir.join("engine.sh").is_file());
    assert_eq!(builds_logged(&cache), 4);

    // A changed build recipe is not served from the old build.
    let mut other = script_settings(&cache);
    other.command.push_str(" && true");
    let c2 = BuildCache::open(&repo, other).unwrap();
    assert!(!c2.build("HEAD", &mut log).unwrap().reused);
    assert!(c2.build("HEAD", &mut log).unwrap().reused);
    assert_eq!(builds_logged(&cache), 5);

    // No lock file is left behind.
    let locks: Vec<_> = std::fs::read_dir(c.dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".lock"))
        .collect();
    assert!(locks.is_empty());
}

#[test]
fn failed_builds_and_bad_revisions_are_errors() {
    if !have_git() {
        return skip("git", "`git` does not run", "install git");
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&repo).unwrap();
    engine_repo(&repo);
    let mut log = |_: &str| {};

    let mut failing = script_settings(&cache);
    failing.command = "echo compiling; echo 'error: it broke' >&2; exit 7".into();
    let c = BuildCache::open(&repo, failing).unwrap();
    let e = c.build("HEAD", &mut log).unwrap_err();
    match &e {
        BuildError::BuildFailed { tail, log, .. } => {
            assert!(tail.contains("error: it broke"), "{tail}");
            assert!(log.is_file());
        }
        other => panic!("{other:?}"),
    }
    // Never reused as finished: the next attempt builds (and fails) again.
    assert!(matches!(
        c.build("HEAD", &mut log),
        Err(BuildError::BuildFailed { .. })
    ));

    let mut no_binary = script_settings(&cache);
    no_binary.binary = PathBuf::from("bin/missing");
    let c = BuildCache::open(&repo, no_binary).unwrap();
    assert!(matches!(
        c.build("HEAD", &mut log),
        Err(BuildError::MissingBinary { .. })
    ));

    let c = BuildCache::open(&repo, script_settings(&cache)).unwrap();
    for bad in ["no-such-branch", "--help", ""] {
        let e = c.build(bad, &mut log).unwrap_err();
        assert!(
            matches!(e, BuildError::UnknownRevision { .. }),
            "{bad}: {e:?}"
        );
    }
    let e = BuildCache::open(tmp.path(), script_settings(&cache)).unwrap_err();
    assert!(matches!(e, BuildError::NotARepo { .. }), "{e:?}");
}

#[test]
fn worktree_checkout_builds_too() {
    if !have_git() {
        return skip("git", "`git` does not run", "install git");
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&repo).unwrap();
    let (first, _) = engine_repo(&repo);
    let mut s = script_settings(&cache);
    s.checkout = Checkout::Worktree;
    let c = BuildCache::open(&repo, s).unwrap();
    let b = c.build(&first, &mut |_: &str| {}).unwrap();
    assert!(b.dir.join(".git").exists(), "a worktree has .git");
    assert!(b.binary.is_file());
    // Deleting an unfinished worktree and building again works (prune).
    std::fs::remove_dir_all(&b.dir).unwrap();
    let again = c.build(&first, &mut |_: &str| {}).unwrap();
    assert!(!again.reused);
    assert!(again.binary.is_file());
}

#[test]
fn shipped_ab_and_gate_configs_are_complete() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    for name in ["ab.yaml", "gate.yaml"] {
        let path = dir.join(name);
        let cfg = MatchConfig::load_with(&path, &Overrides::default(), SECTIONS)
            .unwrap_or_else(|e| panic!("{e}"));
        let raw: build::RawBuild = cfg.section("build").unwrap().expect("a build: block");
        let s = BuildSettings::from_raw(&raw, &dir).unwrap();
        assert_eq!(s.command, build::DEFAULT_BUILD_COMMAND, "{name}");
        assert_eq!(s.binary, PathBuf::from(build::DEFAULT_BINARY), "{name}");
        assert!(cfg.sprt.is_some() && cfg.openings.is_some(), "{name}");
        assert_eq!(
            cfg.engines.len(),
            2,
            "{name}: dev/candidate and base/baseline templates"
        );
    }
    let gate =
        MatchConfig::load_with(&dir.join("gate.yaml"), &Overrides::default(), SECTIONS).unwrap();
    let sprt = gate.sprt.unwrap();
    assert_eq!(sprt.elo1, 0.0, "a non-regression test");
    assert!(sprt.elo0 < 0.0);
    assert_eq!(
        gate.section::<karsinta_harness::run::gate::RawGate>("gate")
            .unwrap()
            .and_then(|g| g.inconclusive),
        Some(InconclusivePolicy::Pass)
    );
    // Builds go into git worktrees, as the default is.
    for name in ["ab.yaml", "gate.yaml"] {
        let cfg = MatchConfig::load_with(&dir.join(name), &Overrides::default(), SECTIONS).unwrap();
        let raw: build::RawBuild = cfg.section("build").unwrap().unwrap();
        let s = BuildSettings::from_raw(&raw, &dir).unwrap();
        assert_eq!(s.checkout, Checkout::Worktree, "{name}");
    }
    assert_eq!(BuildSettings::default().checkout, Checkout::Worktree);
}

// ---------------------------------------------------------------------------
// gate and ab through the command line

/// Ten distinct, roughly balanced opening positions.
const OPENINGS: &str = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1
rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2
rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2
rnbqkbnr/pp1ppppp/2p5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
";

/// A folder with a fast gate config (tiny fixed nodes, wide bounds), the
/// openings, a default and a crippled parameter set.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(sprt: &str, games: u64) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("openings.epd"), OPENINGS).unwrap();
        std::fs::write(
            p.join("gate.yaml"),
            format!(
                "name: gate-test
engines:
  - {{ name: candidate, type: inprocess, options: {{ Threads: 1, Hash: 1 }} }}
  - {{ name: baseline, type: inprocess, options: {{ Threads: 1, Hash: 1 }} }}
time_control: nodes=300
concurrency: 2
seed: 3
openings: {{ file: openings.epd, order: sequential }}
adjudication: {{ max_moves: 120 }}
{sprt}games: {games}
build: {{ bench: '' }}
"
            ),
        )
        .unwrap();
        std::fs::write(p.join("default.yaml"), "{}\n").unwrap();
        // Queens and rooks worth a pawn or less: it gives them away.
        std::fs::write(
            p.join("crippled.yaml"),
            "material_queen_mg: 50\nmaterial_queen_eg: 50\nmaterial_rook_mg: 60\nmaterial_rook_eg: 60\n",
        )
        .unwrap();
        Fixture { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn gate(&self, args: &[&str]) -> Output {
        self.gate_into("run", args)
    }

    /// `karsinta gate` with the run folder `out` in the fixture.
    fn gate_into(&self, out: &str, args: &[&str]) -> Output {
        Command::new(KARSINTA)
            .arg("gate")
            .arg("--quiet")
            .arg("--config")
            .arg(self.path("gate.yaml"))
            .arg("--out")
            .arg(self.path(out))
            .args(args)
            .env("GITHUB_STEP_SUMMARY", self.path("step-summary.md"))
            .env_remove("XDG_CACHE_HOME")
            .output()
            .expect("karsinta runs")
    }
}

const WIDE: &str = "sprt: { elo0: -100, elo1: 0, alpha: 0.1, beta: 0.1 }\n";

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn gate_fails_a_much_weaker_candidate() {
    let f = Fixture::new(WIDE, 200);
    let base = f.path("default.yaml");
    let cand = f.path("crippled.yaml");
    let o = f.gate(&[
        "--baseline-params",
        base.to_str().unwrap(),
        "--candidate-params",
        cand.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = summary_json(&f.path("run"));
    assert_eq!(summary["sprt"]["decision"], "H0");
    assert!(
        summary["games"].as_u64().unwrap() < 200,
        "decided before the cap"
    );
    // A clean sweep has no finite Elo (null); otherwise it is far below 0.
    assert!(
        summary["estimate"]["score"].as_f64().unwrap() < 0.25,
        "{summary}"
    );
    assert!(
        summary["estimate"]["elo"]
            .as_f64()
            .is_none_or(|e| e < -100.0),
        "{summary}"
    );
    let md = std::fs::read_to_string(f.path("run/gate.md")).unwrap();
    assert!(md.starts_with("## karsinta gate: FAIL"), "{md}");
    assert!(md.contains("Penta | ["), "{md}");
    assert!(md.contains("LLR   | "), "{md}");
    // The same report went to the CI job summary.
    let step = std::fs::read_to_string(f.path("step-summary.md")).unwrap();
    assert!(step.contains("karsinta gate: FAIL"));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("gate: FAIL (exit 1)"), "{out}");
}

#[test]
fn gate_passes_an_identical_candidate() {
    let f = Fixture::new(WIDE, 200);
    let p = f.path("default.yaml");
    let o = f.gate(&[
        "--baseline-params",
        p.to_str().unwrap(),
        "--candidate-params",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let md = std::fs::read_to_string(f.path("run/gate.md")).unwrap();
    assert!(md.starts_with("## karsinta gate: PASS"), "{md}");
    assert!(md.contains("Exit status 0"), "{md}");
}

#[test]
fn gate_inconclusive_within_budget_maps_by_policy() {
    // Tight bounds and two game pairs: no decision is possible.
    let f = Fixture::new("sprt: { elo0: -5, elo1: 0 }\n", 4);
    let p = f.path("default.yaml");
    let p = p.to_str().unwrap();
    let run = |extra: &[&str], out: &str| {
        let mut a = vec!["--baseline-params", p, "--candidate-params", p];
        a.extend_from_slice(extra);
        f.gate_into(out, &a)
    };
    let o = run(&[], "r1");
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let md = std::fs::read_to_string(f.path("r1/gate.md")).unwrap();
    assert!(md.starts_with("## karsinta gate: INCONCLUSIVE"), "{md}");
    let o = run(&["--inconclusive", "pass"], "r2");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = run(&["--inconclusive", "fail"], "r3");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn gate_setup_errors_exit_2() {
    let f = Fixture::new(WIDE, 20);
    let p = f.path("default.yaml");
    let p = p.to_str().unwrap();

    // Bad config: an unknown key, named in the message.
    std::fs::write(
        f.path("bad.yaml"),
        std::fs::read_to_string(f.path("gate.yaml"))
            .unwrap()
            .replace("games:", "gmaes:"),
    )
    .unwrap();
    let bad = f.path("bad.yaml");
    let o = Command::new(KARSINTA)
        .args(["gate", "--quiet", "--config", bad.to_str().unwrap()])
        .args(["--baseline-params", p, "--candidate-params", p])
        .arg("--markdown")
        .arg(f.path("bad.md"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("gmaes"),
        "{}",
        text(&o)
    );
    let md = std::fs::read_to_string(f.path("bad.md")).unwrap();
    assert!(
        md.starts_with("## karsinta gate: ERROR") && md.contains("gmaes"),
        "{md}"
    );

    // A bad gate: block value.
    std::fs::write(
        f.path("bad2.yaml"),
        format!(
            "{}gate: {{ inconclusive: maybe }}\n",
            std::fs::read_to_string(f.path("gate.yaml")).unwrap()
        ),
    )
    .unwrap();
    let bad2 = f.path("bad2.yaml");
    let o = f.gate(&[
        "--config",
        bad2.to_str().unwrap(),
        "--baseline-params",
        p,
        "--candidate-params",
        p,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));

    // Missing candidate; unknown parameter in a parameter file.
    let o = f.gate(&["--baseline-params", p]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    std::fs::write(f.path("typo.yaml"), "material_quen_mg: 3\n").unwrap();
    let typo = f.path("typo.yaml");
    let o = f.gate(&[
        "--baseline-params",
        p,
        "--candidate-params",
        typo.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("material_quen_mg"),
        "{}",
        text(&o)
    );
    assert!(!f.path("run/summary.json").exists(), "no game was played");
}

#[cfg(unix)]
fn executable_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(unix)]
#[test]
fn gate_candidate_that_crashes_at_start_exits_2_before_playing() {
    let f = Fixture::new(WIDE, 20);
    let crash = f.path("crash.sh");
    executable_script(
        &crash,
        &format!("#!/bin/sh\nexec '{FAKE}' --crash-at-start \"$@\"\n"),
    );
    let o = f.gate(&[
        "--baseline-cmd",
        FAKE.path(),
        "--candidate-cmd",
        crash.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("candidate") && err.contains("cannot start"),
        "{err}"
    );
    assert!(!f.path("run/summary.json").exists(), "no game was played");
    let step = std::fs::read_to_string(f.path("step-summary.md")).unwrap();
    assert!(step.contains("karsinta gate: ERROR"), "{step}");

    // A missing binary is a setup error too.
    let o = f.gate(&[
        "--baseline-cmd",
        FAKE.path(),
        "--candidate-cmd",
        "/nonexistent/engine",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

#[test]
fn ab_between_binaries_prints_benches_and_the_block() {
    let f = Fixture::new("sprt: { elo0: 0, elo1: 100, alpha: 0.1, beta: 0.1 }\n", 4);
    let o = Command::new(KARSINTA)
        .args(["ab", "--quiet", "--config"])
        .arg(f.path("gate.yaml"))
        .args(["--base-cmd", FAKE.path(), "--dev-cmd", FAKE.path(), "--out"])
        .arg(f.path("ab"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // The fake engine has no bench: a warning, not an error.
    assert!(
        out.contains("dev   | dev | binary ") && out.contains("bench"),
        "{out}"
    );
    let block: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("Elo   | "))
        .take(5)
        .collect();
    assert_eq!(block.len(), 5, "{out}");
    assert!(block[0].ends_with("(95%)"), "{out}");
    assert_eq!(block[1], "SPRT  | nodes=300 Threads=1 Hash=1MB");
    assert!(
        block[2].starts_with("LLR   | ") && block[2].ends_with("[0.00, 100.00]"),
        "{out}"
    );
    assert!(block[3].starts_with("Games | N: 4 W: "), "{out}");
    assert!(block[4].starts_with("Penta | ["), "{out}");
    assert!(f.path("ab/summary.json").is_file());
}

#[test]
fn ab_between_parameter_sets_benches_in_process() {
    let f = Fixture::new("sprt: { elo0: 0, elo1: 100, alpha: 0.1, beta: 0.1 }\n", 2);
    // Enable the bench for this run (in-process, shallow).
    let cfg = std::fs::read_to_string(f.path("gate.yaml"))
        .unwrap()
        .replace("build: { bench: '' }", "build: { bench: 'bench 5' }");
    std::fs::write(f.path("ab.yaml"), cfg).unwrap();
    let o = Command::new(KARSINTA)
        .args(["ab", "--quiet", "--bench-only", "--config"])
        .arg(f.path("ab.yaml"))
        .arg("--base-params")
        .arg(f.path("default.yaml"))
        .arg("--dev-params")
        .arg(f.path("crippled.yaml"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let bench = |role: &str| -> u64 {
        let line = out
            .lines()
            .find(|l| l.starts_with(role))
            .unwrap_or_else(|| panic!("{out}"));
        let n = line
            .split("Bench: ")
            .nth(1)
            .unwrap_or_else(|| panic!("{out}"));
        n.split_whitespace().next().unwrap().parse().unwrap()
    };
    // Different evaluations search different trees.
    assert_ne!(bench("dev "), bench("base "), "{out}");
    assert!(!out.contains("Elo   |"), "bench only: no games");
}

/// The nearest commit at or before `from` whose engine is a real one (has
/// a bench command), if any.
fn working_commit(repo: &Path, from: &str) -> Option<String> {
    for i in 0..50 {
        let rev = format!("{from}~{i}");
        let hash = Command::new("git")
            .arg("-C")
            .arg(repo)
            .args([
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ])
            .output()
            .ok()?;
        if !hash.status.success() {
            return None;
        }
        let main = Command::new("git")
            .arg("-C")
            .arg(repo)
            .args(["show", &format!("{rev}:engine/src/main.rs")])
            .output()
            .ok()?;
        if String::from_utf8_lossy(&main.stdout).contains("Bench") {
            return Some(String::from_utf8_lossy(&hash.stdout).trim().to_string());
        }
    }
    None
}

/// `karsinta ab` between HEAD and the commit before it (the nearest one
/// with a working engine) of this repository: two release builds, so slow.
#[test]
#[ignore]
fn ab_between_two_commits_of_this_repository() {
    if !have_git() {
        return skip("git", "`git` does not run", "install git");
    }
    // KARSINTA_AB_REPO points the test at another checkout of this project.
    let default_repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let repo = std::env::var_os("KARSINTA_AB_REPO").map_or(default_repo, PathBuf::from);
    let repo = repo.as_path();
    if !repo.join(".git").exists() {
        return skip(
            "a git checkout of this repository",
            &format!("{} has no .git", repo.display()),
            "run from a clone, or set KARSINTA_AB_REPO to one",
        );
    }
    let Some(dev) = working_commit(repo, "HEAD") else {
        return skip(
            "a working engine at HEAD",
            "HEAD's engine does not build or bench",
            "run from a clone whose HEAD builds",
        );
    };
    let Some(base) = working_commit(repo, &format!("{dev}~1")) else {
        return skip(
            "two commits with a working engine",
            "fewer are in this clone's history",
            "fetch the full history (`git fetch --unshallow`)",
        );
    };
    let tmp = tempfile::tempdir().unwrap();
    let run = || {
        Command::new(KARSINTA)
            .args(["ab", "--quiet", "--base", &base, "--dev", &dev, "--repo"])
            .arg(repo)
            .arg("--config")
            .arg(repo.join("configs/ab.yaml"))
            .args([
                "--tc",
                "nodes=2000",
                "--games",
                "8",
                "--concurrency",
                "2",
                "--out",
            ])
            .arg(tmp.path().join(format!("run-{}", std::process::id())))
            .env("XDG_CACHE_HOME", tmp.path().join("cache"))
            .output()
            .unwrap()
    };
    let o = run();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for (role, hash) in [("dev", &dev), ("base", &base)] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{role:<5} | ")))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            line.contains(&hash[..10]) && line.contains("Bench: "),
            "{line}"
        );
    }
    assert!(
        // The shipped ab.yaml sends only Hash (every revision advertises it).
        out.contains("SPRT  | nodes=2000 Hash=16MB"),
        "{out}"
    );
    assert!(out.contains("Games | N: 8 W: "), "{out}");
    assert!(tmp
        .path()
        .join("cache/karsinta/builds")
        .join(&dev)
        .join(".karsinta-build.json")
        .is_file());
}

#[test]
fn gate_without_sprt_block_uses_the_default_non_regression_bounds() {
    let f = Fixture::new("", 4);
    let p = f.path("default.yaml");
    let p = p.to_str().unwrap();
    let o = f.gate(&["--baseline-params", p, "--candidate-params", p]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let summary = summary_json(&f.path("run"));
    assert_eq!(summary["sprt"]["elo0"], -5.0);
    assert_eq!(summary["sprt"]["elo1"], 0.0);
    assert_eq!(summary["sprt"]["model"], "normalized");
    assert_eq!(summary["sprt"]["decision"], "inconclusive");
}

#[cfg(unix)]
#[test]
fn gate_time_budget_ends_the_match_inconclusive() {
    let f = Fixture::new(WIDE, 1000);
    // 100 ms per move: no game pair can finish within the 0.6 s budget.
    let slow = f.path("slow.sh");
    executable_script(
        &slow,
        &format!("#!/bin/sh\nexec '{FAKE}' --slow-bestmove 100 \"$@\"\n"),
    );
    let s = slow.to_str().unwrap();
    let o = f.gate(&[
        "--baseline-cmd",
        s,
        "--candidate-cmd",
        s,
        "--max-minutes",
        "0.01",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let summary = summary_json(&f.path("run"));
    assert!(summary["games"].as_u64().unwrap() < 1000);
    assert_eq!(summary["sprt"]["decision"], "inconclusive");
    let o = f.gate(&[
        "--baseline-cmd",
        s,
        "--candidate-cmd",
        s,
        "--max-minutes=-1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

#[test]
fn games_flag_is_the_budget_even_with_sprt_max_games() {
    let f = Fixture::new("sprt: { elo0: -5, elo1: 0, max_games: 1000 }\n", 1000);
    let p = f.path("default.yaml");
    let p = p.to_str().unwrap();
    let o = f.gate(&[
        "--baseline-params",
        p,
        "--candidate-params",
        p,
        "--games",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let summary = summary_json(&f.path("run"));
    assert_eq!(summary["games"], 4);
    assert_eq!(summary["max_games"], 4);
}
