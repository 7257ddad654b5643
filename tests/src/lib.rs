//! Test-only package: the end-to-end tests live in `tests/`.
