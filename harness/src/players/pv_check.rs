//! The referee's look at an engine's principal variations, as fastchess's
//! `checkPvLine` looks at them: every PV must be legal from the searched
//! position and may not go on after the game would have ended there (a
//! checkmate, a stalemate, a threefold repetition counted with the game's
//! own positions, or the 50-move rule); with the mate check on
//! (fastchess's `-check-mate-pvs`), a PV with an exact mate score must be
//! as long as the score says (mate in N for the mover: 2N-1 plies; mated
//! in N: 2N plies) and end in checkmate.
//!
//! One home for both users: the game loop ([`crate::play::game`]), which
//! counts the warnings of a match, and `karsinta check-engine`
//! ([`super::compliance`]), which reports them.

use std::fmt;

use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};

use super::player::{EngineScore, PvLine};

/// What is wrong with a PV; [`fmt::Display`] gives fastchess's words
/// (without its `Warning; ` and `from ENGINE`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // each variant's text is its doc
pub enum PvWarning {
    /// The move is not legal where the PV plays it.
    IllegalMove(String),
    /// The move comes after a threefold repetition.
    ContinuesAfterRepetition(String),
    /// The move comes after the 50-move rule drew the game.
    ContinuesAfterFiftyMoves(String),
    /// The move comes after a checkmate.
    ContinuesAfterCheckmate(String),
    /// The move comes after a stalemate.
    ContinuesAfterStalemate(String),
    /// A mate score with a shorter PV than the mate takes.
    IncompleteMatingPv,
    /// A mate score with a longer PV than the mate takes.
    TooLongMatingPv,
    /// A mate score whose PV does not end in checkmate.
    MatingPvDoesNotEndWithCheckmate,
}

impl PvWarning {
    /// Whether the warning is about the mate score (fastchess's
    /// `-check-mate-pvs` checks) rather than the PV's legality.
    pub fn is_mate_check(&self) -> bool {
        matches!(
            self,
            PvWarning::IncompleteMatingPv
                | PvWarning::TooLongMatingPv
                | PvWarning::MatingPvDoesNotEndWithCheckmate
        )
    }
}

impl fmt::Display for PvWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PvWarning::IllegalMove(m) => write!(f, "Illegal PV move - move {m}"),
            PvWarning::ContinuesAfterRepetition(m) => {
                write!(f, "PV continues after threefold repetition - move {m}")
            }
            PvWarning::ContinuesAfterFiftyMoves(m) => {
                write!(f, "PV continues after fifty-move rule - move {m}")
            }
            PvWarning::ContinuesAfterCheckmate(m) => {
                write!(f, "PV continues after checkmate - move {m}")
            }
            PvWarning::ContinuesAfterStalemate(m) => {
                write!(f, "PV continues after stalemate - move {m}")
            }
            PvWarning::IncompleteMatingPv => f.write_str("Incomplete mating PV"),
            PvWarning::TooLongMatingPv => f.write_str("Too long mating PV"),
            PvWarning::MatingPvDoesNotEndWithCheckmate => {
                f.write_str("Mating PV does not end with checkmate")
            }
        }
    }
}

/// The repetition key of `pos`.
pub fn position_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The first thing wrong with `line`'s PV from `root`, or `None`.
/// `history` holds the keys ([`position_key`]) of the game's positions
/// since its last capture or pawn move, `root`'s last (a position seen
/// twice there is a repetition the PV may not go past once more).
/// `mate_pvs`: also check a mate score's PV length and final checkmate.
pub fn check_pv(root: &Chess, history: &[u64], line: &PvLine, mate_pvs: bool) -> Option<PvWarning> {
    let mut pos = root.clone();
    let mut keys: Vec<u64> = history.to_vec();
    if keys.last() != Some(&position_key(root)) {
        keys.push(position_key(root));
    }
    for text in &line.pv {
        if let Some(w) = game_over_before(&pos, &keys, text) {
            return Some(w);
        }
        let mv = UciMove::from_ascii(text.as_bytes())
            .ok()
            .and_then(|m| m.to_move(&pos).ok());
        let Some(mv) = mv else {
            return Some(PvWarning::IllegalMove(text.clone()));
        };
        if pos.is_irreversible(mv) {
            keys.clear();
        }
        pos.play_unchecked(mv);
        keys.push(position_key(&pos));
    }
    if !mate_pvs || line.bound {
        return None;
    }
    let Some(EngineScore::Mate(n)) = line.score else {
        return None;
    };
    let n = i64::from(n);
    let plies = if n > 0 { 2 * n - 1 } else { -2 * n };
    let len = line.pv.len() as i64;
    if len < plies {
        return Some(PvWarning::IncompleteMatingPv);
    }
    if len > plies {
        return Some(PvWarning::TooLongMatingPv);
    }
    (!pos.is_checkmate()).then_some(PvWarning::MatingPvDoesNotEndWithCheckmate)
}

/// Why the PV's next move `text` comes too late: the game ended in `pos`
/// (fastchess's order: the 50-move rule, unless mate; a repetition; no
/// legal move). Insufficient material does not end a PV, as in fastchess.
fn game_over_before(pos: &Chess, keys: &[u64], text: &str) -> Option<PvWarning> {
    let m = text.to_string();
    if pos.halfmoves() >= 100 {
        return Some(if pos.is_checkmate() {
            PvWarning::ContinuesAfterCheckmate(m)
        } else {
            PvWarning::ContinuesAfterFiftyMoves(m)
        });
    }
    let current = keys.last().copied().unwrap_or_default();
    if keys.iter().filter(|&&k| k == current).count() >= 3 {
        return Some(PvWarning::ContinuesAfterRepetition(m));
    }
    if pos.is_checkmate() {
        return Some(PvWarning::ContinuesAfterCheckmate(m));
    }
    if pos.is_stalemate() {
        return Some(PvWarning::ContinuesAfterStalemate(m));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn check(fen: &str, info: &str, mate_pvs: bool) -> Option<String> {
        let root = pos(fen);
        let line = PvLine::parse(info).expect("a pv");
        check_pv(&root, &[position_key(&root)], &line, mate_pvs).map(|w| w.to_string())
    }

    /// White mates in two with the rooks: Ra7, then Rb8#.
    const LADDER: &str = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1";

    #[test]
    fn mate_pvs_follow_fastchess_rule() {
        // Mate in 2 by the mover: 3 plies ending in mate.
        let ok = "info depth 5 score mate 2 pv a2a7 h8g8 b1b8";
        assert_eq!(check(LADDER, ok, true), None);
        let short = "info depth 5 score mate 2 pv a2a7 h8g8";
        assert_eq!(
            check(LADDER, short, true).as_deref(),
            Some("Incomplete mating PV")
        );
        // Off, only legality counts.
        assert_eq!(check(LADDER, short, false), None);
        let long = "info depth 5 score mate 1 pv a2a7 h8g8 b1b8";
        assert_eq!(
            check(LADDER, long, true).as_deref(),
            Some("Too long mating PV")
        );
        let no_mate = "info depth 5 score mate 2 pv a2a7 h8g8 b1b7";
        assert_eq!(
            check(LADDER, no_mate, true).as_deref(),
            Some("Mating PV does not end with checkmate")
        );
        // Bounds are not checked; mated in 1 for the mover: 2 plies.
        let bound = "info depth 5 score mate 2 lowerbound pv a2a7";
        assert_eq!(check(LADDER, bound, true), None);
        let mated = "info depth 3 score mate -1 pv h8g8 b1b8";
        assert_eq!(check("7k/R7/8/8/8/8/8/1R4K1 b - - 0 1", mated, true), None);
    }

    #[test]
    fn pvs_must_be_legal_and_stop_at_the_end_of_the_game() {
        let illegal = "info depth 2 score cp 10 pv e2e4 e2e4";
        assert_eq!(
            check(Fen::default().to_string().as_str(), illegal, false).as_deref(),
            Some("Illegal PV move - move e2e4")
        );
        let after_mate = "info depth 3 score mate 1 pv a2a8 h8h7";
        assert_eq!(
            check("7k/6pp/8/8/8/8/R7/6K1 w - - 0 1", after_mate, false).as_deref(),
            Some("PV continues after checkmate - move h8h7")
        );
        // Two quiet plies from 98 reach the 50-move draw.
        let fifty = "info depth 3 score cp 0 pv e1e2 d6d5 e2e1";
        assert_eq!(
            check("8/8/3k4/8/8/3K4/8/4R3 w - - 98 120", fifty, false).as_deref(),
            Some("PV continues after fifty-move rule - move e2e1")
        );
        // The game's positions count: seen twice before, the root's third
        // occurrence comes back after four plies.
        let root = pos("8/8/3k4/8/8/3K4/8/4R3 w - - 10 40");
        let line = PvLine::parse("score cp 0 pv e1e2 d6d7 e2e1 d7d6 d3d2").unwrap();
        let key = position_key(&root);
        let w = check_pv(&root, &[key, 1, 2, 3, key], &line, false);
        assert_eq!(
            w.map(|w| w.to_string()).as_deref(),
            Some("PV continues after threefold repetition - move d3d2")
        );
        assert_eq!(check_pv(&root, &[key], &line, false), None);
    }

    #[test]
    fn lines_without_a_pv_are_not_pv_lines() {
        assert_eq!(PvLine::parse("info depth 3 currmove e2e4"), None);
        assert_eq!(PvLine::parse("info string pv e2e4"), None);
        let l = PvLine::parse("info depth 9 score cp -3 upperbound nodes 9 pv d2d4").unwrap();
        assert_eq!(
            (l.score, l.bound, l.pv),
            (Some(EngineScore::Cp(-3)), true, vec!["d2d4".to_string()])
        );
    }
}
