//! `karsinta`: the harness's command line. Thin by design: argument parsing
//! and exit codes here, one module per subcommand (each a clap `Args` struct
//! and a `run` function that translates flags into calls on the harness
//! library), the work in `karsinta_harness`.

// The `///` comments of the clap structs are the `--help` text, where
// `<config name>` is a placeholder for the reader, not an HTML tag.
#![allow(rustdoc::invalid_html_tags)]

mod ab;
mod check_engine;
mod common;
mod datagen;
mod docs;
mod gate;
mod match_cmd;
mod openings;
mod report;
mod stats;
mod suite;
mod tune;
mod tune_spsa;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use karsinta_harness::config::flags::Dialect;

#[derive(Parser, Debug)]
#[command(name = "karsinta", version, about = "Test and tune chess engines")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a match, gauntlet or round robin from a YAML config (or --resume a run);
    /// fastchess / cutechess-cli flags work too (`karsinta match -help`).
    Match(match_cmd::Args),
    /// Write report.html (charts, tables) for run folders; several runs are compared.
    Report(report::Args),
    /// Elo, LOS, nElo and SPRT LLR from result counts; SPRT cost calculator.
    Stats(stats::Args),
    /// Opening suites: generate balanced positions, check that a suite loads.
    Openings(openings::Args),
    /// A/B test two versions (revisions, binaries or parameter sets): bench, SPRT, commit-message block.
    Ab(ab::Args),
    /// Run an EPD test suite (WAC, Bratko-Kopec, ...) through an engine: solved positions.
    Suite(suite::Args),
    /// UCI compliance report: handshake, options, isready while searching, stop, mate scores, PVs.
    CheckEngine(check_engine::Args),
    /// CI non-regression SPRT: exit 0 pass, 1 regression, 2 setup error, 3 inconclusive.
    Gate(gate::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(docs::CompletionArgs),
    /// Print the man page (roff), or write one per subcommand with --dir.
    Man(docs::ManArgs),
    /// Self-play training data (bulletformat, viriformat, text); `convert` between formats.
    Datagen(datagen::Args),
    /// Tune parameters: `texel-data` (PGN to dataset), `texel` (evaluation weights), `spsa` (search parameters by games).
    Tune(tune::Args),
}

/// Exit status for errors in the user's input (clap uses it too).
const EXIT_USAGE: u8 = 2;
/// Exit status for any other failure.
const EXIT_FAILURE: u8 = 1;

/// The error and its causes, `: `-separated, leaving out a cause whose text
/// the message already contains (many errors print their source inline).
fn error_chain(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

fn main() -> ExitCode {
    // fastchess-style flags (`-engine cmd=...`) are not clap's syntax.
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // Installed as `cutechess-cli` or `fastchess`: that tool's command
    // line, meaning and output (an optional `match` first).
    if let Some(tool) = argv.first().and_then(|p| Dialect::from_program(p)) {
        let skip = if argv.get(1).is_some_and(|a| a == "match") {
            2
        } else {
            1
        };
        return exit_status(match_cmd::run_fastchess(&argv[skip..], Some(tool)));
    }
    if argv.get(1).is_some_and(|a| a == "match")
        && karsinta_harness::config::flags::is_fastchess_style(&argv[2..])
    {
        return exit_status(match_cmd::run_fastchess(&argv[2..], None));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => err.exit(), // --help, --version
        Err(err) => {
            // clap's message: the problem, the missing arguments if any, then
            // usage and a --help tip; keep what comes before the usage.
            let text = err.render().to_string();
            let lines: Vec<&str> = text
                .lines()
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            // One line: the problem and, for missing ones, their names.
            let message = if lines.is_empty() {
                "error: invalid arguments".to_string()
            } else {
                lines.join(" ")
            };
            eprintln!("{message} (see --help)");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let result = match cli.command {
        Command::Match(args) => match_cmd::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Openings(args) => openings::run(args),
        Command::Ab(args) => ab::run(args),
        Command::Report(args) => report::run(args),
        Command::Completions(args) => docs::completions(Cli::command(), args),
        Command::Man(args) => docs::man(Cli::command(), args),
        Command::Tune(args) => tune::run(args),
        Command::Datagen(args) => datagen::run(args),
        Command::Suite(args) => suite::run(args),
        Command::CheckEngine(args) => return check_engine::run(args),
        // The gate picks its own exit status (0/1/2/3).
        Command::Gate(args) => return gate::run(args),
    };
    exit_status(result)
}

/// Exit status of a command's result; errors are printed as one line.
fn exit_status(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", error_chain(&err));
            if err.downcast_ref::<common::UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_FAILURE)
            }
        }
    }
}
