//! STUB: replaced by the engine-core work. Public API must stay.
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("invalid FEN '{fen}': {reason}")]
pub struct FenError {
    pub fen: String,
    pub reason: String,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("illegal or malformed move '{mv}' in position {fen}")]
pub struct MoveError {
    pub mv: String,
    pub fen: String,
}

/// A game position with the history an engine needs (repetitions, 50-move rule).
#[derive(Clone, Debug)]
pub struct Position {
    pub board: cozy_chess::Board,
}

impl Position {
    pub fn startpos() -> Self {
        Position { board: cozy_chess::Board::default() }
    }
    pub fn from_fen(fen: &str) -> Result<Self, FenError> {
        fen.parse::<cozy_chess::Board>()
            .map(|board| Position { board })
            .map_err(|e| FenError { fen: fen.to_string(), reason: format!("{e:?}") })
    }
    /// Play a move given in UCI notation (`e2e4`, `e7e8q`, castling as `e1g1`).
    pub fn play_uci(&mut self, mv: &str) -> Result<(), MoveError> {
        let _ = mv;
        unimplemented!("stub")
    }
    /// The current board.
    pub fn board(&self) -> &cozy_chess::Board {
        &self.board
    }
    /// Zobrist hashes of the earlier positions of the game, oldest first,
    /// excluding the current one (for repetition detection).
    pub fn history(&self) -> &[u64] {
        &[]
    }
    pub fn to_fen(&self) -> String {
        format!("{}", self.board)
    }
}
