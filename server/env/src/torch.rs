//! The installed torch: version and CUDA from `torch/version.py`, its library directory, its C++
//! ABI read from `libc10.so`'s exports, and its `Requires-Dist`.

use crate::dist::{Distribution, Requirement};
use crate::facts::LibFacts;
use crate::fsguard::read_text;
use crate::manifests::VersionPy;
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
        let dir = site_packages
            .iter()
            .map(|s| s.join("torch"))
            .find(|d| d.join("version.py").is_file() || d.join("lib").is_dir())?;
        let vp = read_text(&dir.join("version.py"))
            .map(|t| VersionPy::parse(&t))
            .unwrap_or_default();
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
        Some(TorchInstall {
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
        })
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
