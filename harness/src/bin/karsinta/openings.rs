//! `karsinta openings`: generate a balanced opening suite (`generate`) or
//! check that a suite loads (`check`). Flags only; the work is in
//! [`karsinta_harness::openings::generate`] and [`karsinta_harness::openings`].

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use karsinta_engine::Params;
use karsinta_harness::formats::fen::shredder_fen;
use karsinta_harness::openings::generate::{
    generate, write_epd, CandidateMethod, GenerateConfig, GenerateProgress, StartSet,
};
use karsinta_harness::openings::{load_openings_with, LoadOptions, OpeningFormat};
use karsinta_harness::variant::{parse_position, Variant};

use crate::common::usage;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Generate balanced positions N plies deep, scored by karsinta-engine, as EPD.
    Generate(GenerateArgs),
    /// Load an EPD or PGN suite (plain, .gz or .zip) and report how many openings it has, or its first bad entry.
    Check(CheckArgs),
}

#[derive(clap::Args, Debug)]
struct GenerateArgs {
    /// Plies to play from the start position (or from each opening of --from).
    #[arg(long, default_value_t = 8)]
    plies: usize,
    /// Keep positions whose score is within +-MAX_CP centipawns (White's view).
    #[arg(long, default_value_t = 50)]
    max_cp: i32,
    /// Number of positions to write.
    #[arg(long, default_value_t = 2000)]
    count: usize,
    /// Seed of the sampling (same seed and options -> same file).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Nodes per scoring search (default 20000 unless --depth is given).
    #[arg(long)]
    nodes: Option<u64>,
    /// Depth per scoring search.
    #[arg(long)]
    depth: Option<i32>,
    /// Start from the openings of this suite (EPD or PGN) instead of the start position.
    #[arg(long, value_name = "FILE")]
    from: Option<PathBuf>,
    /// With a PGN --from: use only the first N plies of each game.
    #[arg(long, value_name = "N")]
    from_plies: Option<usize>,
    /// Format of --from when its extension does not tell (epd or pgn).
    #[arg(long)]
    from_format: Option<OpeningFormat>,
    /// standard; chess960 (from the 960 start positions, or --from read as
    /// Chess960); dfrc (double Chess960: each side's back rank drawn on its
    /// own). Chess960 output is X-FEN, for `variant: chess960` matches.
    #[arg(long, default_value = "standard")]
    variant: StartSet,
    /// Chess960: write castling rights as the rooks' files (Shredder-FEN,
    /// `HAha`) instead of `KQkq` (X-FEN).
    #[arg(long)]
    shredder_fen: bool,
    /// Engine parameter file (YAML) for scoring; default: embedded defaults.
    #[arg(long, value_name = "FILE")]
    params: Option<PathBuf>,
    /// How to find candidates: auto (full enumeration when the tree has at
    /// most --max-leaves leaves, else random playouts), exhaustive, playout.
    #[arg(long, default_value = "auto", value_parser = parse_method)]
    method: CandidateMethod,
    /// Largest tree enumerated in full.
    #[arg(long, default_value_t = 2_000_000)]
    max_leaves: u64,
    /// Hash table per scoring thread, in MB.
    #[arg(long, default_value_t = 2)]
    hash_mb: usize,
    /// Scoring threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output EPD file (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// The suite (.epd or .pgn, plain, gzipped or in a zip of one file).
    file: PathBuf,
    /// Format when the extension does not tell (epd or pgn).
    #[arg(long)]
    format: Option<OpeningFormat>,
    /// PGN: use only the first N plies of each game.
    #[arg(long)]
    plies: Option<usize>,
    /// Report every bad entry instead of stopping at the first.
    #[arg(long)]
    skip_bad: bool,
    /// `standard` or `chess960` (X-FEN and Shredder-FEN castling rights).
    #[arg(long, default_value = "standard")]
    variant: Variant,
}

fn parse_method(text: &str) -> Result<CandidateMethod, String> {
    match text {
        "auto" => Ok(CandidateMethod::Auto),
        "exhaustive" => Ok(CandidateMethod::Exhaustive),
        "playout" => Ok(CandidateMethod::Playout),
        _ => Err(format!(
            "unknown method '{text}' (expected auto, exhaustive or playout)"
        )),
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Generate(args) => run_generate(args),
        Command::Check(args) => run_check(args),
    }
}

fn run_generate(args: GenerateArgs) -> anyhow::Result<()> {
    if args.count == 0 {
        return usage("--count must be at least 1");
    }
    if args.max_cp < 0 {
        return usage("--max-cp must not be negative");
    }
    // 0 would not mean "no limit": a 0-node or depth-0 search scores
    // nothing useful, and the table needs at least 1 MB.
    if args.nodes == Some(0) {
        return usage("--nodes must be at least 1");
    }
    if args.depth.is_some_and(|d| !(1..=100).contains(&d)) {
        return usage("--depth must be in 1..=100");
    }
    if args.hash_mb == 0 {
        return usage("--hash-mb must be at least 1");
    }
    let nodes = match (args.nodes, args.depth) {
        (None, None) => Some(20_000),
        (nodes, _) => nodes,
    };
    let params = match &args.params {
        Some(path) => Params::load_yaml(path)
            .with_context(|| format!("loading parameters {}", path.display()))?,
        None => Params::default(),
    };
    let roots = match &args.from {
        Some(path) => {
            let options = LoadOptions {
                format: args.from_format,
                plies: args.from_plies,
                variant: args.variant.variant(),
                ..LoadOptions::default()
            };
            load_openings_with(path, &options)?.openings
        }
        None => Vec::new(),
    };
    let config = GenerateConfig {
        plies: args.plies,
        max_cp: args.max_cp,
        count: args.count,
        seed: args.seed,
        nodes,
        depth: args.depth,
        params,
        hash_mb: args.hash_mb,
        roots,
        starts: args.variant,
        method: args.method,
        max_leaves: args.max_leaves,
    };

    let bar = if args.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(args.count as u64)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} accepted, {msg} [{elapsed}]")
            .expect("valid template"),
    );
    let on_progress = |p: &GenerateProgress| {
        bar.set_position(p.accepted as u64);
        bar.set_message(format!("{} scored", p.scored));
    };
    if args.shredder_fen && args.variant == StartSet::Standard {
        return usage("--shredder-fen needs --variant chess960 or dfrc");
    }
    let started = Instant::now();
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = args.threads {
        pool = pool.num_threads(threads.max(1));
    }
    let pool = pool.build().context("starting scoring threads")?;
    let mut report = pool.install(|| generate(&config, &on_progress))?;
    if args.shredder_fen {
        for p in &mut report.positions {
            let pos = parse_position(&p.fen, Variant::Chess960).map_err(anyhow::Error::msg)?;
            p.fen = shredder_fen(&pos);
        }
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();

    if report.positions.is_empty() {
        anyhow::bail!(
            "no position within +-{} cp among {} candidates",
            args.max_cp,
            report.progress.scored
        );
    }
    match &args.out {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("creating {}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            write_epd(&report.positions, &mut out)
                .and_then(|()| out.flush())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            write_epd(&report.positions, &mut out).context("writing to standard output")?;
        }
    }

    let method = match report.leaves {
        Some(leaves) => format!("full enumeration, {leaves} leaves"),
        None => "random playouts".to_string(),
    };
    let mean_abs = report
        .positions
        .iter()
        .map(|p| p.score_cp.unsigned_abs() as f64)
        .sum::<f64>()
        / report.positions.len() as f64;
    eprintln!(
        "{} positions ({method}; {} candidates scored, {:.1}% within +-{} cp; mean |score| {:.1} cp) in {:.1} s",
        report.positions.len(),
        report.progress.scored,
        100.0 * report.progress.within as f64 / report.progress.scored.max(1) as f64,
        args.max_cp,
        mean_abs,
        seconds
    );
    if report.positions.len() < args.count {
        eprintln!(
            "warning: only {} of the {} requested positions exist within +-{} cp",
            report.positions.len(),
            args.count,
            args.max_cp
        );
    }
    Ok(())
}

fn run_check(args: CheckArgs) -> anyhow::Result<()> {
    let options = LoadOptions {
        format: args.format,
        plies: args.plies,
        skip_bad: args.skip_bad,
        variant: args.variant,
    };
    let started = Instant::now();
    let loaded = load_openings_with(&args.file, &options)?;
    let ms = started.elapsed().as_secs_f64() * 1e3;
    for bad in &loaded.skipped {
        eprintln!("bad entry: {bad}");
    }
    let plies: usize = loaded.openings.iter().map(|o| o.moves.len()).sum();
    println!(
        "{}: {} openings ({} plies of moves, {} bad entries skipped), loaded in {ms:.0} ms",
        args.file.display(),
        loaded.openings.len(),
        plies,
        loaded.skipped.len()
    );
    Ok(())
}
