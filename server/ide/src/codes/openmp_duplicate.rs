//! `openmp-duplicate`: two OpenMP runtimes were initialized in one process (`OMP: Error #15:
//! Initializing libiomp5md.dll, but found libiomp5md.dll already initialized`).
//!
//! Intel's runtime aborts when it finds another OpenMP runtime (its own copy from another
//! package, or LLVM's `libomp`) already running. The two copies come from two packages that each
//! ship one (torch, NumPy/MKL from conda, CTranslate2, faiss); which ones the text names is
//! the evidence. The fix that threads confirm is the runtime's own switch to tolerate it; the
//! lasting one keeps a single runtime.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "Two OpenMP runtimes were loaded into one process (`OMP: Error #15`), or mkl-service refused to start Intel's beside GNU's (`MKL_THREADING_LAYER=INTEL is incompatible with libgomp`).",
    meaning: "Packages that compute in parallel ship an OpenMP runtime: Intel's `libiomp5` (torch's Windows and older macOS wheels, MKL's conda packages, CTranslate2) or LLVM's `libomp`. When a second copy initializes in a process that already runs one, Intel's runtime stops the program, since two thread pools can oversubscribe the CPU or, rarely, give wrong results. Typical pairs: conda's `Library\\bin\\libiomp5md.dll` and torch's own; torch's and CTranslate2's; a conda NumPy (MKL) next to a pip torch.",
    fixes: "mkl-service's refusal (`MKL_THREADING_LAYER=INTEL is incompatible with libgomp.so.1 library`): 1. `MKL_THREADING_LAYER=GNU` (MKL threads with the GNU runtime already loaded). 2. `MKL_SERVICE_FORCE_INTEL=1` (its own switch). 3. NumPy imported first (advice); in conda, NumPy without MKL (advice). Otherwise: 1. `KMP_DUPLICATE_LIB_OK=TRUE`, set before the program starts (Intel's own switch; it lets both copies run, which works in practice though Intel calls it unsupported). 2. Keep one runtime: install the packages that bring one from the same source (all from pip, or all from one conda channel), or remove the extra copy's package.",
    near_package: super::NearPackage::Never,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    initializing: Option<&str>,
    found: Option<&str>,
) -> Diagnostic {
    let code = Code::OpenmpDuplicate;
    let mut d = blank(code, source);
    d.message = match (initializing, found) {
        (Some(a), Some(b)) if a == b => {
            format!("Two copies of the OpenMP runtime {a} were loaded into one process")
        }
        (Some(a), Some(b)) => {
            format!("Two OpenMP runtimes were loaded into one process: {a} while {b} was already running")
        }
        _ => "Two OpenMP runtimes were loaded into one process".to_owned(),
    };
    d.evidence.extend(
        [initializing, found]
            .into_iter()
            .flatten()
            .map(|n| format!("OpenMP runtime: {n}")),
    );
    // The packages the text names that ship a runtime of their own.
    let shippers: Vec<String> = cx
        .scene
        .mentions
        .iter()
        .map(|(_, n)| n.clone())
        .filter(|n| {
            matches!(
                n.as_str(),
                "torch" | "ctranslate2" | "faiss-cpu" | "faiss-gpu" | "numpy" | "mkl" | "xgboost" | "lightgbm" | "scikit-learn" | "opencv-python"
            )
        })
        .fold(Vec::new(), |mut v, n| {
            if !v.contains(&n) {
                v.push(n);
            }
            v
        });
    if !shippers.is_empty() {
        d.evidence.push(format!(
            "packages in the text that load an OpenMP runtime: {}",
            shippers.join(", ")
        ));
    }
    let mut fixes = vec![
        Fix::new(
            code,
            "allow-duplicate",
            FixKind::Configure,
            "Let the runtimes coexist: KMP_DUPLICATE_LIB_OK=TRUE",
            "Intel's runtime checks for another OpenMP runtime and stops; this variable is its own switch to go on. It must be set before the first library loads (the shell, the service's environment, or the first lines of the script, before importing torch or NumPy). Intel calls it unsupported: two thread pools may oversubscribe the CPU; keeping one runtime (the next fix) is the lasting fix.",
        )
        .steps(recipes::set_env("KMP_DUPLICATE_LIB_OK", "TRUE")),
    ];
    let conda = cx.scene.mentions_conda;
    fixes.push(
        Fix::in_words(
            code,
            "one-runtime",
            "Keep one OpenMP runtime: install the packages that bring one from the same source",
            if conda {
                "In a conda environment, conda's MKL packages put libiomp5 in the environment's library directory (Library\\bin on Windows) while pip's torch carries its own: install torch and NumPy from the same place (both from conda-forge, or both with pip and without conda's mkl/intel-openmp), then only one runtime loads."
            } else {
                "Each package that ships its own OpenMP runtime loads it; when two are imported, two runtimes start. Install them from the same source (all wheels from pip, or all from one conda channel), or remove the one the program does not need."
            },
            format!(
                "find the copies (`python -m pip show -f {}`, and the environment's library directory) and keep the packages that bring them from one source",
                shippers.first().map_or("torch", String::as_str)
            ),
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// mkl-service's refusal (`MKL_THREADING_LAYER=INTEL is incompatible with libgomp.so.1
/// library`): MKL was about to start its Intel OpenMP runtime in a process where GNU's (loaded
/// by torch, a compiled extension or a library built with GCC) already runs. MKL can thread with
/// GNU's runtime instead; mkl-service's own switch forces the Intel one regardless.
pub(crate) fn mkl_layer(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    layer: &str,
    found: Option<&str>,
) -> Diagnostic {
    let code = Code::OpenmpDuplicate;
    let mut d = blank(code, source);
    let gomp = found.unwrap_or("libgomp.so.1");
    d.package = Some("mkl-service".to_owned());
    d.message = format!(
        "MKL's {layer} threading layer would start Intel's OpenMP runtime in a process where GNU's ({gomp}) is already loaded, and mkl-service refuses the pair"
    );
    d.evidence.push(format!(
        "mkl-service: MKL_THREADING_LAYER={layer} is incompatible with {gomp}"
    ));
    d.explanation = Some(format!("NumPy, SciPy or torch from conda's MKL builds thread through MKL, whose default layer uses Intel's OpenMP runtime (libiomp5). When a library built with GCC (torch's CPU code, an extension, scikit-learn) loaded GNU's runtime ({gomp}) first, mkl-service stops the program rather than run two OpenMP runtimes. MKL's GNU layer threads with the runtime already there."));
    let mut fixes = vec![
        Fix::new(
            code,
            "mkl-gnu-layer",
            FixKind::Configure,
            "Let MKL thread with GNU's OpenMP: MKL_THREADING_LAYER=GNU",
            format!("MKL then uses {gomp}, the runtime already loaded, so one OpenMP runtime runs. It must be set before the program starts (the shell, the job script or the service's environment)."),
        )
        .steps(recipes::set_env("MKL_THREADING_LAYER", "GNU")),
        Fix::new(
            code,
            "mkl-force-intel",
            FixKind::Configure,
            "Or keep MKL's Intel layer anyway: MKL_SERVICE_FORCE_INTEL=1",
            "mkl-service's own switch to go on with the Intel layer beside GNU's runtime: two thread pools may then oversubscribe the CPU.",
        )
        .steps(recipes::set_env("MKL_SERVICE_FORCE_INTEL", "1")),
        Fix::in_words(
            code,
            "numpy-first",
            "Or import NumPy before the package that loads GNU's runtime",
            "MKL's runtime then starts first and mkl-service's check passes (the message's own first suggestion); it depends on import order, which the variables above do not.",
            "put `import numpy` before `import torch` (and any other compiled package) at the top of the program",
        ),
    ];
    if cx.scene.mentions_conda {
        fixes.push(
            Fix::in_words(
                code,
                "one-runtime",
                "Keep one OpenMP runtime: NumPy without MKL's Intel threading",
                "conda's MKL builds bring Intel's runtime; NumPy built on OpenBLAS (conda-forge's default, or pip's wheels) brings none beside GNU's.",
                "install NumPy and SciPy from conda-forge with OpenBLAS (`conda install \"libblas=*=*openblas\"`) or from pip, so MKL is not loaded",
            ),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}
