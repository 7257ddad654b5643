//! SPSA on a git revision (`create --repo URL --rev REV --config
//! spsa.yaml`) against a real PostgreSQL, on the repository of
//! revisions.rs (a shell-script "build" wrapping karsinta-engine with the
//! commit's parameters): the creator records the commit and its bench,
//! a worker whose build benches differently refuses with that reason, two
//! workers with their own caches build the commit once each and tune its
//! build through its UCI options, and the trajectory equals `karsinta tune
//! spsa` with that build as a UCI engine, at fixed nodes.

use std::path::Path;
use std::process::Child;
use std::time::Duration;

use karsinta_harness::tune::spsa::output;
use karsinta_harness::tune::spsa::session::Session;

use crate::pg::TempPg;
use crate::revisions::{builds_logged, engine_repo, file_url, text, worker_in, BENCH};
use crate::support::{cli, thetas, wait};

/// A `karsinta tune spsa` config at fixed nodes with `engine` (its YAML
/// entry) and `extra` blocks.
fn spsa_config(dir: &Path, name: &str, engine: &str, extra: &str) -> std::path::PathBuf {
    let openings = karsinta_test_support::workspace().join("openings/karsinta-4ply.epd");
    let text = format!(
        "name: {name}\nengines:\n  - {engine}\ntime_control: nodes=300\n\
         openings: {{ file: {}, order: random }}\nseed: 3\nconcurrency: 1\n\
         adjudication: {{ resign: {{ score_cp: 400, move_count: 2 }}, draw: {{ move_number: 20, score_cp: 20, move_count: 4 }}, max_moves: 60 }}\n\
         spsa:\n  iterations: 6\n  pairs_per_iteration: 2\n  window: 2\n  seed: 11\n  params:\n    \
         null_move_r: {{ start: 4 }}\n    material_knight_mg: {{ start: 200, c_end: 100, r_end: 0.02 }}\n{extra}",
        openings.display()
    );
    let p = dir.join(format!("{name}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn two_workers_tune_a_revision_as_karsinta_tune_spsa_tunes_its_build() {
    if karsinta_test_support::git().is_none() {
        return;
    }
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let engine = karsinta_test_support::bin("karsinta-engine");
    let tmp = tempfile::tempdir().unwrap();
    let repo = engine_repo(&tmp.path().join("repo"), &engine);
    let url = file_url(&repo.dir);
    let build = format!(
        "build:\n  command: sh build.sh\n  binary: bin/engine\n  bench: '{BENCH}'\n\
         dist:\n  lease_seconds: 20\n"
    );
    let cfg = spsa_config(tmp.path(), "rspsa", "{ name: k, type: inprocess }", &build);
    let cfg_s = cfg.to_str().unwrap();
    let creator = tmp.path().join("creator-cache");
    let create = |extra: &[&str]| {
        let mut args = vec!["create", "--config", cfg_s, "--repo", &url];
        args.extend(["--build-cache", creator.to_str().unwrap()]);
        args.extend(extra);
        cli(&pg, &args).output().unwrap()
    };

    // Bad requests name their flag: SPSA tunes one revision.
    let o = create(&["--base", "HEAD~1", "--dev", "main"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("give --rev REV"), "{}", text(&o));
    let o = create(&["--rev", "no-such-branch"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("unknown revision 'no-such-branch'"),
        "{}",
        text(&o)
    );
    // A build: block without a revision is refused rather than ignored.
    let o = cli(&pg, &["create", cfg_s]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("build: only an SPSA test of a revision"),
        "{}",
        text(&o)
    );

    // HEAD~1 (base) has no `Bench:` line: the creator builds and benches it.
    let o = create(&["--rev", "HEAD~1"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("created SPSA test rspsa: 6 iterations of 2 pairs, window 2"));
    assert_eq!(builds_logged(&creator), vec![repo.base.clone()]);
    let mut c = pg.client();
    let row = c
        .query_one(
            "SELECT revisions, signatures, config_yaml FROM dist_tests",
            &[],
        )
        .unwrap();
    let rec: serde_json::Value = serde_json::from_str(row.get::<_, &str>(0)).unwrap();
    let side = &rec["sides"][0];
    assert_eq!(rec["sides"].as_array().unwrap().len(), 1);
    assert_eq!(
        (side["role"].as_str(), side["rev"].as_str()),
        (Some("tuned"), Some("HEAD~1"))
    );
    assert_eq!(side["commit"], repo.base.as_str());
    assert_eq!(side["bench"], repo.base_bench);
    assert_eq!(side["bench_from"], "creator_build");
    assert_eq!(rec["build"]["command"], "sh build.sh");
    let engine_name = format!("tuned-{}", &repo.base[..7]);
    let sigs: &str = row.get(1);
    assert!(sigs.contains(&engine_name) && sigs.contains(&format!("bench {}", repo.base_bench)));
    // The stored config is one `karsinta tune spsa` reads: no build: block.
    let stored: &str = row.get(2);
    assert!(!stored.contains("build.sh"), "{stored}");

    // A machine whose build benches differently refuses, with the reason.
    let misbuilt = wait(
        worker_in(
            &pg,
            &tmp.path().join("w0"),
            &["--test", "rspsa"],
            &[("KARSINTA_TEST_MISBUILD", "1")],
        ),
        Duration::from_secs(300),
    );
    assert_eq!(misbuilt.status.code(), Some(2), "{}", text(&misbuilt));
    let why = format!(
        "the test recorded {} (from the creator's build)",
        repo.base_bench
    );
    assert!(text(&misbuilt).contains(&why), "{}", text(&misbuilt));

    // Two workers, each with its own cache, as on two machines.
    let homes = [tmp.path().join("w1"), tmp.path().join("w2")];
    let ws: Vec<Child> = homes
        .iter()
        .map(|h| worker_in(&pg, h, &["--test", "rspsa"], &[]))
        .collect();
    for w in ws {
        let o = wait(w, Duration::from_secs(600));
        assert!(o.status.success(), "{}", text(&o));
        assert!(text(&o).contains("built and benched in"), "{}", text(&o));
    }
    for h in &homes {
        assert_eq!(
            builds_logged(&h.join("cache")),
            vec![repo.base.clone()],
            "built once"
        );
    }
    let row = c
        .query_one(
            "SELECT (SELECT count(*) FROM dist_batches WHERE state = 'done'), \
             (SELECT count(*) FROM dist_workers WHERE build_seconds IS NOT NULL)",
            &[],
        )
        .unwrap();
    let got: (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(
        got,
        (6, 2),
        "every iteration played; two workers with their builds"
    );
    let status = text(&cli(&pg, &["status", "rspsa"]).output().unwrap());
    assert!(status.contains("iteration 6 of 6 applied"), "{status}");
    assert!(
        status.contains(&format!("tuned HEAD~1 = {}", repo.base)),
        "{status}"
    );
    assert!(status.contains("this machine's build benches"), "{status}");

    // `karsinta tune spsa` on one machine with that build as a UCI engine.
    let binary = homes[0].join("cache").join(&repo.base).join("bin/engine");
    let uci = format!("{{ name: k, type: uci, cmd: '{}' }}", binary.display());
    let single_cfg = spsa_config(tmp.path(), "single", &uci, "");
    let single = tmp.path().join("single");
    let mut s = Session::create(&single_cfg, &single, None, Some(1)).unwrap();
    s.run(vec![], |_, _| {}).unwrap();
    assert_eq!(s.state.applied, 6);
    let fleet = thetas(&mut c);
    assert_eq!(fleet.len(), 7);
    assert_ne!(fleet[6].1, fleet[0].1, "the run moved");
    assert_eq!(fleet[6].1, s.state.theta, "theta_6 bit for bit");

    let exported = tmp.path().join("exported");
    let o = cli(
        &pg,
        &["export", "rspsa", "--out", exported.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(exported.join(output::CSV_FILE)).unwrap(),
        std::fs::read_to_string(single.join(output::CSV_FILE)).unwrap(),
        "the whole trajectory"
    );
    eprintln!("{status}");
}
