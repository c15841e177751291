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
    /// Homebrew formulae (macOS).
    #[serde(default)]
    pub brew: Vec<String>,
    #[serde(default)]
    pub note: Option<String>,
    /// Where its own installer puts it, outside the loader's default path (ROCm's
    /// `/opt/rocm/lib`): installed there, it is missing only from the search path.
    #[serde(default)]
    pub install_dir: Option<String>,
    /// Packages with a variant that does not need the library at all (opencv-python's
    /// `-headless` wheels link no libGL): swapping is user-level, unlike installing it.
    #[serde(default)]
    pub variants: Vec<Variant>,
    /// Python packages whose wheels bundle the library from a release on (Shapely 2.0 bundles
    /// GEOS): upgrading them needs no system package.
    #[serde(default)]
    pub bundled_by: Vec<Bundled>,
    pub source: String,
}

/// A Python package whose wheels carry the library from `from` on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundled {
    pub package: String,
    pub from: String,
}

/// A package and its variant without a library (`opencv-python` → `opencv-python-headless`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub package: String,
    pub without: String,
    /// What the variant gives up, for the fix's reason.
    pub lacks: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    #[serde(default)]
    pub torch_libraries: Vec<String>,
    #[serde(default)]
    pub torch_libraries_source: String,
    /// Compiled files a package imports without (file-name prefixes).
    #[serde(default)]
    pub optional_backends: Vec<String>,
    /// Libraries only the NVIDIA driver installs (exact names).
    #[serde(default)]
    pub driver_libraries: Vec<String>,
    #[serde(default)]
    pub optional_source: String,
    #[serde(default)]
    pub system: Vec<SystemLibrary>,
    #[serde(default)]
    pub cuda: Vec<CudaLibrary>,
    #[serde(default)]
    pub tool: Vec<Tool>,
    #[serde(default)]
    pub header: Vec<Header>,
    #[serde(default)]
    pub symbol_provider: Vec<SymbolProvider>,
    #[serde(default)]
    pub cudnn: Vec<CudnnMajor>,
}

/// One cuDNN major (the so-number of `libcudnn*.so.N`, which is cuDNN's, not CUDA's) and the
/// PyPI packages that ship it for each CUDA major.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudnnMajor {
    pub major: u32,
    pub packages: Vec<CudnnPackage>,
    /// The first torch release whose CUDA builds bring this major (bundled, or as their
    /// nvidia-cudnn dependency).
    #[serde(default)]
    pub torch_from: Option<String>,
    pub source: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudnnPackage {
    /// The CUDA major the package is built for.
    pub cuda: u32,
    pub name: String,
    /// The package's versions of this cuDNN major lie below this one (`9` for cuDNN 8).
    #[serde(default)]
    pub below: Option<String>,
    /// The package's versions of this cuDNN major are `major.*`.
    #[serde(default)]
    pub pin_major: bool,
}

/// The cuDNN major a `libcudnn*.so.N` names, with its packages.
pub fn cudnn(soname: &str) -> Option<&'static CudnnMajor> {
    let rest = soname.strip_prefix("libcudnn")?;
    let major: u32 = rest.split(".so.").nth(1)?.split('.').next()?.parse().ok()?;
    table().cudnn.iter().find(|c| c.major == major)
}

/// The cuDNN major the CUDA builds of a torch release bring: the highest whose `torch_from` is
/// not after it.
pub fn torch_cudnn_major(torch: &crate::version::Version) -> Option<u32> {
    table()
        .cudnn
        .iter()
        .filter(|c| {
            c.torch_from
                .as_deref()
                .and_then(crate::version::Version::parse)
                .is_some_and(|from| from <= *torch)
        })
        .map(|c| c.major)
        .max()
}

/// Who defines a plain C symbol that is not torch's: the library (and, for an extension's own
/// core library, the package) that must be loaded for it to resolve.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolProvider {
    /// Symbol-name prefixes (`nccl`, `nvte_`); the longest matching prefix wins. A prefix
    /// ending in `[A-Z]` matches only when an uppercase letter follows it (`gl[A-Z]`:
    /// `glPushGroupMarkerEXT`, not `glob`).
    #[serde(default)]
    pub prefixes: Vec<String>,
    /// C++ namespaces of the demangled names it defines (`cv::`, `google::protobuf::`).
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// What it is, for a message: "NCCL".
    pub what: String,
    /// The library file that defines them (`libnccl.so.2`).
    pub library: String,
    /// The package whose own core library it is (`transformer-engine`), when it is one.
    #[serde(default)]
    pub package: Option<String>,
    /// Where pip's wheel puts the library, relative to site-packages (`nvidia/nccl/lib`).
    #[serde(default)]
    pub pip_dir: Option<String>,
    /// The provider's release that removed these symbols (`2024.1` for MKL's `iJIT_*`): a
    /// provider newer than the binary's, not an older copy, is then the cause.
    #[serde(default)]
    pub removed_in: Option<String>,
    /// Binaries call it without linking it (the compiler emits the calls, as GCC does for
    /// atomics it has no instruction for, and a build without `-l` for it leaves them
    /// undefined): none is loaded, rather than an older copy first.
    #[serde(default)]
    pub unlinked: bool,
    /// The requirement that keeps a provider with the symbols, as conda and pip spell it
    /// (`mkl<2024.1`).
    #[serde(default)]
    pub keep: Option<String>,
    pub source: String,
}

/// The provider of a plain C symbol, by the longest matching prefix.
pub fn symbol_provider(symbol: &str) -> Option<&'static SymbolProvider> {
    longest_match(symbol, |p| &p.prefixes)
}

/// The provider of a C++ symbol, by its demangled name's namespace (`cv::Mat::Mat()` is
/// OpenCV's); the longest matching namespace wins.
pub fn namespace_provider(demangled: &str) -> Option<&'static SymbolProvider> {
    longest_match(crate::demangled_entity(demangled), |p| &p.namespaces)
}

/// The provider one of whose `starts` (prefixes or namespaces) begins `name`, the longest first.
fn longest_match(
    name: &str,
    starts: impl Fn(&SymbolProvider) -> &[String],
) -> Option<&'static SymbolProvider> {
    table()
        .symbol_provider
        .iter()
        .filter_map(|p| {
            starts(p)
                .iter()
                .filter_map(|x| match x.strip_suffix("[A-Z]") {
                    Some(head) => name
                        .strip_prefix(head)
                        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
                        .map(|_| head.len() + 1),
                    None => name.starts_with(x.as_str()).then_some(x.len()),
                })
                .max()
                .map(|n| (n, p))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, p)| p)
}

/// The provider whose library has this stem (`libcudart` for `libcudart.so.12`).
pub fn provider_of_library(stem: &str) -> Option<&'static SymbolProvider> {
    table()
        .symbol_provider
        .iter()
        .find(|p| p.library.split(".so").next() == Some(stem))
}

/// A build tool a fix installs (a C compiler), with its package in each manager.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    pub name: String,
    pub what: String,
    #[serde(default)]
    pub apt: Vec<String>,
    #[serde(default)]
    pub dnf: Vec<String>,
    #[serde(default)]
    pub conda: Vec<String>,
    pub source: String,
}

/// A C/C++ library whose headers a build includes (`cblas.h`, `glm/glm.hpp`), with the
/// development package that installs them in each manager.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// The names as `#include` spells them (`cblas.h`, `google/dense_hash_map`).
    pub headers: Vec<String>,
    pub what: String,
    /// Homebrew formulae (macOS), whose headers sit under `$(brew --prefix FORMULA)/include`.
    #[serde(default)]
    pub brew: Vec<String>,
    #[serde(default)]
    pub apt: Vec<String>,
    #[serde(default)]
    pub dnf: Vec<String>,
    #[serde(default)]
    pub conda: Vec<String>,
    /// A header of one of the CUDA toolkit's libraries (`curand_kernel.h`): a full toolkit of
    /// torch's CUDA release has it in its `include/`, where a runtime-only or partial toolkit
    /// (conda's `cuda-nvcc` alone, a runtime image) does not; its development package's name
    /// carries the CUDA release, so `apt`/`dnf` stay empty.
    #[serde(default)]
    pub cuda_toolkit: bool,
    pub source: String,
}

/// The library whose development package installs the header `name` (as included).
pub fn header(name: &str) -> Option<&'static Header> {
    let name = name.trim_matches(['<', '>', '"', '\'']);
    table()
        .header
        .iter()
        .find(|h| h.headers.iter().any(|x| x == name))
}

/// The build tool called `name` (`c-compiler`).
pub fn tool(name: &str) -> Option<&'static Tool> {
    table().tool.iter().find(|t| t.name == name)
}

/// A CUDA library whose so-number is the CUDA major (`libcudart.so.12`), and the PyPI package
/// that ships it for each major.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudaLibrary {
    /// File-name prefix (`libcudart.so.`); the number after it is the CUDA major.
    pub soname: String,
    pub what: String,
    pub packages: Vec<CudaPackage>,
    pub source: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudaPackage {
    pub major: u32,
    pub name: String,
    /// The package carries no `-cuNN` suffix (CUDA 13 on): its version must be pinned to the
    /// major (`==13.*`).
    #[serde(default)]
    pub pin_major: bool,
}

/// The CUDA library `soname` is, with the CUDA major its so-number names.
pub fn cuda_library(soname: &str) -> Option<(&'static CudaLibrary, u32)> {
    table().cuda.iter().find_map(|c| {
        let rest = soname.strip_prefix(c.soname.as_str())?;
        let major = rest.split('.').next()?.parse().ok()?;
        Some((c, major))
    })
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

/// Whether the compiled file `file_name` is an optional backend its package imports without.
pub fn is_optional_backend(file_name: &str) -> bool {
    table()
        .optional_backends
        .iter()
        .any(|b| file_name.starts_with(b.as_str()))
}

/// Whether `soname` is one of the NVIDIA driver's own libraries (`libcuda.so.1`).
pub fn is_driver_library(soname: &str) -> bool {
    table().driver_libraries.iter().any(|d| d == soname)
}

/// The provider of `soname`, if known.
/// The entry whose `what` starts with `what` (`FFmpeg`, `SoX`): how a package's data names the
/// system library it needs.
pub fn by_what(what: &str) -> Option<&'static SystemLibrary> {
    table().system.iter().find(|s| s.what.starts_with(what))
}

pub fn system_library(soname: &str) -> Option<&'static SystemLibrary> {
    let find = |name: &str| {
        table()
            .system
            .iter()
            .find(|s| s.sonames.iter().any(|p| name.starts_with(p.as_str())))
    };
    // A macOS name the tables list as such (`libomp.dylib`), else its ELF form.
    find(soname).or_else(|| find(&elf_form(soname)?))
}

/// A macOS library's name in the ELF form the tables use (`libavdevice.58.dylib` →
/// `libavdevice.so.58`, `libsndfile.dylib` → `libsndfile.so`): the same library, numbered
/// before the suffix instead of after it.
fn elf_form(name: &str) -> Option<String> {
    let stem = name.strip_suffix(".dylib")?;
    let numbered = stem
        .char_indices()
        .find(|&(i, c)| {
            c == '.'
                && stem[i + 1..]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.')
        })
        .map(|(i, _)| i);
    Some(match numbered {
        Some(i) => format!("{}.so.{}", &stem[..i], &stem[i + 1..]),
        None => format!("{stem}.so"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macos_names_read_as_elf_names() {
        assert_eq!(
            elf_form("libavdevice.58.dylib").as_deref(),
            Some("libavdevice.so.58")
        );
        assert_eq!(
            elf_form("libsndfile.dylib").as_deref(),
            Some("libsndfile.so")
        );
        assert_eq!(elf_form("libsndfile.so.1"), None);
        assert!(system_library("libsndfile.dylib").is_some());
        assert!(system_library("libavutil.57.dylib").is_some());
    }

    #[test]
    fn torch_libraries_are_exact() {
        assert!(is_torch_library("libc10_cuda.so"));
        assert!(is_torch_library("libtorch_cuda_cu.so"));
        assert!(!is_torch_library("libtorchaudio.so"));
        assert!(!is_torch_library("libtorch_scatter.so"));
        assert!(!is_torch_library("libc10.so.1"));
    }

    #[test]
    fn optional_and_driver_libraries() {
        assert!(is_optional_backend("libtorchaudio_sox.so"));
        assert!(is_optional_backend("nvshmem_bootstrap_mpi.so.3"));
        assert!(!is_optional_backend("libtorchaudio.so"));
        assert!(is_optional_backend("libcufile_rdma.so.1"));
        assert!(is_optional_backend("libtorchcodec_heic.so"));
        assert!(!is_optional_backend("libtorchcodec_core7.so"));
        assert!(is_driver_library("libcuda.so.1"));
        assert!(!is_driver_library("libcudart.so.12"));
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
        let what = |s: &str| symbol_provider(s).map(|p| p.what.as_str());
        assert_eq!(
            what("glPushGroupMarkerEXT").map(|w| w.starts_with("OpenGL")),
            Some(true)
        );
        assert_eq!(what("eglGetDisplay"), Some("EGL"));
        assert_eq!(what("glewInit"), Some("GLEW"));
        assert_eq!(what("glob"), None);
        assert_eq!(what("gluPerspective"), Some("GLU"));
        let ns = |s: &str| namespace_provider(s).map(|p| p.library.as_str());
        assert_eq!(
            ns("boost::iostreams::zlib::deflated"),
            Some("libboost_iostreams.so")
        );
        assert_eq!(
            ns(
                "boost::re_detail_106501::cpp_regex_traits_implementation<char>::transform(char const*, char const*) const"
            ),
            Some("libboost_regex.so")
        );
        assert_eq!(
            ns("boost::system::system_category()"),
            Some("libboost_*.so")
        );
        // A prefix must not match a longer, different name (`libmpi.so.` is not
        // `libmpi_mpifh.so.`, the Fortran bindings no entry lists); Open MPI's C++ bindings are
        // listed with it.
        assert!(system_library("libmpi_mpifh.so.40").is_none());
        assert_eq!(
            system_library("libmpi_cxx.so.40").map(|s| s.what.as_str()),
            Some("Open MPI")
        );
    }
}
