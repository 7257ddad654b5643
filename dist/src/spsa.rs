//! The database side of distributed SPSA (not wired to the tuner yet).
//!
//! Design: iteration `k` is one batch; its perturbation derives from
//! (seed, k) alone, so any worker plays the same games for it; the update
//! of θ is applied in the transaction that completes the batch, and every
//! θ is kept in `dist_spsa_history` (test, k, θ, result). The math
//! (schedule, perturbation, update) lives in the harness's SPSA module;
//! this crate only needs it through [`SpsaMath`].

/// What the distributed flow needs from the SPSA math.
pub trait SpsaMath {
    /// θ⁺ and θ⁻ played in iteration `k` from θ (deterministic in seed, k).
    fn perturb(&self, theta: &[f64], k: u64) -> (Vec<f64>, Vec<f64>);
    /// θ after iteration `k` given the θ⁺ side's result over its pairs
    /// (score in [0, 1] and number of pairs).
    fn update(&self, theta: &[f64], k: u64, score_plus: f64, pairs: u64) -> Vec<f64>;
}
