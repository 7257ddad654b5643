//! `karsinta stats` end to end: JSON keys and values, exit codes, and one-line
//! errors for bad input.

use std::process::{Command, Output};

fn karsinta(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_karsinta"))
        .args(args)
        .output()
        .expect("run karsinta")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = karsinta(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

fn close(v: &serde_json::Value, key: &str, expected: f64) {
    let got = v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("missing {key} in {v}"));
    assert!(
        (got - expected).abs() <= 1e-6 * expected.abs() + 1e-12,
        "{key}: {got} vs {expected}"
    );
}

#[test]
fn pentanomial_json_with_sprt() {
    // Reference numbers: fishtest's formulas evaluated in Python/scipy (see
    // the reference table in harness/src/stats/tests.rs).
    let v = json(&[
        "stats",
        "--ptnml",
        "120,1100,2300,1250,168",
        "--elo0",
        "0",
        "--elo1",
        "2",
        "--json",
    ]);
    assert_eq!(v["games"], 9876);
    close(&v, "elo", 8.6560183392937);
    close(&v, "elo_error", 4.075938732143268);
    close(&v, "elo_low", 4.581270725481923);
    close(&v, "elo_high", 12.733148189768459);
    close(&v, "los", 0.9999843820841495);
    close(&v, "nelo", 14.558680931636026);
    close(&v, "llr", 2.2157803335404833);
    close(&v, "llr_lower", -2.94443897916644);
    close(&v, "llr_upper", 2.94443897916644);
    close(
        &v,
        "score",
        (1100.0 * 0.25 + 2300.0 * 0.5 + 1250.0 * 0.75 + 168.0) / 4938.0,
    );
    assert!(v["draw_ratio"].as_f64().is_some());
    assert_eq!(v["decision"], "continue");
    assert_eq!(v["model"], "normalized");
}

#[test]
fn trinomial_json_logistic_and_decisions() {
    let v = json(&[
        "stats",
        "--wdl",
        "65388,56553,65804",
        "--elo0",
        "-3",
        "--elo1",
        "1",
        "--model",
        "logistic",
        "--json",
    ]);
    assert_eq!(v["games"], 187745);
    close(&v, "elo", -0.7698390908603271);
    close(&v, "los", 0.12537555271611706);
    close(&v, "llr", 2.0490426179674808);
    close(&v, "draw_ratio", 56553.0 / 187745.0);
    assert_eq!(v["decision"], "continue");

    let v = json(&[
        "stats",
        "--wdl",
        "120,10,2",
        "--elo0=-5",
        "--elo1=0",
        "--json",
    ]);
    assert_eq!(v["decision"], "continue");
    let v = json(&[
        "stats",
        "--ptnml",
        "39,2226,31451,2412,40",
        "--elo0",
        "-3",
        "--elo1",
        "1",
        "--model",
        "logistic",
        "--json",
    ]);
    assert_eq!(v["decision"], "H1");
    let v = json(&[
        "stats",
        "--ptnml",
        "10789,19328,33806,19402,10543",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--model",
        "logistic",
        "--json",
    ]);
    assert_eq!(v["decision"], "H0");
}

#[test]
fn bayeselo_sprt_on_wdl() {
    // The LLR of `python3 harness/tests/stats_reference.py bayes`.
    let v = json(&[
        "stats",
        "--wdl",
        "1500,3000,1400",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--model",
        "bayesian",
        "--json",
    ]);
    assert_eq!(v["model"], "bayesian");
    close(&v, "llr", 1.487538468677634);
    assert_eq!(v["decision"], "continue");
}

#[test]
fn without_bounds_there_is_no_llr() {
    let v = json(&["stats", "--wdl", "3,4,1", "--json"]);
    close(&v, "elo", 88.73949984654251);
    assert!(v.get("llr").is_none() && v.get("decision").is_none());
}

#[test]
fn readable_summary() {
    let out = karsinta(&[
        "stats",
        "--ptnml",
        "0,5,20,5,0",
        "--elo0",
        "0",
        "--elo1",
        "5",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Elo   | 0.00 +- 36.03 (95%)"), "{text}");
    assert!(text.contains("Penta | [0, 5, 20, 5, 0]"), "{text}");
    assert!(
        text.contains("(-2.94, 2.94) [0.00, 5.00] normalized -> continue"),
        "{text}"
    );
}

#[test]
fn no_games_have_no_score_and_no_draw_ratio() {
    for counts in [["--wdl", "0,0,0"], ["--ptnml", "0,0,0,0,0"]] {
        let mut args = vec!["stats"];
        args.extend(counts);
        let out = karsinta(&args);
        assert!(out.status.success(), "{counts:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("Score | n/a  draw ratio n/a"), "{text}");
        args.push("--json");
        let v = json(&args);
        assert!(v["score"].is_null() && v["draw_ratio"].is_null(), "{v}");
    }
    // One game is enough for both.
    let v = json(&["stats", "--wdl", "0,1,0", "--json"]);
    assert_eq!(
        (v["score"].as_f64(), v["draw_ratio"].as_f64()),
        (Some(0.5), Some(1.0))
    );
}

#[test]
fn expected_games_calculator() {
    let v = json(&[
        "stats",
        "expected",
        "--elo0",
        "0",
        "--elo1",
        "2",
        "--elo",
        "0,1",
        "--draw-ratio",
        "0.49",
        "--rms-bias",
        "191",
        "--json",
    ]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    close(&rows[0], "pass_probability", 0.05);
    close(&rows[0], "expected_games", 159942.4221910198);
    close(&rows[1], "pass_probability", 0.9444699990948261);
    close(&rows[1], "expected_games", 164150.5038634856);
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["stats", "--ptnml", "1,2,3,4"], "expects 5"),
        (&["stats", "--wdl", "1,2"], "expects 3"),
        (&["stats", "--wdl", "1,-2,3"], "negative"),
        (&["stats", "--wdl", "1,x,3"], "not a whole number"),
        (
            &["stats", "--wdl", "1,2,3", "--elo0", "5", "--elo1", "0"],
            "must be less than",
        ),
        (
            &[
                "stats", "--wdl", "1,2,3", "--elo0", "0", "--elo1", "5", "--alpha", "1.5",
            ],
            "alpha",
        ),
        (
            &[
                "stats", "--wdl", "1,2,3", "--elo0", "0", "--elo1", "5", "--beta", "0",
            ],
            "beta",
        ),
        (&["stats", "--wdl", "1,2,3", "--elo0", "0"], "together"),
        (&["stats"], "--ptnml"),
        (&["stats", "--wdl", "1,2,3", "--alpha", "x"], "--alpha"),
        (
            &["stats", "--wdl", "1,2,3", "--model", "bayes"],
            "unknown Elo model",
        ),
        (
            &[
                "stats",
                "--ptnml",
                "1,2,3,4,5",
                "--elo0",
                "0",
                "--elo1",
                "5",
                "--model",
                "bayesian",
            ],
            "BayesElo is a model of single games; give --wdl",
        ),
        // SPRT settings without bounds would be silently ignored.
        (&["stats", "--wdl", "1,2,3", "--alpha", "0.1"], "--elo0"),
        (
            &[
                "stats",
                "--ptnml",
                "1,2,3,4,5",
                "--beta",
                "0.1",
                "--model",
                "logistic",
            ],
            "--beta, --model only apply",
        ),
        // Counts whose total overflows are refused, not wrapped around.
        (
            &["stats", "--ptnml", "9223372036854775807,1,1,1,1"],
            "add up to more than",
        ),
        (
            &["stats", "--ptnml", "18446744073709551615,1,0,0,0"],
            "add up to more than",
        ),
        (
            &["stats", "--wdl", "18446744073709551615,1,0"],
            "add up to more than",
        ),
        (
            &[
                "stats",
                "expected",
                "--elo0",
                "0",
                "--elo1",
                "2",
                "--elo",
                "0",
                "--draw-ratio",
                "1.2",
            ],
            "draw ratio",
        ),
    ];
    for (args, needle) in cases {
        let out = karsinta(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn median_unbiased_elo_once_the_sprt_stopped() {
    // Reference: `python3 harness/tests/stats_reference.py mue`, which agrees
    // with fishtest's sprt.py to 1e-14. W,D,L = 3200,4000,3000 passes H1.
    let v = json(&[
        "stats",
        "--wdl",
        "3200,4000,3000",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--model",
        "logistic",
        "--json",
    ]);
    assert_eq!(v["decision"], "H1");
    let u = &v["unbiased"];
    close(u, "elo", 5.986601524258868);
    close(u, "low", 0.333612428084245);
    close(u, "high", 11.46569802137326);
    close(u, "los", 0.9808554569912546);
    assert_eq!(u["clamped"], false);
    // Below the plain estimate: a test that stops early overstates.
    assert!(u["elo"].as_f64().unwrap() < v["elo"].as_f64().unwrap());
    let text = karsinta(&[
        "stats",
        "--wdl",
        "3200,4000,3000",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--model",
        "logistic",
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("MUE   | 5.99 [0.33, 11.47] (95%)"), "{text}");

    // A test that has not stopped has no such estimate.
    let running = json(&[
        "stats",
        "--ptnml",
        "120,1100,2300,1250,168",
        "--elo0",
        "0",
        "--elo1",
        "2",
        "--json",
    ]);
    assert_eq!(running["decision"], "continue");
    assert!(running.get("unbiased").is_none(), "{running}");
}
