//! The complete parameter set, [`Params`]: the search table
//! ([`SearchParams`]) and the evaluation weights ([`EvalWeights`]) behind one
//! flat list of scalar entries, and what is generated from it: the UCI
//! option list and `setoption` handling, YAML load/save and the SPSA spec.
//! An evaluation weight is a tapered (middlegame, endgame) pair, so it
//! appears as two scalars named `<name>_mg` and `<name>_eg`
//! (`<name>_<i>_mg` for arrays).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

use super::search::SearchParams;
use super::spec::{ParamError, ParamSpec};
use crate::eval::weights::EvalWeights;

/// Former names of renamed parameters, `(old, current)`: a parameter file or
/// `setoption` using an old name still sets the current entry, so users'
/// tuned files survive upgrades. Output (YAML, UCI, SPSA) uses current names
/// only. `engine/tests/data/param_names.txt` lists every name ever shipped;
/// a test checks that each still resolves, so a rename without an alias
/// here fails CI. No parameter has been renamed yet.
pub const ALIASES: &[(&str, &str)] = &[];

/// The current name for `name` under an alias table: itself unless listed.
pub fn resolve_alias<'a>(name: &'a str, aliases: &[(&str, &'a str)]) -> &'a str {
    aliases
        .iter()
        .find(|(old, _)| *old == name)
        .map_or(name, |(_, new)| new)
}

/// A complete parameter set: search parameters and evaluation weights.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Params {
    /// The search's switches and constants.
    pub search: SearchParams,
    /// The evaluation weights.
    pub eval: EvalWeights,
}

impl Params {
    /// All scalar entries, search first then evaluation.
    pub fn specs() -> &'static [ParamSpec] {
        static ALL: OnceLock<Vec<ParamSpec>> = OnceLock::new();
        ALL.get_or_init(|| {
            let mut v = SearchParams::specs().to_vec();
            v.extend_from_slice(EvalWeights::specs());
            v
        })
    }

    /// Index of a parameter by its current name or a former one ([`ALIASES`]).
    pub fn index_of(name: &str) -> Option<usize> {
        Self::index_of_current(resolve_alias(name, ALIASES))
    }

    fn index_of_current(name: &str) -> Option<usize> {
        static INDEX: OnceLock<BTreeMap<String, usize>> = OnceLock::new();
        INDEX
            .get_or_init(|| {
                Self::specs()
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (s.name.clone(), i))
                    .collect()
            })
            .get(name)
            .copied()
    }

    /// Whether `name` (current or former) is a search parameter rather than
    /// an evaluation weight.
    pub fn is_search_param(name: &str) -> bool {
        Self::index_of(name).is_some_and(|i| i < SearchParams::specs().len())
    }

    /// Spec of a parameter by name.
    pub fn spec(name: &str) -> Option<&'static ParamSpec> {
        Self::index_of(name).map(|i| &Self::specs()[i])
    }

    /// Value of entry `index` of [`Self::specs`].
    pub fn get(&self, index: usize) -> i32 {
        let n = SearchParams::specs().len();
        if index < n {
            self.search.get(index)
        } else {
            self.eval.get_scalar(index - n)
        }
    }

    fn set_index(&mut self, index: usize, value: i32) {
        let n = SearchParams::specs().len();
        if index < n {
            self.search.set(index, value)
        } else {
            self.eval.set_scalar(index - n, value)
        }
    }

    /// Value of a parameter by name.
    pub fn get_by_name(&self, name: &str) -> Option<i32> {
        Self::index_of(name).map(|i| self.get(i))
    }

    /// Set a parameter from its text form (UCI `setoption`, CLI). Nothing
    /// changes on error.
    pub fn set_by_name(&mut self, name: &str, value: &str) -> Result<(), ParamError> {
        let i = Self::index_of(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        let v = Self::specs()[i].parse_value(value)?;
        self.set_index(i, v);
        Ok(())
    }

    /// Set a parameter from an integer value, range-checked.
    pub fn set_int(&mut self, name: &str, value: i64) -> Result<(), ParamError> {
        let i = Self::index_of(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        let v = Self::specs()[i].check(value)?;
        self.set_index(i, v);
        Ok(())
    }

    /// The `option name ...` lines for the UCI `uci` answer, with the current
    /// values as defaults.
    pub fn uci_options(&self) -> Vec<String> {
        Self::specs()
            .iter()
            .enumerate()
            .map(|(i, s)| s.uci_option(self.get(i)))
            .collect()
    }

    /// The whole set as YAML, one `name: value` line per parameter.
    pub fn to_yaml(&self) -> String {
        let mut out = String::from("# karsinta-engine parameter set\n");
        for (i, s) in Self::specs().iter().enumerate() {
            let _ = writeln!(out, "{}: {}", s.name, s.format_value(self.get(i)));
        }
        out
    }

    /// Only the entries that differ from `base`, as YAML.
    pub fn diff_yaml(&self, base: &Params) -> String {
        let mut out = String::new();
        for (i, s) in Self::specs().iter().enumerate() {
            if self.get(i) != base.get(i) {
                let _ = writeln!(out, "{}: {}", s.name, s.format_value(self.get(i)));
            }
        }
        out
    }

    /// Apply a YAML mapping of `name: value` on top of `self`. `origin` names
    /// the source (file path) in error messages. On error nothing changes.
    pub fn apply_yaml(&mut self, text: &str, origin: &str) -> Result<(), ParamError> {
        let value: serde_yaml::Value =
            serde_yaml::from_str(text).map_err(|e| ParamError::Syntax {
                origin: origin.to_string(),
                reason: e.to_string(),
            })?;
        let map = match value {
            serde_yaml::Value::Mapping(m) => m,
            serde_yaml::Value::Null => serde_yaml::Mapping::new(),
            _ => {
                return Err(ParamError::Syntax {
                    origin: origin.to_string(),
                    reason: "expected a mapping of parameter names to values".to_string(),
                })
            }
        };
        let mut next = self.clone();
        for (k, v) in map {
            let key = match k {
                serde_yaml::Value::String(s) => s,
                other => {
                    return Err(ParamError::Syntax {
                        origin: origin.to_string(),
                        reason: format!("parameter names must be strings, found {other:?}"),
                    })
                }
            };
            next.apply_value(&key, &v).map_err(|e| ParamError::InFile {
                origin: origin.to_string(),
                source: Box::new(e),
            })?;
        }
        *self = next;
        Ok(())
    }

    /// Apply one `name: value` pair from YAML.
    pub fn apply_value(&mut self, key: &str, v: &serde_yaml::Value) -> Result<(), ParamError> {
        let text = match v {
            serde_yaml::Value::Bool(b) => b.to_string(),
            serde_yaml::Value::Number(n) => n.to_string(),
            serde_yaml::Value::String(s) => s.clone(),
            other => format!("{other:?}"),
        };
        self.set_by_name(key, &text)
    }

    /// Parse a full or partial parameter set; missing keys keep their defaults.
    pub fn from_yaml_str(text: &str, origin: &str) -> Result<Params, ParamError> {
        let mut p = Params::default();
        p.apply_yaml(text, origin)?;
        Ok(p)
    }

    /// Load a parameter file; missing keys keep their defaults.
    pub fn load_yaml(path: &Path) -> Result<Params, ParamError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ParamError::Io {
            origin: origin.clone(),
            reason: e.to_string(),
        })?;
        Self::from_yaml_str(&text, &origin)
    }

    /// SPSA spec in OpenBench's format, one `name, int, value, min, max,
    /// c_end, r_end` line per tunable integer. `filter` selects entries by
    /// name (all when `None`).
    pub fn spsa_spec(&self, filter: Option<&dyn Fn(&ParamSpec) -> bool>) -> String {
        let mut out = String::new();
        for (i, s) in Self::specs().iter().enumerate() {
            if !s.tunable() || filter.is_some_and(|f| !f(s)) {
                continue;
            }
            let _ = writeln!(
                out,
                "{}, int, {}, {}, {}, {}, {}",
                s.name,
                self.get(i),
                s.min,
                s.max,
                fmt_float(s.c_end),
                fmt_float(s.r_end)
            );
        }
        out
    }
}

fn fmt_float(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::SearchAlgorithm;

    #[test]
    fn defaults_are_in_range() {
        let p = Params::default();
        for (i, s) in Params::specs().iter().enumerate() {
            assert_eq!(p.get(i), s.default, "{}", s.name);
            assert!(
                s.min <= s.default && s.default <= s.max,
                "{} default out of range",
                s.name
            );
        }
    }

    #[test]
    fn names_are_unique_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for s in Params::specs() {
            assert!(seen.insert(s.name.clone()), "duplicate {}", s.name);
            assert!(
                s.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{} is not snake_case",
                s.name
            );
        }
    }

    #[test]
    fn yaml_round_trip_of_every_value() {
        let mut p = Params::default();
        p.set_by_name("null_move_r", "2").unwrap();
        p.set_by_name("null_move", "false").unwrap();
        p.set_by_name("search_algorithm", "mtdf").unwrap();
        p.set_int("material_knight_mg", 333).unwrap();
        let back = Params::from_yaml_str(&p.to_yaml(), "test").unwrap();
        assert_eq!(back, p);
        assert_eq!(back.search.null_move_r, 2);
        assert!(!back.search.null_move);
        assert_eq!(back.search.search_algorithm, SearchAlgorithm::Mtdf);
        let diff = p.diff_yaml(&Params::default());
        assert_eq!(diff.lines().count(), 4, "{diff}");
        assert_eq!(Params::from_yaml_str(&diff, "diff").unwrap(), p);
    }

    #[test]
    fn uci_option_lines_follow_the_table() {
        let p = Params::default();
        let lines = p.uci_options();
        assert!(lines.contains(&"option name null_move type check default true".to_string()));
        assert!(
            lines.contains(&"option name null_move_r type spin default 3 min 1 max 6".to_string())
        );
        assert!(lines.contains(
            &"option name search_algorithm type combo default pvs var minimax var alphabeta var pvs var mtdf"
                .to_string()
        ));
        // UCI text back into the struct.
        let mut q = Params::default();
        for (i, s) in Params::specs().iter().enumerate() {
            q.set_by_name(&s.name, &s.format_value(p.get(i))).unwrap();
        }
        assert_eq!(p, q);
    }

    #[test]
    fn rejects_unknown_and_out_of_range_without_change() {
        let mut p = Params::default();
        let before = p.clone();
        assert_eq!(
            p.set_by_name("no_such_param", "1"),
            Err(ParamError::Unknown("no_such_param".into()))
        );
        let err = p.set_by_name("null_move_r", "7").unwrap_err();
        assert!(
            err.to_string().contains("null_move_r") && err.to_string().contains("1..=6"),
            "{err}"
        );
        assert!(p.set_by_name("null_move", "maybe").is_err());
        assert!(p.set_by_name("search_algorithm", "bogus").is_err());
        assert_eq!(p, before);

        let err = Params::from_yaml_str("null_move_r: 2\nlmr_bas: 3\n", "tuned.yaml").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("tuned.yaml") && msg.contains("lmr_bas"),
            "{msg}"
        );
        let err = Params::from_yaml_str("null_move_r: 99\n", "tuned.yaml").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("tuned.yaml") && msg.contains("null_move_r") && msg.contains("1..=6"),
            "{msg}"
        );
        assert!(Params::from_yaml_str("[1, 2]", "x.yaml").is_err());
        assert!(Params::from_yaml_str(": : :", "x.yaml").is_err());
    }

    #[test]
    fn every_shipped_name_still_loads() {
        let names = include_str!("../../tests/data/param_names.txt");
        let mut n = 0;
        for name in names
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            n += 1;
            assert!(
                Params::index_of(name).is_some(),
                "'{name}' was shipped but no longer loads: add an alias in ALIASES"
            );
        }
        assert!(n >= 1113, "{n} names");
        // And the list is complete: every current name is in it, so a
        // later rename is caught.
        let listed: std::collections::BTreeSet<&str> = names.lines().collect();
        for s in Params::specs() {
            assert!(
                listed.contains(s.name.as_str()),
                "'{}' is missing from tests/data/param_names.txt",
                s.name
            );
        }
    }

    #[test]
    fn aliases_map_old_names_to_current_ones() {
        let table = [("null_move_reduction", "null_move_r")];
        assert_eq!(resolve_alias("null_move_reduction", &table), "null_move_r");
        assert_eq!(resolve_alias("lmr_base", &table), "lmr_base");
        for (old, new) in ALIASES {
            assert!(
                Params::index_of_current(new).is_some(),
                "alias {old} -> {new}: no such parameter"
            );
            assert!(
                Params::index_of_current(old).is_none(),
                "alias {old} shadows a current name"
            );
        }
    }

    #[test]
    fn spsa_spec_lists_tunable_integers() {
        let spec = Params::default().spsa_spec(None);
        let line = spec
            .lines()
            .find(|l| l.starts_with("null_move_r,"))
            .unwrap();
        assert_eq!(line, "null_move_r, int, 3, 1, 6, 1, 0.002");
        assert!(
            !spec.contains("null_move,"),
            "switches are not SPSA-tunable"
        );
        for l in spec.lines() {
            assert_eq!(l.split(", ").count(), 7, "{l}");
        }
    }
}
