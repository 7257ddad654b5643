//! `karsinta-dist`: the command line over the karsinta-dist library.
//! Exit status: 0 done, 1 runtime failure (database gone too long), 2 setup
//! error (config, engines, signatures, connection string).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use karsinta_dist::db::{self, Db, DbError};
use karsinta_dist::worker::{run_worker, WorkerOptions};
use karsinta_dist::{queue, report, spsa};
use karsinta_harness::config::{MatchConfig, Overrides};

#[derive(Parser)]
#[command(
    name = "karsinta-dist",
    version,
    about = "Matches and SPSA on many machines, PostgreSQL as the ledger"
)]
struct Cli {
    /// libpq connection string or postgresql:// URL (default: $KARSINTA_DATABASE_URL).
    /// Prefer the variable or --database-file: a flag shows in `ps`.
    #[arg(long, global = true)]
    database: Option<String>,
    /// A file holding the connection string (first line).
    #[arg(long, global = true)]
    database_file: Option<PathBuf>,
    /// Seconds to keep retrying an unreachable database.
    #[arg(long, global = true, default_value_t = 600)]
    patience: u64,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Create or upgrade the schema.
    Migrate,
    /// Create a test from a match config (its `dist:` block sets batches and
    /// leases), or an SPSA test from a `karsinta tune spsa` config.
    Create {
        config: PathBuf,
        /// Test name (default: the config's `name`).
        #[arg(long)]
        name: Option<String>,
    },
    /// Claim, play and complete batches.
    Worker {
        /// Only this test (default: the oldest open one, then the next).
        #[arg(long)]
        test: Option<String>,
        /// Exit when no work is left (for batch schedulers).
        #[arg(long)]
        fleet: bool,
        /// Games at once (default: the config's `concurrency`).
        #[arg(long)]
        concurrency: Option<usize>,
    },
    /// Progress, Elo, LLR and per-worker figures.
    Status { test: Option<String> },
    /// Write a test as a normal run folder with its report.html (match:
    /// games.pgn, ledger.jsonl, summary.json; SPSA: the `tune spsa` files).
    Export {
        test: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Stop a test: its workers end at their next claim or heartbeat.
    Stop { test: String },
}

fn url(cli: &Cli) -> Result<String, DbError> {
    match &cli.database_file {
        Some(p) => std::fs::read_to_string(p)
            .map_err(|e| DbError::Invalid(format!("{}: {e}", p.display())))?
            .lines()
            .next()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .ok_or_else(|| DbError::Invalid(format!("{}: empty", p.display()))),
        None => db::database_url(cli.database.as_deref()),
    }
}

fn run(cli: &Cli) -> Result<ExitCode, (u8, String)> {
    let setup = |e: DbError| (2, e.to_string());
    let runtime = |e: DbError| match e {
        DbError::Unreachable { .. } | DbError::Sql(_) => (1, e.to_string()),
        e => (2, e.to_string()),
    };
    let url = url(cli).map_err(setup)?;
    let patience = Duration::from_secs(cli.patience);
    match &cli.cmd {
        Cmd::Migrate => {
            let mut c =
                postgres::Client::connect(&url, postgres::NoTls).map_err(|e| runtime(e.into()))?;
            let found = db::migrate(&mut c).map_err(runtime)?;
            println!("schema version {found} -> {}", db::SCHEMA_VERSION);
        }
        Cmd::Create { config, name } => {
            let text = std::fs::read_to_string(config)
                .map_err(|e| (2, format!("{}: {e}", config.display())))?;
            if spsa::is_spsa_config(&text) {
                // Checked before connecting: bad input is a setup error.
                let run = spsa::SpsaRun::load(&text, config, None, None).map_err(setup)?;
                let name = name.clone().unwrap_or_else(|| run.cfg.name.clone());
                let mut db = Db::open(&url, patience).map_err(runtime)?;
                let t = spsa::create(&mut db, &name, config, &run).map_err(runtime)?;
                println!(
                    "created SPSA test {}: {} iterations of {} pairs, window {}",
                    t.name, t.batches, t.batch_pairs, t.window_batches
                );
            } else {
                let cfg = MatchConfig::from_yaml(&text, config, &Overrides::default())
                    .map_err(|e| (2, e.to_string()))?;
                let name = name.clone().unwrap_or_else(|| cfg.name.clone());
                let mut db = Db::open(&url, patience).map_err(runtime)?;
                let t = karsinta_dist::create_test(&mut db, &name, &cfg).map_err(runtime)?;
                println!(
                    "created test {}: {} pairs in {} batches of {}",
                    t.name, t.total_pairs, t.batches, t.batch_pairs
                );
            }
        }
        Cmd::Worker {
            test,
            fleet,
            concurrency,
        } => {
            let stop = Arc::new(AtomicBool::new(false));
            let flag = stop.clone();
            let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
            let opts = WorkerOptions {
                test: test.clone(),
                fleet: *fleet,
                concurrency: *concurrency,
                patience,
                stop: Some(stop),
                ..WorkerOptions::new(&url)
            };
            let r = run_worker(&opts).map_err(|e| {
                let code = if e.is_setup() { 2 } else { 1 };
                (code, e.to_string())
            })?;
            eprintln!(
                "worker done: {} batches completed, {} rejected, {} pairs, {} database round trips",
                r.batches_completed, r.batches_rejected, r.pairs, r.round_trips
            );
        }
        Cmd::Status { test } => {
            let mut db = Db::open(&url, patience).map_err(runtime)?;
            let names: Vec<String> = match test {
                Some(t) => vec![t.clone()],
                None => db
                    .run(queue::all_tests)
                    .map_err(runtime)?
                    .into_iter()
                    .map(|t| t.name)
                    .collect(),
            };
            for n in names {
                let text = db.run(|c| report::status_text(c, &n)).map_err(runtime)?;
                println!("{text}");
            }
        }
        Cmd::Export { test, out } => {
            let mut db = Db::open(&url, patience).map_err(runtime)?;
            let line = db
                .run(|c| {
                    let t = queue::test_by_name(c, test)?;
                    if t.is_spsa() {
                        let s = spsa::export(c, &t, out)?;
                        Ok(format!(
                            "SPSA, {} of {} iterations applied",
                            s.applied, s.iterations
                        ))
                    } else {
                        Ok(report::export(c, test, out)?.progress_line())
                    }
                })
                .map_err(runtime)?;
            // As every karsinta command that leaves a run folder: a page
            // that cannot be written costs a warning, not the export.
            if let Err(e) = karsinta_harness::report::write(out) {
                eprintln!("warning: {}: report.html not written: {e}", out.display());
            }
            println!("{}: {line}", out.display());
        }
        Cmd::Stop { test } => {
            let mut db = Db::open(&url, patience).map_err(runtime)?;
            if !db
                .run(|c| queue::stop(c, test, "stopped by karsinta-dist stop"))
                .map_err(runtime)?
            {
                return Err((2, format!("no test named {test}")));
            }
            println!("test {test} stopped");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(c) => c,
        Err((code, msg)) => {
            eprintln!("karsinta-dist: {msg}");
            ExitCode::from(code)
        }
    }
}
