//! One self-play game of an engine against itself ([`super::mover`]): every
//! move searched at the configured limit, checked and played, the rules
//! judged on the position, and the game adjudicated as a
//! win or draw once the scores agree long enough. The game is kept with
//! shakmaty moves and White-relative scores ([`DataGame`]), and per ply
//! what the filters need ([`PlyInfo`]).

use karsinta_engine::board::position::GameState;
use karsinta_engine::{Position, Score};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, KnownOutcome};

use super::config::{Adjudicate, DatagenConfig};
use super::mover::{Mover, Reached};
use crate::formats::records::{DataGame, DataPly, Wdl, MATE_SCORE};

/// What the filters know of a ply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlyInfo {
    /// The side to move is in check.
    pub in_check: bool,
    /// The best move captures or promotes.
    pub tactical: bool,
    /// The score is a mate score.
    pub mate: bool,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct Played {
    /// The game as recorded: start position, moves with scores, result.
    pub game: DataGame,
    /// One entry per ply of `game`, for the filters.
    pub info: Vec<PlyInfo>,
    /// How it ended (`checkmate`, `threefold`, `adjudicated win`, ...).
    pub ending: &'static str,
}

/// The ending of a game the tablebases adjudicated.
pub const TABLEBASE_ENDING: &str = "tablebase";

/// The search score as stored: centipawns, mates saturated, side to move's view.
fn stored_score(score: Score) -> i16 {
    match score {
        Score::Cp(cp) => cp.clamp(-i32::from(MATE_SCORE) + 1, i32::from(MATE_SCORE) - 1) as i16,
        Score::Mate(n) if n > 0 => MATE_SCORE,
        Score::Mate(_) => -MATE_SCORE,
    }
}

/// Win and draw adjudication over the White-relative scores so far.
fn adjudicated(a: &Adjudicate, scores: &[i16]) -> Option<(Wdl, &'static str)> {
    let n = scores.len();
    let w = a.win_plies as usize;
    if w > 0 && n >= w {
        let last = &scores[n - w..];
        if last.iter().all(|&s| i32::from(s) >= a.win_cp) {
            return Some((Wdl::WhiteWins, "adjudicated win"));
        }
        if last.iter().all(|&s| i32::from(s) <= -a.win_cp) {
            return Some((Wdl::BlackWins, "adjudicated win"));
        }
    }
    let d = a.draw_plies as usize;
    if d > 0
        && n >= d.max(a.draw_after as usize)
        && scores[n - d..]
            .iter()
            .all(|&s| i32::from(s).abs() <= a.draw_cp)
    {
        return Some((Wdl::Draw, "adjudicated draw"));
    }
    None
}

/// The game's end by the rules, if it is over.
fn rules_end(pos: &Position) -> Option<(Wdl, &'static str)> {
    let to_move = match pos.side_to_move() {
        cozy_chess::Color::White => Color::White,
        cozy_chess::Color::Black => Color::Black,
    };
    match pos.state() {
        GameState::Ongoing => None,
        GameState::Checkmate => Some((Wdl::win(to_move.other()), "checkmate")),
        GameState::Stalemate => Some((Wdl::Draw, "stalemate")),
        GameState::FiftyMoves => Some((Wdl::Draw, "fifty moves")),
        GameState::Threefold => Some((Wdl::Draw, "threefold")),
        GameState::InsufficientMaterial => Some((Wdl::Draw, "insufficient material")),
    }
}

/// Play one game from `start`, every move searched by `mover` and checked
/// against the rules before it is played.
pub fn play_game(
    cfg: &DatagenConfig,
    start: Position,
    mover: &mut dyn Mover,
) -> Result<Played, String> {
    mover.new_game()?;
    let fen = start.to_fen();
    let start_chess: Chess = fen
        .parse::<shakmaty::fen::Fen>()
        .map_err(|e| format!("{fen}: {e}"))?
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("{fen}: {e}"))?;
    let mut pos = start;
    let mut board = start_chess.clone();
    let mut uci: Vec<String> = Vec::new();
    let mut plies = Vec::new();
    let mut info = Vec::new();
    let mut scores: Vec<i16> = Vec::new();
    let (result, ending) = loop {
        if let Some(end) = rules_end(&pos) {
            break end;
        }
        if plies.len() >= cfg.adjudicate.max_plies as usize {
            break (Wdl::Draw, "maximum length");
        }
        let at = Reached {
            start_fen: &fen,
            moves: &uci,
            pos: &pos,
        };
        let answer = mover.search(&at, &cfg.limit)?;
        let white = shakmaty::Position::turn(&board) == Color::White;
        let stm = stored_score(answer.score);
        let score_white = if white { stm } else { -stm };
        let mv = UciMove::from_ascii(answer.best.as_bytes())
            .ok()
            .and_then(|u| u.to_move(&board).ok())
            .ok_or_else(|| {
                format!(
                    "the engine's move {} is not legal in {}",
                    answer.best,
                    pos.to_fen()
                )
            })?;
        info.push(PlyInfo {
            in_check: shakmaty::Position::is_check(&board),
            tactical: mv.is_capture() || mv.is_promotion(),
            mate: matches!(answer.score, Score::Mate(_)),
        });
        plies.push(DataPly { mv, score_white });
        scores.push(score_white);
        // One spelling of the move for both boards and the engine.
        let played = mv.to_uci(CastlingMode::Standard).to_string();
        shakmaty::Position::play_unchecked(&mut board, mv);
        pos.play_uci(&played)
            .map_err(|e| format!("{played}: {e}"))?;
        uci.push(played);
        if let Some(end) = adjudicated(&cfg.adjudicate, &scores) {
            break end;
        }
        if let Some(known) = cfg.tablebases.as_ref().and_then(|t| t.adjudicate(&board)) {
            let result = match known {
                KnownOutcome::Decisive { winner } => Wdl::win(winner),
                KnownOutcome::Draw => Wdl::Draw,
            };
            break (result, TABLEBASE_ENDING);
        }
    };
    Ok(Played {
        game: DataGame {
            start: start_chess,
            plies,
            result,
        },
        info,
        ending,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjudication_needs_agreement_for_the_whole_window() {
        let a = Adjudicate {
            win_cp: 500,
            win_plies: 3,
            draw_cp: 10,
            draw_plies: 2,
            draw_after: 6,
            max_plies: 100,
        };
        assert_eq!(adjudicated(&a, &[600, 600]), None);
        assert_eq!(adjudicated(&a, &[600, 400, 600, 600]), None);
        assert_eq!(
            adjudicated(&a, &[400, 600, 600, 600]).map(|x| x.0),
            Some(Wdl::WhiteWins)
        );
        assert_eq!(
            adjudicated(&a, &[-600, -600, -700]).map(|x| x.0),
            Some(Wdl::BlackWins)
        );
        // Quiet scores count as a draw only after `draw_after` plies.
        assert_eq!(adjudicated(&a, &[0, 0, 0]), None);
        assert_eq!(
            adjudicated(&a, &[50, 50, 50, 50, 0, 5]).map(|x| x.0),
            Some(Wdl::Draw)
        );
        assert_eq!(stored_score(Score::Mate(-3)), -MATE_SCORE);
        assert_eq!(stored_score(Score::Cp(40_000)), MATE_SCORE - 1);
    }
}
