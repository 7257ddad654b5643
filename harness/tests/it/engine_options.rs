//! Options an engine does not advertise are refused at setup, naming the
//! engine, the option and the closest advertised name, instead of being
//! sent and silently ignored.

use std::process::Command;
use std::time::Duration;

use crate::common::{fake_config, FAKE, KARSINTA};
use karsinta_harness::players::{EngineError, Player, PlayerKind, PlayerSpec, UciPlayer};

fn spec(options: &[(&str, &str)]) -> PlayerSpec {
    PlayerSpec {
        name: "fake".into(),
        kind: PlayerKind::Uci,
        cmd: FAKE.into(),
        args: Vec::new(),
        dir: None,
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        init_timeout: Duration::from_secs(5),
        variant: karsinta_harness::variant::Variant::Standard,
        stderr_log: None,
        restart: false,
    }
}

#[test]
fn uci_player_refuses_an_option_the_engine_does_not_advertise() {
    // The fake engine advertises only `Hash`; names ignore case (UCI).
    let mut p = UciPlayer::new(spec(&[("hash", "4")]));
    p.new_game().unwrap();
    p.quit();
    let mut p = UciPlayer::new(spec(&[("Hash", "4"), ("Hsh", "64")]));
    let err = p.new_game().unwrap_err();
    match &err {
        EngineError::Unsupported(m) => {
            assert!(
                m.contains("'fake'") && m.contains("'Hsh'") && m.contains("did you mean 'Hash'"),
                "{m}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(p.pid().is_none(), "the engine is stopped");
    let mut p = UciPlayer::new(spec(&[("SyzygyPath", "/tb")]));
    let err = p.new_game().unwrap_err().to_string();
    assert!(
        err.contains("'SyzygyPath'") && err.contains("it has: Hash, Threads"),
        "{err}"
    );
}

#[test]
fn options_configured_later_are_checked_too() {
    let mut p = UciPlayer::new(spec(&[]));
    p.new_game().unwrap();
    p.configure(&[("hash".into(), "2".into())]).unwrap();
    let err = p.configure(&[("Hsh".into(), "2".into())]).unwrap_err();
    assert!(
        matches!(&err, EngineError::Unsupported(m) if m.contains("did you mean 'Hash'")),
        "{err:?}"
    );
    p.quit();
    // Before the first start they are checked with the handshake.
    let mut p = UciPlayer::new(spec(&[]));
    p.configure(&[("Hsh".into(), "2".into())]).unwrap();
    assert!(matches!(p.new_game(), Err(EngineError::Unsupported(_))));
}

#[test]
fn match_with_an_unknown_option_is_a_setup_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fake_config(dir.path(), &[], "");
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "    init_timeout_ms: 1000\n",
        "    init_timeout_ms: 1000\n    options: { Hsh: 64 }\n",
    );
    std::fs::write(&cfg, text).unwrap();
    let out = Command::new(KARSINTA)
        .args(["match", "--quiet", "--out"])
        .arg(dir.path().join("run"))
        .arg(&cfg)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("'bad'") && err.contains("'Hsh'") && err.contains("'Hash'"),
        "{err}"
    );
}
