//! File formats the harness reads and writes: positions ([`fen`]: FEN
//! checked and written in one form; [`epd`]: the one EPD reader, for opening
//! books and test suites), PGN games in ([`pgn_read`]: the one PGN reader,
//! for books, Texel data and datagen conversion) and out ([`pgn_write`]: the
//! games file of a run folder, split back on resume), files as stored
//! ([`packed`]: plain, gzip or a zip of one file), and training data ([`records`]: the
//! record types; [`training`]: one reader for [`bullet`] (bulletformat),
//! [`text`] (`FEN | score | result`), [`viri`] (viriformat) and [`marlin`]
//! (marlinformat)).

pub mod bullet;
pub mod epd;
pub mod fen;
pub mod marlin;
pub mod packed;
pub mod pgn_read;
pub mod pgn_write;
pub mod records;
pub mod text;
pub mod training;
pub mod viri;
