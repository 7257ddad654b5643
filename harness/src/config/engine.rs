//! One engine description for every way of naming an engine: the keys
//! `cmd`, `name`, `proto`, `arg`, `args`, `dir` and `option.NAME` that a
//! fastchess `-engine` and `karsinta suite --engine` share with a YAML
//! `engines:` entry, read into the same [`RawEngine`] serde gives for YAML,
//! and resolved by the same code ([`super::resolve_engine_description`]:
//! paths from a folder, bare names looked up with [`which`], in-process
//! parameters and options checked).

use std::path::{Path, PathBuf};

use super::schema::{RawEngine, RawKind};

/// The description keys ([`apply_key`]); `option.NAME` takes any name.
pub const DESCRIPTION_KEYS: &[&str] =
    &["cmd", "name", "proto", "args", "arg", "option.NAME", "dir"];

/// An engine with nothing described yet: UCI, no command.
pub fn blank() -> RawEngine {
    RawEngine {
        name: String::new(),
        kind: Some(RawKind::Uci),
        cmd: None,
        args: Vec::new(),
        dir: None,
        options: Default::default(),
        init_timeout_ms: None,
        params_file: None,
        params: None,
        time_control: None,
        restart: None,
    }
}

/// Applies `key=value` of a description to `engine`: `Ok(false)` if `key`
/// is not a description key (the caller's own, or unknown). `dir` is kept
/// as given; resolution takes it from the caller's folder.
pub fn apply_key(engine: &mut RawEngine, key: &str, value: &str) -> Result<bool, String> {
    if let Some(opt) = key.strip_prefix("option.") {
        if opt.is_empty() {
            return Err("option. needs a name (option.Hash=64)".to_string());
        }
        engine.options.insert(
            opt.to_string(),
            serde_yaml::Value::String(value.to_string()),
        );
        return Ok(true);
    }
    match key {
        "cmd" => engine.cmd = Some(value.to_string()),
        "name" => engine.name = value.to_string(),
        "args" => engine
            .args
            .extend(value.split_whitespace().map(str::to_string)),
        "arg" => engine.args.push(value.to_string()),
        "dir" => engine.dir = Some(value.to_string()),
        "proto" => {
            engine.kind = Some(match value {
                "uci" => RawKind::Uci,
                "xboard" => RawKind::Xboard,
                "inprocess" => RawKind::Inprocess,
                _ => return Err(format!("proto={value}: uci, xboard or inprocess")),
            })
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The name of an engine described without one: its program's file name,
/// `karsinta` for the in-process engine.
pub fn default_name(engine: &RawEngine) -> String {
    match &engine.cmd {
        Some(c) => Path::new(c)
            .file_name()
            .map_or_else(|| c.clone(), |n| n.to_string_lossy().into_owned()),
        None => "karsinta".to_string(),
    }
}

/// Look a bare program name up in `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_keys() {
        let mut e = blank();
        assert!(apply_key(&mut e, "proto", "inprocess").unwrap());
        assert_eq!(e.kind, Some(RawKind::Inprocess));
        assert!(apply_key(&mut e, "proto", "cecp")
            .unwrap_err()
            .contains("proto=cecp"));
        assert!(apply_key(&mut e, "option.", "1").is_err());
        assert!(!apply_key(&mut e, "tc", "1+0").unwrap());
        assert_eq!(default_name(&e), "karsinta");
        assert!(apply_key(&mut e, "cmd", "/opt/x/stockfish").unwrap());
        assert_eq!(default_name(&e), "stockfish");
        assert!(which("sh").is_some_and(|p| p.is_absolute()));
        assert_eq!(which("no-such-program-anywhere"), None);
    }
}
