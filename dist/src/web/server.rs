//! The HTTP loop on tiny_http (synchronous, no async runtime): a fixed
//! set of threads, each with its own database connection, take requests
//! from the one listener. Every request is answered from its route: a
//! page, JSON, a write (stop, purge, priority, throughput, approve), or a
//! 4xx naming why; nothing it sends can panic a thread or change the
//! database except an authorised write.

use std::io::Read;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tiny_http::{Header, Request, Response};

use crate::db::{Db, DbError};
use crate::queue;
use crate::web::route::{route, share_change, Route, ShareChange};
use crate::web::token::Token;
use crate::web::{api, pages};

/// Largest request body read; a longer one gets 413.
pub const MAX_BODY: usize = 4096;

/// How long a request waits on an unreachable database before a 503.
const REQUEST_PATIENCE: Duration = Duration::from_secs(5);

/// What [`Web::run`] needs.
pub struct ServeOptions {
    /// The connection string (never shown in any answer).
    pub url: String,
    /// How long to retry the database at start-up.
    pub patience: Duration,
    /// The write token; `None`: read-only.
    pub token: Option<Token>,
    /// Request threads (each holds one connection).
    pub threads: usize,
}

/// A bound listener, not serving yet.
pub struct Web {
    server: Arc<tiny_http::Server>,
}

/// An answer: status, content type, body, and the `Allow` of a 405.
#[derive(Debug)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
    /// For a 405.
    pub allow: Option<&'static str>,
}

const JSON: &str = "application/json";
const TEXT: &str = "text/plain; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

fn ok(content_type: &'static str, body: String) -> Reply {
    Reply {
        status: 200,
        content_type,
        body,
        allow: None,
    }
}

/// An error answer: JSON `{"error": ...}` under `/api/`, text elsewhere.
fn error(api: bool, status: u16, message: &str) -> Reply {
    if api {
        Reply {
            status,
            content_type: JSON,
            body: json!({ "error": message }).to_string(),
            allow: None,
        }
    } else {
        Reply {
            status,
            content_type: TEXT,
            body: format!("{status}: {message}\n"),
            allow: None,
        }
    }
}

/// A database failure: statement and connection errors (whose text may
/// name the server) are logged, and the client only learns that the
/// database is unavailable; a stored test that cannot be read is named.
fn db_error(api: bool, e: DbError) -> Reply {
    match e {
        DbError::Invalid(m) => error(api, 500, &m),
        other => {
            eprintln!("karsinta-dist serve: {other}");
            error(api, 503, "the database is unavailable")
        }
    }
}

impl Web {
    /// Listen on `addr` (`127.0.0.1:0` picks a free port).
    pub fn bind(addr: &str) -> Result<Web, String> {
        let server = tiny_http::Server::http(addr).map_err(|e| format!("--listen {addr}: {e}"))?;
        Ok(Web {
            server: Arc::new(server),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.server.server_addr().to_ip()
    }

    /// Serve until the process ends. Opens every thread's connection first,
    /// so that a database that cannot be reached is a start-up error.
    pub fn run(self, opts: &ServeOptions) -> Result<(), DbError> {
        let mut dbs = Vec::new();
        for _ in 0..opts.threads.max(1) {
            let mut db = Db::open(&opts.url, opts.patience)?;
            db.patience = REQUEST_PATIENCE;
            dbs.push(db);
        }
        let handles: Vec<_> = dbs
            .into_iter()
            .map(|mut db| {
                let server = self.server.clone();
                let token = opts.token.clone();
                std::thread::spawn(move || loop {
                    match server.recv() {
                        Ok(mut req) => {
                            // A bug in one answer costs that request a 500,
                            // not the thread.
                            let reply = std::panic::catch_unwind(AssertUnwindSafe(|| {
                                answer(&mut db, token.as_ref(), &mut req)
                            }))
                            .unwrap_or_else(|_| error(false, 500, "internal error"));
                            respond(req, reply);
                        }
                        // The listener's accept failed (out of file
                        // descriptors, say): wait a little and go on.
                        Err(e) => {
                            eprintln!("karsinta-dist serve: {e}");
                            std::thread::sleep(Duration::from_millis(100));
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            let _ = h.join();
        }
        Ok(())
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("ASCII header")
}

fn respond(req: Request, r: Reply) {
    let mut resp = Response::from_string(r.body)
        .with_status_code(r.status)
        .with_header(header("Content-Type", r.content_type))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Content-Type-Options", "nosniff"))
        .with_header(header(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             frame-ancestors 'none'",
        ));
    if let Some(a) = r.allow {
        resp = resp.with_header(header("Allow", a));
    }
    // A client gone before its answer is its own business.
    let _ = req.respond(resp);
}

/// Read the body, at most [`MAX_BODY`] bytes; `Err` is the reply.
fn read_body(req: &mut Request, api: bool) -> Result<Vec<u8>, Reply> {
    if req.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(error(api, 413, "the body is over 4 KiB"));
    }
    let mut body = Vec::new();
    req.as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|e| error(api, 400, &format!("unreadable body: {e}")))?;
    if body.len() > MAX_BODY {
        return Err(error(api, 413, "the body is over 4 KiB"));
    }
    Ok(body)
}

/// The answer to one request.
pub fn answer(db: &mut Db, token: Option<&Token>, req: &mut Request) -> Reply {
    let api = req.url().starts_with("/api/");
    let body = match read_body(req, api) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let method = req.method().as_str().to_string();
    let r = match route(&method, req.url()) {
        Ok(r) => r,
        Err(rej) => {
            let mut reply = error(api, rej.status, &rej.message);
            reply.allow = rej.allow;
            return reply;
        }
    };
    if r.writes() {
        let Some(token) = token else {
            return error(
                api,
                403,
                "this server is read-only: start it with --token-file or KARSINTA_DIST_TOKEN",
            );
        };
        let auth = req
            .headers()
            .iter()
            .find(|h| h.field.equiv("Authorization"))
            .map(|h| h.value.as_str().to_string());
        if !token.accepts(auth.as_deref()) {
            return error(api, 403, "writes need Authorization: Bearer <token>");
        }
    }
    // A priority or throughput is checked before the database is asked.
    let change = match r {
        Route::Priority(_) | Route::Throughput(_) => match share_change(&r, &body) {
            Ok(c) => Some(c),
            Err(rej) => return error(api, rej.status, &rej.message),
        },
        _ => None,
    };
    dispatch(db, &r, change).unwrap_or_else(|e| db_error(api, e))
}

fn dispatch(db: &mut Db, r: &Route, change: Option<ShareChange>) -> Result<Reply, DbError> {
    let json = |v: serde_json::Value| ok(JSON, v.to_string());
    let missing = |n: &str| error(true, 404, &format!("no test named {n}"));
    Ok(match r {
        Route::TestsPage => ok(HTML, pages::tests_page()),
        Route::MachinesPage => ok(HTML, pages::machines_page()),
        Route::TestPage(n) => {
            if db.run(|c| api::exists(c, n))? {
                ok(HTML, pages::test_page(n))
            } else {
                error(false, 404, &format!("no test named {n}"))
            }
        }
        Route::ApiTests => json(db.run(api::tests)?),
        Route::ApiMachines => json(db.run(api::machines)?),
        Route::ApiTest(n) => match db.run(|c| api::test(c, n))? {
            Some(v) => json(v),
            None => error(true, 404, &format!("no test named {n}")),
        },
        Route::Stop(n) => {
            if db.run(|c| queue::stop(c, n, "stopped from the live view"))? {
                json(json!({ "stopped": n }))
            } else {
                missing(n)
            }
        }
        Route::Purge(n, worker) => match db.run(|c| queue::purge_test(c, n, *worker)) {
            Ok(done) => json(json!({
                "purged": done.iter().map(|(w, reason, p)| json!({
                    "worker": w, "reason": reason, "batches": p.batches.len(), "pairs": p.pairs,
                })).collect::<Vec<_>>(),
            })),
            // A wrong test, worker or kind is the request's fault: 4xx,
            // nothing changed (the purge is one transaction).
            Err(DbError::Invalid(m)) => error(true, 400, &m),
            Err(e) => return Err(e),
        },
        Route::Priority(n) | Route::Throughput(n) => {
            // As `karsinta-dist set`: the same update, one field.
            let (priority, throughput) = match change {
                Some(ShareChange::Priority(p)) => (Some(p), None),
                Some(ShareChange::Throughput(w)) => (None, Some(w)),
                None => return Ok(error(true, 400, "no value given")),
            };
            if db.run(|c| queue::set_share(c, n, priority, throughput))? {
                let t = db.run(|c| queue::test_by_name(c, n))?;
                json(json!({
                    "test": n, "priority": t.share.priority, "throughput": t.share.throughput,
                }))
            } else {
                missing(n)
            }
        }
        Route::Approve(n) => match db.run(|c| queue::approve(c, n))? {
            Some(was_held) => json(json!({ "approved": n, "was_held": was_held })),
            None => missing(n),
        },
    })
}
