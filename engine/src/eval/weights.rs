//! The evaluation weight table: every weight is a tapered (middlegame,
//! endgame) pair declared once in `eval_weights!` below. The macro generates
//! [`EvalWeights`], the flat index of each weight (for the Texel trace) and
//! the scalar [`ParamSpec`]s that make each pair two parameters,
//! `<name>_mg` / `<name>_eg` (`<name>_<i>_mg` for arrays).

use std::sync::OnceLock;

use crate::params::{ParamKind, ParamSpec};

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
        if i % 2 == 0 {
            p.0
        } else {
            p.1
        }
    }

    /// Set scalar `i` of [`Self::specs`].
    pub fn set_scalar(&mut self, i: usize, value: i32) {
        let p = self.pair_mut(i / 2);
        if i % 2 == 0 {
            p.0 = value
        } else {
            p.1 = value
        }
    }
}

// The table. Arrays indexed by square are from White's view (a1 = 0), and are
// mirrored for Black; arrays by piece use cozy-chess order (P, N, B, R, Q, K).
eval_weights! {
    material_pawn: S = S(82, 94), "value of a pawn";
    material_knight: S = S(337, 281), "value of a knight";
    material_bishop: S = S(365, 297), "value of a bishop";
    material_rook: S = S(477, 512), "value of a rook";
    material_queen: S = S(1025, 936), "value of a queen";
    tempo: S = S(10, 5), "bonus for the side to move";
}
