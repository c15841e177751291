//! What abidoc reads about this machine outside the Python environment (CUDA toolkits under
//! `/usr/local`, `/etc/os-release`, the NVIDIA driver's `/proc` files, where the driver library
//! lives, the user's home and cache variables, a JIT build directory): every such read goes
//! through [`Machine`], so a diagnosis can be tested against a machine described in a fixture
//! ([`DescribedMachine`]) as well as run on the real one ([`RealMachine`]).
//!
//! Reads happen only when the context allows the environment to be read (`use_env`); the
//! callers check that, the trait does not.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    /// A regular file (not a link, not a directory).
    pub is_file: bool,
}

/// The machine's files and variables, as abidoc may read them.
pub trait Machine: Send + Sync {
    /// A regular file's text, up to `cap` bytes (lossy UTF-8); `None` for anything else.
    fn read_text(&self, path: &Path, cap: u64) -> Option<String>;
    /// Whether `path` is a regular file (links followed).
    fn is_file(&self, path: &Path) -> bool;
    /// Whether anything is at `path` (links followed).
    fn exists(&self, path: &Path) -> bool;
    /// Whether `path` is a directory itself, not a link to one.
    fn is_real_dir(&self, path: &Path) -> bool;
    /// The entries of a directory, at most `limit` of them; `None` when it cannot be read.
    fn list_dir(&self, path: &Path, limit: usize) -> Option<Vec<DirEntry>>;
    /// An environment variable of this process.
    fn var(&self, name: &str) -> Option<OsString>;
    /// The text of `/proc/driver/nvidia/version`, when the NVIDIA driver is loaded.
    fn nvidia_driver_version(&self) -> Option<String>;
    /// The texts of `/proc/driver/nvidia/gpus/*/information`, one per GPU.
    fn nvidia_gpu_information(&self) -> Vec<String>;
}

/// This machine, read through `abidoc-env`'s guarded readers (regular files only, bounded
/// sizes; `/proc` only at the driver's fixed paths).
#[derive(Debug, Default, Clone, Copy)]
pub struct RealMachine;

impl Machine for RealMachine {
    fn read_text(&self, path: &Path, cap: u64) -> Option<String> {
        abidoc_env::fsguard::read_text_prefix(path, cap).ok()
    }

    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn is_real_dir(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
    }

    fn list_dir(&self, path: &Path, limit: usize) -> Option<Vec<DirEntry>> {
        let rd = std::fs::read_dir(path).ok()?;
        Some(
            rd.flatten()
                .take(limit)
                .map(|e| DirEntry {
                    name: e.file_name().to_string_lossy().into_owned(),
                    is_file: e.file_type().is_ok_and(|t| t.is_file()),
                })
                .collect(),
        )
    }

    fn var(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }

    fn nvidia_driver_version(&self) -> Option<String> {
        abidoc_env::fsguard::read_nvidia_driver_version()
    }

    fn nvidia_gpu_information(&self) -> Vec<String> {
        abidoc_env::fsguard::read_nvidia_gpu_information()
    }
}

/// A machine described as data: its files (absolute path → text; directories are implied by
/// the paths under them) and its variables. For tests that decide a fix by what a machine has.
#[derive(Debug, Default, Clone)]
pub struct DescribedMachine {
    pub files: BTreeMap<PathBuf, String>,
    pub vars: BTreeMap<String, String>,
}

impl DescribedMachine {
    /// The NVIDIA driver's files, where the real machine has them.
    const DRIVER_VERSION: &'static str = "/proc/driver/nvidia/version";
    const GPUS: &'static str = "/proc/driver/nvidia/gpus";
}

impl Machine for DescribedMachine {
    fn read_text(&self, path: &Path, cap: u64) -> Option<String> {
        let text = self.files.get(path)?;
        let end = usize::try_from(cap).unwrap_or(usize::MAX).min(text.len());
        Some(String::from_utf8_lossy(&text.as_bytes()[..end]).into_owned())
    }

    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }

    fn exists(&self, path: &Path) -> bool {
        self.is_file(path) || self.is_real_dir(path)
    }

    fn is_real_dir(&self, path: &Path) -> bool {
        self.files
            .keys()
            .any(|f| f.starts_with(path) && f.as_path() != path)
    }

    fn list_dir(&self, path: &Path, limit: usize) -> Option<Vec<DirEntry>> {
        if !self.is_real_dir(path) {
            return None;
        }
        let mut out: Vec<DirEntry> = Vec::new();
        for f in self.files.keys() {
            let Ok(rest) = f.strip_prefix(path) else {
                continue;
            };
            let mut parts = rest.components();
            let Some(first) = parts.next() else { continue };
            let name = first.as_os_str().to_string_lossy().into_owned();
            let is_file = parts.next().is_none();
            if !out.iter().any(|e| e.name == name) {
                out.push(DirEntry { name, is_file });
            }
        }
        out.truncate(limit);
        Some(out)
    }

    fn var(&self, name: &str) -> Option<OsString> {
        self.vars.get(name).map(OsString::from)
    }

    fn nvidia_driver_version(&self) -> Option<String> {
        self.read_text(Path::new(Self::DRIVER_VERSION), 4096)
    }

    fn nvidia_gpu_information(&self) -> Vec<String> {
        let gpus = Path::new(Self::GPUS);
        let mut dirs: Vec<String> = self
            .list_dir(gpus, 16)
            .unwrap_or_default()
            .into_iter()
            .filter(|e| !e.is_file)
            .map(|e| e.name)
            .collect();
        dirs.sort();
        dirs.iter()
            .filter_map(|d| self.read_text(&gpus.join(d).join("information"), 4096))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_described_machine_lists_what_its_paths_imply() {
        let mut m = DescribedMachine::default();
        m.files
            .insert("/usr/local/cuda-12.4/bin/nvcc".into(), String::new());
        m.files
            .insert("/etc/os-release".into(), "ID=fedora\n".into());
        let names: Vec<String> = m
            .list_dir(Path::new("/usr/local"), 10)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["cuda-12.4"]);
        assert!(m.is_file(Path::new("/usr/local/cuda-12.4/bin/nvcc")));
        assert!(m.is_real_dir(Path::new("/usr/local/cuda-12.4")));
        assert!(!m.is_real_dir(Path::new("/etc/os-release")));
        assert_eq!(
            m.read_text(Path::new("/etc/os-release"), 3).as_deref(),
            Some("ID=")
        );
        assert!(m.list_dir(Path::new("/opt"), 10).is_none());
    }
}
