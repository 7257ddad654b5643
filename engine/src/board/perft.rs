//! Perft: counts the leaf nodes of the legal move tree to a fixed depth, the
//! standard correctness check (and speed figure) of a move generator. Relies
//! on cozy-chess's generator; the last ply is bulk-counted from the piece move
//! sets without playing the moves.

use std::sync::atomic::{AtomicBool, Ordering};

use cozy_chess::{Board, Move};

/// Number of leaf nodes `depth` plies below `board`.
pub fn perft(board: &Board, depth: u32) -> u64 {
    let never = AtomicBool::new(false);
    perft_until(board, depth, &never).unwrap_or_default()
}

/// [`perft`] that gives up (`None`) once `stop` is set. The flag is read at
/// every interior node, not only between root moves: one root move's
/// subtree at a large depth would otherwise never end (`go perft 64`).
pub fn perft_until(board: &Board, depth: u32, stop: &AtomicBool) -> Option<u64> {
    match depth {
        0 => Some(1),
        1 => {
            let mut n = 0;
            board.generate_moves(|moves| {
                n += moves.len() as u64;
                false
            });
            Some(n)
        }
        _ => {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let mut n = Some(0);
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    n = n
                        .zip(perft_until(&child, depth - 1, stop))
                        .map(|(a, b)| a + b);
                    if n.is_none() {
                        return true;
                    }
                }
                false
            });
            n
        }
    }
}

/// Perft split by root move: each legal move with its subtree's leaf count,
/// in move-generator order. Empty for depth 0.
pub fn perft_divide(board: &Board, depth: u32) -> Vec<(Move, u64)> {
    let never = AtomicBool::new(false);
    perft_divide_until(board, depth, &never).unwrap_or_default()
}

/// Leaf count of a divide to `depth`: the sum of its subtrees, or 1 at
/// depth 0 (the root alone; its divide is empty).
pub fn divide_total(divide: &[(Move, u64)], depth: u32) -> u64 {
    if depth == 0 {
        1
    } else {
        divide.iter().map(|(_, n)| n).sum()
    }
}

/// [`perft_divide`] that checks `stop` between root moves; `None` if stopped.
pub fn perft_divide_until(
    board: &Board,
    depth: u32,
    stop: &AtomicBool,
) -> Option<Vec<(Move, u64)>> {
    if depth == 0 {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for mv in crate::board::position::legal_moves(board) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let mut child = board.clone();
        child.play_unchecked(mv);
        out.push((mv, perft_until(&child, depth - 1, stop)?));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_small_depths() {
        let b = Board::default();
        assert_eq!(perft(&b, 0), 1);
        assert_eq!(perft(&b, 1), 20);
        assert_eq!(perft(&b, 2), 400);
        assert_eq!(perft(&b, 3), 8902);
    }

    #[test]
    fn divide_sums_to_perft() {
        let b: Board = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
            .parse()
            .unwrap();
        let d = perft_divide(&b, 2);
        assert_eq!(d.len(), 48);
        assert_eq!(d.iter().map(|(_, n)| n).sum::<u64>(), 2039);
        assert!(perft_divide(&b, 0).is_empty());
    }

    #[test]
    fn a_set_stop_ends_a_deep_perft_at_once() {
        // Depth 64 would never finish: only the stop check inside the
        // subtrees can end it.
        let stop = AtomicBool::new(true);
        let b = Board::default();
        assert_eq!(perft_until(&b, 64, &stop), None);
        assert_eq!(perft_divide_until(&b, 64, &stop), None);
        // Shallow depths need no interior node and are counted regardless.
        assert_eq!(perft_until(&b, 1, &stop), Some(20));
    }
}
