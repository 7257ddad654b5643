//! A tuning run in its folder: the config read (the `engines:` list names
//! the one tuned engine; it plays itself as `NAME-plus` and `NAME-minus`),
//! a new run created or an old one resumed (optionally with more
//! iterations), the iterations played with every output kept current, and
//! the verification match built.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use thiserror::Error;

use super::driver::{self, Arena, IterationReport, SpsaState, STATE_VERSION};
use super::output;
use super::setup::{self, RawSpsa, SpsaSetup};
use crate::config::{ConfigError, MatchConfig, Overrides, RawConfig, RawSprt};
use crate::openings::{self, Opening};
use crate::play::pairs::{Ended, PlayOptions, RunnerError};
use crate::players::PlayerKind;
use crate::stats::EloModel;

/// The run's copy of its config (absolute paths, the chosen seed).
pub const CONFIG_FILE: &str = "config.yaml";
/// Rewrite the SVG every this many iterations (and at the end).
const SVG_EVERY: u64 = 10;
/// Most games of `--verify` when the `verify:` block does not say.
pub const DEFAULT_VERIFY_GAMES: u64 = 4000;

/// Why an SPSA run cannot start or go on.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum SessionError {
    /// The user's input (config, flags, folder) is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Usage(String),
    /// The opening suite cannot be loaded.
    #[error(transparent)]
    Openings(#[from] openings::OpeningError),
    /// The run folder cannot be read or written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The games failed (an engine that cannot play, a bad opening, too many at once).
    #[error(transparent)]
    Games(#[from] RunnerError<std::io::Error>),
}

impl SessionError {
    /// Errors in the input, found before any game (exit status 2).
    pub fn is_setup(&self) -> bool {
        matches!(
            self,
            SessionError::Config(_) | SessionError::Usage(_) | SessionError::Openings(_)
        ) || matches!(
            self,
            SessionError::Games(
                RunnerError::Unsupported { .. }
                    | RunnerError::BadOpening { .. }
                    | RunnerError::Concurrency(_)
            )
        )
    }
}

/// The config block `tune spsa` reads ([`RawSpsa`]).
pub const SECTION: &str = "spsa";

/// Read a tuning config: one engine, an `spsa:` block.
pub fn load_config(
    path: &Path,
    concurrency: Option<usize>,
) -> Result<(MatchConfig, SpsaSetup, RawConfig), SessionError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_config_text(&text, path, concurrency)
}

/// [`load_config`] from the config's text (`path` names it in errors and
/// anchors its relative paths), e.g. one stored in a database. Beside
/// `spsa:` it accepts the fleet's block (the same config tunes on many
/// machines).
pub fn load_config_text(
    text: &str,
    path: &Path,
    concurrency: Option<usize>,
) -> Result<(MatchConfig, SpsaSetup, RawConfig), SessionError> {
    let raw: RawConfig = serde_yaml::from_str(text).map_err(|e| ConfigError::Syntax {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    if raw.engines.len() != 1 {
        return Err(ConfigError::Invalid {
            path: path.to_path_buf(),
            key: "engines".into(),
            message: format!(
                "list exactly one engine, the tuned one ({} given); it plays itself",
                raw.engines.len()
            ),
        }
        .into());
    }
    let mut two = raw.clone();
    let e = two.engines[0].clone();
    two.engines = ["plus", "minus"]
        .iter()
        .map(|side| {
            let mut s = e.clone();
            s.name = format!("{}-{side}", e.name);
            s
        })
        .collect();
    two.games = two.games.or(Some(2));
    two.tournament = None;
    two.sprt = None;
    let overrides = Overrides {
        concurrency,
        ..Overrides::default()
    };
    let accepted = [SECTION, crate::run::FLEET_SECTION];
    let cfg = MatchConfig::resolve_with(two, path, &overrides, &accepted)?;
    let raw_spsa: RawSpsa = cfg.section(SECTION)?.ok_or_else(|| ConfigError::Invalid {
        path: path.to_path_buf(),
        key: SECTION.into(),
        message: "missing: a tuning config needs an spsa: block".into(),
    })?;
    let setup = setup::resolve(&raw_spsa, &cfg.engines[0], path)?;
    // The resolved config with the one engine again, for the run folder.
    let mut own = cfg.resolved().clone();
    own.engines.truncate(1);
    if let Some(first) = own.engines.first_mut() {
        first.name = e.name.clone();
    }
    own.games = raw.games;
    // Before a run folder is written; the runner checks again as it plays.
    crate::play::pairs::check_concurrency(&cfg.engines, &cfg.settings, cfg.concurrency)
        .map_err(RunnerError::<std::io::Error>::Concurrency)?;
    Ok((cfg, setup, own))
}

/// The opening of every pair of a run of `cfg` and their order (the
/// standard position when the config has no suite).
pub fn run_openings(cfg: &MatchConfig) -> Result<(Vec<Arc<Opening>>, Vec<usize>), SessionError> {
    let (list, order_kind, start) = match &cfg.openings {
        Some(o) => (
            openings::load_openings(&o.path, o.format, o.plies)?,
            o.order,
            o.start,
        ),
        None => (
            vec![Opening {
                fen: None,
                moves: Vec::new(),
                id: 0,
            }],
            Default::default(),
            0,
        ),
    };
    let order = openings::order_openings(list.len(), order_kind, cfg.seed, start);
    Ok((list.into_iter().map(Arc::new).collect(), order))
}

/// A run folder being played.
pub struct Session {
    /// The match config of the plus and minus engines (two copies of the tuned one).
    pub cfg: MatchConfig,
    /// The tuned parameters and the SPSA's constants (`spsa:`).
    pub setup: SpsaSetup,
    /// The run folder.
    pub dir: PathBuf,
    /// The iteration reached and theta, as saved in `state.json`.
    pub state: SpsaState,
}

impl Session {
    /// A new run of `config` in `dir` (missing or empty); `iterations`
    /// replaces the block's count.
    pub fn create(
        config: &Path,
        dir: &Path,
        iterations: Option<u64>,
        concurrency: Option<usize>,
    ) -> Result<Session, SessionError> {
        let (cfg, mut setup, own) = load_config(config, concurrency)?;
        if let Some(n) = iterations {
            if n == 0 {
                return Err(SessionError::Usage(
                    "--iterations must be at least 1".into(),
                ));
            }
            setup.iterations = n;
        }
        if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
            return Err(SessionError::Usage(format!(
                "{} is not empty (continue a run with --resume)",
                dir.display()
            )));
        }
        let seed = setup.seed.unwrap_or(cfg.seed);
        let state = SpsaState::new(&setup, seed, setup.window_for(cfg.concurrency));
        std::fs::create_dir_all(dir)?;
        let yaml = serde_yaml::to_string(&own).map_err(std::io::Error::other)?;
        output::write_atomic(
            &dir.join(CONFIG_FILE),
            &format!(
                "# Resolved by karsinta tune spsa from {}\n{yaml}",
                config.display()
            ),
        )?;
        output::prepare_csv(dir, &setup.params, &state)?;
        output::save_state(dir, &state)?;
        Ok(Session {
            cfg,
            setup,
            dir: dir.to_path_buf(),
            state,
        })
    }

    /// Continue the run in `dir`; `iterations` above the planned count
    /// extends it (the schedule is then that of the new count from the
    /// next iteration on; `A` too, unless the config fixes it).
    pub fn resume(
        dir: &Path,
        iterations: Option<u64>,
        concurrency: Option<usize>,
    ) -> Result<Session, SessionError> {
        let config = dir.join(CONFIG_FILE);
        if !config.is_file() || !dir.join(output::STATE_FILE).is_file() {
            return Err(SessionError::Usage(format!(
                "{} is not an SPSA run folder (no {CONFIG_FILE} or {})",
                dir.display(),
                output::STATE_FILE
            )));
        }
        let (cfg, setup, _) = load_config(&config, concurrency)?;
        let mut state = output::load_state(dir)?;
        if state.version != STATE_VERSION || state.theta.len() != setup.params.len() {
            return Err(SessionError::Usage(format!(
                "{}: state does not match the config ({} values for {} parameters, version {})",
                dir.join(output::STATE_FILE).display(),
                state.theta.len(),
                setup.params.len(),
                state.version
            )));
        }
        if let Some(n) = iterations {
            if n < state.applied {
                return Err(SessionError::Usage(format!(
                    "--iterations {n}: the run already applied {} iterations",
                    state.applied
                )));
            }
            state.iterations = n;
        }
        output::prepare_csv(dir, &setup.params, &state)?;
        output::save_state(dir, &state)?;
        Ok(Session {
            cfg,
            setup,
            dir: dir.to_path_buf(),
            state,
        })
    }

    /// Play until the planned iterations are applied or a stop flag is
    /// raised. After every iteration: `params.csv`, `state.json` (that
    /// order: a resume drops CSV rows the state does not have), then
    /// `progress`. The final files are written however the games end.
    pub fn run(
        &mut self,
        stop: Vec<Arc<AtomicBool>>,
        mut progress: impl FnMut(&IterationReport, &SpsaState),
    ) -> Result<Ended, SessionError> {
        let (openings, order) = run_openings(&self.cfg)?;
        let arena = Arena {
            engines: &self.cfg.engines,
            settings: &self.cfg.settings,
            openings,
            order,
            play: PlayOptions {
                concurrency: self.cfg.concurrency,
                stop,
                factory: None,
                max_start_failures: self.cfg.max_start_failures,
                aborted: None,
            },
        };
        let dir = self.dir.clone();
        let params = self.setup.params.clone();
        let ended = if self.state.finished() {
            Ok(Ended::Exhausted)
        } else {
            driver::run(&self.setup, &mut self.state, &arena, |report, state| {
                output::append_csv(&dir, report.k, &state.theta)?;
                output::save_state(&dir, state)?;
                if report.k.is_multiple_of(SVG_EVERY) {
                    let rows = output::read_csv(&dir)?;
                    output::write_atomic(
                        &dir.join(output::SVG_FILE),
                        &output::svg(&params, &rows),
                    )?;
                }
                progress(report, state);
                Ok(())
            })
        };
        self.write_outputs()?;
        Ok(ended?)
    }

    /// `trajectories.svg`, `params.yaml`, `openbench.txt` for the current theta.
    pub fn write_outputs(&self) -> std::io::Result<()> {
        let params = &self.setup.params;
        let rows = output::read_csv(&self.dir)?;
        output::write_atomic(
            &self.dir.join(output::SVG_FILE),
            &output::svg(params, &rows),
        )?;
        output::write_atomic(&self.dir.join(output::PARAMS_FILE), &self.params_yaml())?;
        output::write_atomic(
            &self.dir.join(output::OPENBENCH_FILE),
            &output::openbench_lines(params, &self.state.theta),
        )
    }

    /// The tuned set as `karsinta-engine --params` loads it: for the
    /// in-process engine its whole configured set with the tuned values
    /// (as a difference from the defaults), else the tuned values.
    pub fn params_yaml(&self) -> String {
        let values = output::played_values(&self.setup.params, &self.state.theta);
        if let PlayerKind::InProcess(base) = &self.cfg.engines[0].kind {
            let mut p = (**base).clone();
            if values.iter().all(|(n, v)| p.set_by_name(n, v).is_ok()) {
                return format!(
                    "# tuned by karsinta tune spsa ({} iterations)\n{}",
                    self.state.applied,
                    p.diff_yaml(&karsinta_engine::Params::default())
                );
            }
        }
        output::params_yaml(&self.setup.params, &self.state.theta)
    }

    /// The `--verify` match: the tuned values against the start values,
    /// same engine, time control, openings and concurrency, with the
    /// `verify:` SPRT (default elo0 0, elo1 5, at most 4000 games).
    pub fn verify_config(&self) -> Result<MatchConfig, SessionError> {
        let start: Vec<f64> = self.setup.params.iter().map(|p| p.start).collect();
        let engine = self.cfg.resolved().engines[0].clone();
        let base_name = engine
            .name
            .strip_suffix("-plus")
            .unwrap_or(&engine.name)
            .to_string();
        let in_process = matches!(self.cfg.engines[0].kind, PlayerKind::InProcess(_));
        let engines = [("tuned", &self.state.theta), ("start", &start)]
            .into_iter()
            .map(|(side, values)| {
                let mut e = engine.clone();
                e.name = format!("{base_name}-{side}");
                let values = output::played_values(&self.setup.params, values);
                for (n, v) in values {
                    let key = serde_yaml::Value::String(n);
                    let value = serde_yaml::from_str::<serde_yaml::Value>(&v)
                        .unwrap_or(serde_yaml::Value::String(v));
                    if in_process {
                        e.params
                            .get_or_insert_with(Default::default)
                            .insert(key, value);
                    } else if let serde_yaml::Value::String(k) = key {
                        e.options.insert(k, value);
                    }
                }
                e
            })
            .collect();
        let sprt = self.setup.verify.clone().unwrap_or(RawSprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
            max_games: None,
        });
        let games = sprt.max_games.unwrap_or(DEFAULT_VERIFY_GAMES);
        let name = format!("{}-verify", self.cfg.name);
        Ok(self
            .cfg
            .without_section(SECTION)
            .with_name(&name)?
            .with_engines(engines)?
            .with_games(games)?
            .with_sprt(sprt)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `--verify` match is the config a user would write for it: the
    /// tuned and the start values as two in-process engines, the tuning
    /// config's time control and seed, the default verify SPRT.
    #[test]
    fn verify_config_is_the_written_match() {
        let dir = tempfile::tempdir().unwrap();
        let tune = dir.path().join("tune.yaml");
        std::fs::write(
            &tune,
            "name: t\nengines:\n  - name: k\n    type: inprocess\ntime_control: nodes=600\nseed: 3\n\
             spsa:\n  iterations: 4\n  pairs_per_iteration: 2\n  params:\n    null_move_r: { start: 4 }\n    \
             material_knight_mg: { start: 200, c_end: 100, r_end: 0.02 }\n",
        )
        .unwrap();
        let mut s = Session::create(&tune, &dir.path().join("run"), None, Some(1)).unwrap();
        s.state.theta = vec![2.0, 260.0];
        let verify = s.verify_config().unwrap();
        let written = format!(
            "name: t-verify\nengines:\n  - {{ name: k-tuned, type: inprocess, params: {{ null_move_r: 2, material_knight_mg: 260 }} }}\n  \
             - {{ name: k-start, type: inprocess, params: {{ null_move_r: 4, material_knight_mg: 200 }} }}\n\
             time_control: nodes=600\nseed: 3\nconcurrency: 1\ngames: {DEFAULT_VERIFY_GAMES}\n\
             sprt: {{ elo0: 0, elo1: 5 }}\n"
        );
        let file = MatchConfig::from_yaml(&written, &tune, &Overrides::default()).unwrap();
        assert_eq!(verify.resolved(), file.resolved());
        assert_eq!(
            crate::run::config_fingerprint(&verify),
            crate::run::config_fingerprint(&file)
        );
        assert_eq!(verify.engines, file.engines);
        assert_eq!((verify.games, verify.sprt), (file.games, file.sprt));
        assert_eq!(verify.name, "t-verify");
    }
}
