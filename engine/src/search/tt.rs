//! Transposition table: a fixed-size hash table of search results keyed by
//! the board's Zobrist hash (cozy-chess keeps it incrementally).
//!
//! Entries live in clusters of four (one 64-byte cache line). An entry keeps
//! only the low 32 bits of the key: the cluster index comes from the high
//! bits, so together they still tell positions apart, and the 32 bits saved
//! pay for a depth in sixteenths of a ply (the search's own unit). Every
//! stored move is checked for legality before use, so the rare false match
//! costs a bad ordering hint, never an illegal move. Replacement prefers the
//! same position, then an empty slot, then the entry with the lowest
//! `depth - age` worth. Mate scores are stored relative to the node
//! ("mate in N from here") and converted back by ply on probe, so a mate found
//! through a transposition keeps its correct distance from the root.
//!
//! The table is shared by the threads of a parallel search without locks
//! or `unsafe`: each entry is two `AtomicU64`s written and read with relaxed
//! ordering, the packed data and a check word (key bits, generation and
//! bound) XORed with a mix of the data. A read that sees halves of two
//! different writes unmixes to a check word whose key bits and spare bits
//! no longer match (Hyatt and Mann's lockless hashing), and the entry is
//! read as empty. With one thread every entry reads back exactly as stored.

use std::collections::TryReserveError;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use cozy_chess::{Move, Piece, Square};

use crate::search::tablebase::TB_BOUND;
use crate::search::types::ONE_PLY;

/// Default table size (MiB), the UCI `Hash` option's default.
pub const HASH_DEFAULT_MB: usize = 16;
/// Smallest `Hash` (MiB).
pub const HASH_MIN_MB: usize = 1;
/// Largest `Hash` (MiB).
pub const HASH_MAX_MB: usize = 4096;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Nothing stored.
    None = 0,
    /// True value <= score (fail low).
    Upper = 1,
    /// True value >= score (fail high).
    Lower = 2,
    /// True value == score.
    Exact = 3,
}

impl Bound {
    fn from_bits(b: u8) -> Bound {
        match b & BOUND_MASK {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    /// Low 32 bits of the key (the high bits chose the cluster).
    key: u32,
    mv: u16,
    score: i16,
    eval: i16,
    /// Remaining depth in sixteenths of a ply.
    depth: i16,
    /// Generation (upper 5 bits), whether the node was on a principal
    /// variation (bit 2) and bound (lower 2 bits).
    gen_bound: u8,
}

impl Entry {
    /// The data word (move, eval, score, depth) and the check word (key
    /// bits high, generation and bound in the low byte, the rest zero).
    fn pack(&self) -> (u64, u64) {
        let data = self.mv as u64
            | (self.eval as u16 as u64) << 16
            | (self.score as u16 as u64) << 32
            | (self.depth as u16 as u64) << 48;
        (data, (self.key as u64) << 32 | self.gen_bound as u64)
    }

    fn unpack(data: u64, check: u64) -> Entry {
        Entry {
            key: (check >> 32) as u32,
            mv: data as u16,
            score: (data >> 32) as u16 as i16,
            eval: (data >> 16) as u16 as i16,
            depth: (data >> 48) as u16 as i16,
            gen_bound: check as u8,
        }
    }
}

/// Bits of the check word that a whole entry leaves zero.
const CHECK_SPARE: u64 = 0xFFFF_FF00;

/// A bijective mix of the data word (zero stays zero, so a zeroed slot
/// reads as empty): a torn read changes every bit of it.
#[inline(always)]
fn mix(data: u64) -> u64 {
    data.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// One entry as two words, the check word XORed with the mixed data.
#[derive(Default)]
struct Slot {
    data: AtomicU64,
    check: AtomicU64,
}

impl Slot {
    /// The entry, or an empty one when the two words come from different
    /// writes (another thread stored between the two loads).
    #[inline(always)]
    fn load(&self) -> Entry {
        let data = self.data.load(Relaxed);
        let check = self.check.load(Relaxed) ^ mix(data);
        if check & CHECK_SPARE != 0 {
            return Entry::default();
        }
        Entry::unpack(data, check)
    }

    #[inline(always)]
    fn save(&self, e: &Entry) {
        let (data, check) = e.pack();
        self.data.store(data, Relaxed);
        self.check.store(check ^ mix(data), Relaxed);
    }
}

const CLUSTER: usize = 4;

/// Four entries on one cache line: the alignment makes a probe touch one
/// line, where a `Vec` of plain arrays (aligned to 8, and the allocator's
/// large blocks start 16 bytes into a page) would straddle two.
#[derive(Default)]
#[repr(C, align(64))]
struct Cluster([Slot; CLUSTER]);

const _: () = assert!(std::mem::size_of::<Cluster>() == 64);
const GEN_STEP: u8 = 8;
const GEN_MASK: u8 = !(GEN_STEP - 1);
const PV_BIT: u8 = 4;
const BOUND_MASK: u8 = 3;

/// A successful probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtHit {
    /// The best (or refuting) move found, if any.
    pub mv: Option<Move>,
    /// Score already adjusted to the probing node's ply.
    pub score: i32,
    /// The node's raw static eval (before the correction history).
    pub eval: i32,
    /// Remaining depth the score was searched to, in sixteenths of a ply.
    pub depth: i32,
    /// What `score` is: exact, or a lower or upper bound.
    pub bound: Bound,
    /// The node was on a principal variation when stored (Stockfish's ttPv).
    pub pv: bool,
}

/// The table. The searcher owns it; the threads of one search share it by
/// reference (probe and store take `&self`).
pub struct TransTable {
    clusters: Vec<Cluster>,
    /// Changed only between searches; atomic so that `&self` can be shared.
    generation: AtomicU8,
}

/// Pack a move into 16 bits: from | to << 6 | promotion << 12.
pub fn pack_move(mv: Move) -> u16 {
    let promo = mv.promotion.map_or(0, |p| p as u16);
    mv.from as u16 | (mv.to as u16) << 6 | promo << 12
}

/// Inverse of [`pack_move`]; `None` for the empty code 0.
pub fn unpack_move(code: u16) -> Option<Move> {
    if code == 0 {
        return None;
    }
    let promo = (code >> 12) & 7;
    Some(Move {
        from: Square::index((code & 63) as usize),
        to: Square::index(((code >> 6) & 63) as usize),
        promotion: if promo == 0 {
            None
        } else {
            Piece::try_index(promo as usize)
        },
    })
}

/// Make a mate or tablebase score relative to the node at `ply` (for
/// storing).
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score + ply as i32
    } else if score <= -TB_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Make a stored mate or tablebase score relative to the root again (for
/// probing).
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score - ply as i32
    } else if score <= -TB_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl TransTable {
    /// A table of about `mb` megabytes (at least one cluster). Aborts if the
    /// memory is not available; see [`TransTable::try_new`].
    pub fn new(mb: usize) -> Self {
        Self::try_new(mb).unwrap_or_else(|e| panic!("transposition table of {mb} MiB: {e}"))
    }

    /// A table of about `mb` megabytes, or the allocation error (a huge `Hash`
    /// must not abort the engine).
    pub fn try_new(mb: usize) -> Result<Self, TryReserveError> {
        let bytes = mb.max(1).saturating_mul(1024 * 1024);
        let n = (bytes / std::mem::size_of::<Cluster>()).max(1);
        let mut clusters = Vec::new();
        clusters.try_reserve_exact(n)?;
        clusters.resize_with(n, Cluster::default);
        Ok(TransTable {
            clusters,
            generation: AtomicU8::new(0),
        })
    }

    /// Size in MiB (rounded down, at least the smallest table).
    pub fn size_mb(&self) -> usize {
        self.clusters.len() * std::mem::size_of::<Cluster>() / (1024 * 1024)
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.clusters.fill_with(Cluster::default);
        *self.generation.get_mut() = 0;
    }

    /// Start a new search: entries from older searches age.
    pub fn new_search(&mut self) {
        let g = self.generation.get_mut();
        *g = g.wrapping_add(GEN_STEP);
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift maps the key uniformly onto any table size.
        ((key as u128 * self.clusters.len() as u128) >> 64) as usize
    }

    /// Ask the CPU to start loading `key`'s cluster. The search calls it as
    /// soon as a child's key is known, so the child's probe finds the line in
    /// cache instead of waiting on memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::lowlevel::prefetch(&self.clusters[self.index(key)]);
    }

    /// Look up `key`; the score is converted from node-relative mate distance
    /// to root-relative using `ply`.
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        let cluster = &self.clusters[self.index(key)];
        let check = key as u32;
        cluster
            .0
            .iter()
            .map(Slot::load)
            .find(|e| e.key == check && e.gen_bound & BOUND_MASK != 0)
            .map(|e| TtHit {
                mv: unpack_move(e.mv),
                score: score_from_tt(e.score as i32, ply),
                eval: e.eval as i32,
                depth: e.depth as i32,
                bound: Bound::from_bits(e.gen_bound),
                pv: e.gen_bound & PV_BIT != 0,
            })
    }

    /// Store a result. `depth` is in sixteenths of a ply, `score` root-relative;
    /// `pv` marks a node that is or was on a principal variation.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        pv: bool,
        ply: usize,
    ) {
        let generation = self.generation.load(Relaxed);
        let cluster = &self.clusters[self.index(key)];
        let check = key as u32;
        let age = |e: &Entry| (generation.wrapping_sub(e.gen_bound & GEN_MASK) / GEN_STEP) as i32;
        let mut victim = 0;
        let mut worst = i32::MAX;
        let mut e = Entry::default();
        for (i, slot) in cluster.0.iter().enumerate() {
            let here = slot.load();
            if here.key == check || here.gen_bound & BOUND_MASK == 0 {
                victim = i;
                e = here;
                break;
            }
            // Deep entries from the current search are worth keeping; old
            // ones lose two plies of worth per search of age.
            let worth = here.depth as i32 - 2 * ONE_PLY * age(&here);
            if worth < worst {
                worst = worth;
                victim = i;
                e = here;
            }
        }
        let same = e.key == check;
        // Keep a result of the same position from this search that is more
        // than two plies deeper, unless the new one is exact.
        if same
            && bound != Bound::Exact
            && age(&e) == 0
            && e.depth as i32 > depth + 2 * ONE_PLY
            && Bound::from_bits(e.gen_bound) != Bound::None
        {
            return;
        }
        let packed = match mv {
            Some(m) => pack_move(m),
            None if same => e.mv,
            None => 0,
        };
        cluster.0[victim].save(&Entry {
            key: check,
            mv: packed,
            score: score_to_tt(score, ply).clamp(-32_000, 32_000) as i16,
            eval: eval.clamp(-32_000, 32_000) as i16,
            depth: depth.clamp(-ONE_PLY, i16::MAX as i32) as i16,
            gen_bound: generation | if pv { PV_BIT } else { 0 } | bound as u8,
        });
    }

    /// Permille of the first thousand slots used by the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Relaxed);
        let mut used = 0u32;
        let mut total = 0;
        for c in self.clusters.iter().take(1000 / CLUSTER) {
            for e in c.0.iter().map(Slot::load) {
                total += 1;
                if e.gen_bound & BOUND_MASK != 0 && e.gen_bound & GEN_MASK == generation {
                    used += 1;
                }
            }
        }
        (used * 1000).checked_div(total).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::types::MATE;

    #[test]
    fn move_packing_round_trips() {
        for text in ["e2e4", "a7a8q", "h2h1n", "e1h1", "b7c8r", "g1f3"] {
            let mv: Move = text.parse().unwrap();
            assert_eq!(unpack_move(pack_move(mv)), Some(mv), "{text}");
        }
        assert_eq!(unpack_move(0), None);
    }

    #[test]
    fn mate_scores_are_adjusted_by_ply() {
        let tt = TransTable::new(1);
        // Found at ply 5: mate in 3 plies from that node = MATE - 8 from root.
        let score = MATE - 8;
        tt.store(42, None, score, 0, 64, Bound::Exact, false, 5);
        // Probed at ply 9 through a transposition: still mate 3 plies away.
        let hit = tt.probe(42, 9).unwrap();
        assert_eq!(hit.score, MATE - 12);
        assert_eq!(MATE - hit.score - 9, 3);
        // Being mated works the same way.
        tt.store(43, None, -(MATE - 6), 0, 64, Bound::Upper, false, 2);
        assert_eq!(tt.probe(43, 0).unwrap().score, -(MATE - 4));
        // Normal scores are untouched.
        tt.store(44, None, 123, 7, 4, Bound::Lower, false, 30);
        let hit = tt.probe(44, 3).unwrap();
        assert_eq!(
            (hit.score, hit.eval, hit.depth, hit.bound),
            (123, 7, 4, Bound::Lower)
        );
    }

    #[test]
    fn fractional_depths_survive_the_round_trip() {
        let tt = TransTable::new(1);
        // 2.5 and 37.75 plies: both must come back exactly, or an entry
        // could never cut off at the depth it was searched to.
        for (key, depth) in [(7u64, 40), (8, 604), (9, 0)] {
            tt.store(key, None, 0, 0, depth, Bound::Lower, false, 0);
            assert_eq!(tt.probe(key, 0).unwrap().depth, depth);
        }
    }

    #[test]
    fn keys_differing_only_in_checked_bits_do_not_match() {
        let tt = TransTable::new(1);
        let a = 0x1234_5678_9abc_def0u64;
        // Same cluster (high bits), different low 32 bits.
        let b = a ^ 1;
        assert_eq!(tt.index(a), tt.index(b));
        tt.store(a, None, 11, 0, 16, Bound::Exact, false, 0);
        assert!(tt.probe(b, 0).is_none());
        assert_eq!(tt.probe(a, 0).unwrap().score, 11);
    }

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        assert!(TransTable::try_new(usize::MAX >> 4).is_err());
        let tt = TransTable::try_new(2).unwrap();
        assert_eq!(tt.size_mb(), 2);
    }

    #[test]
    fn replacement_prefers_deep_and_current() {
        let mut tt = TransTable::new(1);
        let n = tt.clusters.len() as u128;
        // Keys that land in the same cluster: same high product bits.
        let keys: Vec<u64> = (0..6u64)
            .map(|i| ((1u128 << 64) / n * 3) as u64 + i)
            .collect();
        assert!(keys.iter().all(|&k| tt.index(k) == tt.index(keys[0])));
        for (i, &k) in keys.iter().take(4).enumerate() {
            tt.store(
                k,
                None,
                0,
                0,
                (10 - i as i32) * ONE_PLY,
                Bound::Exact,
                false,
                0,
            );
        }
        // The shallowest (depth 7, keys[3]) is replaced first.
        tt.store(keys[4], None, 0, 0, ONE_PLY, Bound::Exact, false, 0);
        assert!(tt.probe(keys[3], 0).is_none());
        assert!(tt.probe(keys[0], 0).is_some());
        // After many searches, old deep entries give way.
        for _ in 0..10 {
            tt.new_search();
        }
        tt.store(keys[5], None, 0, 0, ONE_PLY, Bound::Exact, false, 0);
        assert!(tt.probe(keys[5], 0).is_some());
        // One entry of the first thousand slots is from this search.
        assert_eq!(tt.hashfull(), 1);
    }

    #[test]
    fn pv_flag_is_kept_apart_from_bound_and_age() {
        let mut tt = TransTable::new(1);
        for _ in 0..3 {
            tt.new_search();
        }
        tt.store(5, None, 1, 0, 16, Bound::Upper, true, 0);
        tt.store(6, None, 2, 0, 16, Bound::Lower, false, 0);
        let (a, b) = (tt.probe(5, 0).unwrap(), tt.probe(6, 0).unwrap());
        assert_eq!((a.pv, a.bound), (true, Bound::Upper));
        assert_eq!((b.pv, b.bound), (false, Bound::Lower));
        // A PV entry still counts as this search's, and ages like any other.
        assert_eq!(tt.hashfull(), 2);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
    }

    #[test]
    fn a_torn_entry_reads_as_empty() {
        let tt = TransTable::new(1);
        let key = 0xdead_beef_0123_4567u64;
        let slot = &tt.clusters[tt.index(key)].0[0];
        tt.store(key, None, 100, 5, 8 * ONE_PLY, Bound::Exact, false, 0);
        let first = slot.data.load(Relaxed);
        tt.store(key, None, -250, 9, 9 * ONE_PLY, Bound::Lower, false, 0);
        assert_eq!(tt.probe(key, 0).unwrap().score, -250);
        // Another thread's data word under this check word: the score of
        // one store with the depth and bound of the other must not be read.
        slot.data.store(first, Relaxed);
        assert_eq!(tt.probe(key, 0), None);
        // And the slot counts as free for the next store.
        tt.store(key, None, 7, 0, ONE_PLY, Bound::Upper, false, 0);
        assert_eq!(tt.probe(key, 0).unwrap().score, 7);
    }

    #[test]
    fn the_table_is_shared_by_reference() {
        fn shared<T: Sync + Send>() {}
        shared::<TransTable>();
    }

    /// Threads storing and probing the same few clusters at once: every
    /// hit is one whole store (its fields all derive from its key and the
    /// writer's number), never halves of two.
    #[test]
    fn concurrent_stores_never_mix_two_entries() {
        let tt = TransTable::new(1);
        let n = tt.clusters.len() as u128;
        // 16 keys in two clusters, so that stores keep replacing each other.
        let keys: Vec<u64> = (0..16u64)
            .map(|i| ((1u128 << 64) / n * (5 + (i % 2) as u128)) as u64 + i * 7919)
            .collect();
        let entry = |key: u64, writer: u64| {
            let x = (key ^ writer.wrapping_mul(0x1234_5678_9abc_def1)) % 4000;
            (x as i32 - 2000, (x as i32 % 97) * 3, 16 + (x as i32 % 300))
        };
        std::thread::scope(|scope| {
            for writer in 0..4u64 {
                let (tt, keys) = (&tt, &keys);
                scope.spawn(move || {
                    for round in 0..100_000u64 {
                        let key = keys[(round * 7 + writer) as usize % keys.len()];
                        let (score, eval, depth) = entry(key, writer);
                        tt.store(key, None, score, eval, depth, Bound::Exact, false, 0);
                        let probe = keys[(round * 3 + 1) as usize % keys.len()];
                        if let Some(hit) = tt.probe(probe, 0) {
                            let whole =
                                (0..4).any(|w| entry(probe, w) == (hit.score, hit.eval, hit.depth));
                            assert!(whole, "mixed entry {hit:?} for {probe:x}");
                        }
                    }
                });
            }
        });
    }
}
