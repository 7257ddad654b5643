//! Bitboard masks the evaluation needs beyond cozy-chess's attack tables:
//! files, pawn spans and pawn attack sets, all as raw `u64` (bit 0 = a1,
//! bit 63 = h8) and computed at compile time.

/// The a-file.
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
/// The h-file.
pub const FILE_H: u64 = FILE_A << 7;
/// Files a to d.
pub const QUEEN_SIDE: u64 = FILE_A * 0x0F;

/// All squares of file `file` (0 = a).
pub const fn file_bb(file: usize) -> u64 {
    FILE_A << file
}

/// Squares of the files next to `file`.
pub const fn adjacent_files(file: usize) -> u64 {
    let mut bb = 0;
    if file > 0 {
        bb |= file_bb(file - 1);
    }
    if file < 7 {
        bb |= file_bb(file + 1);
    }
    bb
}

/// Squares on ranks strictly ahead of `rank` for White (`white`) or Black.
pub const fn ranks_ahead(rank: usize, white: bool) -> u64 {
    if white {
        if rank == 7 {
            0
        } else {
            !0u64 << (8 * (rank + 1))
        }
    } else {
        (1u64 << (8 * rank)) - 1
    }
}

/// `ADJACENT_FILES[file]`: [`adjacent_files`] as a table (the evaluation
/// asks once per pawn).
pub const ADJACENT_FILES: [u64; 8] = {
    let mut out = [0; 8];
    let mut f = 0;
    while f < 8 {
        out[f] = adjacent_files(f);
        f += 1;
    }
    out
};

/// `KING_FLANK[file]`: the files of the wing a king on `file` defends
/// (Stockfish's flanks): a-c for the a-file, a-d for b and c, c-f for d
/// and e, e-h for f and g, f-h for h.
pub const KING_FLANK: [u64; 8] = {
    let queen_side = file_bb(0) | file_bb(1) | file_bb(2) | file_bb(3);
    let centre = file_bb(2) | file_bb(3) | file_bb(4) | file_bb(5);
    let king_side = file_bb(4) | file_bb(5) | file_bb(6) | file_bb(7);
    [
        queen_side & !file_bb(3),
        queen_side,
        queen_side,
        centre,
        centre,
        king_side,
        king_side,
        king_side & !file_bb(4),
    ]
};

/// `CAMP[colour]`: a side's own half and the two ranks beyond it (0 =
/// White: ranks 1-5), where attacks on its king's flank are counted.
pub const CAMP: [u64; 2] = [(1 << 40) - 1, !((1 << 24) - 1)];

/// `RANKS_AHEAD[colour][rank]`: [`ranks_ahead`] as a table (0 = White).
pub const RANKS_AHEAD: [[u64; 8]; 2] = {
    let mut out = [[0; 8]; 2];
    let mut r = 0;
    while r < 8 {
        out[0][r] = ranks_ahead(r, true);
        out[1][r] = ranks_ahead(r, false);
        r += 1;
    }
    out
};

const fn span_table(adjacent: bool, same: bool) -> [[u64; 64]; 2] {
    let mut out = [[0; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            let (file, rank) = (sq % 8, sq / 8);
            let mut files = 0;
            if adjacent {
                files |= adjacent_files(file);
            }
            if same {
                files |= file_bb(file);
            }
            out[c][sq] = files & ranks_ahead(rank, c == 0);
            sq += 1;
        }
        c += 1;
    }
    out
}

/// `FRONT[colour][sq]`: squares ahead of `sq` on its file (a pawn's path).
pub const FRONT: [[u64; 64]; 2] = span_table(false, true);
/// `ATTACK_SPAN[colour][sq]`: squares ahead on the adjacent files, from which
/// enemy pawns could attack `sq` or a square in front of it.
pub const ATTACK_SPAN: [[u64; 64]; 2] = span_table(true, false);
/// `PASSED_SPAN[colour][sq]`: a pawn on `sq` is passed if no enemy pawn is here.
pub const PASSED_SPAN: [[u64; 64]; 2] = span_table(true, true);

/// Squares attacked by the pawns `pawns` of White (`white`) or Black.
#[inline]
pub const fn pawn_attacks(pawns: u64, white: bool) -> u64 {
    if white {
        ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9)
    } else {
        ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7)
    }
}

/// Squares attacked by two of the pawns `pawns` of White (`white`) or Black.
#[inline]
pub const fn pawn_double_attacks(pawns: u64, white: bool) -> u64 {
    if white {
        ((pawns & !FILE_A) << 7) & ((pawns & !FILE_H) << 9)
    } else {
        ((pawns & !FILE_A) >> 9) & ((pawns & !FILE_H) >> 7)
    }
}

/// The four centre squares d4, e4, d5, e5.
pub const CENTRE: u64 = 0x0000_0018_1800_0000;

/// Files c-f of a side's second to fourth ranks: where it gains space.
pub const SPACE_MASK: [u64; 2] = [0x0000_0000_3C3C_3C00, 0x003C_3C3C_0000_0000];

/// The squares `b` moves to one rank forward, for White (`white`) or Black.
#[inline]
pub const fn forward(b: u64, white: bool) -> u64 {
    if white {
        b << 8
    } else {
        b >> 8
    }
}

/// Chebyshev (king-move) distance between two square indices.
#[inline]
pub const fn distance(a: usize, b: usize) -> usize {
    let df = (a % 8).abs_diff(b % 8);
    let dr = (a / 8).abs_diff(b / 8);
    if df > dr {
        df
    } else {
        dr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_match_hand_computed_squares() {
        // e4 (28): White's path is e5..e8, Black's e3..e1.
        assert_eq!(FRONT[0][28], (1 << 36) | (1 << 44) | (1 << 52) | (1 << 60));
        assert_eq!(FRONT[1][28], (1 << 20) | (1 << 12) | (1 << 4));
        // a7 (48) for White: only b8 on the adjacent file ahead.
        assert_eq!(ATTACK_SPAN[0][48], 1 << 57);
        assert_eq!(PASSED_SPAN[0][48], (1 << 56) | (1 << 57));
        assert_eq!(FRONT[0][60], 0, "nothing ahead of the eighth rank");
    }

    #[test]
    fn tables_match_the_functions() {
        for i in 0..8 {
            assert_eq!(ADJACENT_FILES[i], adjacent_files(i));
            assert_eq!(RANKS_AHEAD[0][i], ranks_ahead(i, true));
            assert_eq!(RANKS_AHEAD[1][i], ranks_ahead(i, false));
        }
    }

    #[test]
    fn pawn_attacks_do_not_wrap_files() {
        // a2 (8) attacks b3 only; h2 (15) attacks g3 only.
        assert_eq!(pawn_attacks(1 << 8, true), 1 << 17);
        assert_eq!(pawn_attacks(1 << 15, true), 1 << 22);
        // Black h7 (55) attacks g6 (46); a7 (48) attacks b6 (41).
        assert_eq!(pawn_attacks(1 << 55, false), 1 << 46);
        assert_eq!(pawn_attacks(1 << 48, false), 1 << 41);
    }

    #[test]
    fn forward_moves_a_rank_toward_the_enemy_and_drops_the_last() {
        // e2 (12) -> e3 (20) for White, e7 (52) -> e6 (44) for Black.
        assert_eq!(forward(1 << 12, true), 1 << 20);
        assert_eq!(forward(1 << 52, false), 1 << 44);
        // Off the board, not wrapped: a8 for White, h1 for Black.
        assert_eq!(forward(1 << 56, true), 0);
        assert_eq!(forward(1 << 7, false), 0);
    }

    #[test]
    fn distance_is_king_moves() {
        assert_eq!(distance(0, 63), 7);
        assert_eq!(distance(28, 28), 0);
        assert_eq!(distance(0, 9), 1);
        assert_eq!(distance(0, 23), 7);
    }
}
