//! `karsinta tune`: parameter tuners, one subcommand each.
//!
//! ```text
//! karsinta tune texel-data GAMES.pgn... --out data.bin [--skip-plies N] [--max-per-game N]
//!                          [--lambda L] [--no-dedup] [--seed S] [--params FILE] [--max-positions N] [-j N]
//! karsinta tune texel CONFIG.yaml [--out DIR] [--verify] [-j N] [--quiet]
//! karsinta tune texel --resume results/RUN [--verify]
//! karsinta tune texel CONFIG.yaml --bench [--bench-positions N] [--bench-epochs N]
//! ```
//! The work is in [`karsinta_harness::tune`].

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use karsinta_engine::Params;
use karsinta_harness::formats::pgn_write::UtcTime;
use karsinta_harness::play::tablebase::{TablebaseRule, Tablebases, TbAdjudicate};
use karsinta_harness::tune::texel::{self, ExtractOptions, TexelConfig, TexelRunOptions};

use crate::common::{usage, UsageError};

/// Flags of `karsinta tune`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub cmd: TuneCmd,
}

#[derive(clap::Subcommand, Debug)]
pub enum TuneCmd {
    /// PGN games to a Texel dataset of quiet, labelled positions.
    TexelData(TexelDataArgs),
    /// Tune evaluation weights on a Texel dataset (config: see configs/texel.yaml).
    Texel(TexelArgs),
    /// Tune search parameters by SPSA games (config: see configs/spsa.yaml).
    Spsa(crate::tune_spsa::Args),
}

#[derive(clap::Args, Debug)]
pub struct TexelDataArgs {
    /// PGN files, streamed in order (or record files with --format).
    #[arg(required = true)]
    pub pgn: Vec<PathBuf>,
    /// The inputs are training records (bullet, text, viriformat: `karsinta
    /// datagen` output), labelled by result blended with score by --lambda.
    #[arg(long)]
    pub format: Option<karsinta_harness::formats::records::RecordFormat>,
    /// Dataset file to write.
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Plies skipped at the start of each game (book moves).
    #[arg(long, default_value_t = 8)]
    pub skip_plies: usize,
    /// Most positions sampled per game (random, by --seed).
    #[arg(long)]
    pub max_per_game: Option<usize>,
    /// Weight of the move comments' evaluations in the label (0 = results only).
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
    /// Keep positions whose quiet leaf repeats an earlier one.
    #[arg(long)]
    pub no_dedup: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Parameters of the quiescence search that resolves positions.
    #[arg(long, value_name = "FILE.yaml")]
    pub params: Option<PathBuf>,
    /// Stop after this many positions.
    #[arg(long)]
    pub max_positions: Option<u64>,
    /// Syzygy folders (`:`-separated): positions in the tables are labelled
    /// with their true result (50-move rule included), not the game's.
    #[arg(long, value_name = "PATHS")]
    pub syzygy: Option<String>,
    /// Worker threads (default: number of cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct TexelArgs {
    /// Tuning config (YAML).
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub config: Option<PathBuf>,
    /// Continue the run in this folder from its checkpoint.
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Run folder (default: results/<config name>-<UTC time>).
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// After tuning, play the config's `verify:` SPRT match, tuned vs starting weights.
    #[arg(long)]
    pub verify: bool,
    /// Worker threads (overrides the config).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Measure epoch throughput on the config's dataset instead of tuning.
    #[arg(long, conflicts_with_all = ["resume", "verify"])]
    pub bench: bool,
    /// --bench: replicate the dataset up to this many positions.
    #[arg(long, default_value_t = 1_000_000, requires = "bench")]
    pub bench_positions: usize,
    /// --bench: timed epochs.
    #[arg(long, default_value_t = 10, requires = "bench")]
    pub bench_epochs: usize,
    /// No progress output.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.cmd {
        TuneCmd::TexelData(a) => texel_data(a),
        TuneCmd::Texel(a) => texel_tune(a),
        TuneCmd::Spsa(a) => crate::tune_spsa::run(a),
    }
}

fn texel_data(a: TexelDataArgs) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&a.lambda) {
        return usage("--lambda must be within [0, 1]");
    }
    let params = match &a.params {
        Some(p) => Params::load_yaml(p).map_err(|e| UsageError(e.to_string()))?,
        None => Params::default(),
    };
    let tablebases = match &a.syzygy {
        None => None,
        Some(paths) => {
            let paths: Vec<PathBuf> = paths
                .split(':')
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .collect();
            let rule = TablebaseRule {
                pieces: u32::MAX,
                ignore_50_move: false,
                adjudicate: TbAdjudicate::Both,
            };
            let t =
                Tablebases::open(&paths, rule).map_err(|e| UsageError(format!("--syzygy: {e}")))?;
            Some(Arc::new(t))
        }
    };
    let opts = ExtractOptions {
        tablebases,
        skip_plies: a.skip_plies,
        max_per_game: a.max_per_game,
        lambda: a.lambda,
        dedup: !a.no_dedup,
        seed: a.seed,
        params,
        max_positions: a.max_positions,
    };
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(0);
        b.set_style(
            ProgressStyle::with_template(
                "{bar:30} {bytes}/{total_bytes} {msg} [{elapsed} < {eta}]",
            )
            .expect("valid template"),
        );
        b
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
    if let Some(format) = a.format {
        let report = pool
            .install(|| texel::records::extract_records(&a.pgn, format, &a.out, &opts))
            .with_context(|| format!("writing {}", a.out.display()))?;
        print!("{}", report.text());
        println!("dataset   | {}", a.out.display());
        return Ok(());
    }
    let report = pool.install(|| {
        texel::extract(&a.pgn, &a.out, &opts, &|p| {
            bar.set_length(p.bytes_total);
            bar.set_position(p.bytes_read);
            bar.set_message(format!("{} positions", p.positions_kept));
        })
    });
    bar.finish_and_clear();
    let report = report.with_context(|| format!("writing {}", a.out.display()))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
        println!("dataset   | {}", a.out.display());
    }
    Ok(())
}

fn texel_tune(a: TexelArgs) -> anyhow::Result<()> {
    let (mut cfg, out_dir, resume) = match &a.resume {
        Some(dir) => {
            let path = dir.join("config.yaml");
            if !path.is_file() {
                return usage(format!(
                    "{} is not a tuning run folder (no config.yaml)",
                    dir.display()
                ));
            }
            let cfg = TexelConfig::load(&path).map_err(|e| UsageError(e.to_string()))?;
            (cfg, dir.clone(), true)
        }
        None => {
            let path = a.config.as_ref().expect("clap requires CONFIG");
            let cfg = TexelConfig::load(path).map_err(|e| UsageError(e.to_string()))?;
            let out = a.out.clone().unwrap_or_else(|| {
                PathBuf::from("results").join(format!("{}-{}", cfg.name, UtcTime::now().compact()))
            });
            (cfg, out, false)
        }
    };
    if let Some(t) = a.threads {
        if t == 0 {
            return usage("-j must be at least 1");
        }
        cfg.threads = t;
    }
    if a.bench {
        let b = texel::run::bench(&cfg.dataset, a.bench_positions, a.bench_epochs, cfg.threads)
            .map_err(|e| UsageError(e.to_string()))?;
        let cpu = b.positions_per_cpu_second.map_or(String::new(), |c| {
            format!(" ({:.2}M per CPU second)", c / 1e6)
        });
        println!(
            "texel bench | {} positions, {} epochs, {} threads: {:.2}M positions/s per epoch{cpu}, {:.1} bytes/position",
            b.positions,
            b.epochs,
            b.threads,
            b.positions_per_second / 1e6,
            b.bytes_per_position
        );
        return Ok(());
    }
    if a.verify && cfg.verify.is_none() {
        return usage(format!(
            "{}: --verify needs a `verify:` block in the config",
            cfg.path.display()
        ));
    }
    let interrupt = crate::common::install_interrupt_handler()?;
    if !a.quiet {
        eprintln!("karsinta tune texel: {} -> {}", cfg.name, out_dir.display());
    }
    let opts = TexelRunOptions {
        out_dir: out_dir.clone(),
        resume,
        quiet: a.quiet,
        stop_at_epoch: None,
        interrupt: Some(interrupt),
        verify: a.verify,
    };
    let s = texel::run_texel(&cfg, &opts).map_err(|e| match e {
        texel::run::TexelError::Config(_) | texel::run::TexelError::Usage(_) => {
            anyhow::Error::new(UsageError(e.to_string()))
        }
        other => anyhow::Error::new(other),
    })?;
    println!(
        "Texel | {} ({}), {} epochs, K = {:.6}",
        s.name, s.status, s.epochs, s.k
    );
    println!(
        "Train | loss {:.6} -> {:.6} (rounded {:.6}), {} positions",
        s.start_train_loss, s.final_train_loss, s.rounded_train_loss, s.train_positions
    );
    println!(
        "Valid | loss {:.6} -> {:.6} (rounded {:.6}), {} positions",
        s.start_valid_loss, s.final_valid_loss, s.rounded_valid_loss, s.valid_positions
    );
    println!(
        "Speed | {:.2}M positions/s per epoch",
        s.positions_per_second / 1e6
    );
    println!("Tuned | {}", s.tuned_params.display());
    if let Some(v) = &s.verify {
        print!("{}", v.text_block());
    }
    crate::common::write_report(&out_dir);
    println!("Run   | {}", out_dir.display());
    if s.status == "interrupted" {
        eprintln!(
            "interrupted at epoch {}; continue with: karsinta tune texel --resume {}",
            s.epochs,
            out_dir.display()
        );
        std::process::exit(i32::from(crate::common::EXIT_INTERRUPTED));
    }
    Ok(())
}
