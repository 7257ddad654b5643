//! Starting and checking players: [`start_player`] builds the player a
//! spec describes, and the `check_player*` functions start one once to find
//! setup problems before a match.

use super::inprocess::InProcessPlayer;
use super::player::{EngineError, MoveLimit, Player, PlayerKind, PlayerSpec};
use super::uci::UciPlayer;
use super::xboard::XboardPlayer;

/// Build the player `spec` describes. External engines are started lazily
/// by the first [`Player::new_game`] (so a crash at start is a game result,
/// like any other crash); here only the spec is checked: the in-process
/// player's options must name known parameters.
pub fn start_player(spec: &PlayerSpec) -> Result<Box<dyn Player>, EngineError> {
    Ok(match &spec.kind {
        PlayerKind::Uci => Box::new(UciPlayer::new(spec.clone())),
        PlayerKind::Xboard => Box::new(XboardPlayer::new(spec.clone())),
        PlayerKind::InProcess(params) => Box::new(InProcessPlayer::new(
            spec.name.clone(),
            (**params).clone(),
            &spec.options,
        )?),
    })
}

/// Start the player `spec` describes, run its handshake and one
/// `new_game`, and stop it again: a check for the CLI before a match
/// (wrong path, engine that does not speak the protocol, bad option).
pub fn check_player(spec: &PlayerSpec) -> Result<(), EngineError> {
    let mut player = start_player(spec)?;
    let result = player.new_game();
    player.quit();
    result
}

/// [`check_player`], and also that the engine can search under `limit`
/// ([`Player::check_limit`]): a node limit for an xboard engine without
/// `feature nps=1` fails here, before a match starts.
pub fn check_player_limit(spec: &PlayerSpec, limit: &MoveLimit) -> Result<(), EngineError> {
    check_player_setup(spec, limit, "", std::iter::empty()).map(|_| ())
}

/// [`check_player_limit`], then [`Player::check_start`] on each of
/// `start_fens`: the positions the engine cannot start from, as (index in
/// `start_fens`, reason) pairs. A refused limit names `limit_key` (the
/// config key it came from), when given.
pub fn check_player_setup<'a>(
    spec: &PlayerSpec,
    limit: &MoveLimit,
    limit_key: &str,
    start_fens: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<(usize, String)>, EngineError> {
    let mut player = start_player(spec)?;
    let result = player
        .new_game()
        .and_then(|()| {
            player.check_limit(limit).map_err(|e| match e {
                EngineError::Unsupported(m) if !limit_key.is_empty() => {
                    EngineError::Unsupported(format!("{m} (from {limit_key})"))
                }
                e => e,
            })
        })
        .map(|()| {
            let mut unsupported = Vec::new();
            for (i, fen) in start_fens.into_iter().enumerate() {
                match player.check_start(fen) {
                    Ok(()) => {}
                    Err(EngineError::Unsupported(why)) => unsupported.push((i, why)),
                    // Not a property of the position: the games will tell.
                    Err(_) => break,
                }
            }
            unsupported
        });
    player.quit();
    result
}
