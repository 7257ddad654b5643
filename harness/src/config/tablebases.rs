//! The `tablebases:` section: Syzygy folders checked and opened once, when
//! the config is resolved, so that a missing, unreadable or empty folder is
//! an error naming it before any game, and every game of the run shares
//! one [`Tablebases`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::ConfigError;
use super::schema::RawTablebases;
use crate::play::tablebase::{TablebaseRule, Tablebases};

/// A `tablebases:` section (named `key` in the file at `path`, folders
/// relative to `base`) into opened tables (`None` without the section), its
/// defaults and absolute paths written back. The match config and
/// `datagen` share it.
pub fn resolve_tablebases(
    section: Option<&mut RawTablebases>,
    key: &str,
    path: &Path,
    base: &Path,
) -> Result<Option<Arc<Tablebases>>, ConfigError> {
    let Some(t) = section else {
        return Ok(None);
    };
    if t.paths.is_empty() {
        return Err(invalid(
            path,
            &format!("{key}.paths"),
            "give at least one folder",
        ));
    }
    // Canonical when they exist (cleaner paths in the resolved config).
    let paths: Vec<PathBuf> = t
        .paths
        .iter()
        .map(|p| {
            let joined = base.join(p);
            std::fs::canonicalize(&joined).unwrap_or(joined)
        })
        .collect();
    if let Some(n) = t.pieces.filter(|&n| n < 3) {
        return Err(invalid(
            path,
            &format!("{key}.pieces"),
            format!("{n}: the smallest tables have 3 pieces"),
        ));
    }
    let rule = TablebaseRule {
        pieces: t.pieces.unwrap_or(u32::MAX),
        ignore_50_move: t.ignore_50_move.unwrap_or(false),
        adjudicate: t.adjudicate.unwrap_or_default(),
    };
    let tables = Tablebases::open(&paths, rule)
        .map_err(|e| invalid(path, &format!("{key}.paths"), e.to_string()))?;
    t.paths = paths.iter().map(|p| p.display().to_string()).collect();
    t.pieces = Some(tables.rule().pieces);
    t.ignore_50_move = Some(rule.ignore_50_move);
    t.adjudicate = Some(rule.adjudicate);
    Ok(Some(Arc::new(tables)))
}

fn invalid(path: &Path, key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        key: key.into(),
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{ConfigError, MatchConfig, Overrides};
    use crate::play::tablebase::{test_tables, TbAdjudicate};

    fn config(dir: &std::path::Path, tablebases: &str) -> Result<MatchConfig, ConfigError> {
        let yaml = format!(
            "engines:\n  - {{ name: a, type: inprocess }}\n  - {{ name: b, type: inprocess }}\n\
             time_control: nodes=100\ngames: 2\nseed: 1\n{tablebases}"
        );
        MatchConfig::from_yaml(&yaml, &dir.join("m.yaml"), &Overrides::default())
    }

    #[test]
    fn resolved_with_defaults_and_reloaded() {
        let dir = tempfile::tempdir().unwrap();
        let tables = test_tables().canonicalize().unwrap();
        let c = config(
            dir.path(),
            &format!("tablebases: {{ paths: [{}] }}\n", tables.display()),
        )
        .unwrap();
        let tb = c.settings.adjudication.tablebases.as_ref().unwrap();
        assert_eq!(tb.rule().adjudicate, TbAdjudicate::Both);
        assert!(!tb.rule().ignore_50_move);
        let raw = c.resolved().tablebases.as_ref().unwrap();
        assert_eq!(raw.pieces, Some(3));
        assert_eq!(raw.paths, vec![tables.display().to_string()]);
        let again =
            MatchConfig::from_yaml(&c.resolved_yaml(), &c.path, &Overrides::default()).unwrap();
        assert_eq!(again.settings, c.settings);
        assert_eq!(again.resolved(), c.resolved());
    }

    #[test]
    fn keys_and_paths_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let tables = test_tables().canonicalize().unwrap();
        // Relative to the config file.
        std::fs::create_dir(dir.path().join("tb")).unwrap();
        for f in ["KQvK.rtbw", "KQvK.rtbz"] {
            std::fs::copy(tables.join(f), dir.path().join("tb").join(f)).unwrap();
        }
        let c = config(
            dir.path(),
            "tablebases: { paths: [tb], pieces: 5, ignore_50_move: true, adjudicate: win_loss }\n",
        )
        .unwrap();
        let rule = c.settings.adjudication.tablebases.as_ref().unwrap().rule();
        assert_eq!(rule.adjudicate, TbAdjudicate::WinLoss);
        assert!(rule.ignore_50_move);
        assert_eq!(c.resolved().tablebases.as_ref().unwrap().pieces, Some(3));
        for (section, needle) in [
            ("tablebases: { paths: [nowhere] }", "tablebases.paths: "),
            ("tablebases: { paths: [] }", "at least one folder"),
            (
                "tablebases: { paths: [tb], pieces: 2 }",
                "tablebases.pieces",
            ),
            (
                "tablebases: { paths: [tb], adjudicate: wins }",
                "unknown variant",
            ),
            ("tablebases: { paths: [tb], depth: 3 }", "unknown field"),
        ] {
            let e = config(dir.path(), &format!("{section}\n"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{section}: {e}");
        }
        let e = config(dir.path(), "tablebases: { paths: [tb, nowhere] }\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&dir.path().join("nowhere").display().to_string()),
            "{e}"
        );
        assert!(e.contains("no such folder"), "{e}");
    }
}
