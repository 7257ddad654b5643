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

use std::path::PathBuf;

use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::players::PlayerKind;
use karsinta_harness::tournament::{run_match, MatchError, RunOptions};

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
    if !resume && std::fs::metadata(out_dir.join("ledger.jsonl")).is_ok_and(|m| m.len() > 0) {
        return usage(format!(
            "{} already holds a run; continue it with --resume or choose another --out",
            out_dir.display()
        ));
    }
    for (i, e) in cfg.engines.iter().enumerate() {
        if !matches!(e.kind, PlayerKind::InProcess(_)) && !e.cmd.is_file() {
            return usage(format!(
                "engines[{i}].cmd: engine '{}' not found: {}",
                e.name,
                e.cmd.display()
            ));
        }
    }

    let interrupt = super::install_interrupt_handler()?;
    if !args.quiet {
        eprintln!("karsinta match: {} -> {}", cfg.name, out_dir.display());
    }
    let opts = RunOptions {
        out_dir: out_dir.clone(),
        resume,
        quiet: args.quiet,
        interrupt: Some(interrupt),
        ..RunOptions::default()
    };
    let summary = run_match(&cfg, &opts).map_err(|e| match e {
        // An engine that cannot play the match as configured (an option it
        // does not advertise, a limit its protocol lacks): a setup error.
        MatchError::Unsupported { .. } => {
            anyhow::Error::new(super::UsageError(format!("match {}: {e}", cfg.name)))
        }
        e => anyhow::Error::new(e).context(format!("match {}", cfg.name)),
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", summary.text_block());
        println!("Run   | {} ({})", out_dir.display(), summary.status);
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
