//! Karsinta engine library: board wrapper, search, evaluation, UCI front end.
//!
//! Every tunable (search heuristic switches and constants, evaluation weights)
//! lives in one parameter table, [`params`], from which the UCI options, the
//! YAML format and the SPSA spec are generated.

pub mod ablate;
pub mod bench;
pub mod correction;
pub mod eval;
#[allow(unsafe_code)]
pub mod lowlevel;
pub mod movepick;
pub mod param_spec;
pub mod params;
pub mod perft;
pub mod position;
pub mod search;
pub mod see;
pub mod timeman;
pub mod tt;
pub mod types;
pub mod uci;

pub use params::{ParamError, Params};
pub use position::{FenError, MoveError, Position};
pub use search::{SearchInfo, SearchResult, Searcher};
pub use types::{Limits, Score};
