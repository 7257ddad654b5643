//! Time controls: what limits each move of a game, in the text form configs
//! and the command line use (`nodes=5000`, `depth=8`, `movetime=0.1`,
//! `8+0.08`, `40/60+0.6`), and the chess clock the game loop keeps for
//! clock-based controls. The harness's clock, not the engine's word, decides
//! time losses ([`crate::play::game`]).

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
        moves: Option<u32>,
        base: Duration,
        inc: Duration,
    },
}

/// A time-control string that does not parse.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("invalid time control '{text}': {reason} (expected nodes=N, depth=N, movetime=SECONDS, BASE+INC or MOVES/BASE+INC, times in seconds)")]
pub struct TimeControlError {
    pub text: String,
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

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = |reason: String| TimeControlError {
            text: text.to_string(),
            reason,
        };
        let t = text.trim();
        if let Some((key, value)) = t.split_once('=') {
            let value = value.trim();
            return match key.trim() {
                "nodes" => match value.parse::<u64>() {
                    Ok(n) if n > 0 => Ok(TimeControl::Nodes(n)),
                    _ => Err(err("nodes must be a positive integer".into())),
                },
                "depth" => match value.parse::<u32>() {
                    Ok(d) if (1..=255).contains(&d) => Ok(TimeControl::Depth(d)),
                    _ => Err(err("depth must be an integer in 1..=255".into())),
                },
                "movetime" | "st" => {
                    let d = parse_seconds(value, "movetime").map_err(err)?;
                    if d.is_zero() {
                        return Err(err("movetime must be positive".into()));
                    }
                    Ok(TimeControl::MoveTime(d))
                }
                other => Err(err(format!("unknown limit '{other}'"))),
            };
        }
        let (moves, rest) = match t.split_once('/') {
            Some((m, rest)) => match m.trim().parse::<u32>() {
                Ok(m) if m > 0 => (Some(m), rest),
                _ => return Err(err("moves per period must be a positive integer".into())),
            },
            None => (None, t),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (
                parse_seconds(b, "base time").map_err(err)?,
                parse_seconds(i, "increment").map_err(err)?,
            ),
            None => (
                parse_seconds(rest, "base time").map_err(err)?,
                Duration::ZERO,
            ),
        };
        if base.is_zero() && inc.is_zero() {
            return Err(err("base time and increment cannot both be zero".into()));
        }
        if base.is_zero() && moves.is_some() {
            return Err(err("a moves/time control needs a base time".into()));
        }
        Ok(TimeControl::Clock { moves, base, inc })
    }
}

impl fmt::Display for TimeControl {
    /// The same text form [`FromStr`] accepts.
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
        }
    }
}

impl TimeControl {
    /// The PGN `TimeControl` tag: `-` when there is no clock (nodes, depth),
    /// `1/SECONDS` for a fixed time per move, `BASE+INC` and `MOVES/BASE`
    /// (with `+INC` appended, as cutechess-cli does) for clocks.
    pub fn pgn_tag(&self) -> String {
        match self {
            TimeControl::Nodes(_) | TimeControl::Depth(_) => "-".to_string(),
            TimeControl::MoveTime(t) => format!("1/{}", fmt_secs(*t)),
            TimeControl::Clock { .. } => self.to_string(),
        }
    }
}

/// Both sides' clocks during one game (only used for [`TimeControl::Clock`]).
#[derive(Clone, Debug)]
pub struct GameClock {
    tc: TimeControl,
    /// Remaining time, white then black.
    remaining: [Duration; 2],
    /// Moves each side has completed.
    moves_made: [u32; 2],
}

/// What happened to the mover's clock after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockVerdict {
    Ok,
    /// The mover used more than its remaining time plus the margin.
    Flagged,
}

impl GameClock {
    /// Fresh clocks at the start of a game.
    pub fn new(tc: TimeControl) -> Self {
        let base = match tc {
            TimeControl::Clock { base, .. } => base,
            _ => Duration::ZERO,
        };
        GameClock {
            tc,
            remaining: [base; 2],
            moves_made: [0; 2],
        }
    }

    /// Remaining time of `side` (0 = white, 1 = black).
    pub fn remaining(&self, side: usize) -> Duration {
        self.remaining[side]
    }

    /// The limit to send with a move request for `side`.
    pub fn limit(&self, side: usize) -> MoveLimit {
        match self.tc {
            TimeControl::Nodes(n) => MoveLimit::Nodes(n),
            TimeControl::Depth(d) => MoveLimit::Depth(d),
            TimeControl::MoveTime(t) => MoveLimit::MoveTime(t),
            TimeControl::Clock { moves, inc, .. } => MoveLimit::Clock {
                wtime: self.remaining[0],
                btime: self.remaining[1],
                winc: inc,
                binc: inc,
                movestogo: moves.map(|m| m - self.moves_made[side] % m),
            },
        }
    }

    /// How long `side` may think before it has lost on time (without margin),
    /// or `None` when the limit is not a time (nodes, depth).
    pub fn allowed(&self, side: usize) -> Option<Duration> {
        match self.tc {
            TimeControl::Nodes(_) | TimeControl::Depth(_) => None,
            TimeControl::MoveTime(t) => Some(t),
            TimeControl::Clock { .. } => Some(self.remaining[side]),
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
        if let TimeControl::Clock { moves, base, inc } = self.tc {
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
