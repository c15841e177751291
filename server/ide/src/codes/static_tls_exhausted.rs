//! `static-tls-exhausted`: glibc cannot load a library at run time because the static TLS
//! surplus it reserves at start-up is spent (`X.so: cannot allocate memory in static TLS block`).
//!
//! A library built with the initial-exec TLS model (GNU OpenMP's `libgomp`, some OpenBLAS and
//! OpenCV builds) takes its thread-local storage from a block sized when the process starts;
//! `dlopen` later has only a small surplus. On aarch64 that surplus is smallest, and an import
//! that loads such a library after others (scikit-learn's or torch's bundled libgomp after
//! OpenCV) fails. Loading the library at start-up, through `LD_PRELOAD`, reserves its space
//! before any import; importing the package that loads it first often does the same.

use super::{Code, CodeDoc, Cx, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, SafePath};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "glibc has no static TLS left for a library loaded at run time (`cannot allocate memory in static TLS block`), usually libgomp on aarch64.",
    meaning: "Libraries built with the initial-exec thread-local-storage model (GNU OpenMP's libgomp above all, and some OpenBLAS and OpenCV builds) need their TLS in a block glibc sizes when the process starts. A `dlopen` after start-up gets only a small surplus, smallest on aarch64 (Jetson, Raspberry Pi, Graviton); once other libraries have used it, importing a package that loads one more such library fails, though the file is there and intact. Older glibc says it as `dlopen: cannot load any more object with static TLS`.",
    fixes: "1. Load the named library at start-up: `LD_PRELOAD=<the library the error names>` before Python starts (a user-level setting, no reinstall). 2. Import the package that loads it first (before OpenCV, say), or, on glibc 2.33 and later, enlarge the surplus (`GLIBC_TUNABLES=glibc.rtld.optional_static_tls=…`).",
    ..CodeDoc::BASE
};

/// An absolute path with its `.` and `..` parts resolved in place
/// (`…/sklearn/__check_build/../../scikit_learn.libs/libgomp.so.1` as the loader prints it).
/// A path that climbs with `..` is kept only where it lands inside an installed package's
/// directory: text can name any file that way, and a preloaded file runs in every process.
fn lexical(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let mut climbed = false;
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
                climbed = true;
            }
            // No Linux file system holds a name longer than NAME_MAX (255 bytes).
            p if p.len() > 255 => return None,
            p => parts.push(p),
        }
    }
    let out = format!("/{}", parts.join("/"));
    let in_packages = ["/site-packages/", "/dist-packages/"]
        .iter()
        .any(|m| out.contains(m));
    (!climbed || in_packages).then_some(out)
}

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, library: Option<&str>) -> Diagnostic {
    let code = Code::StaticTlsExhausted;
    let mut d = super::for_library(code, cx, source, library);
    let file = library.map_or("a library", crate::incidents::basename);
    d.message = format!(
        "glibc could not load {file}: it needs static thread-local storage, and the surplus glibc keeps for libraries loaded after start-up is spent (smallest on aarch64)"
    );
    let mut fixes = Vec::new();
    // The path as the loader printed it: preloaded, the library takes its TLS at start-up.
    if let Some(path) = library
        .filter(|l| l.starts_with('/'))
        .and_then(lexical)
        .as_deref()
        .and_then(SafePath::new)
    {
        fixes.push(
            Fix::new(
                code,
                "preload",
                FixKind::Configure,
                format!("Load {file} at start-up (LD_PRELOAD), before Python imports anything"),
                "Preloaded, the library's thread-local storage is reserved with the process's own; the import then finds it loaded. It applies to the processes started from this shell (or a job script, or a container's environment).",
            )
            .steps(recipes::set_env("LD_PRELOAD", path.as_str())),
        );
    } else {
        fixes.push(
            Fix::in_words(
                code,
                "preload",
                format!("Load {file} at start-up (LD_PRELOAD), before Python imports anything"),
                "Preloaded, the library's thread-local storage is reserved with the process's own; the import then finds it loaded.",
                "export LD_PRELOAD=<full path of the library the error names>, then start Python again",
            ),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "import-first",
            "Or import the package that loads it first",
            "Loaded early, while the surplus is unused, the library fits: importing it (scikit-learn, torch) before OpenCV or the other package that filled the block avoids the failure without changing the environment. On glibc 2.33 and later, GLIBC_TUNABLES=glibc.rtld.optional_static_tls=<bytes> enlarges the surplus.",
            "move the import of the package whose library the error names to the top of the program",
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}
