//! A cache of the pawn-structure terms: their sum depends only on the two
//! sides' pawns (and the weights), which most moves leave alone, so the
//! search looks it up instead of scoring every pawn again. Entries keep the
//! whole pawn bitboards as their key, so a hit is never a different pawn
//! structure and the evaluation stays exactly what it is without the cache.

use super::weights::S;

/// Entries in a cache (a power of two): 640 KiB, so it stays in L2.
const ENTRIES: usize = 1 << 14;

#[derive(Clone, Copy, Default)]
struct Entry {
    /// White's and Black's pawns.
    pawns: [u64; 2],
    /// White's and Black's passed pawns.
    passed: [u64; 2],
    /// Sum of the pawn-structure terms, White's view.
    score: S,
}

/// A hash of White's and Black's pawns, for the tables keyed by pawn
/// structure (this cache and the search's correction history); its high
/// bits are the best mixed.
pub fn pawn_hash(pawns: [u64; 2]) -> u64 {
    (pawns[0] ^ pawns[1].rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Pawn-structure terms by pawn structure, for one set of evaluation
/// weights: clear it when they change. An empty slot holds the structure
/// without pawns, whose terms are indeed zero.
pub struct PawnCache {
    entries: Box<[Entry]>,
}

impl PawnCache {
    /// An empty cache.
    pub fn new() -> Self {
        PawnCache {
            entries: vec![Entry::default(); ENTRIES].into_boxed_slice(),
        }
    }

    /// Forget everything (the weights changed).
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    fn index(pawns: [u64; 2]) -> usize {
        (pawn_hash(pawns) >> (64 - ENTRIES.trailing_zeros())) as usize
    }

    /// The stored score and passed pawns of `pawns`.
    #[inline]
    pub(super) fn get(&self, pawns: [u64; 2]) -> Option<(S, [u64; 2])> {
        let e = &self.entries[Self::index(pawns)];
        (e.pawns == pawns).then_some((e.score, e.passed))
    }

    /// Store the score and passed pawns of `pawns`.
    #[inline]
    pub(super) fn put(&mut self, pawns: [u64; 2], score: S, passed: [u64; 2]) {
        self.entries[Self::index(pawns)] = Entry {
            pawns,
            passed,
            score,
        };
    }
}
