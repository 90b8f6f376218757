//! The helper these tests share with the root package's tests (the sample database in both
//! engines and its checksums), included from `tests/it/common/`.

#![allow(dead_code)]

use std::path::PathBuf;

/// The repository's root (the samples and the query corpora live there).
pub fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[path = "../../../../tests/it/common/sql_fixture.rs"]
pub mod sql_fixture;
