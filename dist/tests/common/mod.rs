//! A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary
//! folder, `pg_ctl start` on a free port with the unix socket in that
//! folder (no TCP listener), `pg_ctl stop` on drop. The server refuses to
//! run as root, so under root the folder is handed to the `postgres` user
//! and the server programs run through `runuser -u postgres`.
//! The binaries come from `$KARSINTA_PG_BIN` or the newest
//! /usr/lib/postgresql/*/bin (Debian's `postgresql` package).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct TempPg {
    pub dir: tempfile::TempDir,
    pub port: u16,
    bin: PathBuf,
    user: Option<String>,
}

fn pg_bin() -> PathBuf {
    if let Ok(b) = std::env::var("KARSINTA_PG_BIN") {
        return PathBuf::from(b);
    }
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL server binaries: install Debian's `postgresql` package or set KARSINTA_PG_BIN")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    dirs.sort();
    dirs.pop().expect("no /usr/lib/postgresql/*/bin/initdb").1
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl TempPg {
    /// Start a cluster; `max_connections` for the many-worker tests.
    pub fn start(max_connections: u32) -> TempPg {
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
            bin: pg_bin(),
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
        self.server(
            "pg_ctl",
            &[
                "-D",
                self.data().to_str().unwrap(),
                "-m",
                "fast",
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

/// A match config for the tests: two in-process engines at fixed nodes.
pub fn write_config(
    dir: &Path,
    name: &str,
    games: u64,
    sprt: bool,
    batch_pairs: u32,
    lease: u32,
) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let openings = root.join("openings/karsinta-8ply.epd");
    let params = root.join("configs/params/simple.yaml");
    let sprt = if sprt {
        "sprt: { elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 }\n"
    } else {
        ""
    };
    let text = format!(
        "name: {name}\nengines:\n  - name: default\n    type: inprocess\n  - name: simple\n    type: inprocess\n    params_file: {}\n\
         time_control: nodes=400\nopenings:\n  file: {}\n  order: random\nseed: 7\ngames: {games}\nconcurrency: 1\n{sprt}\
         adjudication:\n  max_moves: 80\ndist:\n  batch_pairs: {batch_pairs}\n  lease_seconds: {lease}\n  bench_depth: 3\n",
        params.display(),
        openings.display()
    );
    let p = dir.join(format!("{name}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

/// The `karsinta-dist` binary of this build.
pub const BIN: &str = env!("CARGO_BIN_EXE_karsinta-dist");

/// `karsinta-dist ARGS` against the test's server.
pub fn cli(pg: &TempPg, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("KARSINTA_DATABASE_URL", pg.url())
        .stdin(Stdio::null());
    c
}

/// A fleet worker with one game at a time, stderr captured.
pub fn worker(pg: &TempPg, test: &str) -> Child {
    cli(
        pg,
        &["worker", "--test", test, "--fleet", "--concurrency", "1"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap()
}

/// The worker's output once it exits; a worker still running after `limit` fails the test.
pub fn wait(mut child: Child, limit: Duration) -> std::process::Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("worker still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Returns once `worker` holds a lease (its pid is the worker row's), so a
/// test can kill it mid-batch; fails after two minutes without one.
pub fn wait_until_leasing(c: &mut postgres::Client, worker: &Child) {
    let start = Instant::now();
    loop {
        let held: i64 = c
            .query_one(
                "SELECT count(*) FROM dist_batches b JOIN dist_workers w ON w.id = b.worker_id \
                 WHERE b.state = 'leased' AND w.pid = $1",
                &[&(worker.id() as i32)],
            )
            .unwrap()
            .get(0);
        if held > 0 {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the worker never claimed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
