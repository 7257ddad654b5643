//! Which positions of a game are written, and the counts per filter that
//! the run's report shows. Filters apply in a fixed order (ply range, in
//! check, tactical best move, mate score, duplicate) and a dropped position
//! is counted once, under the first filter that drops it, so the counts add
//! up to the positions seen.

use serde::{Deserialize, Serialize};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{EnPassantMode, Position};

use super::config::Filter;
use super::selfplay::{Played, TABLEBASE_ENDING};
use crate::formats::records::{Record, Wdl};

/// Counts of a run (or one game), added up game by game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Games played.
    pub games: u64,
    /// Games given up because no playable start was found.
    pub starts_failed: u64,
    /// Games lost to an engine failure (a panic in the search).
    pub failed: u64,
    /// Games White won.
    pub white_wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games Black won.
    pub black_wins: u64,
    /// Positions searched (plies played).
    pub positions: u64,
    /// Positions written to the data file.
    pub written: u64,
    /// Positions dropped outside `filter.min_ply`..`filter.max_ply`.
    pub ply_range: u64,
    /// Positions dropped as in check.
    pub in_check: u64,
    /// Positions dropped for a capture or promotion as the best move.
    pub tactical: u64,
    /// Positions dropped for a mate score.
    pub mate: u64,
    /// Positions dropped as already written in this run.
    pub duplicates: u64,
    /// Games ended by the tablebases (absent in ledgers written before them).
    #[serde(default)]
    pub tablebase_games: u64,
}

impl Counts {
    /// Add `o`'s counts to these.
    pub fn add(&mut self, o: &Counts) {
        self.games += o.games;
        self.starts_failed += o.starts_failed;
        self.failed += o.failed;
        self.white_wins += o.white_wins;
        self.draws += o.draws;
        self.black_wins += o.black_wins;
        self.positions += o.positions;
        self.written += o.written;
        self.ply_range += o.ply_range;
        self.in_check += o.in_check;
        self.tactical += o.tactical;
        self.mate += o.mate;
        self.duplicates += o.duplicates;
        self.tablebase_games += o.tablebase_games;
    }
}

/// The dedup key of a record's position (counters left out).
pub fn key(r: &Record) -> u64 {
    let z: Zobrist64 = r.pos.zobrist_hash(EnPassantMode::Legal);
    z.0
}

/// The counts every game has: one game, its result, its positions, and
/// whether the tables ended it.
fn game_counts(played: &Played) -> Counts {
    let mut c = Counts {
        games: 1,
        positions: played.info.len() as u64,
        tablebase_games: u64::from(played.ending == TABLEBASE_ENDING),
        ..Counts::default()
    };
    match played.game.result {
        Wdl::WhiteWins => c.white_wins = 1,
        Wdl::Draw => c.draws = 1,
        Wdl::BlackWins => c.black_wins = 1,
    }
    c
}

/// The records of `played` that pass the filters of one game (ply range,
/// in check, tactical best move, mate score), and the game's counts with
/// them counted as written. The run-wide duplicate filter comes after, in
/// game order ([`super::run::admit`]), so a game's candidates depend on
/// the game alone and any machine computes the same ones.
pub fn candidates(played: &Played, filter: &Filter) -> (Vec<Record>, Counts) {
    let mut c = game_counts(played);
    let mut out = Vec::new();
    for (ply, (rec, info)) in played
        .game
        .records()
        .into_iter()
        .zip(&played.info)
        .enumerate()
    {
        let ply = ply as u32;
        if ply < filter.min_ply || filter.max_ply.is_some_and(|m| ply >= m) {
            c.ply_range += 1;
        } else if filter.in_check && info.in_check {
            c.in_check += 1;
        } else if filter.tactical && info.tactical {
            c.tactical += 1;
        } else if filter.mate && info.mate {
            c.mate += 1;
        } else {
            c.written += 1;
            out.push(rec);
        }
    }
    (out, c)
}

/// The counts of a game written whole (viriformat): nothing is dropped.
pub fn whole_game(played: &Played) -> Counts {
    let mut c = game_counts(played);
    c.written = c.positions;
    c
}
