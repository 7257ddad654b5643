//! The chess variant a match is played in: standard chess or Chess960
//! (Fischer random, and double Chess960, where the two sides' back ranks
//! differ). The variant decides how the harness's rules (shakmaty) read
//! castling rights and write castling moves, what the engines are told
//! (`UCI_Chess960`, xboard `variant fischerandom`) and the PGN's tags.

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, FromSetup, Position};

/// A match's variant (`variant:` in YAML, fastchess `-variant`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Standard chess (castling with king on e1/e8, written `e1g1` over UCI).
    #[default]
    Standard,
    /// Chess960: any king-between-rooks start; castling written
    /// king-takes-rook (`e1h1`) over UCI; X-FEN or Shredder-FEN.
    #[serde(alias = "fischerandom", alias = "frc", alias = "dfrc")]
    Chess960,
}

impl Variant {
    /// The variant a fastchess/cutechess `-variant` value names.
    pub fn from_flag(value: &str) -> Option<Variant> {
        match value {
            "standard" => Some(Variant::Standard),
            "fischerandom" | "chess960" => Some(Variant::Chess960),
            _ => None,
        }
    }

    /// How shakmaty reads castling rights and writes castling moves.
    pub fn castling_mode(self) -> CastlingMode {
        match self {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        }
    }

    /// The PGN `Variant` tag (none for standard chess).
    pub fn pgn_tag(self) -> Option<&'static str> {
        match self {
            Variant::Standard => None,
            Variant::Chess960 => Some("Chess960"),
        }
    }

    /// Whether a PGN `Variant` tag value names this variant (case ignored;
    /// the names python-chess, cutechess and lichess write).
    pub fn matches_pgn_tag(self, tag: &str) -> bool {
        let tag = tag.to_ascii_lowercase();
        match self {
            Variant::Standard => {
                matches!(
                    tag.as_str(),
                    "" | "standard" | "normal" | "chess" | "from position"
                )
            }
            Variant::Chess960 => matches!(
                tag.as_str(),
                "chess960"
                    | "chess 960"
                    | "fischerandom"
                    | "fischer random"
                    | "fischerrandom"
                    | "frc"
            ),
        }
    }

    /// The start position of a game without a FEN: the standard one (in
    /// Chess960 it is start position 518, with Chess960 castling).
    pub fn start_position(self) -> Chess {
        match self {
            Variant::Standard => Chess::default(),
            Variant::Chess960 => Chess::from_setup(
                Chess::default().to_setup(shakmaty::EnPassantMode::Legal),
                CastlingMode::Chess960,
            )
            .expect("the standard start is a Chess960 position"),
        }
    }

    /// The name in messages and YAML.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
        }
    }
}

impl std::str::FromStr for Variant {
    type Err = String;
    /// `standard`, or `chess960` (also `fischerandom`, `frc`, `dfrc`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "standard" => Ok(Variant::Standard),
            "chess960" | "fischerandom" | "frc" | "dfrc" => Ok(Variant::Chess960),
            _ => Err(format!(
                "unknown variant '{s}' (expected standard or chess960)"
            )),
        }
    }
}

/// Parse a FEN as a legal position of `variant`: Chess960 takes X-FEN and
/// Shredder-FEN castling rights; a Chess960 position offered as standard
/// chess says so, so that a Chess960 book in a standard match is refused
/// with the fix.
pub fn parse_position(fen: &str, variant: Variant) -> Result<Chess, String> {
    let parsed: Fen = fen
        .parse()
        .map_err(|e| format!("invalid FEN '{fen}': {e}"))?;
    parsed
        .clone()
        .into_position(variant.castling_mode())
        .map_err(|e| {
            let is_960 = variant == Variant::Standard
                && parsed
                    .into_position::<Chess>(CastlingMode::Chess960)
                    .is_ok();
            if is_960 {
                format!(
                    "'{fen}': a Chess960 position (castling rights standard chess cannot \
                     have); play it with `variant: chess960` or `-variant fischerandom`"
                )
            } else {
                format!("'{fen}': {e}")
            }
        })
}

/// The Chess960 start position with White's back rank of start position
/// `white` and Black's of `black` (Scharnagl's numbers, 0 to 959, taken
/// modulo 960; 518 is standard chess): equal in Chess960, drawn
/// independently in double Chess960. White to move, all four castling
/// rights, Chess960 castling.
pub fn chess960_start(white: u16, black: u16) -> Chess {
    let ranks = |id: u16| Board::chess960(u32::from(id % 960)).to_string();
    let (white, black) = (ranks(white), ranks(black));
    let first = |board: &str| board.rsplit('/').next().unwrap_or_default().to_string();
    let eighth = |board: &str| board.split('/').next().unwrap_or_default().to_string();
    let fen = format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1",
        eighth(&black),
        first(&white)
    );
    parse_position(&fen, Variant::Chess960).expect("every Chess960 array is a legal start")
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;

    #[test]
    fn chess960_starts_are_the_960_arrays_on_each_side() {
        let rank = |pos: &Chess, color: Color| -> String {
            let fen = crate::formats::fen::position_fen(pos);
            let board = fen.split(' ').next().unwrap().to_string();
            let rank = if color.is_white() {
                board.rsplit('/').next()
            } else {
                board.split('/').next()
            };
            rank.unwrap().to_ascii_uppercase()
        };
        let mut seen = std::collections::HashSet::new();
        for id in 0..960 {
            let pos = chess960_start(id, id);
            let r = rank(&pos, Color::White);
            assert_eq!(r, rank(&pos, Color::Black), "{id}");
            let at = |c| r.match_indices(c).map(|(i, _)| i).collect::<Vec<_>>();
            let (rooks, king, bishops) = (at('R'), at('K'), at('B'));
            assert!(rooks[0] < king[0] && king[0] < rooks[1], "{id}: {r}");
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "{id}: {r}");
            assert_eq!((at('Q').len(), at('N').len()), (1, 2), "{id}: {r}");
            assert_eq!(pos.castles().mode(), CastlingMode::Chess960);
            assert!(seen.insert(r));
        }
        assert_eq!(seen.len(), 960);
        assert_eq!(chess960_start(518, 518), Variant::Chess960.start_position());
        let double = crate::formats::fen::position_fen(&chess960_start(0, 959));
        assert_eq!(
            double,
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
    }

    #[test]
    fn names_and_modes() {
        assert_eq!(Variant::from_flag("fischerandom"), Some(Variant::Chess960));
        assert_eq!(Variant::from_flag("standard"), Some(Variant::Standard));
        assert_eq!(Variant::from_flag("crazyhouse"), None);
        let v: Variant = serde_yaml::from_str("chess960").unwrap();
        assert_eq!(v, Variant::Chess960);
        assert!(serde_yaml::from_str::<Variant>("atomic").is_err());
        assert!(Variant::Chess960.matches_pgn_tag("Chess960"));
        assert!(!Variant::Standard.matches_pgn_tag("Chess960"));
    }

    #[test]
    fn chess960_fens_in_both_modes() {
        let x_fen = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";
        let shredder = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1";
        let a = parse_position(x_fen, Variant::Chess960).unwrap();
        let b = parse_position(shredder, Variant::Chess960).unwrap();
        assert_eq!(a, b);
        let e = parse_position(x_fen, Variant::Standard).unwrap_err();
        assert!(
            e.contains("Chess960") && e.contains("variant: chess960"),
            "{e}"
        );
        // A standard position is a Chess960 one too.
        let start = Variant::Chess960.start_position();
        assert_eq!(start.castles().mode(), CastlingMode::Chess960);
    }
}
