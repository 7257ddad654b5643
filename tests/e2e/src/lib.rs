//! The workspace's end-to-end tests (`tests/e2e/*.rs`, one binary) drive
//! the `karsinta` and `karsinta-engine` binaries exactly as a user does,
//! with the helpers of `karsinta-test-support`. The library itself holds
//! [`shape`], the checker of the workspace's layout.

pub mod shape;

use std::path::{Path, PathBuf};

/// The workspace root (this crate is `tests/e2e/` in it).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("tests/e2e sits in the workspace")
        .to_path_buf()
}
