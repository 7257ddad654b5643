//! The chess board as the engine sees it, on top of cozy-chess: a game
//! [`position::Position`] with its history and draw rules, static exchange
//! evaluation ([`see`]), the hash after a move ([`keys`]) and move-tree counting ([`perft`]). Nothing here
//! knows about the search or the evaluation.

pub mod check;
pub mod keys;
pub mod mirror;
pub mod perft;
pub mod position;
pub mod see;
