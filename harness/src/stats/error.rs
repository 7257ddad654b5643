//! [`StatsError`]: statistical input a caller can correct.

use thiserror::Error;

/// Bad statistical input: SPRT parameters or calculator settings a caller
/// can correct.
#[derive(Debug, Clone, PartialEq, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum StatsError {
    /// `elo0` must be strictly below `elo1` and both finite.
    #[error("elo0 ({elo0}) must be less than elo1 ({elo1})")]
    BoundsOrder { elo0: f64, elo1: f64 },
    /// A bound outside the range where the model's maths is defined.
    #[error(
        "{name} = {value} is outside the supported range [-{limit}, {limit}] for the {model} model"
    )]
    BoundOutOfRange {
        name: &'static str,
        value: f64,
        limit: f64,
        model: &'static str,
    },
    /// `alpha` or `beta` outside (0, 1), or `alpha + beta >= 1`.
    #[error("{name} = {value} must lie strictly between 0 and 1")]
    Probability { name: &'static str, value: f64 },
    /// `alpha + beta >= 1` makes the SPRT bounds meaningless.
    #[error("alpha + beta = {0} must be less than 1")]
    ErrorSum(f64),
    /// Draw ratio outside [0, 1).
    #[error("draw ratio {0} must lie in [0, 1)")]
    DrawRatio(f64),
    /// The draw ratio and RMS bias leave no per-game variance.
    #[error(
        "draw ratio {draw_ratio} and RMS bias {rms_bias} are not compatible (no variance left)"
    )]
    NoVariance { draw_ratio: f64, rms_bias: f64 },
    /// RMS bias must be a finite, non-negative Elo value.
    #[error("RMS bias {0} must be finite and non-negative")]
    RmsBias(f64),
    /// A true Elo that is not a finite number.
    #[error("Elo {0} must be a finite number")]
    NotFinite(f64),
}
