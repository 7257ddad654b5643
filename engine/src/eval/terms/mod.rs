//! The evaluation terms, written once and grouped by family, each family a
//! file. Every term calls the sink ([`EvalSink`](crate::eval::EvalSink))
//! with its weight, the weight's flat index and a coefficient (positive
//! for White, negative for Black), so [`crate::eval::evaluate`] and
//! [`crate::eval::trace`] share this code. Relies on cozy-chess for piece
//! attacks and on the evaluation's bitboard masks.
//!
//! - `all`: `evaluate_terms`, the families in turn;
//! - `context`: the position as the families read it, and the attack maps
//!   the pieces gather;
//! - `pawns`: pawn structure (cached by the pawns);
//! - `material`: piece values, bishop pair, imbalance (cached by the
//!   counts);
//! - `pieces`: knights, bishops, rooks and queens (mobility, outposts,
//!   files, ...);
//! - `king`: king placement and shelter, king danger;
//! - `threats`: attacks on pieces;
//! - `passed`: passed pawns beyond their rank;
//! - `space`: safe squares behind the pawns;
//! - `winnable`: winnability, drawish material, the game phase.

mod all;
mod context;
mod king;
mod material;
mod passed;
mod pawns;
mod pieces;
mod space;
mod threats;
mod winnable;

pub(crate) use all::evaluate_terms;
