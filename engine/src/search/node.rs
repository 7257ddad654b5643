//! One node of the main search: [`Worker::negamax`], the fail-soft
//! alpha-beta node (also PVS and the MTD(f) probes). Its state is one
//! [`Node`]; each numbered step is a method that reads and fills it, always
//! inlined, so the node compiles to one function as if written in one
//! piece. The steps run in the order of their numbers (the list is in
//! [`super`]); steps 12 to 17, the move loop, are in `moves.rs`.
//!
//! A step returns [`ControlFlow::Break`] with the node's score when it
//! decides the node, else [`ControlFlow::Continue`].

use std::ops::ControlFlow::{self, Break, Continue};

use cozy_chess::{Board, Color, Move, Piece};

use super::movepick::{MovePicker, PickMode};
use super::tablebase::{wdl_score, TB_BOUND};
use super::tt::{pack_move, Bound, TtHit};
use super::types::{INF, MATE, MATE_BOUND, MAX_PLY, ONE_PLY};
use super::worker::{bound_cuts, is_mate_score, result_bound, Worker};
use crate::board::keys::child_key;
use crate::board::position::repetition_key;
use crate::board::see::{captured_piece, see_ge};
use crate::lowlevel::ArrayList;
use crate::search::movepick::MAX_MOVES;

/// What a step decides: `Break(score)` ends the node, `Continue` goes on.
pub(super) type Step = ControlFlow<i32>;

/// The state of one node, filled in step by step.
pub(super) struct Node<'b> {
    pub(super) board: &'b Board,
    /// The window; mate distance pruning (step 2) narrows it and the move
    /// loop raises `alpha`.
    pub(super) alpha: i32,
    pub(super) beta: i32,
    /// Remaining depth in sixteenths of a ply; internal iterative
    /// reduction (step 6) may lower it.
    pub(super) depth: i32,
    /// `depth` in whole plies.
    pub(super) d_plies: i32,
    pub(super) ply: usize,
    /// A non-PV node expected to fail high (Knuth and Moore's type 2), as
    /// the PVS null-window searches of later moves and their alternating
    /// children are.
    pub(super) cut_node: bool,
    pub(super) pv_node: bool,
    pub(super) root: bool,
    pub(super) in_check: bool,
    /// The move a singular-extension search leaves out.
    pub(super) excluded: Option<Move>,
    pub(super) us: Color,
    /// Step 3: the table key (its own with an excluded move), the entry,
    /// whether the node is or was on a PV (Stockfish's ttPv) and the move
    /// to try first.
    pub(super) key: u64,
    pub(super) hit: Option<TtHit>,
    pub(super) tt_pv: bool,
    pub(super) tt_move: Option<Move>,
    /// Step 4: the static eval as computed (what the table keeps), as
    /// corrected by the correction history, and as refined by the TT
    /// score (what the pruning compares).
    pub(super) raw_eval: i32,
    pub(super) static_eval: i32,
    pub(super) eval: i32,
    /// The static eval is above its value two plies earlier.
    pub(super) improving: bool,
    /// Node-level forward pruning (steps 7 to 10) may act here.
    pub(super) prunable: bool,
    /// Step 8: the null move was mated, so every move may go deeper.
    pub(super) mate_threat: bool,
    /// Step 11: the TT move's extension (negative: a reduction) when the
    /// singular test decided one.
    pub(super) singular_move: Option<Move>,
    pub(super) singular_ext: i32,
}

/// What the move loop found, for the steps after it.
pub(super) struct Outcome {
    pub(super) best: i32,
    pub(super) best_move: Option<Move>,
    /// Moves counted (not skipped as excluded, filtered or after
    /// late-move pruning).
    pub(super) move_count: usize,
    /// Moves searched (not pruned).
    pub(super) searched: usize,
}

/// Whether `side` has a piece other than pawns and the king (null move is
/// unsafe in pawn endings: zugzwang).
fn has_non_pawn_material(board: &Board, side: Color) -> bool {
    let pk = board.pieces(Piece::Pawn) | board.pieces(Piece::King);
    !(board.colors(side) & !pk).is_empty()
}

impl Worker<'_> {
    /// The negamax alpha-beta node. Fail-soft; `depth` in sixteenths of a
    /// ply; `cut_node` as in [`Node::cut_node`].
    pub(super) fn negamax(
        &mut self,
        board: &Board,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        // Step 1. Initialize the node: at depth 0 the quiescence search
        // takes over; count the node, stop on a limit.
        if depth < ONE_PLY {
            return self.qsearch(board, alpha, beta, ply, self.sp.qs_checks);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        self.clear_pv(ply);
        if self.check_abort() {
            return 0;
        }
        let mut n = Node {
            board,
            alpha,
            beta,
            depth,
            d_plies: depth / ONE_PLY,
            ply,
            cut_node,
            pv_node: beta - alpha > 1,
            root: ply == 0,
            in_check: !board.checkers().is_empty(),
            excluded: self.stack[ply].excluded,
            us: board.side_to_move(),
            key: 0,
            hit: None,
            tt_pv: false,
            tt_move: None,
            raw_eval: 0,
            static_eval: 0,
            eval: 0,
            improving: false,
            prunable: false,
            mate_threat: false,
            singular_move: None,
            singular_ext: 0,
        };
        let (Break(v) | Continue(v)) = self.node_steps(&mut n);
        v
    }

    /// Steps 2 to 20 of the node, in order.
    #[inline(always)]
    fn node_steps(&mut self, n: &mut Node) -> ControlFlow<i32, i32> {
        self.draw_and_mate_distance(n)?; // Step 2
        self.probe_tt(n)?; // Step 3
        self.probe_tablebase(n)?; // Step 3b
        self.evaluate_node(n); // Step 4
        self.enhanced_tt_cutoff(n)?; // Step 5
        self.internal_iterative_deepening(n)?; // Step 6
        if self.sp.rfp_before_null {
            self.reverse_futility(n)?; // Step 7
        }
        self.null_move(n)?; // Step 8
        if !self.sp.rfp_before_null {
            self.reverse_futility(n)?; // Step 7, after the null move
        }
        self.razoring(n)?; // Step 9
        self.probcut(n)?; // Step 10
        self.singular_extension(n)?; // Step 11
        let out = self.search_moves(n)?; // Steps 12 to 17
        self.mate_or_stalemate(n, &out)?; // Step 18
        let bound = result_bound(out.best, n.beta, out.best_move.is_some() && n.pv_node);
        self.update_node_stats(n, &out, bound); // Step 19

        // Step 20. Store the result in the transposition table.
        self.tt_store(
            n.key,
            out.best_move,
            out.best,
            n.raw_eval,
            n.depth,
            bound,
            n.tt_pv,
            n.ply,
        );
        Continue(out.best)
    }

    /// Step 2. Draws and mate distance: a draw by rule ends the node, so
    /// does the ply limit, and no score here can beat a mate already found
    /// closer to the root. Not at the root, which must return a move.
    #[inline(always)]
    fn draw_and_mate_distance(&mut self, n: &mut Node) -> Step {
        if n.root {
            return Continue(());
        }
        if let Some(v) = self.draw_score(n.board) {
            return Break(v);
        }
        if n.ply >= MAX_PLY - 1 {
            return Break(if n.in_check {
                0
            } else {
                self.evaluate(n.board)
            });
        }
        if self.sp.mate_distance_pruning {
            n.alpha = n.alpha.max(-MATE + n.ply as i32);
            n.beta = n.beta.min(MATE - n.ply as i32 - 1);
            if n.alpha >= n.beta {
                return Break(n.alpha);
            }
        }
        Continue(())
    }

    /// Step 3. Transposition table lookup, and a cutoff by the stored bound
    /// at a non-PV node. A singular-extension search (excluded move) uses
    /// its own key; the root tries the previous iteration's best move first.
    #[inline(always)]
    fn probe_tt(&mut self, n: &mut Node) -> Step {
        n.key = match n.excluded {
            Some(m) => n.board.hash() ^ (pack_move(m) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            None => n.board.hash(),
        };
        n.hit = self.tt_probe(n.key, n.ply);
        // On a principal variation now or when last searched (Stockfish's
        // ttPv): such nodes are where a re-search is likeliest to matter.
        n.tt_pv = n.pv_node || n.hit.is_some_and(|h| h.pv);
        n.tt_move = if n.root {
            self.prev_best.or(n.hit.and_then(|h| h.mv))
        } else {
            n.hit.and_then(|h| h.mv)
        };
        if let Some(h) = n.hit {
            if self.sp.tt_cutoffs
                && !n.pv_node
                && !n.root
                && h.depth >= n.depth
                && bound_cuts(h.bound, h.score, n.alpha, n.beta)
            {
                return Break(h.score);
            }
        }
        Continue(())
    }

    /// Step 3b. Tablebases: right after a capture or pawn move, a position
    /// in the tables is bounded by its WDL (wins from below, losses from
    /// above, draws exactly); when the bound decides the node it is stored
    /// deep (no search can improve on it) and returned. Otherwise, at a PV
    /// node, the search goes on to find the line.
    #[inline(always)]
    fn probe_tablebase(&mut self, n: &mut Node) -> Step {
        if self.tb_cardinality == 0
            || n.root
            || n.excluded.is_some()
            || n.board.occupied().len() > self.tb_cardinality
        {
            return Continue(());
        }
        let Some(wdl) = self.tb.and_then(|tb| tb.probe_wdl(n.board)) else {
            return Continue(());
        };
        self.tbhits += 1;
        let v = wdl_score(wdl, n.ply);
        let bound = if v >= TB_BOUND {
            Bound::Lower
        } else if v <= -TB_BOUND {
            Bound::Upper
        } else {
            Bound::Exact
        };
        if bound_cuts(bound, v, n.alpha, n.beta) {
            let eval = if n.in_check {
                -INF
            } else {
                self.evaluate(n.board)
            };
            let depth = (n.depth + 6 * ONE_PLY).min((MAX_PLY as i32 - 1) * ONE_PLY);
            self.tt_store(n.key, None, v, eval, depth, bound, n.tt_pv, n.ply);
            return Break(v);
        }
        Continue(())
    }

    /// Step 4. Static evaluation: from the table entry when there is one,
    /// corrected by the correction history; a TT score with a fitting bound
    /// is a better estimate still. Then whether the node is improving and
    /// whether it may be pruned before its moves, and the children's frame.
    #[inline(always)]
    fn evaluate_node(&mut self, n: &mut Node) {
        let (board, ply) = (n.board, n.ply);
        n.raw_eval = self.static_eval(board, n.in_check, n.hit);
        n.static_eval = self.corrected(board, n.raw_eval);
        let static_eval = n.static_eval;
        n.eval = match n.hit {
            Some(h) if !n.in_check && !is_mate_score(h.score) => match h.bound {
                Bound::Exact => h.score,
                Bound::Lower if h.score > static_eval => h.score,
                Bound::Upper if h.score < static_eval => h.score,
                _ => static_eval,
            },
            _ => static_eval,
        };
        // Improving: the static eval is above its value two plies earlier
        // (four when that node was in check; unknown counts as improving).
        self.stack[ply].static_eval = if n.in_check { -INF } else { static_eval };
        n.improving = !n.in_check && {
            let back = |k: usize| {
                if ply >= k {
                    self.stack[ply - k].static_eval
                } else {
                    -INF
                }
            };
            let earlier = if back(2) == -INF { back(4) } else { back(2) };
            earlier == -INF || static_eval > earlier
        };
        // Node-level forward pruning (null move, reverse futility, razoring)
        // only where a wrong guess is cheap: not on the PV, not in check, not
        // inside a singular-extension search. The move-loop pruning of step
        // 13 drops single late moves and also runs at PV nodes.
        n.prunable = !n.pv_node && !n.in_check && n.excluded.is_none() && !n.root;

        self.stack[ply + 1].excluded = None;
        self.stack[ply + 1].no_null = self.stack[ply].no_null;
        self.heur.killers[ply + 2] = [None; 4];
    }

    /// Step 5. Enhanced transposition cutoff: a child whose stored upper
    /// bound already refutes it from our side proves a cutoff here. A
    /// child that is a draw by rule (a repetition of this path, say) is
    /// worth the draw, not its stored score, so it proves nothing.
    #[inline(always)]
    fn enhanced_tt_cutoff(&mut self, n: &Node) -> Step {
        let sp = self.sp;
        if !(sp.etc
            && sp.tt
            && !n.pv_node
            && !n.root
            && n.excluded.is_none()
            && n.depth >= sp.etc_min_depth * ONE_PLY)
        {
            return Continue(());
        }
        let board = n.board;
        let mut cut = None;
        let child_depth = n.depth - ONE_PLY;
        // Every child's key first, each cluster prefetched, then the
        // probes: the table reads overlap instead of waiting one by one.
        let mut children = ArrayList::<(Move, u64), MAX_MOVES>::new();
        board.generate_moves(|pm| {
            for mv in pm {
                let child_key = child_key(board, mv);
                self.tt.prefetch(child_key);
                children.push((mv, child_key));
            }
            false
        });
        self.hashes.push(repetition_key(board));
        for &(mv, child_key) in children.as_slice() {
            let Some(h) = self.tt.probe(child_key, n.ply + 1) else {
                continue;
            };
            if h.depth >= child_depth
                && matches!(h.bound, Bound::Upper | Bound::Exact)
                && -h.score >= n.beta
            {
                let mut child = board.clone();
                child.play_unchecked(mv);
                if (child.halfmove_clock() as i32) < sp.etc_max_halfmove
                    && self.draw_score(&child).is_none()
                {
                    cut = Some((mv, -h.score));
                    break;
                }
            }
        }
        self.hashes.pop();
        if let Some((mv, v)) = cut {
            let (key, eval, depth, ply) = (n.key, n.raw_eval, n.depth, n.ply);
            self.tt_store(key, Some(mv), v, eval, depth, Bound::Lower, n.tt_pv, ply);
            return Break(v);
        }
        Continue(())
    }

    /// Step 6. Internal iterative deepening: without a TT move, a reduced
    /// search finds one to order first. Or internal iterative reduction: a
    /// node the table knows nothing about is likely not worth its full
    /// depth.
    #[inline(always)]
    fn internal_iterative_deepening(&mut self, n: &mut Node) -> Step {
        let sp = self.sp;
        if sp.iid
            && n.tt_move.is_none()
            && n.excluded.is_none()
            && n.depth >= sp.iid_min_depth * ONE_PLY
        {
            let d = n.depth - sp.iid_reduction * ONE_PLY;
            self.negamax(n.board, n.alpha, n.beta, d, n.ply, n.cut_node);
            if self.aborted {
                return Break(0);
            }
            n.tt_move = self.tt_probe(n.key, n.ply).and_then(|h| h.mv);
        }
        if sp.iir
            && n.tt_move.is_none()
            && n.excluded.is_none()
            && !n.root
            && n.depth >= sp.iir_min_depth * ONE_PLY
        {
            n.depth -= ONE_PLY;
            n.d_plies = n.depth / ONE_PLY;
        }
        Continue(())
    }

    /// Step 7. Reverse futility pruning (static null move): an eval that
    /// beats beta by a margin per ply fails high without a search. Runs
    /// before the null move (`rfp_before_null`, the cheaper test first) or
    /// right after it.
    #[inline(always)]
    fn reverse_futility(&self, n: &Node) -> Step {
        let sp = self.sp;
        if !(sp.rfp
            && n.prunable
            && n.depth <= sp.rfp_max_depth * ONE_PLY
            && !is_mate_score(n.beta))
        {
            return Continue(());
        }
        let rfp_depth = if sp.improving && n.improving {
            n.depth - ONE_PLY
        } else {
            n.depth
        };
        let margin = sp.rfp_margin_cp * rfp_depth / ONE_PLY;
        if n.eval - margin >= n.beta {
            Break(n.eval)
        } else {
            Continue(())
        }
    }

    /// Step 8. Null move pruning: give the opponent a free move; if a
    /// reduced search still fails high, so would the full one. Adaptive R
    /// grows with depth and with the eval margin; zugzwang-prone positions
    /// (only pawns) are skipped and deep cutoffs are verified. With
    /// `null_move_static_margin` a shallow node only a little above beta
    /// is searched, not cut by a null move.
    #[inline(always)]
    fn null_move(&mut self, n: &mut Node) -> Step {
        let sp = self.sp;
        let (board, ply, depth, d_plies, beta) = (n.board, n.ply, n.depth, n.d_plies, n.beta);
        if !(sp.null_move
            && n.prunable
            && !self.stack[ply].no_null
            && depth >= sp.null_move_min_depth * ONE_PLY
            && n.eval >= beta
            && (!sp.null_move_static_margin
                || n.static_eval
                    >= beta + sp.null_move_margin_cp - sp.null_move_margin_per_ply_cp * d_plies)
            && !is_mate_score(beta)
            && self.stack[ply - 1].mv.is_some()
            && has_non_pawn_material(board, n.us))
        {
            return Continue(());
        }
        let r = sp.null_move_r
            + d_plies / sp.null_move_depth_divisor.max(1)
            + ((n.eval - beta) / sp.null_move_eval_divisor.max(1)).min(sp.null_move_max_eval_r);
        let Some(nb) = board.null_move() else {
            return Continue(());
        };
        self.stack[ply].play_null();
        self.hashes.push(repetition_key(board));
        let saved_floor = self.null_floor;
        self.null_floor = self.hashes.len();
        let null_depth = depth - ONE_PLY - r * ONE_PLY;
        let v = if sp.null_move_qs_checks && null_depth < ONE_PLY {
            // The opponent's free move lands in quiescence, which sees no
            // quiet threat; quiet checks show the mates we would walk into.
            -self.qsearch(&nb, -beta, -beta + 1, ply + 1, true)
        } else {
            -self.negamax(&nb, -beta, -beta + 1, null_depth, ply + 1, !n.cut_node)
        };
        self.null_floor = saved_floor;
        self.hashes.pop();
        if self.aborted {
            return Break(0);
        }
        if v >= beta {
            let v = if is_mate_score(v) { beta } else { v };
            if d_plies < sp.null_move_verify_depth {
                return Break(v);
            }
            let saved = self.stack[ply].no_null;
            self.stack[ply].no_null = true;
            let verified = self.negamax(board, beta - 1, beta, depth - r * ONE_PLY, ply, false);
            self.stack[ply].no_null = saved;
            self.stack[ply + 1].no_null = saved;
            if self.aborted {
                return Break(0);
            }
            if verified >= beta {
                return Break(v);
            }
        } else if v <= -MATE_BOUND {
            // The free move mates us: whatever we play must meet the
            // threat, so every move may be searched deeper.
            n.mate_threat = true;
        }
        Continue(())
    }

    /// Step 9. Razoring: far below alpha at shallow depth, a quiescence
    /// search that confirms the fail low ends the node.
    #[inline(always)]
    fn razoring(&mut self, n: &Node) -> Step {
        let sp = self.sp;
        if sp.razoring && n.prunable && n.depth <= sp.razor_max_depth * ONE_PLY {
            let margin = sp.razor_margin_cp * n.depth / ONE_PLY;
            if n.eval + margin <= n.alpha {
                let checks = sp.qs_checks || sp.razor_qs_checks;
                let v = self.qsearch(n.board, n.alpha, n.alpha + 1, n.ply, checks);
                if self.aborted {
                    return Break(0);
                }
                if v <= n.alpha {
                    return Break(v);
                }
            }
        }
        Continue(())
    }

    /// Step 10. ProbCut (Buro 1995, as Stockfish does it): at a node where
    /// some capture wins enough to beat beta by a margin in a reduced
    /// search, the full-depth search would most likely fail high as well.
    /// Captures that cannot gain the margin by static exchange are not
    /// tried; a cheap quiescence probe screens the rest.
    #[inline(always)]
    fn probcut(&mut self, n: &Node) -> Step {
        let sp = self.sp;
        let (board, ply) = (n.board, n.ply);
        if !(sp.probcut
            && n.prunable
            && n.depth >= sp.probcut_min_depth * ONE_PLY
            && !is_mate_score(n.beta))
        {
            return Continue(());
        }
        let pbeta = n.beta + sp.probcut_margin_cp;
        let pc_depth = n.depth - sp.probcut_reduction * ONE_PLY;
        // A table entry at least as deep already says it will not reach.
        if n.hit
            .is_some_and(|h| h.depth >= pc_depth && h.score < pbeta)
        {
            return Continue(());
        }
        let mut picker = MovePicker::new(n.tt_move, PickMode::Tactical { checks: false });
        let keys = self.order_keys(ply);
        self.hashes.push(repetition_key(board));
        let mut cut = None;
        while let Some(mv) = {
            let ctx = self.order_ctx(ply, keys);
            picker.next(board, &ctx)
        } {
            if !see_ge(board, mv, pbeta - n.static_eval, &self.values) {
                continue;
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            let capture = captured_piece(board, mv).is_some();
            self.stack[ply].play(n.us, mv, board.piece_on(mv.from), capture);
            let mut v = -self.qsearch(&child, -pbeta, -pbeta + 1, ply + 1, false);
            if v >= pbeta && !self.aborted {
                let d = pc_depth - ONE_PLY;
                v = -self.negamax(&child, -pbeta, -pbeta + 1, d, ply + 1, !n.cut_node);
            }
            if self.aborted || v >= pbeta {
                cut = Some((mv, v));
                break;
            }
        }
        self.hashes.pop();
        if self.aborted {
            return Break(0);
        }
        if let Some((mv, v)) = cut {
            let (key, eval, tt_pv) = (n.key, n.raw_eval, n.tt_pv);
            self.tt_store(key, Some(mv), v, eval, pc_depth, Bound::Lower, tt_pv, ply);
            return Break(v);
        }
        Continue(())
    }

    /// Step 11. Singular extension of the TT move, decided before the move
    /// loop: if every other move fails well below the TT score, the TT move
    /// is singular and gets `ext_singular` more. If the other moves beat
    /// beta as well, the node fails high (multi-cut).
    #[inline(always)]
    fn singular_extension(&mut self, n: &mut Node) -> Step {
        let sp = self.sp;
        if !(sp.singular
            && sp.ext_singular > 0
            && !n.root
            && n.excluded.is_none()
            && n.depth >= sp.singular_min_depth * ONE_PLY)
        {
            return Continue(());
        }
        let (Some(h), Some(mv)) = (n.hit, n.tt_move) else {
            return Continue(());
        };
        if !(matches!(h.bound, Bound::Lower | Bound::Exact)
            && h.depth >= n.depth - sp.singular_tt_depth_slack * ONE_PLY
            && !is_mate_score(h.score)
            && h.mv == Some(mv))
        {
            return Continue(());
        }
        let ply = n.ply;
        let sbeta = h.score - sp.singular_margin_cp * n.d_plies;
        let verify_depth = (n.depth - ONE_PLY) / sp.singular_depth_divisor.max(1);
        self.stack[ply].excluded = Some(mv);
        let v = self.negamax(n.board, sbeta - 1, sbeta, verify_depth, ply, n.cut_node);
        self.stack[ply].excluded = None;
        self.stack[ply + 1].excluded = None;
        self.stack[ply + 1].no_null = self.stack[ply].no_null;
        if self.aborted {
            return Break(0);
        }
        if v < sbeta {
            n.singular_move = Some(mv);
            // Far below the bound at a non-PV node: the TT move carries the
            // node alone, extend it twice.
            n.singular_ext = if !n.pv_node && v < sbeta - sp.singular_double_margin_cp {
                sp.ext_singular + sp.ext_singular_double
            } else {
                sp.ext_singular
            };
        } else if sp.singular_multicut && sbeta >= n.beta {
            // Multi-cut: the TT move and another move both beat beta; one
            // of them will.
            return Break(sbeta);
        } else if h.score >= n.beta {
            // Not singular, and the table expects a fail high anyway: other
            // moves will likely do, so the TT move gets less depth.
            n.singular_move = Some(mv);
            n.singular_ext = -sp.singular_negative16;
        }
        Continue(())
    }

    /// Step 18. Mate and stalemate: no legal move (none left but the
    /// excluded one: fail low). A node whose moves were all pruned cannot
    /// happen (every pruning rule needs a searched move first); if a future
    /// rule prunes everything, it fails low.
    #[inline(always)]
    fn mate_or_stalemate(&self, n: &Node, out: &Outcome) -> Step {
        if out.move_count == 0 {
            return Break(if n.excluded.is_some() {
                n.alpha
            } else if n.in_check {
                -MATE + n.ply as i32
            } else {
                self.draw_value(n.board)
            });
        }
        if out.searched == 0 {
            return Break(n.alpha);
        }
        Continue(())
    }
}
