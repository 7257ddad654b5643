//! A worker's side of a test of revisions: fetch the repository into its
//! own cache (only when a commit is missing there), build each commit once
//! into its build cache (reused by commit hash, as `karsinta ab` reuses
//! them), bench each build and compare with the recorded signature. What
//! comes out is the engine entries of this machine's builds, which replace
//! the test's (a match's two sides, an SPSA test's tuned engine); since
//! they keep their names, options and order, the worker then plays the
//! same games as any other.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use karsinta_harness::config::RawEngine;
use karsinta_harness::players::build::{short, BuildSettings};
use karsinta_harness::run::ab::{Side, SidePreparer};

use super::mirror::Mirror;
use super::{bench_signature, Revisions};

/// A test's revisions built and checked on this machine.
#[derive(Debug)]
pub struct Built {
    /// This machine's builds as engine entries, one per side in order.
    pub engines: Vec<RawEngine>,
    /// The builds' signatures (the format of [`crate::signature`]), equal
    /// to the test's.
    pub signatures: String,
    /// The builds' summed bench speed.
    pub nps: u64,
    /// Each build's speed as its own bench printed it: engine name, nps.
    pub per_side: Vec<(String, u64)>,
    /// Seconds spent fetching, building and benching.
    pub seconds: f64,
    /// Whether the repository had to be fetched.
    pub fetched: bool,
    /// Whether every build was reused from the cache.
    pub reused: bool,
}

/// Build the revisions `rec` of a test, whose stored engine entries are
/// `templates` (one per side), with `settings` into the build cache
/// `cache`, or say why this machine cannot play them (the reason a
/// refusal records).
pub fn build_here(
    settings: BuildSettings,
    rec: &Revisions,
    templates: &[RawEngine],
    cache: &Path,
    interrupt: Option<&AtomicBool>,
    log: &mut dyn FnMut(&str),
) -> Result<Built, String> {
    let start = Instant::now();
    let mirror = Mirror::open(&rec.repo, cache).map_err(|e| e.to_string())?;
    let commits: Vec<&str> = rec.sides.iter().map(|s| s.commit.as_str()).collect();
    let fetched = mirror.ensure(&commits).map_err(|e| e.to_string())?;
    let mut preparer = SidePreparer::new(mirror.dir(), settings).with_interrupt(interrupt);
    if templates.len() < rec.sides.len() {
        return Err(format!(
            "the test's config has {} engines for {} revisions",
            templates.len(),
            rec.sides.len()
        ));
    }
    let (mut engines, mut found, mut differ) = (Vec::new(), Vec::new(), Vec::new());
    let (mut nps, mut reused, mut per_side) = (0, true, Vec::new());
    for (side, template) in rec.sides.iter().zip(templates) {
        let who = format!("{} (commit {})", side.role, short(&side.commit));
        let p = preparer
            .prepare(&side.role, &Side::Rev(side.commit.clone()), template, log)
            .map_err(|e| format!("{who}: {e}"))?;
        let bench = match &p.bench {
            Some(Ok(b)) => b,
            Some(Err(e)) => return Err(format!("{who}: bench failed: {e}")),
            None => return Err(format!("{who}: the bench was skipped")),
        };
        if bench.nodes != side.bench {
            differ.push(format!(
                "{who}: this machine's build benches {} nodes, the test recorded {} ({})",
                bench.nodes,
                side.bench,
                side.bench_from.text()
            ));
        }
        if p.engine.name != side.engine_name() {
            return Err(format!(
                "{who}: built as engine {}, the test plays {}",
                p.engine.name,
                side.engine_name()
            ));
        }
        reused &= p.build.as_ref().is_some_and(|b| b.reused);
        nps += bench.nps;
        per_side.push((p.engine.name.clone(), bench.nps));
        found.push(serde_json::json!({
            "engine": p.engine.name, "signature": bench_signature(bench.nodes),
        }));
        engines.push(p.engine);
    }
    if !differ.is_empty() {
        return Err(format!(
            "{}: refusing to play (another compiler, a dirty build?)",
            differ.join("; ")
        ));
    }
    let seconds = start.elapsed().as_secs_f64();
    log(&format!(
        "{} built and benched in {seconds:.2} s ({}{})",
        rec.sides
            .iter()
            .map(|s| s.engine_name())
            .collect::<Vec<_>>()
            .join(" and "),
        if fetched { "fetched, " } else { "" },
        if reused { "builds reused" } else { "built" }
    ));
    Ok(Built {
        engines,
        signatures: serde_json::Value::Array(found).to_string(),
        nps,
        per_side,
        seconds,
        fetched,
        reused,
    })
}
