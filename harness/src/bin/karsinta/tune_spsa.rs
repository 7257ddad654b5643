//! `karsinta tune spsa`: SPSA tuning of engine parameters by games.
//!
//! ```text
//! karsinta tune spsa CONFIG.yaml [--iterations N] [--out DIR] [-j N] [--verify] [--quiet]
//! karsinta tune spsa --resume results/RUN [--iterations N] [-j N] [--verify] [--quiet]
//! ```
//! The work is [`karsinta_harness::tune::spsa::session`]; this file maps
//! flags, shows progress and prints the result. An interrupted run exits
//! with status 130 and continues with `--resume`.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use karsinta_harness::play::pairs::Ended;
use karsinta_harness::run::{run_match, RunOptions};
use karsinta_harness::tune::spsa::driver::SpsaState;
use karsinta_harness::tune::spsa::session::{Session, SessionError};

use crate::common::UsageError;

/// Flags of `karsinta tune spsa`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Tuning config (YAML with one engine and an `spsa:` block).
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub config: Option<PathBuf>,
    /// Continue the run in this folder (after Ctrl-C, a kill, or to extend
    /// a finished run with --iterations).
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Iterations (a new run: replaces the config's; --resume: the new total).
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Run folder (default: results/<config name>-spsa-<UTC time>).
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Games played at once (default: the config's, else the number of
    /// cores). Does not change the results: the iteration window is fixed
    /// when a run starts.
    #[arg(long, short = 'j')]
    pub concurrency: Option<usize>,
    /// After tuning, an SPRT match tuned vs start (in RUN_DIR/verify).
    #[arg(long)]
    pub verify: bool,
    /// No progress bar (CI).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

fn session_error(e: SessionError) -> anyhow::Error {
    if e.is_setup() {
        UsageError(e.to_string()).into()
    } else {
        e.into()
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut session = match &args.resume {
        Some(dir) => Session::resume(dir, args.iterations, args.concurrency),
        None => {
            let config = args.config.as_ref().expect("clap requires CONFIG");
            let out = match &args.out {
                Some(d) => d.clone(),
                None => {
                    let (cfg, _, _) = karsinta_harness::tune::spsa::session::load_config(
                        config,
                        args.concurrency,
                    )
                    .map_err(session_error)?;
                    PathBuf::from("results").join(format!(
                        "{}-spsa-{}",
                        cfg.name,
                        karsinta_harness::formats::pgn_write::UtcTime::now().compact()
                    ))
                }
            };
            Session::create(config, &out, args.iterations, args.concurrency)
        }
    }
    .map_err(session_error)?;
    let interrupt = crate::common::install_interrupt_handler()?;
    let state = &session.state;
    if !args.quiet {
        eprintln!(
            "karsinta tune spsa: {} -> {} ({} parameters, iteration {}/{}, {} pairs each, window {}, seed {})",
            session.cfg.name,
            session.dir.display(),
            session.setup.params.len(),
            state.applied,
            state.iterations,
            state.pairs_per_iteration,
            state.window,
            state.seed
        );
        let sched = karsinta_harness::tune::spsa::schedule::Schedule::new(
            &session.setup.params,
            session.setup.gains(state.iterations),
        );
        for (i, p) in session.setup.params.iter().enumerate() {
            let k = state.applied + 1;
            eprintln!(
                "  {:<28} start {:<8} [{}, {}]  c_k {:.3}  r_k {:.6}",
                p.name,
                p.start,
                p.min,
                p.max,
                sched.c_k(i, k),
                sched.r_k(i, k)
            );
        }
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(state.iterations);
        b.set_style(
            ProgressStyle::with_template("{bar:30} iteration {pos}/{len} | {msg} | ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_position(state.applied);
        b.reset_eta();
        b
    };
    let started = Instant::now();
    let games_before = state.counts.games;
    let ended = session
        .run(vec![Arc::clone(&interrupt)], |_, state| {
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            bar.set_position(state.applied);
            bar.set_message(format!(
                "{:.1} games/s | +{} ={} -{} | time losses {} faults {}",
                (state.counts.games - games_before) as f64 / secs,
                state.counts.wins,
                state.counts.draws,
                state.counts.losses,
                state.counts.time_losses,
                state.counts.faults
            ));
        })
        .map_err(session_error)?;
    bar.finish_and_clear();
    crate::common::write_report(&session.dir);
    print!(
        "{}",
        result_block(&session, started.elapsed().as_secs_f64(), games_before)
    );
    if ended == Ended::Halted || !session.state.finished() {
        eprintln!(
            "interrupted after iteration {}; continue with: karsinta tune spsa --resume {}",
            session.state.applied,
            session.dir.display()
        );
        std::process::exit(i32::from(crate::common::EXIT_INTERRUPTED));
    }
    if args.verify {
        verify(&session, args.quiet, interrupt)?;
    }
    Ok(())
}

fn result_block(session: &Session, secs: f64, games_before: u64) -> String {
    let s: &SpsaState = &session.state;
    let mut out = format!(
        "SPSA  | {} iterations of {} ({} games, +{} ={} -{} for the plus side)\n",
        s.applied, s.iterations, s.counts.games, s.counts.wins, s.counts.draws, s.counts.losses
    );
    out.push_str(&format!(
        "Faults| time losses {}  engine faults {}\n",
        s.counts.time_losses, s.counts.faults
    ));
    out.push_str(&format!(
        "Speed | {:.1} games/s this session ({} games in {:.0} s)\n",
        (s.counts.games - games_before) as f64 / secs.max(1e-9),
        s.counts.games - games_before,
        secs
    ));
    for (p, v) in session.setup.params.iter().zip(&s.theta) {
        out.push_str(&format!(
            "Param | {:<28} {:>8} -> {:.2}\n",
            p.name, p.start, v
        ));
    }
    out.push_str(&format!(
        "Run   | {} (params.yaml, openbench.txt, params.csv, trajectories.svg)\n",
        session.dir.display()
    ));
    out
}

fn verify(session: &Session, quiet: bool, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    let cfg = session.verify_config().map_err(session_error)?;
    let out_dir = session.dir.join("verify");
    let opts = RunOptions {
        out_dir: out_dir.clone(),
        resume: false,
        quiet,
        interrupt: Some(interrupt),
        ..RunOptions::default()
    };
    if !quiet {
        eprintln!("verify: {} -> {}", cfg.name, out_dir.display());
    }
    let summary = run_match(&cfg, &opts).map_err(|e| anyhow::anyhow!("verify: {e}"))?;
    crate::common::write_report(&out_dir);
    println!(
        "{}Run   | {} ({})",
        summary.text_block(),
        out_dir.display(),
        summary.status
    );
    Ok(())
}
