//! The evaluation weight table: every weight is a tapered (middlegame,
//! endgame) pair declared once in `eval_weights!` below. The macro generates
//! [`EvalWeights`], the flat index of each weight (for the Texel trace) and
//! the scalar [`ParamSpec`]s that make each pair two parameters,
//! `<name>_mg` / `<name>_eg` (`<name>_<i>_mg` for arrays).

use std::sync::OnceLock;

use crate::params::spec::{ParamKind, ParamSpec};

/// A tapered weight or score: (middlegame, endgame) in centipawns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct S(pub i32, pub i32);

impl std::ops::Add for S {
    type Output = S;
    fn add(self, o: S) -> S {
        S(self.0 + o.0, self.1 + o.1)
    }
}
impl std::ops::AddAssign for S {
    fn add_assign(&mut self, o: S) {
        self.0 += o.0;
        self.1 += o.1;
    }
}
impl std::ops::Sub for S {
    type Output = S;
    fn sub(self, o: S) -> S {
        S(self.0 - o.0, self.1 - o.1)
    }
}
impl std::ops::SubAssign for S {
    fn sub_assign(&mut self, o: S) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}
impl std::ops::Mul<i32> for S {
    type Output = S;
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}
impl std::ops::Neg for S {
    type Output = S;
    fn neg(self) -> S {
        S(-self.0, -self.1)
    }
}

/// Range every evaluation scalar is allowed to take.
pub const WEIGHT_MIN: i32 = -5000;
/// See [`WEIGHT_MIN`].
pub const WEIGHT_MAX: i32 = 5000;

/// A field shape in the weight table: a single pair or an array of pairs.
pub trait WeightShape {
    /// Pairs in the field.
    const LEN: usize;
    /// Pair `i` of the field.
    fn at(&self, i: usize) -> S;
    /// Pair `i` of the field, mutable.
    fn at_mut(&mut self, i: usize) -> &mut S;
}

impl WeightShape for S {
    const LEN: usize = 1;
    fn at(&self, _: usize) -> S {
        *self
    }
    fn at_mut(&mut self, _: usize) -> &mut S {
        self
    }
}

impl<const N: usize> WeightShape for [S; N] {
    const LEN: usize = N;
    fn at(&self, i: usize) -> S {
        self[i]
    }
    fn at_mut(&mut self, i: usize) -> &mut S {
        &mut self[i]
    }
}

const fn prefix_sums<const N: usize>(lens: [usize; N]) -> [usize; N] {
    let mut out = [0; N];
    let mut i = 1;
    while i < N {
        out[i] = out[i - 1] + lens[i - 1];
        i += 1;
    }
    out
}

macro_rules! eval_weights {
    ($( $name:ident : $ty:ty = $default:expr , $doc:literal ; )*) => {
        /// Every evaluation weight, one field per table entry.
        #[derive(Clone, Debug, PartialEq)]
        pub struct EvalWeights {
            $( #[doc = $doc] pub $name: $ty, )*
        }

        impl Default for EvalWeights {
            fn default() -> Self {
                EvalWeights { $( $name: $default, )* }
            }
        }

        #[allow(non_camel_case_types, dead_code)]
        #[derive(Clone, Copy)]
        enum Field { $($name),* }

        const FIELD_LENS: [usize; [$(stringify!($name)),*].len()] = [$(<$ty as WeightShape>::LEN),*];
        const FIELD_OFFSETS: [usize; FIELD_LENS.len()] = prefix_sums(FIELD_LENS);

        /// Flat index of the first pair of each weight, for traces:
        /// `IDX.passed_pawn + rank` is the index of that array element.
        #[derive(Clone, Copy, Debug)]
        pub struct WeightIndex { $( #[doc = concat!("Flat index of `", stringify!($name), "`.")] pub $name: usize, )* }

        /// The flat indices of all weights.
        pub const IDX: WeightIndex = WeightIndex { $( $name: FIELD_OFFSETS[Field::$name as usize], )* };

        /// Number of (mg, eg) pairs in the table.
        pub const NUM_WEIGHTS: usize = 0 $( + <$ty as WeightShape>::LEN )*;

        impl EvalWeights {
            /// Pair at flat index `i`.
            pub fn pair(&self, i: usize) -> S {
                $(
                    let off = IDX.$name;
                    if i < off + <$ty as WeightShape>::LEN {
                        return self.$name.at(i - off);
                    }
                )*
                panic!("weight index {i} out of range")
            }

            /// Mutable pair at flat index `i`.
            pub fn pair_mut(&mut self, i: usize) -> &mut S {
                $(
                    let off = IDX.$name;
                    if i < off + <$ty as WeightShape>::LEN {
                        return self.$name.at_mut(i - off);
                    }
                )*
                panic!("weight index {i} out of range")
            }

            /// Name of the pair at flat index `i` (`passed_pawn_3`, `tempo`).
            pub fn pair_name(i: usize) -> String {
                $(
                    let off = IDX.$name;
                    let len = <$ty as WeightShape>::LEN;
                    if i < off + len {
                        return if len == 1 && stringify!($ty) == "S" {
                            stringify!($name).to_string()
                        } else {
                            format!("{}_{}", stringify!($name), i - off)
                        };
                    }
                )*
                panic!("weight index {i} out of range")
            }

            /// All pairs in flat-index order (what a tuner works on).
            pub fn to_flat(&self) -> Vec<S> {
                let mut v = Vec::with_capacity(NUM_WEIGHTS);
                $(
                    for i in 0..<$ty as WeightShape>::LEN {
                        v.push(self.$name.at(i));
                    }
                )*
                v
            }

            /// Weights from pairs in flat-index order; `None` unless
            /// `flat.len() == NUM_WEIGHTS`.
            pub fn from_flat(flat: &[S]) -> Option<Self> {
                if flat.len() != NUM_WEIGHTS {
                    return None;
                }
                let mut w = EvalWeights::default();
                $(
                    for i in 0..<$ty as WeightShape>::LEN {
                        *w.$name.at_mut(i) = flat[IDX.$name + i];
                    }
                )*
                Some(w)
            }

            /// One-line meaning of the pair at flat index `i`.
            pub fn pair_doc(i: usize) -> &'static str {
                $(
                    if i < IDX.$name + <$ty as WeightShape>::LEN {
                        return $doc;
                    }
                )*
                panic!("weight index {i} out of range")
            }
        }
    };
}

impl EvalWeights {
    /// Identifier of the table's layout: the pair count and a hash of every
    /// pair's name in flat-index order. Files that store weights by index
    /// (Texel datasets) record it and are refused under another layout.
    pub fn layout_id() -> &'static str {
        static ID: OnceLock<String> = OnceLock::new();
        ID.get_or_init(|| {
            // FNV-1a, 64 bits: stable across Rust versions, unlike `Hash`.
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for i in 0..NUM_WEIGHTS {
                for b in Self::pair_name(i).bytes().chain([b'\n']) {
                    h ^= u64::from(b);
                    h = h.wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
            format!("karsinta-eval-{NUM_WEIGHTS}-{h:016x}")
        })
    }

    /// Scalar specs: two per pair, `_mg` then `_eg`.
    pub fn specs() -> &'static [ParamSpec] {
        static SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();
        SPECS.get_or_init(|| {
            let d = EvalWeights::default();
            let mut v = Vec::with_capacity(2 * NUM_WEIGHTS);
            for i in 0..NUM_WEIGHTS {
                let base = Self::pair_name(i);
                let p = d.pair(i);
                for (suffix, default) in [("mg", p.0), ("eg", p.1)] {
                    v.push(ParamSpec {
                        name: format!("{base}_{suffix}"),
                        kind: ParamKind::Int,
                        default,
                        min: WEIGHT_MIN,
                        max: WEIGHT_MAX,
                        // Evaluation weights are tuned by Texel; for SPSA a
                        // step proportional to the weight is a sane start.
                        c_end: (default.abs() as f64 / 10.0).max(2.0),
                        r_end: 0.002,
                        doc: Self::pair_doc(i),
                    });
                }
            }
            v
        })
    }

    /// Scalar `i` of [`Self::specs`].
    pub fn get_scalar(&self, i: usize) -> i32 {
        let p = self.pair(i / 2);
        if i.is_multiple_of(2) {
            p.0
        } else {
            p.1
        }
    }

    /// Set scalar `i` of [`Self::specs`].
    pub fn set_scalar(&mut self, i: usize, value: i32) {
        let p = self.pair_mut(i / 2);
        if i.is_multiple_of(2) {
            p.0 = value
        } else {
            p.1 = value
        }
    }
}

// The table. Conventions for arrays (all from the owner's view, Black mirrored
// by flipping ranks so that a rule written for White holds for Black):
// - `psqt_<piece>`: 64 squares, a1 = 0, b1 = 1, ..., h8 = 63; `psqt_pawn` has
//   48 entries, a2 = 0 ... h7 = 47 (pawns never stand on the first or last rank).
//   Full boards, not file-symmetric halves: castled kings and wing pawns differ.
// - `mobility_<piece>`: indexed by the number of safe squares the piece attacks
//   (not occupied by own pawns or king, not attacked by enemy pawns).
// - by relative rank: `pawn_phalanx` and the `passed_*` arrays but the king
//   distances start at the second rank (index 0 = rank 2), `pawn_supported`
//   at the third.
// - `passed_*_king_dist`: indexed by king distance (0..=7) to the stop square.
// - by piece: `threat_by_pawn`, `king_attacker`, `king_safe_check` are indexed
//   knight, bishop, rook, queen; `threat_by_minor` rook, queen.
// Every default is Texel-tuned (recipes in configs/README.md, "Tuning the
// engine's own weights"), on self-play games at 5000 nodes labelled half by
// game result and half by the mover's search score (`--lambda 0.5`):
// - all but the piece-square tables: 8,510 games, 1000 Adam epochs from the
//   hand-set values (configs/params/hand-set-eval.yaml); +31.0 +- 12.5 Elo
//   against them, SPRT [0, 5] normalized H1 in 2104 games;
// - then the piece-square tables alone, from hand-set formulas (kept in that
//   file too): 7,000 games, 1000 epochs (configs/texel-psqt.yaml). Squares
//   seen in under 0.1% of the positions keep their hand-set values.
// - then the passed-pawn weights alone, with `passed_safe_path` and
//   `passed_safe_stop` added at zero: the same 7,000 games, 1000 epochs
//   (configs/texel-passed.yaml);
// - then every weight but the piece-square tables again, with six terms
//   added at zero (`minor_behind_pawn`, `bishop_pawns`, `king_protector`,
//   `rook_behind_passer`, `threat_pawn_push`, `threat_by_king`): the same
//   7,000 games, 1000 epochs (configs/texel-terms.yaml);
// - then every weight again on fresh games (configs/texel-all.yaml);
// - then four king-danger terms alone, added at zero (`king_unsafe_checks`,
//   `king_flank_attacks`, `king_flank_defense`, `king_knight_defender`),
//   every other weight fixed: 8,000 fresh games, 1000 epochs
//   (configs/texel-king.yaml);
// - then thirteen terms of Stockfish's classical evaluation alone, added at
//   zero (`pawn_weak_unopposed` to `threat_slider_on_queen`), every other
//   weight fixed: 8,000 fresh games, 1000 epochs
//   (configs/texel-classical.yaml);
// - then six more of them alone, added at zero (`knight_reachable_outpost`,
//   `threat_minor_on_minor`, `threat_by_rook`, `king_pawn_distance`,
//   `king_pawnless_flank`, `passed_file`), on the same games
//   (configs/texel-classical2.yaml);
// - then Stockfish's material imbalance (`imbalance_ours`,
//   `imbalance_theirs`) and four more danger inputs
//   (`king_flank_attacks_twice`, `king_flank_attacks_sq`, `king_blockers`,
//   `king_mobility_diff`) alone, added at zero: 8,000 fresh games, 1000
//   epochs (configs/texel-imbalance.yaml);
// - then Stockfish's winnability sum (`winnable`), added at zero, and every
//   weight retuned with it: 8,000 fresh games and the previous round's,
//   1000 epochs (configs/texel-winnable.yaml).
// The `king_*` danger weights are in "danger units": their sum d enters the
// score non-linearly as (-max(d_mg, 0)^2 / 720, -max(d_eg, 0) / 20).
eval_weights! {
    // Material
    material_pawn: S = S(58, 134), "value of a pawn";
    material_knight: S = S(319, 226), "value of a knight";
    material_bishop: S = S(348, 270), "value of a bishop";
    material_rook: S = S(491, 421), "value of a rook";
    material_queen: S = S(1113, 766), "value of a queen";
    // Piece-square tables
    psqt_pawn: [S; 48] = [
        S(-13, 1), S(-4, -1), S(-2, 2), S(-2, 10), S(-2, 8), S(8, 10), S(20, 0), S(-8, -13),
        S(-22, -10), S(-15, -9), S(-10, -5), S(-4, 3), S(2, 0), S(-8, -1), S(8, -13), S(-10, -13),
        S(-15, -7), S(-11, 0), S(-6, 6), S(12, -4), S(9, 0), S(4, -2), S(-5, 2), S(-4, -12),
        S(4, 2), S(8, 1), S(-6, 3), S(8, 3), S(7, 10), S(4, -3), S(-1, 11), S(0, -11),
        S(13, 11), S(1, 21), S(39, 22), S(1, 5), S(4, 17), S(-1, 10), S(-21, 35), S(3, 8),
        S(36, 12), S(-13, 30), S(-13, 51), S(28, 26), S(20, 19), S(-20, 33), S(-12, 49), S(7, 8),
    ], "pawn on this square (a2 = 0)";
    psqt_knight: [S; 64] = [
        S(-32, -22), S(-24, -22), S(-33, -22), S(-10, -13), S(-22, -13), S(-6, -29), S(-30, -26), S(-32, -22),
        S(-33, -22), S(-21, -7), S(-20, -20), S(-6, -1), S(-6, -3), S(-9, -13), S(-30, 10), S(-24, -15),
        S(-18, -26), S(0, -1), S(-10, 0), S(0, 12), S(3, 14), S(0, -7), S(7, -11), S(-11, -35),
        S(3, -2), S(10, 3), S(17, 26), S(17, 20), S(24, 21), S(18, 14), S(29, -2), S(15, -8),
        S(10, -4), S(10, 17), S(17, 13), S(25, 34), S(13, 18), S(25, 21), S(11, 7), S(23, -3),
        S(-20, -4), S(2, -3), S(10, 23), S(10, 17), S(20, 25), S(30, 23), S(-9, -11), S(-20, 4),
        S(-26, 14), S(-27, -2), S(-6, 25), S(21, 18), S(-4, 18), S(27, 9), S(-6, 19), S(-26, -7),
        S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22),
    ], "knight on this square (a1 = 0)";
    psqt_bishop: [S; 64] = [
        S(-13, -13), S(15, -29), S(-7, -15), S(-25, -10), S(6, -29), S(-25, -4), S(-9, -24), S(-10, -14),
        S(17, -35), S(7, -23), S(21, -20), S(-1, -6), S(-4, -8), S(21, -35), S(9, -34), S(2, -44),
        S(0, -14), S(18, 0), S(3, -5), S(9, -7), S(6, -4), S(3, -10), S(4, 2), S(-3, -4),
        S(20, 0), S(13, -6), S(10, 10), S(14, 7), S(25, 0), S(6, 3), S(-3, -2), S(2, -9),
        S(9, -2), S(4, 17), S(9, -3), S(13, 13), S(12, 8), S(9, 2), S(10, -5), S(-13, 3),
        S(-20, 19), S(-3, 10), S(-5, 10), S(11, 9), S(24, 14), S(15, -7), S(-7, 13), S(7, -1),
        S(-30, 4), S(-29, 17), S(-15, 14), S(11, 12), S(2, -5), S(1, 17), S(-31, -1), S(-25, -6),
        S(-2, -4), S(-8, -6), S(-8, 18), S(-8, 8), S(-8, 15), S(-8, 7), S(-8, -5), S(-2, -16),
    ], "bishop on this square (a1 = 0)";
    psqt_rook: [S; 64] = [
        S(0, -20), S(5, -17), S(4, -11), S(9, -13), S(14, -25), S(5, -19), S(-7, -6), S(7, -31),
        S(-11, -21), S(-4, -23), S(-5, -4), S(10, -12), S(1, -15), S(1, -20), S(8, -12), S(-28, -21),
        S(-26, 7), S(13, -18), S(-14, -5), S(4, -15), S(-9, 2), S(-20, 1), S(-2, 0), S(-16, -6),
        S(-8, 10), S(1, 13), S(4, 16), S(4, 5), S(-13, 10), S(-8, 10), S(6, 8), S(-18, 4),
        S(0, 19), S(3, 17), S(7, 18), S(18, 7), S(8, 9), S(5, 7), S(14, 15), S(-21, 18),
        S(7, 20), S(25, 10), S(29, 10), S(20, 8), S(27, 7), S(30, 5), S(8, 14), S(13, 11),
        S(5, 10), S(11, 3), S(11, 12), S(16, 6), S(13, 6), S(10, 1), S(-2, 10), S(4, 9),
        S(17, 26), S(13, 15), S(15, 20), S(1, 21), S(15, 15), S(8, 22), S(20, 21), S(7, 19),
    ], "rook on this square (a1 = 0)";
    psqt_queen: [S; 64] = [
        S(-6, -24), S(-10, -15), S(-1, -39), S(-6, -60), S(-8, -41), S(-29, -33), S(-12, -14), S(-6, -14),
        S(-26, -25), S(-15, -34), S(-2, -37), S(-3, -29), S(4, -44), S(-4, -28), S(2, -50), S(-9, -14),
        S(-7, -7), S(-1, -13), S(-5, 0), S(-1, 0), S(-4, -10), S(3, -16), S(17, -20), S(2, -45),
        S(-5, 12), S(3, -10), S(-6, 23), S(1, 28), S(10, 3), S(-8, 18), S(5, -4), S(10, -10),
        S(1, -14), S(-9, 14), S(0, 14), S(-8, 23), S(4, 22), S(9, -1), S(3, 7), S(1, -11),
        S(-2, -5), S(-13, 12), S(7, 10), S(14, 20), S(5, 2), S(25, 16), S(23, -6), S(7, -8),
        S(-23, -9), S(-21, 6), S(-3, 3), S(2, 7), S(-8, 4), S(-5, 7), S(1, -5), S(1, -11),
        S(-11, -13), S(-10, -13), S(-2, -5), S(-2, -2), S(-1, -16), S(-6, -13), S(-6, -12), S(-5, -7),
    ], "queen on this square (a1 = 0)";
    psqt_king: [S; 64] = [
        S(-38, -12), S(-5, -25), S(-6, -23), S(-55, -22), S(-32, -32), S(-42, -28), S(14, -37), S(13, -51),
        S(6, -24), S(-9, -12), S(-42, -5), S(-41, -8), S(-48, -1), S(-40, -3), S(-2, -18), S(4, -34),
        S(-19, -37), S(-3, -19), S(-9, -11), S(-51, 1), S(-60, 0), S(-22, 0), S(-10, -16), S(-35, -32),
        S(-45, -37), S(-17, -16), S(-35, -3), S(-74, -2), S(-65, 2), S(-42, -4), S(-15, -20), S(-31, -38),
        S(-55, -21), S(-35, -1), S(-62, 16), S(-84, 17), S(-80, 24), S(-54, 13), S(-37, -4), S(-50, -23),
        S(-60, -7), S(-50, 15), S(-62, 28), S(-81, 30), S(-83, 35), S(-59, 5), S(-40, 7), S(-59, -14),
        S(-60, -29), S(-50, 30), S(-67, 30), S(-87, 39), S(-83, 32), S(-66, 11), S(-51, -32), S(-59, -31),
        S(-60, -61), S(-50, -24), S(-67, -22), S(-87, 0), S(-83, -17), S(-69, -26), S(-49, -20), S(-59, -79),
    ], "king on this square (a1 = 0)";
    // Mobility
    mobility_knight: [S; 9] = [
        S(-45, -40), S(-14, -30), S(0, -18), S(3, 5), S(7, 11), S(14, 19), S(16, 23), S(21, 18),
        S(21, 6),
    ], "knight with this many safe squares";
    mobility_bishop: [S; 14] = [
        S(-16, -50), S(-4, -28), S(8, -14), S(10, 2), S(17, 14), S(19, 22), S(25, 23), S(26, 25),
        S(23, 32), S(27, 26), S(31, 26), S(31, 24), S(28, 40), S(21, 19),
    ], "bishop with this many safe squares";
    mobility_rook: [S; 15] = [
        S(-68, -82), S(0, -40), S(11, -23), S(11, -3), S(13, -1), S(15, 17), S(17, 16), S(18, 24),
        S(20, 30), S(23, 38), S(25, 41), S(31, 39), S(34, 42), S(35, 41), S(37, 34),
    ], "rook with this many safe squares";
    mobility_queen: [S; 28] = [
        S(-20, -40), S(-5, -21), S(-13, -13), S(-1, -7), S(0, -23), S(6, -18), S(11, 11), S(14, 19),
        S(19, 10), S(19, 29), S(25, 28), S(26, 34), S(21, 54), S(24, 65), S(26, 64), S(27, 71),
        S(29, 74), S(25, 69), S(36, 57), S(30, 53), S(37, 42), S(52, 13), S(44, 29), S(37, -39),
        S(25, 16), S(17, -22), S(34, 58), S(35, -8),
    ], "queen with this many safe squares";
    // Pawn structure
    pawn_doubled: S = S(-11, -18), "pawn with an own pawn in front of it on its file";
    pawn_isolated: S = S(-8, -10), "pawn with no own pawn on the adjacent files";
    pawn_backward: S = S(-1, -8), "pawn behind its neighbours whose stop square an enemy pawn attacks";
    pawn_phalanx: [S; 6] = [
        S(4, -2), S(5, 3), S(9, 8), S(18, 33), S(35, 82), S(50, 60),
    ],
        "pawn with an own pawn beside it, by relative rank (index 0 = rank 2)";
    pawn_supported: [S; 5] = [
        S(16, 8), S(12, 5), S(15, 24), S(53, 37), S(55, 54),
    ],
        "pawn defended by an own pawn, by relative rank (index 0 = rank 3)";
    passed_pawn: [S; 6] = [
        S(7, -5), S(-8, 28), S(-5, 52), S(10, 74), S(38, 84), S(148, 82),
    ],
        "passed pawn by relative rank (index 0 = rank 2)";
    pawn_weak_unopposed: S = S(-3, -7), "isolated or backward pawn with no enemy pawn ahead on its file";
    pawn_blocked: [S; 2] = [
        S(-11, -6), S(-7, 4),
    ], "pawn on the fifth or sixth rank blocked by an enemy pawn";
    passed_free_path: [S; 6] = [
        S(-5, 10), S(-13, 2), S(-11, 8), S(6, 13), S(39, 33), S(63, 76),
    ],
        "passed pawn whose path to promotion is empty, by relative rank";
    passed_own_king_dist: [S; 8] = [
        S(-17, 32), S(-9, 29), S(1, 4), S(6, -14), S(-5, -22), S(20, -36), S(13, -25), S(-1, -24),
    ], "passed pawn with its own king at this distance from its stop square";
    passed_enemy_king_dist: [S; 8] = [
        S(-18, -40), S(17, -54), S(13, -20), S(9, -2), S(8, 15), S(-8, 34), S(-12, 46), S(-3, 36),
    ], "passed pawn with the enemy king at this distance from its stop square";
    passed_safe_path: [S; 6] = [
        S(-13, 12), S(-39, -2), S(-24, 16), S(-32, 50), S(-5, 105), S(17, 154),
    ],
        "passed pawn with an empty stop square whose path no enemy piece or pawn attacks, by relative rank";
    passed_safe_stop: [S; 5] = [
        S(9, -5), S(7, -11), S(15, -5), S(16, 10), S(12, 38),
    ],
        "passed pawn whose path is attacked but whose empty stop square is not, by relative rank \
         (ranks 2-6: on the seventh the path is the stop square)";
    // Pieces
    bishop_pair: S = S(32, 62), "two or more bishops";
    rook_open_file: S = S(39, -7), "rook on a file without pawns";
    rook_half_open_file: S = S(23, -9), "rook on a file without own pawns but with enemy pawns";
    queen_open_file: S = S(-4, -9), "queen on a file without pawns";
    queen_half_open_file: S = S(5, -3), "queen on a file without own pawns but with enemy pawns";
    rook_on_seventh: S = S(6, 14), "rook on the seventh rank with the enemy king or pawns on the eighth or seventh";
    knight_outpost: S = S(27, 10), "knight on ranks 4-6, defended by a pawn, that no enemy pawn can attack";
    knight_reachable_outpost: S = S(10, 13), "knight not on an outpost that attacks an empty one";
    bishop_outpost: S = S(28, 4), "bishop on ranks 4-6, defended by a pawn, that no enemy pawn can attack";
    minor_behind_pawn: S = S(5, 10), "knight or bishop with a pawn of either colour directly in front of it";
    bishop_pawns: S = S(-1, -6), "per own pawn on the squares of a bishop's colour";
    king_protector: S = S(-3, -3), "per square of distance between a knight or bishop and its own king";
    rook_behind_passer: S = S(7, 12), "rook behind an own passed pawn on its file, nothing between them";
    rook_on_queen_file: S = S(4, 23), "rook on a file with a queen of either colour";
    rook_trapped: S = S(-9, -7), "rook on a file with own pawns, at most three safe squares, between its king and the corner (x2 without castling rights)";
    bishop_long_diagonal: S = S(11, 11), "bishop that sees two centre squares through the pawns";
    bishop_xray_pawns: S = S(-5, -1), "per enemy pawn on a bishop's diagonals, pieces ignored";
    slider_on_king_ring: [S; 2] = [
        S(15, 12), S(6, -12),
    ],
        "bishop (through the pawns) or rook (its file) aimed at the enemy king zone without attacking it";
    queen_infiltration: S = S(7, 19), "queen in the enemy half on a square no enemy pawn can attack";
    space: S = S(1, -3), "safe centre squares behind the pawn line (doubled behind the pawns), times the squared piece count / 64";
    // King safety: linear pawn shelter
    king_shield: [S; 4] = [
        S(13, -3), S(4, -1), S(-2, -8), S(-21, 8),
    ],
        "nearest own pawn ahead of the king on its file or an adjacent one at distance 1, 2, 3+, none";
    pawn_storm: [S; 4] = [
        S(22, 31), S(-12, -8), S(11, -6), S(14, -10),
    ],
        "nearest enemy pawn ahead of the king on its file or an adjacent one at distance 1, 2, 3, 4+";
    // King safety: danger units, summed and then applied non-linearly
    king_attacker: [S; 4] = [
        S(46, 39), S(38, 8), S(30, 23), S(27, 2),
    ],
        "danger: enemy piece of this type attacking the king zone";
    king_zone_attacks: S = S(25, 3), "danger: per attack of an enemy piece on a king-zone square";
    king_weak_squares: S = S(21, -14), "danger: king-zone square attacked by the enemy and defended by no pawn or minor or rook";
    king_safe_check: [S; 4] = [
        S(110, 27), S(78, 28), S(143, 38), S(65, 0),
    ],
        "danger: safe checking square for an enemy piece of this type";
    king_unsafe_checks: S = S(29, 22), "danger: checking square of an enemy knight, bishop or rook that the king's side defends";
    king_flank_attacks: S = S(6, -23), "danger: square of the king's flank (its wing, in its own half and the two ranks beyond) attacked by the enemy";
    king_flank_defense: S = S(-5, 13), "danger: square of the king's flank defended by the king's side";
    king_knight_defender: S = S(-23, 5), "danger: a knight of the king's side guards a square next to the king";
    king_flank_attacks_twice: S = S(5, 4), "danger: square of the king's flank attacked twice by the enemy";
    king_flank_attacks_sq: S = S(1, 7), "danger: (flank squares attacked + those attacked twice) squared / 8";
    king_blockers: S = S(37, 12), "danger: piece of either colour alone between the king and an enemy slider";
    king_mobility_diff: S = S(2, 5), "danger: the attacker's mobility (safe squares, all pieces) minus the defender's";
    king_danger_no_queen: S = S(-261, -54), "danger: the attacker has no queen";
    king_danger_base: S = S(-35, -14), "danger: constant offset once the king is attacked";
    // Threats
    threat_by_pawn: [S; 4] = [
        S(53, 27), S(44, 38), S(53, 37), S(39, 35),
    ],
        "enemy piece of this type attacked by a pawn";
    threat_by_minor: [S; 2] = [
        S(43, 10), S(39, -1),
    ], "enemy rook or queen attacked by a knight or bishop";
    threat_rook_on_queen: S = S(45, 8), "enemy queen attacked by a rook";
    threat_hanging: S = S(17, -3), "enemy piece (not pawn or king) attacked and undefended";
    threat_pawn_push: S = S(14, 12), "enemy piece (not pawn or king) a safe pawn push would attack";
    threat_by_king: S = S(26, 29), "the king attacks an undefended enemy piece or pawn";
    threat_restricted: S = S(3, 1), "square attacked by both sides that the enemy does not strongly protect";
    threat_weak_queen_protection: S = S(4, 13), "attacked enemy piece or pawn, not strongly protected, that the enemy queen defends";
    threat_knight_on_queen: S = S(5, 4), "safe square from which a knight would attack the lone enemy queen (x2 without an own queen)";
    threat_slider_on_queen: S = S(13, -7), "safe square attacked twice from which a bishop or rook would attack the lone enemy queen (x2 without an own queen)";
    threat_minor_on_minor: [S; 3] = [
        S(3, 20), S(14, 31), S(29, 24),
    ],
        "enemy pawn (not strongly protected), knight or bishop attacked by a knight or bishop";
    threat_by_rook: [S; 4] = [
        S(0, 18), S(19, 27), S(19, 28), S(10, 10),
    ],
        "enemy pawn, knight, bishop or rook, not strongly protected, attacked by a rook";
    king_pawn_distance: S = S(1, -11), "distance from the king to its nearest own pawn";
    king_pawnless_flank: S = S(30, -34), "no pawn of either colour on the king's flank";
    passed_file: S = S(-4, -4), "passed pawn, per file of distance from the edge";
    imbalance_ours: [S; 19] = [
        S(-3, 12), S(1, 27), S(-2, 44), S(5, -27), S(8, 29), S(3, 34), S(14, -49), S(-32, -40),
        S(3, 27), S(-14, 61), S(19, -30), S(27, -50), S(63, -67), S(16, 25), S(-11, 109), S(-32, -5),
        S(-20, -1), S(-50, -28), S(-58, -281),
    ],
        "material imbalance: product of the counts of two own piece kinds (pair, pawn, N, B, R, Q; IMBALANCE_OURS in terms.rs)";
    imbalance_theirs: [S; 15] = [
        S(1, 9), S(-8, 23), S(-2, 34), S(-6, 6), S(-6, 41), S(-2, 5), S(-24, 24), S(-21, 66),
        S(-13, 6), S(6, -32), S(6, 0), S(-5, 108), S(35, 18), S(23, 37), S(49, 16),
    ],
        "material imbalance: own pieces of one kind times enemy pieces of a lesser kind (IMBALANCE_THEIRS in terms.rs)";
    // Winnability: a sum that moves the middlegame and endgame halves of the
    // total toward zero (drawish) or away from it, never past zero (mod.rs,
    // `winnable`)
    winnable: [S; 8] = [
        S(21, 8), S(70, 5), S(7, 2), S(0, 15), S(-75, -16), S(0, 57), S(-37, -15), S(-107, -63),
    ],
        "winnability: passed pawns, pawns, king outflanking (file distance minus rank distance), pawns on both flanks, a king in the enemy half, a pawn ending, outflanking < 0 with pawns on one flank, constant";
    // Side to move
    tempo: S = S(13, 8), "bonus for the side to move";
}
