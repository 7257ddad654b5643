//! Players: anything that can be asked for a move. External UCI and xboard
//! engines run as child processes; the in-process player calls the
//! `karsinta-engine` library directly. The game loop ([`crate::play::game`]) only
//! sees the [`Player`] trait and never trusts what a player says: it checks
//! every move with shakmaty and keeps the clocks itself.
//!
//! Files: `player.rs` (the trait and its types), `setup.rs` (starting and
//! checking players), `process.rs` (child processes, timed reads, no
//! orphans), `uci.rs`, `xboard.rs` and `inprocess.rs` (the three kinds of
//! player), `names.rs` (what the protocols share), [`build`] (a git
//! revision built into an engine binary, and its bench run),
//! [`bench_output`] (the bench signature in an engine's output),
//! [`compliance`] (`karsinta check-engine`'s UCI report) and [`pv_check`]
//! (the PV checks a match's referee and the report share).

pub mod bench_output;
pub mod build;
pub mod compliance;
mod inprocess;
mod names;
mod player;
mod process;
pub mod pv_check;
mod setup;
mod uci;
mod xboard;

pub use inprocess::{param_error_text, InProcessPlayer};
pub use names::closest_name;
pub use player::{
    fmt_secs, EngineError, EngineMove, EngineScore, MoveLimit, MoveRequest, Player, PlayerKind,
    PlayerSpec, PvLine, SearchDetail,
};
pub use process::{cpu_usage, kill_all_children, live_children, CpuUsage};
pub use setup::{check_player, check_player_limit, check_player_setup, start_player};
pub use uci::UciPlayer;
pub use xboard::XboardPlayer;
