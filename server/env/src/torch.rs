//! The installed torch: version and CUDA from `torch/version.py`, its library directory, its C++
//! ABI read from `libc10.so`'s exports, and its `Requires-Dist`.

use crate::dist::{Distribution, Requirement};
use crate::facts::LibFacts;
use crate::fsguard::read_text;
use crate::manifests::VersionPy;
use crate::problem::Problem;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorchInstall {
    /// `…/site-packages/torch`.
    pub dir: PathBuf,
    pub version: Option<String>,
    pub cuda: Option<String>,
    pub hip: Option<String>,
    pub lib_dir: PathBuf,
    /// `torch/lib/*.so*`, sorted.
    pub libs: Vec<PathBuf>,
    /// `_GLIBCXX_USE_CXX11_ABI` torch was built with, from `libc10.so` exports.
    pub cxx11_abi: Option<bool>,
    pub requires: Vec<Requirement>,
    /// Version from the distribution metadata, when it differs from nothing else.
    pub dist_version: Option<String>,
}

impl TorchInstall {
    /// Finds `torch/` in the first site-packages holding it.
    pub fn find(site_packages: &[PathBuf], dists: &[Distribution]) -> Option<TorchInstall> {
        Self::find_noting(site_packages, dists).0
    }

    /// [`TorchInstall::find`], plus why `version.py` could not be read when it exists (a
    /// symlink into /proc, a FIFO …): the version then comes from the distribution metadata.
    pub fn find_noting(
        site_packages: &[PathBuf],
        dists: &[Distribution],
    ) -> (Option<TorchInstall>, Vec<Problem>) {
        let Some(dir) = site_packages.iter().map(|s| s.join("torch")).find(|d| {
            // `symlink_metadata`: a version.py that is a link to something unreadable is still
            // torch's, and worth a note.
            std::fs::symlink_metadata(d.join("version.py")).is_ok() || d.join("lib").is_dir()
        }) else {
            return (None, Vec::new());
        };
        let mut problems = Vec::new();
        let vp_path = dir.join("version.py");
        let vp = match read_text(&vp_path) {
            Ok(t) => VersionPy::parse(&t),
            Err(e) => {
                if std::fs::symlink_metadata(&vp_path).is_ok() {
                    problems.push(Problem::at(&vp_path, e));
                }
                VersionPy::default()
            }
        };
        let lib_dir = dir.join("lib");
        let mut libs: Vec<PathBuf> = std::fs::read_dir(&lib_dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.ends_with(".so") || n.contains(".so."))
                    })
                    .collect()
            })
            .unwrap_or_default();
        libs.sort();
        let dist = dists
            .iter()
            .find(|d| d.normalized == "torch" && dir.parent() == Some(d.root.as_path()));
        let torch = TorchInstall {
            version: vp
                .version
                .clone()
                .or_else(|| dist.and_then(|d| d.version.clone())),
            cuda: vp.cuda,
            hip: vp.hip,
            libs,
            cxx11_abi: None,
            requires: dist.map(|d| d.requires_dist.clone()).unwrap_or_default(),
            dist_version: dist.and_then(|d| d.version.clone()),
            dir,
            lib_dir,
        };
        (Some(torch), problems)
    }

    pub fn c10_path(&self) -> Option<PathBuf> {
        let p = self.lib_dir.join("libc10.so");
        p.is_file().then_some(p)
    }

    /// `torch/_C*.so`, the extension `import torch` loads.
    pub fn c_extension(&self) -> Option<PathBuf> {
        let rd = std::fs::read_dir(&self.dir).ok()?;
        let mut c: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("_C.") && n.ends_with(".so"))
            })
            .collect();
        c.sort();
        c.into_iter().next()
    }

    /// A string that changes whenever the torch install changes, for cache keys.
    pub fn identity(&self) -> String {
        let stamp = |p: &Path| {
            std::fs::metadata(p)
                .map(|m| crate::fsguard::stamp(&m))
                .unwrap_or((0, 0))
        };
        let mut s = format!(
            "{}|{}",
            self.dir.display(),
            self.version.as_deref().unwrap_or("?")
        );
        for l in &self.libs {
            let (len, mtime) = stamp(l);
            s.push_str(&format!("|{}:{len}:{mtime}", l.display()));
        }
        s
    }
}

/// Which `std::string` ABI a library's exports use: `Some(true)` for the C++11 ABI.
pub fn cxx11_abi_of(facts: &LibFacts) -> Option<bool> {
    let mut old = false;
    for n in facts.export_names_unordered() {
        if !n.starts_with("_Z") {
            continue;
        }
        if n.contains("St7__cxx11") || n.contains("B5cxx11") {
            return Some(true);
        }
        // `Ss` is the pre-C++11 std::string; as a parameter it appears after a qualifier or `E`.
        if n.contains("RKSs") || n.contains("ESs") || n.contains("PKSs") || n.contains("RSs") {
            old = true;
        }
    }
    old.then_some(false)
}
