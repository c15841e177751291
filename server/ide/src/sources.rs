//! Which project a source file's path names: a compiler's message about `DCNv2/src/dcn.c` or
//! `…/maskrcnn_benchmark/csrc/…` is about that checkout's build.

use crate::kb;

/// A project's own source folders (`csrc`, `src`, `cuda`, …): the project is the directory
/// above them, never one of them.
pub(crate) const SOURCE_DIRS: &[&str] = &[
    "csrc",
    "src",
    "cuda",
    "cpu",
    "ops",
    "_ext",
    "ext",
    "extensions",
    "kernels",
    "layers",
    "include",
];

/// Directories that name no project wherever a path or a dotted module shows them: the system's
/// and users' folders, build outputs, the folders a checkout keeps its modules in, torch.
const GENERIC_DIRS: &[&str] = &[
    "lib",
    "lib64",
    "libs",
    "build",
    "bin",
    "tmp",
    "dist",
    "home",
    "usr",
    "opt",
    "root",
    "workspace",
    "content",
    "app",
    "code",
    "repo",
    "project",
    "projects",
    "python",
    "setup",
    "source",
    "sources",
    "work",
    "model",
    "models",
    "module",
    "modules",
    "utils",
    "util",
    "core",
    "common",
    "tools",
    "external",
    "third_party",
    "torch",
    "api",
    "binding",
    "bindings",
    "test",
    "tests",
    "examples",
    "scripts",
];

/// Whether a directory (or a dotted module's top level) names no project: one of the source
/// folders or the generic directories above (case-insensitive).
pub(crate) fn names_no_project(dir: &str) -> bool {
    let d = dir.to_ascii_lowercase();
    SOURCE_DIRS.contains(&d.as_str()) || GENERIC_DIRS.contains(&d.as_str())
}

/// The project a compiler's message is about, from the source file it names
/// (`DCNv2/src/cpu/dcn_v2_im2col_cpu.cpp:9:10: fatal error: …`, `…/maskrcnn_benchmark/csrc/cuda/
/// deform_pool_cuda.cu(42): error: …`): a relative path starts at the checkout's root, so its
/// first directory names it; an absolute one names the package directory above the sources'
/// folders (`csrc`, `src`, `cuda`, …), as for a compiled module in a checkout.
/// A C, C++ or CUDA source or header by its file name's extension, as compilers name the file
/// they stopped in.
pub(crate) fn is_source_file(path: &str) -> bool {
    const EXT: &[&str] = &[".cpp", ".cu", ".cc", ".cxx", ".c", ".cuh", ".hpp", ".h"];
    EXT.iter().any(|e| path.ends_with(e))
}

pub(crate) fn source_project(text: &str) -> Option<String> {
    let path = text.split_whitespace().find_map(|tok| {
        let tok = tok.trim_matches(['"', '\'', '`']);
        let end = tok.find([':', '('])?;
        let p = &tok[..end];
        is_source_file(p).then_some(p)
    })?;
    let norm = path.replace('\\', "/");
    // The system's, the toolkit's and installed packages' headers are nobody's project.
    if norm.starts_with("/tmp/")
        || norm.starts_with("/usr/")
        || norm.starts_with("/opt/")
        || norm.contains("/include/")
        || norm.contains("torch/include")
        || norm.contains("site-packages/")
        || norm.contains("dist-packages/")
    {
        return None;
    }
    let dirs: Vec<&str> = norm.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    // A home or mount directory is an absolute path whose leading `/` a paste cut off
    // (`home/mint/…/kernel.cu(548): error`): its first directories are a user's, not a project.
    let cut_root = ["home/", "Users/", "root/", "mnt/"]
        .iter()
        .any(|r| norm.starts_with(r));
    let relative =
        !norm.starts_with('/') && !norm.starts_with('~') && !norm.contains(":/") && !cut_root;
    // Words people put in place of their own directories (`path/to/…`, `xxx/…`).
    const PLACEHOLDER: &[&str] = &["path", "to", "your", "xxx", "XXX", "..."];
    let name = if relative {
        dirs.iter().find(|d| {
            !d.is_empty()
                && **d != "."
                && **d != ".."
                && !PLACEHOLDER.contains(d)
                && !names_no_project(d)
        })?
    } else {
        let tail = &dirs[dirs.len().saturating_sub(4)..];
        let g = tail.iter().position(|c| SOURCE_DIRS.contains(c))?;
        tail.get(g.checked_sub(1)?)?
    };
    let ok = name.len() > 1
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        && !names_no_project(name);
    ok.then(|| kb::normalize(name))
}

/// A top-level compiled module named after its package with a build suffix
/// (`onnxruntime_pybind11_state`, `exllamav2_ext`, `causal_conv1d_cuda`): the package of the
/// stem's own name, the distribution `pip install <stem>` gives (where several distributions
/// share the import, `onnxruntime` and `onnxruntime-gpu`, a name the text shows wins later).
pub(crate) fn stem_package(top: &str) -> Option<String> {
    const SUFFIXES: &[&str] = &[
        "_pybind11_state",
        "_pybind11",
        "_pybind",
        "_ext",
        "_cuda",
        // `grouped_gemm_backend`.
        "_backend",
        "_kernels",
        "_kernel",
        "_cpp",
        "_cc",
        "_C",
    ];
    let stem = SUFFIXES.iter().find_map(|s| top.strip_suffix(s))?;
    // A distribution's import name starts with a letter: `_89_C` (tiny-cuda-nn's module for
    // sm_89) names an architecture, not a package.
    if stem.len() < 3
        || !stem.bytes().next().is_some_and(|c| c.is_ascii_alphabetic())
        || !stem.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
    {
        return None;
    }
    Some(kb::normalize(stem))
}
