//! Tablebase adjudication: Syzygy tables (through `shakmaty-syzygy`) end a
//! game as soon as its position is in them, with the tables' result.
//!
//! The rule is fastchess's: after each move, a position without castling
//! rights and with at most [`TablebaseRule::pieces`] pieces (and no more than
//! the largest table) is probed; a known result ends the game; a cursed win
//! or a blessed loss (won or lost only beyond the 50-move rule) is a draw
//! unless `ignore_50_move`; `adjudicate` picks which results may end a
//! game. fastchess probes WDL tables only, right after a capture or pawn
//! move. Here a position later in a zeroing-free stretch is probed too when
//! the DTZ tables are there, since the halfmove clock then decides whether
//! a win still beats the 50-move rule; without DTZ tables it waits, as
//! fastchess does.
//!
//! The [`Tablebases`] are opened once per match (when its config is
//! resolved, so that a bad path is a setup error before any game) and
//! shared by every game through an `Arc`; tables are read lazily on first
//! probe. A table missing for one material is not an error (the game goes
//! on); a damaged one is a warning on stderr, once per material, and the
//! game goes on unadjudicated.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, KnownOutcome, Position};
use shakmaty_syzygy::{SyzygyError, Tablebase, Wdl};
use thiserror::Error;

/// Which tablebase results may end a game (fastchess `-tbadjudicate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TbAdjudicate {
    /// Wins, losses and draws.
    #[default]
    Both,
    /// Only won or lost positions.
    WinLoss,
    /// Only drawn positions.
    Draw,
}

impl TbAdjudicate {
    fn allows(self, outcome: KnownOutcome) -> bool {
        match self {
            TbAdjudicate::Both => true,
            TbAdjudicate::WinLoss => outcome != KnownOutcome::Draw,
            TbAdjudicate::Draw => outcome == KnownOutcome::Draw,
        }
    }
}

/// When and how positions are adjudicated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TablebaseRule {
    /// Most pieces (kings included) of a probed position.
    pub pieces: u32,
    /// Count cursed wins and blessed losses as wins and losses.
    pub ignore_50_move: bool,
    /// Which results may end a game (`tablebases.adjudicate`, fastchess `-tbadjudicate`).
    pub adjudicate: TbAdjudicate,
}

/// A setup error: tables that cannot be used, naming the path.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum TablebaseError {
    #[error("{}: no such folder", path.display())]
    Missing { path: PathBuf },
    #[error("{}: not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error("{}: cannot read: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: no Syzygy tables (.rtbw/.rtbz files) in it", path.display())]
    Empty { path: PathBuf },
}

/// Opened tables and the rule that applies them; shared by all games.
pub struct Tablebases {
    paths: Vec<PathBuf>,
    rule: TablebaseRule,
    tables: Tablebase<Chess>,
    /// Materials whose damaged table was already reported.
    warned: Mutex<HashSet<String>>,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("paths", &self.paths)
            .field("rule", &self.rule)
            .field("max_pieces", &self.tables.max_pieces())
            .finish()
    }
}

/// Equal when they read the same folders with the same rule.
impl PartialEq for Tablebases {
    fn eq(&self, other: &Self) -> bool {
        self.paths == other.paths && self.rule == other.rule
    }
}

impl Tablebases {
    /// Register the tables in each folder of `paths` (not read yet). Every
    /// folder must exist and hold at least one table. The rule's piece
    /// limit is cut to the largest table's.
    pub fn open(paths: &[PathBuf], mut rule: TablebaseRule) -> Result<Tablebases, TablebaseError> {
        let mut tables = Tablebase::new();
        for path in paths {
            match std::fs::metadata(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(TablebaseError::Missing { path: path.clone() })
                }
                Err(source) => {
                    return Err(TablebaseError::Unreadable {
                        path: path.clone(),
                        source,
                    })
                }
                Ok(m) if !m.is_dir() => {
                    return Err(TablebaseError::NotAFolder { path: path.clone() })
                }
                Ok(_) => {}
            }
            let found =
                tables
                    .add_directory(path)
                    .map_err(|source| TablebaseError::Unreadable {
                        path: path.clone(),
                        source,
                    })?;
            if found == 0 {
                return Err(TablebaseError::Empty { path: path.clone() });
            }
        }
        rule.pieces = rule.pieces.min(tables.max_pieces() as u32);
        Ok(Tablebases {
            paths: paths.to_vec(),
            rule,
            tables,
            warned: Mutex::new(HashSet::new()),
        })
    }

    /// Pieces of the largest table.
    pub fn max_pieces(&self) -> u32 {
        self.tables.max_pieces() as u32
    }

    /// When and how positions are adjudicated.
    pub fn rule(&self) -> TablebaseRule {
        self.rule
    }

    /// The tables' result of `pos` if it may end the game: the rule
    /// reaches the position, its table is there and `adjudicate` allows it.
    pub fn adjudicate(&self, pos: &Chess) -> Option<KnownOutcome> {
        self.result(pos)
            .filter(|&outcome| self.rule.adjudicate.allows(outcome))
    }

    /// The tables' result of `pos` under the rule, whatever `adjudicate`
    /// says; `None` when the position is out of reach or its table missing.
    pub fn result(&self, pos: &Chess) -> Option<KnownOutcome> {
        let pieces = pos.board().occupied().count() as u32;
        if pieces > self.rule.pieces || pos.castles().any() {
            return None;
        }
        let mover_wins = match self.wdl(pos)? {
            Wdl::Win => true,
            Wdl::Loss => false,
            Wdl::CursedWin if self.rule.ignore_50_move => true,
            Wdl::BlessedLoss if self.rule.ignore_50_move => false,
            Wdl::CursedWin | Wdl::BlessedLoss | Wdl::Draw => return Some(KnownOutcome::Draw),
        };
        let winner = if mover_wins { pos.turn() } else { !pos.turn() };
        Some(KnownOutcome::Decisive { winner })
    }

    /// The side to move's WDL, the halfmove clock taken into account
    /// unless the 50-move rule is ignored.
    fn wdl(&self, pos: &Chess) -> Option<Wdl> {
        let probed = if self.rule.ignore_50_move || pos.halfmoves() == 0 {
            self.tables.probe_wdl_after_zeroing(pos).map(Some)
        } else {
            // Ambiguous (DTZ rounding at the 50-move edge): not known.
            self.tables.probe_wdl(pos).map(|w| w.unambiguous())
        };
        match probed {
            Ok(w) => w,
            Err(SyzygyError::ProbeFailed {
                material, error, ..
            }) => {
                let key = material.to_string();
                let mut warned = self.warned.lock().unwrap_or_else(|e| e.into_inner());
                if warned.insert(key.clone()) {
                    eprintln!(
                        "warning: tablebase {key} (in {}) cannot be read: {error}; its positions are not adjudicated",
                        self.paths_text()
                    );
                }
                None
            }
            // A missing table (WDL, or DTZ away from a zeroing move), too
            // many pieces, castling rights: the game goes on.
            Err(_) => None,
        }
    }

    fn paths_text(&self) -> String {
        let v: Vec<String> = self.paths.iter().map(|p| p.display().to_string()).collect();
        v.join(":")
    }
}

/// The folder of the repository's test tables (five 3-piece materials).
#[cfg(test)]
pub(crate) fn test_tables() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/syzygy")
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Color};

    const WHITE: Option<KnownOutcome> = Some(KnownOutcome::Decisive {
        winner: Color::White,
    });
    const BLACK: Option<KnownOutcome> = Some(KnownOutcome::Decisive {
        winner: Color::Black,
    });
    const DRAW: Option<KnownOutcome> = Some(KnownOutcome::Draw);

    fn rule(pieces: u32, ignore_50_move: bool, adjudicate: TbAdjudicate) -> TablebaseRule {
        TablebaseRule {
            pieces,
            ignore_50_move,
            adjudicate,
        }
    }

    fn tb(r: TablebaseRule) -> Tablebases {
        Tablebases::open(&[test_tables()], r).unwrap()
    }

    fn pos(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn wins_losses_and_draws() {
        let t = tb(rule(7, false, TbAdjudicate::Both));
        assert_eq!(t.max_pieces(), 3);
        // KQvK: White to move wins; Black to move loses.
        assert_eq!(t.adjudicate(&pos("8/8/8/8/8/8/1Q6/K6k w - - 0 1")), WHITE);
        assert_eq!(t.result(&pos("8/8/8/8/8/8/1Q6/K5k1 b - - 0 1")), WHITE);
        // Black's rook wins too.
        assert_eq!(t.result(&pos("k7/8/8/8/8/8/r7/7K w - - 0 1")), BLACK);
        // KBvK, KNvK: dead draws.
        assert_eq!(t.adjudicate(&pos("8/8/8/4k3/8/8/2B5/K7 w - - 0 1")), DRAW);
        assert_eq!(t.result(&pos("8/8/8/4k3/8/8/2N5/K7 b - - 0 1")), DRAW);
        // KPvK: the defender holds in front of a rook pawn and with the
        // opposition; without it he loses.
        assert_eq!(t.result(&pos("k7/8/8/8/8/8/P7/K7 w - - 0 1")), DRAW);
        assert_eq!(t.result(&pos("8/8/8/8/4k3/8/4PK2/8 w - - 0 1")), DRAW);
        assert_eq!(t.result(&pos("8/8/8/4k3/8/4K3/4P3/8 w - - 0 1")), DRAW);
        assert_eq!(t.result(&pos("8/8/8/4k3/8/4K3/4P3/8 b - - 0 1")), WHITE);
    }

    #[test]
    fn out_of_reach_positions_go_on() {
        let t = tb(rule(7, false, TbAdjudicate::Both));
        // Four pieces: more than the largest table.
        assert_eq!(t.result(&pos("8/8/8/8/8/8/1Q6/K5rk w - - 0 1")), None);
        // Black's queen: the KQvK table seen from the other side.
        assert_eq!(t.result(&pos("8/8/8/8/8/8/8/K5qk w - - 0 1")), BLACK);
        // Castling rights: never probed.
        assert_eq!(t.result(&pos("8/8/8/8/8/8/8/R3K2k w Q - 0 1")), None);
        assert_eq!(t.result(&pos("8/8/8/8/8/8/8/R3K2k w - - 0 1")), WHITE);
        // A lower piece limit.
        let two = tb(rule(2, false, TbAdjudicate::Both));
        assert_eq!(two.result(&pos("8/8/8/8/8/8/1Q6/K6k w - - 0 1")), None);
    }

    #[test]
    fn a_missing_material_is_not_an_error() {
        // Only the KQvK tables: a KRvK position goes on.
        let dir = tempfile::tempdir().unwrap();
        for ext in ["rtbw", "rtbz"] {
            std::fs::copy(
                test_tables().join(format!("KQvK.{ext}")),
                dir.path().join(format!("KQvK.{ext}")),
            )
            .unwrap();
        }
        let t = Tablebases::open(&[dir.path().into()], rule(7, false, TbAdjudicate::Both)).unwrap();
        assert_eq!(t.result(&pos("8/8/8/8/8/8/1R6/K6k w - - 0 1")), None);
        assert_eq!(t.result(&pos("8/8/8/8/8/8/1Q6/K6k w - - 0 1")), WHITE);
        // Without the DTZ table a position away from a zeroing move waits.
        std::fs::remove_file(dir.path().join("KQvK.rtbz")).unwrap();
        let t = Tablebases::open(&[dir.path().into()], rule(7, false, TbAdjudicate::Both)).unwrap();
        assert_eq!(t.result(&pos("8/8/8/8/8/8/1Q6/K6k w - - 3 2")), None);
        assert_eq!(t.result(&pos("8/8/8/8/8/8/1Q6/K6k w - - 0 2")), WHITE);
    }

    #[test]
    fn the_50_move_rule_turns_late_wins_into_draws() {
        // KQvK mates within 20 moves from anywhere; 95 halfmoves already
        // played leave too few for a far-away mate: a cursed win by the
        // clock, a draw, unless the 50-move rule is ignored.
        let far = "8/8/8/8/3k4/8/8/KQ6 w - - 95 80";
        let t = tb(rule(7, false, TbAdjudicate::Both));
        assert_eq!(t.result(&pos(far)), DRAW);
        let ignoring = tb(rule(7, true, TbAdjudicate::Both));
        assert_eq!(ignoring.result(&pos(far)), WHITE);
        // Early in the count the same position is a win either way.
        assert_eq!(t.result(&pos("8/8/8/8/3k4/8/8/KQ6 w - - 10 80")), WHITE);
    }

    #[test]
    fn the_filter_picks_results() {
        let win = pos("8/8/8/8/8/8/1Q6/K6k w - - 0 1");
        let draw = pos("8/8/8/4k3/8/8/2B5/K7 w - - 0 1");
        let wl = tb(rule(7, false, TbAdjudicate::WinLoss));
        assert!(wl.adjudicate(&win).is_some());
        assert!(wl.adjudicate(&draw).is_none());
        let d = tb(rule(7, false, TbAdjudicate::Draw));
        assert!(d.adjudicate(&win).is_none());
        assert_eq!(d.adjudicate(&draw), DRAW);
        let both = tb(rule(7, false, TbAdjudicate::Both));
        assert!(both.adjudicate(&win).is_some() && both.adjudicate(&draw).is_some());
    }

    #[test]
    fn bad_paths_are_setup_errors_naming_the_path() {
        let r = rule(7, false, TbAdjudicate::Both);
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nowhere");
        let e = Tablebases::open(&[test_tables(), missing.clone()], r).unwrap_err();
        assert!(matches!(e, TablebaseError::Missing { .. }), "{e}");
        assert!(
            e.to_string().contains(&missing.display().to_string()),
            "{e}"
        );
        // A folder without tables.
        std::fs::write(dir.path().join("README"), "no tables").unwrap();
        let e = Tablebases::open(&[dir.path().into()], r).unwrap_err();
        assert!(matches!(e, TablebaseError::Empty { .. }), "{e}");
        assert!(e.to_string().contains(&dir.path().display().to_string()));
        // A file instead of a folder.
        let file = dir.path().join("README");
        let e = Tablebases::open(std::slice::from_ref(&file), r).unwrap_err();
        assert!(matches!(e, TablebaseError::NotAFolder { .. }), "{e}");
        // A table whose size cannot be a table's.
        std::fs::write(dir.path().join("KQvK.rtbw"), b"short").unwrap();
        let e = Tablebases::open(&[dir.path().into()], r).unwrap_err();
        assert!(matches!(e, TablebaseError::Unreadable { .. }), "{e}");
        assert!(e.to_string().contains(&dir.path().display().to_string()));
    }

    #[test]
    fn a_damaged_table_is_a_warning_and_the_game_goes_on() {
        // Right size (64n+16) but wrong magic: found at the first probe.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("KQvK.rtbw"), vec![0u8; 64 * 4 + 16]).unwrap();
        let t = Tablebases::open(&[dir.path().into()], rule(7, false, TbAdjudicate::Both)).unwrap();
        assert_eq!(t.result(&pos("8/8/8/8/8/8/1Q6/K6k w - - 0 1")), None);
        assert_eq!(t.warned.lock().unwrap().len(), 1);
    }
}
