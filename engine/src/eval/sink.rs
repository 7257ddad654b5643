//! [`EvalSink`]: where the evaluation's terms go. The terms are written
//! once, generic over the sink: the summing sink behind
//! [`crate::eval::evaluate`] adds them up, the recording sink behind
//! [`crate::eval::trace`] keeps each weight's coefficient.

use cozy_chess::Color;

use super::weights::S;

/// Receiver of evaluation terms. Every term of the evaluation is reported
/// through these calls, so one implementation can sum the score and another
/// record coefficients.
pub trait EvalSink {
    /// A linear term: weight `w` (at flat index `idx` of the weight table)
    /// entering with coefficient `coef`, counted White minus Black.
    fn add(&mut self, idx: usize, w: S, coef: i32);
    /// An inner linear part of the king danger of `king`'s side (its weight
    /// is summed by the caller before the non-linear step).
    fn add_danger(&mut self, king: Color, idx: usize, coef: i32);
    /// A non-linear contribution, from White's view.
    fn add_nonlinear(&mut self, v: S);
    /// A part of the winnability sum (not signed by colour), which
    /// [`crate::eval::winnable`] applies to the total.
    fn add_winnable(&mut self, idx: usize, w: S, coef: i32);
    /// The pawn-structure terms of `pawns` (White's, Black's): `terms`
    /// reports them to the sink and returns the passed pawns. They depend
    /// on the pawns alone, so a summing sink may answer from a cache.
    #[inline(always)]
    fn pawn_structure(
        &mut self,
        pawns: [u64; 2],
        terms: impl FnOnce(&mut Self) -> [u64; 2],
    ) -> [u64; 2]
    where
        Self: Sized,
    {
        let _ = pawns;
        terms(self)
    }
    /// The material-imbalance terms of `key`, both sides' piece counts
    /// packed: `terms` reports them to the sink. They depend on the counts
    /// alone, so a summing sink may answer from a cache.
    #[inline(always)]
    fn material(&mut self, key: u64, terms: impl FnOnce(&mut Self))
    where
        Self: Sized,
    {
        let _ = key;
        terms(self)
    }
}
