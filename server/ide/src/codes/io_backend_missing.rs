//! `io-backend-missing`: a media package has no backend to read or write a file (torchaudio
//! with none of soundfile, FFmpeg or SoX, or without torchcodec from 2.9 on; torchvision's video
//! functions without PyAV; imageio-ffmpeg without an `ffmpeg` program).
//!
//! These backends are optional installs of their own, never pulled in by the package: the
//! import works and the first `load`/`save`/`read_video` fails. Which backends a release reads
//! through, and what installs each, is data (`packages.toml` `io_backends`); the one the message
//! names (or the one asked for with `set_audio_backend`) comes first.

use abidoc_knowledge::packages::IoBackend;

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{CondaChannel, Fix, FixKind, Name, Requirement, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A media package has no backend to read or write the file: torchaudio without soundfile, FFmpeg or SoX (torchcodec from 2.9, an FFmpeg major its FFmpeg binding loads), torchvision's video functions without PyAV, imageio-ffmpeg without an `ffmpeg` program.",
    meaning: "torchaudio, torchvision and imageio decode and encode media through libraries and programs they do not install: torchaudio up to 2.8 through SoundFile (the `soundfile` package), FFmpeg (majors 4 to 6 for its torio binding) or SoX, from 2.9 through torchcodec (which needs FFmpeg); torchvision's `read_video` through PyAV (`av`); imageio-ffmpeg (imageio's and MoviePy's video I/O) runs an `ffmpeg` program, its own where its wheel bundles one. The import succeeds and the first load, save or video read fails when none of them is there, not the one asked for (`set_audio_backend(\"soundfile\")`), or only an FFmpeg newer than the binding loads.",
    fixes: "1. Install the backend the message names, else the one that needs nothing else: `pip install soundfile` (its wheels bundle libsndfile), `pip install av`, torchcodec for the installed torch (with FFmpeg), an FFmpeg of a major the binding loads (conda-forge's `ffmpeg<7`), the `ffmpeg` program. In a conda environment, conda-forge's package. 2. Or the system library another backend loads (FFmpeg, SoX), or the variable that names the program's path (`IMAGEIO_FFMPEG_EXE`).",
    ..CodeDoc::BASE
};

fn label(b: &IoBackend) -> &str {
    b.names.first().map_or("a backend", String::as_str)
}

/// The fixes that install one backend: its PyPI package (conda-forge's first in a conda
/// environment; torchcodec the release for the installed torch), then the system library it
/// loads.
fn install(cx: &Cx<'_>, package: &str, b: &IoBackend, newest: Option<u32>) -> Vec<Fix> {
    let code = Code::IoBackendMissing;
    let name = label(b);
    let mut fixes = Vec::new();
    let conda = cx.world.in_conda() || cx.scene.mentions_conda;
    if let Some(pip) = b.pip.as_deref().and_then(Name::new) {
        if conda && let Some(c) = b.conda.as_deref().and_then(Name::new) {
            fixes.push(
                Fix::new(
                    code,
                    "conda-backend",
                    FixKind::InstallMissing,
                    format!("Install {name} for {package} from conda-forge ({c})"),
                    format!("{package} reads through {name} only when it is installed; conda-forge's {c} is the same backend built for the conda environment."),
                )
                .step(Step::CondaInstall {
                    channel: CondaChannel::CondaForge,
                    packages: vec![Requirement::Any(c)],
                }),
            );
        }
        let aligned = if crate::kb::links_torch(pip.as_str()) == Some(true) {
            recipes::align_with_torch(code, cx, &pip, false)
        } else {
            Vec::new()
        };
        if aligned.is_empty() {
            fixes.push(
                Fix::new(
                    code,
                    "pip-backend",
                    FixKind::InstallMissing,
                    format!("Install {pip}, {package}'s {name} backend"),
                    format!("{package} reads through {name} only when {pip} is installed; nothing installs it with {package}."),
                )
                .step(recipes::pip_install(cx, Vec::new(), vec![Requirement::Any(pip)])),
            );
        } else {
            fixes.extend(aligned);
        }
    }
    if let Some(program) = b.executable.as_deref() {
        fixes.extend(program_fixes(cx, package, b, program));
        return fixes;
    }
    // The package names the newest major of the library it can load (torio's FFmpeg 6): an
    // install of the distribution's newest would be the same failure again.
    if let (Some(what), Some(n)) = (b.system.as_deref(), newest) {
        fixes.extend(older_major(cx, package, what, n));
        return fixes;
    }
    let sys = b.system.as_deref().and_then(abidoc_knowledge::system_libs::by_what);
    if let Some(sys) = sys
        && let Some(lib) = sys.sonames.first()
    {
        fixes.extend(super::missing_shared_library::system_library(
            code,
            cx,
            lib.trim_end_matches('.'),
            sys,
        ));
    }
    fixes
}

/// A program the package runs (imageio-ffmpeg's `ffmpeg`): the system's install of it, the way
/// this system installs (Homebrew where the text shows macOS), then the variable that points
/// the package at a copy elsewhere.
fn program_fixes(cx: &Cx<'_>, package: &str, b: &IoBackend, program: &str) -> Vec<Fix> {
    let code = Code::IoBackendMissing;
    let mut fixes = Vec::new();
    let sys = b.system.as_deref().and_then(abidoc_knowledge::system_libs::by_what);
    if let Some(sys) = sys {
        // Homebrew first where the text shows macOS, last otherwise.
        let mut ways = super::missing_shared_library::manager_alternatives(sys);
        if !sys.brew.is_empty() {
            let brew = format!("macOS: brew install {}", sys.brew.join(" "));
            if cx.scene.mentions_macos {
                ways.insert(0, brew);
            } else {
                ways.push(brew);
            }
        }
        let conda = cx.world.in_conda() || cx.scene.mentions_conda;
        let names = sys.conda.iter().filter_map(|c| Name::new(c)).collect::<Vec<_>>();
        if conda && !names.is_empty() && !cx.scene.mentions_macos {
            fixes.push(
                Fix::new(code, "program-conda", FixKind::InstallMissing, format!("Install the `{program}` program into the conda environment"), format!("{package} runs `{program}`, and none is installed where it looks; conda-forge's {} brings it.", sys.conda.join(" ")))
                    .step(Step::CondaInstall {
                        channel: CondaChannel::CondaForge,
                        packages: names.into_iter().map(Requirement::Any).collect(),
                    }),
            );
        }
        fixes.push(
            Fix::in_words(
                code,
                "program",
                format!("Install the `{program}` program ({})", sys.what.split(" (").next().unwrap_or(&sys.what)),
                format!("{package} runs `{program}` and found none: neither a copy of its own nor one on PATH."),
                ways.join("; "),
            ),
        );
    }
    if let Some(var) = b.env.as_deref() {
        fixes.push(
            Fix::in_words(
                code,
                "program-path",
                format!("Or point {package} at an `{program}` it does not find by itself ({var})"),
                format!("{package} reads the program's path from {var} before it looks anywhere else."),
                format!(
                    "{}, then start Python again",
                    recipes::set_in_words(cx, var, &format!("<full path of an {program} program>"))
                ),
            ),
        );
    }
    fixes
}

/// A system library of major `newest` or older, the newest the package can load: conda-forge
/// keeps every major (a pin there is user-level); a distribution ships one, so elsewhere it is
/// advice.
fn older_major(cx: &Cx<'_>, package: &str, what: &str, newest: u32) -> Vec<Fix> {
    let code = Code::IoBackendMissing;
    let conda_name = abidoc_knowledge::system_libs::by_what(what)
        .and_then(|s| s.conda.first())
        .and_then(|c| Name::new(c));
    let above = newest.saturating_add(1);
    let why = format!(
        "{package} loads {what} {newest} or an older major and nothing newer: the {what} installed is none of those (or none at all)."
    );
    let title = format!("Install {what} {newest} or older, the newest {package} can load");
    let mut fixes = Vec::new();
    if let Some(c) = &conda_name
        && let Some(v) = crate::fix::Version::new(&above.to_string())
    {
        let step = Step::CondaInstall {
            channel: CondaChannel::CondaForge,
            packages: vec![Requirement::Below(c.clone(), v)],
        };
        if cx.world.in_conda() || cx.scene.mentions_conda {
            fixes.push(Fix::new(code, "older-major", FixKind::InstallMissing, title, why).step(step));
            return fixes;
        }
        fixes.push(
            Fix::new(code, "older-major", FixKind::Advice, title, format!("{why} A distribution ships one major of it; conda-forge has each."))
                .step(Step::Manual(format!(
                    "in a conda environment: conda install -c conda-forge \"{c}<{above}\"; otherwise the distribution's {what} where it is {newest} or older (Ubuntu 22.04 and 24.04 ship 4 and 6), or a {what} {newest} build on the loader's path"
                ))),
        );
    }
    fixes
}

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    package: &str,
    backend: Option<&str>,
    newest: Option<u32>,
) -> Diagnostic {
    let code = Code::IoBackendMissing;
    let mut d = blank(code, source);
    d.package = Some(package.to_owned());
    let facts = abidoc_knowledge::packages::package(package);
    let all: &[IoBackend] = facts.map_or(&[], |f| f.io_backends.as_slice());
    let stated = cx.package_version(package);
    let asked = backend.and_then(|b| {
        all.iter()
            .find(|k| k.names.iter().any(|n| n.eq_ignore_ascii_case(b)))
    });
    // A backend only newer releases have, named by the message, dates the release at least.
    let version = stated
        .as_deref()
        .or(asked.and_then(|b| b.from.as_deref()))
        .and_then(abidoc_knowledge::Version::parse);
    let usable: Vec<&IoBackend> = all
        .iter()
        .filter(|b| b.covers(version.as_ref()))
        .collect();
    d.message = match (asked, backend) {
        (Some(b), _) => match (b.executable.as_deref(), newest) {
            (Some(program), _) => format!(
                "{package} found no `{program}` program to run: none of its own, and none on PATH"
            ),
            (None, Some(n)) => format!(
                "{package} found no {} it can load: it loads major {n} and older, and the one installed is newer (or none is installed)",
                label(b)
            ),
            (None, None) => format!(
                "{package} has no {} backend: {} is not installed",
                label(b),
                b.pip.as_deref().or(b.system.as_deref()).unwrap_or(label(b))
            ),
        },
        (None, Some(b)) => format!("{package} has no `{b}` backend installed"),
        (None, None) => format!(
            "{package} found no backend to read or write the file: none of the libraries it decodes media through is installed"
        ),
    };
    if !usable.is_empty() {
        let names: Vec<&str> = usable.iter().map(|b| label(b)).collect();
        d.evidence.push(format!(
            "{package}{} reads and writes media through {}",
            stated.as_deref().map(|v| format!(" {v}")).unwrap_or_default(),
            names.join(", ")
        ));
    }
    let mut fixes: Vec<Fix> = Vec::new();
    if let Some(b) = asked {
        // The backend the message names leads: it is what the code asked for.
        fixes.extend(install(cx, package, b, newest).into_iter().map(Fix::leading));
    }
    // Otherwise (or besides) the backends this release reads through, the table's first (the
    // one that needs nothing else) first.
    for b in usable.iter().filter(|b| asked != Some(**b)).take(2) {
        fixes.extend(install(cx, package, b, None));
    }
    d.fixes = crate::fix::rank(fixes);
    d
}
