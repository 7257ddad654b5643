//! `karsinta-engine`: the command line. Without a subcommand it speaks UCI on
//! stdin/stdout; the subcommands run the library's bench, perft and
//! parameter-table tools. All logic lives in the library.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use karsinta_engine::bench::ablate::MINIMAX_MAX_DEPTH;
use karsinta_engine::bench::{run_bench_threads, DEFAULT_BENCH_DEPTH};
use karsinta_engine::board::perft::{divide_total, perft_divide};
use karsinta_engine::search::types::MAX_DEPTH;
use karsinta_engine::search::THREADS_MAX;
use karsinta_engine::uci::{self, SharedWriter};
use karsinta_engine::{Params, Position};

#[derive(Parser)]
#[command(
    name = "karsinta-engine",
    version,
    about = "A UCI chess engine whose every heuristic and weight is a runtime parameter"
)]
struct Cli {
    /// Load a parameter set (YAML `name: value` lines; missing keys keep defaults).
    #[arg(long, global = true, value_name = "FILE.yaml")]
    params: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Search the fixed bench positions; last line: `<N> nodes <M> nps`.
    Bench {
        /// Search depth per position (1..=100).
        #[arg(default_value_t = DEFAULT_BENCH_DEPTH, value_parser = depth_arg)]
        depth: i32,
        /// Search threads (1..=64); above 1 the node count is no signature.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=THREADS_MAX as i64))]
        threads: u16,
    },
    /// Count move-tree leaves; prints each root move's count, then `<N> nodes <M> nps`.
    Perft {
        depth: u32,
        /// Position (quote it; default: the start position).
        fen: Option<String>,
        /// Read the FEN as Chess960 (X-FEN or Shredder-FEN castling rights);
        /// castling is printed king-takes-rook.
        #[arg(long)]
        chess960: bool,
    },
    /// Ablation: bench nodes with each search technique switched, one at a time.
    Ablate {
        /// Search depth per position (default: the bench depth).
        #[arg(default_value_t = DEFAULT_BENCH_DEPTH, value_parser = depth_arg)]
        depth: i32,
        /// Also print the alpha-beta saving table, searching plain minimax to
        /// this depth (at most 3; minimax is exponential, so this table can
        /// take longer than all the others).
        #[arg(long, value_name = "DEPTH", value_parser = clap::value_parser!(i32).range(1..=MINIMAX_MAX_DEPTH as i64))]
        minimax: Option<i32>,
    },
    /// Print the parameter set.
    Params {
        /// As YAML `name: value` lines (the --params file format).
        #[arg(long, conflicts_with = "spsa")]
        yaml: bool,
        /// As an SPSA spec: `name, int, value, min, max, c_end, r_end` (OpenBench);
        /// the search parameters unless --eval, --all or name prefixes say otherwise.
        #[arg(long)]
        spsa: bool,
        /// With --spsa: the evaluation weights instead of the search parameters.
        #[arg(long, requires = "spsa", conflicts_with = "all")]
        eval: bool,
        /// With --spsa: every tunable (search and evaluation).
        #[arg(long, requires = "spsa")]
        all: bool,
        /// With --spsa: only names starting with one of these prefixes
        /// (within the chosen group; with neither --eval nor --all, any group).
        #[arg(requires = "spsa", value_name = "PREFIX")]
        prefixes: Vec<String>,
    },
}

/// A search depth for `bench` and `ablate`: 0 would silently mean depth 1.
fn depth_arg(text: &str) -> Result<i32, String> {
    match text.parse::<i32>() {
        Ok(d) if (1..=MAX_DEPTH).contains(&d) => Ok(d),
        _ => Err(format!("expected a depth in 1..={MAX_DEPTH}")),
    }
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<()> {
    let cli = Cli::parse();
    let params = match &cli.params {
        Some(path) => Params::load_yaml(path)?,
        None => Params::default(),
    };
    match cli.command {
        None => {
            let stdin = std::io::stdin();
            uci::run(stdin.lock(), SharedWriter::stdout(), params);
        }
        Some(Command::Bench { depth, threads }) => {
            let no_stop = AtomicBool::new(false);
            let r = run_bench_threads(&params, depth, threads.into(), &no_stop, |i, fen, nodes| {
                eprintln!("{:>2} {nodes:>10} {fen}", i + 1);
            })
            .expect("a bench without a stop flag finishes");
            eprintln!("time {} ms", r.time.as_millis());
            println!("{} nodes {} nps", r.nodes, r.nps);
        }
        Some(Command::Perft {
            depth,
            fen,
            chess960,
        }) => {
            let fen = fen.unwrap_or_else(|| Position::startpos().to_fen());
            let pos = if chess960 {
                Position::from_fen_chess960(&fen)?
            } else {
                Position::from_fen(&fen)?
            };
            let start = Instant::now();
            let divide = perft_divide(pos.board(), depth);
            let ms = start.elapsed().as_millis() as u64;
            let mut out = std::io::stdout().lock();
            for (mv, n) in &divide {
                writeln!(out, "{}: {n}", pos.move_to_uci(*mv))?;
            }
            let total = divide_total(&divide, depth);
            writeln!(out, "{total} nodes {} nps", uci::nps(total, ms))?;
        }
        Some(Command::Ablate { depth, minimax }) => {
            karsinta_engine::bench::ablate::run(
                &params,
                depth,
                minimax,
                &mut std::io::stdout().lock(),
            );
        }
        Some(Command::Params {
            yaml,
            spsa,
            eval,
            all,
            prefixes,
        }) => {
            if spsa {
                let group = |name: &str| {
                    if all {
                        true
                    } else if eval {
                        !Params::is_search_param(name)
                    } else {
                        // Prefixes alone search every group.
                        !prefixes.is_empty() || Params::is_search_param(name)
                    }
                };
                let filter = |s: &karsinta_engine::params::spec::ParamSpec| {
                    group(&s.name)
                        && (prefixes.is_empty() || prefixes.iter().any(|p| s.name.starts_with(p)))
                };
                print!("{}", params.spsa_spec(Some(&filter)));
            } else {
                let _ = yaml; // YAML is also the default form.
                print!("{}", params.to_yaml());
            }
        }
    }
    std::io::stdout().flush().context("writing to stdout")?;
    Ok(())
}
