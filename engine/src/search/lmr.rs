//! The late-move reduction table (step 15, see [`super`]): a reduction
//! per depth and move number, built once per parameter set from
//! `lmr_base` and `lmr_divisor`, and owned by the searcher.

use super::types::ONE_PLY;
use crate::params::SearchParams;

/// Late-move reduction table in sixteenths of a ply, indexed by
/// [depth in plies][move number], built from `lmr_base` and `lmr_divisor`.
pub(super) struct LmrTable(Box<[[i32; 64]; 64]>);

impl LmrTable {
    pub(super) fn new(p: &SearchParams) -> Self {
        let mut table = Box::new([[0; 64]; 64]);
        let base = p.lmr_base as f64 / 100.0;
        let div = p.lmr_divisor.max(1) as f64 / 100.0;
        for d in 1..64 {
            for m in 1..64 {
                let r = base + (d as f64).ln() * (m as f64).ln() / div;
                table[d][m] = (r * ONE_PLY as f64).max(0.0) as i32;
            }
        }
        LmrTable(table)
    }

    pub(super) fn get(&self, depth_plies: i32, move_number: usize) -> i32 {
        self.0[depth_plies.clamp(0, 63) as usize][move_number.min(63)]
    }
}
