//! `karsinta`: the harness's command line. Thin by design: argument parsing
//! and exit codes here, the work in `karsinta_harness`.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "karsinta", version, about = "Test and tune chess engines")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a match, gauntlet or round robin from a YAML config (or --resume a run).
    Match(cli::match_cmd::Args),
    /// Elo, LOS, nElo and SPRT LLR from result counts; SPRT cost calculator.
    Stats(cli::stats::Args),
    /// Opening suites: generate balanced positions, check that a suite loads.
    Openings(cli::openings::Args),
    /// A/B test two versions (revisions, binaries or parameter sets): bench, SPRT, commit-message block.
    Ab(cli::ab::Args),
    /// CI non-regression SPRT: exit 0 pass, 1 regression, 2 setup error, 3 inconclusive.
    Gate(cli::gate::Args),
    /// Tune parameters: `texel-data` (PGN to dataset), `texel` (evaluation weights).
    Tune(cli::tune::Args),
}

/// Exit status for errors in the user's input (clap uses it too).
const EXIT_USAGE: u8 = 2;
/// Exit status for any other failure.
const EXIT_FAILURE: u8 = 1;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => err.exit(), // --help, --version
        Err(err) => {
            // clap's message is several lines; its first names the problem.
            let text = err.render().to_string();
            let first = text.lines().next().unwrap_or("error: invalid arguments");
            eprintln!("{first} (see --help)");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let result = match cli.command {
        Command::Match(args) => cli::match_cmd::run(args),
        Command::Stats(args) => cli::stats::run(args),
        Command::Openings(args) => cli::openings::run(args),
        Command::Ab(args) => cli::ab::run(args),
        Command::Tune(args) => cli::tune::run(args),
        // The gate picks its own exit status (0/1/2/3).
        Command::Gate(args) => return cli::gate::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            if err.downcast_ref::<cli::UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_FAILURE)
            }
        }
    }
}
