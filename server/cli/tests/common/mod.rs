//! What several CLI test binaries share: the repository root, and the native fixture
//! environments of `tests/native/build.sh` (a fake torch and extensions broken in known ways),
//! built once per test binary.

#![allow(dead_code)] // each test binary uses what it needs

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tests/native/build.sh` run into `CARGO_TARGET_TMPDIR/<dir>`, once for this test binary
/// (the first caller's `dir` names it).
pub fn native_fixtures(dir: &str) -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
        let status = Command::new("bash")
            .arg(repo().join("tests/native/build.sh"))
            .arg(&out)
            .stdout(Stdio::null())
            .status()
            .expect("run tests/native/build.sh");
        assert!(status.success(), "tests/native/build.sh failed");
        out
    })
}
