//! What the subcommands share: the usage error (exit 2), the match flags of
//! `ab` and `gate`, the Ctrl-C handler of every command that plays games,
//! and the `report.html` every run folder ends with.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use karsinta_harness::config::Overrides;

/// A mistake in the user's input (bad flag value, inconsistent options).
/// `main` prints it as one line and exits with status 2, the same status clap
/// uses for its own parse errors; any other error exits with 1.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The match flags `ab` and `gate` take, as `match` does (which declares
/// its own: they conflict with `--resume` there).
#[derive(clap::Args, Debug)]
pub struct RunFlags {
    /// Most games (overrides the config's cap).
    #[arg(long)]
    pub games: Option<u64>,
    /// Games played at once (default: number of cores).
    #[arg(long, short = 'j')]
    pub concurrency: Option<usize>,
    /// Seed of the opening order.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Time control: nodes=N, depth=N, movetime=S, BASE+INC, MOVES/BASE+INC.
    #[arg(long, value_name = "TC")]
    pub tc: Option<String>,
    /// Run folder (default: results/<config name>-<UTC time>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress output (CI).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl RunFlags {
    /// The config keys these flags override.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            games: self.games,
            concurrency: self.concurrency,
            seed: self.seed,
            time_control: self.tc.clone(),
        }
    }
}

/// Shorthand for returning a [`UsageError`] from a `run` function.
pub fn usage<T>(message: impl Into<String>) -> anyhow::Result<T> {
    Err(UsageError(message.into()).into())
}

/// Exit status after Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Every command that leaves a run folder ends by writing its `report.html`;
/// a page that cannot be written costs a warning, never the run's result.
pub fn write_report(dir: &Path) {
    if let Err(e) = karsinta_harness::report::write(dir) {
        eprintln!("warning: {}: report.html not written: {e}", dir.display());
    }
}

/// Installs the Ctrl-C / SIGTERM handler of a command that plays games and
/// returns the flag it raises. The first signal raises the flag and only then
/// kills every engine (so the match loop, seeing the flag, drops the games
/// those kills end), and the run finishes its record: ledger, `games.pgn` and
/// `summary.json` agree and say `interrupted`. A second signal exits at once;
/// no engine outlives the harness either way.
pub fn install_interrupt_handler() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let raised = Arc::clone(&flag);
    ctrlc::set_handler(move || {
        if raised.swap(true, Ordering::SeqCst) {
            karsinta_harness::players::kill_all_children();
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
        karsinta_harness::players::kill_all_children();
        eprintln!("\ninterrupted: recording the finished game pairs (again to quit at once)");
    })
    .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))?;
    Ok(flag)
}
