//! Problems: what could not be read or understood, reported per file instead of failing.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Something that could not be read or understood. Never fatal: analysis continues around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The file or directory concerned, when there is one.
    pub path: Option<PathBuf>,
    pub message: String,
}

impl Problem {
    pub fn new(path: Option<&Path>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.map(Path::to_path_buf),
            message: message.into(),
        }
    }

    pub fn at(path: &Path, message: impl Into<String>) -> Problem {
        Problem::new(Some(path), message)
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}
