//! Engines at work under the harness's arbitration: one [`game`] between
//! two players (the harness replays every move, judges the end, keeps the
//! [`clock`]), the [`pairs`] runner that plays colour-swapped game pairs on
//! worker threads for every caller (matches, tuners, fleet workers), and an
//! EPD test [`suite`]'s one search per position, and the Syzygy
//! [`tablebase`] adjudication games share.

pub mod clock;
pub mod game;
pub mod pairs;
pub mod suite;
pub mod tablebase;
