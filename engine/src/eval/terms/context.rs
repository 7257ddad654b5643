//! What every term family reads: both sides' pieces as raw bitboards
//! ([`Side`]), the squares their pawns and kings attack, and the attack
//! sets the piece terms gather for the threat and king-danger terms
//! ([`Attacks`]); plus the bit helpers the families share.

use cozy_chess::{get_king_moves, BitBoard, Board, Color, Piece, Square};

use crate::eval::masks::pawn_attacks;

/// One side's pieces as raw bitboards.
pub(super) struct Side {
    pub(super) pawns: u64,
    pub(super) knights: u64,
    pub(super) bishops: u64,
    pub(super) rooks: u64,
    pub(super) queens: u64,
    pub(super) all: u64,
    pub(super) king: usize,
}

impl Side {
    fn new(board: &Board, c: Color) -> Side {
        let p = |piece| board.colored_pieces(c, piece).0;
        Side {
            pawns: p(Piece::Pawn),
            knights: p(Piece::Knight),
            bishops: p(Piece::Bishop),
            rooks: p(Piece::Rook),
            queens: p(Piece::Queen),
            all: board.colors(c).0,
            king: board.king(c) as usize,
        }
    }

    /// Non-pawn material in pawn units (N = B = 3, R = 5, Q = 9).
    pub(super) fn minor_major_units(&self) -> i32 {
        3 * cnt(self.knights | self.bishops) + 5 * cnt(self.rooks) + 9 * cnt(self.queens)
    }
}

/// The position as the term families read it, White's side first.
pub(super) struct Context<'b> {
    pub(super) board: &'b Board,
    pub(super) sides: [Side; 2],
    pub(super) occ: u64,
    /// Both sides' pieces in pawn units: the space term's phase and the
    /// winnability sum's pawn ending.
    pub(super) non_pawn_units: i32,
    pub(super) pawn_att: [u64; 2],
    pub(super) king_att: [u64; 2],
    /// The king's square and the squares around it.
    pub(super) king_zone: [u64; 2],
}

impl<'b> Context<'b> {
    #[inline(always)]
    pub(super) fn new(board: &'b Board) -> Self {
        let sides = [
            Side::new(board, Color::White),
            Side::new(board, Color::Black),
        ];
        let non_pawn_units = sides[0].minor_major_units() + sides[1].minor_major_units();
        let pawn_att = [
            pawn_attacks(sides[0].pawns, true),
            pawn_attacks(sides[1].pawns, false),
        ];
        let king_att = [
            get_king_moves(sq(sides[0].king)).0,
            get_king_moves(sq(sides[1].king)).0,
        ];
        let king_zone = [
            king_att[0] | 1 << sides[0].king,
            king_att[1] | 1 << sides[1].king,
        ];
        Context {
            board,
            occ: board.occupied().0,
            sides,
            non_pawn_units,
            pawn_att,
            king_att,
            king_zone,
        }
    }
}

/// Attack sets by piece kind gathered while scoring the pieces; the threat
/// and king-danger terms need both sides' complete sets.
#[derive(Default)]
pub(super) struct Attacks {
    /// Knight, bishop, rook, queen attacks.
    pub(super) by: [u64; 4],
    pub(super) all: u64,
    /// Squares attacked at least twice (pawns and king included).
    pub(super) twice: u64,
    /// Pieces per kind (N, B, R, Q) attacking the enemy king zone.
    pub(super) king_attackers: [i32; 4],
    /// Sum over those pieces of the king-zone squares they attack.
    pub(super) king_zone_attacks: i32,
    /// Safe squares summed over the pieces (what the mobility terms count).
    pub(super) mobility: i32,
}

/// The sign of side `c`'s terms: + for White, - for Black.
#[inline(always)]
pub(super) fn sign(c: usize) -> i32 {
    if c == 0 {
        1
    } else {
        -1
    }
}

#[inline(always)]
pub(super) fn cnt(b: u64) -> i32 {
    b.count_ones() as i32
}

#[inline(always)]
pub(super) fn bits(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let sq = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(sq)
        }
    })
}

#[inline(always)]
pub(super) fn sq(i: usize) -> Square {
    Square::index(i)
}

pub(super) const DARK_SQUARES: u64 = BitBoard::DARK_SQUARES.0;
