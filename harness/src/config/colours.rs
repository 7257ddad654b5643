//! The `colours:` section: how many games each opening gets and who is
//! White in each, with fastchess's meaning (`-games 1|2`, `-noswap`,
//! `-reverse`). fastchess numbers the games of a tournament 1, 2, 3, ...
//! in schedule order (round by round, pairing by pairing) and swaps the
//! colours of every even-numbered game unless `-noswap`; `-reverse` swaps
//! every game once more. Karsinta's unit of play (a ledger line) is the
//! games of one pairing from one opening, numbered in the same order, so
//! unit `u`'s game `k` is fastchess's game `u * games_per_opening + k + 1`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::{invalid, ConfigError};
use crate::play::pairs::Seat;
use crate::stats::Counting;

/// `colours:` as written; every key optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawColours {
    /// Games from each opening: 2 (default) or 1 (fastchess `-games`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games_per_opening: Option<u32>,
    /// Alternate the colours from game to game (default `true`); `false`
    /// is fastchess's `-noswap`: a pairing's first engine is always White.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap: Option<bool>,
    /// Swap the colours of the whole schedule (fastchess `-reverse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<bool>,
}

/// The resolved colour schedule; `Default` is the colour-swapped pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColourSchedule {
    /// 1 or 2.
    pub games_per_opening: u32,
    /// Alternate colours between a pairing's games (`colours.swap`; `false` = fastchess `-noswap`).
    pub swap: bool,
    /// Swap every game's colours once more (`colours.reverse`, fastchess `-reverse`).
    pub reverse: bool,
}

impl Default for ColourSchedule {
    fn default() -> Self {
        ColourSchedule {
            games_per_opening: 2,
            swap: true,
            reverse: false,
        }
    }
}

impl ColourSchedule {
    /// Who is White in each game of unit `unit` (fastchess's rule above).
    pub fn whites(&self, unit: u64) -> Vec<Seat> {
        let n = u64::from(self.games_per_opening);
        (0..n)
            .map(|k| {
                // fastchess's game id is `unit * n + k + 1`: even ids swap.
                let swapped = (self.swap && (unit * n + k) % 2 == 1) != self.reverse;
                if swapped {
                    Seat::Second
                } else {
                    Seat::First
                }
            })
            .collect()
    }

    /// Do the units come in colour-swapped pairs (pentanomial counts)?
    pub fn counting(&self) -> Counting {
        if self.games_per_opening == 2 && self.swap {
            Counting::Pentanomial
        } else {
            Counting::Trinomial
        }
    }

    /// Why the games are counted one by one (`None` for swapped pairs),
    /// naming the keys: for messages and the result block.
    pub fn why_trinomial(&self) -> Option<&'static str> {
        match (self.games_per_opening, self.swap) {
            (2, true) => None,
            (1, _) => Some("colours.games_per_opening: 1 (fastchess -games 1)"),
            _ => Some("colours.swap: false (fastchess -noswap)"),
        }
    }
}

/// `colours:` of the file at `path` into its value (the default without one).
pub(super) fn resolve_colours(
    raw: Option<&RawColours>,
    path: &Path,
) -> Result<ColourSchedule, ConfigError> {
    let Some(r) = raw else {
        return Ok(ColourSchedule::default());
    };
    let d = ColourSchedule::default();
    let games_per_opening = r.games_per_opening.unwrap_or(d.games_per_opening);
    if !(1..=2).contains(&games_per_opening) {
        return Err(invalid(
            path,
            "colours.games_per_opening",
            format!("{games_per_opening}: 1 or 2 (as fastchess's -games)"),
        ));
    }
    Ok(ColourSchedule {
        games_per_opening,
        swap: r.swap.unwrap_or(d.swap),
        reverse: r.reverse.unwrap_or(d.reverse),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Seat::{First, Second};

    fn sched(games_per_opening: u32, swap: bool, reverse: bool) -> ColourSchedule {
        ColourSchedule {
            games_per_opening,
            swap,
            reverse,
        }
    }

    /// fastchess's `createMatch`: game ids from 1; an even id swaps unless
    /// `noswap`; `reverse` swaps once more.
    fn fastchess_first_white(game_id: u64, noswap: bool, reverse: bool) -> bool {
        let mut first_white = true;
        if game_id.is_multiple_of(2) && !noswap {
            first_white = !first_white;
        }
        if reverse {
            first_white = !first_white;
        }
        first_white
    }

    #[test]
    fn colours_follow_fastchess_game_numbers() {
        for n in [1u32, 2] {
            for swap in [true, false] {
                for reverse in [true, false] {
                    let s = sched(n, swap, reverse);
                    let mut id = 0;
                    for unit in 0..7 {
                        for seat in s.whites(unit) {
                            id += 1;
                            let want = fastchess_first_white(id, !swap, reverse);
                            assert_eq!(seat == First, want, "{s:?} game {id}");
                        }
                    }
                }
            }
        }
        assert_eq!(ColourSchedule::default().whites(5), [First, Second]);
        assert_eq!(sched(1, true, false).whites(0), [First]);
        assert_eq!(sched(1, true, false).whites(1), [Second]);
        assert_eq!(sched(2, false, false).whites(3), [First, First]);
        assert_eq!(sched(2, true, true).whites(0), [Second, First]);
    }

    #[test]
    fn counting_and_bad_values() {
        assert_eq!(ColourSchedule::default().counting(), Counting::Pentanomial);
        assert_eq!(sched(2, true, true).counting(), Counting::Pentanomial);
        assert_eq!(sched(1, true, false).counting(), Counting::Trinomial);
        assert_eq!(sched(2, false, false).counting(), Counting::Trinomial);
        let raw = RawColours {
            games_per_opening: Some(3),
            ..RawColours::default()
        };
        let e = resolve_colours(Some(&raw), Path::new("/x.yaml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("colours.games_per_opening") && e.contains("1 or 2"),
            "{e}"
        );
    }
}
