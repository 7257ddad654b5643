//! The one parameter table: every search switch and constant and every
//! evaluation weight is declared once, and everything else is generated
//! from these declarations: the typed structs and their defaults, the UCI
//! option list and `setoption` handling, YAML load/save and the SPSA spec.
//!
//! - [`spec`]: what a tunable is ([`ParamSpec`]: name, kind, range, SPSA
//!   step, meaning), its text form and its errors;
//! - `search`: the search's table, [`SearchParams`] (declared with
//!   `search_params!`);
//! - the evaluation's table, [`EvalWeights`], lives with the evaluation
//!   ([`crate::eval::weights`], declared with `eval_weights!`);
//! - `set`: [`Params`], both tables as one flat list of scalar entries, and
//!   the UCI, YAML and SPSA forms generated from it.

mod search;
mod set;
pub mod spec;

pub use search::{CaptureOrder, SearchAlgorithm, SearchParams};
pub use set::{resolve_alias, Params, ALIASES};
pub use spec::{ParamError, ParamKind, ParamSpec, ParamValue};

pub use crate::eval::weights::EvalWeights;
