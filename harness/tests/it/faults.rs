//! Every fault the fake engine can simulate, in one match each: the faulty
//! engine loses with the right termination, the match goes on, the summary
//! counts every game, and no engine process is left behind. Alone in its
//! test binary because it checks the process-wide engine registry.

use crate::common::*;
use karsinta_harness::config::Overrides;
use karsinta_harness::run::tally::RunStatus;

/// Every fault of the fake engine: the faulty engine loses every affected
/// game with the right termination, the match goes on to the end and the
/// summary counts every game.
#[test]
fn every_fault_is_a_result() {
    // Alone: it counts the process's live engines at the end.
    if !karsinta_test_support::in_own_process("faults::every_fault_is_a_result") {
        return;
    }
    let cases: &[(&[&str], &str, &str, &str)] = &[
        (&["--crash-after", "3"], "", "abandoned", "crash"),
        (&["--hang-after", "2"], "", "stalled connection", "stall"),
        (
            &["--hang-after", "2"],
            "time_control: 0.25+0\n",
            "time forfeit",
            "time_forfeit",
        ),
        (
            &["--slow-bestmove", "500"],
            "time_control: 0.25+0\n",
            "time forfeit",
            "time_forfeit",
        ),
        (
            &["--illegal-after", "1"],
            "",
            "illegal move",
            "illegal_move",
        ),
        (
            &["--malformed-after", "1"],
            "",
            "abandoned",
            "protocol_error",
        ),
        (&["--exit-on-ucinewgame", "1"], "", "abandoned", "crash"),
    ];
    for (args, extra, tag, key) in cases {
        let dir = tempfile::tempdir().unwrap();
        let extra = format!("{extra}time_margin_ms: 100\n");
        let cfg_text = std::fs::read_to_string(fake_config(dir.path(), args, "")).unwrap();
        let cfg_text = if extra.contains("time_control") {
            cfg_text.replace("time_control: nodes=100\n", "") + &extra
        } else {
            cfg_text + &extra
        };
        let cfg = dir.path().join("f.yaml");
        std::fs::write(&cfg, cfg_text).unwrap();
        let out = dir.path().join("run");
        let s = run(&cfg, &out, &Overrides::default());
        let what = format!("{args:?}");
        assert_eq!(s.games, 4, "{what}");
        assert_eq!(s.status, RunStatus::Finished, "{what}");
        // The good engine (first) wins every game.
        assert_eq!(
            (s.wins, s.draws, s.losses),
            (4, 0, 0),
            "{what}: {:?}",
            s.terminations
        );
        assert_eq!(s.terminations[*key], 4, "{what}: {:?}", s.terminations);
        let games = replay_pgn(&std::fs::read_to_string(out.join("games.pgn")).unwrap());
        assert_eq!(games.len(), 4, "{what}");
        for (_, t, reason) in &games {
            assert_eq!(t, tag, "{what}: {reason}");
        }
        assert_eq!(
            karsinta_harness::players::live_children(),
            0,
            "{what}: engines left running"
        );
    }
}
