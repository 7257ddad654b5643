//! A repository fetched into a cache folder, `<cache>/repos/<name>-<hash
//! of the URL>/`: a plain `git init` repository holding the remote's
//! branches, tags and remote-tracking branches under their own names, its
//! HEAD detached at the remote's HEAD, so that a revision means there what
//! it means in the repository it came from (`main`, `v1.2`, `HEAD~1`).
//! Any URL git can fetch works (file://, ssh, https, a local path); the
//! machine needs non-interactive access (keys, a credential helper): git
//! never prompts (`GIT_TERMINAL_PROMPT=0`, stdin closed).
//!
//! The build cache ([`karsinta_harness::players::build::BuildCache`])
//! checks commits out of this repository. An exclusive lock on
//! `<cache>/repos/<dir>.lock` serialises the processes that share a cache.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use karsinta_harness::openings::fingerprint;

use super::{display_url, RevisionError};

/// The folder of the fetched repositories inside a build cache.
const REPOS: &str = "repos";

/// A repository fetched from `url` into a cache.
#[derive(Clone, Debug)]
pub struct Mirror {
    url: String,
    dir: PathBuf,
    /// `<dir>.lock`, beside it.
    lock: PathBuf,
}

/// Runs `git args...` (in `dir` if given); stdout (trimmed) on success,
/// stderr on failure.
fn git(dir: Option<&Path>, args: &[&str]) -> Result<String, String> {
    let mut c = Command::new("git");
    if let Some(d) = dir {
        c.arg("-C").arg(d);
    }
    let out = c
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The repository a `--repo` names, as workers will fetch it: a URL
/// (`scheme://...` or scp-like `host:path`) as given; a local folder as
/// its absolute path (a relative one would mean another folder on each
/// worker).
pub fn normalize_url(repo: &str) -> Result<String, RevisionError> {
    let r = repo.trim();
    if r.is_empty() || r.starts_with('-') {
        return Err(RevisionError::Invalid(format!(
            "--repo {r:?}: not a repository URL or folder"
        )));
    }
    if r.contains("://") {
        return Ok(r.to_string());
    }
    let path = Path::new(r);
    if path.is_dir() {
        let abs = std::fs::canonicalize(path)
            .map_err(|e| RevisionError::Invalid(format!("--repo {r}: {e}")))?;
        return Ok(abs.display().to_string());
    }
    // git's scp-like syntax: a colon before any slash.
    if r.find(':')
        .is_some_and(|c| r.find('/').is_none_or(|s| c < s))
    {
        return Ok(r.to_string());
    }
    Err(RevisionError::Invalid(format!(
        "--repo {r}: no such folder, and not a git URL (file://, ssh://, https://, host:path)"
    )))
}

/// The node count of the last `Bench: N` line of a commit message (the
/// convention of Stockfish, Ethereal and this repository), if any.
pub fn bench_from_message(message: &str) -> Option<u64> {
    message.lines().rev().find_map(|l| {
        let l = l.trim();
        let (key, value) = l.split_once(':')?;
        if !key.trim().eq_ignore_ascii_case("bench") {
            return None;
        }
        value.trim().parse::<u64>().ok()
    })
}

/// A readable, unique folder name for `url`: its last path component and
/// a hash of the whole URL.
fn folder_name(url: &str) -> String {
    let tail = url
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or("repo")
        .trim_end_matches(".git");
    let tail: String = tail
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(40)
        .collect();
    let hash = fingerprint(url.as_bytes());
    let hash = hash.rsplit(':').next().unwrap_or("0");
    let tail = if tail.is_empty() || tail.starts_with('.') {
        "repo".to_string()
    } else {
        tail
    };
    format!("{tail}-{hash}")
}

impl Mirror {
    /// The mirror of `url` in the build cache `cache`, created (empty) if
    /// it is new.
    pub fn open(url: &str, cache: &Path) -> Result<Mirror, RevisionError> {
        if url.starts_with('-') {
            return Err(RevisionError::Invalid(format!(
                "repository {url:?}: not a URL (it would be read as an option)"
            )));
        }
        let repos = cache.join(REPOS);
        std::fs::create_dir_all(&repos).map_err(|e| io(&repos, e))?;
        let name = folder_name(url);
        let m = Mirror {
            url: url.to_string(),
            dir: repos.join(&name),
            lock: repos.join(format!("{name}.lock")),
        };
        let _lock = m.lock()?;
        if !m.dir.join(".git").exists() {
            let d = m.dir.display().to_string();
            git(None, &["init", "--quiet", &d]).map_err(|e| m.fail(&e))?;
        }
        Ok(m)
    }

    /// The repository's folder (what the build cache opens).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The URL it is fetched from.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn fail(&self, message: &str) -> RevisionError {
        RevisionError::Repo {
            url: display_url(&self.url),
            message: message.to_string(),
        }
    }

    /// Held while git writes into the mirror; released on drop (and by the
    /// kernel if the process dies).
    fn lock(&self) -> Result<File, RevisionError> {
        let path = &self.lock;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| io(path, e))?;
        f.lock().map_err(|e| io(path, e))?;
        Ok(f)
    }

    /// Fetch the remote's branches, tags and remote-tracking branches
    /// (forced, pruned: the mirror follows rewritten branches) and detach
    /// HEAD at the remote's HEAD.
    pub fn fetch(&self) -> Result<(), RevisionError> {
        let _lock = self.lock()?;
        let dir = Some(self.dir.as_path());
        git(
            dir,
            &[
                "fetch",
                "--quiet",
                "--prune",
                "--update-head-ok",
                self.url.as_str(),
                "+refs/heads/*:refs/heads/*",
                "+refs/tags/*:refs/tags/*",
                "+refs/remotes/*:refs/remotes/*",
            ],
        )
        .map_err(|e| self.fail(&format!("git fetch: {e}")))?;
        // A repository without a HEAD (a bare one whose default branch is
        // gone) still has its branches: HEAD is then left as it was.
        if git(dir, &["fetch", "--quiet", self.url.as_str(), "HEAD"]).is_ok() {
            let head = git(dir, &["rev-parse", "--verify", "FETCH_HEAD^{commit}"])
                .map_err(|e| self.fail(&e))?;
            git(dir, &["update-ref", "--no-deref", "HEAD", &head]).map_err(|e| self.fail(&e))?;
        }
        Ok(())
    }

    /// Whether the commit is in the mirror.
    pub fn has_commit(&self, commit: &str) -> bool {
        let spec = format!("{commit}^{{commit}}");
        is_hash(commit) && git(Some(&self.dir), &["cat-file", "-e", &spec]).is_ok()
    }

    /// Make sure the commits are here, fetching only when one is missing
    /// (a warm cache needs no network): the remote's refs first, then the
    /// missing hashes themselves (for commits no branch holds any more,
    /// where the server allows it). Returns whether it fetched.
    pub fn ensure(&self, commits: &[&str]) -> Result<bool, RevisionError> {
        if let Some(bad) = commits.iter().find(|c| !is_hash(c)) {
            return Err(self.fail(&format!("{bad:?} is not a commit hash")));
        }
        if commits.iter().all(|c| self.has_commit(c)) {
            return Ok(false);
        }
        self.fetch()?;
        let missing: Vec<&str> = commits
            .iter()
            .copied()
            .filter(|c| !self.has_commit(c))
            .collect();
        if missing.is_empty() {
            return Ok(true);
        }
        let _lock = self.lock()?;
        let mut args = vec!["fetch", "--quiet", self.url.as_str()];
        args.extend(&missing);
        let fetched = git(Some(&self.dir), &args);
        if let Some(c) = missing.iter().find(|c| !self.has_commit(c)) {
            let why = fetched.err().unwrap_or_default();
            return Err(self.fail(&format!(
                "commit {c} is not in the repository (a rewritten branch?){}",
                if why.is_empty() {
                    String::new()
                } else {
                    format!(": {why}")
                }
            )));
        }
        Ok(true)
    }

    /// The full message of a commit in the mirror.
    pub fn message(&self, commit: &str) -> Result<String, RevisionError> {
        if !is_hash(commit) {
            return Err(self.fail(&format!("{commit:?} is not a commit hash")));
        }
        git(Some(&self.dir), &["log", "-1", "--format=%B", commit]).map_err(|e| self.fail(&e))
    }
}

/// A full commit hash (SHA-1 or SHA-256), so that it can never be read as
/// an option.
pub fn is_hash(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn io(path: &Path, e: std::io::Error) -> RevisionError {
    RevisionError::Invalid(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_lines_in_commit_messages() {
        assert_eq!(
            bench_from_message("search: x\n\nElo | 3\nBench: 669873\n"),
            Some(669873)
        );
        assert_eq!(bench_from_message("a\nbench: 5\nBench: 7"), Some(7));
        assert_eq!(bench_from_message("  BENCH :  12 "), Some(12));
        assert_eq!(bench_from_message("Bench: unchanged"), None);
        assert_eq!(bench_from_message("no bench here"), None);
        assert_eq!(bench_from_message(""), None);
    }

    #[test]
    fn folders_and_urls() {
        let a = folder_name("https://github.com/x/Karsinta.git");
        assert!(a.starts_with("Karsinta-"), "{a}");
        assert_ne!(a, folder_name("https://github.com/y/Karsinta.git"));
        assert!(folder_name("git@host:../..").starts_with("repo-"));
        assert!(folder_name("file:///").starts_with("repo-"));
        assert_eq!(normalize_url("file:///x").unwrap(), "file:///x");
        assert_eq!(normalize_url("git@host:a/b").unwrap(), "git@host:a/b");
        let here = normalize_url(".").unwrap();
        assert!(Path::new(&here).is_absolute(), "{here}");
        for bad in ["", "no/such/folder", "-uevil:x"] {
            assert!(normalize_url(bad).is_err(), "{bad}");
        }
    }
}
