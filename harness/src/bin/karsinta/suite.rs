//! `karsinta suite`: run an EPD test suite (`bm`/`am` operations) through
//! an engine and count the solved positions.
//!
//! ```text
//! karsinta suite FILE.epd [--engine SPEC] [--params FILE] [--option NAME=VALUE ...]
//!                (--nodes N | --depth N | --movetime MS) [-j N] [--json FILE] [--quiet]
//! ```
//! The work is [`karsinta_harness::play::suite`]; here only flags, printing and
//! exit codes: 0 when the run completed (whatever the score), 2 for a bad
//! flag, an unreadable or bad suite, or an engine that cannot start.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use karsinta_harness::play::suite::{
    engine_spec, limit_text, load_suite, result_line, run_suite, LineLayout, SuiteSettings,
};
use karsinta_harness::players::MoveLimit;

use crate::common::{usage, UsageError};

const AFTER_HELP: &str = "\
Each position is searched from a fresh engine state (ucinewgame), so results do not
depend on order or -j. A position is solved when the engine's move is one of the bm
moves (if any) and none of the am moves. The suite is checked before any search: a
malformed FEN, a bm/am move that is not legal SAN, or a line with neither bm nor am
refuses the file, listing every bad line. An engine that cannot start exits 2; a
crash or hang on one position is that position's failure and the engine restarts.

Examples:
  karsinta suite wac.epd --engine inprocess --nodes 100000 -j 2
  karsinta suite wac.epd --engine cmd=/usr/games/stockfish --depth 12
  karsinta suite bk.epd --engine cmd=./myengine,option.Hash=64 --movetime 1000 --json out.json";

/// Flags of `karsinta suite`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = AFTER_HELP,
    group(clap::ArgGroup::new("limit").required(true).args(["nodes", "depth", "movetime"]))
)]
pub struct Args {
    /// EPD file: a FEN (4 fields) and operations `bm SAN...;` / `am SAN...;` / `id "...";`.
    pub file: PathBuf,
    /// `inprocess` (the bundled engine) or `cmd=PATH[,name=N][,proto=uci|xboard][,arg=A][,dir=D][,option.NAME=VALUE]`.
    #[arg(long, default_value = "inprocess", value_name = "SPEC")]
    pub engine: String,
    /// Parameter file (YAML) for the in-process engine.
    #[arg(long, value_name = "FILE")]
    pub params: Option<PathBuf>,
    /// Engine option (UCI setoption; in-process: Hash or a parameter), repeatable.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Nodes per position.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Depth per position.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=255))]
    pub depth: Option<u32>,
    /// Milliseconds per position.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
    /// Positions searched at once, each by its own engine instance.
    #[arg(long, short = 'j', default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: u64,
    /// Declare the engine hung after this long on one position [default:
    /// 60000, with --movetime: the move time + 5000].
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_ms: Option<u64>,
    /// Write every result (id, fen, bm, am, move, solved, score, depth, nodes, time, error) as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Print only the summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let limit = match (args.nodes, args.depth, args.movetime) {
        (Some(n), None, None) => MoveLimit::Nodes(n),
        (None, Some(d), None) => MoveLimit::Depth(d),
        (None, None, Some(ms)) => MoveLimit::MoveTime(Duration::from_millis(ms)),
        _ => return usage("give exactly one of --nodes, --depth, --movetime"),
    };
    let timeout = match args.timeout_ms {
        Some(ms) => Duration::from_millis(ms),
        None => SuiteSettings::default_timeout(&limit),
    };
    if let MoveLimit::MoveTime(t) = &limit {
        if timeout <= *t {
            return usage("--timeout-ms must be longer than --movetime");
        }
    }
    let mut options = Vec::new();
    for o in &args.options {
        match o.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                options.push((k.trim().to_string(), v.to_string()));
            }
            _ => return usage(format!("--option {o}: expected NAME=VALUE")),
        }
    }
    if let Some(json) = &args.json {
        check_writable(json)?;
    }
    let spec = engine_spec(&args.engine, args.params.as_deref(), &options).map_err(UsageError)?;
    let records = load_suite(&args.file).map_err(|e| UsageError(e.to_string()))?;
    let settings = SuiteSettings {
        limit: limit.clone(),
        timeout,
        jobs: usize::try_from(args.jobs).unwrap_or(1),
    };
    if !args.quiet {
        eprintln!(
            "karsinta suite: {} ({} positions), engine {}, {}, {} job(s)",
            args.file.display(),
            records.len(),
            spec.name,
            limit_text(&limit),
            settings.jobs.min(records.len())
        );
    }
    let layout = LineLayout::for_records(&records);
    let quiet = args.quiet;
    let mut print = |r: &karsinta_harness::play::suite::PositionResult| {
        if !quiet {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", result_line(r, layout));
            let _ = out.flush();
        }
    };
    let report =
        run_suite(&spec, &records, &settings, &mut print).map_err(|e| UsageError(e.to_string()))?;
    if !quiet {
        println!();
    }
    print!("{}", report.summary_text());
    if let Some(path) = &args.json {
        let mut value = serde_json::to_value(&report)?;
        value["file"] = args.file.display().to_string().into();
        let text = serde_json::to_string_pretty(&value)? + "\n";
        std::fs::write(path, text).with_context(|| format!("--json {}", path.display()))?;
    }
    Ok(())
}

/// The JSON file's folder must exist before a long run, not after it.
fn check_writable(path: &Path) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return usage(format!(
            "--json {}: folder {} does not exist",
            path.display(),
            dir.display()
        ));
    }
    if path.is_dir() {
        return usage(format!("--json {}: is a folder", path.display()));
    }
    Ok(())
}
