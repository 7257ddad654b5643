//! `karsinta ab`: build two versions of an engine, print their bench
//! signatures, play the config's SPRT match between them and print the
//! result block for the commit message.
//!
//! ```text
//! karsinta ab --base REV --dev REV [--config configs/ab.yaml] [--repo PATH]
//! karsinta ab --base-cmd PATH --dev-cmd PATH [...]
//! karsinta ab --base-params A.yaml --dev-params B.yaml [...]
//! ```
//! The work is [`karsinta_harness::run::ab::run_ab`].

use std::path::PathBuf;

use std::sync::atomic::Ordering;

use karsinta_harness::players::EngineError;
use karsinta_harness::run::ab::{run_ab, AbError, AbRequest, Prepared, Side};
use karsinta_harness::run::tally::{RunStatus, SprtVerdict};

use crate::common::UsageError;

/// Flags of `karsinta ab`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Base revision (anything `git rev-parse` accepts).
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Dev revision.
    #[arg(long, value_name = "REV")]
    pub dev: Option<String>,
    /// Base engine binary instead of a revision.
    #[arg(long, value_name = "PATH")]
    pub base_cmd: Option<PathBuf>,
    /// Dev engine binary instead of a revision.
    #[arg(long, value_name = "PATH")]
    pub dev_cmd: Option<PathBuf>,
    /// Base parameter file for the in-process engine.
    #[arg(long, value_name = "FILE")]
    pub base_params: Option<PathBuf>,
    /// Dev parameter file for the in-process engine.
    #[arg(long, value_name = "FILE")]
    pub dev_params: Option<PathBuf>,
    /// Match config with an sprt: block and optionally a build: block
    /// (default: configs/ab.yaml in the repository).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The engine's git checkout.
    #[arg(long, default_value = ".", value_name = "PATH")]
    pub repo: PathBuf,
    #[command(flatten)]
    pub run: crate::common::RunFlags,
    /// Build and bench only; play no games.
    #[arg(long)]
    pub bench_only: bool,
    /// Bench depth (default: the config's `build.bench`, karsinta-engine's
    /// depth 10). Weak parameter sets take far longer per depth.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub bench_depth: Option<u32>,
}

/// Maps setup errors the user can fix to [`UsageError`] (exit 2).
pub fn classify(e: AbError) -> anyhow::Error {
    match e {
        AbError::Config(_) | AbError::Side { .. } => UsageError(e.to_string()).into(),
        // An option the engine does not advertise, a limit it lacks.
        AbError::EngineStart {
            source: EngineError::Unsupported(_),
            ..
        } => UsageError(e.to_string()).into(),
        other => other.into(),
    }
}

/// The config: `--config`, else `configs/ab.yaml` (or the given default
/// name) in the repository.
pub fn config_path(
    given: Option<PathBuf>,
    repo: &std::path::Path,
    default_name: &str,
) -> anyhow::Result<PathBuf> {
    if let Some(c) = given {
        return Ok(c);
    }
    let p = repo.join("configs").join(default_name);
    if p.is_file() {
        Ok(p)
    } else {
        Err(UsageError(format!(
            "no --config given and {} does not exist",
            p.display()
        ))
        .into())
    }
}

fn print_side(p: &Prepared) {
    println!(
        "{:<5} | {} | {} | {}",
        p.role,
        p.engine.name,
        p.origin,
        p.bench_text()
    );
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let dev = Side::from_flags("dev", args.dev, args.dev_cmd, args.dev_params).map_err(classify)?;
    let base =
        Side::from_flags("base", args.base, args.base_cmd, args.base_params).map_err(classify)?;
    let config = config_path(args.config, &args.repo, "ab.yaml")?;
    let req = AbRequest {
        config,
        overrides: args.run.overrides(),
        repo: args.repo,
        base,
        dev,
        out_dir: args.run.out,
        quiet: args.run.quiet,
        bench_only: args.bench_only,
        bench_depth: args.bench_depth,
    };
    let interrupt = crate::common::install_interrupt_handler()?;
    let quiet = args.run.quiet;
    let mut log = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let outcome = match run_ab(&req, Some(interrupt.clone()), &mut log) {
        Ok(o) => o,
        // A signal during a build or bench makes those fail: say what happened.
        Err(_) if interrupt.load(Ordering::SeqCst) => {
            eprintln!("interrupted");
            std::process::exit(i32::from(crate::common::EXIT_INTERRUPTED));
        }
        Err(e) => return Err(classify(e)),
    };
    print_side(&outcome.dev);
    print_side(&outcome.base);
    if let Some(s) = &outcome.summary {
        println!();
        print!("{}", outcome.block());
        if let Some(sp) = &s.sprt {
            println!(
                "\nResult: {} ({} Elo bounds, dev's point of view)",
                match (sp.decision, s.status) {
                    (SprtVerdict::H1, _) => "H1 accepted: dev is better",
                    (SprtVerdict::H0, _) => "H0 accepted: dev is not better",
                    // `--resume` continues the test where it stopped.
                    (_, RunStatus::Interrupted) | (SprtVerdict::Interrupted, _) => {
                        "undecided: interrupted before the SPRT decided"
                    }
                    _ => "inconclusive: no decision within the game cap",
                },
                sp.model.name()
            );
        }
        crate::common::write_report(&outcome.out_dir);
        println!("Run   | {} ({})", outcome.out_dir.display(), s.status);
        if s.status == RunStatus::Interrupted {
            std::process::exit(i32::from(crate::common::EXIT_INTERRUPTED));
        }
    }
    Ok(())
}
