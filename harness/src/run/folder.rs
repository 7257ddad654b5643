//! The run folder's files and how a run claims one. A new run needs a
//! missing or empty folder and claims it by creating `config.yaml`
//! exclusively, whole (a temporary file hard-linked into place), then
//! writes `fingerprint.json` and only then the ledger, which stays locked
//! while the run writes: a kill at any point leaves a folder that a new run
//! may use (only temporary files) or that `--resume` continues (a config).

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::error::{io_err, MatchError};
use crate::formats::pgn_write::{self};

/// File name of an engine's stderr log in the run folder.
pub fn stderr_log_name(engine: &str) -> String {
    let clean: String = engine
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{clean}.stderr.log")
}

fn parse_round(game: &str) -> Option<(u64, u64)> {
    let (p, g) = pgn_write::tag_value(game, "Round")?.split_once('.')?;
    Some((p.parse::<u64>().ok()?.checked_sub(1)?, g.parse().ok()?))
}

/// Rewrite `games.pgn` atomically with only the complete games of `pairs`,
/// sorted by pair and game (the order a single worker would produce).
pub(super) fn rewrite_pgn(path: &Path, pairs: &HashSet<u64>) -> Result<(), MatchError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io_err(path)(e)),
    };
    let mut games: Vec<((u64, u64), &str)> = pgn_write::split_games(&text)
        .into_iter()
        .filter(|g| pgn_write::is_complete(g))
        .filter_map(|g| parse_round(g).map(|r| (r, g)))
        .filter(|(r, _)| pairs.contains(&r.0))
        .collect();
    games.sort_by_key(|(r, _)| *r);
    games.dedup_by_key(|(r, _)| *r);
    let tmp = path.with_extension("pgn.tmp");
    let mut out = String::with_capacity(text.len());
    for (_, g) in games {
        out.push_str(g.trim_end());
        out.push_str("\n\n");
    }
    std::fs::write(&tmp, out).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// Create a new, empty run folder at `base`, or at `base-2`, `base-3`, ...
/// when that exists: `create_dir` is atomic, so two runs started at once
/// never share one.
pub fn claim_new_run_dir(base: &Path) -> Result<PathBuf, MatchError> {
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    let mut candidate = base.to_path_buf();
    for n in 2u32.. {
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 10_000 => {
                let mut name = base.as_os_str().to_owned();
                name.push(format!("-{n}"));
                candidate = PathBuf::from(name);
            }
            Err(e) => return Err(io_err(&candidate)(e)),
        }
    }
    unreachable!("the loop returns")
}

/// Remove `dir` if it is empty (a run folder claimed for a run that failed
/// its setup); anything else is left alone.
pub fn remove_if_empty(dir: &Path) {
    let _ = std::fs::remove_dir(dir);
}

/// Prefix of the temporary files a new run writes its folder's files
/// through; ending in `.tmp`.
const TEMP_PREFIX: &str = ".karsinta-";

/// Whether `name` is a temporary file of [`write_new`] (left by a run
/// killed before it claimed the folder: such a folder counts as empty).
fn is_claim_temp(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n.starts_with(TEMP_PREFIX) && n.ends_with(".tmp"))
}

/// A new run's folder must be missing or empty (but for the temporary
/// files of a run killed before it claimed it).
pub(super) fn check_new_run_dir(out: &Path) -> Result<(), MatchError> {
    let entries = match std::fs::read_dir(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory || out.is_file() => {
            return Err(MatchError::NotAFolder(out.into()))
        }
        Err(e) => return Err(io_err(out)(e)),
        Ok(entries) => entries,
    };
    let mut entries = entries.filter(|e| !e.as_ref().is_ok_and(|e| is_claim_temp(&e.file_name())));
    match entries.next() {
        None => Ok(()),
        Some(_)
            if out.join("ledger.jsonl").exists()
                || (out.join("config.yaml").exists() && out.join("fingerprint.json").exists()) =>
        {
            Err(MatchError::Exists(out.into()))
        }
        Some(_) => Err(MatchError::NotEmpty(out.into())),
    }
}

/// Write `text` to a new temporary file beside `path` (synced), returning
/// its path; removed again if the write fails.
fn write_temp(path: &Path, text: &str) -> Result<PathBuf, MatchError> {
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    let tmp = path.with_file_name(format!("{TEMP_PREFIX}{name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_data()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_err(&tmp)(e));
    }
    Ok(tmp)
}

/// Create `path` with `text` whole and only if it does not exist: the
/// temporary file is hard-linked into place, which fails if another run
/// got there first (`false`). Where the file system has no hard links,
/// an exclusive create and a write (not whole after a kill).
pub(super) fn write_new(path: &Path, text: &str) -> Result<bool, MatchError> {
    let tmp = write_temp(path, text)?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(_) => match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut f) => {
                f.write_all(text.as_bytes()).map_err(io_err(path))?;
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(io_err(path)(e)),
        },
    }
}

/// Replace `path` with `text` whole (temporary file, rename).
pub(super) fn write_replace(path: &Path, text: &str) -> Result<(), MatchError> {
    let tmp = write_temp(path, text)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err(path)(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::pgn_write::MatchTags;
    use crate::play::game::GameRecord;
    use crate::run::round_tag;

    #[test]
    fn round_tags_parse_back() {
        let mut text = String::new();
        let tc = "nodes=1".parse().unwrap();
        let g = GameRecord {
            time_controls: [tc; 2],
            warnings: Vec::new(),
            white: "a".into(),
            black: "b".into(),
            start_fen: None,
            moves: Vec::new(),
            result: crate::play::game::GameResult::Draw,
            termination: crate::play::game::Termination::MaxMoves,
            reason: "x".into(),
        };
        pgn_write::write_game(
            &mut text,
            &g,
            &round_tag(41, 1),
            &MatchTags {
                event: "e",
                date: "d",
                variant: crate::variant::Variant::Standard,
            },
        );
        assert_eq!(parse_round(&text), Some((41, 2)));
        assert_eq!(
            stderr_log_name("Stockfish 16/x"),
            "Stockfish_16_x.stderr.log"
        );
    }

    #[test]
    fn rewrite_keeps_counted_complete_games_in_order() {
        let tc = "nodes=1".parse().unwrap();
        let tags = MatchTags {
            event: "e",
            date: "d",
            variant: crate::variant::Variant::Standard,
        };
        let g = GameRecord {
            time_controls: [tc; 2],
            warnings: Vec::new(),
            white: "a".into(),
            black: "b".into(),
            start_fen: None,
            moves: Vec::new(),
            result: crate::play::game::GameResult::WhiteWins,
            termination: crate::play::game::Termination::Crash,
            reason: "x".into(),
        };
        let mut text = String::new();
        for (p, i) in [(2, 0), (2, 1), (0, 0), (0, 1), (1, 0), (1, 1), (3, 0)] {
            pgn_write::write_game(&mut text, &g, &round_tag(p, i), &tags);
        }
        // Pair 3's second game was cut short by a kill.
        pgn_write::write_game(&mut text, &g, &round_tag(3, 1), &tags);
        text.truncate(text.len() - 5);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, &text).unwrap();
        rewrite_pgn(&path, &[0, 2].into_iter().collect()).unwrap();
        let out = std::fs::read_to_string(&path).unwrap();
        let rounds: Vec<_> = pgn_write::split_games(&out)
            .into_iter()
            .filter_map(parse_round)
            .collect();
        assert_eq!(rounds, vec![(0, 1), (0, 2), (2, 1), (2, 2)]);
    }
}
