//! Karsinta engine library: board wrapper, search, evaluation, UCI front end.
//!
//! Every tunable (search heuristic switches and constants, evaluation weights)
//! lives in one parameter table, [`params`], from which the UCI options, the
//! YAML format and the SPSA spec are generated.
//!
//! Layout, by responsibility:
//! - [`board`]: the position, static exchange evaluation, perft;
//! - [`params`]: the parameter table and its text forms;
//! - [`eval`]: the static evaluation, its trace and its caches;
//! - [`search`]: the searcher and what it owns (move ordering, history
//!   tables, transposition table, time management);
//! - [`uci`]: the protocol front end;
//! - [`bench`](mod@bench): the bench and the ablation;
//! - `lowlevel`: the engine's only `unsafe` code, kept apart so it can be
//!   reviewed in one place.
//!
//! The search's units and limits (`Limits`, `Score`, `ONE_PLY`, mate
//! bounds) live in [`search::types`], below the search's own modules (the
//! transposition table, the time manager, the move picker), not with the
//! board, which knows nothing of search.

#![warn(missing_docs)]

pub mod bench;
pub mod board;
pub mod eval;
#[allow(unsafe_code)]
pub mod lowlevel;
pub mod params;
pub mod search;
pub mod uci;

pub use board::position::{FenError, MoveError, Position};
pub use params::{ParamError, Params};
pub use search::types::{Limits, Score};
pub use search::{SearchInfo, SearchResult, Searcher};
