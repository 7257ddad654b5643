//! Generating balanced opening suites: `karsinta openings generate`.
//!
//! Method, in three stages:
//! 1. Candidates: positions `plies` plies after each root (the start position,
//!    every opening of a given suite, or the Chess960 start positions: the
//!    960 arrays, or in double Chess960 each side's array drawn on its own,
//!    960 x 960 of them, see [`StartSet`]). When the tree is small enough
//!    (at most [`GenerateConfig::max_leaves`] leaves) and its roots are not
//!    the 921,600 double Chess960 ones, it is enumerated in full
//!    and every distinct position is a candidate; otherwise (8 plies from the
//!    start already has ~85M leaves) candidates come from random playouts:
//!    a uniformly chosen root, then uniformly chosen legal moves. Positions
//!    where the game is over are dropped; duplicates (same FEN without move
//!    counters, en-passant square only when capturable) are dropped.
//! 2. Sampling: candidates are visited in an order fixed by the seed (a
//!    shuffle of the enumeration, or the playouts' own order).
//! 3. Scoring: each candidate gets a short search from a fresh
//!    `karsinta-engine` [`Searcher`] (fixed nodes or depth, so scores are
//!    reproducible); those with a centipawn score within `+-max_cp` from
//!    White's view are kept, until `count` are found. Candidates are scored in
//!    fixed-size batches in parallel with rayon; batch boundaries do not depend
//!    on the thread count, so the output depends only on the configuration.

use std::collections::HashSet;
use std::io::{self, Write};
use std::sync::atomic::AtomicBool;

use karsinta_engine::{Limits, Params, Position as EnginePosition, Score, Searcher};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use shakmaty::{CastlingMode, Chess, Position};
use thiserror::Error;

use crate::formats::fen::position_fen;
use crate::openings::Opening;
use crate::variant::{chess960_start, Variant};

/// Where lines start when no roots are given, and so the variant they are
/// played and scored in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StartSet {
    /// Standard chess: the start position (or the roots).
    #[default]
    Standard,
    /// Chess960: the 960 start positions, both sides alike (or the roots,
    /// read as Chess960).
    Chess960,
    /// Double Chess960: White's and Black's arrays drawn independently
    /// (921,600 start positions), played as Chess960.
    Dfrc,
}

impl StartSet {
    /// The variant the lines are played in.
    pub fn variant(self) -> Variant {
        match self {
            StartSet::Standard => Variant::Standard,
            StartSet::Chess960 | StartSet::Dfrc => Variant::Chess960,
        }
    }
}

impl std::str::FromStr for StartSet {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "standard" => Ok(StartSet::Standard),
            "chess960" | "fischerandom" | "frc" => Ok(StartSet::Chess960),
            "dfrc" => Ok(StartSet::Dfrc),
            _ => Err(format!(
                "unknown variant '{s}' (expected standard, chess960 or dfrc)"
            )),
        }
    }
}

/// How candidates are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CandidateMethod {
    /// Full enumeration if it fits in `max_leaves`, random playouts otherwise.
    #[default]
    Auto,
    /// Full enumeration; an error if the tree exceeds `max_leaves`.
    Exhaustive,
    /// Random playouts.
    Playout,
}

/// Everything `generate` needs.
#[derive(Clone, Debug)]
pub struct GenerateConfig {
    /// Plies to play from each root.
    pub plies: usize,
    /// Keep positions whose score is within `+-max_cp` (White's view).
    pub max_cp: i32,
    /// How many positions to produce.
    pub count: usize,
    /// Seed of the candidate order and the random playouts.
    pub seed: u64,
    /// Search limit per position (fixed nodes and/or depth).
    pub nodes: Option<u64>,
    /// Search depth per position (with or instead of `nodes`).
    pub depth: Option<i32>,
    /// Parameters of the scoring engine.
    pub params: Params,
    /// Transposition table per scoring thread.
    pub hash_mb: usize,
    /// Roots; empty = the start positions of `starts`.
    pub roots: Vec<Opening>,
    /// The variant, and the start positions when `roots` is empty.
    pub starts: StartSet,
    /// How candidates are found (full enumeration or random playouts).
    pub method: CandidateMethod,
    /// Largest tree (in leaves) that is enumerated in full.
    pub max_leaves: u64,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        GenerateConfig {
            plies: 8,
            max_cp: 50,
            count: 2000,
            seed: 1,
            nodes: Some(20_000),
            depth: None,
            params: Params::default(),
            hash_mb: 2,
            roots: Vec::new(),
            starts: StartSet::Standard,
            method: CandidateMethod::Auto,
            max_leaves: 2_000_000,
        }
    }
}

/// One generated opening.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedPosition {
    /// 6-field FEN (X-FEN castling rights in Chess960).
    pub fen: String,
    /// Search score from White's view.
    pub score_cp: i32,
    /// Index of the root it was reached from (into `roots`; 0 for the start).
    pub root: usize,
    /// The moves from the root, UCI (king-takes-rook castling in Chess960).
    pub moves: Vec<String>,
}

/// Counters for progress display and the final summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenerateProgress {
    /// Distinct candidate positions produced so far.
    pub candidates: usize,
    /// Candidates scored by the engine so far.
    pub scored: usize,
    /// Scored positions within `+-max_cp`, kept or not: the last batch can
    /// hold more than the positions still wanted.
    pub within: usize,
    /// Positions kept so far (at most `count`).
    pub accepted: usize,
}

/// The result of [`generate`].
#[derive(Clone, Debug)]
pub struct GenerateReport {
    /// At most `count` positions, in the (seeded random) order they were found.
    pub positions: Vec<GeneratedPosition>,
    /// The counters when generation ended.
    pub progress: GenerateProgress,
    /// Whether candidates came from the full enumeration.
    pub exhaustive: bool,
    /// Leaves of the full tree, when it was enumerated.
    pub leaves: Option<u64>,
}

/// Why [`generate`] cannot produce its positions.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum GenerateError {
    #[error("no search limit: give nodes or depth")]
    NoLimit,
    #[error("the tree at {plies} plies has more than {max_leaves} leaves; use random playouts")]
    TreeTooLarge { plies: usize, max_leaves: u64 },
    #[error("root opening {id}: {reason}")]
    BadRoot { id: usize, reason: String },
    #[error("double Chess960 draws its own start positions; it takes no root openings")]
    DfrcWithRoots,
    #[error("engine rejected position {fen}: {reason}")]
    Engine { fen: String, reason: String },
}

/// A candidate position with where it came from.
struct Candidate {
    pos: Chess,
    root: usize,
    moves: Vec<String>,
}

/// Yields the next distinct candidate in the seeded order, `None` when done.
type CandidateSource = Box<dyn FnMut(&mut ChaCha8Rng) -> Option<Candidate>>;

/// Scoring batch size: fixed so results do not depend on the thread count.
const BATCH: usize = 256;
/// Playouts give up after this many in a row that found nothing new.
const MAX_FRUITLESS_PLAYOUTS: usize = 20_000;

/// Generate a suite (see the module documentation for the method).
/// `progress` is called after every scored batch.
pub fn generate(
    config: &GenerateConfig,
    progress: &(dyn Fn(&GenerateProgress) + Sync),
) -> Result<GenerateReport, GenerateError> {
    if config.nodes.is_none() && config.depth.is_none() {
        return Err(GenerateError::NoLimit);
    }
    let roots = Roots::new(config)?;
    let mode = config.starts.variant().castling_mode();
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);

    // Stage 1: candidates, enumerated in full when small enough.
    let enumerated = match config.method {
        CandidateMethod::Playout => None,
        // 921,600 roots: listing them all costs seconds and hundreds of MB
        // for a sample of `count`; playouts draw the roots instead.
        CandidateMethod::Auto if matches!(roots, Roots::Dfrc) => None,
        CandidateMethod::Auto | CandidateMethod::Exhaustive => {
            enumerate(&roots, config.plies, config.max_leaves, mode)
        }
    };
    if enumerated.is_none() && config.method == CandidateMethod::Exhaustive {
        return Err(GenerateError::TreeTooLarge {
            plies: config.plies,
            max_leaves: config.max_leaves,
        });
    }
    let exhaustive = enumerated.is_some();
    let leaves = enumerated.as_ref().map(|(_, leaves)| *leaves);
    let mut source: CandidateSource = match enumerated {
        Some((mut all, _)) => {
            // Stage 2: the seeded order is a shuffle of the enumeration.
            all.shuffle(&mut rng);
            let mut all = all.into_iter();
            Box::new(move |_| all.next())
        }
        None => {
            let mut seen = HashSet::new();
            let plies = config.plies;
            Box::new(move |rng| playout_candidate(&roots, plies, mode, &mut seen, rng))
        }
    };

    // Stage 3: score in batches until enough are accepted.
    let limits = Limits {
        nodes: config.nodes,
        depth: config.depth,
        ..Limits::default()
    };
    let mut counters = GenerateProgress::default();
    let mut positions = Vec::new();
    while positions.len() < config.count {
        let batch: Vec<Candidate> = std::iter::from_fn(|| source(&mut rng))
            .take(BATCH)
            .collect();
        if batch.is_empty() {
            break;
        }
        counters.candidates += batch.len();
        let scores = score_batch(&batch, config, &limits)?;
        counters.scored += batch.len();
        for (candidate, score) in batch.into_iter().zip(scores) {
            let Some(score_cp) = score else { continue };
            if score_cp.abs() > config.max_cp {
                continue;
            }
            counters.within += 1;
            if positions.len() >= config.count {
                continue;
            }
            positions.push(GeneratedPosition {
                fen: position_fen(&candidate.pos),
                score_cp,
                root: candidate.root,
                moves: candidate.moves,
            });
        }
        counters.accepted = positions.len();
        progress(&counters);
    }
    Ok(GenerateReport {
        positions,
        progress: counters,
        exhaustive,
        leaves,
    })
}

/// Write positions as EPD: one 6-field FEN per line, nothing else, the form
/// other match runners read too.
pub fn write_epd(positions: &[GeneratedPosition], out: &mut dyn Write) -> io::Result<()> {
    for p in positions {
        writeln!(out, "{}", p.fen)?;
    }
    Ok(())
}

/// The positions lines start from, by index: listed (the standard start or
/// the roots' end positions), or the Chess960 arrays built on demand (there
/// are 921,600 double Chess960 ones).
enum Roots {
    Listed(Vec<Chess>),
    /// Start position `i` is array `i` for both sides.
    Chess960,
    /// Start position `i` is White's array `i / 960` and Black's `i % 960`.
    Dfrc,
}

impl Roots {
    fn new(config: &GenerateConfig) -> Result<Roots, GenerateError> {
        let variant = config.starts.variant();
        if !config.roots.is_empty() {
            if config.starts == StartSet::Dfrc {
                return Err(GenerateError::DfrcWithRoots);
            }
            let listed = config.roots.iter().map(|o| {
                o.end_position_in(variant)
                    .map_err(|e| GenerateError::BadRoot {
                        id: o.id,
                        reason: e.to_string(),
                    })
            });
            return listed.collect::<Result<_, _>>().map(Roots::Listed);
        }
        Ok(match config.starts {
            StartSet::Standard => Roots::Listed(vec![Chess::default()]),
            StartSet::Chess960 => Roots::Chess960,
            StartSet::Dfrc => Roots::Dfrc,
        })
    }

    fn len(&self) -> usize {
        match self {
            Roots::Listed(list) => list.len(),
            Roots::Chess960 => 960,
            Roots::Dfrc => 960 * 960,
        }
    }

    fn get(&self, i: usize) -> Chess {
        match self {
            Roots::Listed(list) => list[i].clone(),
            Roots::Chess960 => chess960_start(i as u16, i as u16),
            Roots::Dfrc => chess960_start((i / 960) as u16, (i % 960) as u16),
        }
    }
}

/// De-duplication key: the FEN without move counters.
fn dedup_key(pos: &Chess) -> String {
    let fen = position_fen(pos);
    let mut fields = fen.split(' ');
    let key: Vec<&str> = fields.by_ref().take(4).collect();
    key.join(" ")
}

/// All distinct non-terminal positions `plies` plies after the roots, in
/// depth-first order, with the number of leaves; `None` if the tree has more
/// than `max_leaves` leaves.
fn enumerate(
    roots: &Roots,
    plies: usize,
    max_leaves: u64,
    mode: CastlingMode,
) -> Option<(Vec<Candidate>, u64)> {
    struct Walk {
        seen: HashSet<String>,
        out: Vec<Candidate>,
        leaves: u64,
        max_leaves: u64,
        path: Vec<String>,
        root: usize,
        mode: CastlingMode,
    }
    fn walk(w: &mut Walk, pos: &Chess, left: usize) -> bool {
        if left == 0 {
            w.leaves += 1;
            if w.leaves > w.max_leaves {
                return false;
            }
            if !pos.is_game_over() && w.seen.insert(dedup_key(pos)) {
                w.out.push(Candidate {
                    pos: pos.clone(),
                    root: w.root,
                    moves: w.path.clone(),
                });
            }
            return true;
        }
        for m in pos.legal_moves() {
            let mut next = pos.clone();
            w.path.push(m.to_uci(w.mode).to_string());
            next.play_unchecked(m);
            let ok = walk(w, &next, left - 1);
            w.path.pop();
            if !ok {
                return false;
            }
        }
        true
    }
    let mut w = Walk {
        seen: HashSet::new(),
        out: Vec::new(),
        leaves: 0,
        max_leaves,
        path: Vec::new(),
        root: 0,
        mode,
    };
    for i in 0..roots.len() {
        w.root = i;
        if !walk(&mut w, &roots.get(i), plies) {
            return None;
        }
    }
    Some((w.out, w.leaves))
}

/// One new distinct candidate from random playouts, or `None` after
/// [`MAX_FRUITLESS_PLAYOUTS`] playouts in a row found nothing new.
fn playout_candidate(
    roots: &Roots,
    plies: usize,
    mode: CastlingMode,
    seen: &mut HashSet<String>,
    rng: &mut ChaCha8Rng,
) -> Option<Candidate> {
    'playout: for _ in 0..MAX_FRUITLESS_PLAYOUTS {
        let root = rng.gen_range(0..roots.len());
        let mut pos = roots.get(root);
        let mut moves = Vec::with_capacity(plies);
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                continue 'playout;
            }
            let m = legal[rng.gen_range(0..legal.len())];
            moves.push(m.to_uci(mode).to_string());
            pos.play_unchecked(m);
        }
        if !pos.is_game_over() && seen.insert(dedup_key(&pos)) {
            return Some(Candidate { pos, root, moves });
        }
    }
    None
}

/// Score each candidate from White's view with a fresh search state
/// (`None` for mate scores, which are never balanced).
fn score_batch(
    batch: &[Candidate],
    config: &GenerateConfig,
    limits: &Limits,
) -> Result<Vec<Option<i32>>, GenerateError> {
    batch
        .par_iter()
        .with_min_len(8)
        .map_init(
            || {
                let mut searcher = Searcher::new(config.params.clone());
                searcher.set_hash_mb(config.hash_mb);
                searcher
            },
            |searcher, candidate| {
                let fen = position_fen(&candidate.pos);
                let pos = match config.starts.variant() {
                    Variant::Standard => EnginePosition::from_fen(&fen),
                    Variant::Chess960 => EnginePosition::from_fen_chess960(&fen),
                };
                let pos = pos.map_err(|e| GenerateError::Engine {
                    fen: fen.clone(),
                    reason: e.to_string(),
                })?;
                // A fresh state per position keeps scores independent of
                // which thread scored which position before.
                searcher.new_game();
                let stop = AtomicBool::new(false);
                let result = searcher.search(&pos, limits, &stop, &mut |_| {});
                let white = if candidate.pos.turn().is_white() {
                    1
                } else {
                    -1
                };
                Ok(match result.score {
                    Score::Cp(cp) => Some(white * cp),
                    Score::Mate(_) => None,
                })
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumeration_counts_match_perft_and_dedups() {
        let roots = Roots::Listed(vec![Chess::default()]);
        let mode = CastlingMode::Standard;
        let (all, leaves) = enumerate(&roots, 2, 10_000, mode).unwrap();
        assert_eq!(leaves, 400);
        assert_eq!(all.len(), 400);
        let (all, leaves) = enumerate(&roots, 3, 10_000, mode).unwrap();
        assert_eq!(leaves, 8902);
        // 5362 distinct positions after 3 plies (transpositions removed).
        assert_eq!(all.len(), 5362);
        assert!(enumerate(&roots, 3, 8901, mode).is_none());
    }

    #[test]
    fn dedup_key_ignores_counters_and_useless_en_passant() {
        let a: Chess = crate::formats::fen::parse_position(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        )
        .unwrap();
        let b: Chess = crate::formats::fen::parse_position(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 5 9",
        )
        .unwrap();
        assert_eq!(dedup_key(&a), dedup_key(&b));
    }

    #[test]
    fn playouts_are_seeded_and_distinct() {
        let roots = Roots::Listed(vec![Chess::default()]);
        let run = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut seen = HashSet::new();
            (0..50)
                .map(|_| {
                    playout_candidate(&roots, 6, CastlingMode::Standard, &mut seen, &mut rng)
                        .unwrap()
                })
                .map(|c| (dedup_key(&c.pos), c.moves))
                .collect::<Vec<_>>()
        };
        let a = run(3);
        assert_eq!(a, run(3));
        assert_ne!(a, run(4));
        let keys: HashSet<_> = a.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(keys.len(), 50);
        assert!(a.iter().all(|(_, moves)| moves.len() == 6));
    }

    #[test]
    fn playouts_stop_when_nothing_new_is_left() {
        // One ply from the start: only 20 distinct positions exist.
        let roots = Roots::Listed(vec![Chess::default()]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut seen = HashSet::new();
        let mode = CastlingMode::Standard;
        let found =
            std::iter::from_fn(|| playout_candidate(&roots, 1, mode, &mut seen, &mut rng)).count();
        assert_eq!(found, 20);
    }
}
