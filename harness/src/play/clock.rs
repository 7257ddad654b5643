//! Time controls: what limits each move of a game, in the text form configs
//! and the command line use (`nodes=5000`, `depth=8`, `movetime=0.1`,
//! `8+0.08`, `40/60+0.6`, and fastchess's combinations such as
//! `8+0.08,nodes=5000`), and the chess clocks the game loop keeps, one per
//! side with its own control (time odds). The harness's clock, not the
//! engine's word, decides time losses ([`crate::play::game`]).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use thiserror::Error;

use crate::players::fmt_secs;
use crate::players::MoveLimit;

/// How each move of a game is limited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeControl {
    /// Fixed number of nodes per move.
    Nodes(u64),
    /// Fixed search depth per move.
    Depth(u32),
    /// Fixed time per move.
    MoveTime(Duration),
    /// A chess clock: `base` per period of `moves` moves (sudden death when
    /// `moves` is `None`), plus `inc` after every move.
    Clock {
        /// Moves per period; `None` = sudden death (one period for the game).
        moves: Option<u32>,
        /// Time per period.
        base: Duration,
        /// Time added after every move.
        inc: Duration,
    },
    /// Several limits at once, as fastchess sends `tc=` or `st=` with
    /// `nodes=` or `depth=`: the engine is told all of them and stops at
    /// the first reached, while a clock in them still runs and is enforced.
    /// Holds at least two limits ([`TimeControl::from_parts`]).
    Combined {
        /// Most nodes per move; `None` = no node limit.
        nodes: Option<u64>,
        /// Most plies of depth per move; `None` = no depth limit.
        depth: Option<u32>,
        /// The time per move or clock beside them; `None` = none.
        time: Option<Timed>,
    },
}

/// The time part of a control: a time per move or a clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Timed {
    /// A fixed time per move (`movetime=SECONDS`, fastchess `st=`).
    MoveTime(Duration),
    /// A chess clock, as [`TimeControl::Clock`].
    Clock {
        /// Moves per period; `None` = sudden death.
        moves: Option<u32>,
        /// Time per period.
        base: Duration,
        /// Time added after every move.
        inc: Duration,
    },
}

/// A time-control string that does not parse.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("invalid time control '{text}': {reason} (expected nodes=N, depth=N, movetime=SECONDS, BASE+INC or MOVES/BASE+INC, times in seconds, or several of them joined by commas)")]
pub struct TimeControlError {
    /// The time control as given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

fn parse_seconds(text: &str, what: &str) -> Result<Duration, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{what} '{text}' is not a number of seconds"))?;
    if !v.is_finite() || !(0.0..=1.0e7).contains(&v) {
        return Err(format!("{what} '{text}' is out of range"));
    }
    Ok(Duration::from_secs_f64(v))
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// One limit, or several joined by commas (`8+0.08,nodes=5000`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = |reason: String| TimeControlError {
            text: text.to_string(),
            reason,
        };
        let mut nodes = None;
        let mut depth = None;
        let mut time = None;
        for part in text.split(',') {
            let (kind, limit) = match parse_one(part.trim()).map_err(err)? {
                TimeControl::Nodes(n) => ("nodes", nodes.replace(n).map(|_| ())),
                TimeControl::Depth(d) => ("depth", depth.replace(d).map(|_| ())),
                TimeControl::MoveTime(t) => ("time", time.replace(Timed::MoveTime(t)).map(|_| ())),
                TimeControl::Clock { moves, base, inc } => (
                    "time",
                    time.replace(Timed::Clock { moves, base, inc }).map(|_| ()),
                ),
                TimeControl::Combined { .. } => unreachable!("one part is one limit"),
            };
            if limit.is_some() {
                return Err(err(format!(
                    "two {kind} limits (a clock and a time per move count as one kind)"
                )));
            }
        }
        Ok(TimeControl::from_parts(nodes, depth, time).expect("at least one part"))
    }
}

/// One limit of the text form.
fn parse_one(t: &str) -> Result<TimeControl, String> {
    if let Some((key, value)) = t.split_once('=') {
        let value = value.trim();
        return match key.trim() {
            "nodes" => match value.parse::<u64>() {
                Ok(n) if n > 0 => Ok(TimeControl::Nodes(n)),
                _ => Err("nodes must be a positive integer".into()),
            },
            "depth" => match value.parse::<u32>() {
                Ok(d) if (1..=255).contains(&d) => Ok(TimeControl::Depth(d)),
                _ => Err("depth must be an integer in 1..=255".into()),
            },
            "movetime" | "st" => {
                let d = parse_seconds(value, "movetime")?;
                if d.is_zero() {
                    return Err("movetime must be positive".into());
                }
                Ok(TimeControl::MoveTime(d))
            }
            other => Err(format!("unknown limit '{other}'")),
        };
    }
    let (moves, rest) = match t.split_once('/') {
        Some((m, rest)) => match m.trim().parse::<u32>() {
            Ok(m) if m > 0 => (Some(m), rest),
            _ => return Err("moves per period must be a positive integer".into()),
        },
        None => (None, t),
    };
    let (base, inc) = match rest.split_once('+') {
        Some((b, i)) => (
            parse_seconds(b, "base time")?,
            parse_seconds(i, "increment")?,
        ),
        None => (parse_seconds(rest, "base time")?, Duration::ZERO),
    };
    if base.is_zero() && inc.is_zero() {
        return Err("base time and increment cannot both be zero".into());
    }
    if base.is_zero() && moves.is_some() {
        return Err("a moves/time control needs a base time".into());
    }
    Ok(TimeControl::Clock { moves, base, inc })
}

impl fmt::Display for TimeControl {
    /// The same text form [`FromStr`] accepts: the time first, then nodes,
    /// then depth.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Nodes(n) => write!(f, "nodes={n}"),
            TimeControl::Depth(d) => write!(f, "depth={d}"),
            TimeControl::MoveTime(t) => write!(f, "movetime={}", fmt_secs(*t)),
            TimeControl::Clock { moves, base, inc } => {
                if let Some(m) = moves {
                    write!(f, "{m}/")?;
                }
                write!(f, "{}", fmt_secs(*base))?;
                if !inc.is_zero() {
                    write!(f, "+{}", fmt_secs(*inc))?;
                }
                Ok(())
            }
            TimeControl::Combined { nodes, depth, time } => {
                let mut parts: Vec<String> = Vec::new();
                if let Some(t) = time {
                    parts.push(TimeControl::from(*t).to_string());
                }
                if let Some(n) = nodes {
                    parts.push(format!("nodes={n}"));
                }
                if let Some(d) = depth {
                    parts.push(format!("depth={d}"));
                }
                write!(f, "{}", parts.join(","))
            }
        }
    }
}

impl From<Timed> for TimeControl {
    fn from(t: Timed) -> TimeControl {
        match t {
            Timed::MoveTime(t) => TimeControl::MoveTime(t),
            Timed::Clock { moves, base, inc } => TimeControl::Clock { moves, base, inc },
        }
    }
}

impl TimeControl {
    /// The control of these limits: the plain variant for one, `Combined`
    /// for more, `None` for none.
    pub fn from_parts(
        nodes: Option<u64>,
        depth: Option<u32>,
        time: Option<Timed>,
    ) -> Option<TimeControl> {
        Some(match (nodes, depth, time) {
            (None, None, None) => return None,
            (Some(n), None, None) => TimeControl::Nodes(n),
            (None, Some(d), None) => TimeControl::Depth(d),
            (None, None, Some(t)) => t.into(),
            _ => TimeControl::Combined { nodes, depth, time },
        })
    }

    /// The node limit, if any.
    pub fn nodes(&self) -> Option<u64> {
        match *self {
            TimeControl::Nodes(n) => Some(n),
            TimeControl::Combined { nodes, .. } => nodes,
            _ => None,
        }
    }

    /// The depth limit, if any.
    pub fn depth(&self) -> Option<u32> {
        match *self {
            TimeControl::Depth(d) => Some(d),
            TimeControl::Combined { depth, .. } => depth,
            _ => None,
        }
    }

    /// The time part (a time per move or a clock), if any: what makes an
    /// overrun a time loss.
    pub fn timed(&self) -> Option<Timed> {
        match *self {
            TimeControl::MoveTime(t) => Some(Timed::MoveTime(t)),
            TimeControl::Clock { moves, base, inc } => Some(Timed::Clock { moves, base, inc }),
            TimeControl::Combined { time, .. } => time,
            TimeControl::Nodes(_) | TimeControl::Depth(_) => None,
        }
    }

    /// The PGN `TimeControl` tag of the time part, as fastchess writes it
    /// (node and depth limits are not part of it): `-` without one,
    /// `1/SECONDS` for a fixed time per move, `BASE+INC` and `MOVES/BASE`
    /// (with `+INC` appended, as cutechess-cli does) for clocks.
    pub fn pgn_tag(&self) -> String {
        match self.timed() {
            None => "-".to_string(),
            Some(Timed::MoveTime(t)) => format!("1/{}", fmt_secs(t)),
            Some(c) => TimeControl::from(c).to_string(),
        }
    }
}

/// Both sides' clocks during one game, each side under its own control
/// (the same one unless the engines play at odds).
#[derive(Clone, Debug)]
pub struct GameClock {
    /// White's control, then black's.
    tcs: [TimeControl; 2],
    /// Remaining time, white then black (zero for a side without a clock).
    remaining: [Duration; 2],
    /// Moves each side has completed.
    moves_made: [u32; 2],
}

/// What happened to the mover's clock after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockVerdict {
    /// The move was made within the remaining time plus the margin.
    Ok,
    /// The mover used more than its remaining time plus the margin.
    Flagged,
}

impl GameClock {
    /// Fresh clocks at the start of a game, both sides under `tc`.
    pub fn new(tc: TimeControl) -> Self {
        Self::per_side([tc, tc])
    }

    /// Fresh clocks with white's and black's own controls.
    pub fn per_side(tcs: [TimeControl; 2]) -> Self {
        let base = |tc: &TimeControl| match tc.timed() {
            Some(Timed::Clock { base, .. }) => base,
            _ => Duration::ZERO,
        };
        GameClock {
            remaining: [base(&tcs[0]), base(&tcs[1])],
            tcs,
            moves_made: [0; 2],
        }
    }

    /// Remaining time of `side` (0 = white, 1 = black).
    pub fn remaining(&self, side: usize) -> Duration {
        self.remaining[side]
    }

    /// The clock `side` shows after its last move, `None` without a clock.
    pub fn shown(&self, side: usize) -> Option<Duration> {
        matches!(self.tcs[side].timed(), Some(Timed::Clock { .. })).then_some(self.remaining[side])
    }

    /// The limit to send with a move request for `side`: its own nodes and
    /// depth, and its clock with both sides' times and increments as they
    /// stand (an opponent without a clock is shown the mover's own).
    pub fn limit(&self, side: usize) -> MoveLimit {
        let tc = &self.tcs[side];
        let time = tc.timed().map(|t| match t {
            Timed::MoveTime(t) => MoveLimit::MoveTime(t),
            Timed::Clock { moves, inc, .. } => {
                let theirs = match self.tcs[1 - side].timed() {
                    Some(Timed::Clock { inc, .. }) => (self.remaining[1 - side], inc),
                    _ => (self.remaining[side], inc),
                };
                let [(wtime, winc), (btime, binc)] = if side == 0 {
                    [(self.remaining[0], inc), theirs]
                } else {
                    [theirs, (self.remaining[1], inc)]
                };
                MoveLimit::Clock {
                    wtime,
                    btime,
                    winc,
                    binc,
                    movestogo: moves.map(|m| m - self.moves_made[side] % m),
                }
            }
        });
        match (tc.nodes(), tc.depth(), time) {
            (None, None, Some(t)) => t,
            (Some(n), None, None) => MoveLimit::Nodes(n),
            (None, Some(d), None) => MoveLimit::Depth(d),
            (nodes, depth, time) => MoveLimit::Capped {
                nodes,
                depth,
                time: time.map(Box::new),
            },
        }
    }

    /// How long `side` may think before it has lost on time (without margin),
    /// or `None` when its limit has no time (nodes, depth).
    pub fn allowed(&self, side: usize) -> Option<Duration> {
        match self.tcs[side].timed()? {
            Timed::MoveTime(t) => Some(t),
            Timed::Clock { .. } => Some(self.remaining[side]),
        }
    }

    /// Charge `elapsed` to `side`'s clock; a move that took longer than the
    /// allowed time by more than `margin` flags. Within the margin the clock
    /// stops at zero, then the increment (and a new period's base) is added.
    pub fn charge(&mut self, side: usize, elapsed: Duration, margin: Duration) -> ClockVerdict {
        let Some(allowed) = self.allowed(side) else {
            return ClockVerdict::Ok;
        };
        if elapsed > allowed + margin {
            return ClockVerdict::Flagged;
        }
        if let Some(Timed::Clock { moves, base, inc }) = self.tcs[side].timed() {
            self.remaining[side] = self.remaining[side].saturating_sub(elapsed) + inc;
            self.moves_made[side] += 1;
            if let Some(m) = moves {
                if self.moves_made[side].is_multiple_of(m) {
                    self.remaining[side] += base;
                }
            }
        }
        ClockVerdict::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn parses_every_form() {
        assert_eq!("nodes=5000".parse(), Ok(TimeControl::Nodes(5000)));
        assert_eq!("depth=8".parse(), Ok(TimeControl::Depth(8)));
        assert_eq!("movetime=0.1".parse(), Ok(TimeControl::MoveTime(ms(100))));
        assert_eq!(
            "8+0.08".parse(),
            Ok(TimeControl::Clock {
                moves: None,
                base: ms(8000),
                inc: ms(80)
            })
        );
        assert_eq!(
            "40/60+0.6".parse(),
            Ok(TimeControl::Clock {
                moves: Some(40),
                base: ms(60000),
                inc: ms(600)
            })
        );
        assert_eq!(
            "10".parse(),
            Ok(TimeControl::Clock {
                moves: None,
                base: ms(10000),
                inc: Duration::ZERO
            })
        );
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "nodes=5000",
            "depth=8",
            "movetime=0.1",
            "8+0.08",
            "40/60+0.6",
            "10",
            "0+0.5",
        ] {
            let tc: TimeControl = text.parse().unwrap();
            assert_eq!(tc.to_string(), text);
            assert_eq!(tc.to_string().parse::<TimeControl>().unwrap(), tc);
        }
        assert_eq!("nodes=1".parse::<TimeControl>().unwrap().pgn_tag(), "-");
        assert_eq!(
            "movetime=2".parse::<TimeControl>().unwrap().pgn_tag(),
            "1/2"
        );
        assert_eq!(
            "40/60+0.6".parse::<TimeControl>().unwrap().pgn_tag(),
            "40/60+0.6"
        );
    }

    #[test]
    fn seconds_are_short() {
        let mut s = String::new();
        for ms in [0, 2000, 80, 1500] {
            s.push_str(&fmt_secs(Duration::from_millis(ms)));
            s.push(' ');
        }
        assert_eq!(s, "0 2 0.08 1.5 ");
    }

    #[test]
    fn rejects_bad_forms() {
        for text in [
            "",
            "nodes=0",
            "nodes=x",
            "depth=-1",
            "speed=3",
            "0+0",
            "x+1",
            "0/10",
            "1+-1",
            "movetime=0",
        ] {
            let e = text.parse::<TimeControl>().unwrap_err();
            assert!(e.to_string().contains(&format!("'{text}'")), "{e}");
        }
    }

    #[test]
    fn clock_charges_increment_and_periods() {
        let mut c = GameClock::new("2/10+1".parse().unwrap());
        assert_eq!(
            c.limit(0),
            MoveLimit::Clock {
                wtime: ms(10000),
                btime: ms(10000),
                winc: ms(1000),
                binc: ms(1000),
                movestogo: Some(2)
            }
        );
        assert_eq!(c.charge(0, ms(4000), Duration::ZERO), ClockVerdict::Ok);
        assert_eq!(c.remaining(0), ms(7000));
        match c.limit(0) {
            MoveLimit::Clock { movestogo, .. } => assert_eq!(movestogo, Some(1)),
            other => panic!("{other:?}"),
        }
        // Second move ends the period: base added again.
        assert_eq!(c.charge(0, ms(1000), Duration::ZERO), ClockVerdict::Ok);
        assert_eq!(c.remaining(0), ms(17000));
        assert_eq!(c.remaining(1), ms(10000));
    }

    /// fastchess's combinations: several limits in one control, the time
    /// part still a clock that runs.
    #[test]
    fn combined_limits() {
        let tc: TimeControl = "10+0.1, nodes=5000".parse().unwrap();
        assert_eq!(tc.to_string(), "10+0.1,nodes=5000");
        assert_eq!((tc.nodes(), tc.depth()), (Some(5000), None));
        assert_eq!(tc.pgn_tag(), "10+0.1");
        assert_eq!(
            "depth=7,nodes=9"
                .parse::<TimeControl>()
                .unwrap()
                .to_string(),
            "nodes=9,depth=7"
        );
        assert_eq!(
            "nodes=9,depth=7".parse::<TimeControl>().unwrap().pgn_tag(),
            "-"
        );
        assert_eq!(
            "nodes=9".parse::<TimeControl>().unwrap(),
            TimeControl::Nodes(9)
        );
        for bad in ["nodes=1,nodes=2", "1+0,movetime=1", "1+0,", "nodes=1,x"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
        let mut c = GameClock::new(tc);
        assert_eq!(
            c.limit(1),
            MoveLimit::Capped {
                nodes: Some(5000),
                depth: None,
                time: Some(Box::new(MoveLimit::Clock {
                    wtime: ms(10000),
                    btime: ms(10000),
                    winc: ms(100),
                    binc: ms(100),
                    movestogo: None
                }))
            }
        );
        // The clock is kept and enforced beside the node limit.
        assert_eq!(c.charge(0, ms(400), ms(0)), ClockVerdict::Ok);
        assert_eq!(c.remaining(0), ms(9700));
        assert_eq!(c.charge(1, ms(10_101), ms(0)), ClockVerdict::Flagged);
    }

    /// Time odds: each side's clock runs on its own control, and the
    /// request shows both sides' times and increments.
    #[test]
    fn clocks_per_side() {
        let mut c = GameClock::per_side(["10+0.1".parse().unwrap(), "5+0.05".parse().unwrap()]);
        assert_eq!(c.charge(0, ms(1000), ms(0)), ClockVerdict::Ok);
        assert_eq!(c.charge(1, ms(1000), ms(0)), ClockVerdict::Ok);
        assert_eq!((c.remaining(0), c.remaining(1)), (ms(9100), ms(4050)));
        assert_eq!((c.shown(0), c.shown(1)), (Some(ms(9100)), Some(ms(4050))));
        let want = MoveLimit::Clock {
            wtime: ms(9100),
            btime: ms(4050),
            winc: ms(100),
            binc: ms(50),
            movestogo: None,
        };
        assert_eq!((c.limit(0), c.limit(1)), (want.clone(), want));
        assert_eq!(c.allowed(1), Some(ms(4050)));
        // Against an engine without a clock, the mover sees its own twice.
        let c = GameClock::per_side(["nodes=10".parse().unwrap(), "2+1".parse().unwrap()]);
        assert_eq!(c.limit(0), MoveLimit::Nodes(10));
        assert_eq!(c.shown(0), None);
        assert_eq!(
            c.limit(1),
            MoveLimit::Clock {
                wtime: ms(2000),
                btime: ms(2000),
                winc: ms(1000),
                binc: ms(1000),
                movestogo: None
            }
        );
        assert_eq!(c.allowed(0), None);
    }

    #[test]
    fn flag_only_beyond_margin() {
        let mut c = GameClock::new("1+0".parse().unwrap());
        assert_eq!(c.charge(1, ms(1050), ms(100)), ClockVerdict::Ok);
        assert_eq!(c.remaining(1), Duration::ZERO);
        assert_eq!(c.charge(0, ms(1101), ms(100)), ClockVerdict::Flagged);
        let mut m = GameClock::new("movetime=0.1".parse().unwrap());
        assert_eq!(m.charge(0, ms(150), ms(50)), ClockVerdict::Ok);
        assert_eq!(m.charge(0, ms(151), ms(50)), ClockVerdict::Flagged);
        let mut n = GameClock::new("nodes=10".parse().unwrap());
        assert_eq!(n.charge(0, ms(1_000_000), Duration::ZERO), ClockVerdict::Ok);
    }
}
