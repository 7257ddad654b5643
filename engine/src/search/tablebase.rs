//! Syzygy tablebases in the search (the UCI options `SyzygyPath` and
//! `SyzygyProbeLimit`), through `shakmaty-syzygy`.
//!
//! As in Stockfish: inside the tree a position with at most
//! [`Tablebases::cardinality`] pieces, no castling rights and a halfmove
//! clock of zero (right after a capture or pawn move, where the WDL tables
//! are exact under the 50-move rule) is probed, and its result bounds the
//! node (step 3b of the node list). At the root, the DTZ tables keep only
//! the moves that preserve the best result under the 50-move rule, which
//! also guarantees progress in a won ending: a move that wastes time
//! eventually turns the win into a cursed one and is filtered out.
//!
//! The positions are handed to `shakmaty` piece by piece (the same square
//! numbering as cozy-chess); a table missing for a material, or damaged,
//! makes that probe unknown and the search goes on without it.

use std::path::PathBuf;

use cozy_chess::{Board, Color, Move, Piece};
use shakmaty::{Bitboard, ByColor, ByRole, CastlingMode, Chess, FromSetup, Position, Setup};
use shakmaty_syzygy::{AmbiguousWdl, Tablebase, Wdl};
use thiserror::Error;

use super::types::{MATE_BOUND, MAX_PLY};

/// A tablebase win found `ply` plies from the root scores `TB_WIN - ply`:
/// below every mate, above every evaluation.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Lowest magnitude of a tablebase win or loss score.
pub const TB_BOUND: i32 = TB_WIN - MAX_PLY as i32;

/// Default of `SyzygyProbeLimit`: every table there is (Stockfish's 7).
pub const PROBE_LIMIT_DEFAULT: u32 = 7;

/// A `SyzygyPath` that cannot be used, naming the folder.
#[derive(Debug, Error, PartialEq, Eq)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum TablebaseError {
    #[error("{}: no such folder", path.display())]
    Missing { path: PathBuf },
    #[error("{}: not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error("{}: cannot read: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error("{}: no Syzygy tables (.rtbw/.rtbz files) in it", path.display())]
    Empty { path: PathBuf },
}

/// Registered tables (read lazily on first probe) and the probe limit.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    paths: Vec<PathBuf>,
    probe_limit: u32,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("paths", &self.paths)
            .field("max_pieces", &self.tables.max_pieces())
            .field("probe_limit", &self.probe_limit)
            .finish()
    }
}

impl Tablebases {
    /// The tables in each folder of `spec`, separated as the platform
    /// separates `PATH` (`:` on Unix, `;` on Windows), as Stockfish reads
    /// `SyzygyPath`. Every folder must exist and hold a table.
    pub fn open(spec: &str) -> Result<Tablebases, TablebaseError> {
        let mut tables = Tablebase::new();
        let paths: Vec<PathBuf> = std::env::split_paths(spec)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        for path in &paths {
            let unreadable = |e: std::io::Error| TablebaseError::Unreadable {
                path: path.clone(),
                reason: e.to_string(),
            };
            match std::fs::metadata(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(TablebaseError::Missing { path: path.clone() })
                }
                Err(e) => return Err(unreadable(e)),
                Ok(m) if !m.is_dir() => {
                    return Err(TablebaseError::NotAFolder { path: path.clone() })
                }
                Ok(_) => {}
            }
            if tables.add_directory(path).map_err(unreadable)? == 0 {
                return Err(TablebaseError::Empty { path: path.clone() });
            }
        }
        Ok(Tablebases {
            tables,
            paths,
            probe_limit: PROBE_LIMIT_DEFAULT,
        })
    }

    /// The folders the tables came from.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Pieces of the largest table.
    pub fn max_pieces(&self) -> u32 {
        self.tables.max_pieces() as u32
    }

    /// Set `SyzygyProbeLimit`: positions with more pieces are not probed.
    pub fn set_probe_limit(&mut self, limit: u32) {
        self.probe_limit = limit;
    }

    /// Most pieces of a probed position: the limit, cut to the tables.
    pub fn cardinality(&self) -> u32 {
        self.probe_limit.min(self.max_pieces())
    }

    /// The side to move's result of `board` right after a capture or pawn
    /// move, if it is in reach and its table is there.
    pub(super) fn probe_wdl(&self, board: &Board) -> Option<Wdl> {
        if !self.in_reach(board) || board.halfmove_clock() != 0 {
            return None;
        }
        self.tables
            .probe_wdl_after_zeroing(&to_shakmaty(board)?)
            .ok()
    }

    /// The root moves of `moves` that keep the root's best result under the
    /// 50-move rule, by DTZ; `None` when the root is out of reach or a
    /// child cannot be probed (then every move is searched).
    pub(super) fn filter_root(&self, board: &Board, moves: &[Move]) -> Option<Vec<Move>> {
        if !self.in_reach(board) {
            return None;
        }
        let mut ranked = Vec::with_capacity(moves.len());
        for &mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            ranked.push((mv, self.rank_for_mover(&child)?));
        }
        let best = ranked.iter().map(|&(_, r)| r).max()?;
        Some(
            ranked
                .into_iter()
                .filter(|&(_, r)| r == best)
                .map(|(mv, _)| mv)
                .collect(),
        )
    }

    /// How good `child` (after the root's move) is for the root's side:
    /// higher is better, from a certain loss (-4) to a certain win (4).
    fn rank_for_mover(&self, child: &Board) -> Option<i32> {
        let pos = to_shakmaty(child)?;
        if pos.is_checkmate() {
            return Some(4);
        }
        if pos.is_stalemate() {
            return Some(0);
        }
        let dtz = self.tables.probe_dtz(&pos).ok()?;
        // The child's result from its mover's view, then negated.
        let theirs = match AmbiguousWdl::from_dtz_and_halfmoves(dtz, pos.halfmoves()) {
            AmbiguousWdl::Loss => -4,
            AmbiguousWdl::MaybeLoss => -3,
            AmbiguousWdl::BlessedLoss => -2,
            AmbiguousWdl::Draw => 0,
            AmbiguousWdl::CursedWin => 2,
            AmbiguousWdl::MaybeWin => 3,
            AmbiguousWdl::Win => 4,
        };
        Some(-theirs)
    }

    fn in_reach(&self, board: &Board) -> bool {
        board.occupied().len() <= self.cardinality() && !has_castling_rights(board)
    }
}

/// The search score of a WDL probed `ply` plies from the root, and whether
/// it is exact (draws), a lower bound (wins) or an upper bound (losses).
/// Cursed wins and blessed losses are draws by the 50-move rule, scored a
/// hair from zero so that the search still prefers the better side of one.
pub(super) fn wdl_score(wdl: Wdl, ply: usize) -> i32 {
    match wdl {
        Wdl::Win => TB_WIN - ply as i32,
        Wdl::CursedWin => 1,
        Wdl::Draw => 0,
        Wdl::BlessedLoss => -1,
        Wdl::Loss => -TB_WIN + ply as i32,
    }
}

fn has_castling_rights(board: &Board) -> bool {
    [Color::White, Color::Black].into_iter().any(|c| {
        let r = board.castle_rights(c);
        r.short.is_some() || r.long.is_some()
    })
}

/// `board` as a shakmaty position (no castling rights: the tables hold
/// none); `None` if shakmaty refuses it, which a legal board never is.
fn to_shakmaty(board: &Board) -> Option<Chess> {
    let bb = |b: cozy_chess::BitBoard| Bitboard(b.0);
    let by_role = ByRole {
        pawn: bb(board.pieces(Piece::Pawn)),
        knight: bb(board.pieces(Piece::Knight)),
        bishop: bb(board.pieces(Piece::Bishop)),
        rook: bb(board.pieces(Piece::Rook)),
        queen: bb(board.pieces(Piece::Queen)),
        king: bb(board.pieces(Piece::King)),
    };
    let by_color = ByColor {
        white: bb(board.colors(Color::White)),
        black: bb(board.colors(Color::Black)),
    };
    let turn = match board.side_to_move() {
        Color::White => shakmaty::Color::White,
        Color::Black => shakmaty::Color::Black,
    };
    let ep_square = board.en_passant().map(|file| {
        let rank = if turn.is_white() {
            shakmaty::Rank::Sixth
        } else {
            shakmaty::Rank::Third
        };
        shakmaty::Square::from_coords(shakmaty::File::new(file as u32), rank)
    });
    let mut setup = Setup::empty();
    setup.board = shakmaty::Board::try_from_bitboards(by_role, by_color).ok()?;
    setup.turn = turn;
    setup.ep_square = ep_square;
    setup.halfmoves = u32::from(board.halfmove_clock());
    setup.fullmoves = std::num::NonZeroU32::new(u32::from(board.fullmove_number()).max(1))?;
    match Chess::from_setup(setup, CastlingMode::Standard) {
        Ok(pos) => Some(pos),
        // An en passant file cozy-chess keeps that shakmaty would not.
        Err(e) => e.ignore_invalid_ep_square().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables() -> Tablebases {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/syzygy");
        Tablebases::open(dir).expect("the repository's 3-piece tables")
    }

    #[test]
    fn bad_paths_are_named() {
        let e = Tablebases::open("/no/such/tables").unwrap_err();
        assert_eq!(e.to_string(), "/no/such/tables: no such folder");
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        assert!(matches!(
            Tablebases::open(file),
            Err(TablebaseError::NotAFolder { .. })
        ));
        let empty = tempfile::tempdir().unwrap();
        let e = Tablebases::open(empty.path().to_str().unwrap()).unwrap_err();
        assert!(e
            .to_string()
            .ends_with("no Syzygy tables (.rtbw/.rtbz files) in it"));
    }

    #[test]
    fn probes_agree_with_the_known_results() {
        let tb = tables();
        assert_eq!(tb.max_pieces(), 3);
        // KQ v K after the capture: a win for the side with the queen.
        let won: Board = "8/8/8/4k3/8/8/8/3QK3 w - - 0 1".parse().unwrap();
        assert_eq!(tb.probe_wdl(&won), Some(Wdl::Win));
        let lost: Board = "8/8/8/4k3/8/8/8/3QK3 b - - 0 1".parse().unwrap();
        assert_eq!(tb.probe_wdl(&lost), Some(Wdl::Loss));
        // KB v K is a draw; not probed once the clock runs.
        let drawn: Board = "8/8/8/4k3/8/8/8/3BK3 w - - 0 1".parse().unwrap();
        assert_eq!(tb.probe_wdl(&drawn), Some(Wdl::Draw));
        let later: Board = "8/8/8/4k3/8/8/8/3BK3 w - - 3 9".parse().unwrap();
        assert_eq!(tb.probe_wdl(&later), None);
        // Out of reach: four pieces, or a limit below the material.
        let four: Board = "8/8/8/4k3/8/8/3P4/3QK3 w - - 0 1".parse().unwrap();
        assert_eq!(tb.probe_wdl(&four), None);
        let mut limited = tables();
        limited.set_probe_limit(2);
        assert_eq!(limited.probe_wdl(&won), None);
    }

    #[test]
    fn the_root_keeps_only_moves_that_keep_the_win() {
        let tb = tables();
        // KP v K with the opposition: Kd6 and Kf6 win, Kd5 and Kf5 draw
        // (python-chess's chess.syzygy gives the same).
        let board: Board = "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1".parse().unwrap();
        let moves = crate::board::position::legal_moves(&board);
        let mut kept: Vec<String> = tb
            .filter_root(&board, &moves)
            .expect("in the tables")
            .iter()
            .map(|m| m.to_string())
            .collect();
        kept.sort();
        assert_eq!(kept, ["e6d6", "e6f6"]);
    }
}
