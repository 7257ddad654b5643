//! `karsinta gate`: a non-regression SPRT between a baseline and a
//! candidate for CI, turned into an exit status and a Markdown report.
//!
//! The SPRT comes from the config (default H0: nElo <= -5 against H1:
//! nElo >= 0, alpha = beta = 0.05), the budget from its game cap and an
//! optional wall-clock limit. Exit statuses: [`EXIT_PASS`] (H1: the
//! candidate is not worse), [`EXIT_FAIL`] (H0: regression), [`EXIT_SETUP`]
//! (bad config, failed build, an engine that does not start) and
//! [`EXIT_INCONCLUSIVE`] (budget spent without a decision; the config's
//! `gate.inconclusive` may count it as a pass or a fail instead). The match
//! is [`crate::run::ab`]'s, with the candidate as the first engine.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, MatchConfig, Overrides, RawSprt};
use crate::report::summary::Summary;
use crate::run::ab::{self, AbError, Prepared, Side};
use crate::run::tally::SprtVerdict;
use crate::run::{claim_new_run_dir, remove_if_empty, run_match, RunOptions};
use crate::stats::EloModel;

/// The config block the gate reads ([`RawGate`]).
pub const SECTION: &str = "gate";

/// The candidate is not worse (H1 accepted).
pub const EXIT_PASS: u8 = 0;
/// The candidate is worse (H0 accepted).
pub const EXIT_FAIL: u8 = 1;
/// The gate could not run.
pub const EXIT_SETUP: u8 = 2;
/// No decision within the budget.
pub const EXIT_INCONCLUSIVE: u8 = 3;

/// Default non-regression bounds (normalized Elo).
pub const DEFAULT_ELO0: f64 = -5.0;
/// H1 of the default test: no loss (H0: a loss of 5), so a candidate need not gain.
pub const DEFAULT_ELO1: f64 = 0.0;

/// What an undecided test counts as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InconclusivePolicy {
    /// Count it as a pass (exit [`EXIT_PASS`]).
    Pass,
    /// Count it as a failure (exit [`EXIT_FAIL`]).
    Fail,
    /// Its own exit status, [`EXIT_INCONCLUSIVE`].
    #[default]
    Error,
}

impl std::str::FromStr for InconclusivePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "pass" => Ok(InconclusivePolicy::Pass),
            "fail" => Ok(InconclusivePolicy::Fail),
            "error" => Ok(InconclusivePolicy::Error),
            _ => Err(format!("'{s}' is not pass, fail or error")),
        }
    }
}

/// The `gate:` block of a config, as written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGate {
    /// `error` (default: exit 3), `pass` (exit 0) or `fail` (exit 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inconclusive: Option<InconclusivePolicy>,
    /// Wall-clock budget of the match in minutes; when it runs out the
    /// games in progress are abandoned and the test is inconclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_minutes: Option<f64>,
}

/// The outcome of the SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The SPRT accepted H1: the candidate is no regression.
    Pass,
    /// The SPRT accepted H0: the candidate regressed.
    Fail,
    /// No verdict (no SPRT, the game cap or `gate.max_minutes` reached first); the policy decides.
    Inconclusive,
}

impl Verdict {
    /// From the run's SPRT state (`None`: no SPRT ran): H1 passes, H0
    /// fails, anything undecided is inconclusive.
    pub fn from_sprt(verdict: Option<SprtVerdict>) -> Verdict {
        match verdict {
            Some(SprtVerdict::H1) => Verdict::Pass,
            Some(SprtVerdict::H0) => Verdict::Fail,
            Some(SprtVerdict::Continue | SprtVerdict::Inconclusive | SprtVerdict::Interrupted)
            | None => Verdict::Inconclusive,
        }
    }

    /// The process exit status under `policy`.
    pub fn exit_code(self, policy: InconclusivePolicy) -> u8 {
        match (self, policy) {
            (Verdict::Pass, _) | (Verdict::Inconclusive, InconclusivePolicy::Pass) => EXIT_PASS,
            (Verdict::Fail, _) | (Verdict::Inconclusive, InconclusivePolicy::Fail) => EXIT_FAIL,
            (Verdict::Inconclusive, InconclusivePolicy::Error) => EXIT_INCONCLUSIVE,
        }
    }

    /// `PASS`, `FAIL` or `INCONCLUSIVE`, as the result block prints it.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Inconclusive => "INCONCLUSIVE",
        }
    }
}

/// What `karsinta gate` is asked to do.
#[derive(Clone, Debug)]
pub struct GateRequest {
    /// Match config; its first engine is the template for the candidate, its second for the
    /// baseline.
    pub config: PathBuf,
    /// Command-line values that replace the config's keys.
    pub overrides: Overrides,
    /// The git checkout revisions are built from.
    pub repo: PathBuf,
    /// The version the candidate is compared with (`--baseline`, `--baseline-cmd`, ...).
    pub baseline: Side,
    /// The version under test (`--candidate`, ...).
    pub candidate: Side,
    /// Command-line override of `gate.inconclusive`.
    pub inconclusive: Option<InconclusivePolicy>,
    /// Command-line override of `gate.max_minutes`.
    pub max_minutes: Option<f64>,
    /// Default: [`MatchConfig::default_out_dir`].
    pub out_dir: Option<PathBuf>,
    /// No progress bar or pair lines.
    pub quiet: bool,
    /// [`RunOptions::interrupt`]; an interrupted gate has no verdict.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// See [`ab::PrepareOptions::bench_depth`].
    pub bench_depth: Option<u32>,
}

/// A finished gate.
#[derive(Debug)]
pub struct GateReport {
    /// The outcome of the SPRT.
    pub verdict: Verdict,
    /// The process exit status: the verdict under `policy`.
    pub exit_code: u8,
    /// What an inconclusive test counted as (the flag, else `gate.inconclusive`).
    pub policy: InconclusivePolicy,
    /// The candidate as built and benched.
    pub candidate: Prepared,
    /// The baseline as built and benched.
    pub baseline: Prepared,
    /// The config actually played (engines replaced).
    pub config: MatchConfig,
    /// The figures when the run ended.
    pub summary: Summary,
    /// The run folder.
    pub out_dir: PathBuf,
    /// The commit-message block.
    pub block: String,
}

/// Fills in the gate's defaults: the non-regression SPRT when the config
/// has none (a fleet gate-style test plays the same config).
pub fn with_default_sprt(cfg: MatchConfig) -> Result<MatchConfig, ConfigError> {
    if cfg.sprt.is_some() {
        return Ok(cfg);
    }
    cfg.with_sprt(RawSprt {
        elo0: DEFAULT_ELO0,
        elo1: DEFAULT_ELO1,
        alpha: 0.05,
        beta: 0.05,
        model: EloModel::Normalized,
        max_games: None,
    })
}

/// Runs the gate. `Err` is a setup error ([`EXIT_SETUP`]).
pub fn run_gate(req: &GateRequest, log: &mut dyn FnMut(&str)) -> Result<GateReport, AbError> {
    let cfg = MatchConfig::load_with(&req.config, &req.overrides, &ab::accepted_sections())?;
    let raw_gate: RawGate = cfg.section(SECTION)?.unwrap_or_default();
    let policy = req
        .inconclusive
        .or(raw_gate.inconclusive)
        .unwrap_or_default();
    let max_minutes = req.max_minutes.or(raw_gate.max_minutes);
    if let Some(m) = max_minutes {
        if !(m.is_finite() && m > 0.0) {
            return Err(ConfigError::Invalid {
                path: req.config.clone(),
                key: "gate.max_minutes".into(),
                message: format!("{m} is not a positive number of minutes"),
            }
            .into());
        }
    }
    let options = ab::PrepareOptions {
        bench_depth: req.bench_depth,
        interrupt: req.interrupt.as_deref(),
    };
    let (config, candidate, baseline) = ab::prepare_pair(
        &cfg,
        &req.repo,
        ("candidate", &req.candidate),
        ("baseline", &req.baseline),
        &options,
        log,
    )?;
    let config = with_default_sprt(config)?;
    ab::check_engines(&config, &["candidate", "baseline"])?;
    if req
        .interrupt
        .as_ref()
        .is_some_and(|f| f.load(Ordering::SeqCst))
    {
        return Err(AbError::Interrupted);
    }
    let out_dir = match req.out_dir.clone() {
        Some(d) => d,
        None => claim_new_run_dir(&config.default_out_dir())?,
    };

    // The time budget: a timer raises the stop flag unless the match ends first.
    let stop = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let timer = max_minutes.map(|m| {
        let stop = stop.clone();
        let budget = Duration::from_secs_f64(m * 60.0);
        std::thread::spawn(move || {
            if done_rx.recv_timeout(budget) == Err(mpsc::RecvTimeoutError::Timeout) {
                stop.store(true, Ordering::Relaxed);
            }
        })
    });
    let opts = RunOptions {
        out_dir: out_dir.clone(),
        resume: false,
        quiet: req.quiet,
        factory: None,
        stop: Some(stop),
        interrupt: req.interrupt.clone(),

        ..RunOptions::default()
    };
    let result = run_match(&config, &opts).inspect_err(|_| remove_if_empty(&out_dir));
    drop(done_tx);
    if let Some(t) = timer {
        let _ = t.join();
    }
    let summary = result?;
    let verdict = Verdict::from_sprt(summary.sprt.as_ref().map(|s| s.decision));
    let block = ab::summary_block(&config, &summary);
    Ok(GateReport {
        verdict,
        exit_code: verdict.exit_code(policy),
        policy,
        candidate,
        baseline,
        config,
        summary,
        out_dir,
        block,
    })
}

/// Escapes text for a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown report (`gate.md`, and the CI job summary).
pub fn markdown(r: &GateReport) -> String {
    let mut s = String::new();
    let exit_note = match (r.verdict, r.policy) {
        (Verdict::Inconclusive, InconclusivePolicy::Pass) => " (counted as a pass)",
        (Verdict::Inconclusive, InconclusivePolicy::Fail) => " (counted as a fail)",
        _ => "",
    };
    let _ = writeln!(s, "## karsinta gate: {}{exit_note}\n", r.verdict.word());
    let (elo0, elo1, model) = r
        .summary
        .sprt
        .as_ref()
        .map_or((DEFAULT_ELO0, DEFAULT_ELO1, "normalized"), |sp| {
            (sp.elo0, sp.elo1, sp.model.name())
        });
    let unit = if model == "normalized" { "nElo" } else { "Elo" };
    let meaning = match r.verdict {
        Verdict::Pass => {
            format!(
                "the candidate is not worse than the baseline (H1 accepted: {unit} >= {elo1:.2})"
            )
        }
        Verdict::Fail => {
            format!("the candidate is a regression (H0 accepted: {unit} <= {elo0:.2})")
        }
        Verdict::Inconclusive => "no decision within the game and time budget".to_string(),
    };
    let _ = writeln!(
        s,
        "SPRT [{elo0:.2}, {elo1:.2}] ({model} Elo) after {} games: {meaning}. Exit status {}.\n",
        r.summary.games, r.exit_code
    );
    let _ = writeln!(s, "| Role | Engine | Version | Bench |");
    let _ = writeln!(s, "|---|---|---|---|");
    for p in [&r.candidate, &r.baseline] {
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {} |",
            p.role,
            cell(&p.engine.name),
            cell(&p.origin),
            cell(&p.bench_text())
        );
    }
    let _ = writeln!(
        s,
        "\nFrom the candidate's point of view:\n\n```\n{}```\n",
        r.block
    );
    let ends: Vec<String> = r
        .summary
        .terminations
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    if !ends.is_empty() {
        let _ = writeln!(s, "Game endings: {}.\n", ends.join(", "));
    }
    let dir = r.out_dir.display();
    let _ = writeln!(
        s,
        "Files: `{dir}/summary.json`, `{dir}/games.pgn`, `{dir}/config.yaml`, `{dir}/ledger.jsonl`."
    );
    s
}

/// The Markdown report of a gate that could not run.
pub fn error_markdown(message: &str) -> String {
    format!(
        "## karsinta gate: ERROR\n\nThe gate could not run (exit status {EXIT_SETUP}):\n\n```\n{}\n```\n",
        message.trim_end()
    )
}

/// Writes `text` to `path` and, when `$GITHUB_STEP_SUMMARY` names a file,
/// appends it there too.
pub fn write_markdown(path: Option<&Path>, text: &str) -> std::io::Result<()> {
    if let Some(p) = path {
        if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(p, text)?;
    }
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|v| !v.is_empty()) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(summary)?;
        writeln!(f, "{text}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_lists_the_blocks_their_owners_declare() {
        assert_eq!(crate::run::SECTIONS, [ab::SECTION, SECTION]);
    }

    #[test]
    fn exit_codes() {
        use InconclusivePolicy as P;
        assert_eq!(Verdict::from_sprt(Some(SprtVerdict::H1)), Verdict::Pass);
        assert_eq!(Verdict::from_sprt(Some(SprtVerdict::H0)), Verdict::Fail);
        for undecided in [
            Some(SprtVerdict::Inconclusive),
            Some(SprtVerdict::Continue),
            Some(SprtVerdict::Interrupted),
            None,
        ] {
            assert_eq!(Verdict::from_sprt(undecided), Verdict::Inconclusive);
        }
        for p in [P::Pass, P::Fail, P::Error] {
            assert_eq!(Verdict::Pass.exit_code(p), EXIT_PASS);
            assert_eq!(Verdict::Fail.exit_code(p), EXIT_FAIL);
        }
        assert_eq!(Verdict::Inconclusive.exit_code(P::Pass), 0);
        assert_eq!(Verdict::Inconclusive.exit_code(P::Fail), 1);
        assert_eq!(Verdict::Inconclusive.exit_code(P::Error), 3);
        assert_eq!(P::default(), P::Error);
        assert_eq!("fail".parse::<P>(), Ok(P::Fail));
        assert!("maybe".parse::<P>().is_err());
    }

    #[test]
    fn raw_gate_rejects_unknown_keys() {
        let g: RawGate = serde_yaml::from_str("inconclusive: pass\nmax_minutes: 20").unwrap();
        assert_eq!(g.inconclusive, Some(InconclusivePolicy::Pass));
        assert_eq!(g.max_minutes, Some(20.0));
        let e = serde_yaml::from_str::<RawGate>("inconclusiv: pass")
            .unwrap_err()
            .to_string();
        assert!(e.contains("inconclusiv"), "{e}");
        let e = serde_yaml::from_str::<RawGate>("inconclusive: maybe")
            .unwrap_err()
            .to_string();
        assert!(e.contains("maybe"), "{e}");
    }

    #[test]
    fn error_markdown_quotes_the_message() {
        let md = error_markdown("candidate engine 'x' cannot start\n");
        assert!(md.starts_with("## karsinta gate: ERROR"));
        assert!(md.contains("```\ncandidate engine 'x' cannot start\n```"));
    }

    #[test]
    fn cells_are_escaped() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
