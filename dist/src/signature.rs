//! Engine signatures: what makes two machines play the same games. A
//! worker computes them for its own engines and refuses a test whose
//! recorded ones differ (another build, another network, other params).
//!
//! In-process engines: the bench node count of their parameter set.
//! External engines: their `bench` node count when they print one, else a
//! checksum of the program file (engines without a bench command).

use std::time::Duration;

use karsinta_harness::openings::fingerprint;
use karsinta_harness::players::build::{run_bench, DEFAULT_BENCH_ARGS};
use karsinta_harness::players::{PlayerKind, PlayerSpec};

/// How long an external engine's bench may run.
const BENCH_TIMEOUT: Duration = Duration::from_secs(300);

/// One engine's signature and its bench speed (0 if unknown).
pub fn signature(spec: &PlayerSpec, bench_depth: i32) -> Result<(String, u64), String> {
    match &spec.kind {
        PlayerKind::InProcess(params) => {
            let r = karsinta_engine::bench::run_bench(params, bench_depth);
            Ok((format!("bench {} depth {bench_depth}", r.nodes), r.nps))
        }
        PlayerKind::Uci | PlayerKind::Xboard => {
            let args = vec![DEFAULT_BENCH_ARGS.to_string()];
            match run_bench(&spec.cmd, &args, spec.dir.as_deref(), BENCH_TIMEOUT) {
                Ok(b) => Ok((format!("bench {}", b.nodes), b.nps)),
                Err(_) => {
                    let data = std::fs::read(&spec.cmd)
                        .map_err(|e| format!("{}: {e}", spec.cmd.display()))?;
                    Ok((format!("file {}", fingerprint(&data)), 0))
                }
            }
        }
    }
}

/// Signatures of every engine (JSON list) and the summed bench speed.
pub fn signatures(engines: &[PlayerSpec], bench_depth: i32) -> Result<(String, u64), String> {
    let mut list = Vec::new();
    let mut nps = 0;
    for e in engines {
        let (s, n) = signature(e, bench_depth).map_err(|m| format!("engine {}: {m}", e.name))?;
        list.push(serde_json::json!({"engine": e.name, "signature": s}));
        nps += n;
    }
    Ok((serde_json::Value::Array(list).to_string(), nps))
}

/// The engines whose signatures differ, as a message; `None` if all match.
pub fn mismatch(expected: &str, found: &str) -> Option<String> {
    let parse = |s: &str| -> Vec<(String, String)> {
        serde_json::from_str::<Vec<serde_json::Value>>(s)
            .unwrap_or_default()
            .iter()
            .map(|v| {
                (
                    v["engine"].as_str().unwrap_or("?").to_string(),
                    v["signature"].as_str().unwrap_or("?").to_string(),
                )
            })
            .collect()
    };
    let (e, f) = (parse(expected), parse(found));
    if e == f {
        return None;
    }
    let diffs: Vec<String> = e
        .iter()
        .zip(&f)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("{}: test has {}, this machine {}", a.0, a.1, b.1))
        .collect();
    Some(if diffs.is_empty() {
        "the engine lists differ".to_string()
    } else {
        diffs.join("; ")
    })
}

/// This machine's name (for the workers table).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}
