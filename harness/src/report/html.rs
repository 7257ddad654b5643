//! `report.html`: a self-contained page (inline SVG, no scripts, fonts or
//! network) that shows a run folder: the result block, LLR and Elo against
//! games played, pentanomial and W/D/L bars, terminations, engine faults,
//! per-opening results, and line charts of any per-epoch CSV a tuner wrote
//! (`loss.csv`, `params.csv`, ...). Several runs make one page with a
//! comparison table.
//!
//! Reads only the run folder's files: `summary.json` (as plain JSON, so the
//! page survives summary fields being added), `ledger.jsonl` (replayed pair
//! by pair to recompute LLR and Elo with [`crate::stats`]), `games.pgn` (the
//! openings' FENs) and `*.csv`. Never writes anything but the page.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use thiserror::Error;

use super::chart::{bar_chart, esc, line_chart, Chart};
use crate::formats::pgn_write;
use crate::play::game::{GameResult, Termination};
use crate::run::ledger::PairEntry;
use crate::run::tally::PairingTally;
use crate::stats::{Counting, EloModel, SprtParams};

/// A run folder the page cannot be made from.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum ReportError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

fn read(path: &Path) -> Result<Option<String>, ReportError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ReportError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A CSV of per-epoch or per-iteration columns: first column the x axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    /// The CSV's file name in the run folder (`elo.csv`, ...).
    pub file: String,
    /// The first column's name: the x axis label.
    pub x_name: String,
    /// Column name and (x, y) points; non-numeric cells are skipped.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// Parse a CSV with a header row. Quoting is not supported (tuner CSVs are
/// plain numbers); a row with another number of cells is an error naming
/// its line.
pub fn parse_columns(file: &str, text: &str, path: &Path) -> Result<Columns, ReportError> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = lines
        .next()
        .ok_or_else(|| ReportError::Invalid {
            path: path.to_path_buf(),
            message: "empty CSV".into(),
        })?
        .split(',')
        .map(|h| h.trim().to_string())
        .collect();
    if header.len() < 2 {
        return Err(ReportError::Invalid {
            path: path.to_path_buf(),
            message: "a CSV needs an x column and at least one more".into(),
        });
    }
    let mut series: Vec<(String, Vec<(f64, f64)>)> = header[1..]
        .iter()
        .map(|h| (h.clone(), Vec::new()))
        .collect();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != header.len() {
            return Err(ReportError::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "line {}: {} cells, the header has {}",
                    i + 1,
                    cells.len(),
                    header.len()
                ),
            });
        }
        let Ok(x) = cells[0].parse::<f64>() else {
            continue;
        };
        for (s, c) in series.iter_mut().zip(&cells[1..]) {
            if let Ok(y) = c.parse::<f64>() {
                if y.is_finite() {
                    s.1.push((x, y));
                }
            }
        }
    }
    series.retain(|s| !s.1.is_empty());
    Ok(Columns {
        file: file.to_string(),
        x_name: header[0].clone(),
        series,
    })
}

/// Everything the page shows of one run folder.
#[derive(Clone, Debug)]
pub struct Run {
    /// The run folder.
    pub dir: PathBuf,
    /// `summary.json`; `Value::Null` for a folder without one (a tuner run).
    pub summary: Value,
    /// The ledger's pairs (`ledger.jsonl`), in the order they finished.
    pub pairs: Vec<PairEntry>,
    /// Opening index -> FEN of the first game played from it.
    pub fens: BTreeMap<usize, String>,
    /// The folder's CSV files, sorted by name.
    pub csvs: Vec<Columns>,
}

impl Run {
    /// Load a run folder: `summary.json` and/or CSV files must be there.
    pub fn load(dir: &Path) -> Result<Run, ReportError> {
        if !dir.is_dir() {
            return Err(ReportError::Invalid {
                path: dir.to_path_buf(),
                message: "not a folder".into(),
            });
        }
        let summary_path = dir.join("summary.json");
        let summary = match read(&summary_path)? {
            Some(t) => serde_json::from_str(&t).map_err(|e| ReportError::Invalid {
                path: summary_path.clone(),
                message: e.to_string(),
            })?,
            None => Value::Null,
        };
        let ledger_path = dir.join("ledger.jsonl");
        let mut pairs = Vec::new();
        if let Some(text) = read(&ledger_path)? {
            // Only complete lines count (as the ledger's own reader does); a
            // line cut short by a kill is left for `--resume` to repair.
            let complete = text.rfind('\n').map_or("", |i| &text[..=i]);
            for (i, line) in complete.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let e: PairEntry =
                    serde_json::from_str(line).map_err(|e| ReportError::Invalid {
                        path: ledger_path.clone(),
                        message: format!("line {}: {e}", i + 1),
                    })?;
                pairs.push(e);
            }
        }
        let mut fens = BTreeMap::new();
        if let Some(text) = read(&dir.join("games.pgn"))? {
            let opening_of: BTreeMap<u64, usize> = pairs
                .iter()
                .filter_map(|p| Some((p.pair, p.opening?)))
                .collect();
            for game in pgn_write::split_games(&text) {
                let Some(round) = pgn_write::tag_value(game, "Round") else {
                    continue;
                };
                let Some(pair) = round.split('.').next().and_then(|p| p.parse::<u64>().ok()) else {
                    continue;
                };
                // Round tags count pairs from 1.
                let Some(&o) = pair.checked_sub(1).and_then(|p| opening_of.get(&p)) else {
                    continue;
                };
                if let Some(fen) = pgn_write::tag_value(game, "FEN") {
                    fens.entry(o).or_insert_with(|| fen.to_string());
                }
            }
        }
        let mut csvs = Vec::new();
        let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|source| ReportError::Io {
                path: dir.to_path_buf(),
                source,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "csv") && p.is_file())
            .collect();
        names.sort();
        for p in names {
            let text = read(&p)?.unwrap_or_default();
            let file = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            csvs.push(parse_columns(&file, &text, &p)?);
        }
        if summary.is_null() && csvs.is_empty() {
            return Err(ReportError::Invalid {
                path: dir.to_path_buf(),
                message: "not a run folder (no summary.json and no CSV)".into(),
            });
        }
        Ok(Run {
            dir: dir.to_path_buf(),
            summary,
            pairs,
            fens,
            csvs,
        })
    }

    fn name(&self) -> String {
        self.summary["name"].as_str().map_or_else(
            || {
                self.dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| self.dir.display().to_string())
            },
            str::to_string,
        )
    }

    fn engines(&self) -> Vec<String> {
        self.summary["engines"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or("?").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn sprt(&self) -> Option<SprtParams> {
        let s = self.summary.get("sprt")?;
        let model = match s["model"].as_str()? {
            "logistic" => EloModel::Logistic,
            "bayesian" => EloModel::Bayesian,
            _ => EloModel::Normalized,
        };
        Some(SprtParams {
            elo0: s["elo0"].as_f64()?,
            elo1: s["elo1"].as_f64()?,
            alpha: s["alpha"].as_f64()?,
            beta: s["beta"].as_f64()?,
            model,
        })
    }
}

/// Write `dir/report.html` for one run; returns its path.
pub fn write(dir: &Path) -> Result<PathBuf, ReportError> {
    let run = Run::load(dir)?;
    let path = dir.join("report.html");
    write_page(&path, &render(std::slice::from_ref(&run)))?;
    Ok(path)
}

/// Write a page to `path` atomically (a reader never sees half a page).
pub fn write_page(path: &Path, html: &str) -> Result<(), ReportError> {
    let tmp = path.with_extension("html.tmp");
    let io = |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::write(&tmp, html).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

fn f(v: &Value, digits: usize) -> String {
    crate::stats::fmt_opt(v.as_f64(), digits)
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1400px}\
h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1em}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\
th{background:#f0f0f0}td.l,th.l{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:12px}\
svg{background:#fff;border:1px solid #ddd}.h1{color:#070}.h0{color:#a00}code{font-size:.9em}\
.fen{font-family:monospace;font-size:.85em}";

/// The whole page for one or more runs.
pub fn render(runs: &[Run]) -> String {
    let mut h = String::new();
    let title = match runs {
        [one] => format!("Karsinta run {}", one.name()),
        _ => format!("Karsinta: {} runs", runs.len()),
    };
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    if runs.len() > 1 {
        comparison(&mut h, runs);
    }
    for (i, run) in runs.iter().enumerate() {
        section(&mut h, run, &format!("r{i}"));
    }
    h.push_str("</body></html>\n");
    h
}

fn comparison(h: &mut String, runs: &[Run]) {
    h.push_str(
        "<h2>Comparison</h2><table id=\"comparison\"><tr><th class=\"l\">run</th>\
         <th class=\"l\">engines</th><th class=\"l\">tc</th><th class=\"l\">status</th>\
         <th>games</th><th>W</th><th>D</th><th>L</th><th>Elo</th><th>&plusmn;</th>\
         <th>nElo</th><th>LOS</th><th>LLR</th><th class=\"l\">SPRT</th></tr>\n",
    );
    for (i, r) in runs.iter().enumerate() {
        let s = &r.summary;
        if s.is_null() {
            let files: Vec<&str> = r.csvs.iter().map(|c| c.file.as_str()).collect();
            let _ = writeln!(
                h,
                "<tr><td class=\"l\"><a href=\"#r{i}\">{}</a></td><td class=\"l\" colspan=\"13\">tuner run: {}</td></tr>",
                esc(&r.name()),
                esc(&files.join(", "))
            );
            continue;
        }
        let sprt = &s["sprt"];
        let _ = writeln!(
            h,
            "<tr><td class=\"l\"><a href=\"#r{i}\">{}</a></td><td class=\"l\">{}</td><td class=\"l\">{}</td>\
             <td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(&r.name()),
            esc(&r.engines().join(" vs ")),
            esc(s["time_control"].as_str().unwrap_or("-")),
            esc(s["status"].as_str().unwrap_or("-")),
            s["games"],
            s["wins"],
            s["draws"],
            s["losses"],
            f(&s["estimate"]["elo"], 1),
            f(&s["estimate"]["elo_error"], 1),
            f(&s["estimate"]["nelo"], 1),
            s["estimate"]["los"].as_f64().map_or("n/a".into(), |l| format!("{:.1}%", l * 100.0)),
            f(&sprt["llr"], 2),
            if sprt.is_null() {
                "-".to_string()
            } else {
                format!(
                    "[{}, {}] {}: {}",
                    f(&sprt["elo0"], 1),
                    f(&sprt["elo1"], 1),
                    esc(sprt["model"].as_str().unwrap_or("")),
                    esc(sprt["decision"].as_str().unwrap_or(""))
                )
            },
        );
    }
    h.push_str("</table>\n");
}

fn section(h: &mut String, run: &Run, id: &str) {
    let _ = writeln!(
        h,
        "<h2 id=\"{id}\">{}</h2><p><code>{}</code></p>",
        esc(&run.name()),
        esc(&run.dir.display().to_string())
    );
    if is_match_summary(&run.summary) {
        result_block(h, run);
        h.push_str("<div class=\"charts\">");
        progress_charts(h, run, id);
        count_charts(h, run, id);
        h.push_str("</div>");
        pairings_table(h, run);
        faults_table(h, run);
        openings_table(h, run);
    } else if let Some(fields) = run.summary.as_object() {
        // A tuner's summary.json: its plain fields, as they are.
        h.push_str("<table class=\"result\">");
        for (k, v) in fields {
            let text = match v {
                Value::String(t) => t.clone(),
                Value::Number(_) | Value::Bool(_) => v.to_string(),
                _ => continue,
            };
            let _ = write!(
                h,
                "<tr><th class=\"l\">{}</th><td class=\"l\">{}</td></tr>",
                esc(k),
                esc(&text)
            );
        }
        h.push_str("</table>");
    }
    for (k, c) in run.csvs.iter().enumerate() {
        csv_charts(h, c, &format!("{id}-csv{k}"));
    }
}

/// A match's summary.json (what `run_match` writes), as opposed to a
/// tuner's, which has none of the game counts the match charts draw.
fn is_match_summary(summary: &Value) -> bool {
    summary.get("pentanomial").is_some() && summary.get("games").is_some()
}

/// Columns grouped so that each chart's series share a scale: a column
/// joins the first group whose largest magnitude is within 10x of its own
/// (a loss of 0.08 is not drawn on the axis of seconds reaching 100).
fn scale_groups(series: &[(String, Vec<(f64, f64)>)]) -> Vec<Vec<usize>> {
    let magnitude = |pts: &[(f64, f64)]| pts.iter().fold(0.0f64, |m, p| m.max(p.1.abs()));
    let mut groups: Vec<(f64, Vec<usize>)> = Vec::new();
    for (i, (_, pts)) in series.iter().enumerate() {
        let m = magnitude(pts);
        let near = |g: f64| {
            let (lo, hi) = if g < m { (g, m) } else { (m, g) };
            hi <= lo * 10.0 || hi == 0.0
        };
        match groups.iter_mut().find(|(g, _)| near(*g)) {
            Some((g, members)) => {
                *g = g.max(m);
                members.push(i);
            }
            None => groups.push((m, vec![i])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

fn result_block(h: &mut String, run: &Run) {
    let s = &run.summary;
    let row = |h: &mut String, k: &str, v: String| {
        let _ = write!(
            h,
            "<tr><th class=\"l\">{k}</th><td class=\"l\">{v}</td></tr>"
        );
    };
    h.push_str("<table class=\"result\">");
    row(h, "engines", esc(&run.engines().join(" vs ")));
    row(
        h,
        "tournament",
        format!(
            "{}, {}",
            esc(s["tournament"].as_str().unwrap_or("-")),
            esc(s["time_control"].as_str().unwrap_or("-"))
        ),
    );
    row(h, "status", esc(s["status"].as_str().unwrap_or("-")));
    row(
        h,
        "games",
        format!(
            "{} ({} pairs){}",
            s["games"],
            s["pairs"],
            if s["first_engine_games"] != s["games"] {
                format!(", first engine: {}", s["first_engine_games"])
            } else {
                String::new()
            }
        ),
    );
    row(
        h,
        "W / D / L",
        format!(
            "{} / {} / {} (score {}, draws {})",
            s["wins"],
            s["draws"],
            s["losses"],
            f(&s["estimate"]["score"], 3),
            s["estimate"]["draw_ratio"]
                .as_f64()
                .map_or_else(|| "n/a".to_string(), |d| format!("{:.1}%", d * 100.0))
        ),
    );
    row(
        h,
        "Elo",
        format!(
            "{} &plusmn; {} (95%: [{}, {}]), LOS {}",
            f(&s["estimate"]["elo"], 1),
            f(&s["estimate"]["elo_error"], 1),
            f(&s["estimate"]["elo_low"], 1),
            f(&s["estimate"]["elo_high"], 1),
            s["estimate"]["los"]
                .as_f64()
                .map_or("n/a".into(), |l| format!("{:.1}%", l * 100.0))
        ),
    );
    row(
        h,
        "nElo",
        format!(
            "{} &plusmn; {}",
            f(&s["estimate"]["nelo"], 1),
            f(&s["estimate"]["nelo_error"], 1)
        ),
    );
    if let Some(p) = s["pentanomial"].as_array() {
        let cells: Vec<String> = p.iter().map(Value::to_string).collect();
        row(
            h,
            "pentanomial",
            format!("[{}] (LL, LD, DD+WL, WD, WW)", cells.join(", ")),
        );
    } else if s["counting"] == "trinomial" {
        row(
            h,
            "counting",
            "trinomial: the games are not colour-swapped pairs, so Elo and SPRT count W/D/L"
                .to_string(),
        );
    }
    let sp = &s["sprt"];
    if !sp.is_null() {
        let d = sp["decision"].as_str().unwrap_or("");
        let class = match d {
            "H1" => "h1",
            "H0" => "h0",
            _ => "",
        };
        row(
            h,
            "SPRT",
            format!(
                "elo0 {}, elo1 {} ({}), alpha {}, beta {}: LLR {} in [{}, {}] &rarr; <b class=\"{class}\">{}</b>",
                f(&sp["elo0"], 2),
                f(&sp["elo1"], 2),
                esc(sp["model"].as_str().unwrap_or("")),
                sp["alpha"],
                sp["beta"],
                f(&sp["llr"], 2),
                f(&sp["lower"], 2),
                f(&sp["upper"], 2),
                esc(d)
            ),
        );
    }
    h.push_str("</table>\n");
}

/// At most this many points per progress chart (the ledger may hold many
/// thousands of pairs; each point is one LLR fit).
const MAX_POINTS: usize = 400;

fn progress_charts(h: &mut String, run: &Run, id: &str) {
    match progress_svgs(&run.pairs, run.sprt(), id) {
        Some(svgs) => svgs.iter().for_each(|s| h.push_str(s)),
        None => h.push_str("<p>No finished game pair yet.</p>"),
    }
}

/// The progress charts of `pairs` (in the order they were counted): Elo
/// with its 95% interval against games, and with `sprt` the LLR against
/// games between its bounds (ids `{id}-elo-chart`, `{id}-llr-chart`).
/// `None` without a pair. The SPRT tests pairing 0; the Elo line is the
/// first engine's, over the pairings it plays first in (as summary.json
/// counts them). Shared with the fleet's live page.
pub fn progress_svgs(
    pairs: &[PairEntry],
    sprt: Option<SprtParams>,
    id: &str,
) -> Option<Vec<String>> {
    // Pentanomial only when every entry is a colour-swapped pair (as the
    // run's tally counts them).
    let counting = if pairs.iter().all(PairEntry::is_swapped_pair) {
        Counting::Pentanomial
    } else {
        Counting::Trinomial
    };
    let mut pairing0 = PairingTally::default();
    let mut first = PairingTally::default();
    let mut steps: Vec<(f64, PairingTally, PairingTally)> = Vec::new();
    let n = pairs.len();
    let every = n.div_ceil(MAX_POINTS).max(1);
    for (i, p) in pairs.iter().enumerate() {
        if p.pairing == 0 {
            pairing0.add(p, counting);
        }
        if p.first == 0 {
            first.add(p, counting);
        }
        if (i + 1) % every == 0 || i + 1 == n {
            steps.push((first.wdl.games() as f64, pairing0.clone(), first.clone()));
        }
    }
    if steps.is_empty() {
        return None;
    }
    let estimate = |t: &PairingTally| match counting {
        Counting::Pentanomial => t.penta.estimate(),
        Counting::Trinomial => t.wdl.estimate(),
    };
    let mut elo = Vec::new();
    let mut band = Vec::new();
    for (g, _, pf) in &steps {
        let e = estimate(pf);
        // Points where the estimate exists (see `stats::Estimate`).
        if let Some(v) = e.elo.filter(|v| v.is_finite()) {
            elo.push((*g, v));
        }
        if let (Some(lo), Some(hi)) = (e.elo_low, e.elo_high) {
            band.push((*g, lo, hi));
        }
    }
    let mut lines = vec![(0.0, String::new(), "#999")];
    if let Some(s) = &sprt {
        // Logistic bounds are Elo; normalized ones (nElo) are not drawn here.
        if s.model == EloModel::Logistic {
            lines.push((s.elo0, format!("elo0 {}", s.elo0), "#a00"));
            lines.push((s.elo1, format!("elo1 {}", s.elo1), "#070"));
        }
    }
    let mut out = vec![line_chart(&Chart {
        id: format!("{id}-elo-chart"),
        title: "Elo (95% interval) vs games".into(),
        x_label: "games".into(),
        series: vec![("Elo".into(), elo)],
        band,
        lines,
        y_range: None,
        width: 560.0,
        height: 300.0,
    })];
    if let Some(s) = sprt {
        let (lower, upper) = s.bounds();
        let llr: Vec<(f64, f64)> = steps
            .iter()
            .map(|(_, p0, _)| {
                let llr = match counting {
                    Counting::Pentanomial => s.llr_penta(&p0.penta),
                    Counting::Trinomial => s.llr_wdl(&p0.wdl),
                };
                (p0.wdl.games() as f64, llr)
            })
            .filter(|(_, l)| l.is_finite())
            .collect();
        out.push(line_chart(&Chart {
            id: format!("{id}-llr-chart"),
            title: format!(
                "SPRT LLR vs games [{}, {}] {}",
                s.elo0,
                s.elo1,
                s.model.name()
            ),
            x_label: "games".into(),
            series: vec![("LLR".into(), llr)],
            band: Vec::new(),
            lines: vec![
                (upper, format!("H1 {upper:.2}"), "#070"),
                (0.0, String::new(), "#999"),
                (lower, format!("H0 {lower:.2}"), "#a00"),
            ],
            y_range: None,
            width: 560.0,
            height: 300.0,
        }));
    }
    Some(out)
}

/// The pentanomial bars `[LL, LD, DD+WL, WD, WW]` (id `{id}-penta-chart`).
pub fn penta_chart(id: &str, penta: &[u64]) -> String {
    let labels = ["LL", "LD", "DD+WL", "WD", "WW"];
    let colors = ["#a00", "#d88", "#999", "#8c8", "#070"];
    let bars: Vec<(String, f64, &str)> = labels
        .iter()
        .zip(penta)
        .zip(colors)
        .map(|((l, v), c)| (l.to_string(), *v as f64, c))
        .collect();
    bar_chart(
        &format!("{id}-penta-chart"),
        "Pentanomial (pairs, first engine)",
        &bars,
    )
}

fn count_charts(h: &mut String, run: &Run, id: &str) {
    let s = &run.summary;
    let num = |v: &Value| v.as_u64().unwrap_or(0) as f64;
    if let Some(p) = s["pentanomial"].as_array() {
        let counts: Vec<u64> = p.iter().map(|v| v.as_u64().unwrap_or(0)).collect();
        h.push_str(&penta_chart(id, &counts));
    }
    let wdl = [
        ("wins".to_string(), num(&s["wins"]), "#070"),
        ("draws".to_string(), num(&s["draws"]), "#999"),
        ("losses".to_string(), num(&s["losses"]), "#a00"),
    ];
    h.push_str(&bar_chart(
        &format!("{id}-wdl-chart"),
        "W / D / L (games, first engine)",
        &wdl,
    ));
    // Terminations over every game of the run, from the ledger.
    let mut counts: BTreeMap<Termination, u64> = BTreeMap::new();
    for p in &run.pairs {
        for g in &p.games {
            *counts.entry(g.termination).or_default() += 1;
        }
    }
    let bars: Vec<(String, f64, &str)> = Termination::ALL
        .iter()
        .filter_map(|t| {
            let c = *counts.get(t)?;
            let color = if is_fault(*t) { "#d62728" } else { "#1f77b4" };
            Some((t.key().to_string(), c as f64, color))
        })
        .collect();
    if !bars.is_empty() {
        h.push_str(&bar_chart(
            &format!("{id}-termination-chart"),
            "Terminations (all games; faults in red)",
            &bars,
        ));
    }
}

/// Terminations caused by an engine failing: the failing side lost.
fn is_fault(t: Termination) -> bool {
    matches!(
        t,
        Termination::TimeForfeit
            | Termination::Stall
            | Termination::Crash
            | Termination::IllegalMove
            | Termination::ProtocolError
    )
}

fn pairings_table(h: &mut String, run: &Run) {
    let Some(ps) = run.summary["pairings"].as_array() else {
        return;
    };
    if ps.len() < 2 {
        return;
    }
    h.push_str(
        "<h3>Pairings</h3><table id=\"pairings\"><tr><th class=\"l\">first</th><th class=\"l\">second</th>\
         <th>games</th><th>W</th><th>D</th><th>L</th><th>Elo</th><th>&plusmn;</th></tr>",
    );
    for p in ps {
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(p["first"].as_str().unwrap_or("?")),
            esc(p["second"].as_str().unwrap_or("?")),
            p["games"],
            p["wins"],
            p["draws"],
            p["losses"],
            f(&p["estimate"]["elo"], 1),
            f(&p["estimate"]["elo_error"], 1)
        );
    }
    h.push_str("</table>");
    if let Some(rs) = run.summary["ratings"].as_array() {
        h.push_str(
            "<h3>Ratings (relative to the first engine)</h3><table id=\"ratings\"><tr><th class=\"l\">engine</th><th>games</th><th>points</th><th>Elo</th></tr>",
        );
        for r in rs {
            let _ = write!(
                h,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(r["name"].as_str().unwrap_or("?")),
                r["games"],
                f(&r["points"], 1),
                f(&r["elo"], 1)
            );
        }
        h.push_str("</table>");
    }
}

fn faults_table(h: &mut String, run: &Run) {
    let engines = run.engines();
    let kinds = [
        Termination::TimeForfeit,
        Termination::Stall,
        Termination::Crash,
        Termination::IllegalMove,
        Termination::ProtocolError,
    ];
    let mut table = vec![[0u64; 5]; engines.len()];
    for p in &run.pairs {
        for g in &p.games {
            let Some(k) = kinds.iter().position(|&k| k == g.termination) else {
                continue;
            };
            // The failing side is the loser (a time loss against bare
            // material is a draw: the side to blame is then unknown).
            let loser = match g.result {
                GameResult::WhiteWins => g.black,
                GameResult::BlackWins => g.white,
                GameResult::Draw => continue,
            };
            if let Some(row) = table.get_mut(loser) {
                row[k] += 1;
            }
        }
    }
    h.push_str("<h3>Engine faults</h3><table id=\"faults\"><tr><th class=\"l\">engine</th>");
    for k in kinds {
        let _ = write!(h, "<th>{}</th>", k.key());
    }
    h.push_str("</tr>");
    for (name, row) in engines.iter().zip(&table) {
        let _ = write!(h, "<tr><td class=\"l\">{}</td>", esc(name));
        for c in row {
            let _ = write!(h, "<td>{c}</td>");
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
}

/// Openings shown in the per-opening table (most lopsided first).
const MAX_OPENINGS: usize = 30;

fn openings_table(h: &mut String, run: &Run) {
    // Per opening: pairs, white's points (the colour bias) and the first
    // engine's points (over the pairings it plays first in).
    #[derive(Default)]
    struct O {
        games: u64,
        white_half: u64,
        first_half: u64,
        first_games: u64,
        /// Colour-swapped pairs, and those the same colour won twice.
        pairs: u64,
        same_colour_pairs: u64,
    }
    let mut by: BTreeMap<usize, O> = BTreeMap::new();
    for p in &run.pairs {
        let Some(o) = p.opening else { continue };
        let e = by.entry(o).or_default();
        let mut white_wins = 0;
        let mut black_wins = 0;
        for g in &p.games {
            e.games += 1;
            e.white_half += u64::from(g.half_points(g.white));
            match g.result {
                GameResult::WhiteWins => white_wins += 1,
                GameResult::BlackWins => black_wins += 1,
                GameResult::Draw => {}
            }
            if p.first == 0 {
                e.first_games += 1;
                e.first_half += u64::from(g.half_points(0));
            }
        }
        if p.is_swapped_pair() {
            e.pairs += 1;
            if white_wins == 2 || black_wins == 2 {
                e.same_colour_pairs += 1;
            }
        }
    }
    if by.is_empty() {
        return;
    }
    let lopsided: u64 = by.values().map(|o| o.same_colour_pairs).sum();
    let pairs: u64 = by.values().map(|o| o.pairs).sum();
    let _ = write!(
        h,
        "<h3>Openings</h3><p>{} openings played; in {lopsided} of {pairs} pairs the same colour won both games \
         (the opening, not the engine, decided). The {} most colour-biased:</p>",
        by.len(),
        MAX_OPENINGS.min(by.len())
    );
    let mut rows: Vec<(&usize, &O)> = by.iter().collect();
    rows.sort_by(|a, b| {
        let bias = |o: &O| (o.white_half as f64 / (2 * o.games) as f64 - 0.5).abs();
        bias(b.1)
            .total_cmp(&bias(a.1))
            .then(b.1.games.cmp(&a.1.games))
    });
    h.push_str(
        "<table id=\"openings\"><tr><th>#</th><th class=\"l\">FEN</th><th>games</th><th>white score</th>\
         <th>same-colour pairs</th><th>first engine score</th></tr>",
    );
    for (o, v) in rows.into_iter().take(MAX_OPENINGS) {
        let fen = run.fens.get(o).map_or("", String::as_str);
        let first = if v.first_games > 0 {
            format!("{:.0}%", v.first_half as f64 * 50.0 / v.first_games as f64)
        } else {
            "-".into()
        };
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"l fen\">{}</td><td>{}</td><td>{:.0}%</td><td>{}</td><td>{first}</td></tr>",
            o + 1,
            esc(fen),
            v.games,
            v.white_half as f64 * 50.0 / v.games as f64,
            v.same_colour_pairs
        );
    }
    h.push_str("</table>");
}

/// Most single-column charts drawn for one CSV (a parameter CSV can have
/// hundreds of columns; the CSV itself holds them all).
const MAX_CSV_CHARTS: usize = 60;

fn csv_charts(h: &mut String, c: &Columns, id: &str) {
    let _ = write!(h, "<h3>{} (x: {})</h3>", esc(&c.file), esc(&c.x_name));
    h.push_str("<div class=\"charts\">");
    let groups = scale_groups(&c.series);
    if c.series.len() <= 4 {
        // Few columns: one chart per common scale.
        for (k, g) in groups.iter().enumerate() {
            let series: Vec<_> = g.iter().map(|&i| c.series[i].clone()).collect();
            let title = if groups.len() == 1 {
                c.file.clone()
            } else {
                series
                    .iter()
                    .map(|s| s.0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            h.push_str(&line_chart(&Chart {
                id: if k == 0 {
                    format!("{id}-chart")
                } else {
                    format!("{id}-chart{k}")
                },
                title,
                x_label: c.x_name.clone(),
                series,
                band: Vec::new(),
                lines: Vec::new(),
                y_range: None,
                width: 560.0,
                height: 300.0,
            }));
        }
    } else {
        // Many columns (a tuner's parameters): one small chart each.
        for (k, s) in c.series.iter().take(MAX_CSV_CHARTS).enumerate() {
            h.push_str(&line_chart(&Chart {
                id: format!("{id}-col{k}"),
                title: s.0.clone(),
                x_label: c.x_name.clone(),
                series: vec![s.clone()],
                band: Vec::new(),
                lines: Vec::new(),
                y_range: None,
                width: 300.0,
                height: 190.0,
            }));
        }
        if c.series.len() > MAX_CSV_CHARTS {
            let _ = write!(
                h,
                "<p>{} more columns in {} are not drawn.</p>",
                c.series.len() - MAX_CSV_CHARTS,
                esc(&c.file)
            );
        }
    }
    h.push_str("</div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_of_other_scales_get_their_own_chart() {
        let col = |name: &str, ys: &[f64]| {
            let pts = ys.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect();
            (name.to_string(), pts)
        };
        let series = vec![
            col("train_loss", &[0.084, 0.079]),
            col("valid_loss", &[0.085, 0.080]),
            col("seconds", &[0.1, 110.0]),
        ];
        assert_eq!(scale_groups(&series), vec![vec![0, 1], vec![2]]);
        let c = Columns {
            file: "loss.csv".into(),
            x_name: "epoch".into(),
            series,
        };
        let mut h = String::new();
        csv_charts(&mut h, &c, "r0-csv0");
        assert!(h.contains("id=\"r0-csv0-chart\"") && h.contains("id=\"r0-csv0-chart1\""));
    }

    #[test]
    fn a_tuner_summary_is_a_table_not_a_match() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("summary.json"),
            r#"{"name": "tcec3", "status": "finished", "k": 0.0049, "epochs": 1000}"#,
        )
        .unwrap();
        std::fs::write(
            dir.path().join("loss.csv"),
            "epoch,train_loss\n0,0.08\n1,0.07\n",
        )
        .unwrap();
        let page = render(&[Run::load(dir.path()).unwrap()]);
        assert!(
            page.contains("<th class=\"l\">k</th><td class=\"l\">0.0049</td>"),
            "{page}"
        );
        assert!(
            !page.contains("W / D / L") && !page.contains("Engine faults"),
            "{page}"
        );
    }

    #[test]
    fn figures_never_read_minus_zero() {
        assert_eq!(f(&serde_json::json!(-0.0001), 1), "0.0");
        assert_eq!(f(&serde_json::json!(-0.05), 1), "-0.1");
        assert_eq!(f(&Value::Null, 1), "n/a");
    }

    #[test]
    fn csv_columns() {
        let c = parse_columns(
            "loss.csv",
            "epoch,train,val\n0,0.1,0.2\n1,0.09,x\n\n2,0.08,0.19\n",
            Path::new("loss.csv"),
        )
        .unwrap();
        assert_eq!(c.x_name, "epoch");
        assert_eq!(c.series[0].1, vec![(0.0, 0.1), (1.0, 0.09), (2.0, 0.08)]);
        assert_eq!(c.series[1].1.len(), 2);
        let e = parse_columns("p.csv", "i,a\n1,2,3\n", Path::new("p.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("p.csv") && e.contains("line 2"), "{e}");
    }
}
