//! A game position: a `cozy_chess::Board` plus what an engine needs and the
//! crate lacks. It owns the game history (repetition keys and earlier
//! boards, so moves can be taken back), the 50-move and repetition draw rules
//! for the game, null moves, UCI move text in both directions (standard
//! `e1g1` castling, while cozy-chess encodes castling as king-takes-rook) and
//! FEN input/output with typed errors.
//!
//! A position is standard chess or Chess960 ([`Position::from_fen_chess960`]):
//! the rules are cozy-chess's either way; the variant decides which castling
//! fields a FEN may have (X-FEN and Shredder-FEN in Chess960) and how castling
//! is written in UCI (`e1g1` in standard chess, king-takes-rook `e1h1` in
//! Chess960, as the `UCI_Chess960` protocol says).
//!
//! Repetition keys are `Board::hash()` except that an en-passant square no
//! pawn can legally use is left out (see [`repetition_key`]), so positions that
//! FIDE counts as equal get equal keys.

use std::fmt;

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, Color, File, Move, Piece, Rank, Square,
};
use thiserror::Error;

/// What is wrong with a FEN string: each position the board cannot hold
/// is refused with the first rule it breaks.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum FenErrorKind {
    /// Nothing but whitespace.
    #[error("empty FEN")]
    Empty,
    /// Fewer than the four required fields.
    #[error("missing fields (need placement, side, castling, en passant[, halfmove, fullmove])")]
    MissingField,
    /// More than six fields.
    #[error("too many fields")]
    TooManyFields,
    /// The placement does not have eight ranks.
    #[error("piece placement must have 8 ranks separated by '/'")]
    RankCount,
    /// A character that is neither a piece letter nor a digit 1-8.
    #[error("rank {rank}: bad character '{ch}' (pieces are PNBRQK/pnbrqk, empty squares 1-8)")]
    BadCharacter {
        /// The rank, 1-8.
        rank: u8,
        /// The character.
        ch: char,
    },
    /// A rank that does not describe eight squares.
    #[error("rank {rank} describes {squares} squares (need 8)")]
    RankLength {
        /// The rank, 1-8.
        rank: u8,
        /// How many squares it describes.
        squares: u8,
    },
    /// A side without exactly one king.
    #[error("{} has {count} kings (need exactly 1)", color_name(*color))]
    KingCount {
        /// The side.
        color: Color,
        /// Its kings.
        count: u8,
    },
    /// A pawn on the first or last rank.
    #[error("pawn on {square} (pawns cannot stand on the first or last rank)")]
    PawnOnBackRank {
        /// Where it stands.
        square: Square,
    },
    /// More than eight pawns of one side.
    #[error("{} has {count} pawns (at most 8)", color_name(*color))]
    TooManyPawns {
        /// The side.
        color: Color,
        /// Its pawns.
        count: u8,
    },
    /// More than sixteen pieces of one side.
    #[error("{} has {count} pieces (at most 16)", color_name(*color))]
    TooManyPieces {
        /// The side.
        color: Color,
        /// Its pieces, king and pawns included.
        count: u8,
    },
    /// The two kings touch.
    #[error("the kings stand on adjacent squares")]
    AdjacentKings,
    /// The side-to-move field is neither `w` nor `b`.
    #[error("side to move must be 'w' or 'b'")]
    SideToMove,
    /// The side that just moved left its own king in check.
    #[error("{} is in check but it is {}'s move", color_name(*color), color_name(!*color))]
    OpponentInCheck {
        /// The side in check.
        color: Color,
    },
    /// The side to move is in check from more pieces than a move can give.
    #[error("{} (to move) is in check from {count} pieces (at most 2 are possible)", color_name(*color))]
    TooManyCheckers {
        /// The side to move.
        color: Color,
        /// The checking pieces.
        count: u8,
    },
    /// A castling field the position cannot have.
    #[error("castling rights: {0}")]
    CastlingRights(CastlingFault),
    /// An en-passant field the position cannot have.
    #[error("en passant square: {0}")]
    EnPassant(EnPassantFault),
    /// The halfmove clock is not a number of plies.
    #[error("invalid halfmove clock (a number of plies, 0 or more)")]
    HalfmoveClock,
    /// The fullmove number is not in 1..=65535.
    #[error("invalid fullmove number (1..=65535)")]
    FullmoveNumber,
}

/// Why the castling field was refused (standard chess: `KQkq` or `-`;
/// Chess960 also takes the rooks' files, `A`-`H` and `a`-`h`).
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum CastlingFault {
    /// A letter other than `KQkq` or `-` (or a file letter, in Chess960).
    #[error("'{0}' is not one of K, Q, k, q or '-' (rook files A-H, a-h only in Chess960)")]
    Letter(char),
    /// A right given twice (in Chess960: two rights on one side of a king).
    #[error("'{0}' given twice (or a second right on the same side of the king)")]
    Duplicate(char),
    /// A Chess960 right whose king is not on its first rank.
    #[error("'{0}' needs the king on its first rank")]
    KingNotOnBackRank(char),
    /// A Chess960 right without the rook it names (`K`/`Q`: no rook on
    /// that side of the king).
    #[error("'{0}' names no rook of that side on its first rank")]
    NoRook(char),
    /// A right whose king is not on its home square.
    #[error("'{0}' needs the king on its e-file home square")]
    KingNotHome(char),
    /// A right whose rook is not on its corner.
    #[error("'{0}' needs a rook on its corner square")]
    RookNotHome(char),
}

/// Why the en-passant field was refused.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum EnPassantFault {
    /// Neither a square nor `-`.
    #[error("not a square or '-'")]
    Syntax,
    /// Not on the rank behind a pawn that just made a double step.
    #[error("must be on the sixth rank of the side to move (rank 6 if white moves, 3 if black)")]
    WrongRank,
    /// No enemy pawn in front of the square.
    #[error("no pawn that just made a double step stands in front of it")]
    NoPawn,
    /// The square passed over or the pawn's start square is occupied.
    #[error("the square it was passed over, or the pawn's start square, is occupied")]
    Occupied,
    /// A check the double step cannot have given.
    #[error("the side to move is in check in a way the double step cannot explain")]
    ImpossibleCheck,
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// A FEN that could not be parsed, with the offending text.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("invalid FEN '{fen}': {kind}")]
pub struct FenError {
    /// The FEN as given.
    pub fen: String,
    /// What is wrong with it.
    pub kind: FenErrorKind,
}

/// Why a move text was rejected.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum MoveErrorKind {
    /// Not of the form `<from><to>[promotion]` (`e2e4`, `e7e8q`).
    #[error("malformed move")]
    Malformed,
    /// Well-formed but not legal in the position.
    #[error("illegal move")]
    Illegal,
}

/// A move that could not be played, with the position it was tried in.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{kind} '{mv}' in position {fen}")]
pub struct MoveError {
    /// The move text as given.
    pub mv: String,
    /// The position it was tried in.
    pub fen: String,
    /// Why it was rejected.
    pub kind: MoveErrorKind,
}

/// How a game stands in a position (the game rules, not search heuristics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameState {
    /// Moves remain and no draw rule applies.
    Ongoing,
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// 100 plies without capture or pawn move (and no mate on the board).
    FiftyMoves,
    /// The current position occurred for the third time.
    Threefold,
    /// Neither side can mate by any sequence of legal moves (K vs K, minor vs K,
    /// bishops all on one colour).
    InsufficientMaterial,
}

impl GameState {
    /// Whether the game is drawn by rule.
    pub fn is_draw(self) -> bool {
        matches!(
            self,
            GameState::Stalemate
                | GameState::FiftyMoves
                | GameState::Threefold
                | GameState::InsufficientMaterial
        )
    }
}

/// A game position with the history an engine needs (repetitions, 50-move rule).
#[derive(Clone, Debug)]
pub struct Position {
    board: Board,
    /// Chess960: castling written king-takes-rook, FENs in X-FEN.
    chess960: bool,
    /// Repetition keys of the earlier positions, oldest first.
    keys: Vec<u64>,
    /// Earlier boards, parallel to `keys`, for [`Position::unmake`].
    boards: Vec<Board>,
    /// Indices into `keys` of the positions a null move was made from,
    /// ascending. A repetition must not pass through a null move: the side
    /// that passed did not really play.
    nulls: Vec<usize>,
}

impl Default for Position {
    fn default() -> Self {
        Self::startpos()
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
            && self.chess960 == other.chess960
            && self.keys == other.keys
            && self.nulls == other.nulls
    }
}

impl fmt::Display for Position {
    /// The FEN of the current board.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_fen())
    }
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Self {
        Self::from_board(Board::default())
    }

    /// A standard-chess position without history from a board.
    pub fn from_board(board: Board) -> Self {
        Position {
            board,
            chess960: false,
            keys: Vec::new(),
            boards: Vec::new(),
            nulls: Vec::new(),
        }
    }

    /// Parse a FEN. Runs of whitespace count as one separator; the halfmove
    /// clock and fullmove number may be left out (EPD style: `0 1`). A
    /// halfmove clock above 100 is read as 100: the 50-move rule is reached
    /// either way, and cozy-chess stores no more. Standard chess only:
    /// castling rights need king and rook on their home squares.
    pub fn from_fen(fen: &str) -> Result<Self, FenError> {
        parse_fen(fen, false).map(Self::from_board)
    }

    /// Parse a FEN as a Chess960 position: castling rights in X-FEN (`KQkq`
    /// for the outermost rooks, a file letter for an inner one) or
    /// Shredder-FEN (`HAha`), the king anywhere on its first rank. Castling
    /// moves of the position are written and read king-takes-rook.
    pub fn from_fen_chess960(fen: &str) -> Result<Self, FenError> {
        let mut pos = Self::from_board(parse_fen(fen, true)?);
        pos.chess960 = true;
        Ok(pos)
    }

    /// Whether this is a Chess960 position (see [`Self::from_fen_chess960`]).
    pub fn chess960(&self) -> bool {
        self.chess960
    }

    /// FEN of the current board (X-FEN in Chess960).
    pub fn to_fen(&self) -> String {
        if self.chess960 {
            x_fen(&self.board)
        } else {
            self.board.to_string()
        }
    }

    /// The current board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Side to move.
    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    /// Zobrist hash of the current board (cozy-chess's, en passant included).
    pub fn hash(&self) -> u64 {
        self.board.hash()
    }

    /// Repetition key of the current board (see [`repetition_key`]).
    pub fn key(&self) -> u64 {
        repetition_key(&self.board)
    }

    /// Repetition keys of the earlier positions of the game, oldest first,
    /// excluding the current one (for repetition detection). A null move
    /// also pushes an entry.
    pub fn history(&self) -> &[u64] {
        &self.keys
    }

    /// Number of moves (and null moves) played since the position was set up.
    pub fn game_ply(&self) -> usize {
        self.keys.len()
    }

    /// Plies since the last capture or pawn move (capped at 100 by cozy-chess).
    pub fn halfmove_clock(&self) -> u32 {
        self.board.halfmove_clock() as u32
    }

    /// All legal moves, in cozy-chess's encoding.
    pub fn legal_moves(&self) -> Vec<Move> {
        legal_moves(&self.board)
    }

    /// Play a legal move in cozy-chess's encoding (castling as king takes rook).
    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        if !self.board.is_legal(mv) {
            return Err(MoveError {
                mv: move_to_uci(&self.board, mv, self.chess960),
                fen: self.to_fen(),
                kind: MoveErrorKind::Illegal,
            });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Play a move known to be legal (from the move generator). An illegal
    /// move may corrupt the board or panic inside cozy-chess.
    pub fn play_unchecked(&mut self, mv: Move) {
        let next = {
            let mut b = self.board.clone();
            b.play_unchecked(mv);
            b
        };
        self.push(next);
    }

    /// Play a move given in UCI notation (`e2e4`, `e7e8q`, castling as `e1g1`;
    /// cozy-chess's `e1h1` is accepted too; only `e1h1` in Chess960).
    pub fn play_uci(&mut self, mv: &str) -> Result<(), MoveError> {
        let m = parse_uci_move(&self.board, mv, self.chess960)?;
        self.play_unchecked(m);
        Ok(())
    }

    /// Pass the turn (null move). Returns false, and changes nothing, when the
    /// side to move is in check.
    pub fn make_null(&mut self) -> bool {
        match self.board.null_move() {
            Some(next) => {
                self.nulls.push(self.keys.len());
                self.push(next);
                true
            }
            None => false,
        }
    }

    /// Take back the last move or null move. Returns false at the root of the
    /// recorded history.
    pub fn unmake(&mut self) -> bool {
        match self.boards.pop() {
            Some(prev) => {
                self.keys.pop();
                if self.nulls.last() == Some(&self.keys.len()) {
                    self.nulls.pop();
                }
                self.board = prev;
                true
            }
            None => false,
        }
    }

    fn push(&mut self, next: Board) {
        self.keys.push(repetition_key(&self.board));
        let prev = std::mem::replace(&mut self.board, next);
        self.boards.push(prev);
    }

    /// How many times the current position occurred earlier in the game.
    /// A repetition must not pass through a null move, so the scan starts
    /// after the position the last null move was made from.
    pub fn repetition_count(&self) -> usize {
        let from = self.nulls.last().map_or(0, |&i| i + 1);
        repetitions(&self.keys[from..], &self.board)
    }

    /// Whether the current position occurred at least `times` times before.
    /// `is_repetition(2)` is the game's threefold rule; the search may use 1.
    pub fn is_repetition(&self, times: usize) -> bool {
        self.repetition_count() >= times
    }

    /// 50-move rule reached (100 plies). Per FIDE, a checkmate delivered by
    /// the 100th ply still counts as mate, so check [`Position::state`] for games.
    pub fn is_fifty_move_draw(&self) -> bool {
        self.board.halfmove_clock() >= 100
    }

    /// Neither side has mating material.
    pub fn is_insufficient_material(&self) -> bool {
        insufficient_material(&self.board)
    }

    /// The game's status by the rules: mate and stalemate first, then the
    /// 50-move rule, threefold repetition and insufficient material.
    pub fn state(&self) -> GameState {
        if !self.board.generate_moves(|_| true) {
            return if self.board.checkers().is_empty() {
                GameState::Stalemate
            } else {
                GameState::Checkmate
            };
        }
        if self.is_fifty_move_draw() {
            GameState::FiftyMoves
        } else if self.is_repetition(2) {
            GameState::Threefold
        } else if self.is_insufficient_material() {
            GameState::InsufficientMaterial
        } else {
            GameState::Ongoing
        }
    }

    /// Whether the game is drawn by rule in this position.
    pub fn is_draw(&self) -> bool {
        self.state().is_draw()
    }

    /// UCI text of a move in this position (castling as the variant writes it).
    pub fn move_to_uci(&self, mv: Move) -> String {
        move_to_uci(&self.board, mv, self.chess960)
    }

    /// Parse a UCI move in this position without playing it.
    pub fn parse_uci(&self, text: &str) -> Result<Move, MoveError> {
        parse_uci_move(&self.board, text, self.chess960)
    }

    /// A text diagram of the board (the UCI `d` command).
    pub fn pretty(&self) -> String {
        let mut s = String::new();
        for rank in Rank::ALL.iter().rev() {
            s.push_str(&format!("{} ", *rank as usize + 1));
            for file in File::ALL {
                let sq = Square::new(file, *rank);
                let c = match (self.board.piece_on(sq), self.board.color_on(sq)) {
                    (Some(p), Some(c)) => {
                        let ch: char = p.into();
                        if c == Color::White {
                            ch.to_ascii_uppercase()
                        } else {
                            ch
                        }
                    }
                    _ => '.',
                };
                s.push(c);
                s.push(' ');
            }
            s.push('\n');
        }
        s.push_str("  a b c d e f g h\n");
        s
    }
}

/// All legal moves of `board`, in cozy-chess's encoding.
pub fn legal_moves(board: &Board) -> Vec<Move> {
    let mut moves = Vec::with_capacity(64);
    board.generate_moves(|pm| {
        moves.extend(pm);
        false
    });
    moves
}

/// The repetition key of a board: its hash, without the en-passant part
/// unless an en-passant capture is actually legal (FIDE's notion of "same
/// position"). Equals `board.hash()` whenever no en-passant square is set.
pub fn repetition_key(board: &Board) -> u64 {
    match board.en_passant() {
        None => board.hash(),
        Some(file) => {
            let us = board.side_to_move();
            let target = Square::new(file, Rank::Sixth.relative_to(us));
            let from_rank = Rank::Fifth.relative_to(us);
            let ours = board.colored_pieces(us, Piece::Pawn);
            let can_capture = [file as i32 - 1, file as i32 + 1]
                .into_iter()
                .filter(|f| (0..8).contains(f))
                .map(|f| Square::new(File::index(f as usize), from_rank))
                .filter(|sq| ours.has(*sq))
                .any(|from| {
                    board.is_legal(Move {
                        from,
                        to: target,
                        promotion: None,
                    })
                });
            if can_capture {
                board.hash()
            } else {
                board.hash_without_ep()
            }
        }
    }
}

/// How many times `board` occurs in `earlier`, the repetition keys of the
/// positions before it (oldest first, none from before a null move). Only
/// positions since the last irreversible move, with the same side to move,
/// can repeat, so the scan is short. Shared by the game and the search.
pub fn repetitions(earlier: &[u64], board: &Board) -> usize {
    let key = repetition_key(board);
    let window = (board.halfmove_clock() as usize).min(earlier.len());
    earlier[earlier.len() - window..]
        .iter()
        .rev()
        .skip(1)
        .step_by(2)
        .filter(|&&k| k == key)
        .count()
}

/// Whether a move of `board` is castling (cozy-chess: king takes own rook).
pub fn is_castling(board: &Board, mv: Move) -> bool {
    board.piece_on(mv.from) == Some(Piece::King) && board.colors(board.side_to_move()).has(mv.to)
}

/// UCI text of a legal move of `board`, with castling in standard notation
/// (the king's destination, `e1g1`), not cozy-chess's king-takes-rook;
/// in `chess960`, king-takes-rook (`e1h1`), as `UCI_Chess960` wants.
pub fn move_to_uci(board: &Board, mv: Move, chess960: bool) -> String {
    if !chess960 && is_castling(board, mv) {
        let file = if mv.to.file() > mv.from.file() {
            File::G
        } else {
            File::C
        };
        let to = Square::new(file, mv.from.rank());
        format!("{}{}", mv.from, to)
    } else {
        mv.to_string()
    }
}

/// Parse a UCI move (`e2e4`, `e7e8q`; castling as `e1g1` or as cozy-chess's
/// `e1h1`) and check that it is legal in `board`. Returns cozy-chess's
/// encoding. In `chess960` castling is king-takes-rook only: a king's
/// two-file step there is an ordinary (and usually illegal) king move.
pub fn parse_uci_move(board: &Board, text: &str, chess960: bool) -> Result<Move, MoveError> {
    let err = |kind| MoveError {
        mv: text.to_string(),
        fen: if chess960 {
            x_fen(board)
        } else {
            board.to_string()
        },
        kind,
    };
    let mv = parse_move_text(text).ok_or_else(|| err(MoveErrorKind::Malformed))?;
    if board.is_legal(mv) {
        return Ok(mv);
    }
    if chess960 {
        return Err(err(MoveErrorKind::Illegal));
    }
    // Standard castling notation: the king moves two files along its rank.
    let us = board.side_to_move();
    let back = Rank::First.relative_to(us);
    if mv.promotion.is_none()
        && mv.from == board.king(us)
        && mv.from.rank() == back
        && mv.to.rank() == back
    {
        let rights = board.castle_rights(us);
        let rook = match mv.to.file() {
            File::G if mv.from.file() < File::G => rights.short,
            File::C if mv.from.file() > File::C => rights.long,
            _ => None,
        };
        if let Some(rook) = rook {
            let castle = Move {
                from: mv.from,
                to: Square::new(rook, back),
                promotion: None,
            };
            if board.is_legal(castle) {
                return Ok(castle);
            }
        }
    }
    Err(err(MoveErrorKind::Illegal))
}

/// Strict syntax of a UCI move: two squares and an optional lowercase
/// promotion letter (uppercase is tolerated).
fn parse_move_text(text: &str) -> Option<Move> {
    if !text.is_ascii() || !(4..=5).contains(&text.len()) {
        return None;
    }
    let from: Square = text[0..2].parse().ok()?;
    let to: Square = text[2..4].parse().ok()?;
    let promotion = match text.as_bytes().get(4).map(u8::to_ascii_lowercase) {
        None => None,
        Some(b'q') => Some(Piece::Queen),
        Some(b'r') => Some(Piece::Rook),
        Some(b'b') => Some(Piece::Bishop),
        Some(b'n') => Some(Piece::Knight),
        Some(_) => return None,
    };
    Some(Move {
        from,
        to,
        promotion,
    })
}

/// Neither side can mate by any sequence of legal moves: no pawn, rook or
/// queen, and at most one minor piece or only bishops all on one colour.
/// The game's rule and the search's.
pub fn insufficient_material(board: &Board) -> bool {
    let heavy = board.pieces(Piece::Pawn) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    if !heavy.is_empty() {
        return false;
    }
    let knights = board.pieces(Piece::Knight);
    let bishops = board.pieces(Piece::Bishop);
    let minors = knights.len() + bishops.len();
    if minors <= 1 {
        return true;
    }
    // Only bishops, all on squares of one colour: no mate is possible.
    if knights.is_empty() {
        let dark = bishops
            .into_iter()
            .filter(|sq| (sq.file() as usize + sq.rank() as usize).is_multiple_of(2))
            .count();
        return dark == 0 || dark == bishops.len() as usize;
    }
    false
}

/// FEN parsing on top of cozy-chess. Every rule of a position the board can
/// hold is checked here first, in the order a reader would look, so the
/// error names the first one broken; cozy-chess then parses what passed.
/// (cozy-chess itself lets adjacent kings through, which its move generator
/// cannot handle, and reports most faults as one "invalid board".)
/// In `chess960` the castling field may be X-FEN or Shredder-FEN; it is
/// rewritten as Shredder-FEN for cozy-chess, whose own X-FEN reading takes
/// `K`/`Q` as the h- and a-file rooks.
fn parse_fen(fen: &str, chess960: bool) -> Result<Board, FenError> {
    let err = |kind| FenError {
        fen: fen.to_string(),
        kind,
    };
    let fields: Vec<&str> = fen.split_whitespace().collect();
    match fields.len() {
        0 => return Err(err(FenErrorKind::Empty)),
        1..=3 => return Err(err(FenErrorKind::MissingField)),
        4..=6 => {}
        _ => return Err(err(FenErrorKind::TooManyFields)),
    }
    if fields[0].split('/').count() != 8 {
        return Err(err(FenErrorKind::RankCount));
    }
    let placement = check_placement(fields[0]).map_err(err)?;
    let side = match fields[1] {
        "w" => Color::White,
        "b" => Color::Black,
        _ => return Err(err(FenErrorKind::SideToMove)),
    };
    check_checks(&placement, side).map_err(err)?;
    let shredder;
    let mut fields = fields;
    if chess960 {
        shredder = chess960_castling(&placement, fields[2]).map_err(err)?;
        fields[2] = &shredder;
    } else {
        check_castling(&placement, fields[2]).map_err(err)?;
    }
    check_en_passant(&placement, side, fields[3]).map_err(err)?;
    // Games that went on without a draw claim have clocks beyond 100 plies.
    if fields.get(4).is_some_and(|f| is_number_above_100(f)) {
        fields[4] = "100";
    }
    let mut normalized = fields.join(" ");
    match fields.len() {
        4 => normalized.push_str(" 0 1"),
        5 => normalized.push_str(" 1"),
        _ => {}
    }
    Board::from_fen(&normalized, chess960).map_err(|e| {
        use cozy_chess::FenParseError as P;
        err(match e {
            P::InvalidHalfMoveClock => FenErrorKind::HalfmoveClock,
            P::InvalidFullmoveNumber => FenErrorKind::FullmoveNumber,
            // The only en-passant rule left to cozy-chess: which checks a
            // double step can give.
            P::InvalidEnPassant => FenErrorKind::EnPassant(EnPassantFault::ImpossibleCheck),
            P::MissingField => FenErrorKind::MissingField,
            P::TooManyFields => FenErrorKind::TooManyFields,
            // Checked above; kept as the nearest reasons should cozy-chess
            // ever grow a stricter rule.
            P::InvalidBoard => FenErrorKind::RankCount,
            P::InvalidSideToMove => FenErrorKind::SideToMove,
            P::InvalidCastlingRights => FenErrorKind::CastlingRights(CastlingFault::Letter('?')),
        })
    })
}

/// Where the pieces stand, as read from a FEN's first field.
struct Placement {
    /// Occupancy per colour and per piece.
    colors: [BitBoard; 2],
    pieces: [BitBoard; 6],
}

impl Placement {
    fn of(&self, color: Color, piece: Piece) -> BitBoard {
        self.colors[color as usize] & self.pieces[piece as usize]
    }

    fn king(&self, color: Color) -> Square {
        self.of(color, Piece::King)
            .next_square()
            .expect("check_placement found one king per side")
    }

    /// The pieces of `by` that attack `sq`.
    fn attackers(&self, sq: Square, by: Color) -> BitBoard {
        let occupied = self.colors[0] | self.colors[1];
        let them = self.colors[by as usize];
        let diagonal = self.pieces[Piece::Bishop as usize] | self.pieces[Piece::Queen as usize];
        let straight = self.pieces[Piece::Rook as usize] | self.pieces[Piece::Queen as usize];
        them & ((get_bishop_moves(sq, occupied) & diagonal)
            | (get_rook_moves(sq, occupied) & straight)
            | (get_knight_moves(sq) & self.pieces[Piece::Knight as usize])
            | (get_king_moves(sq) & self.pieces[Piece::King as usize])
            | (get_pawn_attacks(sq, !by) & self.pieces[Piece::Pawn as usize]))
    }
}

/// Placement syntax, then the material rules: one king each, at most 8 pawns
/// and 16 pieces a side, no pawn on a back rank, kings not adjacent.
fn check_placement(text: &str) -> Result<Placement, FenErrorKind> {
    let mut p = Placement {
        colors: [BitBoard::EMPTY; 2],
        pieces: [BitBoard::EMPTY; 6],
    };
    for (i, row) in text.split('/').enumerate() {
        let rank_number = 8 - i as u8;
        let mut file = 0u32;
        for ch in row.chars() {
            if let Some(d) = ch.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d;
                continue;
            }
            let piece = match ch.to_ascii_lowercase() {
                'p' => Piece::Pawn,
                'n' => Piece::Knight,
                'b' => Piece::Bishop,
                'r' => Piece::Rook,
                'q' => Piece::Queen,
                'k' => Piece::King,
                _ => {
                    return Err(FenErrorKind::BadCharacter {
                        rank: rank_number,
                        ch,
                    })
                }
            };
            if file < 8 {
                let sq = Square::new(File::index(file as usize), Rank::index(7 - i));
                let color = if ch.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                };
                p.colors[color as usize] |= sq.bitboard();
                p.pieces[piece as usize] |= sq.bitboard();
            }
            file += 1;
        }
        if file != 8 {
            return Err(FenErrorKind::RankLength {
                rank: rank_number,
                squares: file.min(u8::MAX as u32) as u8,
            });
        }
    }
    for color in Color::ALL {
        let kings = p.of(color, Piece::King).len() as u8;
        if kings != 1 {
            return Err(FenErrorKind::KingCount {
                color,
                count: kings,
            });
        }
    }
    let back_ranks = Rank::First.bitboard() | Rank::Eighth.bitboard();
    if let Some(square) = (p.pieces[Piece::Pawn as usize] & back_ranks).next_square() {
        return Err(FenErrorKind::PawnOnBackRank { square });
    }
    for color in Color::ALL {
        let pawns = p.of(color, Piece::Pawn).len() as u8;
        if pawns > 8 {
            return Err(FenErrorKind::TooManyPawns {
                color,
                count: pawns,
            });
        }
        let count = p.colors[color as usize].len() as u8;
        if count > 16 {
            return Err(FenErrorKind::TooManyPieces { color, count });
        }
    }
    if get_king_moves(p.king(Color::White)).has(p.king(Color::Black)) {
        return Err(FenErrorKind::AdjacentKings);
    }
    Ok(p)
}

/// The side not to move must not be in check; the side to move can be in
/// check from at most two pieces.
fn check_checks(p: &Placement, side: Color) -> Result<(), FenErrorKind> {
    if !p.attackers(p.king(!side), side).is_empty() {
        return Err(FenErrorKind::OpponentInCheck { color: !side });
    }
    let count = p.attackers(p.king(side), !side).len() as u8;
    if count > 2 {
        return Err(FenErrorKind::TooManyCheckers { color: side, count });
    }
    Ok(())
}

/// Standard castling rights: `-` or distinct letters of `KQkq`, each with
/// its king on e1/e8 and its rook in the corner.
fn check_castling(p: &Placement, text: &str) -> Result<(), FenErrorKind> {
    let fault = |f| Err(FenErrorKind::CastlingRights(f));
    if text == "-" {
        return Ok(());
    }
    for (i, ch) in text.char_indices() {
        let (color, rook_file) = match ch {
            'K' => (Color::White, File::H),
            'Q' => (Color::White, File::A),
            'k' => (Color::Black, File::H),
            'q' => (Color::Black, File::A),
            _ => return fault(CastlingFault::Letter(ch)),
        };
        if text[..i].contains(ch) {
            return fault(CastlingFault::Duplicate(ch));
        }
        let back = Rank::First.relative_to(color);
        if p.king(color) != Square::new(File::E, back) {
            return fault(CastlingFault::KingNotHome(ch));
        }
        if !p.of(color, Piece::Rook).has(Square::new(rook_file, back)) {
            return fault(CastlingFault::RookNotHome(ch));
        }
    }
    Ok(())
}

/// Chess960 castling rights, X-FEN or Shredder-FEN, checked against the
/// placement and returned as Shredder-FEN (`-` or rook files, white's
/// uppercase). `K`/`Q` name the outermost rook on the king's h- or a-side.
fn chess960_castling(p: &Placement, text: &str) -> Result<String, FenErrorKind> {
    let fault = |f| Err(FenErrorKind::CastlingRights(f));
    if text == "-" {
        return Ok(text.to_string());
    }
    // Per colour, the rook files of the short and the long right.
    let mut rights = [[None::<File>; 2]; 2];
    for ch in text.chars() {
        let color = if ch.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let back = Rank::First.relative_to(color);
        let king = p.king(color);
        if !ch.is_ascii_alphabetic() || !matches!(ch.to_ascii_lowercase(), 'a'..='h' | 'k' | 'q') {
            return fault(CastlingFault::Letter(ch));
        }
        if king.rank() != back {
            return fault(CastlingFault::KingNotOnBackRank(ch));
        }
        let rooks: Vec<File> = (p.of(color, Piece::Rook) & back.bitboard())
            .into_iter()
            .map(|sq| sq.file())
            .collect();
        let rook = match ch.to_ascii_lowercase() {
            'k' => rooks.iter().copied().filter(|&f| f > king.file()).max(),
            'q' => rooks.iter().copied().filter(|&f| f < king.file()).min(),
            letter => {
                let file = File::index((letter as u8 - b'a') as usize);
                rooks.contains(&file).then_some(file)
            }
        };
        let Some(rook) = rook else {
            return fault(CastlingFault::NoRook(ch));
        };
        let slot = &mut rights[color as usize][usize::from(rook < king.file())];
        if slot.is_some() {
            return fault(CastlingFault::Duplicate(ch));
        }
        *slot = Some(rook);
    }
    let mut out = String::new();
    for color in Color::ALL {
        for file in rights[color as usize].into_iter().flatten() {
            let letter = char::from(file);
            out.push(match color {
                Color::White => letter.to_ascii_uppercase(),
                Color::Black => letter,
            });
        }
    }
    Ok(out)
}

/// The FEN of a Chess960 board in X-FEN: `K`/`Q` for a right whose rook is
/// the outermost on its side of the king, the rook's file otherwise.
pub fn x_fen(board: &Board) -> String {
    let shredder = format!("{board:#}");
    let mut fields: Vec<String> = shredder.split(' ').map(str::to_string).collect();
    let mut castling = String::new();
    for color in Color::ALL {
        let back = Rank::First.relative_to(color);
        let rooks = board.colored_pieces(color, Piece::Rook) & back.bitboard();
        let rights = board.castle_rights(color);
        for (rook, short) in [(rights.short, true), (rights.long, false)] {
            let Some(rook) = rook else { continue };
            let outermost = !rooks.into_iter().any(|sq| {
                if short {
                    sq.file() > rook
                } else {
                    sq.file() < rook
                }
            });
            let letter = match (outermost, short) {
                (true, true) => 'k',
                (true, false) => 'q',
                (false, _) => char::from(rook),
            };
            castling.push(match color {
                Color::White => letter.to_ascii_uppercase(),
                Color::Black => letter,
            });
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    fields[2] = castling;
    fields.join(" ")
}

/// An en-passant square is the square a pawn of the side not to move just
/// passed over with a double step.
fn check_en_passant(p: &Placement, side: Color, text: &str) -> Result<(), FenErrorKind> {
    let fault = |f| Err(FenErrorKind::EnPassant(f));
    if text == "-" {
        return Ok(());
    }
    let Ok(square) = text.parse::<Square>() else {
        return fault(EnPassantFault::Syntax);
    };
    if square.rank() != Rank::Sixth.relative_to(side) {
        return fault(EnPassantFault::WrongRank);
    }
    let pawn = Square::new(square.file(), Rank::Fifth.relative_to(side));
    if !p.of(!side, Piece::Pawn).has(pawn) {
        return fault(EnPassantFault::NoPawn);
    }
    let start = Square::new(square.file(), Rank::Seventh.relative_to(side));
    let occupied = p.colors[0] | p.colors[1];
    if occupied.has(square) || occupied.has(start) {
        return fault(EnPassantFault::Occupied);
    }
    Ok(())
}

/// Whether `text` is a decimal number above 100, however long.
fn is_number_above_100(text: &str) -> bool {
    let digits = text.trim_start_matches('0');
    !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (digits.len() > 3 || digits.parse::<u32>().is_ok_and(|n| n > 100))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn castling_text_round_trip() {
        let pos = Position::from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1").unwrap();
        let short = pos.parse_uci("e1g1").unwrap();
        assert_eq!(
            short.to,
            Square::H1,
            "cozy encodes castling as king takes rook"
        );
        assert_eq!(pos.parse_uci("e1h1").unwrap(), short);
        assert_eq!(pos.move_to_uci(short), "e1g1");
        let long = pos.parse_uci("e1c1").unwrap();
        assert_eq!(long.to, Square::A1);
        assert_eq!(pos.move_to_uci(long), "e1c1");
        assert_eq!(
            pos.parse_uci("e1b1").unwrap_err().kind,
            MoveErrorKind::Illegal
        );
    }

    #[test]
    fn chess960_reads_x_fen_and_shredder_fen_alike() {
        let frc = "bnrknbrq/pppppppp/8/8/8/8/PPPPPPPP/BQNBNRKR w";
        let x = Position::from_fen_chess960(&format!("{frc} KQkq - 0 1")).unwrap();
        let shredder = Position::from_fen_chess960(&format!("{frc} HFgc - 0 1")).unwrap();
        assert_eq!(x, shredder);
        assert!(x.chess960());
        let white = x.board().castle_rights(Color::White);
        assert_eq!((white.short, white.long), (Some(File::H), Some(File::F)));
        assert_eq!(x.to_fen(), format!("{frc} KQkq - 0 1"));
        // An inner rook keeps its file letter in X-FEN.
        let inner = "rk2r2r/pppppppp/8/8/8/8/PPPPPPPP/RK2R2R w EQeq - 0 1";
        let pos = Position::from_fen_chess960(inner).unwrap();
        assert_eq!(pos.board().castle_rights(Color::Black).short, Some(File::E));
        assert_eq!(pos.to_fen(), inner);
        assert_eq!(
            Position::from_fen_chess960(&inner.replace("EQeq", "EAea")).unwrap(),
            pos
        );
    }

    #[test]
    fn chess960_castling_faults_are_named() {
        let fault = |fen: &str, chess960: bool| {
            let r = if chess960 {
                Position::from_fen_chess960(fen)
            } else {
                Position::from_fen(fen)
            };
            match r.unwrap_err().kind {
                FenErrorKind::CastlingRights(f) => f,
                other => panic!("{fen}: {other:?}"),
            }
        };
        let frc = "bnrknbrq/pppppppp/8/8/8/8/PPPPPPPP/BQNBNRKR w";
        // Standard chess refuses what only Chess960 has.
        assert_eq!(
            fault(&format!("{frc} HFgc - 0 1"), false),
            CastlingFault::Letter('H')
        );
        assert_eq!(
            fault(&format!("{frc} KQkq - 0 1"), false),
            CastlingFault::KingNotHome('K')
        );
        assert_eq!(
            fault(&format!("{frc} KQkx - 0 1"), true),
            CastlingFault::Letter('x')
        );
        assert_eq!(
            fault(&format!("{frc} KHkq - 0 1"), true),
            CastlingFault::Duplicate('H')
        );
        assert_eq!(
            fault(&format!("{frc} KQkd - 0 1"), true),
            CastlingFault::NoRook('d')
        );
        assert_eq!(
            fault("4k3/8/8/8/8/8/8/R5K1 w K - 0 1", true),
            CastlingFault::NoRook('K')
        );
        assert_eq!(
            fault("4k3/8/8/8/8/8/1K6/R6R w Q - 0 1", true),
            CastlingFault::KingNotOnBackRank('Q')
        );
    }

    #[test]
    fn chess960_castling_is_king_takes_rook_both_ways() {
        let fen = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w KQkq - 0 1";
        let pos = Position::from_fen_chess960(fen).unwrap();
        let short = pos.parse_uci("f1g1").unwrap();
        assert!(is_castling(pos.board(), short));
        assert_eq!(pos.move_to_uci(short), "f1g1");
        let long = pos.parse_uci("f1b1").unwrap();
        assert_eq!(pos.move_to_uci(long), "f1b1");
        // The king's destination is no castling notation in Chess960.
        assert_eq!(
            pos.parse_uci("f1c1").unwrap_err().kind,
            MoveErrorKind::Illegal
        );
        let mut after = pos.clone();
        after.play_uci("f1b1").unwrap();
        assert_eq!(
            after.to_fen(),
            "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/2KR2R1 b kq - 1 1"
        );
        // The standard start read as Chess960: the same moves, written e1h1.
        let start = Position::from_fen_chess960(&Position::startpos().to_fen()).unwrap();
        let std = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let c960 = Position::from_fen_chess960(&std.to_fen()).unwrap();
        assert_eq!(c960.board(), std.board());
        assert_eq!(c960.move_to_uci(std.parse_uci("e1g1").unwrap()), "e1h1");
        assert_eq!(start.legal_moves().len(), 20);
    }

    #[test]
    fn move_syntax_is_strict() {
        let pos = Position::startpos();
        for bad in ["", "e2", "e2e4x", "e2e4qq", "i2i4", "e2-e4", "é2e4", "0000"] {
            let e = pos.parse_uci(bad).unwrap_err();
            assert_eq!(e.kind, MoveErrorKind::Malformed, "{bad}");
        }
        assert_eq!(
            pos.parse_uci("e2e5").unwrap_err().kind,
            MoveErrorKind::Illegal
        );
        assert_eq!(
            pos.parse_uci("e2e4q").unwrap_err().kind,
            MoveErrorKind::Illegal
        );
    }

    #[test]
    fn repetition_key_ignores_unusable_en_passant() {
        let mut a = Position::startpos();
        a.play_uci("e2e4").unwrap();
        assert!(a.board().en_passant().is_some());
        assert_eq!(a.key(), a.board().hash_without_ep());
        let b = Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").unwrap();
        assert_eq!(b.key(), b.hash());
        assert_ne!(b.key(), b.board().hash_without_ep());
    }

    #[test]
    fn unmake_restores_board_and_history() {
        let mut pos = Position::startpos();
        pos.play_uci("g1f3").unwrap();
        let snapshot = pos.clone();
        pos.play_uci("d7d5").unwrap();
        assert!(pos.make_null());
        assert_eq!(pos.history().len(), 3);
        assert!(pos.unmake() && pos.unmake());
        assert_eq!(pos, snapshot);
        assert!(pos.unmake());
        assert!(!pos.unmake());
        assert_eq!(pos, Position::startpos());
    }

    #[test]
    fn repetitions_do_not_pass_through_a_null_move() {
        // Knights out and back: the start position four plies later.
        let mut pos = Position::startpos();
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            pos.play_uci(m).unwrap();
        }
        let keys = pos.history();
        assert!(repetitions(keys, pos.board()) > 0);
        // The same keys with a null move made from the first position, as
        // the search slices its path: crossing it is no repetition.
        assert!(repetitions(&keys[1..], pos.board()) == 0);
    }

    #[test]
    fn insufficient_material_cases() {
        for (fen, draw) in [
            ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", true),
            ("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", true),
            ("8/8/4kb2/8/8/3K4/8/8 w - - 0 1", true),
            ("8/8/4kb2/8/8/3KN3/8/8 w - - 0 1", false),
            ("8/8/4k3/8/8/3KP3/8/8 w - - 0 1", false),
            // Bishops all on dark squares cannot mate either.
            ("8/8/4kb2/8/8/3KB3/8/8 w - - 0 1", true),
            ("8/8/4kb2/8/8/3K1B2/8/8 w - - 0 1", false),
        ] {
            let b: Board = fen.parse().unwrap();
            assert_eq!(insufficient_material(&b), draw, "{fen}");
        }
    }
}
