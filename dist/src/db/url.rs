//! Where the database is: the connection string from a flag or the
//! environment, never printed (it may hold a password).

use crate::db::error::DbError;

/// Environment variable holding the connection string.
pub const DATABASE_URL_ENV: &str = "KARSINTA_DATABASE_URL";

/// The connection string: the flag, else the environment.
pub fn database_url(flag: Option<&str>) -> Result<String, DbError> {
    match flag {
        Some(u) => Ok(u.to_string()),
        None => std::env::var(DATABASE_URL_ENV)
            .ok()
            .filter(|u| !u.trim().is_empty())
            .ok_or(DbError::NoUrl),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_url_error_names_the_variable() {
        assert!(DbError::NoUrl.to_string().contains(DATABASE_URL_ENV));
    }
}
