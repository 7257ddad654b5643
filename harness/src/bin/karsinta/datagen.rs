//! `karsinta datagen`: self-play training data.
//! ```text
//! karsinta datagen CONFIG.yaml [--out DIR] [--quiet]
//! karsinta datagen --resume DIR [--quiet]
//! karsinta datagen convert IN OUT [--from FORMAT|pgn] [--to FORMAT]
//! ```
//! The work is in [`karsinta_harness::datagen`].

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use karsinta_harness::datagen::{self, convert, DatagenConfig, Progress};
use karsinta_harness::formats::records::{format_of_path, RecordFormat};

use crate::common::UsageError;

/// Flags of `karsinta datagen`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub cmd: Option<DatagenCmd>,
    /// The datagen config (see configs/datagen.yaml).
    #[arg(required_unless_present = "resume")]
    pub config: Option<PathBuf>,
    /// Run folder (default: results/<config name>).
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Go on with the run in this folder after an interruption.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// No progress line.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(clap::Subcommand, Debug)]
pub enum DatagenCmd {
    /// Training data from one format to another (bullet, text, viriformat,
    /// marlinformat), or from PGN games.
    Convert(ConvertArgs),
}

#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    pub input: PathBuf,
    pub output: PathBuf,
    /// Input format: pgn, bullet, text, viriformat or marlinformat
    /// (default: from the extension: .pgn, .bin, .txt, .vf, .marlin).
    #[arg(long)]
    pub from: Option<convert::Source>,
    /// Output format (default: from the extension).
    #[arg(long)]
    pub to: Option<RecordFormat>,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if let Some(DatagenCmd::Convert(c)) = a.cmd {
        return run_convert(c);
    }
    let (cfg, dir) = match (&a.resume, &a.config) {
        (Some(dir), _) => (datagen::resume_config(dir)?, dir.clone()),
        (None, Some(path)) => {
            let cfg = DatagenConfig::load(path).map_err(|e| UsageError(e.to_string()))?;
            let dir = a
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from("results").join(&cfg.name));
            datagen::create_run(&cfg, &dir)?;
            (cfg, dir)
        }
        (None, None) => return Err(UsageError("give a config or --resume DIR".into()).into()),
    };
    let mut line = ProgressLine::new(a.quiet);
    let report = datagen::run(&cfg, &dir, &mut |p| line.show(p))?;
    line.finish();
    print!("{}", report.text());
    println!("run folder: {}", dir.display());
    Ok(())
}

fn run_convert(c: ConvertArgs) -> anyhow::Result<()> {
    let unknown = |path: &PathBuf| {
        UsageError(format!(
            "{}: say its format with --from/--to (pgn, bullet, text, viriformat, marlinformat)",
            path.display()
        ))
    };
    let from = c
        .from
        .or_else(|| convert::Source::of_path(&c.input))
        .ok_or_else(|| unknown(&c.input))?;
    let to =
        c.to.or_else(|| format_of_path(&c.output))
            .ok_or_else(|| unknown(&c.output))?;
    match from {
        convert::Source::Records(from) => {
            let done = convert::convert(&c.input, from, &c.output, to)?;
            println!(
                "{} positions, {from} -> {to}, {} bytes written to {}",
                done.records,
                done.bytes,
                c.output.display()
            );
        }
        convert::Source::Pgn => {
            let done = convert::convert_pgn(&c.input, &c.output, to)?;
            for (game, reason) in &done.skipped {
                eprintln!("{}: game {game} skipped: {reason}", c.input.display());
            }
            println!(
                "{} games ({} skipped), {} positions ({} without an evaluation comment, scored 0), \
                 pgn -> {to}, {} bytes written to {}",
                done.games,
                done.skipped_total,
                done.records,
                done.unscored,
                done.bytes,
                c.output.display()
            );
        }
    }
    Ok(())
}

/// The progress line: games and positions per second, at most once a second.
struct ProgressLine {
    quiet: bool,
    tty: bool,
    last: Option<Instant>,
    shown: bool,
}

impl ProgressLine {
    fn new(quiet: bool) -> Self {
        ProgressLine {
            quiet,
            tty: std::io::stderr().is_terminal(),
            last: None,
            shown: false,
        }
    }

    fn show(&mut self, p: &Progress) {
        let every = if self.tty { 1.0 } else { 10.0 };
        let due = self.last.is_none_or(|t| t.elapsed().as_secs_f64() >= every);
        if self.quiet || !(due || p.games_done == p.games_total) {
            return;
        }
        self.last = Some(Instant::now());
        let s = p.elapsed_s.max(1e-9);
        let text = format!(
            "games {}/{}, positions {} (written {}), {:.1} games/s, {:.0} positions/s",
            p.games_done,
            p.games_total,
            p.counts.positions,
            p.counts.written,
            p.games_now as f64 / s,
            p.positions_now as f64 / s,
        );
        if self.tty {
            eprint!("\r{text}   ");
        } else {
            eprintln!("{text}");
        }
        self.shown = true;
    }

    fn finish(&self) {
        if self.tty && self.shown {
            eprintln!();
        }
    }
}
