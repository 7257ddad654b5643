//! SPSA tuning with real games: the in-process engine at fixed nodes, a
//! few short iterations. The parameters after a run must not depend on the
//! number of workers, on a stop and `--resume`, or on a SIGKILL.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use karsinta_harness::play::pairs::Ended;
use karsinta_harness::tune::spsa::output;
use karsinta_harness::tune::spsa::session::Session;

fn openings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../openings/karsinta-4ply.epd")
}

/// A detuned start (null-move R and the knight's middlegame value far off),
/// games short: nodes=600, adjudicated early. The knight's value, perturbed
/// by +-100, makes the two sides play different games; with search
/// parameters alone a short run can tie throughout and never move.
fn config(dir: &Path, iterations: u64, window: u64) -> PathBuf {
    let path = dir.join("tune.yaml");
    std::fs::write(
        &path,
        format!(
            "name: t\nengines:\n  - name: k\n    type: inprocess\ntime_control: nodes=600\n\
             openings: {{ file: {}, order: random }}\nseed: 3\n\
             adjudication: {{ resign: {{ score_cp: 400, move_count: 2 }}, draw: {{ move_number: 20, score_cp: 20, move_count: 4 }}, max_moves: 60 }}\n\
             spsa:\n  iterations: {iterations}\n  pairs_per_iteration: 2\n  window: {window}\n  seed: 11\n  params:\n    null_move_r: {{ start: 4 }}\n    material_knight_mg: {{ start: 200, c_end: 100, r_end: 0.02 }}\n",
            openings().display()
        ),
    )
    .unwrap();
    path
}

fn tune(dir: &Path, out: &str, concurrency: usize, iterations: u64, window: u64) -> Vec<f64> {
    let cfg = config(dir, iterations, window);
    let mut s = Session::create(&cfg, &dir.join(out), None, Some(concurrency)).unwrap();
    assert_eq!(s.run(vec![], |_, _| {}).unwrap(), Ended::Exhausted);
    assert_eq!(s.state.applied, iterations);
    s.state.theta.clone()
}

#[test]
fn same_parameters_for_any_worker_count_and_after_a_stop() {
    let dir = tempfile::tempdir().unwrap();
    let one = tune(dir.path(), "one", 1, 6, 2);
    let two = tune(dir.path(), "two", 2, 6, 2);
    assert_eq!(one, two);
    // The run moved: some iteration was not a tie.
    assert_ne!(one, vec![4.0, 200.0]);

    // Stopped after iteration 2 by the progress callback, then resumed.
    let cfg = config(dir.path(), 6, 2);
    let out = dir.path().join("stopped");
    let mut s = Session::create(&cfg, &out, None, Some(2)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let ended = s
        .run(vec![Arc::clone(&stop)], move |_, st| {
            if st.applied == 2 {
                flag.store(true, Ordering::SeqCst);
            }
        })
        .unwrap();
    assert_eq!(ended, Ended::Halted);
    assert!(
        s.state.applied >= 2 && s.state.applied < 6,
        "{}",
        s.state.applied
    );
    let mut r = Session::resume(&out, None, Some(1)).unwrap();
    assert_eq!(r.run(vec![], |_, _| {}).unwrap(), Ended::Exhausted);
    assert_eq!(r.state.theta, one);

    // Outputs: one CSV row per iteration plus the start, the final files.
    let csv = std::fs::read_to_string(out.join(output::CSV_FILE)).unwrap();
    assert_eq!(csv.lines().count(), 1 + 7);
    assert!(csv.starts_with("iteration,null_move_r,material_knight_mg\n0,4,200\n"));
    let yaml = std::fs::read_to_string(out.join(output::PARAMS_FILE)).unwrap();
    let tuned = karsinta_engine::Params::from_yaml_str(&yaml, "params.yaml").unwrap();
    assert_eq!(
        tuned.get_by_name("null_move_r"),
        Some(one[0].round() as i32)
    );
    let ob = std::fs::read_to_string(out.join(output::OPENBENCH_FILE)).unwrap();
    assert_eq!(
        ob.lines().next().unwrap(),
        format!("null_move_r, {}", one[0].round())
    );
    let svg = std::fs::read_to_string(out.join(output::SVG_FILE)).unwrap();
    assert_eq!(svg.matches("class=\"series\"").count(), 2);

    // Extending the finished run: more iterations from where it stopped.
    let mut e = Session::resume(&out, Some(8), None).unwrap();
    e.run(vec![], |_, _| {}).unwrap();
    assert_eq!(e.state.applied, 8);
    assert_eq!(
        std::fs::read_to_string(out.join(output::CSV_FILE))
            .unwrap()
            .lines()
            .count(),
        1 + 9
    );
}

/// `karsinta tune spsa` killed with SIGKILL mid-run, then `--resume`d,
/// ends with the parameters of an uninterrupted run.
#[test]
fn sigkill_and_resume_give_the_uninterrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), 12, 1);
    let run = |args: &[&str]| {
        Command::new(crate::common::KARSINTA)
            .args(["tune", "spsa"])
            .args(args)
            .output()
            .unwrap()
    };
    let full = dir.path().join("full");
    let o = run(&[
        cfg.to_str().unwrap(),
        "--out",
        full.to_str().unwrap(),
        "-q",
        "-j",
        "2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = std::fs::read_to_string(full.join(output::OPENBENCH_FILE)).unwrap();

    let killed = dir.path().join("killed");
    let mut child = Command::new(crate::common::KARSINTA)
        .args([
            "tune",
            "spsa",
            cfg.to_str().unwrap(),
            "--out",
            killed.to_str().unwrap(),
            "-q",
            "-j",
            "2",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill once a few iterations are recorded (or after it ended by itself).
    let state = killed.join(output::STATE_FILE);
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        let applied = std::fs::read_to_string(&state)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["applied"].as_u64())
            .unwrap_or(0);
        if applied >= 3 {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.wait();
    let o = run(&["--resume", killed.to_str().unwrap(), "-q", "-j", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(killed.join(output::OPENBENCH_FILE)).unwrap(),
        expected
    );
    assert_eq!(
        std::fs::read_to_string(killed.join(output::CSV_FILE)).unwrap(),
        std::fs::read_to_string(full.join(output::CSV_FILE)).unwrap()
    );
}

#[test]
fn config_errors_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(
        &path,
        "engines:\n  - name: k\n    type: inprocess\ntime_control: nodes=100\nspsa:\n  iterations: 5\n  params: { no_such_param: }\n",
    )
    .unwrap();
    let o = Command::new(crate::common::KARSINTA)
        .args(["tune", "spsa", path.to_str().unwrap(), "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("spsa.params.no_such_param"), "{err}");
    assert!(!dir.path().join("out").exists());
}
