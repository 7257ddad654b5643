//! The evaluation weight table: every weight is a tapered (middlegame,
//! endgame) pair declared once in `eval_weights!` below. The macro generates
//! [`EvalWeights`], the flat index of each weight (for the Texel trace) and
//! the scalar [`ParamSpec`]s that make each pair two parameters,
//! `<name>_mg` / `<name>_eg` (`<name>_<i>_mg` for arrays).

use std::sync::OnceLock;

use crate::param_spec::{ParamKind, ParamSpec};

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
pub const WEIGHT_MAX: i32 = 5000;

/// A field shape in the weight table: a single pair or an array of pairs.
pub trait WeightShape {
    const LEN: usize;
    fn at(&self, i: usize) -> S;
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
        pub struct WeightIndex { $( pub $name: usize, )* }

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
//   epochs (configs/texel-imbalance.yaml).
// The `king_*` danger weights are in "danger units": their sum d enters the
// score non-linearly as (-max(d_mg, 0)^2 / 720, -max(d_eg, 0) / 20).
eval_weights! {
    // Material
    material_pawn: S = S(79, 104), "value of a pawn";
    material_knight: S = S(330, 316), "value of a knight";
    material_bishop: S = S(353, 337), "value of a bishop";
    material_rook: S = S(475, 550), "value of a rook";
    material_queen: S = S(1127, 870), "value of a queen";
    // Piece-square tables
    psqt_pawn: [S; 48] = [
        S(-8, -1), S(-5, 2), S(-4, -2), S(8, 5), S(5, 4), S(7, -1), S(18, 4), S(0, -4),
        S(-14, -10), S(-14, 0), S(-6, 3), S(-1, 1), S(3, 3), S(0, -4), S(7, -4), S(0, -5),
        S(-17, -1), S(-12, 9), S(-3, 3), S(17, 3), S(14, -3), S(6, 2), S(-5, 3), S(-3, -4),
        S(-4, 4), S(0, -2), S(-5, 2), S(15, -9), S(16, -2), S(18, -12), S(-3, 2), S(-5, -5),
        S(-6, 17), S(-11, 14), S(27, 3), S(-22, 13), S(12, 12), S(7, 5), S(4, 22), S(-14, -2),
        S(9, 1), S(-12, 42), S(-18, 33), S(26, 30), S(34, 30), S(-9, 45), S(-21, 44), S(9, 6),
    ], "pawn on this square (a2 = 0)";
    psqt_knight: [S; 64] = [
        S(-32, -22), S(-20, -7), S(-26, -18), S(-17, -16), S(-16, -29), S(-5, -12), S(-17, -24), S(-32, -22),
        S(-38, -22), S(-34, -13), S(-19, -1), S(-5, -2), S(-7, -6), S(-13, -13), S(-31, 14), S(-16, -8),
        S(-25, -22), S(3, 7), S(-10, 9), S(6, 7), S(1, 7), S(4, 2), S(0, 4), S(-14, -14),
        S(5, -3), S(12, -2), S(12, 27), S(14, 24), S(21, 22), S(18, 17), S(21, 3), S(6, -1),
        S(10, -10), S(3, 18), S(33, 12), S(39, 13), S(6, 39), S(40, 25), S(11, 11), S(22, -9),
        S(-20, -3), S(10, 3), S(24, 32), S(14, 12), S(25, 26), S(27, 23), S(-3, -1), S(-20, 5),
        S(-22, 14), S(-16, -12), S(-22, 17), S(8, 26), S(-7, 14), S(20, 14), S(-6, 12), S(-26, -8),
        S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22),
    ], "knight on this square (a1 = 0)";
    psqt_bishop: [S; 64] = [
        S(-1, -9), S(11, -28), S(-6, -23), S(-22, -7), S(-12, -20), S(-21, -6), S(-9, -10), S(-2, 8),
        S(36, -25), S(6, -11), S(4, -22), S(-3, -9), S(-5, -4), S(24, -24), S(10, -19), S(0, -37),
        S(-6, 1), S(23, -1), S(15, -6), S(2, 4), S(2, -7), S(8, 3), S(3, -5), S(3, -11),
        S(8, -1), S(8, -16), S(11, 9), S(8, 10), S(29, 1), S(7, -3), S(-9, -8), S(-1, -17),
        S(17, -14), S(1, 10), S(9, 5), S(21, 7), S(14, 8), S(-2, 11), S(6, 0), S(-28, -5),
        S(-26, 21), S(-4, 14), S(16, 6), S(-3, 6), S(24, 9), S(10, 20), S(-5, 12), S(9, -5),
        S(-32, -1), S(-23, 21), S(-12, 9), S(15, 12), S(5, -1), S(3, 15), S(-22, -1), S(-25, -18),
        S(-2, 0), S(-8, -7), S(-8, 16), S(-8, -7), S(-8, 14), S(-8, 4), S(-8, -6), S(-2, -8),
    ], "bishop on this square (a1 = 0)";
    psqt_rook: [S; 64] = [
        S(-4, -11), S(-6, -14), S(6, -12), S(9, -12), S(13, -25), S(11, -17), S(-3, -10), S(4, -20),
        S(-5, -2), S(-6, -9), S(-19, 3), S(7, -10), S(3, -1), S(-1, -14), S(13, -14), S(-14, -18),
        S(-21, -1), S(-3, -4), S(-6, 4), S(-2, -10), S(-19, 8), S(-21, 14), S(-9, 0), S(-25, 3),
        S(-12, 14), S(-5, 12), S(14, 13), S(7, 6), S(-6, 8), S(-12, 13), S(9, 8), S(-7, 5),
        S(2, 16), S(-10, 18), S(7, 18), S(17, 3), S(-2, 12), S(15, 6), S(15, 10), S(-12, 20),
        S(16, 14), S(17, 11), S(24, 13), S(19, 14), S(35, 7), S(26, 13), S(8, 20), S(27, 11),
        S(-1, 8), S(17, -2), S(9, 14), S(10, 11), S(14, 11), S(2, 8), S(7, 7), S(-2, 3),
        S(25, 15), S(11, 18), S(13, 17), S(-7, 24), S(13, 8), S(4, 22), S(19, 15), S(16, 19),
    ], "rook on this square (a1 = 0)";
    psqt_queen: [S; 64] = [
        S(-8, -23), S(-9, -5), S(-16, -32), S(-4, -32), S(-12, -36), S(-24, -29), S(-6, -14), S(-6, -14),
        S(-29, -25), S(-11, -36), S(-1, -38), S(0, -43), S(7, -49), S(2, -32), S(17, -31), S(7, -14),
        S(-17, -2), S(0, -4), S(-3, 5), S(2, -5), S(-7, 4), S(5, -1), S(20, -18), S(11, -34),
        S(-8, 7), S(-4, -10), S(0, 22), S(-8, 26), S(7, 7), S(-9, 19), S(17, -7), S(5, -3),
        S(-3, -15), S(-3, 10), S(6, 14), S(-4, 13), S(13, 24), S(24, 9), S(-5, 7), S(2, -11),
        S(-1, -8), S(-3, 18), S(4, 12), S(7, 22), S(10, 4), S(27, 13), S(13, -2), S(-9, -11),
        S(-13, -8), S(-26, 1), S(-7, -2), S(1, 6), S(-10, -4), S(-11, 11), S(-2, -4), S(-4, -8),
        S(2, -15), S(-16, -17), S(-6, -10), S(-6, -5), S(-6, -13), S(-6, -8), S(-6, -17), S(-11, -10),
    ], "queen on this square (a1 = 0)";
    psqt_king: [S; 64] = [
        S(-21, -20), S(6, -22), S(0, -19), S(-62, -20), S(-24, -23), S(-42, -25), S(9, -30), S(1, -41),
        S(13, -26), S(-1, -9), S(-38, -3), S(-28, -9), S(-32, -8), S(-36, -2), S(-10, -12), S(3, -31),
        S(-24, -50), S(-9, -17), S(0, -9), S(-41, 4), S(-51, 2), S(-22, 2), S(-12, -13), S(-32, -25),
        S(-45, -32), S(-21, -19), S(-40, -6), S(-76, 8), S(-63, 6), S(-39, 0), S(-14, -17), S(-28, -27),
        S(-55, -33), S(-41, -3), S(-65, 2), S(-90, 8), S(-82, 15), S(-59, 13), S(-39, 6), S(-54, -22),
        S(-60, -22), S(-54, 11), S(-68, 9), S(-88, 12), S(-87, 22), S(-60, 29), S(-37, 19), S(-59, -13),
        S(-60, -29), S(-50, 12), S(-67, 10), S(-87, 18), S(-83, 20), S(-66, 23), S(-46, 30), S(-59, -17),
        S(-60, -61), S(-50, -41), S(-67, -33), S(-87, -23), S(-83, -28), S(-69, -19), S(-49, -16), S(-59, -61),
    ], "king on this square (a1 = 0)";
    // Mobility
    mobility_knight: [S; 9] = [
        S(-39, -40), S(-14, -21), S(-2, 4), S(1, 15), S(9, 19), S(15, 24), S(20, 25),
        S(23, 24), S(26, 11)
    ], "knight with this many safe squares";
    mobility_bishop: [S; 14] = [
        S(-24, -36), S(-5, -21), S(9, -8), S(11, 6), S(19, 17), S(23, 30), S(27, 28), S(29, 30),
        S(31, 33), S(32, 30), S(31, 24), S(24, 29), S(25, 35), S(20, 32)
    ], "bishop with this many safe squares";
    mobility_rook: [S; 15] = [
        S(-68, -82), S(-14, -42), S(5, -13), S(5, 8), S(10, 22), S(13, 27), S(16, 27), S(17, 33),
        S(21, 40), S(25, 44), S(25, 47), S(31, 49), S(39, 51), S(46, 48), S(32, 46)
    ], "rook with this many safe squares";
    mobility_queen: [S; 28] = [
        S(-20, -40), S(1, -21), S(-13, -13), S(1, -7), S(-2, -16), S(7, -17), S(13, 15),
        S(14, 31), S(21, 16), S(23, 31), S(28, 22), S(26, 37), S(25, 54), S(29, 60), S(28, 60),
        S(27, 72), S(25, 74), S(20, 71), S(44, 62), S(28, 62), S(38, 48), S(48, 20), S(41, 37),
        S(29, -32), S(25, 17), S(17, -7), S(34, 58), S(35, 2)
    ], "queen with this many safe squares";
    // Pawn structure
    pawn_doubled: S = S(-14, -10), "pawn with an own pawn in front of it on its file";
    pawn_isolated: S = S(-9, -11), "pawn with no own pawn on the adjacent files";
    pawn_backward: S = S(0, -16), "pawn behind its neighbours whose stop square an enemy pawn attacks";
    pawn_phalanx: [S; 6] = [S(4, 1), S(5, 3), S(12, 8), S(23, 31), S(35, 61), S(50, 60)],
        "pawn with an own pawn beside it, by relative rank (index 0 = rank 2)";
    pawn_supported: [S; 5] = [S(14, 10), S(12, 3), S(20, 15), S(59, 30), S(55, 55)],
        "pawn defended by an own pawn, by relative rank (index 0 = rank 3)";
    passed_pawn: [S; 6] = [S(-3, 1), S(-10, 26), S(-8, 50), S(20, 75), S(49, 84), S(132, 85)],
        "passed pawn by relative rank (index 0 = rank 2)";
    pawn_weak_unopposed: S = S(-4, -4), "isolated or backward pawn with no enemy pawn ahead on its file";
    pawn_blocked: [S; 2] = [S(-5, 0), S(4, -3)], "pawn on the fifth or sixth rank blocked by an enemy pawn";
    passed_free_path: [S; 6] = [S(6, 6), S(-13, 0), S(-8, 8), S(5, 15), S(28, 42), S(44, 84)],
        "passed pawn whose path to promotion is empty, by relative rank";
    passed_own_king_dist: [S; 8] = [
        S(-15, 36), S(-19, 36), S(-5, 8), S(9, -9), S(-3, -22), S(10, -34), S(16, -31),
        S(6, -34)
    ], "passed pawn with its own king at this distance from its stop square";
    passed_enemy_king_dist: [S; 8] = [
        S(-9, -37), S(19, -55), S(-1, -21), S(-3, 1), S(-1, 16), S(-6, 33), S(-20, 53), S(17, 32)
    ], "passed pawn with the enemy king at this distance from its stop square";
    passed_safe_path: [S; 6] = [S(1, -2), S(-33, -6), S(-12, 14), S(-29, 37), S(-11, 84), S(15, 139)],
        "passed pawn with an empty stop square whose path no enemy piece or pawn attacks, by relative rank";
    passed_safe_stop: [S; 5] = [S(14, -4), S(25, -13), S(19, -7), S(19, 0), S(2, 37)],
        "passed pawn whose path is attacked but whose empty stop square is not, by relative rank \
         (ranks 2-6: on the seventh the path is the stop square)";
    // Pieces
    bishop_pair: S = S(27, 47), "two or more bishops";
    rook_open_file: S = S(41, -4), "rook on a file without pawns";
    rook_half_open_file: S = S(21, 3), "rook on a file without own pawns but with enemy pawns";
    queen_open_file: S = S(-4, -10), "queen on a file without pawns";
    queen_half_open_file: S = S(2, 4), "queen on a file without own pawns but with enemy pawns";
    rook_on_seventh: S = S(13, 19), "rook on the seventh rank with the enemy king or pawns on the eighth or seventh";
    knight_outpost: S = S(22, 7), "knight on ranks 4-6, defended by a pawn, that no enemy pawn can attack";
    knight_reachable_outpost: S = S(13, 6), "knight not on an outpost that attacks an empty one";
    bishop_outpost: S = S(19, 6), "bishop on ranks 4-6, defended by a pawn, that no enemy pawn can attack";
    minor_behind_pawn: S = S(3, 10), "knight or bishop with a pawn of either colour directly in front of it";
    bishop_pawns: S = S(-2, -4), "per own pawn on the squares of a bishop's colour";
    king_protector: S = S(-2, -1), "per square of distance between a knight or bishop and its own king";
    rook_behind_passer: S = S(5, 15), "rook behind an own passed pawn on its file, nothing between them";
    rook_on_queen_file: S = S(4, 12), "rook on a file with a queen of either colour";
    rook_trapped: S = S(-9, 3), "rook on a file with own pawns, at most three safe squares, between its king and the corner (x2 without castling rights)";
    bishop_long_diagonal: S = S(5, 1), "bishop that sees two centre squares through the pawns";
    bishop_xray_pawns: S = S(-3, 0), "per enemy pawn on a bishop's diagonals, pieces ignored";
    slider_on_king_ring: [S; 2] = [S(16, 11), S(3, -8)],
        "bishop (through the pawns) or rook (its file) aimed at the enemy king zone without attacking it";
    queen_infiltration: S = S(7, 5), "queen in the enemy half on a square no enemy pawn can attack";
    space: S = S(0, -3), "safe centre squares behind the pawn line (doubled behind the pawns), times the squared piece count / 64";
    // King safety: linear pawn shelter
    king_shield: [S; 4] = [S(11, -2), S(3, -1), S(-2, -7), S(-19, 5)],
        "nearest own pawn ahead of the king on its file or an adjacent one at distance 1, 2, 3+, none";
    pawn_storm: [S; 4] = [S(11, 34), S(-12, -4), S(12, -2), S(13, 0)],
        "nearest enemy pawn ahead of the king on its file or an adjacent one at distance 1, 2, 3, 4+";
    // King safety: danger units, summed and then applied non-linearly
    king_attacker: [S; 4] = [S(48, 36), S(51, 5), S(31, 27), S(42, 3)],
        "danger: enemy piece of this type attacking the king zone";
    king_zone_attacks: S = S(29, 11), "danger: per attack of an enemy piece on a king-zone square";
    king_weak_squares: S = S(29, -4), "danger: king-zone square attacked by the enemy and defended by no pawn or minor or rook";
    king_safe_check: [S; 4] = [S(107, 27), S(72, 27), S(137, 36), S(64, -5)],
        "danger: safe checking square for an enemy piece of this type";
    king_unsafe_checks: S = S(20, 8), "danger: checking square of an enemy knight, bishop or rook that the king's side defends";
    king_flank_attacks: S = S(8, -13), "danger: square of the king's flank (its wing, in its own half and the two ranks beyond) attacked by the enemy";
    king_flank_defense: S = S(-5, 8), "danger: square of the king's flank defended by the king's side";
    king_knight_defender: S = S(-14, 4), "danger: a knight of the king's side guards a square next to the king";
    king_flank_attacks_twice: S = S(14, 0), "danger: square of the king's flank attacked twice by the enemy";
    king_flank_attacks_sq: S = S(-2, -10), "danger: (flank squares attacked + those attacked twice) squared / 8";
    king_blockers: S = S(24, 3), "danger: piece of either colour alone between the king and an enemy slider";
    king_mobility_diff: S = S(1, 3), "danger: the attacker's mobility (safe squares, all pieces) minus the defender's";
    king_danger_no_queen: S = S(-280, -54), "danger: the attacker has no queen";
    king_danger_base: S = S(-47, -13), "danger: constant offset once the king is attacked";
    // Threats
    threat_by_pawn: [S; 4] = [S(48, 18), S(42, 26), S(50, 27), S(28, 35)],
        "enemy piece of this type attacked by a pawn";
    threat_by_minor: [S; 2] = [S(46, 7), S(40, -4)], "enemy rook or queen attacked by a knight or bishop";
    threat_rook_on_queen: S = S(41, 13), "enemy queen attacked by a rook";
    threat_hanging: S = S(17, 4), "enemy piece (not pawn or king) attacked and undefended";
    threat_pawn_push: S = S(13, 7), "enemy piece (not pawn or king) a safe pawn push would attack";
    threat_by_king: S = S(18, 23), "the king attacks an undefended enemy piece or pawn";
    threat_restricted: S = S(2, 0), "square attacked by both sides that the enemy does not strongly protect";
    threat_weak_queen_protection: S = S(4, 15), "attacked enemy piece or pawn, not strongly protected, that the enemy queen defends";
    threat_knight_on_queen: S = S(6, -3), "safe square from which a knight would attack the lone enemy queen (x2 without an own queen)";
    threat_slider_on_queen: S = S(7, -6), "safe square attacked twice from which a bishop or rook would attack the lone enemy queen (x2 without an own queen)";
    threat_minor_on_minor: [S; 3] = [S(0, 14), S(11, 12), S(28, 13)],
        "enemy pawn (not strongly protected), knight or bishop attacked by a knight or bishop";
    threat_by_rook: [S; 4] = [S(-3, 12), S(18, 17), S(16, 18), S(10, 6)],
        "enemy pawn, knight, bishop or rook, not strongly protected, attacked by a rook";
    king_pawn_distance: S = S(3, -12), "distance from the king to its nearest own pawn";
    king_pawnless_flank: S = S(23, -24), "no pawn of either colour on the king's flank";
    passed_file: S = S(-2, -1), "passed pawn, per file of distance from the edge";
    imbalance_ours: [S; 19] = [
        S(1, 5), S(2, 16), S(10, 19), S(0, -22), S(1, 1), S(13, 10), S(-4, -32), S(-34, -8),
        S(3, 34), S(1, 24), S(-12, -31), S(-5, -44), S(48, -78), S(7, 15), S(-8, 63), S(-35, 1),
        S(-14, 0), S(-64, -34), S(-50, -182),
    ],
        "material imbalance: product of the counts of two own piece kinds (pair, pawn, N, B, R, Q; IMBALANCE_OURS in terms.rs)";
    imbalance_theirs: [S; 15] = [
        S(3, -2), S(-13, 26), S(11, 7), S(-6, 4), S(8, 10), S(-2, 8), S(-23, 25), S(-2, 29),
        S(1, 12), S(17, -19), S(5, -1), S(5, 54), S(36, 24), S(16, 33), S(43, -30),
    ],
        "material imbalance: own pieces of one kind times enemy pieces of a lesser kind (IMBALANCE_THEIRS in terms.rs)";
    // Side to move
    tempo: S = S(10, 5), "bonus for the side to move";
}
