//! The run folder of `karsinta tune spsa`: `state.json` (after every
//! iteration, replaced atomically), `params.csv` (theta after every
//! iteration; row 0 is the start), `trajectories.svg` (one small chart per
//! parameter with its start and bounds), and at the end `params.yaml` and
//! `openbench.txt` (`name, value` lines).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use super::driver::SpsaState;
use super::schedule::ParamDef;
use crate::report::chart::{grid, Chart};

/// The run's [`SpsaState`], rewritten atomically after every iteration.
pub const STATE_FILE: &str = "state.json";
/// Theta after every iteration (row 0 is the start), one column per parameter.
pub const CSV_FILE: &str = "params.csv";
/// One small chart per parameter: its trajectory, start and bounds.
pub const SVG_FILE: &str = "trajectories.svg";
/// The final values as a parameter file, written at the end.
pub const PARAMS_FILE: &str = "params.yaml";
/// The final values as OpenBench `name, value` lines, written at the end.
pub const OPENBENCH_FILE: &str = "openbench.txt";

fn context(path: &Path) -> impl Fn(std::io::Error) -> std::io::Error + '_ {
    move |e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Write `text` to `path` through a temporary file and a rename, so a
/// killed process leaves either the old or the new file. No fsync: it cost
/// seconds per iteration on a busy disk, and a kill (unlike a power
/// failure) does not lose written data.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut f = std::fs::File::create(&tmp).map_err(context(&tmp))?;
        f.write_all(text.as_bytes()).map_err(context(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(context(path))
}

/// Write `state` to the folder's `state.json`, atomically.
pub fn save_state(dir: &Path, state: &SpsaState) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(state).map_err(std::io::Error::other)?;
    write_atomic(&dir.join(STATE_FILE), &text)
}

/// Read the folder's `state.json` (an error names the file).
pub fn load_state(dir: &Path) -> std::io::Result<SpsaState> {
    let path = dir.join(STATE_FILE);
    let text = std::fs::read_to_string(&path).map_err(context(&path))?;
    let mut state: SpsaState = serde_json::from_str(&text).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })?;
    state.restore_exact();
    Ok(state)
}

fn csv_row(k: u64, theta: &[f64]) -> String {
    let mut s = k.to_string();
    for v in theta {
        let _ = write!(s, ",{}", round6(*v));
    }
    s.push('\n');
    s
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// `params.csv` as the state says it is: the header and rows 0..=applied
/// (rows past the state, written before a kill, are dropped; missing ones
/// cannot be rebuilt and are an error).
pub fn prepare_csv(dir: &Path, params: &[ParamDef], state: &SpsaState) -> std::io::Result<()> {
    let path = dir.join(CSV_FILE);
    let header = std::iter::once("iteration".to_string())
        .chain(params.iter().map(|p| p.name.clone()))
        .collect::<Vec<_>>()
        .join(",");
    let mut text = format!("{header}\n");
    if state.applied == 0 {
        let start: Vec<f64> = params.iter().map(|p| p.start).collect();
        text.push_str(&csv_row(0, &start));
    } else {
        let old = std::fs::read_to_string(&path).map_err(context(&path))?;
        let mut rows = 0;
        for line in old.lines().skip(1) {
            let k: u64 = line
                .split(',')
                .next()
                .and_then(|k| k.parse().ok())
                .unwrap_or(u64::MAX);
            if k <= state.applied {
                text.push_str(line);
                text.push('\n');
                rows += 1;
            }
        }
        if rows != state.applied + 1 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{}: {rows} rows for {} iterations",
                    path.display(),
                    state.applied
                ),
            ));
        }
    }
    write_atomic(&path, &text)
}

/// Append iteration `k`'s theta to `params.csv`.
pub fn append_csv(dir: &Path, k: u64, theta: &[f64]) -> std::io::Result<()> {
    let path = dir.join(CSV_FILE);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(context(&path))?;
    f.write_all(csv_row(k, theta).as_bytes())
        .map_err(context(&path))
}

/// The trajectories from `params.csv`: one row of values per iteration.
pub fn read_csv(dir: &Path) -> std::io::Result<Vec<Vec<f64>>> {
    let path = dir.join(CSV_FILE);
    let text = std::fs::read_to_string(&path).map_err(context(&path))?;
    Ok(text
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .skip(1)
                .filter_map(|v| v.parse().ok())
                .collect()
        })
        .collect())
}

/// One small chart per parameter ([`crate::report::chart`]): the
/// trajectory by iteration, a dashed line at the start value, the bounds as
/// the chart's bottom and top.
pub fn svg(params: &[ParamDef], rows: &[Vec<f64>]) -> String {
    let charts: Vec<Chart> = params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let last = rows
                .last()
                .and_then(|r| r.get(i))
                .copied()
                .unwrap_or(p.start);
            let points = rows
                .iter()
                .enumerate()
                .filter_map(|(k, r)| r.get(i).map(|v| (k as f64, *v)))
                .collect();
            Chart {
                id: format!("spsa-{}", p.name),
                title: format!("{} (start {}, now {})", p.name, p.start, round6(last)),
                x_label: "iteration".into(),
                series: vec![(p.name.clone(), points)],
                band: Vec::new(),
                lines: vec![(p.start, "start".into(), "#c60")],
                y_range: Some((p.min, p.max)),
                width: 300.0,
                height: 190.0,
            }
        })
        .collect();
    grid(&charts, 3)
}

/// The tuned values as played: integers rounded.
pub fn played_values(params: &[ParamDef], theta: &[f64]) -> Vec<(String, String)> {
    super::driver::side_options(params, theta)
}

/// `name, value` lines (OpenBench's output format).
pub fn openbench_lines(params: &[ParamDef], theta: &[f64]) -> String {
    played_values(params, theta)
        .into_iter()
        .map(|(n, v)| format!("{n}, {v}\n"))
        .collect()
}

/// `name: value` lines (loadable by `karsinta-engine --params` for its own
/// parameters, on top of its defaults).
pub fn params_yaml(params: &[ParamDef], theta: &[f64]) -> String {
    let mut s = String::from("# tuned by karsinta tune spsa\n");
    for (n, v) in played_values(params, theta) {
        let _ = writeln!(s, "{n}: {v}");
    }
    s
}
