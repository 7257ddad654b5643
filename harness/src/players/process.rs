//! Child engine processes: spawning, line-based I/O where every wait has a
//! timeout, and making sure no engine outlives the harness.
//!
//! A reader thread per process turns the engine's stdout into a channel of
//! chunks (each one or more complete lines), so the game thread blocks only
//! in `recv_timeout`, never spins, and is woken about once per answer: the
//! reader holds progress lines (`info`) back until a line someone waits for
//! arrives. With a stderr log, a second thread copies the engine's stderr
//! into it. All instances of an engine share one log, so whenever the
//! writer changes a `[karsinta] TAG (pid N):` line says whose lines follow
//! (like `tail -f` on several files); the lines themselves stay as the
//! engine wrote them.
//!
//! Every child is started in its own process group (so a terminal's Ctrl-C
//! reaches only the harness, which then kills its engines itself instead of
//! recording half-killed games as crashes), with `PR_SET_PDEATHSIG` =
//! `SIGKILL` on Linux (so a SIGKILLed harness still takes its engines along),
//! and its pid is kept in a global registry that [`kill_all_children`]
//! empties. The parent-death signal is not inherited: an engine started by a
//! wrapper script that does not `exec` would leave the real engine running.
//! So on Linux each engine's group also gets a watcher, a tiny `/bin/sh`
//! whose parent-death signal is SIGTERM and which answers it by SIGKILLing
//! its whole group (the engine and everything it started). Because
//! `PR_SET_PDEATHSIG` fires when the *thread* that forked exits, all
//! children are forked from one spawner thread that lives as long as the
//! process. A pid is removed from the registry before its process is reaped,
//! so the registry never names a recycled pid; a group outlives its reaped
//! leader while its watcher lives, so killing the group stays safe until the
//! watcher is reaped.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use super::{EngineError, PlayerSpec};

/// A line longer than this (an engine printing without newlines) is cut, so
/// a broken engine cannot make the harness buffer without bound.
const MAX_LINE_BYTES: usize = 1 << 20;

/// Pids of the live children (each also the id of its process group).
static CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// Set by [`kill_all_children`]: no new engine may start afterwards.
static SHUTTING_DOWN: AtomicBool = AtomicBool::new(false);

/// Kill every engine process this harness started (and their process
/// groups) with SIGKILL, and refuse to start new ones. Meant for the CLI's
/// Ctrl-C / termination handler; safe to call from any thread, any number of
/// times. The owning players notice the dead engines as crashes.
pub fn kill_all_children() {
    SHUTTING_DOWN.store(true, Ordering::SeqCst);
    let children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
    for &pid in children.iter() {
        sys::kill_group(pid);
    }
}

/// Number of engine processes currently running (started and not yet
/// reaped by their player).
pub fn live_children() -> usize {
    CHILDREN.lock().unwrap_or_else(|e| e.into_inner()).len()
}

/// CPU time used so far, for overhead measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuUsage {
    /// User + system time of this process (all threads).
    pub harness: Duration,
    /// User + system time of the children that have exited and been reaped.
    pub reaped_children: Duration,
}

/// This process's and its reaped children's CPU time (`getrusage`); zero
/// where unsupported.
pub fn cpu_usage() -> CpuUsage {
    CpuUsage {
        harness: sys::cpu_time(false),
        reaped_children: sys::cpu_time(true),
    }
}

/// A command for the spawner thread, whether to register the child, and
/// where to send the result.
type SpawnJob = (Command, bool, SyncSender<io::Result<Child>>);

/// Fork `cmd` from the long-lived spawner thread and register the child,
/// atomically with respect to [`kill_all_children`].
fn spawn_registered(cmd: Command) -> io::Result<Child> {
    spawn_from_spawner(cmd, true)
}

/// Fork `cmd` from the long-lived spawner thread (so its parent-death
/// signal fires only when the harness exits); register it if `register`.
fn spawn_from_spawner(cmd: Command, register: bool) -> io::Result<Child> {
    static SPAWNER: OnceLock<Sender<SpawnJob>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnJob>();
        thread::Builder::new()
            .name("karsinta-spawner".into())
            .spawn(move || {
                for (mut cmd, register, reply) in rx {
                    let mut children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
                    let result = if SHUTTING_DOWN.load(Ordering::SeqCst) {
                        Err(io::Error::other("the harness is shutting down"))
                    } else {
                        cmd.spawn()
                    };
                    if let (Ok(child), true) = (&result, register) {
                        children.push(child.id());
                    }
                    drop(children);
                    let _ = reply.send(result);
                }
            })
            .expect("cannot start the engine spawner thread");
        tx
    });
    let (reply_tx, reply_rx) = mpsc::sync_channel(1);
    spawner
        .send((cmd, register, reply_tx))
        .map_err(|_| io::Error::other("engine spawner thread is gone"))?;
    reply_rx
        .recv()
        .map_err(|_| io::Error::other("engine spawner thread is gone"))?
}

/// Why no line could be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// The deadline passed first.
    Timeout,
    /// The engine closed its output (it exited or crashed).
    Eof,
}

/// A running engine process with line-based, timeout-bounded I/O.
pub(crate) struct EngineProcess {
    child: Child,
    pid: u32,
    /// False once reaped (and removed from the registry).
    registered: bool,
    stdin: ChildStdin,
    rx: Receiver<(Instant, String)>,
    /// The chunk being consumed, when the reader received it, and the read
    /// position in it.
    chunk: String,
    chunk_at: Instant,
    pos: usize,
    eof: bool,
    /// Disconnects when the stderr copier has finished (see [`Self::kill`]).
    stderr_done: Option<Receiver<()>>,
    /// The group's watcher (Linux), reaped after the group is killed.
    watcher: Option<Child>,
}

/// How long [`EngineProcess::kill`] waits for the stderr copier to write
/// the dead engine's last lines.
const STDERR_FLUSH: Duration = Duration::from_millis(200);

impl EngineProcess {
    /// Start the engine described by `spec` (command, arguments, working
    /// directory, stderr log). `tag` names this instance in the stderr log.
    pub(crate) fn spawn(spec: &PlayerSpec, tag: &str) -> Result<Self, EngineError> {
        let mut cmd = Command::new(&spec.cmd);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if let Some(dir) = &spec.dir {
            cmd.current_dir(dir);
        }
        let log = match &spec.stderr_log {
            Some(path) => Some(open_log(path).map_err(|e| {
                EngineError::Start(format!("cannot open stderr log {}: {e}", path.display()))
            })?),
            None => None,
        };
        cmd.stderr(if log.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        sys::configure(&mut cmd);
        let mut child = spawn_registered(cmd)
            .map_err(|e| EngineError::Start(format!("cannot run {}: {e}", spec.cmd.display())))?;
        let pid = child.id();
        // Without a watcher the engine itself still dies with the harness;
        // only what a non-`exec` wrapper started could outlive it.
        let watcher = sys::watcher(pid).and_then(|cmd| spawn_from_spawner(cmd, false).ok());
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            unreachable!("stdin and stdout are piped")
        };
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let copier = match (log, &spec.stderr_log, child.stderr.take()) {
            (Some(log), Some(path), Some(stderr)) => {
                let log = SharedLog {
                    file: log,
                    path: path.clone(),
                    pid,
                    tag: tag.to_string(),
                };
                thread::Builder::new()
                    .name(format!("karsinta-stderr-{pid}"))
                    .spawn(move || {
                        copy_stderr(stderr, log);
                        drop(done_tx);
                    })
                    .map(|_| true)
            }
            _ => Ok(false),
        };
        // A full pipe (an engine that stopped reading) must not block the
        // game thread: writes fail instead.
        sys::set_nonblocking(&stdin);
        let (tx, rx) = mpsc::channel();
        let reader = thread::Builder::new()
            .name(format!("karsinta-read-{pid}"))
            .spawn(move || read_chunks(stdout, tx));
        let mut process = EngineProcess {
            child,
            pid,
            registered: true,
            stdin,
            rx,
            chunk: String::new(),
            chunk_at: Instant::now(),
            pos: 0,
            eof: false,
            stderr_done: matches!(copier, Ok(true)).then_some(done_rx),
            watcher,
        };
        if let Err(e) = reader.map(|_| ()).and(copier.map(|_| ())) {
            process.kill();
            return Err(EngineError::Start(format!(
                "cannot start reader thread: {e}"
            )));
        }
        Ok(process)
    }

    /// Operating-system process id.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Write `text` (one or more complete lines) in a single write.
    pub(crate) fn send(&mut self, text: &str) -> Result<(), EngineError> {
        match self.stdin.write_all(text.as_bytes()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Err(EngineError::Protocol(
                "engine does not read its input (pipe full)".into(),
            )),
            Err(e) => Err(EngineError::Crashed(format!("cannot write to engine: {e}"))),
        }
    }

    /// The next line (without its line end), waiting at most until
    /// `deadline`. A line is valid until the next call.
    pub(crate) fn read_line(&mut self, deadline: Instant) -> Result<&str, ReadError> {
        loop {
            if self.pos < self.chunk.len() {
                let start = self.pos;
                let rest = &self.chunk.as_bytes()[start..];
                let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                self.pos = start + len + 1;
                let line = &self.chunk[start..start + len];
                return Ok(line.strip_suffix('\r').unwrap_or(line));
            }
            if self.eof {
                return Err(ReadError::Eof);
            }
            let timeout = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(timeout) {
                Ok((at, chunk)) => {
                    self.chunk = chunk;
                    self.chunk_at = at;
                    self.pos = 0;
                }
                Err(RecvTimeoutError::Timeout) => return Err(ReadError::Timeout),
                Err(RecvTimeoutError::Disconnected) => {
                    self.eof = true;
                    return Err(ReadError::Eof);
                }
            }
        }
    }

    /// When the reader thread received the last line returned by
    /// [`Self::read_line`]: answer times are measured to here, so a slow
    /// wake-up of the game thread is not charged to the engine.
    pub(crate) fn line_received_at(&self) -> Instant {
        self.chunk_at
    }

    /// Discard output already received (stale lines from an earlier
    /// command), without waiting.
    pub(crate) fn drain(&mut self) {
        self.pos = self.chunk.len();
        loop {
            match self.rx.try_recv() {
                Ok(_) => {}
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.eof = true;
                    break;
                }
            }
        }
    }

    /// Whether the process is still running (reaps it if it has exited).
    pub(crate) fn is_alive(&mut self) -> bool {
        if !self.registered || self.eof {
            return false;
        }
        let mut children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
        match self.child.try_wait() {
            Ok(None) => true,
            _ => {
                children.retain(|&p| p != self.pid);
                self.registered = false;
                false
            }
        }
    }

    /// After end of output: how the process ended, waiting briefly for it
    /// to exit, then killing it. For error messages.
    pub(crate) fn describe_exit(&mut self) -> String {
        let until = Instant::now() + Duration::from_millis(100);
        while self.registered && Instant::now() < until {
            let mut children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
            if let Ok(Some(status)) = self.child.try_wait() {
                children.retain(|&p| p != self.pid);
                self.registered = false;
                drop(children);
                sys::kill_group(self.pid);
                return format!("engine exited ({status})");
            }
            drop(children);
            // Failure path only: the process closed its output and is about
            // to exit, so a few short sleeps are cheaper than a wait thread.
            thread::sleep(Duration::from_millis(5));
        }
        self.kill();
        "engine closed its output".to_string()
    }

    /// Ask the engine to exit with `quit_cmd`, give it `grace` to close its
    /// output, then kill it (and its process group) regardless.
    pub(crate) fn shutdown(&mut self, quit_cmd: &str, grace: Duration) {
        if self.registered && !self.eof && self.send(quit_cmd).is_ok() {
            let deadline = Instant::now() + grace;
            while self.read_line(deadline).is_ok() {}
        }
        self.kill();
    }

    /// Kill the process group with SIGKILL and reap the child and its
    /// watcher.
    pub(crate) fn kill(&mut self) {
        if !self.registered {
            self.reap_watcher();
            return;
        }
        {
            let mut children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
            children.retain(|&p| p != self.pid);
            // Still unreaped, so the pid (and group id) cannot be recycled yet.
            sys::kill_group(self.pid);
            let _ = self.child.kill();
            self.registered = false;
        }
        let _ = self.child.wait();
        self.reap_watcher();
        // The copier ends at the dead engine's end of stderr; waiting for it
        // (bounded: a stray grandchild may hold the pipe) keeps the log
        // complete when the caller reads it next.
        if let Some(done) = self.stderr_done.take() {
            let _ = done.recv_timeout(STDERR_FLUSH);
        }
    }
}

impl EngineProcess {
    /// Kill what is left of the group (whatever a wrapper started) and
    /// reap the watcher. The live watcher keeps the group id from being
    /// reused, so the group kill cannot hit a stranger.
    fn reap_watcher(&mut self) {
        if let Some(mut watcher) = self.watcher.take() {
            sys::kill_group(self.pid);
            let _ = watcher.kill();
            let _ = watcher.wait();
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Open the stderr log for appending (shared by all instances of an engine).
fn open_log(path: &Path) -> io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// Which process wrote last to each shared stderr log.
static LOG_WRITERS: Mutex<BTreeMap<PathBuf, u32>> = Mutex::new(BTreeMap::new());

/// One engine process's handle on its engine's shared stderr log.
struct SharedLog {
    file: File,
    path: PathBuf,
    pid: u32,
    tag: String,
}

impl SharedLog {
    /// Append `line` (ending with a newline), after a line naming this
    /// process when another one wrote last (or `starting` is set). One
    /// append-mode write under the lock, so lines never interleave.
    fn append(&mut self, line: &[u8], starting: bool, buf: &mut Vec<u8>) -> io::Result<()> {
        let mut writers = LOG_WRITERS.lock().unwrap_or_else(|e| e.into_inner());
        let last = writers.insert(self.path.clone(), self.pid);
        buf.clear();
        if starting {
            let _ = writeln!(buf, "[karsinta] starting {} (pid {})", self.tag, self.pid);
        } else if last != Some(self.pid) {
            let _ = writeln!(buf, "[karsinta] {} (pid {}):", self.tag, self.pid);
        }
        buf.extend_from_slice(line);
        self.file.write_all(buf)
    }
}

/// Stderr copier thread body: every line of `err` into `log`. A failing
/// log does not stop the reading: an engine blocked on a full stderr pipe
/// would stall its game.
fn copy_stderr(err: ChildStderr, mut log: SharedLog) {
    let mut buf = Vec::with_capacity(256);
    let mut ok = log.append(b"", true, &mut buf).is_ok();
    let mut reader = BufReader::new(err);
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_LINE_BYTES as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if !line.ends_with(b"\n") {
            line.push(b'\n');
        }
        ok = ok && log.append(&line, false, &mut buf).is_ok();
    }
}

/// Reader thread body: forward stdout as chunks of complete lines.
///
/// Progress reports (UCI `info`, xboard thinking lines) are held back until
/// a line that someone waits for (`bestmove`, `readyok`, `move`...) arrives,
/// so the game thread wakes about once per move rather than once per line.
/// Any such line releases everything, also when progress lines follow it
/// in the same read (`bestmove e2e4\ninfo string ...`).
fn read_chunks(mut out: ChildStdout, tx: Sender<(Instant, String)>) {
    let mut buf = vec![0u8; 16 * 1024];
    // Complete lines not sent yet, then an incomplete last line.
    let mut pending: Vec<u8> = Vec::new();
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let n = match out.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let data = &buf[..n];
        // Everything before `fresh` is held-back progress.
        let fresh = pending.len();
        match data.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                pending.append(&mut partial);
                pending.extend_from_slice(&data[..=last]);
                partial.extend_from_slice(&data[last + 1..]);
            }
            None => {
                partial.extend_from_slice(data);
                if partial.len() > MAX_LINE_BYTES {
                    partial.push(b'\n');
                    pending.append(&mut partial);
                }
            }
        }
        if pending.is_empty() || (only_progress(&pending[fresh..]) && pending.len() < HOLD_BYTES) {
            continue;
        }
        if tx
            .send((Instant::now(), into_string(std::mem::take(&mut pending))))
            .is_err()
        {
            return;
        }
    }
    if !partial.is_empty() {
        partial.push(b'\n');
        pending.append(&mut partial);
    }
    if !pending.is_empty() {
        let _ = tx.send((Instant::now(), into_string(pending)));
    }
}

/// Progress held back by the reader is sent anyway beyond this size.
const HOLD_BYTES: usize = 64 * 1024;

/// Whether every line of `lines` (complete lines, each ending with a
/// newline) is a progress report.
fn only_progress(lines: &[u8]) -> bool {
    let body = lines.strip_suffix(b"\n").unwrap_or(lines);
    body.split(|&b| b == b'\n').all(is_progress)
}

/// A line nobody waits for: UCI `info`, or an xboard thinking line
/// (`ply score time nodes pv`).
fn is_progress(line: &[u8]) -> bool {
    let start = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(line.len());
    let line = &line[start..];
    if line.starts_with(b"info") {
        return true;
    }
    // Thinking lines start with a ply number ("9", "9.", "9&"); results
    // ("1-0", "1/2-1/2") do not count.
    let token = line
        .split(|b| b.is_ascii_whitespace())
        .next()
        .unwrap_or(b"");
    let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && token[digits..].iter().all(|b| b".&*".contains(b))
}

fn into_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The few system calls std does not wrap.
#[cfg(unix)]
#[allow(unsafe_code)]
mod sys {
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    /// Own process group; on Linux also die with the harness.
    pub(super) fn configure(cmd: &mut Command) {
        cmd.process_group(0);
        #[cfg(target_os = "linux")]
        {
            // SAFETY: getpid is async-signal-safe.
            let parent = unsafe { libc::getpid() };
            // SAFETY: the closure runs between fork and exec and calls only
            // async-signal-safe functions (prctl, getppid), allocating nothing.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // The harness died before prctl took effect.
                    if libc::getppid() != parent {
                        return Err(std::io::Error::other("parent exited"));
                    }
                    Ok(())
                });
            }
        }
    }

    /// The watcher of the group `group` (Linux): a shell in that group that
    /// receives SIGTERM when the harness dies and then SIGKILLs the group.
    /// It waits in `wait` (interruptible) rather than in `sleep`, so the
    /// trap runs at once.
    #[cfg(target_os = "linux")]
    pub(super) fn watcher(group: u32) -> Option<Command> {
        use std::process::Stdio;
        const SCRIPT: &str = "trap 'kill -KILL 0' TERM; while :; do sleep 3600 & wait $!; done";
        let group = libc::pid_t::try_from(group).ok()?;
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", SCRIPT, "karsinta-watcher"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(group);
        // SAFETY: getpid is async-signal-safe.
        let parent = unsafe { libc::getpid() };
        // SAFETY: as in `configure`: only prctl and getppid between fork
        // and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    return Err(std::io::Error::other("parent exited"));
                }
                Ok(())
            });
        }
        Some(cmd)
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn watcher(_group: u32) -> Option<Command> {
        None
    }

    /// Make writes to `fd` fail with `WouldBlock` instead of blocking.
    pub(super) fn set_nonblocking(fd: &impl std::os::fd::AsRawFd) {
        let fd = fd.as_raw_fd();
        // SAFETY: fcntl on a file descriptor we own; flags are only read and
        // extended with O_NONBLOCK.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
            }
        }
    }

    /// User + system CPU time of this process or of its reaped children.
    pub(super) fn cpu_time(children: bool) -> std::time::Duration {
        let who = if children {
            libc::RUSAGE_CHILDREN
        } else {
            libc::RUSAGE_SELF
        };
        // SAFETY: rusage is plain old data; getrusage only writes into it.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `usage` is a valid, writable rusage.
        if unsafe { libc::getrusage(who, &mut usage) } != 0 {
            return std::time::Duration::ZERO;
        }
        let tv = |t: libc::timeval| {
            std::time::Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
                + std::time::Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
        };
        tv(usage.ru_utime) + tv(usage.ru_stime)
    }

    /// SIGKILL the process group `pid` (the child leads its own group).
    pub(super) fn kill_group(pid: u32) {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            if pid > 0 {
                // SAFETY: plain system call; a negative pid names the group.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
        }
    }
}

#[cfg(not(unix))]
mod sys {
    use std::process::Command;

    pub(super) fn configure(_cmd: &mut Command) {}

    pub(super) fn set_nonblocking<T>(_stdin: &T) {}

    /// Without process groups the owner's `Child::kill` does the work.
    pub(super) fn kill_group(_pid: u32) {}

    pub(super) fn watcher(_group: u32) -> Option<Command> {
        None
    }

    pub(super) fn cpu_time(_children: bool) -> std::time::Duration {
        std::time::Duration::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_are_recognised() {
        assert!(is_progress(b"info depth 3 score cp 1"));
        assert!(is_progress(b"  7   -35  120  45678 e7e5"));
        assert!(is_progress(b"12. 30 5 900 e2e4"));
        for other in [
            &b"bestmove e2e4"[..],
            b"readyok",
            b"move e7e5",
            b"",
            b"pong 3",
            b"1-0 {White mates}",
            b"1/2-1/2 {Draw}",
        ] {
            assert!(!is_progress(other), "{:?}", String::from_utf8_lossy(other));
        }
        assert!(only_progress(b"info a\n  3 10 5 99 e2e4\n"));
        // A wanted line anywhere releases the chunk, not only at its end.
        assert!(!only_progress(b"info a\nbestmove x\ninfo string done\n"));
        assert!(!only_progress(b"readyok\n"));
    }
}
