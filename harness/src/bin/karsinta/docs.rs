//! `karsinta completions SHELL` and `karsinta man`: shell completions and
//! man pages, generated from the clap definitions so they never drift from
//! the flags. The README gives the one-line installs.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;

/// Flags of `karsinta completions`.
#[derive(clap::Args, Debug)]
pub struct CompletionArgs {
    /// The shell to complete for.
    pub shell: clap_complete::Shell,
}

/// Flags of `karsinta man`.
#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write karsinta.1 and one karsinta-SUBCOMMAND.1 per subcommand into
    /// this folder (e.g. ~/.local/share/man/man1) instead of printing karsinta.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn completions(mut cmd: clap::Command, args: CompletionArgs) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut cmd, "karsinta", &mut out);
    out.flush().context("stdout")
}

pub fn man(cmd: clap::Command, args: ManArgs) -> anyhow::Result<()> {
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir).with_context(|| format!("{}", dir.display()))?;
            clap_mangen::generate_to(cmd, &dir).with_context(|| format!("{}", dir.display()))
        }
        None => {
            let mut out = std::io::stdout().lock();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .context("stdout")?;
            out.flush().context("stdout")
        }
    }
}
