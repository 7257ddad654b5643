//! The `spsa:` block of a config: which parameters, their ranges and
//! steps, the schedule's constants and the verification test. Parameters
//! the engine's table knows take their defaults from it (start from the
//! engine's configured value, range, `c_end` = the table's SPSA step,
//! `r_end` 0.002); an external engine's parameters need them spelled out.
//!
//! ```yaml
//! spsa:
//!   iterations: 300
//!   pairs_per_iteration: 4
//!   params:
//!     null_move_r: { start: 6 }
//!     futility_margin_cp_d1: { start: 500, c_end: 30 }
//!   openbench: |                 # or / also: OpenBench input lines
//!     MyOption, int, 100, 0, 200, 10, 0.002
//! ```

use std::collections::HashSet;
use std::path::Path;

use karsinta_engine::params::ParamKind;
use karsinta_engine::Params;
use serde::Deserialize;

use super::schedule::{
    Gains, ParamDef, DEFAULT_ALPHA, DEFAULT_A_RATIO, DEFAULT_GAMMA, DEFAULT_R_END,
};
use crate::config::{ConfigError, RawSprt};
use crate::players::{PlayerKind, PlayerSpec};

/// Pairs per iteration when not given (OpenBench's default).
pub const DEFAULT_PAIRS_PER_ITERATION: u32 = 8;

/// The `spsa:` block as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpsa {
    /// Planned iterations N (`--iterations` replaces it).
    pub iterations: u64,
    /// Game pairs per iteration (default [`DEFAULT_PAIRS_PER_ITERATION`]).
    #[serde(default)]
    pub pairs_per_iteration: Option<u32>,
    /// Decay exponent of the step (default [`DEFAULT_ALPHA`], 0.602).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Decay exponent of the perturbation (default [`DEFAULT_GAMMA`], 0.101).
    #[serde(default)]
    pub gamma: Option<f64>,
    /// Stability constant; default 10% of the iterations.
    #[serde(default, rename = "A")]
    pub big_a: Option<f64>,
    /// Seed of the perturbations (default: the config's seed).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Iterations in flight at once (default: enough to keep every game
    /// slot busy: ceil(concurrency / pairs_per_iteration)).
    #[serde(default)]
    pub window: Option<u64>,
    /// Parameter name -> overrides (an empty value takes every default).
    #[serde(default)]
    pub params: Option<serde_yaml::Mapping>,
    /// OpenBench input lines: `name, int|float, start, min, max, c_end, r_end`.
    #[serde(default)]
    pub openbench: Option<String>,
    /// The SPRT of `--verify` (tuned vs start); default elo0 0, elo1 5.
    #[serde(default)]
    pub verify: Option<RawSprt>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParam {
    #[serde(default)]
    start: Option<f64>,
    #[serde(default)]
    min: Option<f64>,
    #[serde(default)]
    max: Option<f64>,
    #[serde(default)]
    c_end: Option<f64>,
    #[serde(default)]
    r_end: Option<f64>,
    /// `int` (default) or `float`.
    #[serde(default, rename = "type")]
    kind: Option<String>,
}

/// A checked `spsa:` block.
#[derive(Clone, Debug)]
pub struct SpsaSetup {
    /// The tuned parameters, from `params` and `openbench`, checked against the engine's options.
    pub params: Vec<ParamDef>,
    /// Planned iterations (`spsa.iterations`).
    pub iterations: u64,
    /// Game pairs per iteration (`spsa.pairs_per_iteration`).
    pub pairs_per_iteration: u32,
    /// Decay exponent of the step (`spsa.alpha`).
    pub alpha: f64,
    /// Decay exponent of the perturbation (`spsa.gamma`).
    pub gamma: f64,
    /// `None`: 10% of the iterations (recomputed when a run is extended).
    pub big_a: Option<f64>,
    /// Seed of the perturbations (`spsa.seed`); `None` = the config's seed.
    pub seed: Option<u64>,
    /// Iterations in flight at once (`spsa.window`); `None`: [`SpsaSetup::window_for`].
    pub window: Option<u64>,
    /// The SPRT of `--verify` (`spsa.verify`); `None` = elo0 0, elo1 5.
    pub verify: Option<RawSprt>,
}

impl SpsaSetup {
    /// The schedule's constants for a run of `iterations`.
    pub fn gains(&self, iterations: u64) -> Gains {
        Gains {
            iterations,
            alpha: self.alpha,
            gamma: self.gamma,
            big_a: self.big_a.unwrap_or(DEFAULT_A_RATIO * iterations as f64),
        }
    }

    /// The window for `concurrency` game slots unless the block sets one.
    pub fn window_for(&self, concurrency: usize) -> u64 {
        self.window.unwrap_or_else(|| {
            (concurrency as u64)
                .div_ceil(u64::from(self.pairs_per_iteration))
                .max(1)
        })
    }
}

fn invalid(path: &Path, key: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        key: key.into(),
        message: message.into(),
    }
}

/// Check the block against the tuned engine `engine` (`path` names the
/// config in errors).
pub fn resolve(raw: &RawSpsa, engine: &PlayerSpec, path: &Path) -> Result<SpsaSetup, ConfigError> {
    if raw.iterations == 0 {
        return Err(invalid(path, "spsa.iterations", "must be at least 1"));
    }
    let pairs = raw
        .pairs_per_iteration
        .unwrap_or(DEFAULT_PAIRS_PER_ITERATION);
    if pairs == 0 {
        return Err(invalid(
            path,
            "spsa.pairs_per_iteration",
            "must be at least 1",
        ));
    }
    if raw.window == Some(0) {
        return Err(invalid(path, "spsa.window", "must be at least 1"));
    }
    let alpha = raw.alpha.unwrap_or(DEFAULT_ALPHA);
    let gamma = raw.gamma.unwrap_or(DEFAULT_GAMMA);
    for (key, v) in [("spsa.alpha", alpha), ("spsa.gamma", gamma)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(invalid(path, key, format!("{v} is not a positive number")));
        }
    }
    if let Some(a) = raw.big_a.filter(|a| !(a.is_finite() && *a >= 0.0)) {
        return Err(invalid(path, "spsa.A", format!("{a} is not a number >= 0")));
    }

    let mut params: Vec<ParamDef> = Vec::new();
    let mut seen = HashSet::new();
    if let Some(map) = &raw.params {
        for (k, v) in map {
            let Some(name) = k.as_str() else {
                return Err(invalid(
                    path,
                    "spsa.params",
                    format!("{k:?} is not a parameter name"),
                ));
            };
            let key = format!("spsa.params.{name}");
            let p: RawParam = match v {
                serde_yaml::Value::Null => RawParam::default(),
                v => serde_yaml::from_value(v.clone())
                    .map_err(|e| invalid(path, &key, e.to_string()))?,
            };
            let integer = match p.kind.as_deref() {
                None | Some("int") => true,
                Some("float") => false,
                Some(other) => {
                    return Err(invalid(
                        path,
                        format!("{key}.type"),
                        format!("'{other}': use int or float"),
                    ))
                }
            };
            params.push(param(name, &p, integer, engine, path, &key)?);
        }
    }
    if let Some(text) = &raw.openbench {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let key = format!("spsa.openbench line {}", i + 1);
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if f.len() != 7 {
                return Err(invalid(
                    path,
                    &key,
                    format!("'{line}': expected name, int|float, start, min, max, c_end, r_end"),
                ));
            }
            let integer = match f[1] {
                "int" => true,
                "float" => false,
                other => return Err(invalid(path, &key, format!("'{other}': use int or float"))),
            };
            let mut nums = [0.0; 5];
            for (slot, text) in nums.iter_mut().zip(&f[2..]) {
                *slot = text
                    .parse()
                    .map_err(|_| invalid(path, &key, format!("'{text}' is not a number")))?;
            }
            let p = RawParam {
                start: Some(nums[0]),
                min: Some(nums[1]),
                max: Some(nums[2]),
                c_end: Some(nums[3]),
                r_end: Some(nums[4]),
                kind: None,
            };
            params.push(param(f[0], &p, integer, engine, path, &key)?);
        }
    }
    if params.is_empty() {
        return Err(invalid(
            path,
            "spsa.params",
            "no parameters to tune (give params or openbench lines)",
        ));
    }
    for p in &params {
        if !seen.insert(p.name.clone()) {
            return Err(invalid(
                path,
                format!("spsa.params.{}", p.name),
                "listed twice",
            ));
        }
    }
    Ok(SpsaSetup {
        params,
        iterations: raw.iterations,
        pairs_per_iteration: pairs,
        alpha,
        gamma,
        big_a: raw.big_a,
        seed: raw.seed,
        window: raw.window,
        verify: raw.verify.clone(),
    })
}

/// One parameter with its defaults filled in and checked.
fn param(
    name: &str,
    p: &RawParam,
    integer: bool,
    engine: &PlayerSpec,
    path: &Path,
    key: &str,
) -> Result<ParamDef, ConfigError> {
    let in_process = match &engine.kind {
        PlayerKind::InProcess(params) => Some(params),
        _ => None,
    };
    // The engine's table: required for the in-process engine, defaults for
    // an external one that happens to be karsinta-engine.
    let spec = Params::spec(name);
    if in_process.is_some() {
        match spec {
            None => {
                return Err(invalid(
                    path,
                    key,
                    format!("'{name}' is not a parameter of karsinta-engine"),
                ))
            }
            Some(s) if !s.tunable() || !integer => {
                return Err(invalid(
                    path,
                    key,
                    format!("'{name}' is not an integer parameter (switches are for A/B tests)"),
                ))
            }
            Some(_) => {}
        }
    }
    let spec = spec.filter(|s| s.kind == ParamKind::Int);
    let need = |v: Option<f64>, what: &str, table: Option<f64>| {
        v.or(table).ok_or_else(|| {
            invalid(
                path,
                format!("{key}.{what}"),
                "required (not a karsinta-engine parameter)",
            )
        })
    };
    let current = in_process
        .and_then(|params| params.get_by_name(name))
        .map(f64::from)
        .or_else(|| spec.map(|s| f64::from(s.default)));
    let start = need(p.start, "start", current)?;
    let min = need(p.min, "min", spec.map(|s| f64::from(s.min)))?;
    let max = need(p.max, "max", spec.map(|s| f64::from(s.max)))?;
    let c_end = need(p.c_end, "c_end", spec.map(|s| s.c_end))?;
    let r_end = p.r_end.or(spec.map(|s| s.r_end)).unwrap_or(DEFAULT_R_END);
    if !(min.is_finite() && max.is_finite()) || min >= max {
        return Err(invalid(
            path,
            key,
            format!("min {min} must be below max {max}"),
        ));
    }
    if !(min..=max).contains(&start) {
        return Err(invalid(
            path,
            format!("{key}.start"),
            format!("{start} is outside {min}..={max}"),
        ));
    }
    if let (Some(s), Some(_)) = (spec, in_process) {
        if min < f64::from(s.min) || max > f64::from(s.max) {
            return Err(invalid(
                path,
                key,
                format!(
                    "range {min}..={max} exceeds the engine's {}..={}",
                    s.min, s.max
                ),
            ));
        }
    }
    for (what, v) in [("c_end", c_end), ("r_end", r_end)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(invalid(
                path,
                format!("{key}.{what}"),
                format!("{v} must be positive"),
            ));
        }
    }
    Ok(ParamDef {
        name: name.to_string(),
        start,
        min,
        max,
        c_end,
        r_end,
        integer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn in_process() -> PlayerSpec {
        let mut p = Params::default();
        p.set_by_name("null_move_r", "5").unwrap();
        PlayerSpec {
            name: "k".into(),
            kind: PlayerKind::InProcess(Box::new(p)),
            cmd: Default::default(),
            args: vec![],
            dir: None,
            options: vec![],
            init_timeout: Duration::from_secs(1),
            variant: crate::variant::Variant::Standard,
            stderr_log: None,
            restart: false,
        }
    }

    fn raw(text: &str) -> RawSpsa {
        serde_yaml::from_str(text).unwrap()
    }

    #[test]
    fn table_defaults_and_overrides() {
        let s = resolve(
            &raw("iterations: 100\nparams:\n  null_move_r:\n  futility_margin_cp_d1: { start: 400, c_end: 40 }\n"),
            &in_process(),
            Path::new("c.yaml"),
        )
        .unwrap();
        assert_eq!(s.pairs_per_iteration, DEFAULT_PAIRS_PER_ITERATION);
        let nm = &s.params[0];
        assert_eq!(
            (
                nm.name.as_str(),
                nm.start,
                nm.min,
                nm.max,
                nm.c_end,
                nm.r_end
            ),
            ("null_move_r", 5.0, 1.0, 6.0, 1.0, 0.002)
        );
        let f = &s.params[1];
        assert_eq!((f.start, f.min, f.max, f.c_end), (400.0, 20.0, 600.0, 40.0));
        assert_eq!(s.gains(100).big_a, 10.0);
        assert_eq!(s.window_for(2), 1);
        assert_eq!(s.window_for(17), 3);
    }

    #[test]
    fn openbench_lines() {
        let mut e = in_process();
        e.kind = PlayerKind::Uci;
        let s = resolve(
            &raw("iterations: 10\nopenbench: |\n  MyOpt, int, 100, 0, 200, 10, 0.002\n  Other, float, 0.5, 0, 1, 0.1, 0.003\n"),
            &e,
            Path::new("c.yaml"),
        )
        .unwrap();
        assert_eq!(s.params.len(), 2);
        assert!(s.params[0].integer && !s.params[1].integer);
        assert_eq!(s.params[1].r_end, 0.003);
    }

    #[test]
    fn errors_name_the_key() {
        let e = in_process();
        let err = |text: &str| {
            resolve(&raw(text), &e, Path::new("c.yaml"))
                .unwrap_err()
                .to_string()
        };
        assert!(err("iterations: 10\nparams: { nope: }\n").contains("spsa.params.nope"));
        assert!(
            err("iterations: 10\nparams: { null_move_r: { start: 9 } }\n")
                .contains("spsa.params.null_move_r.start")
        );
        assert!(err("iterations: 10\nparams: { null_move_r: { max: 60 } }\n").contains("exceeds"));
        assert!(err("iterations: 10\n").contains("no parameters"));
        assert!(err("iterations: 10\nopenbench: \"x, int, 1\"\n").contains("spsa.openbench line 1"));
        let mut uci = in_process();
        uci.kind = PlayerKind::Uci;
        let msg = resolve(
            &raw("iterations: 5\nparams: { Foo: { start: 1 } }\n"),
            &uci,
            Path::new("c.yaml"),
        )
        .unwrap_err()
        .to_string();
        assert!(msg.contains("spsa.params.Foo.min"), "{msg}");
    }
}
