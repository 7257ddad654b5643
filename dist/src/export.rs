//! `export`: a test written as the run folder one machine would have left,
//! which every harness tool reads (`karsinta report`, `karsinta tune spsa
//! --resume`). A match writes config.yaml, fingerprint.json, games.pgn,
//! ledger.jsonl and summary.json over the pairs `status` counts; an SPSA
//! test writes the `tune spsa` files over the applied updates; a datagen
//! test writes the `karsinta datagen` run folder over the completed prefix,
//! its stored games replayed in order through the harness's writer.

use std::path::Path;

use karsinta_harness::datagen::{self, DatagenReport, RunWriter};
use karsinta_harness::report::summary::Summary;
use karsinta_harness::run::config_fingerprint;
use karsinta_harness::run::ledger::Ledger;
use karsinta_harness::tune::spsa::driver::SpsaState;
use karsinta_harness::tune::spsa::output;
use karsinta_harness::tune::spsa::session::{self, Session};
use postgres::Client;

use crate::db::DbError;
use crate::kinds::datagen::{games_in, prefix_counts, DatagenTest};
use crate::kinds::spsa::{self, SpsaTest};
use crate::queue::catalog::{test_by_name, Kind, TestRow};
use crate::queue::results::stored_pairs;
use crate::status::match_status;

/// What an export wrote.
pub enum Exported {
    /// A match's summary (as its summary.json).
    Match(Box<Summary>),
    /// An SPSA run's state (as its state.json).
    Spsa(Box<SpsaState>),
    /// A datagen run's report (as its report.json).
    Datagen(Box<DatagenReport>),
}

impl Exported {
    /// One line for the terminal.
    pub fn line(&self) -> String {
        match self {
            Exported::Match(s) => s.progress_line(),
            Exported::Spsa(s) => {
                format!("SPSA, {} of {} iterations applied", s.applied, s.iterations)
            }
            Exported::Datagen(r) => format!(
                "datagen, {} games, {} positions written ({} format, {} bytes)",
                r.counts.games, r.counts.written, r.format, r.data_bytes
            ),
        }
    }

    /// Whether this is a datagen run folder (it has report.txt, not a page).
    pub fn is_datagen(&self) -> bool {
        matches!(self, Exported::Datagen(_))
    }
}

/// Write test `name` as a run folder at `out` (missing or empty).
pub fn export(c: &mut Client, name: &str, out: &Path) -> Result<Exported, DbError> {
    check_empty(out)?;
    let test = test_by_name(c, name)?;
    Ok(match test.kind {
        Kind::Match => Exported::Match(Box::new(export_match(c, name, out)?)),
        Kind::Spsa => Exported::Spsa(Box::new(export_spsa(c, &test, out)?)),
        Kind::Datagen => Exported::Datagen(Box::new(export_datagen(c, &test, out)?)),
    })
}

/// Export writes into a missing or empty folder only.
fn check_empty(out: &Path) -> Result<(), DbError> {
    if let Ok(mut entries) = std::fs::read_dir(out) {
        if entries.next().is_some() {
            return Err(DbError::Invalid(format!(
                "{}: not empty; export needs a missing or empty folder",
                out.display()
            )));
        }
    }
    Ok(())
}

fn io(p: &Path, e: impl std::fmt::Display) -> DbError {
    DbError::Invalid(format!("{}: {e}", p.display()))
}

/// config.yaml, fingerprint.json, games.pgn, ledger.jsonl, summary.json.
fn export_match(c: &mut Client, name: &str, out: &Path) -> Result<Summary, DbError> {
    let status = match_status(c, name)?;
    let test = &status.test;
    let cfg = &status.kind.cfg;
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let p = out.join("config.yaml");
    std::fs::write(&p, cfg.resolved_yaml()).map_err(|e| io(&p, e))?;
    let p = out.join("fingerprint.json");
    let fp = serde_json::to_string_pretty(&config_fingerprint(cfg)).unwrap_or_default();
    std::fs::write(&p, fp + "\n").map_err(|e| io(&p, e))?;
    let pairs = stored_pairs(c, test.id, test.counted_pairs())?;
    let mut pgn = String::new();
    for (_, text, _) in &pairs {
        pgn.push_str(text.trim_end());
        pgn.push_str("\n\n");
    }
    let p = out.join("games.pgn");
    std::fs::write(&p, pgn).map_err(|e| io(&p, e))?;
    let p = out.join("ledger.jsonl");
    let (mut ledger, _) = Ledger::open(&p).map_err(|e| io(&p, e))?;
    for (e, _, _) in &pairs {
        ledger.append(e).map_err(|e| io(&p, e))?;
    }
    let summary = status.summary();
    let p = out.join("summary.json");
    summary.write_atomic(&p).map_err(|e| io(&p, e))?;
    Ok(summary)
}

/// config.yaml, state.json, params.csv, trajectories.svg, params.yaml,
/// openbench.txt: `karsinta tune spsa --resume` can continue it on one
/// machine.
fn export_spsa(c: &mut Client, test: &TestRow, out: &Path) -> Result<SpsaState, DbError> {
    let io = |e: std::io::Error| io(out, e);
    let run = SpsaTest::of(test, None)?;
    let state = spsa::state(c, test, &run)?;
    let hist = spsa::history(c, test)?;
    std::fs::create_dir_all(out).map_err(io)?;
    output::write_atomic(&out.join(session::CONFIG_FILE), &test.config_yaml).map_err(io)?;
    // Header and row 0 as a new run writes them, then one row per update.
    output::prepare_csv(
        out,
        &run.setup.params,
        &SpsaState::new(&run.setup, run.seed, run.window),
    )
    .map_err(io)?;
    for h in hist.iter().skip(1) {
        output::append_csv(out, h.k, &h.theta).map_err(io)?;
    }
    output::save_state(out, &state).map_err(io)?;
    let session = Session {
        cfg: run.cfg,
        setup: run.setup,
        dir: out.to_path_buf(),
        state,
    };
    session.write_outputs().map_err(io)?;
    Ok(session.state)
}

/// Games read from the database at a time while exporting.
const EXPORT_CHUNK_GAMES: u64 = 4096;

/// The `karsinta datagen` run folder over the completed prefix: the
/// stored games in order through the harness's [`RunWriter`] (the one
/// duplicate filter and file layout), then its report, timed by the
/// batches' seconds summed over workers.
fn export_datagen(c: &mut Client, test: &TestRow, out: &Path) -> Result<DatagenReport, DbError> {
    let run = DatagenTest::of(test)?;
    let cfg = &run.cfg;
    let err = |e: datagen::DatagenError| DbError::Invalid(e.to_string());
    datagen::create_run(cfg, out).map_err(err)?;
    let mut writer = RunWriter::open(out, cfg.format).map_err(err)?;
    let end = match test.prefix_batches {
        0 => 0,
        p => test.pairs_of(p - 1).end,
    };
    let mut from = 0;
    while from < end {
        let to = (from + EXPORT_CHUNK_GAMES).min(end);
        for g in games_in(c, test.id, from..to)? {
            writer.write(cfg, &g).map_err(err)?;
        }
        from = to;
    }
    if writer.next_game() != end || writer.counts() != prefix_counts(c, test.id)? {
        return Err(DbError::Invalid(format!(
            "test {}: the stored games do not give the prefix's counts",
            test.name
        )));
    }
    let secs: f64 = c
        .query_one(
            "SELECT coalesce(sum(seconds), 0) FROM dist_batches WHERE test_id = $1 AND idx < $2 \
             AND state = 'done'",
            &[&test.id, &test.prefix_batches],
        )?
        .get(0);
    let report = writer.report(secs, 0, 0);
    datagen::run::write_report(out, &report).map_err(err)?;
    Ok(report)
}
