//! What the workspace's tests share: the one skip rule ([`skip`]), where the
//! built binaries are ([`bin`], [`example`]), finders for the external tools
//! the slow suites need (Debian's engines, Python `chess`, Chromium), an
//! independent PGN oracle, and the scriptable [`fake_engine`].
//!
//! A test that needs a tool the machine lacks says so in one line and
//! passes, except under `KARSINTA_CI=1`, where it fails: CI installs every
//! tool, so nothing there passes by not running.

pub mod fake_engine;
mod oracle;
mod output;
pub mod packed;

pub use oracle::{replay_with_python_chess, PGN_ORACLE};
pub use output::text;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether a missing tool fails the test instead of skipping it (CI sets it).
pub fn required() -> bool {
    std::env::var_os("KARSINTA_CI").is_some_and(|v| v == "1")
}

/// The one skip rule. The running test needs `needs` (a tool or a
/// platform), which is missing because `why`; `how` says how to get it.
/// Under `KARSINTA_CI=1` this panics; otherwise it prints one line and the
/// caller returns.
pub fn skip(needs: &str, why: &str, how: &str) {
    assert!(
        !required(),
        "KARSINTA_CI=1 but {needs} is missing ({why}): {how}"
    );
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    // Straight to the process's stderr: the test harness captures what
    // `eprintln!` prints in a passing test, and a skip must be seen.
    let _ = writeln!(
        std::io::stderr(),
        "skipped {test}: needs {needs} ({why}); {how}"
    );
}

/// The workspace root (this crate is `tests/support/` in it).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("tests/support sits in the workspace")
        .to_path_buf()
}

/// The target folder of the running test's profile (`target/release` when
/// the test binary is `target/release/deps/NAME-HASH`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in <target>/<profile>/deps")
        .to_path_buf()
}

/// Path of a workspace binary (`karsinta`, `karsinta-engine`) in the test's
/// own profile folder. `cargo test --workspace` builds them (they are the
/// subjects of their own crates' integration tests); a test run of another
/// package alone needs `cargo build` with the same profile first. (Building
/// from here would wait forever on the lock the outer cargo holds.)
pub fn bin(name: &str) -> PathBuf {
    let path = profile_dir().join(name);
    assert!(
        path.exists(),
        "{} is missing: run `cargo test --workspace` (or `cargo build --bins` with this profile) first",
        path.display()
    );
    path
}

/// Path of an example of the package under test (a test fixture such as
/// the fake engine: an example, so it never ships as a product binary).
/// `cargo test` builds a package's examples; `cargo test --test NAME` does
/// not, hence the hint.
pub fn example(name: &str) -> PathBuf {
    let path = profile_dir().join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: run the tests with a plain `cargo test -p PACKAGE` \
         (it builds the package's examples) or `cargo build --examples` with this profile first",
        path.display()
    );
    path
}

/// A Debian chess engine (`/usr/games/NAME`), or a skip.
pub fn debian_engine(name: &str) -> Option<PathBuf> {
    let path = Path::new("/usr/games").join(name);
    if path.exists() {
        return Some(path);
    }
    skip(
        &format!("Debian's {name}"),
        &format!("no {}", path.display()),
        &format!("apt-get install {}", debian_package(name)),
    );
    None
}

/// The Debian package of an engine binary.
fn debian_package(binary: &str) -> &str {
    match binary {
        "toga2" => "toga2",
        "ethereal" | "Ethereal" => "ethereal-chess",
        other => other,
    }
}

/// `python3` with the `chess` package, or a skip.
pub fn python_chess() -> Option<PathBuf> {
    let ok = Command::new("python3")
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(PathBuf::from("python3"));
    }
    skip(
        "Python's chess package",
        "`python3 -c 'import chess'` fails",
        "pip install chess",
    );
    None
}

/// Debian's headless Chromium, or a skip.
pub fn chromium() -> Option<PathBuf> {
    let path = PathBuf::from("/usr/bin/chromium");
    if path.exists() {
        return Some(path);
    }
    skip(
        "Chromium",
        "no /usr/bin/chromium",
        "apt-get install chromium",
    );
    None
}

/// `git`, or a skip.
pub fn git() -> Option<PathBuf> {
    let ok = Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(PathBuf::from("git"));
    }
    skip("git", "`git --version` fails", "install git");
    None
}

/// Environment variable naming the test a child run of the same test binary
/// is for (see [`in_own_process`]).
const OWN_PROCESS_ENV: &str = "KARSINTA_TEST_OWN_PROCESS";

/// Run the calling test alone in a fresh process of this test binary, for
/// tests that touch process-wide state (killing every engine of the
/// process, counting live children, a panic hook). `name` is the test's
/// path inside the binary (`module::test`). Returns true in the child,
/// where the caller runs its body; in the parent it runs the child, asserts
/// that it passed and returns false.
pub fn in_own_process(name: &str) -> bool {
    if std::env::var_os(OWN_PROCESS_ENV).is_some_and(|v| v == name) {
        return true;
    }
    let o = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            name,
            "--include-ignored",
            "--test-threads",
            "1",
            "--nocapture",
        ])
        .env(OWN_PROCESS_ENV, name)
        .output()
        .expect("run the test binary again");
    let out = text(&o);
    assert!(o.status.success(), "{name} in its own process: {out}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("1 passed"),
        "{name} did not run in its own process: {out}"
    );
    // The child's skip lines, if any, are the parent's too.
    for line in String::from_utf8_lossy(&o.stderr).lines() {
        if line.starts_with("skipped ") {
            let _ = writeln!(std::io::stderr(), "{line}");
        }
    }
    false
}
