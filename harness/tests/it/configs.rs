//! Every example config in `configs/` loads and validates (external engine
//! binaries need not be installed: only the config is checked).

use std::path::Path;

use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::tune::texel::run::verify_match_config;
use karsinta_harness::tune::texel::TexelConfig;

#[test]
fn every_config_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // SPSA configs list one engine: the tuner's loader checks them.
        if text.lines().any(|l| l.starts_with("spsa:")) {
            let (cfg, setup, _) = karsinta_harness::tune::spsa::session::load_config(&path, None)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(cfg.engines.len(), 2, "{}", path.display());
            assert!(!setup.params.is_empty(), "{}", path.display());
            continue;
        }
        let yaml: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        if yaml.get("limit").is_some() && yaml.get("games").is_some() {
            // A datagen config.
            let d = karsinta_harness::datagen::DatagenConfig::load(&path)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(d.games > 0, "{}", path.display());
            continue;
        }
        if yaml.get("dataset").is_some() {
            // A Texel tuning config; its `verify:` block is a match.
            let t = TexelConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            if let Some(v) = &t.verify {
                let m = verify_match_config(&t, v, &dir.join("params/simple.yaml"))
                    .unwrap_or_else(|e| panic!("{}: verify: {e}", path.display()));
                assert!(m.sprt.is_some(), "{}", path.display());
            }
            continue;
        }
        // ab.yaml and gate.yaml hold the blocks of those commands.
        let blocks = karsinta_harness::run::SECTIONS;
        let cfg = MatchConfig::load_with(&path, &Overrides::default(), blocks)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(cfg.engines.len() >= 2, "{}", path.display());
        // The resolved form reloads to the same engines and settings.
        let again = MatchConfig::from_yaml_with(
            &cfg.resolved_yaml(),
            &dir.join("resolved.yaml"),
            &Overrides::default(),
            blocks,
        )
        .unwrap_or_else(|e| panic!("resolved {}: {e}", path.display()));
        assert_eq!(again.engines, cfg.engines, "{}", path.display());
        assert_eq!(again.settings, cfg.settings, "{}", path.display());
        n += 1;
    }
    assert!(n >= 3, "expected the example configs in {}", dir.display());
}

/// The default A/B config is what the README's first command runs: two
/// in-process engines that differ, with an SPRT.
#[test]
fn default_config_is_an_inprocess_sprt() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/default.yaml");
    let cfg = MatchConfig::load(&path, &Overrides::default()).unwrap();
    assert!(cfg.sprt.is_some());
    assert!(cfg.openings.is_some());
    assert!(cfg
        .engines
        .iter()
        .all(|e| matches!(e.kind, karsinta_harness::players::PlayerKind::InProcess(_))));
    assert_ne!(
        cfg.engines[0].kind, cfg.engines[1].kind,
        "the two parameter sets must differ"
    );
}

/// Every parameter file in `configs/params/` loads into the engine's table
/// (no unknown key, no value out of range) and differs from the defaults.
#[test]
fn every_parameter_file_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/params");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let params = karsinta_engine::Params::load_yaml(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            !params
                .diff_yaml(&karsinta_engine::Params::default())
                .trim()
                .is_empty(),
            "{} sets nothing",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 1, "expected parameter files in {}", dir.display());
}
