//! `karsinta-dist`: the command line over the karsinta-dist library, one
//! function per subcommand. Exit status: 0 done, 1 runtime failure
//! (database gone too long), 2 setup error (config, engines, signatures,
//! connection string).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use karsinta_dist::db::{self, Db, DbError};
use karsinta_dist::kinds::spsa_revision::TUNED;
use karsinta_dist::kinds::TestKind;
use karsinta_dist::revisions::create::RevisionRequest;
use karsinta_dist::worker::{run_worker, WorkerOptions};
use karsinta_dist::{export, queue, status, web};
use karsinta_harness::players::build::default_cache_dir;

#[derive(Parser)]
#[command(
    name = "karsinta-dist",
    version,
    about = "Matches, SPSA and datagen on many machines, PostgreSQL as the ledger"
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
    /// leases), an SPSA test from a `karsinta tune spsa` config, or a
    /// datagen test from a `karsinta datagen` config; with --repo, a test
    /// of git revisions that each worker builds (A/B with --dev/--base,
    /// gate-style with --candidate/--baseline, SPSA of one with --rev).
    Create {
        /// The config (or --config FILE).
        config: Option<PathBuf>,
        /// The config, as `karsinta ab --config` takes it.
        #[arg(long = "config", value_name = "FILE")]
        config_flag: Option<PathBuf>,
        /// Test name (default: the config's `name`).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        revisions: RevisionArgs,
        #[command(flatten)]
        queue: QueueArgs,
    },
    /// Change a test's priority or throughput weight (workers follow at
    /// their next batch).
    Set {
        test: String,
        /// Workers take the highest priority first.
        #[arg(long, allow_negative_numbers = true)]
        priority: Option<i32>,
        /// Weight among the tests of its priority.
        #[arg(long)]
        throughput: Option<f64>,
    },
    /// Claim, play and complete batches.
    Worker {
        /// Only this test (default: the queue's choice by priority and
        /// throughput share, re-asked at every batch).
        #[arg(long)]
        test: Option<String>,
        /// Exit when no work is left (for batch schedulers).
        #[arg(long)]
        fleet: bool,
        /// Games at once (default: the config's `concurrency`).
        #[arg(long)]
        concurrency: Option<usize>,
        /// Build cache for tests of revisions (fetched repositories in
        /// repos/, builds by commit; default: karsinta ab's,
        /// ~/.cache/karsinta/builds).
        #[arg(long, value_name = "DIR")]
        build_cache: Option<PathBuf>,
        #[command(flatten)]
        machine: MachineArgs,
    },
    /// Progress, Elo, LLR and per-worker figures.
    Status { test: Option<String> },
    /// Write a test as a normal run folder with its report.html (match:
    /// games.pgn, ledger.jsonl, summary.json; SPSA: the `tune spsa` files;
    /// datagen: the `karsinta datagen` run folder, without a page).
    Export {
        test: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Stop a test: its workers end at their next claim or heartbeat.
    Stop { test: String },
    /// Approve a test made with `create --hold`: workers may claim it.
    Approve { test: String },
    /// Take a worker's batches out of a match test's counts and put them
    /// back in the queue (fishtest's purge); the purge is recorded.
    Purge {
        test: String,
        /// The worker (its id in `status`); without it, fishtest's rule
        /// picks: crashes and time losses, else the worst residual when the
        /// chi-squared test fails (p < 0.001) or a residual passes 7.
        #[arg(long, conflicts_with = "auto", required_unless_present = "auto")]
        worker: Option<i64>,
        /// Let fishtest's rule choose (what a cron job runs).
        #[arg(long)]
        auto: bool,
    },
    /// The live view: pages and JSON of every test and machine over HTTP.
    Serve {
        /// Address to listen on (port 0: any free port, printed at start).
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: String,
        /// A file whose first line is the token that authorises writes
        /// (default: $KARSINTA_DIST_TOKEN; neither: read-only).
        #[arg(long)]
        token_file: Option<PathBuf>,
        /// Request threads, each with its own database connection.
        #[arg(long, default_value_t = 4)]
        threads: usize,
    },
}

/// A test of two git revisions (`karsinta ab --base REV --dev REV` on
/// the fleet).
#[derive(clap::Args)]
struct RevisionArgs {
    /// A git repository (any URL git can fetch: file://, ssh, https; or a
    /// local folder): the test plays two of its revisions, each worker
    /// building them as the config's build: block says.
    #[arg(long, value_name = "URL")]
    repo: Option<String>,
    /// Base revision (anything `git rev-parse` accepts in the repository).
    #[arg(long, value_name = "REV", requires = "repo")]
    base: Option<String>,
    /// Dev revision (the first engine: figures are from its point of view).
    #[arg(long, value_name = "REV", requires = "repo")]
    dev: Option<String>,
    /// An SPSA test of one revision (with a `karsinta tune spsa` config):
    /// the revision whose build is tuned, its parameters set as UCI options.
    #[arg(long, value_name = "REV", requires = "repo", conflicts_with_all = ["base", "dev", "baseline", "candidate"])]
    rev: Option<String>,
    /// A gate-style test (`karsinta gate --baseline REV`): the baseline
    /// revision.
    #[arg(long, value_name = "REV", requires = "repo", conflicts_with_all = ["base", "dev"])]
    baseline: Option<String>,
    /// A gate-style test's candidate revision (the first engine); the
    /// config's gate: block and the gate's default SPRT apply.
    #[arg(long, value_name = "REV", requires = "repo", conflicts_with_all = ["base", "dev"])]
    candidate: Option<String>,
    /// This machine's build cache (default: karsinta ab's,
    /// ~/.cache/karsinta/builds).
    #[arg(long, value_name = "DIR", requires = "repo")]
    build_cache: Option<PathBuf>,
    /// Build and bench both revisions here even where a commit message
    /// states `Bench: N` (for a build.bench other than the one those lines
    /// quote).
    #[arg(long, requires = "repo")]
    own_bench: bool,
}

impl RevisionArgs {
    /// The request, if --repo was given (with both revisions).
    fn request(&self) -> Result<Option<RevisionRequest>, Failure> {
        let Some(repo) = &self.repo else {
            return Ok(None);
        };
        let gate = self.candidate.is_some() || self.baseline.is_some();
        let sides = if let Some(rev) = &self.rev {
            vec![(TUNED.into(), rev.clone())]
        } else if gate {
            let (Some(c), Some(b)) = (&self.candidate, &self.baseline) else {
                return Err(setup(
                    "--repo: give both --candidate REV and --baseline REV (a gate-style test)",
                ));
            };
            vec![
                ("candidate".into(), c.clone()),
                ("baseline".into(), b.clone()),
            ]
        } else {
            let (Some(base), Some(dev)) = (&self.base, &self.dev) else {
                return Err(setup(
                    "--repo: give both --base REV and --dev REV (or --candidate and --baseline; \
                     --rev REV for an SPSA test)",
                ));
            };
            vec![("dev".into(), dev.clone()), ("base".into(), base.clone())]
        };
        let cache = self
            .build_cache
            .clone()
            .unwrap_or_else(|| default_cache_dir(Path::new(".")));
        Ok(Some(RevisionRequest {
            repo: repo.clone(),
            sides,
            cache,
            own_bench: self.own_bench,
            gate,
        }))
    }
}

/// How a new test shares the fleet, and the machine it needs.
#[derive(clap::Args)]
struct QueueArgs {
    /// Workers take the open tests of the highest priority first.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    priority: i32,
    /// Weight among the tests of its priority (game slots are shared in
    /// proportion).
    #[arg(long, default_value_t = queue::catalog::DEFAULT_THROUGHPUT)]
    throughput: f64,
    /// Only machines with at least this many cores.
    #[arg(long, default_value_t = 0)]
    min_cores: u32,
    /// Only machines with at least this much memory (MiB, or with a G/M
    /// suffix: 8G).
    #[arg(long, value_parser = memory_mb)]
    min_memory: Option<u64>,
    /// Only machines with Syzygy tables (`worker --syzygy`).
    #[arg(long)]
    require_syzygy: bool,
    /// The speed (bench nodes per second) the test's clock is meant for
    /// (default: this machine's, measured; fixed-node tests keep none).
    #[arg(long)]
    reference_nps: Option<u64>,
    /// `auto`: when the test ends (its last batch joins the completed
    /// prefix, or the SPRT decides) it purges the workers fishtest's rule
    /// picks, as `purge --auto` would, and runs again if any was purged;
    /// `manual` (default): only `karsinta-dist purge` purges.
    #[arg(long, value_name = "WHEN", value_parser = ["manual", "auto"], default_value = "manual")]
    purge: String,
    /// Hold the test until `karsinta-dist approve` (or the live view's
    /// approve): no worker claims it before (OpenBench's approval).
    #[arg(long)]
    hold: bool,
}

/// `8G`, `512M`, `2048` (MiB).
fn memory_mb(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mul) = match t.char_indices().last() {
        Some((i, 'G' | 'g')) => (&t[..i], 1024),
        Some((i, 'M' | 'm')) => (&t[..i], 1),
        _ => (t, 1),
    };
    num.trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mul))
        .ok_or_else(|| format!("'{s}' is not a memory size (MiB, or 8G, 512M)"))
}

/// This machine as the queue sees it.
#[derive(clap::Args)]
struct MachineArgs {
    /// Folders of Syzygy tables here (DIR[:DIR...]); tests that require
    /// Syzygy go only to machines with tables.
    #[arg(long, value_delimiter = ':')]
    syzygy: Vec<PathBuf>,
    /// Bench runs at start (median speed and spread).
    #[arg(long, default_value_t = karsinta_dist::speed::DEFAULT_RUNS)]
    bench_runs: usize,
    /// Bench spread ((max - min) / median) above which this machine is
    /// noisy and takes only fixed-node or fixed-depth tests.
    #[arg(long, default_value_t = karsinta_dist::speed::DEFAULT_NOISY_SPREAD)]
    noisy_spread: f64,
    /// For testing: take this speed instead of measuring it.
    #[arg(long)]
    assume_nps: Option<u64>,
    /// For testing: take this bench spread instead of measuring it.
    #[arg(long)]
    assume_spread: Option<f64>,
}

/// A failed command: its exit status and its one-line message.
struct Failure {
    code: u8,
    message: String,
}

/// Bad input: exit status 2.
fn setup(e: impl std::fmt::Display) -> Failure {
    Failure {
        code: 2,
        message: e.to_string(),
    }
}

/// The database gone too long (or a statement failed): exit status 1;
/// other errors are bad input.
fn runtime(e: DbError) -> Failure {
    let code = match e {
        DbError::Unreachable { .. } | DbError::Sql(_) => 1,
        _ => 2,
    };
    Failure {
        code,
        message: e.to_string(),
    }
}

/// The connection string: `--database-file`'s first line, else the flag or
/// the environment.
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

/// Where and how patiently to reach the database.
struct Conn {
    url: String,
    patience: Duration,
}

impl Conn {
    fn open(&self) -> Result<Db, Failure> {
        Db::open(&self.url, self.patience).map_err(runtime)
    }
}

fn migrate(conn: &Conn) -> Result<(), Failure> {
    let mut c =
        postgres::Client::connect(&conn.url, postgres::NoTls).map_err(|e| runtime(e.into()))?;
    let found = db::migrate(&mut c).map_err(runtime)?;
    println!("schema version {found} -> {}", db::SCHEMA_VERSION);
    Ok(())
}

/// The config of `create`: positional or `--config`, not both.
fn create_config(given: Option<&Path>, flag: Option<&Path>) -> Result<PathBuf, Failure> {
    match (given, flag) {
        (Some(c), None) | (None, Some(c)) => Ok(c.to_path_buf()),
        (Some(_), Some(_)) => Err(setup("create: give the config once (CONFIG or --config)")),
        (None, None) => Err(setup("create: give a config (CONFIG or --config FILE)")),
    }
}

fn create(
    conn: &Conn,
    config: &Path,
    name: Option<&str>,
    revisions: Option<&RevisionRequest>,
    q: &QueueArgs,
) -> Result<(), Failure> {
    let text =
        std::fs::read_to_string(config).map_err(|e| setup(format!("{}: {e}", config.display())))?;
    // Checked before connecting: bad input is a setup error.
    let mut kind = TestKind::load(&text, config).map_err(setup)?;
    if let Some(req) = revisions {
        let mut log = |line: &str| eprintln!("{line}");
        kind = kind.with_revisions(req, None, &mut log).map_err(setup)?;
    }
    let auto_purge = q.purge == "auto";
    let unpurged = match kind {
        TestKind::Spsa(_) => Some("an SPSA test applies each batch as an iteration"),
        TestKind::Datagen(_) => Some("a datagen test has no results to judge a worker by"),
        _ => None,
    };
    if let (true, Some(why)) = (auto_purge, unpurged) {
        return Err(setup(format!(
            "--purge auto: {why}; only match tests can be purged"
        )));
    }
    let name = name.map_or_else(|| kind.name().to_string(), str::to_string);
    let share = queue::Share {
        priority: q.priority,
        throughput: queue::Share::check_throughput(q.throughput)
            .map_err(|e| setup(format!("--throughput: {e}")))?,
        min_cores: q.min_cores,
        min_memory_mb: q.min_memory.unwrap_or(0),
        require_syzygy: q.require_syzygy,
    };
    if q.reference_nps == Some(0) {
        return Err(setup("--reference-nps: must be positive"));
    }
    // Only a clock is scaled: a fixed-node test needs no reference speed.
    let reference_nps = if kind.fixed_limit() {
        None
    } else {
        Some(q.reference_nps.unwrap_or_else(|| {
            karsinta_dist::speed::measure(karsinta_dist::speed::DEFAULT_RUNS).nps
        }))
    };
    let queueing = queue::Queueing {
        share,
        reference_nps,
        auto_purge,
        held: q.hold,
    };
    let mut db = conn.open()?;
    let t = kind
        .create_queued(&mut db, &name, &queueing)
        .map_err(runtime)?;
    println!("{}", kind.created_line(&t));
    if t.held {
        println!("held: no worker claims it until `karsinta-dist approve {name}`");
    }
    Ok(())
}

fn set(
    conn: &Conn,
    test: &str,
    priority: Option<i32>,
    throughput: Option<f64>,
) -> Result<(), Failure> {
    if priority.is_none() && throughput.is_none() {
        return Err(setup("set: give --priority and/or --throughput"));
    }
    if let Some(w) = throughput {
        queue::Share::check_throughput(w).map_err(|e| setup(format!("--throughput: {e}")))?;
    }
    let mut db = conn.open()?;
    let found = db
        .run(|c| queue::set_share(c, test, priority, throughput))
        .map_err(runtime)?;
    if !found {
        return Err(setup(format!("no test named {test}")));
    }
    println!("test {test} updated");
    Ok(())
}

fn worker(
    conn: &Conn,
    test: Option<&str>,
    fleet: bool,
    concurrency: Option<usize>,
    build_cache: Option<&Path>,
    m: &MachineArgs,
) -> Result<(), Failure> {
    if m.assume_nps == Some(0) {
        return Err(setup("--assume-nps: must be positive"));
    }
    for (flag, v) in [
        ("--noisy-spread", Some(m.noisy_spread)),
        ("--assume-spread", m.assume_spread),
    ] {
        if v.is_some_and(|x| !x.is_finite() || x < 0.0) {
            return Err(setup(format!(
                "{flag}: must be a fraction of at least 0 (0.1 is 10%)"
            )));
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    let opts = WorkerOptions {
        test: test.map(str::to_string),
        fleet,
        concurrency,
        patience: conn.patience,
        stop: Some(stop),
        syzygy: m.syzygy.clone(),
        bench_runs: m.bench_runs,
        noisy_spread: m.noisy_spread,
        assume_nps: m.assume_nps,
        assume_spread: m.assume_spread,
        build_cache: build_cache.map(Path::to_path_buf),
        log: Some(Arc::new(|line: &str| eprintln!("worker: {line}"))),
        ..WorkerOptions::new(&conn.url)
    };
    let r = run_worker(&opts).map_err(|e| Failure {
        code: if e.is_setup() { 2 } else { 1 },
        message: e.to_string(),
    })?;
    eprintln!(
        "worker done: {} batches completed, {} rejected, {} pairs, {} datagen games, {} database \
         round trips",
        r.batches_completed, r.batches_rejected, r.pairs, r.games, r.round_trips
    );
    Ok(())
}

fn show_status(conn: &Conn, test: Option<&str>) -> Result<(), Failure> {
    let mut db = conn.open()?;
    let names: Vec<String> = match test {
        Some(t) => vec![t.to_string()],
        None => db
            .run(queue::all_tests)
            .map_err(runtime)?
            .into_iter()
            .map(|t| t.name)
            .collect(),
    };
    for n in names {
        let text = db.run(|c| status::status_text(c, &n)).map_err(runtime)?;
        println!("{text}");
    }
    Ok(())
}

fn write_export(conn: &Conn, test: &str, out: &Path) -> Result<(), Failure> {
    let mut db = conn.open()?;
    let done = db.run(|c| export::export(c, test, out)).map_err(runtime)?;
    // As every karsinta command that leaves a run folder: a page that
    // cannot be written costs a warning, not the export. (`karsinta
    // datagen` writes report.txt instead.)
    if !done.is_datagen() {
        if let Err(e) = karsinta_harness::report::write(out) {
            eprintln!("warning: {}: report.html not written: {e}", out.display());
        }
    }
    println!("{}: {}", out.display(), done.line());
    Ok(())
}

fn stop(conn: &Conn, test: &str) -> Result<(), Failure> {
    let mut db = conn.open()?;
    let found = db
        .run(|c| queue::stop(c, test, "stopped by karsinta-dist stop"))
        .map_err(runtime)?;
    if !found {
        return Err(setup(format!("no test named {test}")));
    }
    println!("test {test} stopped");
    Ok(())
}

fn approve(conn: &Conn, test: &str) -> Result<(), Failure> {
    let mut db = conn.open()?;
    match db.run(|c| queue::approve(c, test)).map_err(runtime)? {
        Some(true) => println!("test {test} approved: workers may claim it"),
        Some(false) => println!("test {test} was not held: nothing to approve"),
        None => return Err(setup(format!("no test named {test}"))),
    }
    Ok(())
}

fn purge(conn: &Conn, test: &str, worker: Option<i64>) -> Result<(), Failure> {
    let mut db = conn.open()?;
    let done = db
        .run(|c| queue::purge_test(c, test, worker))
        .map_err(runtime)?;
    if done.is_empty() {
        println!("test {test}: no bad workers");
    }
    for (w, reason, p) in done {
        let decision = p.decision.map_or(String::new(), |d| {
            format!("; the SPRT's {} stands", d.as_str())
        });
        println!(
            "test {test}: worker {w} purged ({reason}): {} batches, {} pairs back in the \
             queue{decision}",
            p.batches.len(),
            p.pairs
        );
    }
    Ok(())
}

fn serve(
    conn: &Conn,
    listen: &str,
    token_file: Option<&Path>,
    threads: usize,
) -> Result<(), Failure> {
    let env = std::env::var_os(web::TOKEN_ENV)
        .map(|v| {
            v.into_string()
                .map_err(|_| setup(format!("{}: not UTF-8", web::TOKEN_ENV)))
        })
        .transpose()?;
    let token = web::Token::load(token_file, env.as_deref()).map_err(setup)?;
    let server = web::Web::bind(listen).map_err(setup)?;
    let mode = if token.is_some() {
        "writes need the token"
    } else {
        "read-only"
    };
    if let Some(addr) = server.local_addr() {
        println!("serving http://{addr}/ ({mode})");
    }
    let opts = web::ServeOptions {
        url: conn.url.clone(),
        patience: conn.patience,
        token,
        threads,
    };
    server.run(&opts).map_err(runtime)
}

fn run(cli: &Cli) -> Result<(), Failure> {
    let conn = Conn {
        url: url(cli).map_err(setup)?,
        patience: Duration::from_secs(cli.patience),
    };
    match &cli.cmd {
        Cmd::Migrate => migrate(&conn),
        Cmd::Create {
            config,
            config_flag,
            name,
            revisions,
            queue,
        } => {
            let config = create_config(config.as_deref(), config_flag.as_deref())?;
            let req = revisions.request()?;
            create(&conn, &config, name.as_deref(), req.as_ref(), queue)
        }
        Cmd::Set {
            test,
            priority,
            throughput,
        } => set(&conn, test, *priority, *throughput),
        Cmd::Worker {
            test,
            fleet,
            concurrency,
            build_cache,
            machine,
        } => worker(
            &conn,
            test.as_deref(),
            *fleet,
            *concurrency,
            build_cache.as_deref(),
            machine,
        ),
        Cmd::Status { test } => show_status(&conn, test.as_deref()),
        Cmd::Export { test, out } => write_export(&conn, test, out),
        Cmd::Stop { test } => stop(&conn, test),
        Cmd::Approve { test } => approve(&conn, test),
        Cmd::Purge { test, worker, .. } => purge(&conn, test, *worker),
        Cmd::Serve {
            listen,
            token_file,
            threads,
        } => serve(&conn, listen, token_file.as_deref(), *threads),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("karsinta-dist: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
