//! The write token: read once from `--token-file` (its first line) or
//! `KARSINTA_DIST_TOKEN`, at least [`MIN_TOKEN`] characters, and compared
//! with a request's `Authorization: Bearer ...` in constant time (the time
//! does not depend on where the first differing byte is). Without a token
//! the server is read-only.

use std::path::Path;

/// The environment variable a token may come from.
pub const TOKEN_ENV: &str = "KARSINTA_DIST_TOKEN";

/// Shortest token accepted.
pub const MIN_TOKEN: usize = 16;

/// A secret that authorises writes. Its `Debug` never shows it.
#[derive(Clone)]
pub struct Token(Vec<u8>);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// The token of `--token-file` if given, else of the environment's
    /// value (`env`), else none. A file that cannot be read, or a token
    /// shorter than [`MIN_TOKEN`], is an error naming its source.
    pub fn load(file: Option<&Path>, env: Option<&str>) -> Result<Option<Token>, String> {
        let (text, source) = match (file, env) {
            (Some(p), _) => {
                let t = std::fs::read_to_string(p)
                    .map_err(|e| format!("--token-file {}: {e}", p.display()))?;
                let first = t.lines().next().unwrap_or("").trim().to_string();
                (first, format!("--token-file {}", p.display()))
            }
            (None, Some(v)) => (v.trim().to_string(), TOKEN_ENV.to_string()),
            (None, None) => return Ok(None),
        };
        let n = text.chars().count();
        if n < MIN_TOKEN {
            return Err(format!(
                "{source}: the token has {n} characters, at least {MIN_TOKEN} are needed"
            ));
        }
        Ok(Some(Token(text.into_bytes())))
    }

    /// Whether the `Authorization` header value is `Bearer <this token>`.
    pub fn accepts(&self, authorization: Option<&str>) -> bool {
        let Some(given) = authorization.and_then(|h| h.trim().strip_prefix("Bearer ")) else {
            return false;
        };
        constant_time_eq(given.trim().as_bytes(), &self.0)
    }
}

/// Equality whose time depends only on the lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= usize::from(x ^ y);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "0123456789abcdef";

    #[test]
    fn file_then_environment_then_none() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("token");
        std::fs::write(&f, format!("{GOOD}xyz\nsecond line\n")).unwrap();
        let t = Token::load(Some(&f), Some(GOOD)).unwrap().unwrap();
        assert!(t.accepts(Some(&format!("Bearer {GOOD}xyz"))));
        assert!(!t.accepts(Some(&format!("Bearer {GOOD}"))));
        let t = Token::load(None, Some(GOOD)).unwrap().unwrap();
        assert!(t.accepts(Some(&format!("Bearer {GOOD}"))));
        assert!(Token::load(None, None).unwrap().is_none());
        assert_eq!(format!("{t:?}"), "Token(..)");
    }

    #[test]
    fn short_or_missing_tokens_name_their_source() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("short");
        std::fs::write(&f, "tooshort\n").unwrap();
        let e = Token::load(Some(&f), None).unwrap_err();
        assert!(e.contains("short") && e.contains("8 characters"), "{e}");
        let e = Token::load(None, Some("x")).unwrap_err();
        assert!(e.contains(TOKEN_ENV), "{e}");
        let e = Token::load(Some(&dir.path().join("absent")), None).unwrap_err();
        assert!(e.contains("absent"), "{e}");
    }

    #[test]
    fn only_the_exact_bearer_token_is_accepted() {
        let t = Token::load(None, Some(GOOD)).unwrap().unwrap();
        for h in [
            None,
            Some(""),
            Some(GOOD),
            Some("Basic 0123456789abcdef"),
            Some("Bearer 0123456789abcdeF"),
            Some("Bearer 0123456789abcde"),
            Some("Bearer 0123456789abcdef0"),
        ] {
            assert!(!t.accepts(h), "{h:?}");
        }
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd") && !constant_time_eq(b"", b"a"));
    }
}
