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
use crate::fix::{Fix, FixKind, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "Two OpenMP runtimes were loaded into one process (`OMP: Error #15`).",
    meaning: "Packages that compute in parallel ship an OpenMP runtime: Intel's `libiomp5` (torch's Windows and older macOS wheels, MKL's conda packages, CTranslate2) or LLVM's `libomp`. When a second copy initializes in a process that already runs one, Intel's runtime stops the program, since two thread pools can oversubscribe the CPU or, rarely, give wrong results. Typical pairs: conda's `Library\\bin\\libiomp5md.dll` and torch's own; torch's and CTranslate2's; a conda NumPy (MKL) next to a pip torch.",
    fixes: "1. `KMP_DUPLICATE_LIB_OK=TRUE`, set before the program starts (Intel's own switch; it lets both copies run, which works in practice though Intel calls it unsupported). 2. Keep one runtime: install the packages that bring one from the same source (all from pip, or all from one conda channel), or remove the extra copy's package.",
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
        Fix::new(
            code,
            "one-runtime",
            FixKind::Advice,
            "Keep one OpenMP runtime: install the packages that bring one from the same source",
            if conda {
                "In a conda environment, conda's MKL packages put libiomp5 in the environment's library directory (Library\\bin on Windows) while pip's torch carries its own: install torch and NumPy from the same place (both from conda-forge, or both with pip and without conda's mkl/intel-openmp), then only one runtime loads."
            } else {
                "Each package that ships its own OpenMP runtime loads it; when two are imported, two runtimes start. Install them from the same source (all wheels from pip, or all from one conda channel), or remove the one the program does not need."
            },
        )
        .step(Step::Manual(format!(
            "find the copies (`python -m pip show -f {}`, and the environment's library directory) and keep the packages that bring them from one source",
            shippers.first().map_or("torch", String::as_str)
        ))),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}
