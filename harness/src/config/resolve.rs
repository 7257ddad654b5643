//! Resolving a match config. YAML flows one way: [`RawConfig`] (serde,
//! `deny_unknown_fields`, exactly what the user wrote) -> command-line
//! [`Overrides`] -> validation -> [`MatchConfig`] (absolute paths, checked
//! ranges, parsed time control, engine [`PlayerSpec`]s). Every error names
//! the file and the key. The resolved config is written into the run folder
//! as a normal config file ([`MatchConfig::resolved_yaml`]) so that
//! `--resume` reloads it with the same loader.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::colours::{resolve_colours, ColourSchedule};
use super::error::{invalid, ConfigError};
use super::output::{resolve_output, OutputStyle};
use super::schema::{RawConfig, RawEngine, RawKind, TournamentKind};
use super::tablebases::resolve_tablebases;
use crate::formats::pgn_write::{PgnOptions, UtcTime};
use crate::openings::{OpeningFormat, OpeningOrder};
use crate::play::clock::{TimeControl, TimeControlError};
use crate::play::game::{Adjudication, GameSettings};
use crate::players::{EngineError, InProcessPlayer, PlayerKind, PlayerSpec};
use crate::stats::SprtParams;
use crate::variant::Variant;

/// Default extra time a move may take beyond its limit before it loses.
pub const DEFAULT_TIME_MARGIN_MS: u64 = 100;

/// Default watchdog for node- and depth-limited moves.
pub const DEFAULT_WATCHDOG_MS: u64 = 30_000;

/// Default time an engine gets for its handshake.
pub const DEFAULT_INIT_TIMEOUT_MS: u64 = 10_000;

/// Command-line values that replace config keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// `--games`: games per pairing, replacing `games`.
    pub games: Option<u64>,
    /// `--concurrency`: games at once, replacing `concurrency`.
    pub concurrency: Option<usize>,
    /// `--seed`: replaces `seed`.
    pub seed: Option<u64>,
    /// `--tc`: replaces `time_control` (same syntax, checked by [`Overrides::validate`]).
    pub time_control: Option<String>,
}

impl Overrides {
    /// Check the values themselves, so a bad flag is reported as the flag.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let flag = |flag: &str, message: String| ConfigError::Flag {
            flag: flag.to_string(),
            message,
        };
        if let Some(g) = self.games {
            if g == 0 {
                return Err(flag("--games", "0: give at least one game".to_string()));
            }
        }
        if let Some(c) = self.concurrency {
            if !(1..=1024).contains(&c) {
                return Err(flag("--concurrency", format!("{c} is not in 1..=1024")));
            }
        }
        if let Some(tc) = &self.time_control {
            tc.parse::<TimeControl>()
                .map_err(|e| flag("--tc", e.to_string()))?;
        }
        Ok(())
    }
}

/// Resolved opening settings.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningsConfig {
    /// The suite file (`openings.file`), absolute.
    pub path: PathBuf,
    /// `openings.format`; `None` = from the file's extension.
    pub format: Option<OpeningFormat>,
    /// PGN only: the plies of each game kept (`openings.plies`); `None` = the whole game.
    pub plies: Option<usize>,
    /// `openings.order`: sequential, or shuffled by the seed.
    pub order: OpeningOrder,
    /// The index in the order of the first opening played (`openings.start`, 0 by default).
    pub start: usize,
    /// Expected [`crate::openings::fingerprint`] of the file, if recorded.
    pub checksum: Option<String>,
    /// Expected number of openings, if recorded.
    pub entries: Option<usize>,
}

/// A validated match configuration.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Run name: results folder prefix and PGN `Event` (`name`, default the file stem).
    pub name: String,
    /// The file it came from.
    pub path: PathBuf,
    /// The players, in config order (the first is the gauntlet's challenger).
    pub engines: Vec<PlayerSpec>,
    /// How the engines are paired (`tournament`).
    pub tournament: TournamentKind,
    /// Games per pairing (even for colour-swapped pairs). With SPRT: the cap.
    pub games: u64,
    /// Games per opening and who is White in each.
    pub colours: ColourSchedule,
    /// Games played at once (`concurrency`, default the number of cores).
    pub concurrency: usize,
    /// Seed of the opening order, given or drawn and recorded (`seed`).
    pub seed: u64,
    /// The rules of each game: time controls, margin, watchdog, adjudication.
    pub settings: GameSettings,
    /// `None` = every pair starts from the standard position.
    pub openings: Option<OpeningsConfig>,
    /// The SPRT that may stop the run early (`sprt`); `None` = play all `games`.
    pub sprt: Option<SprtParams>,
    /// See [`RawConfig::max_start_failures`].
    pub max_start_failures: u32,
    /// How `games.pgn` is written (see [`RawConfig::pgn`]).
    pub pgn: PgnOptions,
    /// Where each game's final position is written (see [`RawConfig::epd`]).
    pub epd: Option<EpdOut>,
    /// Whose result text the run prints (see [`RawConfig::output`]).
    pub output: OutputStyle,
    /// `checks.strict` (fastchess's `-strict`): the run exits with status 1
    /// at its end when any PV warning was raised. `checks.mate_pvs` is
    /// [`GameSettings::mate_pvs`].
    pub strict: bool,
    /// The config with absolute paths, overrides, the chosen seed and every
    /// default filled in, so that a run can be repeated or resumed exactly
    /// ([`MatchConfig::resolved`]). Changed only through the methods of
    /// `derive.rs`, which keep it and the values above in step.
    pub(super) resolved: RawConfig,
}

fn absolute(base: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    // Canonical when it exists (cleaner paths in the resolved config).
    std::fs::canonicalize(&joined).unwrap_or(joined)
}

/// The parameters that differ from the embedded defaults, as YAML values.
fn params_mapping(params: &karsinta_engine::Params) -> Option<serde_yaml::Mapping> {
    use karsinta_engine::params::ParamKind;
    let defaults = karsinta_engine::Params::default();
    let mut map = serde_yaml::Mapping::new();
    for (i, spec) in karsinta_engine::Params::specs().iter().enumerate() {
        let v = params.get(i);
        if v == defaults.get(i) {
            continue;
        }
        let value = match spec.kind {
            ParamKind::Int => serde_yaml::Value::Number(v.into()),
            ParamKind::Bool => serde_yaml::Value::Bool(v != 0),
            ParamKind::Choice(_) => serde_yaml::Value::String(spec.format_value(v)),
        };
        map.insert(serde_yaml::Value::String(spec.name.clone()), value);
    }
    (!map.is_empty()).then_some(map)
}

fn yaml_text(v: &serde_yaml::Value) -> Option<String> {
    match v {
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

impl MatchConfig {
    /// The run folder when none is given: `results/<name>-<UTC time>`.
    pub fn default_out_dir(&self) -> PathBuf {
        PathBuf::from("results").join(format!("{}-{}", self.name, UtcTime::now().compact()))
    }

    /// A config built in code, without a file: `engines` as values (an
    /// in-process player's parameters, an external engine's command and
    /// options), the time control, the games per pairing and the seed. It
    /// is validated like a file (same errors, keyed as in YAML) and its
    /// `resolved` form is the equivalent YAML. Other settings keep their
    /// defaults; set them on `raw` through [`MatchConfig::resolve`] instead
    /// when more is needed.
    pub fn from_parts(
        name: &str,
        engines: &[PlayerSpec],
        time_control: &str,
        games: u64,
        seed: u64,
    ) -> Result<MatchConfig, ConfigError> {
        let raw_engines = engines
            .iter()
            .map(|e| {
                let (kind, cmd, params) = match &e.kind {
                    PlayerKind::Uci => (RawKind::Uci, Some(e.cmd.display().to_string()), None),
                    PlayerKind::Xboard => {
                        (RawKind::Xboard, Some(e.cmd.display().to_string()), None)
                    }
                    PlayerKind::InProcess(p) => (RawKind::Inprocess, None, params_mapping(p)),
                };
                RawEngine {
                    name: e.name.clone(),
                    kind: Some(kind),
                    cmd,
                    args: e.args.clone(),
                    dir: e.dir.as_ref().map(|d| d.display().to_string()),
                    options: e
                        .options
                        .iter()
                        .map(|(k, v)| (k.clone(), serde_yaml::Value::String(v.clone())))
                        .collect(),
                    init_timeout_ms: Some(e.init_timeout.as_millis() as u64),
                    params_file: None,
                    params,
                    time_control: None,
                    restart: e.restart.then_some(true),
                }
            })
            .collect();
        let raw = RawConfig {
            name: Some(name.to_string()),
            engines: raw_engines,
            tournament: (engines.len() > 2).then_some(TournamentKind::Gauntlet),
            games: Some(games),
            seed: Some(seed),
            time_control: time_control.to_string(),
            ..RawConfig::default()
        };
        Self::resolve(raw, Path::new(name), &Overrides::default())
    }

    /// Read, override and validate a config file that holds no other
    /// command's block.
    pub fn load(path: &Path, overrides: &Overrides) -> Result<MatchConfig, ConfigError> {
        Self::load_with(path, overrides, &[])
    }

    /// [`MatchConfig::load`] for a command that also accepts the blocks
    /// `sections` (its own, and those of commands sharing its configs);
    /// any other key is an error naming it.
    pub fn load_with(
        path: &Path,
        overrides: &Overrides,
        sections: &[&str],
    ) -> Result<MatchConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_yaml_with(&text, path, overrides, sections)
    }

    /// Parse and validate config text; `path` names the file in errors and
    /// relative paths are taken from its folder.
    pub fn from_yaml(
        text: &str,
        path: &Path,
        overrides: &Overrides,
    ) -> Result<MatchConfig, ConfigError> {
        Self::from_yaml_with(text, path, overrides, &[])
    }

    /// [`MatchConfig::from_yaml`] accepting the blocks `sections`.
    pub fn from_yaml_with(
        text: &str,
        path: &Path,
        overrides: &Overrides,
        sections: &[&str],
    ) -> Result<MatchConfig, ConfigError> {
        let raw: RawConfig = serde_yaml::from_str(text).map_err(|e| ConfigError::Syntax {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Self::resolve_with(raw, path, overrides, sections)
    }

    /// Validate a parsed config that holds no other command's block.
    pub fn resolve(
        raw: RawConfig,
        path: &Path,
        overrides: &Overrides,
    ) -> Result<MatchConfig, ConfigError> {
        Self::resolve_with(raw, path, overrides, &[])
    }

    /// Validate a parsed config whose other blocks may be `sections`:
    /// each section in turn, in the order its errors are reported, each
    /// filling its defaults into `raw` so that the resolved config holds
    /// every effective value.
    pub fn resolve_with(
        mut raw: RawConfig,
        path: &Path,
        overrides: &Overrides,
        sections: &[&str],
    ) -> Result<MatchConfig, ConfigError> {
        check_sections(&raw, path, sections)?;
        let base = config_dir(path);
        apply_overrides(&mut raw, overrides)?;
        let name = resolve_name(&mut raw, path)?;
        let engines = resolve_engines(&mut raw.engines, path, &base)?;
        let tournament = resolve_tournament(&mut raw, engines.len(), path)?;
        let tc: TimeControl =
            raw.time_control
                .parse()
                .map_err(|e: crate::play::clock::TimeControlError| {
                    invalid(path, "time_control", e.to_string())
                })?;
        let concurrency = resolve_concurrency(&mut raw, path)?;
        let seed = resolve_seed(&mut raw);
        let sprt = resolve_sprt(&raw, tournament, path)?;
        let colours = resolve_colours(raw.colours.as_ref(), path)?;
        let games = resolve_games(&mut raw, colours, path)?;
        let openings = resolve_openings(&mut raw, path, &base)?;
        let mut settings = resolve_game_settings(&mut raw, tc, path)?;
        // Absent means standard; not filled in, so that the resolved config
        // (and the fingerprint a resumed run checks) of a standard run stays
        // what it was before the key existed.
        settings.variant = raw.variant.unwrap_or_default();
        let mut engines = engines;
        for e in &mut engines {
            e.variant = settings.variant;
        }
        settings.engine_tc = resolve_engine_limits(&mut raw.engines, &engines, tc, path)?;
        settings.adjudication.tablebases =
            resolve_tablebases(raw.tablebases.as_mut(), "tablebases", path, &base)?;
        let max_start_failures = resolve_max_start_failures(&mut raw, path)?;
        // The default stays unwritten: a run's config.yaml is what it was
        // before the key existed.
        let pgn = raw.pgn.unwrap_or_default();
        if pgn == PgnOptions::default() {
            raw.pgn = None;
        }
        let epd = resolve_epd(&mut raw, path, &base)?;
        let output = resolve_output(raw.output.as_mut(), colours.counting(), path)?;
        let checks = raw.checks.unwrap_or_default();
        settings.mate_pvs = checks.mate_pvs.unwrap_or(false);
        Ok(MatchConfig {
            name,
            path: path.to_path_buf(),
            engines,
            tournament,
            games,
            colours,
            concurrency,
            seed,
            settings,
            openings,
            sprt,
            max_start_failures,
            pgn,
            epd,
            output,
            strict: checks.strict.unwrap_or(false),
            resolved: raw,
        })
    }

    /// The block `key` of [`RawConfig::section`] parsed as `T` (which should
    /// deny unknown fields), `None` if the config has none; errors name the
    /// file and the block.
    pub fn section<T: serde::de::DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<T>, ConfigError> {
        match self.resolved.section(key) {
            None | Some(serde_yaml::Value::Null) => Ok(None),
            Some(v) => serde_yaml::from_value(v.clone())
                .map(Some)
                .map_err(|e| invalid(&self.path, key, e.to_string())),
        }
    }

    /// The resolved config as written: what `config.yaml` of a run holds
    /// and the resume fingerprint is taken from.
    pub fn resolved(&self) -> &RawConfig {
        &self.resolved
    }

    /// Number of game pairs per pairing (units of play: single games with
    /// one game per opening).
    pub fn pairs_per_pairing(&self) -> u64 {
        self.games / u64::from(self.colours.games_per_opening)
    }

    /// The resolved config as YAML (reloadable with [`MatchConfig::load`]).
    pub fn resolved_yaml(&self) -> String {
        let body = serde_yaml::to_string(&self.resolved).unwrap_or_default();
        format!(
            "# Resolved by karsinta from {}\n{body}",
            self.path.display()
        )
    }
}

/// The folder relative paths of the config at `path` are taken from
/// (canonical when it exists).
pub(super) fn config_dir(path: &Path) -> PathBuf {
    let base = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .or_else(|| path.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    let base = if base.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        base
    };
    std::fs::canonicalize(&base).unwrap_or(base)
}

/// Every key outside the match schema must be a block the command accepts.
fn check_sections(raw: &RawConfig, path: &Path, accepted: &[&str]) -> Result<(), ConfigError> {
    let Some(key) = raw
        .sections
        .keys()
        .find(|k| !accepted.contains(&k.as_str()))
    else {
        return Ok(());
    };
    let blocks = if accepted.is_empty() {
        String::new()
    } else {
        format!(", or a block of {}", accepted.join(", "))
    };
    Err(invalid(
        path,
        key.as_str(),
        format!(
            "unknown key (expected one of {}{blocks})",
            RawConfig::KEYS.join(", ")
        ),
    ))
}

/// Command-line values replace the file's keys (checked as flags first).
fn apply_overrides(raw: &mut RawConfig, overrides: &Overrides) -> Result<(), ConfigError> {
    overrides.validate()?;
    if let Some(g) = overrides.games {
        let per_opening = raw.colours.as_ref().and_then(|c| c.games_per_opening);
        if per_opening != Some(1) && !g.is_multiple_of(2) {
            return Err(ConfigError::Flag {
                flag: "--games".into(),
                message: format!(
                    "{g} is not a positive even number (games come in pairs, two per opening; colours.games_per_opening: 1 plays each opening once)"
                ),
            });
        }
        raw.games = Some(g);
        // `--games` is the cap of an SPRT too.
        if let Some(s) = raw.sprt.as_mut().filter(|s| s.max_games.is_some()) {
            s.max_games = Some(g);
        }
    }
    if let Some(c) = overrides.concurrency {
        raw.concurrency = Some(c);
    }
    if let Some(s) = overrides.seed {
        raw.seed = Some(s);
    }
    if let Some(tc) = &overrides.time_control {
        raw.time_control = tc.clone();
    }
    Ok(())
}

/// `name`, or the file stem; it names a folder, so no path separators.
pub(super) fn resolve_name(raw: &mut RawConfig, path: &Path) -> Result<String, ConfigError> {
    let name = match &raw.name {
        Some(n) if n.trim().is_empty() => return Err(invalid(path, "name", "must not be empty")),
        Some(n) => n.clone(),
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "match".into()),
    };
    if name.contains(['/', '\\']) {
        return Err(invalid(path, "name", "must not contain path separators"));
    }
    raw.name = Some(name.clone());
    Ok(name)
}

/// `engines`: at least two, names unique, each resolved into a player.
pub(super) fn resolve_engines(
    raw: &mut [RawEngine],
    path: &Path,
    base: &Path,
) -> Result<Vec<PlayerSpec>, ConfigError> {
    if raw.len() < 2 {
        return Err(invalid(path, "engines", "at least two engines are needed"));
    }
    let mut engines: Vec<PlayerSpec> = Vec::new();
    for (i, e) in raw.iter_mut().enumerate() {
        let key = |k: &str| format!("engines[{i}].{k}");
        if e.name.trim().is_empty() {
            return Err(invalid(path, key("name"), "must not be empty"));
        }
        if engines.iter().any(|s| s.name == e.name) {
            return Err(invalid(
                path,
                key("name"),
                format!("'{}' is used by two engines", e.name),
            ));
        }
        engines.push(resolve_engine_entry(e, &key, path, base)?);
    }
    Ok(engines)
}

/// One engine described outside a config file (`karsinta suite --engine`),
/// resolved as a config's `engines:` entry, relative paths from `base`;
/// `key` names its keys in errors (see [`super::engine`]).
pub fn resolve_engine_description(
    mut engine: RawEngine,
    base: &Path,
    key: &dyn Fn(&str) -> String,
) -> Result<PlayerSpec, ConfigError> {
    resolve_engine_entry(&mut engine, key, base, base)
}

/// One engine (`key` names its keys in errors, `path` is the file that
/// describes it, relative paths from `base`); fills its defaults and
/// absolute paths into `e`, so that the resolved description reloads.
pub fn resolve_engine_entry(
    e: &mut RawEngine,
    key: &dyn Fn(&str) -> String,
    path: &Path,
    base: &Path,
) -> Result<PlayerSpec, ConfigError> {
    let kind = e.kind.unwrap_or(RawKind::Uci);
    let mut options = Vec::new();
    for (k, v) in &e.options {
        let text = yaml_text(v).ok_or_else(|| {
            invalid(
                path,
                key(&format!("options.{k}")),
                "must be a string, number or boolean",
            )
        })?;
        options.push((k.clone(), text));
    }
    let init_timeout_ms = e.init_timeout_ms.unwrap_or(DEFAULT_INIT_TIMEOUT_MS);
    e.init_timeout_ms = Some(init_timeout_ms);
    e.kind = Some(kind);
    let init_timeout = Duration::from_millis(init_timeout_ms);
    let dir = e.dir.as_deref().map(|d| absolute(base, d));
    if let Some(d) = &dir {
        e.dir = Some(d.display().to_string());
    }
    let (player_kind, cmd) = match kind {
        RawKind::Inprocess => {
            let params = resolve_inprocess(e, &options, key, path, base)?;
            (PlayerKind::InProcess(Box::new(params)), PathBuf::new())
        }
        RawKind::Uci | RawKind::Xboard => {
            let cmd = resolve_command(e, key, path, base)?;
            let k = if kind == RawKind::Uci {
                PlayerKind::Uci
            } else {
                PlayerKind::Xboard
            };
            (k, cmd)
        }
    };
    Ok(PlayerSpec {
        name: e.name.clone(),
        kind: player_kind,
        cmd,
        args: e.args.clone(),
        dir,
        options,
        init_timeout,
        stderr_log: None,
        variant: Variant::Standard,
        restart: e.restart.unwrap_or(false),
    })
}

/// An in-process engine's parameters: `params_file`, then `params` on top;
/// its `options` checked by the player that will apply them.
fn resolve_inprocess(
    e: &mut RawEngine,
    options: &[(String, String)],
    key: &dyn Fn(&str) -> String,
    path: &Path,
    base: &Path,
) -> Result<karsinta_engine::Params, ConfigError> {
    if e.cmd.is_some() || !e.args.is_empty() {
        return Err(invalid(
            path,
            key("cmd"),
            "an in-process engine has no command",
        ));
    }
    let mut params = karsinta_engine::Params::default();
    if let Some(f) = &e.params_file {
        let p = absolute(base, f);
        params = karsinta_engine::Params::load_yaml(&p)
            .map_err(|err| invalid(path, key("params_file"), err.to_string()))?;
        e.params_file = Some(p.display().to_string());
    }
    if let Some(map) = &e.params {
        for (k, v) in map {
            let Some(name) = k.as_str() else {
                return Err(invalid(
                    path,
                    key("params"),
                    "parameter names must be strings",
                ));
            };
            params.apply_value(name, v).map_err(|err| {
                invalid(
                    path,
                    key(&format!("params.{name}")),
                    crate::players::param_error_text(&err, false),
                )
            })?;
        }
    }
    // The options are checked by the player that will apply them, so a
    // typo is a config error, not a match of forfeits.
    for (k, v) in options {
        let pair = [(k.clone(), v.clone())];
        if let Err(err) = InProcessPlayer::new(e.name.clone(), params.clone(), &pair) {
            let why = match err {
                EngineError::Start(m) => m,
                other => other.to_string(),
            };
            return Err(invalid(
                path,
                key(&format!("options.{k}")),
                format!(
                    "{why} (an in-process engine accepts Hash, Threads (1 to 64), SyzygyPath, \
                     SyzygyProbeLimit (0 to 7) and its parameter names)"
                ),
            ));
        }
    }
    // The effective parameters inline, so that a resumed run does not
    // depend on the parameter file staying the same.
    e.params = params_mapping(&params);
    e.params_file = None;
    Ok(params)
}

/// An external engine's program: a path from the config's folder, or a
/// bare name looked up in `PATH`.
fn resolve_command(
    e: &mut RawEngine,
    key: &dyn Fn(&str) -> String,
    path: &Path,
    base: &Path,
) -> Result<PathBuf, ConfigError> {
    if e.params.is_some() || e.params_file.is_some() {
        return Err(invalid(
            path,
            key("params"),
            "parameters apply to in-process engines only (use options: for external engines)",
        ));
    }
    let Some(cmd) = e.cmd.as_deref().filter(|c| !c.trim().is_empty()) else {
        return Err(invalid(
            path,
            key("cmd"),
            "an external engine needs a command",
        ));
    };
    let resolved = if cmd.contains('/') {
        absolute(base, cmd)
    } else {
        // A bare name is looked up in PATH; unresolved names are kept (the
        // engine then fails to start, as a result).
        super::engine::which(cmd).unwrap_or_else(|| PathBuf::from(cmd))
    };
    e.cmd = Some(resolved.display().to_string());
    Ok(resolved)
}

/// `tournament`: a match for two engines, else gauntlet or round robin.
pub(super) fn resolve_tournament(
    raw: &mut RawConfig,
    engines: usize,
    path: &Path,
) -> Result<TournamentKind, ConfigError> {
    let tournament = match (raw.tournament, engines) {
        (None, 2) => TournamentKind::Match,
        (None, _) => {
            return Err(invalid(
                path,
                "tournament",
                "with more than two engines, choose gauntlet or round_robin",
            ))
        }
        (Some(TournamentKind::Match), n) if n != 2 => {
            return Err(invalid(
                path,
                "tournament",
                format!("match needs exactly two engines, found {n}"),
            ))
        }
        (Some(t), _) => t,
    };
    raw.tournament = Some(tournament);
    Ok(tournament)
}

/// `concurrency`: 1..=1024, the number of cores by default.
fn resolve_concurrency(raw: &mut RawConfig, path: &Path) -> Result<usize, ConfigError> {
    let concurrency = match raw.concurrency {
        Some(0) => return Err(invalid(path, "concurrency", "must be at least 1")),
        Some(c) if c > 1024 => return Err(invalid(path, "concurrency", "must be at most 1024")),
        Some(c) => c,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    raw.concurrency = Some(concurrency);
    Ok(concurrency)
}

/// `seed`, or a random one (recorded, so the run can be repeated).
fn resolve_seed(raw: &mut RawConfig) -> u64 {
    let seed = raw.seed.unwrap_or_else(|| {
        use std::time::{SystemTime, UNIX_EPOCH};
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        (t.as_nanos() as u64) ^ u64::from(std::process::id()).rotate_left(32)
    });
    raw.seed = Some(seed);
    seed
}

/// `sprt`: only for a match between two engines.
pub(super) fn resolve_sprt(
    raw: &RawConfig,
    tournament: TournamentKind,
    path: &Path,
) -> Result<Option<SprtParams>, ConfigError> {
    let Some(s) = &raw.sprt else {
        return Ok(None);
    };
    if tournament != TournamentKind::Match {
        return Err(invalid(
            path,
            "sprt",
            "an SPRT needs a match between exactly two engines",
        ));
    }
    let params = SprtParams {
        elo0: s.elo0,
        elo1: s.elo1,
        alpha: s.alpha,
        beta: s.beta,
        model: s.model,
    };
    params
        .validate()
        .map_err(|e| invalid(path, "sprt", e.to_string()))?;
    Ok(Some(params))
}

/// Games per pairing: `sprt.max_games`, else `games`; positive, and even
/// when the games come in pairs.
pub(super) fn resolve_games(
    raw: &mut RawConfig,
    colours: ColourSchedule,
    path: &Path,
) -> Result<u64, ConfigError> {
    let games_key = if raw.sprt.as_ref().is_some_and(|s| s.max_games.is_some()) {
        "sprt.max_games"
    } else {
        "games"
    };
    let games = raw
        .sprt
        .as_ref()
        .and_then(|s| s.max_games)
        .or(raw.games)
        .ok_or_else(|| invalid(path, "games", "missing (how many games per pairing?)"))?;
    if games == 0 {
        return Err(invalid(path, games_key, "0: give at least one game"));
    }
    if colours.games_per_opening == 2 && !games.is_multiple_of(2) {
        return Err(invalid(
            path,
            games_key,
            format!("{games} is not a positive even number (games come in pairs, two per opening; colours.games_per_opening: 1 plays each opening once)"),
        ));
    }
    raw.games = Some(games);
    Ok(games)
}

/// `openings`: the file must exist and its format be known.
fn resolve_openings(
    raw: &mut RawConfig,
    path: &Path,
    base: &Path,
) -> Result<Option<OpeningsConfig>, ConfigError> {
    let Some(o) = &mut raw.openings else {
        return Ok(None);
    };
    let p = absolute(base, &o.file);
    if !p.is_file() {
        return Err(invalid(
            path,
            "openings.file",
            format!("{} does not exist", p.display()),
        ));
    }
    let detected = crate::openings::format_of_file(&p);
    if o.format.is_none() && detected.is_none() {
        return Err(invalid(
            path,
            "openings.format",
            "cannot tell the format from the file name (or its zip member's): give epd or pgn",
        ));
    }
    if o.plies == Some(0) {
        return Err(invalid(path, "openings.plies", "must be at least 1"));
    }
    if let Some(c) = &o.checksum {
        if !crate::openings::is_fingerprint(c) {
            return Err(invalid(
                path,
                "openings.checksum",
                format!("'{c}' is not fnv1a64: followed by 16 hex digits"),
            ));
        }
    }
    o.file = p.display().to_string();
    o.format = o.format.or(detected);
    o.order = Some(o.order.unwrap_or_default());
    o.start = Some(o.start.unwrap_or(0));
    Ok(Some(OpeningsConfig {
        path: p,
        format: o.format,
        plies: o.plies,
        order: o.order.unwrap_or_default(),
        start: o.start.unwrap_or(0),
        checksum: o.checksum.clone(),
        entries: o.entries,
    }))
}

/// `adjudication`: every rule off unless given, and sane when given.
fn resolve_adjudication(raw: &RawConfig, path: &Path) -> Result<Adjudication, ConfigError> {
    let adj = raw.adjudication.clone().unwrap_or_default();
    if let Some(d) = adj.draw {
        if d.move_count == 0 {
            return Err(invalid(
                path,
                "adjudication.draw.move_count",
                "must be at least 1",
            ));
        }
        if d.score_cp < 0 {
            return Err(invalid(
                path,
                "adjudication.draw.score_cp",
                "must not be negative",
            ));
        }
    }
    if let Some(r) = adj.resign {
        if r.move_count == 0 {
            return Err(invalid(
                path,
                "adjudication.resign.move_count",
                "must be at least 1",
            ));
        }
        if r.score_cp <= 0 {
            return Err(invalid(
                path,
                "adjudication.resign.score_cp",
                "must be positive",
            ));
        }
    }
    if adj.max_moves == Some(0) {
        return Err(invalid(
            path,
            "adjudication.max_moves",
            "must be at least 1",
        ));
    }
    Ok(Adjudication {
        tablebases: None,
        draw: adj.draw,
        resign: adj.resign,
        max_moves: adj.max_moves,
    })
}

/// The rules of one game: the time control, its margin and watchdog
/// (`time_margin_ms`, `watchdog_ms`), and adjudication.
fn resolve_game_settings(
    raw: &mut RawConfig,
    tc: TimeControl,
    path: &Path,
) -> Result<GameSettings, ConfigError> {
    let adjudication = resolve_adjudication(raw, path)?;
    let watchdog_ms = raw.watchdog_ms.unwrap_or(DEFAULT_WATCHDOG_MS);
    if watchdog_ms == 0 {
        return Err(invalid(path, "watchdog_ms", "must be positive"));
    }
    let time_margin_ms = raw.time_margin_ms.unwrap_or(DEFAULT_TIME_MARGIN_MS);
    raw.watchdog_ms = Some(watchdog_ms);
    raw.time_margin_ms = Some(time_margin_ms);
    Ok(GameSettings {
        tc,
        engine_tc: Default::default(),
        margin: Duration::from_millis(time_margin_ms),
        watchdog: Duration::from_millis(watchdog_ms),
        adjudication,
        variant: Variant::Standard,
        wait: Duration::from_millis(raw.game_wait_ms.unwrap_or(0)),
        mate_pvs: false,
    })
}

/// Each engine's own `time_control`, parsed and written in its text form;
/// a limit an engine's protocol cannot send is refused here, naming the key:
/// xboard has no command for a node or depth limit beside a clock.
pub(super) fn resolve_engine_limits(
    raw: &mut [RawEngine],
    engines: &[PlayerSpec],
    tc: TimeControl,
    path: &Path,
) -> Result<BTreeMap<String, TimeControl>, ConfigError> {
    let mut own = BTreeMap::new();
    for (i, (e, spec)) in raw.iter_mut().zip(engines).enumerate() {
        let key = format!("engines[{i}].time_control");
        let limit = match &e.time_control {
            Some(text) => {
                let t: TimeControl = text.parse().map_err(|err: TimeControlError| {
                    invalid(path, key.as_str(), err.to_string())
                })?;
                e.time_control = Some(t.to_string());
                own.insert(e.name.clone(), t);
                (t, key)
            }
            None => (tc, "time_control".to_string()),
        };
        if matches!(spec.kind, PlayerKind::Xboard)
            && matches!(limit.0, TimeControl::Combined { .. })
        {
            return Err(invalid(
                path,
                limit.1,
                format!(
                    "{}: engine '{}' speaks xboard, which has no command for these limits together: give it one limit",
                    limit.0, e.name
                ),
            ));
        }
    }
    Ok(own)
}

/// fastchess's `-epdout`: a file each game's final position is added to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdOut {
    /// Absolute.
    pub path: PathBuf,
    /// Add to the file; `false`: a new run starts it anew (a resumed one
    /// always adds).
    pub append: bool,
}

/// `epd:` with its path absolute and `append` filled in.
fn resolve_epd(
    raw: &mut RawConfig,
    path: &Path,
    base: &Path,
) -> Result<Option<EpdOut>, ConfigError> {
    let Some(e) = raw.epd.as_mut() else {
        return Ok(None);
    };
    if e.file.trim().is_empty() {
        return Err(invalid(path, "epd.file", "must name a file"));
    }
    let file = absolute(base, &e.file);
    if file.is_dir() {
        return Err(invalid(
            path,
            "epd.file",
            format!("{} is a folder, not a file", file.display()),
        ));
    }
    let append = e.append.unwrap_or(true);
    e.file = file.display().to_string();
    e.append = Some(append);
    Ok(Some(EpdOut { path: file, append }))
}

/// `max_start_failures`: at least 1.
fn resolve_max_start_failures(raw: &mut RawConfig, path: &Path) -> Result<u32, ConfigError> {
    let max_start_failures = match raw.max_start_failures {
        Some(0) => return Err(invalid(path, "max_start_failures", "must be at least 1")),
        Some(n) => n,
        None => crate::play::pairs::DEFAULT_MAX_START_FAILURES,
    };
    // Written out like the other defaults; a resume also takes it as the
    // sign of a run folder that must have a fingerprint.json.
    raw.max_start_failures = Some(max_start_failures);
    Ok(max_start_failures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::EloModel;

    const GOOD: &str = "
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
";

    fn load(text: &str) -> Result<MatchConfig, ConfigError> {
        MatchConfig::from_yaml(text, Path::new("/tmp/x/test.yaml"), &Overrides::default())
    }

    fn err(text: &str) -> String {
        load(text).unwrap_err().to_string()
    }

    #[test]
    fn variant_key() {
        let c = load(&format!("{GOOD}variant: chess960\n")).unwrap();
        assert_eq!(c.settings.variant, Variant::Chess960);
        assert!(c.engines.iter().all(|e| e.variant == Variant::Chess960));
        assert!(c.resolved_yaml().contains("variant: chess960"));
        // Absent: standard, and the resolved config does not grow the key.
        let c = load(GOOD).unwrap();
        assert_eq!(c.settings.variant, Variant::Standard);
        assert!(!c.resolved_yaml().contains("variant"));
        let e = err(&format!("{GOOD}variant: atomic\n"));
        assert!(
            e.contains("test.yaml") && e.contains("variant") && e.contains("atomic"),
            "{e}"
        );
    }

    #[test]
    fn loads_and_resolves() {
        let c = load(GOOD).unwrap();
        assert_eq!(c.name, "test");
        assert_eq!(c.tournament, TournamentKind::Match);
        assert_eq!((c.games, c.concurrency, c.seed), (10, 2, 7));
        assert_eq!(c.settings.tc, TimeControl::Nodes(500));
        match &c.engines[1].kind {
            PlayerKind::InProcess(p) => assert_eq!(p.search.null_move_r, 2),
            other => panic!("{other:?}"),
        }
        // The resolved YAML reloads to the same thing.
        let again = MatchConfig::from_yaml(
            &c.resolved_yaml(),
            Path::new("/tmp/y/r.yaml"),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(again.name, "test");
        assert_eq!(again.engines, c.engines);
        assert_eq!(again.seed, 7);
    }

    #[test]
    fn overrides_win() {
        let o = Overrides {
            games: Some(4),
            concurrency: Some(1),
            seed: Some(3),
            time_control: Some("depth=2".into()),
        };
        let c = MatchConfig::from_yaml(GOOD, Path::new("t.yaml"), &o).unwrap();
        assert_eq!((c.games, c.concurrency, c.seed), (4, 1, 3));
        assert_eq!(c.settings.tc, TimeControl::Depth(2));
        assert_eq!(c.resolved.time_control, "depth=2");
    }

    #[test]
    fn errors_name_the_key() {
        let e = err(&GOOD.replace("games: 10", "gmaes: 10"));
        assert!(e.contains("test.yaml") && e.contains("gmaes"), "{e}");
        let e = err(&GOOD.replace("    params:", "    parms:"));
        assert!(e.contains("engines[1]") && e.contains("parms"), "{e}");
        let e = err(&GOOD.replace("null_move_r: 2", "null_move_r: 99"));
        assert!(
            e.contains("engines[1].params.null_move_r") && e.contains("1..=6"),
            "{e}"
        );
        let e = err(&GOOD.replace("nodes=500", "nodes=lots"));
        assert!(
            e.contains("time_control") && e.contains("nodes=lots"),
            "{e}"
        );
        let e = err(&GOOD.replace("games: 10", "games: 7"));
        assert!(e.contains(": games:") && e.contains("even"), "{e}");
        let e = err(&GOOD.replace("concurrency: 2", "concurrency: 0"));
        assert!(e.contains("concurrency"), "{e}");
        let e = err(&GOOD.replace("name: dev", "name: base"));
        assert!(e.contains("engines[1].name"), "{e}");
        let e = err(&GOOD.replace(
            "    type: inprocess\n  - name: dev",
            "    type: uci\n  - name: dev",
        ));
        assert!(e.contains("engines[0].cmd"), "{e}");
        let e = err(&GOOD.replace(
            "type: inprocess\n  - name: dev",
            "type: inproc\n  - name: dev",
        ));
        assert!(e.contains("engines[0].type") && e.contains("inproc"), "{e}");
        let e = err(&format!("{GOOD}openings: {{ file: /nonexistent/x.epd }}\n"));
        assert!(
            e.contains("openings.file") && e.contains("/nonexistent/x.epd"),
            "{e}"
        );
        let e = err(&format!("{GOOD}sprt: {{ elo0: 5, elo1: 0 }}\n"));
        assert!(e.contains(": sprt:"), "{e}");
        let e = err(&format!(
            "{GOOD}sprt: {{ elo0: 0, elo1: 5, modle: logistic }}\n"
        ));
        assert!(e.contains("sprt") && e.contains("modle"), "{e}");
        let e = err(&format!(
            "{GOOD}adjudication: {{ resign: {{ score_cp: 0, move_count: 3 }} }}\n"
        ));
        assert!(e.contains("adjudication.resign.score_cp"), "{e}");
        let e = err(&format!(
            "{GOOD}adjudication: {{ draw: {{ move_number: 30, score_cp: 5 }} }}\n"
        ));
        assert!(
            e.contains("adjudication.draw") && e.contains("move_count"),
            "{e}"
        );
        let three = GOOD.replace(
            "games: 10",
            "  - name: third\n    type: inprocess\ngames: 10",
        );
        let e = err(&three);
        assert!(e.contains("tournament"), "{e}");
        let c = load(&format!("{three}tournament: gauntlet\n")).unwrap();
        assert_eq!(c.tournament, TournamentKind::Gauntlet);
        let e = err(&format!(
            "{three}tournament: round_robin\nsprt: {{ elo0: 0, elo1: 5 }}\n"
        ));
        assert!(e.contains(": sprt:"), "{e}");
    }

    #[test]
    fn inprocess_options_and_params_are_checked() {
        let with = |engine: &str| GOOD.replace("    params: { null_move_r: 2 }", engine);
        let e = err(&with("    options: { Threds: 1 }"));
        assert!(
            e.contains("engines[1].options.Threds") && e.contains("Threds"),
            "{e}"
        );
        let e = err(&with("    options: { Threads: 65 }"));
        assert!(e.contains("engines[1].options.Threads"), "{e}");
        let e = err(&with("    options: { Hash: lots }"));
        assert!(e.contains("engines[1].options.Hash"), "{e}");
        // Parameter names are options too, range-checked like `params:`.
        let e = err(&with("    options: { null_move_r: 99 }"));
        assert!(
            e.contains("engines[1].options.null_move_r") && e.contains("1..=6"),
            "{e}"
        );
        let e = err(&with("    params: { null_move_rr: 2 }"));
        assert!(
            e.contains("engines[1].params.null_move_rr") && e.contains("unknown"),
            "{e}"
        );
        // Typos get the nearest name, as UCI options do.
        assert!(e.contains("did you mean 'null_move_r'?"), "{e}");
        let e = err(&with("    options: { nul_move_r: 2 }"));
        assert!(
            e.contains("engines[1].options.nul_move_r")
                && e.contains("did you mean 'null_move_r'?"),
            "{e}"
        );
        let e = err(&with("    options: { Hsh: 8 }"));
        assert!(e.contains("did you mean 'Hash'?"), "{e}");
        let e = err(&with("    params: { completely_unrelated_words: 2 }"));
        assert!(e.contains("unknown") && !e.contains("did you mean"), "{e}");
        let e = err(&with("    params: { null_move_r: 0 }"));
        assert!(
            e.contains("engines[1].params.null_move_r") && e.contains("1..=6"),
            "{e}"
        );
        let c = load(&with(
            "    options: { Threads: 1, hash: 8, null_move_r: 2 }",
        ))
        .unwrap();
        assert_eq!(c.engines[1].options.len(), 3);
    }

    #[test]
    fn resolved_config_holds_every_effective_value() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.yaml"), "null_move_r: 4\n").unwrap();
        std::fs::write(dir.path().join("o.epd"), "8/8/8/8/8/8/8/K6k w - - 0 1\n").unwrap();
        let text = GOOD
            .replace("    params: { null_move_r: 2 }", "    params_file: p.yaml")
            .replace("concurrency: 2\n", "")
            + "openings: { file: o.epd }\n";
        let path = dir.path().join("c.yaml");
        let c = MatchConfig::from_yaml(&text, &path, &Overrides::default()).unwrap();
        let r = &c.resolved;
        assert_eq!(r.tournament, Some(TournamentKind::Match));
        assert_eq!(r.games, Some(10));
        assert_eq!(r.concurrency, Some(c.concurrency));
        assert_eq!(r.time_margin_ms, Some(DEFAULT_TIME_MARGIN_MS));
        assert_eq!(r.watchdog_ms, Some(DEFAULT_WATCHDOG_MS));
        for e in &r.engines {
            assert_eq!(e.kind, Some(RawKind::Inprocess));
            assert_eq!(e.init_timeout_ms, Some(DEFAULT_INIT_TIMEOUT_MS));
        }
        // The parameter file's values are inlined: the run no longer needs it.
        assert_eq!(r.engines[1].params_file, None);
        std::fs::remove_file(dir.path().join("p.yaml")).unwrap();
        let o = r.openings.as_ref().unwrap();
        assert_eq!(o.format, Some(OpeningFormat::Epd));
        assert_eq!(
            (o.order, o.start),
            (Some(OpeningOrder::Sequential), Some(0))
        );
        // Reloaded elsewhere (as --resume does), it is the same config.
        let again = MatchConfig::from_yaml(
            &c.resolved_yaml(),
            &dir.path().join("run/config.yaml"),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(again.engines, c.engines);
        match &again.engines[1].kind {
            PlayerKind::InProcess(p) => assert_eq!(p.search.null_move_r, 4),
            other => panic!("{other:?}"),
        }
        assert_eq!(again.settings, c.settings);
        assert_eq!(
            (again.games, again.concurrency, again.seed),
            (c.games, c.concurrency, c.seed)
        );
        assert_eq!(again.openings, c.openings);
        assert_eq!(again.resolved, c.resolved);
        // A malformed recorded checksum is a config error.
        let e = err(&format!(
            "{GOOD}openings: {{ file: {}, checksum: md5:1 }}\n",
            dir.path().join("o.epd").display()
        ));
        assert!(e.contains("openings.checksum"), "{e}");
    }

    /// One engine written as YAML, as a fastchess `-engine` and as a suite
    /// `--engine` is one player.
    #[test]
    fn one_description_three_ways() {
        let yaml: RawEngine = serde_yaml::from_str(
            "{ name: e, cmd: /bin/sh, args: [-x, -y], options: { Hash: 16, Ponder: false } }",
        )
        .unwrap();
        let from_yaml =
            resolve_engine_description(yaml, Path::new("/"), &|k| k.to_string()).unwrap();
        let from_suite = crate::play::suite::engine_spec(
            "cmd=/bin/sh,name=e,arg=-x,arg=-y,option.Hash=16",
            None,
            &[("Ponder".into(), "false".into())],
        )
        .unwrap();
        assert_eq!(from_suite, from_yaml);
        let line = "-engine cmd=/bin/sh name=e args=-x arg=-y option.Hash=16 option.Ponder=false \
                    -engine cmd=/bin/sh name=f -each tc=1+0.1 -rounds 1";
        let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let t = crate::config::flags::translate(&argv).unwrap();
        let cfg = MatchConfig::resolve(t.config, Path::new("/x.yaml"), &Overrides::default());
        assert_eq!(cfg.unwrap().engines[0], from_yaml);
        assert_eq!(from_yaml.args, ["-x", "-y"]);
        assert_eq!(from_yaml.options.len(), 2);
    }

    /// Other commands' blocks are kept for their owners when the command
    /// accepts them; any other key is refused, named.
    #[test]
    fn other_blocks_only_where_accepted() {
        let text = format!("{GOOD}build: {{ cargo_args: [--locked] }}\ngate: null\n");
        let path = Path::new("/tmp/x/test.yaml");
        let o = Overrides::default();
        let c = MatchConfig::from_yaml_with(&text, path, &o, &["build", "gate"]).unwrap();
        assert_eq!(c.resolved().sections.len(), 2);
        let build: serde_yaml::Value = c.section("build").unwrap().unwrap();
        assert_eq!(build["cargo_args"][0], serde_yaml::Value::from("--locked"));
        assert_eq!(c.section::<serde_yaml::Value>("gate").unwrap(), None);
        // Written out and reloaded with the blocks.
        let again = MatchConfig::from_yaml_with(&c.resolved_yaml(), path, &o, &["build", "gate"]);
        assert_eq!(again.unwrap().resolved(), c.resolved());

        let e = err(&text);
        assert!(
            e.contains("test.yaml: build: unknown key") && e.contains("max_start_failures"),
            "{e}"
        );
        let e = MatchConfig::from_yaml_with(&text, path, &o, &["build"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("test.yaml: gate: unknown key") && e.contains("or a block of build"),
            "{e}"
        );
        // A core key's own errors keep serde's path and position.
        let e = err(&format!("{GOOD}sprt: {{ elo0: 0, elo1: 5, modle: x }}\n"));
        assert!(
            e.contains("sprt") && e.contains("modle") && e.contains("line"),
            "{e}"
        );
    }

    /// Per-engine limits: parsed, written in their text form, refused for
    /// an xboard engine when they join several limits.
    #[test]
    fn engine_time_controls() {
        let c = load(&GOOD.replace(
            "    params: { null_move_r: 2 }",
            "    time_control: \"5+0.05, nodes=300\"",
        ))
        .unwrap();
        assert_eq!(c.settings.tc_of("base"), TimeControl::Nodes(500));
        assert_eq!(c.settings.tc_of("dev").to_string(), "5+0.05,nodes=300");
        assert_eq!(
            c.resolved.engines[1].time_control.as_deref(),
            Some("5+0.05,nodes=300")
        );
        let e = err(&GOOD.replace("    params: { null_move_r: 2 }", "    time_control: 5+"));
        assert!(
            e.contains("engines[1].time_control") && e.contains("'5+'"),
            "{e}"
        );
        let e = err(&GOOD.replace(
            "    params: { null_move_r: 2 }",
            "    time_control: nodes=5,nodes=6",
        ));
        assert!(e.contains("two nodes limits"), "{e}");
        let xb = GOOD
            .replace(
                "  - name: dev\n    type: inprocess",
                "  - name: dev\n    type: xboard\n    cmd: /bin/sh",
            )
            .replace("    params: { null_move_r: 2 }\n", "");
        let e = err(&xb.replace("nodes=500", "1+0.01,nodes=500"));
        assert!(
            e.contains(": time_control:") && e.contains("'dev' speaks xboard"),
            "{e}"
        );
        assert!(load(&xb).is_ok());
    }

    #[test]
    fn sprt_max_games_is_the_cap() {
        let c = load(&format!(
            "{GOOD}sprt: {{ elo0: 0, elo1: 5, max_games: 20 }}\n"
        ))
        .unwrap();
        assert_eq!(c.games, 20);
        let o = Overrides {
            games: Some(6),
            ..Overrides::default()
        };
        let text = format!("{GOOD}sprt: {{ elo0: 0, elo1: 5, max_games: 20 }}\n");
        let c2 = MatchConfig::from_yaml(&text, Path::new("t.yaml"), &o).unwrap();
        assert_eq!(c2.games, 6);
        let s = c.sprt.unwrap();
        assert_eq!(
            (s.alpha, s.beta, s.model),
            (0.05, 0.05, EloModel::Normalized)
        );
    }
}
