//! Position: FEN round trips and errors, UCI move text, repetition and
//! 50-move detection, null moves, game states.

use cozy_chess::{Board, Piece};
use karsinta_engine::board::position::{
    parse_uci_move, CastlingFault, EnPassantFault, FenErrorKind, GameState, MoveErrorKind,
};
use karsinta_engine::Position;
use proptest::prelude::*;

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    "8/8/8/8/8/8/6k1/4K2R b K - 57 80",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 100 200",
];

#[test]
fn fen_round_trip() {
    for fen in FENS {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pos.to_fen(), *fen);
        assert_eq!(Position::from_fen(&pos.to_fen()).unwrap(), pos);
    }
    assert_eq!(Position::startpos().to_fen(), FENS[0]);
}

#[test]
fn fen_leniency() {
    // EPD style without clocks, odd spacing.
    let p = Position::from_fen("  4k3/8/8/8/8/8/8/4K3   w -  - ").unwrap();
    assert_eq!(p.to_fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    let p = Position::from_fen("4k3/8/8/8/8/8/8/4K3 b - - 7").unwrap();
    assert_eq!(p.to_fen(), "4k3/8/8/8/8/8/8/4K3 b - - 7 1");
}

#[test]
fn fen_errors_are_typed() {
    use cozy_chess::Color::{Black, White};
    use cozy_chess::Square;
    use FenErrorKind::*;
    let cases: &[(&str, FenErrorKind)] = &[
        ("", Empty),
        ("   ", Empty),
        ("garbage", MissingField),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
            TooManyFields,
        ),
        ("rnbqkbnr/pppppppp/8/8/8/8/RNBQKBNR w KQkq - 0 1", RankCount),
        ("k7/8/K7 w - - 0 1", RankCount),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq - 0 1",
            RankCount,
        ),
        (
            "8/8/8/8/8/8/8/8 w - - 0 1",
            KingCount {
                color: White,
                count: 0,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/8 w - - 0 1",
            KingCount {
                color: White,
                count: 0,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
            KingCount {
                color: White,
                count: 2,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/4K2X w - - 0 1",
            BadCharacter { rank: 1, ch: 'X' },
        ),
        (
            "4k3/8/8/8/8/8/8/4K2X w - - 0 1",
            BadCharacter { rank: 1, ch: 'X' },
        ),
        (
            "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
            RankLength {
                rank: 1,
                squares: 9,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/4K2 w - - 0 1",
            RankLength {
                rank: 1,
                squares: 7,
            },
        ),
        (
            "4k3/8/9/8/8/8/8/4K3 w - - 0 1",
            BadCharacter { rank: 6, ch: '9' },
        ),
        (
            "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
            PawnOnBackRank { square: Square::A8 },
        ),
        // Nine white pawns: a material fault, not a check.
        (
            "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1",
            TooManyPawns {
                color: White,
                count: 9,
            },
        ),
        (
            "QQQQk3/QQQQQQQQ/8/8/8/8/QQQQ4/4K3 w - - 0 1",
            TooManyPieces {
                color: White,
                count: 17,
            },
        ),
        ("8/8/8/4kK2/8/8/8/8 w - - 0 1", AdjacentKings),
        ("8/8/8/4k3/3K4/8/8/8 b - - 0 1", AdjacentKings),
        ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", SideToMove),
        (
            "4k3/8/8/8/8/8/8/4K2R w Q - 0 1",
            CastlingRights(CastlingFault::RookNotHome('Q')),
        ),
        (
            "4k3/8/8/8/8/8/8/4K2R w KK - 0 1",
            CastlingRights(CastlingFault::Duplicate('K')),
        ),
        (
            "4k3/8/8/8/8/8/8/4K2R w Z - 0 1",
            CastlingRights(CastlingFault::Letter('Z')),
        ),
        (
            "r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1",
            CastlingRights(CastlingFault::KingNotHome('K')),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
            EnPassant(EnPassantFault::WrongRank),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e9 0 1",
            EnPassant(EnPassantFault::Syntax),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
            EnPassant(EnPassantFault::NoPawn),
        ),
        (
            "4k3/4n3/8/4p3/8/8/8/4K3 w - e6 0 1",
            EnPassant(EnPassantFault::Occupied),
        ),
        // A rook check along the first rank: no double step discovers it.
        (
            "4k3/8/8/4p3/8/8/8/r3K3 w - e6 0 1",
            EnPassant(EnPassantFault::ImpossibleCheck),
        ),
        ("4k3/8/8/8/8/8/8/4K3 w - - -1 1", HalfmoveClock),
        ("4k3/8/8/8/8/8/8/4K3 w - - 1x 1", HalfmoveClock),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", FullmoveNumber),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 x", FullmoveNumber),
        // Black king in check with white to move.
        (
            "4k3/8/8/8/8/8/8/4RK2 w - - 0 1",
            OpponentInCheck { color: Black },
        ),
        (
            "4k3/8/8/8/7b/3n4/8/r3K3 w - - 0 1",
            TooManyCheckers {
                color: White,
                count: 3,
            },
        ),
    ];
    for (fen, kind) in cases {
        let e = Position::from_fen(fen).unwrap_err();
        assert_eq!(e.kind, *kind, "{fen}: {e}");
        assert_eq!(e.fen, *fen);
        assert!(e.to_string().contains("invalid FEN"), "{e}");
    }
}

/// Repetition key recomputed from scratch: the hash of a board parsed anew
/// from its FEN, without the en-passant part unless a legal move uses it.
fn key_from_scratch(board: &Board) -> u64 {
    let fresh: Board = board.to_string().parse().unwrap();
    let mut ep_usable = false;
    fresh.generate_moves(|pm| {
        if pm.piece == Piece::Pawn {
            ep_usable |= pm
                .into_iter()
                .any(|m| m.from.file() != m.to.file() && fresh.piece_on(m.to).is_none());
        }
        ep_usable
    });
    if ep_usable {
        fresh.hash()
    } else {
        fresh.hash_without_ep()
    }
}

/// FIDE's "same position": the same pieces on the same squares, side to
/// move and castling rights, and the same legal moves, so an en-passant
/// square counts only when a pawn can take there. Not cozy-chess's
/// `same_position` (0.3.4): it counts a king that can step onto the
/// en-passant square as a capture there.
fn same_position_fide(a: &Board, b: &Board) -> bool {
    let fields = |x: &Board| {
        let fen = x.to_string();
        fen.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    };
    let moves = |x: &Board| {
        let mut v: Vec<String> = Vec::new();
        x.generate_moves(|pm| {
            v.extend(pm.into_iter().map(|m| m.to_string()));
            false
        });
        v.sort_unstable();
        v
    };
    fields(a) == fields(b) && moves(a) == moves(b)
}

#[test]
fn an_en_passant_square_no_pawn_can_use_does_not_break_a_repetition() {
    // After e2e4 Black's king stands on d4, beside the en-passant square
    // e3, and no black pawn can take there: the position after b1a1 is the
    // one after e2e4 again.
    let mut pos = Position::from_fen("8/2p5/4p3/8/3k4/7N/4P3/K7 w - - 4 8").unwrap();
    pos.play_uci("e2e4").unwrap();
    let after_push = pos.board().clone();
    assert_eq!(after_push.en_passant(), Some(cozy_chess::File::E));
    for m in ["d4e3", "a1b1", "e3d4", "b1a1"] {
        pos.play_uci(m).unwrap();
    }
    assert_eq!(pos.repetition_count(), 1);
    assert!(same_position_fide(&after_push, pos.board()));
    // The oracle still tells a usable en-passant capture apart.
    let usable = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
    let without = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").unwrap();
    assert!(!same_position_fide(usable.board(), without.board()));
}

/// Start positions where random play repeats often and en passant arises.
const GAME_STARTS: &[&str] = &[
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/2p1p3/8/3P4/8/8/4P3/4K1N1 b - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
];

proptest! {
    /// The history's keys, kept as moves are played and taken back, equal
    /// keys recomputed from scratch, and the repetition count equals a
    /// naive count of earlier equal positions (by FIDE's definition).
    #[test]
    fn repetition_keys_match_a_recompute(
        start in 0..GAME_STARTS.len(),
        picks in prop::collection::vec((any::<u16>(), 0u8..10), 1..120),
    ) {
        let mut pos = Position::from_fen(GAME_STARTS[start]).unwrap();
        let mut boards: Vec<Board> = Vec::new();
        for (pick, action) in picks {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if action == 0 && !boards.is_empty() {
                // Take a move back now and then.
                prop_assert!(pos.unmake());
                boards.pop();
            } else {
                boards.push(pos.board().clone());
                pos.play(moves[pick as usize % moves.len()]).unwrap();
            }
            let want: Vec<u64> = boards.iter().map(key_from_scratch).collect();
            prop_assert_eq!(pos.history(), &want[..]);
            prop_assert_eq!(pos.key(), key_from_scratch(pos.board()));
            let naive = boards
                .iter()
                .filter(|b| same_position_fide(b, pos.board()))
                .count();
            prop_assert_eq!(pos.repetition_count(), naive, "{}", pos.to_fen());
        }
    }

    /// Arbitrary text never panics the FEN parser.
    #[test]
    fn fen_parser_never_panics(s in "\\PC{0,80}") {
        let _ = Position::from_fen(&s);
    }

    /// Mutations of a valid FEN never panic, and anything accepted round-trips.
    #[test]
    fn mutated_fen_never_panics(idx in 0usize..60, c in "[ -~]") {
        let mut fen: Vec<char> = FENS[1].chars().collect();
        let i = idx % fen.len();
        fen[i] = c.chars().next().unwrap();
        let fen: String = fen.into_iter().collect();
        if let Ok(p) = Position::from_fen(&fen) {
            prop_assert_eq!(Position::from_fen(&p.to_fen()).unwrap(), p);
        }
    }

    /// Arbitrary move text never panics and is accepted only if legal.
    #[test]
    fn move_parser_never_panics(s in "\\PC{0,8}") {
        let pos = Position::from_fen(FENS[1]).unwrap();
        if let Ok(m) = pos.parse_uci(&s) {
            prop_assert!(pos.legal_moves().contains(&m));
        }
    }
}

#[test]
fn every_legal_move_round_trips_through_uci_text() {
    for fen in FENS {
        let pos = Position::from_fen(fen).unwrap();
        for m in pos.legal_moves() {
            let text = pos.move_to_uci(m);
            assert_eq!(
                parse_uci_move(pos.board(), &text, false).unwrap(),
                m,
                "{fen} {text}"
            );
        }
    }
}

#[test]
fn castling_notation_both_ways() {
    let mut pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    pos.play_uci("e1g1").unwrap();
    assert_eq!(pos.to_fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    pos.play_uci("e8a8").unwrap(); // cozy-chess's king-takes-rook form
    assert_eq!(pos.to_fen(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
    let e = pos.play_uci("g1e1").unwrap_err();
    assert_eq!(e.kind, MoveErrorKind::Illegal);
    assert!(e.to_string().contains("g1e1"), "{e}");
}

#[test]
fn promotion_and_en_passant_text() {
    let mut pos = Position::from_fen("4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1").unwrap();
    assert_eq!(
        pos.parse_uci("b7b8").unwrap_err().kind,
        MoveErrorKind::Illegal
    );
    pos.play_uci("e5d6").unwrap();
    assert_eq!(pos.to_fen(), "4k3/1P6/3P4/8/8/8/8/4K3 b - - 0 1");
    pos.play_uci("e8d7").unwrap();
    pos.play_uci("b7b8N").unwrap();
    assert_eq!(pos.to_fen(), "1N6/3k4/3P4/8/8/8/8/4K3 b - - 0 2");
}

#[test]
fn history_records_earlier_positions() {
    let mut pos = Position::startpos();
    let k0 = pos.key();
    pos.play_uci("g1f3").unwrap();
    let k1 = pos.key();
    pos.play_uci("g8f6").unwrap();
    assert_eq!(pos.history(), &[k0, k1]);
    assert_eq!(pos.game_ply(), 2);
}

#[test]
fn threefold_repetition() {
    let mut pos = Position::startpos();
    assert_eq!(pos.repetition_count(), 0);
    let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    for m in cycle {
        pos.play_uci(m).unwrap();
    }
    assert_eq!(pos.repetition_count(), 1);
    assert!(pos.is_repetition(1) && !pos.is_repetition(2));
    assert_eq!(pos.state(), GameState::Ongoing);
    for m in cycle {
        pos.play_uci(m).unwrap();
    }
    assert_eq!(pos.repetition_count(), 2);
    assert_eq!(pos.state(), GameState::Threefold);
    assert!(pos.is_draw());
    // An irreversible move ends the window.
    pos.play_uci("e2e4").unwrap();
    assert_eq!(pos.repetition_count(), 0);
}

#[test]
fn repetitions_do_not_pass_through_a_null_move() {
    // Both sides pass once, black's knight goes out and back: the start
    // position with white to move again, but only across null moves.
    let mut pos = Position::startpos();
    assert!(pos.make_null());
    pos.play_uci("g8f6").unwrap();
    assert!(pos.make_null());
    pos.play_uci("f6g8").unwrap();
    assert_eq!(pos.key(), Position::startpos().key());
    assert_eq!(pos.repetition_count(), 0);
    // Taking back the last null move restores the window before it.
    assert!(pos.unmake() && pos.unmake());
    pos.play_uci("g1f3").unwrap();
    pos.play_uci("f6g8").unwrap();
    pos.play_uci("f3g1").unwrap();
    // Start board, black to move: first seen right after the first null move.
    assert_eq!(pos.repetition_count(), 1);
}

#[test]
fn repetition_counts_positions_after_a_double_push_when_en_passant_is_impossible() {
    // After 1.e4 e5 the e6 square is flagged but no capture is possible, so
    // the position equals the one after Nf3 Nf6 Ng1 Ng8 (FIDE).
    let mut pos = Position::startpos();
    pos.play_uci("e2e4").unwrap();
    pos.play_uci("e7e5").unwrap();
    for m in [
        "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
    ] {
        pos.play_uci(m).unwrap();
    }
    assert_eq!(pos.repetition_count(), 2);
    assert_eq!(pos.state(), GameState::Threefold);
}

#[test]
fn fifty_move_rule() {
    let mut pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 98 60").unwrap();
    assert!(!pos.is_fifty_move_draw());
    pos.play_uci("a1a2").unwrap();
    assert!(!pos.is_fifty_move_draw());
    pos.play_uci("e8d8").unwrap();
    assert!(pos.is_fifty_move_draw());
    assert_eq!(pos.state(), GameState::FiftyMoves);
    // A capture or pawn move resets the clock.
    let mut pos = Position::from_fen("4k3/8/8/8/8/8/4P3/R3K3 w - - 99 60").unwrap();
    pos.play_uci("e2e3").unwrap();
    assert_eq!(pos.halfmove_clock(), 0);
    // Mate on the 100th ply is mate, not a draw.
    let mut pos = Position::from_fen("7k/8/6K1/8/8/8/8/R7 w - - 99 80").unwrap();
    pos.play_uci("a1a8").unwrap();
    assert!(pos.is_fifty_move_draw());
    assert_eq!(pos.state(), GameState::Checkmate);
}

#[test]
fn halfmove_clocks_beyond_100_are_accepted_as_100() {
    // A game played on without a claim: legal, and the 50-move rule holds.
    for clock in ["101", "150", "0999", "123456789012345678901234567890"] {
        let fen = format!("4k3/8/8/8/8/8/8/R3K3 w - - {clock} 120");
        let pos = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pos.halfmove_clock(), 100, "{clock}");
        assert!(pos.is_fifty_move_draw());
        assert_eq!(pos.state(), GameState::FiftyMoves);
        assert_eq!(pos.to_fen(), "4k3/8/8/8/8/8/8/R3K3 w - - 100 120");
    }
    // Mate still beats the rule.
    let mut pos = Position::from_fen("7k/8/6K1/8/8/8/8/R7 w - - 140 80").unwrap();
    pos.play_uci("a1a8").unwrap();
    assert_eq!(pos.state(), GameState::Checkmate);
}

#[test]
fn mate_stalemate_material() {
    let mate = Position::from_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1").unwrap();
    assert_eq!(mate.state(), GameState::Checkmate);
    assert!(!mate.is_draw());
    let stale = Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    assert_eq!(stale.state(), GameState::Stalemate);
    for fen in [
        "8/8/4k3/8/8/3NK3/8/8 w - - 0 1",
        "8/8/4k3/8/8/3BK3/8/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "2b1k3/8/8/8/8/8/8/4KB2 w - - 0 1",
    ] {
        assert_eq!(
            Position::from_fen(fen).unwrap().state(),
            GameState::InsufficientMaterial,
            "{fen}"
        );
    }
    for fen in [
        "3bk3/8/8/8/8/8/8/4KB2 w - - 0 1",
        "4k3/8/8/8/8/8/8/3NKN2 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    ] {
        assert_eq!(
            Position::from_fen(fen).unwrap().state(),
            GameState::Ongoing,
            "{fen}"
        );
    }
}

#[test]
fn null_move() {
    let mut pos = Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 3 2").unwrap();
    let before = pos.clone();
    assert!(pos.make_null());
    assert_eq!(pos.to_fen(), "4k3/8/8/3pP3/8/8/8/4K3 b - - 4 2");
    assert_eq!(pos.history(), &[before.key()]);
    assert!(pos.unmake());
    assert_eq!(pos, before);
    let mut check = Position::from_fen("4k3/8/8/8/8/8/8/4K2r w - - 0 1").unwrap();
    let snapshot = check.clone();
    assert!(!check.make_null());
    assert_eq!(check, snapshot);
}
