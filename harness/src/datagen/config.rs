//! The `karsinta datagen` config: [`RawDatagenConfig`] as written (serde,
//! unknown keys refused) -> [`DatagenConfig`] (absolute paths, defaults
//! filled, ranges checked). The resolved config is written into the run
//! folder, which a resumed run reloads and must match.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use karsinta_engine::Params;
use serde::{Deserialize, Serialize};

use crate::config::{
    resolve_engine_entry, resolve_tablebases, ConfigError, RawEngine, RawKind, RawTablebases,
};
use crate::formats::records::RecordFormat;
use crate::play::tablebase::Tablebases;
use crate::players::PlayerSpec;

/// The config file as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDatagenConfig {
    /// Games to play (one per start position).
    pub games: u64,
    /// Output format: `bullet` (default), `text` or `viriformat`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<RecordFormat>,
    /// Seed of the start positions (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Games played at once (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// A UCI engine to play the games instead of the in-process engine (a
    /// match config's `engines:` entry: `name`, `cmd`, `args`, `options`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<RawEngine>,
    /// Engine parameter file (relative to this file); default: built-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<String>,
    /// Transposition table per game in MiB (default 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash_mb: Option<usize>,
    /// The search of every move.
    pub limit: RawLimit,
    /// Where games start: a book or the start position, random plies, the playability check.
    #[serde(default)]
    pub start: RawStart,
    /// Which positions are written.
    #[serde(default)]
    pub filter: RawFilter,
    /// When a game is adjudicated before the rules end it.
    #[serde(default)]
    pub adjudication: RawAdjudicate,
    /// Syzygy tables (the match config's `tablebases:` section): a game
    /// ends with the tables' result as soon as its position is in them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tablebases: Option<RawTablebases>,
    /// karsinta-dist's block ([`crate::run::FLEET_SECTION`]: batches and
    /// leases of the same run on a fleet), kept as written and left alone
    /// here, so one file serves `karsinta datagen` and `karsinta-dist create`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dist: Option<serde_yaml::Value>,
}

/// Per-move search limit; at least one of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimit {
    /// Stop starting new iterations after this many nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_nodes: Option<u64>,
    /// Stop the search at this many nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Search every move to this depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
}

/// Where games start.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStart {
    /// EPD or PGN book (relative to this file); default: the start position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book: Option<String>,
    /// Random legal plies played from the start (default 8; 0 with a book).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_plies: Option<u32>,
    /// Nodes of the playability search (default 1000; 0: no check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_nodes: Option<u64>,
    /// Largest |score| of a playable start, centipawns (default 400).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_score_cp: Option<i32>,
}

/// Which positions are written (viriformat keeps whole games and ignores
/// all but the counts).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFilter {
    /// Drop positions in check (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_check: Option<bool>,
    /// Drop positions whose best move is a capture or promotion (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tactical: Option<bool>,
    /// Drop positions with a mate score (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate: Option<bool>,
    /// Drop plies of the game before this one (default 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ply: Option<u32>,
    /// Drop plies from this one on (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ply: Option<u32>,
    /// Drop a position already written in this run (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicates: Option<bool>,
}

/// When a game stops before the rules end it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAdjudicate {
    /// A win once both sides' scores pass this for `win_plies` plies (default 2500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win_cp: Option<i32>,
    /// Plies the win scores must last (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win_plies: Option<u32>,
    /// A draw once |score| stays within this for `draw_plies` plies after
    /// `draw_after` (default 10 cp, 8 plies, after ply 80).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_cp: Option<i32>,
    /// Plies the draw scores must last (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_plies: Option<u32>,
    /// Plies played before a draw can be adjudicated (default 80).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_after: Option<u32>,
    /// A draw at this many plies (default 400).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u32>,
}

/// The per-move search, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimit {
    /// Stop starting new iterations after this many nodes (`limit.soft_nodes`).
    pub soft_nodes: Option<u64>,
    /// Stop the search at this many nodes (`limit.nodes`).
    pub nodes: Option<u64>,
    /// Search to this depth (`limit.depth`).
    pub depth: Option<u32>,
}

/// The filters, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Drop positions in check (`filter.in_check`).
    pub in_check: bool,
    /// Drop positions whose best move is a capture or promotion (`filter.tactical`).
    pub tactical: bool,
    /// Drop positions with a mate score (`filter.mate`).
    pub mate: bool,
    /// Drop plies before this one (`filter.min_ply`).
    pub min_ply: u32,
    /// Drop plies from this one on (`filter.max_ply`); `None` = no limit.
    pub max_ply: Option<u32>,
    /// Drop positions already written in this run (`filter.duplicates`).
    pub duplicates: bool,
}

/// Adjudication, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudicate {
    /// White wins once the last `win_plies` scores are all >= this (Black at <= -this), centipawns.
    pub win_cp: i32,
    /// Plies the win scores must last (`adjudication.win_plies`).
    pub win_plies: u32,
    /// Largest |score| of a drawish ply, centipawns (`adjudication.draw_cp`).
    pub draw_cp: i32,
    /// Plies the draw scores must last (`adjudication.draw_plies`).
    pub draw_plies: u32,
    /// Plies played before a draw can be adjudicated (`adjudication.draw_after`).
    pub draw_after: u32,
    /// A draw at this many plies (`adjudication.max_plies`).
    pub max_plies: u32,
}

/// A validated datagen config.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    /// The config as written, paths made absolute: saved in the run folder, compared on resume.
    pub raw: RawDatagenConfig,
    /// Run name: the config file's stem.
    pub name: String,
    /// Games to play (`games`).
    pub games: u64,
    /// Output format (`format`, default bullet).
    pub format: RecordFormat,
    /// Seed of the start positions (`seed`, default 1).
    pub seed: u64,
    /// Games played at once (`threads`, default 1).
    pub threads: usize,
    /// The in-process engine's parameters (`params`, default built-in).
    pub params: Params,
    /// Transposition table per game in MiB (`hash_mb`, default 16).
    pub hash_mb: usize,
    /// The search of every move (`limit`).
    pub limit: SearchLimit,
    /// The book games start from (`start.book`), absolute; `None` = the start position.
    pub book: Option<PathBuf>,
    /// Random legal plies played from the start (`start.random_plies`).
    pub random_plies: u32,
    /// Nodes of the playability search (`start.check_nodes`; 0 = no check).
    pub check_nodes: u64,
    /// Largest |score| of a playable start, centipawns (`start.max_score_cp`).
    pub max_score_cp: i32,
    /// Which positions are written (`filter`).
    pub filter: Filter,
    /// When games are adjudicated (`adjudication`).
    pub adjudicate: Adjudicate,
    /// Syzygy tables that end a game with their result (`tablebases`); `None` = none.
    pub tablebases: Option<Arc<Tablebases>>,
    /// The UCI engine that plays, or `None` for the in-process engine.
    pub engine: Option<PlayerSpec>,
}

/// `engine:`: a UCI engine, its limits the ones UCI has (hard nodes or
/// depth, one of them), the in-process keys left out.
fn resolve_uci_engine(
    raw: &mut RawDatagenConfig,
    path: &Path,
    dir: &Path,
) -> Result<Option<PlayerSpec>, ConfigError> {
    let Some(engine) = raw.engine.as_mut() else {
        return Ok(None);
    };
    if engine.kind.is_some_and(|k| k != RawKind::Uci) {
        return Err(invalid(
            path,
            "engine.type",
            "datagen plays a UCI engine here; the in-process engine is the default without `engine:`",
        ));
    }
    if raw.params.is_some() {
        return Err(invalid(
            path,
            "params",
            "the in-process engine's parameters; a UCI engine takes `engine.options`",
        ));
    }
    let l = &raw.limit;
    if l.soft_nodes.is_some() {
        return Err(invalid(
            path,
            "limit.soft_nodes",
            "UCI has no soft node limit; give limit.nodes or limit.depth",
        ));
    }
    if l.nodes.is_some() && l.depth.is_some() {
        return Err(invalid(
            path,
            "limit",
            "a UCI engine takes one limit: nodes or depth",
        ));
    }
    let spec = resolve_engine_entry(engine, &|k| format!("engine.{k}"), path, dir)?;
    Ok(Some(spec))
}

fn invalid(path: &Path, key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        key: key.to_string(),
        message: message.into(),
    }
}

impl DatagenConfig {
    /// Read and resolve the config file at `path`.
    pub fn load(path: &Path) -> Result<DatagenConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let raw: RawDatagenConfig =
            serde_yaml::from_str(&text).map_err(|e| ConfigError::Syntax {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        DatagenConfig::resolve(raw, path)
    }

    /// Check `raw` (paths relative to `path`'s folder) and fill defaults.
    pub fn resolve(mut raw: RawDatagenConfig, path: &Path) -> Result<DatagenConfig, ConfigError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let absolute = |p: &str| {
            let p = dir.join(p);
            std::path::absolute(&p).unwrap_or(p)
        };
        if raw.games == 0 {
            return Err(invalid(path, "games", "must be at least 1"));
        }
        let engine = resolve_uci_engine(&mut raw, path, dir)?;
        let l = &raw.limit;
        if l.soft_nodes.is_none() && l.nodes.is_none() && l.depth.is_none() {
            return Err(invalid(path, "limit", "give soft_nodes, nodes or depth"));
        }
        if l.soft_nodes == Some(0) || l.nodes == Some(0) || l.depth == Some(0) {
            return Err(invalid(path, "limit", "limits must be at least 1"));
        }
        if let (Some(s), Some(h)) = (l.soft_nodes, l.nodes) {
            if s > h {
                return Err(invalid(path, "limit.soft_nodes", "above limit.nodes"));
            }
        }
        let threads = raw.threads.unwrap_or(1);
        if threads == 0 {
            return Err(invalid(path, "threads", "must be at least 1"));
        }
        let (params, params_path) = match &raw.params {
            Some(p) => {
                let abs = absolute(p);
                let params =
                    Params::load_yaml(&abs).map_err(|e| invalid(path, "params", e.to_string()))?;
                (params, Some(abs.display().to_string()))
            }
            None => (Params::default(), None),
        };
        raw.params = params_path;
        let book = raw.start.book.as_deref().map(absolute);
        if let Some(b) = &book {
            if !b.is_file() {
                return Err(invalid(
                    path,
                    "start.book",
                    format!("{} not found", b.display()),
                ));
            }
            raw.start.book = Some(b.display().to_string());
        }
        let random_plies = raw
            .start
            .random_plies
            .unwrap_or(if book.is_some() { 0 } else { 8 });
        let f = &raw.filter;
        let filter = Filter {
            in_check: f.in_check.unwrap_or(true),
            tactical: f.tactical.unwrap_or(true),
            mate: f.mate.unwrap_or(true),
            min_ply: f.min_ply.unwrap_or(16),
            max_ply: f.max_ply,
            duplicates: f.duplicates.unwrap_or(true),
        };
        let a = &raw.adjudication;
        let adjudicate = Adjudicate {
            win_cp: a.win_cp.unwrap_or(2500),
            win_plies: a.win_plies.unwrap_or(4),
            draw_cp: a.draw_cp.unwrap_or(10),
            draw_plies: a.draw_plies.unwrap_or(8),
            draw_after: a.draw_after.unwrap_or(80),
            max_plies: a.max_plies.unwrap_or(400),
        };
        if adjudicate.max_plies == 0 {
            return Err(invalid(
                path,
                "adjudication.max_plies",
                "must be at least 1",
            ));
        }
        let tablebases = resolve_tablebases(raw.tablebases.as_mut(), "tablebases", path, dir)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "datagen".to_string());
        Ok(DatagenConfig {
            name,
            games: raw.games,
            format: raw.format.unwrap_or(RecordFormat::Bullet),
            seed: raw.seed.unwrap_or(1),
            threads,
            params,
            hash_mb: raw.hash_mb.unwrap_or(16),
            limit: SearchLimit {
                soft_nodes: l.soft_nodes,
                nodes: l.nodes,
                depth: l.depth,
            },
            book,
            random_plies,
            check_nodes: raw.start.check_nodes.unwrap_or(1000),
            max_score_cp: raw.start.max_score_cp.unwrap_or(400),
            filter,
            adjudicate,
            tablebases,
            engine,
            raw,
        })
    }

    /// The resolved config as YAML (absolute paths), for the run folder.
    pub fn resolved_yaml(&self) -> String {
        serde_yaml::to_string(&self.raw).unwrap_or_default()
    }
}
