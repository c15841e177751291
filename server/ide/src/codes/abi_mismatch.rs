//! `abi-mismatch`: a compiled extension needs torch symbols the installed torch does not export
//! (another signature, or gone): it was built against another torch release.
//!
//! Produced by an undefined torch symbol in the text (refined on disk: signature changed or
//! removed), by a package's own version gate that skips its compiled extensions for the torch
//! it finds (torchao; a warning: the package runs without its kernels), and by the scan's torch
//! pin finding (`Requires-Dist: torch==X` against another
//! installed torch). Fixes, best first: uninstall when the model in use does not need it
//! (instant), the companion release built for the installed torch, the torch it was built for,
//! the project's prebuilt wheel, a source build that really compiles; all need confirmation.
//! A package that does not link torch missing a scoped C++ name of another of its libraries (its
//! core library, a dependency's) is the same mismatch between its own libraries: one release,
//! whole.

use super::symbols::Case;
use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef, SymbolStatus};
use crate::fix::{Fix, FixKind, Name, PipFlag, Requirement, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A compiled extension needs symbols the installed torch (or another library it links) does not export: it was built against a different version.",
    meaning: "Extensions call into torch's C++ libraries by exact mangled name, which encodes the function's signature. When torch changes a signature or removes a function between releases, a library built against the old torch asks the loader for a name the installed torch no longer exports, and the import fails with `undefined symbol: _ZN3c10…`. Reinstalling the same wheel brings the same binary back; what helps is a build made for the installed torch, or the torch the binary was made for. Windows says it as `DLL load failed … The specified procedure could not be found` (error 127, in any language): a DLL lacks a function the module imports. At build time the same mismatch is a C++ name or header a torch release removed (`'AT_CHECK' was not declared`, `THC/THC.h: No such file or directory`): the source's port to the names instead, or a torch before the removal (tables in `compat.toml [[torch_api_removed]]`). In Python the same mismatch is a name of torch or a companion (torchvision, torchaudio, torchao, torchtext) that another package imports and the installed release lacks (`cannot import name 'X' from 'torch.…'`, `No module named 'torchvision.transforms.functional_tensor'`, `module 'torch.library' has no attribute 'register_fake'`): the package was released for another release of it. pip says it before the import does: `torchaudio 2.1.0 requires torch==2.1.0, but you have torch 2.0.1 which is incompatible` names a package that links torch pinned to another release line (a warning: pip finished; the release built for the installed torch first, then the torch it pins; a patch release or a `+cuXYZ` label apart keeps the C++ ABI and is no conflict). A package may check it itself (Open3D's `Version mismatch: Open3D needs PyTorch version 1.7.*, but version 1.8.2 is installed!`, TensorFlow alike; DeepSpeed's ops compiled at install, `PyTorch version mismatch! … Install torch version=2.1, Runtime torch version=2.2`): the framework release it names, or its release for the installed one; a package that compiles against torch when installed (DeepSpeed) is first built again against the installed torch, as its own message asks. JAX checks its CUDA plugin the same way (`JAX plugin jax_cuda12_plugin version 0.9.2 is installed, but it is not compatible with the installed jaxlib version 0.9.0.1`): the plugin and its PJRT of the installed jaxlib's version; jax checks jaxlib both ways (`jaxlib is version 0.1.69, but this version of jax requires version 0.1.74`, `jaxlib version 0.4.26 is newer than and incompatible with jax version 0.4.25`): the jax release of the installed jaxlib, or the jaxlib of the installed jax, of the same build. Triton is such a companion: torch's Inductor reads internals of the Triton release torch pins (`triton_key`, `CompiledKernel.launch_enter_hook`, `AttrsDescriptor` as a dataclass), and kernel packages import Triton API that releases remove (`triton.ops` in 3.2): the Triton torch requires (the release tables know it per torch), or the package's release that follows the move. XLA checks any backend plugin's C API the same way (`Mismatched PJRT plugin PJRT API version (0.38) and framework PJRT API version 0.40`, Intel's XPU plugin, Apple's Metal, libtpu): the jax release the plugin was made for, or jax and the plugin together through jax's extra. A package that does not link torch says the same of its own libraries (`openvino/_pyopenvino…so: undefined symbol: _ZN2ov3Any4Base9to_stringEv`, a binding needing a scoped C++ name its core library or a dependency lacks): that library is loaded in another release than the module was built against (two installs mixed, an older copy found first), and the fix is one release of the package, whole. Cython checks the same at import between modules: `cudf._lib.cudf does not export expected C function get_column_data_ptr` says a module compiled with `cimport` of another package's C API (cugraph of cudf's, cuda-core of cuda-bindings') found that package at another release; both installed again in one resolve take releases made for each other.",
    fixes: "1. Uninstall the package when the model in use does not need it (instant, nothing downloaded; offered first only when abidoc knows the model). 2. The companion release built for the installed torch, pinned exactly, with `--no-cache-dir --no-deps`. 3. The torch the binary was built for, saying what else moves. 4. The project's prebuilt wheel for this torch/CUDA/ABI/Python (unverified URL). 5. A source build that really compiles (force-build switch or `--no-binary`, `--no-build-isolation`), with its time and needs. Every command needs the user's confirmation; none needs root.",
    model_decides: true,
    ..CodeDoc::BASE
};

pub(crate) fn symbol(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    if c.python {
        return python_symbol(cx, d, c);
    }
    // Only a torch the index covers is sure to export them: a torch 1.x may predate them.
    let indexed_torch = cx.torch().is_some_and(|t| {
        let first = abidoc_knowledge::torch_index::releases().first();
        match (abidoc_knowledge::Version::parse(&t), first.and_then(|r| abidoc_knowledge::Version::parse(&r.version))) {
            (Some(t), Some(f)) => abidoc_knowledge::Version::parse(t.public()).is_some_and(|p| p >= f),
            _ => false,
        }
    });
    if indexed_torch && let Some(libs) = crate::kb::exported_by_every_release(&d.symbols) {
        return import_order(d, c, &libs);
    }
    // torch's own names only: a library whose load also stops at a missing library lists that
    // library's symbols unresolved as well.
    let unresolved = |torch_only: bool| {
        d.symbols
            .iter()
            .filter(|s| s.status != SymbolStatus::Resolved)
            .filter(|s| !torch_only || crate::symbols::owner(&s.mangled) == crate::symbols::Owner::Torch)
            .count()
    };
    let missing = match unresolved(true) {
        0 => unresolved(false),
        n => n,
    }
    .max(1);
    let of = c
        .facts
        .as_ref()
        .map(|f| f.torch_symbol_count)
        .filter(|n| *n > 0)
        .map(|n| format!(" of its {n} torch symbols"))
        .unwrap_or_else(|| " torch symbol".into());
    let plural = if missing == 1 { "is" } else { "are" };
    let bf = c
        .built_for
        .as_deref()
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    d.message = if c.name.is_empty() {
        format!(
            "{} has an undefined symbol the text cuts off: most often a torch symbol, when it was built against a different torch than {}",
            c.who, c.torch_txt
        )
    } else {
        format!(
            "{} was built against a different torch than {}: {missing}{of} {plural} missing{bf}{}",
            c.who, c.torch_txt, c.cut
        )
    };
    d.explanation = Some(format!("{} is compiled C++ that calls into torch's libraries by exact function signature. It was built against another torch release, in which that function had another signature or existed at all. `pip install` again reuses the same stale wheel; the fix is a build made for the installed torch, or removing the package if nothing needs it.", c.module));
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::AbiMismatch,
        cx,
        d.package.as_deref(),
        d.library.as_deref(),
        &d.symbols,
    ));
}

/// A package that does not link torch missing a scoped C++ name of another of its libraries (its
/// core library, a dependency's): the copy loaded is of another version than the one the module
/// was built against. One release of the package, whole, with nothing older found first.
pub(crate) fn library_skew(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    let pkg = d.package.clone().unwrap_or_else(|| "the package".into());
    d.message = format!(
        "{} needs `{}`, which the library that should define it lacks: a library of {pkg}'s own release or of a dependency is loaded in another version than the one it was built against (two installs mixed, or an older copy found first){}",
        c.who, c.name, c.cut
    );
    d.explanation = Some(format!("{} calls into a C++ library by exact signature. The copy the loader found is of another release: a second install of {pkg} (pip and conda, or two releases' files in one directory), a package of the project at another version (its -dev or tools package), or an older system copy on LD_LIBRARY_PATH. Torch is not involved.", c.module));
    let mut fixes = Vec::new();
    // Only an installed package is pip's to reinstall: a module in a checkout or a system
    // directory came from elsewhere.
    let installed = d
        .library
        .as_deref()
        .is_none_or(|l| l.contains("site-packages") || l.contains("dist-packages"));
    if installed && let Some(n) = Name::new(&pkg) {
        fixes.push(
            Fix::new(
                Code::AbiMismatch,
                "reinstall-whole",
                FixKind::PrebuiltWheel,
                format!("Reinstall {n} whole, one release, without pip's cache"),
                format!("Replaces every file of {n} with those of one release, so its modules and its libraries match; remove other installs of it (conda's, a -dev or tools package of another release) first, and check `ldd` on the module for a copy found elsewhere."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::ForceReinstall, PipFlag::NoCacheDir],
                vec![Requirement::Any(n)],
            )),
        );
    }
    fixes.push(
        Fix::in_words(
            Code::AbiMismatch,
            "find-other-copy",
            "Find the other copy of the library the loader takes",
            "`ldd` on the failing module shows which file each library resolves to; one outside the package's directory (LD_LIBRARY_PATH, /usr/lib, another environment) is the older copy.",
            "ldd <the failing module> | grep -v '=> /lib' ; pip list | grep -i <the package>; conda list | grep -i <the package>",
        ),
    );
    d.fixes = crate::fix::rank(fixes);
}

/// Torch symbols every indexed release exports (`THPVariableClass`): no torch release lacks
/// them, so the binary was not built for another torch — torch's libraries were not in the
/// process when it loaded (imported before `import torch`, or by a Python without torch), or,
/// for symbols of torch's CUDA libraries, the torch installed is a CPU-only build.
fn import_order(d: &mut Diagnostic, c: &Case<'_>, libs: &[&str]) {
    let cuda_lib = libs.iter().find(|l| l.contains("cuda"));
    let span = abidoc_knowledge::torch_index::releases();
    let range = match (span.first(), span.last()) {
        (Some(a), Some(b)) => format!(" ({}–{})", a.version, b.version),
        _ => String::new(),
    };
    d.message = format!(
        "{} needs `{}`, which every torch release exports{range}: torch's libraries were not loaded when it was (import torch first){}, not a build for another torch{}",
        c.who,
        c.name,
        cuda_lib.map_or_else(String::new, |l| format!(
            ", or the torch installed is a CPU-only build without {l}"
        )),
        c.cut
    );
    d.evidence.push(format!(
        "offline torch symbol index: every indexed release{range} exports `{}`{}",
        c.name,
        if libs.is_empty() {
            String::new()
        } else {
            format!(" (from {})", libs.join(", "))
        }
    ));
    d.explanation = Some(format!("{} does not link torch's libraries by path: it expects `import torch` to have loaded them into the process. Imported first (or from a Python where torch is not installed), its torch symbols have no definition yet, whatever the torch version.", c.module));
    let mut fixes = vec![
        Fix::in_words(
            Code::AbiMismatch,
            "import-torch-first",
            format!("Import torch before {}", c.module),
            "`import torch` loads torch's libraries (libtorch_python, libc10, …) that the extension's symbols resolve against; the extension's import must come after it, in the same Python that has torch.",
            format!(
                "add `import torch` before the import of {} (and run it with the Python whose site-packages hold torch)",
                c.module
            ),
        ),
    ];
    if let Some(l) = cuda_lib {
        fixes.push(
            Fix::in_words(
                Code::AbiMismatch,
                "cpu-only-torch",
                format!("Check that torch is a CUDA build ({l} comes only with CUDA builds)"),
                "A CPU-only torch (`+cpu`, or PyPI's default on Windows and macOS) has no CUDA libraries; the extension needs its CUDA build.",
                "python -c \"import torch; print(torch.__version__, torch.version.cuda)\"   # None: a CPU-only build",
            ),
        );
    }
    d.fixes = crate::fix::rank(fixes);
}

/// A CPython C-API function the running interpreter does not export (`PyUnicodeUCS2_*` from a
/// Python 2 narrow build, `_PyThreadState_*` private API of another minor): the module was
/// built for another Python, not another torch. Fixed by the package's build for this Python.
fn python_symbol(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    let ucs2 = c.name.starts_with("PyUnicodeUCS2_") || c.name.starts_with("PyUnicodeUCS4_");
    d.message = format!(
        "{} calls the CPython function `{}`, which the Python running it does not export: it was built for another Python{}, not against another torch{}",
        c.who,
        c.name,
        if ucs2 {
            " (a Python 2 build with the other Unicode width)"
        } else {
            " (another version or build of the interpreter)"
        },
        c.cut
    );
    d.evidence.push(format!(
        "`{}` is CPython's (libpython or the interpreter), not torch's: no torch release is involved",
        c.name
    ));
    d.explanation = Some(format!("A compiled module calls into the interpreter by name. {} was compiled against another Python's headers — a module left from another interpreter (a copied virtual environment, a PYTHONPATH or user site-packages shared between Python versions, an in-place build made with another Python), or a package whose build picked the wrong Python. Its build for the Python in use fixes it.", c.module));
    let mut fixes = Vec::new();
    // Compiled with this interpreter's headers: a wheel reinstall would not prove that (pip may
    // take the same file back from a shared directory), a build does.
    if let Some(pkg) = d.package.as_deref().and_then(Name::new) {
        fixes.push(
            Fix::new(
                Code::AbiMismatch,
                "build-for-python",
                FixKind::SourceBuild,
                format!("Build {pkg} for the Python that imports it"),
                "Compiles the package with this interpreter's headers (`--no-binary`, nothing cached); run it with the same `python` that failed, after taking any other Python's site-packages off PYTHONPATH.",
            )
            .step(recipes::pip_install(
                cx,
                vec![
                    PipFlag::NoCacheDir,
                    PipFlag::ForceReinstall,
                    PipFlag::NoDeps,
                    PipFlag::NoBinary(pkg.clone()),
                ],
                vec![Requirement::Any(pkg.clone())],
            ))
            .cost(crate::fix::Cost {
                downloads: true,
                compiles: Some(crate::fix::Compile {
                    minutes: 2,
                    needs: vec!["a C compiler", "the Python headers (python3-dev)"],
                }),
                also: Vec::new(),
            }),
        );
    }
    // API Python 3 removed (`PyCObject_Type`, `PyString_FromString`, `Py_InitModule4`): a
    // Python 2 module on a Python 3's path (ROS Kinetic's `/opt/ros/kinetic/lib/python2.7/
    // dist-packages/cv2.so`), which no build of the package here replaces. Its directory off
    // the path comes first. (A UCS2/UCS4 symbol is two Python 2 builds: a build fixes that.)
    let python2 = ["PyCObject_", "PyString_", "Py_InitModule4", "PyInt_"]
        .iter()
        .any(|p| c.name.starts_with(p));
    // Its directory is named only for a Python 2 module: another symbol's library may sit in
    // this very environment's site-packages.
    let other_dir = d
        .library
        .as_deref()
        .filter(|_| python2)
        .and_then(|l| {
            ["/dist-packages/", "/site-packages/"]
                .iter()
                .find_map(|m| l.find(m).map(|i| &l[..i + m.len() - 1]))
        })
        .and_then(crate::fix::SafePath::new);
    let mut other = Fix::in_words(
        Code::AbiMismatch,
        "other-python-path",
        match (&other_dir, python2) {
            (Some(dir), true) => format!("Take the Python 2 packages of {dir} off this Python's path"),
            (None, true) => "Take the Python 2 module's directory off this Python's path".to_owned(),
            _ => "Check that the module comes from this Python's own site-packages".to_owned(),
        },
        if python2 {
            "The module was built for Python 2 and sits on this Python's path (a PYTHONPATH a Python 2 setup exported, such as ROS Kinetic's setup.bash): no build of the package here replaces that file, removing its directory from the path lets this Python's own copy load."
        } else {
            "A path of another Python version in the traceback (python2.7/, python3.8/ under a python3.10 run) means PYTHONPATH, a user site or a copied environment mixes interpreters."
        },
        match &other_dir {
            Some(dir) => format!("python -c \"import sys; print(sys.version); print(sys.path)\"   # then remove {dir} from PYTHONPATH (or from sys.path before the import)"),
            None => "python -c \"import sys; print(sys.version); print(sys.path)\"   # then unset PYTHONPATH or remove the other version's directory from it".to_owned(),
        },
    );
    if python2 {
        other = other.leading();
    }
    fixes.push(other);
    d.fixes = crate::fix::rank(fixes);
}

/// The scan's finding that a package pins another torch than the installed one.
pub(crate) fn from_pin(
    cx: &Cx<'_>,
    d: &mut Diagnostic,
    package_version: Option<&str>,
    required: &str,
    installed: &str,
) {
    let pkg = d.package.clone().unwrap_or_else(|| "a package".into());
    let ver = package_version
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    d.message = format!(
        "{pkg}{ver} requires torch {required}, but torch {installed} is installed: its compiled code was built for that torch"
    );
    d.evidence
        .push(format!("Requires-Dist of {pkg}: torch {required}"));
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::AbiMismatch,
        cx,
        d.package.as_deref(),
        d.library.as_deref(),
        &d.symbols,
    ));
}

/// A package that checks the torch it finds and skips its compiled extensions (torchao's
/// `Skipping import of cpp extensions due to incompatible torch version`): built for another
/// torch, running without its kernels. Fixed like a symbol mismatch: the release built for this
/// torch (exact when the tables know it, else torch and the package in one resolve).
pub(crate) fn version_gate(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    package: Option<&str>,
    torch: Option<&str>,
    needs_torch: Option<&str>,
) -> Diagnostic {
    let mut d = blank(Code::AbiMismatch, source);
    d.severity = Severity::Warning;
    d.package = package.map(crate::kb::normalize);
    let pkg = d.package.clone().unwrap_or_else(|| "a package".into());
    let torch_txt = torch.map_or_else(|| "the installed torch".to_owned(), |t| format!("torch {t}"));
    let needs = needs_torch
        .map(|n| format!(" (it needs torch {n} or newer)"))
        .unwrap_or_default();
    d.message = format!(
        "{pkg} was built for another torch than {torch_txt}{needs}: it skips its compiled extensions and runs without them"
    );
    d.evidence
        .push("the package's own version check refused the torch it found; nothing failed to load".into());
    let mut fixes = Vec::new();
    if let (Some(p), Some(t)) = (d.package.as_deref().and_then(Name::new), torch) {
        fixes.extend(recipes::companion_release(
            Code::AbiMismatch,
            cx,
            &p,
            t,
            crate::kb::package(p.as_str()).as_ref(),
        ));
    }
    if fixes.is_empty() {
        fixes = recipes::extension_mismatch(Code::AbiMismatch, cx, d.package.as_deref(), None, &[]);
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A TensorFlow custom op built against another TensorFlow release, which lacks the function
/// it calls: rebuilt against the installed TensorFlow, or the release it was built for.
pub(crate) fn tensorflow_op(d: &mut Diagnostic, lib: &str, name: &str) {
    let code = Code::AbiMismatch;
    d.message = format!(
        "{lib} calls TensorFlow's `{name}`, which the installed TensorFlow does not export: the op was built against another TensorFlow release"
    );
    d.fixes = crate::fix::rank(vec![
        Fix::new(
            code,
            "tf-rebuild",
            FixKind::SourceBuild,
            "Rebuild the op against the installed TensorFlow (its headers and flags)",
            "Custom ops link TensorFlow's C++ library by exact symbol; tf.sysconfig.get_compile_flags() and get_link_flags() give the headers, ABI flag and library of the TensorFlow in use.",
        )
        .step(Step::Manual(
            "rebuild with the flags from tf.sysconfig.get_compile_flags() and tf.sysconfig.get_link_flags(), or install the TensorFlow release the op was built for".into(),
        )),
    ]);
}

/// A build compiling with an older C++ standard than the torch it builds against requires
/// (`#error You need C++17 to compile PyTorch` under `-std=c++14`): the extension's flags were
/// written for an older torch.
pub(crate) fn cxx_standard(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    needs: &str,
    detail: &str,
) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    d.package = extension_built(cx, detail);
    let who = d.package.as_deref().unwrap_or("the extension");
    d.message = format!(
        "{who}'s build compiles with an older C++ standard than torch's headers require (C++{needs}): its build flags were written for an older torch"
    );
    d.evidence.push(format!("the text says: {}", detail.trim()));
    // torch 1.5 moved its headers to C++14, torch 2.1 to C++17.
    let before = if needs == "17" { "2.1" } else { "1.5" };
    d.fixes = crate::fix::rank(vec![
        Fix::in_words(
            code,
            "cxx-standard",
            format!("Build it with C++{needs}: raise the standard its build sets"),
            format!("torch's headers check the standard they are compiled with; the extension's setup.py (extra_compile_args `-std=c++14`, a `cpp_standard` setting) or CMakeLists.txt (CMAKE_CXX_STANDARD) sets an older one for both the C++ and the nvcc compiles. Raised to {needs}, the same sources usually build; newer releases of the project often carry the change."),
            format!(
                "in the extension's setup.py / CMakeLists.txt, replace -std=c++11/-std=c++14 (cxx and nvcc args, cpp_standard, CMAKE_CXX_STANDARD) with C++{needs}, then build again"
            ),
        ),
        Fix::in_words(
            code,
            "older-torch",
            "Or build against the older torch its flags were written for",
            format!("torch {before} and later need C++{needs}; an environment of the extension's era builds it unchanged, with that era's companions and Python."),
            format!(
                "in an environment of its era: pip install \"torch<{before}\" (with its companions), then build again"
            ),
        ),
    ]);
    d
}

/// The package a failed build of torch-facing source was building: torch is the side whose API
/// moved, never the source written against it.
fn extension_built(cx: &Cx<'_>, detail: &str) -> Option<String> {
    cx.package_being_built(Some(detail))
        .or_else(|| {
            // The compiler names the source it was compiling: an installed package's, built
            // just in time (`…/site-packages/nerfacc/cuda/csrc/grid.cu:4:10: fatal error: …`).
            let file = detail.trim_start().split(':').next()?;
            crate::sources::is_source_file(file)
                .then(|| crate::incidents::site_package_of(file))
                .flatten()
        })
        .filter(|p| p != "torch")
}

/// An extension's source written for another torch than the installed one: it uses C++ API
/// (`AT_CHECK`, THC's headers) a release removed, or a torch name the installed headers do not
/// declare, and the build stops before anything links. Its patch comes first (the names
/// instead, which is how projects updated), then the torch the source was written for, for code
/// that cannot be changed.
pub(crate) fn removed_api(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    name: &str,
    detail: &str,
) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    d.package = extension_built(cx, detail);
    let who = d.package.as_deref().unwrap_or("the extension");
    // Dated by the removals table, or a name the installed headers do not declare that no table
    // dates (`c10::cuda::CUDACachingAllocator`, which torch's headers stopped including): the
    // same two ways out, worded by what is known.
    let row = abidoc_knowledge::compat::torch_api_removed(name);
    let (message, port_title, port_why, port_step, older_title, older_why, older_step) = match row {
        Some(row) => {
            let removed = &row.removed_in;
            (
                format!("{who}'s source uses `{name}`, which torch {removed} removed from its extension API: it was written for an older torch than the one it is built against"),
                format!("Update the extension's source for torch {removed} and later"),
                format!("{} The project's newer releases often carry this change already.", row.instead),
                format!("in the extension's .cpp/.cu files: {}; then build again", row.instead),
                format!("Or build against a torch before {removed}, the API the source was written for"),
                format!("torch<{removed} still has `{name}`; torchvision and the other companions must move with it, and old releases have no wheels for new Python versions or GPUs."),
                format!("in an environment of its era: pip install \"torch<{removed}\" (with its companions), then build again"),
            )
        }
        None => (
            if abidoc_syntax::scan::is_header_name(name) {
                format!("{who}'s source includes `{name}`, which the installed torch does not ship: it was written for another torch release")
            } else {
                format!("{who}'s source uses `{name}`, which the installed torch's headers do not declare (or no longer include for it): it was written for another torch release")
            },
            "Update the extension's source for the installed torch's C++ API".to_owned(),
            "torch moves and renames C++ API between releases, and its headers stop including others' headers; the project's newer release often carries the change, or the header that declares the name can be included directly.".to_owned(),
            format!("find where the installed torch declares {name} (torch/include/…) and include that header, or use the project's release for this torch; then build again"),
            "Or build against the torch release the source was written for".to_owned(),
            "The project's requirements (or its release date) name the torch its sources expect; torchvision and the other companions must move with it.".to_owned(),
            "install the torch the project names (with its companions), then build again".to_owned(),
        ),
    };
    d.message = message;
    d.evidence.push(format!("the text says: {}", detail.trim()));
    // Kinds say what each does (a source build of the patched source; another torch), in
    // words where nothing is typed; the patch leads.
    d.fixes = crate::fix::rank(vec![
        Fix::new(code, "port-source", FixKind::SourceBuild, port_title, port_why)
            .step(Step::Manual(port_step))
            .leading(),
        Fix::new(code, "older-torch", FixKind::AlignTorch, older_title, older_why)
            .step(Step::Manual(older_step))
            .unverified(),
    ]);
    d
}

/// A torch name the tables do not date (`torch.utils._python_dispatch.return_and_correct_aliasing`):
/// the package asking for it was released for another torch — newer, where the name was added
/// since, or older, where it was removed since. The package's release for this torch comes
/// first where the tables know it; the direction stays the person's to check.
fn other_release_api(cx: &Cx<'_>, mut d: Diagnostic, api: &str) -> Diagnostic {
    let code = d.code;
    // The framework whose API it is: torch, or a companion released with it (torchvision's
    // `transforms.functional_tensor`, torchao's `quantization.int4_weight_only`).
    let framework = api
        .split('.')
        .next()
        .filter(|top| {
            matches!(
                *top,
                "torchvision" | "torchaudio" | "torchao" | "torchtext" | "triton"
            )
        })
        .unwrap_or("torch");
    // The importing package is who is out of step; the framework itself is not "who".
    // The framework's own module is often the package nearest its error; the one before it
    // (the innermost frame, the import) is the importer.
    let importer = d.package.clone().filter(|p| p != framework).or_else(|| {
        cx.scene
            .package_near_skipping(cx.span, &[framework, "torch"])
            .map(str::to_owned)
    });
    let who = importer.clone().unwrap_or_else(|| {
        if framework == "triton" && cx.scene.mentions_inductor {
            "torch's Inductor".into()
        } else {
            "a package".into()
        }
    });
    let stated = if framework == "torch" {
        cx.torch()
    } else {
        cx.world
            .installed_version(framework)
            .or_else(|| cx.scene.version_of(framework).map(str::to_owned))
    };
    let version = stated.map(|t| format!(" ({t})")).unwrap_or_default();
    d.message = format!(
        "{who} uses `{api}`, which the installed {framework}{version} does not have: it was released for another {framework} (a newer one that added the name, or an older one before it was removed)"
    );
    d.explanation = Some("torch's Python API changes between releases; a package made for one release imports names the others lack. torch and the packages built around it (torchvision, torchaudio, torchao, the frameworks that pin them) must come from releases made for each other.".into());
    if framework == "triton"
        && let Some(row) = abidoc_knowledge::compat::triton_api_removed(api)
    {
        return triton_api_removed(cx, d, api, importer.as_deref(), row);
    }
    let mut fixes = Vec::new();
    // torch's Inductor (or a package built on it) calling a Triton of another release: the one
    // torch pins.
    if framework == "triton" {
        fixes.push(recipes::triton_for_torch(
            code,
            cx,
            "a Triton of another release (upgraded by another package's requirement, or left by an older install) lacks names torch's Inductor imports.",
        ));
    }
    if let Some(pkg) = importer.as_deref().and_then(Name::new) {
        fixes.extend(recipes::align_with_torch(code, cx, &pkg, false));
    }
    fixes.push(
        Fix::new(
            code,
            "torch-for-package",
            FixKind::AlignTorch,
            match importer.as_deref() {
                Some(p) => format!("Install the {framework} release {p} was made for, or the release of {p} made for the installed {framework}"),
                None => format!("Install the {framework} release the importing package was made for, or that package's release for the installed {framework}"),
            },
            format!("`{api}` is in some {framework} releases and not in the installed one; the package's requirements (pip show, its release notes) name the {framework} it expects."),
        )
        .step(Step::Manual(
            format!("pip show the package for its {framework} requirement, then install that {framework} (torch and its companions together), or pin the package to its release for the installed {framework}"),
        )),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A kernel package importing Triton API a Triton release removed (`triton.ops`, gone in 3.2):
/// the package was written for an older Triton. Its release that follows the move comes first
/// (the table knows it for the packages known to import the name; the text names the importer
/// or, where it does not, the table's one importer is the likely one), then the older Triton,
/// which means the older torch that pins it.
fn triton_api_removed(
    cx: &Cx<'_>,
    mut d: Diagnostic,
    api: &str,
    importer: Option<&str>,
    row: &abidoc_knowledge::compat::TritonApiRemoved,
) -> Diagnostic {
    let code = d.code;
    let removed = &row.removed_in;
    let known = row.importers.iter().find(|i| {
        importer.is_none_or(|p| crate::kb::normalize(p) == crate::kb::normalize(&i.package))
    });
    let who = importer
        .map(str::to_owned)
        .or_else(|| known.map(|k| format!("a package ({} before {}, for one)", k.package, k.fixed_in)))
        .unwrap_or_else(|| "a package".into());
    d.message = format!(
        "{who} imports `{api}`, which Triton {removed} removed: it was written for an older Triton than the one installed"
    );
    d.evidence.push(format!("Triton {removed}: {}", row.instead));
    if let Some(p) = importer.map(str::to_owned).or_else(|| known.map(|k| k.package.clone())) {
        d.package = Some(p);
    }
    let mut fixes = Vec::new();
    if let Some(k) = known
        && let (Some(name), Some(v)) = (Name::new(&k.package), crate::fix::Version::new(&k.fixed_in))
    {
        let title = if importer.is_some() {
            format!("Upgrade {name} to {v} or later, its releases written for Triton {removed}")
        } else {
            format!("If {name} is the importer: upgrade it to {v} or later, its releases written for Triton {removed}")
        };
        fixes.push(
            Fix::new(
                code,
                "importer-for-triton",
                FixKind::AlignCompanion,
                title,
                format!("{name} {v} and later no longer import `{api}`; the installed torch and its Triton stay as they are."),
            )
            .step(recipes::pip_install(cx, Vec::new(), vec![Requirement::AtLeast(name, v)]))
            .leading(),
        );
    } else {
        let name = importer.unwrap_or("the importing package");
        fixes.push(
            Fix::new(
                code,
                "importer-for-triton",
                FixKind::AlignCompanion,
                format!("Upgrade {name} to a release written for Triton {removed} and later"),
                format!("{} Projects followed the move in their later releases.", row.instead),
            )
            .step(Step::Manual(format!(
                "pip install --upgrade {}",
                importer.unwrap_or("<the package whose file imports it, in the traceback>")
            ))),
        );
    }
    fixes.push(
        Fix::new(
            code,
            "older-triton",
            FixKind::AlignTorch,
            format!("Or keep the package and use a Triton before {removed}, with the torch that pins it"),
            format!("torch pins its Triton: a Triton before {removed} comes with an older torch (and that torch's companions)."),
        )
        .step(Step::Manual(format!(
            "install the newest torch whose Triton is older than {removed} (pip show torch lists its triton), with its torchvision/torchaudio"
        )))
        .unverified(),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A package's own check of the framework release it was built for (Open3D's `needs PyTorch
/// version 1.7.*, but version 1.8.2 is installed`): that framework release, in one install with
/// what moves with it, or the package's release built for the installed framework.
pub(crate) fn framework_version(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    package: &str,
    framework: &str,
    needs: &str,
    installed: &str,
) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    let dist = crate::kb::normalize(package);
    d.package = Some(dist.clone());
    d.message = format!(
        "{package} was built for {framework} {needs}, and {framework} {installed} is installed: its compiled parts load only with the release they were built for"
    );
    d.evidence.push(format!(
        "{package}'s own check: it needs {framework} {needs}, {installed} is installed"
    ));
    if framework == "jaxlib" && dist == "jax" {
        jax_needs_jaxlib(cx, &mut d, needs, installed);
        return d;
    }
    if framework == "jaxlib" {
        d.fixes = crate::fix::rank(jax_plugin(cx, &dist, needs, installed));
        d.message = if installed.is_empty() {
            format!("{dist} {needs} is installed beside another jaxlib: JAX's CUDA plugin and jaxlib are released in step, and a plugin of another release is refused")
        } else {
            format!("{dist} {needs} is installed beside jaxlib {installed}: JAX's CUDA plugin and jaxlib are released in step, and a plugin of another release is refused")
        };
        return d;
    }
    let pip_name = if framework == "PyTorch" {
        "torch"
    } else {
        "tensorflow"
    };
    // `1.7.*` is a release line: the newest patch of it; `2.4.1` is that release.
    let series = needs
        .strip_suffix(".*")
        .and_then(|mm| mm.split_once('.'))
        .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
    let req = match series {
        Some((a, b)) => Name::new(pip_name).map(|n| Requirement::Series(n, a, b)),
        None => Name::new(pip_name)
            .zip(crate::fix::Version::new(needs))
            .map(|(n, v)| Requirement::Exact(n, v)),
    };
    let mut fixes = Vec::new();
    // A package that compiles its parts against torch when installed (DeepSpeed's prebuilt
    // ops, which its own message asks to re-install): a build against the installed torch
    // keeps torch where it is.
    if framework == "PyTorch"
        && crate::kb::links_torch(&dist) == Some(true)
        && crate::kb::package(&dist).is_some_and(|f| f.build_minutes.is_some())
        && let Some(pkg) = Name::new(&dist)
    {
        fixes.extend(recipes::source_build(code, cx, &pkg, &[]).map(Fix::leading));
    }
    // Built at install, the package has no release built for a torch: its build is the fix.
    let rebuilt = !fixes.is_empty();
    if let Some(req) = req {
        let moves = if pip_name == "torch" {
            "torchvision, torchaudio and other compiled extensions must come from releases made for it"
        } else {
            "packages pinned to the installed TensorFlow move with it"
        };
        fixes.push(
            Fix::new(
                code,
                "framework-it-needs",
                FixKind::AlignTorch,
                format!("Install {framework} {needs}, the release {package} was built for"),
                format!("{package} checks the {framework} it runs with against the one its compiled parts were built for; that release loads them. {moves}."),
            )
            .step(recipes::pip_install(cx, Vec::new(), vec![req]))
            .cost(crate::fix::Cost {
                downloads: true,
                also: vec![moves.to_owned()],
                ..Default::default()
            }),
        );
    }
    fixes.extend((!rebuilt).then(|| {
        Fix::new(
            code,
            "package-for-framework",
            FixKind::AlignCompanion,
            format!("Or install the {package} release built for {framework} {installed}"),
            format!("{package}'s release notes (or its requirements files at that release's tag) name the {framework} each release was built for."),
        )
        .step(Step::Manual(format!(
            "find the {package} release built for {framework} {installed}, then pip install {dist}==<that release>"
        )))
    }));
    d.fixes = crate::fix::rank(fixes);
    d
}

/// pip's resolver warning that it left a torch the package pins away from (`torchaudio 2.1.0
/// requires torch==2.1.0, but you have torch 2.0.1 which is incompatible`): a package that
/// links torch pins the torch its binaries were built for, so its import fails against the
/// installed one. A warning: pip finished, and the import is where it breaks. The release built
/// for the installed torch first, then the torch it pins.
pub(crate) fn pinned_torch(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    package: &str,
    version: &str,
    needs: &str,
    installed: &str,
) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    d.severity = Severity::Warning;
    d.package = Some(package.to_owned());
    d.message = format!(
        "pip installed {package} {version}, whose binaries are built for torch {needs} (its metadata pins torch=={needs}), beside torch {installed}: importing it will fail against the installed torch"
    );
    d.evidence.push(format!(
        "pip's resolver: {package} {version} requires torch=={needs}, torch {installed} is installed"
    ));
    let mut fixes = Vec::new();
    if let Some(pkg) = Name::new(package) {
        fixes.extend(recipes::align_with_torch(code, cx, &pkg, true));
        // PyPI's release by its public number (a `+cu121` label is PyTorch's index's).
        let target = recipes::short_torch(needs);
        fixes.extend(recipes::align_torch(code, cx, &pkg, target, Some(installed)));
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// jax refusing the installed jaxlib (`jaxlib is version 0.1.69, but this version of jax
/// requires version 0.1.74`): jax and jaxlib are released in step. The jax release for the
/// installed jaxlib keeps its build (a CUDA jaxlib stays one); from 0.4 on the two share their
/// numbers, before that the release is looked up. Upgrading jaxlib is the other way.
fn jax_needs_jaxlib(cx: &Cx<'_>, d: &mut Diagnostic, needs: &str, installed: &str) {
    let code = d.code;
    let parse = abidoc_knowledge::version::Version::parse;
    // jax's check the other way (`jaxlib version 0.4.26 is newer than and incompatible with jax
    // version 0.4.25`): `needs` is then the jax itself, older than the jaxlib.
    let newer = parse(installed)
        .zip(parse(needs))
        .is_some_and(|(i, n)| i > n);
    d.message = if newer {
        format!(
            "jaxlib {installed} is newer than jax {needs} accepts: jax and jaxlib are released in step, and jax refuses a jaxlib of a later release"
        )
    } else {
        format!(
            "jax requires jaxlib {needs} or newer and jaxlib {installed} is installed: jax and jaxlib are released in step, and jax refuses an older jaxlib"
        )
    };
    let shared_numbers = parse(installed)
        .zip(parse("0.4.0"))
        .is_some_and(|(i, floor)| i >= floor);
    let mut fixes = Vec::new();
    match (Name::new("jax"), crate::fix::Version::new(installed)) {
        (Some(jax), Some(v)) if shared_numbers => fixes.push(
            Fix::new(
                code,
                "jax-for-jaxlib",
                FixKind::AlignCompanion,
                format!("Install jax {installed}, the release of the installed jaxlib"),
                "jax and jaxlib share their release numbers; the jax of the installed jaxlib's release accepts it, and the jaxlib build (CUDA or CPU) stays as it is.",
            )
            .step(recipes::pip_install(cx, vec![PipFlag::NoDeps], vec![Requirement::Exact(jax, v)]))
            .cost(crate::fix::Cost::download()),
        ),
        _ => fixes.push(
            Fix::new(
                code,
                "jax-for-jaxlib",
                FixKind::AlignCompanion,
                format!("Install the jax release made for jaxlib {installed}"),
                "jax's changelog names the jaxlib each release requires; the jax of the installed jaxlib's time accepts it, and the jaxlib build (CUDA or CPU) stays as it is.",
            )
            .step(Step::Manual(format!(
                "find the jax release whose minimum jaxlib is {installed} (jax's CHANGELOG), then pip install --no-deps jax==<that release>"
            )))
            .filled_in_with("the jax release made for the installed jaxlib"),
        ),
    }
    fixes.push(
        Fix::in_words(
            code,
            "jaxlib-jax-needs",
            if newer {
                format!("Or install jaxlib {needs}, the release of the installed jax, of the same build (CUDA or CPU) as the installed one")
            } else {
                format!("Or install jaxlib {needs} or newer, of the same build (CUDA or CPU) as the installed one")
            },
            "A CUDA jaxlib comes with jax's CUDA extra (`jax[cuda12]` today; older releases from JAX's find-links page); PyPI's plain jaxlib is the CPU build.",
            if newer {
                format!("pip install \"jaxlib=={needs}\" of the build in use (for CUDA: pip install -U \"jax[cuda12]\", which moves jax and jaxlib together)")
            } else {
                format!("pip install \"jaxlib>={needs}\" of the build in use (for CUDA: pip install -U \"jax[cuda12]\")")
            },
        ),
    );
    d.fixes = crate::fix::rank(fixes);
}

/// What XLA's check of a PJRT plugin said (see [`pjrt_plugin`]).
pub(crate) struct Pjrt<'a> {
    /// The backend's distribution, empty when the text names no backend.
    pub plugin: &'a str,
    pub plugin_api: &'a str,
    pub framework_api: &'a str,
    pub plugin_newer: Option<bool>,
}

/// A PJRT plugin (a JAX backend: JAX's own CUDA or ROCm plugin, Intel's XPU, Apple's Metal,
/// libtpu) built against another PJRT C API than the installed jaxlib's. The older side is the
/// one to move: a plugin older than jaxlib wants the jax release it was made for (vendors'
/// plugins trail JAX's releases; its own newer release may not exist yet), a plugin newer than
/// jaxlib a newer jax. JAX's own plugins and libtpu are released with jax: its extra installs
/// the matching set.
pub(crate) fn pjrt_plugin(cx: &Cx<'_>, source: Option<SourceRef>, seen: &Pjrt<'_>) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    let name = (!seen.plugin.is_empty()).then(|| crate::kb::normalize(seen.plugin));
    d.package = name.clone();
    let who = name.clone().unwrap_or_else(|| "a PJRT plugin".into());
    let (papi, fapi) = (seen.plugin_api, seen.framework_api);
    let direction = match seen.plugin_newer {
        Some(true) => "a newer jax than the installed one",
        Some(false) => "an older jax than the installed one",
        None => "another jax release",
    };
    d.message = match (papi.is_empty(), fapi.is_empty()) {
        (false, false) => format!(
            "{who} implements PJRT API {papi} and the installed jaxlib expects {fapi}: the plugin was built for {direction}"
        ),
        (false, true) => format!(
            "{who} implements PJRT API {papi}, which the installed jaxlib does not: the plugin was built for {direction}"
        ),
        _ => format!(
            "{who} was built against another PJRT API than the installed jaxlib's: the plugin was built for {direction}"
        ),
    };
    d.evidence.push(format!(
        "XLA's check of the plugin against the framework: plugin PJRT API {}, framework PJRT API {}",
        if papi.is_empty() { "not stated" } else { papi },
        if fapi.is_empty() { "not stated" } else { fapi }
    ));
    let extra = match name.as_deref() {
        Some("libtpu") => Some("tpu"),
        Some(n) if n.starts_with("jax-cuda") => Some(recipes::jax_cuda_extra(cx, Some(n))),
        _ => None,
    };
    let mut fixes = Vec::new();
    if let Some((extra, step)) = extra.and_then(|e| Some((e, recipes::jax_with_extra(cx, e)?))) {
        fixes.push(
            Fix::new(
                code,
                "jax-together",
                FixKind::AlignTorch,
                format!("Install jax, jaxlib and {who} together (jax[{extra}])"),
                format!("The `jax[{extra}]` extra pins jaxlib and {who} to the jax release it installs, so the plugin and the framework speak one PJRT API."),
            )
            .step(step)
            .cost(crate::fix::Cost::download()),
        );
    } else if name.is_none() {
        // No backend named: JAX's or torch_xla's plugin, and the framework is not known either.
        fixes.push(
            Fix::new(
                code,
                "framework-and-plugin",
                FixKind::AlignTorch,
                "Install the framework and its PJRT plugin from releases made for each other",
                "The plugin and the framework loading it (jaxlib, torch_xla) must speak one PJRT API: their releases are made in pairs.",
            )
            .step(Step::Manual(
                "pip install -U \"jax[tpu]\" (or \"jax[cuda12]\"), or torch_xla with its matching libtpu (`pip install torch_xla[tpu]`) — whichever framework loads the plugin".to_owned(),
            )),
        );
    } else if seen.plugin_newer == Some(true) {
        let reqs: Vec<Requirement> = ["jax", "jaxlib"]
            .iter()
            .filter_map(|n| Name::new(n).map(Requirement::Any))
            .collect();
        fixes.push(
            Fix::new(
                code,
                "newer-jax",
                FixKind::AlignTorch,
                format!("Upgrade jax and jaxlib to the release {who} was built for"),
                format!("{who} speaks a newer PJRT API than the installed jaxlib; a newer jax and jaxlib accept it."),
            )
            .step(recipes::pip_install(cx, vec![PipFlag::Upgrade, PipFlag::NoCacheDir], reqs))
            .cost(crate::fix::Cost {
                downloads: true,
                also: vec!["moves jax and jaxlib to their newest release".to_owned()],
                ..Default::default()
            }),
        );
    } else {
        fixes.push(
            Fix::new(
                code,
                "jax-for-plugin",
                FixKind::AlignTorch,
                format!("Install the jax and jaxlib release {who} was built for"),
                format!("A backend plugin is built against one jaxlib's PJRT API and its releases trail JAX's; {who}'s release notes or requirements name the jax it supports, and that jax and jaxlib accept it."),
            )
            .step(Step::Manual(format!(
                "pip install \"jax==<the release {who} supports>\" \"jaxlib==<the same release>\""
            )))
            .filled_in_with(format!("the jax release {who}'s release notes name"))
            // The installed plugin is often the vendor's newest: its upgrade may do nothing,
            // where the jax it names always loads it.
            .leading(),
        );
        if let Some(n) = name.as_deref().and_then(Name::new) {
            fixes.push(
                Fix::new(
                    code,
                    "newer-plugin",
                    FixKind::AlignCompanion,
                    format!("Or upgrade {n} to a release built for the installed jaxlib"),
                    format!("When {n} has published a release for the installed jax, it accepts that jaxlib's PJRT API."),
                )
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::Upgrade, PipFlag::NoCacheDir],
                    vec![Requirement::Any(n)],
                ))
                .cost(crate::fix::Cost::download())
                .unverified(),
            );
        }
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// JAX's CUDA plugin (`jax-cuda12-plugin`, with its `jax-cuda12-pjrt`) of another release than
/// jaxlib: the plugin release of the installed jaxlib (the same version number), else jax,
/// jaxlib and the plugin resolved together by the `jax[cudaNN]` extra.
fn jax_plugin(cx: &Cx<'_>, plugin: &str, needs: &str, installed: &str) -> Vec<Fix> {
    let code = Code::AbiMismatch;
    let mut fixes = Vec::new();
    // `jax-cuda12-plugin` → `jax-cuda12-pjrt`, its PJRT half, of the same version.
    let pjrt = plugin
        .strip_suffix("-plugin")
        .map(|stem| format!("{stem}-pjrt"));
    let pins: Vec<Requirement> = [Some(plugin.to_owned()), pjrt.clone()]
        .into_iter()
        .flatten()
        .filter_map(|n| {
            Name::new(&n)
                .zip(crate::fix::Version::new(installed))
                .map(|(n, v)| Requirement::Exact(n, v))
        })
        .collect();
    if !pins.is_empty() {
        fixes.push(
            Fix::new(
                code,
                "plugin-for-jaxlib",
                FixKind::AlignCompanion,
                format!("Install {plugin}=={installed}, the plugin release of the installed jaxlib"),
                "JAX publishes its CUDA plugin and PJRT wheels with the same version numbers as jaxlib; the plugin of the installed jaxlib's release is accepted, --no-deps keeps jax and jaxlib where they are.",
            )
            .step(recipes::pip_install(cx, vec![PipFlag::NoCacheDir, PipFlag::NoDeps], pins))
            .cost(crate::fix::Cost::download()),
        );
    }
    let cuda = plugin
        .strip_prefix("jax-")
        .and_then(|r| r.split('-').next())
        .filter(|c| c.starts_with("cuda") && c[4..].bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or("cuda12");
    fixes.push(
        Fix::new(
            code,
            "jax-together",
            FixKind::AlignTorch,
            format!("Upgrade jax, jaxlib and the plugin together (jax[{cuda}])"),
            format!("The `jax[{cuda}]` extra pins jaxlib, {plugin} and its PJRT to the jax release it installs, so they come from one release (the plugin {needs} asks for jaxlib {needs})."),
        )
        .step(Step::Manual(format!("pip install -U \"jax[{cuda}]\""))),
    );
    fixes
}

/// A package (a torch companion, transformers, a kernel library) calls Python API that a newer
/// torch added (`torch.library.register_fake`, 2.4): it was released for a newer torch than the
/// installed one. The release of it made for this torch (where the release data pairs it), or a
/// torch at least that new.
pub(crate) fn newer_api(cx: &Cx<'_>, source: Option<SourceRef>, api: &str) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    d.package = cx.near.filter(|n| *n != "torch").map(str::to_owned);
    let Some(row) = abidoc_knowledge::compat::torch_api_added(api) else {
        return other_release_api(cx, d, api);
    };
    let added = &row.added_in;
    let who = d.package.clone().unwrap_or_else(|| "a package".into());
    let torch = cx.torch();
    d.message = format!(
        "{who} calls `{api}`, which torch {added} added: it was released for a newer torch than the one installed{}",
        torch
            .as_deref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default()
    );
    let mut fixes = Vec::new();
    if let Some(pkg) = d.package.as_deref().and_then(Name::new) {
        fixes.extend(recipes::align_with_torch(code, cx, &pkg, false));
    }
    let or = if fixes.is_empty() { "U" } else { "Or u" };
    fixes.push(
        Fix::new(
            code,
            "torch-at-least",
            FixKind::AlignTorch,
            format!("{or}pgrade torch to {added} or later (with the companions built for it)"),
            format!("`{api}` exists from torch {added} on; torchvision, torchaudio and the other compiled companions must move with torch."),
        )
        .step(Step::Manual(format!(
            "pip install --upgrade \"torch>={added}\" together with the torchvision/torchaudio releases made for it"
        ))),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// Cython's `cudf._lib.cudf does not export expected C function get_column_data_ptr`: a module
/// compiled with `cimport` of another module's C API found that module at another release (two
/// packages of one family out of step: cugraph and cudf, cuda-core and cuda-bindings). The two
/// reinstalled in one resolve, so pip takes releases whose requirements agree.
pub(crate) fn cython_api(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    module: &str,
    name: &str,
) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    // A namespace package's subpackage is a distribution of its own (`cuda.bindings` is
    // cuda-bindings): its first two parts, where the tables know them, else its top level.
    let two: String = module.split('.').take(2).collect::<Vec<_>>().join(".");
    let top = module.split('.').next().unwrap_or(module);
    let provider = abidoc_knowledge::names::distribution_of_import(&two)
        .map_or_else(|| crate::incidents::distribution_of(top), str::to_owned);
    // The importer: the package the traceback shows around the message, when it is another
    // (the message names the provider's module, which is near it too).
    let family = |p: &str| crate::kb::package(p).map_or_else(|| crate::kb::normalize(p), |f| f.name);
    let importer = cx
        .near
        .into_iter()
        .chain(cx.scene.package_near_skipping(cx.span, &[top, provider.as_str(), "torch"]))
        .map(crate::kb::normalize)
        .find(|p| family(p) != family(&provider) && p != "torch");
    d.package = importer.clone().or_else(|| Some(provider.clone()));
    // Each is installed by its distribution's name; one published per CUDA build only where
    // the text or environment says which build (`cudf-cu12`), else the fix stays in words.
    let provider_build = cx.cuda_build_of(&provider);
    let provider = crate::kb::untagged_name(&provider);
    let importer_build = importer.as_deref().and_then(|p| cx.cuda_build_of(p));
    let who = importer
        .as_deref()
        .map_or_else(|| "a module that cimports it".to_owned(), |p| format!("{p}'s compiled module"));
    d.message = format!(
        "{module} does not export the C function `{name}` that {who} was compiled against: {provider} is of another release than the one it was built with"
    );
    d.evidence.push(format!(
        "Cython checks at import that {module} exports every C function and variable a `cimport` of it uses; `{name}` is not among them"
    ));
    let typed: Option<Vec<Name>> = [importer_build, provider_build]
        .into_iter()
        .map(|b| b.as_deref().and_then(Name::new))
        .collect();
    // Only with both named is one resolve typed: the provider alone upgraded may widen the gap
    // to an older importer.
    let fix = match typed {
        Some(names) => {
            let shown = names.iter().map(Name::as_str).collect::<Vec<_>>().join(" and ");
            Fix::new(
                code,
                "align-family",
                FixKind::AlignCompanion,
                format!("Install {shown} again in one resolve, of releases made for each other"),
                "pip resolves both at once and takes releases whose requirements agree; without its cache, the files of the release that did not match are replaced. Where one of them comes from conda or a nightly index, install both from that same source.",
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::Upgrade, PipFlag::NoCacheDir],
                names.into_iter().map(Requirement::Any).collect(),
            ))
            .cost(crate::fix::Cost::download())
        }
        None => {
            // A name to fill in: the package the frames show (its CUDA build's suffix where it
            // has one), or a placeholder.
            let spelled = |p: &str| cx.cuda_build_of(p).unwrap_or_else(|| format!("<{p}'s build for this machine's CUDA>"));
            let other = importer.as_deref().map_or_else(
                || "<the package that cimports it>".to_owned(),
                &spelled,
            );
            let first = spelled(&provider);
            // The builds to choose from, by name (`cudf-cu12`, `cudf-cu13`).
            let builds: Vec<&str> = [Some(provider.as_str()), importer.as_deref()]
                .into_iter()
                .flatten()
                .filter(|p| cx.cuda_build_of(p).is_none())
                .filter_map(abidoc_knowledge::packages::package)
                .flat_map(abidoc_knowledge::packages::cuda_variants)
                .map(|(n, _)| n)
                .collect();
            let note = if builds.is_empty() {
                String::new()
            } else {
                format!(" (the builds: {})", builds.join(", "))
            };
            Fix::in_words(
                code,
                "align-family",
                format!(
                    "Install {provider} and {} again together, of releases made for each other",
                    importer.as_deref().unwrap_or("the package that cimports it")
                ),
                "pip resolving both at once takes releases whose requirements agree; the traceback's frames above the error name the package whose compiled module failed.",
                format!(
                    "python -m pip install --upgrade --no-cache-dir {first} {other}{note}, both from the same source (PyPI, conda, or the nightly index they came from)"
                ),
            )
        }
    };
    let fixes = vec![fix];
    d.fixes = crate::fix::rank(fixes);
    d
}
