//! `karsinta check-engine`: a UCI compliance report (fastchess's
//! `--compliance`, with more steps).
//! ```text
//! karsinta check-engine SPEC [--option NAME=VALUE ...] [--strict] [--json]
//! ```
//! Exit status 0 when no step failed (and, with `--strict`, none warned), 1
//! otherwise, 2 for bad flags. The work is in
//! [`karsinta_harness::players::compliance`].

use std::process::ExitCode;

use karsinta_harness::play::suite::engine_spec;
use karsinta_harness::players::compliance::check_engine;
use karsinta_harness::players::PlayerKind;

/// Flags of `karsinta check-engine`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The engine: a program path or name, or `cmd=PATH[,arg=A][,dir=D][,option.NAME=VALUE]`.
    pub engine: String,
    /// UCI option set after the handshake, repeatable.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Exit 1 on any warning, not only on failures.
    #[arg(long)]
    pub strict: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args) -> ExitCode {
    let mut options = Vec::new();
    for o in &a.options {
        let Some((k, v)) = o.split_once('=') else {
            eprintln!("error: --option {o}: expected NAME=VALUE (see --help)");
            return ExitCode::from(2);
        };
        options.push((k.to_string(), v.to_string()));
    }
    let spec = match engine_spec(&a.engine, None, &options) {
        Ok(s) if s.kind == PlayerKind::Uci => s,
        Ok(_) => {
            eprintln!("error: check-engine checks UCI engines over their pipes (see --help)");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let report = check_engine(&spec);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print!("{}", report.text());
    }
    let bad = report.failures() > 0 || (a.strict && report.warnings() > 0);
    if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
