//! STUB: the evaluation; replaced by the evaluation work.
pub mod weights;
