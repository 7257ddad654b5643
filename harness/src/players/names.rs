//! Names the protocols share: an instance tag per started engine (its
//! lines in a shared stderr log) and the closest known name to a typo (the
//! hint of an unknown-option error).

use std::collections::BTreeMap;
use std::sync::Mutex;

/// The name in `candidates` closest to `name` (case-insensitive edit
/// distance), if one is close enough to be a likely typo: at most a third
/// of the longer name's letters differ.
pub fn closest_name<'a>(name: &str, candidates: &'a [String]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d * 3 <= lower.chars().count().max(c.chars().count()))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.as_str())
}

/// Levenshtein distance between two strings, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// A name for a new instance of the engine `name` (`name#1`, `name#2`, ...
/// per name, in creation order): the concurrent game slots each create one
/// instance, so the tag tells their stderr lines apart in the shared log.
pub(super) fn instance_tag(name: &str) -> String {
    static INSTANCES: Mutex<BTreeMap<String, u32>> = Mutex::new(BTreeMap::new());
    let mut instances = INSTANCES.lock().unwrap_or_else(|e| e.into_inner());
    let n = instances.entry(name.to_string()).or_insert(0);
    *n += 1;
    format!("{name}#{n}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_name_finds_typos_only() {
        let names: Vec<String> = ["Hash", "Threads", "Clear Hash", "UCI_Elo"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(closest_name("Hsh", &names), Some("Hash"));
        assert_eq!(closest_name("threads", &names), Some("Threads"));
        assert_eq!(closest_name("UCI_ELO", &names), Some("UCI_Elo"));
        assert_eq!(closest_name("SyzygyPath", &names), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
