//! `karsinta gate`: the CI non-regression test. Unlike the other commands it
//! chooses its own exit status: 0 pass, 1 regression, 2 setup or usage
//! error, 3 inconclusive (or as `gate.inconclusive` / `--inconclusive` say).
//!
//! ```text
//! karsinta gate --baseline REV --candidate REV [--config configs/gate.yaml] [--repo PATH]
//! karsinta gate --baseline-cmd PATH --candidate-cmd PATH [...]
//! karsinta gate --baseline-params A.yaml --candidate-params B.yaml [...]
//! ```
//! The work is [`karsinta_harness::run::gate::run_gate`].

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use karsinta_harness::run::ab::Side;
use karsinta_harness::run::gate::{self, GateRequest, InconclusivePolicy, EXIT_SETUP};

/// Flags of `karsinta gate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Baseline revision (anything `git rev-parse` accepts).
    #[arg(long, visible_alias = "base", value_name = "REV")]
    pub baseline: Option<String>,
    /// Candidate revision.
    #[arg(long, visible_alias = "dev", value_name = "REV")]
    pub candidate: Option<String>,
    /// Baseline engine binary.
    #[arg(long, visible_alias = "base-cmd", value_name = "PATH")]
    pub baseline_cmd: Option<PathBuf>,
    /// Candidate engine binary.
    #[arg(long, visible_alias = "dev-cmd", value_name = "PATH")]
    pub candidate_cmd: Option<PathBuf>,
    /// Baseline parameter file for the in-process engine.
    #[arg(long, visible_alias = "base-params", value_name = "FILE")]
    pub baseline_params: Option<PathBuf>,
    /// Candidate parameter file for the in-process engine.
    #[arg(long, visible_alias = "dev-params", value_name = "FILE")]
    pub candidate_params: Option<PathBuf>,
    /// Match config (default: configs/gate.yaml in the repository). Without
    /// an sprt: block the gate tests nElo [-5, 0].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The engine's git checkout.
    #[arg(long, default_value = ".", value_name = "PATH")]
    pub repo: PathBuf,
    /// What an undecided test counts as: pass, fail or error (exit 3).
    #[arg(long, value_name = "POLICY")]
    pub inconclusive: Option<InconclusivePolicy>,
    /// Wall-clock budget of the match in minutes.
    #[arg(long, value_name = "MINUTES")]
    pub max_minutes: Option<f64>,
    #[command(flatten)]
    pub run: crate::common::RunFlags,
    /// Markdown report (default: gate.md in the run folder). It is also
    /// appended to $GITHUB_STEP_SUMMARY when that is set.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Bench depth (default: the config's `build.bench`, karsinta-engine's
    /// depth 10). Weak parameter sets take far longer per depth.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub bench_depth: Option<u32>,
}

fn setup_error(message: &str, markdown: Option<&std::path::Path>) -> ExitCode {
    eprintln!("error: {message}");
    if let Err(e) = gate::write_markdown(markdown, &gate::error_markdown(message)) {
        eprintln!("error: writing the Markdown report: {e}");
    }
    ExitCode::from(EXIT_SETUP)
}

pub fn run(args: Args) -> ExitCode {
    let md = args.markdown.clone();
    let sides = Side::from_flags(
        "candidate",
        args.candidate,
        args.candidate_cmd,
        args.candidate_params,
    )
    .and_then(|c| {
        Side::from_flags(
            "baseline",
            args.baseline,
            args.baseline_cmd,
            args.baseline_params,
        )
        .map(|b| (c, b))
    });
    let (candidate, baseline) = match sides {
        Ok(s) => s,
        Err(e) => return setup_error(&e.to_string(), md.as_deref()),
    };
    let config = match crate::ab::config_path(args.config, &args.repo, "gate.yaml") {
        Ok(c) => c,
        Err(e) => return setup_error(&format!("{e:#}"), md.as_deref()),
    };
    let req = GateRequest {
        config,
        overrides: args.run.overrides(),
        repo: args.repo,
        baseline,
        candidate,
        inconclusive: args.inconclusive,
        max_minutes: args.max_minutes,
        out_dir: args.run.out,
        quiet: args.run.quiet,
        interrupt: None,
        bench_depth: args.bench_depth,
    };
    let interrupt = match crate::common::install_interrupt_handler() {
        Ok(f) => f,
        Err(e) => return setup_error(&format!("{e:#}"), md.as_deref()),
    };
    let req = GateRequest {
        interrupt: Some(interrupt.clone()),
        ..req
    };
    // A cancelled gate has no verdict: never let it pass as "inconclusive".
    let interrupted = || {
        eprintln!(
            "gate: interrupted (exit {})",
            crate::common::EXIT_INTERRUPTED
        );
        ExitCode::from(crate::common::EXIT_INTERRUPTED)
    };
    let quiet = args.run.quiet;
    let mut log = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let report = match gate::run_gate(&req, &mut log) {
        Ok(r) if r.summary.status == karsinta_harness::run::tally::RunStatus::Interrupted => {
            return interrupted()
        }
        Ok(r) => r,
        Err(_) if interrupt.load(Ordering::SeqCst) => return interrupted(),
        Err(e) => {
            let mut message = e.to_string();
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                let text = s.to_string();
                if !message.contains(&text) {
                    message = format!("{message}: {text}");
                }
                src = s.source();
            }
            return setup_error(&message, md.as_deref());
        }
    };
    crate::common::write_report(&report.out_dir);
    let text = gate::markdown(&report);
    let md_path = md.unwrap_or_else(|| report.out_dir.join("gate.md"));
    if let Err(e) = gate::write_markdown(Some(&md_path), &text) {
        eprintln!("error: {}: {e}", md_path.display());
        return ExitCode::from(EXIT_SETUP);
    }
    println!(
        "gate: {} (exit {})",
        report.verdict.word(),
        report.exit_code
    );
    for p in [&report.candidate, &report.baseline] {
        println!(
            "{:<9} | {} | {} | {}",
            p.role,
            p.engine.name,
            p.origin,
            p.bench_text()
        );
    }
    print!("{}", report.block);
    println!(
        "Run   | {} ({})",
        report.out_dir.display(),
        md_path.display()
    );
    ExitCode::from(report.exit_code)
}
