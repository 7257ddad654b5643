//! Start positions, as OpenBench's `genfens` makes them: a book line (or
//! the start position), then a number of uniformly random legal plies, then
//! a playability check (the game is not over and a short search scores it
//! within a bound). A position that fails is drawn again from the same
//! seeded stream, so game `i` always starts from the same position.

use std::sync::atomic::AtomicBool;

use karsinta_engine::{Limits, Position, Score, Searcher};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::config::DatagenConfig;
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
/// game ends on the way.
fn candidate(base: &Position, plies: u32, rng: &mut ChaCha8Rng) -> Option<Position> {
    let mut pos = base.clone();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
    }
    (pos.state() == GameState::Ongoing).then_some(pos)
}

/// Whether a short search scores `pos` within the bound.
fn playable(cfg: &DatagenConfig, pos: &Position, searcher: &mut Searcher) -> bool {
    if cfg.check_nodes == 0 {
        return true;
    }
    searcher.new_game();
    let limits = Limits {
        nodes: Some(cfg.check_nodes),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let r = searcher.search(pos, &limits, &stop, &mut |_| {});
    matches!(r.score, Score::Cp(cp) if cp.abs() <= cfg.max_score_cp)
}

/// The start of a game and the draws it took; `None` after [`MAX_ATTEMPTS`].
pub fn start_position(
    cfg: &DatagenConfig,
    book: &[Position],
    rng: &mut ChaCha8Rng,
    searcher: &mut Searcher,
) -> (Option<Position>, u32) {
    let startpos = Position::startpos();
    for attempt in 1..=MAX_ATTEMPTS {
        let base = if book.is_empty() {
            &startpos
        } else {
            &book[rng.gen_range(0..book.len())]
        };
        if let Some(pos) = candidate(base, cfg.random_plies, rng) {
            if playable(cfg, &pos, searcher) {
                return (Some(pos), attempt);
            }
        }
    }
    (None, MAX_ATTEMPTS)
}
