//! The move loop of a main-search node, steps 12 to 17 (the list is in
//! [`super`]): each move from the picker is classified, pruned at shallow
//! depth, extended, reduced, searched, and compared with the best so far.
//! The loop's running state is one [`MoveLoop`], a move's one
//! [`Candidate`]; each step is an always-inlined method, as in `node.rs`.

use std::ops::ControlFlow::{self, Break, Continue};

use cozy_chess::{Board, Color, Move, Piece, Rank};

use super::movepick::{MovePicker, PickMode};
use super::node::{Node, Outcome};
use super::types::{INF, MATE_BOUND, ONE_PLY};
use super::worker::{is_mate_score, root_node_index, Frame, OrderKeys, Worker};
use crate::board::check::gives_check;
use crate::board::position::repetition_key;
use crate::board::see::{captured_piece, see_ge};
use crate::params::SearchAlgorithm;

/// The move loop's running state.
struct MoveLoop {
    picker: MovePicker,
    best: i32,
    best_move: Option<Move>,
    move_count: usize,
    searched: usize,
    /// Late-move or futility pruning dropped the remaining quiet moves.
    skip_quiets: bool,
    quiets_tried: [Option<Move>; 64],
    n_quiets: usize,
    captures_tried: [Option<Move>; 32],
    n_captures: usize,
    /// Quiet moves allowed before late-move pruning.
    lmp_count: i32,
    /// The frame of the move into this node (recapture extension).
    prev: Frame,
    keys: OrderKeys,
    /// The TT move is a capture (looked up only when `lmr_tt_capture16`
    /// acts): the quiet moves matter even less.
    tt_capture: bool,
    /// In check with a single legal reply.
    one_reply: bool,
}

/// One move of the loop, as the pruning, extension and reduction steps
/// see it.
struct Candidate {
    mv: Move,
    capture: bool,
    quiet: bool,
    gives_check: bool,
    piece: Option<Piece>,
    /// The LMR table's reduction for this move, which both the
    /// reduced-depth pruning rules and LMR itself start from.
    base_r: i32,
    /// This quiet move's history, looked up at most once for history
    /// pruning, futility and LMR ([`Worker::quiet_hist`]).
    hist: Option<i32>,
}

/// Number of legal moves.
fn count_legal(board: &Board) -> usize {
    let mut n = 0;
    board.generate_moves(|pm| {
        n += pm.len();
        false
    });
    n
}

impl Worker<'_> {
    /// Steps 12 to 17: the moves of node `n` in order, each searched unless
    /// pruned, until one fails high. `Break(0)` when the search aborted.
    #[inline(always)]
    pub(super) fn search_moves(&mut self, n: &mut Node) -> ControlFlow<i32, Outcome> {
        let mut l = self.start_move_loop(n);
        while let Some(mv) = {
            let ctx = self.order_ctx(n.ply, l.keys);
            l.picker.next(n.board, &ctx)
        } {
            // Step 12 (each move).
            let Some(mut m) = self.next_candidate(n, &mut l, mv) else {
                continue;
            };
            // Step 13.
            if self.prune_quiet(n, &mut l, &mut m) || self.prune_tactical(n, &l, &m) {
                continue;
            }
            let mut child = n.board.clone();
            child.play_unchecked(mv);
            self.tt_prefetch(child.hash());
            // Steps 14 and 15.
            let new_depth = n.depth - ONE_PLY + self.extension(n, &l, &m);
            let r = self.reduction(n, &l, &mut m, new_depth);

            // Step 16. Search the move: the first with the full window, the
            // others reduced and re-searched as the algorithm says.
            self.stack[n.ply].play(n.us, mv, m.piece, m.capture);
            l.searched += 1;
            let nodes_before = self.nodes;
            let score = self.search_move(n, l.searched, &child, new_depth, r);
            if n.root {
                self.root_nodes[root_node_index(mv)] += self.nodes - nodes_before;
            }
            if self.aborted {
                self.hashes.pop();
                return Break(0);
            }
            // Step 17.
            if self.new_best(n, &mut l, &m, score) {
                break;
            }
        }
        self.hashes.pop();
        Continue(Outcome {
            best: l.best,
            best_move: l.best_move,
            move_count: l.move_count,
            searched: l.searched,
        })
    }

    /// Step 12. Loop over the moves, best first (see `movepick`): the
    /// loop's state, with this node's position on the repetition path.
    #[inline(always)]
    fn start_move_loop(&mut self, n: &Node) -> MoveLoop {
        let sp = self.sp;
        let (board, ply) = (n.board, n.ply);
        let one_reply = n.in_check && sp.ext_one_reply > 0 && count_legal(board) == 1;
        self.hashes.push(repetition_key(board));
        // The line of an IID or singular search at this ply is not ours.
        self.clear_pv(ply);
        // A worsening node gets half the late-move pruning count.
        let lmp_count = {
            let k = sp.lmp_base + sp.lmp_factor * n.d_plies * n.d_plies;
            if sp.improving && !n.improving {
                k / 2
            } else {
                k
            }
        };
        MoveLoop {
            picker: MovePicker::new(n.tt_move, PickMode::All),
            best: -INF,
            best_move: None,
            move_count: 0,
            searched: 0,
            skip_quiets: false,
            quiets_tried: [None; 64],
            n_quiets: 0,
            captures_tried: [None; 32],
            n_captures: 0,
            lmp_count,
            prev: if ply > 0 {
                self.stack[ply - 1]
            } else {
                Frame::default()
            },
            keys: self.order_keys(ply),
            tt_capture: sp.lmr_tt_capture16 != 0
                && n.tt_move
                    .is_some_and(|m| captured_piece(board, m).is_some()),
            one_reply,
        }
    }

    /// Step 12 (each move): skip the excluded move, root moves outside `go
    /// searchmoves` and, once pruning dropped them, the quiet moves that do
    /// not give check; count the rest. The board is copied and the move
    /// played only once it survives the pruning of step 13.
    #[inline(always)]
    fn next_candidate(&self, n: &Node, l: &mut MoveLoop, mv: Move) -> Option<Candidate> {
        if Some(mv) == n.excluded || (n.root && !self.root_allows(mv)) {
            return None;
        }
        let capture = captured_piece(n.board, mv).is_some();
        let quiet = !capture && mv.promotion.is_none();
        let gives_check = gives_check(n.board, mv);
        if quiet && l.skip_quiets && !gives_check {
            return None;
        }
        l.move_count += 1;
        Some(Candidate {
            mv,
            capture,
            quiet,
            gives_check,
            piece: n.board.piece_on(mv.from),
            base_r: self.lmr.get(n.d_plies, l.move_count),
            hist: None,
        })
    }

    /// The quiet history of candidate `m` (by `piece`), looked up once.
    #[inline(always)]
    fn quiet_hist(&self, n: &Node, keys: OrderKeys, m: &mut Candidate, piece: Piece) -> i32 {
        let mv = m.mv;
        *m.hist
            .get_or_insert_with(|| self.order_ctx(n.ply, keys).quiet_history(n.us, piece, mv))
    }

    /// The depth a move would be searched to after its base late-move
    /// reduction, which the futility rules judge it by.
    #[inline(always)]
    fn lmr_depth(n: &Node, m: &Candidate) -> i32 {
        (n.d_plies - 1 - m.base_r / ONE_PLY).max(0)
    }

    /// Step 13. Pruning at shallow depth, quiet moves: late-move pruning,
    /// futility pruning and history pruning, once a move has secured a
    /// non-losing score. Late-move and fixed-margin futility pruning drop
    /// the remaining quiet moves at once, but never a checking move.
    #[inline(always)]
    fn prune_quiet(&self, n: &Node, l: &mut MoveLoop, m: &mut Candidate) -> bool {
        let sp = self.sp;
        let d_plies = n.d_plies;
        if n.root || l.best <= -MATE_BOUND || !m.quiet || m.gives_check || n.in_check {
            return false;
        }
        if sp.lmp && l.move_count as i32 > l.lmp_count {
            l.skip_quiets = true;
            return true;
        }
        // Reduced-depth futility: a late move at depth 7 is judged as the
        // depth-3 search it would get.
        if sp.futility && sp.futility_lmr {
            let lmr_d = Self::lmr_depth(n, m);
            if lmr_d <= sp.futility_lmr_max_depth {
                let h = match m.piece {
                    Some(p) if sp.futility_lmr_history_div > 0 => {
                        self.quiet_hist(n, l.keys, m, p) / sp.futility_lmr_history_div
                    }
                    _ => 0,
                };
                let margin = sp.futility_lmr_base_cp + sp.futility_lmr_per_ply_cp * lmr_d + h;
                if n.static_eval + margin <= n.alpha {
                    return true;
                }
            }
        } else if sp.futility && d_plies <= 3 {
            let margin = match d_plies {
                1 => sp.futility_margin_cp_d1,
                2 => sp.futility_margin_cp_d2,
                _ => sp.futility_margin_cp_d3,
            };
            if n.static_eval + margin <= n.alpha {
                l.skip_quiets = true;
                return true;
            }
        }
        // History pruning: a quiet move that has kept failing here and
        // after these last moves is not worth a look.
        if sp.history_prune && d_plies <= sp.history_prune_max_depth && l.move_count > 1 {
            if let Some(p) = m.piece {
                if self.quiet_hist(n, l.keys, m, p) < -sp.history_prune_margin * d_plies {
                    return true;
                }
            }
        }
        false
    }

    /// Step 13 (continued). Pruning at shallow depth, every move: capture
    /// futility and SEE pruning, once a move has secured a non-losing
    /// score.
    #[inline(always)]
    fn prune_tactical(&self, n: &Node, l: &MoveLoop, m: &Candidate) -> bool {
        let sp = self.sp;
        let (board, mv, d_plies) = (n.board, m.mv, n.d_plies);
        if n.root || l.best <= -MATE_BOUND {
            return false;
        }
        let lmr_d = Self::lmr_depth(n, m);
        // Capture futility: even winning the piece outright would leave
        // this node far below alpha.
        if sp.capture_futility
            && m.capture
            && mv.promotion.is_none()
            && !m.gives_check
            && !n.in_check
            && lmr_d <= sp.capture_futility_max_depth
        {
            let victim = captured_piece(board, mv).map_or(0, |v| self.values[v as usize]);
            let margin = sp.capture_futility_base_cp + sp.capture_futility_per_ply_cp * lmr_d;
            if n.static_eval + victim + margin <= n.alpha {
                return true;
            }
        }
        if sp.see_prune && d_plies <= sp.see_prune_max_depth && !(m.quiet && m.gives_check) {
            let margin = if m.quiet && sp.see_quiet_lmr {
                // A late quiet move is judged by the shallow search it
                // would get: at reduced depth 0 any loss prunes.
                (sp.see_quiet_lmr_quad_cp * lmr_d + sp.see_quiet_lmr_lin_cp) * lmr_d
            } else if m.quiet {
                sp.see_quiet_margin_cp * d_plies
            } else if m.gives_check {
                // A checking sacrifice loses by exchange yet is how most
                // mating attacks begin.
                sp.see_check_margin_cp * d_plies
            } else {
                sp.see_capture_margin_cp * d_plies
            };
            if !see_ge(board, mv, -margin, &self.values) {
                return true;
            }
        }
        false
    }

    /// Step 14. Extensions in sixteenths of a ply, capped per move: check,
    /// single reply, mate threat, pawn to the seventh, recapture, and the
    /// singular extension of step 11.
    #[inline(always)]
    fn extension(&self, n: &Node, l: &MoveLoop, m: &Candidate) -> i32 {
        let sp = self.sp;
        let (board, mv) = (n.board, m.mv);
        let mut ext = 0;
        if m.gives_check && (!sp.ext_check_see || see_ge(board, mv, 0, &self.values)) {
            ext += sp.ext_check;
        }
        if l.one_reply {
            ext += sp.ext_one_reply;
        }
        if n.mate_threat {
            ext += sp.ext_mate_threat;
        }
        if m.piece == Some(Piece::Pawn) && mv.to.rank() == Rank::Seventh.relative_to(n.us) {
            ext += sp.ext_pawn_seventh;
        }
        if m.capture && l.prev.capture && l.prev.mv.map(|m| m.to) == Some(mv.to) {
            ext += sp.ext_recapture;
        }
        // The cap tames the cheap extensions that fire on move features
        // alone. A singular move was proven by a search: it may always
        // have its own `ext_singular`, so `ext_max_per_ply = 0` does not
        // switch it off.
        let mut cap = sp.ext_max_per_ply;
        if n.singular_move == Some(mv) {
            ext += n.singular_ext;
            cap = cap.max(n.singular_ext);
        }
        ext = ext.min(cap);
        // Guard against extension chains: beyond a multiple of the
        // nominal depth nothing is extended any more.
        if n.ply as i32 >= sp.ext_max_ply_factor * self.root_depth {
            ext = 0;
        }
        ext
    }

    /// Step 15. Late move reductions for late quiet moves and, with
    /// `lmr_bad_captures`, for captures that lose by exchange: those come
    /// after the quiets in order and are as rarely best. The history term
    /// scores quiet moves only.
    #[inline(always)]
    fn reduction(&self, n: &Node, l: &MoveLoop, m: &mut Candidate, new_depth: i32) -> i32 {
        let sp = self.sp;
        let (board, mv) = (n.board, m.mv);
        if !(sp.lmr
            && n.depth >= sp.lmr_min_depth * ONE_PLY
            && l.move_count >= sp.lmr_min_move as usize
            && !n.in_check
            && !m.gives_check
            && (m.quiet
                || (sp.lmr_bad_captures && m.capture && !see_ge(board, mv, 0, &self.values))))
        {
            return 0;
        }
        let mut r = m.base_r;
        if n.pv_node {
            r -= sp.lmr_pv_less16;
        }
        if n.tt_pv {
            r -= sp.lmr_ttpv_less16;
        }
        if !n.improving {
            r += sp.lmr_not_improving16;
        }
        // An expected cut node needs only one move to fail high: late
        // moves there are unlikely to matter.
        if n.cut_node {
            r += sp.lmr_cut_node16;
        }
        if m.quiet && l.tt_capture {
            r += sp.lmr_tt_capture16;
        }
        if sp.lmr_killer_less16 != 0 && self.is_killer_or_counter(n.ply, n.us, mv) {
            r -= sp.lmr_killer_less16;
        }
        if m.quiet && sp.lmr_history_divisor > 0 {
            if let Some(p) = m.piece {
                r -= self.quiet_hist(n, l.keys, m, p) * ONE_PLY / sp.lmr_history_divisor;
            }
        }
        r.min(new_depth - ONE_PLY).max(0)
    }

    /// Step 16's searches of the `searched`-th move: the first with the
    /// full window; later ones by plain alpha-beta (full windows, a
    /// reduced move that beats alpha searched again at full depth) or PVS
    /// (a null window to prove them worse, re-searched unreduced, then
    /// with the full window when they are not).
    #[inline(always)]
    fn search_move(
        &mut self,
        n: &Node,
        searched: usize,
        child: &Board,
        new_depth: i32,
        r: i32,
    ) -> i32 {
        let (alpha, beta, ply) = (n.alpha, n.beta, n.ply + 1);
        if searched == 1 {
            -self.negamax(
                child,
                -beta,
                -alpha,
                new_depth,
                ply,
                !n.pv_node && !n.cut_node,
            )
        } else if self.sp.search_algorithm == SearchAlgorithm::AlphaBeta {
            let mut s = -self.negamax(child, -beta, -alpha, new_depth - r, ply, false);
            if r > 0 && s > alpha && !self.aborted {
                let d = new_depth + self.deeper(s, alpha);
                s = -self.negamax(child, -beta, -alpha, d, ply, false);
            }
            s
        } else {
            let mut s = -self.negamax(child, -alpha - 1, -alpha, new_depth - r, ply, true);
            let mut full_depth = new_depth;
            if r > 0 && s > alpha && !self.aborted {
                full_depth += self.deeper(s, alpha);
                s = -self.negamax(child, -alpha - 1, -alpha, full_depth, ply, !n.cut_node);
            }
            if n.pv_node && s > alpha && s < beta && !self.aborted {
                s = -self.negamax(child, -beta, -alpha, full_depth, ply, false);
            }
            s
        }
    }

    /// The extra depth of the re-search of a reduced move whose reduced
    /// search scored `s` above `alpha`: a ply with `lmr_deeper` when it
    /// beat alpha by a wide margin (a surprise worth a closer look), else
    /// none.
    fn deeper(&self, s: i32, alpha: i32) -> i32 {
        let sp = self.sp;
        if sp.lmr_deeper && !is_mate_score(s) && s > alpha + sp.lmr_deeper_margin_cp {
            ONE_PLY
        } else {
            0
        }
    }

    /// Step 17. A new best move: it raises alpha, and at beta the node
    /// fails high (true), its quiet and capture histories learning from the
    /// cutoff. A move that did not cut joins the tried moves those updates
    /// punish.
    #[inline(always)]
    fn new_best(&mut self, n: &mut Node, l: &mut MoveLoop, m: &Candidate, score: i32) -> bool {
        let mv = m.mv;
        if score > l.best {
            l.best = score;
            if score > n.alpha {
                l.best_move = Some(mv);
                if n.root {
                    self.root_best = Some((mv, score));
                }
                if score >= n.beta {
                    // Mate distance pruning may have lowered beta to this
                    // mate's score: the parent takes it as exact, line too.
                    self.raise_pv(n.ply, mv);
                    if m.quiet {
                        let tried = &l.quiets_tried[..l.n_quiets];
                        self.update_quiet_stats(n.board, n.ply, mv, n.depth, tried);
                    }
                    let cut_capture = m.capture.then_some(mv);
                    let tried = &l.captures_tried[..l.n_captures];
                    self.update_capture_stats(n.board, cut_capture, n.depth, tried);
                    return true;
                }
                self.raise_pv(n.ply, mv);
                n.alpha = score;
            }
        }
        if m.quiet && l.n_quiets < l.quiets_tried.len() {
            l.quiets_tried[l.n_quiets] = Some(mv);
            l.n_quiets += 1;
        }
        if m.capture && self.sp.capture_history && l.n_captures < l.captures_tried.len() {
            l.captures_tried[l.n_captures] = Some(mv);
            l.n_captures += 1;
        }
        false
    }

    /// Whether quiet `mv` is a killer of this ply or the countermove.
    fn is_killer_or_counter(&self, ply: usize, us: Color, mv: Move) -> bool {
        let sp = self.sp;
        let count = sp.killer_count.clamp(0, 4) as usize;
        if self.heur.killers[ply][..count].contains(&Some(mv)) {
            return true;
        }
        if sp.countermove && ply > 0 {
            let f = self.stack[ply - 1];
            if let (Some(p), Some(m)) = (f.piece, f.mv) {
                return self.heur.countermove(us, p, m.to) == Some(mv);
            }
        }
        false
    }
}
