//! `karsinta-dist serve`: the live view. Read-only pages (the tests, one
//! test, the machines) that refresh themselves from JSON, the same JSON
//! under `/api/` for scripts, and one write action, `POST
//! /api/test/NAME/stop`, behind a bearer token.
//!
//! - [`route`](mod@route): request line to route, and the 4xx of the rest (pure).
//! - [`token`]: the write token, compared in constant time.
//! - [`api`]: the JSON, from [`crate::status`] and the catalog.
//! - [`pages`]: the HTML shells and their refresh script.
//! - [`server`]: the tiny_http loop.

pub mod api;
pub mod pages;
pub mod route;
pub mod server;
pub mod token;

pub use route::{route, Rejection, Route};
pub use server::{ServeOptions, Web, MAX_BODY};
pub use token::{Token, TOKEN_ENV};
