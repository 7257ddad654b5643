//! The `output:` section: whose text a match prints its results in
//! (fastchess's `-output format=`, `-ratinginterval`, `-scoreinterval`,
//! `-report penta=`), as written and resolved. The lines themselves are
//! [`crate::report::result_lines`].

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::{invalid, ConfigError};
use crate::stats::Counting;

/// Whose result text a run prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// Karsinta's own result block (the default).
    #[default]
    Karsinta,
    /// fastchess's: the `Results of A vs B` block every `rating_interval`.
    Fastchess,
    /// fastchess's cutechess-cli emulation: `Score of A vs B: W - L - D`
    /// every `score_interval` games, `Elo difference:` every `rating_interval`.
    Cutechess,
}

/// `output:` as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    /// `karsinta` (default), `fastchess` or `cutechess`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<OutputFormat>,
    /// Interim results every N games (pairs when pentanomial); 0: only at
    /// the end. Default 10, as fastchess.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_interval: Option<u64>,
    /// cutechess's `Score of` line every N games; 0: only at the end.
    /// Default 1, as fastchess.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_interval: Option<u64>,
    /// fastchess's pentanomial figures (default true; false for cutechess
    /// and for games that are not colour-swapped pairs, as fastchess).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penta: Option<bool>,
}

/// The resolved `output:` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputStyle {
    /// Whose text.
    pub format: OutputFormat,
    /// Interim block every N games (pairs when `penta`); 0: none.
    pub rating_interval: u64,
    /// `Score of` line every N games (cutechess only); 0: none.
    pub score_interval: u64,
    /// Pentanomial figures (fastchess's `-report penta=true`).
    pub penta: bool,
}

impl Default for OutputStyle {
    fn default() -> Self {
        OutputStyle {
            format: OutputFormat::Karsinta,
            rating_interval: 10,
            score_interval: 1,
            penta: true,
        }
    }
}

/// `output:` with fastchess's defaults filled in, and `penta` turned off
/// where fastchess turns it off (cutechess output, games not in pairs).
pub(super) fn resolve_output(
    raw: Option<&mut RawOutput>,
    counting: Counting,
    path: &Path,
) -> Result<OutputStyle, ConfigError> {
    let Some(raw) = raw else {
        return Ok(OutputStyle::default());
    };
    let d = OutputStyle::default();
    let format = raw.format.unwrap_or_default();
    if raw.penta == Some(true) && counting == Counting::Trinomial {
        return Err(invalid(
            path,
            "output.penta",
            "the games are not colour-swapped pairs: there are no pentanomial counts",
        ));
    }
    let penta = raw.penta.unwrap_or(true)
        && format != OutputFormat::Cutechess
        && counting == Counting::Pentanomial;
    let style = OutputStyle {
        format,
        rating_interval: raw.rating_interval.unwrap_or(d.rating_interval),
        score_interval: raw.score_interval.unwrap_or(d.score_interval),
        penta,
    };
    *raw = RawOutput {
        format: Some(style.format),
        rating_interval: Some(style.rating_interval),
        score_interval: Some(style.score_interval),
        penta: Some(style.penta),
    };
    Ok(style)
}
