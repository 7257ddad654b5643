//! Caches of the evaluation terms that depend on little of the position:
//! the pawn-structure terms depend only on the two sides' pawns, and the
//! material imbalance only on the piece counts, which most moves leave
//! alone; the search looks both up instead of scoring them again. Entries
//! keep their whole key (the pawn bitboards, the packed counts), so a hit is
//! never a different position's and the evaluation stays exactly what it is
//! without the cache.

use super::weights::S;

/// Pawn entries in a cache (a power of two): 640 KiB, so it stays in L2.
const PAWN_ENTRIES: usize = 1 << 14;
/// Material entries (a power of two): 64 KiB; a search meets few material
/// configurations.
const MATERIAL_ENTRIES: usize = 1 << 12;

#[derive(Clone, Copy, Default)]
struct PawnEntry {
    /// White's and Black's pawns.
    pawns: [u64; 2],
    /// White's and Black's passed pawns.
    passed: [u64; 2],
    /// Sum of the pawn-structure terms, White's view.
    score: S,
}

#[derive(Clone, Copy, Default)]
struct MaterialEntry {
    /// Packed piece counts (see `terms::material_key`).
    key: u64,
    /// Sum of the imbalance terms, White's view.
    score: S,
}

/// A hash of White's and Black's pawns, for the tables keyed by pawn
/// structure (this cache and the search's correction history); its high
/// bits are the best mixed.
pub fn pawn_hash(pawns: [u64; 2]) -> u64 {
    (pawns[0] ^ pawns[1].rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Pawn-structure and imbalance terms by pawns and by piece counts, for one
/// set of evaluation weights: clear it when they change. An empty slot holds
/// the position without pawns, resp. without pieces or pawns, whose terms
/// are indeed zero.
pub struct EvalCache {
    pawns: Box<[PawnEntry]>,
    material: Box<[MaterialEntry]>,
}

impl Default for EvalCache {
    fn default() -> Self {
        Self::new()
    }
}

impl EvalCache {
    /// An empty cache.
    pub fn new() -> Self {
        EvalCache {
            pawns: vec![PawnEntry::default(); PAWN_ENTRIES].into_boxed_slice(),
            material: vec![MaterialEntry::default(); MATERIAL_ENTRIES].into_boxed_slice(),
        }
    }

    /// Forget everything (the weights changed).
    pub fn clear(&mut self) {
        self.pawns.fill(PawnEntry::default());
        self.material.fill(MaterialEntry::default());
    }

    fn pawn_index(pawns: [u64; 2]) -> usize {
        (pawn_hash(pawns) >> (64 - PAWN_ENTRIES.trailing_zeros())) as usize
    }

    fn material_index(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - MATERIAL_ENTRIES.trailing_zeros()))
            as usize
    }

    /// The stored score and passed pawns of `pawns`.
    #[inline]
    pub(super) fn get_pawns(&self, pawns: [u64; 2]) -> Option<(S, [u64; 2])> {
        let e = &self.pawns[Self::pawn_index(pawns)];
        (e.pawns == pawns).then_some((e.score, e.passed))
    }

    /// Store the score and passed pawns of `pawns`.
    #[inline]
    pub(super) fn put_pawns(&mut self, pawns: [u64; 2], score: S, passed: [u64; 2]) {
        self.pawns[Self::pawn_index(pawns)] = PawnEntry {
            pawns,
            passed,
            score,
        };
    }

    /// The stored imbalance score of the packed counts `key`.
    #[inline]
    pub(super) fn get_material(&self, key: u64) -> Option<S> {
        let e = &self.material[Self::material_index(key)];
        (e.key == key).then_some(e.score)
    }

    /// Store the imbalance score of `key`.
    #[inline]
    pub(super) fn put_material(&mut self, key: u64, score: S) {
        self.material[Self::material_index(key)] = MaterialEntry { key, score };
    }
}
