//! The skip rule itself: this test binary run again with PostgreSQL
//! hidden (`KARSINTA_PG_BIN=/nonexistent`, or Debian's folder moved with
//! `KARSINTA_PG_LIB=/nonexistent`) must pass a PostgreSQL test with one
//! line saying what it skipped and how to run it, and fail it under
//! `KARSINTA_CI=1`. Needs no PostgreSQL.

use std::process::{Command, Output};

/// A fast test that needs PostgreSQL.
const NEEDS_PG: &str = "queue::schema_is_created_once_and_newer_schemas_are_refused";

/// This binary running only [`NEEDS_PG`] with `hide` set, under CI or not.
fn run_hidden(hide: (&str, &str), ci: bool) -> Output {
    let mut c = Command::new(std::env::current_exe().expect("the test binary"));
    c.args(["--exact", NEEDS_PG])
        .env_remove(crate::pg::PG_BIN_ENV)
        .env_remove(crate::pg::PG_LIB_ENV)
        .env_remove("KARSINTA_CI")
        .env(hide.0, hide.1);
    if ci {
        c.env("KARSINTA_CI", "1");
    }
    c.output().expect("run the test binary")
}

#[test]
fn without_postgresql_a_test_says_it_skipped_and_fails_under_ci() {
    for hide in [
        (crate::pg::PG_BIN_ENV, "/nonexistent"),
        (crate::pg::PG_LIB_ENV, "/nonexistent"),
    ] {
        let o = run_hidden(hide, false);
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        assert!(o.status.success(), "{hide:?}: {out}{err}");
        assert!(out.contains("1 passed"), "{hide:?}: the test ran: {out}");
        let said: Vec<&str> = err.lines().filter(|l| l.starts_with("skipped ")).collect();
        assert_eq!(said.len(), 1, "{hide:?}: one line: {err}");
        for part in [
            NEEDS_PG,
            "/nonexistent",
            "apt-get install postgresql",
            "KARSINTA_PG_BIN",
        ] {
            assert!(said[0].contains(part), "{hide:?}: {part:?} in {}", said[0]);
        }

        let o = run_hidden(hide, true);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            !o.status.success(),
            "{hide:?}: KARSINTA_CI=1 passed: {text}"
        );
        assert!(
            text.contains("KARSINTA_CI=1 but PostgreSQL is missing"),
            "{hide:?}: {text}"
        );
    }
}
