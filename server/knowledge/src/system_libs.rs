//! Who provides a shared library a wheel needs but does not ship (`data/system_libs.toml`), and the exact names of torch's own libraries.

use serde::Deserialize;
use std::sync::OnceLock;

/// One provider of a family of shared libraries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemLibrary {
    /// File-name prefixes the loader asks for (`libmpi.so.` matches `libmpi.so.40`).
    pub sonames: Vec<String>,
    /// What it is, for a message: "Open MPI".
    pub what: String,
    /// What it is used for, so an optional backend can say when it matters.
    pub used_for: String,
    /// PyPI distributions that ship it (installable without root); preferred.
    #[serde(default)]
    pub pip: Vec<String>,
    #[serde(default)]
    pub conda: Vec<String>,
    /// Debian/Ubuntu packages.
    #[serde(default)]
    pub apt: Vec<String>,
    /// Fedora/RHEL packages.
    #[serde(default)]
    pub dnf: Vec<String>,
    #[serde(default)]
    pub note: Option<String>,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    #[serde(default)]
    pub torch_libraries: Vec<String>,
    #[serde(default)]
    pub torch_libraries_source: String,
    #[serde(default)]
    pub system: Vec<SystemLibrary>,
}

pub fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        crate::data::parse("system_libs.toml", include_str!("../data/system_libs.toml"))
    })
}

/// Whether `soname` is one of torch's own libraries, by exact name: `libtorchaudio.so` and
/// `libtorch_scatter.so` are not.
pub fn is_torch_library(soname: &str) -> bool {
    table().torch_libraries.iter().any(|l| l == soname)
}

/// The provider of `soname`, if known.
pub fn system_library(soname: &str) -> Option<&'static SystemLibrary> {
    table()
        .system
        .iter()
        .find(|s| s.sonames.iter().any(|p| soname.starts_with(p.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torch_libraries_are_exact() {
        assert!(is_torch_library("libc10_cuda.so"));
        assert!(is_torch_library("libtorch_cuda_cu.so"));
        assert!(!is_torch_library("libtorchaudio.so"));
        assert!(!is_torch_library("libtorch_scatter.so"));
        assert!(!is_torch_library("libc10.so.1"));
    }

    #[test]
    fn providers_by_prefix() {
        let mpi = system_library("libmpi.so.40").map(|s| s.what.as_str());
        assert_eq!(mpi, Some("Open MPI"));
        assert_eq!(
            system_library("libnccl.so.2").map(|s| s.pip.clone()),
            Some(vec!["nvidia-nccl-cu12".to_owned()])
        );
        assert!(system_library("libfoo.so.1").is_none());
        // A prefix must not match a longer, different name.
        assert!(system_library("libmpi_cxx.so.40").is_none());
    }
}
