//! `karsinta report RUN [RUN...]`: write each run folder's `report.html`
//! and, for several runs, one page that compares them.

use std::path::PathBuf;

use karsinta_harness::report::{self, Run};

/// Flags of `karsinta report`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run folders (results/RUN), match or tuner runs.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// With several runs: the comparison page (default: report.html here).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut runs = Vec::new();
    for dir in &args.runs {
        let run = Run::load(dir).map_err(|e| crate::common::UsageError(e.to_string()))?;
        let path = dir.join("report.html");
        report::write_page(&path, &report::render(std::slice::from_ref(&run)))?;
        println!("{}", path.display());
        runs.push(run);
    }
    if runs.len() > 1 {
        let path = args.out.unwrap_or_else(|| PathBuf::from("report.html"));
        report::write_page(&path, &report::render(&runs))?;
        println!("{}", path.display());
    }
    Ok(())
}
