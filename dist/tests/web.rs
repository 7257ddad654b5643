//! `karsinta-dist serve` against a real PostgreSQL: every route's answer,
//! the security cases (each a 4xx that leaves the database as it was), the
//! token, and with a live worker the JSON and the pages in headless
//! Chromium changing as batches complete.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::pg::TempPg;
use crate::support::{assumed_worker, cli, worker, write_config};

/// A running `serve`, killed on drop.
struct Served {
    child: Child,
    addr: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `serve` on a free port with `extra` flags and environment; its first
/// line says where it listens.
fn serve(pg: &TempPg, extra: &[&str], env: Option<&str>) -> Served {
    let mut args = vec!["serve", "--listen", "127.0.0.1:0", "--threads", "2"];
    args.extend_from_slice(extra);
    let mut c = cli(pg, &args);
    c.env_remove("KARSINTA_DIST_TOKEN");
    if let Some(t) = env {
        c.env("KARSINTA_DIST_TOKEN", t);
    }
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .strip_prefix("serving http://")
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("serve said {line:?}"))
        .to_string();
    Served { child, addr }
}

/// One raw request; the status (0: the connection closed without one) and
/// the body.
fn raw(addr: &str, request: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = s.write_all(request);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |b| b.1).to_string();
    (status, body)
}

fn request(addr: &str, method: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    raw(addr, req.as_bytes())
}

fn get(addr: &str, path: &str) -> (u16, String) {
    request(addr, "GET", path, "", "")
}

fn get_json(addr: &str, path: &str) -> Value {
    let (status, body) = get(addr, path);
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

/// Everything a request could change.
fn snapshot(pg: &TempPg) -> String {
    let mut c = pg.client();
    let mut out = String::new();
    for q in [
        "SELECT name || stopped::text || coalesce(stop_reason, '-') || prefix_batches::text \
         || sprt_pairs::text || coalesce(decision, '-') || priority::text || throughput::text \
         || held::text FROM dist_tests ORDER BY id",
        "SELECT test_id::text || idx::text || state || coalesce(lease_token::text, '-') \
         FROM dist_batches ORDER BY test_id, idx",
        "SELECT count(*)::text FROM dist_pairs",
        "SELECT count(*)::text FROM dist_workers",
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'",
    ] {
        for r in c.query(q, &[]).unwrap() {
            out.push_str(&r.get::<_, String>(0));
            out.push('\n');
        }
    }
    out
}

fn create(pg: &TempPg, cfg: &std::path::Path) {
    let out = cli(pg, &["create", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const TOKEN: &str = "s3cret-token-0123456789";

#[test]
fn bad_requests_get_4xx_and_leave_the_database_unchanged() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    create(&pg, &write_config(dir.path(), "sec", 8, true, 2, 30));
    let before = snapshot(&pg);
    let s = serve(&pg, &[], None);
    let a = s.addr.as_str();

    // Every route answers; no answer shows where the database is.
    let socket_dir = pg.dir.path().display().to_string();
    for path in [
        "/",
        "/test/sec",
        "/machines",
        "/api/tests",
        "/api/test/sec",
        "/api/machines",
    ] {
        let (status, body) = get(a, path);
        assert_eq!(status, 200, "{path}: {body}");
        assert!(
            !body.contains(&socket_dir) && !body.contains(&pg.url()),
            "{path}"
        );
    }
    let tests = get_json(a, "/api/tests");
    assert_eq!(tests["tests"][0]["name"], "sec");
    assert_eq!(tests["tests"][0]["games"], 0);
    assert_eq!(tests["tests"][0]["batches"], 2);
    assert_eq!(tests["tests"][0]["priority"], 0);

    let huge = "x".repeat(5000);
    let cases: Vec<(u16, &str, String, String)> = vec![
        (404, "GET", "/nope".into(), String::new()),
        (404, "GET", "/test/none".into(), String::new()),
        (404, "GET", "/api/test/none".into(), String::new()),
        (404, "GET", "/api/test/sec/start".into(), String::new()),
        (405, "POST", "/api/tests".into(), String::new()),
        (405, "GET", "/api/test/sec/stop".into(), String::new()),
        (405, "DELETE", "/".into(), String::new()),
        (400, "GET", "/test/..".into(), String::new()),
        (400, "GET", "/api/test/../tests".into(), String::new()),
        (400, "GET", "//api/tests".into(), String::new()),
        (400, "POST", "/api/test/%2e%2e/stop".into(), String::new()),
        (
            400,
            "POST",
            "/api/test/sec%2F..%2F/stop".into(),
            String::new(),
        ),
        (
            400,
            "POST",
            "/api/test/sec';DROP(dist_tests);--/stop".into(),
            String::new(),
        ),
        (400, "GET", "/api/test/sec'OR'1'='1".into(), String::new()),
        (
            400,
            "GET",
            format!("/api/test/{}", "a".repeat(65)),
            String::new(),
        ),
        (413, "POST", "/api/test/sec/stop".into(), huge.clone()),
        (413, "GET", "/api/tests".into(), huge.clone()),
        // Read-only: a well-formed stop or purge is refused.
        (403, "POST", "/api/test/sec/stop".into(), String::new()),
        (403, "POST", "/api/test/sec/purge".into(), String::new()),
        (403, "POST", "/api/test/sec/approve".into(), String::new()),
        (
            403,
            "POST",
            "/api/test/sec/priority".into(),
            r#"{"priority": 3}"#.into(),
        ),
        (
            400,
            "POST",
            "/api/test/sec/purge/1;DELETE".into(),
            String::new(),
        ),
        (405, "GET", "/api/test/sec/purge/1".into(), String::new()),
    ];
    for (want, method, path, body) in &cases {
        let (got, text) = request(a, method, path, "", body);
        assert_eq!(got, *want, "{method} {path}: {text}");
    }
    // A chunked body over the limit, without a length up front.
    let chunk = format!("{:x}\r\n{huge}\r\n0\r\n\r\n", huge.len());
    let (got, _) = raw(
        a,
        format!(
            "POST /api/test/sec/stop HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
             Transfer-Encoding: chunked\r\n\r\n{chunk}"
        )
        .as_bytes(),
    );
    assert_eq!(got, 413, "chunked");
    // Malformed requests: a 400 or a closed connection, and the server
    // still answers afterwards.
    for junk in [
        &b"GARBAGE\r\n\r\n"[..],
        b"GET\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET / HTTP/1.1\r\nbad header line\r\n\r\n",
        b"\xff\xfe / HTTP/1.1\r\n\r\n",
        b"POST /api/test/sec/stop HTTP/1.1\r\nContent-Length: -3\r\n\r\n",
    ] {
        let (got, text) = raw(a, junk);
        assert!(
            got == 0 || (400..500).contains(&got),
            "{junk:?}: {got} {text}"
        );
    }
    assert_eq!(get(a, "/api/tests").0, 200);
    assert_eq!(
        snapshot(&pg),
        before,
        "a refused request changed the database"
    );
    drop(s);

    // With a token: a missing or wrong one is refused, the right one stops.
    let tf = dir.path().join("token");
    std::fs::write(&tf, format!("{TOKEN}\n")).unwrap();
    let s = serve(&pg, &["--token-file", tf.to_str().unwrap()], None);
    let a = s.addr.as_str();
    for auth in [
        "",
        "Authorization: Bearer wrong-token-0123456789\r\n",
        "Authorization: s3cret-token-0123456789\r\n",
    ] {
        let (got, text) = request(a, "POST", "/api/test/sec/stop", auth, "");
        assert_eq!(got, 403, "{auth:?}: {text}");
    }
    let bearer = format!("Authorization: Bearer {TOKEN}\r\n");
    assert_eq!(
        request(a, "POST", "/api/test/none/stop", &bearer, "").0,
        404
    );
    // A purge of a worker that never played the test: 400, nothing purged.
    let (got, text) = request(a, "POST", "/api/test/sec/purge/987654", &bearer, "");
    assert_eq!(got, 400, "{text}");
    assert!(text.contains("did not play test sec"), "{text}");
    // fishtest's rule over a test without bad workers purges nothing.
    let (got, text) = request(a, "POST", "/api/test/sec/purge", &bearer, "");
    assert_eq!((got, text.contains("\"purged\":[]")), (200, true), "{text}");
    assert_eq!(
        snapshot(&pg),
        before,
        "a refused write changed the database"
    );
    let (got, text) = request(a, "POST", "/api/test/sec/stop", &bearer, "");
    assert_eq!(got, 200, "{text}");
    let row = pg
        .client()
        .query_one(
            "SELECT stopped, stop_reason FROM dist_tests WHERE name = 'sec'",
            &[],
        )
        .unwrap();
    assert!(row.get::<_, bool>(0));
    assert_eq!(row.get::<_, String>(1), "stopped from the live view");
    assert_eq!(get_json(a, "/api/test/sec")["test"]["status"], "halted");
    drop(s);
    // The environment's token works the same.
    let s = serve(&pg, &[], Some(TOKEN));
    assert_eq!(
        request(&s.addr, "POST", "/api/test/sec/stop", &bearer, "").0,
        200
    );
}

/// A fleet worker without `--test` (the queue's rule picks), its speed
/// assumed; its output once it exits.
fn queue_worker(pg: &TempPg) -> std::process::Output {
    let child = assumed_worker(pg, &[])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = crate::support::wait(child, Duration::from_secs(300));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Batches of test `name` ever claimed, and done.
fn claimed_and_done(pg: &TempPg, name: &str) -> (i64, i64) {
    let r = pg
        .client()
        .query_one(
            "SELECT coalesce(sum(b.claims), 0)::bigint, count(*) FILTER (WHERE b.state = 'done') \
             FROM dist_batches b JOIN dist_tests t ON t.id = b.test_id WHERE t.name = $1",
            &[&name],
        )
        .unwrap();
    (r.get(0), r.get(1))
}

/// Priority, throughput and approval as writes of the live view: bad or
/// unauthenticated ones change nothing, good ones change the row; a test
/// made with `--hold` is not claimed by the queue's workers until it is
/// approved (from the live view, or by `karsinta-dist approve`).
#[test]
fn priority_throughput_and_approval_from_the_live_view() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for name in ["held", "held2"] {
        let cfg = write_config(dir.path(), name, 4, false, 2, 30);
        let out = cli(&pg, &["create", cfg.to_str().unwrap(), "--hold"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("approve"), "{text}");
    }
    let out = cli(&pg, &["status", "held"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("awaiting approval"), "{text}");
    let tf = dir.path().join("token");
    std::fs::write(&tf, format!("{TOKEN}\n")).unwrap();
    let s = serve(&pg, &["--token-file", tf.to_str().unwrap()], None);
    let a = s.addr.as_str();
    let t = &get_json(a, "/api/tests")["tests"][0];
    assert_eq!(
        (&t["status"], &t["held"]),
        (&"awaiting approval".into(), &true.into())
    );

    // The queue's worker passes held tests over: nothing claimed.
    queue_worker(&pg);
    assert_eq!(claimed_and_done(&pg, "held"), (0, 0));
    assert_eq!(claimed_and_done(&pg, "held2"), (0, 0));

    let before = snapshot(&pg);
    let bearer = format!("Authorization: Bearer {TOKEN}\r\n");
    let wrong = "Authorization: Bearer wrong-token-0123456789\r\n";
    let cases: Vec<(u16, &str, &str, &str)> = vec![
        (403, "", "priority", r#"{"priority": 3}"#),
        (403, wrong, "throughput", r#"{"throughput": 50}"#),
        (403, "", "approve", ""),
        (403, wrong, "approve", ""),
        (400, &bearer, "priority", ""),
        (400, &bearer, "priority", "priority=3"),
        (400, &bearer, "priority", r#"{"priority": "3"}"#),
        (400, &bearer, "priority", r#"{"priority": 2.5}"#),
        (400, &bearer, "priority", r#"{"priority": 4294967296}"#),
        (400, &bearer, "priority", r#"{"priority": 3, "x": 1}"#),
        (400, &bearer, "priority", r#"{"throughput": 3}"#),
        (400, &bearer, "throughput", r#"{"throughput": 0}"#),
        (400, &bearer, "throughput", r#"{"throughput": -5}"#),
        (400, &bearer, "throughput", r#"{"throughput": 1e300}"#),
        (400, &bearer, "throughput", "{"),
    ];
    for (want, auth, what, body) in &cases {
        let path = format!("/api/test/held/{what}");
        let (got, text) = request(a, "POST", &path, auth, body);
        assert_eq!(got, *want, "{auth:?} {path} {body}: {text}");
    }
    for what in ["priority", "approve"] {
        let path = format!("/api/test/none/{what}");
        let (got, _) = request(a, "POST", &path, &bearer, r#"{"priority": 3}"#);
        assert_eq!(got, 404, "{path}");
    }
    assert_eq!(get(a, "/api/test/held/priority").0, 405);
    assert_eq!(
        snapshot(&pg),
        before,
        "a refused write changed the database"
    );

    let (got, text) = request(
        a,
        "POST",
        "/api/test/held/priority",
        &bearer,
        r#"{"priority": -2}"#,
    );
    assert_eq!(got, 200, "{text}");
    let body = r#"{"throughput": 250}"#;
    let (got, text) = request(a, "POST", "/api/test/held/throughput", &bearer, body);
    assert_eq!(got, 200, "{text}");
    let (got, text) = request(a, "POST", "/api/test/held/approve", &bearer, "");
    assert_eq!(
        (got, text.contains("\"was_held\":true")),
        (200, true),
        "{text}"
    );
    let row = pg
        .client()
        .query_one(
            "SELECT priority, throughput, held FROM dist_tests WHERE name = 'held'",
            &[],
        )
        .unwrap();
    let got: (i32, f64, bool) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(got, (-2, 250.0, false));
    let t = &get_json(a, "/api/test/held")["test"];
    assert_eq!(
        (&t["status"], &t["priority"]),
        (&"running".into(), &(-2).into())
    );
    // Approving again changes nothing and says so.
    let (got, text) = request(a, "POST", "/api/test/held/approve", &bearer, "");
    assert_eq!(
        (got, text.contains("\"was_held\":false")),
        (200, true),
        "{text}"
    );

    // The command line's approve, and its refusal of an unknown test.
    let out = cli(&pg, &["approve", "held2"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli(&pg, &["approve", "none"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    // Approved: the queue's worker plays both (held2 first: priority 0
    // is above held's -2).
    queue_worker(&pg);
    assert_eq!(claimed_and_done(&pg, "held"), (1, 1));
    assert_eq!(claimed_and_done(&pg, "held2"), (1, 1));
}

#[test]
fn short_tokens_are_setup_errors_naming_their_source() {
    let Some(pg) = TempPg::start(5) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tf = dir.path().join("short-token");
    std::fs::write(&tf, "short\n").unwrap();
    let out = cli(
        &pg,
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--token-file",
            tf.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("short-token") && err.contains("at least 16"),
        "{err}"
    );
    let out = cli(&pg, &["serve", "--listen", "127.0.0.1:0"])
        .env("KARSINTA_DIST_TOKEN", "0123")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("KARSINTA_DIST_TOKEN"), "{err}");
}

/// Polls `/api/tests` until the first test's games exceed `than`.
fn games_beyond(addr: &str, than: u64) -> Value {
    let start = Instant::now();
    loop {
        let t = get_json(addr, "/api/tests")["tests"][0].clone();
        if t["games"].as_u64().unwrap() > than {
            return t;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no games beyond {than}: {t}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The page at `url` as headless Chromium renders it after its script ran.
fn dump_dom(chromium: &std::path::Path, profile: &std::path::Path, url: &str) -> String {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        dom.contains("<pre id=\"js-errors\"></pre>"),
        "{url}: script errors: {dom}"
    );
    assert!(
        dom.contains("id=\"state\">updated"),
        "{url}: never refreshed: {dom}"
    );
    dom
}

/// The number in the cell `data-k="KEY"` of the row of test `name`.
fn cell(dom: &str, name: &str, key: &str) -> u64 {
    let row = dom
        .split(&format!("<tr data-test=\"{name}\">"))
        .nth(1)
        .unwrap_or_else(|| panic!("no row for {name}: {dom}"));
    let v = row.split(&format!("data-k=\"{key}\">")).nth(1).unwrap();
    v[..v.find('<').unwrap()].parse().unwrap()
}

/// A worker plays a small fixed-node SPRT match while the JSON and the
/// pages (in headless Chromium, when installed) are read twice: the
/// figures move with the completed batches.
#[test]
#[ignore = "slow: real games with a worker process"]
fn live_figures_and_pages_change_as_batches_complete() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "live", 400, true, 2, 30);
    // Narrow error rates: the SPRT runs long enough to be watched.
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("alpha: 0.05, beta: 0.05", "alpha: 0.0001, beta: 0.0001");
    std::fs::write(&cfg, text).unwrap();
    create(&pg, &cfg);
    let s = serve(&pg, &[], None);
    let a = s.addr.clone();
    let mut w = worker(&pg, "live");

    let first = games_beyond(&a, 0);
    // The most games one batch holds.
    let per_batch = first["max_games"]
        .as_u64()
        .unwrap()
        .div_ceil(first["batches"].as_u64().unwrap());
    let done = |t: &Value| t["batches_done"].as_u64().unwrap();
    // One snapshot per read: the counted games never run ahead of the
    // batches done. Waiting beyond every game of the batches done at the
    // first read makes the second read's batches done larger.
    let second = games_beyond(&a, done(&first) * per_batch);
    for t in [&first, &second] {
        assert!(t["games"].as_u64().unwrap() <= done(t) * per_batch, "{t}");
    }
    assert!(done(&second) > done(&first));
    assert_ne!(first["sprt"]["llr"], second["sprt"]["llr"]);
    let detail = get_json(&a, "/api/test/live");
    let workers = detail["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 1);
    assert!(workers[0]["pairs"].as_u64().unwrap() > 0);
    assert!(workers[0]["games_per_minute"].as_f64().unwrap() > 0.0);
    for id in ["t-elo-chart", "t-llr-chart", "t-penta-chart"] {
        assert!(detail["charts"].to_string().contains(id), "no {id}");
    }
    assert!(detail["summary"]["pentanomial"].as_array().unwrap().len() == 5);
    let m = &get_json(&a, "/api/machines")["machines"][0];
    assert_eq!(m["test"], "live");
    assert_eq!(m["active"], true);
    assert!(m["cores"].as_i64().unwrap() >= 1, "{m}");
    assert!(m["nps"].as_u64().unwrap() > 0, "{m}");
    assert!(m["last_heartbeat_seconds"].as_f64().unwrap() < 30.0);

    if let Some(chromium) = karsinta_test_support::chromium() {
        let profile = dir.path().join("chromium");
        let url = format!("http://{a}/");
        let dom1 = dump_dom(&chromium, &profile, &url);
        let g1 = cell(&dom1, "live", "games");
        games_beyond(&a, g1);
        let dom2 = dump_dom(&chromium, &profile, &url);
        let g2 = cell(&dom2, "live", "games");
        assert!(g2 > g1, "the page's games stayed at {g1}");
        assert!(dom2.contains("data-k=\"llr\""), "no LLR bar");
        let page = dump_dom(&chromium, &profile, &format!("http://{a}/test/live"));
        for id in ["t-elo-chart", "t-llr-chart", "t-penta-chart"] {
            assert!(
                page.contains(&format!("<svg id=\"{id}\"")),
                "no {id} on the page"
            );
        }
        let machines = dump_dom(&chromium, &profile, &format!("http://{a}/machines"));
        assert!(machines.contains(">active<"), "{machines}");
    }
    let _ = w.kill();
    let _ = w.wait();
}
