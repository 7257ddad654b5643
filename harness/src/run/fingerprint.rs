//! The resume fingerprint: every value of the resolved config that decides
//! the games (`fingerprint.json`), and the check `--resume` makes against
//! it (only `games` may rise).

use std::collections::BTreeMap;
use std::path::Path;

use super::error::{io_err, MatchError};
use crate::config::MatchConfig;

/// Keys of the resolved config that do not decide the games: they may
/// change when a run is resumed.
/// Other commands' blocks ([`crate::config::RawConfig::sections`]) are
/// left out too: the match does not read them.
/// `epd` (where final positions are copied) does not shape anything the run
/// folder holds.
/// `output` only shapes what is printed, `checks` what is warned about
/// and the exit status.
const RESUMABLE_KEYS: &[&str] = &[
    "concurrency",
    "max_start_failures",
    "epd",
    "output",
    "checks",
];

/// Every value of the resolved config that decides the games, by key path
/// (`engines[1].params.null_move_r`, `time_control`, `seed`, ...).
pub fn config_fingerprint(cfg: &MatchConfig) -> BTreeMap<String, String> {
    fn walk(prefix: &str, v: &serde_yaml::Value, out: &mut BTreeMap<String, String>) {
        match v {
            serde_yaml::Value::Mapping(m) => {
                for (k, v) in m {
                    let k = match k {
                        serde_yaml::Value::String(s) => s.clone(),
                        other => serde_yaml::to_string(other)
                            .unwrap_or_default()
                            .trim()
                            .to_string(),
                    };
                    let key = if prefix.is_empty() {
                        k
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            }
            serde_yaml::Value::Sequence(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(&format!("{prefix}[{i}]"), v, out);
                }
            }
            serde_yaml::Value::Null => {}
            other => {
                let text = serde_yaml::to_string(other).unwrap_or_default();
                out.insert(prefix.to_string(), text.trim().to_string());
            }
        }
    }
    let mut out = BTreeMap::new();
    if let Ok(v) = serde_yaml::to_value(cfg.resolved()) {
        walk("", &v, &mut out);
    }
    let blocks = cfg.resolved().sections.keys().map(String::as_str);
    let left_out: Vec<&str> = RESUMABLE_KEYS.iter().copied().chain(blocks).collect();
    out.retain(|k, _| {
        !left_out
            .iter()
            .any(|r| k == r || k.starts_with(&format!("{r}.")) || k.starts_with(&format!("{r}[")))
    });
    out
}

/// The keys whose values differ between two fingerprints, comma-separated.
fn changed_keys(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> String {
    let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    keys.into_iter()
        .filter(|k| old.get(*k) != new.get(*k))
        .map(|k| {
            let show = |v: Option<&String>| match v {
                Some(v) => v.clone(),
                None => default_value(k).map_or("(none)".to_string(), |d| format!("{d} (default)")),
            };
            format!("{k}: {} -> {}", show(old.get(k)), show(new.get(k)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The default of a fingerprint key that is left out at its default: an
/// in-process engine's parameter (`engines[1].params.null_move_r`), which
/// the resolved config lists only where it differs from the table.
fn default_value(key: &str) -> Option<String> {
    let (engine, name) = key.split_once("].params.")?;
    engine.strip_prefix("engines[")?.parse::<usize>().ok()?;
    let i = karsinta_engine::Params::index_of(name)?;
    let spec = &karsinta_engine::Params::specs()[i];
    let value = match spec.kind {
        karsinta_engine::params::ParamKind::Int => spec.default.to_string(),
        karsinta_engine::params::ParamKind::Bool => (spec.default != 0).to_string(),
        karsinta_engine::params::ParamKind::Choice(_) => spec.format_value(spec.default),
    };
    Some(value)
}

/// Whether the run folder's `config.yaml` was written by a version that
/// always writes `fingerprint.json` (this one on): those write the default
/// of `max_start_failures` out, a key versions before fingerprints did not
/// know.
fn written_with_fingerprint(config: &Path) -> bool {
    std::fs::read_to_string(config)
        .ok()
        .and_then(|t| serde_yaml::from_str::<serde_yaml::Value>(&t).ok())
        .is_some_and(|v| v.get("max_start_failures").is_some())
}

/// What a resume writes back into the run folder before playing on.
#[derive(Default)]
pub(super) struct ResumeWrites {
    pub(super) fingerprint: bool,
    /// More games than the run was started with (`--resume --games N`).
    pub(super) config: bool,
}

/// A resumed run's config must still decide the games as it did; only
/// `games` may rise (pair `p`'s pairing and opening do not depend on it, so
/// the pairs played stay and the new ones continue the seed's order).
/// Without `fingerprint.json` there is nothing to compare: fine for a
/// folder whose run played nothing yet (killed while claiming its folder:
/// the fingerprint is written on) or that an older version wrote, refused
/// for one this version wrote (`max_start_failures` in its config: the file
/// was deleted).
pub(super) fn check_resumed_config(
    out: &Path,
    fingerprint: &BTreeMap<String, String>,
) -> Result<ResumeWrites, MatchError> {
    let path = out.join("fingerprint.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let old: BTreeMap<String, String> =
                serde_json::from_str(&text).map_err(|e| MatchError::Io {
                    path: path.clone(),
                    source: std::io::Error::other(e),
                })?;
            // Written before draw rules had names: the rule then was Karsinta's.
            let mut old = old;
            if old.contains_key("adjudication.draw.move_number")
                && !old.contains_key("adjudication.draw.rule")
            {
                old.insert("adjudication.draw.rule".into(), "karsinta".into());
            }
            if old == *fingerprint {
                return Ok(ResumeWrites::default());
            }
            if raises_games_only(&old, fingerprint) {
                return Ok(ResumeWrites {
                    fingerprint: true,
                    config: true,
                });
            }
            Err(MatchError::ConfigChanged {
                path: out.join("config.yaml"),
                keys: changed_keys(&old, fingerprint),
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let ledger = out.join("ledger.jsonl");
            let played = std::fs::metadata(&ledger).is_ok_and(|m| m.len() > 0);
            if !played {
                Ok(ResumeWrites {
                    fingerprint: true,
                    config: false,
                })
            } else if written_with_fingerprint(&out.join("config.yaml")) {
                Err(MatchError::FingerprintMissing { path })
            } else {
                Ok(ResumeWrites::default())
            }
        }
        Err(e) => Err(io_err(&path)(e)),
    }
}

/// Whether `new` differs from `old` only in a larger `games` (and, for an
/// SPRT with a cap, the larger `sprt.max_games` that `--games` sets with it).
fn raises_games_only(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> bool {
    const CAPS: [&str; 2] = ["games", "sprt.max_games"];
    let cap = |m: &BTreeMap<String, String>, k: &str| m.get(k).and_then(|g| g.parse::<u64>().ok());
    let rest_equal = old
        .iter()
        .filter(|(k, _)| !CAPS.contains(&k.as_str()))
        .eq(new.iter().filter(|(k, _)| !CAPS.contains(&k.as_str())));
    let no_cap_falls = CAPS.iter().all(|k| match (cap(old, k), cap(new, k)) {
        (None, None) => true,
        (Some(a), Some(b)) => b >= a,
        _ => false,
    });
    let games_rise = matches!((cap(old, "games"), cap(new, "games")), (Some(a), Some(b)) if b > a);
    rest_equal && no_cap_falls && games_rise
}
