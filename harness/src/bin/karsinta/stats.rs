//! `karsinta stats`: match statistics from result counts, for scripts and CI.
//!
//! ```text
//! karsinta stats --ptnml LL,LD,DD,DW,WW [--elo0 X --elo1 Y] [--alpha A] [--beta B] [--model M] [--json]
//! karsinta stats --wdl W,D,L ...
//! karsinta stats expected --elo0 X --elo1 Y --elo E[,E..] --draw-ratio D [--rms-bias B] ...
//! ```
//! All maths comes from [`karsinta_harness::stats`].

use std::str::FromStr;

use karsinta_harness::stats::fmt_opt;
use karsinta_harness::stats::two_decimals;
use karsinta_harness::stats::{
    expected_games_checked, EloModel, Estimate, Pentanomial, SprtDecision, SprtParams, SprtResult,
    Trinomial, UnbiasedElo,
};
use serde::Serialize;

use crate::common::{usage, UsageError};

/// Flags of `karsinta stats`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<StatsCommand>,
    /// Pentanomial counts of game pairs, first engine's view (DD includes WL
    /// pairs, so the draw ratio counts a DD+WL pair as two draws).
    #[arg(
        long,
        value_name = "LL,LD,DD,DW,WW",
        allow_hyphen_values = true,
        conflicts_with = "wdl"
    )]
    pub ptnml: Option<String>,
    /// Trinomial counts of games, first engine's view.
    #[arg(long, value_name = "W,D,L", allow_hyphen_values = true)]
    pub wdl: Option<String>,
    #[command(flatten)]
    pub sprt: SprtArgs,
    /// Print one JSON object instead of a readable summary.
    #[arg(long)]
    pub json: bool,
}

/// SPRT design flags; the SPRT is computed only when both bounds are given
/// (the others without bounds are a usage error, not silently ignored).
#[derive(clap::Args, Debug)]
pub struct SprtArgs {
    /// H0 bound (Elo in the chosen model).
    #[arg(long, allow_hyphen_values = true)]
    pub elo0: Option<f64>,
    /// H1 bound (Elo in the chosen model).
    #[arg(long, allow_hyphen_values = true)]
    pub elo1: Option<f64>,
    /// False positive rate (at elo0) [default: 0.05].
    #[arg(long, allow_hyphen_values = true)]
    pub alpha: Option<f64>,
    /// False negative rate (at elo1) [default: 0.05].
    #[arg(long, allow_hyphen_values = true)]
    pub beta: Option<f64>,
    /// How elo0/elo1 are expressed: normalized, logistic or bayesian (BayesElo on W/D/L) [default: normalized].
    #[arg(long, value_parser = EloModel::from_str)]
    pub model: Option<EloModel>,
}

/// Subcommands of `karsinta stats`.
#[derive(clap::Subcommand, Debug)]
pub enum StatsCommand {
    /// Pass probability and expected games of an SPRT (fishtest's calculator).
    Expected(ExpectedArgs),
}

/// Flags of `karsinta stats expected`.
#[derive(clap::Args, Debug)]
pub struct ExpectedArgs {
    /// True logistic Elo difference(s) to evaluate, comma separated.
    #[arg(
        long,
        required = true,
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub elo: Vec<f64>,
    /// Per-game draw ratio, in [0, 1).
    #[arg(long)]
    pub draw_ratio: f64,
    /// RMS opening bias in logistic Elo (0 for balanced books).
    #[arg(long, default_value_t = 0.0)]
    pub rms_bias: f64,
    #[command(flatten)]
    pub sprt: SprtArgs,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The JSON object `karsinta stats --json` prints.
#[derive(Serialize)]
struct Report {
    #[serde(skip_serializing_if = "Option::is_none")]
    ptnml: Option<Pentanomial>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wdl: Option<Trinomial>,
    #[serde(flatten)]
    estimate: Estimate,
    #[serde(flatten)]
    sprt: Option<SprtReport>,
}

#[derive(Serialize)]
struct SprtReport {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: EloModel,
    llr: f64,
    llr_lower: f64,
    llr_upper: f64,
    decision: karsinta_harness::stats::SprtDecision,
    /// fishtest's median-unbiased Elo, once the SPRT has stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    unbiased: Option<UnbiasedElo>,
}

/// Confidence of the median-unbiased interval (fishtest's).
const CONFIDENCE: f64 = 0.95;

/// Error rates when `--alpha` / `--beta` are not given (fishtest's).
const DEFAULT_ERROR_RATE: f64 = 0.05;

/// Runs `karsinta stats`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(StatsCommand::Expected(e)) = args.command {
        return run_expected(e);
    }
    let params = sprt_params(&args.sprt, false)?;
    let (ptnml, wdl) = match (&args.ptnml, &args.wdl) {
        (Some(s), None) => {
            let p = Pentanomial(parse_counts::<5>(s, "--ptnml", "LL,LD,DD,DW,WW")?);
            if p.checked_games().is_none() {
                return usage(too_many("--ptnml", s));
            }
            (Some(p), None)
        }
        (None, Some(s)) => {
            let [w, d, l] = parse_counts::<3>(s, "--wdl", "W,D,L")?;
            let t = Trinomial::new(w, d, l);
            if t.checked_games().is_none() {
                return usage(too_many("--wdl", s));
            }
            (None, Some(t))
        }
        _ => return usage("give the results with --ptnml LL,LD,DD,DW,WW or --wdl W,D,L"),
    };
    if ptnml.is_some() && params.is_some_and(|p| p.model.counts_games()) {
        return usage("--model bayesian: BayesElo is a model of single games; give --wdl W,D,L");
    }
    let (estimate, result, unbiased) = match (ptnml, wdl) {
        (Some(p), _) => (
            p.estimate(),
            params.map(|s| s.test_penta(&p)),
            params.and_then(|s| s.unbiased_penta(&p, CONFIDENCE)),
        ),
        (None, Some(t)) => (
            t.estimate(),
            params.map(|s| s.test_wdl(&t)),
            params.and_then(|s| s.unbiased_wdl(&t, CONFIDENCE)),
        ),
        (None, None) => unreachable!("one of the counts was parsed above"),
    };
    let sprt = params.zip(result).map(|(p, r)| {
        // The estimate corrects for where the test stopped; a running test
        // has not stopped.
        let stopped = r.decision != SprtDecision::Continue;
        sprt_report(&p, &r, unbiased.filter(|_| stopped))
    });
    let report = Report {
        ptnml,
        wdl,
        estimate,
        sprt,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", summary(&report));
    }
    Ok(())
}

fn sprt_report(p: &SprtParams, r: &SprtResult, unbiased: Option<UnbiasedElo>) -> SprtReport {
    SprtReport {
        elo0: p.elo0,
        elo1: p.elo1,
        alpha: p.alpha,
        beta: p.beta,
        model: p.model,
        llr: r.llr,
        llr_lower: r.lower,
        llr_upper: r.upper,
        decision: r.decision,
        unbiased,
    }
}

/// The SPRT design, or `None` when no bounds were given (allowed only if
/// `required` is false).
fn sprt_params(a: &SprtArgs, required: bool) -> anyhow::Result<Option<SprtParams>> {
    match (a.elo0, a.elo1) {
        (Some(elo0), Some(elo1)) => {
            let p = SprtParams::new(
                elo0,
                elo1,
                a.alpha.unwrap_or(DEFAULT_ERROR_RATE),
                a.beta.unwrap_or(DEFAULT_ERROR_RATE),
                a.model.unwrap_or(EloModel::Normalized),
            )
            .map_err(|e| UsageError(e.to_string()))?;
            Ok(Some(p))
        }
        (None, None) if !required => {
            let given: Vec<&str> = [
                ("--alpha", a.alpha.is_some()),
                ("--beta", a.beta.is_some()),
                ("--model", a.model.is_some()),
            ]
            .iter()
            .filter(|(_, on)| *on)
            .map(|(flag, _)| *flag)
            .collect();
            if given.is_empty() {
                Ok(None)
            } else {
                usage(format!(
                    "{} only apply to an SPRT: give its bounds with --elo0 and --elo1",
                    given.join(", ")
                ))
            }
        }
        (None, None) => usage("give the SPRT bounds with --elo0 and --elo1"),
        _ => usage("--elo0 and --elo1 must be given together"),
    }
}

/// The message for counts whose number of games overflows a `u64`.
fn too_many(flag: &str, counts: &str) -> String {
    format!(
        "{flag} {counts}: the counts add up to more than {} games",
        u64::MAX
    )
}

/// Parses exactly `N` comma-separated non-negative whole numbers.
fn parse_counts<const N: usize>(s: &str, flag: &str, shape: &str) -> anyhow::Result<[u64; N]> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != N {
        return usage(format!(
            "{flag} expects {N} comma-separated counts {shape}, got {} in '{s}'",
            parts.len()
        ));
    }
    let mut out = [0u64; N];
    for (slot, part) in out.iter_mut().zip(&parts) {
        *slot = match part.parse::<u64>() {
            Ok(v) => v,
            Err(_) if part.parse::<i128>().is_ok_and(|v| v < 0) => {
                return usage(format!("{flag}: count '{part}' is negative"));
            }
            Err(_) => {
                return usage(format!(
                    "{flag}: '{part}' is not a whole number (expected {shape})"
                ));
            }
        };
    }
    Ok(out)
}

/// The readable summary, in the layout of a commit message's result block.
fn summary(r: &Report) -> String {
    let e = &r.estimate;
    let mut out = String::new();
    match (&r.ptnml, &r.wdl) {
        (Some(p), _) => {
            out += &format!("Games | N: {} (pairs: {})\n", e.games, p.pairs());
            out += &format!("Penta | {:?}\n", p.0);
        }
        (None, Some(t)) => {
            out += &format!(
                "Games | N: {} W: {} L: {} D: {}\n",
                e.games, t.wins, t.losses, t.draws
            );
        }
        (None, None) => {}
    }
    // No games: neither figure exists (not 50% and 0%).
    let pct = |x: Option<f64>, d: usize| {
        x.map_or_else(
            || "n/a".to_string(),
            |v| format!("{}%", fmt_opt(Some(100.0 * v), d)),
        )
    };
    out += &format!(
        "Score | {}  draw ratio {}\n",
        pct(e.score, 2),
        pct(e.draw_ratio, 1)
    );
    out += &format!(
        "Elo   | {} +- {} (95%) [{}, {}]\n",
        fmt_opt(e.elo, 2),
        fmt_opt(e.elo_error, 2),
        fmt_opt(e.elo_low, 2),
        fmt_opt(e.elo_high, 2)
    );
    out += &format!(
        "nElo  | {} +- {} (95%)\n",
        fmt_opt(e.nelo, 2),
        fmt_opt(e.nelo_error, 2)
    );
    out += &format!(
        "LOS   | {}\n",
        e.los
            .map_or_else(|| "n/a".to_string(), |l| format!("{:.2}%", 100.0 * l))
    );
    if let Some(s) = &r.sprt {
        let verdict = match s.decision {
            SprtDecision::H0 => "H0 accepted",
            SprtDecision::H1 => "H1 accepted",
            SprtDecision::Continue => "continue",
        };
        out += &format!(
            "LLR   | {} ({:.2}, {:.2}) [{:.2}, {:.2}] {} -> {verdict}\n",
            two_decimals(s.llr),
            s.llr_lower,
            s.llr_upper,
            s.elo0,
            s.elo1,
            s.model.name()
        );
        if let Some(u) = &s.unbiased {
            out += &u.line();
            out.push('\n');
        }
    }
    out
}

#[derive(Serialize)]
struct ExpectedRow {
    elo: f64,
    pass_probability: f64,
    expected_games: f64,
}

#[derive(Serialize)]
struct ExpectedReport {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: EloModel,
    draw_ratio: f64,
    rms_bias: f64,
    rows: Vec<ExpectedRow>,
}

/// Runs `karsinta stats expected`.
fn run_expected(a: ExpectedArgs) -> anyhow::Result<()> {
    let Some(params) = sprt_params(&a.sprt, true)? else {
        return usage("give the SPRT bounds with --elo0 and --elo1");
    };
    let mut rows = Vec::with_capacity(a.elo.len());
    for &elo in &a.elo {
        let (pass, games) = expected_games_checked(&params, elo, a.draw_ratio, a.rms_bias)
            .map_err(|e| UsageError(e.to_string()))?;
        rows.push(ExpectedRow {
            elo,
            pass_probability: pass,
            expected_games: games,
        });
    }
    let report = ExpectedReport {
        elo0: params.elo0,
        elo1: params.elo1,
        alpha: params.alpha,
        beta: params.beta,
        model: params.model,
        draw_ratio: a.draw_ratio,
        rms_bias: a.rms_bias,
        rows,
    };
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!(
        "SPRT [{:.2}, {:.2}] {} alpha {} beta {}; draw ratio {}, RMS bias {}",
        report.elo0,
        report.elo1,
        report.model.name(),
        report.alpha,
        report.beta,
        report.draw_ratio,
        report.rms_bias
    );
    println!("{:>8}  {:>8}  {:>10}", "Elo", "P(pass)", "E[games]");
    for r in &report.rows {
        println!(
            "{:>8.2}  {:>7.1}%  {:>10.0}",
            r.elo,
            100.0 * r.pass_probability,
            r.expected_games
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_parsing() {
        assert_eq!(
            parse_counts::<3>("1, 2,3", "--wdl", "W,D,L").unwrap(),
            [1, 2, 3]
        );
        let err = parse_counts::<3>("1,2", "--wdl", "W,D,L")
            .unwrap_err()
            .to_string();
        assert!(err.contains("expects 3"), "{err}");
        let err = parse_counts::<3>("1,-2,3", "--wdl", "W,D,L")
            .unwrap_err()
            .to_string();
        assert!(err.contains("negative"), "{err}");
        let err = parse_counts::<3>("1,x,3", "--wdl", "W,D,L")
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a whole number"), "{err}");
        let err = parse_counts::<5>("1,2,3,4,5.5", "--ptnml", "").unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some());
    }
}
