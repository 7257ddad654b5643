//! `karsinta check-engine`: the UCI compliance report on engines that pass
//! and on the fake engine's faults.

use std::process::Command;

use serde_json::Value;

use crate::common::FAKE;

/// Exit code, and stdout with stderr after it.
fn check(args: &[&str]) -> (i32, String) {
    let out = Command::new(karsinta_test_support::bin("karsinta"))
        .arg("check-engine")
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

fn steps(json: &str) -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn karsinta_engine_passes_every_step() {
    let engine = karsinta_test_support::bin("karsinta-engine");
    let (code, text) = check(&[engine.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{text}");
    let steps = steps(&text);
    assert_eq!(steps.len(), 15, "{text}");
    assert!(steps.iter().all(|(_, v)| v != "fail"), "{text}");
    // Mate scores are the engine's own, checked by name.
    for name in [
        "mate in one: mate score",
        "mated in one: negative mate score",
    ] {
        assert!(
            steps.contains(&(name.to_string(), "pass".to_string())),
            "{text}"
        );
    }
}

#[test]
fn faults_fail_their_step_and_name_it() {
    // No uciok: the first step fails and nothing else runs.
    let (code, text) = check(&[&format!("cmd={},arg=--no-uciok", &*FAKE)]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("step  1: uci: id name and uciok") && text.contains("FAILED"),
        "{text}"
    );
    assert!(text.contains("no uciok within"), "{text}");
    assert!(text.contains("skipped: quit"), "{text}");
    // An illegal move: that step fails, the engine goes on to the others.
    let (code, text) = check(&[&format!("cmd={},arg=--illegal-after,arg=0", &*FAKE)]);
    assert_eq!(code, 1, "{text}");
    let line = text.lines().find(|l| l.contains("step  5")).unwrap();
    assert!(line.contains("FAILED"), "{text}");
    assert!(text.contains("is not legal"), "{text}");
    assert!(text.contains("step  6"), "the later steps ran: {text}");
    // Bad flags: exit 2 with one line.
    let (code, text) = check(&["--option", "Hash"]);
    assert_eq!(code, 2, "{text}");
}

#[test]
fn stockfish_passes_every_step() {
    let Some(sf) = karsinta_test_support::debian_engine("stockfish") else {
        return;
    };
    let (code, text) = check(&[sf.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("15 steps, 0 failed"), "{text}");
}
