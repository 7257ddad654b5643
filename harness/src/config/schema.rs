//! The config file as written: serde structs that refuse unknown keys
//! (the top level keeps other commands' blocks for their owners), with
//! every optional key an `Option` so that resolution can tell "absent" from
//! "set". Nothing here checks values; [`super::resolve`] does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use super::colours::RawColours;
pub use super::output::RawOutput;
use crate::formats::pgn_write::PgnOptions;
use crate::openings::{OpeningFormat, OpeningOrder};
use crate::play::game::{DrawAdjudication, ResignAdjudication};
use crate::play::tablebase::TbAdjudicate;
use crate::stats::EloModel;
use crate::variant::Variant;

/// The config file as written. Unknown keys are not refused here but land
/// in `sections`; resolution refuses those the command does not accept.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RawConfig {
    /// Run name (results folder prefix, PGN `Event`); default: file stem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The players (`engines:`); a match needs two, a gauntlet or round robin two or more.
    pub engines: Vec<RawEngine>,
    /// `match` (two engines, the default), `gauntlet` (first engine against
    /// each other one) or `round_robin`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentKind>,
    /// Games per pairing (even when the games come in colour-swapped
    /// pairs, the default). With an `sprt:` block, the most games before
    /// the test is called inconclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
    /// Games per opening and who is White (fastchess `-games`, `-noswap`,
    /// `-reverse`); absent: colour-swapped pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colours: Option<RawColours>,
    /// Games played at once (default: number of cores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Seed for the opening order (default: random, recorded in the run folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `nodes=N`, `depth=N`, `movetime=SECONDS`, `BASE+INC` or `MOVES/BASE+INC`.
    pub time_control: String,
    /// Extra time a move may take beyond its limit before it loses on time (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_margin_ms: Option<u64>,
    /// How long a node- or depth-limited move may take before its engine counts as hung
    /// (default 30000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watchdog_ms: Option<u64>,
    /// Pause before each game of a game slot, in milliseconds (fastchess's
    /// `-wait`; default 0): time for slow engines to release memory or
    /// tablebase handles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_wait_ms: Option<u64>,
    /// `standard` (default) or `chess960` (Fischer random and double
    /// Fischer random: X-FEN or Shredder-FEN books, `UCI_Chess960`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    /// `openings:` (default: every game from the standard position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<RawOpenings>,
    /// `adjudication:` (draw, resign, move cap; all off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<RawAdjudication>,
    /// `tablebases:` (Syzygy adjudication, off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tablebases: Option<RawTablebases>,
    /// `sprt:` (stop early on a verdict; default: play all `games`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<RawSprt>,
    /// Failed starts in a row of one engine after which a run stops with an
    /// error (default 3; as cutechess-cli stops and fastchess `-recover` goes on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_start_failures: Option<u32>,
    /// How `games.pgn` is written (fastchess's `-pgnout` keys: notation,
    /// per-move fields, `min`); absent: Karsinta's PGN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgn: Option<PgnOptions>,
    /// Where each game's final position goes as an EPD line (fastchess's
    /// `-epdout`); absent: nowhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epd: Option<RawEpdOut>,
    /// Whose result text the run prints (fastchess's `-output format=`,
    /// `-ratinginterval`, `-scoreinterval`, `-report penta=`); absent:
    /// Karsinta's result block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<RawOutput>,
    /// The referee's PV checks and what their warnings do (fastchess's
    /// `-check-mate-pvs` and `-strict`); absent: PVs are checked for
    /// legality, warnings are logged and the exit status ignores them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<RawChecks>,
    /// Every other top-level block, kept as raw YAML for the command that
    /// owns it (`ab`'s `build:`, `tune spsa`'s `spsa:`, karsinta-dist's
    /// `dist:`, ...). The match schema names none of them: a loader is told
    /// which blocks its command accepts ([`super::MatchConfig::load_with`]),
    /// refuses any other key, and [`super::MatchConfig::section`] hands
    /// each block to its owner, which parses it.
    #[serde(flatten)]
    pub sections: BTreeMap<String, serde_yaml::Value>,
}

/// How engines are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentKind {
    /// Two engines.
    Match,
    /// The first engine against each of the others.
    Gauntlet,
    /// Every engine against every other.
    RoundRobin,
}

impl RawConfig {
    /// The keys of the match schema itself, in file order.
    pub const KEYS: &'static [&'static str] = &[
        "name",
        "engines",
        "tournament",
        "games",
        "colours",
        "concurrency",
        "seed",
        "time_control",
        "time_margin_ms",
        "watchdog_ms",
        "game_wait_ms",
        "variant",
        "openings",
        "adjudication",
        "sprt",
        "max_start_failures",
        "pgn",
        "epd",
        "output",
        "checks",
    ];

    /// The raw block `key` of another command.
    pub fn section(&self, key: &str) -> Option<&serde_yaml::Value> {
        self.sections.get(key)
    }

    /// Drop the block `key` of another command.
    pub(super) fn remove_section(&mut self, key: &str) {
        self.sections.remove(key);
    }
}

/// Engine protocol in YAML.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawKind {
    /// A UCI engine process (`type: uci`, the default).
    Uci,
    /// An xboard/CECP engine process (`type: xboard`).
    Xboard,
    /// The `karsinta-engine` library inside the harness.
    #[serde(alias = "in_process", alias = "in-process")]
    Inprocess,
}

/// One engine as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEngine {
    /// Unique name: the PGN player name and the key in results and `engine_tc`.
    pub name: String,
    /// Default: `uci`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<RawKind>,
    /// Program (external engines): a path relative to the config file, or a
    /// bare name looked up in `PATH`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmd: Option<String>,
    /// Command-line arguments passed to `cmd`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Working directory (relative to the config file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// UCI `setoption` / xboard `option` values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, serde_yaml::Value>,
    /// Time the engine gets for its handshake and each `isready` (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_timeout_ms: Option<u64>,
    /// In-process only: a parameter file (relative to the config file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params_file: Option<String>,
    /// In-process only: parameters set inline (applied after `params_file`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<serde_yaml::Mapping>,
    /// This engine's own limit, in place of the match's `time_control`
    /// (same forms): time odds, node odds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<String>,
    /// `true`: a fresh engine process for every game (fastchess's
    /// `restart=on`); default false, one process per game slot for the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<bool>,
}

/// Opening suite as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOpenings {
    /// EPD or PGN file, relative to the config file.
    pub file: String,
    /// Default: from the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<OpeningFormat>,
    /// PGN only: use the first N plies of each game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plies: Option<usize>,
    /// `sequential` (default) or `random` (shuffled by the seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<OpeningOrder>,
    /// Begin at this position of the order (to continue a suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<usize>,
    /// Checksum of the file's bytes (`fnv1a64:` and 16 hex digits). The run
    /// folder's config records it, so that a resumed run refuses a suite
    /// that changed under it; in a user's config it pins the suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Number of openings the file holds (recorded and checked like `checksum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<usize>,
}

/// Adjudication as written; everything is off by default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAdjudication {
    /// `adjudication.draw`: draw when both sides' scores stay near 0 (fastchess `-draw`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawAdjudication>,
    /// `adjudication.resign`: a loss when the scores stay past a threshold (fastchess `-resign`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<ResignAdjudication>,
    /// `adjudication.max_moves`: a draw once each side has made this many moves after the opening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_moves: Option<u32>,
}

/// Syzygy tablebase adjudication as written (fastchess `-tb`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTablebases {
    /// Folders of `.rtbw` (and `.rtbz`) files, relative to the config file.
    pub paths: Vec<String>,
    /// Most pieces of an adjudicated position (default: the largest table's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<u32>,
    /// Cursed wins and blessed losses count as wins and losses (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_50_move: Option<bool>,
    /// `both` (default), `win_loss` or `draw`: the results that end a game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudicate: Option<TbAdjudicate>,
}

/// `checks:` as written (fastchess `-check-mate-pvs`, `-strict`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChecks {
    /// A PV with a mate score must be the mate: 2N-1 plies ending in
    /// checkmate for mate in N, 2N for mated in N (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate_pvs: Option<bool>,
    /// A run that raised any warning exits with status 1 at its end
    /// (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// `epd:` as written (fastchess `-epdout file= append=`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEpdOut {
    /// The EPD file, relative to the config file.
    pub file: String,
    /// Add to the file (default, as fastchess) or start it anew with the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append: Option<bool>,
}

/// SPRT as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSprt {
    /// Elo of the null hypothesis H0 (in the `model`'s units).
    pub elo0: f64,
    /// Elo of the alternative hypothesis H1 (above `elo0`).
    pub elo1: f64,
    /// Type I error rate: chance to accept H1 when H0 holds (default 0.05).
    #[serde(default = "default_error_rate")]
    pub alpha: f64,
    /// Type II error rate: chance to accept H0 when H1 holds (default 0.05).
    #[serde(default = "default_error_rate")]
    pub beta: f64,
    /// `normalized` (default, as fishtest) or `logistic`.
    #[serde(default = "default_model")]
    pub model: EloModel,
    /// Most games before the test ends as inconclusive (default: `games`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_games: Option<u64>,
}

fn default_error_rate() -> f64 {
    0.05
}

fn default_model() -> EloModel {
    EloModel::Normalized
}
