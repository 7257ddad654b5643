//! Building engine revisions from a git repository into a cache, and running
//! an engine's `bench` (its output read by [`super::bench_output`]).
//!
//! Each commit gets its own folder `<cache>/<full-commit-hash>/` holding the
//! source tree of that commit: by default a detached git worktree (`git
//! worktree add --detach`), so build scripts see a real checkout; `checkout:
//! archive` extracts `git archive` instead, which leaves no trace in the
//! repository. Builds are reused by commit hash either way. The build command
//! runs inside the folder with `CARGO_TARGET_DIR` pointing at its own
//! `target/`. Two marker files make the cache safe against interrupted runs:
//! `.karsinta-checkout` is written once the tree is complete,
//! `.karsinta-build.json` once the binary exists; a folder without the build
//! marker is never reused as a finished build. An exclusive `flock` on
//! `<cache>/<hash>.lock`, held for the whole checkout and build, keeps two
//! harnesses from building the same commit at once.
//!
//! Relies on the `git` and `tar` programs and on `sh` for the build command.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use super::bench_output::{parse_bench, BenchPattern, BenchSignature};

/// Build command for this project's engine.
pub const DEFAULT_BUILD_COMMAND: &str = "cargo build --release -p karsinta-engine";
/// Where [`DEFAULT_BUILD_COMMAND`] leaves the engine, relative to the tree.
pub const DEFAULT_BINARY: &str = "target/release/karsinta-engine";
/// Arguments that make an engine print its bench signature.
pub const DEFAULT_BENCH_ARGS: &str = "bench";
/// How long a bench may run before it is abandoned.
pub const DEFAULT_BENCH_TIMEOUT_S: u64 = 600;
/// How long to wait for another process's build of the same commit.
const LOCK_WAIT: Duration = Duration::from_secs(3600);

const CHECKOUT_MARKER: &str = ".karsinta-checkout";
const BUILD_MARKER: &str = ".karsinta-build.json";
const BUILD_LOG: &str = ".karsinta-build.log";

/// Why a revision could not be built or benched.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum BuildError {
    #[error("{repo}: not a git repository ({message})")]
    NotARepo { repo: PathBuf, message: String },
    #[error("{repo}: unknown revision '{rev}' ({message})")]
    UnknownRevision {
        repo: PathBuf,
        rev: String,
        message: String,
    },
    #[error("cannot run {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("checking out {commit} into {dir}: {message}")]
    Checkout {
        commit: String,
        dir: PathBuf,
        message: String,
    },
    #[error("building {commit} with `{command}` failed ({status}); log: {log}\n{tail}")]
    BuildFailed {
        commit: String,
        command: String,
        status: String,
        log: PathBuf,
        tail: String,
    },
    #[error("building {commit} succeeded but {binary} does not exist (check build.binary)")]
    MissingBinary { commit: String, binary: PathBuf },
    #[error("{lock}: still locked by process {pid} after {waited_s} s")]
    LockTimeout {
        lock: PathBuf,
        pid: u32,
        waited_s: u64,
    },
    #[error("bench of {program}: {message}")]
    Bench { program: String, message: String },
    #[error("build.{key}: {message}")]
    Config { key: &'static str, message: String },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// How a commit's source tree is materialised in the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Checkout {
    /// `git archive | tar -x`: a plain tree, no trace in the repository.
    Archive,
    /// `git worktree add --detach`: a real checkout with `.git` (build
    /// scripts can ask git for the version), registered in the repository.
    #[default]
    Worktree,
}

/// The `build:` block of an `ab` / `gate` config, as written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuild {
    /// Shell command run in the commit's tree (default: our engine's cargo build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The built engine, relative to the tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// Arguments that make the engine print its bench signature; `""` skips
    /// the bench.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<String>,
    /// How the signature is found in the bench's output: `default` (`<N>
    /// nodes <M> nps`, Stockfish's fields), `openbench` (OpenBench's
    /// worker's reading) or a regular expression with a group for the node
    /// count ([`BenchPattern::parse`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench_pattern: Option<String>,
    /// Seconds the bench may take before it counts as failed (default 600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench_timeout_s: Option<u64>,
    /// Cache folder (relative to the config file); default
    /// `$XDG_CACHE_HOME/karsinta/builds` or `~/.cache/karsinta/builds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_dir: Option<String>,
    /// `worktree` (default) or `archive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout: Option<Checkout>,
}

/// Validated build settings.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildSettings {
    /// Shell command run in the commit's tree (`build.command`).
    pub command: String,
    /// Relative to the commit's tree.
    pub binary: PathBuf,
    /// Empty: no bench.
    pub bench_args: Vec<String>,
    /// Where in the bench's output the signature is.
    pub bench_pattern: BenchPattern,
    /// How long the bench may take (`build.bench_timeout_s`).
    pub bench_timeout: Duration,
    /// `None`: [`default_cache_dir`].
    pub cache_dir: Option<PathBuf>,
    /// How the commit's tree is materialised (`build.checkout`).
    pub checkout: Checkout,
}

impl Default for BuildSettings {
    fn default() -> Self {
        BuildSettings {
            command: DEFAULT_BUILD_COMMAND.to_string(),
            binary: PathBuf::from(DEFAULT_BINARY),
            bench_args: split_args(DEFAULT_BENCH_ARGS),
            bench_pattern: BenchPattern::Default,
            bench_timeout: Duration::from_secs(DEFAULT_BENCH_TIMEOUT_S),
            cache_dir: None,
            checkout: Checkout::Worktree,
        }
    }
}

fn split_args(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

impl BuildSettings {
    /// Settings from a config's `build:` block; relative `cache_dir` is taken
    /// from `base_dir` (the config file's folder).
    pub fn from_raw(raw: &RawBuild, base_dir: &Path) -> Result<BuildSettings, BuildError> {
        let mut s = BuildSettings::default();
        if let Some(c) = &raw.command {
            if c.trim().is_empty() {
                return Err(BuildError::Config {
                    key: "command",
                    message: "must not be empty".into(),
                });
            }
            s.command = c.clone();
        }
        if let Some(b) = &raw.binary {
            let p = PathBuf::from(b);
            if b.trim().is_empty() || p.is_absolute() {
                return Err(BuildError::Config {
                    key: "binary",
                    message: format!("'{b}' must be a path relative to the source tree"),
                });
            }
            s.binary = p;
        }
        if let Some(b) = &raw.bench {
            s.bench_args = split_args(b);
        }
        if let Some(p) = &raw.bench_pattern {
            s.bench_pattern = BenchPattern::parse(p).map_err(|message| BuildError::Config {
                key: "bench_pattern",
                message,
            })?;
        }
        if let Some(t) = raw.bench_timeout_s {
            if t == 0 {
                return Err(BuildError::Config {
                    key: "bench_timeout_s",
                    message: "must be positive".into(),
                });
            }
            s.bench_timeout = Duration::from_secs(t);
        }
        if let Some(d) = &raw.cache_dir {
            if d.trim().is_empty() {
                return Err(BuildError::Config {
                    key: "cache_dir",
                    message: "must not be empty".into(),
                });
            }
            s.cache_dir = Some(base_dir.join(d));
        }
        s.checkout = raw.checkout.unwrap_or_default();
        Ok(s)
    }
}

/// `$XDG_CACHE_HOME/karsinta/builds`, else `$HOME/.cache/karsinta/builds`,
/// else `<repo>/target/karsinta-builds`. Outside the repository by default
/// so that engines whose `target/` is not ignored stay clean.
pub fn default_cache_dir(repo: &Path) -> PathBuf {
    let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(x) = non_empty("XDG_CACHE_HOME") {
        PathBuf::from(x).join("karsinta").join("builds")
    } else if let Some(h) = non_empty("HOME") {
        PathBuf::from(h)
            .join(".cache")
            .join("karsinta")
            .join("builds")
    } else {
        repo.join("target").join("karsinta-builds")
    }
}

/// A built revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Build {
    /// Full commit hash.
    pub commit: String,
    /// The commit's tree in the cache.
    pub dir: PathBuf,
    /// The engine, absolute.
    pub binary: PathBuf,
    /// True when an earlier finished build was reused.
    pub reused: bool,
}

/// What the build marker records; a build is reused only when the recipe
/// that produced it is the current one.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct BuildMarker {
    commit: String,
    command: String,
    binary: PathBuf,
    built_unix_s: u64,
}

/// Builds revisions of one repository into a cache folder.
#[derive(Clone, Debug)]
pub struct BuildCache {
    repo: PathBuf,
    dir: PathBuf,
    settings: BuildSettings,
}

/// Runs `git -C repo args...`; stdout (trimmed) on success, stderr on failure.
fn git(repo: &Path, args: &[&str]) -> Result<Result<String, String>, BuildError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| BuildError::Spawn {
            program: "git".into(),
            source,
        })?;
    Ok(if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    })
}

impl BuildCache {
    /// A cache for the repository containing `repo`.
    pub fn open(repo: &Path, settings: BuildSettings) -> Result<BuildCache, BuildError> {
        let top = git(repo, &["rev-parse", "--show-toplevel"])?.map_err(|message| {
            BuildError::NotARepo {
                repo: repo.to_path_buf(),
                message,
            }
        })?;
        let repo = PathBuf::from(top);
        let dir = settings
            .cache_dir
            .clone()
            .unwrap_or_else(|| default_cache_dir(&repo));
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let dir = std::fs::canonicalize(&dir).map_err(io_err(&dir))?;
        Ok(BuildCache {
            repo,
            dir,
            settings,
        })
    }

    /// The repository's top-level folder.
    pub fn repo(&self) -> &Path {
        &self.repo
    }

    /// The cache folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The settings the builds use.
    pub fn settings(&self) -> &BuildSettings {
        &self.settings
    }

    /// Full hash of the commit `rev` names.
    pub fn resolve(&self, rev: &str) -> Result<String, BuildError> {
        let unknown = |message: String| BuildError::UnknownRevision {
            repo: self.repo.clone(),
            rev: rev.to_string(),
            message,
        };
        if rev.trim().is_empty() || rev.starts_with('-') {
            return Err(unknown("not a revision".into()));
        }
        let spec = format!("{rev}^{{commit}}");
        git(&self.repo, &["rev-parse", "--verify", "--quiet", &spec])?.map_err(|e| {
            unknown(if e.is_empty() {
                "no such commit".into()
            } else {
                e
            })
        })
    }

    /// The folder a commit is built in.
    pub fn commit_dir(&self, commit: &str) -> PathBuf {
        self.dir.join(commit)
    }

    /// Builds `rev` (or reuses its finished build). `log` receives one line
    /// per step for the user.
    pub fn build(&self, rev: &str, log: &mut dyn FnMut(&str)) -> Result<Build, BuildError> {
        let commit = self.resolve(rev)?;
        let dir = self.commit_dir(&commit);
        let binary = dir.join(&self.settings.binary);
        let _lock = BuildLock::acquire(&self.dir.join(format!("{commit}.lock")), LOCK_WAIT)?;

        let marker_path = dir.join(BUILD_MARKER);
        if let Ok(text) = std::fs::read_to_string(&marker_path) {
            let current = serde_json::from_str::<BuildMarker>(&text).ok().filter(|m| {
                m.commit == commit
                    && m.command == self.settings.command
                    && m.binary == self.settings.binary
            });
            if current.is_some() && binary.is_file() {
                log(&format!(
                    "{}: reusing build in {}",
                    short(&commit),
                    dir.display()
                ));
                return Ok(Build {
                    commit,
                    dir,
                    binary,
                    reused: true,
                });
            }
            // Another recipe or a lost binary: build again in the same tree.
            std::fs::remove_file(&marker_path).map_err(io_err(&marker_path))?;
        }

        if !dir.join(CHECKOUT_MARKER).is_file() {
            self.checkout(&commit, &dir, log)?;
        }

        log(&format!(
            "{}: building with `{}` in {}",
            short(&commit),
            self.settings.command,
            dir.display()
        ));
        self.run_build(&commit, &dir)?;
        if !binary.is_file() {
            return Err(BuildError::MissingBinary { commit, binary });
        }
        let marker = BuildMarker {
            commit: commit.clone(),
            command: self.settings.command.clone(),
            binary: self.settings.binary.clone(),
            built_unix_s: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        let text = serde_json::to_string_pretty(&marker).unwrap_or_default();
        write_atomic(&marker_path, &text)?;
        Ok(Build {
            commit,
            dir,
            binary,
            reused: false,
        })
    }

    /// Puts the commit's tree into `dir`, replacing any unfinished one.
    fn checkout(
        &self,
        commit: &str,
        dir: &Path,
        log: &mut dyn FnMut(&str),
    ) -> Result<(), BuildError> {
        let fail = |message: String| BuildError::Checkout {
            commit: commit.to_string(),
            dir: dir.to_path_buf(),
            message,
        };
        if dir.exists() {
            log(&format!("{}: removing unfinished checkout", short(commit)));
            std::fs::remove_dir_all(dir).map_err(io_err(dir))?;
        }
        match self.settings.checkout {
            Checkout::Archive => {
                log(&format!(
                    "{}: extracting into {}",
                    short(commit),
                    dir.display()
                ));
                std::fs::create_dir_all(dir).map_err(io_err(dir))?;
                let mut archive = Command::new("git")
                    .arg("-C")
                    .arg(&self.repo)
                    .args(["archive", "--format=tar", commit])
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|source| BuildError::Spawn {
                        program: "git".into(),
                        source,
                    })?;
                let tar_out = Command::new("tar")
                    .arg("-x")
                    .arg("-C")
                    .arg(dir)
                    .stdin(archive.stdout.take().map_or(Stdio::null(), Stdio::from))
                    .output()
                    .map_err(|source| BuildError::Spawn {
                        program: "tar".into(),
                        source,
                    })?;
                let mut git_err = String::new();
                if let Some(mut e) = archive.stderr.take() {
                    let _ = e.read_to_string(&mut git_err);
                }
                let git_status = archive.wait().map_err(|source| BuildError::Spawn {
                    program: "git".into(),
                    source,
                })?;
                if !git_status.success() {
                    return Err(fail(format!("git archive: {}", git_err.trim())));
                }
                if !tar_out.status.success() {
                    return Err(fail(format!(
                        "tar: {}",
                        String::from_utf8_lossy(&tar_out.stderr).trim()
                    )));
                }
            }
            Checkout::Worktree => {
                log(&format!(
                    "{}: adding worktree {}",
                    short(commit),
                    dir.display()
                ));
                // A worktree whose folder was deleted is still registered.
                git(&self.repo, &["worktree", "prune"])?.map_err(&fail)?;
                let d = dir.to_string_lossy();
                git(&self.repo, &["worktree", "add", "--detach", &d, commit])?.map_err(&fail)?;
            }
        }
        let marker = dir.join(CHECKOUT_MARKER);
        std::fs::write(&marker, commit).map_err(io_err(&marker))
    }

    fn run_build(&self, commit: &str, dir: &Path) -> Result<(), BuildError> {
        let log_path = dir.join(BUILD_LOG);
        let log = std::fs::File::create(&log_path).map_err(io_err(&log_path))?;
        let log2 = log.try_clone().map_err(io_err(&log_path))?;
        let status = shell(&self.settings.command)
            .current_dir(dir)
            // Every build gets its own target folder, whatever the caller's
            // environment says.
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .env("KARSINTA_COMMIT", commit)
            .env("KARSINTA_BUILD_DIR", dir)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .status()
            .map_err(|source| BuildError::Spawn {
                program: "sh".into(),
                source,
            })?;
        if status.success() {
            return Ok(());
        }
        let text = std::fs::read_to_string(&log_path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(15)..].join("\n");
        Err(BuildError::BuildFailed {
            commit: commit.to_string(),
            command: self.settings.command.clone(),
            status: status.to_string(),
            log: log_path,
            tail,
        })
    }
}

#[cfg(unix)]
fn shell(command: &str) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c").arg(command);
    c
}

#[cfg(not(unix))]
fn shell(command: &str) -> Command {
    let mut c = Command::new("cmd");
    c.arg("/C").arg(command);
    c
}

/// The first 10 characters of a commit hash, for messages.
pub fn short(commit: &str) -> &str {
    &commit[..commit.len().min(10)]
}

fn write_atomic(path: &Path, text: &str) -> Result<(), BuildError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// An exclusive `flock(2)` on `<cache>/<commit>.lock` (std's
/// `File::try_lock`), held while one harness checks out and builds a commit.
/// The kernel releases it when its holder exits, however it dies, so there is
/// no stale lock to take over. The file is removed on release; a waiter that
/// meanwhile locked the removed file sees that the path names another file
/// (or none) and tries again, so two holders never coexist. The holder's pid
/// is written into the file for the waiters' messages only.
struct BuildLock {
    path: PathBuf,
    /// Holds the lock; closing it releases it.
    _file: std::fs::File,
}

impl BuildLock {
    fn acquire(path: &Path, wait: Duration) -> Result<BuildLock, BuildError> {
        use std::io::Write;
        let start = Instant::now();
        loop {
            let mut file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
                .map_err(io_err(path))?;
            match file.try_lock() {
                Ok(()) => {
                    if !names_file(path, &file) {
                        continue; // locked a file its holder has just removed
                    }
                    let _ = file
                        .set_len(0)
                        .and_then(|()| write!(file, "{}", std::process::id()));
                    return Ok(BuildLock {
                        path: path.to_path_buf(),
                        _file: file,
                    });
                }
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(io_err(path)(e)),
            }
            if start.elapsed() > wait {
                let pid = std::fs::read_to_string(path).unwrap_or_default();
                return Err(BuildError::LockTimeout {
                    lock: path.to_path_buf(),
                    pid: pid.trim().parse().unwrap_or(0),
                    waited_s: wait.as_secs(),
                });
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        // Removed while still locked: a waiter can then only lock a file that
        // is no longer at `path`, which `names_file` catches.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether `path` still names the open `file` (same device and inode).
#[cfg(unix)]
fn names_file(path: &Path, file: &std::fs::File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn names_file(path: &Path, _file: &std::fs::File) -> bool {
    path.exists()
}

/// Runs `program args...` (stdin closed) and parses its signature from
/// stdout, then stderr, as [`parse_bench`] reads it. Fails on a timeout, a
/// failed exit or no signature.
pub fn run_bench(
    program: &Path,
    args: &[String],
    dir: Option<&Path>,
    timeout: Duration,
) -> Result<BenchSignature, BuildError> {
    run_bench_with(
        program,
        args,
        dir,
        timeout,
        &BenchPattern::Default,
        None,
        &mut |_| {},
    )
}

/// [`run_bench`] that finds the signature by `pattern`, gives up (killing
/// the engine) as soon as `interrupt` is raised, and hands each line the
/// engine writes to stderr (our engine's per-position progress) to
/// `progress` as it comes.
pub fn run_bench_with(
    program: &Path,
    args: &[String],
    dir: Option<&Path>,
    timeout: Duration,
    pattern: &BenchPattern,
    interrupt: Option<&AtomicBool>,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchSignature, BuildError> {
    let name = program.display().to_string();
    let fail = |message: String| BuildError::Bench {
        program: name.clone(),
        message,
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| fail(format!("cannot start: {e}")))?;
    // Readers in threads so a chatty engine cannot block on a full pipe.
    let mut stdout = child.stdout.take();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(r) = stdout.as_mut() {
            let _ = r.read_to_string(&mut s);
        }
        s
    });
    let (line_tx, line_rx) = std::sync::mpsc::channel::<String>();
    let stderr = child.stderr.take();
    let err = std::thread::spawn(move || {
        if let Some(r) = stderr {
            for line in std::io::BufReader::new(r).lines().map_while(Result::ok) {
                if line_tx.send(line).is_err() {
                    break;
                }
            }
        }
    });
    let mut stderr_text = String::new();
    let mut drain = |stderr_text: &mut String| {
        for line in line_rx.try_iter() {
            progress(&line);
            stderr_text.push_str(&line);
            stderr_text.push('\n');
        }
    };
    let start = Instant::now();
    let status = loop {
        drain(&mut stderr_text);
        let interrupted = interrupt.is_some_and(|f| f.load(Ordering::SeqCst));
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if interrupted || start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(if interrupted {
                    "interrupted".to_string()
                } else {
                    format!("no result after {} s", timeout.as_secs())
                }));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(fail(e.to_string())),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let _ = err.join();
    drain(&mut stderr_text);
    let stderr = stderr_text;
    if !status.success() {
        let last = stderr
            .lines()
            .chain(stdout.lines())
            .last()
            .unwrap_or("")
            .trim()
            .to_string();
        return Err(fail(format!("exited with {status}: {last}")));
    }
    pattern
        .find(&stdout)
        .or_else(|| pattern.find(&stderr))
        .ok_or_else(|| fail(format!("no {} in its output", pattern.describe())))
}

/// Bench arguments for a depth given on the command line: the depth
/// replaces the first number in `args` (`bench 10` -> `bench 6`) or is
/// appended (`bench` -> `bench 6`); no arguments at all become `bench 6`,
/// as karsinta-engine takes it.
pub fn bench_args_with_depth(args: &[String], depth: u32) -> Vec<String> {
    let mut out = if args.is_empty() {
        vec!["bench".to_string()]
    } else {
        args.to_vec()
    };
    match out.iter_mut().find(|a| a.parse::<u64>().is_ok()) {
        Some(a) => *a = depth.to_string(),
        None => out.push(depth.to_string()),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_depth_replaces_or_appends_the_number() {
        let args = |s: &str| split_args(s);
        assert_eq!(bench_args_with_depth(&args("bench"), 6), args("bench 6"));
        assert_eq!(bench_args_with_depth(&args("bench 10"), 6), args("bench 6"));
        assert_eq!(bench_args_with_depth(&args(""), 3), args("bench 3"));
        assert_eq!(
            bench_args_with_depth(&args("--quiet bench 16 x"), 2),
            args("--quiet bench 2 x")
        );
    }

    #[test]
    fn settings_from_raw() {
        let raw: RawBuild = serde_yaml::from_str(
            "command: make -j2\nbinary: src/engine\nbench: bench 13\ncache_dir: cache\ncheckout: worktree\n",
        )
        .unwrap();
        let s = BuildSettings::from_raw(&raw, Path::new("/cfg")).unwrap();
        assert_eq!(s.command, "make -j2");
        assert_eq!(s.binary, PathBuf::from("src/engine"));
        assert_eq!(s.bench_args, vec!["bench", "13"]);
        assert_eq!(s.cache_dir, Some(PathBuf::from("/cfg/cache")));
        assert_eq!(s.checkout, Checkout::Worktree);
        assert_eq!(s.bench_pattern, BenchPattern::Default);
        let ob: RawBuild = serde_yaml::from_str("bench_pattern: openbench").unwrap();
        assert_eq!(
            BuildSettings::from_raw(&ob, Path::new("/"))
                .unwrap()
                .bench_pattern,
            BenchPattern::OpenBench
        );
        let bad: RawBuild = serde_yaml::from_str("bench_pattern: 'Bench: (\\d+'").unwrap();
        let e = BuildSettings::from_raw(&bad, Path::new("/"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("build.bench_pattern: 'Bench: (\\d+'"), "{e}");
        let d = BuildSettings::from_raw(&RawBuild::default(), Path::new("/")).unwrap();
        assert_eq!(d, BuildSettings::default());
        let skip: RawBuild = serde_yaml::from_str("bench: ''").unwrap();
        assert!(BuildSettings::from_raw(&skip, Path::new("/"))
            .unwrap()
            .bench_args
            .is_empty());

        let e = serde_yaml::from_str::<RawBuild>("comand: make")
            .unwrap_err()
            .to_string();
        assert!(e.contains("comand"), "{e}");
        let abs: RawBuild = serde_yaml::from_str("binary: /usr/bin/x").unwrap();
        let e = BuildSettings::from_raw(&abs, Path::new("/"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("build.binary"), "{e}");
    }

    #[test]
    fn lock_is_exclusive_and_left_over_files_are_no_locks() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("x.lock");
        let held = BuildLock::acquire(&path, Duration::from_secs(1)).unwrap();
        let e = BuildLock::acquire(&path, Duration::from_millis(300));
        match e {
            Err(BuildError::LockTimeout { pid, .. }) => assert_eq!(pid, std::process::id()),
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("locked twice"),
        }
        drop(held);
        assert!(!path.exists());
        // The file of a holder that was killed holds no lock any more.
        std::fs::write(&path, "4194999").unwrap();
        let l = BuildLock::acquire(&path, Duration::from_secs(1)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            std::process::id().to_string()
        );
        drop(l);
    }

    #[test]
    fn lock_holders_never_overlap() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("y.lock");
        let inside = AtomicBool::new(false);
        let entries = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..25 {
                        let lock = BuildLock::acquire(&path, Duration::from_secs(60)).unwrap();
                        assert!(!inside.swap(true, Ordering::SeqCst), "two holders at once");
                        entries.fetch_add(1, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.store(false, Ordering::SeqCst);
                        drop(lock);
                    }
                });
            }
        });
        assert_eq!(entries.load(Ordering::SeqCst), 100);
        assert!(!path.exists());
    }
}
