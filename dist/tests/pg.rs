//! A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary
//! folder, `pg_ctl start` on a free port with the unix socket in that
//! folder (no TCP listener), `pg_ctl stop` on drop. The server refuses to
//! run as root, so under root the folder is handed to the `postgres` user
//! and the server programs run through `runuser -u postgres`.
//!
//! The server programs come from `$KARSINTA_PG_BIN`, else the newest
//! `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package; the folder
//! searched is `$KARSINTA_PG_LIB` when set, so that a machine without it
//! can be simulated). Without them a test skips, saying so in one line,
//! unless `KARSINTA_CI=1`, under which it fails: CI installs them.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Overrides the folder of the server programs.
pub const PG_BIN_ENV: &str = "KARSINTA_PG_BIN";
/// Overrides the folder searched for `*/bin/initdb` (default Debian's).
pub const PG_LIB_ENV: &str = "KARSINTA_PG_LIB";

/// A running throwaway cluster, stopped (immediately) on drop.
pub struct TempPg {
    /// Data folder, socket and server log.
    pub dir: tempfile::TempDir,
    /// The server's port (its socket's name).
    pub port: u16,
    bin: PathBuf,
    user: Option<String>,
}

/// The folder of `initdb` and `pg_ctl`, or why there is none.
fn pg_bin() -> Result<PathBuf, String> {
    if let Some(b) = std::env::var_os(PG_BIN_ENV) {
        let b = PathBuf::from(b);
        return if b.join("initdb").is_file() {
            Ok(b)
        } else {
            Err(format!("{PG_BIN_ENV}={} holds no initdb", b.display()))
        };
    }
    let lib = std::env::var_os(PG_LIB_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/postgresql"));
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir(&lib)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((v, bin))
        })
        .collect();
    dirs.sort();
    dirs.pop()
        .map(|(_, bin)| bin)
        .ok_or_else(|| format!("no {}/*/bin/initdb", lib.display()))
}

/// Skip the running test in one line, saying how to run it; under
/// `KARSINTA_CI=1`, fail instead (the workspace's one rule).
fn skip(why: &str) {
    karsinta_test_support::skip(
        "PostgreSQL",
        why,
        &format!(
            "install PostgreSQL's server (Debian: apt-get install postgresql) or point \
             {PG_BIN_ENV} at the folder of its initdb and pg_ctl"
        ),
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl TempPg {
    /// Start a cluster (`max_connections` for the many-worker tests), or
    /// skip the running test when PostgreSQL is not installed (see the
    /// module doc): `let Some(pg) = TempPg::start(20) else { return };`.
    pub fn start(max_connections: u32) -> Option<TempPg> {
        match pg_bin() {
            Ok(bin) => Some(TempPg::start_with(bin, max_connections)),
            Err(why) => {
                skip(&why);
                None
            }
        }
    }

    fn start_with(bin: PathBuf, max_connections: u32) -> TempPg {
        let dir = tempfile::Builder::new()
            .prefix("kpg")
            .tempdir()
            .expect("tempdir");
        let is_root = std::fs::metadata("/proc/self")
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
            .unwrap_or(false);
        let user = is_root.then(|| "postgres".to_string());
        if let Some(u) = &user {
            let out = Command::new("id").args(["-u", u]).output().expect("id");
            let gid = Command::new("id").args(["-g", u]).output().expect("id");
            let num = |o: std::process::Output| -> u32 {
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse()
                    .expect("postgres user")
            };
            std::os::unix::fs::chown(dir.path(), Some(num(out)), Some(num(gid))).expect("chown");
        }
        let pg = TempPg {
            port: free_port(),
            bin,
            user,
            dir,
        };
        let data = pg.data();
        pg.server(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        let conf = format!(
            "listen_addresses = ''\nport = {}\nunix_socket_directories = '{}'\nmax_connections = {}\nfsync = off\n",
            pg.port,
            pg.dir.path().display(),
            max_connections
        );
        let conf_path = data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf_path).expect("postgresql.conf");
        text.push_str(&conf);
        std::fs::write(&conf_path, text).expect("postgresql.conf");
        pg.start_server();
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn server(&self, program: &str, args: &[&str]) {
        let exe = self.bin.join(program);
        let mut cmd = match &self.user {
            Some(u) => {
                let mut c = Command::new("runuser");
                c.args(["-u", u, "--"]).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        let out = cmd
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        assert!(
            out.status.success(),
            "{program} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn start_server(&self) {
        let log = self.dir.path().join("server.log");
        self.server(
            "pg_ctl",
            &[
                "-D",
                self.data().to_str().unwrap(),
                "-l",
                log.to_str().unwrap(),
                "-w",
                "start",
            ],
        );
    }

    pub fn stop_server(&self) {
        self.stop_server_mode("fast");
    }

    /// `pg_ctl stop -m immediate`: the server dies without a checkpoint
    /// (as on a crash) and recovers from its WAL at the next start.
    pub fn kill_server(&self) {
        self.stop_server_mode("immediate");
    }

    fn stop_server_mode(&self, mode: &str) {
        self.server(
            "pg_ctl",
            &[
                "-D",
                self.data().to_str().unwrap(),
                "-m",
                mode,
                "-w",
                "stop",
            ],
        );
    }

    /// The end of the server's log (for failure messages).
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// The libpq connection string (unix socket).
    pub fn url(&self) -> String {
        format!(
            "host={} port={} user=postgres dbname=postgres",
            self.dir.path().display(),
            self.port
        )
    }

    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url(), postgres::NoTls).expect("connect")
    }
}

impl Drop for TempPg {
    fn drop(&mut self) {
        let _ = Command::new(match &self.user {
            Some(_) => "runuser",
            None => "true",
        })
        .args(match &self.user {
            Some(u) => vec![
                "-u".to_string(),
                u.clone(),
                "--".to_string(),
                self.bin.join("pg_ctl").display().to_string(),
            ],
            None => vec![],
        })
        .args([
            "-D",
            self.data().to_str().unwrap_or(""),
            "-m",
            "immediate",
            "stop",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
        if self.user.is_none() {
            let _ = Command::new(self.bin.join("pg_ctl"))
                .args([
                    "-D",
                    self.data().to_str().unwrap_or(""),
                    "-m",
                    "immediate",
                    "stop",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}
