//! Configuration: what a run plays, from a YAML file or from fastchess /
//! cutechess-cli flags, resolved into one validated value.
//!
//! Data flows one way: the file's [`RawConfig`] (`schema.rs`: serde structs
//! that refuse unknown keys) and command-line [`Overrides`] are resolved
//! (`resolve.rs`) into a [`MatchConfig`] with absolute paths, checked ranges,
//! a parsed time control and engine [`crate::players::PlayerSpec`]s. Errors
//! are [`ConfigError`]s naming the file and the key. [`flags`] translates a
//! fastchess or cutechess-cli command line into the same raw config.
//!
//! The schema names no command built on a match: their blocks (`build:`,
//! `spsa:`, ...) stay raw YAML in [`RawConfig::sections`], each loader says
//! which it accepts ([`MatchConfig::load_with`]) and the owner parses its
//! own ([`MatchConfig::section`]). Variants of a resolved config (ab's
//! builds, the gate's SPRT, verify matches) come from its methods in
//! `derive.rs`, not from editing YAML and resolving it again.

mod colours;
mod derive;
pub mod engine;
mod error;
pub mod flags;
mod output;
mod resolve;
mod schema;
mod tablebases;
pub use tablebases::resolve_tablebases;

pub use colours::ColourSchedule;
pub use error::ConfigError;
pub use output::{OutputFormat, OutputStyle, RawOutput};
pub use resolve::{
    resolve_engine_description, resolve_engine_entry, EpdOut, MatchConfig, OpeningsConfig,
    Overrides, DEFAULT_INIT_TIMEOUT_MS, DEFAULT_TIME_MARGIN_MS, DEFAULT_WATCHDOG_MS,
};
pub use schema::{
    RawAdjudication, RawChecks, RawColours, RawConfig, RawEngine, RawEpdOut, RawKind, RawOpenings,
    RawSprt, RawTablebases, TournamentKind,
};
