//! The `dist:` block of a test's config: karsinta-dist's own settings,
//! parsed here. The harness keeps the block as raw YAML and hands it over
//! by name ([`MatchConfig::section`]); its schema knows nothing of them.
//! Loaders of a test's config accept it through [`accepted_sections`].

use karsinta_harness::config::MatchConfig;
use serde::Deserialize;

use crate::db::DbError;

/// The config block karsinta-dist reads (the harness's commands leave it
/// alone under this name: [`karsinta_harness::run::FLEET_SECTION`]).
pub const SECTION: &str = "dist";

/// The blocks a fleet test's config may hold: this one and those of the
/// harness's commands built on a match (a test is an ordinary match config).
pub fn accepted_sections() -> Vec<&'static str> {
    std::iter::once(SECTION)
        .chain(karsinta_harness::run::SECTIONS.iter().copied())
        .collect()
}

/// The block as written: every key optional, so that a kind can tell a key
/// given from a default (an SPSA test refuses the match-only keys).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDist {
    batch_pairs: Option<u32>,
    batch_games: Option<u32>,
    window_batches: Option<u32>,
    lease_seconds: Option<u32>,
    bench_depth: Option<i32>,
}

/// A test's fleet settings, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistSettings {
    /// Game pairs per batch (the unit a worker claims and completes); for
    /// a datagen test, games per batch (`dist.batch_games`).
    pub batch_pairs: u32,
    /// Batches handed out beyond the completed prefix.
    pub window_batches: u32,
    /// Seconds a lease lasts without a heartbeat.
    pub lease_seconds: u32,
    /// Depth of the in-process engine's bench signature.
    pub bench_depth: i32,
}

/// The signature only has to tell engines apart, and `create` and every
/// worker compute it before any game: at the bench's own depth 10 a weak
/// parameter set (configs/params/simple.yaml) took over 9 minutes, at 6
/// still 25 s; depth 5 separates parameter sets in seconds.
const DEFAULT_BENCH_DEPTH: i32 = 5;

/// A datagen batch: about as long as a match's 8 pairs (16 games).
const DEFAULT_BATCH_GAMES: u32 = 16;

impl Default for DistSettings {
    fn default() -> Self {
        DistSettings {
            batch_pairs: 8,
            window_batches: 64,
            lease_seconds: 60,
            bench_depth: DEFAULT_BENCH_DEPTH,
        }
    }
}

impl DistSettings {
    /// The settings of a match test: the block of `cfg`, checked, with
    /// defaults for what it leaves out (all of them without a block).
    pub fn of(cfg: &MatchConfig) -> Result<DistSettings, DbError> {
        Self::parse(cfg).map(|(s, _)| s)
    }

    /// The settings of an SPSA test, whose unit of work is one iteration
    /// and whose window is the SPSA one (it changes the result): a block
    /// that sets `batch_pairs` or `window_batches` is refused rather than
    /// silently ignored. The two are returned at their defaults.
    pub fn of_spsa(cfg: &MatchConfig) -> Result<DistSettings, DbError> {
        let (s, raw) = Self::parse(cfg)?;
        let given = [
            ("batch_pairs", raw.batch_pairs.is_some()),
            ("window_batches", raw.window_batches.is_some()),
        ];
        if let Some((key, _)) = given.iter().find(|(_, set)| *set) {
            return Err(DbError::Invalid(format!(
                "{}: dist.{key}: not used by SPSA tests (a work unit is one iteration of \
                 spsa.pairs_per_iteration pairs; the window is spsa.window)",
                cfg.path.display()
            )));
        }
        Ok(s)
    }

    /// The settings of a datagen test from its config's `dist:` block
    /// (`block`, as the datagen config keeps it; `path`: the config file):
    /// its unit of work is `batch_games` games (default 16), and
    /// `batch_pairs` is refused.
    pub fn of_datagen(
        block: Option<&serde_yaml::Value>,
        path: &std::path::Path,
    ) -> Result<DistSettings, DbError> {
        let raw: RawDist = match block {
            Some(v) => serde_yaml::from_value(v.clone())
                .map_err(|e| DbError::Invalid(format!("{}: dist: {e}", path.display())))?,
            None => RawDist::default(),
        };
        if raw.batch_pairs.is_some() {
            return Err(DbError::Invalid(format!(
                "{}: dist.batch_pairs: a datagen test's unit is games: give dist.batch_games",
                path.display()
            )));
        }
        let raw = RawDist {
            batch_pairs: Some(raw.batch_games.unwrap_or(DEFAULT_BATCH_GAMES)),
            ..raw
        };
        Self::check(raw, path).map(|(s, _)| s)
    }

    fn parse(cfg: &MatchConfig) -> Result<(DistSettings, RawDist), DbError> {
        let raw: RawDist = cfg
            .section(SECTION)
            .map_err(|e| DbError::Invalid(e.to_string()))?
            .unwrap_or_default();
        if raw.batch_games.is_some() {
            return Err(DbError::Invalid(format!(
                "{}: dist.batch_games: for datagen tests (a match's unit is dist.batch_pairs)",
                cfg.path.display()
            )));
        }
        Self::check(raw, &cfg.path)
    }

    /// Defaults for what `raw` leaves out, every value checked.
    fn check(raw: RawDist, path: &std::path::Path) -> Result<(DistSettings, RawDist), DbError> {
        let d = DistSettings::default();
        let s = DistSettings {
            batch_pairs: raw.batch_pairs.unwrap_or(d.batch_pairs),
            window_batches: raw.window_batches.unwrap_or(d.window_batches),
            lease_seconds: raw.lease_seconds.unwrap_or(d.lease_seconds),
            bench_depth: raw.bench_depth.unwrap_or(d.bench_depth),
        };
        let bad = |key: &str, msg: &str| {
            DbError::Invalid(format!("{}: dist.{key}: {msg}", path.display()))
        };
        if s.batch_pairs == 0 {
            let key = if raw.batch_games.is_some() {
                "batch_games"
            } else {
                "batch_pairs"
            };
            return Err(bad(key, "must be at least 1"));
        }
        if s.window_batches == 0 {
            return Err(bad("window_batches", "must be at least 1"));
        }
        if s.lease_seconds == 0 {
            return Err(bad("lease_seconds", "must be at least 1"));
        }
        if !(1..=64).contains(&s.bench_depth) {
            return Err(bad("bench_depth", "must be between 1 and 64"));
        }
        Ok((s, raw))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_harness_leaves_this_block_alone() {
        assert_eq!(super::SECTION, karsinta_harness::run::FLEET_SECTION);
        assert!(super::accepted_sections().contains(&"build"));
    }
}
