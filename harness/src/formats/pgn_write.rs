//! PGN output of finished games: the Seven Tag Roster, `FEN`/`SetUp` for
//! FEN openings (and `Variant "Chess960"` with the start FEN for every
//! Chess960 game), `TimeControl` (fastchess's `WhiteTimeControl` and
//! `BlackTimeControl` when the sides play at odds), `PlyCount` and
//! `Termination`, and a comment per move with the engine's score (its own
//! point of view), depth and thinking time in the style of cutechess-cli
//! (`{+0.31/12 0.052s}`; at odds also the mover's clock left, `tl=9.874s`,
//! and its nodes, `n=5000`, as fastchess's `timeleft` and `nodes` write
//! them); opening moves are marked `{book}`. [`PgnOptions`] (the config's
//! `pgn:` section, fastchess's `-pgnout` keys) adds fastchess's per-move
//! fields, LAN or UCI moves, or the minimal PGN. Also splits a games file
//! back into games, which `--resume` uses to drop games of pairs the ledger
//! does not hold.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position, Role};

use crate::formats::fen::position_fen;
use crate::play::game::{GameRecord, MoveRecord};
use crate::players::EngineScore;
use crate::variant::Variant;

/// Tags that come from the match rather than the game.
#[derive(Clone, Debug)]
pub struct MatchTags<'a> {
    /// The `Event` tag: the run name.
    pub event: &'a str,
    /// `YYYY.MM.DD`.
    pub date: &'a str,
    /// Chess960 games get `[Variant "Chess960"]` and always a `FEN`.
    pub variant: Variant,
}

/// A UTC calendar time (no time-zone crate needed for `YYYY.MM.DD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UtcTime {
    /// Calendar year, e.g. 2026.
    pub year: i64,
    /// Month, 1 ..= 12.
    pub month: u32,
    /// Day of the month, 1 ..= 31.
    pub day: u32,
    /// Hour, 0 ..= 23.
    pub hour: u32,
    /// Minute, 0 ..= 59.
    pub minute: u32,
    /// Second, 0 ..= 59.
    pub second: u32,
}

impl UtcTime {
    /// The current UTC time.
    pub fn now() -> UtcTime {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        UtcTime::from_unix(secs)
    }

    /// Convert seconds since the Unix epoch (days-to-civil algorithm).
    pub fn from_unix(secs: i64) -> UtcTime {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        UtcTime {
            year,
            month,
            day,
            hour: (rem / 3600) as u32,
            minute: (rem % 3600 / 60) as u32,
            second: (rem % 60) as u32,
        }
    }

    /// `YYYY.MM.DD` as the PGN `Date` tag wants it.
    pub fn pgn_date(&self) -> String {
        format!("{:04}.{:02}.{:02}", self.year, self.month, self.day)
    }

    /// `YYYYMMDD-HHMMSS`, for run folder names.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Score as cutechess-cli prints it: pawns with sign, or `+M5` / `-M3`.
pub fn format_score(s: EngineScore) -> String {
    match s {
        EngineScore::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
        EngineScore::Mate(n) if n > 0 => format!("+M{n}"),
        EngineScore::Mate(n) => format!("-M{}", n.unsigned_abs()),
    }
}

/// How moves are written (fastchess's `-pgnout notation=`): `san`
/// (`Nf3`, the default), `lan` (`Ng1f3`, `e4xd5`, `e7e8=Q+`, castling
/// `O-O`, as fastchess's chess library writes it) or `uci` (`g1f3`, the
/// engine's own text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Notation {
    /// Standard algebraic notation (`Nf3`).
    #[default]
    San,
    /// Long algebraic notation (`Ng1f3`).
    Lan,
    /// The engine's UCI text (`g1f3`).
    Uci,
}

impl Notation {
    fn is_san(&self) -> bool {
        *self == Notation::San
    }
}

/// What a game's PGN shows beyond Karsinta's default: fastchess's
/// `-pgnout` keys, as the match config's `pgn:` section. Each field adds
/// one entry to every engine move's comment, in fastchess's order and
/// spelling (`{+0.31/12 0.052s, tl=7.250s, latency=0.004s, n=5000, sd=15,
/// nps=96153, hashfull=12, tbhits=0, pv="g1f3 d7d5"}`; a value the engine
/// did not report is 0, as in fastchess). `min` writes fastchess's minimal
/// PGN: no PlyCount, TimeControl or Termination tag and no comments.
/// The default writes exactly what Karsinta always wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PgnOptions {
    /// How the moves are written.
    #[serde(default, skip_serializing_if = "Notation::is_san")]
    pub notation: Notation,
    /// `n=`: the nodes the engine reported.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nodes: bool,
    /// `sd=`: the selective depth.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seldepth: bool,
    /// `nps=`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nps: bool,
    /// `hashfull=` (per mille).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hashfull: bool,
    /// `tbhits=`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tbhits: bool,
    /// `pv="..."`: the last principal variation, in UCI notation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pv: bool,
    /// `tl=`: the mover's clock after the move (0 without a clock).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timeleft: bool,
    /// `latency=`: the harness's measured time minus the engine's reported `time`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub latency: bool,
    /// fastchess's minimal PGN.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub min: bool,
}

impl PgnOptions {
    /// Whether any per-move field was asked for.
    fn has_fields(&self) -> bool {
        self.nodes
            || self.seldepth
            || self.nps
            || self.hashfull
            || self.tbhits
            || self.pv
            || self.timeleft
            || self.latency
    }
}

/// Append one game to `out` as Karsinta writes it by default.
/// `round` is written as the `Round` tag (`PAIR.GAME`, 1-based, lets
/// `--resume` map a game to its pair).
pub fn write_game(out: &mut String, game: &GameRecord, round: &str, tags: &MatchTags<'_>) {
    write_game_with(out, game, round, tags, &PgnOptions::default());
}

/// Append one game to `out`, shaped by `opts` (see [`PgnOptions`]).
pub fn write_game_with(
    out: &mut String,
    game: &GameRecord,
    round: &str,
    tags: &MatchTags<'_>,
    opts: &PgnOptions,
) {
    let start_fen = write_tags(out, game, round, tags, opts);
    // Move numbers follow the starting position's side to move and fullmove.
    let mut pos: Option<Chess> = match &start_fen {
        Some(f) => Fen::from_ascii(f.as_bytes())
            .ok()
            .and_then(|fen| fen.into_position(tags.variant.castling_mode()).ok()),
        None => Some(Chess::default()),
    };
    let (mut fullmove, mut turn) = pos
        .as_ref()
        .map_or((1, Color::White), |p| (p.fullmoves().get(), p.turn()));
    // At odds, each side's own limits are recorded in the comments.
    let odds = game.time_controls[0] != game.time_controls[1];
    let mut tokens: Vec<String> = Vec::with_capacity(game.moves.len() * 2 + 2);
    for (i, m) in game.moves.iter().enumerate() {
        if turn == Color::White {
            tokens.push(format!("{fullmove}."));
        } else if i == 0 {
            tokens.push(format!("{fullmove}..."));
        }
        tokens.push(move_text(&mut pos, m, opts.notation));
        if !opts.min {
            tokens.push(move_comment(m, odds, opts));
        }
        if turn == Color::Black {
            fullmove += 1;
        }
        turn = !turn;
    }
    if !opts.min {
        tokens.push(format!("{{{}}}", game.reason.replace('}', ")")));
    }
    tokens.push(game.result.pgn().to_string());

    // Wrap at 80 columns; a comment may be split at its spaces like any text.
    let mut line_len = 0;
    for t in tokens.iter().flat_map(|t| t.split(' ')) {
        if line_len > 0 && line_len + 1 + t.len() > 79 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(t);
        line_len += t.len();
    }
    out.push_str("\n\n");
}

/// The tag section and the blank line after it; returns the start FEN the
/// moves are numbered from.
fn write_tags(
    out: &mut String,
    game: &GameRecord,
    round: &str,
    tags: &MatchTags<'_>,
    opts: &PgnOptions,
) -> Option<String> {
    let tag = |out: &mut String, k: &str, v: &str| {
        let _ = writeln!(out, "[{k} \"{}\"]", escape(v));
    };
    tag(out, "Event", tags.event);
    tag(out, "Site", "karsinta");
    tag(out, "Date", tags.date);
    tag(out, "Round", round);
    tag(out, "White", &game.white);
    tag(out, "Black", &game.black);
    tag(out, "Result", game.result.pgn());
    if let Some(v) = tags.variant.pgn_tag() {
        tag(out, "Variant", v);
    }
    // A Chess960 game names its start position even when it is the
    // standard one: readers take a Variant tag without a FEN as start 518,
    // but not every reader knows that.
    let start_fen = match (&game.start_fen, tags.variant) {
        (Some(f), _) => Some(f.clone()),
        (None, Variant::Chess960) => Some(position_fen(&Variant::Chess960.start_position())),
        (None, Variant::Standard) => None,
    };
    if let Some(f) = &start_fen {
        tag(out, "FEN", f);
        tag(out, "SetUp", "1");
    }
    if !opts.min {
        tag(out, "PlyCount", &game.moves.len().to_string());
        let [white_tc, black_tc] = &game.time_controls;
        if white_tc.pgn_tag() == black_tc.pgn_tag() {
            tag(out, "TimeControl", &white_tc.pgn_tag());
        } else {
            tag(out, "WhiteTimeControl", &white_tc.pgn_tag());
            tag(out, "BlackTimeControl", &black_tc.pgn_tag());
        }
        tag(out, "Termination", game.termination.pgn_tag());
    }
    out.push('\n');
    start_fen
}

/// One move in `notation`. LAN needs the position before the move (`pos`,
/// moved on here) and falls back to SAN where it is unknown.
fn move_text(pos: &mut Option<Chess>, m: &MoveRecord, notation: Notation) -> String {
    match notation {
        Notation::San => return m.san.clone(),
        Notation::Uci => return m.uci.clone(),
        Notation::Lan => {}
    }
    let Some(p) = pos.as_mut() else {
        return m.san.clone();
    };
    let Some(mv) = UciMove::from_ascii(m.uci.as_bytes())
        .ok()
        .and_then(|u| u.to_move(p).ok())
    else {
        // A move that does not replay: the rest falls back to SAN.
        *pos = None;
        return m.san.clone();
    };
    let text = lan(p, mv);
    p.play_unchecked(mv);
    text
}

/// Long algebraic notation as fastchess writes it: the piece letter (none
/// for pawns), both squares with `x` between them for a capture, `=Q` for a
/// promotion, `O-O` / `O-O-O` for castling, `+` or `#` after.
fn lan(pos: &Chess, mv: shakmaty::Move) -> String {
    let mut s = String::new();
    match mv {
        shakmaty::Move::Castle { king, rook } => {
            s.push_str(if rook.file() > king.file() {
                "O-O"
            } else {
                "O-O-O"
            });
        }
        _ => {
            if mv.role() != Role::Pawn {
                s.push(mv.role().upper_char());
            }
            if let Some(from) = mv.from() {
                let _ = write!(s, "{from}");
            }
            if mv.is_capture() {
                s.push('x');
            }
            let _ = write!(s, "{}", mv.to());
            if let Some(p) = mv.promotion() {
                s.push('=');
                s.push(p.upper_char());
            }
        }
    }
    let mut after = pos.clone();
    after.play_unchecked(mv);
    if after.is_checkmate() {
        s.push('#');
    } else if after.is_check() {
        s.push('+');
    }
    s
}

/// An engine move's comment: `{score/depth time}` (at odds with ` tl=`
/// and ` n=`), or with fields asked for fastchess's comma-separated form.
fn move_comment(m: &MoveRecord, odds: bool, opts: &PgnOptions) -> String {
    if m.book {
        return "{book}".to_string();
    }
    let mut c = String::from("{");
    if let Some(s) = m.score {
        c.push_str(&format_score(s));
        if let Some(d) = m.depth {
            let _ = write!(c, "/{d}");
        }
        c.push(' ');
    }
    let _ = write!(c, "{:.3}s", m.time.as_secs_f64());
    if !opts.has_fields() {
        if odds {
            if let Some(left) = m.clock {
                let _ = write!(c, " tl={:.3}s", left.as_secs_f64());
            }
            if let Some(n) = m.nodes {
                let _ = write!(c, " n={n}");
            }
        }
        c.push('}');
        return c;
    }
    let d = &m.detail;
    // At odds the clock and the nodes are always shown, as without fields.
    if opts.timeleft || odds {
        let left = m.clock.unwrap_or_default();
        let _ = write!(c, ", tl={:.3}s", left.as_secs_f64());
    }
    if opts.latency {
        // fastchess: measured minus reported, whole milliseconds (may be negative).
        let measured = i128::try_from(m.time.as_millis()).unwrap_or(i128::MAX);
        let latency = measured - i128::from(d.time_ms.unwrap_or(0));
        let _ = write!(c, ", latency={:.3}s", latency as f64 / 1000.0);
    }
    if opts.nodes || odds {
        let _ = write!(c, ", n={}", m.nodes.unwrap_or(0));
    }
    if opts.seldepth {
        let _ = write!(c, ", sd={}", m.seldepth.unwrap_or(0));
    }
    if opts.nps {
        let _ = write!(c, ", nps={}", d.nps.unwrap_or(0));
    }
    if opts.hashfull {
        let _ = write!(c, ", hashfull={}", d.hashfull.unwrap_or(0));
    }
    if opts.tbhits {
        let _ = write!(c, ", tbhits={}", d.tbhits.unwrap_or(0));
    }
    if opts.pv {
        let _ = write!(c, ", pv=\"{}\"", d.pv.join(" "));
    }
    c.push('}');
    c
}

/// Split a PGN file written by [`write_game`] into games (each starting at
/// its `[Event` line). A game cut short by a crash is returned as it is.
pub fn split_games(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = Vec::new();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("[Event ") {
            starts.push(pos);
        }
        pos += line.len();
    }
    let mut games = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let e = starts.get(i + 1).copied().unwrap_or(text.len());
        games.push(&text[s..e]);
    }
    games
}

/// The value of tag `name` in one game's text.
pub fn tag_value<'a>(game: &'a str, name: &str) -> Option<&'a str> {
    let prefix = format!("[{name} \"");
    game.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .and_then(|rest| rest.strip_suffix("\"]"))
}

/// Whether a game's text ends with its result token (was fully written).
pub fn is_complete(game: &str) -> bool {
    tag_value(game, "Result").is_some_and(|r| game.trim_end().ends_with(r))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::play::game::{GameResult, MoveRecord, Termination};

    fn mv(san: &str, book: bool, score: Option<EngineScore>) -> MoveRecord {
        MoveRecord {
            uci: String::new(),
            san: san.into(),
            book,
            score,
            depth: Some(12),
            time: Duration::from_millis(52),
            nodes: Some(5000),
            clock: Some(Duration::from_millis(7_250)),
            seldepth: None,
            detail: crate::players::SearchDetail::default(),
        }
    }

    /// A game from the start position with real UCI moves.
    fn ruy_lopez() -> GameRecord {
        let moves = [
            ("e2e4", "e4"),
            ("e7e5", "e5"),
            ("g1f3", "Nf3"),
            ("b8c6", "Nc6"),
            ("f1b5", "Bb5"),
            ("a7a6", "a6"),
            ("b5c6", "Bxc6"),
            ("d7c6", "dxc6"),
            ("e1g1", "O-O"),
        ];
        GameRecord {
            white: "a".into(),
            black: "b".into(),
            start_fen: None,
            moves: moves
                .iter()
                .enumerate()
                .map(|(i, (uci, san))| MoveRecord {
                    uci: uci.to_string(),
                    seldepth: Some(20 + i as u32),
                    detail: crate::players::SearchDetail {
                        nps: Some(1000 + i as u64),
                        hashfull: Some(7),
                        tbhits: Some(2),
                        time_ms: Some(40),
                        pv: vec![uci.to_string(), "a2a3".into()],
                    },
                    ..mv(san, i < 2, Some(EngineScore::Cp(-5)))
                })
                .collect(),
            result: GameResult::Draw,
            termination: Termination::AdjudicationDraw,
            reason: "Draw by adjudication".into(),
            time_controls: ["8+0.08".parse().unwrap(); 2],
            warnings: Vec::new(),
        }
    }

    /// fastchess's notations: LAN with the piece, both squares and `x`, UCI as sent.
    #[test]
    fn notations() {
        let g = ruy_lopez();
        let moves = |notation| {
            let mut out = String::new();
            let opts = PgnOptions {
                notation,
                min: true,
                ..PgnOptions::default()
            };
            write_game_with(&mut out, &g, "1.1", &TAGS, &opts);
            out.split("\n\n").nth(1).unwrap().replace('\n', " ")
        };
        assert_eq!(
            moves(Notation::Lan),
            "1. e2e4 e7e5 2. Ng1f3 Nb8c6 3. Bf1b5 a7a6 4. Bb5xc6 d7xc6 5. O-O 1/2-1/2"
        );
        assert_eq!(
            moves(Notation::Uci),
            "1. e2e4 e7e5 2. g1f3 b8c6 3. f1b5 a7a6 4. b5c6 d7c6 5. e1g1 1/2-1/2"
        );
        assert_eq!(
            moves(Notation::San),
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O 1/2-1/2"
        );
        // Promotion, check and mate as fastchess's library writes them.
        let p: Chess = Fen::from_ascii(b"7k/4P2p/8/8/8/8/8/K5R1 w - - 0 1")
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let promote = UciMove::from_ascii(b"e7e8q").unwrap().to_move(&p).unwrap();
        assert_eq!(lan(&p, promote), "e7e8=Q#");
        let check = UciMove::from_ascii(b"g1g8").unwrap().to_move(&p).unwrap();
        assert_eq!(lan(&p, check), "Rg1g8+");
    }

    /// Every field in fastchess's order; `min` drops tags and comments.
    #[test]
    fn fields_and_minimal_pgn() {
        let g = ruy_lopez();
        let all = PgnOptions {
            nodes: true,
            seldepth: true,
            nps: true,
            hashfull: true,
            tbhits: true,
            pv: true,
            timeleft: true,
            latency: true,
            ..PgnOptions::default()
        };
        let mut out = String::new();
        write_game_with(&mut out, &g, "1.1", &TAGS, &all);
        let flat = out.replace('\n', " ");
        assert!(
            flat.contains("2. Nf3 {-0.05/12 0.052s, tl=7.250s, latency=0.012s, n=5000, sd=22, nps=1002, hashfull=7, tbhits=2, pv=\"g1f3 a2a3\"}"),
            "{out}"
        );
        assert!(flat.contains("1. e4 {book} e5 {book}"), "{out}");
        assert!(out.lines().all(|l| l.len() <= 80), "{out}");
        let only = PgnOptions {
            seldepth: true,
            ..PgnOptions::default()
        };
        let mut out = String::new();
        write_game_with(&mut out, &g, "1.1", &TAGS, &only);
        assert!(out.contains("{-0.05/12 0.052s, sd=22}"), "{out}");
        let mut out = String::new();
        let min = PgnOptions { min: true, ..all };
        write_game_with(&mut out, &g, "1.1", &TAGS, &min);
        assert!(!out.contains('{') && !out.contains("[PlyCount"), "{out}");
        assert!(
            !out.contains("[TimeControl") && !out.contains("[Termination"),
            "{out}"
        );
        assert!(
            out.contains("[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3"),
            "{out}"
        );
        let games = split_games(&out);
        assert!(is_complete(games[0]) && tag_value(games[0], "Round") == Some("1.1"));
        // The default options write what write_game writes.
        let (mut a, mut b) = (String::new(), String::new());
        write_game(&mut a, &g, "1.1", &TAGS);
        write_game_with(&mut b, &g, "1.1", &TAGS, &PgnOptions::default());
        assert_eq!(a, b);
        assert!(a.contains("2. Nf3 {-0.05/12 0.052s} Nc6"), "{a}");
    }

    #[test]
    fn utc_dates() {
        assert_eq!(UtcTime::from_unix(0).pgn_date(), "1970.01.01");
        // 2024-02-29 12:34:56 UTC
        let t = UtcTime::from_unix(1_709_210_096);
        assert_eq!(
            (t.pgn_date(), t.compact()),
            ("2024.02.29".to_string(), "20240229-123456".to_string())
        );
    }

    #[test]
    fn writes_tags_numbers_and_comments() {
        let g = GameRecord {
            white: "a \"b\"".into(),
            black: "c".into(),
            start_fen: Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into()),
            moves: vec![
                mv("e5", true, None),
                mv("Nf3", false, Some(EngineScore::Cp(31))),
                mv("Nc6", false, Some(EngineScore::Mate(-3))),
            ],
            result: GameResult::Draw,
            termination: Termination::AdjudicationDraw,
            reason: "Draw by adjudication".into(),
            time_controls: ["8+0.08".parse().unwrap(); 2],
            warnings: Vec::new(),
        };
        let mut out = String::new();
        write_game(&mut out, &g, "3.2", &TAGS);
        assert!(out.contains("[White \"a \\\"b\\\"\"]\n"), "{out}");
        assert!(out.contains("[SetUp \"1\"]\n[PlyCount \"3\"]\n[TimeControl \"8+0.08\"]\n[Termination \"adjudication\"]\n\n"));
        assert!(out.lines().all(|l| l.len() <= 80), "{out}");
        assert!(
            out.replace('\n', " ")
                .contains("1... e5 {book} 2. Nf3 {+0.31/12 0.052s} Nc6 {-M3/12 0.052s} {Draw by adjudication} 1/2-1/2"),
            "{out}"
        );
        assert!(out.ends_with("1/2-1/2\n\n"));
        let games = split_games(&out);
        assert_eq!(games.len(), 1);
        assert_eq!(tag_value(games[0], "Round"), Some("3.2"));
        assert!(is_complete(games[0]));
        assert!(!is_complete(&out[..out.len() - 6]));
        let twice = format!("{out}{out}");
        assert_eq!(split_games(&twice).len(), 2);
    }

    const TAGS: MatchTags<'static> = MatchTags {
        event: "ev",
        date: "2026.01.02",
        variant: crate::variant::Variant::Standard,
    };

    /// At odds each side's control is its own tag, as fastchess writes them,
    /// and the moves show the mover's clock and nodes.
    #[test]
    fn odds_games_record_both_controls() {
        let mut g = GameRecord {
            white: "a".into(),
            black: "b".into(),
            start_fen: None,
            moves: vec![mv("e4", false, None), mv("e5", false, None)],
            result: GameResult::Draw,
            termination: Termination::AdjudicationDraw,
            reason: "Draw by adjudication".into(),
            time_controls: ["10+0.1".parse().unwrap(), "5+0.05".parse().unwrap()],
            warnings: Vec::new(),
        };
        let mut out = String::new();
        write_game(&mut out, &g, "1.1", &TAGS);
        assert!(
            out.contains("[WhiteTimeControl \"10+0.1\"]\n[BlackTimeControl \"5+0.05\"]\n"),
            "{out}"
        );
        assert!(!out.contains("[TimeControl "), "{out}");
        assert!(out.contains("1. e4 {0.052s tl=7.250s n=5000}"), "{out}");
        // Node odds under one clock: one TimeControl tag (fastchess's tag
        // holds the clock only), the nodes in the comments.
        g.time_controls = [
            "10+0.1,nodes=5000".parse().unwrap(),
            "10+0.1,nodes=500".parse().unwrap(),
        ];
        let mut out = String::new();
        write_game(&mut out, &g, "1.1", &TAGS);
        assert!(out.contains("[TimeControl \"10+0.1\"]"), "{out}");
        assert!(out.contains("n=5000"), "{out}");
        // Without odds the comments stay as they were.
        g.time_controls = ["10+0.1".parse().unwrap(); 2];
        let mut out = String::new();
        write_game(&mut out, &g, "1.1", &TAGS);
        assert!(out.contains("1. e4 {0.052s} e5 {0.052s}"), "{out}");
    }
}
