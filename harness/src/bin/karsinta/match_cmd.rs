//! `karsinta match`: play a match, gauntlet or round robin from a YAML
//! config, or resume an interrupted run.
//!
//! ```text
//! karsinta match CONFIG.yaml [--games N] [--concurrency N] [--seed S] [--tc TC] [--out DIR] [--quiet] [--json] [--json-lines]
//! karsinta match --resume results/RUN [--concurrency N] [--quiet] [--json] [--json-lines]
//! karsinta match -engine cmd=... -engine cmd=... -each tc=... -rounds N ... [--print-config]
//! ```
//! The third form (fastchess / cutechess-cli flags) is routed here by
//! `main` before clap, which cannot parse single-dash words.
//! The work is [`karsinta_harness::run::run_match`]; this file only
//! maps flags onto [`Overrides`] and [`RunOptions`], installs the Ctrl-C
//! handler and prints the result. An interrupted run exits with status 130
//! after its summary is written.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use karsinta_harness::config::flags;
use karsinta_harness::config::{MatchConfig, OutputFormat, Overrides};
use karsinta_harness::players::PlayerKind;
use karsinta_harness::report::result_lines::ResultLines;
use karsinta_harness::run::{
    claim_new_run_dir, remove_if_empty, run_match, PairObserver, RunOptions,
};

use crate::common::usage;

/// Flags of `karsinta match`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Match config (YAML); see configs/ for examples.
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub config: Option<PathBuf>,
    /// Continue the interrupted run in this folder from its ledger.
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Games per pairing (with SPRT: the most games). With --resume: more
    /// games than the run was started with; those played are kept.
    #[arg(long)]
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
    /// One JSON object per finished game pair on stdout (the ledger line
    /// plus the two engines' names); the result block goes to stderr.
    #[arg(long)]
    pub json_lines: bool,
}

/// What a run prints.
#[derive(Clone, Copy)]
struct Output {
    quiet: bool,
    json: bool,
    json_lines: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let overrides = Overrides {
        games: args.games,
        concurrency: args.concurrency,
        seed: args.seed,
        time_control: args.tc.clone(),
    };
    let output = Output {
        quiet: args.quiet,
        json: args.json,
        json_lines: args.json_lines,
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
            let cfg = MatchConfig::load_with(&path, &overrides, &other_blocks())
                .map_err(|e| crate::common::UsageError(e.to_string()))?;
            (cfg, Some(dir.clone()), true)
        }
        None => {
            let path = args.config.as_ref().expect("clap requires CONFIG");
            let cfg = MatchConfig::load_with(path, &overrides, &other_blocks())
                .map_err(|e| crate::common::UsageError(e.to_string()))?;
            (cfg, args.out.clone(), false)
        }
    };
    check_engines(&cfg)?;
    let (summary, out_dir) = play_match(&cfg, out_dir, resume, output)?;
    finish(&cfg, &summary, &out_dir, output)
}

fn check_engines(cfg: &MatchConfig) -> anyhow::Result<()> {
    for (i, e) in cfg.engines.iter().enumerate() {
        if !matches!(e.kind, PlayerKind::InProcess(_)) && !e.cmd.is_file() {
            return usage(format!(
                "engines[{i}].cmd: engine '{}' not found: {}",
                e.name,
                e.cmd.display()
            ));
        }
    }
    Ok(())
}

/// Play (or continue) the run in `out_dir`; a new run without one gets the
/// default folder, claimed here (atomically, never shared) and removed again
/// if the run fails its setup. A given folder is checked by the runner
/// (missing, empty or resumable). Returns the summary and the folder.
fn play_match(
    cfg: &MatchConfig,
    out_dir: Option<PathBuf>,
    resume: bool,
    output: Output,
) -> anyhow::Result<(karsinta_harness::report::summary::Summary, PathBuf)> {
    let (out_dir, claimed) = match out_dir {
        Some(d) => (d, false),
        None => (
            claim_new_run_dir(&cfg.default_out_dir())
                .map_err(|e| crate::common::UsageError(e.to_string()))?,
            true,
        ),
    };
    let quiet = output.quiet;
    let interrupt = crate::common::install_interrupt_handler()?;
    if !quiet {
        eprintln!("karsinta match: {} -> {}", cfg.name, out_dir.display());
    }
    let observer = match (output.json_lines, tool_lines(cfg, output)) {
        (true, _) => Some(json_lines(cfg)),
        (false, lines) => lines,
    };
    let opts = RunOptions {
        out_dir: out_dir.clone(),
        resume,
        quiet,
        interrupt: Some(interrupt),
        observer,
        ..RunOptions::default()
    };
    let summary = match run_match(cfg, &opts) {
        Ok(s) => s,
        Err(e) => {
            if claimed {
                remove_if_empty(&out_dir);
            }
            if e.is_setup() {
                return usage(format!("match {}: {e}", cfg.name));
            }
            return Err(anyhow::Error::new(e).context(format!("match {}", cfg.name)));
        }
    };
    crate::common::write_report(&out_dir);
    Ok((summary, out_dir))
}

/// `output.format: fastchess|cutechess`: that tool's interim lines on
/// stdout as pairs are counted (not with `--json` or `--json-lines`, whose
/// stdout is JSON).
fn tool_lines(cfg: &MatchConfig, output: Output) -> Option<PairObserver> {
    if cfg.output.format == OutputFormat::Karsinta || output.json {
        return None;
    }
    let lines = Mutex::new(ResultLines::new(cfg));
    Some(Arc::new(move |entry, summary| {
        use std::io::Write as _;
        let halves: Vec<u32> = entry
            .games
            .iter()
            .map(|g| g.half_points(entry.first))
            .collect();
        let Ok(mut l) = lines.lock() else {
            return;
        };
        let mut text = l.game_lines(entry, summary.pairings.len());
        text.push_str(&l.after_pair(entry.pairing, &halves, summary));
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }))
}

/// `--json-lines`: each counted pair's ledger line with the engines' names,
/// on stdout as it is counted.
fn json_lines(cfg: &MatchConfig) -> PairObserver {
    let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
    Arc::new(move |entry, _summary| {
        use std::io::Write as _;
        let Ok(mut v) = serde_json::to_value(entry) else {
            return;
        };
        v["first_name"] = names.get(entry.first).cloned().unwrap_or_default().into();
        v["second_name"] = names.get(entry.second).cloned().unwrap_or_default().into();
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{v}");
        let _ = out.flush();
    })
}

/// Print the result (with `output.format` that tool's final block on
/// stdout, Karsinta's on stderr); an interrupted run exits with status 130.
fn finish(
    cfg: &MatchConfig,
    summary: &karsinta_harness::report::summary::Summary,
    out_dir: &Path,
    output: Output,
) -> anyhow::Result<()> {
    let block = format!(
        "{}Run   | {} ({})\nReport| {}\n",
        summary.text_block(),
        out_dir.display(),
        summary.status,
        out_dir.join("report.html").display()
    );
    if output.json {
        println!("{}", serde_json::to_string_pretty(summary)?);
    } else if cfg.output.format != OutputFormat::Karsinta && !output.json_lines {
        print!("{}", ResultLines::new(cfg).final_block(summary));
        eprint!("{block}");
    } else if output.json_lines {
        eprint!("{block}");
    } else {
        print!("{block}");
    }
    if summary.status == karsinta_harness::run::tally::RunStatus::Interrupted {
        eprintln!(
            "interrupted after {} games; continue with: karsinta match --resume {}",
            summary.games,
            out_dir.display()
        );
        std::process::exit(i32::from(crate::common::EXIT_INTERRUPTED));
    }
    if cfg.strict && !summary.warnings.is_empty() {
        let n: u64 = summary.warnings.values().sum();
        eprintln!(
            "strict: {n} PV warning(s) raised (see {}): exit status 1",
            out_dir.join("warnings.log").display()
        );
        std::process::exit(1);
    }
    Ok(())
}

/// The other commands' blocks a config played by `match` may hold (they
/// are not read): those of `ab` and `gate`, whose configs and run folders
/// are matches too, and the fleet's, whose tests are ordinary matches.
fn other_blocks() -> Vec<&'static str> {
    let mut blocks = karsinta_harness::run::SECTIONS.to_vec();
    blocks.push(karsinta_harness::run::FLEET_SECTION);
    blocks
}

/// `karsinta match -engine cmd=... -each tc=... -rounds N ...`: a
/// fastchess / cutechess-cli command line (see
/// [`karsinta_harness::config::flags`]) on the same runner and run folder;
/// `tool`: the binary was run under that tool's name.
pub fn run_fastchess(argv: &[String], tool: Option<flags::Dialect>) -> anyhow::Result<()> {
    let t = match tool {
        Some(d) => flags::translate_as(argv, d),
        None => flags::translate(argv),
    }
    .map_err(|e| crate::common::UsageError(e.to_string()))?;
    if t.help {
        print!("{}", flags::HELP);
        return Ok(());
    }
    let cfg = MatchConfig::resolve(
        t.config.clone(),
        Path::new("<command line>"),
        &Overrides::default(),
    )
    .map_err(|e| crate::common::UsageError(e.to_string()))?;
    if t.print_config {
        let line = std::iter::once("karsinta match".to_string())
            .chain(argv.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        print!("{}", flags::config_yaml(&t, &line));
        return Ok(());
    }
    for note in &t.notes {
        eprintln!("note: {note}");
    }
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if cfg.concurrency > cpus && !t.force_concurrency {
        return Err(crate::common::UsageError(format!(
            "-concurrency {}: more than this machine's {cpus} CPUs; add -force-concurrency \
             to play it anyway (fastchess refuses it too)",
            cfg.concurrency
        ))
        .into());
    }
    check_engines(&cfg)?;
    let output = Output {
        quiet: t.quiet,
        json: t.json,
        json_lines: t.json_lines,
    };
    let (summary, out_dir) = play_match(&cfg, t.out.clone(), false, output)?;
    if let Some(p) = &t.pgnout {
        copy_pgn(&out_dir.join("games.pgn"), p)?;
    }
    finish(&cfg, &summary, &out_dir, output)
}

/// `-pgnout`: the run's games, appended (or written) to the user's file.
fn copy_pgn(from: &Path, to: &flags::PgnOut) -> anyhow::Result<()> {
    use std::io::Write as _;
    let text = std::fs::read(from).with_context(|| format!("{}", from.display()))?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(to.append)
        .truncate(!to.append)
        .open(&to.path)
        .with_context(|| format!("-pgnout {}", to.path.display()))?;
    f.write_all(&text)
        .with_context(|| format!("-pgnout {}", to.path.display()))?;
    Ok(())
}
