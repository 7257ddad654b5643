//! The README's first command, exactly as a user runs it: an in-process A/B
//! match on the embedded defaults that must reach an SPRT decision, with a
//! PGN that an independent rules implementation accepts and counts that
//! agree with `summary.json`.

use std::process::Command;

use karsinta_test_support::{bin, python_chess, replay_with_python_chess, text, workspace};

#[test]
#[ignore = "slow: the whole main job (about a minute on 2 cores)"]
fn readme_main_job_reaches_a_decision() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let command =
        "cargo run --release -p karsinta-harness --bin karsinta -- match configs/default.yaml";
    assert!(
        readme.lines().take(8).any(|l| l.trim() == command),
        "README no longer opens with the main job this test runs"
    );
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let o = Command::new(bin("karsinta"))
        .current_dir(workspace())
        .args([
            "match",
            "configs/default.yaml",
            "--quiet",
            "--json",
            "--out",
        ])
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let decision = s["sprt"]["decision"].as_str().unwrap();
    assert!(
        decision == "H0" || decision == "H1",
        "the main job must decide within its game cap: {decision}"
    );
    let games = s["games"].as_u64().unwrap();
    let (w, d, l) = (
        s["wins"].as_u64().unwrap(),
        s["draws"].as_u64().unwrap(),
        s["losses"].as_u64().unwrap(),
    );
    assert_eq!(w + d + l, games);
    let penta: Vec<u64> = serde_json::from_value(s["pentanomial"].clone()).unwrap();
    assert_eq!(penta.iter().sum::<u64>() * 2, games);
    // The run folder is complete: resolved config, ledger line per pair.
    let ledger = std::fs::read_to_string(run.join("ledger.jsonl")).unwrap();
    assert_eq!(
        ledger.lines().filter(|l| l.contains("\"games\"")).count() as u64 * 2,
        games,
        "one ledger line per counted pair"
    );
    assert!(run.join("config.yaml").exists());

    if let Some(py) = python_chess() {
        let r = replay_with_python_chess(&py, &run.join("games.pgn"), "dev");
        assert_eq!(r["games"].as_u64().unwrap(), games);
        assert_eq!(r["wins"].as_u64().unwrap(), w);
        assert_eq!(r["draws"].as_u64().unwrap(), d);
        assert_eq!(r["losses"].as_u64().unwrap(), l);
    }
}
