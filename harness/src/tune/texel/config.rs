//! The `karsinta tune texel` config: [`RawTexelConfig`] as written (serde,
//! unknown keys refused) -> [`TexelConfig`] (absolute paths, defaults
//! filled, ranges and weight names checked). The resolved config is written
//! into the run folder in the same format, which `--resume` reloads.

use std::path::{Path, PathBuf};

use karsinta_engine::eval::weights::EvalWeights;
use karsinta_engine::Params;
use serde::{Deserialize, Serialize};

use super::tuner::Optimizer;
use crate::config::{ConfigError, RawAdjudication, RawOpenings, RawSprt};

/// The config file as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTexelConfig {
    /// Run name (results folder prefix); default: the file stem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Dataset written by `karsinta tune texel-data` (relative to this file).
    pub dataset: String,
    /// Starting parameter file (relative to this file); default: the
    /// engine's built-in weights. Its search parameters are kept in the
    /// tuned file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// Weights to tune, by scalar name or name prefix (`material_`,
    /// `psqt_knight`, `tempo_mg`); default: every evaluation weight.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tune: Vec<String>,
    /// Weights kept fixed (names or prefixes), applied after `tune`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// `adam` (default) or `adagrad`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimizer: Option<Optimizer>,
    /// Step size in centipawns (default 1 for Adam, 5 for AdaGrad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning_rate: Option<f64>,
    /// Passes over the training positions.
    pub epochs: usize,
    /// Share of positions held out for the validation loss (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_fraction: Option<f64>,
    /// Seed of the validation split (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Worker threads (default: number of cores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Checkpoint every this many epochs (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_every: Option<usize>,
    /// Fixed K instead of fitting it on the starting weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<f64>,
    /// Weights whose term occurs in fewer training positions than this stay
    /// fixed (default: 0.1% of the training positions). Adam moves a weight
    /// seen in a handful of positions as far as a common one, so rare
    /// weights otherwise fit noise by hundreds of centipawns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_positions: Option<usize>,
    /// L2 pull of every tuned weight toward its starting value, added to the
    /// gradient as `2 * regularization * (w - start)` (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regularization: Option<f64>,
    /// The `--verify` match: tuned against starting weights, in-process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<RawVerify>,
}

/// The verification match as written (keys as in a match config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVerify {
    /// Limit of each game: `nodes=N`, `BASE+INC`, ... (as a match config's `time_control`).
    pub time_control: String,
    /// Opening suite (as a match config's `openings:`; default the standard position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<RawOpenings>,
    /// Games played at once (default: number of cores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Seed of the opening order (default: random).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The SPRT of tuned against starting weights (as a match config's `sprt:`).
    pub sprt: RawSprt,
    /// Adjudication (as a match config's `adjudication:`; default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<RawAdjudication>,
}

/// A validated Texel config.
#[derive(Clone, Debug)]
pub struct TexelConfig {
    /// Run name (`name`, default the file stem).
    pub name: String,
    /// The file it came from.
    pub path: PathBuf,
    /// The dataset file (`dataset`), absolute.
    pub dataset: PathBuf,
    /// The starting parameter file (`start`), absolute; `None` = built-in weights.
    pub start: Option<PathBuf>,
    /// The starting parameter set (loaded from `start`).
    pub start_params: Params,
    /// Weight names or prefixes to tune (`tune`); empty = every weight.
    pub tune: Vec<String>,
    /// Weight names or prefixes kept fixed (`exclude`).
    pub exclude: Vec<String>,
    /// Per scalar of [`EvalWeights::specs`]: whether it is tuned.
    pub tuned: Vec<bool>,
    /// `adam` or `adagrad` (`optimizer`, default Adam).
    pub optimizer: Optimizer,
    /// Step size in centipawns (`learning_rate`; default 1 for Adam, 5 for AdaGrad).
    pub learning_rate: f64,
    /// Passes over the training positions (`epochs`).
    pub epochs: usize,
    /// Share of positions held out for the validation loss (`validation_fraction`, default 0.1).
    pub validation_fraction: f64,
    /// Seed of the validation split (`seed`, default 1).
    pub seed: u64,
    /// Worker threads (`threads`, default the number of cores).
    pub threads: usize,
    /// Checkpoint every this many epochs (`checkpoint_every`, default 50).
    pub checkpoint_every: usize,
    /// Fixed sigmoid scale K (`k`); `None` = fitted on the starting weights.
    pub k: Option<f64>,
    /// `min_positions` as written; `None`: 0.1% of the training positions.
    pub min_positions: Option<usize>,
    /// L2 pull toward the starting values (`regularization`, default 0).
    pub regularization: f64,
    /// With absolute opening path.
    pub verify: Option<RawVerify>,
}

fn invalid(path: &Path, key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        key: key.to_string(),
        message: message.into(),
    }
}

/// Scalars of the weight table selected by names or prefixes; an entry
/// that selects nothing is an error naming it.
pub fn select_weights(
    patterns: &[String],
    path: &Path,
    key: &str,
) -> Result<Vec<bool>, ConfigError> {
    let specs = EvalWeights::specs();
    let mut sel = vec![false; specs.len()];
    for (n, p) in patterns.iter().enumerate() {
        let mut any = false;
        for (i, s) in specs.iter().enumerate() {
            if s.name.starts_with(p.as_str()) {
                sel[i] = true;
                any = true;
            }
        }
        if !any {
            return Err(invalid(
                path,
                &format!("{key}[{n}]"),
                format!(
                    "'{p}' names no evaluation weight (see `karsinta-engine params --spsa --eval`)"
                ),
            ));
        }
    }
    Ok(sel)
}

impl TexelConfig {
    /// Read and resolve the config file `path`.
    pub fn load(path: &Path) -> Result<TexelConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let raw: RawTexelConfig = serde_yaml::from_str(&text).map_err(|e| ConfigError::Syntax {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Self::resolve(raw, path)
    }

    /// Resolve `raw`, read from `path` (relative paths are against its folder).
    pub fn resolve(raw: RawTexelConfig, path: &Path) -> Result<TexelConfig, ConfigError> {
        let base = path.parent().unwrap_or(Path::new("."));
        let abs = |p: &str| {
            let p = base.join(p);
            std::path::absolute(&p).unwrap_or(p)
        };
        let name = raw.name.clone().unwrap_or_else(|| {
            path.file_stem()
                .map_or("texel".into(), |s| s.to_string_lossy().into_owned())
        });
        let dataset = abs(&raw.dataset);
        let start = raw.start.as_deref().map(abs);
        let start_params = match &start {
            Some(p) => Params::load_yaml(p).map_err(|e| invalid(path, "start", e.to_string()))?,
            None => Params::default(),
        };
        let mut tuned = if raw.tune.is_empty() {
            vec![true; EvalWeights::specs().len()]
        } else {
            select_weights(&raw.tune, path, "tune")?
        };
        let excluded = select_weights(&raw.exclude, path, "exclude")?;
        for (t, x) in tuned.iter_mut().zip(excluded) {
            *t &= !x;
        }
        if !tuned.iter().any(|&t| t) {
            return Err(invalid(path, "exclude", "no weight is left to tune"));
        }
        let optimizer = raw.optimizer.unwrap_or(Optimizer::Adam);
        let learning_rate = raw.learning_rate.unwrap_or(match optimizer {
            Optimizer::Adam => 1.0,
            Optimizer::Adagrad => 5.0,
        });
        if !(learning_rate > 0.0 && learning_rate.is_finite()) {
            return Err(invalid(path, "learning_rate", "must be a positive number"));
        }
        if raw.epochs == 0 {
            return Err(invalid(path, "epochs", "must be at least 1"));
        }
        let validation_fraction = raw.validation_fraction.unwrap_or(0.1);
        if !(0.0..0.9).contains(&validation_fraction) {
            return Err(invalid(path, "validation_fraction", "must be in [0, 0.9)"));
        }
        let threads = match raw.threads {
            Some(0) => return Err(invalid(path, "threads", "must be at least 1")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let checkpoint_every = raw.checkpoint_every.unwrap_or(50);
        if checkpoint_every == 0 {
            return Err(invalid(path, "checkpoint_every", "must be at least 1"));
        }
        if let Some(k) = raw.k {
            if !(k > 0.0 && k.is_finite()) {
                return Err(invalid(path, "k", "must be a positive number"));
            }
        }
        let regularization = raw.regularization.unwrap_or(0.0);
        if !(regularization >= 0.0 && regularization.is_finite()) {
            return Err(invalid(path, "regularization", "must be a number >= 0"));
        }
        let verify = match raw.verify.clone() {
            Some(mut v) => {
                if let Some(o) = &mut v.openings {
                    o.file = abs(&o.file).display().to_string();
                }
                Some(v)
            }
            None => None,
        };
        Ok(TexelConfig {
            name,
            path: path.to_path_buf(),
            dataset,
            start,
            start_params,
            tune: raw.tune,
            exclude: raw.exclude,
            tuned,
            optimizer,
            learning_rate,
            epochs: raw.epochs,
            validation_fraction,
            seed: raw.seed.unwrap_or(1),
            threads,
            checkpoint_every,
            k: raw.k,
            min_positions: raw.min_positions,
            regularization,
            verify,
        })
    }

    /// The resolved config in the file format: absolute paths, every
    /// default written out.
    pub fn resolved_yaml(&self) -> String {
        let raw = RawTexelConfig {
            name: Some(self.name.clone()),
            dataset: self.dataset.display().to_string(),
            start: self.start.as_ref().map(|p| p.display().to_string()),
            tune: self.tune.clone(),
            exclude: self.exclude.clone(),
            optimizer: Some(self.optimizer),
            learning_rate: Some(self.learning_rate),
            epochs: self.epochs,
            validation_fraction: Some(self.validation_fraction),
            seed: Some(self.seed),
            threads: Some(self.threads),
            checkpoint_every: Some(self.checkpoint_every),
            k: self.k,
            min_positions: self.min_positions,
            regularization: Some(self.regularization),
            verify: self.verify.clone(),
        };
        format!(
            "# karsinta tune texel: resolved config (karsinta tune texel --resume DIR reloads it)\n{}",
            serde_yaml::to_string(&raw).unwrap_or_default()
        )
    }
}
