//! Opening suites: the [`book`] a match plays from (loaded, checked and put
//! in the seed's order) and the [`generate`]d balanced suites of
//! `karsinta openings generate`.

pub mod book;
pub mod generate;

pub use crate::formats::fen::position_fen;
pub use book::{
    fingerprint, format_of_file, is_fingerprint, load_openings, load_openings_with, order_openings,
    parse_openings, read_openings, LoadOptions, LoadedOpenings, Opening, OpeningError,
    OpeningFormat, OpeningOrder,
};
