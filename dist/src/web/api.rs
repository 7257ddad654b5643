//! Every figure of the live view as JSON, built from the status figures
//! ([`crate::status`]) and the catalog: the test list, one test (with its
//! charts as SVG text from the harness's chart engine, so the page shows
//! them without a chart engine of its own) and the machines. The
//! connection string is never part of any answer.

use karsinta_harness::report::html::{penta_chart, progress_svgs};
use karsinta_harness::tune::spsa::output as spsa_output;
use postgres::Client;
use serde_json::{json, Value};

use crate::db::DbError;
use crate::kinds::spsa;
use crate::kinds::Setups;
use crate::queue::catalog::TestRow;
use crate::queue::results::stored_pairs;
use crate::revisions::{display_url, Revisions};
use crate::status::workers::{games_per_minute, speed_factor};
use crate::status::{
    test_list, test_status, DatagenStatus, ListEntry, MatchLine, SpsaStatus, TestStatus,
    WorkerFigures,
};

/// Whether a test named `name` exists.
pub fn exists(c: &mut Client, name: &str) -> Result<bool, DbError> {
    Ok(
        c.query_opt("SELECT 1 FROM dist_tests WHERE name = $1", &[&name])?
            .is_some(),
    )
}

/// A match test's line of the list.
fn match_line(m: &MatchLine) -> Value {
    let (s, t) = (&m.summary, &m.test);
    let e = &s.estimate;
    json!({
        "name": t.name,
        "kind": "match",
        "status": m.status.to_string(),
        "priority": t.share.priority,
        "throughput": t.share.throughput,
        "games": s.games,
        "pairs": s.pairs,
        "max_games": s.max_games,
        "batches": t.batches,
        "batches_done": m.batches_done,
        "batches_leased": m.batches_leased,
        "elo": e.elo,
        "elo_error": e.elo_error,
        "elo_low": e.elo_low,
        "elo_high": e.elo_high,
        "los": e.los,
        "sprt": s.sprt.as_ref().map(|p| json!({
            "elo0": p.elo0, "elo1": p.elo1, "llr": p.llr, "lower": p.lower,
            "upper": p.upper, "decision": p.decision, "unbiased": p.unbiased,
        })),
        "stop_reason": t.stop_reason,
    })
}

/// An SPSA test's line of the list.
fn spsa_line(s: &SpsaStatus) -> Value {
    let st = &s.state;
    json!({
        "name": s.test.name,
        "kind": "spsa",
        "status": s.phase(),
        "priority": s.test.share.priority,
        "throughput": s.test.share.throughput,
        "games": st.counts.games,
        "iterations": st.iterations,
        "applied": st.applied,
        "batches": s.test.batches,
        "batches_done": s.batches_done,
        "batches_leased": s.batches_leased,
        "stop_reason": s.test.stop_reason,
    })
}

/// A datagen test's line of the list: games and positions of the
/// completed prefix.
fn datagen_line(d: &DatagenStatus) -> Value {
    let c = &d.counts;
    json!({
        "name": d.test.name,
        "kind": "datagen",
        "status": d.phase(),
        "priority": d.test.share.priority,
        "throughput": d.test.share.throughput,
        "games": c.games,
        "max_games": d.kind.cfg.games,
        "positions": c.positions,
        "written": c.written,
        "format": d.kind.cfg.format.to_string(),
        "batches": d.test.batches,
        "batches_done": d.batches_done,
        "batches_leased": d.batches_leased,
        "stop_reason": d.test.stop_reason,
    })
}

fn line(t: &TestStatus) -> Value {
    match t {
        TestStatus::Match(m) => {
            let l = MatchLine {
                test: m.test.clone(),
                summary: m.summary(),
                status: m.status,
                batches_done: m.batches_done,
                batches_leased: m.batches_leased,
            };
            held(match_line(&l), &m.test)
        }
        TestStatus::Spsa(s) => held(spsa_line(s), &s.test),
        TestStatus::Datagen(d) => held(datagen_line(d), &d.test),
    }
}

/// A line with whether its test is held.
fn held(mut v: Value, row: &TestRow) -> Value {
    // A held test has played nothing: say what it waits for.
    v["held"] = json!(row.held);
    if row.held && !row.stopped {
        v["status"] = json!("awaiting approval");
    }
    v
}

/// Match tests' configs, parsed once for the server's life (see
/// [`Setups`]).
static SETUPS: Setups = Setups::new();

/// `/api/tests`: every test, oldest first.
pub fn tests(c: &mut Client) -> Result<Value, DbError> {
    let out: Vec<Value> = test_list(c, &SETUPS)?
        .iter()
        .map(|e| match e {
            ListEntry::Match(m) => held(match_line(m), &m.test),
            ListEntry::Other(t) => line(t),
        })
        .collect();
    Ok(json!({ "tests": out }))
}

fn worker_json(w: &WorkerFigures) -> Value {
    json!({
        "id": w.id, "host": w.host, "pairs": w.pairs,
        "games_per_minute": w.games_per_minute, "time_losses": w.time_losses,
        "crashes": w.crashes, "mean": w.mean, "residual": w.residual,
        "outlier": w.outlier, "purged": w.purged, "nps": w.nps, "speed_factor": w.speed_factor,
        "noisy": w.noisy, "clock": w.clock, "active": w.active,
        "revision_nps": w.revision_nps.iter()
            .map(|(e, n)| json!({"engine": e, "nps": n})).collect::<Vec<_>>(),
        "build_seconds": w.build_seconds,
    })
}

/// A test's revisions: the repository (without its secrets) and each side.
fn revisions_json(r: &Revisions) -> Value {
    json!({
        "repo": display_url(&r.repo),
        "sides": r.sides.iter().map(|s| json!({
            "role": s.role, "rev": s.rev, "commit": s.commit, "engine": s.engine_name(),
            "bench": s.bench, "bench_from": s.bench_from.text(),
        })).collect::<Vec<_>>(),
    })
}

/// `/api/test/NAME`, or `None` if there is no such test.
pub fn test(c: &mut Client, name: &str) -> Result<Option<Value>, DbError> {
    if !exists(c, name)? {
        return Ok(None);
    }
    let st = test_status(c, name)?;
    let mut v = json!({ "test": line(&st) });
    let refused = match &st {
        TestStatus::Match(m) => &m.refusals,
        TestStatus::Spsa(s) => &s.refusals,
        TestStatus::Datagen(d) => &d.refusals,
    };
    v["refusals"] = refused
        .iter()
        .map(|r| json!({"host": r.host, "pid": r.pid, "at": r.at, "reason": r.reason}))
        .collect();
    match &st {
        TestStatus::Match(m) => {
            let s = m.summary();
            let entries: Vec<_> = stored_pairs(c, m.test.id, m.test.counted_pairs())?
                .into_iter()
                .map(|(e, _, _)| e)
                .collect();
            let mut charts = json!({});
            if let Some(p) = &s.pentanomial {
                charts["penta"] = json!(penta_chart("t", p));
            }
            let progress = progress_svgs(&entries, m.kind.cfg.sprt, "t").unwrap_or_default();
            for (key, svg) in ["elo", "llr"].into_iter().zip(progress) {
                charts[key] = json!(svg);
            }
            v["revisions"] = m
                .kind
                .revisions
                .as_ref()
                .map_or(Value::Null, revisions_json);
            v["summary"] = serde_json::to_value(&s)
                .map_err(|e| DbError::Invalid(format!("summary of {name}: {e}")))?;
            v["workers"] = m.workers.iter().map(worker_json).collect();
            v["residuals"] = json!(m.chi2.as_ref().map(|t| json!({
                "chi2": t.chi2, "dof": t.dof, "p": t.p, "z_95": t.z_95, "z_99": t.z_99,
            })));
            v["purges"] = m
                .purges
                .iter()
                .map(|p| {
                    json!({
                        "worker": p.worker, "host": p.host, "reason": p.reason,
                        "batches": p.batches, "pairs": p.pairs, "at": p.at,
                    })
                })
                .collect();
            v["charts"] = charts;
        }
        TestStatus::Spsa(s) => {
            let params = &s.kind.setup.params;
            let rows: Vec<Vec<f64>> = spsa::history(c, &s.test)?
                .into_iter()
                .map(|h| h.theta)
                .collect();
            v["spsa"] = params
                .iter()
                .zip(&s.state.theta)
                .map(|(p, x)| json!({"name": p.name, "start": p.start, "min": p.min, "max": p.max, "value": x}))
                .collect();
            v["revisions"] = s
                .kind
                .revisions
                .as_ref()
                .map_or(Value::Null, revisions_json);
            v["workers"] = s.workers.iter().map(worker_json).collect();
            v["charts"] = json!({ "spsa": spsa_output::svg(params, &rows) });
        }
        TestStatus::Datagen(d) => {
            let c = &d.counts;
            v["datagen"] = json!({
                "games": c.games, "white_wins": c.white_wins, "draws": c.draws,
                "black_wins": c.black_wins, "tablebase_games": c.tablebase_games,
                "starts_failed": c.starts_failed, "failed": c.failed,
                "positions": c.positions, "written": c.written,
                "dropped": d.dropped().iter().map(|(f, n)| json!({"filter": f, "count": n}))
                    .collect::<Vec<_>>(),
                "workers": d.workers.iter().map(|w| json!({
                    "id": w.id, "host": w.host, "games": w.games, "positions": w.positions,
                    "positions_per_s": w.positions_per_s(), "nps": w.nps, "active": w.active,
                })).collect::<Vec<_>>(),
            });
        }
    }
    Ok(Some(v))
}

/// `/api/machines`: every worker process (one row per process and test)
/// with its test, speed, games per minute and last heartbeat, newest
/// heartbeat first. One query: a worker's pairs and batch seconds are
/// counted for every worker at once (as
/// [`worker_figures`](crate::status::worker_figures) counts them for one
/// test's workers, without reading the pairs themselves).
pub fn machines(c: &mut Client) -> Result<Value, DbError> {
    let rows = c.query(
        "SELECT w.id, w.host, w.pid, t.name, \
         extract(epoch FROM now() - w.last_seen)::float8, \
         (w.left_at IS NULL AND NOT t.stopped \
          AND w.last_seen > now() - make_interval(secs => t.lease_seconds)), \
         m.cores, w.concurrency, m.nps, coalesce(m.noisy, false), w.clock, t.reference_nps, \
         coalesce(b.seconds, 0), coalesce(p.pairs, 0) \
         FROM dist_workers w JOIN dist_tests t ON t.id = w.test_id \
         LEFT JOIN dist_machines m ON m.id = w.machine_id \
         LEFT JOIN (SELECT worker_id, sum(seconds ORDER BY test_id, idx) AS seconds \
           FROM dist_batches WHERE state = 'done' GROUP BY worker_id) b ON b.worker_id = w.id \
         LEFT JOIN (SELECT test_id, worker_id, count(*) AS pairs FROM dist_pairs \
           GROUP BY test_id, worker_id) p ON p.worker_id = w.id AND p.test_id = w.test_id \
         ORDER BY w.last_seen DESC, w.id",
        &[],
    )?;
    let machines: Vec<Value> = rows
        .iter()
        .map(|r| {
            let nps = r.get::<_, Option<i64>>(8).unwrap_or(0).max(0) as u64;
            let pairs = r.get::<_, i64>(13) as u64;
            json!({
                "id": r.get::<_, i64>(0), "host": r.get::<_, String>(1),
                "pid": r.get::<_, i32>(2), "test": r.get::<_, String>(3),
                "last_heartbeat_seconds": r.get::<_, f64>(4), "active": r.get::<_, bool>(5),
                "cores": r.get::<_, Option<i32>>(6), "concurrency": r.get::<_, i32>(7),
                "nps": nps, "speed_factor": speed_factor(r.get(11), nps),
                "noisy": r.get::<_, bool>(9), "clock": r.get::<_, Option<String>>(10),
                "games_per_minute": games_per_minute(pairs, r.get(12)), "pairs": pairs,
            })
        })
        .collect();
    Ok(json!({ "machines": machines }))
}
