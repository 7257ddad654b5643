//! Move ordering (search step 10) and the quiet-move heuristics it reads:
//! history, continuation history, capture history, killers and countermoves.
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

use crate::board::see::{captured_piece, is_en_passant, see, see_ge, PieceValues};
use crate::eval::pawn_attacks;
use crate::lowlevel::ArrayList;
use crate::params::{CaptureOrder, SearchParams};
use crate::search::correction::CorrectionHistory;
use crate::search::types::MAX_PLY;

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

/// Quiet-move ordering state kept between searches until `new_game`.
pub struct Heuristics {
    /// Butterfly history, indexed by [`Heuristics::hist_index`].
    history: Vec<i32>,
    /// Killer moves per ply, most recent first.
    pub killers: [[Option<Move>; 4]; MAX_PLY + 2],
    /// Countermove per (side, piece, destination) of the previous move.
    counter: Vec<Option<Move>>,
    /// Continuation history: how well a quiet (piece, destination) did
    /// after an earlier move (mover, piece, destination), one and two plies
    /// back sharing the table. Indexed by [`Heuristics::cont_index`].
    cont: Vec<i32>,
    /// Capture history: how well a capture by (side, piece) to a square of
    /// a captured piece kind did. Indexed by [`Heuristics::capture_index`].
    captures: Vec<i32>,
    /// Static-eval corrections by pawn structure: learned by the search
    /// like the tables above and forgotten with them.
    pub correction: CorrectionHistory,
}

/// An earlier move of the search path as continuation history keys it: the
/// side that made it, the piece and its destination.
pub type ContKey = (Color, Piece, Square);

impl Heuristics {
    /// Empty tables.
    pub fn new() -> Self {
        Heuristics {
            history: vec![0; 2 * 64 * 64],
            killers: [[None; 4]; MAX_PLY + 2],
            counter: vec![None; 2 * 6 * 64],
            cont: vec![0; 2 * 6 * 64 * 6 * 64],
            captures: vec![0; 2 * 6 * 64 * 6],
            correction: CorrectionHistory::new(),
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.history.fill(0);
        self.killers = [[None; 4]; MAX_PLY + 2];
        self.counter.fill(None);
        self.cont.fill(0);
        self.captures.fill(0);
        self.correction.clear();
    }

    fn hist_index(side: Color, mv: Move) -> usize {
        side as usize * 4096 + mv.from as usize * 64 + mv.to as usize
    }

    /// History score of a quiet move.
    pub fn history(&self, side: Color, mv: Move) -> i32 {
        self.history[Self::hist_index(side, mv)]
    }

    /// Reward (`bonus > 0`) or punish a quiet move; values saturate towards
    /// `max` ("history gravity"), so old information fades.
    pub fn update_history(&mut self, side: Color, mv: Move, bonus: i32, max: i32) {
        gravity(&mut self.history[Self::hist_index(side, mv)], bonus, max);
    }

    fn cont_index(prev: ContKey, piece: Piece, to: Square) -> usize {
        let (c, p, s) = prev;
        ((c as usize * 6 + p as usize) * 64 + s as usize) * 384 + piece as usize * 64 + to as usize
    }

    /// The butterfly history of `side`'s moves, indexed by `from * 64 + to`.
    fn history_table(&self, side: Color) -> &[i32] {
        &self.history[side as usize * 4096..][..4096]
    }

    /// The continuation history after `prev`, indexed by `piece * 64 + to`.
    fn cont_table(&self, prev: ContKey) -> &[i32] {
        &self.cont[Self::cont_index(prev, Piece::Pawn, Square::A1)..][..384]
    }

    /// Continuation history of a quiet `piece` to `to` after `prev`.
    pub fn cont_history(&self, prev: ContKey, piece: Piece, to: Square) -> i32 {
        self.cont[Self::cont_index(prev, piece, to)]
    }

    /// Reward or punish a quiet `piece` to `to` after `prev`, as
    /// [`Self::update_history`] does.
    pub fn update_cont_history(
        &mut self,
        prev: ContKey,
        piece: Piece,
        to: Square,
        bonus: i32,
        max: i32,
    ) {
        gravity(
            &mut self.cont[Self::cont_index(prev, piece, to)],
            bonus,
            max,
        );
    }

    fn capture_index(side: Color, piece: Piece, to: Square, victim: Piece) -> usize {
        ((side as usize * 6 + piece as usize) * 64 + to as usize) * 6 + victim as usize
    }

    /// Capture history of `piece` taking a `victim` on `to`.
    pub fn capture_history(&self, side: Color, piece: Piece, to: Square, victim: Piece) -> i32 {
        self.captures[Self::capture_index(side, piece, to, victim)]
    }

    /// Reward or punish a capture, as [`Self::update_history`] does.
    pub fn update_capture_history(
        &mut self,
        side: Color,
        piece: Piece,
        to: Square,
        victim: Piece,
        bonus: i32,
        max: i32,
    ) {
        gravity(
            &mut self.captures[Self::capture_index(side, piece, to, victim)],
            bonus,
            max,
        );
    }

    /// Remember a quiet move that caused a cutoff at `ply`.
    pub fn add_killer(&mut self, ply: usize, mv: Move, count: usize) {
        if count == 0 {
            return;
        }
        let k = &mut self.killers[ply];
        if k[0] == Some(mv) {
            return;
        }
        let count = count.min(4);
        // Shift down, dropping a duplicate further down if present.
        let pos = k[..count]
            .iter()
            .position(|&m| m == Some(mv))
            .unwrap_or(count - 1);
        for i in (1..=pos).rev() {
            k[i] = k[i - 1];
        }
        k[0] = Some(mv);
    }

    fn counter_index(side: Color, piece: Piece, to: Square) -> usize {
        side as usize * 384 + piece as usize * 64 + to as usize
    }

    /// The stored reply to the opponent's `piece` arriving on `to`.
    pub fn countermove(&self, side: Color, piece: Piece, to: Square) -> Option<Move> {
        self.counter[Self::counter_index(side, piece, to)]
    }

    /// Store `mv` as the reply to the opponent's `piece` arriving on `to`.
    pub fn set_countermove(&mut self, side: Color, piece: Piece, to: Square, mv: Move) {
        self.counter[Self::counter_index(side, piece, to)] = Some(mv);
    }
}

/// Move `h` by `bonus` towards +-`max`: the step shrinks as `h` nears the
/// bound, so entries saturate instead of overflowing and old values fade.
fn gravity(h: &mut i32, bonus: i32, max: i32) {
    let max = max.max(1);
    let b = bonus.clamp(-max, max);
    // In i64: |h| * |b| reaches max^2, beyond i32 for max > 46340.
    let decay = *h as i64 * b.abs() as i64 / max as i64;
    *h += b - decay as i32;
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
    Tactical { checks: bool },
}

/// Everything the picker reads to score moves.
pub struct OrderCtx<'a> {
    pub params: &'a SearchParams,
    pub heur: &'a Heuristics,
    pub values: &'a PieceValues,
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

/// Whether playing the legal move `mv` gives check, direct or discovered,
/// found without playing it: the search asks before it prunes, and copying
/// and playing every pruned move cost more than the pruning saves.
pub fn gives_check(board: &Board, mv: Move) -> bool {
    let us = board.side_to_move();
    let Some(piece) = board.piece_on(mv.from) else {
        return false;
    };
    // Castling (the king takes its own rook here) moves two pieces.
    if piece == Piece::King && board.colors(us).has(mv.to) {
        return gives_check_by_playing(board, mv);
    }
    let from = mv.from.bitboard();
    let to = mv.to.bitboard();
    let mut occ = (board.occupied() & !from) | to;
    if is_en_passant(board, mv) {
        // The captured pawn leaves a square off the move's path.
        occ &= !Square::new(mv.to.file(), mv.from.rank()).bitboard();
    }
    let moved = mv.promotion.unwrap_or(piece);
    let after = |p: Piece| {
        let b = board.colored_pieces(us, p) & !from;
        if p == moved {
            b | to
        } else {
            b
        }
    };
    let king = board.king(!us);
    let queens = after(Piece::Queen);
    let checkers = (get_bishop_moves(king, occ) & (after(Piece::Bishop) | queens))
        | (get_rook_moves(king, occ) & (after(Piece::Rook) | queens))
        | (get_knight_moves(king) & after(Piece::Knight))
        | (get_pawn_attacks(king, !us) & after(Piece::Pawn));
    !checkers.is_empty()
}

/// [`gives_check`] by playing the move on a copy of the board.
fn gives_check_by_playing(board: &Board, mv: Move) -> bool {
    let mut b = board.clone();
    b.play_unchecked(mv);
    !b.checkers().is_empty()
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

    /// The bitboard test agrees with playing the move, for every legal move
    /// of a few thousand positions from random walks and of the special
    /// cases: discovered checks by en passant and castling, promotions to
    /// every piece, a king stepping off a slider's line.
    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let special = [
            "8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "r3k3/8/8/8/8/8/8/3K4 b q - 0 1",
            "3k4/1P6/8/8/8/8/8/K7 w - - 0 1",
            "8/1P1k4/8/8/8/8/8/K7 w - - 0 1",
            "7k/8/8/8/8/8/1K6/B7 w - - 0 1",
            "4k3/8/8/8/8/8/4K3/4R3 w - - 0 1",
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut checked = 0;
        let mut checks = 0;
        let starts = FENS
            .iter()
            .chain(special.iter())
            .map(|f| f.parse().unwrap());
        for start in starts.chain([Board::default()]) {
            for _walk in 0..20 {
                let mut board: Board = start.clone();
                for _ply in 0..40 {
                    let legal = legal_moves(&board);
                    if legal.is_empty() {
                        break;
                    }
                    for &mv in &legal {
                        let want = gives_check_by_playing(&board, mv);
                        assert_eq!(gives_check(&board, mv), want, "{board} {mv}");
                        checked += 1;
                        checks += want as usize;
                    }
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    board.play_unchecked(legal[(seed >> 33) as usize % legal.len()]);
                }
            }
        }
        // The walks reach checks of every kind, not only quiet positions.
        assert!(
            checked > 50_000 && checks > 2_000,
            "{checked} moves, {checks} checks"
        );
    }

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

    #[test]
    fn killers_shift_and_dedupe() {
        let mut h = Heuristics::new();
        let m = |s: &str| s.parse::<Move>().unwrap();
        h.add_killer(0, m("a2a3"), 3);
        h.add_killer(0, m("b2b3"), 3);
        h.add_killer(0, m("c2c3"), 3);
        h.add_killer(0, m("a2a3"), 3);
        assert_eq!(
            h.killers[0][..3],
            [Some(m("a2a3")), Some(m("c2c3")), Some(m("b2b3"))]
        );
        h.add_killer(0, m("d2d3"), 3);
        assert_eq!(
            h.killers[0][..3],
            [Some(m("d2d3")), Some(m("a2a3")), Some(m("c2c3"))]
        );
        // History saturates at the bound.
        for _ in 0..100 {
            h.update_history(Color::Black, m("e7e5"), 4000, 16384);
        }
        let v = h.history(Color::Black, m("e7e5"));
        assert!(v > 15_000 && v <= 16_384, "{v}");
    }

    #[test]
    fn history_saturates_without_overflow_at_the_largest_bound() {
        let max = 65_536;
        let mut h = Heuristics::new();
        let mv: Move = "g1f3".parse().unwrap();
        for _ in 0..50 {
            h.update_history(Color::White, mv, max, max);
        }
        let v = h.history(Color::White, mv);
        assert!(v > max - 100 && v <= max, "{v}");
        for _ in 0..50 {
            h.update_history(Color::White, mv, -max, max);
        }
        let v = h.history(Color::White, mv);
        assert!((-max..-max + 100).contains(&v), "{v}");
    }
}
