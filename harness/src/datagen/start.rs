//! Start positions, as OpenBench's `genfens` makes them: a book line (or
//! the start position), then a number of uniformly random legal plies, then
//! a playability check (the game is not over and a short search scores it
//! within a bound). A position that fails is drawn again from the same
//! seeded stream, so game `i` always starts from the same position.

use karsinta_engine::{Position, Score};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::config::{DatagenConfig, SearchLimit};
use super::mover::{Mover, Reached};
use crate::openings::Opening;
use karsinta_engine::board::position::GameState;

/// Draws before a start is given up (the game is then skipped).
pub const MAX_ATTEMPTS: u32 = 1000;

/// The book line `o` played out.
pub fn opening_position(o: &Opening) -> Result<Position, String> {
    let mut pos = match &o.fen {
        Some(fen) => Position::from_fen(fen).map_err(|e| format!("{fen}: {e}"))?,
        None => Position::startpos(),
    };
    for mv in &o.moves {
        pos.play_uci(mv).map_err(|e| format!("{mv}: {e}"))?;
    }
    Ok(pos)
}

/// One candidate: a book line and `plies` random moves; `None` when the
/// game ends on the way. The game starts at the FEN reached, without the
/// moves before it: that is all a UCI engine is sent and all the records
/// (viriformat's start position) hold, so the in-process engine must not
/// see repetitions of the random plies either.
fn candidate(base: &Position, plies: u32, rng: &mut ChaCha8Rng) -> Option<Position> {
    let mut pos = base.clone();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
    }
    if pos.state() != GameState::Ongoing {
        return None;
    }
    Position::from_fen(&pos.to_fen()).ok()
}

/// Whether a short search scores `pos` within the bound; an engine that
/// fails the search fails the game.
fn playable(cfg: &DatagenConfig, pos: &Position, mover: &mut dyn Mover) -> Result<bool, String> {
    if cfg.check_nodes == 0 {
        return Ok(true);
    }
    mover.new_game()?;
    let limit = SearchLimit {
        soft_nodes: None,
        nodes: Some(cfg.check_nodes),
        depth: None,
    };
    let fen = pos.to_fen();
    let at = Reached {
        start_fen: &fen,
        moves: &[],
        pos,
    };
    let answer = mover.search(&at, &limit)?;
    Ok(matches!(answer.score, Score::Cp(cp) if cp.abs() <= cfg.max_score_cp))
}

/// The start of a game and the draws it took; `None` after [`MAX_ATTEMPTS`].
/// An engine failure in the playability search is an error.
pub fn start_position(
    cfg: &DatagenConfig,
    book: &[Position],
    rng: &mut ChaCha8Rng,
    mover: &mut dyn Mover,
) -> Result<(Option<Position>, u32), String> {
    let startpos = Position::startpos();
    for attempt in 1..=MAX_ATTEMPTS {
        let base = if book.is_empty() {
            &startpos
        } else {
            &book[rng.gen_range(0..book.len())]
        };
        if let Some(pos) = candidate(base, cfg.random_plies, rng) {
            if playable(cfg, &pos, mover)? {
                return Ok((Some(pos), attempt));
            }
        }
    }
    Ok((None, MAX_ATTEMPTS))
}
