//! Ablation: what each search technique is worth. Searches the bench
//! positions ([`crate::bench::BENCH_FENS`]) to a fixed depth once with the
//! given parameters and once per technique with only that technique changed
//! (switched off, or for a default-off technique switched on), and prints
//! nodes, nodes relative to the reference and time. On request, a second,
//! shallow table compares plain minimax with pure alpha-beta to show the
//! alpha-beta saving (minimax is exponential: at depth 3 it costs more than
//! all the other rows together, so it is not run by default).

use std::io::Write;
use std::time::Instant;

use crate::bench::run_bench;
use crate::Params;

/// Every switchable technique, each turned off (or on, if off by default),
/// as the `name: value` change that its row applies.
const TECHNIQUES: &[(&str, &str)] = &[
    ("search_algorithm", "alphabeta"),
    ("search_algorithm", "mtdf"),
    ("aspiration", "false"),
    ("aspiration_fail_high_reduce", "false"),
    ("tt", "false"),
    ("tt_cutoffs", "false"),
    ("etc", "false"),
    ("iid", "false"),
    ("iir", "false"),
    ("null_move", "false"),
    ("null_move_static_margin", "false"),
    ("null_move_qs_checks", "true"),
    ("probcut", "true"),
    ("ext_mate_threat", "16"),
    ("rfp_before_null", "false"),
    ("rfp", "false"),
    ("razoring", "false"),
    ("razor_qs_checks", "true"),
    ("futility", "false"),
    ("futility_lmr", "false"),
    ("capture_futility", "true"),
    ("lmp", "false"),
    ("history_prune", "true"),
    ("see_prune", "false"),
    ("see_quiet_lmr", "false"),
    ("improving", "false"),
    ("corr_history", "true"),
    ("lmr", "false"),
    ("lmr_pv_less16", "0"),
    ("lmr_killer_less16", "0"),
    ("lmr_not_improving16", "0"),
    ("lmr_history_divisor", "0"),
    ("lmr_ttpv_less16", "16"),
    ("lmr_cut_node16", "16"),
    ("lmr_bad_captures", "true"),
    ("lmr_tt_capture16", "16"),
    ("lmr_deeper", "true"),
    ("ext_check", "0"),
    ("ext_check_see", "false"),
    ("ext_one_reply", "0"),
    ("ext_pawn_seventh", "0"),
    ("ext_recapture", "0"),
    ("singular", "false"),
    ("singular_multicut", "false"),
    ("ext_singular_double", "16"),
    ("singular_negative16", "16"),
    ("capture_order", "see"),
    ("capture_order", "mvv_lva"),
    ("capture_order", "mvv_see"),
    ("killer_count", "0"),
    ("history", "false"),
    ("cont_history", "false"),
    ("cont_history_ply4", "true"),
    ("order_threats", "0"),
    ("order_checks", "8000"),
    ("countermove", "false"),
    ("prior_quiet_bonus", "1"),
    ("capture_history", "true"),
    ("qs_checks", "true"),
    ("qs_checks", "false"),
    ("delta_pruning", "false"),
    ("qs_see_filter", "false"),
    ("qs_see_alpha", "true"),
    ("mate_distance_pruning", "false"),
];

/// Everything that prunes, reduces or extends, switched off: pure alpha-beta.
pub const PURE_ALPHA_BETA: &[(&str, &str)] = &[
    ("aspiration", "false"),
    ("tt_cutoffs", "false"),
    ("etc", "false"),
    ("iid", "false"),
    ("iir", "false"),
    ("null_move", "false"),
    ("probcut", "false"),
    ("rfp", "false"),
    ("razoring", "false"),
    ("futility", "false"),
    ("lmp", "false"),
    ("see_prune", "false"),
    ("singular_multicut", "false"),
    ("lmr", "false"),
    ("ext_check", "0"),
    ("ext_one_reply", "0"),
    ("ext_pawn_seventh", "0"),
    ("ext_recapture", "0"),
    ("singular", "false"),
    ("qs_checks", "false"),
    ("delta_pruning", "false"),
    ("qs_see_filter", "false"),
    ("qs_see_alpha", "false"),
    // Not pruning, but it moves the static evals that pruning compares.
    ("corr_history", "false"),
];

/// Deepest depth at which plain minimax is run.
pub const MINIMAX_MAX_DEPTH: i32 = 3;

fn with(params: &Params, changes: &[(&str, &str)]) -> Option<Params> {
    let mut p = params.clone();
    for (name, value) in changes {
        p.set_by_name(name, value).ok()?;
    }
    Some(p)
}

fn row(
    out: &mut dyn Write,
    label: &str,
    params: &Params,
    depth: i32,
    reference: Option<u64>,
) -> u64 {
    let start = Instant::now();
    let r = run_bench(params, depth);
    let ms = start.elapsed().as_millis();
    let rel = reference.map_or(1.0, |n| r.nodes as f64 / n.max(1) as f64);
    let _ = writeln!(out, "{label:<36} {:>12} {:>8.4} {:>9}", r.nodes, rel, ms);
    r.nodes
}

/// Print the ablation table for `params` at `depth` to `out`, and with
/// `minimax: Some(d)` the alpha-beta saving table at depth `min(d, depth,
/// MINIMAX_MAX_DEPTH)`.
pub fn run(params: &Params, depth: i32, minimax: Option<i32>, out: &mut dyn Write) {
    let _ = writeln!(
        out,
        "ablation over {} bench positions, depth {depth}",
        crate::bench::BENCH_FENS.len()
    );
    let _ = writeln!(
        out,
        "{:<36} {:>12} {:>8} {:>9}",
        "technique", "nodes", "relative", "time_ms"
    );
    let reference = row(out, "reference (given parameters)", params, depth, None);
    for &(name, value) in TECHNIQUES {
        let Some(p) = with(params, &[(name, value)]) else {
            continue;
        };
        if p == *params {
            // Already the reference setting (e.g. the default-on variant).
            continue;
        }
        row(out, &format!("{name}={value}"), &p, depth, Some(reference));
    }
    let Some(minimax_depth) = minimax else {
        return;
    };
    let shallow = depth.min(minimax_depth).clamp(1, MINIMAX_MAX_DEPTH);
    let _ = writeln!(out);
    let _ = writeln!(out, "alpha-beta saving, depth {shallow}");
    let _ = writeln!(
        out,
        "{:<36} {:>12} {:>8} {:>9}",
        "algorithm", "nodes", "relative", "time_ms"
    );
    let minimax = with(params, &[("search_algorithm", "minimax")]).expect("valid setting");
    let reference = row(out, "minimax", &minimax, shallow, None);
    let mut pure = PURE_ALPHA_BETA.to_vec();
    pure.push(("search_algorithm", "alphabeta"));
    let ab = with(params, &pure).expect("valid settings");
    row(out, "alphabeta (pure)", &ab, shallow, Some(reference));
    row(
        out,
        "reference (given parameters)",
        params,
        shallow,
        Some(reference),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_names_real_parameters() {
        let p = Params::default();
        for t in TECHNIQUES {
            assert!(with(&p, &[*t]).is_some(), "{t:?}");
        }
        assert!(with(&p, PURE_ALPHA_BETA).is_some());
        assert!(with(&p, &[("search_algorithm", "minimax")]).is_some());
        // Every boolean search switch has a row (time management does not
        // act at a fixed depth).
        for s in crate::params::SearchParams::specs() {
            if s.kind == crate::params::ParamKind::Bool && !s.name.starts_with("time_") {
                assert!(TECHNIQUES.iter().any(|(n, _)| *n == s.name), "{}", s.name);
            }
        }
    }
}
