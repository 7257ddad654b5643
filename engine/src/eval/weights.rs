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
//   7,000 games, 1000 epochs (configs/texel-terms.yaml).
// The `king_*` danger weights are in "danger units": their sum d enters the
// score non-linearly as (-max(d_mg, 0)^2 / 720, -max(d_eg, 0) / 20).
eval_weights! {
    // Material
    material_pawn: S = S(77, 102), "value of a pawn";
    material_knight: S = S(318, 317), "value of a knight";
    material_bishop: S = S(347, 336), "value of a bishop";
    material_rook: S = S(459, 560), "value of a rook";
    material_queen: S = S(1094, 908), "value of a queen";
    // Piece-square tables
    psqt_pawn: [S; 48] = [
        S(-4, 0), S(-3, -5), S(5, -7), S(9, -2), S(9, -2), S(5, -6), S(16, -2), S(-2, -5),
        S(-11, -8), S(-12, -3), S(-1, 0), S(0, 2), S(5, 3), S(-2, -10), S(8, -7), S(-1, -5),
        S(-15, -2), S(-10, 7), S(3, 2), S(18, 3), S(13, -1), S(-3, 3), S(-8, 0), S(-5, -3),
        S(-7, 10), S(4, -1), S(-4, 10), S(17, -9), S(16, 5), S(17, -8), S(0, 8), S(-12, -1),
        S(-2, 20), S(-15, 17), S(24, 8), S(-14, 11), S(7, 16), S(5, 4), S(2, 18), S(-30, -1),
        S(5, 6), S(-17, 37), S(-10, 37), S(24, 33), S(28, 34), S(-6, 36), S(-13, 41), S(4, 11),
    ], "pawn on this square (a2 = 0)";
    psqt_knight: [S; 64] = [
        S(-32, -22), S(-24, 3), S(-18, -15), S(-16, -4), S(1, -33), S(-6, -10), S(-21, -17), S(-32, -22),
        S(-39, -22), S(-33, -9), S(-14, 2), S(4, 5), S(0, 3), S(-10, -1), S(-20, 12), S(-10, -8),
        S(-28, -21), S(3, 10), S(-2, 20), S(11, 13), S(14, 9), S(12, 6), S(8, 15), S(-16, -5),
        S(-1, -2), S(1, -2), S(13, 35), S(20, 27), S(25, 25), S(12, 21), S(12, 4), S(3, -7),
        S(12, -3), S(-4, 24), S(30, 15), S(34, 20), S(12, 36), S(35, 22), S(13, 18), S(2, -8),
        S(-20, -12), S(16, 7), S(14, 35), S(18, 13), S(19, 18), S(24, 22), S(-8, -4), S(-20, -3),
        S(-28, -4), S(-6, -9), S(-18, 13), S(8, 23), S(-6, 11), S(14, 7), S(-6, 6), S(-26, -11),
        S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22), S(-36, -22),
    ], "knight on this square (a1 = 0)";
    psqt_bishop: [S; 64] = [
        S(-9, -3), S(6, -17), S(-3, -19), S(-14, 3), S(-16, -16), S(-13, -3), S(-9, -5), S(-9, 3),
        S(21, -20), S(9, -11), S(8, -18), S(2, -8), S(2, -4), S(24, -17), S(15, -19), S(-3, -23),
        S(-10, 1), S(10, 0), S(15, -5), S(9, 10), S(7, -10), S(8, 6), S(-3, -5), S(4, -8),
        S(-1, 3), S(6, -19), S(12, 10), S(4, 8), S(27, 8), S(2, -6), S(-3, -4), S(-5, -13),
        S(2, -16), S(0, 7), S(-3, 2), S(22, 8), S(11, 8), S(8, 1), S(3, -2), S(-25, -6),
        S(-16, 9), S(-4, 6), S(22, -1), S(0, 3), S(16, 13), S(8, 17), S(-4, 14), S(2, -5),
        S(-27, -6), S(-21, 10), S(-9, 5), S(8, 10), S(0, -5), S(6, 10), S(-13, -5), S(-17, -16),
        S(-2, 3), S(-8, -11), S(-8, 13), S(-8, -13), S(-8, 3), S(-8, -2), S(-8, -4), S(-2, -8),
    ], "bishop on this square (a1 = 0)";
    psqt_rook: [S; 64] = [
        S(-4, 3), S(-5, -2), S(9, -5), S(10, -7), S(10, -18), S(7, -5), S(5, -5), S(6, -6),
        S(-6, 13), S(-1, -5), S(-19, 4), S(9, -9), S(7, -1), S(5, -9), S(18, -13), S(-12, -12),
        S(-20, 0), S(0, 1), S(-4, 5), S(0, -6), S(-17, 14), S(-5, 14), S(-14, 5), S(-23, 5),
        S(-5, 12), S(-7, 7), S(-2, 18), S(9, 5), S(-7, 9), S(-8, 11), S(1, 8), S(-1, 9),
        S(9, 15), S(-14, 10), S(7, 11), S(16, 4), S(-5, 9), S(7, 8), S(12, 6), S(-11, 14),
        S(18, 14), S(13, 9), S(21, 9), S(10, 11), S(24, 6), S(20, 10), S(8, 13), S(18, 3),
        S(0, 7), S(15, -4), S(10, 11), S(16, 9), S(18, 4), S(-1, 6), S(9, 6), S(-2, 2),
        S(19, 10), S(2, 6), S(13, 12), S(1, 15), S(15, 5), S(5, 20), S(13, 10), S(8, 12),
    ], "rook on this square (a1 = 0)";
    psqt_queen: [S; 64] = [
        S(-15, -18), S(-16, -6), S(-11, -28), S(-5, -15), S(-14, -24), S(-13, -22), S(-6, -14), S(-6, -14),
        S(-25, -25), S(-3, -26), S(1, -30), S(2, -28), S(2, -30), S(-1, -19), S(13, -16), S(15, -14),
        S(-17, -6), S(-1, -1), S(2, 6), S(0, -8), S(-3, 3), S(5, -2), S(15, -9), S(6, -25),
        S(-3, -4), S(3, -10), S(-2, 18), S(-7, 16), S(4, 0), S(-8, 16), S(5, -8), S(1, -6),
        S(-5, -16), S(-8, 4), S(11, 12), S(-8, 12), S(7, 17), S(15, 8), S(0, 4), S(0, -16),
        S(-3, -11), S(-1, 14), S(6, 8), S(4, 14), S(0, -2), S(19, 13), S(1, -3), S(-10, -10),
        S(-5, -12), S(-22, 1), S(-12, -5), S(0, 5), S(-4, -1), S(-8, 3), S(-7, -4), S(-2, -16),
        S(1, -12), S(-13, -20), S(-6, -14), S(-6, -17), S(-6, -14), S(-6, -15), S(-6, -21), S(-7, -14),
    ], "queen on this square (a1 = 0)";
    psqt_king: [S; 64] = [
        S(-15, -27), S(7, -26), S(4, -18), S(-49, -26), S(-17, -23), S(-34, -25), S(17, -29), S(4, -39),
        S(3, -25), S(6, -12), S(-31, -7), S(-18, -11), S(-22, -10), S(-31, -1), S(-2, -12), S(-7, -28),
        S(-26, -48), S(-15, -16), S(-13, -4), S(-43, 6), S(-50, 5), S(-30, 1), S(-15, -13), S(-34, -31),
        S(-45, -32), S(-25, -15), S(-45, -2), S(-71, 9), S(-62, 3), S(-43, 2), S(-28, -18), S(-34, -31),
        S(-55, -28), S(-40, 0), S(-63, 2), S(-88, 8), S(-80, 15), S(-61, 8), S(-41, 8), S(-54, -30),
        S(-60, -27), S(-49, 17), S(-67, 9), S(-87, 8), S(-85, 24), S(-62, 33), S(-40, 21), S(-59, -23),
        S(-60, -30), S(-50, 13), S(-67, 15), S(-87, 9), S(-83, 25), S(-69, 31), S(-49, 29), S(-59, -20),
        S(-60, -48), S(-50, -39), S(-67, -36), S(-87, -30), S(-83, -27), S(-69, -27), S(-49, -22), S(-59, -40),
    ], "king on this square (a1 = 0)";
    // Mobility
    mobility_knight: [S; 9] = [
        S(-33, -40), S(-12, -28), S(0, -1), S(-1, 12), S(5, 21), S(12, 20), S(16, 24),
        S(18, 22), S(21, 10)
    ], "knight with this many safe squares";
    mobility_bishop: [S; 14] = [
        S(-21, -44), S(-5, -20), S(6, -11), S(9, 4), S(16, 15), S(20, 28), S(26, 29), S(26, 31),
        S(29, 35), S(27, 32), S(32, 24), S(21, 35), S(28, 39), S(33, 32)
    ], "bishop with this many safe squares";
    mobility_rook: [S; 15] = [
        S(-68, -82), S(-11, -47), S(3, -13), S(3, 6), S(9, 22), S(11, 27), S(12, 30), S(15, 32),
        S(21, 39), S(23, 45), S(22, 48), S(27, 49), S(37, 53), S(40, 49), S(26, 50)
    ], "rook with this many safe squares";
    mobility_queen: [S; 28] = [
        S(-20, -40), S(2, -21), S(-16, -13), S(-2, -7), S(-7, -16), S(2, -21), S(8, 10),
        S(14, 30), S(19, 10), S(24, 21), S(27, 16), S(27, 31), S(27, 40), S(27, 52), S(24, 55),
        S(29, 65), S(28, 67), S(19, 68), S(37, 63), S(27, 59), S(32, 54), S(38, 29), S(40, 43),
        S(25, -10), S(25, 29), S(17, 11), S(34, 58), S(35, 25)
    ], "queen with this many safe squares";
    // Pawn structure
    pawn_doubled: S = S(-13, -10), "pawn with an own pawn in front of it on its file";
    pawn_isolated: S = S(-9, -8), "pawn with no own pawn on the adjacent files";
    pawn_backward: S = S(-3, -15), "pawn behind its neighbours whose stop square an enemy pawn attacks";
    pawn_phalanx: [S; 6] = [S(3, 3), S(6, 5), S(13, 9), S(20, 28), S(35, 59), S(50, 60)],
        "pawn with an own pawn beside it, by relative rank (index 0 = rank 2)";
    pawn_supported: [S; 5] = [S(15, 14), S(14, 6), S(21, 14), S(51, 34), S(55, 41)],
        "pawn defended by an own pawn, by relative rank (index 0 = rank 3)";
    passed_pawn: [S; 6] = [S(1, 0), S(-15, 31), S(-14, 55), S(22, 73), S(58, 85), S(130, 89)],
        "passed pawn by relative rank (index 0 = rank 2)";
    passed_free_path: [S; 6] = [S(7, 12), S(-12, -3), S(7, 2), S(7, 16), S(20, 44), S(40, 90)],
        "passed pawn whose path to promotion is empty, by relative rank";
    passed_own_king_dist: [S; 8] = [
        S(-15, 41), S(-17, 33), S(1, 5), S(16, -12), S(-4, -20), S(10, -31), S(11, -23),
        S(0, -31)
    ], "passed pawn with its own king at this distance from its stop square";
    passed_enemy_king_dist: [S; 8] = [
        S(-3, -41), S(36, -58), S(-3, -14), S(-4, 5), S(-7, 18), S(-6, 35), S(-26, 54), S(10, 35)
    ], "passed pawn with the enemy king at this distance from its stop square";
    passed_safe_path: [S; 6] = [S(2, 2), S(-27, -11), S(-4, 9), S(-24, 29), S(-4, 73), S(17, 121)],
        "passed pawn with an empty stop square whose path no enemy piece or pawn attacks, by relative rank";
    passed_safe_stop: [S; 5] = [S(12, -6), S(25, -11), S(24, -6), S(23, -4), S(8, 33)],
        "passed pawn whose path is attacked but whose empty stop square is not, by relative rank \
         (ranks 2-6: on the seventh the path is the stop square)";
    // Pieces
    bishop_pair: S = S(20, 44), "two or more bishops";
    rook_open_file: S = S(41, -2), "rook on a file without pawns";
    rook_half_open_file: S = S(21, 4), "rook on a file without own pawns but with enemy pawns";
    queen_open_file: S = S(0, -13), "queen on a file without pawns";
    queen_half_open_file: S = S(0, 12), "queen on a file without own pawns but with enemy pawns";
    rook_on_seventh: S = S(20, 16), "rook on the seventh rank with the enemy king or pawns on the eighth or seventh";
    knight_outpost: S = S(23, 9), "knight on ranks 4-6, defended by a pawn, that no enemy pawn can attack";
    bishop_outpost: S = S(27, 6), "bishop on ranks 4-6, defended by a pawn, that no enemy pawn can attack";
    minor_behind_pawn: S = S(2, 9), "knight or bishop with a pawn of either colour directly in front of it";
    bishop_pawns: S = S(-1, -4), "per own pawn on the squares of a bishop's colour";
    king_protector: S = S(-1, 0), "per square of distance between a knight or bishop and its own king";
    rook_behind_passer: S = S(6, 14), "rook behind an own passed pawn on its file, nothing between them";
    // King safety: linear pawn shelter
    king_shield: [S; 4] = [S(11, -1), S(3, -1), S(0, -7), S(-20, 4)],
        "nearest own pawn ahead of the king on its file or an adjacent one at distance 1, 2, 3+, none";
    pawn_storm: [S; 4] = [S(-3, 33), S(-12, -4), S(10, -1), S(14, -3)],
        "nearest enemy pawn ahead of the king on its file or an adjacent one at distance 1, 2, 3, 4+";
    // King safety: danger units, summed and then applied non-linearly
    king_attacker: [S; 4] = [S(53, 28), S(54, 5), S(24, 23), S(44, 3)],
        "danger: enemy piece of this type attacking the king zone";
    king_zone_attacks: S = S(27, 14), "danger: per attack of an enemy piece on a king-zone square";
    king_weak_squares: S = S(31, -1), "danger: king-zone square attacked by the enemy and defended by no pawn or minor or rook";
    king_safe_check: [S; 4] = [S(98, 23), S(66, 24), S(126, 32), S(71, -3)],
        "danger: safe checking square for an enemy piece of this type";
    king_danger_no_queen: S = S(-274, -56), "danger: the attacker has no queen";
    king_danger_base: S = S(-44, -15), "danger: constant offset once the king is attacked";
    // Threats
    threat_by_pawn: [S; 4] = [S(47, 14), S(41, 26), S(50, 23), S(28, 35)],
        "enemy piece of this type attacked by a pawn";
    threat_by_minor: [S; 2] = [S(47, 11), S(42, -1)], "enemy rook or queen attacked by a knight or bishop";
    threat_rook_on_queen: S = S(42, 19), "enemy queen attacked by a rook";
    threat_hanging: S = S(16, 3), "enemy piece (not pawn or king) attacked and undefended";
    threat_pawn_push: S = S(10, 4), "enemy piece (not pawn or king) a safe pawn push would attack";
    threat_by_king: S = S(13, 22), "the king attacks an undefended enemy piece or pawn";
    // Side to move
    tempo: S = S(10, 5), "bonus for the side to move";
}
