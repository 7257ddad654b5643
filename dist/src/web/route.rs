//! A request line to a route, as a pure function: what `serve` answers,
//! and the 4xx of everything else. Nothing here touches the database, so
//! a rejected request cannot change it.
//!
//! Paths are taken literally: no percent-decoding (a valid test name never
//! needs it, so any `%` is refused rather than decoded into `..` or `/`),
//! no `.` or `..` segments, no empty segments (`//`, a trailing `/`). Test
//! names must match `[A-Za-z0-9._-]{1,64}`, so nothing else reaches a
//! query (which is parameterised anyway).

/// What a request asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `GET /`: the test list page.
    TestsPage,
    /// `GET /test/NAME`: one test's page.
    TestPage(String),
    /// `GET /machines`: the machines page.
    MachinesPage,
    /// `GET /api/tests`.
    ApiTests,
    /// `GET /api/test/NAME`.
    ApiTest(String),
    /// `GET /api/machines`.
    ApiMachines,
    /// `POST /api/test/NAME/stop`.
    Stop(String),
    /// `POST /api/test/NAME/purge/WORKER` (a worker id) or
    /// `POST /api/test/NAME/purge` (fishtest's rule picks).
    Purge(String, Option<i64>),
    /// `POST /api/test/NAME/priority`, body `{"priority": N}`.
    Priority(String),
    /// `POST /api/test/NAME/throughput`, body `{"throughput": W}`.
    Throughput(String),
    /// `POST /api/test/NAME/approve`: a held test may be claimed.
    Approve(String),
}

impl Route {
    /// Whether the route changes the database (needs the token).
    pub fn writes(&self) -> bool {
        matches!(
            self,
            Route::Stop(_)
                | Route::Purge(..)
                | Route::Priority(_)
                | Route::Throughput(_)
                | Route::Approve(_)
        )
    }
}

/// What a priority or throughput body asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum ShareChange {
    /// A new priority.
    Priority(i32),
    /// A new throughput weight (checked as `karsinta-dist set` checks it).
    Throughput(f64),
}

/// The body of a priority or throughput write: exactly
/// `{"priority": <whole number>}` or `{"throughput": <number>}` (the key
/// the path names, nothing else), so that a typo is refused rather than
/// half applied. Pure, like [`route`]: a refused body never reaches the
/// database.
pub fn share_change(r: &Route, body: &[u8]) -> Result<ShareChange, Rejection> {
    let key = match r {
        Route::Priority(_) => "priority",
        Route::Throughput(_) => "throughput",
        _ => return Err(reject(400, "this path takes no value")),
    };
    let want = || {
        reject(
            400,
            format!("the body must be a JSON object {{\"{key}\": <number>}} and nothing else"),
        )
    };
    let v: serde_json::Value = serde_json::from_slice(body).map_err(|_| want())?;
    let Some(obj) = v.as_object().filter(|o| o.len() == 1) else {
        return Err(want());
    };
    let Some(n) = obj.get(key) else {
        return Err(want());
    };
    if key == "priority" {
        n.as_i64()
            .and_then(|p| i32::try_from(p).ok())
            .map(ShareChange::Priority)
            .ok_or_else(|| {
                reject(
                    400,
                    format!("priority {n}: must be a whole number (32-bit)"),
                )
            })
    } else {
        let w = n.as_f64().ok_or_else(want)?;
        crate::queue::Share::check_throughput(w)
            .map(ShareChange::Throughput)
            .map_err(|e| reject(400, e.to_string()))
    }
}

/// A refused request: its status and a one-line reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// 400, 404 or 405.
    pub status: u16,
    /// Why, for the response body.
    pub message: String,
    /// For a 405: the method the path takes (the `Allow` header).
    pub allow: Option<&'static str>,
}

fn reject(status: u16, message: impl Into<String>) -> Rejection {
    Rejection {
        status,
        message: message.into(),
        allow: None,
    }
}

/// Longest test name a route accepts.
pub const MAX_NAME: usize = 64;

/// Whether `name` is a test name the server accepts: `[A-Za-z0-9._-]{1,64}`
/// and not `.` or `..`.
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

fn name(raw: &str) -> Result<String, Rejection> {
    if valid_name(raw) {
        Ok(raw.to_string())
    } else {
        Err(reject(
            400,
            format!("test names are [A-Za-z0-9._-]{{1,{MAX_NAME}}}"),
        ))
    }
}

/// A worker id: decimal digits only (no sign, no spaces), as `status` shows.
fn worker_id(raw: &str) -> Result<i64, Rejection> {
    let parsed = raw
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| raw.parse::<i64>().ok())
        .flatten();
    parsed.ok_or_else(|| reject(400, format!("worker ids are whole numbers, not '{raw}'")))
}

/// The route of `method` and `url` (the request target: path and an
/// optional query, which is ignored).
pub fn route(method: &str, url: &str) -> Result<Route, Rejection> {
    let path = url.split_once('?').map_or(url, |(p, _)| p);
    if !path.starts_with('/') {
        return Err(reject(400, "the request target must be a path"));
    }
    if path.contains('%') {
        return Err(reject(400, "encoded characters are not accepted in paths"));
    }
    let segments: Vec<&str> = if path == "/" {
        Vec::new()
    } else {
        path[1..].split('/').collect()
    };
    if segments.iter().any(|s| s.is_empty()) {
        return Err(reject(400, "empty path segment"));
    }
    if segments.iter().any(|s| *s == "." || *s == "..") {
        return Err(reject(400, "`.` and `..` are not accepted in paths"));
    }
    let (route, wants) = match segments.as_slice() {
        [] => (Route::TestsPage, "GET"),
        ["test", n] => (Route::TestPage(name(n)?), "GET"),
        ["machines"] => (Route::MachinesPage, "GET"),
        ["api", "tests"] => (Route::ApiTests, "GET"),
        ["api", "test", n] => (Route::ApiTest(name(n)?), "GET"),
        ["api", "machines"] => (Route::ApiMachines, "GET"),
        ["api", "test", n, "stop"] => (Route::Stop(name(n)?), "POST"),
        ["api", "test", n, "purge"] => (Route::Purge(name(n)?, None), "POST"),
        ["api", "test", n, "purge", w] => (Route::Purge(name(n)?, Some(worker_id(w)?)), "POST"),
        ["api", "test", n, "priority"] => (Route::Priority(name(n)?), "POST"),
        ["api", "test", n, "throughput"] => (Route::Throughput(name(n)?), "POST"),
        ["api", "test", n, "approve"] => (Route::Approve(name(n)?), "POST"),
        _ => return Err(reject(404, format!("no page at {path}"))),
    };
    if method != wants {
        return Err(Rejection {
            status: 405,
            message: format!("{path} takes {wants}, not {method}"),
            allow: Some(wants),
        });
    }
    Ok(route)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(method: &str, url: &str) -> u16 {
        route(method, url).map_or_else(|r| r.status, |_| 200)
    }

    #[test]
    fn every_page_and_api_route() {
        let t = |s: &str| s.to_string();
        assert_eq!(route("GET", "/"), Ok(Route::TestsPage));
        assert_eq!(route("GET", "/?x=1"), Ok(Route::TestsPage));
        assert_eq!(
            route("GET", "/test/a.b-c_9"),
            Ok(Route::TestPage(t("a.b-c_9")))
        );
        assert_eq!(route("GET", "/machines"), Ok(Route::MachinesPage));
        assert_eq!(route("GET", "/api/tests"), Ok(Route::ApiTests));
        assert_eq!(route("GET", "/api/test/e2e"), Ok(Route::ApiTest(t("e2e"))));
        assert_eq!(route("GET", "/api/machines"), Ok(Route::ApiMachines));
        let stop = route("POST", "/api/test/e2e/stop").unwrap();
        assert_eq!(stop, Route::Stop(t("e2e")));
        assert!(stop.writes() && !Route::ApiTests.writes());
        let purge = route("POST", "/api/test/e2e/purge/17").unwrap();
        assert_eq!(purge, Route::Purge(t("e2e"), Some(17)));
        assert!(purge.writes());
        assert_eq!(
            route("POST", "/api/test/e2e/purge").unwrap(),
            Route::Purge(t("e2e"), None)
        );
        for bad in ["-1", "+3", "1e3", "99999999999999999999", "x"] {
            let r = route("POST", &format!("/api/test/e2e/purge/{bad}"));
            assert_eq!(r.unwrap_err().status, 400, "{bad}");
        }
        assert_eq!(
            route("GET", "/api/test/e2e/purge/1").unwrap_err().status,
            405
        );
    }

    #[test]
    fn priority_throughput_and_approve_routes_and_bodies() {
        let t = |s: &str| s.to_string();
        let p = route("POST", "/api/test/e2e/priority").unwrap();
        assert_eq!(p, Route::Priority(t("e2e")));
        let w = route("POST", "/api/test/e2e/throughput").unwrap();
        assert_eq!(w, Route::Throughput(t("e2e")));
        let a = route("POST", "/api/test/e2e/approve").unwrap();
        assert!(p.writes() && w.writes() && a.writes());
        assert_eq!(status("GET", "/api/test/e2e/approve"), 405);
        assert_eq!(status("POST", "/api/test/a'b/priority"), 400);
        let ok = |r: &Route, b: &str| share_change(r, b.as_bytes());
        assert_eq!(ok(&p, r#"{"priority": -3}"#), Ok(ShareChange::Priority(-3)));
        assert_eq!(
            ok(&w, r#"{"throughput": 250.5}"#),
            Ok(ShareChange::Throughput(250.5))
        );
        for (r, body) in [
            (&p, ""),
            (&p, "3"),
            (&p, "priority=3"),
            (&p, r#"{"priority": "3"}"#),
            (&p, r#"{"priority": 3.5}"#),
            (&p, r#"{"priority": 3e0}"#),
            (&p, r#"{"priority": 99999999999}"#),
            (&p, r#"{"priority": null}"#),
            (&p, r#"{"priority": 3, "throughput": 5}"#),
            (&p, r#"{"throughput": 5}"#),
            (&p, r#"[{"priority": 3}]"#),
            (&p, "\u{ff}\u{fe}"),
            (&w, r#"{"throughput": 0}"#),
            (&w, r#"{"throughput": -1}"#),
            (&w, r#"{"throughput": 1e10}"#),
            (&w, r#"{"throughput": "100"}"#),
            (&w, r#"{"priority": 1}"#),
            (&a, r#"{"priority": 1}"#),
        ] {
            assert_eq!(ok(r, body).unwrap_err().status, 400, "{body}");
        }
    }

    #[test]
    fn unknown_paths_are_404_and_wrong_methods_405() {
        for url in [
            "/nope",
            "/api",
            "/api/test",
            "/test",
            "/api/test/a/b",
            "/machines/x",
        ] {
            assert_eq!(status("GET", url), 404, "{url}");
        }
        for (m, url) in [
            ("POST", "/"),
            ("DELETE", "/api/tests"),
            ("PUT", "/api/test/a"),
            ("GET", "/api/test/a/stop"),
            ("HEAD", "/machines"),
        ] {
            let r = route(m, url).unwrap_err();
            assert_eq!(r.status, 405, "{m} {url}");
            assert!(r.allow.is_some());
        }
    }

    #[test]
    fn traversal_and_encodings_are_refused() {
        for url in [
            "/test/..",
            "/test/.",
            "/../etc/passwd",
            "/api/test/../tests",
            "//api/tests",
            "/api//tests",
            "/machines/",
            "/test/%2e%2e",
            "/test/a%2Fb",
            "/api/test/%2E%2E/stop",
            "*",
            "http://x/",
        ] {
            assert_eq!(status("GET", url), 400, "{url}");
        }
    }

    #[test]
    fn names_outside_the_alphabet_are_400() {
        let long = "a".repeat(65);
        for n in [
            "a;DROP TABLE dist_tests",
            "a'b",
            "a b",
            "ä",
            long.as_str(),
            "a\"b",
        ] {
            assert_eq!(status("GET", &format!("/api/test/{n}")), 400, "{n}");
            assert_eq!(status("POST", &format!("/api/test/{n}/stop")), 400, "{n}");
        }
        assert!(valid_name(&"a".repeat(64)));
        assert!(!valid_name(""));
    }
}
