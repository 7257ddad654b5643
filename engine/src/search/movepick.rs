//! Move ordering: the staged picker of step 12 (see [`super`]) and the
//! scores it orders by. The history tables it reads are
//! [`super::history`]'s; this module only stages and sorts.
//!
//! The picker is staged: the transposition-table move is tried before any
//! generation (often it cuts off alone); then all legal moves are generated
//! once and handed out best score first. The score bands give exactly the
//! order the parameters describe:
//! 1. the TT move;
//! 2. good captures and queen promotions (MVV-LVA, or SEE >= 0 when
//!    `capture_order = see`; under `mvv_see`, capture history shifts a
//!    capture within its victim's band);
//! 3. killers (slot 0 first, `killer_count` slots);
//! 4. the countermove (`countermove`);
//! 5. other quiet moves by history (`history`) plus, with `cont_history`,
//!    the continuation histories of the last two moves (generation order
//!    when both are off), shifted by `order_threats` (a piece leaving an
//!    attack by a cheaper piece up, one stepping into such an attack down)
//!    and `order_checks` (direct checks up);
//! 6. losing captures (`see` and `mvv_see` orders only);
//! 7. under-promotions.
//!
//! Equal scores keep generation order, so the order is deterministic.

use cozy_chess::{
    get_bishop_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard, Board, Color,
    Move, Piece, Rank, Square,
};

use super::history::{ContKey, Heuristics};
use crate::board::check::gives_check;
use crate::board::see::{captured_piece, see, see_ge, PieceValues};
use crate::eval::pawn_attacks;
use crate::lowlevel::ArrayList;
use crate::params::{CaptureOrder, SearchParams};

/// Room for the moves of any position the board accepts. Reachable positions
/// have at most 218 legal moves, but a FEN may hold up to 15 queens and a
/// king a side: 15 x 27 queen moves + 8 king moves + 2 castlings bounds them.
pub const MAX_MOVES: usize = 15 * 27 + 8 + 2;

const GOOD_CAPTURE: i32 = 2_000_000;
const KILLER: i32 = 1_000_000;
const COUNTER: i32 = 900_000;
const BAD_CAPTURE: i32 = -1_000_000;
const UNDER_PROMOTION: i32 = -2_000_000;

/// The picker's move list with a score per move: fixed capacity, no
/// allocation and no initialisation (see [`ArrayList`]).
struct MoveList {
    moves: ArrayList<Move, MAX_MOVES>,
    scores: ArrayList<i32, MAX_MOVES>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    TtMove,
    Generate,
    Rest,
}

/// What to generate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PickMode {
    /// Every legal move (main search, and evasions in quiescence).
    All,
    /// Captures and queen promotions; with `checks`, quiet checks too.
    Tactical {
        /// Quiet checking moves as well.
        checks: bool,
    },
}

/// Everything the picker reads to score moves.
pub struct OrderCtx<'a> {
    /// The ordering switches and constants.
    pub params: &'a SearchParams,
    /// The history tables.
    pub heur: &'a Heuristics,
    /// Piece values for MVV-LVA and SEE.
    pub values: &'a PieceValues,
    /// Distance from the root (the killers' slot).
    pub ply: usize,
    /// The opponent's last move (piece, destination), for countermoves.
    pub prev: Option<(Piece, Square)>,
    /// The moves one, two and four plies back, for continuation history.
    pub cont: [Option<ContKey>; 3],
}

impl<'a> OrderCtx<'a> {
    /// The history score of a quiet move by `piece`: butterfly history plus,
    /// with `cont_history`, the continuation histories (what the picker
    /// orders quiets by, and what the search's history-based rules read).
    pub fn quiet_history(&self, us: Color, piece: Piece, mv: Move) -> i32 {
        self.quiet_tables(us).score(piece, mv)
    }

    /// The tables [`Self::quiet_history`] reads, looked up once per node.
    fn quiet_tables(&self, us: Color) -> QuietTables<'a> {
        let p = self.params;
        let heur = self.heur;
        let cont = |k: Option<ContKey>| k.filter(|_| p.cont_history).map(|k| heur.cont_table(k));
        QuietTables {
            history: p.history.then(|| heur.history_table(us)),
            cont: self.cont.map(cont),
        }
    }
}

/// The history tables that score the quiet moves of one node (`None`
/// where switched off or without an earlier move).
struct QuietTables<'a> {
    history: Option<&'a [i32]>,
    cont: [Option<&'a [i32]>; 3],
}

impl QuietTables<'_> {
    #[inline]
    fn score(&self, piece: Piece, mv: Move) -> i32 {
        let mut s = match self.history {
            Some(h) => h[mv.from as usize * 64 + mv.to as usize],
            None => 0,
        };
        let i = piece as usize * 64 + mv.to as usize;
        for t in self.cont.iter().flatten() {
            s += t[i];
        }
        s
    }
}

/// What scoring the moves of one node reads, looked up once.
struct Scorer<'a> {
    ctx: &'a OrderCtx<'a>,
    /// The killers of this ply in use.
    killers: &'a [Option<Move>],
    /// The countermove, if switched on and known.
    counter: Option<Move>,
    quiet: QuietTables<'a>,
    /// The opponent's attacks by cheap pieces (`order_threats`).
    threats: Option<Threats>,
    /// Per piece, the squares from which it checks the enemy king
    /// (`order_checks`).
    check_squares: Option<[BitBoard; Piece::NUM]>,
}

impl<'a> Scorer<'a> {
    /// `quiets`: whether the list holds quiet moves, which alone read the
    /// threat and check maps.
    fn new(board: &Board, ctx: &'a OrderCtx<'a>, quiets: bool) -> Self {
        let p = ctx.params;
        let us = board.side_to_move();
        let count = p.killer_count.clamp(0, 4) as usize;
        let counter = match ctx.prev {
            Some((piece, to)) if p.countermove => ctx.heur.countermove(us, piece, to),
            _ => None,
        };
        Scorer {
            ctx,
            killers: &ctx.heur.killers[ctx.ply][..count],
            counter,
            quiet: ctx.quiet_tables(us),
            threats: (quiets && p.order_threats > 0).then(|| Threats::new(board)),
            check_squares: (quiets && p.order_checks > 0).then(|| check_squares(board)),
        }
    }

    /// The ordering bonus of a quiet move beyond its history: leaving an
    /// attack by a cheaper piece, stepping into one, giving check. Stockfish
    /// orders quiets this way, so that the move saving a hanging piece and
    /// the checks of a mating attack come before the history's favourites.
    fn quiet_bonus(&self, piece: Piece, mv: Move) -> i32 {
        let mut s = 0;
        if let Some(t) = &self.threats {
            let u = self.ctx.params.order_threats;
            // Per piece: the attacks that threaten it and what escaping
            // them earns; pawns and the king take no part.
            let (danger, escape) = match piece {
                Piece::Queen => (t.by_rook, u * 3),
                Piece::Rook => (t.by_minor, u * 3 / 2),
                Piece::Knight | Piece::Bishop => (t.by_pawn, u),
                Piece::Pawn | Piece::King => (BitBoard::EMPTY, 0),
            };
            let onto = |b: BitBoard| b.has(mv.to) as i32;
            if danger.has(mv.from) {
                if !danger.has(mv.to) {
                    s += escape;
                }
            } else {
                s -= match piece {
                    Piece::Queen => {
                        onto(t.by_rook) * u * 3
                            + onto(t.by_minor) * u * 3 / 5
                            + onto(t.by_pawn) * u * 6 / 5
                    }
                    Piece::Rook => onto(t.by_minor) * u * 3 / 2 + onto(t.by_pawn) * u * 3 / 5,
                    Piece::Knight | Piece::Bishop => onto(t.by_pawn) * u,
                    Piece::Pawn | Piece::King => 0,
                };
            }
        }
        if let Some(cs) = &self.check_squares {
            if cs[piece as usize].has(mv.to) {
                s += self.ctx.params.order_checks;
            }
        }
        s
    }
}

/// The squares the side not to move attacks with pawns, with minor pieces or
/// pawns, and with rooks, minor pieces or pawns.
struct Threats {
    by_pawn: BitBoard,
    by_minor: BitBoard,
    by_rook: BitBoard,
}

impl Threats {
    fn new(board: &Board) -> Self {
        let them = !board.side_to_move();
        let occ = board.occupied();
        let theirs = |p: Piece| board.colored_pieces(them, p);
        let by_pawn = BitBoard(pawn_attacks(theirs(Piece::Pawn).0, them == Color::White));
        let mut by_minor = by_pawn;
        for s in theirs(Piece::Knight) {
            by_minor |= get_knight_moves(s);
        }
        for s in theirs(Piece::Bishop) {
            by_minor |= get_bishop_moves(s, occ);
        }
        let mut by_rook = by_minor;
        for s in theirs(Piece::Rook) {
            by_rook |= get_rook_moves(s, occ);
        }
        Threats {
            by_pawn,
            by_minor,
            by_rook,
        }
    }
}

/// For each piece of the side to move, the squares from which it would
/// attack the enemy king (direct checks; discovered checks are not counted).
fn check_squares(board: &Board) -> [BitBoard; Piece::NUM] {
    let us = board.side_to_move();
    let king = board.king(!us);
    let occ = board.occupied();
    let bishop = get_bishop_moves(king, occ);
    let rook = get_rook_moves(king, occ);
    [
        get_pawn_attacks(king, !us),
        get_knight_moves(king),
        bishop,
        rook,
        bishop | rook,
        BitBoard::EMPTY,
    ]
}

/// Staged move picker for one node.
pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    mode: PickMode,
    list: MoveList,
    idx: usize,
}

impl MovePicker {
    /// A picker that tries `tt_move` first (when legal).
    pub fn new(tt_move: Option<Move>, mode: PickMode) -> Self {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            mode,
            list: MoveList {
                moves: ArrayList::new(),
                scores: ArrayList::new(),
            },
            idx: 0,
        }
    }

    /// Next move in order, or `None` when exhausted.
    pub fn next(&mut self, board: &Board, ctx: &OrderCtx) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::Generate;
                    if let Some(mv) = self.tt_move {
                        if board.is_legal(mv) && self.mode_allows(board, mv) {
                            return Some(mv);
                        }
                        self.tt_move = None;
                    }
                }
                Stage::Generate => {
                    self.generate(board, ctx);
                    self.stage = Stage::Rest;
                }
                Stage::Rest => {
                    let idx = self.idx;
                    let moves = self.list.moves.as_mut_slice();
                    if idx >= moves.len() {
                        return None;
                    }
                    // Selection sort: the first of the best scores, swapped
                    // to the front (the swap decides the order of equal
                    // scores, so it must stay as it is).
                    // The maximum first (a branch-free, vectorised pass),
                    // then its first position.
                    let scores = self.list.scores.as_mut_slice();
                    let rest = &scores[idx..];
                    let max = rest.iter().copied().fold(i32::MIN, i32::max);
                    let best = idx + rest.iter().position(|&s| s == max).unwrap_or(0);
                    moves.swap(idx, best);
                    scores.swap(idx, best);
                    self.idx += 1;
                    return Some(moves[idx]);
                }
            }
        }
    }

    fn mode_allows(&self, board: &Board, mv: Move) -> bool {
        match self.mode {
            PickMode::All => true,
            PickMode::Tactical { checks } => {
                mv.promotion == Some(Piece::Queen)
                    || captured_piece(board, mv).is_some()
                    || (checks && gives_check(board, mv))
            }
        }
    }

    fn generate(&mut self, board: &Board, ctx: &OrderCtx) {
        let us = board.side_to_move();
        let them = board.colors(!us);
        let list = &mut self.list.moves;
        let tt_move = self.tt_move;
        match self.mode {
            PickMode::All => {
                board.generate_moves(|pm| {
                    for mv in pm {
                        if Some(mv) != tt_move {
                            list.push(mv);
                        }
                    }
                    false
                });
            }
            PickMode::Tactical { checks } => {
                let ep = board.en_passant().map_or(BitBoard::EMPTY, |f| {
                    Square::new(f, Rank::Sixth.relative_to(us)).bitboard()
                });
                let promo_rank = Rank::Eighth.relative_to(us).bitboard();
                board.generate_moves(|mut pm| {
                    if !checks {
                        pm.to &= if pm.piece == Piece::Pawn {
                            them | ep | promo_rank
                        } else {
                            them
                        };
                    }
                    for mv in pm {
                        if Some(mv) == tt_move {
                            continue;
                        }
                        let tactical = (mv.promotion.is_none() && them.has(mv.to))
                            || mv.promotion == Some(Piece::Queen)
                            || (pm.piece == Piece::Pawn && ep.has(mv.to));
                        if tactical || (checks && mv.promotion.is_none() && gives_check(board, mv))
                        {
                            list.push(mv);
                        }
                    }
                    false
                });
            }
        }
        let scorer = Scorer::new(board, ctx, matches!(self.mode, PickMode::All));
        let MoveList { moves, scores } = &mut self.list;
        for &mv in moves.as_slice() {
            scores.push(score_move(board, mv, &scorer));
        }
    }
}
fn score_move(board: &Board, mv: Move, sc: &Scorer) -> i32 {
    let ctx = sc.ctx;
    let p = ctx.params;
    let victim = captured_piece(board, mv);
    if let Some(promo) = mv.promotion {
        if promo != Piece::Queen {
            return UNDER_PROMOTION + promo as i32;
        }
    }
    if victim.is_some() || mv.promotion.is_some() {
        return match p.capture_order {
            CaptureOrder::MvvLva => {
                let v = victim.map_or(0, |v| ctx.values[v as usize])
                    + mv.promotion.map_or(0, |q| ctx.values[q as usize]);
                let attacker = board.piece_on(mv.from).map_or(0, |a| a as i32);
                GOOD_CAPTURE + v * 8 - attacker
            }
            CaptureOrder::See => {
                let s = see(board, mv, ctx.values);
                if s >= 0 {
                    GOOD_CAPTURE + s
                } else {
                    BAD_CAPTURE + s
                }
            }
            CaptureOrder::MvvSee => {
                let v = victim.map_or(0, |v| ctx.values[v as usize])
                    + mv.promotion.map_or(0, |q| ctx.values[q as usize]);
                let attacker = board.piece_on(mv.from);
                let band = if see_ge(board, mv, 0, ctx.values) {
                    GOOD_CAPTURE
                } else {
                    BAD_CAPTURE
                };
                let mut s = band + v * 8 - attacker.map_or(0, |a| a as i32);
                if let (true, Some(a), Some(vic)) = (p.capture_history, attacker, victim) {
                    let h = ctx
                        .heur
                        .capture_history(board.side_to_move(), a, mv.to, vic);
                    s += h / p.capture_history_divisor.max(1);
                }
                s
            }
        };
    }
    for (i, k) in sc.killers.iter().enumerate() {
        if *k == Some(mv) {
            return KILLER - i as i32;
        }
    }
    if sc.counter == Some(mv) {
        return COUNTER;
    }
    match board.piece_on(mv.from) {
        Some(piece) => sc.quiet.score(piece, mv) + sc.quiet_bonus(piece, mv),
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::legal_moves;

    const V: PieceValues = [100, 300, 300, 500, 900, 20_000];

    fn all_picked(
        board: &Board,
        tt: Option<Move>,
        mode: PickMode,
        heur: &Heuristics,
        p: &SearchParams,
    ) -> Vec<Move> {
        let ctx = OrderCtx {
            params: p,
            heur,
            values: &V,
            ply: 3,
            prev: None,
            cont: [None; 3],
        };
        let mut picker = MovePicker::new(tt, mode);
        let mut out = Vec::new();
        while let Some(mv) = picker.next(board, &ctx) {
            out.push(mv);
        }
        out
    }

    const FENS: [&str; 4] = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];

    #[test]
    fn picker_yields_exactly_the_legal_moves() {
        let heur = Heuristics::new();
        let p = SearchParams::default();
        for fen in FENS {
            let board: Board = fen.parse().unwrap();
            let legal = legal_moves(&board);
            let tt = Some(legal[legal.len() / 2]);
            for tt in [None, tt, Some("a1a1".parse().unwrap())] {
                let mut got = all_picked(&board, tt, PickMode::All, &heur, &p);
                if let Some(t) = tt.filter(|&t| board.is_legal(t)) {
                    assert_eq!(got[0], t);
                }
                let mut want = legal.clone();
                got.sort_by_key(|m| m.to_string());
                want.sort_by_key(|m| m.to_string());
                assert_eq!(got, want, "{fen}");
            }
            // Tactical mode: exactly the captures and queen promotions.
            let mut got = all_picked(
                &board,
                None,
                PickMode::Tactical { checks: false },
                &heur,
                &p,
            );
            let mut want: Vec<Move> = legal
                .as_slice()
                .iter()
                .copied()
                .filter(|&m| {
                    captured_piece(&board, m).is_some() || m.promotion == Some(Piece::Queen)
                })
                .filter(|&m| m.promotion.is_none() || m.promotion == Some(Piece::Queen))
                .collect();
            got.sort_by_key(|m| m.to_string());
            want.sort_by_key(|m| m.to_string());
            assert_eq!(got, want, "{fen}");
            // With checks: plus the quiet checking moves.
            let got = all_picked(&board, None, PickMode::Tactical { checks: true }, &heur, &p);
            let quiet_checks = legal
                .as_slice()
                .iter()
                .filter(|&&m| {
                    m.promotion.is_none()
                        && captured_piece(&board, m).is_none()
                        && gives_check(&board, m)
                })
                .count();
            assert_eq!(got.len(), want.len() + quiet_checks, "{fen}");
        }
    }

    #[test]
    fn order_follows_the_parameters() {
        let board: Board = FENS[0].parse().unwrap();
        let mut heur = Heuristics::new();
        let k0: Move = "a2a3".parse().unwrap();
        let k1: Move = "g2g3".parse().unwrap();
        let hist: Move = "b2b3".parse().unwrap();
        heur.add_killer(3, k1, 2);
        heur.add_killer(3, k0, 2);
        heur.update_history(Color::White, hist, 500, 16384);
        // The bands alone: without threat bonuses (the c3 knight is attacked
        // by a pawn here) the history move follows the killers.
        let mut p = SearchParams {
            capture_order: CaptureOrder::MvvLva,
            order_threats: 0,
            ..SearchParams::default()
        };
        let order = all_picked(&board, None, PickMode::All, &heur, &p);
        let caps = order
            .iter()
            .take_while(|&&m| captured_piece(&board, m).is_some())
            .count();
        assert_eq!(
            caps,
            legal_moves(&board)
                .as_slice()
                .iter()
                .filter(|&&m| captured_piece(&board, m).is_some())
                .count()
        );
        // MVV-LVA: the first capture takes the most valuable victim.
        assert_eq!(order[0].to_string(), "e2a6"); // bishop takes bishop
        assert_eq!(&order[caps..caps + 3], &[k0, k1, hist]);
        p.killer_count = 1;
        let order = all_picked(&board, None, PickMode::All, &heur, &p);
        assert_eq!(&order[caps..caps + 2], &[k0, hist]);
        p.history = false;
        let order = all_picked(&board, None, PickMode::All, &heur, &p);
        assert_eq!(order[caps], k0);
        assert_ne!(order[caps + 1], hist);
        // SEE ordering puts the losing capture after all quiets.
        p.capture_order = CaptureOrder::See;
        let order = all_picked(&board, None, PickMode::All, &heur, &p);
        let last_capture = order
            .iter()
            .rposition(|&m| captured_piece(&board, m).is_some())
            .unwrap();
        assert!(last_capture > caps + 5);
        assert!(see(&board, order[last_capture], &V) < 0);
        // MVV-SEE: MVV-LVA among the captures that do not lose material,
        // the losing ones after all quiets.
        p.capture_order = CaptureOrder::MvvSee;
        let order = all_picked(&board, None, PickMode::All, &heur, &p);
        assert_eq!(order[0].to_string(), "e2a6");
        let good = order
            .iter()
            .take_while(|&&m| captured_piece(&board, m).is_some())
            .count();
        assert!(good < caps, "a losing capture left the front");
        assert!(order[..good].iter().all(|&m| see(&board, m, &V) >= 0));
        let victims: Vec<i32> = order[..good]
            .iter()
            .map(|&m| V[captured_piece(&board, m).unwrap() as usize])
            .collect();
        assert!(victims.windows(2).all(|w| w[0] >= w[1]), "{victims:?}");
        let first_bad = order
            .iter()
            .position(|&m| captured_piece(&board, m).is_some() && see(&board, m, &V) < 0)
            .unwrap();
        assert!(order[good..first_bad]
            .iter()
            .all(|&m| captured_piece(&board, m).is_none()));
        assert!(first_bad > good + 5);
    }

    #[test]
    fn continuation_history_orders_quiets_after_the_previous_moves() {
        let board: Board = FENS[0].parse().unwrap();
        let mut heur = Heuristics::new();
        let a: Move = "a2a3".parse().unwrap();
        let b: Move = "b2b3".parse().unwrap();
        // b has the better butterfly history; a did well after the
        // opponent's last move.
        heur.update_history(Color::White, b, 300, 16384);
        let prev = (Color::Black, Piece::Pawn, Square::H3);
        heur.update_cont_history(prev, Piece::Pawn, a.to, 2000, 16384);
        assert!(heur.cont_history(prev, Piece::Pawn, a.to) > 1500);
        let mut p = SearchParams {
            killer_count: 0,
            countermove: false,
            ..SearchParams::default()
        };
        let pos = |order: &[Move], m: Move| order.iter().position(|&x| x == m).unwrap();
        let picked = |p: &SearchParams, cont: [Option<ContKey>; 3]| {
            let c = OrderCtx {
                params: p,
                heur: &heur,
                values: &V,
                ply: 3,
                prev: None,
                cont,
            };
            let mut picker = MovePicker::new(None, PickMode::All);
            std::iter::from_fn(|| picker.next(&board, &c)).collect::<Vec<_>>()
        };
        let order = picked(&p, [Some(prev), None, None]);
        assert!(
            pos(&order, a) < pos(&order, b),
            "continuation history counts"
        );
        // Another previous move, or the switch off: butterfly history decides.
        let other = (Color::Black, Piece::Knight, Square::H3);
        let order = picked(&p, [Some(other), None, None]);
        assert!(pos(&order, b) < pos(&order, a));
        p.cont_history = false;
        let order = picked(&p, [Some(prev), None, None]);
        assert!(pos(&order, b) < pos(&order, a));
    }

    #[test]
    fn quiets_leave_threats_and_give_checks_first() {
        // The knight on f3 (seven moves) is attacked by the e4 pawn; Bd3
        // steps into that pawn's attack; Rh8 gives check.
        let board: Board = "4k3/8/8/8/4p3/5N2/8/1B2K2R w - - 0 1".parse().unwrap();
        let heur = Heuristics::new();
        let mut p = SearchParams {
            killer_count: 0,
            countermove: false,
            order_threats: 0,
            order_checks: 0,
            ..SearchParams::default()
        };
        let quiets = |p: &SearchParams| -> Vec<String> {
            all_picked(&board, None, PickMode::All, &heur, p)
                .into_iter()
                .filter(|&m| captured_piece(&board, m).is_none())
                .map(|m| m.to_string())
                .collect()
        };
        let knight = |m: &String| m.starts_with("f3");
        // Off: generation order, in which the knight does not lead.
        let off = quiets(&p);
        assert!(!off[..7].iter().all(knight), "{off:?}");
        p.order_threats = 7500;
        let on = quiets(&p);
        assert!(on[..7].iter().all(knight), "{on:?}");
        assert_eq!(on.last().map(String::as_str), Some("b1d3"), "{on:?}");
        p.order_checks = 8000;
        let on = quiets(&p);
        assert_eq!(on[0], "h1h8", "{on:?}");
        assert!(on[1..8].iter().all(knight), "{on:?}");
    }
}
