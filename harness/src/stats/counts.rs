//! Result counts: [`Trinomial`] (W/D/L per game) and [`Pentanomial`] (per
//! colour-swapped game pair), and their conversion to the empirical
//! distribution the estimators work on.

use serde::{Deserialize, Serialize};

/// Pentanomial counts `[LL, LD, DD+WL, DW, WW]` over game pairs, seen from the
/// first engine. Index `i` is the number of half points the first engine
/// scored in the pair (0..=4), so a pair's average score is `i / 4`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Pentanomial(pub [u64; 5]);

/// Trinomial counts over single games, seen from the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trinomial {
    /// Games the first engine won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games the first engine lost.
    pub losses: u64,
}

/// How a run's games are counted: in colour-swapped pairs (pentanomial,
/// the default) or game by game (trinomial), as fastchess counts games
/// that do not come in such pairs. Serialised as the lowercase name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Counting {
    /// Colour-swapped game pairs, five cells from 0 to 2 points (the default).
    #[default]
    Pentanomial,
    /// Game by game: wins, draws and losses.
    Trinomial,
}

/// fishtest's regularisation: an empty cell counts as this many observations,
/// which keeps every estimate finite (no zero variance, no log of zero).
const EMPTY_CELL: f64 = 1e-3;

/// An empirical distribution on the scores `i / (len - 1)`, built from
/// regularised counts. At most 5 cells, kept on the stack so the SPRT
/// simulation does not allocate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pdf {
    pub len: usize,
    /// Score of each cell: 0, 1/2, 1 (trinomial) or 0, 1/4, .., 1 (pentanomial).
    pub a: [f64; 5],
    /// Probability of each cell.
    pub p: [f64; 5],
    /// Regularised number of observations (games or pairs).
    pub n: f64,
}

impl Pdf {
    /// Cells in ascending score order (L, D, W or LL .. WW).
    pub fn from_counts(counts: &[u64]) -> Pdf {
        debug_assert!(counts.len() == 3 || counts.len() == 5);
        let len = counts.len();
        let mut a = [0.0; 5];
        let mut c = [0.0; 5];
        for (i, &k) in counts.iter().enumerate() {
            a[i] = i as f64 / (len - 1) as f64;
            c[i] = if k == 0 { EMPTY_CELL } else { k as f64 };
        }
        let n: f64 = c[..len].iter().sum();
        let mut p = [0.0; 5];
        for i in 0..len {
            p[i] = c[i] / n;
        }
        Pdf { len, a, p, n }
    }

    /// Mean and variance of the score under probabilities `q`.
    pub fn mean_var_with(&self, q: &[f64; 5]) -> (f64, f64) {
        let mean: f64 = (0..self.len).map(|i| q[i] * self.a[i]).sum();
        let var: f64 = (0..self.len)
            .map(|i| q[i] * (self.a[i] - mean).powi(2))
            .sum();
        (mean, var)
    }

    /// Mean and variance of the empirical distribution itself.
    pub fn mean_var(&self) -> (f64, f64) {
        self.mean_var_with(&self.p)
    }
}

impl Pentanomial {
    /// Number of games (two per pair).
    ///
    /// # Panics
    /// If the count overflows a `u64`; [`Pentanomial::checked_games`] is the
    /// non-panicking form for counts from outside.
    pub fn games(&self) -> u64 {
        self.checked_games()
            .expect("pentanomial game count overflows u64")
    }

    /// Number of game pairs (panics on overflow, like [`Pentanomial::games`]).
    pub fn pairs(&self) -> u64 {
        self.checked_pairs()
            .expect("pentanomial pair count overflows u64")
    }

    /// Number of game pairs, or `None` if the sum overflows.
    pub fn checked_pairs(&self) -> Option<u64> {
        self.0.iter().try_fold(0u64, |sum, &k| sum.checked_add(k))
    }

    /// Number of games, or `None` if it does not fit in a `u64`.
    pub fn checked_games(&self) -> Option<u64> {
        self.checked_pairs()?.checked_mul(2)
    }

    /// Records one finished pair; `pair_score_index` is the first engine's
    /// half points in the pair: 0 = LL, 1 = LD, 2 = DD or WL, 3 = DW, 4 = WW.
    ///
    /// # Panics
    /// If `pair_score_index > 4` (a caller bug).
    pub fn add(&mut self, pair_score_index: usize) {
        assert!(
            pair_score_index <= 4,
            "pentanomial index {pair_score_index} out of range 0..=4"
        );
        self.0[pair_score_index] += 1;
    }

    /// Adds all counts of `other`.
    pub fn merge(&mut self, other: &Pentanomial) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }

    /// The first engine's points over all games.
    pub fn points(&self) -> f64 {
        self.0
            .iter()
            .enumerate()
            .map(|(i, &k)| i as f64 * 0.5 * k as f64)
            .sum()
    }

    /// Fraction of drawn games, counting every `DD+WL` pair as two draws
    /// (pentanomial counts cannot tell DD from WL). This is exact when no
    /// pair splits W/L and an upper bound otherwise; with balanced openings
    /// WL pairs are rare, so it is close to the true draw ratio.
    pub fn draw_ratio(&self) -> f64 {
        let games = self.games();
        if games == 0 {
            return 0.0;
        }
        let [_, ld, mid, dw, _] = self.0;
        // In floating point: `2 * mid` alone may overflow.
        (ld as f64 + 2.0 * mid as f64 + dw as f64) / games as f64
    }

    pub(crate) fn pdf(&self) -> Pdf {
        Pdf::from_counts(&self.0)
    }
}

impl Trinomial {
    /// Builds counts in the usual W, D, L order.
    pub fn new(wins: u64, draws: u64, losses: u64) -> Trinomial {
        Trinomial {
            wins,
            draws,
            losses,
        }
    }

    /// Number of games.
    ///
    /// # Panics
    /// If the sum overflows a `u64`; see [`Trinomial::checked_games`].
    pub fn games(&self) -> u64 {
        self.checked_games()
            .expect("trinomial game count overflows u64")
    }

    /// Number of games, or `None` if the sum overflows.
    pub fn checked_games(&self) -> Option<u64> {
        self.wins.checked_add(self.draws)?.checked_add(self.losses)
    }

    /// The first engine's points.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Adds all counts of `other`.
    pub fn merge(&mut self, other: &Trinomial) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }

    /// Fraction of drawn games (0 when no game was played).
    pub fn draw_ratio(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            g => self.draws as f64 / g as f64,
        }
    }

    /// Counts in ascending score order: L, D, W.
    pub(crate) fn ascending(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }

    pub(crate) fn pdf(&self) -> Pdf {
        Pdf::from_counts(&self.ascending())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pentanomial_counts_games_points_and_draws() {
        let mut p = Pentanomial::default();
        for i in [0, 1, 2, 2, 3, 4, 4] {
            p.add(i);
        }
        assert_eq!(p.0, [1, 1, 2, 1, 2]);
        assert_eq!(p.pairs(), 7);
        assert_eq!(p.games(), 14);
        // 0 + 0.5 + 1 + 1 + 1.5 + 2 + 2
        assert_eq!(p.points(), 8.0);
        // LD + 2 * (DD+WL) + DW = 1 + 4 + 1 draws out of 14 games.
        assert!((p.draw_ratio() - 6.0 / 14.0).abs() < 1e-15);
        assert_eq!(Pentanomial::default().draw_ratio(), 0.0);
    }

    #[test]
    fn overflowing_counts_are_detected() {
        let big = u64::MAX / 2;
        assert_eq!(
            Pentanomial([big, 1, 0, 0, 0]).checked_pairs(),
            Some(big + 1)
        );
        assert_eq!(Pentanomial([big, 1, 0, 0, 0]).checked_games(), None);
        assert_eq!(
            Pentanomial([big, 0, 0, 0, 0]).checked_games(),
            Some(2 * big)
        );
        assert_eq!(Pentanomial([u64::MAX, 1, 1, 1, 1]).checked_pairs(), None);
        assert_eq!(Trinomial::new(u64::MAX, 1, 0).checked_games(), None);
        assert_eq!(Trinomial::new(1, 2, 3).checked_games(), Some(6));
        // The draw ratio does not overflow where the game count fits.
        let p = Pentanomial([0, 0, big, 0, 0]);
        assert_eq!(p.draw_ratio(), 1.0);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn pentanomial_rejects_bad_index() {
        Pentanomial::default().add(5);
    }

    #[test]
    fn regularisation_replaces_only_empty_cells() {
        let pdf = Trinomial::new(3, 0, 1).pdf();
        assert_eq!(pdf.len, 3);
        assert!((pdf.n - 4.001).abs() < 1e-12);
        assert!((pdf.p[1] - 0.001 / 4.001).abs() < 1e-15);
        assert!((pdf.p[2] - 3.0 / 4.001).abs() < 1e-15);
        assert_eq!(pdf.a[..3], [0.0, 0.5, 1.0]);
        let pdf = Pentanomial([1, 2, 3, 4, 5]).pdf();
        assert_eq!(pdf.a, [0.0, 0.25, 0.5, 0.75, 1.0]);
        assert!((pdf.p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    }
}
