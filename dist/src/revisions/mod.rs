//! Tests of two git revisions that every worker builds itself
//! (`karsinta-dist create --repo URL --base REV --dev REV`), so that an A/B
//! between two commits needs no binaries at the same path on every machine.
//!
//! The creator fetches the repository, resolves both revisions to commit
//! hashes and records each one's bench signature: the `Bench: N` line of
//! its commit message where there is one, else the bench of its own build.
//! The test's config is the one `karsinta ab` plays (dev first, base
//! second, engines named `ROLE-<7 hex digits>`). Each worker fetches the
//! repository into its own cache, builds each commit once into its build
//! cache (the `karsinta ab` cache, [`karsinta_harness::players::build`]),
//! runs the bench and refuses the test, with a recorded reason, when a
//! signature differs; otherwise it plays the batches with its builds as it
//! plays any test. How to build and bench comes from the config's `build:`
//! block (command, binary, bench arguments), so other engines work too.
//!
//! A gate-style test (`--candidate REV --baseline REV`) is the same with
//! `karsinta gate`'s roles, its default non-regression SPRT and its
//! `gate.inconclusive` policy, so `status` can say what `karsinta gate`
//! would exit with ([`Gate`]). An SPSA test of one revision (`--rev REV`)
//! has one side, `tuned`, whose build plays both SPSA sides with their
//! parameters as UCI options; its `build:` block is kept in the record
//! ([`Revisions::build`]), since a `karsinta tune spsa` config has none.
//!
//! - [`mirror`]: a repository fetched into a cache folder (any git URL).
//! - [`create`]: the creator's side: resolve, bench, the played config.
//! - [`build`]: a worker's side: fetch, build, bench, compare.
//!
//! This module holds the record the test keeps ([`Revisions`]).

pub mod build;
pub mod create;
pub mod mirror;

use karsinta_harness::players::build::{BuildError, RawBuild};
use karsinta_harness::run::gate::{InconclusivePolicy, Verdict};
use karsinta_harness::stats::SprtDecision;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::db::DbError;

/// Why revisions could not be resolved, built or benched.
#[derive(Debug, Error)]
pub enum RevisionError {
    /// Fetching from the repository, or a revision it does not have (the
    /// URL is shown without its secrets).
    #[error("{url}: {message}")]
    Repo {
        /// The repository, for people ([`display_url`]).
        url: String,
        /// What went wrong.
        message: String,
    },
    /// Building or benching a commit.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// Bad input (a flag, the config's `build:` block, a cache folder).
    #[error("{0}")]
    Invalid(String),
}

impl From<RevisionError> for DbError {
    fn from(e: RevisionError) -> DbError {
        DbError::Invalid(e.to_string())
    }
}

/// Where a recorded bench signature came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchSource {
    /// The `Bench: N` line of the commit message.
    CommitMessage,
    /// The bench of the creating machine's build.
    CreatorBuild,
}

impl BenchSource {
    /// For people: `from the commit message`.
    pub fn text(self) -> &'static str {
        match self {
            BenchSource::CommitMessage => "from the commit message",
            BenchSource::CreatorBuild => "from the creator's build",
        }
    }
}

/// One side of the test: a revision resolved to a commit, with its bench.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revision {
    /// `dev` or `base`.
    pub role: String,
    /// The revision as given (`main`, `HEAD~1`, a hash).
    pub rev: String,
    /// The full commit hash it named when the test was created.
    pub commit: String,
    /// The bench node count every worker's build must reproduce.
    pub bench: u64,
    /// Where `bench` came from.
    pub bench_from: BenchSource,
}

impl Revision {
    /// The engine's name in the games: `ROLE-<7 hex digits>`, as
    /// [`karsinta_harness::run::ab::revision_engine`] names it.
    pub fn engine_name(&self) -> String {
        format!("{}-{}", self.role, &self.commit[..self.commit.len().min(7)])
    }

    /// The signature of [`crate::signature`]'s list: `bench N`.
    pub fn signature(&self) -> String {
        bench_signature(self.bench)
    }
}

/// A bench node count as a signature.
pub fn bench_signature(nodes: u64) -> String {
    format!("bench {nodes}")
}

/// What makes a test of revisions gate-style: `karsinta gate`'s policy for
/// an undecided test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gate {
    /// What an undecided test counts as (`gate.inconclusive`).
    pub inconclusive: InconclusivePolicy,
}

impl Gate {
    /// The `status` line of a test whose SPRT decided `decision` (`ended`:
    /// the test plays no more, decided or not): the verdict and the exit
    /// status `karsinta gate` gives it.
    pub fn line(&self, decision: Option<SprtDecision>, ended: bool) -> String {
        let verdict = match decision {
            Some(SprtDecision::H1) => Verdict::Pass,
            Some(SprtDecision::H0) => Verdict::Fail,
            _ if ended => Verdict::Inconclusive,
            _ => {
                return format!(
                    "gate: undecided so far (an undecided gate counts as {})\n",
                    policy_word(self.inconclusive)
                )
            }
        };
        let note = match (verdict, self.inconclusive) {
            (Verdict::Inconclusive, InconclusivePolicy::Pass) => " (counted as a pass)",
            (Verdict::Inconclusive, InconclusivePolicy::Fail) => " (counted as a fail)",
            _ => "",
        };
        format!(
            "gate: {}{note}, exit status {} as karsinta gate gives it\n",
            verdict.word(),
            verdict.exit_code(self.inconclusive)
        )
    }
}

/// `pass`, `fail` or `error`, as the config writes it.
fn policy_word(p: InconclusivePolicy) -> &'static str {
    match p {
        InconclusivePolicy::Pass => "a pass",
        InconclusivePolicy::Fail => "a fail",
        InconclusivePolicy::Error => "an error (exit status 3)",
    }
}

/// What a test of revisions records (`dist_tests.revisions`, JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Revisions {
    /// The repository workers fetch (a URL, or an absolute local path).
    pub repo: String,
    /// The sides in engine order: dev (the first engine), then base; for a
    /// gate-style test candidate, then baseline.
    pub sides: Vec<Revision>,
    /// A gate-style test's policy (`None`: an A/B test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<Gate>,
    /// How to build and bench, for a test whose config keeps no `build:`
    /// block (SPSA: `karsinta tune spsa` reads none); `None`: the config's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<RawBuild>,
}

impl Revisions {
    /// The stored record of test `test`.
    pub fn parse(text: &str, test: &str) -> Result<Revisions, DbError> {
        serde_json::from_str(text)
            .map_err(|e| DbError::Invalid(format!("test {test}: stored revisions: {e}")))
    }

    /// The record as stored.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The engines' signatures as the test records them (the format of
    /// [`crate::signature::signatures`]).
    pub fn signatures(&self) -> String {
        let list: Vec<serde_json::Value> = self
            .sides
            .iter()
            .map(|s| serde_json::json!({"engine": s.engine_name(), "signature": s.signature()}))
            .collect();
        serde_json::Value::Array(list).to_string()
    }

    /// The lines `status` prints.
    pub fn text(&self) -> String {
        let mut out = format!(
            "revisions of {}, built by each worker:\n",
            display_url(&self.repo)
        );
        let width = self.sides.iter().map(|s| s.rev.len()).max().unwrap_or(0);
        let roles = self.sides.iter().map(|s| s.role.len()).max().unwrap_or(0);
        for s in &self.sides {
            out.push_str(&format!(
                "  {:<roles$} {:<width$} = {}  bench {} ({})\n",
                s.role,
                s.rev,
                s.commit,
                s.bench,
                s.bench_from.text()
            ));
        }
        out
    }
}

/// A repository URL for people: a password or token in it
/// (`https://user:token@host/...`, `https://token@host/...`) is replaced by
/// `***`; a plain ssh user (`ssh://git@host/...`) is kept.
pub fn display_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    let Some(at) = rest[..host_end].rfind('@') else {
        return url.to_string();
    };
    let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    if web || rest[..at].contains(':') {
        format!("{scheme}://***@{}", &rest[at + 1..])
    } else {
        url.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(role: &str, commit: &str, bench: u64) -> Revision {
        Revision {
            role: role.into(),
            rev: "main".into(),
            commit: commit.into(),
            bench,
            bench_from: BenchSource::CommitMessage,
        }
    }

    #[test]
    fn signatures_name_the_engines_as_ab_does() {
        let r = Revisions {
            repo: "file:///r".into(),
            sides: vec![
                side("dev", "0123456789abcdef", 5),
                side("base", "fedcba9876543210", 6),
            ],
            gate: None,
            build: None,
        };
        assert_eq!(
            r.signatures(),
            r#"[{"engine":"dev-0123456","signature":"bench 5"},{"engine":"base-fedcba9","signature":"bench 6"}]"#
        );
        assert_eq!(Revisions::parse(&r.to_json(), "t").unwrap(), r);
        assert!(Revisions::parse("{", "t")
            .unwrap_err()
            .to_string()
            .contains("test t: stored revisions"));
    }

    #[test]
    fn a_gate_says_what_karsinta_gate_exits_with() {
        let g = |p| Gate { inconclusive: p };
        let pass = g(InconclusivePolicy::Pass);
        assert_eq!(
            pass.line(Some(SprtDecision::H1), true),
            "gate: PASS, exit status 0 as karsinta gate gives it\n"
        );
        assert_eq!(
            pass.line(Some(SprtDecision::H0), true),
            "gate: FAIL, exit status 1 as karsinta gate gives it\n"
        );
        assert_eq!(
            pass.line(None, true),
            "gate: INCONCLUSIVE (counted as a pass), exit status 0 as karsinta gate gives it\n"
        );
        assert_eq!(
            g(InconclusivePolicy::Error).line(None, true),
            "gate: INCONCLUSIVE, exit status 3 as karsinta gate gives it\n"
        );
        assert!(pass.line(None, false).starts_with("gate: undecided so far"));
        // Stored with the record; an A/B record has none.
        let json = r#"{"repo":"r","sides":[],"gate":{"inconclusive":"fail"}}"#;
        let r = Revisions::parse(json, "t").unwrap();
        assert_eq!(r.gate, Some(g(InconclusivePolicy::Fail)));
        assert_eq!(r.to_json(), json);
        let ab = Revisions::parse(r#"{"repo":"r","sides":[]}"#, "t").unwrap();
        assert_eq!(ab.gate, None);
    }

    #[test]
    fn urls_are_shown_without_their_secrets() {
        assert_eq!(
            display_url("https://me:tok@example.org/a/b.git"),
            "https://***@example.org/a/b.git"
        );
        assert_eq!(
            display_url("https://tok@example.org/a.git"),
            "https://***@example.org/a.git"
        );
        assert_eq!(
            display_url("ssh://git@example.org/a.git"),
            "ssh://git@example.org/a.git"
        );
        assert_eq!(
            display_url("ssh://me:pw@example.org/a.git"),
            "ssh://***@example.org/a.git"
        );
        assert_eq!(display_url("file:///tmp/a@b"), "file:///tmp/a@b");
        assert_eq!(display_url("/srv/repo"), "/srv/repo");
    }
}
