//! fastchess / cutechess-cli command lines: translates `-engine cmd=... -each
//! tc=... -rounds N ...` into the [`RawConfig`] a YAML file would give, so
//! such a line runs on the same runner and fills the same run folder.
//!
//! Where the two tools differ, fastchess's meaning is taken (`-repeat` is
//! `-games 2`, `-sprt` defaults to the normalized model, `-openings start=`
//! counts from 1). A flag Karsinta cannot honour with the same meaning is
//! refused with the reason, never reinterpreted; an unknown flag or key is
//! refused with the nearest supported one. `-output format=`,
//! `-ratinginterval`, `-scoreinterval` and `-report penta=` print that
//! tool's result lines (the config's `output:`); flags that only shape
//! fastchess's logging (`-log`, `-autosaveinterval`, ...) are accepted and
//! reported as ignored. Relies on [`crate::config`] for everything after translation.
//!
//! Installed under another tool's name (a link or copy of `karsinta`
//! named `cutechess-cli`, `cutechess-ob` or `fastchess`), the binary reads
//! that tool's command lines with that tool's meaning and prints its
//! output ([`Dialect::from_program`]), so a worker that runs the tool by
//! name (OpenBench's runs `./cutechess-ob`) runs Karsinta unchanged.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::config::{
    OutputFormat, RawAdjudication, RawChecks, RawColours, RawConfig, RawEngine, RawEpdOut, RawKind,
    RawOpenings, RawOutput, RawSprt, RawTablebases, TournamentKind,
};
use crate::formats::pgn_write::{Notation, PgnOptions};
use crate::openings::{OpeningFormat, OpeningOrder};
use crate::play::clock::TimeControl;
use crate::play::game::{DrawAdjudication, DrawRule, ResignAdjudication};
use crate::play::tablebase::TbAdjudicate;
use crate::stats::EloModel;
use crate::variant::Variant;

/// A command line that cannot be translated. Each names the flag.
#[derive(Debug, Error, PartialEq)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum FlagError {
    #[error(
        "{flag}: unknown flag (nearest supported: {nearest}; `karsinta match -help` lists them)"
    )]
    Unknown { flag: String, nearest: String },
    #[error("{flag}: not supported: {reason}")]
    Unsupported { flag: String, reason: String },
    #[error("{flag} {key}: unknown key (nearest supported: {nearest})")]
    UnknownKey {
        flag: String,
        key: String,
        nearest: String,
    },
    #[error("{flag}: {message}")]
    Invalid { flag: String, message: String },
}

fn invalid(flag: &str, message: impl Into<String>) -> FlagError {
    FlagError::Invalid {
        flag: flag.to_string(),
        message: message.into(),
    }
}

fn unsupported(flag: &str, reason: impl Into<String>) -> FlagError {
    FlagError::Unsupported {
        flag: flag.to_string(),
        reason: reason.into(),
    }
}

/// Whose meaning the flags have where fastchess and cutechess-cli differ:
/// how `-games`, `-repeat` and `-rounds` make the schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// fastchess: `-repeat` is `-games 2`, `-games` (1 or 2) is the games
    /// per opening, `-rounds` (default 2) the rounds; more than 2 games
    /// per round swap with the rounds.
    #[default]
    Fastchess,
    /// cutechess-cli: `-games N` is the games of each encounter per round
    /// (default 1), `-repeat` plays each opening twice, `-rounds` (default
    /// 1) multiplies the rounds.
    Cutechess,
}

impl Dialect {
    /// The tool a program name stands for, when `karsinta` is installed
    /// under that tool's name: `cutechess-cli`, `cutechess-ob`
    /// (OpenBench's build) or `fastchess` (`fast-chess`), with or without
    /// `.exe`; `None` for any other name.
    pub fn from_program(path: &str) -> Option<Dialect> {
        let name = Path::new(path).file_name()?.to_str()?.to_ascii_lowercase();
        let name = name.strip_suffix(".exe").unwrap_or(&name);
        if name.starts_with("cutechess") {
            Some(Dialect::Cutechess)
        } else if name == "fastchess" || name == "fast-chess" {
            Some(Dialect::Fastchess)
        } else {
            None
        }
    }

    /// That tool's own result text (`output.format` when the line sets none).
    fn output(self) -> OutputFormat {
        match self {
            Dialect::Fastchess => OutputFormat::Fastchess,
            Dialect::Cutechess => OutputFormat::Cutechess,
        }
    }
}

/// The result of a translation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Translation {
    /// The config, with paths absolute (taken from the current directory).
    pub config: RawConfig,
    /// `-pgnout`: where the run's `games.pgn` is also written at the end.
    pub pgnout: Option<PgnOut>,
    /// Karsinta's own flags given on the same line.
    pub out: Option<PathBuf>,
    /// `--quiet`: no progress bar or pair lines.
    pub quiet: bool,
    /// `--json`: print `summary.json` instead of the text result.
    pub json: bool,
    /// `--json-lines`: print one JSON object per finished game pair.
    pub json_lines: bool,
    /// `--print-config`: print the translated config as YAML and stop.
    pub print_config: bool,
    /// `-help`: print [`HELP`] and stop.
    pub help: bool,
    /// `-force-concurrency`: play a `-concurrency` above the machine's
    /// CPUs, which fastchess (and so `karsinta match` with its flags)
    /// otherwise refuses.
    pub force_concurrency: bool,
    /// Accepted flags that change nothing here, with why (for stderr).
    pub notes: Vec<String>,
}

/// `-pgnout file=NAME [append=true|false]`.
#[derive(Clone, Debug, PartialEq)]
pub struct PgnOut {
    /// The PGN file, absolute.
    pub path: PathBuf,
    /// `append=` (default true, as fastchess): add to an existing file; false replaces it.
    pub append: bool,
}

/// Flags of fastchess and cutechess-cli that this module translates.
const SUPPORTED: &[&str] = &[
    "-engine",
    "-each",
    "-openings",
    "-rounds",
    "-games",
    "-repeat",
    "-noswap",
    "-reverse",
    "-concurrency",
    "-force-concurrency",
    "-sprt",
    "-draw",
    "-resign",
    "-maxmoves",
    "-tb",
    "-tbpieces",
    "-tbignore50",
    "-tbadjudicate",
    "-pgnout",
    "-epdout",
    "-recover",
    "-srand",
    "-seed",
    "-randomseed",
    "-event",
    "-tournament",
    "-seeds",
    "-variant",
    "-startup-ms",
    "-ratinginterval",
    "-scoreinterval",
    "-autosaveinterval",
    "-output",
    "-report",
    "-resultformat",
    "-log",
    "-debug",
    "-site",
    "-wait",
    "-use-affinity",
    "-show-latency",
    "-check-mate-pvs",
    "-strict",
    "-help",
];

/// Flags of those tools that Karsinta refuses, and why.
const REFUSED: &[(&str, &str)] = &[
    (
        "-config",
        "fastchess's JSON state; continue a Karsinta run with `karsinta match --resume RUN`",
    ),
    ("-quick", "give -engine, -each tc= and -rounds"),
    ("-testEnv", "no OpenBench/fishtest worker mode"),
    (
        "-pgnin",
        "give the openings with -openings file=... format=pgn",
    ),
    ("-bookmode", "no opening books (give -openings)"),
    ("-crc32", "no PGN checksum"),
    (
        "-ucinewgame-ms",
        "every command has the engine's init timeout or the move watchdog",
    ),
    (
        "-ping-ms",
        "every command has the engine's init timeout or the move watchdog",
    ),
    ("-sample", "no position sampling"),
];

/// Accepted flags that only shape the other tools' output or logging.
const IGNORED: &[(&str, &str)] = &[
    (
        "-autosaveinterval",
        "every pair is saved to the ledger as it finishes",
    ),
    ("-resultformat", "Karsinta prints its own result block"),
    ("-log", "each engine's stderr is logged in the run folder"),
    ("-debug", "each engine's stderr is logged in the run folder"),
    ("-site", "the PGN Site tag is karsinta"),
    ("-use-affinity", "engines are not pinned to cores"),
    (
        "-show-latency",
        "not logged; -pgnout latency=true writes each move's latency in the PGN",
    ),
    (
        "-recover",
        "Karsinta always restarts a failed engine and goes on",
    ),
    (
        "-randomseed",
        "without -srand the seed is random (and recorded in config.yaml)",
    ),
];

/// Keys of `-engine` / `-each`.
const ENGINE_KEYS: &[&str] = &[
    "cmd",
    "name",
    "args",
    "arg",
    "option.NAME",
    "proto",
    "dir",
    "tc",
    "st",
    "nodes",
    "depth",
    "plies",
    "timemargin",
    "restart",
    "stderr",
];

/// One-screen list of what is understood, for `-help`.
pub const HELP: &str = "\
karsinta match also reads fastchess / cutechess-cli flags (fastchess's meaning where they differ):
  -engine cmd=PATH name=NAME proto=uci|xboard|inprocess args=\"A B\" arg=A dir=DIR option.NAME=VALUE
  -each   (engine keys for every engine, applied after every -engine as fastchess does)
          tc=[MOVES/]TIME[+INC] st=SEC nodes=N depth=N plies=N timemargin=MS; after -engine:
          that engine's own limits (time or node odds); nodes=/depth= with tc= keep the clock;
          restart=on|off (a fresh process for every game)
  -openings file=FILE format=epd|pgn order=sequential|random plies=N start=N (from 1)
  -rounds N   -games 1|2   -repeat [N]   -noswap   -reverse   -concurrency N   -srand SEED   -event NAME
  -force-concurrency (a -concurrency above the CPUs)   -wait MS (a pause before each game)
  -sprt elo0=E0 elo1=E1 alpha=A beta=B model=normalized|logistic|bayesian
  -draw movenumber=N movecount=N score=CP   -resign movecount=N score=CP twosided=true|false
  -maxmoves N   -tournament roundrobin|gauntlet   -startup-ms MS
  -pgnout file=FILE append=true|false notation=san|lan|uci min=true|false and per-move fields
          nodes= seldepth= nps= hashfull= tbhits= pv= timeleft= latency= (=true|false)
  -epdout file=FILE append=true|false   (each game's final position)
  -tb DIR[:DIR...]   -tbpieces N   -tbignore50   -tbadjudicate BOTH|WIN_LOSS|DRAW
  -output format=fastchess|cutechess   -ratinginterval N   -scoreinterval N   -report penta=true|false
          (that tool's result lines every N games and at the end; default: Karsinta's result block)
  -check-mate-pvs (a mate score's PV must be the mate: 2N-1 plies ending in mate, mated: 2N)
  -strict (exit status 1 at the end if any PV warning was raised; every PV is checked for legality)
  Accepted and ignored: -recover -autosaveinterval
  -resultformat -log -debug -site -use-affinity -show-latency -randomseed
Karsinta's own flags on the same line: --out DIR --quiet --json --json-lines --print-config
Installed as cutechess-cli / cutechess-ob / fastchess (a link named so): that tool's line without
  `match`, its -games/-repeat/-rounds meaning and its result lines (Started/Finished game, Score of).
proto=inprocess runs the bundled engine in-process; its option.NAME are Hash, Threads, SyzygyPath,
  SyzygyProbeLimit and its parameters (-tb adjudicates only: give option.SyzygyPath= to search with tables).
";

/// Does this argument list use fastchess-style flags (a single dash and a
/// word, as `-engine`)? `-j` and `-q`, Karsinta's short flags, do not count.
pub fn is_fastchess_style(args: &[String]) -> bool {
    args.iter().any(|a| is_flag(a) && a.len() > 2)
}

/// `-word`: a flag; `--word`, `-5` and `-` are not.
fn is_flag(a: &str) -> bool {
    let mut c = a.chars();
    c.next() == Some('-') && c.next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// Edit distance, for "nearest supported".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let lower = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .min_by_key(|c| distance(&lower, &c.to_ascii_lowercase()))
        .unwrap_or_default()
        .to_string()
}

/// A flag and the values that follow it.
struct Group<'a> {
    flag: &'a str,
    values: Vec<&'a str>,
}

impl Group<'_> {
    fn none(&self) -> Result<(), FlagError> {
        match self.values.first() {
            None => Ok(()),
            Some(v) => Err(invalid(self.flag, format!("takes no value, got '{v}'"))),
        }
    }

    fn one(&self) -> Result<&str, FlagError> {
        match self.values.as_slice() {
            [v] => Ok(v),
            [] => Err(invalid(self.flag, "needs a value")),
            more => Err(invalid(
                self.flag,
                format!("takes one value, got {}", more.join(" ")),
            )),
        }
    }

    fn number<T: std::str::FromStr>(&self) -> Result<T, FlagError> {
        let v = self.one()?;
        v.parse()
            .map_err(|_| invalid(self.flag, format!("'{v}' is not a valid number")))
    }

    /// `key=value` pairs, keys checked against `known` (a `PREFIX.NAME` entry
    /// accepts any key starting with `PREFIX.`).
    fn pairs(&self, known: &[&str]) -> Result<Vec<(String, String)>, FlagError> {
        let mut out = Vec::new();
        for v in &self.values {
            let Some((k, val)) = v.split_once('=') else {
                return Err(invalid(self.flag, format!("'{v}' is not KEY=VALUE")));
            };
            let ok = known.iter().any(|&n| match n.strip_suffix("NAME") {
                Some(prefix) => k.starts_with(prefix) && k.len() > prefix.len(),
                None => n == k,
            });
            if !ok && k == "conf" && known == ENGINE_KEYS {
                return Err(unsupported(
                    self.flag,
                    format!(
                        "conf={val}: cutechess-cli's engines.json is not read; give the \
                         engine's cmd= name= proto= dir= option.NAME= here, or a YAML config"
                    ),
                ));
            }
            if !ok {
                return Err(FlagError::UnknownKey {
                    flag: self.flag.to_string(),
                    key: k.to_string(),
                    nearest: nearest(k, known.iter().copied()),
                });
            }
            out.push((k.to_string(), val.to_string()));
        }
        Ok(out)
    }
}

fn split_groups(args: &[String]) -> Result<Vec<Group<'_>>, FlagError> {
    let mut groups: Vec<Group> = Vec::new();
    for a in args {
        if is_flag(a) || a.starts_with("--") {
            groups.push(Group {
                flag: a,
                values: Vec::new(),
            });
        } else if let Some(g) = groups.last_mut() {
            g.values.push(a);
        } else {
            return Err(invalid(a, "a value before any flag"));
        }
    }
    Ok(groups)
}

/// `path` made absolute from the current directory (paths in the
/// translation must not depend on where a printed config is saved).
fn absolute(path: &str) -> String {
    let p = Path::new(path);
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

fn parse_bool(flag: &str, key: &str, v: &str) -> Result<bool, FlagError> {
    match v {
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" => Ok(false),
        _ => Err(invalid(flag, format!("{key}={v}: expected true or false"))),
    }
}

fn parse_num<T: std::str::FromStr>(flag: &str, key: &str, v: &str) -> Result<T, FlagError> {
    v.parse()
        .map_err(|_| invalid(flag, format!("{key}={v}: not a valid number")))
}

/// cutechess / fastchess `tc=[MOVES/]TIME[+INC]` with TIME in seconds or
/// `MINUTES:SECONDS`, `MOVES` 0 meaning the whole game; `inf` = no clock.
/// Returns Karsinta's text form, or `None` for `inf`.
fn clock_tc(flag: &str, text: &str) -> Result<Option<String>, FlagError> {
    if matches!(text, "inf" | "infinite") {
        return Ok(None);
    }
    let bad = |why: &str| invalid(flag, format!("tc={text}: {why}"));
    let (moves, rest) = match text.split_once('/') {
        Some((m, r)) => (
            m.parse::<u32>()
                .map_err(|_| bad("moves per period must be a whole number"))?,
            r,
        ),
        None => (0, text),
    };
    let (time, inc) = rest.split_once('+').unwrap_or((rest, "0"));
    let secs = |t: &str| -> Result<f64, FlagError> {
        let v = match t.split_once(':') {
            Some((m, s)) => {
                let m: f64 = m.parse().map_err(|_| bad("minutes must be a number"))?;
                let s: f64 = s.parse().map_err(|_| bad("seconds must be a number"))?;
                m * 60.0 + s
            }
            None => t
                .parse()
                .map_err(|_| bad("time must be a number of seconds"))?,
        };
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(bad("times must not be negative"))
        }
    };
    let (base, inc) = (secs(time)?, secs(inc)?);
    let text = if moves > 0 {
        format!("{moves}/{base}+{inc}")
    } else {
        format!("{base}+{inc}")
    };
    let tc: TimeControl = text
        .parse()
        .map_err(|e: crate::play::clock::TimeControlError| invalid(flag, e.reason))?;
    Ok(Some(tc.to_string()))
}

/// An engine's own `-engine` keys (the `-each` keys go on top of them).
#[derive(Default)]
struct EngineKeys {
    keys: Vec<(String, String)>,
}

/// What the flags say, gathered in their order; [`translate`] then puts
/// the engines, the limits and the games together.
#[derive(Default)]
struct Gathered {
    t: Translation,
    raw: RawConfig,
    each: Vec<(String, String)>,
    engines: Vec<EngineKeys>,
    rounds: Option<u64>,
    /// `-games N` as given.
    games: Option<u64>,
    /// `-repeat [N]` as given (`Some(None)`: no value).
    repeat: Option<Option<u64>>,
    /// Games per round: `-games` or `-repeat`, the later one (fastchess
    /// stores both in one number).
    per_round: Option<u64>,
    colours: RawColours,
    sprt: Option<RawSprt>,
    adjudication: RawAdjudication,
    /// `-tb` and its companions, given in any order.
    tablebases: RawTablebases,
    tournament: Option<TournamentKind>,
    init_timeout_ms: Option<u64>,
}

/// Translate a fastchess / cutechess-cli argument list (without the
/// program name and `match`) with fastchess's meaning, for `karsinta
/// match`, whose result text stays Karsinta's unless `-output` says.
pub fn translate(args: &[String]) -> Result<Translation, FlagError> {
    translate_with(args, None)
}

/// Translate the argument list of `karsinta` installed as `tool`: that
/// tool's meaning and, unless `-output format=` says otherwise, its result
/// text.
pub fn translate_as(args: &[String], tool: Dialect) -> Result<Translation, FlagError> {
    translate_with(args, Some(tool))
}

/// `tool`: the tool `karsinta` is installed as; `None` for `karsinta match`
/// (fastchess's meaning, Karsinta's result text).
fn translate_with(args: &[String], tool: Option<Dialect>) -> Result<Translation, FlagError> {
    let mut g = Gathered::default();
    for group in &split_groups(args)? {
        g.take(group)?;
    }
    if g.t.help {
        return Ok(g.t);
    }
    let limits = g.build_engines()?;
    // `-each stderr=...` reaches every engine: one note is enough.
    g.t.notes.dedup();
    g.raw.time_control = engine_limits(&mut g.raw.engines, &limits)?;
    if let Some(m) = common_margin(&limits)? {
        g.raw.time_margin_ms = Some(parse_num("-each", "timemargin", &m)?);
    }
    // Installed as fastchess, a line without -rounds has fastchess's
    // default (2); `karsinta match` asks, as the tools disagree.
    if tool == Some(Dialect::Fastchess) {
        g.rounds.get_or_insert(2);
    }
    let (per_round, rounds, note) = match tool.unwrap_or_default() {
        Dialect::Fastchess => games_and_rounds(&g)?,
        Dialect::Cutechess => cutechess_games(&g)?,
    };
    g.t.notes.extend(note);
    if let Some(t) = tool {
        let o = g.raw.output.get_or_insert_with(RawOutput::default);
        o.format.get_or_insert(t.output());
    }
    let mut raw = g.raw;
    raw.games = Some(rounds * per_round);
    if per_round == 1 {
        g.colours.games_per_opening = Some(1);
    }
    if g.colours != RawColours::default() {
        raw.colours = Some(g.colours);
    }
    if let Some(mut s) = g.sprt {
        s.max_games = raw.games;
        raw.sprt = Some(s);
    }
    raw.tournament = Some(match (g.tournament, raw.engines.len()) {
        (_, 2) => TournamentKind::Match,
        (Some(k), _) => k,
        // fastchess's default.
        (None, _) => TournamentKind::RoundRobin,
    });
    if g.adjudication != RawAdjudication::default() {
        raw.adjudication = Some(g.adjudication);
    }
    raw.tablebases = tablebases(g.tablebases)?;
    if let Some(o) = &raw.output {
        if o.format.is_none_or(|f| f == OutputFormat::Karsinta)
            && (o.rating_interval.is_some() || o.score_interval.is_some())
        {
            g.t.notes.push(
                "-ratinginterval/-scoreinterval: Karsinta's result block is printed; \
                 -output format=fastchess (or cutechess) prints that tool's lines at these intervals"
                    .into(),
            );
        }
    }
    if raw.name.is_none() {
        raw.name = Some(default_name(&raw.engines));
    }
    let mut t = g.t;
    t.config = raw;
    Ok(t)
}

impl Gathered {
    /// One flag and its values.
    fn take(&mut self, g: &Group<'_>) -> Result<(), FlagError> {
        let f = g.flag;
        if let Some(&(_, why)) = IGNORED.iter().find(|(n, _)| *n == f) {
            self.t.notes.push(format!("{f}: ignored: {why}"));
            return Ok(());
        }
        if let Some(&(_, why)) = REFUSED.iter().find(|(n, _)| *n == f) {
            return Err(unsupported(f, why));
        }
        if own_flag(&mut self.t, g)? {
            return Ok(());
        }
        match f {
            "-engine" => self.engines.push(EngineKeys {
                keys: g.pairs(ENGINE_KEYS)?,
            }),
            "-each" => self.each.extend(g.pairs(ENGINE_KEYS)?),
            "-openings" => self.raw.openings = Some(openings_flag(g)?),
            "-rounds" => self.rounds = Some(g.number()?),
            "-games" => {
                let n = g.number()?;
                self.games = Some(n);
                self.per_round = Some(n);
            }
            "-repeat" => {
                let n = repeat_flag(g)?;
                self.repeat = Some(n);
                self.per_round = Some(n.unwrap_or(2));
            }
            "-noswap" => {
                g.none()?;
                self.colours.swap = Some(false);
            }
            "-reverse" => {
                g.none()?;
                self.colours.reverse = Some(true);
            }
            "-sprt" => self.sprt = Some(sprt_flag(g)?),
            "-draw" | "-resign" | "-maxmoves" => adjudication_flag(g, &mut self.adjudication)?,
            "-pgnout" => {
                let (out, opts) = pgnout_flag(g)?;
                self.t.pgnout = Some(out);
                self.raw.pgn = opts;
            }
            "-epdout" => self.raw.epd = Some(epdout_flag(g)?),
            "-output" | "-report" | "-ratinginterval" | "-scoreinterval" => {
                output_flag(g, self.raw.output.get_or_insert_with(RawOutput::default))?
            }
            "-tb" | "-tbpieces" | "-tbignore50" | "-tbadjudicate" => {
                tablebase_flag(g, &mut self.tablebases)?
            }
            "-check-mate-pvs" | "-strict" => {
                g.none()?;
                let checks = self.raw.checks.get_or_insert_with(RawChecks::default);
                if f == "-strict" {
                    checks.strict = Some(true);
                } else {
                    checks.mate_pvs = Some(true);
                }
            }
            _ => self.misc_flag(g)?,
        }
        Ok(())
    }

    /// The run's other settings: concurrency, seed, name, start-up time,
    /// pairing, and the flags that only accept fastchess's default.
    fn misc_flag(&mut self, g: &Group<'_>) -> Result<(), FlagError> {
        let f = g.flag;
        match f {
            "-concurrency" => self.raw.concurrency = Some(g.number()?),
            "-wait" => self.raw.game_wait_ms = Some(g.number()?),
            "-srand" | "-seed" => self.raw.seed = Some(g.number()?),
            "-event" => self.raw.name = Some(g.values.join(" ")),
            "-startup-ms" => self.init_timeout_ms = Some(g.number()?),
            "-tournament" => {
                self.tournament = Some(match g.one()? {
                    "roundrobin" | "round-robin" | "round_robin" => TournamentKind::RoundRobin,
                    "gauntlet" => TournamentKind::Gauntlet,
                    v => {
                        let why = "roundrobin or gauntlet (knockout and others are not offered)";
                        return Err(unsupported(f, format!("'{v}': {why}")));
                    }
                })
            }
            "-seeds" => {
                if g.number::<u32>()? != 1 {
                    return Err(unsupported(f, "a gauntlet has one seed, the first engine"));
                }
            }
            "-variant" => {
                let v = g.one()?;
                match Variant::from_flag(v) {
                    // Standard stays unwritten, as when the flag is absent.
                    Some(Variant::Standard) => {}
                    Some(variant) => self.raw.variant = Some(variant),
                    None => {
                        let why = format!("'{v}': standard or fischerandom (Chess960) only");
                        return Err(unsupported(f, why));
                    }
                }
            }
            other => {
                return Err(FlagError::Unknown {
                    flag: other.to_string(),
                    nearest: nearest(other, SUPPORTED.iter().copied()),
                })
            }
        }
        Ok(())
    }

    /// The engines into `raw.engines` (each `-engine`'s own keys, then the
    /// `-each` keys on top, as fastchess applies `-each` after every
    /// `-engine`; names made unique); returns each engine's limits.
    fn build_engines(&mut self) -> Result<Vec<RunLimits>, FlagError> {
        if self.engines.len() < 2 {
            return Err(invalid("-engine", "give at least two engines"));
        }
        let mut limits = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (i, e) in self.engines.iter().enumerate() {
            let (mut engine, mine) = engine_from_keys(
                i,
                &self.each,
                &e.keys,
                self.init_timeout_ms,
                &mut self.t.notes,
            )?;
            limits.push(mine);
            // Unique names (cutechess-cli allows two engines of one name).
            let base = engine.name.clone();
            let mut n = 2;
            while names.contains(&engine.name) {
                engine.name = format!("{base}-{n}");
                n += 1;
            }
            names.push(engine.name.clone());
            self.raw.engines.push(engine);
        }
        Ok(limits)
    }
}

/// Karsinta's own flags on a fastchess line; `false` if `g` is not one.
fn own_flag(t: &mut Translation, g: &Group<'_>) -> Result<bool, FlagError> {
    match g.flag {
        "--out" => t.out = Some(PathBuf::from(g.one()?)),
        "--quiet" | "-q" => {
            g.none()?;
            t.quiet = true
        }
        "--json" => {
            g.none()?;
            t.json = true
        }
        "--json-lines" => {
            g.none()?;
            t.json_lines = true
        }
        "--print-config" => {
            g.none()?;
            t.print_config = true
        }
        "-help" | "--help" | "-h" => t.help = true,
        "-force-concurrency" => {
            g.none()?;
            t.force_concurrency = true
        }
        f if f.starts_with("--") => {
            return Err(invalid(
                f,
                "with fastchess-style flags Karsinta takes only --out, --quiet, --json, --json-lines and --print-config",
            ))
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `-openings file= format= order= plies= start= policy=`.
fn openings_flag(g: &Group<'_>) -> Result<RawOpenings, FlagError> {
    let f = g.flag;
    let mut o = RawOpenings {
        file: String::new(),
        format: None,
        plies: None,
        order: None,
        start: None,
        checksum: None,
        entries: None,
    };
    for (k, v) in g.pairs(&["file", "format", "order", "plies", "start", "policy"])? {
        match k.as_str() {
            "file" => o.file = absolute(&v),
            "format" => {
                o.format = Some(match v.as_str() {
                    "epd" => OpeningFormat::Epd,
                    "pgn" => OpeningFormat::Pgn,
                    _ => return Err(invalid(f, format!("format={v}: epd or pgn"))),
                })
            }
            "order" => {
                o.order = Some(match v.as_str() {
                    "sequential" => OpeningOrder::Sequential,
                    "random" => OpeningOrder::Random,
                    _ => return Err(invalid(f, format!("order={v}: sequential or random"))),
                })
            }
            "plies" => o.plies = Some(parse_num(f, &k, &v)?),
            "start" => {
                let s: usize = parse_num(f, &k, &v)?;
                if s == 0 {
                    return Err(invalid(f, "start=0: openings count from 1"));
                }
                o.start = Some(s - 1);
            }
            _ if v == "default" => {}
            _ => {
                return Err(unsupported(
                    f,
                    format!("policy={v}: every game pair takes the next opening (policy=default)"),
                ))
            }
        }
    }
    if o.file.is_empty() {
        return Err(invalid(f, "needs file=FILE"));
    }
    Ok(o)
}

/// `-repeat [N]`: the games per round, 2 without a value (fastchess).
fn repeat_flag(g: &Group<'_>) -> Result<Option<u64>, FlagError> {
    match g.values.as_slice() {
        [] => Ok(None),
        [_] => g.number().map(Some),
        _ => Err(invalid(
            g.flag,
            format!("takes at most one value, got {}", g.values.join(" ")),
        )),
    }
}

/// `-sprt elo0= elo1= alpha= beta= model=`.
fn sprt_flag(g: &Group<'_>) -> Result<RawSprt, FlagError> {
    let f = g.flag;
    let mut s = RawSprt {
        elo0: f64::NAN,
        elo1: f64::NAN,
        alpha: 0.05,
        beta: 0.05,
        model: EloModel::Normalized,
        max_games: None,
    };
    for (k, v) in g.pairs(&["elo0", "elo1", "alpha", "beta", "model"])? {
        match k.as_str() {
            "elo0" => s.elo0 = parse_num(f, &k, &v)?,
            "elo1" => s.elo1 = parse_num(f, &k, &v)?,
            "alpha" => s.alpha = parse_num(f, &k, &v)?,
            "beta" => s.beta = parse_num(f, &k, &v)?,
            _ => {
                s.model = match v.as_str() {
                    "normalized" => EloModel::Normalized,
                    "logistic" => EloModel::Logistic,
                    "bayesian" => EloModel::Bayesian,
                    _ => {
                        return Err(invalid(
                            f,
                            format!("model={v}: normalized, logistic or bayesian"),
                        ))
                    }
                }
            }
        }
    }
    if s.elo0.is_nan() || s.elo1.is_nan() {
        return Err(invalid(f, "needs elo0= and elo1="));
    }
    Ok(s)
}

/// `-draw movenumber= movecount= score=`, `-resign movecount= score=
/// twosided=` and `-maxmoves N` into `adj`.
fn adjudication_flag(g: &Group<'_>, adj: &mut RawAdjudication) -> Result<(), FlagError> {
    let f = g.flag;
    match f {
        "-draw" => {
            // fastchess's defaults and its counter (DrawRule::Fastchess).
            let mut d = DrawAdjudication {
                move_number: 0,
                move_count: 1,
                score_cp: 0,
                rule: DrawRule::Fastchess,
            };
            for (k, v) in g.pairs(&["movenumber", "movecount", "score"])? {
                match k.as_str() {
                    "movenumber" => d.move_number = parse_num(f, &k, &v)?,
                    "movecount" => d.move_count = parse_num(f, &k, &v)?,
                    _ => d.score_cp = parse_num(f, &k, &v)?,
                }
            }
            adj.draw = Some(d);
        }
        "-resign" => {
            let mut r = ResignAdjudication {
                score_cp: 0,
                move_count: 1,
                two_sided: false,
            };
            for (k, v) in g.pairs(&["movecount", "score", "twosided"])? {
                match k.as_str() {
                    "movecount" => r.move_count = parse_num(f, &k, &v)?,
                    "score" => r.score_cp = parse_num(f, &k, &v)?,
                    _ => r.two_sided = parse_bool(f, &k, &v)?,
                }
            }
            adj.resign = Some(r);
        }
        _ => adj.max_moves = Some(g.number()?),
    }
    Ok(())
}

/// `-tb PATHS` (`:`-separated), `-tbpieces N` (0: no limit, as fastchess),
/// `-tbignore50`, `-tbadjudicate BOTH|WIN_LOSS|DRAW` into `tb`.
fn tablebase_flag(g: &Group<'_>, tb: &mut RawTablebases) -> Result<(), FlagError> {
    let f = g.flag;
    match f {
        "-tb" => {
            tb.paths = g
                .one()?
                .split(':')
                .filter(|p| !p.is_empty())
                .map(absolute)
                .collect();
            if tb.paths.is_empty() {
                return Err(invalid(f, "needs at least one folder"));
            }
        }
        "-tbpieces" => tb.pieces = Some(g.number::<u32>()?).filter(|&n| n != 0),
        "-tbignore50" => {
            g.none()?;
            tb.ignore_50_move = Some(true);
        }
        _ => {
            tb.adjudicate = Some(match g.one()? {
                "BOTH" | "both" => TbAdjudicate::Both,
                "WIN_LOSS" | "win_loss" => TbAdjudicate::WinLoss,
                "DRAW" | "draw" => TbAdjudicate::Draw,
                v => {
                    return Err(invalid(
                        f,
                        format!("'{v}': expected BOTH, WIN_LOSS or DRAW"),
                    ))
                }
            })
        }
    }
    Ok(())
}

/// The `tablebases:` section of the `-tb` flags (none without `-tb`).
fn tablebases(tb: RawTablebases) -> Result<Option<RawTablebases>, FlagError> {
    if !tb.paths.is_empty() {
        return Ok(Some(tb));
    }
    let companion = [
        ("-tbpieces", tb.pieces.is_some()),
        ("-tbignore50", tb.ignore_50_move.is_some()),
        ("-tbadjudicate", tb.adjudicate.is_some()),
    ];
    match companion.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(invalid(flag, "needs -tb PATHS")),
        None => Ok(None),
    }
}

/// `-pgnout [file=]NAME [append=true|false] [notation=san|lan|uci]
/// [nodes= seldepth= nps= hashfull= tbhits= pv= timeleft= latency= min=]`:
/// where the games go, and how `games.pgn` is written (the config's `pgn:`).
fn pgnout_flag(g: &Group<'_>) -> Result<(PgnOut, Option<PgnOptions>), FlagError> {
    let f = g.flag;
    let mut out = PgnOut {
        path: PathBuf::new(),
        append: true,
    };
    let mut opts = PgnOptions::default();
    for v in &g.values {
        let Some((k, val)) = v.split_once('=') else {
            if out.path.as_os_str().is_empty() {
                out.path = PathBuf::from(absolute(v));
                continue;
            }
            // cutechess-cli's `-pgnout FILE min`: the minimal PGN.
            if *v == "min" {
                opts.min = true;
                continue;
            }
            return Err(invalid(f, format!("'{v}' is not KEY=VALUE")));
        };
        let flag = |slot: &mut bool| -> Result<(), FlagError> {
            *slot = parse_bool(f, k, val)?;
            Ok(())
        };
        match k {
            "file" => out.path = PathBuf::from(absolute(val)),
            "append" => out.append = parse_bool(f, k, val)?,
            "notation" => {
                opts.notation = match val {
                    "san" => Notation::San,
                    "lan" => Notation::Lan,
                    "uci" => Notation::Uci,
                    _ => return Err(invalid(f, format!("notation={val}: san, lan or uci"))),
                }
            }
            "nodes" => flag(&mut opts.nodes)?,
            "seldepth" => flag(&mut opts.seldepth)?,
            "nps" => flag(&mut opts.nps)?,
            "hashfull" => flag(&mut opts.hashfull)?,
            "tbhits" => flag(&mut opts.tbhits)?,
            "pv" => flag(&mut opts.pv)?,
            "timeleft" => flag(&mut opts.timeleft)?,
            "latency" => flag(&mut opts.latency)?,
            "min" => flag(&mut opts.min)?,
            _ => {
                return Err(FlagError::UnknownKey {
                    flag: f.to_string(),
                    key: k.to_string(),
                    nearest: nearest(k, PGNOUT_KEYS.iter().copied()),
                })
            }
        }
    }
    if out.path.as_os_str().is_empty() {
        return Err(invalid(f, "needs file=FILE"));
    }
    Ok((out, Some(opts).filter(|o| *o != PgnOptions::default())))
}

/// `-epdout [file=]NAME [append=true|false]`: the config's `epd:`.
fn epdout_flag(g: &Group<'_>) -> Result<RawEpdOut, FlagError> {
    let f = g.flag;
    let mut out = RawEpdOut {
        file: String::new(),
        append: None,
    };
    for v in &g.values {
        match v.split_once('=') {
            None if out.file.is_empty() => out.file = absolute(v),
            Some(("file", p)) => out.file = absolute(p),
            Some(("append", b)) => out.append = Some(parse_bool(f, "append", b)?),
            Some((k, _)) => {
                return Err(FlagError::UnknownKey {
                    flag: f.to_string(),
                    key: k.to_string(),
                    nearest: nearest(k, ["file", "append"]),
                })
            }
            None => return Err(invalid(f, format!("'{v}' is not KEY=VALUE"))),
        }
    }
    if out.file.is_empty() {
        return Err(invalid(f, "needs file=FILE"));
    }
    Ok(out)
}

/// `-output format=fastchess|cutechess`, `-report penta=true|false`,
/// `-ratinginterval N`, `-scoreinterval N` (0: only at the end) into `out`.
fn output_flag(g: &Group<'_>, out: &mut RawOutput) -> Result<(), FlagError> {
    let f = g.flag;
    match f {
        "-ratinginterval" => out.rating_interval = Some(g.number()?),
        "-scoreinterval" => out.score_interval = Some(g.number()?),
        "-output" => {
            for (_, v) in g.pairs(&["format"])? {
                out.format = Some(match v.as_str() {
                    "fastchess" => OutputFormat::Fastchess,
                    "cutechess" => OutputFormat::Cutechess,
                    "karsinta" => OutputFormat::Karsinta,
                    _ => return Err(invalid(f, format!("format={v}: fastchess or cutechess"))),
                })
            }
        }
        _ => {
            for (k, v) in g.pairs(&["penta"])? {
                // fastchess turns penta=true off by itself where there are
                // no pairs; only `false` is a choice.
                out.penta = (!parse_bool(f, &k, &v)?).then_some(false);
            }
        }
    }
    Ok(())
}

/// Keys of `-pgnout`.
const PGNOUT_KEYS: &[&str] = &[
    "file", "append", "notation", "nodes", "seldepth", "nps", "hashfull", "tbhits", "pv",
    "timeleft", "latency", "min",
];

/// One engine's limits as fastchess keeps them: `tc=` sets the clock and
/// clears `st=`, `st=` (a time per move) wins over a clock, `nodes=` and
/// `depth=` (or `plies=`) are limits of their own beside them.
#[derive(Clone, Debug, Default, PartialEq)]
struct RunLimits {
    /// Karsinta's text form of `tc=` (`None` for `tc=inf`).
    clock: Option<String>,
    st: Option<String>,
    nodes: Option<String>,
    depth: Option<String>,
    timemargin: Option<String>,
}

impl RunLimits {
    /// Apply a limit key; `false` if `key` is not one.
    fn apply(&mut self, flag: &str, key: &str, value: &str) -> Result<bool, FlagError> {
        // fastchess: `nodes=0` and `depth=0` mean no such limit.
        let positive = |v: &str| Some(v.to_string()).filter(|v| v != "0");
        match key {
            "tc" => {
                self.clock = clock_tc(flag, value)?;
                self.st = None;
            }
            "st" => self.st = Some(value.to_string()),
            "nodes" => self.nodes = positive(value),
            "depth" | "plies" => self.depth = positive(value),
            "timemargin" => self.timemargin = Some(value.to_string()),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Karsinta's time control of these limits (`time_control` text).
    fn time_control(&self, engine: usize) -> Result<String, FlagError> {
        let mut parts: Vec<String> = Vec::new();
        match (&self.st, &self.clock) {
            (Some(st), _) => parts.push(format!("movetime={st}")),
            (None, Some(clock)) => parts.push(clock.clone()),
            (None, None) => {}
        }
        parts.extend(self.nodes.iter().map(|n| format!("nodes={n}")));
        parts.extend(self.depth.iter().map(|d| format!("depth={d}")));
        if parts.is_empty() {
            return Err(invalid(
                "-engine",
                format!(
                    "engine {} has no time control: give tc=, st=, nodes= or depth= (with -each or after its -engine)",
                    engine + 1
                ),
            ));
        }
        let text = parts.join(",");
        let tc: TimeControl = text
            .parse()
            .map_err(|e: crate::play::clock::TimeControlError| {
                invalid("-engine", format!("engine {}: {e}", engine + 1))
            })?;
        Ok(tc.to_string())
    }
}

/// Engine `i` (0-based) from its own `-engine` keys and the `-each` keys on
/// top (fastchess's order), with its limits.
fn engine_from_keys(
    i: usize,
    each: &[(String, String)],
    own: &[(String, String)],
    init_timeout_ms: Option<u64>,
    notes: &mut Vec<String>,
) -> Result<(RawEngine, RunLimits), FlagError> {
    let flag = "-engine";
    let mut engine = super::engine::blank();
    engine.init_timeout_ms = init_timeout_ms;
    let mut mine = RunLimits::default();
    for (k, v) in own.iter().chain(each) {
        if super::engine::apply_key(&mut engine, k, v).map_err(|why| unsupported(flag, why))? {
            if k == "dir" {
                // Absolute here: a printed config must not depend on
                // where it is saved.
                engine.dir = Some(absolute(v));
            }
            continue;
        }
        if mine.apply(flag, k, v)? {
            continue;
        }
        if k == "restart" {
            // Unset unless on, so configs without it keep their fingerprint.
            engine.restart = parse_bool(flag, k, v)?.then_some(true);
            continue;
        }
        if k == "stderr" {
            notes.push(format!(
                "{flag} stderr={v}: ignored: each engine's stderr is logged in the run folder"
            ));
        }
    }
    match (engine.kind, &engine.cmd) {
        (Some(RawKind::Inprocess), Some(_)) => {
            return Err(invalid(flag, "proto=inprocess takes no cmd="))
        }
        (Some(RawKind::Inprocess), None) => {}
        (_, None) => return Err(invalid(flag, format!("engine {} needs cmd=", i + 1))),
        (_, Some(c)) => {
            // A path stays a path wherever a printed config is saved; a
            // bare name is looked up in PATH as fastchess does. Both tools
            // start the engine in its `dir=`, so a relative path is taken
            // from there (OpenBench: `dir=Engines/ cmd=./dev`).
            if c.contains('/') {
                let within = engine.dir.as_deref().filter(|_| Path::new(c).is_relative());
                engine.cmd = Some(match within {
                    Some(dir) => Path::new(dir).join(c).display().to_string(),
                    None => absolute(c),
                });
            }
        }
    }
    if engine.name.is_empty() {
        engine.name = super::engine::default_name(&engine);
    }
    Ok((engine, mine))
}

/// The match's `time_control` (the first engine's limits) and, on every
/// engine whose limits differ, its own `time_control`: time and node odds.
fn engine_limits(engines: &mut [RawEngine], limits: &[RunLimits]) -> Result<String, FlagError> {
    let texts = limits
        .iter()
        .enumerate()
        .map(|(i, l)| l.time_control(i))
        .collect::<Result<Vec<_>, _>>()?;
    for (e, text) in engines.iter_mut().zip(&texts) {
        if *text != texts[0] {
            e.time_control = Some(text.clone());
        }
    }
    Ok(texts[0].clone())
}

/// `timemargin=`: one for the whole run in Karsinta.
fn common_margin(limits: &[RunLimits]) -> Result<Option<String>, FlagError> {
    let first = &limits[0].timemargin;
    match limits.iter().position(|l| l.timemargin != *first) {
        None => Ok(first.clone()),
        Some(i) => Err(unsupported(
            "-engine",
            format!(
                "engine {} has another timemargin= than engine 1: Karsinta has one time margin for the whole run (use -each timemargin=)",
                i + 1
            ),
        )),
    }
}

/// Games per round (1 or 2: the games from one opening) and rounds, read
/// as fastchess reads `-games`, `-repeat` and `-rounds`: the later of
/// `-games N` and `-repeat [N]` gives the games per round (default 2), and
/// more than 2 games per round are taken as the rounds, the rounds then as
/// the games per round (fastchess swaps the two numbers; the note says so).
fn games_and_rounds(g: &Gathered) -> Result<(u64, u64, Option<String>), FlagError> {
    let repeat_text = |r: &Option<u64>| match r {
        Some(n) => format!("-repeat {n}"),
        None => "-repeat".to_string(),
    };
    if let (Some(1), Some(r)) = (g.games, &g.repeat) {
        return Err(unsupported(
            "-games",
            format!(
                "-games 1 {}: fastchess reads it as -games {}, cutechess-cli as one game per round; write -games {}",
                repeat_text(r),
                r.unwrap_or(2),
                r.unwrap_or(2)
            ),
        ));
    }
    let Some(rounds) = g.rounds else {
        // cutechess-cli's `-games N` alone is N games in all.
        let hint = g.games.map_or_else(String::new, |n| {
            let per = g.repeat.map_or(1, |r| r.unwrap_or(2)).clamp(1, 2);
            let given = match &g.repeat {
                Some(r) => format!("-games {n} {}", repeat_text(r)),
                None => format!("-games {n}"),
            };
            format!(
                " ({given} without -rounds is {n} games in cutechess-cli: write -rounds {} -games {per})",
                (n / per).max(1)
            )
        });
        return Err(invalid(
            "-rounds",
            format!("missing: how many rounds (games per opening: -games)?{hint}"),
        ));
    };
    let per_round = g.per_round.unwrap_or(2);
    if per_round == 0 {
        return Err(invalid("-games", "must be at least 1"));
    }
    if rounds == 0 {
        return Err(invalid("-rounds", "must be at least 1"));
    }
    if per_round <= 2 {
        return Ok((per_round, rounds, None));
    }
    // fastchess: "wrong config, lets try to fix it".
    if rounds > 2 {
        return Err(unsupported(
            "-games",
            format!(
                "-games {per_round} -rounds {rounds}: at most 2 games per opening (fastchess reads \
                 -games {per_round} as -rounds {per_round} and refuses -games {rounds}); for \
                 {} games write -rounds {} -games 2",
                per_round * rounds,
                (per_round * rounds).div_ceil(2)
            ),
        ));
    }
    let note = format!(
        "-games {per_round}: read as fastchess reads it with -rounds {rounds}: -rounds {per_round} -games {rounds}"
    );
    Ok((rounds, per_round, Some(note)))
}

/// Games per opening and units, read as cutechess-cli reads `-games N`
/// (the games of each encounter per round, default 1), `-repeat [2]`
/// (each opening played twice, by both colour orders) and `-rounds R`
/// (default 1): `R * N` games, in pairs from one opening with `-repeat`.
fn cutechess_games(g: &Gathered) -> Result<(u64, u64, Option<String>), FlagError> {
    let games = g.games.unwrap_or(1);
    let rounds = g.rounds.unwrap_or(1);
    if games == 0 {
        return Err(invalid("-games", "must be at least 1"));
    }
    if rounds == 0 {
        return Err(invalid("-rounds", "must be at least 1"));
    }
    let per_opening = match g.repeat {
        None => 1,
        Some(None | Some(2)) => 2,
        Some(Some(1)) => 1,
        Some(Some(n)) => {
            return Err(unsupported(
                "-repeat",
                format!("-repeat {n}: at most 2 games per opening"),
            ))
        }
    };
    if per_opening == 2 && !games.is_multiple_of(2) {
        return Err(unsupported(
            "-games",
            format!(
                "-games {games} -repeat: an odd number of games leaves an opening played once; \
                 give an even -games"
            ),
        ));
    }
    Ok((per_opening, rounds * games / per_opening, None))
}

/// `A-vs-B` for a match, `FIRST-N` for more engines.
fn default_name(engines: &[RawEngine]) -> String {
    let n: Vec<&str> = engines.iter().map(|e| e.name.as_str()).collect();
    let name = if n.len() == 2 {
        format!("{}-vs-{}", n[0], n[1])
    } else {
        format!("{}-{}", n[0], engines.len())
    };
    name.replace(['/', '\\'], "_")
}

/// The YAML a user can save as a config file (paths are absolute).
pub fn config_yaml(t: &Translation, command_line: &str) -> String {
    let body = serde_yaml::to_string(&t.config).unwrap_or_default();
    format!("# Translated by karsinta from: {command_line}\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn tr(line: &str) -> Result<Translation, FlagError> {
        translate(&argv(line))
    }

    /// Installed under another tool's name, the schedule and the result
    /// text are that tool's: cutechess-cli's `-games N` is N games of each
    /// encounter per round, `-repeat` plays each opening twice, `-rounds`
    /// multiplies; fastchess's name keeps fastchess's reading and prints
    /// fastchess's lines; `-output format=` still wins.
    #[test]
    fn program_names_choose_the_tool_and_its_schedule() {
        assert_eq!(
            Dialect::from_program("/w/Client/cutechess-ob"),
            Some(Dialect::Cutechess)
        );
        assert_eq!(
            Dialect::from_program("cutechess-cli.exe"),
            Some(Dialect::Cutechess)
        );
        assert_eq!(
            Dialect::from_program("./fastchess"),
            Some(Dialect::Fastchess)
        );
        assert_eq!(
            Dialect::from_program("fast-chess"),
            Some(Dialect::Fastchess)
        );
        assert_eq!(Dialect::from_program("/usr/bin/karsinta"), None);
        let engines = "-engine cmd=a name=a -engine cmd=b name=b -each nodes=100";
        let cute =
            |rest: &str| translate_as(&argv(&format!("{engines} {rest}")), Dialect::Cutechess);
        let schedule = |t: &Translation| {
            let c = &t.config;
            (
                c.games,
                c.colours.as_ref().and_then(|c| c.games_per_opening),
                c.output.clone(),
            )
        };
        let out = |f| {
            Some(RawOutput {
                format: Some(f),
                ..RawOutput::default()
            })
        };
        assert_eq!(
            schedule(&cute("-repeat -games 16").unwrap()),
            (Some(16), None, out(OutputFormat::Cutechess))
        );
        assert_eq!(
            schedule(&cute("-games 3 -rounds 2").unwrap()),
            (Some(6), Some(1), out(OutputFormat::Cutechess))
        );
        assert_eq!(schedule(&cute("").unwrap()).0, Some(1));
        assert_eq!(
            schedule(&cute("-games 2 -repeat -rounds 5 -output format=fastchess").unwrap()),
            (Some(10), None, out(OutputFormat::Fastchess))
        );
        let e = cute("-games 3 -repeat").unwrap_err().to_string();
        assert!(e.contains("-games 3 -repeat: an odd number"), "{e}");
        let e = cute("-repeat 3 -games 6").unwrap_err().to_string();
        assert!(e.contains("-repeat 3: at most 2"), "{e}");
        // Installed as fastchess: its default of 2 rounds.
        let fast = translate_as(&argv(engines), Dialect::Fastchess).unwrap();
        assert_eq!(schedule(&fast).0, Some(4));
        // fastchess's reading of -games 8: swapped with the rounds (8
        // rounds of one game), and its lines.
        let fast = translate_as(
            &argv(&format!("{engines} -games 8 -rounds 1")),
            Dialect::Fastchess,
        )
        .unwrap();
        assert_eq!(
            schedule(&fast),
            (Some(8), Some(1), out(OutputFormat::Fastchess))
        );
        // `karsinta match` itself keeps Karsinta's block and still refuses
        // the ambiguous line.
        assert!(tr(&format!("{engines} -rounds 2"))
            .unwrap()
            .config
            .output
            .is_none());
        assert!(tr(&format!("{engines} -games 8 -repeat")).is_err());
    }

    /// cutechess-cli's `-pgnout FILE min` is fastchess's `min=true`.
    #[test]
    fn cutechess_pgnout_min_word() {
        let line = "-engine cmd=a -engine cmd=b -each nodes=1 -rounds 1 -pgnout games.pgn min";
        assert!(tr(line).unwrap().config.pgn.is_some_and(|p| p.min));
        assert!(
            tr("-engine cmd=a -engine cmd=b -each nodes=1 -rounds 1 -pgnout g.pgn fi").is_err()
        );
    }

    /// cutechess-cli's `conf=` (an engines.json entry) is refused with what
    /// to give instead, not as an unknown key.
    #[test]
    fn conf_is_refused_with_the_reason() {
        let e = tr("-engine conf=dev -engine cmd=b -each nodes=1 -rounds 1").unwrap_err();
        assert!(
            e.to_string()
                .contains("conf=dev: cutechess-cli's engines.json is not read"),
            "{e}"
        );
    }

    /// Both tools start an engine in its `dir=`: a relative `cmd=` path is
    /// taken from there, a bare name is looked up in PATH.
    #[test]
    fn a_relative_cmd_is_taken_from_the_engine_dir() {
        let t = tr(
            "-engine dir=/opt/ob/Engines/ cmd=./dev name=dev -engine cmd=stockfish dir=/x \
                    -each nodes=10 -rounds 1",
        )
        .unwrap();
        assert_eq!(
            t.config.engines[0].cmd.as_deref(),
            Some("/opt/ob/Engines/./dev")
        );
        assert_eq!(t.config.engines[1].cmd.as_deref(), Some("stockfish"));
    }

    #[test]
    fn detects_fastchess_style() {
        assert!(is_fastchess_style(&argv("-engine cmd=a -each tc=1")));
        assert!(!is_fastchess_style(&argv("configs/x.yaml -j 2 -q --out r")));
        assert!(!is_fastchess_style(&argv("x.yaml --seed -5")));
    }

    #[test]
    fn time_controls() {
        let c = |tc: &str| clock_tc("-each", tc);
        assert_eq!(c("10+0.1").unwrap().as_deref(), Some("10+0.1"));
        assert_eq!(c("40/60+0.6").unwrap().as_deref(), Some("40/60+0.6"));
        assert_eq!(c("0/5+0").unwrap().as_deref(), Some("5"));
        assert_eq!(c("1:30+1").unwrap().as_deref(), Some("90+1"));
        assert_eq!(c("40/2:00").unwrap().as_deref(), Some("40/120"));
        assert_eq!(c("inf").unwrap(), None);
        assert!(c("fast").unwrap_err().to_string().contains("tc=fast"));
        assert!(c("0+0").is_err());
    }

    #[test]
    fn a_full_line() {
        let t = tr(
            "-engine cmd=/e/dev name=dev option.Hash=16 -engine cmd=/e/base name=base \
             -each proto=uci tc=8+0.08 option.Threads=1 -rounds 500 -repeat -concurrency 4 \
             -openings file=/o/book.epd format=epd order=random start=3 \
             -sprt elo0=0 elo1=5 alpha=0.05 beta=0.1 model=logistic \
             -draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=400 \
             -maxmoves 200 -srand 7 -pgnout file=/o/out.pgn -recover -ratinginterval 10",
        )
        .unwrap();
        let c = &t.config;
        assert_eq!(c.name.as_deref(), Some("dev-vs-base"));
        assert_eq!(c.engines.len(), 2);
        assert_eq!(c.engines[0].cmd.as_deref(), Some("/e/dev"));
        assert_eq!(c.engines[0].options.len(), 2);
        assert_eq!(c.engines[1].options.len(), 1);
        assert_eq!(c.time_control, "8+0.08");
        assert_eq!(
            (c.games, c.concurrency, c.seed),
            (Some(1000), Some(4), Some(7))
        );
        let o = c.openings.as_ref().unwrap();
        assert_eq!((o.order, o.start), (Some(OpeningOrder::Random), Some(2)));
        let s = c.sprt.as_ref().unwrap();
        assert_eq!(
            (s.elo0, s.elo1, s.beta, s.model),
            (0.0, 5.0, 0.1, EloModel::Logistic)
        );
        assert_eq!(s.max_games, Some(1000));
        let a = c.adjudication.as_ref().unwrap();
        assert_eq!(a.max_moves, Some(200));
        assert!(!a.resign.unwrap().two_sided);
        assert_eq!(a.draw.unwrap().move_number, 40);
        assert_eq!(t.pgnout.as_ref().unwrap().path, PathBuf::from("/o/out.pgn"));
        assert_eq!(t.notes.len(), 2, "{:?}", t.notes); // -recover, -ratinginterval
                                                       // The printed YAML is a config the loader takes.
        let yaml = config_yaml(&t, "x");
        let back: RawConfig = serde_yaml::from_str(&yaml).unwrap();
        assert_eq!(&back, c);
    }

    #[test]
    fn refusals_name_the_flag() {
        let base = "-engine cmd=/a -engine cmd=/b -each tc=1+0.01 -rounds 2";
        let e = |extra: &str| tr(&format!("{base} {extra}")).unwrap_err().to_string();
        assert!(e("-concurency 2")
            .contains("-concurency: unknown flag (nearest supported: -concurrency"));
        assert!(e("-openings file=x formt=epd")
            .contains("formt: unknown key (nearest supported: format)"));
        assert!(e("-each nodse=5").contains("nearest supported: nodes"));
        assert!(e("-each nodes=x").contains("nodes=x"));
        assert!(e("-games 1 -repeat").contains("-games 1 -repeat"));
        assert!(e("-games 0").contains("-games: must be at least 1"));
        assert!(e("-games 4 -rounds 5").contains("-rounds 10 -games 2"));
        assert!(e("-noswap yes").contains("-noswap: takes no value"));
        assert!(e("-sprt elo0=0 elo1=5 model=bayes")
            .contains("model=bayes: normalized, logistic or bayesian"));
        assert!(e("-tb /syzygy -tbadjudicate WINS").contains("-tbadjudicate: 'WINS'"));
        assert!(e("-tbpieces 5").contains("-tbpieces: needs -tb PATHS"));
        assert!(e("-tb /syzygy -tbignore50 yes").contains("-tbignore50: takes no value"));
        assert!(e("-tb :").contains("-tb: needs at least one folder"));
        assert!(e("-openings file=x start=0").contains("count from 1"));
        assert!(e("-pgnout file=x mni=true")
            .contains("-pgnout mni: unknown key (nearest supported: min)"));
        assert!(e("-pgnout file=x notation=fig").contains("notation=fig: san, lan or uci"));
        assert!(e("-pgnout file=x nodes=yes").contains("nodes=yes: expected true or false"));
        assert!(e("-pgnout nodes=true").contains("-pgnout: needs file=FILE"));
        assert!(e("-epdout file=x apend=false")
            .contains("-epdout apend: unknown key (nearest supported: append)"));
        assert!(e("-epdout append=false").contains("-epdout: needs file=FILE"));
        assert!(e("--tc 1").contains("--tc"));
        let e = tr("-engine cmd=/a -engine cmd=/b nodes=5 -each tc=inf -rounds 2")
            .unwrap_err()
            .to_string();
        assert!(e.contains("-engine: engine 1 has no time control"), "{e}");
        let e = tr("-engine cmd=/a timemargin=5 -engine cmd=/b -each tc=1 -rounds 2")
            .unwrap_err()
            .to_string();
        assert!(e.contains("engine 2 has another timemargin="), "{e}");
        let e =
            tr("-engine cmd=/a -engine cmd=/b -each tc=1 -rounds 2 -engine proto=inprocess cmd=x")
                .unwrap_err()
                .to_string();
        assert!(e.contains("inprocess takes no cmd"), "{e}");
        assert!(tr("-engine cmd=/a -each tc=1 -rounds 2")
            .unwrap_err()
            .to_string()
            .contains("two engines"));
        assert!(tr("-engine cmd=/a -engine cmd=/b -rounds 2")
            .unwrap_err()
            .to_string()
            .contains("no time control"));
    }

    /// fastchess's `-games`, `-repeat`, `-rounds`, `-noswap`, `-reverse`.
    #[test]
    fn colour_schedule_flags() {
        let base = "-engine cmd=/a -engine cmd=/b -each tc=1+0.01";
        let t = |extra: &str| tr(&format!("{base} {extra}")).unwrap();
        let colours = |extra: &str| t(extra).config.colours;
        // The default: colour-swapped pairs, no colours block.
        let d = t("-rounds 3");
        assert_eq!((d.config.games, d.config.colours.clone()), (Some(6), None));
        // -games 1: each opening once, one game per round.
        let one = t("-rounds 5 -games 1");
        assert_eq!(one.config.games, Some(5));
        let c = one.config.colours.clone().unwrap();
        assert_eq!(
            (c.games_per_opening, c.swap, c.reverse),
            (Some(1), None, None)
        );
        // -repeat 1 is -games 1, as fastchess reads it; the later flag wins.
        assert_eq!(colours("-rounds 5 -repeat 1"), one.config.colours);
        assert_eq!(t("-rounds 5 -repeat 1 -games 2").config.games, Some(10));
        let c = colours("-rounds 2 -noswap -reverse").unwrap();
        assert_eq!(
            (c.games_per_opening, c.swap, c.reverse),
            (None, Some(false), Some(true))
        );
        // More than two games per round are rounds (fastchess swaps them).
        let swapped = t("-games 4 -rounds 2");
        assert_eq!(swapped.config.games, Some(8));
        assert_eq!(swapped.config.colours, None);
        assert!(
            swapped
                .notes
                .iter()
                .any(|n| n.contains("-rounds 4 -games 2")),
            "{:?}",
            swapped.notes
        );
        let per_game = t("-games 300 -rounds 1");
        assert_eq!(per_game.config.games, Some(300));
        assert_eq!(per_game.config.colours.unwrap().games_per_opening, Some(1));
        // The translation resolves to the schedule it says.
        let inprocess =
            "-engine proto=inprocess name=a -engine proto=inprocess name=b -each nodes=100";
        let cfg = crate::config::MatchConfig::resolve(
            tr(&format!("{inprocess} -rounds 3 -games 1 -noswap"))
                .unwrap()
                .config,
            Path::new("/x.yaml"),
            &crate::config::Overrides::default(),
        )
        .unwrap();
        assert_eq!(cfg.games, 3);
        assert_eq!(cfg.pairs_per_pairing(), 3);
        assert_eq!(cfg.colours.counting(), crate::stats::Counting::Trinomial);
        let back: RawConfig = serde_yaml::from_str(&config_yaml(&one, "x")).unwrap();
        assert_eq!(back, one.config);
    }

    #[test]
    fn variant_flag() {
        let base = "-engine cmd=/a -engine cmd=/b -each tc=1+0.01 -rounds 2";
        let t = tr(&format!("{base} -variant fischerandom")).unwrap();
        assert_eq!(t.config.variant, Some(Variant::Chess960));
        let back: RawConfig = serde_yaml::from_str(&config_yaml(&t, "x")).unwrap();
        assert_eq!(back, t.config);
        assert_eq!(
            tr(&format!("{base} -variant standard"))
                .unwrap()
                .config
                .variant,
            None
        );
        let e = tr(&format!("{base} -variant crazyhouse"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("-variant") && e.contains("'crazyhouse'"), "{e}");
    }

    /// fastchess's -pgnout keys shape the config's `pgn:` section; file= and
    /// append= stay the copy's.
    #[test]
    fn pgnout_keys() {
        let base = "-engine cmd=/a -engine cmd=/b -each tc=1+0.01 -rounds 2";
        let t = tr(&format!(
            "{base} -pgnout file=/x/o.pgn append=false notation=lan nodes=true seldepth=true \
             nps=true hashfull=true tbhits=true pv=true timeleft=true latency=true min=false"
        ))
        .unwrap();
        assert_eq!(
            t.pgnout,
            Some(PgnOut {
                path: "/x/o.pgn".into(),
                append: false
            })
        );
        let o = t.config.pgn.unwrap();
        assert_eq!(o.notation, Notation::Lan);
        assert!(o.nodes && o.seldepth && o.nps && o.hashfull && o.tbhits);
        assert!(o.pv && o.timeleft && o.latency && !o.min);
        let back: RawConfig = serde_yaml::from_str(&config_yaml(&t, "x")).unwrap();
        assert_eq!(back, t.config);
        // Only file= (or notation=san): no pgn section, the PGN as always.
        let t = tr(&format!("{base} -pgnout o.pgn notation=san")).unwrap();
        assert_eq!(t.config.pgn, None);
        assert!(t.pgnout.unwrap().append);
        let t = tr(&format!("{base} -epdout file=/x/f.epd append=false")).unwrap();
        assert_eq!(
            t.config.epd,
            Some(RawEpdOut {
                file: "/x/f.epd".into(),
                append: Some(false)
            })
        );
        let back: RawConfig = serde_yaml::from_str(&config_yaml(&t, "x")).unwrap();
        assert_eq!(back, t.config);
        let t = tr(&format!("{base} -pgnout file=o.pgn min=true notation=uci")).unwrap();
        let o = t.config.pgn.unwrap();
        assert!(o.min && o.notation == Notation::Uci && !o.nodes);
    }

    /// fastchess's output flags: the config's `output:` section.
    #[test]
    fn output_flags() {
        let base = "-engine cmd=/a -engine cmd=/b -each tc=1+0.01 -rounds 2";
        let t = tr(&format!(
            "{base} -output format=cutechess -ratinginterval 5 -scoreinterval 0 -report penta=false"
        ))
        .unwrap();
        assert_eq!(
            t.config.output,
            Some(RawOutput {
                format: Some(OutputFormat::Cutechess),
                rating_interval: Some(5),
                score_interval: Some(0),
                penta: Some(false),
            })
        );
        assert!(t.notes.is_empty(), "{:?}", t.notes);
        let back: RawConfig = serde_yaml::from_str(&config_yaml(&t, "x")).unwrap();
        assert_eq!(back, t.config);
        // penta=true is fastchess's default, turned off where there are no pairs.
        let t = tr(&format!(
            "{base} -output format=fastchess -report penta=true"
        ))
        .unwrap();
        assert_eq!(t.config.output.unwrap().penta, None);
        // An interval alone keeps Karsinta's block, and says so.
        let t = tr(&format!("{base} -ratinginterval 10")).unwrap();
        assert!(t
            .notes
            .iter()
            .any(|n| n.contains("-output format=fastchess")));
        let e = tr(&format!("{base} -output format=xml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("-output: format=xml: fastchess or cutechess"),
            "{e}"
        );
        let e = tr(&format!("{base} -report pnta=true"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("-report pnta: unknown key (nearest supported: penta)"),
            "{e}"
        );
        assert_eq!(tr(base).unwrap().config.output, None);
    }

    #[test]
    fn tablebase_flags() {
        let base = "-engine cmd=/a -engine cmd=/b -each tc=1+0.01 -rounds 2";
        let t = tr(&format!(
            "{base} -tbpieces 4 -tb /tb/345:/tb/6 -tbignore50 -tbadjudicate WIN_LOSS"
        ))
        .unwrap();
        assert_eq!(
            t.config.tablebases,
            Some(RawTablebases {
                paths: vec!["/tb/345".into(), "/tb/6".into()],
                pieces: Some(4),
                ignore_50_move: Some(true),
                adjudicate: Some(TbAdjudicate::WinLoss),
            })
        );
        // fastchess's defaults: no piece limit, the 50-move rule, both results.
        let t = tr(&format!("{base} -tb /tb -tbpieces 0")).unwrap();
        assert_eq!(
            t.config.tablebases,
            Some(RawTablebases {
                paths: vec!["/tb".into()],
                ..RawTablebases::default()
            })
        );
        let t = tr(&format!("{base} -tb /tb -tbadjudicate DRAW")).unwrap();
        let tb = t.config.tablebases.as_ref().unwrap();
        assert_eq!(tb.adjudicate, Some(TbAdjudicate::Draw));
        let back: RawConfig = serde_yaml::from_str(&config_yaml(&t, "x")).unwrap();
        assert_eq!(back, t.config);
        assert_eq!(tr(base).unwrap().config.tablebases, None);
    }

    /// Per-engine limits with fastchess's meaning: `-each` is applied after
    /// every `-engine` (its keys win), `tc=` with `nodes=` keeps both,
    /// `st=` wins over a clock unless a later `tc=` clears it.
    #[test]
    fn per_engine_limits() {
        let t = tr("-engine cmd=/a tc=10+0.1 -engine cmd=/b tc=5+0.05 -rounds 2").unwrap();
        let c = &t.config;
        assert_eq!(c.time_control, "10+0.1");
        assert_eq!(c.engines[0].time_control, None);
        assert_eq!(c.engines[1].time_control.as_deref(), Some("5+0.05"));
        // Node odds under one clock from -each.
        let t = tr("-engine cmd=/a nodes=5000 -engine cmd=/b nodes=500 -each tc=8+0.08 -rounds 1")
            .unwrap();
        assert_eq!(t.config.time_control, "8+0.08,nodes=5000");
        assert_eq!(
            t.config.engines[1].time_control.as_deref(),
            Some("8+0.08,nodes=500")
        );
        // -each wins over -engine, wherever it stands on the line.
        let t = tr("-each tc=4+0.04 -engine cmd=/a tc=10+0.1 -engine cmd=/b -rounds 1").unwrap();
        assert_eq!(t.config.time_control, "4+0.04");
        assert_eq!(t.config.engines[0].time_control, None);
        let t =
            tr("-engine cmd=/a option.Hash=8 -engine cmd=/b -each option.Hash=16 tc=1 -rounds 1")
                .unwrap();
        assert_eq!(
            t.config.engines[0].options["Hash"],
            serde_yaml::Value::String("16".into())
        );
        // st= wins over the clock; a later tc= clears it.
        let t = tr("-engine cmd=/a tc=10 st=0.5 -engine cmd=/b st=0.5 tc=10 -rounds 1").unwrap();
        assert_eq!(t.config.time_control, "movetime=0.5");
        assert_eq!(t.config.engines[1].time_control.as_deref(), Some("10"));
        // depth= and plies= are one limit; nodes=0 is none, as in fastchess.
        let t = tr("-engine cmd=/a plies=7 nodes=0 -engine cmd=/b depth=7 -each st=1 -rounds 1")
            .unwrap();
        assert_eq!(t.config.time_control, "movetime=1,depth=7");
        assert_eq!(t.config.engines[1].time_control, None);
        // The translation resolves: the second engine plays at odds.
        let t = tr("-engine proto=inprocess name=a tc=10+0.1 -engine proto=inprocess name=b tc=5+0.05 -rounds 1")
            .unwrap();
        let cfg = crate::config::MatchConfig::resolve(
            t.config,
            Path::new("/x.yaml"),
            &crate::config::Overrides::default(),
        )
        .unwrap();
        assert_eq!(cfg.settings.tc_of("a").to_string(), "10+0.1");
        assert_eq!(cfg.settings.tc_of("b").to_string(), "5+0.05");
    }

    #[test]
    fn limits_and_names() {
        let t =
            tr("-engine cmd=/x/o9 -engine cmd=/x/o9 -each tc=inf nodes=5000 -rounds 3").unwrap();
        assert_eq!(t.config.time_control, "nodes=5000");
        assert_eq!(t.config.engines[1].name, "o9-2");
        assert_eq!(t.config.games, Some(6));
        let t = tr("-engine cmd=a plies=6 -engine cmd=b plies=6 -rounds 1 -tournament gauntlet")
            .unwrap();
        assert_eq!(t.config.time_control, "depth=6");
        assert_eq!(t.config.tournament, Some(TournamentKind::Match));
        assert_eq!(
            t.config.engines[0].cmd.as_deref(),
            Some("a"),
            "bare names stay bare"
        );
        let t = tr("-engine proto=inprocess name=dev -engine proto=inprocess name=base option.see_prune=false \
             -each st=0.05 -rounds 1 -engine cmd=/c name=c -tournament gauntlet --out r --quiet")
            .unwrap();
        assert_eq!(t.config.time_control, "movetime=0.05");
        assert_eq!(t.config.tournament, Some(TournamentKind::Gauntlet));
        assert_eq!(t.out, Some(PathBuf::from("r")));
        assert!(t.quiet);
    }

    /// Command lines from public engine repositories' test scripts, as
    /// their shells pass them (quotes removed).
    #[test]
    fn real_command_lines() {
        // Altanis/sacre_dieu sprt/sprt.sh (fastchess).
        let t = tr("-engine name=Aspect cmd=releases/v11 -engine name=BlueGarbageBall cmd=releases/v10 \
             -games 2 -rounds 50000 -pgnout sprt/pgnout.txt -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
             -each proto=uci tc=8+0.08 -openings order=random file=sprt/openings.epd format=epd \
             -randomseed -concurrency 6 -ratinginterval 10")
        .unwrap();
        assert_eq!(
            (t.config.games, t.config.time_control.as_str()),
            (Some(100_000), "8+0.08")
        );
        assert_eq!(t.config.sprt.as_ref().unwrap().model, EloModel::Normalized);
        assert!(t.config.engines[0]
            .cmd
            .as_ref()
            .unwrap()
            .ends_with("/releases/v11"));
        // Sp00ph/icarus sprt/stc_nonreg.sh (fastchess).
        let t = tr("-engine cmd=engines/icarus-dev name=IcarusDev -engine cmd=engines/icarus-main name=IcarusMain \
             -each tc=8+0.08 option.MoveOverhead=10 -rounds 50000 -concurrency 12 \
             -openings order=random file=books/UHO_Lichess_4852_v1.epd -sprt elo0=-5 elo1=0 alpha=0.05 beta=0.05 \
             -draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=400")
        .unwrap();
        let r = t.config.adjudication.as_ref().unwrap().resign.unwrap();
        assert_eq!((r.score_cp, r.move_count, r.two_sided), (400, 3, false));
        assert_eq!(
            t.config.engines[1].options["MoveOverhead"],
            serde_yaml::Value::String("10".into())
        );
        // Altanis/sacre_dieu sprt/debug.sh (cutechess-cli).
        let t = tr("-engine name=BlueCannonBall cmd=target/release/sacre_dieu -engine name=Aspect cmd=target/release/sacre_dieu \
             -games 2 -rounds 50000 -pgnout sprt/pgnout.txt -each proto=uci tc=8+0.08 stderr=sprt/stderr.txt \
             -openings order=random file=sprt/openings.epd format=epd -concurrency 6 -ratinginterval 10")
        .unwrap();
        assert!(t.notes.iter().any(|n| n.contains("stderr=")));
        // DeveloperPaul123/Chess-Challenge Scripts/CompareEngines.ps1 (cutechess-cli).
        let t = tr("-engine name=MyBot cmd=bin/Chess-Challenge.exe arg=uci arg=MyBot \
             -engine name=Tier2 cmd=bin/Chess-Challenge.exe arg=uci arg=NegamaxTier2Bot \
             -each proto=uci tc=0/5+0 -maxmoves 2000 -games 2 -repeat -resultformat wide2 \
             -ratinginterval 20 -rounds 500 -concurrency 10 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 \
             -pgnout out.pgn")
        .unwrap();
        assert_eq!(t.config.time_control, "5");
        assert_eq!(t.config.engines[1].args, ["uci", "NegamaxTier2Bot"]);
        // mathmoi/oxide9 scripts (cutechess-cli): -repeat 2 plays pairs;
        // -games 100 -repeat 1 has no colour-swapped pairs and is refused.
        let t = tr("-engine cmd=o9-dev -engine cmd=o9-pv0 -each proto=uci tc=1+0.5 -games 2 -rounds 2000 \
             -repeat 2 -maxmoves 250 -openings file=Hyat_4000_openings.epd format=epd order=sequential \
             -pgnout sprt.pgn -concurrency 15 -ratinginterval 10 -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05")
        .unwrap();
        assert_eq!(t.config.games, Some(4000));
        let e = tr("-engine cmd=o9-dev -engine cmd=o9-dev -each proto=uci tc=1+0.8 -games 100 \
             -openings file=Hyat_4000_openings.epd format=epd order=random -repeat 1 -pgnout cutechess.pgn -concurrency 15")
        .unwrap_err();
        assert!(e.to_string().contains("-repeat 1"), "{e}");
        // A cutechess-cli line from a public gist (casdc): -games 50000 -repeat.
        let e = tr("-engine name=a proto=uci cmd=a.exe stderr=a_stderr.txt -engine name=b proto=uci cmd=b.exe \
             -openings file=8moves_v3.pgn format=pgn order=random -resign movecount=3 score=400 \
             -draw movenumber=40 movecount=3 score=10 -concurrency 11 -ratinginterval 10 -games 50000 \
             -repeat -each tc=8+0.08 -sprt elo0=-10 elo1=0 alpha=0.05 beta=0.05")
        .unwrap_err();
        assert!(e.to_string().contains("-rounds 25000 -games 2"), "{e}");
    }
}
