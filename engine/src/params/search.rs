//! The search's parameter table: every switch and constant of the search,
//! declared once in `search_params!` below, which generates
//! [`SearchParams`], its defaults and its flat [`ParamSpec`] view. The
//! sections follow the search's order (see [`crate::search`]).

use std::sync::OnceLock;

use super::spec::{ParamSpec, ParamValue};

/// Declare the search parameter table. Each entry:
/// `name: type = default, [min, max; c_end], "meaning";` where the bracket is
/// required for `i32` (the `; c_end` part is optional) and absent for `bool`
/// and enums.
macro_rules! search_params {
    ($(
        $name:ident : $ty:ty = $default:expr , $( [ $min:expr, $max:expr $(; $cend:expr)? ] , )? $doc:literal ;
    )*) => {
        /// Every switch and constant of the search, one field per table entry.
        #[derive(Clone, Debug, PartialEq)]
        pub struct SearchParams {
            $( #[doc = $doc] pub $name: $ty, )*
        }

        impl Default for SearchParams {
            fn default() -> Self {
                SearchParams { $( $name: $default, )* }
            }
        }

        impl SearchParams {
            /// The table's scalar entries, in declaration order.
            pub fn specs() -> &'static [ParamSpec] {
                static SPECS: OnceLock<Vec<ParamSpec>> = OnceLock::new();
                SPECS.get_or_init(|| {
                    let d = SearchParams::default();
                    vec![$({
                        let (min, max) = $crate::__param_range!($ty; $($min, $max)?);
                        ParamSpec {
                            name: stringify!($name).to_string(),
                            kind: <$ty as ParamValue>::KIND,
                            default: ParamValue::to_i32(d.$name),
                            min,
                            max,
                            c_end: $crate::__param_cend!(min, max; $($($cend)?)?),
                            r_end: 0.002,
                            doc: $doc,
                        }
                    }),*]
                })
            }

            /// Value of entry `index` of [`Self::specs`].
            pub fn get(&self, index: usize) -> i32 {
                let mut i = 0;
                $(
                    if i == index { return ParamValue::to_i32(self.$name); }
                    i += 1;
                )*
                let _ = i;
                panic!("search parameter index {index} out of range")
            }

            /// Set entry `index` (the value must already be range-checked).
            pub fn set(&mut self, index: usize, value: i32) {
                let mut i = 0;
                $(
                    if i == index { self.$name = <$ty as ParamValue>::from_i32(value); return; }
                    i += 1;
                )*
                let _ = i;
                panic!("search parameter index {index} out of range")
            }
        }
    };
}

crate::param_enum! {
    /// Root driver of the search.
    pub enum SearchAlgorithm {
        /// Plain minimax without any cutoff (shallow depths only: a baseline).
        Minimax = "minimax",
        /// Fail-soft negamax alpha-beta with full windows for every move.
        AlphaBeta = "alphabeta",
        /// Principal variation search / NegaScout.
        Pvs = "pvs",
        /// MTD(f): null-window searches converging on the value through the TT.
        Mtdf = "mtdf",
    }
}

crate::param_enum! {
    /// How captures are ordered.
    pub enum CaptureOrder {
        /// Most valuable victim, least valuable attacker; all before quiets.
        MvvLva = "mvv_lva",
        /// By static exchange value; losing captures after the quiets.
        See = "see",
        /// MVV-LVA among captures that do not lose material (SEE >= 0);
        /// losing captures after the quiets.
        MvvSee = "mvv_see",
    }
}

search_params! {
    // Root driver (search/deepening.rs)
    search_algorithm: SearchAlgorithm = SearchAlgorithm::Pvs, "root driver: minimax, alphabeta, pvs or mtdf";
    // Aspiration windows (search/deepening.rs)
    aspiration: bool = true, "aspiration windows around the previous iteration's score";
    aspiration_min_depth: i32 = 5, [1, 20; 1], "first depth searched with an aspiration window";
    aspiration_width_cp: i32 = 14, [5, 200], "initial half-width of the aspiration window (cp)";
    aspiration_widen: i32 = 215, [120, 400; 10], "window growth on fail-low/high, in percent";
    aspiration_max_width_cp: i32 = 1000, [50, 5000], "switch to a full window once the half-width exceeds this (cp)";
    aspiration_fail_high_reduce: bool = true, "each fail high in a row searches the re-search one ply shallower (resolves a new best move sooner)";
    // Step 3: transposition table
    tt: bool = true, "transposition table at all (off: no probe, no store; ordering, cutoffs, ETC and IID lose it)";
    tt_cutoffs: bool = true, "take transposition-table cutoffs at non-PV nodes";
    // Step 5: enhanced transposition cutoff
    etc: bool = true, "enhanced transposition cutoff: probe children in the TT first";
    etc_min_depth: i32 = 4, [1, 20; 1], "minimum depth (plies) for ETC";
    etc_max_halfmove: i32 = 90, [0, 100; 5], "ETC ignores children whose halfmove clock reached this (stored scores may predate the 50-move draw)";
    // Step 6: internal iterative deepening
    iid: bool = true, "internal iterative deepening when there is no TT move";
    iid_min_depth: i32 = 6, [2, 20; 1], "minimum depth (plies) for IID";
    iid_reduction: i32 = 3, [1, 8; 1], "depth reduction (plies) of the IID search";
    // Step 8: null move (and the order of step 7; step 10: ProbCut)
    null_move: bool = true, "null-move pruning";
    null_move_r: i32 = 3, [1, 6; 1], "base null-move reduction (plies)";
    null_move_depth_divisor: i32 = 7, [1, 16; 1], "adaptive R: one more ply per this many plies of depth";
    null_move_eval_divisor: i32 = 248, [50, 1000], "adaptive R: one more ply per this many cp of eval above beta";
    null_move_max_eval_r: i32 = 1, [0, 6; 1], "adaptive R: at most this many plies from the eval margin";
    null_move_min_depth: i32 = 1, [1, 8; 1], "minimum depth (plies) for null move";
    null_move_verify_depth: i32 = 12, [1, 64; 1], "verify null-move cutoffs by a reduced search at this depth and above";
    null_move_qs_checks: bool = false, "a null-move search that drops straight into quiescence tries quiet checks at its first ply";
    null_move_static_margin: bool = true, "null move only where the static eval beats beta by null_move_margin_cp less null_move_margin_per_ply_cp per ply of depth (Stockfish's staticEval >= beta - 20 * depth + 204): at shallow depth a position barely above beta is left to the search";
    null_move_margin_cp: i32 = 124, [0, 400; 15], "null_move_static_margin: margin above beta at depth 0 (cp)";
    null_move_margin_per_ply_cp: i32 = 17, [0, 60; 3], "null_move_static_margin: margin taken off per ply of depth (cp)";
    rfp_before_null: bool = true, "try reverse futility (the cheaper static test) before the null move";
    probcut: bool = false, "ProbCut: a capture whose reduced search beats beta by a margin proves a cutoff at a non-PV node";
    probcut_min_depth: i32 = 5, [3, 12; 1], "ProbCut: minimum depth (plies)";
    probcut_margin_cp: i32 = 200, [50, 500], "ProbCut: how far above beta the reduced search must land (cp)";
    probcut_reduction: i32 = 4, [2, 8; 1], "ProbCut: depth reduction (plies) of the capture searches";
    // Steps 7, 9 and 13: reverse futility, razoring, pruning at shallow depth
    rfp: bool = true, "reverse futility pruning (static null move)";
    rfp_margin_cp: i32 = 74, [20, 300], "reverse futility margin per ply (cp)";
    rfp_max_depth: i32 = 4, [1, 16; 1], "maximum depth (plies) for reverse futility pruning";
    razoring: bool = true, "razoring: drop to quiescence when far below alpha";
    razor_margin_cp: i32 = 247, [50, 1000], "razoring margin per ply (cp)";
    razor_max_depth: i32 = 1, [1, 6; 1], "maximum depth (plies) for razoring";
    razor_qs_checks: bool = false, "razoring's quiescence search tries quiet checks at its first ply (a quiet mate behind a sacrifice is not razored away)";
    futility: bool = true, "futility pruning of quiet moves (futility_lmr decides how)";
    futility_margin_cp_d1: i32 = 150, [20, 600], "futility margin at depth 1 (cp), with futility_lmr off";
    futility_margin_cp_d2: i32 = 300, [50, 1000], "futility margin at depth 2 (cp), with futility_lmr off";
    futility_margin_cp_d3: i32 = 500, [50, 1500], "futility margin at depth 3 (cp), with futility_lmr off";
    futility_lmr: bool = true, "futility pruning by the depth left after the move's late-move reduction (Stockfish's lmrDepth), one move at a time, its margin raised by the move's history, instead of the three fixed margins";
    futility_lmr_max_depth: i32 = 10, [1, 16; 1], "futility_lmr: deepest reduced depth (plies) it prunes at";
    futility_lmr_base_cp: i32 = 93, [0, 400; 15], "futility_lmr: margin at reduced depth 0 (cp)";
    futility_lmr_per_ply_cp: i32 = 130, [30, 300; 12], "futility_lmr: margin added per ply of reduced depth (cp)";
    futility_lmr_history_div: i32 = 61, [0, 512; 8], "futility_lmr: one cp more margin per this much quiet history (0: no history term)";
    capture_futility: bool = false, "futility pruning of captures that do not give check: static eval plus the captured piece plus a margin by the reduced depth still below alpha";
    capture_futility_max_depth: i32 = 6, [1, 12; 1], "capture_futility: deepest reduced depth (plies) it prunes at";
    capture_futility_base_cp: i32 = 180, [0, 500; 20], "capture_futility: margin at reduced depth 0 (cp)";
    capture_futility_per_ply_cp: i32 = 200, [30, 400; 15], "capture_futility: margin added per ply of reduced depth (cp)";
    lmp: bool = true, "late-move pruning of quiet moves at shallow depth";
    lmp_base: i32 = 3, [1, 20; 1], "late-move pruning: moves allowed at depth 0";
    lmp_factor: i32 = 2, [1, 8; 1], "late-move pruning: growth per depth squared";
    history_prune: bool = false, "prune a late quiet move whose history score is below -history_prune_margin per ply at shallow depth";
    history_prune_max_depth: i32 = 3, [1, 8; 1], "maximum depth (plies) for history pruning";
    history_prune_margin: i32 = 1000, [0, 16384; 250], "history pruning threshold per ply of depth (history units; the butterfly and two continuation tables summed)";
    see_prune: bool = true, "prune moves that lose material by static exchange at shallow depth";
    see_quiet_margin_cp: i32 = 60, [0, 300], "SEE pruning margin for quiets per ply (cp), with see_quiet_lmr off";
    see_capture_margin_cp: i32 = 102, [0, 300], "SEE pruning margin for captures per ply (cp)";
    see_prune_max_depth: i32 = 8, [1, 16; 1], "maximum depth (plies) for SEE pruning";
    see_check_margin_cp: i32 = 102, [0, 1000], "SEE pruning margin per ply (cp) for captures and promotions that give check (quiet checks are never SEE-pruned): the checking sacrifice that begins a mating attack";
    see_quiet_lmr: bool = true, "SEE pruning of quiet moves by the depth left after the move's late-move reduction (Stockfish's lmrDepth rule): margin see_quiet_lmr_quad_cp x d^2 + see_quiet_lmr_lin_cp x d instead of see_quiet_margin_cp per ply of full depth";
    see_quiet_lmr_quad_cp: i32 = 26, [0, 100; 4], "see_quiet_lmr: margin per squared ply of reduced depth (cp)";
    see_quiet_lmr_lin_cp: i32 = 10, [0, 150; 8], "see_quiet_lmr: margin per ply of reduced depth (cp)";
    improving: bool = true, "an improving static eval (above its value two plies earlier) halves the reverse futility margin's depth by a ply and doubles the late-move pruning count; a worsening one halves the count";
    corr_history: bool = false, "correction history: add to each static eval the running average of how far searches of the same pawn structure (side to move) landed from theirs";
    corr_history_max_cp: i32 = 100, [10, 400], "correction history: bound on one search's error and on the correction (cp)";
    // Step 15: late move reductions
    lmr: bool = true, "late move reductions";
    lmr_base: i32 = 93, [0, 200], "LMR: base reduction, in hundredths of a ply";
    lmr_divisor: i32 = 178, [100, 500], "LMR: divisor of ln(depth)*ln(moves), in hundredths";
    lmr_min_depth: i32 = 3, [1, 8; 1], "LMR: minimum depth (plies)";
    lmr_min_move: i32 = 3, [1, 12; 1], "LMR: first move number (1-based) that may be reduced";
    lmr_pv_less16: i32 = 19, [0, 32; 2], "LMR: reduce this much less at PV nodes (1/16 ply)";
    lmr_killer_less16: i32 = 7, [0, 32; 2], "LMR: reduce killers and the countermove this much less (1/16 ply)";
    lmr_not_improving16: i32 = 15, [0, 32; 2], "LMR: reduce this much more when the static eval is not improving (1/16 ply)";
    lmr_ttpv_less16: i32 = 0, [0, 48; 4], "LMR: reduce this much less (1/16 ply) at a node that is or was on a principal variation (its TT entry says so; Stockfish's ttPv), on top of lmr_pv_less16 at PV nodes";
    lmr_cut_node16: i32 = 0, [0, 48; 4], "LMR: reduce this much more at expected cut nodes (1/16 ply)";
    lmr_bad_captures: bool = false, "LMR: reduce late captures that lose material by static exchange as late quiet moves are (without the history term)";
    lmr_tt_capture16: i32 = 0, [0, 32; 2], "LMR: reduce quiet moves this much more at a node whose TT move is a capture (1/16 ply)";
    lmr_deeper: bool = false, "LMR: a reduced move that beats alpha by more than lmr_deeper_margin_cp is re-searched a ply deeper than planned";
    lmr_deeper_margin_cp: i32 = 64, [0, 300; 8], "LMR: how far above alpha (cp) a reduced move's score must land for lmr_deeper";
    lmr_history_divisor: i32 = 8491, [0, 32768; 1000], "LMR: one ply less per this much quiet history, one more per this much below zero (0: off)";
    // Steps 11 and 14: extensions in sixteenths of a ply (and step 6's IIR)
    ext_check: i32 = 16, [0, 16; 2], "check extension (1/16 ply)";
    ext_one_reply: i32 = 12, [0, 16; 2], "single-reply extension (1/16 ply)";
    ext_pawn_seventh: i32 = 8, [0, 16; 2], "pawn push to the seventh rank extension (1/16 ply)";
    ext_recapture: i32 = 3, [0, 16; 2], "recapture extension (1/16 ply)";
    ext_max_per_ply: i32 = 16, [0, 32; 2], "cap on the sum of the extensions of one move (1/16 ply); a singular move's cap is at least ext_singular";
    ext_max_ply_factor: i32 = 2, [1, 8; 1], "no extension at all beyond this many times the iteration depth (plies from the root)";
    singular: bool = true, "singular extension of a TT move that is much better than the rest";
    ext_singular: i32 = 16, [0, 32; 2], "singular extension (1/16 ply), granted even when ext_max_per_ply is smaller; 0 skips the verification search too";
    singular_min_depth: i32 = 8, [4, 20; 1], "minimum depth (plies) for singular extension";
    singular_margin_cp: i32 = 2, [0, 10; 1], "singular margin per ply of depth (cp)";
    singular_depth_divisor: i32 = 2, [1, 4; 1], "singular verification search depth: (depth - 1 ply) / this";
    singular_tt_depth_slack: i32 = 3, [0, 8; 1], "the TT entry of a singular candidate may be this many plies shallower than the node";
    ext_singular_double: i32 = 0, [0, 32; 2], "singular extension: this much more (1/16 ply) at a non-PV node when the other moves fail far below the bound";
    singular_double_margin_cp: i32 = 25, [0, 200; 5], "singular extension: how far below the singular bound (cp) counts as far for ext_singular_double";
    singular_negative16: i32 = 0, [0, 32; 2], "singular extension: a TT move that is not singular but whose TT score beats beta is searched this much shallower (1/16 ply)";
    singular_multicut: bool = true, "multi-cut: when the search without the TT move still fails high at the singular bound, the node fails high";
    ext_check_see: bool = true, "extend only checks that do not lose material by static exchange";
    ext_mate_threat: i32 = 0, [0, 16; 2], "mate-threat extension (1/16 ply) of every move at a node whose null-move search was mated (Glaurung's MateThreatExtension); with null_move_qs_checks the shallow null searches see quiet mates too";
    iir: bool = true, "internal iterative reduction: a node without a TT move is searched one ply shallower";
    iir_min_depth: i32 = 3, [2, 12; 1], "minimum depth (plies) for internal iterative reduction";
    // Step 12: move ordering, and the histories of steps 17 and 19
    capture_order: CaptureOrder = CaptureOrder::MvvSee, "capture ordering: mvv_lva or see";
    killer_count: i32 = 2, [0, 4; 1], "killer moves kept per ply";
    history: bool = true, "history heuristic for quiet moves";
    history_bonus: i32 = 37, [1, 64; 2], "history bonus scale (times depth squared)";
    history_max: i32 = 13632, [1024, 65536], "history saturation bound";
    prior_quiet_bonus: i32 = 0, [0, 4; 1], "a node of 3 plies or more, or on the PV, that fails low credits the opponent's quiet move into it, which refuted our moves, with this many history bonuses of the node's depth, twice as many at PV and expected cut nodes (butterfly and continuation history; Stockfish's prior countermove bonus; 0: off)";
    countermove: bool = true, "countermove heuristic";
    capture_history: bool = false, "capture history: order captures among equals in MVV band also by how they did (mvv_see order)";
    capture_history_divisor: i32 = 8, [1, 64; 2], "capture history is divided by this before it joins the MVV score (victim value x 8)";
    cont_history: bool = true, "continuation history: order quiet moves also by how they did after the previous two moves";
    cont_history_ply4: bool = false, "continuation history also by the side to move's own move before last, four plies back (Stockfish's third continuation table)";
    order_threats: i32 = 8723, [0, 32768; 1000], "quiet ordering: a minor piece leaving a pawn's attack gains this (history units), a rook leaving a minor's 1.5x, a queen leaving a rook's 3x; a piece stepping onto a square so attacked loses about as much (0: off)";
    order_checks: i32 = 0, [0, 32768; 1000], "quiet ordering: a quiet move that gives direct check gains this (history units; 0: off)";
    // Quiescence search (search/qsearch.rs)
    qs_checks: bool = false, "search quiet checking moves at the first quiescence ply";
    delta_pruning: bool = true, "delta pruning in quiescence";
    delta_margin_cp: i32 = 155, [0, 1000], "delta pruning margin (cp)";
    qs_see_filter: bool = true, "skip losing captures (SEE < 0) in quiescence";
    qs_see_alpha: bool = false, "quiescence: a capture that does not give check must win by static exchange at least qs_see_min_cp and at least alpha minus the stand pat minus qs_see_margin_cp (Ethereal's noisy-move threshold: a capture that cannot bring the score near alpha is not searched)";
    qs_see_margin_cp: i32 = 110, [0, 400; 15], "qs_see_alpha: how far below alpha (cp) the stand pat plus the exchange's gain may land";
    qs_see_min_cp: i32 = 1, [0, 200; 10], "qs_see_alpha: the least static-exchange gain a non-checking capture needs (cp; 1 skips even trades)";
    // Step 2: draws and mate distance
    mate_distance_pruning: bool = true, "mate distance pruning";
    contempt_cp: i32 = 0, [-100, 100], "contempt: a draw counts this many cp below zero for the engine (root side)";
    // Time management (search/timeman.rs)
    time_soft_pct: i32 = 5, [1, 50; 1], "soft limit: percent of remaining time (plus increment share)";
    time_hard_pct: i32 = 20, [2, 80; 2], "hard limit: percent of remaining time (plus increment share)";
    time_inc_pct: i32 = 75, [0, 100; 5], "percent of the increment added to both limits";
    time_max_pct: i32 = 75, [10, 95; 5], "the hard limit never exceeds this percent of remaining time, whatever the increment";
    time_mtg_soft_min_pct: i32 = 50, [10, 100; 5], "with movestogo: soft limit at least this percent of the even per-move share";
    time_mtg_soft_max_pct: i32 = 100, [20, 300; 10], "with movestogo: soft limit at most this percent of the even per-move share";
    time_mtg_hard_pct: i32 = 300, [100, 1000; 25], "with movestogo: hard limit at most this percent of the even per-move share";
    time_stability: bool = false, "scale the soft limit by how long the best move has stayed the same: time_unstable_pct after a change, falling linearly to time_stable_pct after four unchanged iterations";
    time_unstable_pct: i32 = 100, [50, 300; 10], "soft limit, in percent, right after the best move changed (time_stability)";
    time_stable_pct: i32 = 100, [20, 150; 5], "soft limit, in percent, once the best move has held for four iterations (time_stability)";
    time_node_fraction: bool = false, "scale the soft limit by the share of the nodes spent below the best root move: (time_node_base_pct - share) x time_node_scale_pct";
    time_node_base_pct: i32 = 150, [100, 250; 10], "node-fraction time scaling: the share, in percent, at which the soft limit would fall to zero (time_node_fraction)";
    time_node_scale_pct: i32 = 135, [50, 300; 10], "node-fraction time scaling: the multiplier, in percent (time_node_fraction)";
    time_score_trend: bool = false, "scale the soft limit by how far the score fell since three iterations back: time_score_flat_pct while it holds or rises, time_score_per_cp percent more per cp it fell, at most time_score_max_pct (Ethereal's score factor)";
    time_score_flat_pct: i32 = 75, [30, 150; 5], "soft limit, in percent, while the score holds or rises (time_score_trend)";
    time_score_per_cp: i32 = 3, [0, 20; 1], "soft limit: percent more per cp the score fell since three iterations back (time_score_trend)";
    time_score_max_pct: i32 = 130, [75, 300; 10], "soft limit: at most this percent however far the score fell (time_score_trend)";
    time_movetime_min_pct: i32 = 50, [0, 100; 5], "go movetime: use at least this percent of it even when the overhead would leave less";
    time_missing_clock_ms: i32 = 1000, [1, 60000], "per-move time when go gives clock fields but not the mover's (ms)";
    move_overhead_ms: i32 = 50, [0, 5000; 5], "time reserved per move for communication and scheduling delays (ms)";
}
