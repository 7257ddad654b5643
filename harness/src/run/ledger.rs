//! The results ledger: an append-only JSON-lines file with one line per
//! finished game pair (or single game, in a schedule of one game per
//! opening). A pair is appended, flushed and fsync'ed before it is
//! counted anywhere else, so after any interruption (even SIGKILL) the
//! ledger holds exactly the pairs that were counted. `--resume` reloads it;
//! a last line cut short by a kill mid-write is ignored and cut off.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::play::game::{GameResult, Termination};

/// One game of a pair, as the ledger keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameEntry {
    /// Engine indices into the config's `engines`.
    pub white: usize,
    /// The engine index of Black.
    pub black: usize,
    /// The game's result, from White's point of view.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// Plies in the game, the opening's moves included.
    pub plies: u32,
    /// PV warnings of White's engine and of Black's in the game
    /// ([`crate::play::game::PvReport`]); absent in the ledger when none.
    #[serde(default, skip_serializing_if = "no_warnings")]
    pub warnings: [u32; 2],
}

fn no_warnings(w: &[u32; 2]) -> bool {
    *w == [0, 0]
}

/// One finished game pair: the same opening with colours swapped; in the
/// schedules of [`crate::config::ColourSchedule`], a single game or a pair
/// without the swap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairEntry {
    /// Global pair index (fixes the pairing and the opening).
    pub pair: u64,
    /// Index into the run's pairings.
    pub pairing: usize,
    /// Engine indices: the pairing's engines (`first` is the point of view
    /// of its figures; each game says who is White).
    pub first: usize,
    /// The other engine of the pairing.
    pub second: usize,
    /// Index of the opening in the loaded suite (`None`: start position).
    pub opening: Option<usize>,
    /// The games in playing order (one or two).
    pub games: Vec<GameEntry>,
}

impl GameEntry {
    /// PV warnings of the engine `engine` in this game.
    pub fn warnings_of(&self, engine: usize) -> u32 {
        let mut n = 0;
        if engine == self.white {
            n += self.warnings[0];
        }
        if engine == self.black {
            n += self.warnings[1];
        }
        n
    }

    /// Half points (0, 1 or 2) the engine `engine` scored in this game.
    pub fn half_points(&self, engine: usize) -> u32 {
        let white_half = match self.result {
            GameResult::WhiteWins => 2,
            GameResult::Draw => 1,
            GameResult::BlackWins => 0,
        };
        if engine == self.white {
            white_half
        } else {
            2 - white_half
        }
    }
}

impl PairEntry {
    /// Two games from the opening with the colours swapped: what a
    /// pentanomial cell counts.
    pub fn is_swapped_pair(&self) -> bool {
        matches!(&self.games[..], [a, b] if a.white == b.black && a.black == b.white)
    }

    /// Half points of the first engine over the pair: the pentanomial cell
    /// (0 = LL .. 4 = WW) when [`PairEntry::is_swapped_pair`].
    pub fn first_points(&self) -> usize {
        self.games
            .iter()
            .map(|g| g.half_points(self.first))
            .sum::<u32>() as usize
    }
}

/// A ledger that cannot be read.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum LedgerError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: line {line}: not a ledger entry: {reason}")]
    Corrupt {
        path: PathBuf,
        line: usize,
        reason: String,
    },
}

/// An open ledger, positioned for appending.
pub struct Ledger {
    path: PathBuf,
    file: File,
}

impl Ledger {
    /// Open (or create) the ledger at `path` and return the pairs it holds,
    /// in the order they finished. A trailing partial line is dropped from
    /// the file; a duplicate pair (which our writer never produces) is
    /// counted once.
    pub fn open(path: &Path) -> Result<(Ledger, Vec<PairEntry>), LedgerError> {
        let io_err = |source| LedgerError::Io {
            path: path.to_path_buf(),
            source,
        };
        let data = match std::fs::read(path) {
            Ok(d) => d,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_err(e)),
        };
        // Only newline-terminated lines were completely written.
        let complete = data.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut entries = Vec::new();
        let mut seen = HashSet::new();
        for (i, line) in data[..complete].split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let entry: PairEntry =
                serde_json::from_slice(line).map_err(|e| LedgerError::Corrupt {
                    path: path.to_path_buf(),
                    line: i + 1,
                    reason: e.to_string(),
                })?;
            if !(1..=2).contains(&entry.games.len()) {
                return Err(LedgerError::Corrupt {
                    path: path.to_path_buf(),
                    line: i + 1,
                    reason: format!("{} games (a line holds one or two)", entry.games.len()),
                });
            }
            if seen.insert(entry.pair) {
                entries.push(entry);
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(io_err)?;
        if complete < data.len() {
            file.set_len(complete as u64).map_err(io_err)?;
            file.sync_all().map_err(io_err)?;
        }
        drop(file);
        let file = OpenOptions::new().append(true).open(path).map_err(io_err)?;
        Ok((
            Ledger {
                path: path.to_path_buf(),
                file,
            },
            entries,
        ))
    }

    /// Append one pair durably (write, flush, fsync) before returning.
    pub fn append(&mut self, entry: &PairEntry) -> Result<(), LedgerError> {
        let mut line = serde_json::to_vec(entry).expect("ledger entries serialize");
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .and_then(|()| self.file.sync_data())
            .map_err(|source| LedgerError::Io {
                path: self.path.clone(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pair: u64, r0: GameResult, r1: GameResult) -> PairEntry {
        let g = |white, black, result| GameEntry {
            white,
            black,
            result,
            termination: Termination::Mate,
            plies: 40,
            warnings: [0, 0],
        };
        PairEntry {
            pair,
            pairing: 0,
            first: 0,
            second: 1,
            opening: Some(3),
            games: vec![g(0, 1, r0), g(1, 0, r1)],
        }
    }

    #[test]
    fn points_from_first_engine_view() {
        use GameResult::*;
        assert_eq!(entry(0, WhiteWins, BlackWins).first_points(), 4);
        assert_eq!(entry(0, WhiteWins, WhiteWins).first_points(), 2);
        assert_eq!(entry(0, Draw, WhiteWins).first_points(), 1);
        assert_eq!(entry(0, BlackWins, WhiteWins).first_points(), 0);
        assert_eq!(entry(0, Draw, BlackWins).first_points(), 3);
    }

    #[test]
    fn append_reload_and_truncated_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        let (mut l, old) = Ledger::open(&path).unwrap();
        assert!(old.is_empty());
        let a = entry(5, GameResult::Draw, GameResult::WhiteWins);
        let b = entry(2, GameResult::BlackWins, GameResult::Draw);
        l.append(&a).unwrap();
        l.append(&b).unwrap();
        drop(l);
        // Simulate a kill in the middle of writing a third line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"pair\":7,\"pairi").unwrap();
        drop(f);
        let (mut l, got) = Ledger::open(&path).unwrap();
        assert_eq!(got, vec![a.clone(), b.clone()]);
        let c = entry(7, GameResult::Draw, GameResult::Draw);
        l.append(&c).unwrap();
        drop(l);
        let (_, got) = Ledger::open(&path).unwrap();
        assert_eq!(got, vec![a, b, c]);
        // A damaged complete line is an error naming the line.
        std::fs::write(&path, "{}\n").unwrap();
        let e = Ledger::open(&path).err().unwrap().to_string();
        assert!(e.contains("line 1"), "{e}");
    }
}
