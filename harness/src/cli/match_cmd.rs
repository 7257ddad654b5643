//! `karsinta match`: play a match, gauntlet or round robin from a YAML
//! config, or resume an interrupted run.
//!
//! ```text
//! karsinta match CONFIG.yaml [--games N] [--concurrency N] [--seed S] [--tc TC] [--out DIR] [--quiet] [--json]
//! karsinta match --resume results/RUN [--concurrency N] [--quiet] [--json]
//! ```
//! The work is [`karsinta_harness::tournament::run_match`]; this file only
//! maps flags onto [`Overrides`] and [`RunOptions`], installs the Ctrl-C
//! handler and prints the result. An interrupted run exits with status 130
//! after its summary is written.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::fastchess;
use karsinta_harness::players::PlayerKind;
use karsinta_harness::tournament::{run_match, RunOptions};

use super::usage;

/// Flags of `karsinta match`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Match config (YAML); see configs/ for examples.
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub config: Option<PathBuf>,
    /// Continue the interrupted run in this folder from its ledger.
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Games per pairing (with SPRT: the most games).
    #[arg(long, conflicts_with = "resume")]
    pub games: Option<u64>,
    /// Games played at once (default: number of cores).
    #[arg(long, short = 'j')]
    pub concurrency: Option<usize>,
    /// Seed of the opening order.
    #[arg(long, conflicts_with = "resume")]
    pub seed: Option<u64>,
    /// Time control: nodes=N, depth=N, movetime=S, BASE+INC, MOVES/BASE+INC.
    #[arg(long, value_name = "TC", conflicts_with = "resume")]
    pub tc: Option<String>,
    /// Run folder (default: results/<config name>-<UTC time>).
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// No progress bar (CI).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print summary.json instead of the text result.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let overrides = Overrides {
        games: args.games,
        concurrency: args.concurrency,
        seed: args.seed,
        time_control: args.tc.clone(),
    };
    let (cfg, out_dir, resume) = match &args.resume {
        Some(dir) => {
            let path = dir.join("config.yaml");
            if !path.is_file() {
                return usage(format!(
                    "{} is not a run folder (no config.yaml)",
                    dir.display()
                ));
            }
            let cfg = MatchConfig::load(&path, &overrides)
                .map_err(|e| super::UsageError(e.to_string()))?;
            (cfg, dir.clone(), true)
        }
        None => {
            let path = args.config.as_ref().expect("clap requires CONFIG");
            let cfg = MatchConfig::load(path, &overrides)
                .map_err(|e| super::UsageError(e.to_string()))?;
            let out = args.out.clone().unwrap_or_else(|| cfg.default_out_dir());
            (cfg, out, false)
        }
    };
    if resume {
        check_engines(&cfg)?;
    } else {
        check_new_run(&cfg, &out_dir)?;
    }
    play(&cfg, &out_dir, resume, args.quiet, args.json)
}

/// A new run needs an empty folder and engines that exist.
fn check_new_run(cfg: &MatchConfig, out_dir: &Path) -> anyhow::Result<()> {
    if std::fs::metadata(out_dir.join("ledger.jsonl")).is_ok_and(|m| m.len() > 0) {
        return usage(format!(
            "{} already holds a run; continue it with --resume or choose another --out",
            out_dir.display()
        ));
    }
    check_engines(cfg)
}

fn check_engines(cfg: &MatchConfig) -> anyhow::Result<()> {
    for (i, e) in cfg.engines.iter().enumerate() {
        if !matches!(e.kind, PlayerKind::InProcess(_)) && !e.cmd.is_file() {
            return usage(format!(
                "engines[{i}].cmd: engine '{}' not found: {}",
                e.name,
                e.cmd.display()
            ));
        }
    }
    Ok(())
}

/// Play the run and print its result.
fn play(
    cfg: &MatchConfig,
    out_dir: &Path,
    resume: bool,
    quiet: bool,
    json: bool,
) -> anyhow::Result<()> {
    let summary = play_match(cfg, out_dir, resume, quiet)?;
    finish(&summary, out_dir, json)
}

/// Play (or continue) the run in `out_dir`.
fn play_match(
    cfg: &MatchConfig,
    out_dir: &Path,
    resume: bool,
    quiet: bool,
) -> anyhow::Result<karsinta_harness::summary::Summary> {
    let interrupt = super::install_interrupt_handler()?;
    if !quiet {
        eprintln!("karsinta match: {} -> {}", cfg.name, out_dir.display());
    }
    let opts = RunOptions {
        out_dir: out_dir.to_path_buf(),
        resume,
        quiet,
        interrupt: Some(interrupt),
        ..RunOptions::default()
    };
    let summary = run_match(cfg, &opts).with_context(|| format!("match {}", cfg.name))?;
    if let Err(e) = karsinta_harness::report::write(out_dir) {
        eprintln!("warning: report.html not written: {e}");
    }
    Ok(summary)
}

/// Print the result; an interrupted run exits with status 130.
fn finish(
    summary: &karsinta_harness::summary::Summary,
    out_dir: &Path,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(summary)?);
    } else {
        print!("{}", summary.text_block());
        println!("Run   | {} ({})", out_dir.display(), summary.status);
        println!("Report| {}", out_dir.join("report.html").display());
    }
    if summary.status == "interrupted" {
        eprintln!(
            "interrupted after {} games; continue with: karsinta match --resume {}",
            summary.games,
            out_dir.display()
        );
        std::process::exit(i32::from(super::EXIT_INTERRUPTED));
    }
    Ok(())
}

/// `karsinta match -engine cmd=... -each tc=... -rounds N ...`: a
/// fastchess / cutechess-cli command line (see
/// [`karsinta_harness::fastchess`]) on the same runner and run folder.
pub fn run_fastchess(argv: &[String]) -> anyhow::Result<()> {
    let t = fastchess::translate(argv).map_err(|e| super::UsageError(e.to_string()))?;
    if t.help {
        print!("{}", fastchess::HELP);
        return Ok(());
    }
    let cfg = MatchConfig::resolve(
        t.config.clone(),
        Path::new("<command line>"),
        &Overrides::default(),
    )
    .map_err(|e| super::UsageError(e.to_string()))?;
    if t.print_config {
        let line = std::iter::once("karsinta match".to_string())
            .chain(argv.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        print!("{}", fastchess::config_yaml(&t, &line));
        return Ok(());
    }
    for note in &t.notes {
        eprintln!("note: {note}");
    }
    let out_dir = t.out.clone().unwrap_or_else(|| cfg.default_out_dir());
    check_new_run(&cfg, &out_dir)?;
    let summary = play_match(&cfg, &out_dir, false, t.quiet)?;
    if let Some(p) = &t.pgnout {
        copy_pgn(&out_dir.join("games.pgn"), p)?;
    }
    finish(&summary, &out_dir, t.json)
}

/// `-pgnout`: the run's games, appended (or written) to the user's file.
fn copy_pgn(from: &Path, to: &fastchess::PgnOut) -> anyhow::Result<()> {
    use std::io::Write as _;
    let text = std::fs::read(from).with_context(|| format!("{}", from.display()))?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(to.append)
        .truncate(!to.append)
        .open(&to.path)
        .with_context(|| format!("-pgnout {}", to.path.display()))?;
    f.write_all(&text)
        .with_context(|| format!("-pgnout {}", to.path.display()))?;
    Ok(())
}
