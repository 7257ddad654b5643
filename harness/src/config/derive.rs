//! Derived configs: a resolved [`MatchConfig`] with one section replaced,
//! for the commands that play a variant of a config (`ab` and `gate` put
//! their builds in as the engines, the gate adds its SPRT, `tune spsa
//! --verify` plays the tuned values against the start).
//!
//! Only the replaced section and those that depend on it are resolved
//! again (engines -> tournament -> sprt -> games), by the same section
//! functions that resolve a file, and both the values and the recorded
//! [`MatchConfig::resolved`] form change together. A derived config is
//! therefore exactly the config that a file with those values resolves to:
//! the same fingerprint, the same games.

use super::error::ConfigError;
use super::resolve::{
    config_dir, resolve_engine_limits, resolve_engines, resolve_games, resolve_name, resolve_sprt,
    resolve_tournament, MatchConfig,
};
use super::schema::{RawEngine, RawSprt};

impl MatchConfig {
    /// The same run with `engines` (as written in a file's `engines:`,
    /// relative paths from this config's folder) instead of its own. Two
    /// engines play a match; with more, the config's tournament is kept.
    pub fn with_engines(&self, engines: Vec<RawEngine>) -> Result<MatchConfig, ConfigError> {
        let mut c = self.clone();
        if engines.len() == 2 {
            c.resolved.tournament = None;
        }
        c.resolved.engines = engines;
        let base = config_dir(&c.path);
        c.engines = resolve_engines(&mut c.resolved.engines, &c.path, &base)?;
        c.settings.engine_tc =
            resolve_engine_limits(&mut c.resolved.engines, &c.engines, c.settings.tc, &c.path)?;
        c.tournament = resolve_tournament(&mut c.resolved, c.engines.len(), &c.path)?;
        c.sprt = resolve_sprt(&c.resolved, c.tournament, &c.path)?;
        Ok(c)
    }

    /// The same run stopped by `sprt` (its `max_games`, if set, is the cap;
    /// else the config's games).
    pub fn with_sprt(&self, sprt: RawSprt) -> Result<MatchConfig, ConfigError> {
        let mut c = self.clone();
        c.resolved.sprt = Some(sprt);
        c.sprt = resolve_sprt(&c.resolved, c.tournament, &c.path)?;
        c.games = resolve_games(&mut c.resolved, c.colours, &c.path)?;
        Ok(c)
    }

    /// The same run with `games` per pairing; as `--games` does, this is
    /// also the cap of an SPRT that has one.
    pub fn with_games(&self, games: u64) -> Result<MatchConfig, ConfigError> {
        let mut c = self.clone();
        c.resolved.games = Some(games);
        if let Some(s) = c.resolved.sprt.as_mut().filter(|s| s.max_games.is_some()) {
            s.max_games = Some(games);
        }
        c.games = resolve_games(&mut c.resolved, c.colours, &c.path)?;
        Ok(c)
    }

    /// The same run under another name (run folder prefix, PGN `Event`).
    pub fn with_name(&self, name: &str) -> Result<MatchConfig, ConfigError> {
        let mut c = self.clone();
        c.resolved.name = Some(name.to_string());
        c.name = resolve_name(&mut c.resolved, &c.path)?;
        Ok(c)
    }

    /// The same run without another command's block `key` (which the
    /// match does not read).
    pub fn without_section(&self, key: &str) -> MatchConfig {
        let mut c = self.clone();
        c.resolved.remove_section(key);
        c
    }

    /// The same run with its opening suite's checksum and size recorded
    /// (a resumed run then refuses a suite that changed under it). Without
    /// a suite, the config unchanged.
    pub fn with_recorded_openings(&self, checksum: String, entries: usize) -> MatchConfig {
        let mut c = self.clone();
        if let (Some(raw), Some(o)) = (c.resolved.openings.as_mut(), c.openings.as_mut()) {
            raw.checksum = Some(checksum.clone());
            raw.entries = Some(entries);
            o.checksum = Some(checksum);
            o.entries = Some(entries);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::{Overrides, RawConfig};
    use crate::run::config_fingerprint;
    use crate::stats::EloModel;

    const BASE: &str = "
engines:
  - name: base
    type: inprocess
  - name: dev
    type: inprocess
    params: { null_move_r: 2 }
games: 10
concurrency: 2
seed: 7
time_control: nodes=500
spsa: { iterations: 3 }
";

    fn load(text: &str) -> MatchConfig {
        let path = Path::new("/tmp/x/test.yaml");
        MatchConfig::from_yaml_with(text, path, &Overrides::default(), &["spsa"]).unwrap()
    }

    /// What the commands did before: edit the resolved YAML, resolve again.
    fn reresolve(cfg: &MatchConfig, edit: impl FnOnce(&mut RawConfig)) -> MatchConfig {
        let mut raw = cfg.resolved().clone();
        edit(&mut raw);
        MatchConfig::resolve_with(raw, &cfg.path, &Overrides::default(), &["spsa"]).unwrap()
    }

    fn assert_same(derived: &MatchConfig, full: &MatchConfig) {
        assert_eq!(derived.resolved(), full.resolved());
        assert_eq!(config_fingerprint(derived), config_fingerprint(full));
        assert_eq!(derived.name, full.name);
        assert_eq!(derived.engines, full.engines);
        assert_eq!(derived.tournament, full.tournament);
        assert_eq!(derived.games, full.games);
        assert_eq!(derived.sprt, full.sprt);
        assert_eq!(derived.openings, full.openings);
        assert_eq!(derived.settings, full.settings);
    }

    fn engine(name: &str, params: &str) -> RawEngine {
        serde_yaml::from_str(&format!(
            "{{ name: {name}, type: inprocess, params: {params} }}"
        ))
        .unwrap()
    }

    fn sprt(max_games: Option<u64>) -> RawSprt {
        RawSprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.1,
            model: EloModel::Normalized,
            max_games,
        }
    }

    #[test]
    fn derived_configs_resolve_as_the_edited_file() {
        let cfg = load(BASE);
        let pair = vec![engine("a", "{ lmr_base: 80 }"), engine("b", "{}")];
        let d = cfg.with_engines(pair.clone()).unwrap();
        assert_same(&d, &reresolve(&cfg, |r| r.engines = pair.clone()));
        assert_eq!(d.engines[0].name, "a");
        assert_ne!(d.engines[0].kind, cfg.engines[0].kind);

        for cap in [None, Some(40)] {
            let d = cfg.with_sprt(sprt(cap)).unwrap();
            assert_same(&d, &reresolve(&cfg, |r| r.sprt = Some(sprt(cap))));
            assert_eq!(d.games, cap.unwrap_or(10));
        }
        let d = cfg.with_games(20).unwrap().with_sprt(sprt(None)).unwrap();
        let full = reresolve(&cfg, |r| {
            r.games = Some(20);
            r.sprt = Some(sprt(None));
        });
        assert_same(&d, &full);
        let capped = cfg.with_sprt(sprt(Some(40))).unwrap();
        let d = capped.with_games(12).unwrap();
        assert_eq!(
            (d.games, d.resolved().sprt.as_ref().unwrap().max_games),
            (12, Some(12))
        );
        let over = Overrides {
            games: Some(12),
            ..Overrides::default()
        };
        let raw = capped.resolved().clone();
        let by_flag = MatchConfig::resolve_with(raw, &cfg.path, &over, &["spsa"]).unwrap();
        assert_same(&d, &by_flag);

        let d = cfg.with_name("other").unwrap();
        assert_same(&d, &reresolve(&cfg, |r| r.name = Some("other".into())));
        assert_eq!(d.name, "other");
        let d = cfg.without_section("spsa");
        assert!(cfg.resolved().section("spsa").is_some());
        assert_same(
            &d,
            &reresolve(&cfg, |r| {
                r.sections.remove("spsa");
            }),
        );
    }

    #[test]
    fn derived_configs_are_checked_like_a_file() {
        let cfg = load(BASE);
        let e = cfg.with_games(7).unwrap_err().to_string();
        assert!(e.contains("test.yaml: games:") && e.contains("even"), "{e}");
        let e = cfg
            .with_engines(vec![engine("a", "{}"), engine("a", "{}")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("engines[1].name"), "{e}");
        let e = cfg
            .with_engines(vec![engine("a", "{ null_move_r: 99 }"), engine("b", "{}")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("engines[0].params.null_move_r"), "{e}");
        let three = vec![engine("a", "{}"), engine("b", "{}"), engine("c", "{}")];
        let e = cfg.with_engines(three).unwrap_err().to_string();
        assert!(e.contains("tournament") && e.contains("found 3"), "{e}");
        let mut bad = sprt(None);
        bad.elo1 = -5.0;
        assert!(cfg
            .with_sprt(bad)
            .unwrap_err()
            .to_string()
            .contains(": sprt:"));
        assert!(cfg.with_name("a/b").is_err());
    }
}
